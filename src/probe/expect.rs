//! The expectations of one operation: its effective client policy (loaded as `check`
//! loads it: written policies, imported retry configs, retries in code), its effect,
//! its declared idempotency-key header, and the bounds the judge uses.

use super::judge::Expectations;
use crate::analysis::{governed_candidates, EffectivePolicy};
use crate::check::Analyzed;
use crate::policy::model::Layer;
use crate::policy::selector::{did_you_mean, Selector};
use crate::policy_view::decision_view;
use crate::retry::{Effect, EffectivePolicyView};

/// The operation a probe runs against, as the loaded files describe it.
#[derive(Debug, Clone, PartialEq)]
pub struct Operation {
    /// `POST /orders` (from the spec), or the selector as given without one.
    pub name: String,
    /// Upper-case method, when known.
    pub method: Option<String>,
    /// The effective policy of its outermost layer (the client's when one applies),
    /// as the decision sees it.
    pub policy: Option<EffectivePolicyView>,
    /// Where that policy comes from (`retry-policy.yaml`, `Istio VirtualService x`).
    pub policy_source: Option<String>,
    /// The idempotency-key header the policy names (not a correlation header).
    pub key_header: Option<String>,
}

/// Finds `selector` among the operations of `analyzed`. With no OpenAPI document
/// at all, the operation stands alone (the method from a `METHOD /path` selector, no
/// policy): the safety checks still run. Errors are sentences (matches nothing, or
/// several operations).
pub fn find_operation(analyzed: &Analyzed, text: &str) -> Result<Operation, String> {
    let selector = Selector::parse(text).map_err(|e| format!("bad operation `{text}`: {e}"))?;
    let documents = &analyzed.documents;
    let matched: Vec<_> = analyzed
        .analysis
        .operations
        .iter()
        .filter(|j| {
            let op = j.resolve(documents);
            selector.matches(&op.method, &op.path, op.operation_id.as_deref())
        })
        .collect();
    match matched.as_slice() {
        [] if documents.is_empty() => standalone(text),
        [] => {
            let all: Vec<usize> = (0..documents.len()).collect();
            let hint = did_you_mean(text, &governed_candidates(documents, &all))
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            Err(format!("`{text}` matches no operation{hint}"))
        }
        [one] => {
            let op = one.resolve(documents);
            let layer: Option<&EffectivePolicy> =
                one.layer(Layer::Client).or_else(|| one.layers.first());
            let source =
                layer.map(
                    |l| match l.policy.and_then(|i| analyzed.analysis.policies.get(i)) {
                        Some(p) => match &p.imported {
                            Some(i) => i.source.clone(),
                            None => p.doc.file.display.clone(),
                        },
                        None => format!(
                            "inline x-retry of {}",
                            documents[one.document].doc.file.display
                        ),
                    },
                );
            Ok(Operation {
                name: op.display(),
                method: Some(op.method.to_ascii_uppercase()),
                policy: layer.map(decision_view),
                policy_source: source,
                key_header: layer
                    .and_then(|l| l.dedup_key_header())
                    .map(|h| h.value.clone()),
            })
        }
        many => Err(format!(
            "`{text}` matches {} operations ({}); name one by its operationId",
            many.len(),
            many.iter()
                .map(|j| j.resolve(documents).display())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// The operation without any loaded file: the method from a `METHOD /path`
/// selector, no policy (the safety checks alone). Errors are sentences.
pub fn standalone(text: &str) -> Result<Operation, String> {
    let selector = Selector::parse(text).map_err(|e| format!("bad operation `{text}`: {e}"))?;
    Ok(Operation {
        name: text.to_string(),
        method: match &selector {
            Selector::Path { method, .. } => method.clone(),
            _ => None,
        },
        policy: None,
        policy_source: None,
        key_header: None,
    })
}

/// The judge's expectations for `op`: the deadline is the policy's, else
/// `deadline_flag`; the wait bound the policy's `retry_after.max`, else its
/// deadline, else `wait_bound_flag`. Times in ms.
pub fn expectations(
    op: &Operation,
    deadline_flag: Option<f64>,
    wait_bound_flag: f64,
    epsilon_ms: f64,
    grace_ms: f64,
) -> Expectations {
    let policy = op.policy.clone();
    let effect = match &policy {
        Some(p) => p.effect,
        None => op
            .method
            .as_deref()
            .map(Effect::from_method)
            .unwrap_or(Effect::NonIdempotent),
    };
    let deadline_ms = policy
        .as_ref()
        .and_then(|p| p.deadline_ms)
        .or(deadline_flag);
    let wait_bound_ms = policy
        .as_ref()
        .and_then(|p| p.retry_after.max_ms)
        .or(deadline_ms)
        .unwrap_or(wait_bound_flag);
    Expectations {
        non_idempotent: !effect.is_repeatable(),
        key_header: op.key_header.clone(),
        policy,
        deadline_ms,
        wait_bound_ms,
        epsilon_ms,
        grace_ms,
    }
}

/// The header names the server reads as the idempotency key, lower case: the
/// declared one first, then the well-known ones (`retry::KEY_HEADERS`).
pub fn key_headers(op: &Operation) -> Vec<String> {
    let mut v: Vec<String> = op
        .key_header
        .iter()
        .map(|h| h.to_ascii_lowercase())
        .collect();
    for k in crate::retry::KEY_HEADERS {
        let k = k.to_ascii_lowercase();
        if !v.contains(&k) {
            v.push(k);
        }
    }
    v
}
