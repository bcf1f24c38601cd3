//! The reference decision function of domain.md ("The reference decision
//! function"), implemented exactly: same inputs, defaults, order of checks,
//! reason names, counting and arithmetic.

use std::fmt;
use std::str::FromStr;

use serde::{Serialize, Serializer};

use super::backoff::bound_ms;

/// Why a retry decision stops (kebab-case names of domain.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StopReason {
    /// `not-retried` (policy mode only): the policy does not retry the operation
    /// (`retry: false`, or no `retry` at all).
    NotRetried,
    /// `unknown-result`: the operation is not repeatable (no idempotent method,
    /// no idempotency key, no status endpoint); a repeat could duplicate it.
    UnknownResult,
    /// `not-transient`: the signal is not one that a repeat can fix.
    NotTransient,
    /// `invalid-attempt`: attempt is not a non-negative integer, or max attempts
    /// is not an integer >= 1.
    InvalidAttempt,
    /// `max-attempts`: the retry budget is spent.
    MaxAttempts,
    /// `invalid-delay`: a non-finite time, base, cap or random unit, a negative
    /// base, or cap < base (policy mode also: multiplier not finite or < 1).
    InvalidDelay,
    /// `invalid-retry-after`: the Retry-After value is malformed, not finite or
    /// negative.
    InvalidRetryAfter,
    /// `deadline-exhausted`: no time is left, or the delay would reach the deadline.
    DeadlineExhausted,
    /// `retry-after-exceeds-max` (policy mode only): Retry-After is above
    /// `retry_after.max`.
    RetryAfterExceedsMax,
}

impl StopReason {
    /// Every reason, in the order of the checks that produce them.
    pub const ALL: [StopReason; 9] = [
        StopReason::NotRetried,
        StopReason::UnknownResult,
        StopReason::NotTransient,
        StopReason::InvalidAttempt,
        StopReason::MaxAttempts,
        StopReason::InvalidDelay,
        StopReason::InvalidRetryAfter,
        StopReason::RetryAfterExceedsMax,
        StopReason::DeadlineExhausted,
    ];

    /// The kebab-case name of domain.md, e.g. `unknown-result`.
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::NotRetried => "not-retried",
            StopReason::UnknownResult => "unknown-result",
            StopReason::NotTransient => "not-transient",
            StopReason::InvalidAttempt => "invalid-attempt",
            StopReason::MaxAttempts => "max-attempts",
            StopReason::InvalidDelay => "invalid-delay",
            StopReason::InvalidRetryAfter => "invalid-retry-after",
            StopReason::DeadlineExhausted => "deadline-exhausted",
            StopReason::RetryAfterExceedsMax => "retry-after-exceeds-max",
        }
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for StopReason {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        StopReason::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| format!("unknown stop reason `{s}`"))
    }
}

impl Serialize for StopReason {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// The outcome of a retry decision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Decision {
    /// Retry after `delay_ms` ms; `backoff_ms` is the backoff bound
    /// `min(cap, base * 2^attempt)` (policy mode: the multiplier replaces 2) the
    /// jitter was drawn from.
    Retry {
        /// Wait before the next attempt, in ms.
        delay_ms: f64,
        /// The backoff bound for this attempt, in ms.
        backoff_ms: f64,
    },
    /// Do not retry, for the given reason.
    Stop(StopReason),
}

impl Decision {
    /// The stop reason, if this is a stop.
    pub fn stop_reason(&self) -> Option<StopReason> {
        match self {
            Decision::Stop(r) => Some(*r),
            Decision::Retry { .. } => None,
        }
    }
}

/// Inputs of the reference decision function (domain.md).
///
/// Numbers are `f64` so that non-finite, non-integer and absent values can be
/// represented: an absent `attempt` is "not an integer", an absent `now_ms` or
/// `deadline_ms` is "not finite". Times are milliseconds. [`Default`] gives the
/// documented defaults: base 100 ms, cap 2000 ms, max attempts 3, random unit
/// 0.5; everything else absent or false.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionInput {
    /// HTTP method token, case-sensitive (RFC 9110 §9.1). Absent: not idempotent.
    pub method: Option<String>,
    /// HTTP status of the failed attempt, if a response arrived.
    pub status: Option<u16>,
    /// A transport error (timeout, reset, connect failure) happened.
    pub transport_error: bool,
    /// 0-based index of the retry being planned (0 = the first retry, planned
    /// after the first attempt failed).
    pub attempt: Option<f64>,
    /// Current time in ms (any epoch shared with `deadline_ms`).
    pub now_ms: Option<f64>,
    /// Deadline of the whole operation in ms (same epoch as `now_ms`).
    pub deadline_ms: Option<f64>,
    /// Backoff base in ms (default 100).
    pub base_ms: f64,
    /// Backoff cap in ms (default 2000).
    pub cap_ms: f64,
    /// Maximum retries; bounds `attempt` (default 3). A policy's `attempts: N`
    /// corresponds to `N - 1`.
    pub max_attempts: f64,
    /// Random unit, clamped to [0, 1] (default 0.5).
    pub random_unit: f64,
    /// Retry-After in ms, already converted (see
    /// [`RetryAfter::delay_ms`](super::RetryAfter::delay_ms)).
    pub retry_after_ms: Option<f64>,
    /// An idempotency key protects the operation.
    pub idempotency_key: bool,
    /// A status endpoint lets the client learn the outcome of the first attempt.
    pub status_endpoint: bool,
}

