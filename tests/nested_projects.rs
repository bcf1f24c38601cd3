//! A folder holding a `.retrylint.yaml` of its own is a project of its own
//! (`docs/configuration.md`): `check .` at a monorepo's root answers for each
//! service as that service's own run does (its configuration, its bindings), and
//! for the root's own files without the services' files; `check FILE`, a service's
//! folder, and the editor all give the same answer
//! (`fixtures/named-files/nested-projects`).

mod common;

#[path = "lsp/client.rs"]
#[allow(dead_code)] // this file uses part of the client
mod client;

use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/named-files/nested-projects")
}

/// A copy of the fixture in a fresh git repository (the monorepo), removed on drop.
struct Repo(PathBuf);

impl Drop for Repo {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn repo(name: &str) -> Repo {
    let dir = std::env::temp_dir().join(format!("retrylint-nested-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    common::copy_tree(&fixture(), &dir);
    let dir = std::fs::canonicalize(&dir).unwrap();
    let ok = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&dir)
        .status()
        .unwrap()
        .success();
    assert!(ok, "git init");
    Repo(dir)
}

/// `check ARGS` in `dir`: the findings as `CODE path:line message` (paths relative
/// to the monorepo's root `root`), sorted.
fn check(dir: &Path, root: &Path, args: &[&str]) -> BTreeSet<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .arg("check")
        .args(args)
        .args(["--format", "json", "--fail-on", "never"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let prefix = dir.strip_prefix(root).unwrap();
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let path = prefix.join(d["path"].as_str().unwrap());
            format!(
                "{} {}:{} {}",
                d["code"].as_str().unwrap(),
                path.display(),
                d["line"],
                d["message"].as_str().unwrap()
            )
        })
        .collect()
}

/// The findings located in `folder` (a relative path ending in `/`).
fn in_folder(all: &BTreeSet<String>, folder: &str) -> BTreeSet<String> {
    all.iter()
        .filter(|k| k.split(' ').nth(1).is_some_and(|p| p.starts_with(folder)))
        .cloned()
        .collect()
}

#[test]
fn check_at_the_root_answers_for_each_nested_project_as_its_own_run() {
    let r = repo("whole");
    let root = &r.0;
    let whole = check(root, root, &["."]);
    // Each service's findings are those of the service's own run, from its folder
    // or from the root naming the folder.
    for service in ["billing", "orders"] {
        let own = check(&root.join(service), root, &["."]);
        assert!(!own.is_empty(), "{service} has findings of its own");
        assert_eq!(in_folder(&whole, &format!("{service}/")), own, "{service}");
        assert_eq!(check(root, root, &[service]), own, "check {service}");
    }
    // orders turns RL201 off in its own configuration; billing does not, and its
    // VirtualService binds to its spec through its own `services:`.
    assert!(
        !whole.iter().any(|k| k.starts_with("RL201 orders/")),
        "{whole:#?}"
    );
    assert!(
        whole
            .iter()
            .any(|k| k.starts_with("RL201 billing/deploy/istio/virtual-service.yaml")),
        "{whole:#?}"
    );
    // The root's edge route binds to neither service's spec: judged on its own.
    let edge: Vec<&String> = whole
        .iter()
        .filter(|k| k.contains(" deploy/gateway-vs.yaml:"))
        .collect();
    assert!(edge.iter().any(|k| k.starts_with("RL209 ")), "{edge:#?}");
    assert!(!edge.iter().any(|k| k.starts_with("RL201 ")), "{edge:#?}");
    // Every file named alone (pre-commit) gets findings of the whole answer only,
    // and its own findings all.
    for file in [
        "billing/api/openapi.yaml",
        "billing/deploy/istio/virtual-service.yaml",
        "orders/deploy/envoy/envoy.yaml",
        "deploy/gateway-vs.yaml",
    ] {
        let named = check(root, root, &[file]);
        assert!(named.is_subset(&whole), "check {file}: {named:#?}");
        let located: BTreeSet<String> = whole
            .iter()
            .filter(|k| {
                k.split(' ')
                    .nth(1)
                    .is_some_and(|p| p.starts_with(&format!("{file}:")))
            })
            .cloned()
            .collect();
        assert!(
            located.is_subset(&named),
            "check {file} misses {located:#?}"
        );
    }
}

#[test]
fn the_editor_publishes_each_nested_project_as_check_does() {
    let r = repo("lsp");
    let root = &r.0;
    let whole = check(root, root, &["."]);
    let mut c = client::Client::start(root, json!({}));
    let mut files = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    for f in &files {
        c.open(f, &std::fs::read_to_string(f).unwrap_or_default());
    }
    c.settle();
    let mut compared = 0;
    for f in &files {
        let rel = f
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let mut expected: Vec<String> = whole
            .iter()
            .filter(|k| {
                k.split(' ')
                    .nth(1)
                    .is_some_and(|p| p.starts_with(&format!("{rel}:")))
            })
            .map(|k| {
                let code = k.split(' ').next().unwrap();
                let line = k.split(' ').nth(1).unwrap().rsplit(':').next().unwrap();
                format!("{code} {line}")
            })
            .collect();
        expected.sort();
        let mut published: Vec<String> = c
            .diagnostics_of(f)
            .iter()
            .map(|d| {
                format!(
                    "{} {}",
                    d["code"].as_str().unwrap_or_default(),
                    d["range"]["start"]["line"].as_u64().unwrap() + 1
                )
            })
            .collect();
        published.sort();
        compared += expected.len();
        assert_eq!(published, expected, "{rel}");
    }
    assert!(compared > 10, "{compared} findings compared");
    assert_eq!(c.shutdown(), 0);
}
