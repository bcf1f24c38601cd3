//! End to end: the Traefik case of `retry-configs` (case 10, TOML with Go template
//! placeholders in strings) and small YAML trigger/clean folders, checked as a user
//! runs them, and snapshotted.

mod common;

use std::path::PathBuf;

fn dir(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The `file:line:col` headers of the human output, in order.
fn positions(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| {
            let start = l.find("╭─[")? + "╭─[".len();
            let end = l[start..].find(']')? + start;
            Some(l[start..end].to_string())
        })
        .collect()
}

#[test]
fn case_10_traefik_backoff() {
    let (code, stdout, stderr) = common::retrylint_in(
        &dir("fixtures/cases/retry-configs/10-traefik-backoff"),
        &["check", "."],
    );
    assert_eq!(code, 1, "findings expected; stderr: {stderr}");
    let pos = positions(&stdout);
    // RL301 and RL101 at the retry table's header; network retries happen before
    // sending, so no RL201; ±50 % jitter, so no RL305; 4 tries, so no RL303.
    assert!(pos.iter().any(|p| p == "traefik.toml:27:1"), "{stdout}");
    assert!(
        stdout.contains("RL301") && stdout.contains("RL101"),
        "{stdout}"
    );
    for absent in [
        "RL201", "RL305", "RL303", "RL304", "RL306", "RL401", "RL402", "RL001",
    ] {
        assert!(!stdout.contains(absent), "{absent} fired:\n{stdout}");
    }
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn trigger_status_retries_resend_a_post() {
    let (code, stdout, stderr) = common::retrylint_in(
        &dir("fixtures/import/traefik/e2e-trigger-status-post"),
        &["check", "."],
    );
    assert_eq!(code, 1, "findings expected; stderr: {stderr}");
    // `retryNonIdempotentMethod: true` with `status: ["500-599"]`: POST /orders is
    // retried after a response, so RL201 at the retry block.
    assert!(stdout.contains("RL201"), "{stdout}");
    assert!(
        positions(&stdout).iter().any(|p| p == "traefik.yaml:14:7"),
        "{stdout}"
    );
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

/// Values beyond Traefik's Go types (issue 43): one RL017 each saying "out of
/// range", and no second finding blaming them (no RL301 missing deadline, no RL305
/// missing jitter).
#[test]
fn trigger_out_of_range_is_rl017_not_a_value() {
    let (code, stdout, stderr) = common::retrylint_in(
        &dir("fixtures/import/traefik/trigger-out-of-range"),
        &["check", "."],
    );
    // One RL017 per value, each labelled "out of range" at the value.
    assert_eq!(
        stdout.matches("╰── out of range").count(),
        3,
        "{stdout}{stderr}"
    );
    for absent in ["RL301", "RL305", "must be an integer", "is not a duration"] {
        assert!(!stdout.contains(absent), "{absent}: {stdout}");
    }
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn clean_status_retries_skip_a_post() {
    let (code, stdout, stderr) = common::retrylint_in(
        &dir("fixtures/import/traefik/e2e-clean-status-idempotent"),
        &["check", "."],
    );
    assert_eq!(
        code, 1,
        "the missing deadline is still an error; stderr: {stderr}"
    );
    // Without `retryNonIdempotentMethod`, a POST is only retried before sending.
    assert!(!stdout.contains("RL201"), "{stdout}");
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn a_toml_template_is_listed_under_verbose() {
    let (code, stdout, stderr) = common::retrylint_in(
        &dir("fixtures/import/traefik/e2e-template"),
        &["check", "--verbose", "."],
    );
    // Nothing to lint, no finding: the template is skipped and says so.
    assert!(!stdout.contains("RL001"), "{stdout}");
    assert!(
        stdout.contains("skipped traefik.toml") && stdout.contains("render it first"),
        "code {code}\n{stdout}\n{stderr}"
    );
}
