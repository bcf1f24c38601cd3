//! The layers of a simulated chain (client -> gateway -> mesh, issue 13): what each
//! layer does with one attempt, and the attempt bound RL311 computes for the chain.
//!
//! A layer is one retry loop: the client SDK, a gateway, a mesh sidecar. Each attempt
//! of an outer layer is one request to the next layer inside, which runs its own loop
//! (layers.md "Layer identity and order": client outermost, mesh innermost). Only the
//! innermost layer's attempts reach the upstream.

use serde::Serialize;

use super::budget::{Hedging, RetryBudget};
use super::compose::{total_attempts, LayerShape};
use super::policy_decision::EffectivePolicyView;

/// How long one attempt of a layer may last before the layer gives up on it
/// (policy-format.md `attempt_timeout`). Durations in ms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AttemptLimit {
    /// `attempt_timeout: remaining`: each attempt gets what is left of the layer's
    /// `deadline`; without a deadline an attempt may last forever.
    Remaining,
    /// `attempt_timeout: DURATION`: a fixed per-attempt timeout in ms, also cut by
    /// the deadline (policy-format.md: the deadline covers "every attempt and wait").
    Fixed(f64),
}

impl AttemptLimit {
    /// The time (ms since t = 0) at which an attempt sent at `sent_ms` by a layer
    /// whose loop started at `start_ms` is given up, with `deadline_ms` the layer's
    /// deadline (measured from `start_ms`). Infinite when nothing bounds it. Never
    /// before `sent_ms`: an attempt lasts at least 0 ms.
    pub fn ends_at(self, start_ms: f64, sent_ms: f64, deadline_ms: Option<f64>) -> f64 {
        let deadline = deadline_ms
            .filter(|d| !d.is_nan())
            .map_or(f64::INFINITY, |d| start_ms + d);
        let limit = match self {
            AttemptLimit::Remaining => deadline,
            AttemptLimit::Fixed(ms) if ms.is_nan() => deadline,
            AttemptLimit::Fixed(ms) => (sent_ms + ms).min(deadline),
        };
        limit.max(sent_ms)
    }
}

/// One layer of a simulated chain: its kind and its effective policy for the
/// operation.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerView {
    /// The layer's kind as written in policies (`client`, `gateway`, `mesh`).
    pub kind: String,
    /// The decision view of the layer's effective policy.
    pub policy: EffectivePolicyView,
    /// The layer's `attempt_timeout`.
    pub attempt_timeout: AttemptLimit,
    /// The layer's `budget`, shared by every request through the layer.
    pub budget: Option<RetryBudget>,
    /// The layer's `hedging`.
    pub hedging: Option<Hedging>,
}

impl LayerView {
    /// A layer of `kind` following `policy`, with `attempt_timeout: remaining` (the
    /// built-in default).
    pub fn new(kind: &str, policy: EffectivePolicyView) -> LayerView {
        LayerView {
            kind: kind.to_owned(),
            policy,
            attempt_timeout: AttemptLimit::Remaining,
            budget: None,
            hedging: None,
        }
    }

    /// The layer as the composition functions see it ([`LayerShape`]): the same
    /// counting as RL311 and the readiness `composed` column.
    pub fn shape(&self) -> LayerShape {
        let p = &self.policy;
        LayerShape {
            retried: self.is_retried(),
            attempts: p.attempts.map(|a| u64::from(a.max(1))),
            attempt_timeout_ms: match self.attempt_timeout {
                AttemptLimit::Fixed(ms) => Some(ms),
                AttemptLimit::Remaining => None,
            },
            deadline_ms: p.deadline_ms,
            base_ms: p.base_ms.unwrap_or(0.0),
            cap_ms: p.cap_ms.unwrap_or(f64::INFINITY),
            multiplier: p.multiplier,
            budget: self.budget,
            hedging: self.hedging,
        }
    }

    /// True when the layer sends parallel copies (`hedging.attempts > 1`).
    pub fn hedges(&self) -> bool {
        self.hedging.is_some_and(|h| h.sends_copies())
    }

    /// Retried in the sense of policy-format.md: `retry` true, `retry_on` not empty,
    /// `attempts` absent or above 1.
    pub fn is_retried(&self) -> bool {
        self.policy.retry
            && !self.policy.retry_on.is_empty()
            && self.policy.attempts.is_none_or(|a| a > 1)
    }

    /// The most attempts this layer makes per request it receives, as RL311 counts
    /// them ([`LayerShape::attempts`]), and whether that count is exact: `attempts`
    /// of a retried layer (or its hedged copies, if more); 2 ("at least", inexact)
    /// for a retried layer without `attempts`; 1 for a layer that neither retries
    /// nor hedges.
    pub fn max_attempts(&self) -> (u64, bool) {
        self.shape().attempts()
    }
}

/// The attempt bound of a chain (RL311 retry-amplification; layers.md "Composition
/// across layers"): the product of every layer's [`LayerView::max_attempts`], the
/// most upstream attempts one client request can cause.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AttemptsBound {
    /// The product (saturating).
    pub attempts: u64,
    /// False when some retried layer has no `attempts` (the product is "at least").
    pub exact: bool,
}

/// The attempt bound of `layers` (see [`AttemptsBound`]): the product of
/// [`compose::total_attempts`](super::compose::total_attempts), the one count RL311
/// and the readiness use.
pub fn attempts_bound(layers: &[LayerView]) -> AttemptsBound {
    let total = total_attempts(&shapes(layers));
    AttemptsBound {
        attempts: total.product,
        exact: total.exact,
    }
}

/// The chain's attempts per client request under sustained load with its budgets
/// applied ([`TotalAttempts::under_load`](super::compose::TotalAttempts)), when a
/// budget lowers the product; `None` otherwise.
pub fn budget_bound(layers: &[LayerView]) -> Option<f64> {
    let total = total_attempts(&shapes(layers));
    total.bound_by_budget.then_some(total.under_load)
}

fn shapes(layers: &[LayerView]) -> Vec<LayerShape> {
    layers.iter().map(LayerView::shape).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retry::types::RetryOnEntry;

    fn retried(kind: &str, attempts: u32) -> LayerView {
        LayerView::new(
            kind,
            EffectivePolicyView {
                retry: true,
                retry_on: vec![RetryOnEntry::Status(503)],
                attempts: Some(attempts),
                ..EffectivePolicyView::default()
            },
        )
    }

    #[test]
    fn the_bound_is_compose_total_attempts_with_budgets_and_hedging() {
        let mut layers = vec![
            retried("client", 3),
            retried("gateway", 2),
            retried("mesh", 3),
        ];
        assert_eq!(
            attempts_bound(&layers),
            AttemptsBound {
                attempts: 18,
                exact: true
            }
        );
        assert_eq!(budget_bound(&layers), None);
        layers[1].budget = Some(RetryBudget::Ratio {
            ratio: 0.2,
            min_per_second: None,
            min_concurrent: None,
            window_ms: None,
        });
        assert_eq!(attempts_bound(&layers).attempts, 18, "the product stays");
        let under_load = budget_bound(&layers).unwrap();
        assert!((under_load - 10.8).abs() < 1e-9, "{under_load}");
        // A hedged layer that does not retry counts its copies.
        let mut hedged = LayerView::new("client", EffectivePolicyView::default());
        hedged.hedging = Some(Hedging {
            attempts: 4,
            delay_ms: 50.0,
        });
        assert_eq!(hedged.max_attempts(), (4, true));
        assert!(hedged.hedges());
    }
}
