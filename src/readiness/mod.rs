//! The per-endpoint readiness matrix: for every operation, its answers to the four
//! readiness questions of docs/domain.md, the findings on it, and a verdict.
//!
//! Verdict (issue "readiness matrix"): `not-ready` when the operation has an error or
//! warning finding, or is retried with one of the four answers missing; `ready` when
//! it is retried and neither holds; `not-retried` otherwise. An answer is missing
//! when: Q2 no basis holds (`safety` empty); Q3 `attempts` or `deadline` is absent;
//! Q4 a non-idempotent operation has no `on_unknown_result` (a safe or idempotent
//! operation may simply be resent, so Q4 is answered by its effect). Q1 is always
//! answered: declared, or derived from the method (RFC 9110 §9.2).

pub mod composed;
pub mod render;

use crate::analysis::{EffectivePolicy, JoinedOperation};
use crate::check::Analyzed;
use crate::diagnostic::{Diagnostic, Severity};
use crate::openapi::model::{Document, Operation};
use crate::policy::model::{AttemptTimeout, Effect};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

/// The JSON format version of `readiness --format json`.
pub const VERSION: u32 = 1;

/// Well-known idempotency-key header names (case-insensitive; IETF draft and Azure).
pub const KEY_HEADERS: [&str; 3] = crate::retry::KEY_HEADERS;

/// The key header as the spec declares it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct KeyHeader {
    /// Header name as written in the spec.
    pub header: String,
    /// `required: true` in the spec.
    pub required: bool,
}

/// `retry_after` settings of a layer.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RetryAfterRow {
    /// `honor` (null: unstated).
    pub honor: Option<bool>,
    /// `max` in ms (null: unbounded).
    pub max_ms: Option<f64>,
    /// `on_invalid` (null: unstated).
    pub on_invalid: Option<String>,
}

/// One layer's effective settings (ms for every duration).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LayerRow {
    /// `client`, `gateway` or `mesh`.
    pub layer: String,
    /// Retried on this layer (retry true, signals present, attempts absent or > 1).
    pub retried: bool,
    /// `retry_on` as written.
    pub retry_on: Vec<String>,
    /// Total attempts including the first.
    pub attempts: Option<i64>,
    /// Budget of the whole operation.
    pub deadline_ms: Option<f64>,
    /// `attempt_timeout`: `remaining` or a duration in ms.
    pub attempt_timeout: String,
    /// Backoff base.
    pub base_ms: Option<f64>,
    /// Backoff cap.
    pub cap_ms: Option<f64>,
    /// Backoff multiplier.
    pub multiplier: f64,
    /// Jitter variant (null: absent).
    pub jitter: Option<String>,
    /// Retry-After handling.
    pub retry_after: RetryAfterRow,
    /// Q4 strategy.
    pub on_unknown_result: Option<String>,
}

