//! The `composed` part of a readiness row: the operation's layers as one chain
//! (`layers.md` "Composition across layers"): total attempts (the product, or the
//! budget bound under load), the chain's worst case, and which layers are protected.

use crate::analysis::composition;
use crate::analysis::{Analysis, JoinedOperation};
use crate::openapi::model::Document;
use serde::{Serialize, Serializer};

/// One layer of the chain: its kind and where its settings come from.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ChainLayer {
    /// `client`, `gateway` or `mesh`.
    pub kind: String,
    /// The policy file of that layer (display path), else the OpenAPI document
    /// whose inline `x-retry` sets it.
    pub source: String,
}

/// The whole chain of one operation.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Composed {
    /// Every layer that applies, outermost (client) first.
    pub layers: Vec<ChainLayer>,
    /// Attempts reaching the upstream for one request: the product of every layer's
    /// attempts, or, when a budget bounds it, the bound under load (a number, e.g.
    /// `3.6`).
    #[serde(serialize_with = "number")]
    pub attempts_total: f64,
    /// A ratio budget or token bucket bounds `attempts_total` under load.
    pub attempts_bound_by_budget: bool,
    /// The chain's worst-case time, ms; null when unbounded.
    pub worst_case_ms: Option<f64>,
    /// Layers an idempotency key reaches (declared by the layer or one outside it,
    /// or required by the spec), and the client when it checks a status endpoint.
    pub protected_layers: Vec<String>,
    /// Layers of a non-idempotent operation that retry on a possibly processed
    /// signal, or hedge, and are not protected.
    pub unprotected_layers: Vec<String>,
}

/// An integral number as an integer (`9`, not `9.0`), else with at most 3 decimals.
fn number<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        s.serialize_i64(*x as i64)
    } else {
        s.serialize_f64((x * 1000.0).round() / 1000.0)
    }
}

/// The chain of `j`.
pub fn composed(j: &JoinedOperation, analysis: &Analysis, documents: &[Document]) -> Composed {
    let layers = j
        .layers
        .iter()
        .map(|p| ChainLayer {
            kind: p.layer.as_str().to_string(),
            source: match p.policy.and_then(|i| analysis.policies.get(i)) {
                Some(pf) => pf.doc.file.display.clone(),
                None => documents[j.document].doc.file.display.clone(),
            },
        })
        .collect();
    let total = composition::attempts(j);
    // Protection travels with the request (`JoinedOperation::protection`, as RL201
    // sees it): a key the client declares or the spec requires reaches the gateway
    // and the mesh too; a status check protects the client only. Hedged copies need
    // a key (RL207).
    let op = j.resolve(documents);
    let protection = |p: &crate::analysis::EffectivePolicy| j.protection(p.layer, op);
    let protected_layers = j
        .layers
        .iter()
        .filter(|p| protection(p).is_some())
        .map(|p| p.layer.as_str().to_string())
        .collect();
    let unprotected_layers = j
        .layers
        .iter()
        .filter(|p| {
            let hedged = p.hedging.as_ref().is_some_and(|h| h.value.sends_copies());
            let resends = p.is_retried() && !p.unsafe_signals().is_empty();
            let reached = protection(p);
            p.is_non_idempotent()
                && ((resends && reached.is_none())
                    || (hedged && !reached.is_some_and(|r| r.is_key())))
        })
        .map(|p| p.layer.as_str().to_string())
        .collect();
    Composed {
        layers,
        attempts_total: total.total(),
        attempts_bound_by_budget: total.bound_by_budget,
        worst_case_ms: composition::worst_case_ms(j),
        protected_layers,
        unprotected_layers,
    }
}

/// The human cell: `9 x, 6.3s`, `3.6 x (budget), unbounded`, `-` for an operation no
/// layer applies to.
pub fn cell(c: &Composed) -> String {
    if c.layers.is_empty() {
        return "-".to_string();
    }
    let budget = if c.attempts_bound_by_budget {
        " (budget)"
    } else {
        ""
    };
    let worst = c.worst_case_ms.map_or_else(
        || "unbounded".to_string(),
        crate::policy::duration::format_millis,
    );
    format!(
        "{} x{budget}, {worst}",
        crate::retry::format_factor(c.attempts_total)
    )
}
