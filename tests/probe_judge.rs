//! Tier 1 of `retrylint probe` (../shared/docs/probe-research.md §6): the judge as a
//! pure function over synthetic journals. Every RL6xx has a journal made to trigger
//! it and one that must not, so no check is one that can never fail.

use retrylint::probe::journal::{Attempt, ClientEnd, EffectRecord, Journal};
use retrylint::probe::judge::{judge, Expectations, ProbeFinding};
use retrylint::probe::scenario::{Answer, RetryAfterForm};
use retrylint::retry::{Effect, EffectivePolicyView, Jitter, RetryOnEntry};

/// Epoch ms of a whole second, so HTTP-dates are exact.
const WALL0: f64 = 1_767_225_600_000.0;

fn attempt(client: usize, index: usize, t_ms: f64, answer: Answer) -> Attempt {
    let effect = if answer.processes() {
        EffectRecord::Recorded
    } else {
        EffectRecord::None
    };
    Attempt {
        client,
        index,
        t_ms,
        wall_ms: WALL0 + t_ms,
        method: "POST".into(),
        path: "/orders".into(),
        key: None,
        body_hash: 7,
        body_len: 2,
        answer,
        retry_after: None,
        date: None,
        answered_ms: Some(t_ms + 1.0),
        closed_ms: None,
        effect,
    }
}

fn with_ra(mut a: Attempt, raw: &str) -> Attempt {
    a.retry_after = Some(raw.to_string());
    a
}

fn with_key(mut a: Attempt, v: &str) -> Attempt {
    a.key = Some(("Idempotency-Key".into(), v.into()));
    a
}

fn journal(scenario: &str, attempts: Vec<Attempt>) -> Journal {
    let clients = attempts.iter().map(|a| a.client).max().map_or(0, |c| c + 1);
    let end = attempts
        .iter()
        .map(|a| a.answered_ms.unwrap_or(a.t_ms))
        .fold(0.0, f64::max)
        + 5.0;
    Journal {
        scenario: scenario.into(),
        attempts,
        clients: (0..clients)
            .map(|client| ClientEnd {
                client,
                exit_code: Some(0),
                ended_ms: end,
                killed: None,
            })
            .collect(),
        refused_ms: None,
    }
}

fn codes(findings: &[ProbeFinding]) -> Vec<&'static str> {
    findings.iter().map(|f| f.code).collect()
}

fn s(status: u16) -> Answer {
    Answer::status(status)
}

fn ra429() -> Answer {
    Answer::Status {
        status: 429,
        retry_after: Some(RetryAfterForm::Seconds(2)),
    }
}

/// A retrying client policy: POST with a key, 503 and 429 retried, 3 attempts,
/// base 100 ms doubling, no jitter, deadline 10 s, Retry-After honoured up to 5 s.
fn policy() -> EffectivePolicyView {
    EffectivePolicyView {
        retry: true,
        effect: Effect::NonIdempotent,
        idempotency_key: true,
        retry_on: vec![RetryOnEntry::Status(503), RetryOnEntry::Status(429)],
        attempts: Some(3),
        deadline_ms: Some(10_000.0),
        base_ms: Some(100.0),
        cap_ms: Some(1_000.0),
        multiplier: 2.0,
        jitter: Some(Jitter::None),
        retry_after: retrylint::retry::RetryAfterPolicy {
            honor: true,
            max_ms: Some(5_000.0),
            ..Default::default()
        },
        ..EffectivePolicyView::default()
    }
}

#[test]
fn rl601_early_retry_after_seconds_is_flagged_and_a_patient_one_is_not() {
    let exp = Expectations::default();
    let early = journal(
        "ra-seconds",
        vec![
            with_ra(attempt(0, 0, 0.0, ra429()), "2"),
            attempt(0, 1, 500.0, s(200)),
        ],
    );
    let f = judge(&early, &exp);
    assert_eq!(codes(&f), ["RL601"]);
    assert_eq!(f[0].attempt, Some(2));
    let patient = journal(
        "ra-seconds",
        vec![
            with_ra(attempt(0, 0, 0.0, ra429()), "2"),
            attempt(0, 1, 2_010.0, s(200)),
        ],
    );
    assert!(judge(&patient, &exp).is_empty());
}

#[test]
fn rl601_a_date_retry_after_is_judged_absolutely() {
    let exp = Expectations::default();
    // Answered 800 ms into a second; the date names 2 s after the start of that
    // second, so 1.2 s of waiting is on time although below "2 s".
    let date = httpdate::fmt_http_date(
        std::time::UNIX_EPOCH + std::time::Duration::from_millis(WALL0 as u64 + 2_000),
    );
    let on_time = journal(
        "ra-date",
        vec![
            with_ra(attempt(0, 0, 800.0, ra429()), &date),
            attempt(0, 1, 2_010.0, s(200)),
        ],
    );
    assert!(judge(&on_time, &exp).is_empty());
    let early = journal(
        "ra-date",
        vec![
            with_ra(attempt(0, 0, 800.0, ra429()), &date),
            attempt(0, 1, 1_500.0, s(200)),
        ],
    );
    assert_eq!(codes(&judge(&early, &exp)), ["RL601"]);
}

