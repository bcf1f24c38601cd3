//! RL602 `observed-synchronised-retries`: one check of the probe's judge (see [`super::judge`]).

use super::{finding, ProbeFinding};
use crate::diagnostic::catalog::OBSERVED_SYNCHRONISED_RETRIES;
use crate::probe::journal::Journal;
use crate::probe::measure::{dur, median, retry_delays, sync_threshold_ms};
use crate::probe::scenario::STORM;

/// RL602: on the storm scenario only, a retry whose delays across the herd spread
/// less than [`sync_threshold_ms`].
pub(super) fn check(j: &Journal, out: &mut Vec<ProbeFinding>) {
    if j.scenario != STORM {
        return;
    }
    for (r, d) in retry_delays(j).iter().enumerate() {
        if d.len() < 2 {
            continue;
        }
        let lo = d.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = d.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let m = median(d);
        let threshold = sync_threshold_ms(m);
        if hi - lo < threshold {
            out.push(finding(
                &OBSERVED_SYNCHRONISED_RETRIES,
                j,
                None,
                format!(
                    "retry {} of {} clients came within {} of each other (median delay {})",
                    r + 1,
                    d.len(),
                    dur(hi - lo),
                    dur(m)
                ),
                format!("a spread of at least {} (jitter)", dur(threshold)),
                format!("spread {}", dur(hi - lo)),
            ));
            return;
        }
    }
}
