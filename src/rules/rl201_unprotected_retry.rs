//! RL201 unprotected-retry: a non-idempotent operation is retried on a signal after
//! which the request may have been processed (one the signal table of
//! `retry::signals` does not mark never processed, that can fire on the operation,
//! in a layer whose `methods` filter does not leave the method out:
//! `EffectivePolicy::unsafe_signals`) and nothing protects the repeat in that layer
//! (no idempotency key reaches it, and, on the client, no status endpoint consulted
//! with `on_unknown_result: check-status`). A key travels with the request: one the
//! spec requires, or one a layer declares, protects that layer and every layer
//! inside it ([`crate::analysis::JoinedOperation::protection`]). A gateway or mesh
//! that resends a non-idempotent request is reported here, once (not also as RL402).
//!
//! Strict on purpose: a 429 or 503 usually means "not processed", but only the
//! endpoint's contract can promise it.
//!
//! Operations retried by one `defaults` value share one finding, with a label each.

use super::grouping::{layer_phrase, retried_layers, Collector, Hit};
use super::{Context, RuleMeta};
use crate::analysis::Source;
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;

/// Rule metadata ([`catalog::UNPROTECTED_RETRY`]).
pub const META: RuleMeta = catalog::UNPROTECTED_RETRY;

/// Checks every retried operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut out = Collector::new();
    for (jo, op, eff) in retried_layers(ctx) {
        // A misspelled key header (`idempotency_key.haeder`, `idempotency_kye`) is
        // reported once as the unknown key, not again here.
        if !eff.is_non_idempotent()
            || jo.protection(eff.layer, op).is_some()
            || (eff.key_header().is_none() && eff.is_misspelled("idempotency_key.header"))
        {
            continue;
        }
        let signals = eff.unsafe_signals();
        if signals.is_empty() {
            continue;
        }
        let Some(retry_on) = &eff.retry_on else {
            continue;
        };
        let list = signals
            .iter()
            .map(|s| format!("`{}`", s.value))
            .collect::<Vec<_>>()
            .join(", ");
        // The most specific node that sets the offending value: the `retry_on` list,
        // unless `retry: true` is set more specifically.
        let retry_more_specific = eff.retry.source < retry_on.source && eff.retry.at.is_some();
        let (primary, primary_label) = if retry_more_specific {
            (&eff.retry.at, "retry turned on here")
        } else {
            (&retry_on.at, "retried on possibly processed attempts")
        };
        let Some(primary) = primary else { continue };
        let mut hit = Hit::new(
            &META,
            primary,
            primary_label,
            format!(
                "{{ops}} {{is}} non-idempotent and retried{} on {list} without an idempotency key or a status check",
                layer_phrase(eff.layer)
            ),
            if eff.layer.is_client() {
                "add an `idempotency_key` contract (a header the server de-duplicates on), or a `status_endpoint` with `on_unknown_result: check-status`, or restrict `retry_on` to `connect-failure` and `refused-stream`"
            } else {
                "have the client send an idempotency key (an `idempotency_key` contract in the client policy, or a required key header in the spec) that this layer re-sends, or limit this layer's retry conditions to failures where the request was never processed (connection failure, refused stream): a gateway or mesh cannot check a status"
            },
            op,
        )
        .op_label("non-idempotent operation");
        if retry_more_specific {
            hit = hit.label_at(retry_on.at.as_ref(), "retry signals");
        } else if let (Some(list), Some(on)) = (&retry_on.at, &eff.retry.at) {
            // The signals sit at a methods filter that admits the method (Spring Cloud
            // Gateway's `methods: GET,POST`, case README Q23): the node that turns the
            // retry on is labelled too.
            let at_methods = eff
                .methods
                .as_ref()
                .and_then(|m| m.at.as_ref())
                .is_some_and(|m| m.same_node(list));
            if at_methods && !on.same_node(list) {
                hit = hit.label_at(Some(on), "retry turned on here");
            }
        }
        // A methods filter read from another file that admits the method (the
        // ingress-nginx controller ConfigMap's `retry-non-idempotent: "true"`, case
        // 58) is what lets the method through: the finding names it.
        if let Some(m_at) = eff.methods.as_ref().and_then(|m| m.at.as_ref()) {
            if m_at.location().file.path != primary.location().file.path {
                hit = hit.label_at(Some(m_at), format!("lets `{}` be re-sent", eff.method));
            }
        }
        if eff.effect.source != Source::BuiltIn {
            hit = hit.label_at(
                eff.effect.at.as_ref(),
                if eff.effect.source == Source::Inferred {
                    "non-idempotent by the RPC's own semantics"
                } else {
                    "declared non-idempotent"
                },
            );
        }
        out.push(hit);
    }
    out.finish(&META)
}
