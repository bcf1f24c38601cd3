//! RL504 idempotency-key-errors-undocumented: an operation with an idempotency-key
//! header parameter documents neither 409 (same key in flight) nor 422 (same key,
//! other payload). An explicit code or a `4XX` range counts; `default` does not.

use crate::analysis::Analysis;
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::openapi::model::{Operation, Parameter, StatusKey};
use crate::rules::{Context, RuleMeta};

/// Rule metadata ([`catalog::IDEMPOTENCY_KEY_ERRORS_UNDOCUMENTED`]).
pub const META: RuleMeta = catalog::IDEMPOTENCY_KEY_ERRORS_UNDOCUMENTED;

/// Header names that are idempotency keys whatever the policy says
/// (compared case-insensitively).
pub const KEY_HEADERS: [&str; 3] = [
    "Idempotency-Key",
    "X-Idempotency-Key",
    "Repeatability-Request-ID",
];

/// Hook for the policy join: the key header names the retry policies governing `op`
/// declare (`idempotency_key.header`). Returns none until [`Analysis`] carries them;
/// the rule already treats any name returned here like [`KEY_HEADERS`].
pub fn policy_key_headers(_analysis: &Analysis, _op: &Operation) -> Vec<String> {
    Vec::new()
}

/// The operation's idempotency-key header parameter, if any.
pub fn key_parameter<'o>(op: &'o Operation, extra: &[String]) -> Option<&'o Parameter> {
    op.params.iter().find(|p| {
        p.location.eq_ignore_ascii_case("header")
            && (KEY_HEADERS.iter().any(|k| p.name.eq_ignore_ascii_case(k))
                || extra.iter().any(|k| p.name.eq_ignore_ascii_case(k)))
    })
}

fn documents_key_errors(op: &Operation) -> bool {
    op.responses.iter().any(|r| {
        matches!(
            r.status,
            StatusKey::Code(409) | StatusKey::Code(422) | StatusKey::Range(4)
        )
    })
}

/// One finding per operation.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for doc in ctx.documents {
        for op in &doc.operations {
            let extra = policy_key_headers(ctx.analysis, op);
            let Some(key) = key_parameter(op, &extra) else {
                continue;
            };
            if documents_key_errors(op) {
                continue;
            }
            out.push(
                Diagnostic::new(
                    &META,
                    format!(
                        "`{}` takes an idempotency key (`{}`) but documents neither 409 nor 422.",
                        op.display(),
                        key.name
                    ),
                    op.key.location(),
                    "no 409 or 422 response",
                )
                .with_label(key.at.location(), "idempotency-key header")
                .with_help("Document 409 (a request with this key is still in progress) and 422 (this key was used with a different payload).")
                .with_operation(op.display()),
            );
        }
    }
    out
}
