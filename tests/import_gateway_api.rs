//! End to end over the Gateway API and Envoy Gateway cases of
//! `fixtures/cases/retry-configs/` (copies of the shared acceptance cases 04 and 05):
//! `retrylint check` on each folder, human output, as a snapshot, with the findings
//! the case README expects asserted by code and position.

mod common;

use std::path::PathBuf;

fn case(name: &str) -> (i32, String) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/cases/retry-configs");
    let (code, out, err) = common::retrylint_in(&dir, &["check", name]);
    (code, format!("exit {code}\n{out}{err}"))
}

fn has(out: &str, code: &str, at: &str) -> bool {
    out.lines().any(|l| l.contains(code)) && out.contains(at)
}

#[test]
fn case04_gateway_api_timeouts() {
    let (code, out) = case("04-gateway-api-timeouts");
    assert_eq!(code, 1, "{out}");
    for (rule, at) in [
        ("RL309", "httproute.yaml:30:9"),
        ("RL303", "httproute.yaml:28:9"),
        ("RL201", "httproute.yaml:26:9"),
        ("RL101", "httproute.yaml:25:7"),
        ("RL101", "httproute.yaml:14:7"),
    ] {
        assert!(has(&out, rule, at), "{rule} at {at} missing:\n{out}");
    }
    assert!(!out.contains("request-timeout-200ms-archive"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn case05_envoy_gateway_btp() {
    let (code, out) = case("05-envoy-gateway-btp");
    assert_eq!(code, 1, "{out}");
    for (rule, at) in [
        ("RL201", "backend-traffic-policy.yaml:18:5"),
        ("RL312", "backend-traffic-policy.yaml:17:7"),
        ("RL303", "backend-traffic-policy.yaml:12:5"),
        ("RL101", "backend-traffic-policy.yaml:11:3"),
    ] {
        assert!(has(&out, rule, at), "{rule} at {at} missing:\n{out}");
    }
    for absent in ["RL016", "RL301", "RL309", "RL314", "RL401", "RL402"] {
        assert!(!out.contains(absent), "{absent} fired:\n{out}");
    }
    insta::assert_snapshot!(out);
}
