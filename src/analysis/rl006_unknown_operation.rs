//! RL006 unknown-operation: a policy selector (or `status_endpoint`) matches no
//! operation in the documents the policy governs. Reported while joining, at the
//! selector key.

use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::diagnostic::RuleMeta;
use crate::source::refs::At;

/// Rule metadata ([`catalog::UNKNOWN_OPERATION`]).
pub const META: RuleMeta = catalog::UNKNOWN_OPERATION;

/// An RL006 finding at the selector (key of an `operations` entry, or the
/// `status_endpoint` value).
pub fn diagnostic(at: &At, message: impl Into<String>, label: impl Into<String>) -> Diagnostic {
    Diagnostic::new(&META, message, at.location(), label)
}
