//! The join: for each operation, its effective retry settings per layer, each field
//! remembering where it came from (file and node).
//!
//! For one operation and one layer each field takes the first value found in
//! ([`Source`], most specific first):
//! 1. the most specific matching `operations` entry of the policy file of that layer;
//! 2. the operation's inline `x-retry` (if its `layer`, default client, is that layer);
//! 3. the policy file's `defaults`;
//! 4. the document root's inline `x-retry` (same layer rule);
//! 5. the built-in default (`retry: false`, `effect` from the method,
//!    `attempt_timeout: remaining`, `backoff.multiplier: 2`).
//!
//! Mappings (`backoff`, `retry_after`, `idempotency_key`) combine key by key; lists
//! (`retry_on`) replace. An operation gets an [`EffectivePolicy`] for a layer only
//! when something of that layer applies to it (a governing policy file or an inline
//! `x-retry`); an operation nothing applies to has no layers.
//!
//! Across layers (layers.md "What the model gains"): `effect` is the endpoint's, so
//! after the join every layer of an operation holds the least safe effect any of its
//! layers declares ([`JoinedOperation::declared_effects`]); and an idempotency key
//! travels with the request ([`JoinedOperation::protection`]).

pub mod composition;
pub mod rl006_unknown_operation;

use crate::diagnostic::Diagnostic;
use crate::openapi::model::{Document, Operation};
use crate::policy::duration::Millis;
use crate::policy::model::*;
use crate::policy::parse::parse_x_retry;
use crate::policy::rl005_invalid_policy;
use crate::policy::selector::{did_you_mean, Candidate, Rank, Selector};
use crate::source::refs::{normalize, At};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Where an effective value came from, most specific first (so `a < b` means `a` is
/// more specific).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// The most specific matching `operations` entry of the policy file.
    Entry,
    /// The operation's inline `x-retry`.
    OperationXRetry,
    /// The policy file's `defaults`.
    Defaults,
    /// The document root's inline `x-retry`.
    RootXRetry,
    /// Inferred by an imported config from the endpoint's own semantics (a gRPC
    /// RPC's `idempotency_level` or AIP method kind): `effect` only, never a
    /// declaration.
    Inferred,
    /// The built-in default (no node).
    BuiltIn,
}

/// One effective value and its origin.
#[derive(Debug, Clone)]
pub struct Field<T> {
    /// The value.
    pub value: T,
    /// The node it was read from; `None` for a built-in default.
    pub at: Option<At>,
    /// Which level it came from.
    pub source: Source,
}

impl<T> Field<T> {
    fn builtin(value: T) -> Field<T> {
        Field {
            value,
            at: None,
            source: Source::BuiltIn,
        }
    }
}

/// Effective `idempotency_key`, combined key by key.
#[derive(Debug, Clone, Default)]
pub struct EffectiveKey {
    /// The most specific `idempotency_key` mapping that contributes.
    pub at: Option<At>,
    /// Header name.
    pub header: Option<Field<String>>,
    /// Retention (ms).
    pub retention: Option<Field<Millis>>,
    /// Scope.
    pub scope: Option<Field<String>>,
    /// `on_payload_mismatch`.
    pub on_payload_mismatch: Option<Field<PayloadMismatch>>,
    /// `on_concurrent`.
    pub on_concurrent: Option<Field<Concurrent>>,
    /// The key is a request field (AIP-155 `request_id`), not a header.
    pub in_request: bool,
}

/// Effective `backoff`, combined key by key.
#[derive(Debug, Clone)]
pub struct EffectiveBackoff {
    /// The most specific `backoff` mapping that contributes.
    pub at: Option<At>,
    /// Base (ms).
    pub base: Option<Field<Millis>>,
    /// Cap (ms).
    pub cap: Option<Field<Millis>>,
    /// Multiplier (built-in default 2).
    pub multiplier: Field<f64>,
    /// Jitter.
    pub jitter: Option<Field<Jitter>>,
}

/// Effective `retry_after`, combined key by key.
#[derive(Debug, Clone, Default)]
pub struct EffectiveRetryAfter {
    /// The most specific `retry_after` mapping that contributes.
    pub at: Option<At>,
    /// `honor`.
    pub honor: Option<Field<bool>>,
    /// `max` (ms).
    pub max: Option<Field<Millis>>,
    /// `on_invalid`.
    pub on_invalid: Option<Field<OnInvalid>>,
    /// `on_above_max` (absent: `stop`).
    pub on_above_max: Option<Field<OnInvalid>>,
}

/// An operation by position: `documents[document].operations[operation]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpRef {
    /// Index into the documents of the run.
    pub document: usize,
    /// Index into that document's `operations`.
    pub operation: usize,
}

/// The effective settings of one operation in one layer.
#[derive(Debug, Clone)]
pub struct EffectivePolicy {
    /// The layer.
    pub layer: Layer,
    /// The policy file of this layer governing the operation (index into
    /// [`Analysis::policies`]), if any.
    pub policy: Option<usize>,
    /// The matching `operations` entry of that policy (index into its `operations`).
    pub entry: Option<usize>,
    /// `retry` (built-in false).
    pub retry: Field<bool>,
    /// `effect` (built-in: from the method).
    pub effect: Field<Effect>,
    /// `idempotency_key`.
    pub idempotency_key: EffectiveKey,
    /// `status_endpoint`.
    pub status_endpoint: Option<Field<Selector>>,
    /// The operation `status_endpoint` resolves to (same document first).
    pub status_operation: Option<OpRef>,
    /// `on_unknown_result`.
    pub on_unknown_result: Option<Field<UnknownResult>>,
    /// `attempts`.
    pub attempts: Option<Field<i64>>,
    /// `deadline` (ms).
    pub deadline: Option<Field<Millis>>,
    /// `attempt_timeout` (built-in `remaining`).
    pub attempt_timeout: Field<AttemptTimeout>,
    /// `backoff`.
    pub backoff: EffectiveBackoff,
    /// `retry_on` (a list: the most specific one replaces the others).
    pub retry_on: Option<Field<Vec<Spanned<Signal>>>>,
    /// `retry_after`.
    pub retry_after: EffectiveRetryAfter,
    /// Misspelled keys of every mapping that applies (most specific first): what
    /// the author meant to set. See [`EffectivePolicy::is_misspelled`].
    pub misspelled: Vec<Misspelled>,
    /// `methods`: the methods this layer retries after a request was sent (a list:
    /// the most specific one replaces the others); absent: every method.
    pub methods: Option<Field<Vec<Spanned<String>>>>,
    /// The operation's HTTP method, upper-case (what `methods` is compared with).
    pub method: String,
    /// The operation is a gRPC call in this layer (an imported gRPC service config
    /// binds it), so gRPC status signals can fire (`layers.md` "Binding" 4).
    pub grpc_bound: bool,
    /// `budget` (a mapping that replaces: one shape, taken whole).
    pub budget: Option<Field<RetryBudget>>,
    /// `hedging` (taken whole).
    pub hedging: Option<Field<Hedging>>,
    /// Where an imported config switched the deadline off (Envoy `timeout: 0s`), when
    /// no source sets a `deadline`: RL301 points there.
    pub deadline_off: Option<At>,
}

