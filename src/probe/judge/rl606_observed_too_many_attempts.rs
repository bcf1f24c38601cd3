//! RL606 `observed-too-many-attempts`: one check of the probe's judge (see [`super::judge`]).

use super::{finding, Expectations, ProbeFinding};
use crate::diagnostic::catalog::OBSERVED_TOO_MANY_ATTEMPTS;
use crate::probe::journal::{Attempt, Journal};

/// RL606: more attempts than the policy's `attempts`.
pub(super) fn check(
    j: &Journal,
    attempts: &[&Attempt],
    exp: &Expectations,
    out: &mut Vec<ProbeFinding>,
) {
    let Some(allowed) = exp.policy.as_ref().and_then(|p| p.attempts) else {
        return;
    };
    if attempts.len() > allowed as usize {
        let extra = attempts[allowed as usize];
        out.push(finding(
            &OBSERVED_TOO_MANY_ATTEMPTS,
            j,
            Some(extra),
            format!(
                "{} attempts where the policy allows {allowed}",
                attempts.len()
            ),
            format!("at most {allowed} attempts"),
            format!("{} attempts", attempts.len()),
        ));
    }
}
