//! RL006 unknown-operation: a policy selector (or `status_endpoint`) matches no
//! operation in the documents the policy governs. Reported while joining, at the
//! selector key.

use super::{Question, RuleMeta};
use crate::diagnostic::{Diagnostic, Severity};
use crate::source::refs::At;

/// RL006.
pub const META: RuleMeta = RuleMeta {
    code: "RL006",
    name: "unknown-operation",
    severity: Severity::Error,
    question: Question::Input,
    summary: "a policy selector or status endpoint matches no operation",
};

/// An RL006 finding at the selector (key of an `operations` entry, or the
/// `status_endpoint` value).
pub fn diagnostic(at: &At, message: impl Into<String>, label: impl Into<String>) -> Diagnostic {
    Diagnostic::new(&META, message, at.location(), label)
}
