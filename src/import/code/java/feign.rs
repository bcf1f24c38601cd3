//! OpenFeign `Retryer` (src: OpenFeign/feign@05dcebb1
//! `core/src/main/java/feign/Retryer.java`): `new Retryer.Default()` = period
//! 100 ms, maxPeriod 1 s, maxAttempts 5 (attempts, the first included); the
//! interval is period × 1.5^(n−1) capped at maxPeriod, no jitter; `Retry-After`
//! (`RetryableException.retryAfter`) is honoured and capped at maxPeriod. An
//! `IOException` becomes a `RetryableException` for every method, and the default
//! `ErrorDecoder` retries a response only when it carries `Retry-After`.
//! `Retryer.NEVER_RETRY` (Spring Cloud OpenFeign's default bean) retries nothing.
//!
//! A `@Bean` method returning a `Retryer` applies to every `@FeignClient` of the
//! run (the client is named `@FeignClient`, the receiver every Feign interface
//! method's call carries); a `Feign.builder().retryer(...).target(X.class, url)`
//! chain applies to interface `X`.

use super::super::model::{CodeClient, RetryAfter, Setting};
use super::super::CodeFile;
use super::ast::{self, FileIndex};
use crate::import::Platform;
use crate::policy::model::{Jitter, Signal};
use tree_sitter::Node;

const SRC: &str = "feign 13 (OpenFeign/feign@05dcebb1 `Retryer.java`)";

/// The receiver every `@FeignClient` interface method's call carries, and the name
/// of a `Retryer` bean that applies to all of them.
pub const EVERY_FEIGN_CLIENT: &str = "@FeignClient";

/// Every `Retryer.Default` of the file, as clients; notes for what is not read.
pub fn read(file: &CodeFile<'_>, idx: &FileIndex, notes: &mut Vec<String>) -> Vec<CodeClient> {
    let mut out = Vec::new();
    let feign_imported = idx
        .imports
        .iter()
        .any(|i| i.starts_with("feign.") || i == "feign.*");
    for n in ast::descendants(file.tree.root_node(), "object_creation_expression") {
        let Some(ty) = n.child_by_field_name("type") else {
            continue;
        };
        let t = file.text_of(ty);
        let t = t.split('<').next().unwrap_or(t).trim();
        let is_default = t == "Retryer.Default"
            || t == "feign.Retryer.Default"
            || (t == "Default" && idx.imports_class("feign.Retryer.Default"));
        if !is_default || !(feign_imported || t.starts_with("feign.")) {
            continue;
        }
        let mut c = retryer(file, idx, n);
        // Where it applies.
        if let Some(m) = ast::ancestor(n, &["method_declaration"]) {
            if ast::find_annotation(file, m, "Bean").is_some() {
                // The bean's method name first: it names the client in messages
                // and in `services[].clients`.
                if let Some(name) = m.child_by_field_name("name") {
                    c.names
                        .push((file.text_of(name).to_string(), name.byte_range()));
                }
                c.names
                    .push((EVERY_FEIGN_CLIENT.to_string(), n.byte_range()));
            }
        }
        if let Some(target) = builder_target(file, n) {
            c.names.push(target);
        }
        if c.names.is_empty() {
            notes.push(format!(
                "{}: a `Retryer.Default` neither returned by a `@Bean` nor in a `Feign.builder()` chain: not bound (name it in `.retrylint.yaml` `services[].clients`)",
                file.doc.file.display
            ));
        }
        out.push(c);
    }
    out
}

/// The interface of a `Feign.builder()...retryer(r)...target(X.class, url)` chain.
fn builder_target(file: &CodeFile<'_>, n: Node<'_>) -> Option<(String, std::ops::Range<usize>)> {
    let mut up = n.parent();
    // Up to the invocation chain around the argument.
    while let Some(p) = up {
        if p.kind() == "method_invocation" {
            break;
        }
        up = p.parent();
    }
    let mut top = up?;
    while let Some(p) = top.parent().filter(|p| p.kind() == "method_invocation") {
        top = p;
    }
    let mut cur = Some(top);
    while let Some(inv) = cur.filter(|i| i.kind() == "method_invocation") {
        if inv.child_by_field_name("name").map(|x| file.text_of(x)) == Some("target") {
            let first = inv.child_by_field_name("arguments")?.named_child(0)?;
            let t = file.text_of(first).trim_end_matches(".class").to_string();
            return Some((ast::simple_type(&t), first.byte_range()));
        }
        cur = inv.child_by_field_name("object");
    }
    None
}

fn retryer(file: &CodeFile<'_>, idx: &FileIndex, n: Node<'_>) -> CodeClient {
    let span = n.byte_range();
    let mut c = CodeClient::new(Platform::Feign, "Retryer.Default", span.clone());
    let args: Vec<Node<'_>> = n
        .child_by_field_name("arguments")
        .map(|a| {
            let mut cur = a.walk();
            a.named_children(&mut cur)
                .filter(|x| x.kind() != "comment")
                .collect()
        })
        .unwrap_or_default();
    let read = |i: usize, default: f64, what: &str| -> Setting<f64> {
        match args.get(i) {
            Some(a) => match ast::number(file, idx, *a) {
                Some(v) => Setting::literal(v, a.byte_range()),
                None => Setting::assumed(
                    default,
                    a.byte_range(),
                    file.text_of(*a),
                    format!("the library default: {what}"),
                ),
            },
            None => Setting::default(default, span.clone(), format!("{what} ({SRC})")),
        }
    };
    let period = read(0, 100.0, "`period` = 100 ms");
    let max_period = read(1, 1000.0, "`maxPeriod` = 1000 ms");
    let attempts = read(2, 5.0, "`maxAttempts` = 5 attempts");
    c.attempts = Some(Setting {
        value: attempts.value.round() as i64,
        span: attempts.span,
        known: attempts.known,
    });
    c.notes.push((
        span.clone(),
        "Feign counts attempts: `maxAttempts` includes the first call".to_string(),
    ));
    c.retry_on = Some(Setting::default(
        vec![Signal::ConnectFailure, Signal::Reset, Signal::Timeout],
        span.clone(),
        format!("every `IOException` (connect, reset, read timeout) for every method, and a response only when it carries `Retry-After` ({SRC}, `ErrorDecoder.Default`)"),
    ));
    c.backoff.multiplier = Some(Setting::default(
        1.5,
        span.clone(),
        format!("interval × 1.5 per attempt ({SRC})"),
    ));
    c.backoff.jitter = Some(Setting::default(
        Jitter::None,
        span.clone(),
        format!("no jitter ({SRC})"),
    ));
    c.retry_after = Some(RetryAfter {
        honor: Setting::default(
            true,
            span.clone(),
            format!("`Retry-After` is honoured ({SRC})"),
        ),
        max: Some(max_period.clone()),
    });
    c.backoff.base = Some(period);
    c.backoff.cap = Some(max_period);
    c
}
