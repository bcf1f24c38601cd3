//! Polly 7 retry policies: `Policy.Handle<HttpRequestException>().OrResult(...)`,
//! `HttpPolicyExtensions.HandleTransientHttpError()` and
//! `AddTransientHttpErrorPolicy(p => ...)` chains ending in `WaitAndRetryAsync(n,
//! attempt => TimeSpan...)`, `WaitAndRetryAsync(IEnumerable<TimeSpan>)` (arrays,
//! Polly.Contrib.WaitAndRetry `Backoff.*`) or `RetryAsync(n)`.
//!
//! Polly 7 has no defaults to speak of: the count and the delays are written. It
//! counts retries, knows no HTTP method, adds no jitter (only Polly.Contrib's
//! `DecorrelatedJitterBackoffV2` does) and ignores Retry-After unless the sleep
//! provider reads the outcome (src: App-vNext/Polly v7.2.4 `RetryPolicy`;
//! App-vNext/Polly.Extensions.Http 3.0.0 `HttpPolicyExtensions.cs`: 5xx, 408,
//! `HttpRequestException`, no 429).

use super::super::model::{CodeClient, RetryAfter, Setting};
use super::super::CodeFile;
use super::attach;
use super::eval::{self, Consts};
use super::options;
use super::syntax;
use crate::import::code::lower::MAY_RETRY_ANYTHING;
use crate::import::Platform;
use crate::policy::model::Jitter;
use tree_sitter::Node;

/// The terminal methods of a Polly 7 retry chain.
pub const TERMINALS: &[&str] = &["WaitAndRetryAsync", "WaitAndRetry", "RetryAsync", "Retry"];

/// The handlers that attach a Polly 7 policy to an `HttpClient`.
pub const HANDLERS: &[&str] = &["AddPolicyHandler", "AddTransientHttpErrorPolicy"];

/// Reads a Polly 7 `WaitAndRetryAsync(...)`/`RetryAsync(...)` call, when its chain
/// is a Polly one.
pub fn retry(file: &CodeFile<'_>, consts: &Consts<'_>, call: Node<'_>) -> Option<CodeClient> {
    let name = syntax::method_name(file, call);
    let recv = syntax::receiver(call)?;
    let handler = syntax::enclosing_call(file, call, HANDLERS);
    let transient_lambda = handler.is_some_and(|h| {
        syntax::method_name(file, h) == "AddTransientHttpErrorPolicy" && recv.kind() == "identifier"
    });
    let recv_text = file.text_of(recv);
    let polly_chain = recv_text.contains("Handle")
        || recv_text.contains("OrResult")
        || recv_text.starts_with("Policy");
    if !transient_lambda && !polly_chain {
        return None;
    }
    let span = attach::name_span(file, call);
    let mut c = CodeClient::new(Platform::Polly, format!("{name}(...)"), span.clone());
    if let Some(n) = syntax::stored_name(file, call) {
        c.names.push(n);
    }
    if let Some(h) = handler {
        c.names.extend(attach::targets(file, h));
    }
    c.retry_on = Some(if transient_lambda {
        Setting::default(
            options::polly_transient(),
            span.clone(),
            "`AddTransientHttpErrorPolicy`: 5xx, 408, `HttpRequestException` (no 429)",
        )
    } else {
        match options::predicate_signals(file, recv) {
            Some(s) => Setting::literal(s, recv.byte_range()),
            None => Setting::assumed(
                MAY_RETRY_ANYTHING.to_vec(),
                recv.byte_range(),
                condition_text(recv_text),
                "a custom condition: may retry anything",
            ),
        }
    });
    c.notes.push((
        span.clone(),
        "Polly counts retries (n retries are n + 1 attempts) and knows no HTTP method: every method is retried".into(),
    ));
    c.backoff.jitter = Some(Setting::default(
        Jitter::None,
        span.clone(),
        "Polly 7 adds no jitter",
    ));
    let args = syntax::args(call);
    let first = syntax::arg(file, &args, "retryCount", 0)
        .or_else(|| syntax::arg(file, &args, "sleepDurations", 0));
    let sleep = syntax::arg(file, &args, "sleepDurationProvider", 1);
    match first {
        Some(n) if eval::int(file, consts, n).is_some() => {
            let v = eval::int(file, consts, n).unwrap_or(0);
            c.attempts = Some(Setting::literal(v.saturating_add(1), n.byte_range()));
        }
        Some(n) if !name.starts_with("WaitAndRetry") || sleep.is_some() => {
            c.attempts = Some(Setting::assumed(
                2,
                n.byte_range(),
                file.text_of(n),
                "1 retry",
            ));
        }
        Some(n) => sleep_list(file, consts, n, &mut c),
        None => {
            // `RetryAsync()`: one retry.
            c.attempts = Some(Setting::default(
                2,
                span.clone(),
                "Polly 7 `RetryAsync()`: 1 retry",
            ));
        }
    }
    if !name.starts_with("WaitAndRetry") {
        c.backoff.base = Some(Setting::default(
            0.0,
            span.clone(),
            "`RetryAsync`: no delay",
        ));
        c.backoff.multiplier = Some(Setting::default(1.0, span, "`RetryAsync`: no delay"));
    } else if let Some(s) = sleep {
        sleep_provider(file, consts, s, &mut c);
    }
    Some(c)
}

