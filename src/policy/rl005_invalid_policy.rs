//! RL005 invalid-policy: a policy does not follow the format (unknown key with "did
//! you mean", duration without unit, wrong type, bad selector, unknown signal, two
//! equally specific selectors for one operation, two policy files of one layer for one
//! operation, `retry: true` without signals). Reported while parsing and joining.

use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::diagnostic::RuleMeta;
use crate::source::refs::At;

/// Rule metadata ([`catalog::INVALID_POLICY`]).
pub const META: RuleMeta = catalog::INVALID_POLICY;

/// An RL005 finding at the offending node.
pub fn diagnostic(at: &At, message: impl Into<String>, label: impl Into<String>) -> Diagnostic {
    Diagnostic::new(&META, message, at.location(), label)
}
