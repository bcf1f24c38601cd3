//! got and ky: `got(url, {retry})`, `got.post(url, {retry})`, `got.extend({retry})`,
//! `ky(url, {retry})`, `ky.post(...)`, `ky.create/extend({retry})`, with `retry` an
//! object (`limit`, `methods`, `statusCodes`, `errorCodes` (got),
//! `afterStatusCodes` (ky), `maxRetryAfter`, `backoffLimit`, `noise` (got),
//! `jitter` (ky)) or a number (the limit; the default methods stay).
//!
//! Defaults (`retry-in-code.md` §1.2): got 14 (src: sindresorhus/got@d00d845a
//! `source/core/options.ts` L1145–1182, `calculate-retry-delay.ts`): limit 2,
//! methods GET PUT HEAD DELETE OPTIONS TRACE, statusCodes 408 413 429 500 502 503
//! 504 521 522 524, errorCodes ETIMEDOUT ECONNRESET EADDRINUSE ECONNREFUSED EPIPE
//! ENOTFOUND ENETUNREACH EAI_AGAIN, delay min(2^(n−1)·1000 ms, backoffLimit) +
//! U(0, noise = 100 ms), Retry-After honoured up to `maxRetryAfter` (undefined:
//! `timeout.request`). ky 1.x (src: sindresorhus/ky@3419113b
//! `source/utils/normalize.ts` L8–26, `source/types/options.ts` L195–213): limit 2,
//! methods get put head delete options trace, statusCodes 408 413 429 500 502 503
//! 504, Retry-After on 413 429 503 uncapped, delay 0.3·2^(n−1)·1000 ms, no jitter,
//! `timeout` 10 000 ms per attempt. The method filter applies to network errors
//! too, so `got.post(url, {retry: {limit: 3}})` retries nothing (RL017).
//!
//! Instances (`extend`/`create`) are clients even without `retry` (the defaults
//! retry); a single call is a client only when it sets `retry`.

use super::super::model::{CodeClient, RetryAfter, Setting};
use super::eval::{self, Value};
use super::{callee_path, calls, names_of, rl017, Ctx};
use crate::import::Platform;
use crate::policy::model::{Jitter, Signal};
use crate::retry::JitterFactor;
use tree_sitter::Node;

/// What a got/ky call is.
pub enum Read {
    /// A retry client (an instance, or a call with its own `retry`).
    Client(Box<CodeClient>),
    /// A plain call of the library (its call site is read by [`calls`]).
    Plain,
}

#[derive(Clone, Copy, PartialEq)]
enum Lib {
    Got,
    Ky,
}

impl Lib {
    fn name(self) -> &'static str {
        match self {
            Lib::Got => "got 14",
            Lib::Ky => "ky 1.x",
        }
    }
    fn platform(self) -> Platform {
        match self {
            Lib::Got => Platform::Got,
            Lib::Ky => Platform::Ky,
        }
    }
    fn methods(self) -> Vec<String> {
        let m: &[&str] = match self {
            Lib::Got => &["GET", "PUT", "HEAD", "DELETE", "OPTIONS", "TRACE"],
            Lib::Ky => &["GET", "PUT", "HEAD", "DELETE", "OPTIONS", "TRACE"],
        };
        m.iter().map(|s| s.to_string()).collect()
    }
    fn statuses(self) -> &'static [u16] {
        match self {
            Lib::Got => &[408, 413, 429, 500, 502, 503, 504, 521, 522, 524],
            Lib::Ky => &[408, 413, 429, 500, 502, 503, 504],
        }
    }
}

const GOT_ERROR_CODES: &[&str] = &[
    "ETIMEDOUT",
    "ECONNRESET",
    "EADDRINUSE",
    "ECONNREFUSED",
    "EPIPE",
    "ENOTFOUND",
    "ENETUNREACH",
    "EAI_AGAIN",
];

/// The policy signal of a Node.js error code.
fn error_signal(code: &str) -> Option<Signal> {
    Some(match code {
        "ETIMEDOUT" | "ESOCKETTIMEDOUT" => Signal::Timeout,
        "ECONNRESET" | "EPIPE" => Signal::Reset,
        "EADDRINUSE" | "ECONNREFUSED" | "ENOTFOUND" | "ENETUNREACH" | "EAI_AGAIN" => {
            Signal::ConnectFailure
        }
        _ => return None,
    })
}

