//! Policy rules give one finding per (rule, primary node): operations sharing a
//! `defaults` value share the finding, with a label each.

use retrylint::check::{run, CheckOptions};
use std::path::PathBuf;

fn findings(case: &str, code: &str) -> Vec<retrylint::diagnostic::Diagnostic> {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = repo.join("fixtures/rules").join(case);
    run(&CheckOptions {
        paths: vec![dir.clone()],
        cwd: Some(repo),
        root: Some(dir),
        ..CheckOptions::default()
    })
    .diagnostics
    .into_iter()
    .filter(|d| d.code == code)
    .collect()
}

#[test]
fn shared_defaults_give_one_finding_labelled_per_operation() {
    for (case, code) in [
        (
            "RL101-undeclared-effect/trigger-defaults-shared-by-two-posts",
            "RL101",
        ),
        (
            "RL401-unknown-result-unhandled/trigger-defaults-retry-shared",
            "RL401",
        ),
        (
            "RL205-invalid-status-endpoint/trigger-defaults-endpoint-shared",
            "RL205",
        ),
    ] {
        let ds = findings(case, code);
        assert_eq!(ds.len(), 1, "{case}: {ds:#?}");
        let d = &ds[0];
        assert!(d
            .primary
            .location
            .file
            .display
            .ends_with("retry-policy.yaml"));
        let op_labels = d
            .labels
            .iter()
            .filter(|l| l.location.file.display.ends_with("openapi.yaml"))
            .filter(|l| l.message.contains("operation") || l.message.contains("effect"))
            .count();
        assert!(op_labels >= 2, "{case}: {:#?}", d.labels);
        // Several operations: no single operation is named, all are listed.
        assert_eq!(d.operation, None, "{case}");
        assert!(d.operations.len() >= 2, "{case}: {:?}", d.operations);
    }
}

#[test]
fn one_operation_names_it() {
    let ds = findings("RL402-blind-resend/trigger-resend-with-key", "RL402");
    assert_eq!(ds.len(), 1);
    assert_eq!(ds[0].operation.as_deref(), Some("POST /orders"));
    assert!(ds[0].help.as_deref().unwrap().contains("replay-key"));
}

#[test]
fn inline_x_retry_points_into_the_spec() {
    let ds = findings("RL402-blind-resend/trigger-resend-in-x-retry", "RL402");
    assert_eq!(ds.len(), 1);
    assert!(ds[0]
        .primary
        .location
        .file
        .display
        .ends_with("openapi.yaml"));
    assert_eq!(
        ds[0].primary.location.pointer,
        "/paths/~1orders/post/x-retry/on_unknown_result"
    );
}

#[test]
fn rl203_reports_each_ignore_at_its_value() {
    let ds = findings(
        "RL203-idempotency-key-contract-incomplete/trigger-ignores-mismatch-and-concurrency",
        "RL203",
    );
    assert_eq!(ds.len(), 2);
    let pointers: Vec<&str> = ds
        .iter()
        .map(|d| d.primary.location.pointer.as_str())
        .collect();
    assert!(pointers.iter().any(|p| p.ends_with("on_payload_mismatch")));
    assert!(pointers.iter().any(|p| p.ends_with("on_concurrent")));
}

#[test]
fn rl204_points_at_the_more_specific_value() {
    let ds = findings(
        "RL204-idempotency-key-retention-too-short/trigger-entry-deadline-beats-defaults-retention",
        "RL204",
    );
    assert_eq!(ds.len(), 1);
    assert!(ds[0].primary.location.pointer.ends_with("/deadline"));
    assert!(ds[0]
        .labels
        .iter()
        .any(|l| l.location.pointer.ends_with("/retention")));
}
