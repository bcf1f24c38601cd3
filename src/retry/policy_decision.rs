//! The policy-mode decision of domain.md ("The policy-mode decision"): the
//! reference decision function with its inputs taken from an effective retry
//! policy (policy-format.md) instead of flags.
//!
//! The input is a plain view ([`EffectivePolicyView`]) that does not depend on
//! how policies are parsed, so the policy loader, the `plan` command and the
//! herd simulation all call the same function.

use super::backoff::backoff_bound_ms;
use super::decision::{Decision, StopReason};
use super::retry_after::parse_retry_after_at;
use super::types::{retry_on_covers, Effect, Jitter, OnInvalid, RetryOnEntry, Signal};

/// The `retry_after` settings of a policy (policy-format.md).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RetryAfterPolicy {
    /// `honor`: wait at least what Retry-After says. `false` ignores the header
    /// entirely (absent `honor` is `false`).
    pub honor: bool,
    /// `max` in ms: a larger Retry-After stops with `retry-after-exceeds-max`.
    /// `None`: no maximum (RL307 warns about that).
    pub max_ms: Option<f64>,
    /// `on_invalid`: what a malformed or negative header leads to.
    pub on_invalid: OnInvalid,
    /// `on_above_max: backoff`: a header above `max_ms` is ignored and the backoff
    /// alone is waited (Envoy's `rate_limited_retry_back_off`), instead of stopping
    /// with `retry-after-exceeds-max` (`false`, the default).
    pub above_max_backoff: bool,
}

/// The effective retry policy of one operation on one layer, as the decision
/// needs it (policy-format.md "Operation settings"). Durations are ms.
///
/// `None` means the policy file does not say (no built-in default exists), and
/// follows domain.md's rule for absent inputs: an absent `attempts` is not an
/// integer (`invalid-attempt`), an absent `deadline_ms`, `base_ms` or `cap_ms` is
/// not finite (`invalid-delay`); an absent `jitter` behaves as `none` (the RL305
/// reading: "no jitter (`none` or absent)").
#[derive(Debug, Clone, PartialEq)]
pub struct EffectivePolicyView {
    /// `retry`: the policy retries the operation at all. `false` (the built-in
    /// default) answers every signal with `not-retried`.
    pub retry: bool,
    /// Effective `effect` (declared, or from the method via [`Effect::from_method`]).
    pub effect: Effect,
    /// An idempotency key is sent (`idempotency_key` is configured).
    pub idempotency_key: bool,
    /// A status endpoint is consulted: `status_endpoint` is set and
    /// `on_unknown_result` is `check-status`.
    pub check_status: bool,
    /// `retry_on`: the signals that are retried.
    pub retry_on: Vec<RetryOnEntry>,
    /// `attempts`: total attempts including the first (max retries = attempts - 1).
    pub attempts: Option<u32>,
    /// `deadline` in ms: the budget of the whole operation, measured from the
    /// start of the first attempt.
    pub deadline_ms: Option<f64>,
    /// `backoff.base` in ms.
    pub base_ms: Option<f64>,
    /// `backoff.cap` in ms.
    pub cap_ms: Option<f64>,
    /// `backoff.multiplier` (built-in default 2; must be finite and >= 1).
    pub multiplier: f64,
    /// `backoff.jitter`.
    pub jitter: Option<Jitter>,
    /// `retry_after` settings.
    pub retry_after: RetryAfterPolicy,
    /// The layer's `methods` filter admits the operation's method (true without a
    /// filter). When false, a signal after which the request may have been
    /// processed is `not-retried`; a never-processed one is still retried
    /// (nginx, Kong: `layers.md` "Methods filter").
    pub method_retried_after_send: bool,
}

impl Default for EffectivePolicyView {
    /// Everything absent except the built-in defaults `retry: false` and
    /// `multiplier: 2`; effect `non-idempotent`, nothing retried.
    fn default() -> Self {
        EffectivePolicyView {
            retry: false,
            effect: Effect::NonIdempotent,
            idempotency_key: false,
            check_status: false,
            retry_on: Vec::new(),
            attempts: None,
            deadline_ms: None,
            base_ms: None,
            cap_ms: None,
            multiplier: 2.0,
            jitter: None,
            retry_after: RetryAfterPolicy::default(),
            method_retried_after_send: true,
        }
    }
}

