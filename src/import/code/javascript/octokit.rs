//! `@octokit/plugin-retry`: `const MyOctokit = Octokit.plugin(retry)` with
//! `new MyOctokit({retry: {...}, request: {retries}})`, and `getOctokit(token,
//! opts, retry, ...)` (`@actions/github`) (src: octokit/plugin-retry.js@d6e06bd8
//! `src/index.ts`, `error-request.ts`, `wrap-request.ts`; `retry-in-code.md`
//! §1.2). The plugin is recognised by its import from `@octokit/plugin-retry`.
//!
//! Defaults: `retries: 3` (retries, so 4 attempts; `request.retries` wins over
//! `retry.retries`); any status >= 400 not in `doNotRetry` (400 401 403 404 410
//! 422 451), network errors included (Octokit reports them as 500), for every
//! method; delay (retryCount + 1)² × `retryAfterBaseValue` (1000 ms): 1 s, 4 s,
//! 9 s; no jitter; Retry-After is not read (that is plugin-throttling's job).

use super::super::model::{CodeClient, RetryAfter, Setting, Span};
use super::eval::{self, Value};
use super::{callee_path, names_of, Ctx};
use crate::import::Platform;
use crate::policy::model::{Jitter, Signal};
use tree_sitter::Node;

const V: &str = "@octokit/plugin-retry 8.x";
const DO_NOT_RETRY: &[u16] = &[400, 401, 403, 404, 410, 422, 451];
/// The 4xx statuses a server may send (RFC 9110 and registered ones).
const CLIENT_ERRORS: &[u16] = &[
    400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 418,
    421, 422, 423, 424, 425, 426, 428, 429, 431, 451,
];

/// A class built with the retry plugin: (its name, the `.plugin(...)` call, the
/// name's span).
pub type PluginClass = (String, Span, Span);

fn is_retry_plugin(ctx: &Ctx<'_, '_>, n: Node<'_>) -> bool {
    n.kind() == "identifier" && ctx.scope.module_of(ctx.text(n)) == Some("@octokit/plugin-retry")
}

fn args_of<'t>(call: Node<'t>) -> Vec<Node<'t>> {
    call.child_by_field_name("arguments")
        .map(|a| {
            let mut cursor = a.walk();
            a.named_children(&mut cursor).collect()
        })
        .unwrap_or_default()
}

