//! RL206 request-id-as-idempotency-key: the idempotency-key header of a
//! non-idempotent operation is a correlation or tracing header. It links attempts in
//! logs but nobody de-duplicates on it.
//!
//! The headers recognised (exact names, case-insensitive) are [`CORRELATION_HEADERS`].

use super::grouping::{
    label_operations, layer_phrase, layers, operation_list, with_label_once, ByNode,
};
use super::{Context, Question, RuleMeta};
use crate::diagnostic::{Diagnostic, Severity};
use crate::policy::model::Layer;

/// RL206.
pub const META: RuleMeta = RuleMeta {
    code: "RL206",
    name: "request-id-as-idempotency-key",
    severity: Severity::Error,
    question: Question::Safety,
    summary: "the idempotency-key header is a correlation or tracing header",
};

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

/// Checks every operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut groups: ByNode<'_, (Layer, String)> = ByNode::new();
    for (_, op, eff) in layers(ctx) {
        if !eff.is_non_idempotent() {
            continue;
        }
        let Some(header) = eff.key_header() else {
            continue;
        };
        if !is_correlation_header(&header.value) {
            continue;
        }
        let Some(at) = &header.at else { continue };
        groups.add(at, op, (eff.layer, header.value.clone()));
    }
    groups
        .into_groups()
        .into_iter()
        .map(|g| {
            let ops = g.operations();
            let (layer, header) = g.first();
            let mut d = Diagnostic::new(
                &META,
                format!(
                    "{} {} the correlation header `{header}` as {} idempotency key{}: it links attempts in logs but does not de-duplicate them",
                    operation_list(&ops),
                    if ops.len() == 1 { "uses" } else { "use" },
                    if ops.len() == 1 { "its" } else { "their" },
                    layer_phrase(*layer)
                ),
                g.at.location(),
                "correlation header as key",
            )
            .with_help(
                "send a dedicated key header the server de-duplicates on (e.g. `Idempotency-Key`, declared on the operation) and keep the correlation header for tracing",
            );
            for op in &ops {
                if let Some(p) = op.header_param(header) {
                    d = with_label_once(d, p.at.location(), "correlation header parameter");
                }
            }
            label_operations(d, &ops, |_| "non-idempotent operation".into())
        })
        .collect()
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
