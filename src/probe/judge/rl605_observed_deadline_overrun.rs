//! RL605 `observed-deadline-overrun`: one check of the probe's judge (see [`super::judge`]).

use super::{finding, Expectations, ProbeFinding};
use crate::diagnostic::catalog::OBSERVED_DEADLINE_OVERRUN;
use crate::probe::journal::{Attempt, Journal};
use crate::probe::measure::dur;

/// RL605: an attempt after the deadline, or the client still running past deadline +
/// grace (measured from its first attempt).
pub(super) fn check(
    j: &Journal,
    client: usize,
    attempts: &[&Attempt],
    exp: &Expectations,
    out: &mut Vec<ProbeFinding>,
) {
    let (Some(limit), Some(first)) = (exp.deadline_ms, attempts.first()) else {
        return;
    };
    if let Some(late) = attempts
        .iter()
        .find(|a| a.t_ms - first.t_ms > limit + exp.epsilon_ms)
    {
        out.push(finding(
            &OBSERVED_DEADLINE_OVERRUN,
            j,
            Some(late),
            format!(
                "attempt {} started {} after the first, past the deadline of {}",
                late.index + 1,
                dur(late.t_ms - first.t_ms),
                dur(limit)
            ),
            format!("no attempt after {}", dur(limit)),
            format!(
                "attempt {} at {}",
                late.index + 1,
                dur(late.t_ms - first.t_ms)
            ),
        ));
        return;
    }
    if let Some(end) = j.clients.iter().find(|e| e.client == client) {
        let ran = end.ended_ms - first.t_ms;
        if ran > limit + exp.grace_ms {
            let how = if end.killed.is_some() {
                "was still running"
            } else {
                "ended"
            };
            out.push(finding(
                &OBSERVED_DEADLINE_OVERRUN,
                j,
                None,
                format!(
                    "the client {how} {} after its first attempt, past the deadline of {} + {} grace",
                    dur(ran),
                    dur(limit),
                    dur(exp.grace_ms)
                ),
                format!("done within {}", dur(limit + exp.grace_ms)),
                format!("{how} at {}", dur(ran)),
            ));
        }
    }
}
