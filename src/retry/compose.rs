//! Composition across layers (`layers.md` "Composition across layers"): how many
//! attempts a chain of layers (client -> gateways -> mesh) sends to the upstream for
//! one request, and how long each layer, and the whole chain, can take at worst.
//!
//! - Total attempts: the product of each layer's attempts; under load, a layer with a
//!   ratio budget or a token bucket contributes at most its
//!   [`RetryBudget::load_factor`] instead (a 20 % budget: 1.2, whatever `attempts`).
//! - A layer's worst case: `attempts x attempt time + the backoff upper bounds`
//!   (`sum over retries n of min(cap, base x multiplier^n)`, [`total_backoff_ms`]),
//!   capped by its deadline. An attempt lasts its fixed attempt timeout, or, with
//!   `attempt_timeout: remaining`, whatever the inside takes: the upstream's time is
//!   unknown, so `remaining` without a deadline is unbounded (`None`).
//! - The chain: from the innermost layer outward, each layer's attempt lasts at most
//!   the worst case of the layers inside it.
//!
//! Pure functions over [`LayerShape`]; every time is ms as `f64`; `None` = unbounded.

use super::backoff::total_backoff_ms;
use super::budget::{Hedging, RetryBudget};

/// What composition needs of one layer's effective settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayerShape {
    /// The layer retries (retry true, signals, attempts absent or > 1).
    pub retried: bool,
    /// `attempts` (total including the first); `None` when absent.
    pub attempts: Option<u64>,
    /// A fixed attempt timeout, ms; `None` for `remaining`.
    pub attempt_timeout_ms: Option<f64>,
    /// `deadline`, ms.
    pub deadline_ms: Option<f64>,
    /// `backoff.base`, ms (absent: 0, no wait).
    pub base_ms: f64,
    /// `backoff.cap`, ms (absent: infinite, no cap).
    pub cap_ms: f64,
    /// `backoff.multiplier`.
    pub multiplier: f64,
    /// `budget`.
    pub budget: Option<RetryBudget>,
    /// `hedging`.
    pub hedging: Option<Hedging>,
}

impl LayerShape {
    /// A layer that only passes the request on (one attempt, no timeout).
    pub fn pass_through() -> LayerShape {
        LayerShape {
            retried: false,
            attempts: None,
            attempt_timeout_ms: None,
            deadline_ms: None,
            base_ms: 0.0,
            cap_ms: f64::INFINITY,
            multiplier: 2.0,
            budget: None,
            hedging: None,
        }
    }

    /// True when the layer sends more than one copy of a request: it retries, or it
    /// hedges.
    pub fn multiplies(&self) -> bool {
        self.retried || self.hedging.is_some_and(|h| h.sends_copies())
    }

    /// The attempts this layer sends per request it receives, and whether the count
    /// is exact: 1 when it neither retries nor hedges; a retried layer without
    /// `attempts` counts 2 (the least a retried layer makes; inexact); a hedged layer
    /// counts the larger of its retry attempts and its copies.
    pub fn attempts(&self) -> (u64, bool) {
        let (retries, exact) = match (self.retried, self.attempts) {
            (false, _) => (1, true),
            (true, Some(n)) => (n.max(1), true),
            (true, None) => (2, false),
        };
        let copies = self.hedging.map_or(1, |h| h.attempts.max(1));
        (retries.max(copies), exact)
    }

    /// Attempts per request under sustained load: [`LayerShape::attempts`], or the
    /// budget's load factor when that is lower; and whether the budget bound it.
    pub fn attempts_under_load(&self) -> (f64, bool) {
        let n = self.attempts().0 as f64;
        match self.budget.and_then(|b| b.load_factor()) {
            Some(f) if self.multiplies() && f < n => (f, true),
            _ => (n, false),
        }
    }

    /// The sum of the backoff upper bounds before this layer's retries, ms.
    fn backoff_ms(&self, attempts: u64) -> f64 {
        let retries = u32::try_from(attempts.saturating_sub(1)).unwrap_or(u32::MAX);
        let t = total_backoff_ms(self.base_ms.max(0.0), self.cap_ms, self.multiplier, retries);
        if t.is_nan() {
            0.0
        } else {
            t
        }
    }
}

/// Total attempts of a chain for one request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TotalAttempts {
    /// The product of every layer's attempts (saturating).
    pub product: u64,
    /// Every layer's count is exact (no retried layer without `attempts`).
    pub exact: bool,
    /// The product under load, with budgets applied (equals `product` when no budget
    /// lowers it).
    pub under_load: f64,
    /// A budget lowered the count under load.
    pub bound_by_budget: bool,
}

