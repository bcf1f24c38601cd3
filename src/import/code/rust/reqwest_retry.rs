//! reqwest-retry: `RetryTransientMiddleware::new_with_policy(policy)` with
//! `ExponentialBackoff::builder().retry_bounds(min, max).jitter(..).base(n)
//! .build_with_max_retries(n)` (or `.build_with_total_retry_duration(d)`), attached
//! with `ClientBuilder::new(reqwest::Client::new()).with(...).build()`.
//!
//! Sources: TrueLayer/reqwest-middleware@614b9474
//! `reqwest-retry/src/retryable_strategy.rs` (`DefaultRetryableStrategy`: 5xx, 408,
//! 429, timeouts, connect, incomplete message, reset/aborted; no method check; no
//! Retry-After), TrueLayer/retry-policies@a2592b85
//! `src/policies/exponential_backoff.rs` (bounds 1 s and 30 min, `Jitter::Full`,
//! base 2; `max_retries` counts retries; `build_with_total_retry_duration` has no
//! count, only the duration).

use super::super::model::{CodeClient, Setting, Span};
use super::super::CodeFile;
use super::eval::{self, Consts};
use super::syntax;
use crate::import::code::lower::MAY_RETRY_ANYTHING;
use crate::import::Platform;
use crate::policy::model::{Jitter, Signal};
use tree_sitter::Node;

const SRC: &str = "retry-policies 0.4 `ExponentialBackoff::builder()`";

/// Reads `RetryTransientMiddleware::new_with_policy[_and_strategy](...)`.
pub fn middleware(file: &CodeFile<'_>, consts: &Consts<'_>, call: Node<'_>) -> Option<CodeClient> {
    let f = syntax::function_text(file, call);
    if !f.contains("RetryTransientMiddleware") {
        return None;
    }
    let name = syntax::method_name(file, call);
    if !name.starts_with("new_with_policy") {
        return None;
    }
    let span = call.byte_range();
    let mut c = CodeClient::new(
        Platform::ReqwestRetry,
        "RetryTransientMiddleware",
        span.clone(),
    );
    let args = syntax::args(call);
    c.retry_on = Some(if name == "new_with_policy_and_strategy" {
        let s = args.get(1).copied();
        let (text, sspan) = s.map_or((String::new(), span.clone()), |s| {
            (file.text_of(s).to_string(), s.byte_range())
        });
        Setting::assumed(
            MAY_RETRY_ANYTHING.to_vec(),
            sspan,
            text,
            "a custom `RetryableStrategy`: may retry anything",
        )
    } else {
        Setting::default(
            vec![
                Signal::ConnectFailure,
                Signal::Reset,
                Signal::Timeout,
                Signal::Status(408),
                Signal::Status(429),
                Signal::Class(5),
            ],
            span.clone(),
            "`DefaultRetryableStrategy`: 5xx, 408, 429, timeouts, connect errors, resets",
        )
    });
    c.notes.push((
        span.clone(),
        "reqwest-retry has no method check (every method is retried, POST included) and ignores Retry-After".into(),
    ));
    // Where the middleware goes: the client built with `.with(...)`.
    c.names = attached_names(file, consts, call);
    let mut policy = args.first().copied();
    if let Some(p) = policy.filter(|p| p.kind() == "identifier") {
        policy = consts.get(file.text_of(p)).or(Some(p));
    }
    if let Some(p) = policy {
        read_policy(file, consts, p, &mut c);
    }
    Some(c)
}

/// The names of the client the middleware is attached to: the chain it is an
/// argument of (`ClientBuilder::new(..).with(THIS).build()`), else the variable it
/// is stored in and the chain that takes that variable (`.with(retry)`).
fn attached_names(file: &CodeFile<'_>, consts: &Consts<'_>, call: Node<'_>) -> Vec<(String, Span)> {
    let mut out = Vec::new();
    if let Some(n) = syntax::stored_name(file, call) {
        // A builder function (`fn http_client() -> ClientWithMiddleware`): the names
        // its results are stored under too (`let client = http_client();`).
        for node in syntax::descendants(file.tree.root_node(), 200_000) {
            if node.kind() == "call_expression"
                && syntax::args(node).is_empty()
                && syntax::function_text(file, node).rsplit("::").next() == Some(n.0.as_str())
            {
                if let Some(m) = syntax::stored_name(file, node) {
                    out.push(m);
                }
            }
        }
        let var = n.0.clone();
        let in_chain = file.text_of(call.parent().and_then(|p| p.parent()).unwrap_or(call));
        out.push(n);
        if !in_chain.contains(".with") {
            // `let retry = ...; ClientBuilder::new(c).with(retry).build()`.
            let _ = consts;
            for node in syntax::descendants(file.tree.root_node(), 200_000) {
                if node.kind() == "call_expression"
                    && syntax::method_name(file, node) == "with"
                    && syntax::args(node)
                        .first()
                        .is_some_and(|a| file.text_of(*a) == var)
                {
                    if let Some(m) = syntax::stored_name(file, syntax::chain_end(node)) {
                        out.push(m);
                    }
                }
            }
        }
    }
    out
}