/// One operation's row.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Row {
    /// Upper-case method.
    pub method: String,
    /// Path template.
    pub path: String,
    /// `operationId`.
    pub operation_id: Option<String>,
    /// The path this row judges when the operation has several (alternative callers,
    /// Spring profiles, Istio entry paths; `layers.md` "Variants and entry paths"):
    /// its variants' labels (``client `a.py` ``, ``entry path: mesh``); absent for an
    /// operation with one path. Each path is a row of its own, with its own product.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// The document (display path).
    pub file: String,
    /// Q1: `safe`, `idempotent` or `non-idempotent`.
    pub effect: String,
    /// Q1: declared in a policy or `x-retry` (else derived from the method).
    pub effect_declared: bool,
    /// Q2: the bases that hold: `idempotent-method`, `idempotency-key`,
    /// `status-endpoint`, and `never-processed` (every retrying layer repeats the
    /// request only on signals that prove it was never processed: the table of
    /// `retry::signals`; a `methods` filter that leaves the method out counts).
    pub safety: Vec<String>,
    /// Q2: the key header as the spec declares it.
    pub idempotency_key: Option<KeyHeader>,
    /// Q3: retried by any layer.
    pub retried: bool,
    /// Q3: signals of the main layer: the client when it retries, else the
    /// outermost layer that retries, else the client or the only layer.
    pub retry_on: Vec<String>,
    /// Q3: attempts of the main layer (see `retry_on`); never the client's for an
    /// operation only another layer retries.
    pub attempts: Option<i64>,
    /// Q3: deadline of the main layer (see `retry_on`), ms.
    pub deadline_ms: Option<f64>,
    /// Q4: strategy of the main layer (see `retry_on`).
    pub on_unknown_result: Option<String>,
    /// Every layer that applies.
    pub layers: Vec<LayerRow>,
    /// Product of attempts across the layers that retry it (absent attempts count 1).
    pub amplification: i64,
    /// Codes of the findings on this operation, sorted, unique.
    pub findings: Vec<String>,
    /// `ready`, `not-ready`, `not-retried`, or `unknown`: no layer bound to it
    /// retries it, but a retrying route of a config that bound no operation may
    /// carry it (its host could not be tied to a spec; see `unbound_layers`).
    pub verdict: String,
    /// For an `unknown` verdict: the retrying routes of unbound configs that may
    /// carry the operation (`Istio VirtualService ledger at deploy/vs.yaml:10:7`);
    /// absent otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unbound_layers: Vec<String>,
    /// Which answers are missing (`Q2`, `Q3`, `Q4`), for retried operations.
    pub missing: Vec<String>,
    /// The layers as one chain: total attempts, worst case, protection.
    pub composed: composed::Composed,
}

/// The whole matrix.
#[derive(Debug, Clone, Serialize)]
pub struct Matrix {
    /// Format version (1).
    pub version: u32,
    /// One row per operation, in document order.
    pub operations: Vec<Row>,
}

impl Matrix {
    /// Counts of each verdict: (ready, not-ready, not-retried).
    pub fn verdict_counts(&self) -> (usize, usize, usize) {
        let count = |v: &str| self.operations.iter().filter(|r| r.verdict == v).count();
        (count("ready"), count("not-ready"), count("not-retried"))
    }

    /// Rows with the `unknown` verdict (an unbound retry layer may apply).
    pub fn unknown_count(&self) -> usize {
        self.operations
            .iter()
            .filter(|r| r.verdict == "unknown")
            .count()
    }
}

fn kebab<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

fn layer_row(p: &EffectivePolicy) -> LayerRow {
    LayerRow {
        layer: p.layer.as_str().to_string(),
        retried: p.is_retried(),
        retry_on: p
            .retry_on
            .as_ref()
            .map(|r| r.value.iter().map(|s| s.value.to_string()).collect())
            .unwrap_or_default(),
        attempts: p.attempts.as_ref().map(|a| a.value),
        deadline_ms: p.deadline.as_ref().map(|d| d.value),
        attempt_timeout: match p.attempt_timeout.value {
            AttemptTimeout::Remaining => "remaining".to_string(),
            AttemptTimeout::Fixed(ms) => format!("{ms}ms"),
        },
        base_ms: p.backoff.base.as_ref().map(|b| b.value),
        cap_ms: p.backoff.cap.as_ref().map(|c| c.value),
        multiplier: p.backoff.multiplier.value,
        jitter: p.backoff.jitter.as_ref().map(|j| kebab(&j.value)),
        retry_after: RetryAfterRow {
            honor: p.retry_after.honor.as_ref().map(|h| h.value),
            max_ms: p.retry_after.max.as_ref().map(|m| m.value),
            on_invalid: p.retry_after.on_invalid.as_ref().map(|o| kebab(&o.value)),
        },
        on_unknown_result: p.on_unknown_result.as_ref().map(|u| kebab(&u.value)),
    }
}

