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
                format!(
                    "{{ops}} {{is}} retried{} with `attempts: {}`, above the limit of {max}",
                    layer_phrase(eff.layer),
                    a.value
                ),
                format!(
                    "lower `attempts` to at most {max} (it counts the first attempt) and let the `deadline` bound the rest"
                ),
                op,
            )
            .op_label("retried operation"),
        );
    }
    out.finish(&META)
}
