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
