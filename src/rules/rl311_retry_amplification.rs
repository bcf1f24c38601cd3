//! RL311 retry-amplification: one operation is retried by two or more layers (client,
//! gateway, mesh) and the product of their `attempts` exceeds the configured threshold
//! (`Thresholds::max_amplification`, default 3). The message gives the product and
//! the layers, outermost first.
//!
//! A retried layer without `attempts` (RL302) counts as 2, the least a retried layer
//! makes, and the product is then stated as "at least". The finding points at the
//! outermost retried layer's `attempts` (its `retry: true` node when `attempts` is
//! absent), with a label at every other layer's and one on the operation.
//!
//! Retry budgets count: under load a layer with a ratio budget or a token bucket
//! sends at most `1 + ratio` (`1 + token_ratio`) attempts per request whatever its
//! `attempts` ([`crate::retry::RetryBudget::load_factor`]). When that bound is within
//! the limit there is no finding; otherwise the message gives it beside the product.
//! A concurrency cap bounds retries in flight, not their share, and does not count.

use super::grouping::{Collector, Hit};
use super::{Context, RuleMeta};
use crate::analysis::composition::shape;
use crate::analysis::EffectivePolicy;
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::retry::total_attempts;
use crate::source::refs::At;

/// Rule metadata ([`catalog::RETRY_AMPLIFICATION`]).
pub const META: RuleMeta = catalog::RETRY_AMPLIFICATION;

/// The node that sets a layer's attempt count, and the count (absent: 2, inexact).
fn attempts_of(eff: &EffectivePolicy) -> (Option<&At>, u64, bool) {
    match &eff.attempts {
        Some(a) => (
            a.at.as_ref(),
            u64::try_from(a.value).unwrap_or(0).max(1),
            true,
        ),
        None => (eff.retry_origin(), 2, false),
    }
}

/// Checks every operation retried by two or more layers.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let max = ctx.thresholds.max_amplification;
    let mut out = Collector::new();
    for jo in &ctx.analysis.operations {
        let retried: Vec<&EffectivePolicy> = jo.layers.iter().filter(|l| l.is_retried()).collect();
        if retried.len() < 2 {
            continue;
        }
        let counts: Vec<(Option<&At>, u64, bool)> =
            retried.iter().map(|l| attempts_of(l)).collect();
        let product = counts
            .iter()
            .fold(1u64, |p, (_, n, _)| p.saturating_mul(*n));
        if product <= max {
            continue;
        }
        let shapes: Vec<_> = retried.iter().map(|l| shape(l)).collect();
        let load = total_attempts(&shapes);
        if load.bound_by_budget && load.under_load <= max as f64 {
            continue;
        }
        let budget_note = if load.bound_by_budget {
            let budgets = retried
                .iter()
                .zip(&shapes)
                .filter(|(_, s)| s.attempts_under_load().1)
                .filter_map(|(l, _)| {
                    let b = l.budget.as_ref()?;
                    Some(format!(
                        "the {} of the {} layer",
                        b.value.describe(),
                        l.layer.as_str()
                    ))
                })
                .collect::<Vec<_>>()
                .join(" and ");
            format!(
                "; under load {budgets} bound{} it near {} attempts",
                if budgets.contains(" and ") { "" } else { "s" },
                crate::retry::format_factor(load.under_load)
            )
        } else {
            String::new()
        };
        let exact = counts.iter().all(|(_, _, e)| *e);
        let Some(primary) = counts[0].0 else { continue };
        let op = jo.resolve(ctx.documents);
        let chain = retried
            .iter()
            .zip(&counts)
            .map(|(l, (_, n, e))| {
                if *e {
                    format!("{} {n}", l.layer.as_str())
                } else {
                    format!("{} at least {n}", l.layer.as_str())
                }
            })
            .collect::<Vec<_>>()
            .join(" x ");
        let total = if exact {
            format!("{product} attempts")
        } else {
            format!("at least {product} attempts")
        };
        let mut hit = Hit::new(
            &META,
            primary,
            format!("{} attempts", retried[0].layer.as_str()),
            format!(
                "{{ops}} {{is}} retried by {} layers ({chain} = {total}), above the limit of {max}{budget_note}",
                retried.len()
            ),
            "retry in one layer (usually the client, which knows the deadline) and set `retry: false` or `attempts: 1` in the others",
            op,
        )
        .op_label(format!("retried by {} layers", retried.len()));
        for (l, (at, n, e)) in retried.iter().zip(&counts).skip(1) {
            let text = if *e {
                format!("{} attempts: {n}", l.layer.as_str())
            } else {
                format!("{} retries without `attempts`", l.layer.as_str())
            };
            hit = hit.label_at(*at, text);
        }
        out.push(hit);
    }
    out.finish(&META)
}
