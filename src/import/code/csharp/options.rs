//! Retry options in Polly v8 terms: `HttpRetryStrategyOptions`
//! (Microsoft.Extensions.Http.Resilience) and `RetryStrategyOptions` (Polly core),
//! with their defaults, and the assignments that change them (`MaxRetryAttempts
//! = 5` in an object initializer, `o.Retry.Delay = ...` in an options lambda).
//!
//! Sources: App-vNext/Polly@243b0443 `src/Polly.Core/Retry/RetryConstants.cs`
//! (3 retries, 2 s, Constant, no jitter, no `MaxDelay`; exponential jitter is the
//! "decorrelated jitter backoff V2", constant and linear jitter ±25 %);
//! dotnet/extensions@02ba73e9 `HttpRetryStrategyOptions.cs` (Exponential, jitter on,
//! `ShouldRetryAfterHeader` true), @5212ce0e `HttpClientResiliencePredicates.cs`
//! (>= 500, 408, 429, `HttpRequestException`, `TimeoutRejectedException`; no method
//! filter), @2cb8e472 `HttpRetryStrategyOptionsExtensions.cs`
//! (`DisableForUnsafeHttpMethods`: POST, PATCH, PUT, DELETE, CONNECT).

use super::super::model::{CodeClient, RetryAfter, Setting, Span};
use super::super::CodeFile;
use super::eval::{self, Consts};
use super::syntax;
use crate::import::code::lower::MAY_RETRY_ANYTHING;
use crate::policy::model::{Jitter, JitterFactor, Signal};
use tree_sitter::Node;

/// Which options type: it decides the defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// `HttpRetryStrategyOptions` (Microsoft.Extensions.Http.Resilience 8+).
    Http,
    /// `RetryStrategyOptions` (Polly 8 core).
    Core,
}

const HTTP_SRC: &str = "Microsoft.Extensions.Http.Resilience 8+ `HttpRetryStrategyOptions`";
const CORE_SRC: &str = "Polly 8 `RetryStrategyOptions`";

/// The transient outcomes of `HttpClientResiliencePredicates.IsTransientHttpOutcome`.
pub fn transient_http() -> Vec<Signal> {
    vec![
        Signal::ConnectFailure,
        Signal::Reset,
        Signal::Timeout,
        Signal::Status(408),
        Signal::Status(429),
        Signal::Class(5),
    ]
}

/// What the options say about the delay shape, finished by [`Reader::finish`].
pub struct Reader {
    flavor: Flavor,
    span: Span,
    backoff_type: Option<(String, Span)>,
    use_jitter: Option<(bool, Span)>,
}

impl Reader {
    /// Applies the defaults of `flavor` to `c`, at `span` (the construct).
    pub fn new(c: &mut CodeClient, flavor: Flavor, span: Span) -> Reader {
        let src = match flavor {
            Flavor::Http => HTTP_SRC,
            Flavor::Core => CORE_SRC,
        };
        c.attempts = Some(Setting::default(
            4,
            span.clone(),
            format!("{src}: `MaxRetryAttempts` = 3 retries"),
        ));
        c.notes.push((
            span.clone(),
            "Polly counts retries: `MaxRetryAttempts` = n is n + 1 attempts".into(),
        ));
        c.backoff.base = Some(Setting::default(
            2_000.0,
            span.clone(),
            format!("{src}: `Delay` = 2 s"),
        ));
        match flavor {
            Flavor::Http => {
                c.retry_on = Some(Setting::default(
                    transient_http(),
                    span.clone(),
                    "`ShouldHandle` = `IsTransientHttpOutcome`: status >= 500, 408, 429, `HttpRequestException`, `TimeoutRejectedException`",
                ));
                c.retry_after = Some(RetryAfter {
                    honor: Setting::default(
                        true,
                        span.clone(),
                        format!("{src}: `ShouldRetryAfterHeader` = true, no cap"),
                    ),
                    max: None,
                });
                c.notes.push((
                    span.clone(),
                    "no method filter: every method is retried, POST included (`DisableForUnsafeHttpMethods()` is opt-in)".into(),
                ));
            }
            Flavor::Core => {
                c.retry_on = Some(Setting::default(
                    vec![Signal::ConnectFailure, Signal::Reset],
                    span.clone(),
                    "`ShouldHandle` = any exception except `OperationCanceledException` (a timeout is one: not retried)",
                ));
                c.notes.push((
                    span.clone(),
                    "Polly knows no HTTP method: every method is retried".into(),
                ));
            }
        }
        Reader {
            flavor,
            span,
            backoff_type: None,
            use_jitter: None,
        }
    }