/// The key header the spec declares: one the policy names, else a well-known name.
fn declared_key(op: &Operation, policy_headers: &[&str]) -> Option<KeyHeader> {
    policy_headers
        .iter()
        .chain(KEY_HEADERS.iter())
        .find_map(|name| op.header_param(name))
        // A header the handler requires and de-duplicates on (read from server
        // code: eShop's `x-requestid`), as RL201 credits it.
        .or_else(|| {
            op.params
                .iter()
                .find(|p| p.handler_key && p.location == "header")
        })
        .map(|p| KeyHeader {
            header: p.name.clone(),
            required: p.required,
        })
}

/// The idempotency key a retrying layer carries in the request body (AIP-155
/// `request_id` of a gRPC request message), as RL201 credits it.
fn request_field_key(j: &JoinedOperation) -> Option<KeyHeader> {
    j.layers
        .iter()
        .filter(|p| p.is_retried() && p.idempotency_key.in_request)
        .find_map(|p| p.idempotency_key.header.as_ref())
        .map(|h| KeyHeader {
            header: h.value.clone(),
            required: true,
        })
}

/// The diagnostics of a run indexed by what decides whether one concerns an
/// operation: the operations it names (with their documents) and the places it
/// points at. An operation then looks up the few that may concern it
/// instead of testing every diagnostic (each test built the operation key's JSON
/// Pointer): 8,000 operations with as many findings made the matrix, and so `report
/// --format html`, quadratic (case 85).
struct Concerning<'d> {
    diagnostics: &'d [Diagnostic],
    /// Operation display (`POST /a`) → (diagnostic, its document when it names one).
    named: HashMap<&'d str, Vec<(usize, Option<&'d Path>)>>,
    /// (file, span start, span end) of a primary or secondary label → diagnostics.
    located: HashMap<(&'d Path, usize, usize), Vec<usize>>,
}

impl<'d> Concerning<'d> {
    fn new(diagnostics: &'d [Diagnostic]) -> Concerning<'d> {
        let mut named: HashMap<&'d str, Vec<(usize, Option<&'d Path>)>> = HashMap::new();
        let mut located: HashMap<(&'d Path, usize, usize), Vec<usize>> = HashMap::new();
        for (i, d) in diagnostics.iter().enumerate() {
            for (o, doc) in d.operations.iter().zip(&d.operation_documents) {
                named
                    .entry(o.as_str())
                    .or_default()
                    .push((i, doc.as_ref().map(|f| f.path.as_path())));
            }
            for l in std::iter::once(&d.primary).chain(d.labels.iter()) {
                let at = &l.location;
                located
                    .entry((at.file.path.as_path(), at.span.start, at.span.end))
                    .or_default()
                    .push(i);
            }
        }
        Concerning {
            diagnostics,
            named,
            located,
        }
    }

    /// The diagnostics that concern `op` (shown as `display`), in run order, once
    /// each: those naming the operation among their operations (in `op`'s document,
    /// when they say which), and those with a location on the operation's method key.
    fn of(&self, op: &Operation, display: &str) -> Vec<&'d Diagnostic> {
        let document = op.key.doc.file.path.as_path();
        let mut hits: Vec<usize> = self
            .named
            .get(display)
            .into_iter()
            .flatten()
            .filter(|(_, doc)| doc.is_none_or(|doc| doc == document))
            .map(|(i, _)| *i)
            .collect();
        let key = op.key.location();
        if let Some(at) = self
            .located
            .get(&(key.file.path.as_path(), key.span.start, key.span.end))
        {
            hits.extend(at);
        }
        hits.sort_unstable();
        hits.dedup();
        hits.into_iter().map(|i| &self.diagnostics[i]).collect()
    }
}

