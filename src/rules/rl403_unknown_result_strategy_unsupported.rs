//! RL403 unknown-result-strategy-unsupported: an `on_unknown_result` strategy the
//! operation cannot carry out: `check-status` without a `status_endpoint`, or
//! `replay-key` without an idempotency-key `header`.
//!
//! Applies whatever the effect. The finding points at the `on_unknown_result` value.

use super::grouping::{label_operations, layer_phrase, layers, operation_list, ByNode};
use super::{Context, RuleMeta};
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::policy::model::{Layer, UnknownResult};

/// Rule metadata ([`catalog::UNKNOWN_RESULT_STRATEGY_UNSUPPORTED`]).
pub const META: RuleMeta = catalog::UNKNOWN_RESULT_STRATEGY_UNSUPPORTED;

/// Checks every operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut groups: ByNode<'_, (Layer, UnknownResult)> = ByNode::new();
    for (_, op, eff) in layers(ctx) {
        let Some(u) = &eff.on_unknown_result else {
            continue;
        };
        let unsupported = match u.value {
            UnknownResult::CheckStatus => eff.status_endpoint.is_none(),
            UnknownResult::ReplayKey => eff.key_header().is_none(),
            _ => false,
        };
        if !unsupported {
            continue;
        }
        let Some(at) = &u.at else { continue };
        groups.add(at, op, (eff.layer, u.value));
    }
    groups
        .into_groups()
        .into_iter()
        .map(|g| {
            let ops = g.operations();
            let (layer, strategy) = *g.first();
            let who = operation_list(&ops);
            let layer = layer_phrase(layer);
            let (message, label, help) = match strategy {
                UnknownResult::CheckStatus => (
                    format!(
                        "`on_unknown_result: check-status`{layer} for {who}, but no `status_endpoint` to check"
                    ),
                    "check-status without a status endpoint",
                    "add a `status_endpoint` (a safe operation addressable from what the client sent), or choose `replay-key` with an idempotency key, `reconcile` or `fail`",
                ),
                _ => (
                    format!(
                        "`on_unknown_result: replay-key`{layer} for {who}, but no idempotency-key `header` to replay"
                    ),
                    "replay-key without an idempotency key",
                    "add an `idempotency_key` with the `header` the server de-duplicates on, or choose `check-status` with a `status_endpoint`, `reconcile` or `fail`",
                ),
            };
            let d = Diagnostic::new(&META, message, g.at.location(), label).with_help(help);
            label_operations(d, &ops, |_| "the operation".into())
        })
        .collect()
}
