//! Tests of the retry engine (`retrylint::retry`) against domain.md.

use proptest::prelude::*;
use retrylint::retry::*;

fn stop(r: StopReason) -> Decision {
    Decision::Stop(r)
}

/// The worked example's inputs: POST, 503, attempt 2, now 1000, deadline 3000,
/// random 0.5, idempotency key, other values default.
fn worked() -> DecisionInput {
    DecisionInput {
        method: Some("POST".into()),
        status: Some(503),
        attempt: Some(2.0),
        now_ms: Some(1000.0),
        deadline_ms: Some(3000.0),
        random_unit: 0.5,
        idempotency_key: true,
        ..DecisionInput::default()
    }
}

// ---------------------------------------------------------------- reference

#[test]
fn worked_example() {
    assert_eq!(
        decide(&worked()),
        Decision::Retry {
            delay_ms: 200.0,
            backoff_ms: 400.0
        }
    );
}

#[test]
fn defaults_are_the_documented_ones() {
    let d = DecisionInput::default();
    assert_eq!(
        (d.base_ms, d.cap_ms, d.max_attempts, d.random_unit),
        (100.0, 2000.0, 3.0, 0.5)
    );
    assert_eq!(
        (d.method, d.attempt, d.now_ms, d.deadline_ms),
        (None, None, None, None)
    );
    assert!(!d.transport_error && !d.idempotency_key && !d.status_endpoint);
}

#[test]
fn unknown_result_fires_before_not_transient() {
    // A POST without key on 400: eligibility is checked first.
    let i = DecisionInput {
        status: Some(400),
        idempotency_key: false,
        ..worked()
    };
    assert_eq!(decide(&i), stop(StopReason::UnknownResult));
    // Absent method is not idempotent.
    let i = DecisionInput {
        method: None,
        idempotency_key: false,
        ..worked()
    };
    assert_eq!(decide(&i), stop(StopReason::UnknownResult));
}

#[test]
fn method_tokens_are_case_sensitive() {
    for m in ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"] {
        let i = DecisionInput {
            method: Some(m.into()),
            idempotency_key: false,
            ..worked()
        };
        assert!(matches!(decide(&i), Decision::Retry { .. }), "{m}");
    }
    for m in ["get", "Put", "POST", "PATCH", "CONNECT", ""] {
        let i = DecisionInput {
            method: Some(m.into()),
            idempotency_key: false,
            ..worked()
        };
        assert_eq!(decide(&i), stop(StopReason::UnknownResult), "{m}");
    }
}

#[test]
fn status_endpoint_makes_repeatable() {
    let i = DecisionInput {
        idempotency_key: false,
        status_endpoint: true,
        ..worked()
    };
    assert!(matches!(decide(&i), Decision::Retry { .. }));
}

#[test]
fn not_transient() {
    for s in [Some(400), Some(401), Some(403), Some(500), Some(502), None] {
        let i = DecisionInput {
            status: s,
            ..worked()
        };
        assert_eq!(decide(&i), stop(StopReason::NotTransient), "{s:?}");
    }
    let i = DecisionInput {
        status: None,
        transport_error: true,
        ..worked()
    };
    assert!(matches!(decide(&i), Decision::Retry { .. }));
    let i = DecisionInput {
        status: Some(429),
        ..worked()
    };
    assert!(matches!(decide(&i), Decision::Retry { .. }));
}

#[test]
fn invalid_attempt() {
    for a in [
        None,
        Some(-1.0),
        Some(1.5),
        Some(f64::NAN),
        Some(f64::INFINITY),
    ] {
        let i = DecisionInput {
            attempt: a,
            ..worked()
        };
        assert_eq!(decide(&i), stop(StopReason::InvalidAttempt), "{a:?}");
    }
    for m in [0.0, -3.0, 2.5, f64::NAN, f64::INFINITY] {
        let i = DecisionInput {
            max_attempts: m,
            ..worked()
        };
        assert_eq!(decide(&i), stop(StopReason::InvalidAttempt), "{m}");
    }
    // Order: not-transient comes before invalid-attempt.
    let i = DecisionInput {
        attempt: None,
        status: Some(400),
        ..worked()
    };
    assert_eq!(decide(&i), stop(StopReason::NotTransient));
}

#[test]
fn max_attempts_counts_retries() {
    let at = |a: f64| {
        decide(&DecisionInput {
            attempt: Some(a),
            deadline_ms: Some(1e9),
            ..worked()
        })
    };
    assert!(matches!(at(0.0), Decision::Retry { .. }));
    assert!(matches!(at(2.0), Decision::Retry { .. }));
    assert_eq!(at(3.0), stop(StopReason::MaxAttempts));
    // Order: max-attempts before invalid-delay (now absent).
    let i = DecisionInput {
        attempt: Some(3.0),
        now_ms: None,
        ..worked()
    };
    assert_eq!(decide(&i), stop(StopReason::MaxAttempts));
    // Order: invalid-attempt before invalid-delay.
    let i = DecisionInput {
        attempt: Some(0.5),
        now_ms: None,
        ..worked()
    };
    assert_eq!(decide(&i), stop(StopReason::InvalidAttempt));
}

#[test]
fn invalid_delay() {
    let cases: Vec<DecisionInput> = vec![
        DecisionInput {
            now_ms: None,
            ..worked()
        },
        DecisionInput {
            deadline_ms: None,
            ..worked()
        },
        DecisionInput {
            now_ms: Some(f64::NAN),
            ..worked()
        },
        DecisionInput {
            deadline_ms: Some(f64::INFINITY),
            ..worked()
        },
        DecisionInput {
            base_ms: -1.0,
            ..worked()
        },
        DecisionInput {
            base_ms: f64::NAN,
            ..worked()
        },
        DecisionInput {
            cap_ms: 50.0,
            ..worked()
        },
        DecisionInput {
            cap_ms: f64::INFINITY,
            ..worked()
        },
        DecisionInput {
            random_unit: f64::NAN,
            ..worked()
        },
    ];
    for i in cases {
        assert_eq!(decide(&i), stop(StopReason::InvalidDelay), "{i:?}");
    }
    // Order: invalid-delay before invalid-retry-after.
    let i = DecisionInput {
        base_ms: -1.0,
        retry_after_ms: Some(-5.0),
        ..worked()
    };
    assert_eq!(decide(&i), stop(StopReason::InvalidDelay));
}

