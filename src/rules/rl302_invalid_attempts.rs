//! RL302 invalid-attempts: an `attempts` value below 1, or a retried operation with
//! no `attempts` at all (no attempt budget).
//!
//! `attempts` counts every attempt including the first, so `attempts: 0` is
//! meaningless whether or not the operation is retried: it is a range error of the
//! format (policy-format.md, "Units and strictness") and is reported wherever it is
//! the effective value. A missing `attempts` only matters on a retried operation; the
//! finding then points at the node that turns retrying on (as RL301 does).

use super::grouping::{layer_phrase, layers, Collector, Hit};
use super::{Context, RuleMeta};
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;

/// Rule metadata ([`catalog::INVALID_ATTEMPTS`]).
pub const META: RuleMeta = catalog::INVALID_ATTEMPTS;

/// Checks every operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut out = Collector::new();
    for (_, op, eff) in layers(ctx) {
        match &eff.attempts {
            Some(a) if a.value < 1 => {
                let Some(at) = &a.at else { continue };
                out.push(Hit::new(
                    &META,
                    at,
                    "below 1",
                    format!(
                        "`attempts: {}` is below 1 for {{ops}}{}: it counts every attempt including the first",
                        a.value,
                        layer_phrase(eff.layer)
                    ),
                    "set `attempts` to the total number of attempts including the first (`1` means no retry), e.g. `attempts: 3`",
                    op,
                ));
            }
            None if eff.is_retried() && !eff.is_misspelled("attempts") => {
                out.extend(Hit::retried_without(
                    &META,
                    eff,
                    op,
                    "`attempts`: nothing bounds the number of attempts",
                    "set `attempts` (total attempts including the first), e.g. `attempts: 3`",
                ));
            }
            _ => {}
        }
    }
    out.finish(&META)
}
