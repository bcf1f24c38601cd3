//! backoff `@backoff.on_exception(wait_gen, exception, max_tries=, max_time=,
//! jitter=, **wait_gen_kwargs)` and `@backoff.on_predicate(...)`, as a decorator or
//! called on a function (`backoff.on_exception(...)(func)`)
//! (`retry-in-code.md` §1.1).
//!
//! Source: litl/backoff@d82b23c4 `backoff/_decorator.py` L123-L133 (`max_tries=None`,
//! `max_time=None`, `jitter=full_jitter`), `_wait_gen.py` (`expo(base=2, factor=1,
//! max_value=None)`, `constant(interval=1)`, `fibo(max_value=None)`), `_jitter.py`
//! (`full_jitter` = U(0, value); `random_jitter` = value + U(0, 1) s).

use super::eval::{last_name, Ctx, Eval};
use super::settings::{count, exception_signals, method_return, seconds_ms};
use super::tenacity::{additive_jitter, FOREVER};
use crate::import::code::lower::MAY_RETRY_ANYTHING;
use crate::import::code::model::{CodeClient, Setting};
use crate::import::Platform;
use crate::policy::model::Jitter;
use tree_sitter::Node;

/// Reads `on_exception(...)` / `on_predicate(...)` at `call`.
pub fn client<'t>(cx: &Ctx<'_, 't>, call: Node<'t>, kind: &str) -> CodeClient {
    let span = call.byte_range();
    let mut c = CodeClient::new(Platform::Backoff, kind, span.clone());
    let kw = cx.keywords(call);
    let get = |k: &str| kw.iter().find(|(n, _)| *n == k).map(|(_, v)| *v);
    let pos = cx.positional(call);
    // A value written as `self.method` whose method returns a literal in this file.
    let through_method = |v: Node<'t>, c: &mut CodeClient| -> Node<'t> {
        match method_return(cx, call, v) {
            Some(r) => {
                c.notes.push((
                    v.byte_range(),
                    format!(
                        "`{}` returns `{}` in this file (a subclass may override it)",
                        cx.text(v),
                        cx.text(r)
                    ),
                ));
                r
            }
            None => v,
        }
    };
    // max_tries (attempts) and max_time (deadline, s).
    c.attempts = Some(match get("max_tries") {
        None => Setting::default(
            FOREVER,
            span.clone(),
            "backoff: max_tries = None, it retries until it succeeds (read as 1000000 attempts)",
        ),
        Some(v) => {
            let r = through_method(v, &mut c);
            match cx.eval(r) {
                Eval::Known(x) if x.int().is_none() => Setting::default(
                    FOREVER,
                    r.byte_range(),
                    "backoff: max_tries = None, no bound",
                ),
                _ => count(
                    cx,
                    r,
                    0,
                    FOREVER,
                    "no bound (backoff's default, max_tries = None)",
                ),
            }
        }
    });
    c.deadline = get("max_time").and_then(|v| {
        let r = through_method(v, &mut c);
        match cx.eval(r) {
            Eval::Known(x) if x.num().is_none() => None,
            _ => Some(seconds_ms(cx, r, f64::INFINITY, "no deadline"))
                .filter(|d| d.value.is_finite()),
        }
    });
    // What is retried.
    c.retry_on = Some(if kind.contains("on_predicate") {
        // A predicate of the user's is code retrylint does not evaluate: the
        // reading that retries, said as RL019 (issue 42), never "no retry".
        match pos.get(1).copied().or_else(|| get("predicate")) {
            Some(p) => Setting::assumed(
                MAY_RETRY_ANYTHING.to_vec(),
                p.byte_range(),
                cx.expr(p),
                "a custom predicate that may retry anything",
            ),
            None => Setting::default(
                MAY_RETRY_ANYTHING.to_vec(),
                span.clone(),
                "backoff `on_predicate`: retries on the function's result, assumed to retry anything",
            ),
        }
    } else {
        match pos.get(1).copied() {
            None => Setting::assumed(
                MAY_RETRY_ANYTHING.to_vec(),
                span.clone(),
                cx.text(call),
                "may retry anything",
            ),
            Some(e) => match exception_signals(cx, e) {
                Some(s) => Setting::literal(s, e.byte_range()),
                None => {
                    let broad = matches!(
                        last_name(cx.text(e)),
                        "Exception" | "BaseException" | "RequestException"
                    );
                    if broad {
                        Setting::literal(MAY_RETRY_ANYTHING.to_vec(), e.byte_range())
                    } else {
                        Setting::assumed(
                            MAY_RETRY_ANYTHING.to_vec(),
                            e.byte_range(),
                            cx.expr(e),
                            "may retry anything (exception types retrylint cannot map)",
                        )
                    }
                }
            },
        }
    });
    c.methods = None;
    // The wait generator, with on_exception's extra keywords as its arguments.
    let gen = pos.first().copied().or_else(|| get("wait_gen"));
    if let Some(g) = gen {
        let g2 = through_method(g, &mut c);
        let g2 = cx.resolve(g2);
        let (name, args_call) = match g2.kind() {
            // `backoff.expo(factor=2)` returned by a method: its own arguments.
            "call" => (
                last_name(
                    g2.child_by_field_name("function")
                        .map_or("", |f| cx.text(f)),
                ),
                g2,
            ),
            _ => (last_name(cx.text(g2)), call),
        };
        let arg = |k: &str| -> Option<Node<'t>> {
            cx.keywords(args_call)
                .into_iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v)
        };
        let gspan = g2.byte_range();
        let secs = |k: &str, d: f64| match arg(k) {
            Some(v) => seconds_ms(cx, v, d * 1000.0, &format!("backoff's default, {d} s")),
            None => Setting::default(
                d * 1000.0,
                gspan.clone(),
                format!("backoff `{name}`: {k} = {d} s"),
            ),
        };
        match name {
            "expo" => {
                c.backoff.base = Some(secs("factor", 1.0));
                c.backoff.multiplier = Some(match arg("base") {
                    Some(v) => match cx.eval(v).known().and_then(|x| x.num()) {
                        Some(b) => Setting::literal(b, v.byte_range()),
                        None => Setting::assumed(
                            2.0,
                            v.byte_range(),
                            cx.expr(v),
                            "backoff's default, 2",
                        ),
                    },
                    None => Setting::default(2.0, gspan.clone(), "backoff `expo`: base = 2"),
                });
                c.backoff.cap = arg("max_value").map(|v| seconds_ms(cx, v, f64::MAX, "uncapped"));
            }
            "constant" => {
                let b = secs("interval", 1.0);
                c.backoff.cap = Some(Setting::default(
                    b.value,
                    b.span.clone(),
                    "backoff `constant`: the delay never grows",
                ));
                c.backoff.base = Some(b);
                c.backoff.multiplier = Some(Setting::literal(1.0, gspan.clone()));
            }
            "fibo" => {
                c.backoff.base = Some(Setting::default(
                    1000.0,
                    gspan.clone(),
                    "backoff `fibo`: 1, 1, 2, 3, 5 ... s",
                ));
                c.backoff.multiplier = Some(Setting::default(
                    1.618,
                    gspan.clone(),
                    "backoff `fibo`: Fibonacci growth (about 1.618)",
                ));
                c.backoff.cap = arg("max_value").map(|v| seconds_ms(cx, v, f64::MAX, "uncapped"));
            }
            _ => {
                c.backoff.base = Some(Setting::assumed(
                    0.0,
                    g.byte_range(),
                    cx.expr(g),
                    "an unknown wait generator (no delay)",
                ));
            }
        }
    }
    // Jitter: full jitter unless `jitter=` says otherwise.
    c.backoff.jitter = Some(match get("jitter") {
        None => Setting::default(Jitter::Full, span.clone(), "backoff: jitter = full_jitter"),
        Some(v) => {
            let r = through_method(v, &mut c);
            let callee = match r.kind() {
                "call" => r.child_by_field_name("function").map_or("", |f| cx.text(f)),
                _ => cx.text(r),
            };
            match last_name(callee) {
                "None" => Setting::literal(Jitter::None, v.byte_range()),
                "full_jitter" => Setting::literal(Jitter::Full, r.byte_range()),
                "random_jitter" => {
                    let base = c.backoff.base.as_ref().map_or(0.0, |b| b.value);
                    c.notes.push((
                        r.byte_range(),
                        "backoff `random_jitter` adds U(0, 1) s to each delay".into(),
                    ));
                    additive_jitter(1.0, base, r.byte_range())
                }
                _ => Setting::assumed(Jitter::None, v.byte_range(), cx.expr(v), "no jitter"),
            }
        }
    });
    // backoff never reads Retry-After (unless `runtime`).
    c
}
