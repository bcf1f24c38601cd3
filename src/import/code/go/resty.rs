//! go-resty clients: `resty.New()` (also `NewWithClient`, `NewWithLocalAddr`,
//! `NewWithTransportSettings`) and its setters, whether chained on the
//! constructor (`resty.New().SetRetryCount(3).SetRetryWaitTime(..)`) or called
//! later on the variable or field that holds the client
//! (`e.httpClient_.SetRetryCount(..)`).
//!
//! The major version comes from the import path (`github.com/go-resty/resty/v2`,
//! `resty.dev/v3`), the exact one from the nearest `go.mod`:
//! - v2 (src: go-resty/resty@c34e4605 (branch v2) `retry.go` `Backoff`,
//!   `jitterBackoff`; `client.go` L1458): `RetryCount` 0, wait 100 ms..2 s,
//!   capped exponential with equal jitter (`temp/2 + rand(temp/2)`, at least the
//!   wait time), retries every transport error for every method (go-resty/resty
//!   issue #777); a retry condition replaces that default; `Retry-After` only
//!   through `SetRetryAfter` (clamped to the max wait).
//! - v3 (src: go-resty/resty@e7bb2cd5 (branch v3) `retry.go`
//!   `applyRetryDefaultConditions`, `NextWaitDuration`; `request.go` L1309–1344,
//!   L1682 `idempotentMethods`): idempotent methods only (GET, HEAD, OPTIONS, PUT,
//!   DELETE, TRACE) unless `SetAllowNonIdempotentRetry(true)`; default conditions
//!   transport errors, 429, >= 500 except 501; `Retry-After` on 429/503 taken as
//!   is; equal jitter.
//! - v1 (`gopkg.in/resty.v1`): read as v2 (the same retry loop).

use super::condition;
use super::imports::RestyVersion;
use super::settings;
use super::{name_of, same_name, Ctx};
use crate::import::code::lower::MAY_RETRY_ANYTHING;
use crate::import::code::model::{CodeClient, Known, RetryAfter, Setting, Span};
use crate::import::Platform;
use crate::policy::model::{Jitter, Signal};
use tree_sitter::Node;

/// resty's `defaultWaitTime` (ms).
pub const DEFAULT_WAIT_MS: f64 = 100.0;
/// resty's `defaultMaxWaitTime` (ms).
pub const DEFAULT_MAX_WAIT_MS: f64 = 2_000.0;

const CONSTRUCTORS: &[&str] = &[
    "New",
    "NewWithClient",
    "NewWithLocalAddr",
    "NewWithTransportSettings",
    "NewWithDialer",
];

const SETTERS: &[&str] = &[
    "SetRetryCount",
    "SetRetryWaitTime",
    "SetRetryMaxWaitTime",
    "AddRetryCondition",
    "AddRetryConditions",
    "SetRetryConditions",
    "SetRetryAfter",
    "SetRetryStrategy",
    "SetTimeout",
    "SetAllowNonIdempotentRetry",
    "SetRetryDefaultConditions",
    "EnableRetryDefaultConditions",
    "DisableRetryDefaultConditions",
    "SetRetryResetReaders",
    "SetRetryHooks",
    "AddRetryHook",
    "AddRetryHooks",
    "SetLogger",
    "SetDebug",
    "SetTransport",
    "SetTLSClientConfig",
    "SetBaseURL",
    "SetHostURL",
    "SetHeader",
    "SetHeaders",
    "SetAuthToken",
    "SetBasicAuth",
    "SetCookieJar",
    "SetProxy",
    "SetContentLength",
    "SetCloseConnection",
    "SetRedirectPolicy",
    "SetJSONMarshaler",
    "SetJSONUnmarshaler",
    "OnBeforeRequest",
    "OnAfterResponse",
    "OnError",
];

/// A retry condition: the signals read from its body, or (span, expression) of
/// one not read.
type Condition = Result<Setting<Vec<Signal>>, (Span, String)>;

struct Resty {
    c: CodeClient,
    /// The constructor call.
    node_id: usize,
    version: RestyVersion,
    retries_set: bool,
    wait: Option<Setting<f64>>,
    max_wait: Option<Setting<f64>>,
    /// Retry conditions: read signals, or the expression of one not read.
    conditions: Vec<Condition>,
    default_conditions: Option<bool>,
    allow_non_idempotent: Option<(bool, Span)>,
    retry_after_fn: Option<(Span, String)>,
    strategy_fn: Option<(Span, String)>,
}

