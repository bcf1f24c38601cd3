//! RL101 undeclared-effect: a retried operation whose method is not idempotent
//! (anything but `GET`, `HEAD`, `OPTIONS`, `TRACE`, `PUT`, `DELETE`) has no declared
//! `effect`, so its effect is derived from the method (`non-idempotent`).
//!
//! The finding points at the node that turns the retry on (`retry: true`); several
//! operations retried by one `defaults` value give one finding with a label each.
//! The effect is the endpoint's, not a layer's (`layers.md` "Effect is the
//! endpoint's"), so an operation several layers retry gets one finding, at its
//! outermost retrying layer.

use super::grouping::{label_operations, layer_phrase, layers, operation_list, ByNode};
use super::{Context, RuleMeta};
use crate::analysis::Source;
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::policy::model::Effect;

/// Rule metadata ([`catalog::UNDECLARED_EFFECT`]).
pub const META: RuleMeta = catalog::UNDECLARED_EFFECT;

/// Checks every operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut groups = ByNode::new();
    for (jo, op, eff) in layers(ctx) {
        let outer_retries = jo
            .layers
            .iter()
            .any(|o| o.is_retried() && o.layer.depth() < eff.layer.depth());
        if outer_retries
            || !eff.is_retried()
            || eff.effect.source != Source::BuiltIn
            || eff.is_misspelled("effect")
            || Effect::from_openapi_method(&op.method) != Effect::NonIdempotent
        {
            continue;
        }
        let Some(at) = eff.retry_origin() else {
            continue;
        };
        groups.add(at, op, eff.layer);
    }
    groups
        .into_groups()
        .into_iter()
        .map(|g| {
            let ops = g.operations();
            let layer = layer_phrase(*g.first());
            let subject = operation_list(&ops);
            let verb = if ops.len() == 1 { "is" } else { "are" };
            let d = Diagnostic::new(
                &META,
                format!(
                    "{subject} {verb} retried{layer} without a declared `effect`, so {} treated as `non-idempotent` from the method",
                    if ops.len() == 1 { "it is" } else { "they are" }
                ),
                g.at.location(),
                "retry turned on here",
            )
            .with_help(
                "declare `effect` (`safe`, `idempotent` or `non-idempotent`) in the operation's policy entry or `x-retry`, as its endpoint actually behaves",
            );
            label_operations(d, &ops, |op| {
                format!("`{}` without a declared effect", op.method.to_ascii_uppercase())
            })
        })
        .collect()
}