#[test]
fn random_unit_is_clamped() {
    let r = |u: f64| {
        decide(&DecisionInput {
            random_unit: u,
            ..worked()
        })
    };
    assert_eq!(
        r(7.0),
        Decision::Retry {
            delay_ms: 400.0,
            backoff_ms: 400.0
        }
    );
    assert_eq!(
        r(-7.0),
        Decision::Retry {
            delay_ms: 0.0,
            backoff_ms: 400.0
        }
    );
    // floor(400 * 0.3337) = floor(133.48) = 133
    assert_eq!(
        r(0.3337),
        Decision::Retry {
            delay_ms: 133.0,
            backoff_ms: 400.0
        }
    );
}

#[test]
fn invalid_retry_after() {
    for ra in [-1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let i = DecisionInput {
            retry_after_ms: Some(ra),
            ..worked()
        };
        assert_eq!(decide(&i), stop(StopReason::InvalidRetryAfter), "{ra}");
    }
    // Order: invalid-retry-after before deadline-exhausted.
    let i = DecisionInput {
        retry_after_ms: Some(-1.0),
        now_ms: Some(5000.0),
        ..worked()
    };
    assert_eq!(decide(&i), stop(StopReason::InvalidRetryAfter));
}

#[test]
fn deadline_exhausted() {
    // now >= deadline (step 7)
    let i = DecisionInput {
        now_ms: Some(3000.0),
        ..worked()
    };
    assert_eq!(decide(&i), stop(StopReason::DeadlineExhausted));
    // now + delay == deadline (step 9: >=)
    let i = DecisionInput {
        now_ms: Some(2800.0),
        ..worked()
    };
    assert_eq!(decide(&i), stop(StopReason::DeadlineExhausted));
    let i = DecisionInput {
        now_ms: Some(2799.0),
        ..worked()
    };
    assert!(matches!(decide(&i), Decision::Retry { .. }));
}

#[test]
fn retry_after_is_a_minimum() {
    let i = DecisionInput {
        retry_after_ms: Some(1500.0),
        ..worked()
    };
    assert_eq!(
        decide(&i),
        Decision::Retry {
            delay_ms: 1500.0,
            backoff_ms: 400.0
        }
    );
    let i = DecisionInput {
        retry_after_ms: Some(50.0),
        ..worked()
    };
    assert_eq!(
        decide(&i),
        Decision::Retry {
            delay_ms: 200.0,
            backoff_ms: 400.0
        }
    );
}

#[test]
fn retry_after_from_the_parser() {
    // 9999999999 s: valid, far beyond the deadline, never an overflow.
    let ra = parse_retry_after_at("9999999999", 0.0)
        .unwrap()
        .delay_ms(0.0);
    let i = DecisionInput {
        retry_after_ms: Some(ra),
        ..worked()
    };
    assert_eq!(decide(&i), stop(StopReason::DeadlineExhausted));
    // A date in the past means 0: the jitter alone decides.
    let now = 1_748_736_000_000.0;
    let ra = parse_retry_after_at("Wed, 21 Oct 2015 07:28:00 GMT", now)
        .unwrap()
        .delay_ms(now);
    assert_eq!(ra, 0.0);
    let i = DecisionInput {
        retry_after_ms: Some(ra),
        ..worked()
    };
    assert_eq!(
        decide(&i),
        Decision::Retry {
            delay_ms: 200.0,
            backoff_ms: 400.0
        }
    );
}

#[test]
fn backoff_overflow_and_zero_base() {
    // 2^5000 overflows to infinity and is capped.
    let i = DecisionInput {
        attempt: Some(5000.0),
        max_attempts: 10_000.0,
        deadline_ms: Some(1e9),
        ..worked()
    };
    assert_eq!(
        decide(&i),
        Decision::Retry {
            delay_ms: 1000.0,
            backoff_ms: 2000.0
        }
    );
    // base 0 gives 0 even then (no 0 * inf = NaN).
    let i = DecisionInput { base_ms: 0.0, ..i };
    assert_eq!(
        decide(&i),
        Decision::Retry {
            delay_ms: 0.0,
            backoff_ms: 0.0
        }
    );
}

#[test]
fn every_stop_reason_has_a_name() {
    let names: Vec<&str> = StopReason::ALL.iter().map(|r| r.as_str()).collect();
    assert_eq!(
        names,
        [
            "not-retried",
            "unknown-result",
            "not-transient",
            "invalid-attempt",
            "max-attempts",
            "invalid-delay",
            "invalid-retry-after",
            "retry-after-exceeds-max",
            "deadline-exhausted"
        ]
    );
    for r in StopReason::ALL {
        assert_eq!(r.to_string().parse::<StopReason>(), Ok(r));
    }
}

fn method_strategy() -> impl Strategy<Value = Option<String>> {
    prop::option::of(prop::sample::select(vec![
        "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE", "POST", "PATCH", "get",
    ]))
    .prop_map(|m| m.map(str::to_owned))
}

