//! End to end: the Envoy case of `retry-configs` (a Kuma sidecar's outbound
//! listener with its companion spec), checked as a user runs it, and snapshotted.

mod common;

use std::path::PathBuf;

fn case(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/cases/retry-configs")
        .join(name)
}

#[test]
fn case_03_envoy_kuma_listener() {
    let dir = case("03-envoy-kuma-listener");
    let (code, stdout, stderr) = common::retrylint_in(&dir, &["check", "."]);
    assert_eq!(code, 1, "findings expected; stderr: {stderr}");
    // The POST and PATCH are retried on 5xx (resets after sending): RL201 at the
    // signals; the deadline switched off by `timeout: 0s` is RL301.
    assert!(stdout.contains("RL201"), "{stdout}");
    assert!(stdout.contains("RL301"), "{stdout}");
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn the_example_service_shows_a_finding_from_its_envoy_gateway() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/examples/platform");
    let (code, stdout, stderr) = common::retrylint_in(&dir, &["check", "."]);
    assert_eq!(code, 1, "findings expected; stderr: {stderr}");
    // `retry_on: 5xx` on `prefix: /` resends POST /payments after a reset.
    let envoy_rl201 = stdout
        .lines()
        .any(|l| l.contains("RL201") && l.contains("envoy.yaml"))
        || stdout.contains("deploy/envoy/envoy.yaml:24");
    assert!(envoy_rl201, "{stdout}");
}

fn fixture(name: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/import/envoy")
        .join(name);
    let (code, stdout, stderr) = common::retrylint_in(&dir, &["check", "."]);
    format!("exit {code}\n{stdout}{stderr}")
}

/// Issue 43: path regexes that do not compile give RL017 each and no shadowing
/// verdict (both read as "matches nothing", which is no reason to call one the
/// other's shadow).
#[test]
fn regexes_that_do_not_compile_shadow_nothing() {
    let out = fixture("e2e-bad-regex-trigger");
    assert_eq!(out.matches("does not compile").count(), 2, "{out}");
    assert!(!out.contains("never matches: route"), "{out}");
    insta::assert_snapshot!(out);
}

/// Compiling regexes keep the shadowing verdict where it holds: the exact path
/// written twice.
#[test]
fn compiling_regexes_keep_the_shadowing_verdict() {
    let out = fixture("e2e-bad-regex-clean");
    assert!(!out.contains("does not compile"), "{out}");
    assert_eq!(out.matches("never matches: route").count(), 1, "{out}");
    assert!(out.contains("route #4 never matches: route #3"), "{out}");
    insta::assert_snapshot!(out);
}