/// The resty clients of the file.
pub fn read(ctx: &Ctx<'_>) -> Vec<CodeClient> {
    let Some(version) = ctx.imports.resty_version.clone() else {
        return Vec::new();
    };
    let mut found: Vec<Resty> = Vec::new();
    let mut setters: Vec<Node<'_>> = Vec::new();
    for &call in &ctx.calls {
        let Some((op, field)) = selector_call(ctx, call) else {
            continue;
        };
        if CONSTRUCTORS.contains(&field)
            && op.kind() == "identifier"
            && ctx.imports.is_resty(ctx.text(op))
        {
            let mut c = CodeClient::new(
                Platform::Resty,
                format!("resty.{field}()"),
                call.byte_range(),
            );
            c.names.extend(name_of(ctx, chain_top(ctx, call)));
            super::add_return_names(ctx, &mut c, call);
            found.push(Resty {
                c,
                node_id: call.id(),
                version: version.clone(),
                retries_set: false,
                wait: None,
                max_wait: None,
                conditions: Vec::new(),
                default_conditions: None,
                allow_non_idempotent: None,
                retry_after_fn: None,
                strategy_fn: None,
            });
        } else if SETTERS.contains(&field) {
            setters.push(call);
        }
    }
    // Inner setters of a chain end first: apply in order of their end.
    setters.sort_by_key(|n| (n.end_byte(), n.start_byte()));
    for call in setters {
        let root = chain_root(ctx, call);
        let idx = found
            .iter()
            .position(|r| r.node_id == root.id())
            .or_else(|| {
                let name = ctx.text(root);
                found.iter().rposition(|r| {
                    r.c.span.start < call.start_byte()
                        && r.c.names.iter().any(|(n, _)| same_name(n, name))
                })
            });
        if let Some(i) = idx {
            apply(ctx, &mut found[i], call);
        }
    }
    found.into_iter().map(finish).collect()
}

/// `(operand, field)` of a call `operand.field(...)`.
fn selector_call<'t>(ctx: &Ctx<'_>, call: Node<'t>) -> Option<(Node<'t>, &'static str)> {
    let f = call.child_by_field_name("function")?;
    if f.kind() != "selector_expression" {
        return None;
    }
    let op = f.child_by_field_name("operand")?;
    let field = ctx.text(f.child_by_field_name("field")?);
    let known = CONSTRUCTORS
        .iter()
        .chain(SETTERS.iter())
        .find(|k| **k == field)?;
    Some((op, known))
}

/// The outermost setter call of the chain `call` starts.
fn chain_top<'t>(ctx: &Ctx<'_>, call: Node<'t>) -> Node<'t> {
    let mut cur = call;
    for _ in 0..256 {
        let Some(sel) = cur.parent().filter(|p| p.kind() == "selector_expression") else {
            break;
        };
        let Some(up) = sel.parent().filter(|p| p.kind() == "call_expression") else {
            break;
        };
        if selector_call(ctx, up).is_none_or(|(_, f)| !SETTERS.contains(&f)) {
            break;
        }
        cur = up;
    }
    cur
}

/// The receiver a chain of setters starts from (a constructor call or a name).
fn chain_root<'t>(ctx: &Ctx<'_>, call: Node<'t>) -> Node<'t> {
    let mut cur = call;
    for _ in 0..256 {
        let Some((op, field)) = selector_call(ctx, cur) else {
            break;
        };
        if !SETTERS.contains(&field) {
            break;
        }
        if op.kind() == "call_expression"
            && selector_call(ctx, op)
                .is_some_and(|(_, f)| SETTERS.contains(&f) || CONSTRUCTORS.contains(&f))
        {
            cur = op;
            if selector_call(ctx, op).is_some_and(|(_, f)| CONSTRUCTORS.contains(&f)) {
                return op;
            }
            continue;
        }
        return op;
    }
    cur
}