    /// Applies `key = value` (a property of the options, `MaxRetryAttempts`).
    /// Returns false when the key is not a retry option.
    pub fn apply(
        &mut self,
        c: &mut CodeClient,
        file: &CodeFile<'_>,
        consts: &Consts<'_>,
        key: &str,
        value: Node<'_>,
    ) -> bool {
        let text = file.text_of(value);
        let span = value.byte_range();
        match key {
            "MaxRetryAttempts" => {
                c.attempts = Some(match eval::int(file, consts, value) {
                    Some(n) => Setting::literal(n.saturating_add(1), span),
                    None => Setting::assumed(4, span, text, "the default, 3 retries (4 attempts)"),
                });
            }
            "Delay" => {
                c.backoff.base = Some(match eval::duration_ms(file, consts, value) {
                    Some(ms) => Setting::literal(ms, span),
                    None => Setting::assumed(2_000.0, span, text, "the default `Delay`, 2 s"),
                });
            }
            "MaxDelay" => {
                c.backoff.cap = match eval::duration_ms(file, consts, value) {
                    Some(ms) => Some(Setting::literal(ms, span)),
                    None if text == "null" => None,
                    None => Some(Setting::assumed(
                        f64::INFINITY,
                        span,
                        text,
                        "no cap (the default)",
                    )),
                };
            }
            "BackoffType" => {
                let t = text.rsplit('.').next().unwrap_or(text).to_string();
                self.backoff_type = Some((t, span));
            }
            "UseJitter" => match text {
                "true" => self.use_jitter = Some((true, span)),
                "false" => self.use_jitter = Some((false, span)),
                _ => {
                    c.backoff.jitter =
                        Some(Setting::assumed(Jitter::None, span, text, "no jitter"));
                    self.use_jitter = None;
                }
            },
            "ShouldRetryAfterHeader" => {
                let honor = match text {
                    "true" => Setting::literal(true, span),
                    "false" => Setting::literal(false, span),
                    _ => Setting::assumed(true, span, text, "Retry-After honoured (the default)"),
                };
                c.retry_after = match honor.value {
                    true => Some(RetryAfter { honor, max: None }),
                    false => None,
                };
            }
            "ShouldHandle" => {
                c.retry_on = Some(match predicate_signals(file, value) {
                    Some(s) => Setting::literal(s, span),
                    None => Setting::assumed(
                        MAY_RETRY_ANYTHING.to_vec(),
                        span,
                        text,
                        "a custom condition: may retry anything",
                    ),
                });
            }
            "DelayGenerator" => {
                c.backoff.base = Some(Setting::assumed(
                    2_000.0,
                    span.clone(),
                    text,
                    "a custom delay: the `Delay` setting",
                ));
                if text.contains("RetryAfter") {
                    c.retry_after = Some(RetryAfter {
                        honor: Setting::assumed(true, span, text, "Retry-After honoured, no cap"),
                        max: None,
                    });
                }
            }
            _ => return false,
        }
        true
    }

