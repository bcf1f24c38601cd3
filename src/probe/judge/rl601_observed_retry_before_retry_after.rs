//! RL601 `observed-retry-before-retry-after`: one check of the probe's judge (see [`super::judge`]).

use super::{finding, Expectations, ProbeFinding};
use crate::diagnostic::catalog::OBSERVED_RETRY_BEFORE_RETRY_AFTER;
use crate::probe::journal::{Attempt, Journal};
use crate::probe::measure::{dur, retry_after_of};

/// RL601: the next attempt started before the Retry-After (delay-seconds from the
/// answer, an HTTP-date absolutely against the wall clock).
pub(super) fn check(
    j: &Journal,
    attempts: &[&Attempt],
    exp: &Expectations,
    out: &mut Vec<ProbeFinding>,
) {
    let above_max_backoff = exp
        .policy
        .as_ref()
        .is_some_and(|p| p.retry_after.above_max_backoff);
    for pair in attempts.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let Some(Ok((at_wall, delay))) = retry_after_of(a) else {
            continue;
        };
        if above_max_backoff && delay > exp.wait_bound_ms {
            continue;
        }
        if b.wall_ms + exp.epsilon_ms < at_wall {
            let early = at_wall - b.wall_ms;
            let raw = a.retry_after.clone().unwrap_or_default();
            out.push(finding(
                &OBSERVED_RETRY_BEFORE_RETRY_AFTER,
                j,
                Some(b),
                format!(
                    "attempt {} started {} before the `Retry-After: {raw}` of attempt {}",
                    b.index + 1,
                    dur(early),
                    a.index + 1
                ),
                format!("no attempt before {} after the answer", dur(delay)),
                format!(
                    "attempt {} after {}",
                    b.index + 1,
                    dur(b.t_ms - a.answered_ms.unwrap_or(a.t_ms))
                ),
            ));
        }
    }
}