prop_compose! {
    fn any_input()(
        method in method_strategy(),
        status in prop::option::of(prop::sample::select(vec![200u16, 400, 401, 403, 404, 429, 500, 503])),
        transport_error in any::<bool>(),
        attempt in prop::option::of(prop_oneof![(0u32..40).prop_map(f64::from), -5.0f64..50.0]),
        now in prop::option::of(0.0f64..10_000.0),
        span in -100.0f64..20_000.0,
        base in prop_oneof![Just(0.0), 0.0f64..1000.0],
        cap_extra in 0.0f64..5000.0,
        max_attempts in prop_oneof![(0u32..10).prop_map(f64::from), Just(2.5)],
        random_unit in -0.5f64..1.5,
        retry_after_ms in prop::option::of(prop_oneof![0.0f64..30_000.0, Just(-1.0)]),
        idempotency_key in any::<bool>(),
        status_endpoint in any::<bool>(),
    ) -> DecisionInput {
        DecisionInput {
            method,
            status,
            transport_error,
            attempt,
            now_ms: now,
            deadline_ms: now.map(|n| n + span),
            base_ms: base,
            cap_ms: base + cap_extra,
            max_attempts,
            random_unit,
            retry_after_ms,
            idempotency_key,
            status_endpoint,
        }
    }
}

proptest! {
    #[test]
    fn retries_respect_deadline_floor_and_cap(i in any_input()) {
        if let Decision::Retry { delay_ms, backoff_ms } = decide(&i) {
            let (now, deadline) = (i.now_ms.unwrap(), i.deadline_ms.unwrap());
            prop_assert!(delay_ms < deadline - now);
            prop_assert!(delay_ms >= 0.0);
            prop_assert!(backoff_ms <= i.cap_ms);
            if let Some(ra) = i.retry_after_ms {
                prop_assert!(delay_ms >= ra);
            }
            prop_assert!(delay_ms <= i.cap_ms.max(i.retry_after_ms.unwrap_or(0.0)));
        }
    }

    #[test]
    fn non_repeatable_never_retries(i in any_input()) {
        let i = DecisionInput {
            method: Some("POST".into()),
            idempotency_key: false,
            status_endpoint: false,
            ..i
        };
        prop_assert_eq!(decide(&i), Decision::Stop(StopReason::UnknownResult));
    }

    #[test]
    fn client_errors_never_retry(i in any_input(), s in prop::sample::select(vec![400u16, 401, 403])) {
        let i = DecisionInput { status: Some(s), transport_error: false, ..i };
        prop_assert!(matches!(decide(&i), Decision::Stop(_)));
    }

    #[test]
    fn retry_after_parser_never_panics(s in ".{0,64}", digits in "[0-9]{1,400}") {
        let _ = parse_retry_after_at(&s, 1.7e12);
        let r = parse_retry_after_at(&digits, 1.7e12);
        prop_assert!(matches!(r, Ok(RetryAfter::DelaySeconds(_))));
    }
}

// ---------------------------------------------------------------- Retry-After

const NOW: f64 = 1_748_736_000_000.0; // 2025-06-01T00:00:00Z
const OCT_21_2015_MS: i64 = 1_445_412_480_000;

#[test]
fn retry_after_value_table() {
    let p = |v: &str| parse_retry_after_at(v, NOW);
    assert_eq!(p("120"), Ok(RetryAfter::DelaySeconds(120)));
    assert_eq!(p("0"), Ok(RetryAfter::DelaySeconds(0)));
    assert_eq!(p(" 30 "), Ok(RetryAfter::DelaySeconds(30)));
    assert_eq!(p("9999999999"), Ok(RetryAfter::DelaySeconds(9_999_999_999)));
    assert_eq!(p("9999999999").unwrap().delay_ms(NOW), 9_999_999_999_000.0);
    for date in [
        "Wed, 21 Oct 2015 07:28:00 GMT",
        "Wednesday, 21-Oct-15 07:28:00 GMT",
        "Wed Oct 21 07:28:00 2015",
    ] {
        assert_eq!(p(date), Ok(RetryAfter::HttpDate(OCT_21_2015_MS)), "{date}");
        assert_eq!(p(date).unwrap().delay_ms(NOW), 0.0, "past date means 0");
        assert!(is_valid_retry_after_example(date));
    }
    for bad in ["-5", "1.5", "1m0s", "2015-10-21T07:28:00Z", ""] {
        assert!(p(bad).is_err(), "{bad:?}");
        assert!(!is_valid_retry_after_example(bad), "{bad:?}");
    }
    // A future date is relative to now.
    assert_eq!(
        p("Wed, 21 Oct 2015 07:28:00 GMT")
            .unwrap()
            .delay_ms(OCT_21_2015_MS as f64 - 30_000.0),
        30_000.0
    );
}

#[test]
fn huge_retry_after_digit_strings_never_panic() {
    for n in [20, 21, 100, 100_000] {
        let v = "9".repeat(n);
        assert_eq!(
            parse_retry_after_at(&v, NOW),
            Ok(RetryAfter::DelaySeconds(u64::MAX))
        );
    }
    assert_eq!(
        parse_retry_after_at("18446744073709551615", NOW),
        Ok(RetryAfter::DelaySeconds(u64::MAX))
    );
    assert_eq!(
        parse_retry_after_at("18446744073709551614", NOW),
        Ok(RetryAfter::DelaySeconds(u64::MAX - 1))
    );
}

// ---------------------------------------------------------------- policy mode

fn policy(jitter: Jitter) -> EffectivePolicyView {
    EffectivePolicyView {
        retry: true,
        effect: Effect::Idempotent,
        retry_on: vec![
            RetryOnEntry::Transport,
            RetryOnEntry::Status(429),
            RetryOnEntry::Class(5),
        ],
        attempts: Some(5),
        deadline_ms: Some(60_000.0),
        base_ms: Some(100.0),
        cap_ms: Some(2000.0),
        multiplier: 2.0,
        jitter: Some(jitter),
        retry_after: RetryAfterPolicy {
            honor: true,
            max_ms: Some(10_000.0),
            on_invalid: OnInvalid::Backoff,
            above_max_backoff: false,
        },
        ..EffectivePolicyView::default()
    }
}

fn input(signal: Signal, attempt: u32) -> PolicyDecisionInput<'static> {
    PolicyDecisionInput {
        signal,
        attempt,
        elapsed_ms: 0.0,
        retry_after: None,
        now_epoch_ms: NOW,
        previous_ms: None,
    }
}

