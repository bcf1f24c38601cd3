//! The observed policy: what the client actually does, read from the journals of
//! the scenarios that ran (attempts, delays, base and multiplier, jitter class,
//! Retry-After forms honoured, a write resent after a reset, the attempt timeout),
//! printed as a v1 policy; `judge::drift` compares it with the declared one (RL609).

use super::journal::{EffectRecord, Journal};
use super::measure::{median, retry_delays};
use super::scenario::{Answer, STORM};
use serde::Serialize;

/// A jitter class read from the coefficient of variation (CV) of one retry's delay
/// across a herd.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum JitterClass {
    /// CV below [`NONE_WEAK`]: every client waits the same.
    None,
    /// Additive noise (got, axios-retry): CV up to [`WEAK_EQUAL`].
    Weak,
    /// `equal` jitter (uniform over the upper half): CV about 0.19.
    Equal,
    /// `full` jitter (uniform from 0): CV about 0.58.
    Full,
    /// Within 10 % of a boundary: no verdict rather than a flaky one.
    Inconclusive,
}

impl JitterClass {
    /// The policy word (`none`, `weak`, `equal`, `full`, `inconclusive`).
    pub fn as_str(self) -> &'static str {
        match self {
            JitterClass::None => "none",
            JitterClass::Weak => "weak",
            JitterClass::Equal => "equal",
            JitterClass::Full => "full",
            JitterClass::Inconclusive => "inconclusive",
        }
    }
}

/// CV boundary between no jitter and weak (additive) jitter.
pub const NONE_WEAK: f64 = 0.005;
/// CV boundary between weak jitter and `equal`: 2.5 % of simulated herds of 8 with
/// equal jitter fall below it.
pub const WEAK_EQUAL: f64 = 0.1;
/// CV boundary between `equal` and `full`: from 100 000 simulated herds of 8, 99 %
/// of equal-jitter herds have a CV below 0.255 and 97 % of full-jitter herds above
/// 0.28 (`docs/commands/probe.md`).
pub const EQUAL_FULL: f64 = 0.28;

/// The class of a CV; within 10 % of a boundary it is inconclusive.
pub fn jitter_class(cv: f64) -> JitterClass {
    let near = |b: f64| (cv - b).abs() <= 0.1 * b;
    if !cv.is_finite() || [NONE_WEAK, WEAK_EQUAL, EQUAL_FULL].into_iter().any(near) {
        return JitterClass::Inconclusive;
    }
    if cv < NONE_WEAK {
        JitterClass::None
    } else if cv < WEAK_EQUAL {
        JitterClass::Weak
    } else if cv < EQUAL_FULL {
        JitterClass::Equal
    } else {
        JitterClass::Full
    }
}

/// Population coefficient of variation (stdev / mean); NaN when empty or mean 0.
pub fn coefficient_of_variation(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    if mean <= 0.0 {
        return f64::NAN;
    }
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    var.sqrt() / mean
}

/// One Retry-After form and whether the client honoured it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RetryAfterSeen {
    /// The scenario that sent it (`ra-seconds`, `ra-date`, ...).
    pub scenario: String,
    /// The value sent.
    pub value: String,
    /// `honoured` (waited at least that long), `early` (retried sooner), `gave-up`
    /// (no retry), `waited-past-bound` (ended by the probe while waiting).
    pub behaviour: &'static str,
    /// The wait before the next attempt, ms.
    pub waited_ms: Option<f64>,
}

/// What the client did, as far as the scenarios that ran show it. `None`: no
/// scenario showed it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ObservedPolicy {
    /// Most attempts one client made in a scenario that fails forever
    /// (`always-503`), else in any scenario.
    pub attempts: Option<usize>,
    /// Median delay before each retry, ms (storm, else always-503).
    pub delays_ms: Vec<f64>,
    /// The first median delay, ms.
    pub base_ms: Option<f64>,
    /// The median ratio of consecutive delays.
    pub multiplier: Option<f64>,
    /// Herd size the jitter class is read from.
    pub herd: usize,
    /// Median over retries of the CV across the herd.
    pub cv: Option<f64>,
    /// Jitter class from `cv`.
    pub jitter: Option<JitterClass>,
    /// Retry-After forms and what the client did with each.
    pub retry_after: Vec<RetryAfterSeen>,
    /// The write was sent again after a reset (`lost-response`).
    pub resent_after_reset: Option<bool>,
    /// A key header was sent and kept across attempts.
    pub key_stable: Option<bool>,
    /// How long the client waited for a hung answer before closing, ms.
    pub attempt_timeout_ms: Option<f64>,
    /// Statuses the client retried.
    pub retried_statuses: Vec<u16>,
}

