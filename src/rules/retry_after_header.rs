//! Shared by RL501 (429) and RL502 (503): a documented response for a status
//! (explicit, or through its `NXX` range when there is no explicit code; `default`
//! never counts) that declares no `Retry-After` header (names compare
//! case-insensitively; a missing `headers` map counts as none).

use crate::diagnostic::Diagnostic;
use crate::openapi::model::StatusKey;
use crate::rules::grouping::{group_responses, whose, with_users};
use crate::rules::{Context, RuleMeta};

/// One finding per response definition for `code` without `Retry-After`.
pub fn missing_retry_after(
    ctx: &Context<'_>,
    meta: &'static RuleMeta,
    code: u16,
    help: &str,
) -> Vec<Diagnostic> {
    group_responses(ctx, |op| {
        op.response_for(code)
            .filter(|r| r.header("Retry-After").is_none())
    })
    .into_iter()
    .map(|g| {
        let ops = g.operations();
        let what = match g.first().status {
            StatusKey::Range(d) => format!("The `{d}XX` response, which covers {code},"),
            _ => format!("The {code} response"),
        };
        let message = format!("{what} {} declares no `Retry-After` header.", whose(&ops));
        let d = Diagnostic::new(
            meta,
            message,
            g.at.location(),
            format!("{code} without `Retry-After`"),
        )
        .with_help(help);
        with_users(d, &g.at, &ops)
    })
    .collect()
}

/// The fix of RL501 and RL502: a `Retry-After` header on the response (safe: it
/// documents what the server sends; no request changes).
pub const FIX: crate::rules::RuleFix = crate::rules::RuleFix {
    safety: crate::fix::Safety::Safe,
    changes: "adds a `Retry-After` header (integer seconds) to the response, in the shared component when the response is a `$ref`",
    apply: fix,
};

/// `headers: {Retry-After: ...}` on the response of the finding, following its
/// `$ref` to the component it shares (in this file or another, edited once).
pub fn fix(d: &Diagnostic, texts: &dyn crate::fix::Texts) -> Option<crate::fix::Fix> {
    let path = &d.primary.location.file.path;
    let parsed = crate::fix::text::read(texts, path)?;
    let edits = retry_after(texts, path, &parsed, &d.primary.location.pointer, 0)?;
    crate::fix::Fix::new(
        "Add a `Retry-After` header to the response",
        crate::fix::Safety::Safe,
        edits,
    )
}

/// The edits adding the header to the response at `pointer` of `parsed` (`depth`:
/// `$ref`s followed so far; a chain of more than 16 is given up).
fn retry_after(
    texts: &dyn crate::fix::Texts,
    path: &std::path::Path,
    parsed: &crate::fix::text::Parsed,
    pointer: &str,
    depth: usize,
) -> Option<Vec<crate::fix::Edit>> {
    use crate::fix::text::{insert_entry, parse};
    use crate::source::tree::Kind;
    use serde_json::json;
    let t = parsed.tree.as_ref()?;
    let node = parsed.at_pointer(pointer)?;
    let node = if t.kind(node) == Kind::Map {
        node
    } else {
        t.parent(node)?
    };
    if let Some(reference) = t.get(node, "$ref").and_then(|r| t.as_str(r)) {
        let target = crate::source::pointer::parse_ref(reference);
        if target.remote || depth > 16 {
            return None;
        }
        let file = if target.file.is_empty() {
            path.to_path_buf()
        } else {
            let joined = path.parent()?.join(&target.file);
            std::fs::canonicalize(&joined).unwrap_or(joined)
        };
        let other = parse(&file, texts.text(&file)?);
        let pointer = format!(
            "/{}",
            target
                .tokens
                .iter()
                .map(|s| crate::source::pointer::escape(s))
                .collect::<Vec<_>>()
                .join("/")
        );
        return retry_after(texts, &file, &other, &pointer, depth + 1);
    }
    let swagger2 = t.root().and_then(|r| t.get(r, "swagger")).is_some();
    let header = if swagger2 {
        json!({"type": "integer", "description": "Seconds to wait before retrying"})
    } else {
        json!({"description": "Seconds to wait before retrying", "schema": {"type": "integer"}})
    };
    let (span, text) = match t.get(node, "headers") {
        Some(h) if t.kind(h) == Kind::Map => insert_entry(parsed, h, "Retry-After", &header)?,
        Some(_) => return None,
        None => insert_entry(parsed, node, "headers", &json!({ "Retry-After": header }))?,
    };
    Some(vec![crate::fix::Edit {
        path: path.to_path_buf(),
        span,
        text,
    }])
}
