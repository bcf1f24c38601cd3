//! tenacity `@retry(...)`, bare `@retry`, `Retrying(...)` / `AsyncRetrying(...)`
//! (`retry-in-code.md` §1.1).
//!
//! Source: jd/tenacity@c650fb45 `tenacity/__init__.py` L238-L247 (defaults:
//! `stop=stop_never`, `wait=wait_none()`, `retry=retry_if_exception_type()` = any
//! `Exception`), `wait.py`, `stop.py`, `_utils.py` (`MAX_WAIT = sys.maxsize / 2`).

use super::eval::{last_name, Ctx, Eval};
use super::settings::{count, exception_signals, seconds_ms};
use crate::import::code::lower::MAY_RETRY_ANYTHING;
use crate::import::code::model::{Backoff, CodeClient, Setting, Span};
use crate::import::Platform;
use crate::policy::model::{Jitter, JitterFactor};
use tree_sitter::Node;

/// The attempts assumed for a client that never stops (tenacity `stop_never`,
/// backoff without `max_tries`): a large number, so excessive-attempt rules see it.
pub const FOREVER: i64 = 1_000_000;

/// How a `stop=` expression ends the retries.
#[derive(Default)]
struct Stop {
    attempts: Option<Setting<i64>>,
    deadline: Option<Setting<f64>>,
}

/// Reads `@retry(...)` / `Retrying(...)` at `node` (a call, or the bare decorator
/// name: then every setting is the default).
pub fn client<'t>(cx: &Ctx<'_, 't>, node: Node<'t>, kind: &str) -> CodeClient {
    let span = node.byte_range();
    let mut c = CodeClient::new(Platform::Tenacity, kind, span.clone());
    let is_call = node.kind() == "call";
    let kw: Vec<(&str, Node<'t>)> = if is_call {
        cx.keywords(node)
    } else {
        Vec::new()
    };
    let get = |k: &str| kw.iter().find(|(n, _)| *n == k).map(|(_, v)| *v);
    // stop
    let stop = match get("stop") {
        Some(v) => read_stop(cx, v, 0),
        None => Stop::default(),
    };
    c.attempts = Some(stop.attempts.unwrap_or_else(|| {
        Setting::default(
            FOREVER,
            get("stop").map_or(span.clone(), |v| v.byte_range()),
            "tenacity: `stop_never`, it retries until it succeeds (read as 1000000 attempts)",
        )
    }));
    c.deadline = stop.deadline;
    // wait
    c.backoff = match get("wait") {
        Some(v) => read_wait(cx, v, 0),
        None => Backoff {
            base: Some(Setting::default(
                0.0,
                span.clone(),
                "tenacity: `wait_none()`, no delay",
            )),
            cap: Some(Setting::default(
                0.0,
                span.clone(),
                "tenacity: `wait_none()`",
            )),
            multiplier: Some(Setting::default(
                1.0,
                span.clone(),
                "tenacity: `wait_none()`",
            )),
            jitter: Some(Setting::default(
                Jitter::None,
                span.clone(),
                "tenacity: `wait_none()`",
            )),
        },
    };
    // retry
    c.retry_on = Some(match get("retry") {
        None => Setting::default(
            MAY_RETRY_ANYTHING.to_vec(),
            span.clone(),
            "tenacity: `retry_if_exception_type()` retries every Exception (may retry anything)",
        ),
        Some(v) => retry_condition(cx, v),
    });
    // The decorator retries the whole function: every method.
    c.methods = None;
    c
}

/// A decorated function that calls `raise_for_status()` under a condition that
/// retries every exception (tenacity's default `retry_if_exception_type()`):
/// every 4xx raises `HTTPError` and is retried too, so `retry_on` gains `4xx`
/// (RL308 then says it).
pub fn raise_for_status(cx: &Ctx<'_, '_>, def: Node<'_>, c: &mut CodeClient) {
    let any_exception = c.retry_on.as_ref().is_some_and(|r| {
        !matches!(r.known, crate::import::code::model::Known::Literal)
            && r.value == MAY_RETRY_ANYTHING
    });
    let Some(body) = def.child_by_field_name("body") else {
        return;
    };
    let Some(at) = find_raise_for_status(cx, body) else {
        return;
    };
    if !any_exception {
        return;
    }
    if let Some(r) = c.retry_on.as_mut() {
        r.value.push(crate::policy::model::Signal::Class(4));
    }
    c.notes.push((
        at,
        "`raise_for_status()` raises on every 4xx and 5xx, and this retry condition retries every exception: 4xx responses are retried too".into(),
    ));
}

