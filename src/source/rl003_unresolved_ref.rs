//! RL003 unresolved-ref: a `$ref` whose target file or pointer does not exist, leaves
//! the project root, cannot be loaded, or (only where the model needs it) is remote.
//! In OpenAPI 3.1 a remote URI that no schema `$id` names gets help that points at
//! the `$id`s of the document, never at vendoring what is already there.

use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::diagnostic::RuleMeta;
use crate::source::refs::RefProblem;

/// Rule metadata ([`catalog::UNRESOLVED_REF`]).
pub const META: RuleMeta = catalog::UNRESOLVED_REF;

/// The finding for a ref problem other than a cycle (`None` for [`RefProblem::Cycle`]).
pub fn diagnostic(problem: &RefProblem) -> Option<Diagnostic> {
    let (at, message, help) = match problem {
        RefProblem::Cycle { .. } => return None,
        RefProblem::Missing { at, reason } => (
            at,
            format!(
                "The `$ref` `{}` does not resolve: {reason}.",
                at.scalar().unwrap_or("")
            ),
            "Point the `$ref` at an existing file and JSON Pointer.".to_string(),
        ),
        RefProblem::OutsideRoot { at, .. } => (
            at,
            format!(
                "The `$ref` `{}` leaves the project root, so it is not read.",
                at.scalar().unwrap_or("")
            ),
            "Move the target inside the project, or widen the root with `--root DIR`.".to_string(),
        ),
        RefProblem::Remote {
            at,
            unknown_id: None,
        } => (
            at,
            format!(
                "The `$ref` `{}` names a remote resource, which is never fetched.",
                at.scalar().unwrap_or("")
            ),
            "Vendor the remote definition into the project and reference the local copy."
                .to_string(),
        ),
        RefProblem::Remote {
            at,
            unknown_id: Some(id),
        } => {
            let written = at.scalar().unwrap_or("");
            let resolved = if id.uri == written {
                String::new()
            } else {
                format!(" resolves to `{}`, which", id.uri)
            };
            let message = format!(
                "The `$ref` `{written}`{resolved} names no schema `$id` of this document, and remote resources are never fetched."
            );
            let help = match &id.closest {
                Some(closest) => format!("Did you mean the `$id` `{closest}`? Correct the `$ref` or the `$id` so that they match."),
                None => format!(
                    "If the schema is in this document, give it `$id: '{}'`; otherwise copy the remote schema into the project and reference the copy.",
                    id.uri
                ),
            };
            (at, message, help)
        }
        RefProblem::BadFile { at, .. } => (
            at,
            format!(
                "The `$ref` `{}` names a file that cannot be read as YAML or JSON.",
                at.scalar().unwrap_or("")
            ),
            "Fix the target file (see its own finding).".to_string(),
        ),
        RefProblem::TooLong { at } => (
            at,
            format!(
                "The `$ref` chain starting at `{}` is too long to follow.",
                at.scalar().unwrap_or("")
            ),
            "Shorten the chain of `$ref`s.".to_string(),
        ),
    };
    Some(Diagnostic::new(&META, message, at.location(), "unresolved `$ref`").with_help(help))
}
