//! An operation's layers as the composition functions of [`crate::retry`] see them:
//! each effective policy as a [`LayerShape`], and the chain's total attempts and
//! worst case (`layers.md` "Composition across layers").

use super::{EffectivePolicy, JoinedOperation};
use crate::policy::model::AttemptTimeout;
use crate::retry::{chain_worst_case_ms, total_attempts, LayerShape, TotalAttempts};

/// One layer's effective settings as a [`LayerShape`]: a missing `backoff.base` is no
/// wait and a missing `cap` no cap (as RL309 counts them), `attempt_timeout:
/// remaining` has no fixed timeout, a negative `attempts` counts as 1.
pub fn shape(eff: &EffectivePolicy) -> LayerShape {
    LayerShape {
        retried: eff.is_retried(),
        attempts: eff
            .attempts
            .as_ref()
            .map(|a| u64::try_from(a.value).unwrap_or(0).max(1)),
        attempt_timeout_ms: match eff.attempt_timeout.value {
            AttemptTimeout::Fixed(ms) => Some(ms),
            AttemptTimeout::Remaining => None,
        },
        deadline_ms: eff.deadline.as_ref().map(|d| d.value),
        base_ms: eff.backoff.base.as_ref().map_or(0.0, |b| b.value),
        cap_ms: eff.backoff.cap.as_ref().map_or(f64::INFINITY, |c| c.value),
        multiplier: eff.backoff.multiplier.value,
        budget: eff.budget.as_ref().map(|b| b.value),
        hedging: eff.hedging.as_ref().map(|h| h.value),
    }
}

/// The shapes of an operation's layers, outermost (client) first.
pub fn shapes(jo: &JoinedOperation) -> Vec<LayerShape> {
    jo.layers.iter().map(shape).collect()
}

/// Total attempts through every layer of the operation.
pub fn attempts(jo: &JoinedOperation) -> TotalAttempts {
    total_attempts(&shapes(jo))
}

/// The worst case of the whole chain, ms (`None`: unbounded).
pub fn worst_case_ms(jo: &JoinedOperation) -> Option<f64> {
    chain_worst_case_ms(&shapes(jo))
}
