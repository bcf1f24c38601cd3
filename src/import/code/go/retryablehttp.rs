//! hashicorp/go-retryablehttp clients (src: hashicorp/go-retryablehttp@fd004584
//! `client.go` L49–51 defaults, L440–447 `NewClient`, L472–484
//! `DefaultRetryPolicy`, L551 `DefaultBackoff`, L619 `LinearJitterBackoff`, L647
//! `RateLimitLinearJitterBackoff`, L761–771 the retry loop).
//!
//! Read: `retryablehttp.Get/Head/Post/PostForm(url, ..)` (the package's default
//! client, built by `NewClient()`), `retryablehttp.NewClient()` (defaults: `RetryMax` 4 retries, waits
//! 1 s..30 s, `DefaultRetryPolicy`, `DefaultBackoff`) and `retryablehttp.Client{...}`
//! / `&retryablehttp.Client{...}` literals (unset fields are Go zero values: no
//! retries, and a nil `CheckRetry` panics in `Do`), then `x.RetryMax = 5`-style
//! assignments to the variable or field that holds the client and
//! `x.HTTPClient.Timeout = d`. `DefaultRetryPolicy` retries connection errors, 429
//! and every status >= 500 except 501 for every method (POST too: the policy never
//! sees the request); `DefaultBackoff` honours `Retry-After` on 429/503 without
//! clamping it to `RetryWaitMax`, and adds no jitter.

use super::condition::{self, default_policy_signals, describe};
use super::settings;
use super::{name_of, same_name, Ctx};
use crate::import::code::lower::MAY_RETRY_ANYTHING;
use crate::import::code::model::{CallSite, CodeClient, Finding, RetryAfter, Setting, Span};
use crate::import::Platform;
use crate::policy::model::{Jitter, JitterFactor, Signal};
use tree_sitter::Node;

/// `defaultRetryMax` (retries).
pub const DEFAULT_RETRY_MAX: i64 = 4;
/// `defaultRetryWaitMin` (ms).
pub const DEFAULT_WAIT_MIN_MS: f64 = 1_000.0;
/// `defaultRetryWaitMax` (ms).
pub const DEFAULT_WAIT_MAX_MS: f64 = 30_000.0;

const DEFAULT_POLICY: &str =
    "DefaultRetryPolicy retries connection errors, 429 and every status >= 500 except 501";

enum Check {
    /// `DefaultRetryPolicy` / `ErrorPropagatedRetryPolicy`, at `span`.
    Default(Span),
    /// A same-file predicate read from its body.
    Read(Span, String, Vec<Signal>),
    /// A predicate not read.
    Custom(Span, String),
    /// No `CheckRetry` in a struct literal: nil.
    Nil,
}

enum BackoffFn {
    /// `DefaultBackoff`.
    Default(Span),
    /// `LinearJitterBackoff` (`rate_limit`: `RateLimitLinearJitterBackoff`).
    Linear(Span, bool),
    /// A custom function: its expression and, when it is a same-file function
    /// or a literal, the text of its body (and of the same-file functions it calls).
    Custom(Span, String, Option<String>),
    /// No `Backoff` in a struct literal: nil.
    Nil,
}

struct Rh {
    c: CodeClient,
    literal: bool,
    wait_min: Option<Setting<f64>>,
    wait_max: Option<Setting<f64>>,
    check: Option<Check>,
    backoff: Option<BackoffFn>,
    label: String,
}

const FIELDS: &[&str] = &[
    "RetryMax",
    "RetryWaitMin",
    "RetryWaitMax",
    "CheckRetry",
    "Backoff",
    "HTTPClient",
];

