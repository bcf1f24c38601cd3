//! RL309 attempt-timeout-exceeds-budget: a retried operation's fixed
//! `attempt_timeout` cannot fit in its `deadline`: the timeout alone is longer than
//! the deadline, or the worst case of every attempt and every wait,
//!
//! `attempts x attempt_timeout + sum over retries n = 0..attempts-2 of min(cap, base x multiplier^n)`
//!
//! exceeds it, so later attempts can never run. `attempt_timeout: remaining` (the
//! built-in default) never fires. The sum is [`total_backoff_ms`](crate::retry::total_backoff_ms); a missing `base`
//! counts as no wait and a missing `cap` as no cap (the worst case is then still at
//! least what is known). Without `attempts` only the first test applies (RL302 reports
//! the missing budget). The finding points at the `attempt_timeout` node, with labels
//! at the `deadline` and `attempts`.

use super::grouping::{layer_phrase, retried_layers, Collector, Hit};
use super::{Context, RuleMeta};
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::policy::duration::format_millis;
use crate::policy::model::AttemptTimeout;
use crate::retry::total_backoff_ms;

/// Rule metadata ([`catalog::ATTEMPT_TIMEOUT_EXCEEDS_BUDGET`]).
pub const META: RuleMeta = catalog::ATTEMPT_TIMEOUT_EXCEEDS_BUDGET;

/// Checks every retried operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut out = Collector::new();
    for (_, op, eff) in retried_layers(ctx) {
        let AttemptTimeout::Fixed(timeout) = eff.attempt_timeout.value else {
            continue;
        };
        let (Some(deadline), Some(at)) = (&eff.deadline, &eff.attempt_timeout.at) else {
            continue;
        };
        let layer = layer_phrase(eff.layer);
        let d = deadline.value;
        if timeout > d {
            out.push(
                Hit::new(
                    &META,
                    at,
                    "longer than the deadline",
                    format!(
                        "`attempt_timeout` ({}) is longer than the `deadline` ({}) of {{ops}}{layer}: the deadline always ends an attempt first",
                        format_millis(timeout),
                        format_millis(d)
                    ),
                    format!(
                        "use `attempt_timeout: remaining`, or a fixed timeout well below the `deadline` ({})",
                        format_millis(d)
                    ),
                    op,
                )
                .label_at(deadline.at.as_ref(), "deadline")
                .op_label("retried operation"),
            );
            continue;
        }
        let Some(attempts) = &eff.attempts else {
            continue;
        };
        let n = attempts.value.max(1);
        let retries = u32::try_from(n - 1).unwrap_or(u32::MAX);
        let b = &eff.backoff;
        let base = b.base.as_ref().map_or(0.0, |f| f.value.max(0.0));
        let cap = b.cap.as_ref().map_or(f64::INFINITY, |f| f.value);
        let waits = total_backoff_ms(base, cap, b.multiplier.value, retries);
        let total = n as f64 * timeout + waits;
        if total.is_nan() || total <= d {
            continue;
        }
        out.push(
            Hit::new(
                &META,
                at,
                "does not fit in the deadline",
                format!(
                    "{n} attempts x {} + {} of backoff = {} exceeds the `deadline` ({}) of {{ops}}{layer}: later attempts can never run",
                    format_millis(timeout),
                    format_millis(waits),
                    format_millis(total),
                    format_millis(d)
                ),
                format!(
                    "use `attempt_timeout: remaining`, or lower `attempt_timeout` or `attempts` so that every attempt and wait fits in the `deadline` ({})",
                    format_millis(d)
                ),
                op,
            )
            .label_at(deadline.at.as_ref(), "deadline")
            .label_at(attempts.at.as_ref(), "attempts")
            .op_label("retried operation"),
        );
    }
    out.finish(&META)
}
