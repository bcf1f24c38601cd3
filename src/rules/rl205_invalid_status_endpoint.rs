//! RL205 invalid-status-endpoint: `status_endpoint` resolves to an operation that
//! cannot safely report the outcome of an attempt:
//! - its method is not safe (`GET`, `HEAD`, `OPTIONS`, `TRACE`);
//! - its `effect` is declared other than `safe` (in any layer that applies to it);
//! - its path needs a parameter the client cannot know before a response: a path
//!   template parameter that is neither a request parameter (`path`, `query`,
//!   `header`, `body`/`formData`) of the polled operation nor its idempotency-key
//!   header.
//!
//! Names are compared loosely, because the same client-generated id is spelled per
//! location: case-insensitively, ignoring `-` and `_` and a leading `X-`, so
//! `{requestId}` matches the header `X-Request-ID` and the query `request_id`.
//! Fields of an OpenAPI 3 `requestBody` schema are not request parameters here.
//!
//! One finding per `status_endpoint` node, listing every reason, with labels on the
//! status operation and on each polled operation.

use super::grouping::{
    distinct, join_and, label_operations, layer_phrase, layers, method_list, operation_list,
    with_label_once, ByNode,
};
use super::{Context, RuleMeta};
use crate::analysis::{EffectivePolicy, Source};
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::openapi::model::Operation;
use crate::policy::model::{Effect, Layer};
use crate::source::refs::At;

/// Rule metadata ([`catalog::INVALID_STATUS_ENDPOINT`]).
pub const META: RuleMeta = catalog::INVALID_STATUS_ENDPOINT;

struct Hit<'a> {
    layer: Layer,
    status: &'a Operation,
    /// The method is not safe.
    unsafe_method: bool,
    /// A declared non-safe effect of the status operation: (value, node).
    declared: Option<(Effect, At)>,
    /// Path parameters the polled operation cannot supply.
    unknowable: Vec<String>,
}

/// `requestId`, `request_id`, `X-Request-ID` -> `requestid`.
pub fn normalize_name(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    let stripped = lower
        .strip_prefix("x-")
        .or_else(|| lower.strip_prefix("x_"))
        .unwrap_or(&lower);
    stripped
        .chars()
        .filter(|c| *c != '-' && *c != '_')
        .collect()
}

/// The `{name}` segments of a path template, in order.
fn template_params(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let name = &rest[open + 1..open + close];
        if !name.is_empty() && !out.iter().any(|n: &String| n == name) {
            out.push(name.to_string());
        }
        rest = &rest[open + close + 1..];
    }
    out
}

/// Path parameters of `status` that `polled` (with `eff`) cannot supply.
fn unknowable(status: &Operation, polled: &Operation, eff: &EffectivePolicy) -> Vec<String> {
    let mut names = template_params(&status.path);
    for p in &status.params {
        if p.location == "path" && !names.iter().any(|n| n == &p.name) {
            names.push(p.name.clone());
        }
    }
    let known: Vec<String> = polled
        .params
        .iter()
        .filter(|p| {
            matches!(
                p.location.as_str(),
                "path" | "query" | "header" | "body" | "formData"
            )
        })
        .map(|p| normalize_name(&p.name))
        .chain(eff.key_header().map(|h| normalize_name(&h.value)))
        .collect();
    names
        .into_iter()
        .filter(|n| !known.contains(&normalize_name(n)))
        .collect()
}