fn row(
    j: &JoinedOperation,
    analysis: &crate::analysis::Analysis,
    documents: &[Document],
    concerning: &Concerning<'_>,
    variant_origins: &VariantOrigins<'_>,
    unbound_routes: &[crate::import::bind::UnboundRoute],
) -> Row {
    let op = j.resolve(documents);
    let display = op.display();
    // The client layer answers for the operation when it retries it; else the
    // outermost layer that retries it (its own budget, never the client's for an
    // operation only a gateway or mesh retries); else the client or the only layer.
    let client = j.layer(crate::policy::model::Layer::Client);
    let main = client
        .filter(|p| p.is_retried())
        .or_else(|| j.layers.iter().find(|p| p.is_retried()))
        .or(client)
        .or_else(|| j.layers.first());
    let effect = main.map_or_else(
        || Effect::from_openapi_method(&op.method),
        |p| p.effective_effect(),
    );
    // Inferred from the endpoint's own semantics (a gRPC method's AIP kind) is
    // not declared.
    let effect_declared = main.is_some_and(|p| {
        p.effect.at.is_some() && p.effect.source != crate::analysis::Source::Inferred
    });
    let policy_headers: Vec<&str> = j
        .layers
        .iter()
        .filter_map(|p| p.dedup_key_header().map(|h| h.value.as_str()))
        .collect();
    let handler_key = op
        .params
        .iter()
        .any(|p| p.handler_key && p.location == "header");
    let in_request = request_field_key(j);
    let idempotency_key = declared_key(op, &policy_headers).or_else(|| in_request.clone());
    let retried = j.layers.iter().any(|p| p.is_retried());
    let mut safety = Vec::new();
    if effect != Effect::NonIdempotent {
        safety.push("idempotent-method".to_string());
    }
    // A key protects only when the spec declares it and it reaches a layer that
    // retries (declared by that layer or an outer one, or required by the spec: the
    // join's protection, as RL201 sees it); a correlation header (`X-Request-ID`)
    // is never a key.
    let key_sent = j
        .layers
        .iter()
        .filter(|p| p.is_retried())
        .any(|p| j.key_reaches(p.layer, op));
    let declared_key_is_real = idempotency_key.as_ref().is_some_and(|k| {
        handler_key || in_request.is_some() || !crate::retry::is_correlation_header(&k.header)
    });
    if (key_sent || handler_key || in_request.is_some() || !retried) && declared_key_is_real {
        safety.push("idempotency-key".to_string());
    }
    // Checking a status is client behaviour (a proxy's `check-status` is RL403).
    if client.is_some_and(|p| p.checks_status()) {
        safety.push("status-endpoint".to_string());
    }
    // Retried only on signals that prove the request never reached the server
    // (`retry::signals::SIGNALS`; `unsafe_signals` also applies each layer's
    // `methods` filter): a repeat cannot duplicate anything.
    if retried
        && j.layers
            .iter()
            .filter(|p| p.is_retried())
            .all(|p| p.unsafe_signals().is_empty())
    {
        safety.push("never-processed".to_string());
    }
    let mut concern = concerning.of(op, &display);
    if let Some(all) = variant_origins.get(&j.op_ref()) {
        // A finding about another path's own layer (another caller, profile or entry
        // path) is not this path's.
        let mine: HashSet<(&Path, usize, usize)> =
            j.layers.iter().flat_map(EffectivePolicy::origins).collect();
        concern.retain(|d| {
            let l = &d.primary.location;
            let k = (l.file.path.as_path(), l.span.start, l.span.end);
            mine.contains(&k) || !all.contains(&k)
        });
    }
    let findings: BTreeSet<String> = concern.iter().map(|d| d.code.to_string()).collect();
    let serious = concern.iter().any(|d| d.severity >= Severity::Warning);
    let layers: Vec<LayerRow> = j.layers.iter().map(layer_row).collect();
    let amplification = j
        .layers
        .iter()
        .filter(|p| p.is_retried())
        .map(|p| p.attempts.as_ref().map_or(1, |a| a.value.max(1)))
        .fold(1i64, i64::saturating_mul);
    let main_row = main.map(layer_row);
    let mut missing = Vec::new();
    if retried {
        if safety.is_empty() {
            missing.push("Q2".to_string());
        }
        let budget = main_row
            .as_ref()
            .is_some_and(|l| l.attempts.is_some() && l.deadline_ms.is_some());
        if !budget {
            missing.push("Q3".to_string());
        }
        let q4 = effect != Effect::NonIdempotent
            || main_row
                .as_ref()
                .is_some_and(|l| l.on_unknown_result.is_some());
        if !q4 {
            missing.push("Q4".to_string());
        }
    }
    // Not retried by what bound to it; a retrying route retrylint could not tie to
    // a spec may still carry it (issue 42: "unknown", never a confident "not
    // retried").
    let unbound_layers: Vec<String> = if retried || serious {
        Vec::new()
    } else {
        unbound_routes
            .iter()
            .filter(|u| u.may_carry(&op.method, &op.path))
            .map(|u| format!("{} at {}", u.source, u.at.location().position()))
            .collect()
    };
    let verdict = if serious || (retried && !missing.is_empty()) {
        "not-ready"
    } else if retried {
        "ready"
    } else if !unbound_layers.is_empty() {
        "unknown"
    } else {
        "not-retried"
    };
    Row {
        method: op.method.to_ascii_uppercase(),
        path: op.path.clone(),
        operation_id: op.operation_id.clone(),
        variant: j.path_label(),
        file: documents[j.document].doc.file.display.clone(),
        effect: kebab(&effect),
        effect_declared,
        safety,
        idempotency_key,
        retried,
        retry_on: main_row
            .as_ref()
            .map(|l| l.retry_on.clone())
            .unwrap_or_default(),
        attempts: main_row.as_ref().and_then(|l| l.attempts),
        deadline_ms: main_row.as_ref().and_then(|l| l.deadline_ms),
        on_unknown_result: main_row.as_ref().and_then(|l| l.on_unknown_result.clone()),
        layers,
        amplification,
        findings: findings.into_iter().collect(),
        verdict: verdict.to_string(),
        unbound_layers,
        missing,
        composed: composed::composed(j, analysis, documents),
    }
}

