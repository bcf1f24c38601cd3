//! End to end: the Kong case of `retry-configs` (case 11: a declarative config whose
//! lines are all indented by one space, a service without `retries`), checked as a
//! user runs it, and snapshotted.

mod common;

use std::path::PathBuf;

#[test]
fn case_11_kong_defaults() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/cases/retry-configs/11-kong-defaults");
    let (code, stdout, stderr) = common::retrylint_in(&dir, &["check", "."]);
    assert_eq!(code, 1, "findings expected; stderr: {stderr}");
    // Every finding points at the service item (no `retries`: Kong's default 5).
    for c in ["RL303", "RL301", "RL305", "RL101"] {
        assert!(stdout.contains(c), "{c} missing:\n{stdout}");
    }
    assert!(stdout.contains("kong.yaml:3:4"), "{stdout}");
    assert!(
        stdout.contains("Kong's default applies: 5 retries"),
        "{stdout}"
    );
    // POST is retried only when the connection failed before sending: no RL201.
    for absent in [
        "RL201", "RL306", "RL309", "RL310", "RL401", "RL402", "RL001", "RL008",
    ] {
        assert!(!stdout.contains(absent), "{absent} fired:\n{stdout}");
    }
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}
