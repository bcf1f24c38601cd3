//! The typed policy model. Every value keeps its origin ([`Spanned::at`]: file + the
//! value node), so a finding can point at the exact policy line.

use super::duration::Millis;
use super::selector::Selector;
use crate::source::loader::Loaded;
use crate::source::refs::At;
use std::sync::Arc;

/// A value and the node it was read from.
#[derive(Debug, Clone)]
pub struct Spanned<T> {
    /// The value.
    pub value: T,
    /// The value node (its `label_span` is the key token of its entry).
    pub at: At,
}

/// Who performs the retries a policy describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Layer {
    /// A client SDK (the default).
    Client,
    /// An API gateway.
    Gateway,
    /// A service-mesh sidecar.
    Mesh,
}

impl Layer {
    /// Every layer, outermost (client) first.
    pub const ALL: [Layer; 3] = [Layer::Client, Layer::Gateway, Layer::Mesh];

    /// The name as written in policies.
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Client => "client",
            Layer::Gateway => "gateway",
            Layer::Mesh => "mesh",
        }
    }

    /// How deep the layer sits in the path of a request: 0 for the client
    /// (outermost), 1 for a gateway, 2 for a mesh sidecar (innermost); layers.md
    /// "Layer identity and order".
    pub fn depth(self) -> u8 {
        match self {
            Layer::Client => 0,
            Layer::Gateway => 1,
            Layer::Mesh => 2,
        }
    }

    /// True for the client: the only layer that sees an unknown result and can act
    /// on it (check a status, reconcile, repeat with the same key). A gateway or a
    /// mesh can only resend the request it holds or pass the error up (layers.md
    /// "Unknown results on proxies").
    pub fn is_client(self) -> bool {
        self == Layer::Client
    }

    /// True when a request sent or forwarded by `self` passes through `inner`:
    /// `inner` is `self` or a layer inside it. An idempotency key declared at `self`
    /// travels with the request, so it protects exactly these layers (a key a
    /// gateway adds protects the gateway and the mesh, not the client; layers.md
    /// "Protection travels with the request").
    pub fn reaches(self, inner: Layer) -> bool {
        inner.depth() >= self.depth()
    }
}

// The policy vocabulary is the retry engine's: one `Effect`, `Jitter`, `OnInvalid` and
// `retry_on` entry type for the parser, the rules and the decision logic.
pub use crate::retry::{Effect, Jitter, JitterFactor, OnInvalid, RetryOnEntry};
// Budgets and hedging are the domain's types too.
pub use crate::retry::{Hedging, RetryBudget};

/// A `retry_on` entry, under the name the policy model has always used.
pub use crate::retry::RetryOnEntry as Signal;

/// Q4: what a timeout or reset leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum UnknownResult {
    /// Repeat the request.
    Resend,
    /// Repeat with the same idempotency key.
    ReplayKey,
    /// Query `status_endpoint` first.
    CheckStatus,
    /// Compare with the source of truth out of band.
    Reconcile,
    /// Surface "state unknown".
    Fail,
}

/// `attempt_timeout`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AttemptTimeout {
    /// Each attempt gets what is left of the deadline.
    Remaining,
    /// A fixed per-attempt timeout, in ms.
    Fixed(Millis),
}

/// `idempotency_key.on_payload_mismatch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PayloadMismatch {
    /// 422 per the draft.
    Reject,
    /// The server processes it anyway.
    Ignore,
}

/// `idempotency_key.on_concurrent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Concurrent {
    /// 409 per the draft.
    Reject,
    /// The second request waits for the first.
    Wait,
    /// Both are processed.
    Ignore,
}

/// `idempotency_key:` as written in one mapping.
#[derive(Debug, Clone)]
pub struct KeySettings {
    /// The `idempotency_key` mapping.
    pub at: At,
    /// Header name (compare case-insensitively).
    pub header: Option<Spanned<String>>,
    /// How long the server keeps keys (ms).
    pub retention: Option<Spanned<Millis>>,
    /// Uniqueness scope, free text.
    pub scope: Option<Spanned<String>>,
    /// `reject` | `ignore`.
    pub on_payload_mismatch: Option<Spanned<PayloadMismatch>>,
    /// `reject` | `wait` | `ignore`.
    pub on_concurrent: Option<Spanned<Concurrent>>,
    /// Not a policy key: the key is a field of the request message that an imported
    /// config knows of (AIP-155 `request_id` of a gRPC RPC), carried in the body, so
    /// the spec declares no header for it (`header` names the field).
    pub in_request: bool,
}

