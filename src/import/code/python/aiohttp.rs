//! aiohttp-retry: `RetryClient(retry_options=ExponentialRetry(...))` (2.x) and the
//! 1.x per-call API `retry_client.post(url, retry_attempts=, retry_for_statuses=)`
//! (`retry-in-code.md` §1.1).
//!
//! Source: inyutin/aiohttp_retry@4d336bdc `aiohttp_retry/retry_options.py` L13-L78
//! (`ExponentialRetry(attempts=3, start_timeout=0.1, max_timeout=30.0, factor=2.0,
//! statuses=set(), exceptions=set(), methods=None -> {HEAD, GET, PUT, DELETE,
//! OPTIONS, TRACE, POST, CONNECT, PATCH}, retry_all_server_errors=True)`),
//! `client.py` L88-L151 (attempts count every try; no jitter; no Retry-After;
//! exceptions retried only when listed).

use super::eval::{Ctx, Eval, Val};
use super::settings::{count, exception_signals, seconds_ms, status_signals, statuses};
use crate::import::code::model::{CodeClient, Setting};
use crate::import::Platform;
use crate::policy::model::{Jitter, Signal};
use tree_sitter::Node;

/// aiohttp-retry's default `methods`.
const DEFAULT_METHODS: [&str; 9] = [
    "HEAD", "GET", "PUT", "DELETE", "OPTIONS", "TRACE", "POST", "CONNECT", "PATCH",
];

/// `ExponentialRetry(...)` at `call`.
pub fn exponential<'t>(cx: &Ctx<'_, 't>, call: Node<'t>) -> CodeClient {
    let span = call.byte_range();
    let mut c = CodeClient::new(
        Platform::AiohttpRetry,
        "ExponentialRetry(...)",
        span.clone(),
    );
    let arg = |k: &str, i: usize| cx.arg(call, k, Some(i));
    c.attempts = Some(match arg("attempts", 0) {
        Some(v) => count(cx, v, 0, 3, "aiohttp-retry's default, 3 attempts"),
        None => Setting::default(
            3,
            span.clone(),
            "aiohttp-retry 2.x: attempts = 3 (every try counts)",
        ),
    });
    let secs = |k: &str, i: usize, d: f64| match arg(k, i) {
        Some(v) => seconds_ms(
            cx,
            v,
            d * 1000.0,
            &format!("aiohttp-retry's default, {d} s"),
        ),
        None => Setting::default(
            d * 1000.0,
            span.clone(),
            format!("aiohttp-retry 2.x: {k} = {d} s"),
        ),
    };
    c.backoff.base = Some(secs("start_timeout", 1, 0.1));
    c.backoff.cap = Some(secs("max_timeout", 2, 30.0));
    c.backoff.multiplier = Some(match arg("factor", 3) {
        Some(v) => match cx.eval(v).known().and_then(|x| x.num()) {
            Some(f) => Setting::literal(f, v.byte_range()),
            None => Setting::assumed(
                2.0,
                v.byte_range(),
                cx.expr(v),
                "aiohttp-retry's default, 2",
            ),
        },
        None => Setting::default(2.0, span.clone(), "aiohttp-retry 2.x: factor = 2"),
    });
    c.backoff.jitter = Some(Setting::default(
        Jitter::None,
        span.clone(),
        "aiohttp-retry `ExponentialRetry` adds no jitter",
    ));
    // Statuses, every 5xx unless retry_all_server_errors=False, listed exceptions.
    let mut signals: Vec<Signal> = Vec::new();
    let mut assumed: Option<String> = None;
    let all_5xx = arg("retry_all_server_errors", 6)
        .map(|v| cx.eval(v).known().is_none_or(|x| x.truthy()))
        .unwrap_or(true);
    if all_5xx {
        signals.push(Signal::Class(5));
    }
    if let Some(v) = arg("statuses", 4) {
        match statuses(cx, v) {
            Some(s) => signals.extend(status_signals(s)),
            None => assumed = Some(cx.expr(v)),
        }
    }
    if let Some(v) = arg("exceptions", 5) {
        match exception_signals(cx, v) {
            Some(s) => signals.extend(s),
            None => {
                if !matches!(cx.eval(v), Eval::Known(Val::Seq(ref x)) if x.is_empty()) {
                    assumed = Some(cx.expr(v));
                }
            }
        }
    }
    // `evaluate_response_callback` is code: aiohttp-retry retries every response
    // it returns False for, so it may retry anything (issue 42: the reading that
    // retries, RL019).
    if let Some(v) = cx.arg(call, "evaluate_response_callback", None) {
        assumed.get_or_insert(cx.expr(v));
    }
    c.retry_on = Some(match assumed {
        Some(expr) => Setting::assumed(
            crate::import::code::lower::MAY_RETRY_ANYTHING.to_vec(),
            span.clone(),
            expr,
            "may retry anything",
        ),
        None => Setting::default(
            signals,
            span.clone(),
            "aiohttp-retry 2.x: every 5xx (retry_all_server_errors = True), the listed \
             statuses, exceptions only when listed",
        ),
    });
    c.methods = methods(cx, arg("methods", 7), &span);
    c
}

