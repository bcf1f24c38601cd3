//! End to end: `retrylint check` on the nginx and ingress-nginx cases
//! (`fixtures/cases/retry-configs/08-*`, copies of the shared acceptance case) and on
//! the trigger/clean fixtures of `fixtures/import/`.

use std::path::PathBuf;

mod common;

fn check(dir: &str) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(dir);
    let (code, out, err) = common::retrylint_in(&root, &["check", "."]);
    format!("exit {code}\n{out}{err}")
}

#[test]
fn case_08_nginx_next_upstream() {
    let out = check("fixtures/cases/retry-configs/08-nginx-next-upstream");
    assert!(out.starts_with("exit 1"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn trigger_non_idempotent_post_is_retried_after_sending() {
    let out = check("fixtures/import/nginx/e2e-trigger-non-idempotent");
    assert!(out.contains("RL201"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn clean_without_non_idempotent_post_is_not_retried_after_sending() {
    let out = check("fixtures/import/nginx/e2e-clean");
    assert!(!out.contains("RL201"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn ingress_nginx_configmap_retry_non_idempotent() {
    let out = check("fixtures/import/ingress-nginx/e2e-trigger");
    assert!(out.contains("RL201"), "{out}");
    insta::assert_snapshot!(out);
}

/// Numbers too large for the platform (issue 43): one RL017 each saying "out of
/// range" (never "needs one non-negative number"), and `import` reads neither: no
/// count of tries, no attempt timeout (not the platform's default).
#[test]
fn trigger_out_of_range_is_rl017_not_a_value() {
    let dir = "fixtures/import/nginx/trigger-out-of-range";
    let out = common::out_of_range_fixture(
        dir,
        "nginx.conf",
        &check(dir),
        &[
            "proxy_next_upstream_tries 99999999999999999999",
            "proxy_read_timeout 99999999999999999999s",
        ],
    );
    insta::assert_snapshot!(out);
}
