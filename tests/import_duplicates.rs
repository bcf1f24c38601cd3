//! End to end: RL002 duplicate-key in retry configs (issue 43), on the trigger and
//! clean fixtures of `fixtures/import/duplicates/`: a repeated key or setting is a
//! finding with both positions, in every config format, as in specs and policies.

use std::path::PathBuf;

mod common;

fn check(dir: &str) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/import/duplicates")
        .join(dir);
    let (code, out, err) = common::retrylint_in(&root, &["check", "--format", "json", "."]);
    format!("exit {code}\n{out}{err}")
}

/// `(file:line:col, first occurrence line:col)` of every RL002 in a JSON report.
fn rl002(out: &str) -> Vec<(String, String)> {
    let json = out.split_once('\n').map_or("", |(_, rest)| rest);
    let report: serde_json::Value = serde_json::from_str(json).expect("JSON report");
    report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["code"] == "RL002")
        .map(|d| {
            let at = |l: &serde_json::Value| {
                format!(
                    "{}:{}:{}",
                    l["path"].as_str().unwrap_or(""),
                    l["line"],
                    l["column"]
                )
            };
            let first = d["labels"]
                .as_array()
                .and_then(|ls| ls.iter().find(|l| l["message"] == "first occurrence"))
                .map(at)
                .unwrap_or_default();
            (at(d), first)
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// A Kubernetes stream: each document is checked on its own (the repeat in the
/// second document is found, with its own line numbers).
#[test]
fn trigger_istio_stream() {
    let out = check("trigger-istio-stream");
    assert!(out.starts_with("exit 1"), "{out}");
    assert_eq!(
        rl002(&out),
        pairs(&[
            ("vs.yaml:15:3", "vs.yaml:14:3"),
            ("vs.yaml:23:7", "vs.yaml:21:7"),
        ])
    );
    insta::assert_snapshot!(out);
}

/// The same key in two documents or two routes is no repeat.
#[test]
fn clean_istio_stream() {
    let out = check("clean-istio-stream");
    assert!(rl002(&out).is_empty(), "{out}");
    insta::assert_snapshot!(out);
}

/// Java properties keep the last value of a key written twice in one document.
#[test]
fn trigger_properties() {
    let out = check("trigger-properties");
    assert!(out.starts_with("exit 1"), "{out}");
    assert_eq!(
        rl002(&out),
        pairs(&[("application.properties:4:1", "application.properties:1:1")])
    );
    insta::assert_snapshot!(out);
}

/// A key set again in a later `#---` document (a profile) is no repeat.
#[test]
fn clean_properties() {
    let out = check("clean-properties");
    assert!(rl002(&out).is_empty(), "{out}");
    insta::assert_snapshot!(out);
}

/// AWS shared config: a key repeated in a section, and a section repeated.
#[test]
fn trigger_aws() {
    let out = check("trigger-aws");
    assert!(out.starts_with("exit 1"), "{out}");
    assert_eq!(
        rl002(&out),
        pairs(&[
            (".aws/config:5:1", ".aws/config:4:1"),
            (".aws/config:10:2", ".aws/config:7:2"),
        ])
    );
    insta::assert_snapshot!(out);
}

/// A key in a sub-setting block (`s3 =`) is not the profile's own key.
#[test]
fn clean_aws() {
    let out = check("clean-aws");
    assert!(rl002(&out).is_empty(), "{out}");
    insta::assert_snapshot!(out);
}

/// HAProxy keeps the last `retries` and `timeout connect` of a section.
#[test]
fn trigger_haproxy() {
    let out = check("trigger-haproxy");
    assert!(out.starts_with("exit 1"), "{out}");
    assert_eq!(
        rl002(&out),
        pairs(&[
            ("haproxy.cfg:6:5", "haproxy.cfg:5:5"),
            ("haproxy.cfg:8:5", "haproxy.cfg:3:5"),
        ])
    );
    insta::assert_snapshot!(out);
}

/// A proxy setting what its `defaults` set, and two different timeouts, are no
/// repeats.
#[test]
fn clean_haproxy() {
    let out = check("clean-haproxy");
    assert!(rl002(&out).is_empty(), "{out}");
    insta::assert_snapshot!(out);
}

/// Kong: a service's `retries` written twice.
#[test]
fn trigger_kong() {
    let out = check("trigger-kong");
    assert!(out.starts_with("exit 1"), "{out}");
    assert_eq!(rl002(&out), pairs(&[("kong.yaml:6:3", "kong.yaml:5:3")]));
    insta::assert_snapshot!(out);
}

/// Two services each with their own `retries`.
#[test]
fn clean_kong() {
    let out = check("clean-kong");
    assert!(rl002(&out).is_empty(), "{out}");
    insta::assert_snapshot!(out);
}

/// Traefik TOML: a key defined twice in one table is RL002 with both definitions
/// (TOML forbids it, so Traefik refuses the file), not a bare syntax error.
#[test]
fn trigger_traefik_toml() {
    let out = check("trigger-traefik-toml");
    assert!(out.starts_with("exit 1"), "{out}");
    assert!(!out.contains("RL001"), "{out}");
    assert_eq!(
        rl002(&out),
        pairs(&[("traefik.toml:9:3", "traefik.toml:7:3")])
    );
    insta::assert_snapshot!(out);
}

/// The same key in two tables, and an array of tables, are no repeats.
#[test]
fn clean_traefik_toml() {
    let out = check("clean-traefik-toml");
    assert!(rl002(&out).is_empty(), "{out}");
    assert!(!out.contains("RL001"), "{out}");
    insta::assert_snapshot!(out);
}

/// Traefik YAML: Traefik matches field names without regard to case, so
/// `Attempts` after `attempts` in one mapping is RL002 with both positions.
#[test]
fn trigger_traefik_yaml_case() {
    let out = check("trigger-traefik-yaml-case");
    assert_eq!(
        rl002(&out),
        pairs(&[("dynamic.yml:14:9", "dynamic.yml:12:9")]),
        "{out}"
    );
    insta::assert_snapshot!(out);
}

/// Keys that differ in case in maps of names (two routers `orders` and `Orders`)
/// are no repeats.
#[test]
fn clean_traefik_yaml_case() {
    let out = check("clean-traefik-yaml-case");
    assert!(rl002(&out).is_empty(), "{out}");
    insta::assert_snapshot!(out);
}

/// nginx refuses a second `proxy_next_upstream_tries` in one block.
#[test]
fn trigger_nginx() {
    let out = check("trigger-nginx");
    assert!(out.starts_with("exit 1"), "{out}");
    assert_eq!(
        rl002(&out),
        pairs(&[("nginx.conf:10:13", "nginx.conf:8:13")])
    );
    insta::assert_snapshot!(out);
}

/// A location setting what its `http` block sets, and repeated
/// `proxy_next_upstream` lines (their conditions add up), are no repeats.
#[test]
fn clean_nginx() {
    let out = check("clean-nginx");
    assert!(rl002(&out).is_empty(), "{out}");
    insta::assert_snapshot!(out);
}

/// Spring YAML: a key twice in one mapping (Spring Boot's YAML loader refuses it).
#[test]
fn trigger_spring_yaml() {
    let out = check("trigger-spring-yaml");
    assert!(out.starts_with("exit 1"), "{out}");
    assert_eq!(
        rl002(&out),
        pairs(&[("application.yml:7:9", "application.yml:5:9")])
    );
    insta::assert_snapshot!(out);
}

/// A profile document setting a key again is no repeat.
#[test]
fn clean_spring_yaml() {
    let out = check("clean-spring-yaml");
    assert!(rl002(&out).is_empty(), "{out}");
    insta::assert_snapshot!(out);
}
