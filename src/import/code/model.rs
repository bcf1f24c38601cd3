//! What a language extractor reads out of one source file, before it becomes a
//! layer: the retry clients it builds (a urllib3 `Retry`, a tenacity decorator, an
//! axios-retry call, a resty builder chain) with every setting and its byte span,
//! and the HTTP calls it makes (method, URL, receiver), so that
//! [`super::link`] can join clients to their call sites across files and
//! [`super::lower`] can turn each client into a [`crate::import::ConfigObject`].
//!
//! Every value says how it is known ([`Known`]): read from a literal, a library
//! default (named with the library and version), or assumed because the code does
//! not say it statically (RL019, never a guess).

use crate::import::Platform;
use crate::policy::model::{Jitter, Signal};
use std::ops::Range;

/// A byte range in the source file.
pub type Span = Range<usize>;

/// How a value is known.
#[derive(Debug, Clone, PartialEq)]
pub enum Known {
    /// Written in the code as a literal or a same-file constant (`total=5`,
    /// `100 * time.Millisecond`, `STATUS_FORCELIST`).
    Literal,
    /// Not written: the library's default, with where it comes from ("urllib3 2.x
    /// `Retry.DEFAULT_ALLOWED_METHODS`", "tenacity: `stop_never`").
    Default(String),
    /// Written, but not statically known (an environment variable, a parameter,
    /// another module's value, a lambda): `expr` is the source text, `assumed` what
    /// retrylint assumed instead (RL019 `unresolved-setting` says both).
    Assumed {
        /// The expression as written (`os.environ["RETRIES"]`, `config.MaxRetries_`).
        expr: String,
        /// What was assumed ("the library default, 3 retries", "may retry anything").
        assumed: String,
    },
    /// Written as a literal no value can be read from (NaN, an infinite float such
    /// as `1e400` or `float('inf')`): `why` says so. RL017 at it, and the setting
    /// is read as nothing (not the library default), marked so that no second
    /// finding blames it as missing (issue 43).
    Refused {
        /// The message: "`multiplier=float('nan')` is not a finite number".
        why: String,
    },
}

/// One setting: its value, where it is written (or, for a default, the construct
/// that would have written it), and how it is known.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting<T> {
    /// The value in policy units (attempts are total tries; times are ms).
    pub value: T,
    /// Where the finding about this value points.
    pub span: Span,
    /// Literal, default or assumed.
    pub known: Known,
}

impl<T> Setting<T> {
    /// A value read from a literal at `span`.
    pub fn literal(value: T, span: Span) -> Setting<T> {
        Setting {
            value,
            span,
            known: Known::Literal,
        }
    }

    /// A library default that applies at `span` (the constructor or decorator),
    /// with its source (`"urllib3 2.x: backoff_max = 120 s"`).
    pub fn default(value: T, span: Span, source: impl Into<String>) -> Setting<T> {
        Setting {
            value,
            span,
            known: Known::Default(source.into()),
        }
    }

    /// A literal at `span` from which no value is read ([`Known::Refused`]);
    /// `placeholder` fills `value` and is never used.
    pub fn refused(placeholder: T, span: Span, why: impl Into<String>) -> Setting<T> {
        Setting {
            value: placeholder,
            span,
            known: Known::Refused { why: why.into() },
        }
    }

    /// Whether no value is read from this setting ([`Known::Refused`]).
    pub fn is_refused(&self) -> bool {
        matches!(self.known, Known::Refused { .. })
    }

    /// A value that is not statically known: `expr` as written, `assumed` what the
    /// value stands for (RL019).
    pub fn assumed(
        value: T,
        span: Span,
        expr: impl Into<String>,
        assumed: impl Into<String>,
    ) -> Setting<T> {
        Setting {
            value,
            span,
            known: Known::Assumed {
                expr: expr.into(),
                assumed: assumed.into(),
            },
        }
    }
}

/// The backoff of a client, in policy terms (`policy-format.md` `backoff`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Backoff {
    /// First delay bound (ms).
    pub base: Option<Setting<f64>>,
    /// Largest delay (ms); `None`: uncapped.
    pub cap: Option<Setting<f64>>,
    /// Growth factor (1 for a constant delay).
    pub multiplier: Option<Setting<f64>>,
    /// Jitter variant (`Jitter::None` when the library adds none).
    pub jitter: Option<Setting<Jitter>>,
}

/// How a client treats `Retry-After`.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryAfter {
    /// True when the client waits at least what the header says.
    pub honor: Setting<bool>,
    /// The largest value it waits (ms); `None`: uncapped.
    pub max: Option<Setting<f64>>,
}

