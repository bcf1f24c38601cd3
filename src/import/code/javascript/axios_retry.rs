//! axios-retry: `axiosRetry(axiosOrInstance, {retries, retryCondition,
//! retryDelay})` (src: softonic/axios-retry@dd9b700d `src/index.ts` L95–195;
//! `retry-in-code.md` §1.2). The client is named by its first argument (`axios`,
//! `client`), so `axios.post(...)` and `client.post(...)` link to it.
//!
//! Defaults: `retries: 3` (retries, so 4 attempts); `retryCondition:
//! isNetworkOrIdempotentRequestError` = network errors (no response, not
//! `ECONNABORTED`) for every method, `POST` included, after the request was sent,
//! or 5xx/429 on GET, HEAD, OPTIONS, PUT, DELETE; `retryDelay: noDelay` = 0 ms but
//! the Retry-After delay when the response has one, uncapped. `exponentialDelay`
//! = max(2^n × 100 ms, Retry-After) + 0–20 %; `linearDelay(f)` = n × f ms, also
//! honouring Retry-After. A custom `retryDelay` ignores Retry-After: its literal
//! arithmetic is evaluated for each retry (with JavaScript's `^` = XOR, RL017),
//! anything else is RL019. A custom `retryCondition` made of the library's
//! helpers and `status === n` / `status >= n` tests joined by `||` is read;
//! anything else may retry anything (RL019).

use super::super::lower::MAY_RETRY_ANYTHING;
use super::super::model::{CodeClient, RetryAfter, Setting, Span};
use super::eval::{self, Value};
use super::{callee_path, rl017, Ctx};
use crate::import::Platform;
use crate::policy::model::{Jitter, Signal};
use crate::retry::JitterFactor;
use tree_sitter::Node;

const V: &str = "axios-retry 4.x";
const IDEMPOTENT: &[&str] = &["GET", "HEAD", "OPTIONS", "PUT", "DELETE"];
const SAFE: &[&str] = &["GET", "HEAD", "OPTIONS"];

/// Reads `call` when it is `axiosRetry(instance, options)`.
pub fn read(ctx: &Ctx<'_, '_>, call: Node<'_>) -> Option<CodeClient> {
    if call.kind() != "call_expression" {
        return None;
    }
    let f = call.child_by_field_name("function")?;
    let (root, members) = callee_path(ctx, f)?;
    // The default export, not a helper imported by name beside it
    // (`isNetworkOrIdempotentRequestError(err)` in a `retryCondition` arrow is no
    // `axiosRetry(err)`: its argument is no client).
    let is = ctx.is_lib(root, "axios-retry", &["axiosRetry"])
        && (members.is_empty() || members == ["default"])
        && ctx
            .scope
            .export_of(root)
            .is_none_or(|e| e == "default" || e == "axiosRetry");
    if !is {
        return None;
    }
    let args = call.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    let args: Vec<Node<'_>> = args.named_children(&mut cursor).collect();
    let span = call.byte_range();
    let mut c = CodeClient::new(Platform::AxiosRetry, "axiosRetry(...)", span.clone());
    if let Some(target) = args.first() {
        c.names
            .push((ctx.text(*target).to_string(), target.byte_range()));
    }
    c.attempts = Some(Setting::default(
        4,
        span.clone(),
        format!("{V}: retries = 3 (4 attempts)"),
    ));
    condition_default(&mut c, span.clone());
    delay_builtin(
        &mut c,
        span.clone(),
        0.0,
        None,
        "noDelay: 0 ms, or the Retry-After delay",
    );
    let Some(obj) = args.get(1).and_then(|o| ctx.object(*o)) else {
        if let Some(o) = args.get(1) {
            c.attempts = Some(Setting::assumed(
                4,
                o.byte_range(),
                ctx.scope.provenance(ctx.file, *o),
                "axios-retry's defaults (3 retries, network errors on every method)",
            ));
        }
        return Some(c);
    };
    let mut retries = 3i64;
    let props = eval::props(ctx.file, obj);
    for (key, v, _) in &props {
        if key == "retries" {
            match ctx
                .scope
                .eval(ctx.file, *v, &[])
                .as_ref()
                .and_then(Value::num)
            {
                Some(n) => {
                    retries = n as i64;
                    c.attempts = Some(Setting::literal(retries.saturating_add(1), v.byte_range()));
                    c.notes.push((
                        v.byte_range(),
                        format!(
                            "axios-retry counts retries: retries: {retries} is {} attempts",
                            retries.saturating_add(1)
                        ),
                    ));
                }
                None => {
                    c.attempts = Some(Setting::assumed(
                        4,
                        v.byte_range(),
                        ctx.scope.provenance(ctx.file, *v),
                        "axios-retry's default, 3 retries",
                    ))
                }
            }
        }
    }
    let mut reset_timeout = false;
    for (key, v, _) in &props {
        match key.as_str() {
            "retryCondition" => condition(ctx, *v, &mut c),
            "retryDelay" => delay(ctx, *v, &mut c, retries),
            "shouldResetTimeout" => {
                reset_timeout = ctx.scope.eval(ctx.file, *v, &[]) == Some(Value::Bool(true))
            }
            _ => {}
        }
    }
    if let Some(target) = args.first() {
        timeout(ctx, *target, reset_timeout, &mut c);
    }
    Some(c)
}