impl EffectivePolicy {
    /// True when `key` (a dotted path such as `attempts` or `backoff.jitter`), or the
    /// mapping holding it (`backoff`), is misspelled in a mapping that applies to
    /// this operation, or has a value there that was rejected (see [`Misspelled`]).
    /// A rule that reports "`key` is missing" skips the operation then: the typo or
    /// bad value is reported once (RL005), not again as a missing setting on every
    /// operation it would have covered.
    pub fn is_misspelled(&self, key: &str) -> bool {
        self.misspelled.iter().any(|m| {
            m.intended == key
                || key
                    .strip_prefix(m.intended.as_str())
                    .is_some_and(|rest| rest.starts_with('.'))
        })
    }

    /// Retried: `retry` true, `retry_on` not empty, `attempts` absent or above 1.
    pub fn is_retried(&self) -> bool {
        self.retry.value
            && self.retry_on.as_ref().is_some_and(|r| !r.value.is_empty())
            && self.attempts.as_ref().is_none_or(|a| a.value > 1)
    }

    /// The effective effect (declared, else from the method).
    pub fn effective_effect(&self) -> Effect {
        self.effect.value
    }

    /// True when the effective effect is non-idempotent.
    pub fn is_non_idempotent(&self) -> bool {
        self.effect.value == Effect::NonIdempotent
    }

    /// The idempotency-key header the client sends, if any.
    pub fn key_header(&self) -> Option<&Field<String>> {
        self.idempotency_key.header.as_ref()
    }

    /// The key header when it can de-duplicate: named, and not a correlation header
    /// such as `X-Request-ID` (which only links attempts in logs; RL206, docs/domain.md).
    pub fn dedup_key_header(&self) -> Option<&Field<String>> {
        self.key_header()
            .filter(|h| !crate::retry::is_correlation_header(&h.value))
    }

    /// True when a status endpoint is consulted: `on_unknown_result: check-status`
    /// together with a `status_endpoint`.
    pub fn checks_status(&self) -> bool {
        self.status_endpoint.is_some()
            && self
                .on_unknown_result
                .as_ref()
                .is_some_and(|u| u.value == UnknownResult::CheckStatus)
    }

    /// Protected by this layer's own settings alone: an idempotency key is sent (a
    /// `header` is named), or a status endpoint is consulted. Across layers (a key
    /// an outer layer or the spec sends, status checks on the client only) use
    /// [`JoinedOperation::protection`].
    pub fn is_protected(&self) -> bool {
        self.key_header().is_some() || self.checks_status()
    }

    /// True unless this layer's `methods` filter leaves out the operation's method:
    /// then it never retries the operation once the request was sent.
    pub fn retries_method_after_send(&self) -> bool {
        self.methods
            .as_ref()
            .is_none_or(|m| m.value.iter().any(|x| x.value == self.method))
    }