/// `attempt => TimeSpan.FromSeconds(Math.Pow(2, attempt))` and the like.
fn sleep_provider(file: &CodeFile<'_>, consts: &Consts<'_>, node: Node<'_>, c: &mut CodeClient) {
    let text = file.text_of(node);
    let span = node.byte_range();
    let lower = text.to_ascii_lowercase();
    if lower.contains("random") || lower.contains(".next(") || lower.contains("jitter") {
        c.backoff.jitter = Some(Setting::assumed(
            Jitter::Full,
            span.clone(),
            text,
            "a random part in the delay (read as full jitter)",
        ));
    }
    if text.contains("RetryAfter") {
        c.retry_after = Some(RetryAfter {
            honor: Setting::assumed(true, span.clone(), text, "Retry-After honoured, no cap"),
            max: None,
        });
    }
    let read = syntax::lambda(file, node).and_then(|(param, body)| {
        // `TimeSpan.From...(x) + jitter`: the backoff is the left part.
        let body = if body.kind() == "binary_expression" {
            body.child_by_field_name("left")?
        } else {
            body
        };
        if let Some(ms) = eval::duration_ms(file, consts, body) {
            return Some((ms, 1.0));
        }
        if body.kind() != "invocation_expression" {
            return None;
        }
        let f = file.text_of(body.child_by_field_name("function")?);
        if !f.starts_with("TimeSpan.From") {
            return None;
        }
        let unit = unit_of(f)?;
        let (_, inner) = *syntax::args(body).first()?;
        if inner.kind() != "invocation_expression" || !file.text_of(inner).starts_with("Math.Pow") {
            return None;
        }
        let pa = syntax::args(inner);
        let (Some((_, b)), Some((_, p))) = (pa.first(), pa.get(1)) else {
            return None;
        };
        if file.text_of(*p) != param {
            return None;
        }
        let b = eval::number(file, consts, *b)?;
        Some((b * unit, b))
    });
    match read {
        Some((base, mult)) => {
            c.backoff.base = Some(Setting::literal(base, span.clone()));
            c.backoff.multiplier = Some(Setting::literal(mult, span));
        }
        None => {
            c.backoff.base = Some(Setting::assumed(
                1_000.0,
                span.clone(),
                text,
                "a 1 s first delay",
            ));
            c.backoff.multiplier = Some(Setting::assumed(1.0, span, text, "a constant delay"));
        }
    }
}

/// The ms of one unit of `TimeSpan.FromSeconds` and the like.
fn unit_of(f: &str) -> Option<f64> {
    Some(match f.rsplit('.').next()? {
        "FromMilliseconds" => 1.0,
        "FromSeconds" => 1_000.0,
        "FromMinutes" => 60_000.0,
        "FromHours" => 3_600_000.0,
        _ => return None,
    })
}

