//! Envoy's `retry_on` vocabulary mapped onto retrylint signals, exactly as
//! `retry-configs.md` §3.2 gives it from Envoy's source (`retry_state_impl.cc`):
//! `5xx` and `gateway-error` also match any upstream reset, including one after the
//! request was sent, and a per-try timeout; `reset` also matches connection
//! failures. Istio's `retryOn` and Envoy Gateway's triggers use the same tokens.

use crate::retry::RetryOnEntry;

/// The `retry_on` tokens Envoy knows (ENV-RS, ENV-DOC; retry-configs.md §3.2), which
/// Istio's validation accepts in `retryOn` too (`supportedRetryOnPolicies`, §2.1).
pub const TOKENS: &[&str] = &[
    "5xx",
    "gateway-error",
    "reset",
    "reset-before-request",
    "connect-failure",
    "envoy-ratelimited",
    "retriable-4xx",
    "refused-stream",
    "retriable-status-codes",
    "retriable-headers",
    "http3-post-connect-failure",
    "cancelled",
    "deadline-exceeded",
    "internal",
    "resource-exhausted",
    "unavailable",
];

/// The signals an Envoy `retry_on` token stands for; `None` for a token Envoy does
/// not know (the route parser ignores it). `retriable-status-codes` stands for
/// nothing by itself: its codes come from `retriable_status_codes`. `retriable-headers`
/// maps to nothing (a response-header match retrylint cannot evaluate).
pub fn signals(token: &str) -> Option<Vec<RetryOnEntry>> {
    use RetryOnEntry as E;
    let t = token.trim();
    Some(match t {
        "5xx" => vec![
            E::Class(5),
            E::Reset,
            E::Timeout,
            E::ConnectFailure,
            E::RefusedStream,
        ],
        "gateway-error" => vec![
            E::Status(502),
            E::Status(503),
            E::Status(504),
            E::Reset,
            E::Timeout,
            E::ConnectFailure,
            E::RefusedStream,
        ],
        "reset" => vec![E::Reset, E::Timeout, E::ConnectFailure],
        "reset-before-request" => vec![E::ResetBeforeRequest],
        "connect-failure" => vec![E::ConnectFailure],
        "refused-stream" => vec![E::RefusedStream],
        "retriable-4xx" => vec![E::Status(409)],
        "envoy-ratelimited" => vec![E::Status(429)],
        "http3-post-connect-failure" => vec![E::Reset],
        "retriable-status-codes" | "retriable-headers" => vec![],
        "cancelled" | "deadline-exceeded" | "internal" | "resource-exhausted" | "unavailable" => {
            vec![t.parse().ok()?]
        }
        _ => {
            // Istio accepts bare HTTP codes in `retryOn` ("503,reset").
            let code: u16 = t.parse().ok()?;
            if (100..=599).contains(&code) {
                vec![E::Status(code)]
            } else {
                return None;
            }
        }
    })
}

/// True when a `retry_on` token makes Envoy retry a per-try timeout (`5xx`,
/// `gateway-error`, `reset`: `retry-configs.md` §1 fact 6).
pub fn retries_per_try_timeout(token: &str) -> bool {
    matches!(token.trim(), "5xx" | "gateway-error" | "reset")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_xx_includes_resets_after_sending() {
        let s = signals("5xx").unwrap();
        assert!(s.contains(&RetryOnEntry::Reset));
        assert!(s.contains(&RetryOnEntry::Class(5)));
        assert_eq!(
            signals("retriable-4xx").unwrap(),
            vec![RetryOnEntry::Status(409)]
        );
        assert!(signals("unavailable").unwrap()[0] != RetryOnEntry::Reset);
        assert_eq!(signals("503").unwrap(), vec![RetryOnEntry::Status(503)]);
        assert!(signals("5xx ").is_some());
        assert!(signals("bogus").is_none());
    }
}
