//! RL603 `observed-duplicate-write`: one check of the probe's judge (see [`super::judge`]).

use super::{finding, Expectations, ProbeFinding};
use crate::diagnostic::catalog::OBSERVED_DUPLICATE_WRITE;
use crate::probe::journal::EffectRecord;
use crate::probe::journal::{Attempt, Journal};
use crate::probe::scenario::Answer;

/// RL603: a write processed twice (two recorded effects for one client).
pub(super) fn check(
    j: &Journal,
    attempts: &[&Attempt],
    exp: &Expectations,
    out: &mut Vec<ProbeFinding>,
) {
    if !exp.non_idempotent {
        return;
    }
    let recorded: Vec<&&Attempt> = attempts
        .iter()
        .filter(|a| a.effect == EffectRecord::Recorded)
        .collect();
    if let [first, second, ..] = recorded.as_slice() {
        let unknown = attempts
            .iter()
            .filter(|a| a.index < second.index)
            .find(|a| matches!(a.answer, Answer::Reset | Answer::Hang | Answer::SlowBody))
            .map(|a| format!(" after a {} (outcome unknown)", a.answer.label()))
            .unwrap_or_default();
        let key = match (&first.key, &second.key) {
            (None, None) => "without an idempotency key".to_string(),
            (Some((_, k1)), Some((_, k2))) if k1 != k2 => "with a new idempotency key".into(),
            _ => "without protection".into(),
        };
        out.push(finding(
            &OBSERVED_DUPLICATE_WRITE,
            j,
            Some(second),
            format!(
                "`{} {}` was sent again{unknown} {key}: the server recorded {} effects",
                second.method,
                second.path,
                recorded.len()
            ),
            "one effect: no resend, or a resend with the same idempotency key".into(),
            format!(
                "effects recorded at attempts {}",
                recorded
                    .iter()
                    .map(|a| (a.index + 1).to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
}
