//! RL609 `observed-policy-drift`: per scenario, each transition held to the plan's
//! envelope ([`check`]); over the whole run, the observed policy against the declared
//! one ([`drift`]).

use super::rl607_observed_retry_on_client_error::CLIENT_ERRORS;
use super::{finding, Expectations, ProbeFinding};
use crate::diagnostic::catalog::OBSERVED_POLICY_DRIFT;
use crate::probe::infer::{JitterClass, ObservedPolicy};
use crate::probe::journal::{Attempt, Journal};
use crate::probe::measure::{dur, signal_of};
use crate::retry::{
    decide_policy, Decision, EffectivePolicyView, Jitter, PolicyDecisionInput, Signal, StopReason,
};

/// The plan's answer for the transition after `a`: the decision with the random
/// unit at 0 and just below 1.
fn plan_after(
    policy: &EffectivePolicyView,
    a: &Attempt,
    first_t: f64,
    signal: Signal,
) -> (Decision, Decision) {
    let outcome = a.outcome_ms().unwrap_or(a.t_ms);
    let input = PolicyDecisionInput {
        signal,
        attempt: u32::try_from(a.index).unwrap_or(u32::MAX),
        elapsed_ms: outcome - first_t,
        retry_after: a.retry_after.as_deref(),
        now_epoch_ms: a.wall_ms + (outcome - a.t_ms),
        previous_ms: None,
    };
    let lo = decide_policy(policy, &input, &mut || 0.0);
    let hi = decide_policy(policy, &input, &mut || 1.0 - f64::EPSILON);
    (lo, hi)
}

/// RL609 per transition: the client retried where the plan stops (a reason the
/// other checks do not already cover), stopped where the plan retries, or waited
/// outside the plan's delay range (with the tolerance of ε + 10 %).
pub(super) fn check(
    j: &Journal,
    attempts: &[&Attempt],
    policy: &EffectivePolicyView,
    exp: &Expectations,
    out: &mut Vec<ProbeFinding>,
) {
    let Some(first) = attempts.first() else {
        return;
    };
    let ended_by_probe = j
        .clients
        .iter()
        .any(|e| e.client == first.client && e.killed.is_some());
    for (i, a) in attempts.iter().enumerate() {
        let Some(signal) = signal_of(&a.answer) else {
            continue;
        };
        let (lo, hi) = plan_after(policy, a, first.t_ms, signal);
        let next = attempts.get(i + 1);
        let gap = next.and_then(|b| a.outcome_ms().map(|o| b.t_ms - o));
        let drift = match (&lo, &hi, next, gap) {
            (Decision::Stop(reason), _, Some(b), Some(gap)) => {
                let covered = matches!(
                    reason,
                    StopReason::MaxAttempts | StopReason::InvalidAttempt | StopReason::InvalidDelay
                ) || (matches!(reason, StopReason::NotTransient)
                    && matches!(signal, Signal::Status(s) if CLIENT_ERRORS.contains(&s)));
                (!covered).then(|| {
                    (
                        format!("stop: {}", reason.as_str()),
                        format!("attempt {} after {}", b.index + 1, dur(gap)),
                    )
                })
            }
            (
                Decision::Retry { delay_ms: min, .. },
                Decision::Retry { delay_ms: max, .. },
                Some(b),
                Some(gap),
            ) => {
                let slack = exp.epsilon_ms + 0.1 * max;
                (gap + exp.epsilon_ms < *min || gap > max + slack).then(|| {
                    (
                        format!("retry after {} to {}", dur(*min), dur(*max)),
                        format!("attempt {} after {}", b.index + 1, dur(gap)),
                    )
                })
            }
            (
                Decision::Retry { delay_ms: min, .. },
                Decision::Retry { delay_ms: max, .. },
                None,
                _,
            ) if !ended_by_probe => Some((
                format!("retry after {} to {}", dur(*min), dur(*max)),
                "no retry".to_string(),
            )),
            _ => None,
        };
        if let Some((expected, observed)) = drift {
            // Judged on the first client only: not counted across a herd.
            let mut f = finding(
                &OBSERVED_POLICY_DRIFT,
                j,
                Some(a),
                format!(
                    "after attempt {} ({}) the client did not follow the policy: plan says {expected}, observed {observed}",
                    a.index + 1,
                    a.answer.label()
                ),
                format!("plan: {expected}"),
                observed,
            );
            f.client = None;
            out.push(f);
            return;
        }
    }
}