fn methods(
    cx: &Ctx<'_, '_>,
    v: Option<Node<'_>>,
    span: &std::ops::Range<usize>,
) -> Option<Setting<Vec<String>>> {
    match v {
        None => Some(Setting::default(
            DEFAULT_METHODS.map(String::from).to_vec(),
            span.clone(),
            "aiohttp-retry: methods = HEAD, GET, PUT, DELETE, OPTIONS, TRACE, POST, CONNECT, PATCH",
        )),
        Some(v) => match cx.eval(v) {
            Eval::Known(Val::Seq(items)) => Some(Setting::literal(
                items
                    .iter()
                    .filter_map(|i| match i {
                        Val::Str(s) => Some(s.to_ascii_uppercase()),
                        _ => None,
                    })
                    .collect(),
                v.byte_range(),
            )),
            Eval::Known(Val::None) => methods(cx, None, span),
            _ => Some(Setting::assumed(
                DEFAULT_METHODS.map(String::from).to_vec(),
                v.byte_range(),
                cx.expr(v),
                "aiohttp-retry's default methods (POST included)",
            )),
        },
    }
}

/// `RetryClient(...)` without `retry_options`: aiohttp-retry 2.x uses
/// `ExponentialRetry(attempts=3)`.
pub fn default_client<'t>(cx: &Ctx<'_, 't>, call: Node<'t>) -> CodeClient {
    let mut c = exponential(cx, call);
    c.kind = "RetryClient(...)".into();
    c.notes.push((
        call.byte_range(),
        "aiohttp-retry 2.x: RetryClient without retry_options uses ExponentialRetry(attempts=3)"
            .into(),
    ));
    c
}

/// The 1.x per-call form `client.post(url, retry_attempts=...)`: a client at the
/// call. `None` when the call has no `retry_*` keyword.
pub fn per_call<'t>(cx: &Ctx<'_, 't>, call: Node<'t>) -> Option<CodeClient> {
    let kw = cx.keywords(call);
    if !kw.iter().any(|(k, _)| k.starts_with("retry_")) {
        return None;
    }
    let get = |k: &str| kw.iter().find(|(n, _)| *n == k).map(|(_, v)| *v);
    let span = call.byte_range();
    let mut c = CodeClient::new(Platform::AiohttpRetry, "RetryClient 1.x call", span.clone());
    c.attempts = Some(match get("retry_attempts") {
        Some(v) => count(cx, v, 0, 3, "aiohttp-retry 1.x's default, 3 attempts"),
        None => Setting::default(3, span.clone(), "aiohttp-retry 1.x: retry_attempts = 3"),
    });
    let secs = |k: &str, d: f64| match get(k) {
        Some(v) => seconds_ms(
            cx,
            v,
            d * 1000.0,
            &format!("aiohttp-retry's default, {d} s"),
        ),
        None => Setting::default(
            d * 1000.0,
            span.clone(),
            format!("aiohttp-retry 1.x: {k} = {d} s"),
        ),
    };
    c.backoff.base = Some(secs("retry_start_timeout", 0.1));
    c.backoff.cap = Some(secs("retry_max_timeout", 30.0));
    c.backoff.multiplier = Some(match get("retry_factor") {
        Some(v) => match cx.eval(v).known().and_then(|x| x.num()) {
            Some(f) => Setting::literal(f, v.byte_range()),
            None => Setting::assumed(
                2.0,
                v.byte_range(),
                cx.expr(v),
                "aiohttp-retry's default, 2",
            ),
        },
        None => Setting::default(2.0, span.clone(), "aiohttp-retry 1.x: retry_factor = 2"),
    });
    c.backoff.jitter = Some(Setting::default(
        Jitter::None,
        span.clone(),
        "aiohttp-retry adds no jitter",
    ));
    let mut signals = Vec::new();
    if let Some(e) = get("retry_exceptions") {
        if let Some(s) = exception_signals(cx, e) {
            signals.extend(s);
        }
    }
    c.retry_on = Some(match get("retry_for_statuses") {
        Some(v) => match statuses(cx, v) {
            Some(s) => {
                signals.extend(status_signals(s));
                Setting::literal(signals, v.byte_range())
            }
            None => Setting::assumed(
                crate::import::code::lower::MAY_RETRY_ANYTHING.to_vec(),
                v.byte_range(),
                cx.expr(v),
                "may retry anything",
            ),
        },
        None => Setting::default(
            signals,
            span.clone(),
            "aiohttp-retry 1.x: retry_for_statuses = None, only the listed exceptions",
        ),
    });
    c.methods = Some(Setting::default(
        DEFAULT_METHODS.map(String::from).to_vec(),
        span.clone(),
        "aiohttp-retry: every method it is called with, POST included",
    ));
    Some(c)
}
