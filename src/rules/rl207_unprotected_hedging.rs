//! RL207 unprotected-hedging: a non-idempotent operation is hedged (a layer sends
//! parallel copies: policy `hedging:` with `attempts` above 1; gRPC `hedgingPolicy`,
//! Envoy `hedge_on_per_try_timeout`) and no idempotency key protects the copies.
//!
//! Hedging is a duplicate by design: every copy may be processed, so only a key the
//! server de-duplicates on makes it safe (a status check cannot help: the copies are
//! in flight at once, not sent after an unknown result). A key travels with the
//! request: one declared by this layer or by a layer outside it, or required by the
//! spec (`layers.md` "Protection travels with the request"), protects the copies (a
//! key only the spec requires, with no stated contract, is RL203); a correlation
//! header such as `X-Request-ID` does not (RL206).
//!
//! The finding points at the `hedging` mapping, labelled at a non-built-in `effect`.

use super::grouping::{layer_phrase, Collector, Hit};
use super::{Context, RuleMeta};
use crate::analysis::{Protection, Source};
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;

/// Rule metadata ([`catalog::UNPROTECTED_HEDGING`]).
pub const META: RuleMeta = catalog::UNPROTECTED_HEDGING;

/// Checks every hedged layer of every operation.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut out = Collector::new();
    for jo in &ctx.analysis.operations {
        let op = jo.resolve(ctx.documents);
        for eff in &jo.layers {
            let Some(hedging) = &eff.hedging else {
                continue;
            };
            if !hedging.value.sends_copies() || !eff.is_non_idempotent() {
                continue;
            }
            // A key that reaches this layer: declared by it or by a layer outside it,
            // or required by the spec (`JoinedOperation::protection`; a spec-only key
            // is RL203's); a correlation header is not a key (RL206).
            let keyed = match jo.protection(eff.layer, op) {
                Some(Protection::Key { header, .. }) => {
                    !crate::retry::is_correlation_header(&header.value)
                }
                Some(Protection::SpecKey(_)) => true,
                _ => false,
            };
            if keyed || (eff.key_header().is_none() && eff.is_misspelled("idempotency_key.header"))
            {
                continue;
            }
            let Some(at) = &hedging.at else { continue };
            let mut hit = Hit::new(
                &META,
                at,
                format!("{} parallel copies", hedging.value.attempts),
                format!(
                    "{{ops}} {{is}} non-idempotent and hedged{} ({} parallel copies) without an idempotency key: each copy may be processed",
                    layer_phrase(eff.layer),
                    hedging.value.attempts
                ),
                "send an idempotency key the server de-duplicates on (`idempotency_key.header`), or remove `hedging` for this operation",
                op,
            )
            .op_label("non-idempotent operation");
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
    }
    out.finish(&META)
}