/// `backoff:` as written in one mapping.
#[derive(Debug, Clone)]
pub struct BackoffSettings {
    /// The `backoff` mapping.
    pub at: At,
    /// First delay bound (ms).
    pub base: Option<Spanned<Millis>>,
    /// Largest delay bound (ms).
    pub cap: Option<Spanned<Millis>>,
    /// Growth factor (a number; range checked by RL304).
    pub multiplier: Option<Spanned<f64>>,
    /// Jitter variant.
    pub jitter: Option<Spanned<Jitter>>,
}

/// `retry_after:` as written in one mapping.
#[derive(Debug, Clone)]
pub struct RetryAfterSettings {
    /// The `retry_after` mapping.
    pub at: At,
    /// Wait at least what Retry-After says.
    pub honor: Option<Spanned<bool>>,
    /// Larger values mean giving up (ms).
    pub max: Option<Spanned<Millis>>,
    /// `backoff` | `stop`.
    pub on_invalid: Option<Spanned<OnInvalid>>,
    /// `on_above_max`: what a Retry-After above `max` leads to: `stop` (give up,
    /// the meaning when absent) or `backoff` (ignore the header and wait the
    /// back-off, as Envoy's `rate_limited_retry_back_off` does).
    pub on_above_max: Option<Spanned<OnInvalid>>,
}

/// One suppression (`ignore: [{rule, reason}]`), kept as written; applied later.
#[derive(Debug, Clone)]
pub struct Suppression {
    /// The item mapping.
    pub at: At,
    /// Rule code or name.
    pub rule: Option<Spanned<String>>,
    /// Why (required; RL013 reports a missing one).
    pub reason: Option<Spanned<String>>,
}

/// An unknown key of a settings mapping whose "did you mean" names a known key
/// (`attemps` for `attempts`), or a known key whose value was rejected (`attempts:
/// 3.0`, `deadline: 5S`, `retry_on: ["5xx "]`). Either is reported once (RL005); rules
/// that report "`intended` is missing" consult this so they do not report it again.
#[derive(Debug, Clone)]
pub struct Misspelled {
    /// The key meant, as a dotted path from the settings mapping: `attempts`,
    /// `backoff` (the mapping itself), `backoff.jitter`, `retry_after.max`,
    /// `idempotency_key.header`, ...
    pub intended: String,
    /// The unknown key's node, or the key node of the rejected value.
    pub at: At,
}

/// A value written as `todo`: a readiness question left open (what `retrylint init`
/// writes for what the spec and configs cannot answer). The field it stands for is
/// left unset in the settings, and the todo stops the search through the less
/// specific levels (an answer in `defaults` does not fill an entry's open question);
/// RL018 reports it. Accepted only in the fields of [`TODO_FIELDS`].
#[derive(Debug, Clone)]
pub struct Todo {
    /// The field as a dotted path from the settings mapping: `attempts`,
    /// `backoff.jitter`, `idempotency_key.retention`, ...
    pub field: &'static str,
    /// The `todo` value node.
    pub at: At,
}

/// The fields that answer a readiness question and so accept `todo`
/// (docs/policy-format.md "Open questions: `todo`"), each with its question and
/// what an answer looks like, for RL018's message.
pub const TODO_FIELDS: &[(&str, &str, &str)] = &[
    (
        "effect",
        "Q1: which effect does a repeat have?",
        "`safe`, `idempotent` or `non-idempotent`",
    ),
    (
        "idempotency_key.retention",
        "Q2: how long does the server keep idempotency keys?",
        "a duration such as `24h`",
    ),
    (
        "idempotency_key.scope",
        "Q2: within what is a key unique?",
        "`per-client`, `per-account` or `global`",
    ),
    (
        "idempotency_key.on_payload_mismatch",
        "Q2: what does the server do with a reused key and a different payload?",
        "`reject` (422) or `ignore`",
    ),
    (
        "idempotency_key.on_concurrent",
        "Q2: what does the server do with a second request while the first with that key runs?",
        "`reject` (409), `wait` or `ignore`",
    ),
    (
        "on_unknown_result",
        "Q4: what does a timeout or reset lead to?",
        "`resend`, `replay-key`, `check-status`, `reconcile` or `fail`",
    ),
    (
        "attempts",
        "Q3: how many attempts in total, the first included?",
        "an integer >= 1 such as `3` (`1` never retries)",
    ),
    (
        "deadline",
        "Q3: what is the budget for the whole operation, every attempt and wait?",
        "a duration such as `3s`",
    ),
    (
        "backoff.base",
        "Q3: how long is the first backoff delay?",
        "a duration such as `100ms`",
    ),
    (
        "backoff.cap",
        "Q3: what is the largest backoff delay?",
        "a duration such as `2s`",
    ),
    (
        "backoff.jitter",
        "Q3: how are the delays spread?",
        "`full`, `equal`, `decorrelated`, `{proportional: 0.2}` or `none`",
    ),
    (
        "retry_after.max",
        "Q3: how long a Retry-After is still worth waiting?",
        "a duration such as `10s`",
    ),
];

