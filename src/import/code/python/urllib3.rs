//! urllib3 `Retry(...)` (and subclasses) and requests `HTTPAdapter(max_retries=...)`
//! mounted on a `Session` (`retry-in-code.md` §1.1).
//!
//! Sources: urllib3/urllib3@6a8536b6 `src/urllib3/util/retry.py` (defaults L197-L221,
//! counting L478-L525, backoff L309-L326, Retry-After L344, L426-L431);
//! psf/requests@1f6589ec `src/requests/adapters.py` (`DEFAULT_RETRIES = 0`,
//! `Retry.from_int`).

use super::eval::{last_name, looks_like_timeout, Ctx, Eval, Val};
use super::settings::{count, seconds_ms, status_signals, statuses};
use crate::import::code::model::{CodeClient, Finding, RetryAfter, Setting, Span};
use crate::import::Platform;
use crate::policy::model::{Jitter, JitterFactor, Signal};
use std::collections::HashMap;
use tree_sitter::Node;

/// urllib3 2.x `Retry.DEFAULT_ALLOWED_METHODS`.
const DEFAULT_METHODS: [&str; 6] = ["HEAD", "GET", "PUT", "DELETE", "OPTIONS", "TRACE"];

/// Classes of this file that derive from `Retry`: name -> the span of their
/// `is_retry` override, if any (a custom condition: "may retry POST").
pub fn subclasses<'t>(cx: &Ctx<'_, 't>) -> HashMap<&'t str, Option<Span>> {
    let mut out: HashMap<&'t str, Option<Span>> = HashMap::new();
    let mut stack = vec![cx.file.tree.root_node()];
    // One cursor for the walk (`named_children` and `children` reset it to
    // each node): a cursor per node cost an allocation each.
    let mut cursor = cx.file.tree.walk();
    let mut classes = Vec::new();
    while let Some(n) = stack.pop() {
        if n.kind() == "class_definition" {
            classes.push(n);
        }
        stack.extend(n.named_children(&mut cursor));
    }
    // Subclasses of subclasses: repeat until nothing changes (bounded).
    for _ in 0..4 {
        for class in &classes {
            let Some(name) = class.child_by_field_name("name").map(|x| cx.text(x)) else {
                continue;
            };
            if out.contains_key(name) {
                continue;
            }
            let Some(supers) = class.child_by_field_name("superclasses") else {
                continue;
            };
            let mut cursor = supers.walk();
            let parent = supers.named_children(&mut cursor).find_map(|s| {
                let t = last_name(cx.text(s));
                (t == "Retry" || out.contains_key(t)).then_some(t)
            });
            let Some(parent) = parent else {
                continue;
            };
            let inherited = out.get(parent).cloned().flatten();
            let own = class.child_by_field_name("body").and_then(|body| {
                let mut cursor = body.walk();
                let found = body.named_children(&mut cursor).find_map(|d| {
                    let f = if d.kind() == "decorated_definition" {
                        d.child_by_field_name("definition")?
                    } else {
                        d
                    };
                    let fname = f.child_by_field_name("name")?;
                    (f.kind() == "function_definition" && cx.text(fname) == "is_retry")
                        .then(|| fname.byte_range())
                });
                found
            });
            out.insert(name, own.or(inherited));
        }
    }
    out
}

