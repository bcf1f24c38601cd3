//! The judge: a pure function from a scenario's journal and the expectations of the
//! operation to findings RL601-RL609, one file per rule. The policy-independent
//! safety checks run always; with an effective policy, every observed transition is
//! also held to the envelope of the decision behind `plan` (`decide_policy` with the
//! random unit at 0 and just below 1, RL609).

mod rl601_observed_retry_before_retry_after;
mod rl602_observed_synchronised_retries;
mod rl603_observed_duplicate_write;
mod rl604_observed_key_missing_or_changed;
mod rl605_observed_deadline_overrun;
mod rl606_observed_too_many_attempts;
mod rl607_observed_retry_on_client_error;
mod rl608_observed_unbounded_retry_after;
mod rl609_observed_policy_drift;

pub use rl607_observed_retry_on_client_error::CLIENT_ERRORS;
pub use rl609_observed_policy_drift::drift;

use super::journal::{Attempt, Journal};
use crate::diagnostic::rule::RuleMeta;
use crate::diagnostic::Severity;
use crate::retry::EffectivePolicyView;
use serde::Serialize;

/// What the operation and its policy lead the judge to expect. Times are ms.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectations {
    /// Writes need protection: the operation's effect is neither safe nor
    /// idempotent (from the policy's `effect`, else the method).
    pub non_idempotent: bool,
    /// The idempotency-key header the policy or spec declares, if any.
    pub key_header: Option<String>,
    /// The effective policy of the operation (client layer), if one applies.
    pub policy: Option<EffectivePolicyView>,
    /// The deadline: the policy's, else `--deadline`; `None` skips RL605.
    pub deadline_ms: Option<f64>,
    /// The longest wait a client should accept for one Retry-After (the policy's
    /// `retry_after.max`, else its deadline, else `--wait-bound`).
    pub wait_bound_ms: f64,
    /// Measurement tolerance on each timing comparison.
    pub epsilon_ms: f64,
    /// Extra time allowed after a bound before the client is judged past it.
    pub grace_ms: f64,
}

impl Default for Expectations {
    fn default() -> Self {
        Expectations {
            non_idempotent: true,
            key_header: None,
            policy: None,
            deadline_ms: None,
            wait_bound_ms: 5_000.0,
            epsilon_ms: 50.0,
            grace_ms: 1_000.0,
        }
    }
}

/// One observed violation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProbeFinding {
    /// `RL601`..`RL609`.
    pub code: &'static str,
    /// The rule's name.
    pub name: &'static str,
    /// The rule's severity.
    pub severity: Severity,
    /// The scenario it was observed in.
    pub scenario: String,
    /// The client copy (0-based), when one client shows it.
    pub client: Option<usize>,
    /// The attempt (1-based, as the timeline counts) it concerns, if one does.
    pub attempt: Option<usize>,
    /// One sentence.
    pub message: String,
    /// What the policy (`plan`) or the safety check expected.
    pub expected: String,
    /// What the journal shows.
    pub observed: String,
}

fn finding(
    meta: &RuleMeta,
    journal: &Journal,
    at: Option<&Attempt>,
    message: String,
    expected: String,
    observed: String,
) -> ProbeFinding {
    ProbeFinding {
        code: meta.code,
        name: meta.name,
        severity: meta.severity,
        scenario: journal.scenario.clone(),
        client: at.map(|a| a.client),
        attempt: at.map(|a| a.index + 1),
        message,
        expected,
        observed,
    }
}

/// Judges one scenario's journal. Findings come in check order (RL601..RL609), then
/// client and attempt order.
pub fn judge(journal: &Journal, exp: &Expectations) -> Vec<ProbeFinding> {
    let mut out = Vec::new();
    let clients = journal.client_count();
    for c in 0..clients {
        let attempts = journal.of_client(c);
        rl601_observed_retry_before_retry_after::check(journal, &attempts, exp, &mut out);
        rl603_observed_duplicate_write::check(journal, &attempts, exp, &mut out);
        rl604_observed_key_missing_or_changed::check(journal, &attempts, exp, &mut out);
        rl605_observed_deadline_overrun::check(journal, c, &attempts, exp, &mut out);
        rl606_observed_too_many_attempts::check(journal, &attempts, exp, &mut out);
        rl607_observed_retry_on_client_error::check(journal, &attempts, &mut out);
        rl608_observed_unbounded_retry_after::check(journal, c, &attempts, exp, &mut out);
    }
    rl602_observed_synchronised_retries::check(journal, &mut out);
    if let Some(policy) = &exp.policy {
        // The envelope of the first client (a herd repeats it).
        rl609_observed_policy_drift::check(journal, &journal.of_client(0), policy, exp, &mut out);
    }
    out.sort_by_key(|f| f.code);
    fold_herd(out, clients)
}

/// In a herd, one finding per code: the first client's, its message saying how many
/// clients showed it.
fn fold_herd(findings: Vec<ProbeFinding>, clients: usize) -> Vec<ProbeFinding> {
    if clients < 2 {
        return findings;
    }
    let mut out: Vec<ProbeFinding> = Vec::new();
    let mut counts: Vec<usize> = Vec::new();
    for f in findings {
        match out
            .iter()
            .position(|o| o.code == f.code && o.client.is_some() && f.client.is_some())
        {
            Some(i) => counts[i] += 1,
            None => {
                out.push(f);
                counts.push(1);
            }
        }
    }
    for (f, n) in out.iter_mut().zip(counts) {
        if f.client.is_some() {
            f.message = format!("{} (in {n} of {clients} clients)", f.message);
        }
    }
    out
}
