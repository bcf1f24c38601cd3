//! Measurements over journals shared by the judge and the observed policy: the
//! delays before each retry, medians, the synchronisation floor, the Retry-After of
//! an answer, the failure signal of an answer, durations as text.

use super::journal::{Attempt, Journal};
use super::scenario::Answer;
use crate::retry::{parse_retry_after_at, Signal};

/// The failure signal of an answer, as the decision names it; `None` for a 2xx.
pub fn signal_of(answer: &Answer) -> Option<Signal> {
    match answer {
        Answer::Status { status, .. } if (200..300).contains(status) => None,
        Answer::Status { status, .. } => Some(Signal::Status(*status)),
        Answer::Reset => Some(Signal::Reset),
        Answer::Hang | Answer::SlowBody => Some(Signal::Timeout),
    }
}

/// The Retry-After of an attempt's answer as an absolute epoch ms and a delay in ms
/// from the answer; `Err(())` for a value that does not parse (invalid forms).
pub fn retry_after_of(a: &Attempt) -> Option<Result<(f64, f64), ()>> {
    let raw = a.retry_after.as_deref()?;
    let sent_wall = a.wall_ms + (a.answered_ms.unwrap_or(a.t_ms) - a.t_ms);
    Some(match parse_retry_after_at(raw, sent_wall) {
        Ok(ra) => {
            let delay = ra.delay_ms(sent_wall);
            if delay.is_finite() && delay >= 0.0 {
                Ok((sent_wall + delay, delay))
            } else {
                Err(())
            }
        }
        Err(_) => Err(()),
    })
}

/// `1.234 s` or `850 ms`.
pub fn dur(ms: f64) -> String {
    if ms.abs() >= 10_000.0 {
        format!("{:.1} s", ms / 1000.0)
    } else if ms.abs() >= 1_000.0 {
        format!("{:.3} s", ms / 1000.0)
    } else {
        format!("{ms:.0} ms")
    }
}

/// The delay before each retry of every client: `delays[r][c]` is client c's wait
/// before retry r+1 (from the outcome of attempt r+1 to the start of attempt r+2).
pub fn retry_delays(j: &Journal) -> Vec<Vec<f64>> {
    let mut delays: Vec<Vec<f64>> = Vec::new();
    for c in 0..j.client_count() {
        let attempts = j.of_client(c);
        for (r, pair) in attempts.windows(2).enumerate() {
            let Some(from) = pair[0].outcome_ms() else {
                break;
            };
            if delays.len() <= r {
                delays.push(Vec::new());
            }
            delays[r].push(pair[1].t_ms - from);
        }
    }
    delays
}

/// The median of a non-empty slice.
pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// The floor under which a herd's retries count as synchronised: max(25 ms, 5 % of
/// the median delay).
pub fn sync_threshold_ms(median_ms: f64) -> f64 {
    25f64.max(0.05 * median_ms)
}
