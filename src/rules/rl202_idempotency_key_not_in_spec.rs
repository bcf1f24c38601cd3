//! RL202 idempotency-key-not-in-spec: the policy relies on an idempotency-key header
//! that the operation does not declare as a header parameter (names compare
//! case-insensitively; path-level parameters and `$ref`s count, as the model's
//! effective parameters hold them). Applies to non-idempotent operations only.
//! Operations sharing one key `header` node share one finding, with a label each.

use super::grouping::{layers, Collector, Hit};
use super::{Context, RuleMeta};
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;

/// Rule metadata ([`catalog::IDEMPOTENCY_KEY_NOT_IN_SPEC`]).
pub const META: RuleMeta = catalog::IDEMPOTENCY_KEY_NOT_IN_SPEC;

/// Checks every operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut out = Collector::new();
    for (_, op, eff) in layers(ctx) {
        if !eff.is_non_idempotent() {
            continue;
        }
        let Some(header) = eff.key_header() else {
            continue;
        };
        // A request field (AIP-155 `request_id` of a gRPC RPC) is no header.
        if eff.idempotency_key.in_request || op.header_param(&header.value).is_some() {
            continue;
        }
        let Some(at) = &header.at else { continue };
        out.push(
            Hit::new(
                &META,
                at,
                "key header named here",
                format!(
                    "{{ops}} {{does}} not declare the idempotency-key header `{}` the policy sends",
                    header.value
                ),
                format!(
                    "declare `{}` as a header parameter of {{ops}} (`in: header`), or name the header the API actually de-duplicates on",
                    header.value
                ),
                op,
            )
            .op_label(format!("no `{}` header parameter", header.value)),
        );
    }
    out.finish(&META)
}