/// Reads the observed policy from the journals of one probe run.
pub fn infer(journals: &[Journal]) -> ObservedPolicy {
    let by = |name: &str| journals.iter().find(|j| j.scenario == name);
    let per_client_max = |j: &Journal| {
        (0..j.client_count())
            .map(|c| j.of_client(c).len())
            .max()
            .unwrap_or(0)
    };
    // Only a script that fails forever shows where the client stops.
    let attempts = by("always-503").map(per_client_max).filter(|n| *n > 0);
    let delay_source = by(STORM).or_else(|| by("always-503"));
    let per_retry = delay_source.map(retry_delays).unwrap_or_default();
    let delays_ms: Vec<f64> = per_retry.iter().map(|d| median(d)).collect();
    let ratios: Vec<f64> = delays_ms
        .windows(2)
        .filter(|w| w[0] > 0.0)
        .map(|w| w[1] / w[0])
        .collect();
    let herd = by(STORM).map_or(0, |j| j.client_count());
    let cvs: Vec<f64> = by(STORM)
        .map(retry_delays)
        .unwrap_or_default()
        .iter()
        .filter(|d| d.len() >= 2)
        .map(|d| coefficient_of_variation(d))
        .filter(|c| c.is_finite())
        .collect();
    let cv = (!cvs.is_empty()).then(|| median(&cvs));
    let mut retry_after = Vec::new();
    let mut retried_statuses = Vec::new();
    let mut key_values: Vec<Option<bool>> = Vec::new();
    for j in journals {
        for c in 0..j.client_count() {
            let attempts = j.of_client(c);
            for (i, a) in attempts.iter().enumerate() {
                let next = attempts.get(i + 1);
                if let (Answer::Status { status, .. }, Some(_)) = (&a.answer, next) {
                    if !retried_statuses.contains(status) {
                        retried_statuses.push(*status);
                    }
                }
                if c == 0 {
                    if let Some(value) = &a.retry_after {
                        let waited = next.and_then(|b| a.answered_ms.map(|o| b.t_ms - o));
                        let killed = j
                            .clients
                            .iter()
                            .any(|e| e.client == c && e.killed.is_some());
                        let behaviour = match (next, waited) {
                            (Some(b), _) if b.retry_after.is_none() && early(a, b) => "early",
                            (Some(_), _) => "honoured",
                            (None, _) if killed => "waited-past-bound",
                            (None, _) => "gave-up",
                        };
                        retry_after.push(RetryAfterSeen {
                            scenario: j.scenario.clone(),
                            value: value.clone(),
                            behaviour,
                            waited_ms: waited,
                        });
                    }
                }
            }
            let keys: Vec<&str> = attempts
                .iter()
                .filter_map(|a| a.key.as_ref().map(|(_, v)| v.as_str()))
                .collect();
            if attempts.len() > 1 {
                key_values.push(if keys.len() == attempts.len() {
                    Some(keys.windows(2).all(|w| w[0] == w[1]))
                } else {
                    None
                });
            }
        }
    }
    retried_statuses.sort_unstable();
    let key_stable = if key_values.is_empty() {
        None
    } else {
        Some(key_values.iter().all(|k| *k == Some(true)))
    };
    let resent_after_reset = by("lost-response").map(|j| {
        j.attempts.iter().any(|a| a.index > 0)
            || j.attempts
                .iter()
                .filter(|a| a.effect != EffectRecord::None)
                .count()
                > 1
    });
    // The client's own close of a hung answer; a close by the probe's kill is not
    // the client's timeout.
    let attempt_timeout_ms = by("hang").and_then(|j| {
        let killed_at = j
            .clients
            .iter()
            .find(|e| e.client == 0 && e.killed.is_some())
            .map(|e| e.ended_ms);
        j.of_client(0)
            .first()
            .and_then(|a| a.closed_ms.map(|c| (c, c - a.t_ms)))
            .filter(|(c, _)| killed_at.is_none_or(|k| *c < k - 20.0))
            .map(|(_, t)| t)
    });
    ObservedPolicy {
        attempts,
        base_ms: delays_ms.first().copied(),
        multiplier: (!ratios.is_empty()).then(|| median(&ratios)),
        delays_ms,
        herd,
        cv,
        jitter: cv.map(jitter_class),
        retry_after,
        resent_after_reset,
        key_stable,
        attempt_timeout_ms,
        retried_statuses,
    }
}

/// The next attempt came before a valid Retry-After of `a` (the RL601 reading,
/// without tolerance ε = 50 ms).
fn early(a: &super::journal::Attempt, b: &super::journal::Attempt) -> bool {
    let Some(raw) = a.retry_after.as_deref() else {
        return false;
    };
    let sent = a.wall_ms + (a.answered_ms.unwrap_or(a.t_ms) - a.t_ms);
    match crate::retry::parse_retry_after_at(raw, sent) {
        Ok(ra) => {
            let d = ra.delay_ms(sent);
            d.is_finite() && d >= 0.0 && b.wall_ms + 50.0 < sent + d
        }
        Err(_) => false,
    }
}

