//! Tier 2 of `retrylint probe` (../shared/docs/probe-research.md §6): the real fault
//! server and command against small fake clients written here with `std::net`.
//!
//! The fake client is this test binary itself: `probe` runs
//! `env PROBE_FAKE=<kind> <this binary> fake_client --exact`, and the `fake_client`
//! test below acts as the client only when `PROBE_FAKE` is set (a no-op otherwise).

use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

/// How a fake client behaves, by name (`PROBE_FAKE`). Each differs from `obedient`
/// in one way, so each RL6xx code has a client that triggers it and one that does not.
struct Behaviour {
    /// Sends an `Idempotency-Key` at all.
    key: bool,
    /// A new key on every attempt (RL604).
    regenerate_key: bool,
    /// Resends after a reset or timeout (an unknown outcome).
    resend_unknown: bool,
    /// Retries a 4xx other than 409 and 429 (RL607).
    retry_client_errors: bool,
    /// A fixed wait in ms instead of the full-jitter backoff (and Retry-After).
    fixed_wait_ms: Option<u64>,
    /// Gives up when the next wait would end past this much time (ms); `None` never.
    budget_ms: Option<u64>,
    /// The most attempts it makes.
    attempts: u32,
}

fn behaviour(kind: &str) -> Behaviour {
    let obedient = Behaviour {
        key: true,
        regenerate_key: false,
        resend_unknown: true,
        retry_client_errors: false,
        fixed_wait_ms: None,
        budget_ms: Some(5_000),
        attempts: 4,
    };
    match kind {
        "too-early" => Behaviour {
            fixed_wait_ms: Some(50),
            ..obedient
        },
        "regenerates-key" => Behaviour {
            regenerate_key: true,
            ..obedient
        },
        // Re-POSTs after a reset with no key (RL603), or stops there (clean).
        "no-key" => Behaviour {
            key: false,
            ..obedient
        },
        "no-key-stops" => Behaviour {
            key: false,
            resend_unknown: false,
            ..obedient
        },
        // Every copy waits the same 1 s: a herd in lockstep (RL602).
        "lockstep" => Behaviour {
            fixed_wait_ms: Some(1_000),
            ..obedient
        },
        // Retries every 500 ms, 8 times, whatever the time (RL605).
        "ignores-deadline" => Behaviour {
            fixed_wait_ms: Some(500),
            budget_ms: None,
            attempts: 8,
            ..obedient
        },
        // Follows a declared `base: 1s, multiplier: 1, jitter: none` (RL609 clean).
        "fixed-1s" => Behaviour {
            fixed_wait_ms: Some(1_000),
            ..obedient
        },
        "three-attempts" => Behaviour {
            attempts: 3,
            ..obedient
        },
        "retries-client-errors" => Behaviour {
            retry_client_errors: true,
            ..obedient
        },
        // No budget: waits any Retry-After, however long (RL608).
        "waits-any-retry-after" => Behaviour {
            budget_ms: None,
            ..obedient
        },
        _ => obedient,
    }
}

/// What a fake client does on the wire.
fn fake_main(kind: &str, base: &str) {
    let b = behaviour(kind);
    let addr = base.trim_start_matches("http://").to_string();
    let mut key = format!("key-{}", std::process::id());
    let started = Instant::now();
    for attempt in 0..b.attempts {
        if b.regenerate_key {
            key = format!("key-{}-{attempt}", std::process::id());
        }
        let outcome = request(&addr, b.key.then_some(key.as_str()));
        // Reset or timeout (status 0): the key protects the resend.
        if outcome.is_none() && !b.resend_unknown {
            return;
        }
        let (status, retry_after) = outcome.unwrap_or_default();
        let client_error = (400..500).contains(&status) && status != 409 && status != 429;
        if (200..300).contains(&status) || client_error && !b.retry_client_errors {
            return;
        }
        let backoff = Duration::from_millis(100 << attempt);
        let wait = match (b.fixed_wait_ms, retry_after) {
            (Some(ms), _) => Duration::from_millis(ms),
            (_, Some(ra)) => ra,
            // Full jitter from the clock's nanoseconds (no dependency).
            _ => backoff.mul_f64(jitter_unit()),
        };
        if let Some(budget) = b.budget_ms {
            if started.elapsed() + wait > Duration::from_millis(budget) {
                return;
            }
        }
        std::thread::sleep(wait);
    }
}