/// Reads `call` when it is a got or ky call.
pub fn read(ctx: &Ctx<'_, '_>, call: Node<'_>) -> Option<Read> {
    if call.kind() != "call_expression" {
        return None;
    }
    let f = call.child_by_field_name("function")?;
    let (root, members) = callee_path(ctx, f)?;
    // An instance of an instance (`const api = ky.create(...)`, then
    // `api.extend(...)` or `api.post(url, {retry})`): the options of each ancestor,
    // nearest first, apply before this call's.
    let mut parents: Vec<Node<'_>> = Vec::new();
    let mut base = root;
    let mut lib = None;
    for _ in 0..8 {
        if ctx.is_lib(base, "got", &["got"]) {
            lib = Some(Lib::Got);
            break;
        }
        if ctx.is_lib(base, "ky", &["ky"]) {
            lib = Some(Lib::Ky);
            break;
        }
        let d = eval::unwrap(ctx.scope.decl(base)?);
        if d.kind() != "call_expression" {
            return None;
        }
        let (r, m) = callee_path(ctx, d.child_by_field_name("function")?)?;
        if !matches!(
            m.iter()
                .filter(|x| **x != "default")
                .collect::<Vec<_>>()
                .as_slice(),
            [&"extend" | &"create"]
        ) {
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
    let lib = lib?;
    let members: Vec<&str> = members.into_iter().filter(|m| *m != "default").collect();
    let args: Vec<Node<'_>> = {
        let a = call.child_by_field_name("arguments")?;
        let mut cursor = a.walk();
        a.named_children(&mut cursor).collect()
    };
    let (instance, options, method) = match members.as_slice() {
        [] => {
            let o = args.get(1).copied();
            (false, o, calls::method_of(ctx, o))
        }
        ["extend" | "create"] => (true, args.first().copied(), None),
        [verb] if ["get", "post", "put", "patch", "delete", "head"].contains(verb) => {
            (false, args.get(1).copied(), Some(verb.to_ascii_uppercase()))
        }
        _ => return Some(Read::Plain),
    };
    let obj = options.and_then(|o| ctx.object(o));
    let retry = obj.and_then(|o| eval::prop(ctx.file, o, "retry"));
    if !instance && retry.is_none() {
        return Some(Read::Plain);
    }
    let kind = match (lib, instance) {
        _ if !parents.is_empty() && instance => format!("{root}.extend(...)"),
        _ if !parents.is_empty() => format!("{root}(..., {{retry}})"),
        (Lib::Got, true) => "got.extend(...)".into(),
        (Lib::Ky, true) => "ky.create(...)".into(),
        (Lib::Got, false) => "got(..., {retry})".into(),
        (Lib::Ky, false) => "ky(..., {retry})".into(),
    };
    let mut c = CodeClient::new(lib.platform(), kind, call.byte_range());
    c.names = names_of(ctx, call);
    defaults(lib, &mut c, call.byte_range());
    for p in parents.iter().rev() {
        if let Some(po) = ctx.object(*p) {
            if let Some(r) = eval::prop(ctx.file, po, "retry") {
                read_retry(ctx, lib, r, &mut c);
            }
            read_timeout(ctx, lib, po, &mut c);
        }
    }
    if let Some(r) = retry {
        read_retry(ctx, lib, r, &mut c);
    }
    if let Some(o) = obj {
        read_timeout(ctx, lib, o, &mut c);
    }
    if !instance {
        if let Some(mut site) = calls::read(ctx, call) {
            if site.method.is_none() {
                site.method.clone_from(&method);
            }
            c.calls.push(site);
        }
        ineffective(ctx, lib, &mut c, method.as_deref(), retry);
    }
    Some(Read::Client(Box::new(c)))
}

fn defaults(lib: Lib, c: &mut CodeClient, span: std::ops::Range<usize>) {
    let v = lib.name();
    c.attempts = Some(Setting::default(
        3,
        span.clone(),
        format!("{v}: retry.limit = 2 retries (3 attempts)"),
    ));
    c.methods = Some(Setting::default(
        lib.methods(),
        span.clone(),
        format!("{v}: retry.methods = GET, PUT, HEAD, DELETE, OPTIONS, TRACE"),
    ));
    let mut signals: Vec<Signal> = lib.statuses().iter().map(|&s| Signal::Status(s)).collect();
    match lib {
        Lib::Got => {
            for s in GOT_ERROR_CODES.iter().filter_map(|c| error_signal(c)) {
                if !signals.contains(&s) {
                    signals.push(s);
                }
            }
        }
        Lib::Ky => signals.extend([Signal::ConnectFailure, Signal::Reset]),
    }
    c.retry_on = Some(Setting::default(
        signals,
        span.clone(),
        match lib {
            Lib::Got => format!("{v}: retry.statusCodes 408 413 429 500 502 503 504 521 522 524 and errorCodes ETIMEDOUT ECONNRESET EADDRINUSE ECONNREFUSED EPIPE ENOTFOUND ENETUNREACH EAI_AGAIN"),
            Lib::Ky => format!("{v}: retry.statusCodes 408 413 429 500 502 503 504 and network errors; no timeouts (retryOnTimeout: false)"),
        },
    ));
    match lib {
        Lib::Got => {
            c.backoff.base = Some(Setting::default(
                1000.0,
                span.clone(),
                "got: 2^(n−1) × 1000 ms",
            ));
            c.backoff.multiplier = Some(Setting::default(2.0, span.clone(), "got: doubles"));
            c.backoff.jitter = Some(Setting::default(
                JitterFactor::new(0.05).map_or(Jitter::Full, Jitter::Proportional),
                span.clone(),
                "got: retry.noise adds 0–100 ms (about ±5 % of the 1 s first delay)",
            ));
            c.retry_after = Some(RetryAfter {
                honor: Setting::default(
                    true,
                    span.clone(),
                    "got: Retry-After honoured (413 only with it)",
                ),
                max: None,
            });
            c.notes.push((
                span,
                "got: retry.maxRetryAfter unset: a Retry-After above timeout.request (if any) cancels the retry; without a request timeout it is uncapped".into(),
            ));
        }
        Lib::Ky => {
            c.backoff.base = Some(Setting::default(
                300.0,
                span.clone(),
                "ky: 0.3 × 2^(n−1) × 1000 ms",
            ));
            c.backoff.multiplier = Some(Setting::default(2.0, span.clone(), "ky: doubles"));
            c.backoff.jitter = Some(Setting::default(
                Jitter::None,
                span.clone(),
                "ky: retry.jitter undefined (none)",
            ));
            c.retry_after = Some(RetryAfter {
                honor: Setting::default(
                    true,
                    span.clone(),
                    "ky: Retry-After honoured on 413, 429, 503",
                ),
                max: None,
            });
            c.attempt_timeout = Some(Setting::default(
                10_000.0,
                span,
                "ky: timeout = 10 000 ms per attempt",
            ));
        }
    }
}

fn read_retry(ctx: &Ctx<'_, '_>, lib: Lib, r: Node<'_>, c: &mut CodeClient) {
    let rs = r.byte_range();
    let counting = |n: i64| {
        format!(
            "{} counts retries: limit {n} is {} attempts",
            lib.name(),
            n.saturating_add(1)
        )
    };
    // `retry: 3`: the limit only.
    if let Some(v) = ctx.scope.eval(ctx.file, r, &[]) {
        if let Some(n) = v.num() {
            let n = n as i64;
            c.attempts = Some(Setting::literal(n.saturating_add(1), rs.clone()));
            c.notes.push((rs, counting(n)));
        }
        return;
    }
    let Some(obj) = ctx.object(r) else {
        c.attempts = Some(Setting::assumed(
            3,
            rs,
            ctx.scope.provenance(ctx.file, r),
            format!("{}'s default, 2 retries", lib.name()),
        ));
        return;
    };
    for (key, v, pair) in eval::props(ctx.file, obj) {
        let vs = v.byte_range();
        let value = ctx.scope.eval(ctx.file, v, &[]);
        let expr = || ctx.scope.provenance(ctx.file, v);
        match key.as_str() {
            "limit" => match value.as_ref().and_then(Value::num) {
                Some(n) => {
                    let n = n as i64;
                    c.attempts = Some(Setting::literal(n.saturating_add(1), vs.clone()));
                    c.notes.push((vs, counting(n)));
                }
                None => {
                    c.attempts = Some(Setting::assumed(
                        3,
                        vs,
                        expr(),
                        format!("{}'s default, 2 retries", lib.name()),
                    ))
                }
            },
            "methods" => match strings(value.as_ref()) {
                Some(m) => {
                    c.methods = Some(Setting::literal(
                        m.iter().map(|s| s.to_ascii_uppercase()).collect(),
                        vs,
                    ))
                }
                None => {
                    c.methods = Some(Setting::assumed(
                        lib.methods(),
                        vs,
                        expr(),
                        "the default methods",
                    ))
                }
            },
            "statusCodes" | "errorCodes" => {
                let old = c.retry_on.take().map(|s| s.value).unwrap_or_default();
                let (statuses, transport): (Vec<Signal>, Vec<Signal>) = old
                    .into_iter()
                    .partition(|s| matches!(s, Signal::Status(_) | Signal::Class(_)));
                let new: Option<Vec<Signal>> = if key == "statusCodes" {
                    numbers(value.as_ref())
                        .map(|ns| ns.iter().map(|&n| Signal::Status(n as u16)).collect())
                } else {
                    strings(value.as_ref()).map(|cs| {
                        let mut out: Vec<Signal> = Vec::new();
                        for s in cs.iter().filter_map(|x| error_signal(x)) {
                            if !out.contains(&s) {
                                out.push(s);
                            }
                        }
                        out
                    })
                };
                let (mut merged, known) = match (new, key.as_str()) {
                    (Some(n), "statusCodes") => ([transport, n].concat(), true),
                    (Some(n), _) => ([statuses, n].concat(), true),
                    (None, _) => ([statuses, transport].concat(), false),
                };
                merged.dedup();
                c.retry_on = Some(if known {
                    Setting::literal(merged, pair.byte_range())
                } else {
                    Setting::assumed(merged, vs, expr(), format!("the default {key}"))
                });
            }
            "maxRetryAfter" => {
                let honor = Setting::literal(true, pair.byte_range());
                c.retry_after = Some(RetryAfter {
                    honor,
                    max: match value.as_ref().and_then(Value::num) {
                        Some(n) if n.is_finite() => Some(Setting::literal(n, vs)),
                        Some(_) => None,
                        None => Some(Setting::assumed(f64::INFINITY, vs, expr(), "uncapped")),
                    },
                });
            }
            "backoffLimit" => match value.as_ref().and_then(Value::num) {
                Some(n) if n.is_finite() => c.backoff.cap = Some(Setting::literal(n, vs)),
                Some(_) => c.backoff.cap = None,
                None => c.backoff.cap = Some(Setting::assumed(f64::INFINITY, vs, expr(), "no cap")),
            },
            "noise" if lib == Lib::Got => match value.as_ref().and_then(Value::num) {
                Some(n) if n <= 0.0 => c.backoff.jitter = Some(Setting::literal(Jitter::None, vs)),
                Some(n) => {
                    let f = (n / 2000.0).clamp(0.001, 1.0);
                    if let Some(f) = JitterFactor::new(f) {
                        c.backoff.jitter =
                            Some(Setting::literal(Jitter::Proportional(f), vs.clone()));
                        c.notes
                            .push((vs, format!("got adds 0–{n} ms of noise to each delay")));
                    }
                }
                None => {
                    c.backoff.jitter = Some(Setting::assumed(Jitter::None, vs, expr(), "no jitter"))
                }
            },
            "jitter" if lib == Lib::Ky => match value {
                Some(Value::Bool(true)) => {
                    c.backoff.jitter = Some(Setting::literal(Jitter::Full, vs))
                }
                Some(Value::Bool(false) | Value::Nothing) => {
                    c.backoff.jitter = Some(Setting::literal(Jitter::None, vs))
                }
                _ => {
                    c.backoff.jitter = Some(Setting::assumed(
                        Jitter::Full,
                        vs,
                        expr(),
                        "a custom jitter",
                    ))
                }
            },
            "calculateDelay" | "delay" => {
                c.backoff.jitter = Some(Setting::assumed(
                    Jitter::None,
                    vs,
                    ctx.text(v),
                    "a custom delay without jitter",
                ));
            }
            "shouldRetry" => {
                c.retry_on = Some(Setting::assumed(
                    super::super::lower::MAY_RETRY_ANYTHING.to_vec(),
                    vs,
                    ctx.text(v),
                    "may retry anything",
                ));
            }
            _ => {}
        }
    }
}

fn read_timeout(ctx: &Ctx<'_, '_>, lib: Lib, obj: Node<'_>, c: &mut CodeClient) {
    let Some(t) = eval::prop(ctx.file, obj, "timeout") else {
        return;
    };
    if lib == Lib::Got {
        got_timeout(ctx, t, c);
        return;
    }
    match ctx.scope.eval(ctx.file, t, &[]) {
        Some(Value::Num(n)) => c.attempt_timeout = Some(Setting::literal(n, t.byte_range())),
        Some(Value::Bool(false)) => c.attempt_timeout = None,
        _ => {
            c.attempt_timeout = Some(Setting::assumed(
                10_000.0,
                t.byte_range(),
                ctx.scope.provenance(ctx.file, t),
                "ky's default, 10 000 ms",
            ))
        }
    }
}

/// RL017 when a single call's `retry` is nullified by the method filter.
fn ineffective(
    ctx: &Ctx<'_, '_>,
    lib: Lib,
    c: &mut CodeClient,
    method: Option<&str>,
    retry: Option<Node<'_>>,
) {
    let (Some(m), Some(r), Some(methods)) = (method, retry, &c.methods) else {
        return;
    };
    if matches!(methods.known, super::super::model::Known::Assumed { .. })
        || methods.value.iter().any(|x| x.eq_ignore_ascii_case(m))
        || c.attempts.as_ref().is_none_or(|a| a.value <= 1)
    {
        return;
    }
    let which = match methods.known {
        super::super::model::Known::Literal => "retry.methods",
        _ => "the default retry.methods",
    };
    let span = r
        .parent()
        .filter(|p| p.kind() == "pair")
        .unwrap_or(r)
        .byte_range();
    let lib_name = match lib {
        Lib::Got => "got",
        Lib::Ky => "ky",
    };
    c.findings.push(rl017(
        span.clone(),
        format!(
            "retry configured but ineffective for {m}: {which} of {lib_name} ({}) leaves {m} out, so `{}` retries nothing",
            methods.value.join(", "),
            ctx.text(r).split_whitespace().collect::<Vec<_>>().join(" ")
        ),
        "retries nothing",
        &format!("add \"{m}\" to retry.methods if the operation is safe to repeat (with an idempotency key), or remove the retry option"),
    ));
    c.attempts = Some(Setting {
        value: 1,
        ..c.attempts
            .clone()
            .unwrap_or_else(|| Setting::literal(1, span.clone()))
    });
}

fn strings(v: Option<&Value>) -> Option<Vec<String>> {
    match v? {
        Value::Array(a) => a
            .iter()
            .map(|x| match x {
                Value::Str(s) => Some(s.clone()),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

fn numbers(v: Option<&Value>) -> Option<Vec<f64>> {
    match v? {
        Value::Array(a) => a.iter().map(Value::num).collect(),
        _ => None,
    }
}

/// got `timeout: {request: ms}` (or `timeout: ms`, got 11): the time one attempt
/// may take, and the largest Retry-After waited when `maxRetryAfter` is unset.
fn got_timeout(ctx: &Ctx<'_, '_>, t: Node<'_>, c: &mut CodeClient) {
    let request = match ctx.object(t) {
        Some(o) => match eval::prop(ctx.file, o, "request") {
            Some(r) => r,
            None => return,
        },
        None => t,
    };
    let rs = request.byte_range();
    let setting = match ctx
        .scope
        .eval(ctx.file, request, &[])
        .as_ref()
        .and_then(Value::num)
    {
        Some(n) => Setting::literal(n, rs),
        None => Setting::assumed(
            f64::INFINITY,
            rs,
            ctx.text(request),
            "no request timeout (and so no cap on Retry-After)",
        ),
    };
    if !setting.value.is_finite() {
        c.findings.push(super::super::model::Finding {
            code: "RL019",
            span: setting.span.clone(),
            message: format!(
                "got: timeout.request is `{}`, not known statically; assumed no request timeout, so Retry-After is uncapped",
                ctx.text(request).split_whitespace().collect::<Vec<_>>().join(" ")
            ),
            label: "not a literal".into(),
            help: "write the timeout as a literal or a constant of the same file".into(),
        });
        return;
    }
    c.attempt_timeout = Some(setting.clone());
    if let Some(ra) = &mut c.retry_after {
        if ra.max.is_none()
            && ra.honor.value
            && ra.honor.known != super::super::model::Known::Literal
        {
            ra.max = Some(setting);
        }
    }
}
