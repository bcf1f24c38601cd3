//! The binary as users run it: exit codes, `plan` and `simulate`.

use std::process::Command;

fn retrylint(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn plan_worked_example_prints_the_documented_line() {
    let (code, out, _) = retrylint(&[
        "plan",
        "--method",
        "POST",
        "--status",
        "503",
        "--attempt",
        "2",
        "--now-ms",
        "1000",
        "--deadline-ms",
        "3000",
        "--random-unit",
        "0.5",
        "--idempotency-key",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    assert_eq!(out, "{\"retry\":true,\"delayMs\":200,\"backoffMs\":400}\n");
}

#[test]
fn plan_without_protection_refuses_a_blind_post() {
    let (code, out, _) = retrylint(&[
        "plan",
        "--method",
        "POST",
        "--transport-error",
        "--attempt",
        "0",
        "--now-ms",
        "0",
        "--deadline-ms",
        "3000",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    assert_eq!(
        out.trim(),
        "{\"retry\":false,\"reason\":\"unknown-result\"}"
    );
}

#[test]
fn plan_policy_mode_uses_the_effective_policy() {
    let policy = "fixtures/simulate/full.retry-policy.yaml";
    // A 503 with Retry-After 2 s: the wait is at least 2 s, jitter on top.
    let (code, out, err) = retrylint(&[
        "plan",
        "--policy",
        policy,
        "--operation",
        "GET /reports",
        "--signal",
        "503",
        "--attempt",
        "0",
        "--retry-after",
        "2",
        "--format",
        "json",
        "--seed",
        "7",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["retry"], true);
    let delay = v["delayMs"].as_f64().unwrap();
    assert!((2000.0..=2100.0).contains(&delay), "{delay}");
    // The deadline stops the loop.
    let (_, out, _) = retrylint(&[
        "plan",
        "--policy",
        policy,
        "--operation",
        "getReport",
        "--signal",
        "503",
        "--attempt",
        "1",
        "--elapsed",
        "30s",
        "--format",
        "json",
    ]);
    assert_eq!(
        out.trim(),
        "{\"retry\":false,\"reason\":\"deadline-exhausted\"}"
    );
    // Unknown operation is a usage error.
    let (code, _, err) = retrylint(&[
        "plan",
        "--policy",
        policy,
        "--operation",
        "nope",
        "--signal",
        "503",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("matches no operation"), "{err}");
}

fn peak(jitter: &str) -> (u64, serde_json::Value) {
    let policy = format!("fixtures/simulate/{jitter}.retry-policy.yaml");
    let (code, out, err) = retrylint(&[
        "simulate",
        "--policy",
        &policy,
        "--operation",
        "getReport",
        "--clients",
        "1000",
        "--outage",
        "2s",
        "--seed",
        "42",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    (v["retry_peak"].as_u64().unwrap(), v)
}

#[test]
fn simulate_full_jitter_cuts_the_retry_peak_at_least_five_times() {
    let (none, report) = peak("none");
    let (full, _) = peak("full");
    assert_eq!(
        none, 1000,
        "without jitter every retry of one attempt lands together"
    );
    assert!(none >= 5 * full, "none {none} vs full {full}");
    assert_eq!(report["clients"], 1000);
    // Deterministic for a seed.
    assert_eq!(peak("full").1, peak("full").1);
}

#[test]
fn check_exit_codes() {
    let (code, _, _) = retrylint(&["check", "fixtures/cases/01-numeric-status-keys.yaml"]);
    assert_eq!(code, 0);
    let (code, out, _) = retrylint(&["check", "fixtures/examples/shop"]);
    assert_eq!(code, 1);
    assert!(out.contains("RL201 unprotected-retry"), "{out}");
    let (code, _, _) = retrylint(&["check", "fixtures/examples/shop", "--fail-on", "never"]);
    assert_eq!(code, 0);
    let (code, _, _) = retrylint(&["check", "does/not/exist.yaml"]);
    assert_eq!(code, 2);
    let (code, _, _) = retrylint(&["check", "--format", "nope"]);
    assert_eq!(code, 2);
}

#[test]
fn plan_accepts_a_negative_attempt_and_reports_it() {
    let (code, out, _) = retrylint(&[
        "plan",
        "--method",
        "GET",
        "--status",
        "503",
        "--attempt",
        "-1",
        "--now-ms",
        "0",
        "--deadline-ms",
        "100",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    assert_eq!(
        out.trim(),
        "{\"retry\":false,\"reason\":\"invalid-attempt\"}"
    );
}

#[test]
fn files_named_on_the_command_line_are_read_whatever_their_name() {
    // A spec without a YAML/JSON extension is linted by its content.
    let (code, out, _) = retrylint(&["check", "--format", "json", "fixtures/unlisted/api-spec"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("\"RL501\""), "{out}");
    // A text file that is no spec is skipped (and listed by --verbose), not an error.
    let (code, out, _) = retrylint(&[
        "check",
        "--verbose",
        "fixtures/unlisted/api-spec",
        "fixtures/unlisted/notes.txt",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("skipped fixtures/unlisted/notes.txt: neither an OpenAPI document"),
        "{out}"
    );
    // A broken file that declares itself a spec is RL001, exit 2.
    let (code, out, _) = retrylint(&["check", "fixtures/unlisted/broken-spec.txt"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("RL001"), "{out}");
}

#[cfg(unix)]
#[test]
fn devices_named_on_the_command_line_are_rl001() {
    for device in ["/dev/null", "/dev/zero"] {
        let (code, out, _) = retrylint(&["check", device]);
        assert_eq!(code, 2, "{device}: {out}");
        assert!(out.contains("not a regular file"), "{device}: {out}");
    }
}
