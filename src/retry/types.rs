//! Vocabulary shared by the policy-mode decision, the simulation and the policy
//! parser: the effect of an operation, jitter variants, observed signals and
//! `retry_on` entries.
//!
//! Every type parses (`FromStr`) and prints (`Display`) with the spelling of
//! policy-format.md (kebab-case), and (de)serialises through that same spelling,
//! so a policy file, the readiness matrix and the JSON output agree.

use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// Error returned when a policy-format token is not recognised.
///
/// Holds the rejected text and what was expected, so the policy parser can build
/// a diagnostic ("did you mean" suggestions are the parser's job).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseTokenError {
    /// The text that was rejected.
    pub found: String,
    /// What was expected, e.g. "one of `none`, `full`, `equal`, `decorrelated`".
    pub expected: &'static str,
}

impl fmt::Display for ParseTokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not valid: expected {}",
            self.found, self.expected
        )
    }
}

impl std::error::Error for ParseTokenError {}

pub(super) fn token_error(found: &str, expected: &'static str) -> ParseTokenError {
    ParseTokenError {
        found: found.to_owned(),
        expected,
    }
}

/// Serde support through `Display`/`FromStr`; integers are accepted too (a
/// status such as `429` is an integer in YAML) and parsed from their decimal text.
macro_rules! serde_via_str {
    ($t:ty) => {
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer.deserialize_any(FromStrVisitor::<$t>(PhantomData))
            }
        }
    };
}

struct FromStrVisitor<T>(PhantomData<T>);

impl<T> Visitor<'_> for FromStrVisitor<T>
where
    T: FromStr<Err = ParseTokenError>,
{
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a retry-policy token")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        v.parse().map_err(E::custom)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        self.visit_str(&v.to_string())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        self.visit_str(&v.to_string())
    }
}

/// The effect of repeating an operation (policy-format.md `effect`; RFC 9110 §9.2.1
/// safe methods, §9.2.2 idempotent methods).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Effect {
    /// `safe`: no intended state change (GET, HEAD, OPTIONS, TRACE by default).
    Safe,
    /// `idempotent`: repeating has the effect of doing it once (PUT, DELETE by default).
    Idempotent,
    /// `non-idempotent`: a repeat is a new command (POST, PATCH and others by default).
    NonIdempotent,
}

impl Effect {
    /// The default effect of an HTTP method token (policy-format.md, from RFC 9110
    /// §9.2.1/§9.2.2): `GET HEAD OPTIONS TRACE` are safe, `PUT DELETE` idempotent,
    /// everything else non-idempotent. Method tokens are case-sensitive, so `get`
    /// is non-idempotent.
    pub fn from_method(method: &str) -> Effect {
        match method {
            "GET" | "HEAD" | "OPTIONS" | "TRACE" => Effect::Safe,
            "PUT" | "DELETE" => Effect::Idempotent,
            _ => Effect::NonIdempotent,
        }
    }

    /// The default effect of an OpenAPI operation's method, whose keys are
    /// lower-case (`post`): [`Effect::from_method`] on the upper-cased method.
    pub fn from_openapi_method(method: &str) -> Effect {
        Effect::from_method(&method.to_ascii_uppercase())
    }

    /// Whether this effect alone makes a repeat acceptable (`safe` or `idempotent`).
    pub fn is_repeatable(self) -> bool {
        matches!(self, Effect::Safe | Effect::Idempotent)
    }

    /// The less safe of two effects (`non-idempotent` before `idempotent` before
    /// `safe`): what a caller must assume when two sources declare different effects
    /// for one endpoint (layers.md "Effect is the endpoint's").
    pub fn least_safe(self, other: Effect) -> Effect {
        let rank = |e: Effect| match e {
            Effect::Safe => 0,
            Effect::Idempotent => 1,
            Effect::NonIdempotent => 2,
        };
        if rank(other) > rank(self) {
            other
        } else {
            self
        }
    }

    /// The policy-format spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Safe => "safe",
            Effect::Idempotent => "idempotent",
            Effect::NonIdempotent => "non-idempotent",
        }
    }
}

impl fmt::Display for Effect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Effect {
    type Err = ParseTokenError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "safe" => Ok(Effect::Safe),
            "idempotent" => Ok(Effect::Idempotent),
            "non-idempotent" => Ok(Effect::NonIdempotent),
            _ => Err(token_error(
                s,
                "one of `safe`, `idempotent`, `non-idempotent`",
            )),
        }
    }
}
serde_via_str!(Effect);

