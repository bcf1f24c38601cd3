//! backon: `(|| async { client.post(url).send().await }).retry(ExponentialBuilder
//! ::default().with_max_times(n).with_min_delay(d).with_max_delay(d).with_jitter())`
//! with `.when(...)` (a custom condition) and `.adjust(...)` (may read
//! Retry-After). The calls are the ones inside the retried closure (or function).
//!
//! Sources: Xuanwo/backon@db212c04 `backon/src/backoff/exponential.rs` L56-65
//! (jitter false, factor 2, min 1 s, max 60 s, `max_times` 3 = retries, no total
//! delay), `constant.rs` (1 s x 3), `fibonacci.rs` (min 1 s, max 60 s, 3 times);
//! backon knows no HTTP method and ignores Retry-After.

use super::super::model::{CodeClient, Finding, RetryAfter, Setting};
use super::super::CodeFile;
use super::calls;
use super::eval::{self, Consts};
use super::syntax;
use crate::import::code::lower::MAY_RETRY_ANYTHING;
use crate::import::Platform;
use crate::policy::model::{Jitter, Signal};
use tree_sitter::Node;

const SRC: &str = "backon 1.x";

/// Reads `x.retry(builder)` when `builder` is a backon builder.
pub fn retry(file: &CodeFile<'_>, consts: &Consts<'_>, call: Node<'_>) -> Option<CodeClient> {
    let recv = syntax::receiver(call)?;
    let mut builder = *syntax::args(call).first()?;
    if builder.kind() == "identifier" {
        builder = consts.get(file.text_of(builder)).unwrap_or(builder);
    }
    let builder = syntax::unwrap(builder);
    let btext = file.text_of(builder);
    let kind = ["ExponentialBuilder", "ConstantBuilder", "FibonacciBuilder"]
        .into_iter()
        .find(|k| btext.contains(k))?;
    let span = call.byte_range();
    let mut c = CodeClient::new(Platform::Backon, format!(".retry({kind})"), span.clone());
    if let Some(n) = syntax::stored_name(file, syntax::chain_end(call)) {
        c.names.push(n);
    }
    let bspan = builder.byte_range();
    let (base, cap, mult) = match kind {
        "ConstantBuilder" => (1_000.0, None, 1.0),
        "FibonacciBuilder" => (1_000.0, Some(60_000.0), 1.618),
        _ => (1_000.0, Some(60_000.0), 2.0),
    };
    c.attempts = Some(Setting::default(
        4,
        bspan.clone(),
        format!("{SRC} `{kind}`: `max_times` = 3 retries"),
    ));
    c.notes.push((
        bspan.clone(),
        "backon counts retries (`max_times` = n is n + 1 attempts), knows no HTTP method and ignores Retry-After".into(),
    ));
    c.backoff.base = Some(Setting::default(
        base,
        bspan.clone(),
        format!("{SRC} `{kind}`: 1 s"),
    ));
    if let Some(cap) = cap {
        c.backoff.cap = Some(Setting::default(
            cap,
            bspan.clone(),
            format!("{SRC} `{kind}`: max delay 60 s"),
        ));
    }
    c.backoff.multiplier = Some(Setting::default(
        mult,
        bspan.clone(),
        format!("{SRC} `{kind}`"),
    ));
    c.backoff.jitter = Some(Setting::default(
        Jitter::None,
        bspan.clone(),
        format!("{SRC}: no jitter unless `with_jitter()`"),
    ));
    let mut cur = Some(builder);
    for _ in 0..syntax::MAX_UP {
        let Some(n) = cur.filter(|n| n.kind() == "call_expression") else {
            break;
        };
        let a0 = syntax::args(n).first().copied();
        let dur = |a: Node<'_>, default: f64| match eval::duration_ms(file, consts, a) {
            Some(ms) => Setting::literal(ms, a.byte_range()),
            None => Setting::assumed(default, a.byte_range(), file.text_of(a), "the default"),
        };
        match syntax::method_name(file, n) {
            "with_max_times" => {
                if let Some(a) = a0 {
                    c.attempts = Some(match eval::int(file, consts, a) {
                        Some(v) => Setting::literal(v.saturating_add(1), a.byte_range()),
                        None => Setting::assumed(4, a.byte_range(), file.text_of(a), "3 retries"),
                    });
                }
            }
            "with_min_delay" | "with_delay" => {
                if let Some(a) = a0 {
                    c.backoff.base = Some(dur(a, 1_000.0));
                }
            }
            "with_max_delay" => {
                if let Some(a) = a0 {
                    c.backoff.cap = Some(dur(a, 60_000.0));
                }
            }
            "with_factor" => {
                if let Some(a) = a0 {
                    c.backoff.multiplier = Some(match eval::number(file, consts, a) {
                        Some(v) => Setting::literal(v, a.byte_range()),
                        None => Setting::assumed(
                            mult,
                            a.byte_range(),
                            file.text_of(a),
                            "the default factor",
                        ),
                    });
                }
            }
            "with_jitter" => {
                c.backoff.jitter = Some(Setting::literal(Jitter::Full, n.byte_range()));
            }
            "with_total_delay" => {
                if let Some(a) = a0.filter(|a| file.text_of(*a) != "None") {
                    c.deadline = Some(dur(a, 60_000.0));
                    c.notes.push((
                        a.byte_range(),
                        "backon's total delay bounds the sleeps, not the time spent in attempts"
                            .into(),
                    ));
                }
            }
            _ => {}
        }
        cur = syntax::receiver(n);
    }
    // The retried closure or function.
    let body = match recv.kind() {
        "closure_expression" => Some(recv),
        "identifier" => function_named(file, file.text_of(recv)),
        _ => None,
    };
    let body_text = body.map_or("", |b| file.text_of(b));
    let mut on = vec![Signal::ConnectFailure, Signal::Reset, Signal::Timeout];
    let why = if body_text.contains("error_for_status") {
        on.extend([Signal::Class(4), Signal::Class(5)]);
        "every error of the retried closure: transport errors and, through `error_for_status()`, every 4xx and 5xx"
    } else {
        "every error of the retried closure: transport errors (a 5xx response is not an error without `error_for_status()`)"
    };
    c.retry_on = Some(Setting::default(on, span.clone(), why));
    // `.when(...)`, `.adjust(...)` after `.retry(...)`.
    let mut after = call;
    for _ in 0..syntax::MAX_UP {
        let Some(n) = syntax::next_in_chain(after) else {
            break;
        };
        let a0 = syntax::args(n).first().copied();
        match syntax::method_name(file, n) {
            "when" => {
                if let Some(a) = a0 {
                    c.retry_on = Some(Setting::assumed(
                        MAY_RETRY_ANYTHING.to_vec(),
                        a.byte_range(),
                        file.text_of(a),
                        "a custom condition: may retry anything",
                    ));
                }
            }
            "adjust" => {
                if let Some(a) = a0 {
                    let t = file.text_of(a);
                    if t.to_ascii_lowercase().contains("retry") {
                        c.retry_after = Some(RetryAfter {
                            honor: Setting::assumed(
                                true,
                                a.byte_range(),
                                t,
                                "Retry-After honoured, no cap",
                            ),
                            max: None,
                        });
                    }
                }
            }
            _ => {}
        }
        after = n;
    }
    if let Some(b) = body {
        for n in syntax::descendants(b, 50_000) {
            if n.kind() != "call_expression" {
                continue;
            }
            if let Some(r) = calls::request(file, consts, n) {
                for (h, v) in &r.header_values {
                    let t = file.text_of(*v);
                    if crate::retry::is_key_header(h) && calls::is_fresh_random(t) {
                        c.findings.push(Finding {
                            code: "RL208",
                            span: v.byte_range(),
                            message: format!(
                                "the `{h}` key is generated inside the closure that backon retries: every attempt sends a new key"
                            ),
                            label: "a new key per attempt".into(),
                            help: String::new(),
                        });
                    }
                }
                c.calls.push(r.call);
            }
        }
    }
    Some(c)
}

/// The body of the function `name` of this file.
fn function_named<'t>(file: &CodeFile<'t>, name: &str) -> Option<Node<'t>> {
    syntax::descendants(file.tree.root_node(), 200_000)
        .into_iter()
        .find(|n| {
            n.kind() == "function_item"
                && n.child_by_field_name("name")
                    .is_some_and(|x| file.text_of(x) == name)
        })
        .and_then(|f| f.child_by_field_name("body"))
}