/// What the client observed when the attempt failed, and where it stands.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PolicyDecisionInput<'a> {
    /// The observed failure signal.
    pub signal: Signal,
    /// 0-based index of the retry being planned (0 = first retry, after the first
    /// attempt failed); domain.md "Counting".
    pub attempt: u32,
    /// Time since the first attempt started, in ms (compared with `deadline_ms`).
    pub elapsed_ms: f64,
    /// The raw Retry-After header value, if the response carried one; parsed by
    /// [`parse_retry_after_at`](super::parse_retry_after_at).
    pub retry_after: Option<&'a str>,
    /// Wall-clock now in epoch ms; an HTTP-date Retry-After is taken relative to it.
    pub now_epoch_ms: f64,
    /// The previous delay in ms, for `decorrelated` jitter (`None`: the base).
    pub previous_ms: Option<f64>,
}

/// A Retry-After as the decision sees it after parsing and conversion to ms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum ObservedRetryAfter {
    /// No header.
    Absent,
    /// Malformed, not finite or negative.
    Invalid,
    /// A valid wait in ms.
    Ms(f64),
}

/// The policy-mode decision (domain.md "The policy-mode decision"); all times ms.
///
/// Same order of checks as [`decide`](super::decide), after one of its own, with
/// these meanings:
///
/// 0. `retry` false: `not-retried` (the policy never retries this operation,
///    whatever the signal); also `not-retried` when the layer's `methods` filter
///    excludes the operation's method (`method_retried_after_send` false) and the
///    signal does not prove the request was never processed.
/// 1. repeatable = `effect` safe or idempotent, OR an idempotency key, OR a status
///    endpoint (`check_status`), OR the signal proves the request was never
///    processed ([`SIGNALS`](super::signals::SIGNALS): `connect-failure`,
///    `refused-stream`, `reset-before-request`); else `unknown-result`.
/// 2. transient = the signal is covered by `retry_on` (a class covers its codes,
///    `transport` the four transport signals); else `not-transient`.
/// 3. `attempts` absent or 0: `invalid-attempt`.
/// 4. attempt >= attempts - 1: `max-attempts` (`attempts: 1` never retries).
/// 5. elapsed, deadline, base or cap absent or not finite, base < 0, cap < base,
///    multiplier not finite or < 1, or `previous_ms` not finite or negative:
///    `invalid-delay`.
/// 6. only when `retry_after.honor`: a malformed or negative header gives
///    `invalid-retry-after` under `on_invalid: stop` and is ignored under
///    `backoff`; a valid value above `retry_after.max` gives
///    `retry-after-exceeds-max`.
/// 7. elapsed >= deadline: `deadline-exhausted`.
/// 8. backoff = min(cap, base * multiplier^attempt) (overflow-safe, base 0 gives 0);
///    with u = one draw of `rng` clamped to [0, 1], random parts floored to whole ms:
///    - none: delay = backoff;
///    - full: delay = floor(backoff * u);
///    - equal: delay = floor(backoff / 2 + backoff / 2 * u);
///    - decorrelated: delay = min(cap, floor(base + (max(base, previous * 3) - base) * u)),
///      previous defaulting to base;
///    - proportional with factor f: delay = floor(backoff * (1 - f) + backoff * 2f * u),
///      drawn from [b(1-f), b(1+f)] around the capped backoff b (`layers.md`);
///    - with a valid honoured Retry-After: none gives max(backoff, Retry-After),
///      proportional max(its delay, Retry-After), every other variant
///      Retry-After + floor(backoff * u).
///
///    A non-finite draw gives `invalid-delay`.
/// 9. elapsed + delay >= deadline: `deadline-exhausted`.
/// 10. otherwise retry with delay and backoff.
///
/// `rng` yields uniform units in [0, 1); it is called exactly once when the
/// decision reaches step 8 with a variant other than `none` and never otherwise,
/// so a seeded generator gives reproducible runs.
pub fn decide_policy(
    policy: &EffectivePolicyView,
    input: &PolicyDecisionInput<'_>,
    rng: &mut impl FnMut() -> f64,
) -> Decision {
    let observed = match input.retry_after {
        None => ObservedRetryAfter::Absent,
        Some(raw) => match parse_retry_after_at(raw, input.now_epoch_ms) {
            Ok(ra) => classify_ms(ra.delay_ms(input.now_epoch_ms)),
            Err(_) => ObservedRetryAfter::Invalid,
        },
    };
    decide_observed(
        policy,
        input.signal,
        input.attempt,
        input.elapsed_ms,
        observed,
        input.previous_ms,
        rng,
    )
}

/// A Retry-After in ms: valid when finite and non-negative.
pub(crate) fn classify_ms(ms: f64) -> ObservedRetryAfter {
    if ms.is_finite() && ms >= 0.0 {
        ObservedRetryAfter::Ms(ms)
    } else {
        ObservedRetryAfter::Invalid
    }
}

