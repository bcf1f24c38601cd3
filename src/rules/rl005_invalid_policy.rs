//! RL005 invalid-policy: a policy does not follow the format (unknown key with "did
//! you mean", duration without unit, wrong type, bad selector, unknown signal, two
//! equally specific selectors for one operation, two policy files of one layer for one
//! operation, `retry: true` without signals). Reported while parsing and joining.

use super::{Question, RuleMeta};
use crate::diagnostic::{Diagnostic, Severity};
use crate::source::refs::At;

/// RL005.
pub const META: RuleMeta = RuleMeta {
    code: "RL005",
    name: "invalid-policy",
    severity: Severity::Error,
    question: Question::Input,
    summary: "a retry policy does not follow the policy format",
};

/// An RL005 finding at the offending node.
pub fn diagnostic(at: &At, message: impl Into<String>, label: impl Into<String>) -> Diagnostic {
    Diagnostic::new(&META, message, at.location(), label)
}
