//! RL310 deadline-precludes-retry: a retried operation's `backoff.base` is at least
//! its `deadline`, so the first backoff bound alone reaches the deadline and a retry
//! rarely or never happens. The first bound is `min(cap, base)`
//! ([`backoff_bound_ms`](crate::retry::backoff_bound_ms) with n = 0), which is `base` unless RL304 already reports
//! a `cap` below it. The finding points at `base`, with a label at the
//! `deadline`.

use super::grouping::{layer_phrase, retried_layers, Collector, Hit};
use super::{Context, RuleMeta};
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::policy::duration::format_millis;
use crate::retry::backoff_bound_ms;

/// Rule metadata ([`catalog::DEADLINE_PRECLUDES_RETRY`]).
pub const META: RuleMeta = catalog::DEADLINE_PRECLUDES_RETRY;

/// Checks every retried operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut out = Collector::new();
    for (_, op, eff) in retried_layers(ctx) {
        let (Some(base), Some(deadline)) = (&eff.backoff.base, &eff.deadline) else {
            continue;
        };
        // The first bound is min(cap, base); a cap below the base is RL304's.
        let cap = eff.backoff.cap.as_ref().map_or(f64::INFINITY, |c| c.value);
        let first = backoff_bound_ms(base.value, cap, eff.backoff.multiplier.value, 0);
        if first.is_nan() || first < deadline.value {
            continue;
        }
        let Some(at) = &base.at else { continue };
        out.push(
            Hit::new(
                &META,
                at,
                "reaches the deadline",
                format!(
                    "`backoff.base` ({}) is not shorter than the `deadline` ({}) of {{ops}}{}: the first wait alone uses the whole budget",
                    format_millis(base.value),
                    format_millis(deadline.value),
                    layer_phrase(eff.layer)
                ),
                "lower `backoff.base` well below the `deadline`, or say `attempts: 1` or `retry: false` if one attempt is all the budget allows",
                op,
            )
            .label_at(deadline.at.as_ref(), "deadline")
            .op_label("retried operation"),
        );
    }
    out.finish(&META)
}
