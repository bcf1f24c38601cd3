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
}

/// Q1: the effect of repeating an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Effect {
    /// No state change (GET, HEAD, OPTIONS, TRACE).
    Safe,
    /// Repeating has the effect of doing it once (PUT, DELETE).
    Idempotent,
    /// Repeating may repeat the effect (POST, PATCH, others).
    NonIdempotent,
}

impl Effect {
    /// The default effect of an HTTP method per RFC 9110 (method compared
    /// case-insensitively, since OpenAPI keys are lower-case).
    pub fn from_method(method: &str) -> Effect {
        match method.to_ascii_uppercase().as_str() {
            "GET" | "HEAD" | "OPTIONS" | "TRACE" => Effect::Safe,
            "PUT" | "DELETE" => Effect::Idempotent,
            _ => Effect::NonIdempotent,
        }
    }

    /// The name as written in policies.
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Safe => "safe",
            Effect::Idempotent => "idempotent",
            Effect::NonIdempotent => "non-idempotent",
        }
    }
}

/// A `retry_on` signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Signal {
    /// No connection was made: never processed.
    ConnectFailure,
    /// HTTP/2 REFUSED_STREAM / GOAWAY above the stream: never processed.
    RefusedStream,
    /// No response in time: outcome unknown.
    Timeout,
    /// Connection lost after sending: outcome unknown.
    Reset,
    /// All four transport signals.
    Transport,
    /// One HTTP status (100..=599).
    Status(u16),
    /// A status class `5xx` / `5XX` (the digit).
    Class(u8),
}

impl Signal {
    /// True when the signal proves the request was never processed
    /// (`connect-failure`, `refused-stream`).
    pub fn never_processed(self) -> bool {
        matches!(self, Signal::ConnectFailure | Signal::RefusedStream)
    }

    /// True when the signal covers the HTTP status `code`.
    pub fn covers_status(self, code: u16) -> bool {
        match self {
            Signal::Status(c) => c == code,
            Signal::Class(d) => code / 100 == d as u16,
            _ => false,
        }
    }
}

impl std::fmt::Display for Signal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Signal::ConnectFailure => f.write_str("connect-failure"),
            Signal::RefusedStream => f.write_str("refused-stream"),
            Signal::Timeout => f.write_str("timeout"),
            Signal::Reset => f.write_str("reset"),
            Signal::Transport => f.write_str("transport"),
            Signal::Status(c) => write!(f, "{c}"),
            Signal::Class(d) => write!(f, "{d}xx"),
        }
    }
}

/// Backoff jitter variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Jitter {
    /// No jitter.
    None,
    /// Uniform in `[0, backoff]`.
    Full,
    /// `backoff/2 + uniform(0, backoff/2)`.
    Equal,
    /// `min(cap, uniform(base, previous * 3))`.
    Decorrelated,
}

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

/// `retry_after.on_invalid`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OnInvalid {
    /// Ignore the header, use the backoff.
    Backoff,
    /// Stop retrying.
    Stop,
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
    pub idempotency_key: Option<KeySettings>,
    /// `status_endpoint:` (a selector).
    pub status_endpoint: Option<Spanned<Selector>>,
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
    pub retry_after: Option<RetryAfterSettings>,
    /// `ignore:` inside the entry.
    pub ignore: Vec<Suppression>,
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
}

impl PolicyFile {
    /// The layer the policy describes (client unless it says otherwise).
    pub fn layer(&self) -> Layer {
        self.layer.as_ref().map_or(Layer::Client, |l| l.value)
    }
}