/// `ExponentialBackoff::builder()...build_with_max_retries(n)`, read from its end.
fn read_policy(file: &CodeFile<'_>, consts: &Consts<'_>, policy: Node<'_>, c: &mut CodeClient) {
    let span = policy.byte_range();
    let text = file.text_of(policy).to_string();
    c.backoff.base = Some(Setting::default(
        1_000.0,
        span.clone(),
        format!("{SRC}: min retry interval 1 s"),
    ));
    c.backoff.cap = Some(Setting::default(
        1_800_000.0,
        span.clone(),
        format!("{SRC}: max retry interval 30 min"),
    ));
    c.backoff.multiplier = Some(Setting::default(
        2.0,
        span.clone(),
        format!("{SRC}: base 2"),
    ));
    c.backoff.jitter = Some(Setting::default(
        Jitter::Full,
        span.clone(),
        format!("{SRC}: `Jitter::Full`"),
    ));
    if !text.contains("ExponentialBackoff") {
        c.attempts = Some(Setting::assumed(
            4,
            span,
            text,
            "3 retries (the policy is not read)",
        ));
        return;
    }
    let mut total: Option<(f64, Span)> = None;
    let mut cur = Some(policy);
    for _ in 0..syntax::MAX_UP {
        let Some(n) = cur.filter(|n| n.kind() == "call_expression") else {
            break;
        };
        let args = syntax::args(n);
        let a0 = args.first().copied();
        match syntax::method_name(file, n) {
            "build_with_max_retries" => {
                if let Some(a) = a0 {
                    c.attempts = Some(match eval::int(file, consts, a) {
                        Some(v) => Setting::literal(v.saturating_add(1), a.byte_range()),
                        None => Setting::assumed(4, a.byte_range(), file.text_of(a), "3 retries"),
                    });
                }
            }
            "build_with_total_retry_duration"
            | "build_with_total_retry_duration_and_max_retries" => {
                if let Some(a) = a0 {
                    match eval::duration_ms(file, consts, a) {
                        Some(ms) => {
                            c.deadline = Some(Setting::literal(ms, a.byte_range()));
                            total = Some((ms, a.byte_range()));
                        }
                        None => {
                            c.deadline = Some(Setting::assumed(
                                60_000.0,
                                a.byte_range(),
                                file.text_of(a),
                                "a 60 s total retry duration",
                            ))
                        }
                    }
                }
            }
            "retry_bounds" => {
                if let (Some(min), Some(max)) = (args.first(), args.get(1)) {
                    c.backoff.base = Some(dur(file, consts, *min, 1_000.0));
                    c.backoff.cap = Some(dur(file, consts, *max, 1_800_000.0));
                }
            }
            "jitter" => {
                if let Some(a) = a0 {
                    let t = file.text_of(a);
                    let j = match t.rsplit("::").next().unwrap_or(t) {
                        "None" => Some(Jitter::None),
                        "Full" | "Bounded" => Some(Jitter::Full),
                        _ => None,
                    };
                    c.backoff.jitter = Some(match j {
                        Some(j) => Setting::literal(j, a.byte_range()),
                        None => Setting::assumed(Jitter::Full, a.byte_range(), t, "full jitter"),
                    });
                }
            }
            "base" => {
                if let Some(a) = a0 {
                    c.backoff.multiplier = Some(match eval::number(file, consts, a) {
                        Some(v) => Setting::literal(v, a.byte_range()),
                        None => Setting::assumed(2.0, a.byte_range(), file.text_of(a), "base 2"),
                    });
                }
            }
            _ => {}
        }
        cur = syntax::receiver(n);
    }
    if c.attempts.is_none() {
        // `build_with_total_retry_duration`: no count; as many retries as fit.
        let (n, note_span) = match &total {
            Some((ms, s)) => (retries_within(c, *ms), s.clone()),
            None => (3, span.clone()),
        };
        c.attempts = Some(Setting::default(
            n + 1,
            note_span,
            format!("{SRC}: no retry count, bounded by the total duration: about {n} retries fit (delays without jitter)"),
        ));
    }
}

fn dur(file: &CodeFile<'_>, consts: &Consts<'_>, n: Node<'_>, default: f64) -> Setting<f64> {
    match eval::duration_ms(file, consts, n) {
        Some(ms) => Setting::literal(ms, n.byte_range()),
        None => Setting::assumed(
            default,
            n.byte_range(),
            file.text_of(n),
            format!("{default} ms (the default)"),
        ),
    }
}

/// How many un-jittered delays (base * mult^k, capped) fit in `total_ms`.
fn retries_within(c: &CodeClient, total_ms: f64) -> i64 {
    let base = c
        .backoff
        .base
        .as_ref()
        .map_or(1_000.0, |s| s.value)
        .max(1.0);
    let cap = c.backoff.cap.as_ref().map_or(f64::INFINITY, |s| s.value);
    let mult = c
        .backoff
        .multiplier
        .as_ref()
        .map_or(2.0, |s| s.value)
        .max(1.0);
    let mut sum = 0.0;
    let mut d = base;
    let mut n = 0;
    while sum + d.min(cap) <= total_ms && n < 1_000 {
        sum += d.min(cap);
        d *= mult;
        n += 1;
    }
    n.max(1)
}