impl Default for DecisionInput {
    fn default() -> Self {
        DecisionInput {
            method: None,
            status: None,
            transport_error: false,
            attempt: None,
            now_ms: None,
            deadline_ms: None,
            base_ms: 100.0,
            cap_ms: 2000.0,
            max_attempts: 3.0,
            random_unit: 0.5,
            retry_after_ms: None,
            idempotency_key: false,
            status_endpoint: false,
        }
    }
}

/// The RFC 9110 §9.2.2 idempotent methods, exact case-sensitive tokens.
pub const IDEMPOTENT_METHODS: [&str; 6] = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"];

/// Whether `method` is exactly one of [`IDEMPOTENT_METHODS`] (case-sensitive).
pub fn is_idempotent_method(method: &str) -> bool {
    IDEMPOTENT_METHODS.contains(&method)
}

/// Whether `x` is a finite integer.
pub(crate) fn is_integer(x: f64) -> bool {
    x.is_finite() && x.fract() == 0.0
}

/// The reference decision function (domain.md "The reference decision function";
/// eligibility per RFC 9110 §9.2.2 idempotent methods).
///
/// Inputs: see [`DecisionInput`]; all times and delays are milliseconds (`f64`).
/// Checks, in this order; the first that fires gives the reason:
///
/// 1. repeatable = idempotent method (exactly `GET HEAD PUT DELETE OPTIONS TRACE`,
///    case-sensitive) OR idempotency key OR status endpoint; else `unknown-result`.
/// 2. transient = transport error OR status 429 OR status 503; else `not-transient`.
/// 3. attempt not a non-negative integer, or max attempts not an integer >= 1:
///    `invalid-attempt`.
/// 4. attempt >= max attempts: `max-attempts`.
/// 5. now, deadline, base, cap or random unit not finite, base < 0, or cap < base:
///    `invalid-delay`.
/// 6. Retry-After present but not finite or negative: `invalid-retry-after`.
/// 7. now >= deadline: `deadline-exhausted`.
/// 8. backoff = min(cap, base * 2^attempt) (2^attempt may overflow to infinity and
///    is then capped; base 0 gives 0); jitter = floor(backoff * clamp(random, 0, 1));
///    delay = Retry-After absent ? jitter : max(jitter, Retry-After).
/// 9. now + delay >= deadline: `deadline-exhausted`.
/// 10. otherwise retry with delay and backoff.
///
/// Worked example (domain.md): POST, 503, attempt 2, now 1000, deadline 3000,
/// random 0.5, idempotency key, other values default: retry, delay 200 ms,
/// backoff 400 ms.
///
/// ```
/// use retrylint::retry::{decide, Decision, DecisionInput};
/// let input = DecisionInput {
///     method: Some("POST".into()),
///     status: Some(503),
///     attempt: Some(2.0),
///     now_ms: Some(1000.0),
///     deadline_ms: Some(3000.0),
///     random_unit: 0.5,
///     idempotency_key: true,
///     ..DecisionInput::default()
/// };
/// assert_eq!(decide(&input), Decision::Retry { delay_ms: 200.0, backoff_ms: 400.0 });
/// ```
pub fn decide(input: &DecisionInput) -> Decision {
    // 1. eligibility
    let idempotent = input.method.as_deref().is_some_and(is_idempotent_method);
    if !(idempotent || input.idempotency_key || input.status_endpoint) {
        return Decision::Stop(StopReason::UnknownResult);
    }
    // 2. transient signal
    let transient = input.transport_error || matches!(input.status, Some(429 | 503));
    if !transient {
        return Decision::Stop(StopReason::NotTransient);
    }
    // 3. counting inputs
    let attempt = match input.attempt {
        Some(a) if is_integer(a) && a >= 0.0 => a,
        _ => return Decision::Stop(StopReason::InvalidAttempt),
    };
    if !(is_integer(input.max_attempts) && input.max_attempts >= 1.0) {
        return Decision::Stop(StopReason::InvalidAttempt);
    }
    // 4. budget of retries
    if attempt >= input.max_attempts {
        return Decision::Stop(StopReason::MaxAttempts);
    }
    // 5. delay inputs
    let (now, deadline) = match (input.now_ms, input.deadline_ms) {
        (Some(n), Some(d)) if n.is_finite() && d.is_finite() => (n, d),
        _ => return Decision::Stop(StopReason::InvalidDelay),
    };
    let (base, cap, random) = (input.base_ms, input.cap_ms, input.random_unit);
    if !(base.is_finite() && cap.is_finite() && random.is_finite()) || base < 0.0 || cap < base {
        return Decision::Stop(StopReason::InvalidDelay);
    }
    // 6. Retry-After
    if let Some(ra) = input.retry_after_ms {
        if !ra.is_finite() || ra < 0.0 {
            return Decision::Stop(StopReason::InvalidRetryAfter);
        }
    }
    // 7. time left
    if now >= deadline {
        return Decision::Stop(StopReason::DeadlineExhausted);
    }
    // 8. delay
    let backoff = bound_ms(base, cap, 2.0, attempt);
    let jitter = (backoff * random.clamp(0.0, 1.0)).floor();
    let delay = match input.retry_after_ms {
        None => jitter,
        Some(ra) => jitter.max(ra),
    };
    // 9. the delay must leave time before the deadline
    if now + delay >= deadline {
        return Decision::Stop(StopReason::DeadlineExhausted);
    }
    // 10.
    Decision::Retry {
        delay_ms: delay,
        backoff_ms: backoff,
    }
}