    /// The signals of `retry_on` on which this layer repeats a request that may
    /// have been processed: those the signal table
    /// ([`crate::retry::signals::SIGNALS`]) does not mark never processed, that can
    /// fire on this operation (gRPC statuses only on a gRPC-bound one), and none
    /// at all when the layer's `methods` filter leaves out the operation's method
    /// (it then retries the operation only on never-processed signals).
    pub fn unsafe_signals(&self) -> Vec<&Spanned<Signal>> {
        if !self.retries_method_after_send() {
            return Vec::new();
        }
        self.retry_on
            .as_ref()
            .map(|r| {
                r.value
                    .iter()
                    .filter(|s| !s.value.never_processed() && s.value.applies_to(self.grpc_bound))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// True when `retry_on` covers the HTTP status `code` (explicitly or by class).
    pub fn retries_status(&self, code: u16) -> bool {
        self.retry_on
            .as_ref()
            .is_some_and(|r| r.value.iter().any(|s| s.value.covers_status(code)))
    }

    /// The node that turns retrying on (the `retry: true` value).
    pub fn retry_origin(&self) -> Option<&At> {
        self.retry.at.as_ref()
    }

    /// Where a layer's values were read (file, span), each the primary location a rule
    /// may report at.
    pub fn origins(&self) -> Vec<(&Path, usize, usize)> {
        let l = self;
        let mut at: Vec<Option<&At>> = vec![
            l.retry.at.as_ref(),
            l.effect.at.as_ref(),
            l.attempt_timeout.at.as_ref(),
            l.backoff.at.as_ref(),
            l.backoff.multiplier.at.as_ref(),
            l.retry_after.at.as_ref(),
            l.idempotency_key.at.as_ref(),
            l.deadline_off.as_ref(),
        ];
        at.push(l.attempts.as_ref().and_then(|f| f.at.as_ref()));
        at.push(l.deadline.as_ref().and_then(|f| f.at.as_ref()));
        at.push(l.retry_on.as_ref().and_then(|f| f.at.as_ref()));
        at.push(l.methods.as_ref().and_then(|f| f.at.as_ref()));
        at.push(l.budget.as_ref().and_then(|f| f.at.as_ref()));
        at.push(l.hedging.as_ref().and_then(|f| f.at.as_ref()));
        at.push(l.on_unknown_result.as_ref().and_then(|f| f.at.as_ref()));
        at.push(l.status_endpoint.as_ref().and_then(|f| f.at.as_ref()));
        for f in [&l.backoff.base, &l.backoff.cap] {
            at.push(f.as_ref().and_then(|f| f.at.as_ref()));
        }
        at.push(l.backoff.jitter.as_ref().and_then(|f| f.at.as_ref()));
        at.push(l.retry_after.honor.as_ref().and_then(|f| f.at.as_ref()));
        at.push(l.retry_after.max.as_ref().and_then(|f| f.at.as_ref()));
        if let Some(r) = &l.retry_on {
            at.extend(r.value.iter().map(|s| Some(&s.at)));
        }
        at.into_iter()
            .flatten()
            .map(|a| {
                let loc = a.location();
                (a.doc.file.path.as_path(), loc.span.start, loc.span.end)
            })
            .collect()
    }
}

/// One operation with its effective settings per layer.
#[derive(Debug, Clone)]
pub struct JoinedOperation {
    /// Index into the documents of the run.
    pub document: usize,
    /// Index into that document's `operations`.
    pub operation: usize,
    /// The operation's parsed inline `x-retry`, if any.
    pub x_retry: Option<Settings>,
    /// One entry per layer that applies, in [`Layer::ALL`] order.
    pub layers: Vec<EffectivePolicy>,
    /// The `effect` each layer declares itself (its most specific source: policy
    /// entry, operation `x-retry`, `defaults`, root `x-retry`), outermost first;
    /// layers that declare none are absent. The effect is the endpoint's, so every
    /// layer's [`EffectivePolicy::effect`] is the least safe of these (see
    /// [`endpoint_effect`]); RL103 reports when they differ.
    pub declared_effects: Vec<(Layer, Field<Effect>)>,
    /// The variants this path of the operation takes, one per group (`layers.md`
    /// "Variants and entry paths"): a request passes only the layers of one caller,
    /// one Spring profile, one Istio entry path. Empty when no layer is a variant.
    pub path: Vec<Variant>,
    /// How many paths the operation has (1 when no two layers are alternatives):
    /// each is a [`JoinedOperation`] of its own, in a row, judged on its own.
    pub paths: usize,
}

/// What protects the repeats one layer makes of a non-idempotent request (layers.md
/// "Protection travels with the request").
#[derive(Debug, Clone, Copy)]
pub enum Protection<'a> {
    /// An idempotency key that reaches the layer: declared by the layer itself or by
    /// a layer outside it (the request is re-sent with the header), or required by
    /// the spec and declared by a policy of any layer. Its retention and contract
    /// (RL203, RL204) are the declaring layer's.
    Key {
        /// The layer whose policy declares the key.
        declared_by: Layer,
        /// The key header as that policy names it.
        header: &'a Field<String>,
    },
    /// A key header the spec requires on the operation (so every client sends it and
    /// every layer re-sends it) that no policy declares: its contract is unstated
    /// (RL203).
    SpecKey(&'a crate::openapi::model::Parameter),
    /// The client consults a status endpoint first (`on_unknown_result:
    /// check-status` with a `status_endpoint`); client behaviour only.
    StatusCheck,
}

impl Protection<'_> {
    /// True for a key (declared or required by the spec), false for a status check.
    pub fn is_key(&self) -> bool {
        !matches!(self, Protection::StatusCheck)
    }
}

/// The effect of an endpoint from the effects its layers declare: the least safe of
/// them, as the field of the outermost layer declaring that value; `None` when no
/// layer declares one (each layer then keeps the method's effect). layers.md "Effect
/// is the endpoint's".
pub fn endpoint_effect(declared: &[(Layer, Field<Effect>)]) -> Option<&Field<Effect>> {
    let least = declared
        .iter()
        .map(|(_, f)| f.value)
        .reduce(Effect::least_safe)?;
    declared.iter().map(|(_, f)| f).find(|f| f.value == least)
}

impl JoinedOperation {
    /// This operation's position.
    pub fn op_ref(&self) -> OpRef {
        OpRef {
            document: self.document,
            operation: self.operation,
        }
    }

    /// The path's name when the operation has several (`client `a.py`, entry path:
    /// mesh`): its variants' labels, joined; `None` for an operation with one path.
    pub fn path_label(&self) -> Option<String> {
        (self.paths > 1).then(|| {
            self.path
                .iter()
                .map(|v| v.label.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        })
    }

    /// The effective policy of `layer`, if any applies.
    pub fn layer(&self, layer: Layer) -> Option<&EffectivePolicy> {
        self.layers.iter().find(|l| l.layer == layer)
    }

    /// The operation in `documents`.
    pub fn resolve<'d>(&self, documents: &'d [Document]) -> &'d Operation {
        &documents[self.document].operations[self.operation]
    }

    /// The key header the spec requires on `op` (a required header parameter with a
    /// well-known key name, or named as the key by a policy of any layer; never a
    /// correlation header): the client must send it, so it travels through every
    /// layer.
    pub fn spec_required_key<'o>(
        &self,
        op: &'o Operation,
    ) -> Option<&'o crate::openapi::model::Parameter> {
        op.params.iter().find(|p| {
            p.location == "header"
                && p.required
                && (p.handler_key || !crate::retry::is_correlation_header(&p.name))
                && (p.handler_key
                    || crate::retry::is_key_header(&p.name)
                    || self.layers.iter().any(|l| {
                        l.key_header()
                            .is_some_and(|h| h.value.eq_ignore_ascii_case(&p.name))
                    }))
        })
    }

    /// What protects the repeats `layer` makes of this operation (`op` is its OpenAPI
    /// operation), if anything: a key declared by `layer` or by a layer outside it
    /// (the nearest one first), else a key the spec requires (with the contract of a
    /// policy that names it, if any), else, on the client only, a status check. A
    /// layer none of these reaches is unprotected whatever the other layers do.
    pub fn protection<'a>(&'a self, layer: Layer, op: &'a Operation) -> Option<Protection<'a>> {
        let declared = self
            .layers
            .iter()
            .rev()
            .filter(|l| l.layer.reaches(layer))
            .find_map(|l| {
                l.key_header().map(|header| Protection::Key {
                    declared_by: l.layer,
                    header,
                })
            });
        if declared.is_some() {
            return declared;
        }
        if let Some(param) = self.spec_required_key(op) {
            let named = self.layers.iter().find_map(|l| {
                l.key_header()
                    .filter(|h| h.value.eq_ignore_ascii_case(&param.name))
                    .map(|header| Protection::Key {
                        declared_by: l.layer,
                        header,
                    })
            });
            return Some(named.unwrap_or(Protection::SpecKey(param)));
        }
        self.layer(layer)
            .filter(|l| l.layer.is_client() && l.checks_status())
            .map(|_| Protection::StatusCheck)
    }

    /// True when an idempotency key reaches `layer` (see [`JoinedOperation::protection`]).
    pub fn key_reaches(&self, layer: Layer, op: &Operation) -> bool {
        self.protection(layer, op).is_some_and(|p| p.is_key())
    }
}