fn run(p: &EffectivePolicyView, i: &PolicyDecisionInput<'_>, u: f64) -> Decision {
    decide_policy(p, i, &mut || u)
}

#[test]
fn policy_jitter_variants_bounds() {
    let s503 = Signal::Status(503);
    // attempt 2 -> backoff 400
    let i = input(s503, 2);
    let r = |j: Jitter, u: f64| run(&policy(j), &i, u);
    let retry = |delay: f64| Decision::Retry {
        delay_ms: delay,
        backoff_ms: 400.0,
    };
    assert_eq!(r(Jitter::None, 0.0), retry(400.0));
    assert_eq!(r(Jitter::None, 0.9), retry(400.0));
    assert_eq!(r(Jitter::Full, 0.0), retry(0.0));
    assert_eq!(r(Jitter::Full, 0.5), retry(200.0));
    assert_eq!(r(Jitter::Full, 0.999_999), retry(399.0));
    assert_eq!(r(Jitter::Equal, 0.0), retry(200.0));
    assert_eq!(r(Jitter::Equal, 0.5), retry(300.0));
    assert_eq!(r(Jitter::Equal, 0.999_999), retry(399.0));
    // decorrelated: uniform(base, previous * 3), previous defaults to base
    assert_eq!(r(Jitter::Decorrelated, 0.0), retry(100.0));
    assert_eq!(r(Jitter::Decorrelated, 0.5), retry(200.0)); // 100 + 200*0.5
    let with_prev = PolicyDecisionInput {
        previous_ms: Some(1000.0),
        ..i
    };
    assert_eq!(
        run(&policy(Jitter::Decorrelated), &with_prev, 0.999_999),
        retry(2000.0),
        "capped"
    );
    assert_eq!(
        run(&policy(Jitter::Decorrelated), &with_prev, 0.25),
        retry(825.0)
    ); // 100 + 2900/4
       // Absent jitter behaves as none.
    let p = EffectivePolicyView {
        jitter: None,
        ..policy(Jitter::Full)
    };
    assert_eq!(run(&p, &i, 0.1), retry(400.0));
}

proptest! {
    #[test]
    fn policy_jitter_bounds_hold(u in 0.0f64..1.0, attempt in 0u32..4, prev in 0.0f64..5000.0) {
        for j in [Jitter::Full, Jitter::Equal, Jitter::Decorrelated] {
            let i = PolicyDecisionInput { previous_ms: Some(prev), ..input(Signal::Timeout, attempt) };
            let Decision::Retry { delay_ms, backoff_ms } = run(&policy(j), &i, u) else {
                return Err(TestCaseError::fail("expected a retry"));
            };
            match j {
                Jitter::Full => prop_assert!((0.0..=backoff_ms).contains(&delay_ms)),
                Jitter::Equal => prop_assert!((backoff_ms / 2.0 - 1.0..=backoff_ms).contains(&delay_ms)),
                _ => prop_assert!((100.0..=2000.0).contains(&delay_ms)),
            }
        }
    }
}

#[test]
fn policy_retry_after_is_a_floor_with_jitter_on_top() {
    let i = PolicyDecisionInput {
        retry_after: Some("3"),
        ..input(Signal::Status(429), 2)
    };
    for j in [Jitter::Full, Jitter::Equal, Jitter::Decorrelated] {
        assert_eq!(
            run(&policy(j), &i, 0.5),
            Decision::Retry {
                delay_ms: 3200.0,
                backoff_ms: 400.0
            },
            "{j}"
        );
        assert_eq!(
            run(&policy(j), &i, 0.0),
            Decision::Retry {
                delay_ms: 3000.0,
                backoff_ms: 400.0
            },
            "{j}"
        );
    }
    // none: the larger of backoff and Retry-After
    assert_eq!(
        run(&policy(Jitter::None), &i, 0.5),
        Decision::Retry {
            delay_ms: 3000.0,
            backoff_ms: 400.0
        }
    );
    // HTTP-date relative to now
    let date = "Wed, 21 Oct 2015 07:28:00 GMT";
    let i = PolicyDecisionInput {
        retry_after: Some(date),
        now_epoch_ms: OCT_21_2015_MS as f64 - 5000.0,
        ..input(Signal::Status(503), 0)
    };
    assert_eq!(
        run(&policy(Jitter::Full), &i, 0.5),
        Decision::Retry {
            delay_ms: 5050.0,
            backoff_ms: 100.0
        }
    );
    // Not honoured: the header is ignored, even when invalid.
    let mut p = policy(Jitter::Full);
    p.retry_after.honor = false;
    p.retry_after.on_invalid = OnInvalid::Stop;
    for ra in ["3", "bogus"] {
        let i = PolicyDecisionInput {
            retry_after: Some(ra),
            ..input(Signal::Status(503), 2)
        };
        assert_eq!(
            run(&p, &i, 0.5),
            Decision::Retry {
                delay_ms: 200.0,
                backoff_ms: 400.0
            }
        );
    }
}

#[test]
fn policy_retry_after_exceeds_max() {
    let i = PolicyDecisionInput {
        retry_after: Some("11"),
        ..input(Signal::Status(429), 0)
    };
    assert_eq!(
        run(&policy(Jitter::Full), &i, 0.5),
        stop(StopReason::RetryAfterExceedsMax)
    );
    let i = PolicyDecisionInput {
        retry_after: Some("10"),
        ..i
    };
    assert!(matches!(
        run(&policy(Jitter::Full), &i, 0.5),
        Decision::Retry { .. }
    ));
    // Without max, a huge value runs into the deadline instead.
    let mut p = policy(Jitter::Full);
    p.retry_after.max_ms = None;
    let i = PolicyDecisionInput {
        retry_after: Some("9999999999"),
        ..i
    };
    assert_eq!(run(&p, &i, 0.5), stop(StopReason::DeadlineExhausted));
}

