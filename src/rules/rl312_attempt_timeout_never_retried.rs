//! RL312 attempt-timeout-never-retried: a retried layer sets a fixed per-attempt
//! timeout but does not retry its expiry (`timeout`, or `transport`, is not in
//! `retry_on`), so the first attempt that times out ends the operation and the
//! attempts that remain are never used. Envoy and Istio behave the same way: a
//! per-try timeout is retried only when `retry_on` holds `5xx`, `gateway-error` or
//! `reset` (`retry-configs.md`, ENV-RT `onPerTryTimeoutCommon`).
//!
//! `attempt_timeout: remaining` (the built-in default) never fires, and neither does a
//! fixed timeout at or above the `deadline` (its expiry is the deadline's; RL309
//! reports one above it). Nor does a hedging layer: a hedged per-try timeout sends
//! another try whatever `retry_on` says (Envoy `router.cc`, envoyproxy/envoy#6228: "A
//! hedged retry on per try timeout is always retried if there are retries left"), and
//! RL207 judges that layer. The finding points at `attempt_timeout`, labelled at
//! `retry_on`.

use super::grouping::{layer_phrase, retried_layers, Collector, Hit};
use super::{Context, RuleMeta};
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::policy::duration::format_millis;
use crate::policy::model::AttemptTimeout;
use crate::retry::Signal;

/// Rule metadata ([`catalog::ATTEMPT_TIMEOUT_NEVER_RETRIED`]).
pub const META: RuleMeta = catalog::ATTEMPT_TIMEOUT_NEVER_RETRIED;

/// Checks every retried layer of every operation.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut out = Collector::new();
    for (_, op, eff) in retried_layers(ctx) {
        let AttemptTimeout::Fixed(timeout) = eff.attempt_timeout.value else {
            continue;
        };
        let Some(at) = &eff.attempt_timeout.at else {
            continue;
        };
        if eff.deadline.as_ref().is_some_and(|d| timeout >= d.value) {
            continue;
        }
        // Hedging retries its per-attempt timeout by design (see the module comment).
        if eff.hedging.is_some() {
            continue;
        }
        let Some(retry_on) = &eff.retry_on else {
            continue;
        };
        if retry_on
            .value
            .iter()
            .any(|s| s.value.covers(Signal::Timeout))
        {
            continue;
        }
        out.push(
            Hit::new(
                &META,
                at,
                "per-attempt timeout",
                format!(
                    "{{ops}} {{is}} retried{} with an `attempt_timeout` of {} but not on `timeout`: the first attempt that times out ends the operation",
                    layer_phrase(eff.layer),
                    format_millis(timeout)
                ),
                "add `timeout` to `retry_on` (only where repeating is safe), or use `attempt_timeout: remaining`",
                op,
            )
            .label_at(retry_on.at.as_ref(), "no `timeout` here")
            .op_label("retried operation"),
        );
    }
    out.finish(&META)
}
