//! RL013 suppression-without-reason: a suppression (`x-retrylint-ignore` or a policy
//! `ignore`) without a non-empty `reason`. Such a suppression is not applied.
//! Reported by [`crate::suppress`].

use super::{Question, RuleMeta};
use crate::diagnostic::Severity;

/// RL013.
pub const META: RuleMeta = RuleMeta {
    code: "RL013",
    name: "suppression-without-reason",
    severity: Severity::Error,
    question: Question::Input,
    summary: "a suppression without a reason (it is not applied)",
};