    /// Sets multiplier and jitter from `BackoffType` and `UseJitter`.
    pub fn finish(self, c: &mut CodeClient) {
        let (ty, ty_span, ty_lit) = match (&self.backoff_type, self.flavor) {
            (Some((t, s)), _) => (t.as_str(), s.clone(), true),
            (None, Flavor::Http) => ("Exponential", self.span.clone(), false),
            (None, Flavor::Core) => ("Constant", self.span.clone(), false),
        };
        let src = match self.flavor {
            Flavor::Http => HTTP_SRC,
            Flavor::Core => CORE_SRC,
        };
        let mult = match ty {
            "Exponential" => 2.0,
            _ => 1.0,
        };
        if ty == "Linear" {
            c.notes.push((
                ty_span.clone(),
                "`Linear` (delay × attempt) is read as a constant delay".into(),
            ));
        }
        c.backoff.multiplier = Some(if ty_lit {
            Setting::literal(mult, ty_span.clone())
        } else {
            Setting::default(
                mult,
                ty_span.clone(),
                format!("{src}: `BackoffType` = {ty}"),
            )
        });
        if c.backoff.jitter.is_some() {
            return;
        }
        let (on, span, lit) = match (&self.use_jitter, self.flavor) {
            (Some((b, s)), _) => (*b, s.clone(), true),
            (None, Flavor::Http) => (true, self.span.clone(), false),
            (None, Flavor::Core) => (false, self.span.clone(), false),
        };
        let jitter = match (on, ty) {
            (false, _) => Jitter::None,
            (true, "Exponential") => Jitter::Decorrelated,
            (true, _) => JitterFactor::new(0.25).map_or(Jitter::Full, Jitter::Proportional),
        };
        c.backoff.jitter = Some(if lit {
            Setting::literal(jitter, span)
        } else {
            Setting::default(jitter, span, format!("{src}: `UseJitter` = {on}"))
        });
    }
}

/// The methods left after `DisableForUnsafeHttpMethods()` or `DisableFor(m...)`.
pub fn methods_after_disable(file: &CodeFile<'_>, call: Node<'_>) -> Option<Vec<String>> {
    const ALL: [&str; 9] = [
        "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE", "POST", "PATCH", "CONNECT",
    ];
    let disabled: Vec<String> = match syntax::method_name(file, call) {
        "DisableForUnsafeHttpMethods" => ["POST", "PATCH", "PUT", "DELETE", "CONNECT"]
            .map(String::from)
            .to_vec(),
        "DisableFor" => syntax::args(call)
            .iter()
            .map(|(_, v)| http_method(file, *v))
            .collect::<Option<Vec<String>>>()?,
        _ => return None,
    };
    Some(
        ALL.iter()
            .filter(|m| !disabled.iter().any(|d| d == *m))
            .map(|m| m.to_string())
            .collect(),
    )
}

/// `HttpMethod.Post` -> `POST`; `new HttpMethod("PATCH")` -> `PATCH`.
pub fn http_method(file: &CodeFile<'_>, node: Node<'_>) -> Option<String> {
    let text = file.text_of(node);
    if let Some(rest) = text.strip_prefix("HttpMethod.") {
        return Some(rest.trim().to_ascii_uppercase());
    }
    if node.kind() == "object_creation_expression" && text.contains("HttpMethod") {
        let (_, v) = *syntax::args(node).first()?;
        let s = file.text_of(v).trim_matches('"');
        return Some(s.to_ascii_uppercase());
    }
    None
}

/// The signals of a simple predicate: a `PredicateBuilder` chain
/// (`.Handle<HttpRequestException>().HandleResult(r => r.StatusCode == ...)`),
/// `HttpClientResiliencePredicates.IsTransient`, or a status comparison lambda.
/// `None` when it is anything else (a custom condition).
pub fn predicate_signals(file: &CodeFile<'_>, node: Node<'_>) -> Option<Vec<Signal>> {
    let text = file.text_of(node);
    if text.contains("IsTransient") && !text.contains("||") && !text.contains("&&") {
        return Some(transient_http());
    }
    let mut out = Vec::new();
    let mut cur = node;
    // A chain, read from its end towards `new PredicateBuilder...()`.
    for _ in 0..syntax::MAX_UP {
        match cur.kind() {
            "invocation_expression" => {
                let name = syntax::method_name(file, cur);
                match name {
                    "Handle" | "Or" => {
                        let types = syntax::type_args(file, cur);
                        for (t, _) in types {
                            out.extend(exception_signals(&t)?);
                        }
                        if let Some((_, a)) = syntax::args(cur).first() {
                            let _ = a;
                            return None;
                        }
                    }
                    "HandleResult" | "OrResult" => {
                        let (_, a) = *syntax::args(cur).first()?;
                        out.extend(status_lambda(file, a)?);
                    }
                    "HandleTransientHttpError" | "OrTransientHttpError" => {
                        out.extend(polly_transient())
                    }
                    "OrTransientHttpStatusCode" => {
                        out.extend([Signal::Status(408), Signal::Class(5)])
                    }
                    _ => return None,
                }
                match syntax::receiver(cur) {
                    Some(r) if r.kind() == "invocation_expression" => cur = r,
                    _ => break,
                }
            }
            "object_creation_expression" => break,
            "lambda_expression" => {
                out.extend(status_lambda(file, cur)?);
                break;
            }
            _ => return None,
        }
    }
    out.sort();
    out.dedup();
    Some(out)
}

