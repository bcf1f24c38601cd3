//! What each named `retry_on` signal means: the one table that says which signals
//! prove the request was **never processed**, which ones `transport` covers, and
//! which apply only to gRPC-bound operations.
//!
//! Everything that needs this knowledge reads [`SIGNALS`]: the parser's signal
//! names, [`RetryOnEntry::never_processed`] (and so RL201's possibly-processed
//! signals and readiness `never-processed`), [`Signal::proves_not_processed`] (the
//! policy-mode decision), the JSON Schema (`policy::schema`) and the signal table
//! of `docs/policy-format.md`, which a test compares with [`markdown_table`].
//!
//! Sources: `layers.md` "What the model gains" (the v1 meanings stay; the new
//! signals); `retry-configs.md` §3.2 (Envoy `retry_on` tokens, from
//! `source/common/router/retry_state_impl.cc`); RFC 9113 §8.7 (REFUSED_STREAM);
//! the gRPC status codes of `grpc/grpc` `doc/statuscodes.md`.

use std::str::FromStr;

use super::types::{parse_status, token_error, GrpcCode, ParseTokenError, RetryOnEntry, Signal};

/// The meaning of one named `retry_on` signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignalMeaning {
    /// The policy-format spelling (`connect-failure`).
    pub name: &'static str,
    /// The `retry_on` entry it parses to.
    pub entry: RetryOnEntry,
    /// The signal proves the request was never processed, so repeating it cannot
    /// duplicate anything, whatever the method: no RL201, and a methods filter
    /// does not apply to it.
    pub never_processed: bool,
    /// `transport` covers it.
    pub in_transport: bool,
    /// It applies only to gRPC-bound operations (a gRPC status, seen only on a
    /// gRPC call); on any other operation it never fires.
    pub grpc_only: bool,
    /// What was observed, in a few words (docs and schema).
    pub meaning: &'static str,
    /// Where the meaning comes from.
    pub source: &'static str,
}

const fn row(
    name: &'static str,
    entry: RetryOnEntry,
    never_processed: bool,
    in_transport: bool,
    meaning: &'static str,
    source: &'static str,
) -> SignalMeaning {
    SignalMeaning {
        name,
        entry,
        never_processed,
        in_transport,
        grpc_only: false,
        meaning,
        source,
    }
}

const fn grpc(name: &'static str, code: GrpcCode, meaning: &'static str) -> SignalMeaning {
    SignalMeaning {
        name,
        entry: RetryOnEntry::Grpc(code),
        never_processed: false,
        in_transport: false,
        grpc_only: true,
        meaning,
        source: "gRPC status codes (grpc/grpc doc/statuscodes.md); Envoy `retry_on` gRPC tokens",
    }
}

/// Every named signal of `retry_on` (`transport` is the group of the rows with
/// `in_transport`; statuses and classes are not named). The v1 meanings of the
/// first four are unchanged; gRPC statuses are never "never processed" (gRPC's
/// transparent retries are a separate, safe mechanism, `layers.md`).
pub const SIGNALS: &[SignalMeaning] = &[
    row(
        "connect-failure",
        RetryOnEntry::ConnectFailure,
        true,
        true,
        "no connection was made (DNS, refused, TLS, connect timeout)",
        "policy-format v1; Envoy `connect-failure`",
    ),
    row(
        "refused-stream",
        RetryOnEntry::RefusedStream,
        true,
        true,
        "HTTP/2 REFUSED_STREAM, or GOAWAY above the stream",
        "RFC 9113 section 8.7; Envoy `refused-stream`",
    ),
    row(
        "timeout",
        RetryOnEntry::Timeout,
        false,
        true,
        "no response in time (a per-try timeout included): outcome unknown",
        "policy-format v1; Envoy per-try timeout",
    ),
    row(
        "reset",
        RetryOnEntry::Reset,
        false,
        true,
        "connection lost after sending: outcome unknown",
        "policy-format v1; Envoy `reset`",
    ),
    row(
        "reset-before-request",
        RetryOnEntry::ResetBeforeRequest,
        true,
        false,
        "connection lost before any byte of the request was sent",
        "Envoy >= 1.31 `reset-before-request` (`!upstream_request_started`)",
    ),
    grpc(
        "unavailable",
        GrpcCode::Unavailable,
        "gRPC UNAVAILABLE (14): usually not processed, not guaranteed",
    ),
    grpc(
        "resource-exhausted",
        GrpcCode::ResourceExhausted,
        "gRPC RESOURCE_EXHAUSTED (8), like 429",
    ),
    grpc(
        "deadline-exceeded",
        GrpcCode::DeadlineExceeded,
        "gRPC DEADLINE_EXCEEDED (4): outcome unknown",
    ),
    grpc(
        "internal",
        GrpcCode::Internal,
        "gRPC INTERNAL (13): outcome unknown",
    ),
    grpc(
        "unknown",
        GrpcCode::Unknown,
        "gRPC UNKNOWN (2): outcome unknown",
    ),
    grpc(
        "aborted",
        GrpcCode::Aborted,
        "gRPC ABORTED (10): outcome unknown",
    ),
    grpc(
        "cancelled",
        GrpcCode::Cancelled,
        "gRPC CANCELLED (1): outcome unknown",
    ),
];

/// The meaning of a named entry; `None` for `transport`, a status or a class.
pub fn meaning_of(entry: RetryOnEntry) -> Option<&'static SignalMeaning> {
    SIGNALS.iter().find(|m| m.entry == entry)
}