/// Reads `Retry(...)` (or a subclass `kind`) at `call`; `custom` is the span of
/// the subclass's `is_retry` override.
pub fn retry<'t>(cx: &Ctx<'_, 't>, call: Node<'t>, kind: &str, custom: Option<Span>) -> CodeClient {
    let span = call.byte_range();
    let mut c = CodeClient::new(Platform::Urllib3, format!("{kind}(...)"), span.clone());
    let kw: HashMap<&str, Node<'t>> = cx.keywords(call).into_iter().collect();
    let pos = cx.positional(call);
    let get = |name: &str, i: usize| kw.get(name).copied().or_else(|| pos.get(i).copied());
    // total (retries): the class default is 10.
    let total = get("total", 0);
    c.attempts = Some(match total {
        None => Setting::default(11, span.clone(), "urllib3 2.x `Retry`: total = 10 retries"),
        Some(v) => match cx.eval(v) {
            Eval::Known(Val::Bool(false)) => Setting::literal(1, v.byte_range()),
            Eval::Known(Val::None) => Setting::default(
                11,
                v.byte_range(),
                "urllib3 2.x: total=None leaves only the per-cause counts (assumed 10 retries)",
            ),
            _ => count(cx, v, 1, 11, "urllib3's default, 10 retries"),
        },
    });
    if let Some(v) = total {
        timeout_as_count(cx, v, "total", &mut c.findings);
        c.notes.push((
            v.byte_range(),
            "urllib3 counts retries: attempts are total + 1".to_string(),
        ));
    }
    for k in ["connect", "read", "status", "other"] {
        if let Some(v) = kw.get(k) {
            timeout_as_count(cx, *v, k, &mut c.findings);
        }
    }
    // What is retried: connect errors (any method), read errors (the methods
    // below) unless `read` is 0/False, statuses of `status_forcelist`, and
    // 413/429/503 with a Retry-After header.
    let mut signals = Vec::new();
    let off = |k: &str| {
        kw.get(k)
            .and_then(|v| cx.eval(*v).known())
            .is_some_and(|v| !v.truthy() && v != Val::None)
    };
    if !off("connect") {
        signals.push(Signal::ConnectFailure);
    }
    if !off("read") {
        signals.extend([Signal::Reset, Signal::Timeout]);
    }
    let respect = kw.get("respect_retry_after_header").copied();
    let respect_on = respect
        .and_then(|v| cx.eval(v).known())
        .is_none_or(|v| v.truthy());
    let mut sig_span = span.clone();
    let mut sig_known = None;
    if let Some(v) = kw.get("status_forcelist") {
        sig_span = v.byte_range();
        match statuses(cx, *v) {
            Some(list) => signals.extend(status_signals(list)),
            None => sig_known = Some(cx.expr(*v)),
        }
    }
    if respect_on {
        for s in [Signal::Status(429), Signal::Status(503)] {
            if !signals.contains(&s) {
                signals.push(s);
            }
        }
    }
    c.retry_on = Some(match (sig_known, kw.contains_key("status_forcelist")) {
        (Some(expr), _) => Setting::assumed(
            signals,
            sig_span,
            expr,
            "no status retried besides 429/503 with Retry-After",
        ),
        (None, true) => Setting::literal(signals, sig_span),
        (None, false) => Setting::default(
            signals,
            span.clone(),
            "connection and read errors, and 429/503 (and 413) when the response carries \
             Retry-After; no other status without `status_forcelist`",
        ),
    });
    // Methods retried after the request was sent.
    let methods_kw = kw
        .get("allowed_methods")
        .or_else(|| kw.get("method_whitelist"))
        .copied();
    c.methods = match methods_kw {
        None => Some(Setting::default(
            DEFAULT_METHODS.map(String::from).to_vec(),
            span.clone(),
            "urllib3 2.x `Retry.DEFAULT_ALLOWED_METHODS` = HEAD, GET, PUT, DELETE, OPTIONS, TRACE",
        )),
        Some(v) => match cx.eval(v) {
            Eval::Known(Val::Seq(items)) if !items.is_empty() => Some(Setting::literal(
                items
                    .iter()
                    .filter_map(|i| match i {
                        Val::Str(s) => Some(s.to_ascii_uppercase()),
                        _ => None,
                    })
                    .collect(),
                v.byte_range(),
            )),
            // None, False or empty: every method.
            Eval::Known(_) => None,
            Eval::Unknown { .. } => {
                c.findings.push(Finding {
                    code: "RL019",
                    span: v.byte_range(),
                    message: format!(
                        "urllib3: allowed_methods is `{}`, not known statically; assumed every method",
                        cx.text(v)
                    ),
                    label: "not a literal".into(),
                    help: String::new(),
                });
                None
            }
        },
    };
    if let Some(s) = custom {
        c.methods = None;
        c.findings.push(Finding {
            code: "RL019",
            span: s,
            message: format!(
                "urllib3: `{kind}` overrides `is_retry`, a custom condition; assumed it may \
                 retry every method (POST included) on the statuses it lists"
            ),
            label: "custom retry condition".into(),
            help: "declare the retried operations safe in the spec (an Idempotency-Key header \
                   or `x-idempotent`), or keep POST out of the retry condition"
                .into(),
        });
    }
    // Backoff: sleep = factor * 2^(n-1), 0 before the first retry; cap 120 s.
    c.backoff.base = Some(match kw.get("backoff_factor") {
        None => Setting::default(
            0.0,
            span.clone(),
            "urllib3 2.x: backoff_factor = 0 (no delay)",
        ),
        Some(v) => seconds_ms(cx, *v, 0.0, "urllib3's default, 0 s"),
    });
    c.backoff.multiplier = Some(Setting::default(
        2.0,
        span.clone(),
        "urllib3 2.x: factor * 2^(retry - 1), no sleep before the first retry",
    ));
    c.backoff.cap = Some(match kw.get("backoff_max") {
        None => Setting::default(120_000.0, span.clone(), "urllib3 2.x: backoff_max = 120 s"),
        Some(v) => seconds_ms(cx, *v, 120_000.0, "urllib3's default, 120 s"),
    });
    c.backoff.jitter = Some(match kw.get("backoff_jitter") {
        None => Setting::default(
            Jitter::None,
            span.clone(),
            "urllib3 2.x: backoff_jitter = 0",
        ),
        Some(v) => match cx.eval(*v).known().and_then(|x| x.num()) {
            Some(j) if j <= 0.0 => Setting::literal(Jitter::None, v.byte_range()),
            Some(j) => {
                // Additive U(0, j) s: as a proportion of the first delay, capped at 1.
                let base = c.backoff.base.as_ref().map_or(0.0, |b| b.value / 1000.0);
                let f = if base > 0.0 { (j / base).min(1.0) } else { 1.0 };
                c.notes.push((
                    v.byte_range(),
                    format!("urllib3 adds U(0, {j}) s to each delay (read as proportional jitter)"),
                ));
                Setting::literal(
                    JitterFactor::new(f).map_or(Jitter::Full, Jitter::Proportional),
                    v.byte_range(),
                )
            }
            None => Setting::assumed(Jitter::None, v.byte_range(), cx.expr(*v), "no jitter"),
        },
    });
    // Retry-After: honoured on 413/429/503 by default, capped at 6 h.
    let honor = match respect {
        None => Setting::default(
            true,
            span.clone(),
            "urllib3 2.x: respect_retry_after_header = True",
        ),
        Some(v) => match cx.eval(v).known() {
            Some(x) => Setting::literal(x.truthy(), v.byte_range()),
            None => Setting::assumed(true, v.byte_range(), cx.expr(v), "urllib3's default, True"),
        },
    };
    // urllib3 1.26 (pinned by the project) has no `retry_after_max`: a
    // Retry-After is waited whatever it says.
    let pin = super::pins::urllib3(cx.file.path(), cx.file.boundary);
    if let Some(p) = pin.as_ref().filter(|p| p.major < 2) {
        if honor.value && !kw.contains_key("retry_after_max") {
            c.notes.push((
                span.clone(),
                format!(
                    "urllib3 {} (pinned in {}): no retry_after_max, so a Retry-After is waited whatever it says",
                    p.written.trim_start_matches('='), p.file
                ),
            ));
            c.retry_after = Some(RetryAfter { honor, max: None });
            return c;
        }
    }
    if honor.value {
        c.retry_after = Some(RetryAfter {
            honor,
            max: Some(match kw.get("retry_after_max") {
                None => Setting::default(
                    21_600_000.0,
                    span.clone(),
                    "urllib3 2.x: retry_after_max = 21600 s",
                ),
                Some(v) => seconds_ms(cx, *v, 21_600_000.0, "urllib3's default, 21600 s"),
            }),
        });
    }
    c
}

