//! RL313 inner-layer-outlives-outer: an inner layer (gateway or mesh, inside the
//! client) can keep retrying longer than an outer layer waits for it. Its worst case
//! (its attempts x its attempt time + its backoff upper bounds, capped by its
//! deadline; [`crate::retry::layer_worst_case_ms`]) is longer than the outer layer's
//! fixed `attempt_timeout` or `deadline`, whichever is shorter. The outer layer then
//! gives up (and retries, sending more load into a chain that is still retrying)
//! while the inner one still works on an answer nobody waits for
//! (`layers.md` "Composition across layers").
//!
//! An inner layer with `attempt_timeout: remaining` and no `deadline` is unbounded
//! and outlives any bound. Only a retried or hedged inner layer counts, and only an
//! outer layer with a bound; when several outer layers are outlived, the one that
//! gives up first is named. The finding points at the inner layer's `attempts`
//! (its `retry: true` when absent), labelled at the outer layer's bound.

use super::grouping::{Collector, Hit};
use super::{Context, RuleMeta};
use crate::analysis::composition::shape;
use crate::analysis::EffectivePolicy;
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::policy::duration::format_millis;
use crate::policy::model::AttemptTimeout;
use crate::retry::layer_worst_case_ms;
use crate::source::refs::At;

/// Rule metadata ([`catalog::INNER_LAYER_OUTLIVES_OUTER`]).
pub const META: RuleMeta = catalog::INNER_LAYER_OUTLIVES_OUTER;

/// An outer layer's bound on one of its attempts: the shorter of its fixed
/// `attempt_timeout` and its `deadline`, with the node and the key's name.
fn outer_bound(eff: &EffectivePolicy) -> Option<(f64, Option<&At>, &'static str)> {
    let timeout = match eff.attempt_timeout.value {
        AttemptTimeout::Fixed(ms) => Some((ms, eff.attempt_timeout.at.as_ref(), "attempt_timeout")),
        AttemptTimeout::Remaining => None,
    };
    let deadline = eff
        .deadline
        .as_ref()
        .map(|d| (d.value, d.at.as_ref(), "deadline"));
    match (timeout, deadline) {
        (Some(t), Some(d)) => Some(if t.0 <= d.0 { t } else { d }),
        (t, d) => t.or(d),
    }
}

/// Checks every operation with two or more layers.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut out = Collector::new();
    for jo in &ctx.analysis.operations {
        if jo.layers.len() < 2 {
            continue;
        }
        let op = jo.resolve(ctx.documents);
        for (j, inner) in jo.layers.iter().enumerate().skip(1) {
            let s = shape(inner);
            if !s.multiplies() {
                continue;
            }
            let worst = layer_worst_case_ms(&s, None);
            // The outer layer that gives up first among those the inner outlives.
            let outlived = jo.layers[..j]
                .iter()
                .filter(|o| o.layer != inner.layer)
                .filter_map(|o| outer_bound(o).map(|b| (o, b)))
                .filter(|(_, (bound, _, _))| worst.is_none_or(|w| w > *bound))
                .min_by(|a, b| a.1 .0.total_cmp(&b.1 .0));
            let Some((outer, (bound, bound_at, key))) = outlived else {
                continue;
            };
            let primary = inner
                .attempts
                .as_ref()
                .and_then(|a| a.at.as_ref())
                .or(inner.retry_origin())
                .or(inner.hedging.as_ref().and_then(|h| h.at.as_ref()));
            let Some(primary) = primary else { continue };
            let how_long = match worst {
                Some(w) => format!("for up to {}", format_millis(w)),
                None => {
                    "without bound (`attempt_timeout: remaining` and no `deadline`)".to_string()
                }
            };
            let gives_up = if outer.is_retried() {
                "gives up and retries"
            } else {
                "gives up"
            };
            let key_name = if key == "deadline" {
                "deadline"
            } else {
                "attempt timeout"
            };
            let hit = Hit::new(
                &META,
                primary,
                match worst {
                    Some(w) => format!("{} retries for up to {}", inner.layer.as_str(), format_millis(w)),
                    None => format!("{} retries without bound", inner.layer.as_str()),
                },
                format!(
                    "the {inner_l} layer may retry {{ops}} {how_long}, longer than the {outer_l} layer's {key_name} ({b}): the {outer_l} {gives_up} while the {inner_l} still retries, and its answer is thrown away",
                    inner_l = inner.layer.as_str(),
                    outer_l = outer.layer.as_str(),
                    b = format_millis(bound),
                ),
                format!(
                    "give the {} layer a `deadline` (or fewer `attempts`) within the {} layer's {key_name}, or retry in one layer only",
                    inner.layer.as_str(),
                    outer.layer.as_str()
                ),
                op,
            )
            .label_at(bound_at, format!("{} {key_name}", outer.layer.as_str()))
            .op_label("retried by several layers");
            out.push(hit);
        }
    }
    out.finish(&META)
}