/// Jitter variant of a backoff (policy-format.md `backoff.jitter`; formulas in
/// domain.md "The policy-mode decision").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Jitter {
    /// `none`: delay = backoff.
    None,
    /// `full`: delay = uniform(0, backoff).
    Full,
    /// `equal`: delay = backoff / 2 + uniform(0, backoff / 2).
    Equal,
    /// `decorrelated`: delay = min(cap, uniform(base, previous * 3)).
    Decorrelated,
    /// `proportional` with factor f (`jitter: {proportional: f}`): delay =
    /// uniform(b(1-f), b(1+f)) around the capped backoff b (gRPC A6: f = 0.2;
    /// Resilience4j, Spring Cloud Gateway, Traefik: 0.5; `layers.md`).
    Proportional(JitterFactor),
}

/// The factor f of [`Jitter::Proportional`]: a finite number with 0 < f <= 1.
///
/// Ordered and hashed by value (a valid factor is never NaN nor -0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JitterFactor(f64);

impl JitterFactor {
    /// `Some` when `f` is finite, above 0 and at most 1.
    pub fn new(f: f64) -> Option<JitterFactor> {
        (f.is_finite() && f > 0.0 && f <= 1.0).then_some(JitterFactor(f))
    }

    /// The factor.
    pub fn get(self) -> f64 {
        self.0
    }
}

impl Eq for JitterFactor {}

impl PartialOrd for JitterFactor {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for JitterFactor {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

impl std::hash::Hash for JitterFactor {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state);
    }
}

impl Jitter {
    /// The policy-format spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Jitter::None => "none",
            Jitter::Full => "full",
            Jitter::Equal => "equal",
            Jitter::Decorrelated => "decorrelated",
            Jitter::Proportional(_) => "proportional",
        }
    }
}

impl fmt::Display for Jitter {
    /// The variant's name; `proportional(0.2)` with its factor.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Jitter::Proportional(factor) => write!(f, "proportional({})", factor.get()),
            _ => f.write_str(self.as_str()),
        }
    }
}

impl FromStr for Jitter {
    type Err = ParseTokenError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "none" => Ok(Jitter::None),
            "full" => Ok(Jitter::Full),
            "equal" => Ok(Jitter::Equal),
            "decorrelated" => Ok(Jitter::Decorrelated),
            _ => s
                .strip_prefix("proportional(")
                .and_then(|rest| rest.strip_suffix(')'))
                .and_then(|f| f.parse::<f64>().ok())
                .and_then(JitterFactor::new)
                .map(Jitter::Proportional)
                .ok_or_else(|| {
                    token_error(
                        s,
                        "one of `none`, `full`, `equal`, `decorrelated`, `proportional(F)` with 0 < F <= 1",
                    )
                }),
        }
    }
}
serde_via_str!(Jitter);

/// What to do with a malformed or negative Retry-After (policy-format.md
/// `retry_after.on_invalid`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum OnInvalid {
    /// `backoff`: ignore the header and use the backoff alone.
    #[default]
    Backoff,
    /// `stop`: stop with `invalid-retry-after`.
    Stop,
}

impl OnInvalid {
    /// The policy-format spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            OnInvalid::Backoff => "backoff",
            OnInvalid::Stop => "stop",
        }
    }
}

impl fmt::Display for OnInvalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for OnInvalid {
    type Err = ParseTokenError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "backoff" => Ok(OnInvalid::Backoff),
            "stop" => Ok(OnInvalid::Stop),
            _ => Err(token_error(s, "one of `backoff`, `stop`")),
        }
    }
}
serde_via_str!(OnInvalid);

/// An observed failure signal: what the client saw instead of a success
/// (policy-format.md `retry_on`; RFC 9113 §8.7 for `refused-stream`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Signal {
    /// `connect-failure`: no connection was made (DNS, refused, TLS, connect
    /// timeout); the request was never processed.
    ConnectFailure,
    /// `refused-stream`: HTTP/2 REFUSED_STREAM or GOAWAY above the stream; never
    /// processed (RFC 9113 §8.7).
    RefusedStream,
    /// `timeout`: no response in time; the outcome is unknown.
    Timeout,
    /// `reset`: connection lost after sending; the outcome is unknown.
    Reset,
    /// An HTTP response status code (100..=599, RFC 9110 §15).
    Status(u16),
    /// `reset-before-request`: connection lost before any byte was sent; never
    /// processed (Envoy >= 1.31).
    ResetBeforeRequest,
    /// A gRPC status of a gRPC call.
    Grpc(GrpcCode),
}

