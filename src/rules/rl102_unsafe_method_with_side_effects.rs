//! RL102 unsafe-method-with-side-effects: an operation with a safe method (`GET`,
//! `HEAD`, `OPTIONS`, `TRACE`) is declared `non-idempotent`. Caches, crawlers and
//! proxies repeat such requests whatever the policy says, retried or not.
//!
//! The finding points at the `effect` value (in a policy or an inline `x-retry`);
//! several operations declared by one `defaults` value give one finding.

use super::grouping::{
    label_operations, layer_phrase, layers, method_list, operation_list, ByNode,
};
use super::{Context, RuleMeta};
use crate::analysis::Source;
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::policy::model::Effect;

/// Rule metadata ([`catalog::UNSAFE_METHOD_WITH_SIDE_EFFECTS`]).
pub const META: RuleMeta = catalog::UNSAFE_METHOD_WITH_SIDE_EFFECTS;

/// Checks every operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut groups = ByNode::new();
    for (_, op, eff) in layers(ctx) {
        if eff.effect.source == Source::BuiltIn
            || eff.effect.value != Effect::NonIdempotent
            || Effect::from_openapi_method(&op.method) != Effect::Safe
        {
            continue;
        }
        let Some(at) = &eff.effect.at else { continue };
        groups.add(at, op, eff.layer);
    }
    groups
        .into_groups()
        .into_iter()
        .map(|g| {
            let ops = g.operations();
            let layer = layer_phrase(*g.first());
            let verb = if ops.len() == 1 { "is" } else { "are" };
            let methods = method_list(ops.iter().copied());
            let d = Diagnostic::new(
                &META,
                format!(
                    "{} {verb} declared `non-idempotent`{layer} but {} the safe method {methods}, which caches, crawlers and proxies repeat freely",
                    operation_list(&ops),
                    if ops.len() == 1 { "uses" } else { "use" }
                ),
                g.at.location(),
                "declared non-idempotent",
            )
            .with_help(
                "give the command a non-safe method (e.g. `POST`) in the API; a retry policy cannot stop others from repeating a safe request",
            );
            label_operations(d, &ops, |op| {
                format!("safe method `{}`", op.method.to_ascii_uppercase())
            })
        })
        .collect()
}
