//! RL607 `observed-retry-on-client-error`: one check of the probe's judge (see [`super::judge`]).

use super::{finding, ProbeFinding};
use crate::diagnostic::catalog::OBSERVED_RETRY_ON_CLIENT_ERROR;
use crate::probe::journal::{Attempt, Journal};
use crate::probe::measure::dur;
use crate::probe::scenario::Answer;

/// Statuses a client must not retry unchanged (RL607).
pub const CLIENT_ERRORS: [u16; 4] = [400, 401, 403, 422];

/// RL607: a 400/401/403/422 retried with the same method, target and body.
pub(super) fn check(j: &Journal, attempts: &[&Attempt], out: &mut Vec<ProbeFinding>) {
    for pair in attempts.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let Answer::Status { status, .. } = a.answer else {
            continue;
        };
        if CLIENT_ERRORS.contains(&status)
            && a.method == b.method
            && a.path == b.path
            && a.body_hash == b.body_hash
        {
            out.push(finding(
                &OBSERVED_RETRY_ON_CLIENT_ERROR,
                j,
                Some(b),
                format!(
                    "a {status} answer was retried unchanged (attempt {})",
                    b.index + 1
                ),
                format!("no retry after {status}"),
                format!(
                    "attempt {} after {}",
                    b.index + 1,
                    dur(b.t_ms - a.answered_ms.unwrap_or(a.t_ms))
                ),
            ));
            return;
        }
    }
}
