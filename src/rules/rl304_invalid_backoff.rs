//! RL304 invalid-backoff: backoff values that cannot describe a growing, bounded
//! delay: a negative `base`, a `cap` smaller than `base`, a `multiplier` below 1.
//!
//! Like RL302's `attempts < 1`, these are range errors of the format
//! (policy-format.md, "Units and strictness"), reported wherever the value is
//! effective, retried or not. Each problem is its own finding at the offending key:
//! `base` for a negative base (the parser has no signed durations, so only a model
//! built otherwise reaches it), `multiplier`, and for `cap < base` the more specific
//! of the two (the one that broke the pair; `cap` when both are set at one level).

use super::grouping::{layer_phrase, layers, Collector, Hit};
use super::{Context, RuleMeta};
use crate::analysis::Source;
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::policy::duration::format_millis;

/// Rule metadata ([`catalog::INVALID_BACKOFF`]).
pub const META: RuleMeta = catalog::INVALID_BACKOFF;

/// Checks every operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut out = Collector::new();
    for (_, op, eff) in layers(ctx) {
        let b = &eff.backoff;
        let layer = layer_phrase(eff.layer);
        if let Some(base) = &b.base {
            if let (true, Some(at)) = (base.value < 0.0, &base.at) {
                out.push(Hit::new(
                    &META,
                    at,
                    "negative base",
                    format!(
                        "`backoff.base` is negative (-{}) for {{ops}}{layer}",
                        format_millis(-base.value)
                    ),
                    "set `backoff.base` to a positive duration, e.g. `base: 100ms`",
                    op,
                ));
            }
        }
        if let (Some(base), Some(cap)) = (&b.base, &b.cap) {
            if cap.value < base.value {
                let (primary, other, label, other_label) = if base.source < cap.source {
                    (&base.at, &cap.at, "base above the cap", "cap")
                } else {
                    (&cap.at, &base.at, "cap below the base", "base")
                };
                if let Some(at) = primary {
                    out.push(
                        Hit::new(
                            &META,
                            at,
                            label,
                            format!(
                                "`backoff.cap` ({}) is smaller than `backoff.base` ({}) for {{ops}}{layer}: every delay is the cap",
                                format_millis(cap.value),
                                format_millis(base.value)
                            ),
                            "make `cap` at least `base` (were they swapped?), e.g. `backoff: { base: 100ms, cap: 2s }`",
                            op,
                        )
                        .label_at(other.as_ref(), other_label),
                    );
                }
            }
        }
        let m = &b.multiplier;
        if (m.value < 1.0 || m.value.is_nan()) && m.source != Source::BuiltIn {
            if let Some(at) = &m.at {
                out.push(Hit::new(
                    &META,
                    at,
                    "below 1",
                    format!(
                        "`backoff.multiplier: {}` is below 1 for {{ops}}{layer}: delays shrink instead of growing",
                        m.value
                    ),
                    "set `backoff.multiplier` to 1 (constant delay) or more, e.g. `multiplier: 2`",
                    op,
                ));
            }
        }
    }
    out.finish(&META)
}