/// The joined model of one run.
#[derive(Debug, Default)]
pub struct Analysis {
    /// Every operation of every document, in document order.
    pub operations: Vec<JoinedOperation>,
    /// The policy files joined (as given).
    pub policies: Vec<PolicyFile>,
    /// For each policy, the indices of the documents it governs.
    pub governs: Vec<Vec<usize>>,
    /// For each document, its parsed root `x-retry`, if any.
    pub document_x_retry: Vec<Option<Settings>>,
    /// The findings made while joining (RL005, RL006), also returned by [`join`].
    pub diagnostics: Vec<Diagnostic>,
}

/// RL005 for each `spec:` path that names neither a document of the run nor a file
/// on disk: such a policy would silently govern nothing.
fn missing_spec_paths(policy: &PolicyFile, documents: &[Document]) -> Vec<Diagnostic> {
    let dir = policy
        .doc
        .file
        .path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    policy
        .spec
        .iter()
        .filter(|s| {
            let joined = normalize(&dir.join(&s.value));
            !joined.is_file() && !documents.iter().any(|d| d.doc.file.path == joined)
        })
        .map(|s| {
            rl005_invalid_policy::diagnostic(
                &s.at,
                format!(
                    "`spec` names `{}`, which does not exist (paths are relative to this policy file)",
                    s.value
                ),
                "no such file",
            )
            .with_help("point `spec` at the OpenAPI document this policy governs, relative to the policy file")
        })
        .collect()
}

/// The documents a policy governs: its `spec:` paths (relative to the policy file),
/// else every document in the policy file's directory and below.
pub fn governed_documents(policy: &PolicyFile, documents: &[Document]) -> Vec<usize> {
    if let Some(imported) = &policy.imported {
        // An imported config governs what the binder bound it to, nothing else.
        return documents
            .iter()
            .enumerate()
            .filter(|(_, d)| {
                imported
                    .governs
                    .iter()
                    .any(|g| g.as_os_str() == d.doc.file.path.as_os_str())
            })
            .map(|(i, _)| i)
            .collect();
    }
    let dir = policy
        .doc
        .file
        .path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    if policy.spec.is_empty() {
        return documents
            .iter()
            .enumerate()
            .filter(|(_, d)| d.doc.file.path.starts_with(&dir))
            .map(|(i, _)| i)
            .collect();
    }
    let wanted: Vec<PathBuf> = policy
        .spec
        .iter()
        .flat_map(|s| {
            let joined = normalize(&dir.join(&s.value));
            let canonical = std::fs::canonicalize(&joined).ok();
            std::iter::once(joined).chain(canonical)
        })
        .collect();
    documents
        .iter()
        .enumerate()
        .filter(|(_, d)| wanted.iter().any(|w| *w == d.doc.file.path))
        .map(|(i, _)| i)
        .collect()
}

fn pick<T: Clone>(
    sources: &[(Source, &Settings)],
    f: impl Fn(&Settings) -> Option<&Spanned<T>>,
) -> Option<Field<T>> {
    sources.iter().find_map(|(src, s)| {
        f(s).map(|v| Field {
            value: v.value.clone(),
            at: Some(v.at.clone()),
            source: *src,
        })
    })
}

/// `effect: todo` at the most specific level that speaks of the effect: the effect is
/// unknown, so it is taken as the least safe, `non-idempotent`, whatever the method
/// (a repeat still needs protection); not a declaration (no RL102 or RL103).
fn open_effect(sources: &[(Source, &Settings)]) -> Option<Field<Effect>> {
    let first = sources
        .iter()
        .find(|(_, s)| s.effect.is_some() || s.is_todo("effect"))?;
    first
        .1
        .is_todo("effect")
        .then(|| Field::builtin(Effect::NonIdempotent))
}

/// [`pick`] for a field that accepts `todo` ([`TODO_FIELDS`]): a level where it is
/// `todo` ends the search with no value, so an open question in an entry is not
/// answered by `defaults` (it stays open, and never reads as a safer value).
fn pick_open<T: Clone>(
    sources: &[(Source, &Settings)],
    field: &str,
    f: impl Fn(&Settings) -> Option<&Spanned<T>>,
) -> Option<Field<T>> {
    for (src, s) in sources {
        if let Some(v) = f(s) {
            return Some(Field {
                value: v.value.clone(),
                at: Some(v.at.clone()),
                source: *src,
            });
        }
        if s.is_todo(field) {
            return None;
        }
    }
    None
}

