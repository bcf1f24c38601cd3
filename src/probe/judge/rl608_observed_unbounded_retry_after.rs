//! RL608 `observed-unbounded-retry-after`: one check of the probe's judge (see [`super::judge`]).

use super::{finding, Expectations, ProbeFinding};
use crate::diagnostic::catalog::OBSERVED_UNBOUNDED_RETRY_AFTER;
use crate::probe::journal::{Attempt, Journal};
use crate::probe::measure::{dur, retry_after_of};

/// RL608: after a huge or invalid Retry-After (or a past date), the client waited
/// past the wait bound (+ grace): its next attempt came later, or it was still
/// waiting when the probe ended it.
pub(super) fn check(
    j: &Journal,
    client: usize,
    attempts: &[&Attempt],
    exp: &Expectations,
    out: &mut Vec<ProbeFinding>,
) {
    let limit = exp.wait_bound_ms + exp.grace_ms;
    for (i, a) in attempts.iter().enumerate() {
        // How long this Retry-After may keep the client waiting: a valid value
        // within the bound, plus the bound; a huge or invalid one (or a past date
        // read as a long wait), the bound alone.
        let allowed = match retry_after_of(a) {
            None => continue,
            Some(Ok((_, delay))) if delay <= exp.wait_bound_ms => delay + limit,
            Some(_) => limit,
        };
        let Some(from) = a.answered_ms else {
            continue;
        };
        let raw = a.retry_after.clone().unwrap_or_default();
        let waited = match attempts.get(i + 1) {
            Some(b) => Some((b.t_ms - from, format!("attempt {} after", b.index + 1))),
            None => j
                .clients
                .iter()
                .find(|e| e.client == client && e.killed.is_some())
                .map(|e| {
                    (
                        e.ended_ms - from,
                        "still waiting, ended by the probe after".into(),
                    )
                }),
        };
        if let Some((gap, what)) = waited.filter(|(gap, _)| *gap > allowed) {
            out.push(finding(
                &OBSERVED_UNBOUNDED_RETRY_AFTER,
                j,
                Some(a),
                format!(
                    "after `Retry-After: {raw}` the client waited past its bound of {} (+ {} grace)",
                    dur(exp.wait_bound_ms),
                    dur(exp.grace_ms)
                ),
                format!(
                    "give up, or retry within {} (cap the wait, or back off on an invalid value)",
                    dur(exp.wait_bound_ms)
                ),
                format!("{what} {}", dur(gap)),
            ));
        }
    }
}