fn jitter_unit() -> f64 {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let mixed = (u64::from(nanos) ^ u64::from(std::process::id()) << 20)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (mixed >> 11) as f64 / (1u64 << 53) as f64
}

/// One POST (with `key` as `Idempotency-Key` if given); `Some((status,
/// retry-after))`, or `None` on a reset or timeout.
fn request(addr: &str, key: Option<&str>) -> Option<(u16, Option<Duration>)> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_millis(800))).ok()?;
    let body = "{\"item\":1}";
    let key = key
        .map(|k| format!("Idempotency-Key: {k}\r\n"))
        .unwrap_or_default();
    let req = format!(
        "POST /orders HTTP/1.1\r\nHost: {addr}\r\n{key}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).ok()?;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 1024];
    loop {
        match s.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(_) => return None,
        }
    }
    let text = String::from_utf8_lossy(&buf);
    let status: u16 = text.split_whitespace().nth(1)?.parse().ok()?;
    let ra = text.lines().find_map(|l| {
        let (name, value) = l.split_once(':')?;
        if !name.eq_ignore_ascii_case("retry-after") {
            return None;
        }
        let value = value.trim();
        if let Ok(secs) = value.parse::<u64>() {
            return Some(Duration::from_secs(secs));
        }
        let at = httpdate::parse_http_date(value).ok()?;
        Some(at.duration_since(SystemTime::now()).unwrap_or_default())
    });
    Some((status, ra))
}

#[test]
fn fake_client() {
    if let (Ok(kind), Ok(base)) = (
        std::env::var("PROBE_FAKE"),
        std::env::var("RETRYLINT_BASE_URL"),
    ) {
        if kind != "never-connects" {
            fake_main(&kind, &base);
        }
    }
}