impl TotalAttempts {
    /// The total as `layers.md` defines it: the product, or the budget bound.
    pub fn total(&self) -> f64 {
        if self.bound_by_budget {
            self.under_load
        } else {
            self.product as f64
        }
    }
}

/// Total attempts sent to the upstream for one request through `layers` (any order:
/// a product).
pub fn total_attempts(layers: &[LayerShape]) -> TotalAttempts {
    let mut t = TotalAttempts {
        product: 1,
        exact: true,
        under_load: 1.0,
        bound_by_budget: false,
    };
    for l in layers {
        let (n, exact) = l.attempts();
        let (f, bound) = l.attempts_under_load();
        t.product = t.product.saturating_mul(n);
        t.exact &= exact;
        t.under_load *= f;
        t.bound_by_budget |= bound;
    }
    t
}

/// The worst-case time of one layer, ms, when what is inside it (the upstream, or
/// the inner layers) takes at most `inner_ms` per attempt (`None`: unknown,
/// unbounded). `None` when the layer is unbounded: an attempt without a fixed
/// timeout around an unbounded inside, and no deadline.
///
/// Retried: `attempts x attempt + backoff bounds`; hedged only: the last copy starts
/// after `(copies - 1) x delay` and lasts one attempt; either capped by the deadline.
pub fn layer_worst_case_ms(layer: &LayerShape, inner_ms: Option<f64>) -> Option<f64> {
    let attempt = match (layer.attempt_timeout_ms, inner_ms) {
        (Some(t), Some(i)) => Some(t.min(i)),
        (Some(t), None) => Some(t),
        (None, i) => i,
    };
    let total = attempt.map(|a| {
        let retries_n = if layer.retried {
            layer.attempts.map_or(2, |n| n.max(1))
        } else {
            1
        };
        let retry_time = retries_n as f64 * a + layer.backoff_ms(retries_n);
        let hedge_time = match layer.hedging {
            Some(h) if h.sends_copies() => (h.attempts - 1) as f64 * h.delay_ms.max(0.0) + a,
            _ => a,
        };
        retry_time.max(hedge_time)
    });
    match (total, layer.deadline_ms) {
        (Some(t), Some(d)) => Some(t.min(d)),
        (None, Some(d)) => Some(d),
        (t, None) => t,
    }
}

