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

/// What a fake client does on the wire.
fn fake_main(kind: &str, base: &str) {
    let addr = base.trim_start_matches("http://").to_string();
    let mut key = format!("key-{}", std::process::id());
    let started = Instant::now();
    for attempt in 0..4u32 {
        if kind == "regenerates-key" {
            key = format!("key-{}-{attempt}", std::process::id());
        }
        let outcome = request(&addr, &key);
        // Reset or timeout (status 0): the key protects the resend.
        let (status, retry_after) = outcome.unwrap_or_default();
        if (200..300).contains(&status)
            || (400..500).contains(&status) && status != 409 && status != 429
        {
            return;
        }
        let backoff = Duration::from_millis(100 << attempt);
        let wait = match (kind, retry_after) {
            ("too-early", _) => Duration::from_millis(50),
            (_, Some(ra)) => ra,
            // Full jitter from the clock's nanoseconds (no dependency).
            _ => backoff.mul_f64(jitter_unit()),
        };
        if started.elapsed() + wait > Duration::from_secs(5) {
            return;
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

/// One POST; `Some((status, retry-after))`, or `None` on a reset or timeout.
fn request(addr: &str, key: &str) -> Option<(u16, Option<Duration>)> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_millis(800))).ok()?;
    let body = "{\"item\":1}";
    let req = format!(
        "POST /orders HTTP/1.1\r\nHost: {addr}\r\nIdempotency-Key: {key}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
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