fn find_raise_for_status(cx: &Ctx<'_, '_>, n: Node<'_>) -> Option<Span> {
    let mut stack = vec![n];
    while let Some(x) = stack.pop() {
        if x.kind() == "call"
            && x.child_by_field_name("function")
                .is_some_and(|f| last_name(cx.text(f)) == "raise_for_status")
        {
            return Some(x.byte_range());
        }
        let mut cursor = x.walk();
        stack.extend(x.named_children(&mut cursor));
    }
    None
}

/// `retry=`: `retry_if_exception_type(<transport errors>)` is read; anything else
/// is a custom condition ("may retry anything", RL019).
fn retry_condition<'t>(
    cx: &Ctx<'_, 't>,
    v: Node<'t>,
) -> Setting<Vec<crate::policy::model::Signal>> {
    let n = cx.resolve(v);
    if n.kind() == "call" {
        let callee = n.child_by_field_name("function").map_or("", |f| cx.text(f));
        if last_name(callee) == "retry_if_exception_type" {
            if let Some(sig) = cx
                .positional(n)
                .first()
                .and_then(|a| exception_signals(cx, *a))
            {
                return Setting::literal(sig, v.byte_range());
            }
        }
    }
    Setting::assumed(
        MAY_RETRY_ANYTHING.to_vec(),
        v.byte_range(),
        cx.expr(v),
        "a custom condition that may retry anything",
    )
}

fn read_stop<'t>(cx: &Ctx<'_, 't>, v: Node<'t>, depth: usize) -> Stop {
    let n = cx.resolve(v);
    let mut out = Stop::default();
    if depth > 16 {
        return unknown_stop(cx, v);
    }
    match n.kind() {
        "binary_operator" => {
            let op = n.child_by_field_name("operator").map_or("", |o| cx.text(o));
            let (Some(l), Some(r)) = (
                n.child_by_field_name("left"),
                n.child_by_field_name("right"),
            ) else {
                return unknown_stop(cx, v);
            };
            let (a, b) = (read_stop(cx, l, depth + 1), read_stop(cx, r, depth + 1));
            match op {
                // Either condition stops: the smaller bound wins.
                "|" => {
                    out.attempts = pick(a.attempts, b.attempts, |x, y| x.value <= y.value);
                    out.deadline = pick(a.deadline, b.deadline, |x, y| x.value <= y.value);
                }
                // Both must hold: a bound only when both sides have one (the larger).
                "&" => {
                    out.attempts = match (a.attempts, b.attempts) {
                        (Some(x), Some(y)) => Some(if x.value >= y.value { x } else { y }),
                        _ => None,
                    };
                    out.deadline = match (a.deadline, b.deadline) {
                        (Some(x), Some(y)) => Some(if x.value >= y.value { x } else { y }),
                        _ => None,
                    };
                }
                _ => return unknown_stop(cx, v),
            }
            out
        }
        "call" => {
            let callee = n.child_by_field_name("function").map_or("", |f| cx.text(f));
            let arg = cx.positional(n).first().copied();
            match (last_name(callee), arg) {
                ("stop_after_attempt", Some(a)) => {
                    out.attempts = Some(count(cx, a, 0, FOREVER, "tenacity's `stop_never`"));
                }
                ("stop_after_delay" | "stop_before_delay", Some(a)) => {
                    out.deadline = Some(seconds_ms(cx, a, f64::INFINITY, "no deadline"));
                    if out.deadline.as_ref().is_some_and(|d| !d.value.is_finite()) {
                        out.deadline = None;
                    }
                }
                ("stop_never", _) => {}
                _ => return unknown_stop(cx, v),
            }
            out
        }
        "identifier" | "attribute" if last_name(cx.text(n)) == "stop_never" => out,
        _ => unknown_stop(cx, v),
    }
}

fn unknown_stop(cx: &Ctx<'_, '_>, v: Node<'_>) -> Stop {
    Stop {
        attempts: Some(Setting::assumed(
            FOREVER,
            v.byte_range(),
            cx.expr(v),
            "tenacity's `stop_never` (retries forever)",
        )),
        deadline: None,
    }
}