/// The meaning of a signal name as written in `retry_on`.
pub fn meaning_named(name: &str) -> Option<&'static SignalMeaning> {
    SIGNALS.iter().find(|m| m.name == name)
}

/// The number of names [`signal_names`] gives: the table's, and `transport`.
pub const SIGNAL_NAME_COUNT: usize = SIGNALS.len() + 1;

/// Every signal name `retry_on` accepts: the table's, then `transport`.
pub const fn signal_names() -> [&'static str; SIGNAL_NAME_COUNT] {
    let mut out = ["transport"; SIGNAL_NAME_COUNT];
    let mut i = 0;
    while i < SIGNALS.len() {
        out[i] = SIGNALS[i].name;
        i += 1;
    }
    out
}

impl RetryOnEntry {
    /// True when the entry only matches signals that prove the request was never
    /// processed (`connect-failure`, `refused-stream`, `reset-before-request`):
    /// [`SIGNALS`] says. `transport`, statuses and classes may match processed
    /// requests.
    pub fn never_processed(self) -> bool {
        meaning_of(self).is_some_and(|m| m.never_processed)
    }

    /// Whether the entry can fire on an operation: a gRPC status only on a
    /// gRPC-bound one ([`SIGNALS`] `grpc_only`).
    pub fn applies_to(self, grpc_bound: bool) -> bool {
        grpc_bound || !meaning_of(self).is_some_and(|m| m.grpc_only)
    }
}

impl Signal {
    /// Whether the signal proves the request was never processed, which makes any
    /// request repeatable (domain.md "The policy-mode decision"): [`SIGNALS`] says.
    pub fn proves_not_processed(self) -> bool {
        self.entry().never_processed()
    }

    /// Whether `transport` covers this signal ([`SIGNALS`] `in_transport`).
    pub fn is_transport(self) -> bool {
        meaning_of(self.entry()).is_some_and(|m| m.in_transport)
    }
}

/// Signal names from [`SIGNALS`] (not `transport`), or a status 100..=599.
impl FromStr for Signal {
    type Err = ParseTokenError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let observed = match meaning_named(s).map(|m| m.entry) {
            Some(RetryOnEntry::ConnectFailure) => Some(Signal::ConnectFailure),
            Some(RetryOnEntry::RefusedStream) => Some(Signal::RefusedStream),
            Some(RetryOnEntry::Timeout) => Some(Signal::Timeout),
            Some(RetryOnEntry::Reset) => Some(Signal::Reset),
            Some(RetryOnEntry::ResetBeforeRequest) => Some(Signal::ResetBeforeRequest),
            Some(RetryOnEntry::Grpc(code)) => Some(Signal::Grpc(code)),
            _ => parse_status(s).map(Signal::Status),
        };
        observed.ok_or_else(|| {
            token_error(
                s,
                "a signal name of `retry_on` other than `transport` (`connect-failure`, `timeout`, `unavailable`, ...) or a status 100..599",
            )
        })
    }
}

/// `transport`, signal names from [`SIGNALS`], a status 100..=599 or a class such as
/// `5xx`/`5XX`.
impl FromStr for RetryOnEntry {
    type Err = ParseTokenError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        const EXPECTED: &str = "a signal name (`transport`, `connect-failure`, `timeout`, `unavailable`, ...), a status 100..599 or a class such as `5xx`";
        if s == "transport" {
            return Ok(RetryOnEntry::Transport);
        }
        if let Some(m) = meaning_named(s) {
            return Ok(m.entry);
        }
        if let Some(code) = parse_status(s) {
            return Ok(RetryOnEntry::Status(code));
        }
        let b = s.as_bytes();
        if b.len() == 3 && (b'1'..=b'5').contains(&b[0]) && (&b[1..] == b"xx" || &b[1..] == b"XX") {
            return Ok(RetryOnEntry::Class(b[0] - b'0'));
        }
        Err(token_error(s, EXPECTED))
    }
}

/// The signal table of `docs/policy-format.md`, generated from [`SIGNALS`] (a test
/// checks that the page holds exactly this text).
pub fn markdown_table() -> String {
    let mut out = String::from(
        "| signal | observed | never processed | in `transport` | applies to |\n|---|---|---|---|---|\n",
    );
    for m in SIGNALS {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            m.name,
            m.meaning,
            if m.never_processed { "yes" } else { "no" },
            if m.in_transport { "yes" } else { "no" },
            if m.grpc_only {
                "gRPC-bound operations"
            } else {
                "every operation"
            },
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_parse_to_their_entry() {
        let names = signal_names();
        for (i, n) in names.iter().enumerate() {
            assert!(!names[..i].contains(n), "{n} twice");
            if *n != "transport" {
                assert_eq!(
                    n.parse::<RetryOnEntry>(),
                    Ok(meaning_named(n).unwrap().entry)
                );
            }
        }
    }

    #[test]
    fn never_processed_is_the_v1_pair_and_reset_before_request() {
        let never: Vec<&str> = SIGNALS
            .iter()
            .filter(|m| m.never_processed)
            .map(|m| m.name)
            .collect();
        assert_eq!(
            never,
            ["connect-failure", "refused-stream", "reset-before-request"]
        );
        let transport: Vec<&str> = SIGNALS
            .iter()
            .filter(|m| m.in_transport)
            .map(|m| m.name)
            .collect();
        assert_eq!(
            transport,
            ["connect-failure", "refused-stream", "timeout", "reset"]
        );
        assert!(SIGNALS
            .iter()
            .filter(|m| m.grpc_only)
            .all(|m| !m.never_processed && !m.in_transport));
    }
}
