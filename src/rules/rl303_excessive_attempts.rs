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
                    "{{ops}} {{is}} retried{} with {} attempts in all (the first and {}), above the limit of {max}",
                    layer_phrase(eff.layer),
                    a.value,
                    retries(a.value - 1)
                ),
                if max <= 1 {
                    "allow one attempt in all (no retry), or raise `thresholds.max_attempts` if more are meant".to_owned()
                } else {
                    format!(
                        "allow at most {max} attempts in all, the first included ({}), and let the deadline bound the rest",
                        retries(max - 1)
                    )
                },
                op,
            )
            .op_label("retried operation"),
        );
    }
    out.finish(&META)
}

/// `1 retry`, `4 retries`.
fn retries(n: i64) -> String {
    if n == 1 {
        "1 retry".to_owned()
    } else {
        format!("{n} retries")
    }
}
