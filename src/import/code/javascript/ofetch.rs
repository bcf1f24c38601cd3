//! ofetch: `ofetch.create({retry, retryDelay, retryStatusCodes, timeout})`,
//! `$fetch.create(...)`, and single calls `ofetch(url, {retry, method})` /
//! `$fetch(url, {...})` (src: unjs/ofetch@dfbe3ca4 `src/fetch.ts` L22–76,
//! `src/utils.ts` L10–15; `retry-in-code.md` §1.2).
//!
//! Defaults: `retry` = 1 retry for GET, HEAD, OPTIONS, TRACE, CONNECT and 0 for
//! PATCH, POST, PUT, DELETE; `retryStatusCodes` 408 409 425 429 500 502 503 504
//! (network errors count as 500); `retryDelay` 0 ms; no jitter; Retry-After
//! ignored; `timeout` per attempt, none by default. The trap: `retry: 3` as a
//! number applies to every method, `POST` included.

use super::super::model::{CodeClient, RetryAfter, Setting};
use super::eval::{self, Value};
use super::{callee_path, calls, names_of, Ctx};
use crate::import::Platform;
use crate::policy::model::{Jitter, Signal};
use tree_sitter::Node;

const V: &str = "ofetch 1.x";
const STATUSES: &[u16] = &[408, 409, 425, 429, 500, 502, 503, 504];