/// The question and answer shape of a `todo` field ([`TODO_FIELDS`]).
pub fn todo_question(field: &str) -> Option<(&'static str, &'static str)> {
    TODO_FIELDS
        .iter()
        .find(|(f, _, _)| *f == field)
        .map(|(_, q, a)| (*q, *a))
}

/// Operation settings as written in one mapping: an `operations` entry, `defaults`,
/// or an inline `x-retry`. Absent keys are `None`.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The mapping itself.
    pub at: At,
    /// `layer:` (only in an inline `x-retry`).
    pub layer: Option<Spanned<Layer>>,
    /// `retry:`.
    pub retry: Option<Spanned<bool>>,
    /// `effect:`.
    pub effect: Option<Spanned<Effect>>,
    /// `idempotency_key:`.
    pub idempotency_key: Option<Box<KeySettings>>,
    /// `status_endpoint:` (a selector).
    pub status_endpoint: Option<Box<Spanned<Selector>>>,
    /// `on_unknown_result:`.
    pub on_unknown_result: Option<Spanned<UnknownResult>>,
    /// `attempts:` (total, including the first; range checked by RL302).
    pub attempts: Option<Spanned<i64>>,
    /// `deadline:` (ms).
    pub deadline: Option<Spanned<Millis>>,
    /// `attempt_timeout:`.
    pub attempt_timeout: Option<Spanned<AttemptTimeout>>,
    /// `backoff:`.
    pub backoff: Option<BackoffSettings>,
    /// `retry_on:` (the list node, and each signal with its item node).
    pub retry_on: Option<Spanned<Vec<Spanned<Signal>>>>,
    /// `retry_after:`.
    pub retry_after: Option<Box<RetryAfterSettings>>,
    /// `ignore:` inside the entry.
    pub ignore: Vec<Suppression>,
    /// Misspelled keys of this mapping and of its `backoff`, `retry_after` and
    /// `idempotency_key` mappings.
    pub misspelled: Vec<Misspelled>,
    /// `methods:` the HTTP methods this layer retries after a request was sent (the
    /// list node, and each method token with its item node); absent: every method.
    pub methods: Option<Spanned<Vec<Spanned<String>>>>,
    /// `budget:` (one of three shapes; the value node is the mapping).
    pub budget: Option<Box<Spanned<RetryBudget>>>,
    /// `hedging:` (the value node is the mapping).
    pub hedging: Option<Spanned<Hedging>>,
    /// Not a policy key: the node of an imported config that switched the deadline
    /// off (Envoy `timeout: 0s`), where a missing-deadline finding points.
    pub deadline_off: Option<At>,
    /// Not a policy key: the effect an imported config infers from the endpoint's own
    /// semantics (a gRPC RPC's `idempotency_level` or AIP method kind, `layers.md`
    /// "Binding" 4). Below any declared `effect`, above the HTTP method's; never a
    /// declaration (no RL103 against one).
    pub inferred_effect: Option<Spanned<Effect>>,
    /// Values written as `todo` in this mapping and its nested ones, in source order.
    pub todos: Vec<Todo>,
}

impl Settings {
    /// Marks `intended` (a dotted path, as [`Misspelled::intended`]) as written at
    /// `at` but refused: an importer reported the value (RL017) and read nothing
    /// from it, so no rule blames the setting again as missing.
    pub fn refuse(&mut self, intended: &str, at: At) {
        self.misspelled.push(Misspelled {
            intended: intended.to_string(),
            at,
        });
    }

