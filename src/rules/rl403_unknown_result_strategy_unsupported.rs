//! RL403 unknown-result-strategy-unsupported: an `on_unknown_result` strategy the
//! operation cannot carry out: `check-status` without a `status_endpoint`,
//! `check-status` or `reconcile` on a gateway or mesh (checking a status and
//! reconciling out of band are client behaviour: a proxy can only resend or pass the
//! error up; layers.md "Protection travels with the request"), or `replay-key`
//! without an idempotency key that reaches the layer (its own, an outer layer's, or
//! one the spec requires).
//!
//! Applies whatever the effect. The finding points at the `on_unknown_result` value.

use super::grouping::{label_operations, layer_phrase, layers, operation_list, ByNode};
use super::{Context, RuleMeta};
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::policy::model::{Layer, UnknownResult};

/// Rule metadata ([`catalog::UNKNOWN_RESULT_STRATEGY_UNSUPPORTED`]).
pub const META: RuleMeta = catalog::UNKNOWN_RESULT_STRATEGY_UNSUPPORTED;

/// Why a strategy cannot be carried out.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Unsupported {
    /// `check-status` on a gateway or mesh.
    ProxyCheckStatus,
    /// `reconcile` on a gateway or mesh.
    ProxyReconcile,
    /// `check-status` without a `status_endpoint`.
    NoStatusEndpoint,
    /// `replay-key` with no key reaching the layer.
    NoKey,
}

/// Checks every operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut groups: ByNode<'_, (Layer, Unsupported)> = ByNode::new();
    for (jo, op, eff) in layers(ctx) {
        let Some(u) = &eff.on_unknown_result else {
            continue;
        };
        let unsupported = match u.value {
            UnknownResult::CheckStatus if !eff.layer.is_client() => Unsupported::ProxyCheckStatus,
            UnknownResult::Reconcile if !eff.layer.is_client() => Unsupported::ProxyReconcile,
            UnknownResult::CheckStatus if eff.status_endpoint.is_none() => {
                Unsupported::NoStatusEndpoint
            }
            UnknownResult::ReplayKey if !jo.key_reaches(eff.layer, op) => Unsupported::NoKey,
            _ => continue,
        };
        let Some(at) = &u.at else { continue };
        groups.add(at, op, (eff.layer, unsupported));
    }
    groups
        .into_groups()
        .into_iter()
        .map(|g| {
            let ops = g.operations();
            let (layer_kind, strategy) = *g.first();
            let who = operation_list(&ops);
            let layer = layer_phrase(layer_kind);
            let (message, label, help) = match strategy {
                Unsupported::ProxyCheckStatus => (
                    format!(
                        "`on_unknown_result: check-status`{layer} for {who}, but a {} cannot check a status: it can only resend the request or pass the error up",
                        layer_kind.as_str()
                    ),
                    "check-status on a proxy layer",
                    "check the status in the client policy (`check-status` with a `status_endpoint`); here choose `fail` (pass the error up), or `replay-key` when an idempotency key reaches this layer",
                ),
                Unsupported::ProxyReconcile => (
                    format!(
                        "`on_unknown_result: reconcile`{layer} for {who}, but a {} cannot reconcile with the source of truth: it can only resend the request or pass the error up",
                        layer_kind.as_str()
                    ),
                    "reconcile on a proxy layer",
                    "reconcile in the client (`reconcile` in the client policy); here choose `fail` (pass the error up), or `replay-key` when an idempotency key reaches this layer",
                ),
                Unsupported::NoStatusEndpoint => (
                    format!(
                        "`on_unknown_result: check-status`{layer} for {who}, but no `status_endpoint` to check"
                    ),
                    "check-status without a status endpoint",
                    "add a `status_endpoint` (a safe operation addressable from what the client sent), or choose `replay-key` with an idempotency key, `reconcile` or `fail`",
                ),
                Unsupported::NoKey => (
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