fn herd(scenario: &str, delays: &[f64]) -> Journal {
    let mut attempts = Vec::new();
    for (c, d) in delays.iter().enumerate() {
        attempts.push(attempt(c, 0, 0.0, s(503)));
        attempts.push(attempt(c, 1, 1.0 + d, s(200)));
    }
    let mut j = journal(scenario, attempts);
    j.attempts.iter_mut().for_each(|a| a.method = "GET".into());
    j
}

#[test]
fn rl602_a_herd_with_no_spread_is_synchronised_only_on_the_storm() {
    let exp = Expectations {
        non_idempotent: false,
        ..Expectations::default()
    };
    let synced = [
        1000.0, 1001.0, 1002.0, 1003.0, 1000.5, 1001.5, 1002.5, 1000.2,
    ];
    let f = judge(&herd("storm-503", &synced), &exp);
    assert_eq!(codes(&f), ["RL602"]);
    assert!(f[0].message.contains("8 clients"), "{}", f[0].message);
    let spread = [100.0, 900.0, 400.0, 650.0, 250.0, 800.0, 50.0, 1000.0];
    assert!(judge(&herd("storm-503", &spread), &exp).is_empty());
    // A herd that waits one Retry-After is synchronised by the server, not judged.
    assert!(judge(&herd("ra-503", &synced), &exp).is_empty());
}

#[test]
fn rl603_a_second_effect_after_a_reset_is_flagged_and_a_replayed_key_is_not() {
    let exp = Expectations::default();
    let dup = journal(
        "lost-response",
        vec![
            attempt(0, 0, 0.0, Answer::Reset),
            attempt(0, 1, 10.0, s(201)),
        ],
    );
    let f = judge(&dup, &exp);
    assert_eq!(codes(&f), ["RL603"]);
    assert!(
        f[0].message.contains("without an idempotency key"),
        "{}",
        f[0].message
    );
    let mut replay = attempt(0, 1, 10.0, s(201));
    replay.effect = EffectRecord::Replayed;
    let keyed = journal(
        "lost-response",
        vec![
            with_key(attempt(0, 0, 0.0, Answer::Reset), "k1"),
            with_key(replay, "k1"),
        ],
    );
    assert!(judge(&keyed, &exp).is_empty());
    // A PUT may be repeated.
    let idempotent = Expectations {
        non_idempotent: false,
        ..Expectations::default()
    };
    assert!(judge(&dup, &idempotent).is_empty());
}

#[test]
fn rl604_a_regenerated_or_missing_key_is_flagged_and_a_stable_one_is_not() {
    let exp = Expectations::default();
    let regenerated = journal(
        "post-503",
        vec![
            with_key(attempt(0, 0, 0.0, s(503)), "k1"),
            with_key(attempt(0, 1, 100.0, s(201)), "k2"),
        ],
    );
    assert_eq!(codes(&judge(&regenerated, &exp)), ["RL604"]);
    let stable = journal(
        "post-503",
        vec![
            with_key(attempt(0, 0, 0.0, s(503)), "k1"),
            with_key(attempt(0, 1, 100.0, s(201)), "k1"),
        ],
    );
    assert!(judge(&stable, &exp).is_empty());
    let declared = Expectations {
        key_header: Some("Idempotency-Key".into()),
        ..Expectations::default()
    };
    let missing = journal(
        "post-503",
        vec![attempt(0, 0, 0.0, s(503)), attempt(0, 1, 100.0, s(201))],
    );
    let f = judge(&missing, &declared);
    assert_eq!(codes(&f), ["RL604"]);
    assert!(f[0].message.contains("no key header"), "{}", f[0].message);
    assert!(judge(&stable, &declared).is_empty());
}

#[test]
fn rl605_an_attempt_after_the_deadline_is_flagged_and_none_without_a_deadline() {
    let late = journal(
        "always-503",
        vec![attempt(0, 0, 0.0, s(503)), attempt(0, 1, 1_500.0, s(503))],
    );
    let with_deadline = Expectations {
        deadline_ms: Some(1_000.0),
        non_idempotent: false,
        ..Expectations::default()
    };
    assert_eq!(codes(&judge(&late, &with_deadline)), ["RL605"]);
    let no_deadline = Expectations {
        non_idempotent: false,
        ..Expectations::default()
    };
    assert!(judge(&late, &no_deadline).is_empty());
    let in_time = journal(
        "always-503",
        vec![attempt(0, 0, 0.0, s(503)), attempt(0, 1, 900.0, s(503))],
    );
    assert!(judge(&in_time, &with_deadline).is_empty());
}

#[test]
fn rl605_a_client_still_running_past_deadline_and_grace_is_flagged() {
    let mut hung = journal("hang", vec![attempt(0, 0, 0.0, Answer::Hang)]);
    hung.clients[0].ended_ms = 5_000.0;
    hung.clients[0].killed = Some("idle".into());
    let exp = Expectations {
        deadline_ms: Some(2_000.0),
        ..Expectations::default()
    };
    let f = judge(&hung, &exp);
    assert_eq!(codes(&f), ["RL605"]);
    assert!(f[0].message.contains("still running"), "{}", f[0].message);
}

