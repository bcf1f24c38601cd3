//! End to end: `retrylint check` on the HAProxy case
//! (`fixtures/cases/retry-configs/09-*`, a copy of the shared acceptance case) and on
//! the trigger/clean fixtures of `fixtures/import/haproxy/`.

use std::path::PathBuf;

mod common;

fn check(dir: &str) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(dir);
    let (code, out, err) = common::retrylint_in(&root, &["check", "."]);
    format!("exit {code}\n{out}{err}")
}

#[test]
fn case_09_haproxy_conn_failure() {
    let out = check("fixtures/cases/retry-configs/09-haproxy-conn-failure");
    assert!(out.starts_with("exit 1"), "{out}");
    assert!(!out.contains("RL201"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn trigger_all_retryable_errors_resends_post() {
    let out = check("fixtures/import/haproxy/e2e-trigger");
    assert!(out.contains("RL201"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn clean_disable_l7_retry_for_post() {
    let out = check("fixtures/import/haproxy/e2e-clean");
    assert!(!out.contains("RL201"), "{out}");
    insta::assert_snapshot!(out);
}

/// A time over HAProxy's 2147483647 ms (a signed 32-bit timer) stops the config from
/// loading: RL017 at the value, and it is not read as an attempt timeout (issue 43:
/// out-of-range values are findings, never values).
#[test]
fn a_timer_overflow_is_rl017_not_a_value() {
    let out = check("fixtures/import/haproxy/timer-overflow");
    assert!(
        out.contains("`timeout server 99999999999999999999999h` is out of range"),
        "{out}"
    );
    assert!(out.contains("haproxy.cfg:4:18"), "{out}");
}

/// Numbers too large for the platform (issue 43): one RL017 each saying "out of
/// range" (never "needs one non-negative number"), and `import` reads neither: no
/// count of tries, no attempt timeout (not the platform's default).
#[test]
fn trigger_out_of_range_is_rl017_not_a_value() {
    let dir = "fixtures/import/haproxy/trigger-out-of-range";
    let out = common::out_of_range_fixture(
        dir,
        "haproxy.cfg",
        &check(dir),
        &[
            "retries 99999999999999999999",
            "timeout server 99999999999999999999s",
        ],
    );
    insta::assert_snapshot!(out);
}