/// axios `timeout` of the instance (`axios.create({timeout: 5000})` in this file):
/// with `shouldResetTimeout: false` (the default) it is a budget for all attempts
/// together (a deadline), otherwise a per-attempt timeout. 0 (axios' default)
/// is none.
fn timeout(ctx: &Ctx<'_, '_>, target: Node<'_>, reset: bool, c: &mut CodeClient) {
    let d = ctx.scope.resolve(ctx.file, target);
    if d.kind() != "call_expression" {
        return;
    }
    let Some((_, members)) = d
        .child_by_field_name("function")
        .and_then(|f| callee_path(ctx, f))
    else {
        return;
    };
    if members != ["create"] {
        return;
    }
    let Some(t) = d
        .child_by_field_name("arguments")
        .and_then(|a| a.named_child(0))
        .and_then(|o| ctx.object(o))
        .and_then(|o| eval::prop(ctx.file, o, "timeout"))
    else {
        return;
    };
    let ts = t.byte_range();
    let known = ctx
        .scope
        .eval(ctx.file, t, &[])
        .as_ref()
        .and_then(Value::num);
    // `parseInt(process.env.T) || 5000`: the literal fallback is the timeout
    // whenever the environment sets none (issue 42), said by RL019.
    let fallback = known
        .is_none()
        .then(|| literal_fallback(ctx, t))
        .flatten()
        .filter(|(n, _)| *n > 0.0);
    let setting = match (known, fallback) {
        (Some(n), _) if n <= 0.0 => return,
        (Some(n), _) => Setting::literal(n, ts),
        (None, Some((n, span))) => {
            c.findings.push(super::super::model::Finding {
                code: "RL019",
                span: ts.clone(),
                message: format!(
                    "axios-retry: the axios timeout is `{}`, not known statically; assumed its literal fallback, {n} ms",
                    ctx.scope.provenance(ctx.file, t)
                ),
                label: "literal fallback assumed".into(),
                help: "the value the environment gives at run time replaces it; write the timeout as a literal or a constant of the same file to have it judged exactly".into(),
            });
            Setting::literal(n, span)
        }
        (None, None) => {
            c.findings.push(super::super::model::Finding {
                code: "RL019",
                span: ts,
                message: format!(
                    "axios-retry: the axios timeout is `{}`, not known statically; assumed none (axios' default 0)",
                    ctx.scope.provenance(ctx.file, t)
                ),
                label: "not a literal".into(),
                help: "write the timeout as a literal or a constant of the same file".into(),
            });
            return;
        }
    };
    if reset {
        c.attempt_timeout = Some(setting);
    } else {
        c.notes.push((
            setting.span.clone(),
            "axios-retry with shouldResetTimeout: false: the axios timeout spans all attempts"
                .into(),
        ));
        c.deadline = Some(setting);
    }
}

fn condition_default(c: &mut CodeClient, span: Span) {
    c.retry_on = Some(Setting::default(
        vec![
            Signal::ConnectFailure,
            Signal::Reset,
            Signal::Class(5),
            Signal::Status(429),
        ],
        span.clone(),
        format!(
            "{V}: retryCondition = isNetworkOrIdempotentRequestError (network errors, 5xx, 429)"
        ),
    ));
    c.methods = None;
    // softonic/axios-retry `src/index.ts` (4.x): `isNetworkError` has no method
    // check; `isIdempotentRequestError` retries 5xx and 429 only when
    // `IDEMPOTENT_HTTP_METHODS` (get, head, options, put, delete) holds the method.
    c.method_scoped = vec![(
        vec![Signal::Class(5), Signal::Status(429)],
        IDEMPOTENT.iter().map(|m| m.to_string()).collect(),
    )];
    c.notes.push((
        span,
        "axios-retry retries network errors for every method, POST included, even after the request was sent; 5xx and 429 only for GET, HEAD, OPTIONS, PUT, DELETE".into(),
    ));
}

