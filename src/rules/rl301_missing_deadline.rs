//! RL301 missing-deadline: a retried operation has no `deadline`, so nothing bounds
//! the whole operation (every attempt and every wait).

use super::{Context, Question, RuleMeta};
use crate::diagnostic::{Diagnostic, Severity};

/// RL301.
pub const META: RuleMeta = RuleMeta {
    code: "RL301",
    name: "missing-deadline",
    severity: Severity::Error,
    question: Question::Budget,
    summary: "a retried operation has no deadline",
};

/// Checks every operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for jo in &ctx.analysis.operations {
        let op = jo.resolve(ctx.documents);
        for eff in &jo.layers {
            if !eff.is_retried() || eff.deadline.is_some() {
                continue;
            }
            let Some(at) = eff.retry_origin() else {
                continue;
            };
            let layer = match eff.layer {
                crate::policy::model::Layer::Client => String::new(),
                l => format!(" by the {} layer", l.as_str()),
            };
            out.push(
                Diagnostic::new(
                    &META,
                    format!("`{}` is retried{layer} without a `deadline`", op.display()),
                    at.location(),
                    "retry turned on here",
                )
                .with_label(op.key.location(), "retried operation")
                .with_help(
                    "set a `deadline` for the whole operation (every attempt and wait), e.g. `deadline: 3s`",
                )
                .with_operation(op.display()),
            );
        }
    }
    out
}