impl Signal {
    /// The `retry_on` entry naming exactly this signal.
    pub fn entry(self) -> RetryOnEntry {
        match self {
            Signal::ConnectFailure => RetryOnEntry::ConnectFailure,
            Signal::RefusedStream => RetryOnEntry::RefusedStream,
            Signal::Timeout => RetryOnEntry::Timeout,
            Signal::Reset => RetryOnEntry::Reset,
            Signal::Status(code) => RetryOnEntry::Status(code),
            Signal::ResetBeforeRequest => RetryOnEntry::ResetBeforeRequest,
            Signal::Grpc(code) => RetryOnEntry::Grpc(code),
        }
    }

    // `proves_not_processed` and `is_transport` read the signal table: see
    // `super::signals`.
}

impl fmt::Display for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.entry().fmt(f)
    }
}

/// Parses a three-digit status code 100..=599 (RFC 9110 §15).
pub(super) fn parse_status(s: &str) -> Option<u16> {
    if s.len() == 3 && s.bytes().all(|b| b.is_ascii_digit()) {
        let code: u16 = s.parse().ok()?;
        (100..=599).contains(&code).then_some(code)
    } else {
        None
    }
}

serde_via_str!(Signal);

/// A gRPC status code a `retry_on` entry may name (gRPC `doc/statuscodes.md`;
/// Envoy's gRPC `retry_on` tokens). Only these seven are retry signals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GrpcCode {
    /// `cancelled` (CANCELLED, 1).
    Cancelled,
    /// `unknown` (UNKNOWN, 2).
    Unknown,
    /// `deadline-exceeded` (DEADLINE_EXCEEDED, 4).
    DeadlineExceeded,
    /// `resource-exhausted` (RESOURCE_EXHAUSTED, 8).
    ResourceExhausted,
    /// `aborted` (ABORTED, 10).
    Aborted,
    /// `internal` (INTERNAL, 13).
    Internal,
    /// `unavailable` (UNAVAILABLE, 14).
    Unavailable,
}

impl GrpcCode {
    /// The policy-format spelling (`resource-exhausted`).
    pub fn as_str(self) -> &'static str {
        match self {
            GrpcCode::Cancelled => "cancelled",
            GrpcCode::Unknown => "unknown",
            GrpcCode::DeadlineExceeded => "deadline-exceeded",
            GrpcCode::ResourceExhausted => "resource-exhausted",
            GrpcCode::Aborted => "aborted",
            GrpcCode::Internal => "internal",
            GrpcCode::Unavailable => "unavailable",
        }
    }

    /// The numeric gRPC status code.
    pub fn code(self) -> u8 {
        match self {
            GrpcCode::Cancelled => 1,
            GrpcCode::Unknown => 2,
            GrpcCode::DeadlineExceeded => 4,
            GrpcCode::ResourceExhausted => 8,
            GrpcCode::Aborted => 10,
            GrpcCode::Internal => 13,
            GrpcCode::Unavailable => 14,
        }
    }
}

/// One entry of a policy's `retry_on` list (policy-format.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RetryOnEntry {
    /// `connect-failure`.
    ConnectFailure,
    /// `refused-stream`.
    RefusedStream,
    /// `timeout`.
    Timeout,
    /// `reset`.
    Reset,
    /// `transport`: all four transport signals above.
    Transport,
    /// An HTTP status such as `429` (100..=599).
    Status(u16),
    /// A status class such as `5xx` or `5XX` (the digit 1..=5).
    Class(u8),
    /// `reset-before-request` (never processed; not part of `transport`).
    ResetBeforeRequest,
    /// A gRPC status such as `unavailable` (only on gRPC-bound operations).
    Grpc(GrpcCode),
}

impl RetryOnEntry {
    /// Whether an observed signal is covered by this entry: a class covers its
    /// codes, `transport` covers the four transport signals, a named entry its
    /// signal.
    pub fn covers(self, signal: Signal) -> bool {
        match (self, signal) {
            (RetryOnEntry::Transport, s) => s.is_transport(),
            (RetryOnEntry::Class(c), Signal::Status(b)) => b / 100 == u16::from(c),
            (entry, s) => entry == s.entry(),
        }
    }
}

impl RetryOnEntry {
    // `never_processed` and `applies_to` read the signal table: see `super::signals`.

    /// True when the entry covers the HTTP status `code` (the status itself, or its
    /// class).
    pub fn covers_status(self, code: u16) -> bool {
        self.covers(Signal::Status(code))
    }
}

/// Whether any entry of `retry_on` covers `signal`.
pub fn retry_on_covers(retry_on: &[RetryOnEntry], signal: Signal) -> bool {
    retry_on.iter().any(|e| e.covers(signal))
}