/// [`decide_policy`] with the Retry-After already parsed (used by the simulation).
pub(crate) fn decide_observed(
    policy: &EffectivePolicyView,
    signal: Signal,
    attempt: u32,
    elapsed_ms: f64,
    retry_after: ObservedRetryAfter,
    previous_ms: Option<f64>,
    rng: &mut impl FnMut() -> f64,
) -> Decision {
    use Decision::Stop;
    // 0. retried at all
    if !policy.retry {
        return Stop(StopReason::NotRetried);
    }
    // 0b. a methods filter stops only the retries of possibly processed attempts
    if !policy.method_retried_after_send && !signal.proves_not_processed() {
        return Stop(StopReason::NotRetried);
    }
    // 1. eligibility
    let repeatable = policy.effect.is_repeatable()
        || policy.idempotency_key
        || policy.check_status
        || signal.proves_not_processed();
    if !repeatable {
        return Stop(StopReason::UnknownResult);
    }
    // 2. transient = in retry_on
    if !retry_on_covers(&policy.retry_on, signal) {
        return Stop(StopReason::NotTransient);
    }
    // 3. attempts = total attempts, >= 1
    let attempts = match policy.attempts {
        Some(n) if n >= 1 => n,
        _ => return Stop(StopReason::InvalidAttempt),
    };
    // 4. max attempts = attempts - 1 retries
    if attempt >= attempts - 1 {
        return Stop(StopReason::MaxAttempts);
    }
    // 5. delay inputs
    let finite = |x: Option<f64>| x.filter(|v| v.is_finite());
    let (Some(deadline), Some(base), Some(cap)) = (
        finite(policy.deadline_ms),
        finite(policy.base_ms),
        finite(policy.cap_ms),
    ) else {
        return Stop(StopReason::InvalidDelay);
    };
    let multiplier = policy.multiplier;
    if !elapsed_ms.is_finite()
        || base < 0.0
        || cap < base
        || !multiplier.is_finite()
        || multiplier < 1.0
        || previous_ms.is_some_and(|p| !p.is_finite() || p < 0.0)
    {
        return Stop(StopReason::InvalidDelay);
    }
    // 6. Retry-After
    let ra = if policy.retry_after.honor {
        match retry_after {
            ObservedRetryAfter::Absent => None,
            ObservedRetryAfter::Invalid => match policy.retry_after.on_invalid {
                OnInvalid::Stop => return Stop(StopReason::InvalidRetryAfter),
                OnInvalid::Backoff => None,
            },
            ObservedRetryAfter::Ms(ms) => {
                if policy.retry_after.max_ms.is_some_and(|max| ms > max) {
                    if policy.retry_after.above_max_backoff {
                        None
                    } else {
                        return Stop(StopReason::RetryAfterExceedsMax);
                    }
                } else {
                    Some(ms)
                }
            }
        }
    } else {
        None
    };
    // 7. time left
    if elapsed_ms >= deadline {
        return Stop(StopReason::DeadlineExhausted);
    }
    // 8. delay
    let backoff = backoff_bound_ms(base, cap, multiplier, attempt);
    let jitter = policy.jitter.unwrap_or(Jitter::None);
    let delay = if jitter == Jitter::None {
        match ra {
            None => backoff,
            Some(ra) => backoff.max(ra),
        }
    } else {
        let u = rng();
        if !u.is_finite() {
            return Stop(StopReason::InvalidDelay);
        }
        let u = u.clamp(0.0, 1.0);
        match (ra, jitter) {
            (ra, Jitter::Proportional(factor)) => {
                let f = factor.get();
                let drawn = (backoff * (1.0 - f) + backoff * 2.0 * f * u).floor();
                ra.map_or(drawn, |ra| drawn.max(ra))
            }
            (Some(ra), _) => ra + (backoff * u).floor(),
            (None, Jitter::Full) => (backoff * u).floor(),
            (None, Jitter::Equal) => (backoff / 2.0 + backoff / 2.0 * u).floor(),
            (None, _) => {
                let previous = previous_ms.unwrap_or(base);
                let hi = (previous * 3.0).max(base);
                cap.min((base + (hi - base) * u).floor())
            }
        }
    };
    // 9. the delay must leave time before the deadline
    if elapsed_ms + delay >= deadline {
        return Stop(StopReason::DeadlineExhausted);
    }
    // 10.
    Decision::Retry {
        delay_ms: delay,
        backoff_ms: backoff,
    }
}