/// `HttpPolicyExtensions.HandleTransientHttpError()`: 5xx, 408,
/// `HttpRequestException` (Polly.Extensions.Http 3.0).
pub fn polly_transient() -> Vec<Signal> {
    vec![
        Signal::ConnectFailure,
        Signal::Reset,
        Signal::Status(408),
        Signal::Class(5),
    ]
}

/// The signals an exception type stands for (`None`: not an HTTP one we know).
pub fn exception_signals(name: &str) -> Option<Vec<Signal>> {
    Some(match name {
        "HttpRequestException" | "SocketException" | "IOException" => {
            vec![Signal::ConnectFailure, Signal::Reset]
        }
        "TimeoutRejectedException" | "TaskCanceledException" | "TimeoutException" => {
            vec![Signal::Timeout]
        }
        "BrokenCircuitException" => Vec::new(),
        "Exception" => vec![Signal::ConnectFailure, Signal::Reset, Signal::Timeout],
        _ => return None,
    })
}

/// The statuses of `r => r.StatusCode == HttpStatusCode.X || (int)r.StatusCode >= 500`:
/// only comparisons of the status with literals, joined by `||`.
pub fn status_lambda(file: &CodeFile<'_>, node: Node<'_>) -> Option<Vec<Signal>> {
    let (_, body) = syntax::lambda(file, node)?;
    let mut out = Vec::new();
    let mut stack = vec![body];
    let mut steps = 0;
    while let Some(n) = stack.pop() {
        steps += 1;
        if steps > 256 {
            return None;
        }
        match n.kind() {
            "parenthesized_expression" => stack.push(n.named_child(0)?),
            "binary_expression" => {
                let op = file.text_of(n.child_by_field_name("operator")?);
                let l = n.child_by_field_name("left")?;
                let r = n.child_by_field_name("right")?;
                match op {
                    "||" => {
                        stack.push(l);
                        stack.push(r);
                    }
                    "==" | ">=" | ">" => {
                        let lt = file.text_of(l);
                        let rt = file.text_of(r);
                        let (status, other) = if lt.contains("StatusCode") {
                            (lt, rt)
                        } else if rt.contains("StatusCode") {
                            (rt, lt)
                        } else {
                            return None;
                        };
                        let _ = status;
                        let code = status_code(other)?;
                        match op {
                            "==" => out.push(Signal::Status(code)),
                            _ => {
                                let from = if op == ">" { code + 1 } else { code };
                                if from % 100 == 0 {
                                    for class in (from / 100)..=5 {
                                        out.push(Signal::Class(class as u8));
                                    }
                                } else {
                                    return None;
                                }
                            }
                        }
                    }
                    _ => return None,
                }
            }
            _ => return None,
        }
    }
    Some(out)
}

/// `HttpStatusCode.TooManyRequests` -> 429, `429` -> 429.
fn status_code(text: &str) -> Option<u16> {
    let t = text.trim().trim_start_matches("(HttpStatusCode)").trim();
    if let Ok(n) = t.parse::<u16>() {
        return (100..=599).contains(&n).then_some(n);
    }
    let name = t.rsplit('.').next()?;
    Some(match name {
        "RequestTimeout" => 408,
        "Conflict" => 409,
        "TooManyRequests" => 429,
        "InternalServerError" => 500,
        "NotImplemented" => 501,
        "BadGateway" => 502,
        "ServiceUnavailable" => 503,
        "GatewayTimeout" => 504,
        "NotFound" => 404,
        "BadRequest" => 400,
        "Unauthorized" => 401,
        "Forbidden" => 403,
        _ => return None,
    })
}
