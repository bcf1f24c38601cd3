//! The bridge from the joined model to the pure decision logic: an operation's
//! effective settings on one layer, as [`EffectivePolicyView`] (ms, no spans).
//! Used by `plan --policy` and `simulate`.

use crate::analysis::EffectivePolicy;
use crate::policy::model::UnknownResult;
use crate::retry::{EffectivePolicyView, OnInvalid, RetryAfterPolicy};

/// The decision view of one effective policy. A policy that is not retried
/// (`retry: false`) answers every signal with `not-retried`.
pub fn decision_view(p: &EffectivePolicy) -> EffectivePolicyView {
    EffectivePolicyView {
        retry: p.retry.value,
        effect: p.effect.value,
        idempotency_key: p.dedup_key_header().is_some(),
        check_status: p.checks_status(),
        retry_on: p
            .retry_on
            .as_ref()
            .map(|r| r.value.iter().map(|s| s.value).collect())
            .unwrap_or_default(),
        attempts: p
            .attempts
            .as_ref()
            .map(|a| u32::try_from(a.value.max(0)).unwrap_or(u32::MAX)),
        deadline_ms: p.deadline.as_ref().map(|d| d.value),
        base_ms: p.backoff.base.as_ref().map(|b| b.value),
        cap_ms: p.backoff.cap.as_ref().map(|c| c.value),
        multiplier: p.backoff.multiplier.value,
        jitter: p.backoff.jitter.as_ref().map(|j| j.value),
        retry_after: RetryAfterPolicy {
            honor: p.retry_after.honor.as_ref().is_some_and(|h| h.value),
            max_ms: p.retry_after.max.as_ref().map(|m| m.value),
            on_invalid: p
                .retry_after
                .on_invalid
                .as_ref()
                .map(|o| o.value)
                .unwrap_or_default(),
            above_max_backoff: p
                .retry_after
                .on_above_max
                .as_ref()
                .is_some_and(|o| o.value == OnInvalid::Backoff),
        },
        method_retried_after_send: p.retries_method_after_send(),
    }
}

/// True when the effective policy answers Q4 with a strategy that consults state.
pub fn answers_unknown_result(p: &EffectivePolicy) -> bool {
    p.on_unknown_result
        .as_ref()
        .is_some_and(|u| u.value != UnknownResult::Resend)
}

/// One layer of a simulated chain: the decision view of `p` with its layer's kind
/// and `attempt_timeout`.
pub fn layer_view(p: &EffectivePolicy) -> crate::retry::LayerView {
    use crate::policy::model::AttemptTimeout;
    use crate::retry::AttemptLimit;
    crate::retry::LayerView {
        kind: p.layer.as_str().to_owned(),
        policy: decision_view(p),
        attempt_timeout: match p.attempt_timeout.value {
            AttemptTimeout::Remaining => AttemptLimit::Remaining,
            AttemptTimeout::Fixed(ms) => AttemptLimit::Fixed(ms),
        },
        budget: p.budget.as_ref().map(|b| b.value),
        hedging: p.hedging.as_ref().map(|h| h.value),
    }
}
