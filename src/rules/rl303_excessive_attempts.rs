//! RL303 excessive-attempts: a retried operation's `attempts` is above the configured
//! threshold (`Thresholds::max_attempts`, default 5). `attempts` counts the first
//! attempt, so 5 is still accepted and 6 is reported. A non-retried operation
//! (`retry: false`) makes one attempt whatever `attempts` says and is not reported.

use super::grouping::{layer_phrase, retried_layers, Collector, Hit};
use super::{Context, RuleMeta};
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;

/// Rule metadata ([`catalog::EXCESSIVE_ATTEMPTS`]).
pub const META: RuleMeta = catalog::EXCESSIVE_ATTEMPTS;

/// Checks every retried operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let max = i64::from(ctx.thresholds.max_attempts);
    let mut out = Collector::new();
    for (_, op, eff) in retried_layers(ctx) {
        let Some(a) = &eff.attempts else { continue };
        if a.value <= max {
            continue;
        }
        let Some(at) = &a.at else { continue };
        out.push(
            Hit::new(
                &META,
                at,
                format!("above {max}"),
                // The total, not the field as written: an imported layer counts
                // retries (Istio `attempts: 5` is 6 attempts), so quoting the field
                // would misquote the file.
                format!(
                    "{{ops}} {{is}} retried{} with {} attempts in all (the first and {} retries), above the limit of {max}",
                    layer_phrase(eff.layer),
                    a.value,
                    a.value - 1
                ),
                format!(
                    "allow at most {max} attempts in all, the first included ({} retries), and let the deadline bound the rest",
                    max - 1
                ),
                op,
            )
            .op_label("retried operation"),
        );
    }
    out.finish(&META)
}