/// The classes of this file built with `X.plugin(retry, ...)`.
pub fn plugin_classes(ctx: &Ctx<'_, '_>, calls: &[Node<'_>]) -> Vec<PluginClass> {
    let mut out = Vec::new();
    for &call in calls {
        if call.kind() != "call_expression" {
            continue;
        }
        let Some((_, members)) = call
            .child_by_field_name("function")
            .and_then(|f| callee_path(ctx, f))
        else {
            continue;
        };
        if members.last() != Some(&"plugin")
            || !args_of(call).iter().any(|a| is_retry_plugin(ctx, *a))
        {
            continue;
        }
        for (name, span) in names_of(ctx, call) {
            out.push((name, call.byte_range(), span));
        }
    }
    out
}

/// Reads `call` when it builds an Octokit with the retry plugin.
pub fn read(
    ctx: &Ctx<'_, '_>,
    call: Node<'_>,
    classes: &[PluginClass],
    used: &mut Vec<String>,
) -> Option<CodeClient> {
    let span = call.byte_range();
    let options = match call.kind() {
        "new_expression" => {
            let ctor = call.child_by_field_name("constructor")?;
            let name = ctx.text(ctor);
            classes.iter().find(|(n, _, _)| n == name)?;
            used.push(name.to_string());
            args_of(call).first().copied()
        }
        "call_expression" => {
            let (root, members) = callee_path(ctx, call.child_by_field_name("function")?)?;
            let last = members.last().copied().unwrap_or(root);
            let args = args_of(call);
            if last != "getOctokit" || !args.iter().skip(2).any(|a| is_retry_plugin(ctx, *a)) {
                return None;
            }
            args.get(1).copied()
        }
        _ => return None,
    };
    let mut c = base(ctx, call, span);
    if call.kind() == "call_expression" {
        c.kind = "getOctokit(..., retry)".into();
    } else {
        c.kind = format!(
            "new {}(...)",
            call.child_by_field_name("constructor")
                .map_or("", |n| ctx.text(n))
        );
    }
    if let Some(o) = options {
        read_options(ctx, o, &mut c);
    }
    Some(c)
}

/// Clients for plugin classes never instantiated in this file (named by the
/// class, so `.retrylint.yaml` can name them).
pub fn unused_classes(
    ctx: &Ctx<'_, '_>,
    classes: &[PluginClass],
    used: &[String],
) -> Vec<CodeClient> {
    classes
        .iter()
        .filter(|(n, _, _)| !used.contains(n))
        .map(|(n, call, name_span)| {
            let mut c = defaults(call.clone());
            c.kind = "Octokit.plugin(retry)".into();
            c.names = vec![(n.clone(), name_span.clone())];
            let _ = ctx;
            c
        })
        .collect()
}

fn base(ctx: &Ctx<'_, '_>, call: Node<'_>, span: Span) -> CodeClient {
    let mut c = defaults(span);
    c.names = names_of(ctx, call);
    c
}

fn signals(do_not_retry: &[u16]) -> Vec<Signal> {
    // Every 4xx but a few: one `4xx` entry (the exceptions are in the notes) keeps
    // findings about retried client errors to one per operation.
    let mut s = vec![Signal::ConnectFailure, Signal::Reset, Signal::Class(5)];
    if CLIENT_ERRORS.iter().any(|c| !do_not_retry.contains(c)) {
        s.push(Signal::Class(4));
    }
    s
}

fn defaults(span: Span) -> CodeClient {
    let mut c = CodeClient::new(
        Platform::OctokitRetry,
        "Octokit with plugin-retry",
        span.clone(),
    );
    c.attempts = Some(Setting::default(
        4,
        span.clone(),
        format!("{V}: retries = 3 (4 attempts)"),
    ));
    c.retry_on = Some(Setting::default(
        signals(DO_NOT_RETRY),
        span.clone(),
        format!("{V}: any status >= 400 not in doNotRetry (400 401 403 404 410 422 451), and network errors"),
    ));
    c.methods = None;
    c.notes.push((span.clone(), "plugin-retry retries 4xx except the statuses of doNotRetry (default 400 401 403 404 410 422 451)".into()));
    c.notes.push((span.clone(), "Octokit plugin-retry retries every method, POST included (creating issues, comments, releases)".into()));
    c.backoff.base = Some(Setting::default(
        1000.0,
        span.clone(),
        format!("{V}: (retryCount + 1)² × 1000 ms: 1 s, 4 s, 9 s"),
    ));
    c.backoff.jitter = Some(Setting::default(
        Jitter::None,
        span.clone(),
        format!("{V}: no jitter"),
    ));
    c.retry_after = Some(RetryAfter {
        honor: Setting::default(
            false,
            span,
            format!("{V}: Retry-After is plugin-throttling's job, not read here"),
        ),
        max: None,
    });
    c
}

fn read_options(ctx: &Ctx<'_, '_>, o: Node<'_>, c: &mut CodeClient) {
    let Some(obj) = ctx.object(o) else {
        c.attempts = Some(Setting::assumed(
            4,
            o.byte_range(),
            ctx.scope.provenance(ctx.file, o),
            "plugin-retry's default, 3 retries",
        ));
        return;
    };
    let retry = eval::prop(ctx.file, obj, "retry");
    let request = eval::prop(ctx.file, obj, "request");
    let retry_obj = retry.and_then(|r| ctx.object(r));
    let request_obj = request.and_then(|r| ctx.object(r));
    let assumed_retries = |n: Node<'_>| {
        Setting::assumed(
            4,
            n.byte_range(),
            ctx.scope.provenance_for(ctx.file, n, &["retr"]),
            "plugin-retry's default, 3 retries",
        )
    };
    let literal_retries = |n: Node<'_>| -> Setting<i64> {
        match ctx
            .scope
            .eval(ctx.file, n, &[])
            .as_ref()
            .and_then(Value::num)
        {
            Some(v) => Setting::literal((v as i64).saturating_add(1), n.byte_range()),
            None => assumed_retries(n),
        }
    };
    // `request.retries` wins over `retry.retries`.
    let from_request = request_obj.and_then(|r| eval::prop(ctx.file, r, "retries"));
    let from_retry = retry_obj.and_then(|r| eval::prop(ctx.file, r, "retries"));
    if let Some(n) = from_request {
        c.attempts = Some(literal_retries(n));
    } else if let (Some(r), None) = (request, request_obj) {
        c.attempts = Some(assumed_retries(r));
    } else if let Some(n) = from_retry {
        c.attempts = Some(literal_retries(n));
    } else if let (Some(r), None) = (retry, retry_obj) {
        c.attempts = Some(assumed_retries(r));
    }
    if let Some(a) = &c.attempts {
        if a.known == super::super::model::Known::Literal {
            c.notes.push((
                a.span.clone(),
                format!(
                    "plugin-retry counts retries: {} retries is {} attempts",
                    a.value - 1,
                    a.value
                ),
            ));
        }
    }
    match (retry, retry_obj) {
        (Some(r), None) => {
            c.retry_on = Some(Setting::assumed(
                signals(DO_NOT_RETRY),
                r.byte_range(),
                ctx.scope.provenance_for(ctx.file, r, &["status", "exempt"]),
                "the default doNotRetry (400 401 403 404 410 422 451)",
            ));
        }
        (_, Some(ro)) => {
            if let Some(e) = eval::prop(ctx.file, ro, "enabled") {
                if ctx.scope.eval(ctx.file, e, &[]) == Some(Value::Bool(false)) {
                    c.attempts = Some(Setting::literal(1, e.byte_range()));
                }
            }
            if let Some(d) = eval::prop(ctx.file, ro, "doNotRetry") {
                let codes: Option<Vec<u16>> = match ctx.scope.eval(ctx.file, d, &[]) {
                    Some(Value::Array(a)) => a.iter().map(|x| x.num().map(|n| n as u16)).collect(),
                    _ => None,
                };
                c.retry_on = Some(match codes {
                    Some(codes) => Setting::literal(signals(&codes), d.byte_range()),
                    None => Setting::assumed(
                        signals(DO_NOT_RETRY),
                        d.byte_range(),
                        ctx.scope.provenance(ctx.file, d),
                        "the default doNotRetry (400 401 403 404 410 422 451)",
                    ),
                });
            }
            if let Some(b) = eval::prop(ctx.file, ro, "retryAfterBaseValue") {
                if let Some(n) = ctx
                    .scope
                    .eval(ctx.file, b, &[])
                    .as_ref()
                    .and_then(Value::num)
                {
                    c.backoff.base = Some(Setting::literal(n, b.byte_range()));
                }
            }
        }
        _ => {}
    }
}
