//! End to end: cycles in config inheritance are RL017 at each member (issue 43), on
//! the trigger and clean fixtures of `fixtures/import/cycles/`: Traefik `chain`
//! middlewares that reach themselves, AWS `source_profile` loops, Resilience4j
//! `baseConfig` loops (and an instance based on its own name).

use std::path::PathBuf;

mod common;

fn check(name: &str) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/import/cycles")
        .join(name);
    let (code, out, err) = common::retrylint_in(&root, &["check", "--format", "json", "."]);
    format!("exit {code}\n{out}{err}")
}

/// `(file:line:col, message)` of every RL017, sorted.
fn rl017(out: &str) -> Vec<(String, String)> {
    let json = out.split_once('\n').map_or("", |(_, rest)| rest);
    let report: serde_json::Value = serde_json::from_str(json).expect("JSON report");
    let mut found: Vec<(String, String)> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["code"] == "RL017")
        .map(|d| {
            (
                format!(
                    "{}:{}:{}",
                    d["path"].as_str().unwrap_or(""),
                    d["line"],
                    d["column"]
                ),
                d["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    found.sort();
    found
}

fn positions(found: &[(String, String)]) -> Vec<&str> {
    found.iter().map(|(at, _)| at.as_str()).collect()
}

#[test]
fn trigger_traefik_chain_cycle() {
    let out = check("trigger-traefik");
    let found = rl017(&out);
    // `outer` -> `inner` -> `outer@file`, and `self` -> `self`; at each chain's name.
    assert_eq!(
        positions(&found),
        ["traefik.yml:11:5", "traefik.yml:14:5", "traefik.yml:8:5"]
    );
    assert!(
        found.iter().all(|(_, m)| m.contains("cycle of chains")),
        "{found:?}"
    );
    insta::assert_snapshot!(out);
}

#[test]
fn clean_traefik_chain_of_chains() {
    let out = check("clean-traefik");
    assert!(rl017(&out).is_empty(), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn trigger_aws_source_profile_cycle() {
    let out = check("trigger-aws");
    let found = rl017(&out);
    // `deploy` <-> `ops`, and `loop` sourcing itself without keys of its own.
    assert_eq!(
        positions(&found),
        [".aws/config:12:1", ".aws/config:16:1", ".aws/config:7:1"]
    );
    insta::assert_snapshot!(out);
}

#[test]
fn clean_aws_source_profile_chain() {
    let out = check("clean-aws");
    assert!(rl017(&out).is_empty(), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn trigger_resilience4j_base_config_cycle() {
    let out = check("trigger-resilience4j");
    let found = rl017(&out);
    // Configs `a` <-> `b`; instance `payments` based on its own name (one finding,
    // not also "names no config").
    assert_eq!(
        positions(&found),
        [
            "application.yml:12:9",
            "application.yml:5:9",
            "application.yml:8:9"
        ]
    );
    assert!(!out.contains("names no config"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn clean_resilience4j_base_config_chain() {
    let out = check("clean-resilience4j");
    assert!(rl017(&out).is_empty(), "{out}");
    insta::assert_snapshot!(out);
}
