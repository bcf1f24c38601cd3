//! RL301 missing-deadline: a retried operation has no `deadline`, so nothing bounds
//! the whole operation (every attempt and every wait).
//!
//! The finding points at the node that turns the retry on; operations retried by one
//! `defaults` value share one finding, with a label each.

use super::grouping::{retried_layers, Collector, Hit};
use super::{Context, RuleMeta};
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;

/// Rule metadata ([`catalog::MISSING_DEADLINE`]).
pub const META: RuleMeta = catalog::MISSING_DEADLINE;

/// Checks every retried operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut out = Collector::new();
    for (_, op, eff) in retried_layers(ctx) {
        if eff.deadline.is_some() || eff.is_misspelled("deadline") {
            continue;
        }
        let help = "set a `deadline` for the whole operation (every attempt and wait), e.g. `deadline: 3s`";
        // A config that switched its deadline off itself (Envoy `timeout: 0s`): the
        // finding points there, with the node that turns the retry on as a label.
        let hit = match &eff.deadline_off {
            Some(off) => Hit::retried_without(&META, eff, op, "a `deadline`", help).map(|h| {
                let origin = eff.retry_origin().cloned();
                h.primary_at(off, "deadline switched off here")
                    .label_at(origin.as_ref(), "retry turned on here")
            }),
            None => Hit::retried_without(&META, eff, op, "a `deadline`", help),
        };
        out.extend(hit);
    }
    out.finish(&META)
}