#[test]
fn policy_on_invalid_stop_vs_backoff() {
    for bad in ["-5", "1.5", "soon", ""] {
        let i = PolicyDecisionInput {
            retry_after: Some(bad),
            ..input(Signal::Status(503), 2)
        };
        let mut p = policy(Jitter::Full);
        assert_eq!(
            run(&p, &i, 0.5),
            Decision::Retry {
                delay_ms: 200.0,
                backoff_ms: 400.0
            },
            "backoff ignores {bad:?}"
        );
        p.retry_after.on_invalid = OnInvalid::Stop;
        assert_eq!(
            run(&p, &i, 0.5),
            stop(StopReason::InvalidRetryAfter),
            "{bad:?}"
        );
    }
}

#[test]
fn policy_connect_failure_makes_post_repeatable_timeout_does_not() {
    let post = EffectivePolicyView {
        effect: Effect::NonIdempotent,
        ..policy(Jitter::Full)
    };
    for s in [Signal::ConnectFailure, Signal::RefusedStream] {
        assert!(
            matches!(run(&post, &input(s, 0), 0.5), Decision::Retry { .. }),
            "{s}"
        );
    }
    for s in [Signal::Timeout, Signal::Reset, Signal::Status(503)] {
        assert_eq!(
            run(&post, &input(s, 0), 0.5),
            stop(StopReason::UnknownResult),
            "{s}"
        );
    }
    // A key or a consulted status endpoint makes it repeatable.
    let keyed = EffectivePolicyView {
        idempotency_key: true,
        ..post.clone()
    };
    assert!(matches!(
        run(&keyed, &input(Signal::Timeout, 0), 0.5),
        Decision::Retry { .. }
    ));
    let checked = EffectivePolicyView {
        check_status: true,
        ..post
    };
    assert!(matches!(
        run(&checked, &input(Signal::Timeout, 0), 0.5),
        Decision::Retry { .. }
    ));
}

#[test]
fn policy_not_retried_comes_first() {
    // `retry: false` answers `not-retried` whatever the signal, even one that
    // `retry_on` lists and on an operation that is not repeatable.
    let p = EffectivePolicyView {
        retry: false,
        ..policy(Jitter::Full)
    };
    for signal in [Signal::Status(503), Signal::Timeout, Signal::Status(400)] {
        assert_eq!(
            run(&p, &input(signal, 0), 0.5),
            stop(StopReason::NotRetried),
            "{signal:?}"
        );
    }
    let post = EffectivePolicyView {
        effect: Effect::NonIdempotent,
        ..p
    };
    assert_eq!(
        run(&post, &input(Signal::Timeout, 0), 0.5),
        stop(StopReason::NotRetried)
    );
    assert!(!EffectivePolicyView::default().retry);
}

#[test]
fn policy_order_and_counting() {
    // not in retry_on
    let mut p = policy(Jitter::Full);
    p.retry_on = vec![RetryOnEntry::ConnectFailure];
    assert_eq!(
        run(&p, &input(Signal::Timeout, 0), 0.5),
        stop(StopReason::NotTransient)
    );
    assert_eq!(
        run(&p, &input(Signal::Status(400), 0), 0.5),
        stop(StopReason::NotTransient)
    );
    // attempts: N gives N - 1 retries; attempts 1 never retries
    let mut p = policy(Jitter::Full);
    p.attempts = Some(3);
    assert!(matches!(
        run(&p, &input(Signal::Timeout, 1), 0.5),
        Decision::Retry { .. }
    ));
    assert_eq!(
        run(&p, &input(Signal::Timeout, 2), 0.5),
        stop(StopReason::MaxAttempts)
    );
    p.attempts = Some(1);
    assert_eq!(
        run(&p, &input(Signal::Timeout, 0), 0.5),
        stop(StopReason::MaxAttempts)
    );
    for a in [None, Some(0)] {
        p.attempts = a;
        assert_eq!(
            run(&p, &input(Signal::Timeout, 0), 0.5),
            stop(StopReason::InvalidAttempt)
        );
    }
    // invalid delay inputs
    let bad: Vec<EffectivePolicyView> = vec![
        EffectivePolicyView {
            deadline_ms: None,
            ..policy(Jitter::Full)
        },
        EffectivePolicyView {
            base_ms: None,
            ..policy(Jitter::Full)
        },
        EffectivePolicyView {
            cap_ms: Some(50.0),
            ..policy(Jitter::Full)
        },
        EffectivePolicyView {
            multiplier: 0.5,
            ..policy(Jitter::Full)
        },
        EffectivePolicyView {
            base_ms: Some(-1.0),
            ..policy(Jitter::Full)
        },
    ];
    for p in bad {
        assert_eq!(
            run(&p, &input(Signal::Timeout, 0), 0.5),
            stop(StopReason::InvalidDelay)
        );
    }
    // multiplier replaces 2
    let p = EffectivePolicyView {
        multiplier: 3.0,
        ..policy(Jitter::None)
    };
    assert_eq!(
        run(&p, &input(Signal::Timeout, 2), 0.5),
        Decision::Retry {
            delay_ms: 900.0,
            backoff_ms: 900.0
        }
    );
    // deadline
    let i = PolicyDecisionInput {
        elapsed_ms: 60_000.0,
        ..input(Signal::Timeout, 0)
    };
    assert_eq!(
        run(&policy(Jitter::Full), &i, 0.5),
        stop(StopReason::DeadlineExhausted)
    );
    let i = PolicyDecisionInput {
        elapsed_ms: 59_950.0,
        ..input(Signal::Timeout, 0)
    };
    assert_eq!(
        run(&policy(Jitter::None), &i, 0.5),
        stop(StopReason::DeadlineExhausted)
    );
}

#[test]
fn policy_rng_is_drawn_once_and_only_when_needed() {
    let mut calls = 0;
    let mut rng = || {
        calls += 1;
        0.5
    };
    decide_policy(&policy(Jitter::Full), &input(Signal::Timeout, 0), &mut rng);
    decide_policy(&policy(Jitter::None), &input(Signal::Timeout, 0), &mut rng);
    decide_policy(
        &policy(Jitter::Full),
        &input(Signal::Status(400), 0),
        &mut rng,
    );
    assert_eq!(calls, 1);
}

