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

/// The fix: the header declared on the operation, required (unsafe: it changes the
/// API, clients that do not send it are now outside the contract).
pub const FIX: super::RuleFix = super::RuleFix {
    safety: crate::fix::Safety::Unsafe,
    changes: "declares the policy's idempotency-key header on the operation in the spec (`in: header`, `required: true`, a string), with 409 and 422 responses where no 409, 422 or `4XX` is documented",
    apply: fix,
};

/// A required header parameter named as the policy's `idempotency_key.header`, added
/// to the `parameters` of the spec operation the finding labels.
pub fn fix(d: &Diagnostic, texts: &dyn crate::fix::Texts) -> Option<crate::fix::Fix> {
    use crate::fix::text::{self, Role};
    use crate::source::tree::Kind;
    use serde_json::json;
    let policy = text::read(texts, &d.primary.location.file.path)?;
    let pt = policy.tree.as_ref()?;
    let header = pt
        .as_str(policy.at_location(&d.primary.location)?)?
        .to_string();
    let label = d
        .labels
        .iter()
        .find(|l| l.location.pointer.starts_with("/paths/"))?;
    let path = &label.location.file.path;
    let spec = text::read(texts, path)?;
    if spec.role() != Role::Spec {
        return None;
    }
    let t = spec.tree.as_ref()?;
    let operation = spec.at_pointer(&label.location.pointer)?;
    if t.kind(operation) != Kind::Map {
        return None;
    }
    let swagger2 = t.root().and_then(|r| t.get(r, "swagger")).is_some();
    let parameter = if swagger2 {
        json!({"name": header, "in": "header", "required": true, "type": "string"})
    } else {
        json!({"name": header, "in": "header", "required": true, "schema": {"type": "string"}})
    };
    let edit = match t.get(operation, "parameters") {
        Some(list) if t.kind(list) == Kind::Seq => text::insert_item(&spec, list, &parameter)?,
        Some(_) => return None,
        None => text::insert_entry(&spec, operation, "parameters", &json!([parameter]))?,
    };
    // A declared key makes the spec owe its errors (RL504): 409 and 422, unless a
    // 409, 422 or 4XX is there already.
    let mut edits = vec![edit];
    if let Some(responses) = t
        .get(operation, "responses")
        .filter(|&r| t.kind(r) == Kind::Map)
    {
        let has = |code: &str| {
            t.raw_entries(responses).iter().any(|&(k, _)| {
                let key = &spec.file.text[t.span(k)];
                key.trim_matches(|c| c == '\'' || c == '"')
                    .eq_ignore_ascii_case(code)
            })
        };
        if !["409", "422", "4XX"].iter().any(|c| has(c)) {
            let errors = [
                (
                    "409",
                    json!({"description": "a request with this idempotency key is still in progress"}),
                ),
                (
                    "422",
                    json!({"description": "this idempotency key was used with a different payload"}),
                ),
            ];
            let added = text::insert_entries(&spec, responses, &errors)?;
            // Both may append at the same place (the responses close the
            // operation): the responses' lines go first, inside their block.
            if added.0 == edits[0].0 && added.0.is_empty() {
                edits[0].1 = format!("{}{}", added.1, edits[0].1);
            } else {
                edits.push(added);
            }
        }
    }
    crate::fix::Fix::new(
        format!("Declare the `{header}` header on the operation (required), with its 409 and 422 errors"),
        crate::fix::Safety::Unsafe,
        edits
            .into_iter()
            .map(|(span, text)| crate::fix::Edit {
                path: path.clone(),
                span,
                text,
            })
            .collect(),
    )
}