/// A retry client built in code: one library construct and its settings, in policy
/// units and counting (attempts are total tries, whatever the library counts).
#[derive(Debug, Clone)]
pub struct CodeClient {
    /// The library (names the layer: "urllib3", "tenacity").
    pub platform: Platform,
    /// The construct as written, for messages: `Retry(...)`, `@retry`,
    /// `axiosRetry(...)`, `resty.New()`.
    pub kind: String,
    /// The names the client is reached by: the variable or field it is stored in,
    /// the decorated function, an exported name, a Resilience4j instance name.
    /// [`super::link`] binds call sites through them; `services[].clients` in
    /// `.retrylint.yaml` names them.
    pub names: Vec<(String, Span)>,
    /// The construct (where RL016 points when nothing binds).
    pub span: Span,
    /// A named instance whose settings live in a config file the config importers
    /// read (Resilience4j `@Retry(name = "payments")` -> `resilience4j.retry.
    /// instances.payments`): when the run holds it, its settings (with their
    /// origins in that file) replace the ones read here.
    pub instance: Option<(String, Span)>,
    /// Total tries including the first; `None` when the client does not retry.
    pub attempts: Option<Setting<i64>>,
    /// What it retries on; `None`: the library cannot say (a custom predicate: "may
    /// retry anything", with the predicate as an assumed value).
    pub retry_on: Option<Setting<Vec<Signal>>>,
    /// The HTTP methods it retries after a request was sent; `None`: every method.
    pub methods: Option<Setting<Vec<String>>>,
    /// Backoff.
    pub backoff: Backoff,
    /// Retry-After handling; `None`: ignored.
    pub retry_after: Option<RetryAfter>,
    /// The overall deadline across attempts (ms); `None`: none.
    pub deadline: Option<Setting<f64>>,
    /// The per-attempt timeout (ms); `None`: none.
    pub attempt_timeout: Option<Setting<f64>>,
    /// Notes that explain a default or a counting (shown with findings at `span`):
    /// "urllib3 counts retries: total=5 is 6 attempts".
    pub notes: Vec<(Span, String)>,
    /// Calls made through this client that the extractor saw directly (inside a
    /// decorated function, on the variable in the same file).
    pub calls: Vec<CallSite>,
    /// Findings the extractor made itself (RL017, RL019, RL208), as (code, span,
    /// message, help).
    pub findings: Vec<Finding>,
    /// Upper-case HTTP methods the client never retries, not even on a connection
    /// error (resty v3 without `SetAllowNonIdempotentRetry(true)`: POST, PATCH): a
    /// call with one of them is not retried at all. Empty for most libraries,
    /// whose method filter (`methods`) applies after the request was sent only.
    pub never_retries: Vec<String>,
    /// Signals of `retry_on` the client retries for some methods only, each group
    /// as (signals, upper-case methods): axios-retry's default condition retries
    /// network errors on every method but `5xx` and `429` only on GET, HEAD,
    /// OPTIONS, PUT, DELETE. A call whose method a group leaves out is retried on
    /// the rest of `retry_on` only; a call whose method is not known keeps them
    /// all. Empty for most libraries.
    pub method_scoped: Vec<(Vec<Signal>, Vec<String>)>,
    /// The URL prefixes the client serves, each where it is written (the literal
    /// prefix of `session.mount("https://", HTTPAdapter(max_retries=...))`); empty:
    /// every URL (also when a mount prefix is not a literal).
    pub url_prefixes: Vec<(String, Span)>,
}

impl CodeClient {
    /// A client of `platform` built by `kind` at `span`, with nothing read yet.
    pub fn new(platform: Platform, kind: impl Into<String>, span: Span) -> CodeClient {
        CodeClient {
            platform,
            kind: kind.into(),
            names: Vec::new(),
            span,
            instance: None,
            attempts: None,
            retry_on: None,
            methods: None,
            backoff: Backoff::default(),
            retry_after: None,
            deadline: None,
            attempt_timeout: None,
            notes: Vec::new(),
            calls: Vec::new(),
            findings: Vec::new(),
            never_retries: Vec::new(),
            method_scoped: Vec::new(),
            url_prefixes: Vec::new(),
        }
    }
}

/// The URL of a call, as far as the code says it.
#[derive(Debug, Clone, PartialEq)]
pub enum Url {
    /// A literal path or URL (`"/orders"`, `"https://api.example.com/orders"`).
    Literal(String),
    /// A literal start followed by something computed (`BASE + "/orders/" + id`
    /// gives `Prefix("/orders/")` when `BASE` is unknown; f-strings and template
    /// literals keep their literal parts with `{}` for each hole).
    Template(String),
    /// A generated client's method, named by the operationId it was generated from
    /// (`api.create_order(...)`, `CreateOrderWithResponse`): matched against
    /// operationIds, not paths.
    OperationId(String),
    /// Not known statically (an environment variable, a parameter): the expression.
    Unknown(String),
}

/// One HTTP call the code makes.
#[derive(Debug, Clone, PartialEq)]
pub struct CallSite {
    /// The receiver as written (`session`, `utils.RestyClient`, `request`), so calls
    /// in other files link to the client stored under that name.
    pub receiver: String,
    /// Upper-case HTTP method (`POST`); `None` when computed.
    pub method: Option<String>,
    /// The URL.
    pub url: Url,
    /// The call expression.
    pub span: Span,
    /// The request header names the call sets (lower case), so a retried `POST` that
    /// carries `Idempotency-Key` is seen.
    pub headers: Vec<String>,
}

/// A finding an extractor makes about the code itself.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The rule code (`RL017`, `RL019`, `RL208`).
    pub code: &'static str,
    /// Where it points.
    pub span: Span,
    /// The message.
    pub message: String,
    /// A short label at the span.
    pub label: String,
    /// Help.
    pub help: String,
}

/// What one file gave.
#[derive(Debug, Clone, Default)]
pub struct CodeFacts {
    /// The retry clients it builds.
    pub clients: Vec<CodeClient>,
    /// Calls not tied to a client of this file (linked by receiver name across
    /// files).
    pub calls: Vec<CallSite>,
    /// Facts the extractor could not read (shown by `--verbose`, never a finding).
    pub notes: Vec<String>,
    /// Base URLs that client registrations give the calls made through a client, as
    /// (receiver, absolute URL): `AddHttpClient<OrderingService>(o => o.BaseAddress
    /// = new("https+http://ordering-api"))` gives the calls with receiver
    /// `HttpClient:OrderingService` the base `https://ordering-api`, in any file.
    /// Their relative URLs resolve against it before binding, so its host binds them.
    pub base_urls: Vec<(String, String)>,
}