// ---------------------------------------------------------------- simulation

fn sim(jitter: Jitter, clients: u32, retry_after: Option<&str>, seed: u64) -> SimulationReport {
    let policy = EffectivePolicyView {
        retry: true,
        effect: Effect::Idempotent,
        retry_on: vec![RetryOnEntry::Transport, RetryOnEntry::Status(503)],
        attempts: Some(10),
        deadline_ms: Some(20_000.0),
        base_ms: Some(100.0),
        cap_ms: Some(1000.0),
        multiplier: 2.0,
        jitter: Some(jitter),
        retry_after: RetryAfterPolicy {
            honor: true,
            max_ms: Some(10_000.0),
            on_invalid: OnInvalid::Backoff,
            above_max_backoff: false,
        },
        ..EffectivePolicyView::default()
    };
    simulate(&SimulationConfig {
        clients,
        outage_ms: 2000.0,
        retry_after: retry_after.map(str::to_owned),
        start_epoch_ms: NOW,
        seed,
        policy,
    })
    .unwrap()
}

#[test]
fn simulation_is_deterministic_for_a_seed() {
    let a = sim(Jitter::Full, 500, None, 42);
    let b = sim(Jitter::Full, 500, None, 42);
    assert_eq!(a, b);
    let c = sim(Jitter::Full, 500, None, 43);
    assert_ne!(a.buckets, c.buckets);
    // SplitMix64 reference output (Vigna's splitmix64.c, seed 1234567).
    let mut g = SplitMix64::new(1_234_567);
    assert_eq!(g.next_u64(), 6_457_827_717_110_365_317);
    assert_eq!(g.next_u64(), 3_203_168_211_198_807_973);
}

#[test]
fn simulation_without_jitter_is_lockstep() {
    let r = sim(Jitter::None, 1000, None, 1);
    // Retries at 100, 300, 700, 1500, 2500 ms: all 1000 clients in one bucket each.
    let retry_buckets: Vec<(u64, u64)> = r
        .buckets
        .iter()
        .filter(|b| b.retries > 0)
        .map(|b| (b.start_ms, b.retries))
        .collect();
    assert_eq!(
        retry_buckets,
        vec![
            (100, 1000),
            (300, 1000),
            (700, 1000),
            (1500, 1000),
            (2500, 1000)
        ]
    );
    assert_eq!(r.retry_peak, 1000);
    assert_eq!(r.retry_peak_ratio, 1.0);
    assert_eq!(r.succeeded, 1000);
    assert_eq!(r.total_attempts, 6000);
    assert_eq!(r.amplification, 6.0);
    assert_eq!(r.finished_at_ms, 2500.0);
}

#[test]
fn full_jitter_cuts_the_retry_peak_at_least_5x() {
    let none = sim(Jitter::None, 1000, None, 7);
    let full = sim(Jitter::Full, 1000, None, 7);
    assert!(
        full.retry_peak * 5 <= none.retry_peak,
        "full {} vs none {}",
        full.retry_peak,
        none.retry_peak
    );
    assert_eq!(
        full.succeeded + full.gave_up_deadline + full.out_of_attempts,
        1000
    );
}

#[test]
fn simulation_honours_retry_after() {
    let r = sim(Jitter::Full, 1000, Some("1"), 3);
    let first_retry = r.buckets.iter().find(|b| b.retries > 0).unwrap();
    assert!(first_retry.start_ms >= 1000, "{first_retry:?}");
    // Jitter on top spreads them: not all in one bucket.
    assert!(r.retry_peak < 1000);
    // HTTP-date form (whole seconds), 1 s after the start; a later attempt
    // gets a shorter wait because the date is relative to each response.
    let date = httpdate_at(NOW + 1000.0);
    let r = sim(Jitter::Full, 1000, Some(&date), 3);
    let first_retry = r.buckets.iter().find(|b| b.retries > 0).unwrap();
    assert!(first_retry.start_ms >= 1000, "{first_retry:?}");
    let no_ra = sim(Jitter::Full, 1000, None, 3);
    assert!(
        no_ra
            .buckets
            .iter()
            .find(|b| b.retries > 0)
            .unwrap()
            .start_ms
            < 1000
    );
}

fn httpdate_at(epoch_ms: f64) -> String {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(epoch_ms as u64);
    httpdate::fmt_http_date(t)
}

#[test]
fn simulation_outcomes() {
    // Attempts run out before the outage ends.
    let mut r = sim(Jitter::None, 10, None, 1);
    assert_eq!(r.succeeded, 10);
    let policy = EffectivePolicyView {
        attempts: Some(3),
        ..policy(Jitter::None)
    };
    let cfg = SimulationConfig {
        clients: 10,
        outage_ms: 5000.0,
        retry_after: None,
        start_epoch_ms: NOW,
        seed: 1,
        policy,
    };
    r = simulate(&cfg).unwrap();
    assert_eq!((r.out_of_attempts, r.total_attempts), (10, 30));
    // The deadline runs out first.
    let cfg = SimulationConfig {
        policy: EffectivePolicyView {
            attempts: Some(100),
            deadline_ms: Some(1000.0),
            ..cfg.policy.clone()
        },
        ..cfg.clone()
    };
    r = simulate(&cfg).unwrap();
    assert_eq!(r.gave_up_deadline, 10);
    // A POST without protection is never retried.
    let cfg = SimulationConfig {
        policy: EffectivePolicyView {
            effect: Effect::NonIdempotent,
            ..cfg.policy.clone()
        },
        ..cfg
    };
    r = simulate(&cfg).unwrap();
    assert_eq!(r.other_stops.get("unknown-result"), Some(&10));
    assert_eq!(r.total_attempts, 10);
    assert_eq!(r.retry_peak, 0);
    // Invalid outage
    assert_eq!(
        simulate(&SimulationConfig {
            outage_ms: f64::NAN,
            ..cfg
        })
        .unwrap_err(),
        SimulationError::InvalidOutage
    );
}

