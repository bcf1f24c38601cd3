//! RL206 request-id-as-idempotency-key: the idempotency-key header of a
//! non-idempotent operation is a correlation or tracing header. It links attempts in
//! logs but nobody de-duplicates on it.
//!
//! The headers recognised (exact names, case-insensitive) are
//! [`crate::retry::CORRELATION_HEADERS`].

use super::grouping::{
    label_operations, layer_phrase, layers, operation_list, with_label_once, ByNode,
};
use super::{Context, RuleMeta};
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::policy::model::Layer;
use crate::retry::is_correlation_header;

/// Rule metadata ([`catalog::REQUEST_ID_AS_IDEMPOTENCY_KEY`]).
pub const META: RuleMeta = catalog::REQUEST_ID_AS_IDEMPOTENCY_KEY;

/// Checks every operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut groups: ByNode<'_, (Layer, String)> = ByNode::new();
    for (_, op, eff) in layers(ctx) {
        if !eff.is_non_idempotent() {
            continue;
        }
        let Some(header) = eff.key_header() else {
            continue;
        };
        if !is_correlation_header(&header.value) {
            continue;
        }
        let Some(at) = &header.at else { continue };
        groups.add(at, op, (eff.layer, header.value.clone()));
    }
    groups
        .into_groups()
        .into_iter()
        .map(|g| {
            let ops = g.operations();
            let (layer, header) = g.first();
            let mut d = Diagnostic::new(
                &META,
                format!(
                    "{} {} the correlation header `{header}` as {} idempotency key{}: it links attempts in logs but does not de-duplicate them",
                    operation_list(&ops),
                    if ops.len() == 1 { "uses" } else { "use" },
                    if ops.len() == 1 { "its" } else { "their" },
                    layer_phrase(*layer)
                ),
                g.at.location(),
                "correlation header as key",
            )
            .with_help(
                "send a dedicated key header the server de-duplicates on (e.g. `Idempotency-Key`, declared on the operation) and keep the correlation header for tracing",
            );
            for op in &ops {
                if let Some(p) = op.header_param(header) {
                    d = with_label_once(d, p.at.location(), "correlation header parameter");
                }
            }
            label_operations(d, &ops, |_| "non-idempotent operation".into())
        })
        .collect()
}
