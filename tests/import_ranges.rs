//! End to end: values out of a platform's range are findings, never defaults
//! (issue 43), on the trigger and clean fixtures of `fixtures/import/ranges/`. A
//! duration beyond the proto3 Duration range (Envoy, gRPC) or Go's duration range
//! (Istio), an Envoy count beyond uint32 or a duration that is no number at all
//! (`1e309s`) is RL017 at the value, and `retrylint import` reads nothing from it:
//! not the platform default (Envoy's 15 s route timeout, its 10 x base back-off cap),
//! not a huge or wrapped number.

use std::path::PathBuf;

mod common;

fn dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/import/ranges")
        .join(name)
}

/// `check .` and `import CONFIG` in the fixture folder, as one text.
fn run(name: &str, config: &str) -> String {
    let root = dir(name);
    let (code, out, err) = common::retrylint_in(&root, &["check", "."]);
    let (icode, iout, ierr) = common::retrylint_in(&root, &["import", config]);
    format!("exit {code}\n{out}{err}\n--- import {config}: exit {icode}\n{iout}{ierr}")
}

/// `file:line:col` of every RL017 in `check --format json`.
fn rl017(name: &str) -> Vec<String> {
    let (_, out, _) = common::retrylint_in(&dir(name), &["check", "--format", "json", "."]);
    let report: serde_json::Value = serde_json::from_str(&out).expect("JSON report");
    let mut at: Vec<String> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["code"] == "RL017")
        .map(|d| {
            format!(
                "{}:{}:{}",
                d["path"].as_str().unwrap_or(""),
                d["line"],
                d["column"]
            )
        })
        .collect();
    at.sort();
    at
}