#[test]
fn simulation_handles_100k_clients() {
    let r = sim(Jitter::Full, 100_000, None, 9);
    assert_eq!(r.clients, 100_000);
    assert_eq!(
        r.succeeded + r.gave_up_deadline + r.out_of_attempts,
        100_000
    );
}

#[test]
fn simulation_report_serialises_snake_case() {
    let r = sim(Jitter::Full, 10, None, 1);
    let v = serde_json::to_value(&r).unwrap();
    for key in [
        "total_attempts",
        "amplification",
        "succeeded",
        "gave_up_deadline",
        "out_of_attempts",
        "retry_peak",
        "retry_peak_ratio",
        "finished_at_ms",
        "buckets",
    ] {
        assert!(v.get(key).is_some(), "{key}");
    }
}

// ---------------------------------------------------------------- budget

#[test]
fn budget_arithmetic() {
    assert_eq!(backoff_bound_ms(100.0, 1000.0, 2.0, 3), 800.0);
    assert_eq!(backoff_bound_ms(100.0, 1000.0, 2.0, 4), 1000.0);
    assert_eq!(
        total_backoff_ms(100.0, 1000.0, 2.0, 5),
        100.0 + 200.0 + 400.0 + 800.0 + 1000.0
    );
}

#[test]
fn raw_retry_after_flows_into_the_reference_decision() {
    let with = |raw: &str, now: Option<f64>| {
        decide(&DecisionInput {
            retry_after_ms: Some(retry_after_input_ms(raw, now.unwrap_or(f64::NAN))),
            now_ms: now,
            deadline_ms: now.map(|n| n + 2000.0),
            ..worked()
        })
    };
    let now = Some(NOW);
    assert_eq!(with("1m0s", now), stop(StopReason::InvalidRetryAfter));
    assert_eq!(with("9999999999", now), stop(StopReason::DeadlineExhausted));
    assert_eq!(
        with("1", now),
        Decision::Retry {
            delay_ms: 1000.0,
            backoff_ms: 400.0
        }
    );
    assert_eq!(
        with("Wed, 21 Oct 2015 07:28:00 GMT", now),
        Decision::Retry {
            delay_ms: 200.0,
            backoff_ms: 400.0
        }
    );
    // Order: an absent now is invalid-delay before the header is looked at.
    assert_eq!(with("1m0s", None), stop(StopReason::InvalidDelay));
}

// ---------------------------------------------------------------- proportional jitter

fn proportional(f: f64) -> Jitter {
    Jitter::Proportional(JitterFactor::new(f).expect("a valid factor"))
}

#[test]
fn policy_proportional_jitter_is_drawn_around_the_backoff() {
    // attempt 2 -> backoff 400
    let i = input(Signal::Status(503), 2);
    let retry = |delay: f64| Decision::Retry {
        delay_ms: delay,
        backoff_ms: 400.0,
    };
    let half = policy(proportional(0.5));
    assert_eq!(run(&half, &i, 0.0), retry(200.0));
    assert_eq!(run(&half, &i, 0.5), retry(400.0));
    assert_eq!(run(&half, &i, 0.999_999), retry(599.0));
    let grpc = policy(proportional(0.2));
    assert_eq!(run(&grpc, &i, 0.0), retry(320.0));
    assert_eq!(run(&grpc, &i, 0.999_999), retry(479.0));
    // Around the capped backoff: attempt 5 -> min(2000, 3200) = 2000, up to 3000.
    let long = EffectivePolicyView {
        attempts: Some(10),
        ..policy(proportional(0.5))
    };
    assert_eq!(
        run(&long, &input(Signal::Timeout, 5), 0.999_999),
        Decision::Retry {
            delay_ms: 2999.0,
            backoff_ms: 2000.0
        }
    );
}

#[test]
fn policy_proportional_jitter_with_retry_after_waits_the_larger() {
    let p = policy(proportional(0.5));
    let long = PolicyDecisionInput {
        retry_after: Some("3"),
        ..input(Signal::Status(429), 2)
    };
    // drawn 200..600 < 3000: Retry-After wins, nothing added on top.
    for u in [0.0, 0.5, 0.999] {
        assert_eq!(
            run(&p, &long, u),
            Decision::Retry {
                delay_ms: 3000.0,
                backoff_ms: 400.0
            }
        );
    }
    // Retry-After: 0 -> the drawn delay.
    let zero = PolicyDecisionInput {
        retry_after: Some("0"),
        ..input(Signal::Status(429), 2)
    };
    assert_eq!(
        run(&p, &zero, 0.5),
        Decision::Retry {
            delay_ms: 400.0,
            backoff_ms: 400.0
        }
    );
}

#[test]
fn jitter_factor_must_be_in_the_unit_interval_without_zero() {
    for bad in [0.0, -0.1, 1.000_001, f64::NAN, f64::INFINITY] {
        assert!(JitterFactor::new(bad).is_none(), "{bad}");
    }
    for ok in [1e-9, 0.2, 0.5, 1.0] {
        assert_eq!(JitterFactor::new(ok).map(JitterFactor::get), Some(ok));
    }
    assert_eq!(proportional(0.2).to_string(), "proportional(0.2)");
    assert_eq!("proportional(0.2)".parse::<Jitter>(), Ok(proportional(0.2)));
    assert!("proportional(0)".parse::<Jitter>().is_err());
    assert!("proportional".parse::<Jitter>().is_err());
}