/// requests `HTTPAdapter(max_retries=n)` with an integer: `Retry.from_int(n)` =
/// `Retry(total=n)` with urllib3's other defaults. `None` when it does not retry.
pub fn adapter_int<'t>(cx: &Ctx<'_, 't>, call: Node<'t>, value: Node<'t>) -> Option<CodeClient> {
    let n = cx.eval(value);
    if let Eval::Known(v) = &n {
        if v.int().is_some_and(|i| i <= 0) {
            return None;
        }
    }
    // Same settings as `Retry(total=n)`: read through a `Retry` with that total.
    let mut c = retry(cx, call, "HTTPAdapter", None);
    c.kind = format!("HTTPAdapter(max_retries={})", cx.text(value));
    c.findings.clear();
    c.attempts = Some(count(cx, value, 1, 1, "requests' default, 0 retries"));
    c.notes.push((
        value.byte_range(),
        "requests: max_retries=n is urllib3 `Retry(total=n)`; attempts are n + 1".into(),
    ));
    c.retry_on = c.retry_on.map(|mut s| {
        s.span = call.byte_range();
        s
    });
    timeout_as_count(cx, value, "max_retries", &mut c.findings);
    Some(c)
}

/// RL017 when a count is written as a variable named like a timeout
/// (`Retry(total=timeout)`).
fn timeout_as_count(cx: &Ctx<'_, '_>, v: Node<'_>, what: &str, findings: &mut Vec<Finding>) {
    let t = cx.text(v);
    if matches!(v.kind(), "identifier" | "attribute") && looks_like_timeout(t) {
        findings.push(Finding {
            code: "RL017",
            span: v.byte_range(),
            message: format!(
                "urllib3: `{what}` is a retry count, but `{t}` names a timeout: the timeout \
                 becomes the number of retries"
            ),
            label: "a timeout used as a retry count".into(),
            help: "pass the number of retries here and the timeout to the request \
                   (`session.post(url, timeout=...)`)"
                .into(),
        });
    }
}