/// What one part of a condition retries: signals, and the methods (`None`: every
/// method).
type Part = (Vec<Signal>, Option<Vec<&'static str>>);

fn helper(name: &str) -> Option<Part> {
    let net = vec![Signal::ConnectFailure, Signal::Reset];
    let retryable = vec![Signal::ConnectFailure, Signal::Reset, Signal::Class(5)];
    Some(match name {
        "isNetworkError" => (net, None),
        "isRetryableError" => (retryable, None),
        "isSafeRequestError" => (retryable, Some(SAFE.to_vec())),
        "isIdempotentRequestError" => (
            [retryable, vec![Signal::Status(429)]].concat(),
            Some(IDEMPOTENT.to_vec()),
        ),
        _ => return None,
    })
}

/// The parts of one library helper: `isNetworkOrIdempotentRequestError` is
/// `isNetworkError(error) || isIdempotentRequestError(error)` (softonic/axios-retry
/// `src/index.ts`, 4.x), so network errors on every method and 5xx/429 on the
/// idempotent methods only.
fn helper_parts(name: &str) -> Option<Vec<Part>> {
    match name {
        "isNetworkOrIdempotentRequestError" => Some(vec![
            helper("isNetworkError")?,
            helper("isIdempotentRequestError")?,
        ]),
        _ => helper(name).map(|p| vec![p]),
    }
}

fn last_name<'a>(ctx: &'a Ctx<'_, '_>, n: Node<'_>) -> Option<&'a str> {
    callee_path(ctx, n).map(|(root, m)| m.last().copied().unwrap_or(root))
}

/// The parts of a `||` chain of helper calls and status tests.
fn parts(ctx: &Ctx<'_, '_>, body: Node<'_>) -> Option<Vec<Part>> {
    let mut out = Vec::new();
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        let n = eval::unwrap(n);
        if out.len() > 64 {
            return None;
        }
        match n.kind() {
            "binary_expression" => {
                let op = ctx.text(n.child_by_field_name("operator")?);
                let (l, r) = (
                    n.child_by_field_name("left")?,
                    n.child_by_field_name("right")?,
                );
                match op {
                    "||" => {
                        stack.push(r);
                        stack.push(l);
                    }
                    "===" | "==" | ">=" | ">" => {
                        let status = ctx.text(l);
                        if !status.ends_with("status") {
                            return None;
                        }
                        let v = ctx.scope.eval(ctx.file, r, &[])?.num()? as u16;
                        let v = if op == ">" { v + 1 } else { v };
                        let signals = if op.starts_with('=') {
                            vec![Signal::Status(v)]
                        } else {
                            (1..=5u8)
                                .filter(|d| u16::from(*d) * 100 + 99 >= v)
                                .map(|d| {
                                    if u16::from(d) * 100 >= v {
                                        Signal::Class(d)
                                    } else {
                                        Signal::Status(v)
                                    }
                                })
                                .collect()
                        };
                        out.push((signals, None));
                    }
                    _ => return None,
                }
            }
            "call_expression" => out.extend(helper_parts(last_name(
                ctx,
                n.child_by_field_name("function")?,
            )?)?),
            _ => out.extend(helper_parts(last_name(ctx, n)?)?),
        }
    }
    Some(out)
}