    /// True when `field` (a dotted path of [`TODO_FIELDS`]) is `todo` here.
    pub fn is_todo(&self, field: &str) -> bool {
        self.todos.iter().any(|t| t.field == field)
    }
}

impl Settings {
    /// Settings with nothing set, for the mapping at `at`.
    pub fn empty(at: At) -> Settings {
        Settings {
            at,
            layer: None,
            retry: None,
            effect: None,
            idempotency_key: None,
            status_endpoint: None,
            on_unknown_result: None,
            attempts: None,
            deadline: None,
            attempt_timeout: None,
            backoff: None,
            retry_on: None,
            retry_after: None,
            ignore: Vec::new(),
            misspelled: Vec::new(),
            methods: None,
            budget: None,
            hedging: None,
            deadline_off: None,
            inferred_effect: None,
            todos: Vec::new(),
        }
    }
}

/// One `operations` entry.
#[derive(Debug, Clone)]
pub struct OperationEntry {
    /// The selector text as written (the key).
    pub text: String,
    /// The parsed selector; `None` when invalid (RL005 reported).
    pub selector: Option<Selector>,
    /// The entry's value node (`label_span` of it is the selector key).
    pub at: At,
    /// The settings.
    pub settings: Settings,
}

/// One retry-policy file.
#[derive(Debug, Clone)]
pub struct PolicyFile {
    /// The file.
    pub doc: Arc<Loaded>,
    /// The root mapping.
    pub at: At,
    /// `version:` (1 when valid).
    pub version: Option<Spanned<i64>>,
    /// `spec:` paths as written (relative to the policy file); empty when absent.
    pub spec: Vec<Spanned<String>>,
    /// `layer:`; absent means client.
    pub layer: Option<Spanned<Layer>>,
    /// `defaults:`.
    pub defaults: Option<Settings>,
    /// `operations:` entries in source order.
    pub operations: Vec<OperationEntry>,
    /// Top-level `ignore:`.
    pub ignore: Vec<Suppression>,
    /// Set when the file is no written policy but a retry config read by an importer
    /// (`crate::import`): what it is and which documents it is bound to.
    pub imported: Option<ImportedFrom>,
}

/// Where an imported policy came from and what it governs.
#[derive(Debug, Clone)]
pub struct ImportedFrom {
    /// The config object, for messages: `Istio VirtualService inventory-virtual-service`.
    pub source: String,
    /// The platform of the config object (every object of one imported policy has
    /// the same): how a finding's help names the setting to change
    /// (`rules::platform_words`).
    pub platform: super::platform::Platform,
    /// Canonical paths of the OpenAPI documents it is bound to.
    pub governs: Vec<std::path::PathBuf>,
    /// The config calls the bound operations as gRPC (a gRPC service config), so
    /// gRPC status signals can fire on them (`layers.md` "What the model gains").
    pub grpc: bool,
    /// Set when the config is one of several alternatives for the same requests (a
    /// retry client in code among other callers, a Spring profile, an Istio entry
    /// path): `layers.md` "Variants and entry paths". Layers multiply only within
    /// one variant of each group; `None`: the layer is on every path.
    pub variant: Option<Variant>,
    /// A client in code: its other calls of an entry's operation (`METHOD /path` of
    /// the entry, the call), after the call the entry is at. Each is labelled on the
    /// operation's findings like the first (`import::code::call_labels`).
    pub also_called: Vec<(String, crate::source::refs::At)>,
}

/// One alternative among others: a path a request may take, judged on its own
/// (`layers.md` item 6). Layers of the same `group` with different `label`s are never
/// on one path; layers of different groups combine.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Variant {
    /// What the alternatives are alternatives of: `client` (callers in code), `spring
    /// profiles <dir>` (the profiles of one application), `istio entry` (ingress
    /// gateway or mesh).
    pub group: String,
    /// How findings and `layers` name it: ``client `a.py` ``, ``profile `prod` ``,
    /// ``entry path: ingress gateway `public-gateway` ``.
    pub label: String,
}

impl PolicyFile {
    /// The layer the policy describes (client unless it says otherwise).
    pub fn layer(&self) -> Layer {
        self.layer.as_ref().map_or(Layer::Client, |l| l.value)
    }
}