/// The worst-case time of a whole chain (`layers` outermost first), ms: from the
/// innermost layer outward, each layer around the worst case of the ones inside it.
/// `None` when unbounded. An empty chain is unbounded (the upstream alone).
pub fn chain_worst_case_ms(layers: &[LayerShape]) -> Option<f64> {
    layers
        .iter()
        .rev()
        .fold(None, |inner, l| layer_worst_case_ms(l, inner))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn retried(attempts: u64, timeout: Option<f64>, deadline: Option<f64>) -> LayerShape {
        LayerShape {
            retried: true,
            attempts: Some(attempts),
            attempt_timeout_ms: timeout,
            deadline_ms: deadline,
            base_ms: 100.0,
            cap_ms: 1000.0,
            multiplier: 2.0,
            ..LayerShape::pass_through()
        }
    }

    #[test]
    fn worst_case_of_one_layer() {
        // 3 x 500 + (100 + 200)
        assert_eq!(
            layer_worst_case_ms(&retried(3, Some(500.0), None), None),
            Some(1800.0)
        );
        // capped by the deadline
        assert_eq!(
            layer_worst_case_ms(&retried(3, Some(500.0), Some(1000.0)), None),
            Some(1000.0)
        );
        // remaining without a deadline: unbounded
        assert_eq!(layer_worst_case_ms(&retried(3, None, None), None), None);
        // remaining with a deadline: the deadline
        assert_eq!(
            layer_worst_case_ms(&retried(3, None, Some(2000.0)), None),
            Some(2000.0)
        );
    }

    #[test]
    fn chain_bounds_an_outer_remaining_by_the_inner_worst_case() {
        let client = retried(2, None, None);
        let mesh = retried(3, Some(500.0), None);
        // mesh 1800; client 2 x 1800 + 100
        assert_eq!(chain_worst_case_ms(&[client, mesh]), Some(3700.0));
        assert_eq!(chain_worst_case_ms(&[client]), None);
        assert_eq!(chain_worst_case_ms(&[]), None);
    }

    #[test]
    fn hedging_worst_case_is_the_last_copy() {
        let h = LayerShape {
            hedging: Some(Hedging {
                attempts: 3,
                delay_ms: 100.0,
            }),
            attempt_timeout_ms: Some(1000.0),
            ..LayerShape::pass_through()
        };
        assert_eq!(layer_worst_case_ms(&h, None), Some(1200.0));
        assert_eq!(h.attempts(), (3, true));
    }

    #[test]
    fn a_ratio_budget_bounds_total_attempts_under_load() {
        let mut gw = retried(5, None, None);
        gw.budget = Some(RetryBudget::Ratio {
            ratio: 0.2,
            min_per_second: Some(10.0),
            min_concurrent: None,
            window_ms: None,
        });
        let client = retried(3, None, None);
        let t = total_attempts(&[client, gw]);
        assert_eq!(t.product, 15);
        assert!(t.bound_by_budget);
        assert!((t.total() - 3.6).abs() < 1e-9);
        // a concurrency cap does not bound the share
        gw.budget = Some(RetryBudget::Concurrency {
            max_concurrent_retries: 3,
        });
        let t = total_attempts(&[client, gw]);
        assert!(!t.bound_by_budget);
        assert_eq!(t.total(), 15.0);
        // a layer without `attempts` counts 2, inexactly
        let mut loose = retried(3, None, None);
        loose.attempts = None;
        let t = total_attempts(&[client, loose]);
        assert_eq!((t.product, t.exact), (6, false));
    }

    fn shape() -> impl Strategy<Value = LayerShape> {
        (
            any::<bool>(),
            proptest::option::of(1u64..20),
            proptest::option::of(0.0f64..10_000.0),
            proptest::option::of(0.0f64..60_000.0),
            0.0f64..1000.0,
            1.0f64..4.0,
            proptest::option::of(0.0f64..2.0),
        )
            .prop_map(
                |(retried, attempts, timeout, deadline, base, mult, ratio)| LayerShape {
                    retried,
                    attempts,
                    attempt_timeout_ms: timeout,
                    deadline_ms: deadline,
                    base_ms: base,
                    cap_ms: base * 10.0,
                    multiplier: mult,
                    budget: ratio.map(|ratio| RetryBudget::Ratio {
                        ratio,
                        min_per_second: None,
                        min_concurrent: None,
                        window_ms: None,
                    }),
                    hedging: None,
                },
            )
    }

    proptest! {
        #[test]
        fn deadline_caps_every_layer(l in shape(), inner in proptest::option::of(0.0f64..100_000.0)) {
            let w = layer_worst_case_ms(&l, inner);
            if let Some(d) = l.deadline_ms {
                prop_assert!(w.is_some_and(|w| w <= d));
            }
            if let Some(w) = w {
                prop_assert!(w >= 0.0 && w.is_finite());
            }
        }

        #[test]
        fn a_fixed_timeout_or_deadline_makes_a_layer_bounded(l in shape()) {
            let bounded = l.attempt_timeout_ms.is_some() || l.deadline_ms.is_some();
            prop_assert_eq!(layer_worst_case_ms(&l, None).is_some(), bounded);
        }

        #[test]
        fn worst_case_grows_with_the_inside(l in shape(), a in 0.0f64..50_000.0, b in 0.0f64..50_000.0) {
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            let wl = layer_worst_case_ms(&l, Some(lo)).unwrap();
            let wh = layer_worst_case_ms(&l, Some(hi)).unwrap();
            prop_assert!(wl <= wh + 1e-6);
        }

        #[test]
        fn the_chain_is_bounded_by_any_layer_with_a_deadline(layers in proptest::collection::vec(shape(), 1..5)) {
            let w = chain_worst_case_ms(&layers);
            if let Some(d) = layers[0].deadline_ms {
                prop_assert!(w.is_some_and(|w| w <= d));
            }
            if layers.iter().any(|l| l.deadline_ms.is_some() || l.attempt_timeout_ms.is_some()) {
                prop_assert!(w.is_some());
            }
        }

        #[test]
        fn total_attempts_is_the_product_and_budgets_only_lower_it(layers in proptest::collection::vec(shape(), 0..5)) {
            let t = total_attempts(&layers);
            let product: u64 = layers.iter().map(|l| l.attempts().0).product();
            prop_assert_eq!(t.product, product);
            prop_assert!(t.under_load <= t.product as f64 * (1.0 + 1e-9));
            prop_assert!(t.total() >= 1.0 - 1e-9);
            if !layers.iter().any(|l| l.budget.is_some()) {
                prop_assert!(!t.bound_by_budget);
                prop_assert_eq!(t.total(), product as f64);
            }
        }
    }
}