fn condition(ctx: &Ctx<'_, '_>, v: Node<'_>, c: &mut CodeClient) {
    let vs = v.byte_range();
    c.notes
        .retain(|(_, n)| !n.starts_with("axios-retry retries network errors"));
    let target = ctx.scope.resolve(ctx.file, v);
    // A constant true condition (`() => true`) is known: every error, on every
    // method (issue 42: "always", not an unknown condition).
    if eval::function_of(ctx.file, target)
        .and_then(|(_, body)| ctx.scope.eval(ctx.file, body, &[]))
        .is_some_and(|constant| constant.truthy())
    {
        c.retry_on = Some(Setting::literal(MAY_RETRY_ANYTHING.to_vec(), vs.clone()));
        c.methods = None;
        c.method_scoped.clear();
        return;
    }
    let read = match eval::function_of(ctx.file, target) {
        Some((_, body)) => parts(ctx, body),
        None => parts(ctx, target),
    };
    let Some(parts) = read.filter(|p| !p.is_empty()) else {
        c.retry_on = Some(Setting::assumed(
            MAY_RETRY_ANYTHING.to_vec(),
            vs.clone(),
            ctx.text(v),
            "a custom condition that may retry anything, on every method",
        ));
        c.methods = None;
        c.method_scoped.clear();
        return;
    };
    let (signals, methods, scoped) = merge(parts);
    c.retry_on = Some(Setting::literal(signals, vs.clone()));
    c.methods = methods.map(|m| Setting::literal(m, vs.clone()));
    c.method_scoped = scoped;
    if c.methods.is_none() {
        c.notes.push((
            vs,
            "this retryCondition retries some errors on every method, POST included (network errors after the request was sent, or a status test without a method check)".into(),
        ));
    }
}

/// Every signal of `parts`, with the methods each is retried on: (signals, the
/// methods filter when every signal is limited to some methods, the groups of
/// signals limited to some methods when others apply to every method; see
/// [`CodeClient::method_scoped`]).
type Merged = (
    Vec<Signal>,
    Option<Vec<String>>,
    Vec<(Vec<Signal>, Vec<String>)>,
);

fn merge(parts: Vec<Part>) -> Merged {
    // Per signal: the methods it is retried on (`None`: every method).
    let mut per: Vec<(Signal, Option<Vec<String>>)> = Vec::new();
    for (signals, methods) in parts {
        for s in signals {
            let i = match per.iter().position(|(x, _)| *x == s) {
                Some(i) => i,
                None => {
                    per.push((s, Some(Vec::new())));
                    per.len() - 1
                }
            };
            match (&methods, &mut per[i].1) {
                (None, m) => *m = None,
                (Some(ms), Some(all)) => {
                    for x in ms {
                        if !all.iter().any(|y| y == x) {
                            all.push(x.to_string());
                        }
                    }
                }
                (Some(_), None) => {}
            }
        }
    }
    let signals: Vec<Signal> = per.iter().map(|(s, _)| *s).collect();
    if per.iter().all(|(_, m)| m.is_some()) {
        // Every signal is limited: one methods filter, their union.
        let mut all: Vec<String> = Vec::new();
        for m in per.iter().filter_map(|(_, m)| m.as_ref()).flatten() {
            if !all.contains(m) {
                all.push(m.clone());
            }
        }
        return (signals, Some(all), Vec::new());
    }
    let mut scoped: Vec<(Vec<Signal>, Vec<String>)> = Vec::new();
    for (s, m) in per {
        let Some(m) = m else { continue };
        match scoped.iter_mut().find(|(_, ms)| *ms == m) {
            Some((ss, _)) => ss.push(s),
            None => scoped.push((vec![s], m)),
        }
    }
    (signals, None, scoped)
}

fn delay_builtin(c: &mut CodeClient, span: Span, base: f64, mult: Option<f64>, what: &str) {
    let known = |v| Setting::default(v, span.clone(), format!("{V}: retryDelay = {what}"));
    c.backoff.base = Some(known(base));
    c.backoff.multiplier = mult.map(known);
    c.backoff.cap = None;
    c.backoff.jitter = Some(Setting::default(
        Jitter::None,
        span.clone(),
        format!("{V}: {what}, no jitter"),
    ));
    c.retry_after = Some(RetryAfter {
        honor: Setting::default(
            true,
            span,
            format!("{V}: the built-in delays wait the Retry-After delay, uncapped"),
        ),
        max: None,
    });
}