impl fmt::Display for RetryOnEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RetryOnEntry::ConnectFailure => f.write_str("connect-failure"),
            RetryOnEntry::RefusedStream => f.write_str("refused-stream"),
            RetryOnEntry::Timeout => f.write_str("timeout"),
            RetryOnEntry::Reset => f.write_str("reset"),
            RetryOnEntry::Transport => f.write_str("transport"),
            RetryOnEntry::Status(code) => write!(f, "{code}"),
            RetryOnEntry::Class(c) => write!(f, "{c}xx"),
            RetryOnEntry::ResetBeforeRequest => f.write_str("reset-before-request"),
            RetryOnEntry::Grpc(code) => f.write_str(code.as_str()),
        }
    }
}

serde_via_str!(RetryOnEntry);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip() {
        for t in ["safe", "idempotent", "non-idempotent"] {
            assert_eq!(t.parse::<Effect>().unwrap().to_string(), t);
        }
        for t in ["none", "full", "equal", "decorrelated"] {
            assert_eq!(t.parse::<Jitter>().unwrap().to_string(), t);
        }
        for t in ["backoff", "stop"] {
            assert_eq!(t.parse::<OnInvalid>().unwrap().to_string(), t);
        }
        for t in [
            "connect-failure",
            "refused-stream",
            "timeout",
            "reset",
            "503",
        ] {
            assert_eq!(t.parse::<Signal>().unwrap().to_string(), t);
        }
        for t in [
            "transport",
            "connect-failure",
            "refused-stream",
            "timeout",
            "reset",
            "429",
            "5xx",
        ] {
            assert_eq!(t.parse::<RetryOnEntry>().unwrap().to_string(), t);
        }
    }

    #[test]
    fn classes_parse_in_both_cases_only() {
        assert_eq!("5xx".parse::<RetryOnEntry>(), Ok(RetryOnEntry::Class(5)));
        assert_eq!("5XX".parse::<RetryOnEntry>(), Ok(RetryOnEntry::Class(5)));
        assert!("5xX".parse::<RetryOnEntry>().is_err());
        assert!("6xx".parse::<RetryOnEntry>().is_err());
        assert!("600".parse::<RetryOnEntry>().is_err());
        assert!("42".parse::<RetryOnEntry>().is_err());
        assert!("Transport".parse::<RetryOnEntry>().is_err());
        assert!("nonidempotent".parse::<Effect>().is_err());
    }

    #[test]
    fn coverage() {
        let c5 = RetryOnEntry::Class(5);
        assert!(c5.covers(Signal::Status(503)));
        assert!(!c5.covers(Signal::Status(429)));
        assert!(!c5.covers(Signal::Timeout));
        for s in [
            Signal::ConnectFailure,
            Signal::RefusedStream,
            Signal::Timeout,
            Signal::Reset,
        ] {
            assert!(RetryOnEntry::Transport.covers(s));
        }
        assert!(!RetryOnEntry::Transport.covers(Signal::Status(503)));
        assert!(!RetryOnEntry::ConnectFailure.covers(Signal::Timeout));
        assert!(RetryOnEntry::Status(429).covers(Signal::Status(429)));
    }

    #[test]
    fn openapi_methods_are_lower_case() {
        assert_eq!(Effect::from_openapi_method("get"), Effect::Safe);
        assert_eq!(Effect::from_openapi_method("delete"), Effect::Idempotent);
        assert_eq!(Effect::from_openapi_method("post"), Effect::NonIdempotent);
        assert!(RetryOnEntry::Class(5).covers_status(503));
        assert!(!RetryOnEntry::Transport.covers_status(503));
        assert!(RetryOnEntry::RefusedStream.never_processed());
        assert!(!RetryOnEntry::Transport.never_processed());
    }

    #[test]
    fn effect_from_method_is_case_sensitive() {
        assert_eq!(Effect::from_method("GET"), Effect::Safe);
        assert_eq!(Effect::from_method("DELETE"), Effect::Idempotent);
        assert_eq!(Effect::from_method("get"), Effect::NonIdempotent);
        assert_eq!(Effect::from_method("PATCH"), Effect::NonIdempotent);
    }

    #[test]
    fn serde_uses_policy_spelling() {
        let v: Vec<RetryOnEntry> = serde_json::from_str(r#"["transport", 429, "5XX"]"#).unwrap();
        assert_eq!(
            v,
            vec![
                RetryOnEntry::Transport,
                RetryOnEntry::Status(429),
                RetryOnEntry::Class(5)
            ]
        );
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"["transport","429","5xx"]"#
        );
        assert_eq!(
            serde_json::to_string(&Effect::NonIdempotent).unwrap(),
            r#""non-idempotent""#
        );
    }
}
