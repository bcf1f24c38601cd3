//! RL401 unknown-result-unhandled: a retried non-idempotent operation has no
//! `on_unknown_result`, so nothing says what a timeout or a reset leads to.
//!
//! Client layers only: a gateway or mesh can only resend or pass the error up, so an
//! unknown result is the client's to handle (layers.md "Unknown results on
//! proxies"); a proxy's resend of a non-idempotent request is RL201's.
//!
//! The finding points at the node that turns the retry on; operations retried by one
//! `defaults` value share one finding.

use super::grouping::{label_operations, layer_phrase, layers, operation_list, ByNode};
use super::{Context, RuleMeta};
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;

/// Rule metadata ([`catalog::UNKNOWN_RESULT_UNHANDLED`]).
pub const META: RuleMeta = catalog::UNKNOWN_RESULT_UNHANDLED;

/// Checks every operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut groups = ByNode::new();
    for (jo, op, eff) in layers(ctx) {
        if !eff.layer.is_client()
            || !eff.is_retried()
            || !eff.is_non_idempotent()
            || eff.on_unknown_result.is_some()
            || eff.is_misspelled("on_unknown_result")
        {
            continue;
        }
        let Some(at) = eff.retry_origin() else {
            continue;
        };
        groups.add(at, op, (eff.layer, jo.key_reaches(eff.layer, op)));
    }
    groups
        .into_groups()
        .into_iter()
        .map(|g| {
            let ops = g.operations();
            let (layer, keyed) = *g.first();
            let help = if keyed && g.hits.iter().all(|(_, (_, k))| *k) {
                "set `on_unknown_result`: `replay-key` (repeat with the same key), or `check-status`, `reconcile` or `fail`"
            } else {
                "set `on_unknown_result`: `check-status` (with a `status_endpoint`), `reconcile`, `fail`, or `replay-key` with an idempotency key"
            };
            let d = Diagnostic::new(
                &META,
                format!(
                    "{} {} non-idempotent and retried{} without an `on_unknown_result`",
                    operation_list(&ops),
                    if ops.len() == 1 { "is" } else { "are" },
                    layer_phrase(layer)
                ),
                g.at.location(),
                "retry turned on here",
            )
            .with_help(help);
            label_operations(d, &ops, |_| "non-idempotent operation".into())
        })
        .collect()
}