/// The policy lines of the `import` half of [`run`]'s text (without the `#` notes
/// on the platform defaults, which name settings that were not read, and without
/// the findings printed after it).
fn imported(out: &str) -> String {
    out.split_once("--- import")
        .map_or("", |(_, i)| i)
        .lines()
        .filter(|l| !l.trim_start().starts_with('#') && !l.contains(": RL0"))
        .map(|l| l.split(" # ").next().unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn trigger_envoy() {
    let out = run("trigger-envoy", "envoy.yaml");
    assert_eq!(
        rl017("trigger-envoy"),
        [
            "envoy.yaml:11:9",  // num_retries: 2^32
            "envoy.yaml:12:9",  // per_try_timeout beyond the Duration range
            "envoy.yaml:16:7",  // timeout: {seconds: 315576000001}
            "envoy.yaml:20:47", // max_interval: 99999999999999999999999h
            "envoy.yaml:8:7",   // timeout: 1e309s
        ]
    );
    let import = imported(&out);
    // Nothing read from the rejected values: no default 15 s deadline, no wrapped
    // or huge attempt count, no default cap of 10 x base.
    for absent in ["deadline", "4294967297", "315576000001s", "cap: 1s", "15s"] {
        assert!(!import.contains(absent), "{absent}:\n{import}");
    }
    assert!(import.contains("attempts: 3"), "{import}");
    insta::assert_snapshot!(out);
}

#[test]
fn clean_envoy_at_the_limits() {
    let out = run("clean-envoy", "envoy.yaml");
    assert!(rl017("clean-envoy").is_empty(), "{out}");
    assert!(imported(&out).contains("attempts: 4294967296"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn trigger_grpc() {
    let out = run("trigger-grpc", "service_config.json");
    assert_eq!(
        rl017("trigger-grpc"),
        ["service_config.json:5:7", "service_config.json:9:9"]
    );
    let import = imported(&out);
    for absent in ["deadline", "cap:"] {
        assert!(!import.contains(absent), "{absent}:\n{import}");
    }
    insta::assert_snapshot!(out);
}

#[test]
fn clean_grpc_at_the_limits() {
    let out = run("clean-grpc", "service_config.json");
    assert!(rl017("clean-grpc").is_empty(), "{out}");
    assert!(imported(&out).contains("deadline: 3652500d"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn trigger_istio() {
    let out = run("trigger-istio", "vs.yaml");
    assert_eq!(rl017("trigger-istio"), ["vs.yaml:13:7", "vs.yaml:9:5"]);
    let import = imported(&out);
    for absent in ["deadline", "2562048h"] {
        assert!(!import.contains(absent), "{absent}:\n{import}");
    }
    insta::assert_snapshot!(out);
}

/// Istio's validation takes durations of at least 1ms in whole milliseconds
/// (istio/istio `pkg/config/validation/agent/validation.go`, `ValidateDuration`):
/// `0.5ns`, `100ps` (no such Go unit), `1.5ms` and `999us` are RL017 each, and
/// neither a deadline nor an attempt timeout is read from them.
#[test]
fn trigger_istio_below_a_millisecond() {
    let out = run("trigger-istio-precision", "vs.yaml");
    assert_eq!(
        rl017("trigger-istio-precision"),
        [
            "vs.yaml:10:5", // timeout: 0.5ns
            "vs.yaml:14:7", // perTryTimeout: 100ps
            "vs.yaml:17:5", // timeout: 1.5ms
            "vs.yaml:21:7", // perTryTimeout: 999us
        ]
    );
    let import = imported(&out);
    for absent in ["deadline", "attempt_timeout: 0", "1.5ms", "0.999ms"] {
        assert!(!import.contains(absent), "{absent}:\n{import}");
    }
    insta::assert_snapshot!(out);
}

/// A Gateway API `timeouts.request` that is no GEP-2257 duration (`1d`, `-5s`):
/// RL017 at each, no deadline read, and no RL301 "retried without a deadline" for
/// the refused value (issue 43).
#[test]
fn trigger_gateway_api_request_timeout() {
    let out = run("trigger-gateway-api", "route.yaml");
    assert_eq!(
        rl017("trigger-gateway-api"),
        ["route.yaml:14:16", "route.yaml:17:16"]
    );
    assert!(!out.contains("RL301"), "{out}");
    assert!(!imported(&out).contains("deadline:"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn clean_istio_at_the_limits() {
    let out = run("clean-istio", "vs.yaml");
    assert!(rl017("clean-istio").is_empty(), "{out}");
    assert!(imported(&out).contains("deadline: 2562047h"), "{out}");
    insta::assert_snapshot!(out);
}

/// Traefik parses durations in Go: one beyond Go's range is RL017 and read as
/// nothing (no deadline, no back-off).
#[test]
fn trigger_traefik() {
    let out = run("trigger-traefik", "traefik.yml");
    assert_eq!(
        rl017("trigger-traefik"),
        ["traefik.yml:11:9", "traefik.yml:12:9"]
    );
    let import = imported(&out);
    for absent in ["deadline", "backoff"] {
        assert!(!import.contains(absent), "{absent}:\n{import}");
    }
    insta::assert_snapshot!(out);
}

#[test]
fn clean_traefik_at_the_limits() {
    let out = run("clean-traefik", "traefik.yml");
    assert!(rl017("clean-traefik").is_empty(), "{out}");
    assert!(imported(&out).contains("deadline: 2562047h"), "{out}");
    insta::assert_snapshot!(out);
}

/// gRPC `timeout` refused (`-1s`, `315576000001s`): RL017 at each, read as
/// nothing and kept as refused (no RL301, no "no `timeout`" note); a
/// `315576000000.999999999s` is still a proto3 Duration (whole seconds at the
/// limit, nanos below 1e9) and is read, not reported (issue 43).
#[test]
fn trigger_grpc_timeout() {
    let out = run("trigger-grpc-timeout", "service_config.json");
    assert_eq!(
        rl017("trigger-grpc-timeout"),
        ["service_config.json:16:7", "service_config.json:5:7"]
    );
    assert!(!out.contains("RL301"), "{out}");
    assert!(!out.contains("no `timeout` in this method config"), "{out}");
    assert!(!imported(&out).contains("deadline:"), "{out}");
    insta::assert_snapshot!(out);
}

/// Kong `retries` outside 0..=32767 (`99999999999`, `-1`): one RL017 "out of
/// range" at each, and only `retries` is refused: the services and their routes
/// are still imported (`import` does not say "nothing imported"), with their
/// `read_timeout`, and no count of tries is read (not Kong's default 5 retries,
/// nor a huge or wrapped one); RL302 does not blame the refused count (issue 43).
#[test]
fn trigger_kong_retries() {
    let out = run("trigger-kong", "kong.yaml");
    assert_eq!(rl017("trigger-kong"), ["kong.yaml:10:3", "kong.yaml:5:3"]);
    assert!(
        out.contains("`retries: 99999999999` of Kong service `orders` is out of range: 0 to 32767"),
        "{out}"
    );
    assert!(
        out.contains("`retries: -1` of Kong service `payments` is out of range: 0 to 32767"),
        "{out}"
    );
    assert!(!out.contains("nothing imported"), "{out}");
    assert!(!out.contains("RL302"), "{out}");
    let import = imported(&out);
    for present in ["GET /orders:", "GET /payments:", "attempt_timeout: 5s"] {
        assert!(import.contains(present), "{present}:\n{import}");
    }
    assert!(!import.contains("attempts:"), "{import}");
    insta::assert_snapshot!(out);
}

/// Negative Istio values (issue 43): `attempts: -1` (ValidateHTTPRetry: "attempts
/// cannot be negative") and `-5s`, `-1s`, `-10ms` durations (Go reads them;
/// ValidateDuration: "duration must be greater than 1ms") are each one RL017
/// "out of range", not "not a number" / "not a duration", and read as nothing.
#[test]
fn trigger_istio_negative() {
    let out = run("trigger-istio-negative", "vs.yaml");
    assert_eq!(
        rl017("trigger-istio-negative"),
        [
            "vs.yaml:10:5", // timeout: -5s
            "vs.yaml:12:7", // attempts: -1
            "vs.yaml:19:7", // perTryTimeout: -1s
            "vs.yaml:20:7", // backoff: -10ms
        ]
    );
    assert!(
        out.contains("`attempts: -1` is out of range: at least 0 retries"),
        "{out}"
    );
    for value in ["timeout: -5s", "perTryTimeout: -1s", "backoff: -10ms"] {
        assert!(out.contains(&format!("`{value}`")), "{value}:\n{out}");
    }
    assert_eq!(
        out.matches("is out of range: at least 1ms").count(),
        6,
        "{out}"
    );
    for wrong in ["not a duration", "not a number"] {
        assert!(!out.contains(wrong), "{wrong}:\n{out}");
    }
    let import = imported(&out);
    for absent in ["deadline", "attempts: 0", "attempt_timeout: -", "base: -"] {
        assert!(!import.contains(absent), "{absent}:\n{import}");
    }
    insta::assert_snapshot!(out);
}

/// Negative Envoy values (issue 43): `num_retries: -1` (a UInt32Value) and
/// negative Durations (`-1s`, `"-2s"`, `{seconds: -15}`: proto Durations that
/// Envoy refuses, "Expected positive duration"; the back-off intervals are `gt {}`)
/// are each one RL017 "out of range", and read as nothing: no deadline (not the
/// default 15 s), no per-try timeout, no back-off base or cap.
#[test]
fn trigger_envoy_negative() {
    let out = run("trigger-envoy-negative", "envoy.yaml");
    assert_eq!(
        rl017("trigger-envoy-negative"),
        [
            "envoy.yaml:11:9",  // num_retries: -1
            "envoy.yaml:12:9",  // per_try_timeout: "-2s"
            "envoy.yaml:16:7",  // timeout: {seconds: -15}
            "envoy.yaml:20:26", // base_interval: -25ms
            "envoy.yaml:20:48", // max_interval: -1s
            "envoy.yaml:8:7",   // timeout: -1s
        ]
    );
    assert!(
        out.contains("`num_retries: -1` is out of range: 0 to 4294967295 retries"),
        "{out}"
    );
    assert!(
        out.contains("`timeout: -1s` is out of range: at least 0s"),
        "{out}"
    );
    assert!(
        out.contains("`per_try_timeout: -2s` is out of range: at least 0s"),
        "{out}"
    );
    assert!(
        out.contains("`base_interval: -25ms` is out of range: above 0"),
        "{out}"
    );
    // The messages say "out of range", not "not a proto Duration" (the notes
    // still say the value is not one Envoy accepts).
    assert!(
        !out.lines()
            .any(|l| l.contains('⚠') && l.contains("not a proto Duration")),
        "{out}"
    );
    assert!(!out.contains("RL301"), "{out}");
    let import = imported(&out);
    for absent in [
        "deadline",
        "15s",
        "attempts: 0",
        "attempt_timeout: -",
        "-25ms",
        "-1s",
    ] {
        assert!(!import.contains(absent), "{absent}:\n{import}");
    }
    // Route /b's refused back-off: neither its base and cap nor the defaults.
    let b = import.split_once("GET /b:").map_or("", |(_, b)| b);
    for absent in ["base:", "cap:"] {
        assert!(!b.contains(absent), "{absent}:\n{import}");
    }
    insta::assert_snapshot!(out);
}

/// Negative Traefik values (issue 43): `attempts: -3` is one RL017 "out of
/// range" (Traefik refuses `attempts <= 0`: "incorrect (or empty) value for
/// attempt"), and its router is not served. A negative `initialInterval` or
/// `timeout` is no range error: Traefik reads a signed Go duration and its retry
/// middleware acts only on one above 0, so RL017 says it has no effect and it is
/// read as Traefik reads it (no back-off, no time limit), never as "not a duration".
#[test]
fn trigger_traefik_negative() {
    let out = run("trigger-traefik-negative", "traefik.yml");
    assert_eq!(
        rl017("trigger-traefik-negative"),
        [
            "traefik.yml:14:9", // attempts: -3
            "traefik.yml:18:9", // initialInterval: "-100ms"
            "traefik.yml:19:9", // timeout: -5
        ]
    );
    assert!(
        out.contains("`attempts: -3` of retry middleware `retry-a` is out of range: 1 to"),
        "{out}"
    );
    assert!(
        out.contains("`initialInterval: -100ms` of retry middleware `retry-b` is negative"),
        "{out}"
    );
    assert!(
        out.contains("`timeout: -5` of retry middleware `retry-b` is negative"),
        "{out}"
    );
    for wrong in ["not a duration", "must be an integer"] {
        assert!(!out.contains(wrong), "{wrong}:\n{out}");
    }
    let import = imported(&out);
    assert!(!import.contains("GET /a"), "{import}");
    for absent in ["deadline", "backoff"] {
        assert!(!import.contains(absent), "{absent}:\n{import}");
    }
    insta::assert_snapshot!(out);
}

/// Values quoted as written and shown without a float's noise (issue 43):
/// `max_interval: 1.000000001s` below `base_interval: 1.000000002s` is RL017
/// quoting both texts (not "1s is below 1s"), and `import` shows `1.000000001s`
/// as `1000.000001ms`, not `1000.0000010000001ms`.
#[test]
fn trigger_envoy_values_as_written() {
    let out = run("trigger-envoy-as-written", "envoy.yaml");
    assert_eq!(rl017("trigger-envoy-as-written"), ["envoy.yaml:20:55"]);
    assert!(
        out.contains("`max_interval: 1.000000001s` is below the back-off base, `base_interval: 1.000000002s`"),
        "{out}"
    );
    let import = imported(&out);
    for shown in [
        "deadline: 3000.000001ms",
        "attempt_timeout: 1000.000001ms",
        "base: 1000.000002ms",
    ] {
        assert!(import.contains(shown), "{shown}:\n{import}");
    }
    // Not the float's noise (`1.000000001 * 1000.0`).
    assert!(!out.contains("1000.0000010000001ms"), "{out}");
    insta::assert_snapshot!(out);
}

/// gRPC: `"maxAttempts": 1e1` is RL017 "capped at 5" quoting `1e1` (not the
/// re-formatted `10`), and proto3 Durations are shown rounded once
/// (`"3.000000001s"` as `3000.000001ms`).
#[test]
fn trigger_grpc_values_as_written() {
    let out = run("trigger-grpc-as-written", "service_config.json");
    assert_eq!(
        rl017("trigger-grpc-as-written"),
        ["service_config.json:7:9"]
    );
    assert!(
        out.contains("gRPC `maxAttempts: 1e1` is capped at 5"),
        "{out}"
    );
    let import = imported(&out);
    for shown in [
        "deadline: 3000.000001ms",
        "cap: 1000.000001ms",
        "attempts: 5",
    ] {
        assert!(import.contains(shown), "{shown}:\n{import}");
    }
    // Not the float's noise (`1.000000001 * 1000.0`).
    assert!(!out.contains("1000.0000010000001ms"), "{out}");
    insta::assert_snapshot!(out);
}