/// RL609 over the whole run: each difference between the observed and the declared
/// policy, named in one message.
pub fn drift(observed: &ObservedPolicy, declared: &EffectivePolicyView) -> Option<ProbeFinding> {
    let mut diffs: Vec<String> = Vec::new();
    let mut expected: Vec<String> = Vec::new();
    if let (Some(seen), Some(allowed)) = (observed.attempts, declared.attempts) {
        if seen != allowed as usize && seen > 1 {
            diffs.push(format!("declared `attempts: {allowed}`, observed {seen}"));
            expected.push(format!("attempts {allowed}"));
        }
    }
    if let (Some(class), Some(cv)) = (observed.jitter, observed.cv) {
        let declared_class = match declared.jitter.unwrap_or(Jitter::None) {
            Jitter::None => Some(JitterClass::None),
            Jitter::Full => Some(JitterClass::Full),
            Jitter::Equal => Some(JitterClass::Equal),
            Jitter::Proportional(_) | Jitter::Decorrelated => None,
        };
        let differs = match declared_class {
            Some(d) => class != d && class != JitterClass::Inconclusive,
            None => class == JitterClass::None,
        };
        if differs {
            let word = declared
                .jitter
                .map(|j| j.to_string())
                .unwrap_or_else(|| "none".into());
            diffs.push(format!(
                "declared `jitter: {word}`, observed {}: CV {cv:.3} over {} clients",
                class.as_str(),
                observed.herd
            ));
            expected.push(format!("jitter {word}"));
        }
    }
    if let (Some(base), Some(declared_base)) = (observed.base_ms, declared.base_ms) {
        if declared.jitter.unwrap_or(Jitter::None) == Jitter::None
            && (base - declared_base).abs() > 50f64.max(0.25 * declared_base)
        {
            diffs.push(format!(
                "declared `backoff.base: {}`, observed {}",
                dur(declared_base),
                dur(base)
            ));
            expected.push(format!("base {}", dur(declared_base)));
        }
    }
    let honoured = observed
        .retry_after
        .iter()
        .filter(|r| matches!(r.scenario.as_str(), "ra-seconds" | "ra-date"))
        .any(|r| r.behaviour == "honoured");
    let early = observed.retry_after.iter().any(|r| r.behaviour == "early");
    if declared.retry_after.honor && early {
        diffs.push("declared `retry_after.honor: true`, observed a retry before it".into());
        expected.push("Retry-After honoured".into());
    } else if !declared.retry_after.honor && honoured && declared.retry {
        diffs.push("declared no `retry_after.honor`, observed Retry-After honoured".into());
        expected.push("Retry-After ignored".into());
    }
    if observed.resent_after_reset == Some(true)
        && !declared.effect.is_repeatable()
        && !declared.idempotency_key
        && !declared.check_status
    {
        diffs.push("the policy does not resend this write, observed a resend after a reset".into());
        expected.push("no resend after a reset".into());
    }
    if diffs.is_empty() {
        return None;
    }
    Some(ProbeFinding {
        code: OBSERVED_POLICY_DRIFT.code,
        name: OBSERVED_POLICY_DRIFT.name,
        severity: OBSERVED_POLICY_DRIFT.severity,
        scenario: "(all)".into(),
        client: None,
        attempt: None,
        message: format!(
            "the observed policy differs from the declared one: {}",
            diffs.join("; ")
        ),
        expected: expected.join(", "),
        observed: "see the observed policy".into(),
    })
}