#[test]
fn rl606_more_attempts_than_the_policy_allows_is_flagged() {
    let exp = Expectations {
        policy: Some(policy()),
        ..Expectations::default()
    };
    let four = journal(
        "always-503",
        vec![
            with_key(attempt(0, 0, 0.0, s(503)), "k"),
            with_key(attempt(0, 1, 102.0, s(503)), "k"),
            with_key(attempt(0, 2, 305.0, s(503)), "k"),
            with_key(attempt(0, 3, 710.0, s(503)), "k"),
        ],
    );
    assert_eq!(codes(&judge(&four, &exp)), ["RL606"]);
    let three = journal("always-503", four.attempts[..3].to_vec());
    assert!(judge(&three, &exp).is_empty(), "{:?}", judge(&three, &exp));
}

#[test]
fn rl607_a_client_error_retried_unchanged_is_flagged_and_a_changed_request_is_not() {
    let exp = Expectations::default();
    let same = journal(
        "client-error",
        vec![attempt(0, 0, 0.0, s(400)), attempt(0, 1, 50.0, s(200))],
    );
    assert_eq!(codes(&judge(&same, &exp)), ["RL607"]);
    let mut fixed = attempt(0, 1, 50.0, s(200));
    fixed.body_hash = 8;
    let changed = journal("client-error", vec![attempt(0, 0, 0.0, s(400)), fixed]);
    assert!(judge(&changed, &exp).is_empty());
}

#[test]
fn rl608_waiting_out_an_invalid_retry_after_is_flagged_and_giving_up_is_not() {
    let exp = Expectations::default();
    let mut waited = journal(
        "ra-invalid",
        vec![with_ra(attempt(0, 0, 0.0, s(429)), "2015-10-21T07:28:00Z")],
    );
    waited.clients[0].ended_ms = 6_500.0;
    waited.clients[0].killed = Some("idle".into());
    let f = judge(&waited, &exp);
    assert_eq!(codes(&f), ["RL608"]);
    assert!(f[0].observed.contains("still waiting"), "{}", f[0].observed);
    let gave_up = journal(
        "ra-invalid",
        vec![with_ra(attempt(0, 0, 0.0, s(429)), "2015-10-21T07:28:00Z")],
    );
    assert!(judge(&gave_up, &exp).is_empty());
    let backed_off = journal(
        "ra-invalid",
        vec![
            with_ra(attempt(0, 0, 0.0, s(429)), "2015-10-21T07:28:00Z"),
            attempt(0, 1, 1_000.0, s(200)),
        ],
    );
    assert!(judge(&backed_off, &exp).is_empty());
}

#[test]
fn rl609_a_delay_outside_the_plan_is_drift_and_one_inside_is_not() {
    let exp = Expectations {
        policy: Some(policy()),
        ..Expectations::default()
    };
    // Plan: first retry after exactly 100 ms (no jitter).
    let slow = journal(
        "post-503",
        vec![
            with_key(attempt(0, 0, 0.0, s(503)), "k"),
            with_key(attempt(0, 1, 1_001.0, s(201)), "k"),
        ],
    );
    let f = judge(&slow, &exp);
    assert_eq!(codes(&f), ["RL609"]);
    assert!(
        f[0].expected.contains("retry after 100 ms to 100 ms"),
        "{}",
        f[0].expected
    );
    let on_plan = journal(
        "post-503",
        vec![
            with_key(attempt(0, 0, 0.0, s(503)), "k"),
            with_key(attempt(0, 1, 103.0, s(201)), "k"),
        ],
    );
    assert!(judge(&on_plan, &exp).is_empty());
    // The plan retries; the client gave up.
    let stopped = journal("post-503", vec![with_key(attempt(0, 0, 0.0, s(503)), "k")]);
    assert_eq!(codes(&judge(&stopped, &exp)), ["RL609"]);
}

#[test]
fn the_refused_control_journal_is_clean() {
    // What the server sees when the first connection was refused: one POST.
    let j = Journal {
        refused_ms: Some(400),
        ..journal("refused", vec![attempt(0, 0, 1_000.0, s(201))])
    };
    assert!(judge(&j, &Expectations::default()).is_empty());
}

#[test]
fn rl608_a_client_stalled_by_a_past_date_is_flagged() {
    let exp = Expectations::default();
    let past = "Thu, 01 Jan 2015 00:00:00 GMT";
    let mut stalled = journal("ra-past", vec![with_ra(attempt(0, 0, 0.0, s(429)), past)]);
    stalled.clients[0].ended_ms = 6_500.0;
    stalled.clients[0].killed = Some("idle".into());
    assert_eq!(codes(&judge(&stalled, &exp)), ["RL608"]);
    let retried = journal(
        "ra-past",
        vec![
            with_ra(attempt(0, 0, 0.0, s(429)), past),
            attempt(0, 1, 120.0, s(200)),
        ],
    );
    assert!(judge(&retried, &exp).is_empty());
}