/// The go-retryablehttp clients of the file.
pub fn read(ctx: &Ctx<'_>) -> Vec<CodeClient> {
    let mut found: Vec<Rh> = Vec::new();
    let label = ctx.imports.retryablehttp_label();
    for &call in &ctx.calls {
        let Some(f) = call.child_by_field_name("function") else {
            continue;
        };
        if f.kind() != "selector_expression" {
            continue;
        }
        let (Some(op), Some(field)) = (
            f.child_by_field_name("operand"),
            f.child_by_field_name("field"),
        ) else {
            continue;
        };
        if ctx.text(field) == "NewClient" && ctx.imports.is_retryablehttp(ctx.text(op)) {
            let mut c = CodeClient::new(
                Platform::GoRetryablehttp,
                "retryablehttp.NewClient()",
                call.byte_range(),
            );
            c.names.extend(name_of(ctx, call));
            super::add_return_names(ctx, &mut c, call);
            found.push(Rh {
                c,
                literal: false,
                wait_min: None,
                wait_max: None,
                check: None,
                backoff: None,
                label: label.clone(),
            });
        }
    }
    // Struct literals.
    let mut stack = vec![ctx.file.tree.root_node()];
    // One cursor for the walk (`named_children` and `children` reset it to
    // each node): a cursor per node cost an allocation each.
    let mut walker = ctx.file.tree.walk();
    while let Some(node) = stack.pop() {
        if node.kind() == "composite_literal" && is_client_type(ctx, node) {
            let mut c = CodeClient::new(
                Platform::GoRetryablehttp,
                "retryablehttp.Client{...}",
                node.byte_range(),
            );
            c.names.extend(name_of(ctx, node));
            super::add_return_names(ctx, &mut c, node);
            let mut rh = Rh {
                c,
                literal: true,
                wait_min: None,
                wait_max: None,
                check: None,
                backoff: None,
                label: label.clone(),
            };
            if let Some(body) = node.child_by_field_name("body") {
                let mut cur = body.walk();
                for el in body.named_children(&mut cur) {
                    if el.kind() != "keyed_element" {
                        continue;
                    }
                    let (Some(k), Some(v)) = (
                        el.child_by_field_name("key"),
                        el.child_by_field_name("value"),
                    ) else {
                        continue;
                    };
                    let v = v.named_child(0).unwrap_or(v);
                    apply(ctx, &mut rh, ctx.text(k), v);
                }
            }
            found.push(rh);
        }
        stack.extend(node.named_children(&mut walker));
    }
    // Field assignments after the client is built.
    for &stmt in &ctx.assignments {
        if stmt.kind() != "assignment_statement"
            || stmt
                .child_by_field_name("operator")
                .is_some_and(|o| ctx.text(o) != "=")
        {
            continue;
        }
        let (Some(left), Some(right)) = (
            stmt.child_by_field_name("left"),
            stmt.child_by_field_name("right"),
        ) else {
            continue;
        };
        let lefts: Vec<Node<'_>> = {
            let mut c = left.walk();
            left.named_children(&mut c).collect()
        };
        let rights: Vec<Node<'_>> = {
            let mut c = right.walk();
            right.named_children(&mut c).collect()
        };
        if lefts.len() != rights.len() {
            continue;
        }
        for (l, r) in lefts.into_iter().zip(rights) {
            if l.kind() != "selector_expression" {
                continue;
            }
            let (Some(op), Some(field)) = (
                l.child_by_field_name("operand"),
                l.child_by_field_name("field"),
            ) else {
                continue;
            };
            let field = ctx.text(field);
            // `x.HTTPClient.Timeout = d`
            let (owner, field) = if field == "Timeout"
                && op.kind() == "selector_expression"
                && op
                    .child_by_field_name("field")
                    .is_some_and(|f| ctx.text(f) == "HTTPClient")
            {
                match op.child_by_field_name("operand") {
                    Some(o) => (o, "HTTPClient.Timeout"),
                    None => continue,
                }
            } else {
                (op, field)
            };
            if !FIELDS.contains(&field) && field != "HTTPClient.Timeout" {
                continue;
            }
            let owner = ctx.text(owner);
            let Some(rh) = found.iter_mut().rev().find(|rh| {
                rh.c.span.start < stmt.start_byte()
                    && rh.c.names.iter().any(|(n, _)| same_name(n, owner))
            }) else {
                continue;
            };
            if field == "HTTPClient.Timeout" {
                let t =
                    settings::duration(ctx, &mut rh.c, r, "HTTPClient.Timeout", 0.0, "no timeout");
                rh.c.attempt_timeout = Some(t);
            } else {
                apply(ctx, rh, field, r);
            }
        }
    }
    // Package-level helpers (`retryablehttp.Post(url, ct, body)`) use the
    // package's default client, `NewClient()`: one client per file holds them.
    let mut package: Option<Rh> = None;
    for &call in &ctx.calls {
        let Some(f) = call.child_by_field_name("function") else {
            continue;
        };
        let (Some(op), Some(field)) = (
            f.child_by_field_name("operand"),
            f.child_by_field_name("field"),
        ) else {
            continue;
        };
        let verb = ctx.text(field);
        if f.kind() != "selector_expression"
            || op.kind() != "identifier"
            || !ctx.imports.is_retryablehttp(ctx.text(op))
            || !matches!(verb, "Get" | "Head" | "Post" | "PostForm")
        {
            continue;
        }
        let Some(url) = call
            .child_by_field_name("arguments")
            .and_then(|a| a.named_child(0))
        else {
            continue;
        };
        let rh = package.get_or_insert_with(|| Rh {
            c: CodeClient::new(
                Platform::GoRetryablehttp,
                "retryablehttp's package-level default client",
                call.byte_range(),
            ),
            literal: false,
            wait_min: None,
            wait_max: None,
            check: None,
            backoff: None,
            label: label.clone(),
        });
        rh.c.calls.push(CallSite {
            receiver: ctx.text(op).to_string(),
            method: Some(if verb == "PostForm" { "POST" } else { verb }.to_ascii_uppercase()),
            url: super::calls::url_of(ctx, url),
            span: call.byte_range(),
            headers: Vec::new(),
        });
    }
    found.extend(package);
    found.into_iter().map(|rh| finish(ctx, rh)).collect()
}

