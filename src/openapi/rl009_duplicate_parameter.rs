//! RL009 duplicate-parameter: one operation's effective parameters hold two with the
//! same location and name (header names compare case-insensitively).

use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::diagnostic::RuleMeta;
use crate::openapi::model::{Operation, Parameter};

/// Rule metadata ([`catalog::DUPLICATE_PARAMETER`]).
pub const META: RuleMeta = catalog::DUPLICATE_PARAMETER;

/// True when two parameters are the same (same `in`, same name; header names
/// case-insensitive).
pub fn same_parameter(a: &Parameter, b: &Parameter) -> bool {
    a.location == b.location
        && if a.location.eq_ignore_ascii_case("header") {
            a.name.eq_ignore_ascii_case(&b.name)
        } else {
            a.name == b.name
        }
}

/// One finding per parameter that repeats an earlier one of the same operation.
pub fn check_operation(op: &Operation) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (i, p) in op.params.iter().enumerate() {
        let Some(first) = op.params[..i].iter().find(|q| same_parameter(q, p)) else {
            continue;
        };
        let names = if first.name == p.name {
            format!("`{}`", p.name)
        } else {
            format!("`{}` and `{}`", first.name, p.name)
        };
        out.push(
            Diagnostic::new(
                &META,
                format!(
                    "`{}` declares the {} parameter {} twice.",
                    op.display(),
                    p.location,
                    names
                ),
                p.listed_at.location(),
                "repeated parameter",
            )
            .with_label(first.listed_at.location(), "first declaration")
            .with_help("Remove one of the two declarations.")
            .with_operation(op.display()),
        );
    }
    out
}
