//! RL501 rate-limit-without-retry-after: a documented 429 response (explicit, or
//! through `4XX` when there is no explicit 429) declares no `Retry-After` header.
//! One finding per response definition: a component shared through `$ref` gives one
//! finding at the component with a label per operation that uses it.

use crate::diagnostic::{Diagnostic, Severity};
use crate::openapi::model::{Operation, Response, StatusKey};
use crate::rules::{Context, Question, RuleMeta};
use std::collections::HashMap;
use std::path::PathBuf;

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    code: "RL501",
    name: "rate-limit-without-retry-after",
    severity: Severity::Warning,
    question: Question::ServerContract,
    summary: "a documented 429 response declares no `Retry-After` header",
};

/// Checks every operation of every document.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut order: Vec<(PathBuf, u32)> = Vec::new();
    let mut groups: HashMap<(PathBuf, u32), (&Response, Vec<&Operation>)> = HashMap::new();
    for doc in ctx.documents {
        for op in &doc.operations {
            let Some(resp) = op.response_for(429) else {
                continue;
            };
            if resp.header("Retry-After").is_some() {
                continue;
            }
            let key = resp.at.key();
            groups
                .entry(key.clone())
                .or_insert_with(|| {
                    order.push(key);
                    (resp, Vec::new())
                })
                .1
                .push(op);
        }
    }
    order
        .iter()
        .filter_map(|k| groups.get(k))
        .map(|(resp, ops)| finding(resp, ops))
        .collect()
}

fn finding(resp: &Response, ops: &[&Operation]) -> Diagnostic {
    let what = match resp.status {
        StatusKey::Range(d) => format!("The `{d}XX` response, which covers 429,"),
        _ => "The 429 response".to_string(),
    };
    let whose = if ops.len() == 1 {
        format!(" of `{}`", ops[0].display())
    } else {
        format!(" shared by {} operations", ops.len())
    };
    let message = format!("{what}{whose} declares no `Retry-After` header.");
    let mut d = Diagnostic::new(&META, message, resp.at.location(), "429 without `Retry-After`")
        .with_help("Declare a `Retry-After` header (delay-seconds or HTTP-date) on the 429 response so clients know when to retry.");
    let shared = ops.len() > 1 || !is_inline(resp);
    if ops.len() == 1 {
        d = d.with_operation(ops[0].display());
    }
    if shared {
        for op in ops {
            d = d.with_label(op.key.location(), format!("used by `{}`", op.display()));
        }
    }
    d
}

/// True when the response is written inline under its status key (not via `$ref`).
fn is_inline(resp: &Response) -> bool {
    match resp.at.tree() {
        Some(t) => {
            resp.at.doc.file.path == resp.key.doc.file.path
                && t.key_of(resp.at.node) == Some(resp.key.node)
        }
        None => true,
    }
}