/// Checks every operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut groups = ByNode::new();
    for (_, op, eff) in layers(ctx) {
        let (Some(se), Some(target)) = (&eff.status_endpoint, eff.status_operation) else {
            continue;
        };
        let Some(se_at) = &se.at else { continue };
        let status = &ctx.documents[target.document].operations[target.operation];
        let unsafe_method = Effect::from_openapi_method(&status.method) != Effect::Safe;
        // The status operation's declared effect: the same layer first, then any.
        let joined = ctx
            .analysis
            .operations
            .iter()
            .find(|o| o.op_ref() == target);
        let declared = joined.and_then(|j| {
            let mut layers: Vec<&EffectivePolicy> = j.layer(eff.layer).into_iter().collect();
            layers.extend(j.layers.iter().filter(|l| l.layer != eff.layer));
            layers.into_iter().find_map(|l| {
                (l.effect.source != Source::BuiltIn && l.effect.value != Effect::Safe)
                    .then(|| l.effect.at.clone().map(|at| (l.effect.value, at)))
                    .flatten()
            })
        });
        let unknowable = unknowable(status, op, eff);
        if !unsafe_method && declared.is_none() && unknowable.is_empty() {
            continue;
        }
        groups.add(
            se_at,
            op,
            Hit {
                layer: eff.layer,
                status,
                unsafe_method,
                declared,
                unknowable,
            },
        );
    }
    groups
        .into_groups()
        .into_iter()
        .map(|g| {
            let ops = g.operations();
            let first = g.first();
            // One `status_endpoint` node normally names one operation; a `defaults`
            // selector may resolve per document, so gather every status operation.
            let mut statuses: Vec<&Operation> = Vec::new();
            for (_, h) in &g.hits {
                if !statuses.iter().any(|s| s.key.same_node(&h.status.key)) {
                    statuses.push(h.status);
                }
            }
            let unsafe_method = g.hits.iter().any(|(_, h)| h.unsafe_method);
            let declared = g.hits.iter().find_map(|(_, h)| h.declared.clone());
            let mut reasons: Vec<String> = Vec::new();
            if unsafe_method {
                let methods = method_list(
                    g.hits
                        .iter()
                        .filter(|(_, h)| h.unsafe_method)
                        .map(|(_, h)| h.status),
                );
                reasons.push(format!("its method {methods} is not safe"));
            }
            if let Some((effect, _)) = &declared {
                reasons.push(format!("it is declared `{}`", effect.as_str()));
            }
            let params = distinct(g.hits.iter().flat_map(|(_, h)| &h.unknowable));
            if !params.is_empty() {
                let list = join_and(
                    &params
                        .iter()
                        .map(|p| format!("`{{{p}}}`"))
                        .collect::<Vec<_>>(),
                );
                let (whose, verb) = if ops.len() == 1 {
                    ("the polled operation", "sends")
                } else {
                    ("the polled operations", "send")
                };
                reasons.push(format!("its path needs {list}, which {whose} never {verb}"));
            }
            let status_names = join_and(
                &statuses
                    .iter()
                    .map(|s| format!("`{}`", s.display()))
                    .collect::<Vec<_>>(),
            );
            let mut d = Diagnostic::new(
                &META,
                format!(
                    "the status endpoint {status_names} of {}{} cannot report the outcome of an attempt: {}",
                    operation_list(&ops),
                    layer_phrase(first.layer),
                    join_and(&reasons)
                ),
                g.at.location(),
                "status endpoint named here",
            );
            for status in &statuses {
                d = with_label_once(d, status.key.location(), "status operation");
            }
            if let Some((effect, at)) = &declared {
                d = with_label_once(d, at.location(), format!("declared `{}`", effect.as_str()));
            }
            for status in &statuses {
                for p in &params {
                    if let Some(param) = status
                        .params
                        .iter()
                        .find(|q| q.location == "path" && &&q.name == p)
                    {
                        d = with_label_once(d, param.at.location(), "unknown before a response");
                    }
                }
            }
            let mut help: Vec<&str> = Vec::new();
            if unsafe_method || declared.is_some() {
                help.push("point `status_endpoint` at a safe operation (`GET`) that changes nothing");
            }
            if !params.is_empty() {
                help.push("address it by what the client sent (its idempotency key or a client-generated id it passes as a request parameter), not by an id from the lost response");
            }
            let d = d.with_help(help.join("; "));
            label_operations(d, &ops, |_| "polled operation".into())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_compare_loosely() {
        assert_eq!(normalize_name("requestId"), "requestid");
        assert_eq!(normalize_name("X-Request-ID"), "requestid");
        assert_eq!(normalize_name("request_id"), "requestid");
        assert_ne!(normalize_name("orderId"), normalize_name("requestId"));
    }

    #[test]
    fn template_params_in_order() {
        assert_eq!(
            template_params("/a/{x}/b/{y}.json/{x}"),
            vec!["x".to_string(), "y".to_string()]
        );
        assert!(template_params("/a/b").is_empty());
    }
}
