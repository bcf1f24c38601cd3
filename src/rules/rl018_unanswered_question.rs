//! RL018 unanswered-question: a policy value written as `todo`, a readiness question
//! left open (what `retrylint init` writes for what the spec and the configs cannot
//! answer; docs/policy-format.md "Open questions: `todo`").
//!
//! One finding per `todo` node, at the value, naming the question and what an answer
//! looks like. The todo counts as an absent value for every other rule (an open
//! `deadline` is still RL301 where the operation is retried), so answering it is the
//! only way to clear both; a warning, not an error: an open question is a known gap
//! in the policy, not yet a wrong retry.

use super::{Context, RuleMeta};
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::policy::model::{todo_question, Settings};

/// Rule metadata ([`catalog::UNANSWERED_QUESTION`]).
pub const META: RuleMeta = catalog::UNANSWERED_QUESTION;

/// Checks every settings mapping: written policies (`defaults` and entries) and the
/// inline `x-retry` of documents and operations.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let a = ctx.analysis;
    let policies = a
        .policies
        .iter()
        .filter(|p| p.imported.is_none())
        .flat_map(|p| {
            p.defaults
                .iter()
                .chain(p.operations.iter().map(|e| &e.settings))
        });
    let inline = a
        .document_x_retry
        .iter()
        .flatten()
        .chain(a.operations.iter().filter_map(|o| o.x_retry.as_ref()));
    policies.chain(inline).flat_map(findings).collect()
}

fn findings(s: &Settings) -> Vec<Diagnostic> {
    s.todos
        .iter()
        .map(|t| {
            let (question, answer) = todo_question(t.field).unwrap_or(("", "a value"));
            Diagnostic::new(
                &META,
                format!("`{}` is unanswered (`todo`): {question}", t.field),
                t.at.value_location(),
                "open question",
            )
            .with_help(format!(
                "replace `todo` with {answer}; until then retrylint {}",
                if t.field == "effect" {
                    "takes the least safe effect, `non-idempotent`"
                } else {
                    "treats the value as unset"
                }
            ))
        })
        .collect()
}