fn pick<T>(a: Option<T>, b: Option<T>, first: impl Fn(&T, &T) -> bool) -> Option<T> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if first(&x, &y) { x } else { y }),
        (x, y) => x.or(y),
    }
}

/// Additive uniform jitter of up to `j` seconds over a first delay of `base_ms`,
/// read as proportional jitter (capped at 1).
pub fn additive_jitter(j: f64, base_ms: f64, span: Span) -> Setting<Jitter> {
    let f = if base_ms > 0.0 {
        (j * 1000.0 / base_ms).min(1.0)
    } else {
        1.0
    };
    Setting::literal(
        JitterFactor::new(f).map_or(Jitter::None, Jitter::Proportional),
        span,
    )
}

/// `wait=`: `wait_fixed`, `wait_none`, `wait_random`, `wait_exponential`,
/// `wait_random_exponential` (full jitter), `wait_exponential_jitter`,
/// `wait_incrementing`, and sums of them (`+`).
fn read_wait<'t>(cx: &Ctx<'_, 't>, v: Node<'t>, depth: usize) -> Backoff {
    let n = cx.resolve(v);
    let span = v.byte_range();
    if depth > 16 {
        return unknown_wait(cx, v);
    }
    if n.kind() == "binary_operator"
        && n.child_by_field_name("operator")
            .is_some_and(|o| cx.text(o) == "+")
    {
        let (Some(l), Some(r)) = (
            n.child_by_field_name("left"),
            n.child_by_field_name("right"),
        ) else {
            return unknown_wait(cx, v);
        };
        let (a, b) = (read_wait(cx, l, depth + 1), read_wait(cx, r, depth + 1));
        let sum = |x: &Option<Setting<f64>>, y: &Option<Setting<f64>>| match (x, y) {
            (Some(x), Some(y)) => Some(Setting {
                value: x.value + y.value,
                span: span.clone(),
                known: if matches!(x.known, crate::import::code::model::Known::Assumed { .. }) {
                    x.known.clone()
                } else {
                    y.known.clone()
                },
            }),
            _ => None,
        };
        let mult = |x: &Option<Setting<f64>>| x.as_ref().map_or(1.0, |m| m.value);
        let multiplier = if mult(&a.multiplier) >= mult(&b.multiplier) {
            a.multiplier.clone()
        } else {
            b.multiplier.clone()
        };
        let base = sum(&a.base, &b.base);
        let has_jitter = |x: &Backoff| x.jitter.as_ref().is_some_and(|j| j.value != Jitter::None);
        let jitter = if has_jitter(&a) && has_jitter(&b) {
            a.jitter.clone()
        } else if has_jitter(&a) || has_jitter(&b) {
            // One part random: the random part's width over the whole first delay.
            let (rand, _) = if has_jitter(&a) { (&a, &b) } else { (&b, &a) };
            let width = rand.cap.as_ref().map_or(0.0, |c| c.value);
            let total = base.as_ref().map_or(0.0, |b| b.value);
            Some(additive_jitter(width / 1000.0, total, span.clone()))
        } else {
            Some(Setting::literal(Jitter::None, span.clone()))
        };
        return Backoff {
            base,
            cap: sum(&a.cap, &b.cap),
            multiplier,
            jitter,
        };
    }
    if n.kind() != "call" {
        return unknown_wait(cx, v);
    }
    let callee = last_name(n.child_by_field_name("function").map_or("", |f| cx.text(f)));
    let secs = |kw: &str, pos: Option<usize>, default: f64, what: &str| -> Setting<f64> {
        match cx.arg(n, kw, pos) {
            Some(a) => seconds_ms(cx, a, default * 1000.0, what),
            None => Setting::default(
                default * 1000.0,
                n.byte_range(),
                format!("tenacity `{callee}`: {kw} = {default} s"),
            ),
        }
    };
    let num = |kw: &str, pos: Option<usize>, default: f64| -> Setting<f64> {
        match cx.arg(n, kw, pos).map(|a| (a, cx.eval(a))) {
            Some((a, Eval::Known(x))) if x.num().is_some_and(|f| !f.is_finite()) => {
                Setting::refused(
                    default,
                    a.byte_range(),
                    super::settings::not_finite(cx, a, "factor"),
                )
            }
            Some((a, Eval::Known(x))) if x.num().is_some() => {
                Setting::literal(x.num().unwrap_or(default), a.byte_range())
            }
            Some((a, _)) => Setting::assumed(
                default,
                a.byte_range(),
                cx.expr(a),
                format!("tenacity's default, {default}"),
            ),
            None => Setting::default(
                default,
                n.byte_range(),
                format!("tenacity `{callee}`: {kw} = {default}"),
            ),
        }
    };
    let uncapped = |kw: &str, pos: Option<usize>| -> Option<Setting<f64>> {
        cx.arg(n, kw, pos)
            .map(|a| seconds_ms(cx, a, f64::MAX, "uncapped"))
    };
    let none = |s: Span| Some(Setting::literal(Jitter::None, s));
    match callee {
        "wait_fixed" => {
            let base = secs("wait", Some(0), 0.0, "tenacity's default, 0 s");
            Backoff {
                cap: Some(Setting::default(
                    base.value,
                    base.span.clone(),
                    "tenacity `wait_fixed`: the delay never grows",
                )),
                base: Some(base),
                multiplier: Some(Setting::literal(1.0, n.byte_range())),
                jitter: none(n.byte_range()),
            }
        }
        "wait_none" => Backoff {
            base: Some(Setting::literal(0.0, n.byte_range())),
            cap: Some(Setting::literal(0.0, n.byte_range())),
            multiplier: Some(Setting::literal(1.0, n.byte_range())),
            jitter: none(n.byte_range()),
        },
        "wait_random" => {
            let lo = secs("min", Some(0), 0.0, "tenacity's default, 0 s");
            let hi = secs("max", Some(1), 1.0, "tenacity's default, 1 s");
            Backoff {
                base: Some(lo),
                cap: Some(hi),
                multiplier: Some(Setting::literal(1.0, n.byte_range())),
                jitter: Some(Setting::literal(Jitter::Full, n.byte_range())),
            }
        }
        "wait_exponential" | "wait_random_exponential" => {
            let mult = num("multiplier", Some(0), 1.0);
            let min = cx
                .arg(n, "min", Some(3))
                .map(|a| seconds_ms(cx, a, 0.0, "0 s"));
            let mut base = Setting {
                value: mult.value * 1000.0,
                ..mult.clone()
            };
            if let Some(m) = &min {
                if m.value > base.value {
                    base = m.clone();
                }
            }
            Backoff {
                base: Some(base),
                cap: uncapped("max", Some(1)),
                multiplier: Some(num("exp_base", Some(2), 2.0)),
                jitter: Some(if callee == "wait_random_exponential" {
                    Setting::default(
                        Jitter::Full,
                        n.byte_range(),
                        "tenacity `wait_random_exponential`: uniform(0, exponential), full jitter",
                    )
                } else {
                    Setting::default(
                        Jitter::None,
                        n.byte_range(),
                        "tenacity `wait_exponential` adds no jitter",
                    )
                }),
            }
        }
        "wait_exponential_jitter" => {
            let base = secs("initial", Some(0), 1.0, "tenacity's default, 1 s");
            let j = cx
                .arg(n, "jitter", Some(3))
                .map_or(Some(1.0), |a| cx.eval(a).known().and_then(|x| x.num()));
            let jitter = match j {
                Some(j) if j > 0.0 => additive_jitter(j, base.value, n.byte_range()),
                Some(_) => Setting::literal(Jitter::None, n.byte_range()),
                None => Setting::assumed(Jitter::None, n.byte_range(), cx.expr(n), "no jitter"),
            };
            Backoff {
                base: Some(base),
                cap: uncapped("max", Some(1)),
                multiplier: Some(num("exp_base", Some(2), 2.0)),
                jitter: Some(jitter),
            }
        }
        "wait_incrementing" => Backoff {
            base: Some(secs("start", Some(0), 0.0, "tenacity's default, 0 s")),
            cap: uncapped("max", Some(2)),
            multiplier: None,
            jitter: none(n.byte_range()),
        },
        _ => unknown_wait(cx, v),
    }
}

fn unknown_wait(cx: &Ctx<'_, '_>, v: Node<'_>) -> Backoff {
    let s = v.byte_range();
    Backoff {
        base: Some(Setting::assumed(0.0, s, cx.expr(v), "no delay")),
        cap: None,
        multiplier: None,
        jitter: None,
    }
}