/// The effective policy of one route of a retry config that binds no operation, for
/// a request `method path` (`layers` on a route in a run with no OpenAPI document,
/// issue 36): the route's settings as the one source, the built-in defaults for the
/// rest, the method giving the effect as RFC 9110 section 9.2.2 does for a spec's
/// operation. `at` is the route's node (it stands for the missing operation).
pub fn route_effective(
    layer: Layer,
    settings: &Settings,
    method: &str,
    path: &str,
    at: &At,
) -> EffectivePolicy {
    let op = Operation {
        method: method.to_ascii_lowercase(),
        path: path.to_string(),
        operation_id: None,
        tags: Vec::new(),
        at: at.clone(),
        key: at.clone(),
        params: Vec::new(),
        responses: Vec::new(),
        x_retry: None,
    };
    effective(layer, None, None, &[(Source::Entry, settings)], &op)
}

fn effective(
    layer: Layer,
    policy: Option<usize>,
    entry: Option<usize>,
    sources: &[(Source, &Settings)],
    op: &Operation,
) -> EffectivePolicy {
    let idempotency_key = EffectiveKey {
        at: sources
            .iter()
            .find_map(|(_, s)| s.idempotency_key.as_ref().map(|k| k.at.clone())),
        header: pick(sources, |s| {
            s.idempotency_key.as_ref().and_then(|k| k.header.as_ref())
        }),
        retention: pick_open(sources, "idempotency_key.retention", |s| {
            s.idempotency_key
                .as_ref()
                .and_then(|k| k.retention.as_ref())
        }),
        scope: pick_open(sources, "idempotency_key.scope", |s| {
            s.idempotency_key.as_ref().and_then(|k| k.scope.as_ref())
        }),
        on_payload_mismatch: pick_open(sources, "idempotency_key.on_payload_mismatch", |s| {
            s.idempotency_key
                .as_ref()
                .and_then(|k| k.on_payload_mismatch.as_ref())
        }),
        on_concurrent: pick_open(sources, "idempotency_key.on_concurrent", |s| {
            s.idempotency_key
                .as_ref()
                .and_then(|k| k.on_concurrent.as_ref())
        }),
        in_request: sources
            .iter()
            .find_map(|(_, s)| s.idempotency_key.as_ref().map(|k| k.in_request))
            .unwrap_or(false),
    };
    let backoff = EffectiveBackoff {
        at: sources
            .iter()
            .find_map(|(_, s)| s.backoff.as_ref().map(|b| b.at.clone())),
        base: pick_open(sources, "backoff.base", |s| {
            s.backoff.as_ref().and_then(|b| b.base.as_ref())
        }),
        cap: pick_open(sources, "backoff.cap", |s| {
            s.backoff.as_ref().and_then(|b| b.cap.as_ref())
        }),
        multiplier: pick(sources, |s| {
            s.backoff.as_ref().and_then(|b| b.multiplier.as_ref())
        })
        .unwrap_or_else(|| Field::builtin(2.0)),
        jitter: pick_open(sources, "backoff.jitter", |s| {
            s.backoff.as_ref().and_then(|b| b.jitter.as_ref())
        }),
    };
    let retry_after = EffectiveRetryAfter {
        at: sources
            .iter()
            .find_map(|(_, s)| s.retry_after.as_ref().map(|r| r.at.clone())),
        honor: pick(sources, |s| {
            s.retry_after.as_ref().and_then(|r| r.honor.as_ref())
        }),
        max: pick_open(sources, "retry_after.max", |s| {
            s.retry_after.as_ref().and_then(|r| r.max.as_ref())
        }),
        on_invalid: pick(sources, |s| {
            s.retry_after.as_ref().and_then(|r| r.on_invalid.as_ref())
        }),
        on_above_max: pick(sources, |s| {
            s.retry_after.as_ref().and_then(|r| r.on_above_max.as_ref())
        }),
    };
    EffectivePolicy {
        layer,
        policy,
        entry,
        retry: pick(sources, |s| s.retry.as_ref()).unwrap_or_else(|| Field::builtin(false)),
        effect: open_effect(sources).unwrap_or_else(|| {
            pick(sources, |s| s.effect.as_ref())
                .or_else(|| {
                    pick(sources, |s| s.inferred_effect.as_ref()).map(|f| Field {
                        source: Source::Inferred,
                        ..f
                    })
                })
                .unwrap_or_else(|| Field::builtin(Effect::from_openapi_method(&op.method)))
        }),
        idempotency_key,
        status_endpoint: pick(sources, |s| s.status_endpoint.as_deref()),
        status_operation: None,
        on_unknown_result: pick_open(sources, "on_unknown_result", |s| {
            s.on_unknown_result.as_ref()
        }),
        attempts: pick_open(sources, "attempts", |s| s.attempts.as_ref()),
        deadline: pick_open(sources, "deadline", |s| s.deadline.as_ref()),
        attempt_timeout: pick(sources, |s| s.attempt_timeout.as_ref())
            .unwrap_or_else(|| Field::builtin(AttemptTimeout::Remaining)),
        backoff,
        retry_on: pick(sources, |s| s.retry_on.as_ref()),
        retry_after,
        misspelled: sources
            .iter()
            .flat_map(|(_, s)| s.misspelled.iter().cloned())
            .collect(),
        methods: pick(sources, |s| s.methods.as_ref()),
        method: op.method.to_ascii_uppercase(),
        grpc_bound: false,
        budget: pick(sources, |s| s.budget.as_deref()),
        hedging: pick(sources, |s| s.hedging.as_ref()),
        deadline_off: sources
            .iter()
            .find(|(_, s)| s.deadline.is_some() || s.deadline_off.is_some())
            .and_then(|(_, s)| s.deadline_off.clone()),
    }
}

/// The operations of the documents `governed`, in document order, as selector
/// candidates (for "did you mean").
pub fn governed_candidates<'d>(
    documents: &'d [Document],
    governed: &[usize],
) -> Vec<Candidate<'d>> {
    governed
        .iter()
        .flat_map(|&d| documents[d].operations.iter())
        .map(|op| Candidate {
            method: &op.method,
            path: &op.path,
            operation_id: op.operation_id.as_deref(),
        })
        .collect()
}

fn matches_op(sel: &Selector, op: &Operation) -> bool {
    sel.matches(&op.method, &op.path, op.operation_id.as_deref())
}