/// For each operation with several paths: where the values of its variant layers
/// (callers, profiles, entry paths) were read, over every path.
type VariantOrigins<'a> = HashMap<crate::analysis::OpRef, HashSet<(&'a Path, usize, usize)>>;

fn variant_origins(analysis: &crate::analysis::Analysis) -> VariantOrigins<'_> {
    let mut out: VariantOrigins<'_> = HashMap::new();
    for j in analysis.operations.iter().filter(|j| j.paths > 1) {
        let set = out.entry(j.op_ref()).or_default();
        for l in j.layers.iter().filter(|l| {
            l.policy
                .and_then(|p| analysis.policies.get(p))
                .and_then(|p| p.imported.as_ref())
                .is_some_and(|i| i.variant.is_some())
        }) {
            set.extend(l.origins());
        }
    }
    out
}

/// Builds the matrix from the analysed run and its (rule) findings.
pub fn matrix(analyzed: &Analyzed, diagnostics: &[Diagnostic]) -> Matrix {
    let concerning = Concerning::new(diagnostics);
    let variant_origins = variant_origins(&analyzed.analysis);
    Matrix {
        version: VERSION,
        // A run asked about named files shows the operations they declare or reach.
        operations: analyzed
            .analysis
            .operations
            .iter()
            .enumerate()
            .filter(|(i, _)| {
                analyzed
                    .asked_operations
                    .as_ref()
                    .is_none_or(|asked| asked.get(*i).copied().unwrap_or(false))
            })
            .map(|(_, j)| {
                row(
                    j,
                    &analyzed.analysis,
                    &analyzed.documents,
                    &concerning,
                    &variant_origins,
                    &analyzed.unbound_routes,
                )
            })
            .collect(),
    }
}