/// Reads `call` when it builds an ofetch client or is an ofetch call with retry
/// options.
pub fn read(ctx: &Ctx<'_, '_>, call: Node<'_>) -> Option<CodeClient> {
    if call.kind() != "call_expression" {
        return None;
    }
    let f = call.child_by_field_name("function")?;
    let (root, members) = callee_path(ctx, f)?;
    // An instance (`const api = ofetch.create({...})`) called with its own retry
    // options, or created from: its ancestors' options apply first.
    let mut parents: Vec<Node<'_>> = Vec::new();
    let mut base = root;
    for i in 0..=8 {
        if ctx.is_lib(base, "ofetch", &["ofetch", "$fetch"]) {
            break;
        }
        if i == 8 {
            return None;
        }
        let d = eval::unwrap(ctx.scope.decl(base)?);
        if d.kind() != "call_expression" {
            return None;
        }
        let (r, m) = callee_path(ctx, d.child_by_field_name("function")?)?;
        if m != ["create"] {
            return None;
        }
        if let Some(o) = d
            .child_by_field_name("arguments")
            .and_then(|a| a.named_child(0))
        {
            parents.push(o);
        }
        base = r;
    }
    let args = call.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    let args: Vec<Node<'_>> = args.named_children(&mut cursor).collect();
    let (instance, options) = match members.as_slice() {
        ["create"] => (true, args.first().copied()),
        [] | ["raw"] | ["native"] => (false, args.get(1).copied()),
        _ => return None,
    };
    let obj = options.and_then(|o| ctx.object(o));
    let has_retry = obj.is_some_and(|o| {
        eval::props(ctx.file, o)
            .iter()
            .any(|(k, _, _)| k.starts_with("retry"))
    });
    if !instance && !has_retry {
        return None;
    }
    let span = call.byte_range();
    let kind = match (instance, parents.is_empty()) {
        (true, true) => "ofetch.create(...)".to_string(),
        (false, true) => "ofetch(..., {retry})".to_string(),
        (true, false) => format!("{root}.create(...)"),
        (false, false) => format!("{root}(..., {{retry}})"),
    };
    let mut c = CodeClient::new(Platform::Ofetch, kind, span.clone());
    c.names = names_of(ctx, call);
    c.attempts = Some(Setting::default(
        2,
        span.clone(),
        format!("{V}: retry = 1 for GET, HEAD, OPTIONS; 0 for PATCH, POST, PUT, DELETE"),
    ));
    c.methods = Some(Setting::default(
        ["GET", "HEAD", "OPTIONS", "TRACE", "CONNECT"]
            .map(String::from)
            .to_vec(),
        span.clone(),
        format!("{V}: no retry for PATCH, POST, PUT, DELETE unless `retry` is set"),
    ));
    let mut signals: Vec<Signal> = STATUSES.iter().map(|&s| Signal::Status(s)).collect();
    signals.extend([Signal::ConnectFailure, Signal::Reset]);
    c.retry_on = Some(Setting::default(
        signals,
        span.clone(),
        format!("{V}: retryStatusCodes 408 409 425 429 500 502 503 504, network errors as 500"),
    ));
    c.backoff.base = Some(Setting::default(
        0.0,
        span.clone(),
        format!("{V}: retryDelay = 0 ms"),
    ));
    c.backoff.jitter = Some(Setting::default(
        Jitter::None,
        span.clone(),
        format!("{V}: no jitter"),
    ));
    c.retry_after = Some(RetryAfter {
        honor: Setting::default(false, span.clone(), format!("{V}: Retry-After is not read")),
        max: None,
    });
    let objects: Vec<Node<'_>> = parents
        .iter()
        .rev()
        .filter_map(|p| ctx.object(*p))
        .chain(obj)
        .collect();
    for o in objects {
        for (key, v, pair) in eval::props(ctx.file, o) {
            let vs = v.byte_range();
            let value = ctx.scope.eval(ctx.file, v, &[]);
            match key.as_str() {
                "retry" => match value {
                    Some(Value::Num(n)) => {
                        let n = n as i64;
                        c.attempts = Some(Setting::literal(n.saturating_add(1), vs.clone()));
                        c.methods = None;
                        c.notes.push((
                            vs,
                            format!("ofetch: `retry: {n}` as a number applies to every method, POST included ({} attempts); the per-method default is replaced", n.saturating_add(1)),
                        ));
                    }
                    Some(Value::Bool(false)) => c.attempts = Some(Setting::literal(1, vs)),
                    _ => {
                        c.attempts = Some(Setting::assumed(
                            2,
                            vs,
                            ctx.scope.provenance(ctx.file, v),
                            "ofetch's default (1 retry, not for POST)",
                        ))
                    }
                },
                "retryDelay" => match value.as_ref().and_then(Value::num) {
                    Some(n) => c.backoff.base = Some(Setting::literal(n, vs)),
                    None => {
                        c.backoff.jitter = Some(Setting::assumed(
                            Jitter::None,
                            vs,
                            ctx.scope.provenance(ctx.file, v),
                            "a delay that is not known statically, without jitter",
                        ))
                    }
                },
                "retryStatusCodes" => {
                    let codes: Option<Vec<Signal>> = match &value {
                        Some(Value::Array(a)) => a
                            .iter()
                            .map(|x| x.num().map(|n| Signal::Status(n as u16)))
                            .collect(),
                        _ => None,
                    };
                    match codes {
                        Some(mut s) => {
                            s.extend([Signal::ConnectFailure, Signal::Reset]);
                            c.retry_on = Some(Setting::literal(s, pair.byte_range()));
                        }
                        None => {
                            let old = c.retry_on.take().map(|s| s.value).unwrap_or_default();
                            c.retry_on = Some(Setting::assumed(
                                old,
                                vs,
                                ctx.scope.provenance(ctx.file, v),
                                "the default status codes",
                            ));
                        }
                    }
                }
                "timeout" => match value.as_ref().and_then(Value::num) {
                    Some(n) => c.attempt_timeout = Some(Setting::literal(n, vs)),
                    None => {
                        c.attempt_timeout = Some(Setting::assumed(
                            0.0,
                            vs,
                            ctx.scope.provenance(ctx.file, v),
                            "no timeout",
                        ))
                    }
                },
                _ => {}
            }
        }
    }
    if !instance {
        if let Some(site) = calls::read(ctx, call) {
            c.calls.push(site);
        }
    }
    Some(c)
}