/// The help of an entry of a policy that has no `spec:` and governs no document (none
/// lies in its folder or below): add the `spec:` line, relative to the policy's
/// folder as `spec:` is read (policy-format.md "spec"). It names no document: a run
/// over the policy alone reads none, and its answer is the whole run's.
const SPEC_MISSING_HELP: &str = "this policy has no `spec:` and no OpenAPI document lies in its folder or below: add `spec:` naming the document it governs (relative to this policy file)";

fn find_op(sel: &Selector, documents: &[Document], order: &[usize]) -> Option<OpRef> {
    order.iter().find_map(|&d| {
        documents[d]
            .operations
            .iter()
            .position(|op| matches_op(sel, op))
            .map(|operation| OpRef {
                document: d,
                operation,
            })
    })
}

/// What a path of an operation reaches it through: each layer with where its values
/// were read (two paths with the same key are one).
type PathKey<'a> = Vec<(Layer, Vec<(&'a Path, usize, usize)>)>;

/// The paths through the variants of one operation's layers: one variant of each
/// group, every combination, groups and variants in first-seen order (one empty path
/// when there is no variant).
pub fn paths_of<'v>(variants: impl Iterator<Item = &'v Variant>) -> Vec<Vec<Variant>> {
    let mut groups: Vec<Vec<&Variant>> = Vec::new();
    for v in variants {
        match groups.iter_mut().find(|g| g[0].group == v.group) {
            Some(g) if !g.contains(&v) => g.push(v),
            Some(_) => {}
            None => groups.push(vec![v]),
        }
    }
    let mut out: Vec<Vec<Variant>> = vec![Vec::new()];
    for g in groups {
        out = out
            .iter()
            .flat_map(|prefix| {
                g.iter().map(move |v| {
                    let mut p = prefix.clone();
                    p.push((*v).clone());
                    p
                })
            })
            .collect();
    }
    out
}

fn x_retry_layer(s: &Settings) -> Layer {
    s.layer.as_ref().map_or(Layer::Client, |l| l.value)
}

/// The anchor used when a whole policy file is the subject of a finding: its `layer`
/// key, else its `spec` key, else its first key.
fn policy_anchor(p: &PolicyFile) -> At {
    if let Some(l) = &p.layer {
        return l.at.clone();
    }
    if let Some(s) = p.spec.first() {
        return s.at.clone();
    }
    p.at.clone()
}