/// A duration as a v1 policy writes it: `1s`, `250ms`.
fn policy_duration(ms: f64) -> String {
    let ms = ms.round().max(0.0) as u64;
    if ms >= 1000 && ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

/// The observed policy as a v1 retry policy for `operation` (YAML), with comments
/// where the probe could not tell; `retrylint check` can lint it.
pub fn policy_yaml(observed: &ObservedPolicy, operation: &str) -> String {
    let mut y =
        String::from("# The policy retrylint probe observed (v1).\nversion: 1\noperations:\n");
    y.push_str(&format!("  {}:\n", yaml_key(operation)));
    // A resend after a reset is a retry too (the lost-response scenario alone).
    let retried = observed.attempts.is_some_and(|n| n > 1)
        || !observed.retried_statuses.is_empty()
        || observed.resent_after_reset == Some(true);
    y.push_str(&format!("    retry: {retried}\n"));
    if let Some(n) = observed.attempts {
        y.push_str(&format!("    attempts: {n}\n"));
    }
    if !observed.retried_statuses.is_empty() || observed.resent_after_reset == Some(true) {
        let mut on: Vec<String> = observed
            .retried_statuses
            .iter()
            .map(u16::to_string)
            .collect();
        if observed.resent_after_reset == Some(true) {
            on.push("reset".into());
        }
        y.push_str(&format!("    retry_on: [{}]\n", on.join(", ")));
    }
    if let Some(base) = observed.base_ms {
        y.push_str("    backoff:\n");
        y.push_str(&format!("      base: {}\n", policy_duration(base)));
        if let Some(m) = observed.multiplier {
            y.push_str(&format!(
                "      multiplier: {:.1}\n",
                (m * 10.0).round() / 10.0
            ));
        }
        if let Some(max) = observed.delays_ms.iter().copied().reduce(f64::max) {
            y.push_str(&format!("      cap: {}\n", policy_duration(max.max(base))));
        }
        match observed.jitter {
            Some(JitterClass::None) => y.push_str("      jitter: none\n"),
            Some(JitterClass::Equal) => y.push_str("      jitter: equal\n"),
            Some(JitterClass::Full) => y.push_str("      jitter: full\n"),
            Some(JitterClass::Weak) => {
                y.push_str("      jitter: {proportional: 0.1}  # weak: additive noise\n")
            }
            Some(JitterClass::Inconclusive) | None => {
                y.push_str("      # jitter: not observed (run the storm-503 herd)\n")
            }
        }
    }
    let honoured: Vec<&RetryAfterSeen> = observed
        .retry_after
        .iter()
        .filter(|r| matches!(r.scenario.as_str(), "ra-seconds" | "ra-date"))
        .collect();
    if !honoured.is_empty() {
        let all = honoured.iter().all(|r| r.behaviour == "honoured");
        y.push_str(&format!("    retry_after:\n      honor: {all}\n"));
    }
    if let Some(t) = observed.attempt_timeout_ms {
        y.push_str(&format!("    attempt_timeout: {}\n", policy_duration(t)));
    }
    y
}

fn yaml_key(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_follow_the_boundaries_with_an_inconclusive_band() {
        assert_eq!(jitter_class(0.0), JitterClass::None);
        assert_eq!(jitter_class(0.001), JitterClass::None);
        assert_eq!(jitter_class(0.03), JitterClass::Weak);
        assert_eq!(jitter_class(0.19), JitterClass::Equal);
        assert_eq!(jitter_class(0.58), JitterClass::Full);
        assert_eq!(jitter_class(0.105), JitterClass::Inconclusive);
        assert_eq!(jitter_class(0.27), JitterClass::Inconclusive);
        assert_eq!(jitter_class(0.0052), JitterClass::Inconclusive);
    }

    /// A client seen only resending after a reset (the lost-response scenario
    /// alone) retries: the observed policy said `retry: false` beside an RL603.
    #[test]
    fn a_resend_after_a_reset_is_an_observed_retry() {
        let observed = ObservedPolicy {
            attempts: None,
            base_ms: None,
            multiplier: None,
            delays_ms: Vec::new(),
            herd: 0,
            cv: None,
            jitter: None,
            retry_after: Vec::new(),
            resent_after_reset: Some(true),
            key_stable: None,
            attempt_timeout_ms: None,
            retried_statuses: Vec::new(),
        };
        let y = policy_yaml(&observed, "POST /orders");
        assert!(y.contains("retry: true"), "{y}");
        assert!(y.contains("retry_on: [reset]"), "{y}");
    }

    #[test]
    fn cv_of_equal_values_is_zero() {
        assert_eq!(coefficient_of_variation(&[5.0, 5.0, 5.0]), 0.0);
        assert!((coefficient_of_variation(&[1.0, 3.0]) - 0.5).abs() < 1e-9);
    }
}
