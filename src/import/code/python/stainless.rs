//! Stainless-generated SDK clients (`OpenAI(...)`, `AsyncOpenAI`, `AzureOpenAI`,
//! `Anthropic(...)`): a hand-written retry loop inside the SDK, read as the
//! constructor plus the SDK's known defaults (`retry-in-code.md` §1.7, §4.1).
//!
//! Source: openai/openai-python@e43b4224 `src/openai/_base_client.py` L411, L481,
//! L791-L857 (`_calculate_retry_timeout`: 0.5 s * 2^n capped 8 s, times
//! 1 - 0.25 * U(0, 1); Retry-After / retry-after-ms honoured up to 120 s;
//! `_should_retry`: 408, 409, 429, >= 500, connection errors and timeouts, any
//! method) and `_constants.py` (`DEFAULT_MAX_RETRIES = 2`, `DEFAULT_TIMEOUT` 600 s).

use super::eval::Ctx;
use super::settings::{count, seconds_ms};
use crate::import::code::model::{CodeClient, RetryAfter, Setting};
use crate::import::Platform;
use crate::policy::model::{Jitter, JitterFactor, Signal};
use tree_sitter::Node;

/// The constructors read.
pub const CONSTRUCTORS: [&str; 6] = [
    "OpenAI",
    "AsyncOpenAI",
    "AzureOpenAI",
    "AsyncAzureOpenAI",
    "Anthropic",
    "AsyncAnthropic",
];

/// Reads `OpenAI(...)`-like constructor `name` at `call`.
pub fn client<'t>(cx: &Ctx<'_, 't>, call: Node<'t>, name: &str) -> CodeClient {
    let span = call.byte_range();
    let sdk = if name.contains("Anthropic") {
        "anthropic-sdk-python"
    } else {
        "openai-python"
    };
    let mut c = CodeClient::new(Platform::StainlessSdk, format!("{name}(...)"), span.clone());
    let kw = cx.keywords(call);
    let get = |k: &str| kw.iter().find(|(n, _)| *n == k).map(|(_, v)| *v);
    c.attempts = Some(match get("max_retries") {
        Some(v) => count(cx, v, 1, 3, "the SDK's default, 2 retries"),
        None => Setting::default(
            3,
            span.clone(),
            format!("{sdk}: DEFAULT_MAX_RETRIES = 2 retries (3 attempts)"),
        ),
    });
    c.notes.push((
        span.clone(),
        format!("{sdk} counts retries: attempts are max_retries + 1"),
    ));
    c.retry_on = Some(Setting::default(
        vec![
            Signal::ConnectFailure,
            Signal::Reset,
            Signal::Timeout,
            Signal::Status(408),
            Signal::Status(409),
            Signal::Status(429),
            Signal::Class(5),
        ],
        span.clone(),
        format!("{sdk}: connection errors, timeouts, 408, 409, 429, 5xx (or x-should-retry: true)"),
    ));
    // Every method, POST included.
    c.methods = None;
    c.backoff.base = Some(Setting::default(
        500.0,
        span.clone(),
        format!("{sdk}: INITIAL_RETRY_DELAY = 0.5 s"),
    ));
    c.backoff.multiplier = Some(Setting::default(
        2.0,
        span.clone(),
        format!("{sdk}: 0.5 s * 2^n"),
    ));
    c.backoff.cap = Some(Setting::default(
        8000.0,
        span.clone(),
        format!("{sdk}: MAX_RETRY_DELAY = 8 s"),
    ));
    c.backoff.jitter = Some(Setting::default(
        JitterFactor::new(0.25).map_or(Jitter::Full, Jitter::Proportional),
        span.clone(),
        format!("{sdk}: each delay times 1 - 0.25 * U(0, 1) (downward only)"),
    ));
    c.retry_after = Some(RetryAfter {
        honor: Setting::default(
            true,
            span.clone(),
            format!("{sdk}: retry-after-ms and Retry-After are honoured"),
        ),
        max: Some(Setting::default(
            120_000.0,
            span.clone(),
            format!("{sdk}: up to 120 s (a longer value falls back to the backoff)"),
        )),
    });
    c.attempt_timeout = Some(match get("timeout") {
        Some(v)
            if matches!(
                v.kind(),
                "integer" | "float" | "identifier" | "binary_operator"
            ) =>
        {
            seconds_ms(cx, v, 600_000.0, "the SDK's default, 600 s")
        }
        Some(v) => Setting::assumed(
            600_000.0,
            v.byte_range(),
            cx.expr(v),
            "the SDK's default, 600 s",
        ),
        None => Setting::default(
            600_000.0,
            span.clone(),
            format!("{sdk}: DEFAULT_TIMEOUT = 600 s"),
        ),
    });
    c
}