fn apply(ctx: &Ctx<'_>, r: &mut Resty, call: Node<'_>) {
    let Some((_, field)) = selector_call(ctx, call) else {
        return;
    };
    let arg = call
        .child_by_field_name("arguments")
        .and_then(|a| a.named_child(0));
    let v3 = r.version.major >= 3;
    match (field, arg) {
        ("SetRetryCount", Some(a)) => {
            r.retries_set = true;
            r.c.attempts = Some(settings::retries(
                ctx,
                &mut r.c,
                a,
                1,
                "at least one retry (the count is set, its value is not known)",
            ));
        }
        ("SetRetryWaitTime", Some(a)) => {
            r.wait = Some(settings::duration(
                ctx,
                &mut r.c,
                a,
                "SetRetryWaitTime",
                DEFAULT_WAIT_MS,
                "resty's default, 100 ms",
            ));
        }
        ("SetRetryMaxWaitTime", Some(a)) => {
            r.max_wait = Some(settings::duration(
                ctx,
                &mut r.c,
                a,
                "SetRetryMaxWaitTime",
                DEFAULT_MAX_WAIT_MS,
                "resty's default, 2 s",
            ));
        }
        ("SetTimeout", Some(a)) => {
            let t = settings::duration(ctx, &mut r.c, a, "SetTimeout", 0.0, "no timeout");
            r.c.attempt_timeout = Some(t);
        }
        ("AddRetryCondition" | "AddRetryConditions" | "SetRetryConditions", _) => {
            let Some(args) = call.child_by_field_name("arguments") else {
                return;
            };
            if field == "SetRetryConditions" {
                r.conditions.clear();
            }
            let mut c = args.walk();
            for a in args.named_children(&mut c) {
                let func = if a.kind() == "func_literal" {
                    Some(a)
                } else {
                    ctx.local_func(a)
                };
                r.conditions
                    .push(match func.and_then(|f| condition::read(ctx, f)) {
                        Some(signals) => Ok(Setting::literal(signals, a.byte_range())),
                        None => Err((a.byte_range(), ctx.text(a).to_string())),
                    });
            }
        }
        ("SetRetryAfter", Some(a)) => {
            r.retry_after_fn = Some((a.byte_range(), ctx.text(a).to_string()));
        }
        ("SetRetryStrategy", Some(a)) => {
            r.strategy_fn = Some((a.byte_range(), ctx.text(a).to_string()));
        }
        ("SetAllowNonIdempotentRetry", Some(a)) if v3 => {
            let b = settings::boolean(ctx, a).unwrap_or(true);
            r.allow_non_idempotent = Some((b, a.byte_range()));
        }
        ("SetRetryDefaultConditions", Some(a)) if v3 => {
            r.default_conditions = settings::boolean(ctx, a);
        }
        ("EnableRetryDefaultConditions", _) if v3 => r.default_conditions = Some(true),
        ("DisableRetryDefaultConditions", _) if v3 => r.default_conditions = Some(false),
        _ => {}
    }
}

fn transport() -> Vec<Signal> {
    vec![Signal::ConnectFailure, Signal::Reset, Signal::Timeout]
}

