//! Correlation and tracing headers: they link the attempts of one request in logs,
//! but no server de-duplicates on them, so they are no idempotency key (RL206, and
//! the join and readiness when they pick a key).

/// Correlation and tracing headers (compared case-insensitively). A dedicated key
/// header such as `Idempotency-Key` or Azure's `Repeatability-Request-ID` is not one.
pub const CORRELATION_HEADERS: &[&str] = &[
    "X-Request-ID",
    "X-Correlation-ID",
    "Request-Id",
    "Correlation-Id",
    "X-Amzn-Trace-Id",
    "X-Amzn-RequestId",
    "X-Amz-Request-Id",
    "traceparent",
    "tracestate",
    "b3",
    "X-B3-TraceId",
    "X-B3-SpanId",
    "X-B3-ParentSpanId",
    "X-Trace-Id",
    "X-Span-Id",
    "X-Cloud-Trace-Context",
    "uber-trace-id",
    "X-Datadog-Trace-Id",
    "X-Client-Trace-Id",
    "X-Client-Request-Id",
    "X-MS-Request-Id",
    "X-MS-Client-Request-Id",
];

/// True when `header` is a correlation or tracing header.
pub fn is_correlation_header(header: &str) -> bool {
    CORRELATION_HEADERS
        .iter()
        .any(|h| h.eq_ignore_ascii_case(header.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn correlation_headers_case_insensitive() {
        assert!(is_correlation_header("x-request-id"));
        assert!(is_correlation_header("TRACEPARENT"));
        assert!(is_correlation_header("X-Amzn-Trace-Id"));
        assert!(!is_correlation_header("Idempotency-Key"));
        assert!(!is_correlation_header("Repeatability-Request-ID"));
    }
}
