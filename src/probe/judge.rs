//! The judge: a pure function from a scenario's journal and the expectations of the
//! operation to findings RL601-RL609. The policy-independent safety checks run
//! always; with an effective policy, every observed transition is also held to the
//! envelope of the decision behind `plan` ([`decide_policy`] with the random unit at
//! 0 and just below 1).

use super::journal::{Attempt, EffectRecord, Journal};
use super::scenario::{Answer, STORM};
use crate::diagnostic::catalog::{
    OBSERVED_DEADLINE_OVERRUN, OBSERVED_DUPLICATE_WRITE, OBSERVED_KEY_MISSING_OR_CHANGED,
    OBSERVED_POLICY_DRIFT, OBSERVED_RETRY_BEFORE_RETRY_AFTER, OBSERVED_RETRY_ON_CLIENT_ERROR,
    OBSERVED_SYNCHRONISED_RETRIES, OBSERVED_TOO_MANY_ATTEMPTS, OBSERVED_UNBOUNDED_RETRY_AFTER,
};
use crate::diagnostic::rule::RuleMeta;
use crate::diagnostic::Severity;
use crate::retry::{
    decide_policy, parse_retry_after_at, Decision, EffectivePolicyView, PolicyDecisionInput,
    Signal, StopReason,
};
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

/// Statuses a client must not retry unchanged (RL607).
pub const CLIENT_ERRORS: [u16; 4] = [400, 401, 403, 422];

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
fn retry_after_of(a: &Attempt) -> Option<Result<(f64, f64), ()>> {
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

/// Judges one scenario's journal. Findings come in check order (RL601..RL609), then
/// client and attempt order.
pub fn judge(journal: &Journal, exp: &Expectations) -> Vec<ProbeFinding> {
    let mut out = Vec::new();
    let clients = journal.client_count();
    for c in 0..clients {
        let attempts = journal.of_client(c);
        early_retries(journal, &attempts, exp, &mut out);
        duplicate_writes(journal, &attempts, exp, &mut out);
        keys(journal, &attempts, exp, &mut out);
        deadline(journal, c, &attempts, exp, &mut out);
        too_many(journal, &attempts, exp, &mut out);
        client_errors(journal, &attempts, &mut out);
        unbounded_waits(journal, c, &attempts, exp, &mut out);
    }
    synchronised(journal, &mut out);
    if let Some(policy) = &exp.policy {
        // The envelope of the first client (a herd repeats it).
        envelope(journal, &journal.of_client(0), policy, exp, &mut out);
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

/// RL601: the next attempt started before the Retry-After (delay-seconds from the
/// answer, an HTTP-date absolutely against the wall clock).
fn early_retries(
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

/// RL603: a write processed twice (two recorded effects for one client).
fn duplicate_writes(
    j: &Journal,
    attempts: &[&Attempt],
    exp: &Expectations,
    out: &mut Vec<ProbeFinding>,
) {
    if !exp.non_idempotent {
        return;
    }
    let recorded: Vec<&&Attempt> = attempts
        .iter()
        .filter(|a| a.effect == EffectRecord::Recorded)
        .collect();
    if let [first, second, ..] = recorded.as_slice() {
        let unknown = attempts
            .iter()
            .filter(|a| a.index < second.index)
            .find(|a| matches!(a.answer, Answer::Reset | Answer::Hang | Answer::SlowBody))
            .map(|a| format!(" after a {} (outcome unknown)", a.answer.label()))
            .unwrap_or_default();
        let key = match (&first.key, &second.key) {
            (None, None) => "without an idempotency key".to_string(),
            (Some((_, k1)), Some((_, k2))) if k1 != k2 => "with a new idempotency key".into(),
            _ => "without protection".into(),
        };
        out.push(finding(
            &OBSERVED_DUPLICATE_WRITE,
            j,
            Some(second),
            format!(
                "`{} {}` was sent again{unknown} {key}: the server recorded {} effects",
                second.method,
                second.path,
                recorded.len()
            ),
            "one effect: no resend, or a resend with the same idempotency key".into(),
            format!(
                "effects recorded at attempts {}",
                recorded
                    .iter()
                    .map(|a| (a.index + 1).to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
}

/// RL604: the declared key is missing or sent under another name, or the key value
/// changed between attempts.
fn keys(j: &Journal, attempts: &[&Attempt], exp: &Expectations, out: &mut Vec<ProbeFinding>) {
    if !exp.non_idempotent {
        return;
    }
    // A missing key matters once the write is sent again: a single attempt (the
    // refused-connection control, a first success) is not judged.
    if let Some(declared) = exp.key_header.as_ref().filter(|_| attempts.len() > 1) {
        if let Some(a) = attempts.iter().find(|a| match &a.key {
            None => true,
            Some((name, _)) => !name.eq_ignore_ascii_case(declared),
        }) {
            let observed = match &a.key {
                None => "no key header".to_string(),
                Some((name, _)) => format!("the key sent as `{name}`"),
            };
            out.push(finding(
                &OBSERVED_KEY_MISSING_OR_CHANGED,
                j,
                Some(a),
                format!(
                    "attempt {} carries {observed}; the operation declares `{declared}`",
                    a.index + 1
                ),
                format!("`{declared}` on every attempt"),
                observed,
            ));
            return;
        }
    }
    let mut first: Option<(&Attempt, &str)> = None;
    for a in attempts {
        let Some((_, value)) = &a.key else { continue };
        match first {
            None => first = Some((a, value)),
            Some((f, v)) if v != value => {
                out.push(finding(
                    &OBSERVED_KEY_MISSING_OR_CHANGED,
                    j,
                    Some(a),
                    format!(
                        "the idempotency key changed between attempt {} and attempt {}",
                        f.index + 1,
                        a.index + 1
                    ),
                    format!("`{v}` on every attempt"),
                    format!("`{value}`"),
                ));
                return;
            }
            Some(_) => {}
        }
    }
}

/// RL605: an attempt after the deadline, or the client still running past deadline +
/// grace (measured from its first attempt).
fn deadline(
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

/// RL606: more attempts than the policy's `attempts`.
fn too_many(j: &Journal, attempts: &[&Attempt], exp: &Expectations, out: &mut Vec<ProbeFinding>) {
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

/// RL607: a 400/401/403/422 retried with the same method, target and body.
fn client_errors(j: &Journal, attempts: &[&Attempt], out: &mut Vec<ProbeFinding>) {
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

/// RL608: after a huge or invalid Retry-After (or a past date), the client waited
/// past the wait bound (+ grace): its next attempt came later, or it was still
/// waiting when the probe ended it.
fn unbounded_waits(
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

/// RL602: on the storm scenario only, a retry whose delays across the herd spread
/// less than [`sync_threshold_ms`].
fn synchronised(j: &Journal, out: &mut Vec<ProbeFinding>) {
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
fn envelope(
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