fn delay(ctx: &Ctx<'_, '_>, v: Node<'_>, c: &mut CodeClient, retries: i64) {
    let vs = v.byte_range();
    let target = ctx.scope.resolve(ctx.file, v);
    // A library helper: `axiosRetry.exponentialDelay`, `linearDelay(500)`.
    let helper_name = match target.kind() {
        "call_expression" => target
            .child_by_field_name("function")
            .and_then(|f| last_name(ctx, f)),
        "identifier" | "member_expression" => last_name(ctx, target),
        _ => None,
    };
    match helper_name {
        Some("exponentialDelay") => {
            delay_builtin(
                c,
                vs.clone(),
                200.0,
                Some(2.0),
                "exponentialDelay: max(2^n × 100 ms, Retry-After) + 0–20 %",
            );
            c.backoff.base = Some(Setting::literal(200.0, vs.clone()));
            c.backoff.multiplier = Some(Setting::literal(2.0, vs.clone()));
            c.backoff.jitter = JitterFactor::new(0.1)
                .map(|f| Setting::literal(Jitter::Proportional(f), vs.clone()));
            c.notes.push((
                vs,
                "axios-retry exponentialDelay adds 0–20 % of the delay (modelled as ±10 %)".into(),
            ));
            return;
        }
        Some("linearDelay") => {
            let f = (target.kind() == "call_expression")
                .then(|| {
                    target
                        .child_by_field_name("arguments")
                        .and_then(|a| a.named_child(0))
                })
                .flatten()
                .and_then(|a| ctx.scope.eval(ctx.file, a, &[]))
                .and_then(|x| x.num())
                .unwrap_or(100.0);
            delay_builtin(
                c,
                vs.clone(),
                f,
                None,
                "linearDelay: n × factor ms, or the Retry-After delay",
            );
            c.backoff.base = Some(Setting::literal(f, vs));
            return;
        }
        Some("noDelay") => return,
        _ => {}
    }
    // A custom function: Retry-After is ignored; evaluate literal arithmetic.
    c.retry_after = Some(RetryAfter {
        honor: Setting::literal(false, vs.clone()),
        max: None,
    });
    c.notes.push((
        vs.clone(),
        "a custom retryDelay replaces the built-in delays, so Retry-After is ignored".into(),
    ));
    let func = eval::function_of(ctx.file, target);
    let delays: Option<Vec<f64>> = func.as_ref().and_then(|(param, body)| {
        let p = param.clone().unwrap_or_default();
        let body = *body;
        (1..=retries.clamp(1, 10))
            .map(|n| {
                ctx.scope
                    .eval(ctx.file, body, &[(p.as_str(), n as f64)])
                    .and_then(|x| x.num())
                    .filter(|x| x.is_finite())
            })
            .collect()
    });
    let Some(delays) = delays.filter(|d| !d.is_empty()) else {
        c.backoff = Default::default();
        c.backoff.jitter = Some(Setting::assumed(
            Jitter::None,
            vs,
            ctx.text(v),
            "a delay that is not known statically, without jitter",
        ));
        return;
    };
    let body = func.as_ref().map_or(target, |(_, b)| *b);
    let random = eval::mentions(ctx.file, body, "Math.random");
    c.backoff.base = Some(Setting::literal(delays[0], vs.clone()));
    c.backoff.multiplier = None;
    let max = delays.iter().copied().fold(0.0, f64::max);
    c.backoff.cap = Some(Setting::literal(max, vs.clone()));
    c.backoff.jitter = Some(if random {
        Setting::literal(Jitter::Full, vs.clone())
    } else {
        Setting::literal(Jitter::None, vs.clone())
    });
    let listed = delays
        .iter()
        .map(|d| secs(*d))
        .collect::<Vec<_>>()
        .join(", ");
    c.notes.push((
        vs,
        format!("retryDelay gives {listed} for retries 1..{}", delays.len()),
    ));
    for x in eval::xors(ctx.file, body) {
        c.findings.push(rl017(
            x.byte_range(),
            format!(
                "`{}` is a bitwise XOR in JavaScript, not a power: this retryDelay waits {listed} for retries 1..{}",
                ctx.text(x),
                delays.len()
            ),
            "XOR, not a power",
            "write `**` (or Math.pow) for a power, and prefer axiosRetry.exponentialDelay, which adds jitter and honours Retry-After",
        ));
    }
}

fn secs(ms: f64) -> String {
    if ms >= 1000.0 && (ms / 1000.0).fract() == 0.0 {
        format!("{} s", ms / 1000.0)
    } else {
        format!("{ms} ms")
    }
}

/// The known number after `||` or `??` in `expr || 5000` whose left side is not
/// known statically, with its span.
fn literal_fallback(
    ctx: &Ctx<'_, '_>,
    expr: tree_sitter::Node<'_>,
) -> Option<(f64, std::ops::Range<usize>)> {
    if expr.kind() != "binary_expression" {
        return None;
    }
    let op = ctx.file.text_of(expr.child_by_field_name("operator")?);
    if op != "||" && op != "??" {
        return None;
    }
    let right = expr.child_by_field_name("right")?;
    let n = ctx
        .scope
        .eval(ctx.file, right, &[])
        .as_ref()
        .and_then(Value::num)?;
    Some((n, right.byte_range()))
}
