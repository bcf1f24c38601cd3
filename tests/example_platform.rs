//! The example service of README "Retry configs": a spec, a client policy, an Envoy
//! edge gateway and an Istio VirtualService (`fixtures/examples/platform`). `check`
//! run from its folder (so its `.retrylint.yaml` binds the configs and names Istio
//! 1.22) shows a real finding from each layer.

use std::process::Command;

fn check_example(args: &[&str]) -> (i32, String) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/examples/platform");
    let out = Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .current_dir(dir)
        .args(["check", "--color", "never"])
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn every_layer_shows_a_finding_of_its_own() {
    let (code, human) = check_example(&["."]);
    assert_eq!(code, 1, "{human}");
    insta::assert_snapshot!("example_platform_check", human);
    let (_, json) = check_example(&["--format", "json", "."]);
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    let findings = v["findings"]
        .as_array()
        .or_else(|| v["diagnostics"].as_array())
        .expect("a list");
    let rl201_in = |file: &str| {
        findings
            .iter()
            .any(|f| f["code"] == "RL201" && f["path"].as_str().is_some_and(|p| p.ends_with(file)))
    };
    assert!(rl201_in("clients/web.retry-policy.yaml"), "client: {json}");
    assert!(rl201_in("deploy/envoy/envoy.yaml"), "Envoy gateway: {json}");
    // Istio's implicit default retries a 503 on 1.22 (named in .retrylint.yaml).
    assert!(
        rl201_in("deploy/istio/virtual-service.yaml"),
        "Istio mesh: {json}"
    );
    assert!(
        human.contains("(1 OpenAPI document checked, 1 policy file, 2 retry configs)"),
        "{human}"
    );
}
