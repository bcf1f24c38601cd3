//! RL010 unused-suppression: a reasoned suppression (`x-retrylint-ignore` or a policy
//! `ignore`) that matched no finding in the run. Reported by [`crate::suppress`].

use super::{Question, RuleMeta};
use crate::diagnostic::Severity;

/// RL010.
pub const META: RuleMeta = RuleMeta {
    code: "RL010",
    name: "unused-suppression",
    severity: Severity::Warning,
    question: Question::Input,
    summary: "a suppression matched no finding in the run",
};