fn is_client_type(ctx: &Ctx<'_>, lit: Node<'_>) -> bool {
    let Some(t) = lit.child_by_field_name("type") else {
        return false;
    };
    if t.kind() != "qualified_type" {
        return false;
    }
    let (Some(p), Some(n)) = (
        t.child_by_field_name("package"),
        t.child_by_field_name("name"),
    ) else {
        return false;
    };
    ctx.text(n) == "Client" && ctx.imports.is_retryablehttp(ctx.text(p))
}

/// The library function a value names (`retryablehttp.DefaultBackoff`).
fn library_fn<'a>(ctx: &Ctx<'a>, v: Node<'_>) -> Option<&'a str> {
    if v.kind() != "selector_expression" {
        return None;
    }
    let op = v.child_by_field_name("operand")?;
    if !ctx.imports.is_retryablehttp(ctx.text(op)) {
        return None;
    }
    Some(ctx.text(v.child_by_field_name("field")?))
}

fn apply(ctx: &Ctx<'_>, rh: &mut Rh, field: &str, v: Node<'_>) {
    match field {
        "RetryMax" => {
            rh.c.attempts = Some(settings::retries(
                ctx,
                &mut rh.c,
                v,
                DEFAULT_RETRY_MAX,
                "go-retryablehttp's default, 4 retries",
            ));
        }
        "RetryWaitMin" => {
            rh.wait_min = Some(settings::duration(
                ctx,
                &mut rh.c,
                v,
                "RetryWaitMin",
                DEFAULT_WAIT_MIN_MS,
                "go-retryablehttp's default, 1 s",
            ));
        }
        "RetryWaitMax" => {
            rh.wait_max = Some(settings::duration(
                ctx,
                &mut rh.c,
                v,
                "RetryWaitMax",
                DEFAULT_WAIT_MAX_MS,
                "go-retryablehttp's default, 30 s",
            ));
        }
        "CheckRetry" => {
            let span = v.byte_range();
            let expr = ctx.text(v).to_string();
            rh.check = Some(match library_fn(ctx, v) {
                Some("DefaultRetryPolicy" | "ErrorPropagatedRetryPolicy") => Check::Default(span),
                _ if expr == "nil" => Check::Nil,
                _ => {
                    let func = if v.kind() == "func_literal" {
                        Some(v)
                    } else {
                        ctx.local_func(v)
                    };
                    match func.and_then(|f| condition::read(ctx, f)) {
                        Some(signals) => Check::Read(span, expr, signals),
                        None => Check::Custom(span, expr),
                    }
                }
            });
        }
        "Backoff" => {
            let span = v.byte_range();
            let expr = ctx.text(v).to_string();
            rh.backoff = Some(match library_fn(ctx, v) {
                Some("DefaultBackoff") => BackoffFn::Default(span),
                Some("LinearJitterBackoff") => BackoffFn::Linear(span, false),
                Some("RateLimitLinearJitterBackoff") => BackoffFn::Linear(span, true),
                _ if expr == "nil" => BackoffFn::Nil,
                _ => {
                    let body = if v.kind() == "func_literal" {
                        Some(expr.clone())
                    } else {
                        ctx.local_func(v).map(|f| body_with_callees(ctx, f))
                    };
                    BackoffFn::Custom(span, expr, body)
                }
            });
        }
        "HTTPClient" => {
            let lit = if v.kind() == "unary_expression" {
                v.child_by_field_name("operand")
            } else {
                Some(v)
            };
            if let Some(body) = lit
                .filter(|l| l.kind() == "composite_literal")
                .and_then(|l| l.child_by_field_name("body"))
            {
                let mut cur = body.walk();
                for el in body.named_children(&mut cur) {
                    let (Some(k), Some(val)) = (
                        el.child_by_field_name("key"),
                        el.child_by_field_name("value"),
                    ) else {
                        continue;
                    };
                    if ctx.text(k) == "Timeout" {
                        let val = val.named_child(0).unwrap_or(val);
                        let t = settings::duration(
                            ctx,
                            &mut rh.c,
                            val,
                            "HTTPClient.Timeout",
                            0.0,
                            "no timeout",
                        );
                        rh.c.attempt_timeout = Some(t);
                    }
                }
            }
        }
        _ => {}
    }
}

