//! Tier 3 of `retrylint probe` (../shared/docs/probe-research.md §5-§6): real clients
//! on the wire, with the verdicts measured in the research as expectations. Each
//! client is a short script in `tests/clients/` that reads `RETRYLINT_BASE_URL`.
//!
//! A test whose client is not installed says so and passes without running;
//! `.ci/run` installs every client (curl from Debian, urllib3 from PyPI, got, axios
//! and axios-retry with `npm ci --prefix tests/clients`), so CI runs them all. Each
//! test runs its scenarios concurrently in one probe (one port per client copy),
//! and the tests run in parallel: the tier takes about the longest scenario (the
//! ~6 s wait bound of `ra-invalid`).

#![allow(clippy::disallowed_macros)] // output for the reader (clippy.toml)

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn clients() -> PathBuf {
    repo().join("tests/clients")
}

/// True when `program args` runs and exits 0.
fn runs(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn skip(what: &str) {
    eprintln!("skipped: {what} is not installed here (.ci/run installs it)");
}

fn node_package(name: &str) -> bool {
    runs("node", &["--version"]) && clients().join("node_modules").join(name).is_dir()
}

/// Runs `probe` over `scenarios` for `operation` (no policy: the safety checks and
/// RL602) with `client`; returns `scenario: codes` lines and the report.
fn probe(operation: &str, scenarios: &[&str], client: &[&str]) -> (Vec<String>, Value) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_retrylint"));
    cmd.current_dir(repo())
        .args(["probe", "--operation", operation, "--format", "json"]);
    for s in scenarios {
        cmd.args(["--scenario", s]);
    }
    cmd.arg("--").args(client);
    let out = cmd.output().expect("retrylint runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}); stderr: {stderr}"));
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "exit {:?}: {stderr}",
        out.status.code()
    );
    let lines = report["scenarios"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| {
            let codes: Vec<&str> = s["findings"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|f| f["code"].as_str())
                .collect();
            format!(
                "{}: {}",
                s["scenario"]["name"].as_str().unwrap_or("?"),
                codes.join(" ")
            )
        })
        .collect();
    (lines, report)
}

fn script(name: &str) -> String {
    Path::new("tests/clients").join(name).display().to_string()
}

#[test]
fn curl_retry_all_errors_synchronises_duplicates_a_post_and_waits_out_an_rfc3339_retry_after() {
    if !runs("curl", &["--version"]) {
        return skip("curl");
    }
    let (lines, report) = probe(
        "POST /orders",
        &["storm-503", "lost-response", "ra-invalid", "refused"],
        &["sh", &script("curl-post.sh")],
    );
    assert_eq!(
        lines,
        [
            "storm-503: RL602",
            "lost-response: RL603",
            "ra-invalid: RL608",
            "refused: "
        ],
        "{report:#}"
    );
    // Concluded at the wait bound, not after curl's 2015 s.
    let end = &report["scenarios"][2]["journal"]["clients"][0];
    assert_eq!(end["killed"], "idle", "{end}");
    // No jitter (CV < 0.005 on a quiet machine; scheduling noise on a loaded one may
    // read as weak), never equal or full.
    let jitter = report["observed_policy"]["jitter"].as_str().unwrap_or("?");
    assert!(
        ["none", "weak", "inconclusive"].contains(&jitter),
        "{jitter}"
    );
}

#[test]
fn urllib3_backoff_factor_retries_a_herd_in_step() {
    if !runs("python3", &["-c", "import urllib3"]) {
        return skip("python3 with urllib3");
    }
    let (lines, report) = probe(
        "GET /orders/1",
        &["storm-503", "refused"],
        &["python3", &script("urllib3-get.py")],
    );
    assert_eq!(lines, ["storm-503: RL602", "refused: "], "{report:#}");
}

#[test]
fn axios_retry_resends_a_post_after_a_reset() {
    if !node_package("axios-retry") {
        return skip("node with tests/clients/node_modules/axios-retry");
    }
    let (lines, report) = probe(
        "POST /orders",
        &["lost-response", "refused"],
        &["node", &script("axios-retry-post.mjs")],
    );
    assert_eq!(lines, ["lost-response: RL603", "refused: "], "{report:#}");
    let attempts = &report["scenarios"][0]["journal"]["attempts"];
    assert_eq!(attempts[1]["key"], Value::Null, "resent without a key");
}

#[test]
fn got_does_not_resend_a_post() {
    if !node_package("got") {
        return skip("node with tests/clients/node_modules/got");
    }
    let (lines, report) = probe(
        "POST /orders",
        &["lost-response", "refused"],
        &["node", &script("got-post.mjs")],
    );
    assert_eq!(lines, ["lost-response: ", "refused: "], "{report:#}");
    let attempts = report["scenarios"][0]["journal"]["attempts"]
        .as_array()
        .unwrap();
    assert_eq!(attempts.len(), 1, "got sent the POST once");
}