proptest! {
    #[test]
    fn policy_proportional_bounds_hold(
        u in 0.0f64..1.0,
        f in 0.001f64..=1.0,
        attempt in 0u32..8,
        ra in prop::option::of(0u32..5),
    ) {
        let ra_text = ra.map(|s| s.to_string());
        let i = PolicyDecisionInput {
            retry_after: ra_text.as_deref(),
            ..input(Signal::Timeout, attempt.min(3))
        };
        let p = policy(proportional(f));
        let Decision::Retry { delay_ms, backoff_ms } = run(&p, &i, u) else {
            return Err(TestCaseError::fail("expected a retry"));
        };
        let b = backoff_ms;
        prop_assert!(b <= 2000.0);
        let drawn_lo = (b * (1.0 - f)).floor();
        let drawn_hi = b * (1.0 + f);
        match ra {
            None => prop_assert!(delay_ms >= drawn_lo && delay_ms <= drawn_hi, "{delay_ms} not in [{drawn_lo}, {drawn_hi}]"),
            Some(s) => {
                let r = f64::from(s) * 1000.0;
                prop_assert!(delay_ms >= r);
                prop_assert!(delay_ms <= r.max(drawn_hi));
            }
        }
        prop_assert_eq!(delay_ms, delay_ms.floor());
    }
}

#[test]
fn simulation_with_proportional_jitter_spreads_the_first_wave() {
    let r = sim(proportional(0.5), 1000, None, 7);
    assert_eq!(r, sim(proportional(0.5), 1000, None, 7));
    // First retries drawn from [50, 150] ms: none before 50 ms, several buckets.
    let first_wave: Vec<&Bucket> = r
        .buckets
        .iter()
        .filter(|b| b.retries > 0 && b.start_ms < 150)
        .collect();
    assert!(first_wave.len() >= 2, "{first_wave:?}");
    assert!(first_wave.iter().all(|b| b.start_ms + BUCKET_MS > 50));
    let lockstep = sim(Jitter::None, 1000, None, 7);
    let peak = |r: &SimulationReport| r.buckets.iter().map(|b| b.retries).max().unwrap_or(0);
    assert!(peak(&r) < peak(&lockstep));
}

// ---------------------------------------------------------------- signals and methods

#[test]
fn methods_filter_stops_only_possibly_processed_retries() {
    let p = EffectivePolicyView {
        effect: Effect::NonIdempotent,
        idempotency_key: true,
        retry_on: vec![
            RetryOnEntry::Transport,
            RetryOnEntry::ResetBeforeRequest,
            RetryOnEntry::Class(5),
        ],
        method_retried_after_send: false,
        ..policy(Jitter::Full)
    };
    for s in [Signal::Timeout, Signal::Reset, Signal::Status(503)] {
        assert_eq!(
            run(&p, &input(s, 0), 0.5),
            stop(StopReason::NotRetried),
            "{s}"
        );
    }
    for s in [
        Signal::ConnectFailure,
        Signal::RefusedStream,
        Signal::ResetBeforeRequest,
    ] {
        assert!(
            matches!(run(&p, &input(s, 0), 0.5), Decision::Retry { .. }),
            "{s}"
        );
    }
    // Without a key, a non-idempotent request repeats only on never-processed signals.
    let unkeyed = EffectivePolicyView {
        idempotency_key: false,
        method_retried_after_send: true,
        ..p
    };
    assert!(matches!(
        run(&unkeyed, &input(Signal::ResetBeforeRequest, 0), 0.5),
        Decision::Retry { .. }
    ));
    assert_eq!(
        run(&unkeyed, &input(Signal::Reset, 0), 0.5),
        stop(StopReason::UnknownResult)
    );
}

#[test]
fn new_signals_keep_the_v1_meanings() {
    // `transport` is still the four v1 signals.
    assert!(!RetryOnEntry::Transport.covers(Signal::ResetBeforeRequest));
    assert!(!RetryOnEntry::Transport.covers(Signal::Grpc(GrpcCode::Unavailable)));
    assert!(RetryOnEntry::ResetBeforeRequest.never_processed());
    assert!(Signal::ResetBeforeRequest.proves_not_processed());
    for code in [
        "unavailable",
        "resource-exhausted",
        "deadline-exceeded",
        "internal",
        "unknown",
        "aborted",
        "cancelled",
    ] {
        let e: RetryOnEntry = code.parse().unwrap();
        let s: Signal = code.parse().unwrap();
        assert!(!e.never_processed() && !s.proves_not_processed(), "{code}");
        assert!(e.covers(s) && !RetryOnEntry::Class(5).covers(s), "{code}");
        assert!(!e.applies_to(false) && e.applies_to(true), "{code}");
        assert_eq!(e.to_string(), code);
    }
    assert!(RetryOnEntry::Timeout.applies_to(false));
    assert_eq!(
        "reset-before-request"
            .parse::<Signal>()
            .unwrap()
            .to_string(),
        "reset-before-request"
    );
}

/// `retry_after.on_above_max: backoff` (Envoy's `rate_limited_retry_back_off`): a
/// Retry-After above `max` is ignored and the backoff alone is waited; without it
/// the same header stops with `retry-after-exceeds-max`.
#[test]
fn retry_after_above_max_backoff_ignores_the_header() {
    let mut policy = EffectivePolicyView {
        retry: true,
        effect: Effect::Safe,
        retry_on: vec![RetryOnEntry::Status(503)],
        attempts: Some(3),
        deadline_ms: Some(60_000.0),
        base_ms: Some(25.0),
        cap_ms: Some(250.0),
        multiplier: 2.0,
        jitter: Some(Jitter::None),
        retry_after: RetryAfterPolicy {
            honor: true,
            max_ms: Some(10_000.0),
            on_invalid: OnInvalid::Backoff,
            above_max_backoff: false,
        },
        ..EffectivePolicyView::default()
    };
    let decide = |p: &EffectivePolicyView| {
        let i = PolicyDecisionInput {
            retry_after: Some("30"),
            ..input(Signal::Status(503), 0)
        };
        run(p, &i, 0.5)
    };
    assert_eq!(
        decide(&policy),
        Decision::Stop(StopReason::RetryAfterExceedsMax)
    );
    policy.retry_after.above_max_backoff = true;
    match decide(&policy) {
        Decision::Retry { delay_ms, .. } => assert_eq!(delay_ms, 25.0),
        other => panic!("{other:?}"),
    }
}