/// The text of a function and of the same-file functions it calls (one level,
/// at most 8), to tell whether a custom backoff is random or reads `Retry-After`.
fn body_with_callees(ctx: &Ctx<'_>, f: Node<'_>) -> String {
    let mut text = ctx.text(f).to_string();
    let mut stack = vec![f];
    let mut seen = 0;
    while let Some(n) = stack.pop() {
        if n.kind() == "call_expression" && seen < 8 {
            if let Some(g) = n
                .child_by_field_name("function")
                .and_then(|callee| ctx.local_func(callee))
                .filter(|g| g.id() != f.id())
            {
                seen += 1;
                text.push('\n');
                text.push_str(ctx.text(g));
            }
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    text
}

fn finish(ctx: &Ctx<'_>, rh: Rh) -> CodeClient {
    let Rh {
        mut c,
        literal,
        wait_min,
        wait_max,
        check,
        backoff,
        label,
    } = rh;
    let _ = ctx;
    let span = c.span.clone();
    match &c.attempts {
        None if literal => {
            c.attempts = Some(Setting::default(
                1,
                span.clone(),
                format!(
                    "RetryMax is not set in the struct literal: the zero value, no retries ({label})"
                ),
            ));
        }
        None => {
            c.attempts = Some(Setting::default(
                DEFAULT_RETRY_MAX + 1,
                span.clone(),
                format!("RetryMax = 4 retries (`defaultRetryMax`), 5 attempts ({label})"),
            ));
        }
        Some(a) => {
            if a.known == crate::import::code::model::Known::Literal {
                c.notes.push((
                    a.span.clone(),
                    format!(
                        "go-retryablehttp counts retries: RetryMax = {} is {} attempts",
                        a.value - 1,
                        a.value
                    ),
                ));
            }
        }
    }
    let zero = |what: &str| {
        Setting::default(
            0.0,
            span.clone(),
            format!("{what} is not set in the struct literal: 0 ({label})"),
        )
    };
    let wait_min = wait_min.unwrap_or_else(|| {
        if literal {
            zero("RetryWaitMin")
        } else {
            Setting::default(
                DEFAULT_WAIT_MIN_MS,
                span.clone(),
                format!("RetryWaitMin = 1 s (`defaultRetryWaitMin`) ({label})"),
            )
        }
    });
    let wait_max = wait_max.unwrap_or_else(|| {
        if literal {
            zero("RetryWaitMax")
        } else {
            Setting::default(
                DEFAULT_WAIT_MAX_MS,
                span.clone(),
                format!("RetryWaitMax = 30 s (`defaultRetryWaitMax`) ({label})"),
            )
        }
    });
    let retries = c.attempts.as_ref().is_some_and(|a| a.value > 1);

    // What is retried.
    let check = check.unwrap_or(if literal {
        Check::Nil
    } else {
        Check::Default(span.clone())
    });
    let method_note_at = match &check {
        Check::Default(s) | Check::Read(s, _, _) | Check::Custom(s, _) => s.clone(),
        Check::Nil => span.clone(),
    };
    c.retry_on = Some(match check {
        Check::Default(s) => Setting::default(
            default_policy_signals(),
            s,
            format!("{DEFAULT_POLICY} ({label})"),
        ),
        Check::Read(s, expr, signals) => {
            c.notes.push((
                s.clone(),
                format!(
                    "CheckRetry `{expr}` read from its body: retries {}",
                    describe(&signals)
                ),
            ));
            Setting::literal(signals, s)
        }
        Check::Custom(s, expr) => Setting::assumed(
            MAY_RETRY_ANYTHING.to_vec(),
            s,
            expr,
            "may retry anything (a custom CheckRetry whose body is not read)",
        ),
        Check::Nil => {
            c.findings.push(Finding {
                code: "RL017",
                span: span.clone(),
                message: "go-retryablehttp: this `retryablehttp.Client{...}` literal sets no \
                          CheckRetry: the field is a nil func and `Do` calls it for every \
                          response (a nil-func panic)"
                    .to_string(),
                label: "no CheckRetry".to_string(),
                help: "set `CheckRetry: retryablehttp.DefaultRetryPolicy` (or build the \
                       client with `retryablehttp.NewClient()` and change its fields)"
                    .to_string(),
            });
            Setting::literal(Vec::new(), span.clone())
        }
    });
    if retries {
        c.notes.push((
            method_note_at,
            "go-retryablehttp has no method check: CheckRetry never sees the request, so \
             every method is retried (POST too)"
                .to_string(),
        ));
    }
    // `methods: None`: every method.

    // Backoff.
    let backoff = backoff.unwrap_or(if literal {
        BackoffFn::Nil
    } else {
        BackoffFn::Default(span.clone())
    });
    match backoff {
        BackoffFn::Default(s) => {
            c.backoff.multiplier = Some(Setting::default(
                2.0,
                s.clone(),
                format!("DefaultBackoff waits RetryWaitMin · 2^n, at most RetryWaitMax ({label})"),
            ));
            c.backoff.jitter = Some(Setting::default(
                Jitter::None,
                s.clone(),
                format!("DefaultBackoff adds no jitter ({label})"),
            ));
            c.retry_after = Some(RetryAfter {
                honor: Setting::default(
                    true,
                    s,
                    format!(
                        "DefaultBackoff waits what Retry-After says on 429 and 503, \
                         not clamped to RetryWaitMax ({label})"
                    ),
                ),
                max: None,
            });
            c.backoff.base = Some(wait_min);
            c.backoff.cap = Some(wait_max);
        }
        BackoffFn::Linear(s, rate_limit) => {
            let (lo, hi) = (wait_min.value, wait_max.value);
            // A refused wait (RL017 at it) gives no base and no jitter: nothing is
            // computed from its placeholder.
            let refused = [&wait_min, &wait_max]
                .into_iter()
                .find(|w| w.is_refused())
                .cloned();
            let jitter = if refused.is_some() {
                Jitter::None
            } else if hi > lo && hi + lo > 0.0 {
                JitterFactor::new((hi - lo) / (hi + lo)).map_or(Jitter::None, Jitter::Proportional)
            } else {
                Jitter::None
            };
            if refused.is_none() {
                c.backoff.jitter = Some(Setting::default(
                    jitter,
                    s.clone(),
                    format!(
                        "LinearJitterBackoff waits n × uniform(RetryWaitMin, RetryWaitMax) \
                         before retry n (linear, no cap) ({label})"
                    ),
                ));
            }
            c.backoff.base = Some(refused.unwrap_or(Setting {
                value: (lo + hi) / 2.0,
                span: wait_min.span.clone(),
                known: wait_min.known.clone(),
            }));
            if rate_limit {
                c.retry_after = Some(RetryAfter {
                    honor: Setting::default(
                        true,
                        s,
                        format!(
                            "RateLimitLinearJitterBackoff waits what Retry-After says \
                             on 429 and 503, uncapped ({label})"
                        ),
                    ),
                    max: None,
                });
            }
        }
        BackoffFn::Custom(s, expr, Some(body)) => {
            let random = ["rand.", "JitterBackoff(", "Jitter("]
                .iter()
                .any(|m| body.contains(m));
            c.backoff.jitter = Some(Setting::default(
                if random { Jitter::Full } else { Jitter::None },
                s.clone(),
                if random {
                    format!(
                        "the custom Backoff `{expr}` adds a random component (read from its body)"
                    )
                } else {
                    format!(
                        "the custom Backoff `{expr}` has no random component (read from its body)"
                    )
                },
            ));
            if [
                "Retry-After",
                "RateLimitLinearJitterBackoff(",
                "DefaultBackoff(",
            ]
            .iter()
            .any(|m| body.contains(m))
            {
                c.retry_after = Some(RetryAfter {
                    honor: Setting::default(
                        true,
                        s,
                        format!("the custom Backoff `{expr}` reads Retry-After (uncapped)"),
                    ),
                    max: None,
                });
            } else {
                c.notes.push((
                    s,
                    format!("the custom Backoff `{expr}` never reads Retry-After"),
                ));
            }
            c.backoff.base = Some(wait_min);
            c.backoff.cap = Some(wait_max);
        }
        BackoffFn::Custom(s, expr, None) => {
            c.backoff.jitter = Some(Setting::assumed(
                Jitter::None,
                s.clone(),
                expr.clone(),
                "no jitter and no Retry-After (a custom Backoff whose body is not read)",
            ));
            c.backoff.base = Some(wait_min);
            c.backoff.cap = Some(wait_max);
        }
        BackoffFn::Nil => {
            if retries {
                c.findings.push(Finding {
                    code: "RL017",
                    span: span.clone(),
                    message: "go-retryablehttp: this `retryablehttp.Client{...}` literal retries \
                              but sets no Backoff: the field is a nil func and the first retry \
                              panics"
                        .to_string(),
                    label: "no Backoff".to_string(),
                    help: "set `Backoff: retryablehttp.DefaultBackoff` (or \
                           `LinearJitterBackoff` for jitter)"
                        .to_string(),
                });
            }
            c.backoff.base = Some(wait_min);
            c.backoff.cap = Some(wait_max);
        }
    }
    c
}
