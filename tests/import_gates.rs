//! CI gates around imported retry configs: a config that cannot be read is reported
//! (exit 2), never skipped; a `services:` entry binds a spec served under a path
//! prefix without `base_path`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "retrylint-import-gates-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn check(dir: &Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .current_dir(dir)
        .args(["check", "--color", "never", "."])
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn an_unreadable_or_broken_config_is_reported_not_skipped() {
    let dir = temp("unreadable");
    std::fs::write(
        dir.join("haproxy.cfg"),
        b"global\n# caf\xe9\nbackend b\n  retries 3\n",
    )
    .unwrap();
    let (code, out) = check(&dir);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("RL001") && out.contains("haproxy.cfg"),
        "{out}"
    );

    let dir = temp("broken-yaml");
    std::fs::write(
        dir.join("vs.yaml"),
        "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: x}\nspec:\n  hosts: [a]\n  http:\n  - retries:\n      attempts: 2\n     retryOn: 5xx\n",
    )
    .unwrap();
    let (code, out) = check(&dir);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("RL001") && out.contains("vs.yaml"), "{out}");

    // An AWS shared config that cannot be read as text is reported too.
    let dir = temp("binary-aws-config");
    std::fs::create_dir_all(dir.join(".aws")).unwrap();
    std::fs::write(
        dir.join(".aws/config"),
        b"[default]\nmax_attempts = 3\n\x00\x01binary",
    )
    .unwrap();
    let (code, out) = check(&dir);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("RL001") && out.contains(".aws/config"),
        "{out}"
    );

    // A Helm template is no config until rendered: skipped, exit 0.
    let dir = temp("template");
    std::fs::write(
        dir.join("vs.yaml"),
        "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: x}\nspec:\n{{- if .Values.retries }}\n  http: []\n{{- end }}\n",
    )
    .unwrap();
    let (code, out) = check(&dir);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn a_services_entry_binds_a_spec_served_under_a_prefix() {
    let dir = temp("base-path");
    std::fs::create_dir_all(dir.join("api")).unwrap();
    std::fs::create_dir_all(dir.join("deploy")).unwrap();
    std::fs::write(
        dir.join("api/openapi.yaml"),
        "openapi: 3.0.3\ninfo: {title: P, version: '1'}\nservers: [{url: 'https://api.example.com/v1'}]\npaths:\n  /orders:\n    post:\n      responses: {'201': {description: created}}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("deploy/vs.yaml"),
        "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: payments}\nspec:\n  hosts: [payments]\n  http:\n  - match: [{uri: {prefix: /v1/}}]\n    retries: {attempts: 2, retryOn: 5xx}\n    timeout: 5s\n    route: [{destination: {host: payments}}]\n",
    )
    .unwrap();
    std::fs::write(
        dir.join(".retrylint.yaml"),
        "services:\n  - spec: api/openapi.yaml\n    names: [payments, api.example.com]\n",
    )
    .unwrap();
    let (code, out) = check(&dir);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("RL201") && out.contains("deploy/vs.yaml"),
        "{out}"
    );
    assert!(!out.contains("RL016"), "{out}");
}

/// A config bound to the right spec (its host is the spec's server) whose routes
/// match none of the spec's paths is RL016 saying so, not that its names match no
/// host.
#[test]
fn a_bound_config_whose_routes_match_nothing_says_why() {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/import/bind/routes-match-nothing");
    let (code, stdout) = check(&dir);
    assert_eq!(code, 0, "{stdout}");
    // The human output wraps the message: compare with the gutter and breaks removed.
    let stdout = stdout
        .split_whitespace()
        .filter(|w| *w != "│")
        .collect::<Vec<_>>()
        .join(" ");
    assert!(stdout.contains("RL016"), "{stdout}");
    assert!(stdout.contains("it serves `"), "{stdout}");
    assert!(
        stdout.contains("none of its routes matches an operation there"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("is the host of a spec's server"),
        "{stdout}"
    );
    assert!(stdout.contains("base_path"), "{stdout}");
}