fn finish(r: Resty) -> CodeClient {
    let Resty {
        mut c,
        version,
        retries_set,
        wait,
        max_wait,
        conditions,
        default_conditions,
        allow_non_idempotent,
        retry_after_fn,
        strategy_fn,
        ..
    } = r;
    let label = version.label();
    let v3 = version.major >= 3;
    let span = c.span.clone();
    if !retries_set {
        c.attempts = Some(Setting::default(
            1,
            span.clone(),
            format!("RetryCount = 0, no retries ({label})"),
        ));
    } else if let Some(a) = c.attempts.as_ref().filter(|a| a.known == Known::Literal) {
        c.notes.push((
            a.span.clone(),
            format!(
                "resty counts retries: SetRetryCount({}) is {} attempts",
                a.value - 1,
                a.value
            ),
        ));
    }
    let retries = c.attempts.as_ref().is_some_and(|a| a.value > 1);

    // What is retried.
    let unread: Vec<&(Span, String)> = conditions.iter().filter_map(|c| c.as_ref().err()).collect();
    let read: Vec<&Setting<Vec<Signal>>> =
        conditions.iter().filter_map(|c| c.as_ref().ok()).collect();
    c.retry_on = Some(if let Some((s, expr)) = unread.first() {
        Setting::assumed(
            MAY_RETRY_ANYTHING.to_vec(),
            s.clone(),
            expr.clone(),
            "may retry anything (a custom retry condition whose body is not read)",
        )
    } else {
        let mut signals: Vec<Signal> = Vec::new();
        let with_defaults = if v3 {
            default_conditions.unwrap_or(true)
        } else {
            read.is_empty()
        };
        if with_defaults {
            signals.extend(transport());
            if v3 {
                signals.push(Signal::Status(429));
                signals.extend(
                    [500u16, 502, 503, 504, 505, 506, 507, 508, 510, 511]
                        .into_iter()
                        .map(Signal::Status),
                );
            }
        }
        for s in &read {
            for sig in &s.value {
                if !signals.contains(sig) {
                    signals.push(*sig);
                }
            }
        }
        match read.first() {
            Some(first) => {
                let why = if v3 && with_defaults {
                    " plus resty's default conditions"
                } else if v3 {
                    " (default conditions off)"
                } else {
                    " (a condition replaces resty v2's transport-error default)"
                };
                c.notes.push((
                    first.span.clone(),
                    format!(
                        "retry condition read from its body: retries {}{why}",
                        condition::describe(&first.value)
                    ),
                ));
                Setting::literal(signals, first.span.clone())
            }
            None if v3 => Setting::default(
                signals,
                span.clone(),
                format!(
                    "default conditions retry transport errors, 429 and every status \
                     >= 500 except 501 ({label})"
                ),
            ),
            None => Setting::default(
                signals,
                span.clone(),
                format!("retries every transport error (no status without a condition) ({label})"),
            ),
        }
    });

    // Methods.
    if v3 {
        match allow_non_idempotent {
            Some((true, s)) => {
                if retries {
                    c.notes.push((
                        s,
                        "SetAllowNonIdempotentRetry(true): POST and PATCH are retried too"
                            .to_string(),
                    ));
                }
            }
            other => {
                c.never_retries = ["POST", "PATCH", "CONNECT"].map(String::from).to_vec();
                c.methods = Some(Setting::default(
                    ["GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"]
                        .map(String::from)
                        .to_vec(),
                    other.map_or(span.clone(), |(_, s)| s),
                    format!(
                        "idempotent methods only (GET, HEAD, OPTIONS, PUT, DELETE, \
                         TRACE) unless SetAllowNonIdempotentRetry(true) ({label})"
                    ),
                ));
            }
        }
    } else if retries {
        c.notes.push((
            c.retry_on.as_ref().map_or(span.clone(), |s| s.span.clone()),
            format!(
                "{label} has no method check: every method is retried, POST too (go-resty/resty \
                 issue #777)"
            ),
        ));
    }

    // Backoff.
    let wait = wait.unwrap_or_else(|| {
        Setting::default(
            DEFAULT_WAIT_MS,
            span.clone(),
            format!("RetryWaitTime = 100 ms ({label})"),
        )
    });
    let max_wait = max_wait.unwrap_or_else(|| {
        Setting::default(
            DEFAULT_MAX_WAIT_MS,
            span.clone(),
            format!("RetryMaxWaitTime = 2 s ({label})"),
        )
    });
    c.backoff.base = Some(wait);
    c.backoff.cap = Some(max_wait.clone());
    match &strategy_fn {
        Some((s, expr)) => {
            c.backoff.jitter = Some(Setting::assumed(
                Jitter::None,
                s.clone(),
                expr.clone(),
                "no jitter (a custom retry strategy whose body is not read)",
            ));
        }
        None => {
            c.backoff.multiplier = Some(Setting::default(
                2.0,
                span.clone(),
                format!("capped exponential backoff, wait · 2^n ({label})"),
            ));
            c.backoff.jitter = Some(Setting::default(
                Jitter::Equal,
                span.clone(),
                format!("equal jitter (half the backoff plus a random half) ({label})"),
            ));
        }
    }

    // Retry-After.
    if let Some((s, expr)) = retry_after_fn {
        c.retry_after = Some(RetryAfter {
            honor: Setting::assumed(
                true,
                s,
                expr,
                "Retry-After honoured (a custom RetryAfter function, clamped to the max wait)",
            ),
            max: Some(max_wait),
        });
    } else if v3 {
        c.retry_after = Some(RetryAfter {
            honor: Setting::default(
                true,
                span.clone(),
                format!("Retry-After on 429 and 503 is waited as sent, uncapped ({label})"),
            ),
            max: None,
        });
    } else if retries {
        c.notes.push((
            span,
            format!("{label} ignores Retry-After unless SetRetryAfter sets a function"),
        ));
    }
    c
}