/// Joins documents and policies: the effective settings of every operation per layer.
/// Reports RL005 (ties between selectors, two files of one layer for one operation,
/// `retry: true` without signals, invalid inline `x-retry`) and RL006 (a selector or
/// `status_endpoint` that matches no operation in the governed documents).
pub fn join(documents: &[Document], policies: &[PolicyFile]) -> (Analysis, Vec<Diagnostic>) {
    let mut diags: Vec<Diagnostic> = Vec::new();

    // Inline x-retry, parsed strictly.
    let mut document_x_retry = Vec::with_capacity(documents.len());
    for d in documents {
        let parsed = d.x_retry.as_ref().and_then(|at| {
            let (s, ds) = parse_x_retry(at);
            diags.extend(ds);
            s
        });
        document_x_retry.push(parsed);
    }

    let governs: Vec<Vec<usize>> = policies
        .iter()
        .map(|p| governed_documents(p, documents))
        .collect();
    for policy in policies {
        diags.extend(missing_spec_paths(policy, documents));
    }

    // Two policy files of one layer governing one document's operations.
    let mut reported_pairs: HashSet<(usize, usize)> = HashSet::new();
    for (d, doc) in documents.iter().enumerate() {
        if doc.operations.is_empty() {
            continue;
        }
        for layer in Layer::ALL {
            let of_layer: Vec<usize> = (0..policies.len())
                .filter(|&p| {
                    policies[p].layer() == layer
                        && policies[p].imported.is_none()
                        && governs[p].contains(&d)
                })
                .collect();
            for &later in of_layer.iter().skip(1) {
                let first = of_layer[0];
                if !reported_pairs.insert((first, later)) {
                    continue;
                }
                let a = &policies[first];
                let b = &policies[later];
                diags.push(
                    rl005_invalid_policy::diagnostic(
                        &policy_anchor(b),
                        format!(
                            "`{}` and `{}` are both `{}` policies for the operations of `{}`",
                            a.doc.file.display,
                            b.doc.file.display,
                            layer.as_str(),
                            doc.doc.file.display
                        ),
                        "second policy of this layer",
                    )
                    .with_label(policy_anchor(a).location(), "first policy of this layer")
                    .with_help(format!(
                        "merge the two files, or give one of them another `layer` or a `spec:` that excludes `{}`",
                        doc.doc.file.display
                    )),
                );
            }
        }
    }

    // Which selectors and status endpoints matched something.
    let mut entry_matched: Vec<Vec<bool>> = policies
        .iter()
        .map(|p| vec![false; p.operations.len()])
        .collect();
    let mut reported_nodes: HashSet<(PathBuf, usize, u32)> = HashSet::new();

    // Imported configs name each operation they bind once (`METHOD /path`).
    let imported_entries: Vec<Option<std::collections::HashMap<&str, usize>>> = policies
        .iter()
        .map(|p| {
            p.imported.as_ref().map(|_| {
                p.operations
                    .iter()
                    .enumerate()
                    .map(|(i, e)| (e.text.as_str(), i))
                    .collect()
            })
        })
        .collect();
    // The policies governing each document, in policy order (thousands of imported
    // configs each govern a few documents: look them up, do not scan them all).
    let mut governing: Vec<Vec<usize>> = vec![Vec::new(); documents.len()];
    for (p, g) in governs.iter().enumerate() {
        for &d in g {
            if let Some(list) = governing.get_mut(d) {
                list.push(p);
            }
        }
    }

    let mut operations = Vec::new();
    for (d, doc) in documents.iter().enumerate() {
        // Same document first when resolving status endpoints.
        let mut order = vec![d];
        order.extend((0..documents.len()).filter(|&i| i != d));
        // Per layer kind: the written policy (with the inline `x-retry` of that
        // layer), then every imported config of that kind, each a layer of its own
        // in sequence (layers.md "Layer identity and order").
        let here = &governing[d];
        let stacked: Vec<(Layer, Option<usize>, bool)> = Layer::ALL
            .iter()
            .flat_map(|&layer| {
                let written = here
                    .iter()
                    .copied()
                    .find(|&p| policies[p].layer() == layer && policies[p].imported.is_none());
                let imported = here.iter().copied().filter(move |&p| {
                    policies[p].layer() == layer && policies[p].imported.is_some()
                });
                std::iter::once((layer, written, true))
                    .chain(imported.map(move |p| (layer, Some(p), false)))
            })
            .collect();
        for (o, op) in doc.operations.iter().enumerate() {
            let op_name = op.display();
            let op_x = op.x_retry.as_ref().and_then(|at| {
                let (s, ds) = parse_x_retry(at);
                diags.extend(ds);
                s
            });
            let mut layers = Vec::new();
            for &(layer, policy, with_x_retry) in &stacked {
                let op_layer_x = op_x
                    .as_ref()
                    .filter(|s| with_x_retry && x_retry_layer(s) == layer);
                let root_layer_x = document_x_retry[d]
                    .as_ref()
                    .filter(|s| with_x_retry && x_retry_layer(s) == layer);
                if policy.is_none() && op_layer_x.is_none() && root_layer_x.is_none() {
                    continue;
                }
                // An imported config reaches only the operations a route binds: one
                // entry per operation, found by name.
                let imported_entry = policy
                    .and_then(|p| imported_entries[p].as_ref())
                    .map(|index| index.get(op_name.as_str()).copied());
                if imported_entry == Some(None) {
                    continue;
                }
                let mut entry = None;
                if let (Some(p), Some(Some(i))) = (policy, imported_entry) {
                    entry_matched[p][i] = true;
                    entry = Some(i);
                } else if let Some(p) = policy {
                    let pf = &policies[p];
                    let matching: Vec<(usize, Rank)> = pf
                        .operations
                        .iter()
                        .enumerate()
                        .filter_map(|(i, e)| {
                            let sel = e.selector.as_ref()?;
                            matches_op(sel, op).then(|| (i, sel.rank()))
                        })
                        .collect();
                    for &(i, _) in &matching {
                        entry_matched[p][i] = true;
                    }
                    if let Some(best) = matching.iter().map(|(_, r)| *r).min() {
                        let tied: Vec<usize> = matching
                            .iter()
                            .filter(|(_, r)| *r == best)
                            .map(|(i, _)| *i)
                            .collect();
                        entry = Some(tied[0]);
                        for &other in tied.iter().skip(1) {
                            let first = &pf.operations[tied[0]];
                            let second = &pf.operations[other];
                            diags.push(
                                rl005_invalid_policy::diagnostic(
                                    &second.at,
                                    format!(
                                        "selectors `{}` and `{}` are equally specific for `{}`",
                                        first.text,
                                        second.text,
                                        op.display()
                                    ),
                                    "equally specific selector",
                                )
                                .with_label(first.at.location(), "also matches")
                                .with_label(op.key.location(), "the operation")
                                .with_help(format!(
                                    "keep one entry for `{}`, or make one selector more specific (an explicit method or more literal segments)",
                                    op.display()
                                ))
                                .with_operation(op.display()),
                            );
                        }
                    }
                }
                let mut sources: Vec<(Source, &Settings)> = Vec::new();
                if let (Some(p), Some(e)) = (policy, entry) {
                    sources.push((Source::Entry, &policies[p].operations[e].settings));
                }
                if let Some(s) = op_layer_x {
                    sources.push((Source::OperationXRetry, s));
                }
                if let Some(defaults) = policy.and_then(|p| policies[p].defaults.as_ref()) {
                    sources.push((Source::Defaults, defaults));
                }
                if let Some(s) = root_layer_x {
                    sources.push((Source::RootXRetry, s));
                }
                let mut eff = effective(layer, policy, entry, &sources, op);
                eff.grpc_bound =
                    policy.is_some_and(|p| policies[p].imported.as_ref().is_some_and(|i| i.grpc));
                if let Some(se) = &eff.status_endpoint {
                    let scope: Vec<usize> =
                        if se.source == Source::Entry || se.source == Source::Defaults {
                            let g = &governs[policy.expect("policy sources imply a policy")];
                            order.iter().copied().filter(|i| g.contains(i)).collect()
                        } else {
                            vec![d]
                        };
                    eff.status_operation = find_op(&se.value, documents, &scope);
                    if eff.status_operation.is_none() {
                        let at = se.at.clone().expect("status_endpoint has a node");
                        if reported_nodes.insert(at.key()) {
                            diags.push(
                                rl006_unknown_operation::diagnostic(
                                    &at,
                                    format!(
                                        "`status_endpoint` `{}` matches no operation",
                                        se.value
                                    ),
                                    "no such operation",
                                )
                                .with_label(op.key.location(), "polled for this operation")
                                .with_operation(op.display()),
                            );
                        }
                    }
                }
                if eff.retry.value
                    && eff.retry_on.as_ref().is_none_or(|r| r.value.is_empty())
                    && !(eff.retry_on.is_none() && eff.is_misspelled("retry_on"))
                {
                    let at = eff.retry.at.clone().expect("retry true has a node");
                    if reported_nodes.insert(at.key()) {
                        let mut d = rl005_invalid_policy::diagnostic(
                            &at,
                            format!(
                                "`retry: true` without signals: `retry_on` is {} for `{}`",
                                if eff.retry_on.is_some() { "empty" } else { "absent" },
                                op.display()
                            ),
                            "retry turned on here",
                        )
                        .with_help(
                            "list the signals to retry on, e.g. `retry_on: [connect-failure, refused-stream]`, or set `retry: false`",
                        );
                        if let Some(ro) = eff.retry_on.as_ref().and_then(|r| r.at.clone()) {
                            d = d.with_label(ro.location(), "empty list");
                        }
                        diags.push(d);
                    }
                }
                layers.push(eff);
            }
            // The effect is the endpoint's: every layer takes the least safe one
            // declared in any layer (layers.md "Effect is the endpoint's").
            let declared_effects: Vec<(Layer, Field<Effect>)> = layers
                .iter()
                .filter(|l| !matches!(l.effect.source, Source::BuiltIn | Source::Inferred))
                .map(|l| (l.layer, l.effect.clone()))
                .collect();
            if let Some(effect) = endpoint_effect(&declared_effects).cloned() {
                for l in &mut layers {
                    l.effect = effect.clone();
                }
            } else if let Some(effect) = layers
                .iter()
                .filter(|l| l.effect.source == Source::Inferred)
                .map(|l| l.effect.clone())
                .reduce(|a, b| {
                    if a.value.least_safe(b.value) == a.value {
                        a
                    } else {
                        b
                    }
                })
            {
                // No declaration: the effect an imported config infers from the
                // endpoint's own semantics (a gRPC RPC) holds for every layer, as the
                // method's would.
                for l in &mut layers {
                    l.effect = effect.clone();
                }
            }
            // Alternatives never multiply: one joined operation per path, each with
            // the layers one request passes (layers.md item 6).
            let variant_of = |l: &EffectivePolicy| -> Option<&Variant> {
                l.policy
                    .and_then(|p| policies[p].imported.as_ref())
                    .and_then(|i| i.variant.as_ref())
            };
            // Two variants that reach the operation through the same values (a
            // profile that does not change what the base sets for it) are one path,
            // named after both.
            let mut distinct: Vec<(Vec<Variant>, Vec<EffectivePolicy>)> = Vec::new();
            let mut seen: Vec<PathKey<'_>> = Vec::new();
            for path in paths_of(layers.iter().filter_map(variant_of)) {
                let on_path: Vec<EffectivePolicy> = layers
                    .iter()
                    .filter(|l| variant_of(l).is_none_or(|v| path.contains(v)))
                    .cloned()
                    .collect();
                let key: PathKey<'_> = layers
                    .iter()
                    .filter(|l| variant_of(l).is_none_or(|v| path.contains(v)))
                    .map(|l| (l.layer, l.origins()))
                    .collect();
                match seen.iter().position(|k| *k == key) {
                    Some(i) => {
                        for (mine, v) in distinct[i].0.iter_mut().zip(&path) {
                            if mine.label != v.label {
                                mine.label = format!("{}, {}", mine.label, v.label);
                            }
                        }
                    }
                    None => {
                        seen.push(key);
                        distinct.push((path, on_path));
                    }
                }
            }
            // A path is named after the groups that offer an alternative here (the
            // only mesh VirtualService behind two callers names no entry path).
            let alternatives = |group: &str| {
                let mut labels: Vec<&str> = distinct
                    .iter()
                    .flat_map(|(p, _)| p.iter())
                    .filter(|v| v.group == group)
                    .map(|v| v.label.as_str())
                    .collect();
                labels.sort_unstable();
                labels.dedup();
                labels.len() > 1
            };
            let named: Vec<Vec<Variant>> = distinct
                .iter()
                .map(|(p, _)| {
                    p.iter()
                        .filter(|v| alternatives(&v.group))
                        .cloned()
                        .collect()
                })
                .collect();
            let count = distinct.len();
            for ((_, on_path), path) in distinct.into_iter().zip(named) {
                operations.push(JoinedOperation {
                    document: d,
                    operation: o,
                    x_retry: op_x.clone(),
                    layers: on_path,
                    declared_effects: declared_effects.clone(),
                    path,
                    paths: count,
                });
            }
        }
    }

    // Selectors and policy status endpoints that match nothing in the governed docs.
    for (p, pf) in policies.iter().enumerate() {
        let governed_names: Vec<&str> = governs[p]
            .iter()
            .map(|&d| documents[d].doc.file.display.as_str())
            .collect();
        let scope = if governed_names.is_empty() {
            "any governed document (this policy governs none)".to_string()
        } else {
            governed_names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let candidates = governed_candidates(documents, &governs[p]);
        for (i, e) in pf.operations.iter().enumerate() {
            if e.selector.is_some() && !entry_matched[p][i] {
                let help = match did_you_mean(&e.text, &candidates) {
                    // A policy with no `spec:` away from its documents (`deploy/`
                    // beside `api/`) governs nothing: the fix is the `spec:` line.
                    _ if governs[p].is_empty() && pf.spec.is_empty() => {
                        SPEC_MISSING_HELP.to_string()
                    }
                    Some(s) => format!("did you mean `{s}`? Fix the selector, or remove the entry"),
                    None => "fix the method or path (path templates match `{name}` segments whatever the name), or remove the entry".to_string(),
                };
                diags.push(
                    rl006_unknown_operation::diagnostic(
                        &e.at,
                        format!("selector `{}` matches no operation in {scope}", e.text),
                        "matches no operation",
                    )
                    .with_help(help),
                );
            }
        }
        let mut endpoints: Vec<&Spanned<Selector>> = Vec::new();
        endpoints.extend(
            pf.defaults
                .iter()
                .filter_map(|s| s.status_endpoint.as_deref()),
        );
        endpoints.extend(
            pf.operations
                .iter()
                .filter_map(|e| e.settings.status_endpoint.as_deref()),
        );
        for se in endpoints {
            if find_op(&se.value, documents, &governs[p]).is_none()
                && reported_nodes.insert(se.at.key())
            {
                diags.push(
                    rl006_unknown_operation::diagnostic(
                        &se.at,
                        format!(
                            "`status_endpoint` `{}` matches no operation in {scope}",
                            se.value
                        ),
                        "no such operation",
                    )
                    .with_help(
                        match did_you_mean(&se.value.to_string(), &candidates) {
                            Some(s) => format!("did you mean `{s}`?"),
                            None => {
                                "name an existing safe operation (`GET /path` or its operationId)"
                                    .to_string()
                            }
                        },
                    ),
                );
            }
        }
    }

    let analysis = Analysis {
        operations,
        policies: policies.to_vec(),
        governs,
        document_x_retry,
        diagnostics: diags.clone(),
    };
    (analysis, diags)
}