/// `WaitAndRetryAsync(IEnumerable<TimeSpan>)`: an array of delays or a
/// Polly.Contrib.WaitAndRetry `Backoff.*` call.
fn sleep_list(file: &CodeFile<'_>, consts: &Consts<'_>, node: Node<'_>, c: &mut CodeClient) {
    let mut n = node;
    if n.kind() == "identifier" {
        if let Some(v) = consts.var(file.text_of(n)) {
            n = v;
        }
    }
    let text = file.text_of(n).to_string();
    let span = n.byte_range();
    let unknown = |c: &mut CodeClient| {
        c.attempts = Some(Setting::assumed(
            2,
            span.clone(),
            text.clone(),
            "1 retry (the delays are not known statically)",
        ));
    };
    if n.kind() == "invocation_expression" {
        let method = syntax::method_name(file, n);
        let args = syntax::args(n);
        let count =
            syntax::arg(file, &args, "retryCount", 1).and_then(|v| eval::int(file, consts, v));
        let first = syntax::arg(file, &args, "medianFirstRetryDelay", 0)
            .or_else(|| syntax::arg(file, &args, "initialDelay", 0))
            .or_else(|| syntax::arg(file, &args, "delay", 0))
            .and_then(|v| eval::duration_ms(file, consts, v));
        let (Some(count), Some(first)) = (count, first) else {
            return unknown(c);
        };
        c.attempts = Some(Setting::literal(count.saturating_add(1), span.clone()));
        c.backoff.base = Some(Setting::literal(first, span.clone()));
        let factor =
            syntax::arg(file, &args, "factor", 2).and_then(|v| eval::number(file, consts, v));
        match method {
            "DecorrelatedJitterBackoffV2" => {
                c.backoff.jitter = Some(Setting::literal(Jitter::Decorrelated, span.clone()));
                c.backoff.multiplier = Some(Setting::literal(2.0, span));
            }
            "ExponentialBackoff" => {
                c.backoff.multiplier = Some(Setting::literal(factor.unwrap_or(2.0), span));
            }
            "ConstantBackoff" | "LinearBackoff" => {
                c.backoff.multiplier = Some(Setting::literal(1.0, span));
            }
            _ => unknown(c),
        }
        return;
    }
    // `new[] { TimeSpan.FromSeconds(1), ... }`, `[ ... ]`.
    let mut delays = Vec::new();
    let list = syntax::descendants(n, 512);
    let items: Vec<Node<'_>> = list
        .iter()
        .filter(|d| {
            d.parent().is_some_and(|p| {
                matches!(p.kind(), "initializer_expression" | "collection_expression")
            }) && d.is_named()
        })
        .copied()
        .collect();
    for i in &items {
        match eval::duration_ms(file, consts, *i) {
            Some(ms) => delays.push(ms),
            None => return unknown(c),
        }
    }
    if delays.is_empty() {
        return unknown(c);
    }
    c.attempts = Some(Setting::literal(delays.len() as i64 + 1, span.clone()));
    c.backoff.base = Some(Setting::literal(delays[0], span.clone()));
    let max = delays.iter().copied().fold(0.0, f64::max);
    c.backoff.cap = Some(Setting::literal(max, span.clone()));
    let mult = match delays.as_slice() {
        [a, b, ..] if *a > 0.0 => b / a,
        _ => 1.0,
    };
    c.backoff.multiplier = Some(Setting::literal(mult, span));
}

/// The condition of a Polly chain as RL019 names it: the first lambda of the
/// chain (`r => Rules.ShouldRetry(r)`), else the chain on one line. The chain
/// usually starts on a line of its own (`Policy`), which alone would name nothing.
fn condition_text(chain: &str) -> String {
    let one = chain
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" .", ".");
    let Some(arrow) = one.find("=>") else {
        return one;
    };
    let Some(open) = one[..arrow].rfind('(') else {
        return one;
    };
    let mut depth = 0usize;
    for (i, ch) in one[open..].char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return one[open + 1..open + i].to_string();
                }
            }
            _ => {}
        }
    }
    one
}

#[cfg(test)]
mod condition_text_tests {
    use super::condition_text;

    #[test]
    fn names_the_lambda_of_a_multi_line_chain() {
        let chain =
            "Policy\n    .HandleResult<HttpResponseMessage>(r => Rules.ShouldRetry(r))\n    ";
        assert_eq!(condition_text(chain), "r => Rules.ShouldRetry(r)");
    }

    #[test]
    fn without_a_lambda_the_chain_on_one_line() {
        assert_eq!(
            condition_text("Policy\n  .Handle<MyError>()"),
            "Policy.Handle<MyError>()"
        );
    }
}