/// Runs `probe` with the fake client `kind`; returns the exit code, the JSON report
/// and standard error.
fn probe(kind: &str, extra: &[&str], scenarios: &[&str]) -> (i32, Value, String) {
    let me = std::env::current_exe().expect("test binary");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_retrylint"));
    cmd.args(["probe", "--operation", "POST /orders", "--format", "json"]);
    for s in scenarios {
        cmd.args(["--scenario", s]);
    }
    cmd.args(extra);
    cmd.arg("--")
        .arg("env")
        .arg(format!("PROBE_FAKE={kind}"))
        .arg(me)
        .args(["fake_client", "--exact", "--quiet", "--test-threads=1"]);
    let out = cmd.output().expect("retrylint runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let json = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (
        out.status.code().unwrap_or(-1),
        json,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The codes found per scenario, `scenario: RL6xx RL6xx`.
fn codes(report: &Value) -> Vec<String> {
    report["scenarios"]
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
        .collect()
}

#[test]
fn an_obedient_client_is_clean_in_every_scenario_it_can_finish() {
    let (code, report, stderr) = probe(
        "obedient",
        &["--deadline", "10s"],
        &[
            "ra-seconds",
            "ra-date",
            "lost-response",
            "post-503",
            "refused",
            "in-progress",
            "client-error",
        ],
    );
    assert_eq!(
        codes(&report),
        [
            "ra-seconds: ",
            "ra-date: ",
            "lost-response: ",
            "post-503: ",
            "refused: ",
            "in-progress: ",
            "client-error: "
        ],
        "{stderr}"
    );
    assert_eq!(code, 0, "{stderr}");
    // The keyed resend after the reset was replayed, not a second effect.
    let lost = &report["scenarios"][2]["journal"]["attempts"];
    assert_eq!(lost[0]["effect"], "recorded");
    assert_eq!(lost[1]["effect"], "replayed");
}

#[test]
fn a_client_that_retries_too_early_gets_rl601() {
    let (code, report, stderr) = probe("too-early", &[], &["ra-seconds", "ra-date", "refused"]);
    assert_eq!(
        codes(&report),
        ["ra-seconds: RL601", "ra-date: RL601", "refused: "],
        "{stderr}"
    );
    assert_eq!(code, 1);
}

#[test]
fn a_client_that_regenerates_its_key_gets_rl603_and_rl604() {
    let (code, report, stderr) = probe("regenerates-key", &[], &["lost-response", "post-503"]);
    assert_eq!(
        codes(&report),
        ["lost-response: RL603 RL604", "post-503: RL604"],
        "{stderr}"
    );
    assert_eq!(code, 1);
}

#[test]
fn a_client_that_never_connects_is_exit_2_with_the_hint() {
    let (code, report, stderr) = probe("never-connects", &[], &["post-503"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("did it read RETRYLINT_BASE_URL"),
        "{stderr}"
    );
    assert_eq!(codes(&report), ["post-503: "]);
}

#[test]
fn a_hang_is_bounded_and_a_herd_of_eight_with_jitter_is_not_synchronised() {
    // The fake client gives up on a hung answer after 800 ms and resends with its
    // key: bounded, replayed, clean. The storm herd of 8 with full jitter spreads.
    let (_, report, stderr) = probe("obedient", &["--deadline", "10s"], &["hang", "storm-503"]);
    assert_eq!(codes(&report), ["hang: ", "storm-503: "], "{stderr}");
    let hang = &report["scenarios"][0]["journal"]["attempts"];
    assert!(hang[0]["closed_ms"].is_number(), "{hang}");
    let herd = report["scenarios"][1]["journal"]["clients"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(herd, 8);
}

/// Every code found in the run, per scenario and over the whole run.
fn all_codes(report: &Value) -> Vec<String> {
    let scenarios = report["scenarios"].as_array().into_iter().flatten();
    scenarios
        .flat_map(|s| s["findings"].as_array().into_iter().flatten())
        .chain(report["run_findings"].as_array().into_iter().flatten())
        .filter_map(|f| f["code"].as_str().map(str::to_string))
        .collect()
}

/// Writes `text` as `name` in a fresh temporary directory (kept alive by the guard).
fn file(name: &str, text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write");
    let path = path.to_string_lossy().into_owned();
    (dir, path)
}

/// A directory with the shop example's spec and a client policy for `POST /orders`
/// with these `defaults` lines added; pass the directory as the probe's path.
fn policy(defaults: &str) -> (tempfile::TempDir, String) {
    let spec = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/examples/shop/openapi.yaml"
    ))
    .expect("the shop example's spec");
    let (dir, _) = file("openapi.yaml", &spec);
    let path = dir.path().join("retry-policy.yaml");
    let text = format!(
        "version: 1\nspec: openapi.yaml\nlayer: client\ndefaults:\n  retry: true\n  retry_on: [transport, 429, 503]\n{defaults}operations:\n  \"POST /orders\":\n    effect: non-idempotent\n    idempotency_key: {{ header: Idempotency-Key }}\n"
    );
    std::fs::write(path, text).expect("write");
    let dir_path = dir.path().to_string_lossy().into_owned();
    (dir, dir_path)
}

/// Asserts the probe found and applied the written policy.
fn assert_policy_applied(report: &Value, stderr: &str) {
    assert!(
        report["policy"]
            .as_str()
            .is_some_and(|p| p.ends_with("retry-policy.yaml")),
        "{}\n{stderr}",
        report["policy"]
    );
}

#[test]
fn rl602_a_herd_in_lockstep_is_synchronised() {
    // The clean counterpart, a herd with full jitter, is
    // `a_hang_is_bounded_and_a_herd_of_eight_with_jitter_is_not_synchronised`.
    let (code, report, stderr) = probe("lockstep", &[], &["storm-503"]);
    assert_eq!(codes(&report), ["storm-503: RL602"], "{stderr}");
    // RL602 is a warning: below the default --fail-on error.
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn rl603_a_write_resent_after_a_reset_without_a_key_is_a_duplicate() {
    let (code, report, stderr) = probe("no-key", &[], &["lost-response"]);
    assert_eq!(codes(&report), ["lost-response: RL603"], "{stderr}");
    assert_eq!(code, 1);
    let lost = &report["scenarios"][0]["journal"]["attempts"];
    assert_eq!(lost[0]["effect"], "recorded");
    assert_eq!(lost[1]["effect"], "recorded");
}

#[test]
fn rl603_a_client_that_stops_after_a_reset_is_clean() {
    let (code, report, stderr) = probe("no-key-stops", &[], &["lost-response"]);
    assert_eq!(codes(&report), ["lost-response: "], "{stderr}");
    assert_eq!(code, 0, "{stderr}");
    let attempts = report["scenarios"][0]["journal"]["attempts"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(attempts, 1);
}

#[test]
fn rl605_a_client_that_ignores_the_deadline_overruns_it() {
    // 8 attempts 500 ms apart (3.5 s) against a 2 s deadline.
    let (code, report, stderr) = probe("ignores-deadline", &["--deadline", "2s"], &["always-503"]);
    assert_eq!(codes(&report), ["always-503: RL605"], "{stderr}");
    assert_eq!(code, 1);
}

#[test]
fn rl605_a_client_within_the_deadline_is_clean() {
    // 4 attempts with full jitter of 100, 200, 400 ms: well inside 2 s.
    let (code, report, stderr) = probe("obedient", &["--deadline", "2s"], &["always-503"]);
    assert_eq!(codes(&report), ["always-503: "], "{stderr}");
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn rl606_more_attempts_than_the_policy_allows() {
    let (_dir, policy) = policy("  attempts: 3\n");
    let (code, report, stderr) = probe("obedient", &[&policy], &["always-503"]);
    assert!(
        all_codes(&report).contains(&"RL606".into()),
        "{report}\n{stderr}"
    );
    assert_eq!(code, 1, "{stderr}");
    let (_, report, stderr) = probe("three-attempts", &[&policy], &["always-503"]);
    assert!(
        !all_codes(&report).contains(&"RL606".into()),
        "{report}\n{stderr}"
    );
    assert_eq!(
        report["scenarios"][0]["journal"]["attempts"]
            .as_array()
            .map(Vec::len),
        Some(3)
    );
}

/// A 422 to a POST, then 200 (the built-in `client-error` sends a 400).
const UNPROCESSABLE: &str = "scenarios:\n  - name: unprocessable\n    description: 422, then 200\n    script:\n      - {status: 422}\n      - {status: 200}\n";

#[test]
fn rl607_a_client_that_retries_a_422() {
    let (_dir, scenarios) = file("scenarios.yaml", UNPROCESSABLE);
    let extra = ["--scenarios", scenarios.as_str()];
    let (code, report, stderr) = probe("retries-client-errors", &extra, &["unprocessable"]);
    assert_eq!(codes(&report), ["unprocessable: RL607"], "{stderr}");
    // RL607 is a warning.
    assert_eq!(code, 0, "{stderr}");
    let (code, report, stderr) = probe("obedient", &extra, &["unprocessable"]);
    assert_eq!(codes(&report), ["unprocessable: "], "{stderr}");
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn rl608_a_client_that_waits_a_huge_retry_after() {
    // Bound 1 s + 500 ms grace: the probe ends the waiting client after 1.5 s.
    let extra = ["--wait-bound", "1s", "--grace", "500ms"];
    let (_, report, stderr) = probe("waits-any-retry-after", &extra, &["ra-huge"]);
    assert_eq!(codes(&report), ["ra-huge: RL608"], "{stderr}");
    assert_eq!(
        report["scenarios"][0]["journal"]["clients"][0]["killed"],
        "idle"
    );
    // The obedient client gives up at once: its 5 s budget.
    let (code, report, stderr) = probe("obedient", &extra, &["ra-huge"]);
    assert_eq!(codes(&report), ["ra-huge: "], "{stderr}");
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn rl609_a_declared_full_jitter_against_a_herd_in_lockstep() {
    // A deadline, so the plan has a delay range to hold each transition to (without
    // one the decision is `invalid-delay` and only the whole-run drift is judged).
    let (_dir, policy) =
        policy("  attempts: 4\n  deadline: 10s\n  backoff: { base: 100ms, multiplier: 2, cap: 2s, jitter: full }\n");
    let (_, report, stderr) = probe("lockstep", &[&policy], &["storm-503"]);
    assert_policy_applied(&report, &stderr);
    assert!(
        all_codes(&report).contains(&"RL609".into()),
        "{report}\n{stderr}"
    );
    // Each transition against the plan: 1 s observed where the plan allows 0-100 ms.
    assert!(
        codes(&report)[0].contains("RL609"),
        "{:?}\n{stderr}",
        codes(&report)
    );
    assert_eq!(
        report["observed_policy"]["jitter"]
            .as_str()
            .map(|j| j == "full"),
        Some(false)
    );
}

#[test]
fn rl609_a_client_that_follows_its_declared_policy_is_clean() {
    // A fixed 1 s wait, declared as such; a single client (no herd, no CV to read).
    let (_dir, policy) =
        policy("  attempts: 4\n  deadline: 10s\n  backoff: { base: 1s, multiplier: 1, cap: 1s, jitter: none }\n");
    let extra = [policy.as_str(), "--epsilon", "200ms"];
    let (code, report, stderr) = probe("fixed-1s", &extra, &["post-503"]);
    assert_policy_applied(&report, &stderr);
    assert_eq!(
        all_codes(&report),
        Vec::<String>::new(),
        "{report}\n{stderr}"
    );
    assert_eq!(code, 0, "{stderr}");
}
