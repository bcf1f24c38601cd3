//! RL103 conflicting-effect: two layers declare different effects for one operation
//! (a client policy says `safe`, a gateway policy `non-idempotent`). The effect is the
//! endpoint's, not a layer's, so the join gives every layer the least safe declared
//! effect ([`crate::analysis::endpoint_effect`]) and the other rules use it; this rule
//! says that a declaration was overridden (layers.md "Effect is the endpoint's").
//!
//! One finding per safer declaration, at its `effect` value, with a label on each
//! least-safe declaration; operations sharing the node (a `defaults` value) share the
//! finding, with a label each.

use super::grouping::{label_operations, operation_list, with_label_once, ByNode};
use super::{Context, RuleMeta};
use crate::analysis::endpoint_effect;
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::policy::model::{Effect, Layer};
use crate::source::refs::At;

/// Rule metadata ([`catalog::CONFLICTING_EFFECT`]).
pub const META: RuleMeta = catalog::CONFLICTING_EFFECT;

struct Hit {
    /// The layer of the overridden declaration and its value.
    layer: Layer,
    declared: Effect,
    /// The effect that holds, and where each layer declaring it does.
    holds: Effect,
    holding: Vec<(Layer, At)>,
}

/// Checks every operation.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut groups: ByNode<'_, Hit> = ByNode::new();
    for jo in &ctx.analysis.operations {
        let Some(holds) = endpoint_effect(&jo.declared_effects).map(|f| f.value) else {
            continue;
        };
        // A misspelled `effect` (`efect:`) is reported once (RL005): the value a
        // layer fell back to is not what its author meant, so no conflict is claimed.
        if jo.layers.iter().any(|l| l.is_misspelled("effect")) {
            continue;
        }
        let holding: Vec<(Layer, At)> = jo
            .declared_effects
            .iter()
            .filter(|(_, f)| f.value == holds)
            .filter_map(|(l, f)| f.at.clone().map(|at| (*l, at)))
            .collect();
        let op = jo.resolve(ctx.documents);
        for (layer, f) in &jo.declared_effects {
            if f.value == holds {
                continue;
            }
            let Some(at) = &f.at else { continue };
            groups.add(
                at,
                op,
                Hit {
                    layer: *layer,
                    declared: f.value,
                    holds,
                    holding: holding.clone(),
                },
            );
        }
    }
    groups
        .into_groups()
        .into_iter()
        .map(|g| {
            let ops = g.operations();
            let first = g.first();
            let holding_layers = crate::rules::grouping::distinct(
                g.hits
                    .iter()
                    .flat_map(|(_, h)| h.holding.iter().map(|(l, _)| l.as_str().to_string())),
            );
            let mut d = Diagnostic::new(
                &META,
                format!(
                    "{} {} declared `{}` by the {} layer but `{}` by the {} layer: the effect is the endpoint's, so every layer is checked as `{}`, the least safe",
                    operation_list(&ops),
                    if ops.len() == 1 { "is" } else { "are" },
                    first.declared,
                    first.layer.as_str(),
                    first.holds,
                    crate::rules::grouping::join_and(&holding_layers),
                    first.holds
                ),
                g.at.location(),
                format!("`{}` declared here ({} layer)", first.declared, first.layer.as_str()),
            );
            for (_, h) in &g.hits {
                for (layer, at) in &h.holding {
                    d = with_label_once(
                        d,
                        at.location(),
                        format!("`{}` declared here ({} layer): holds for every layer", h.holds, layer.as_str()),
                    );
                }
            }
            let d = d.with_help(
                "declare the effect once, where the endpoint is described (the spec's `x-retry` or the client policy), or make the layers' declarations agree",
            );
            label_operations(d, &ops, |_| "one endpoint, one effect".into())
        })
        .collect()
}
