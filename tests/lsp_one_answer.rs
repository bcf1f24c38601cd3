//! One answer however it is asked (issue 36), the editor's half: in every example
//! project, opening a file F in the language server publishes for F exactly the
//! findings of `check .` whose primary location is in F (same codes, same lines);
//! and a finding on an operation F declares but located in another file (an Istio
//! route retrying a spec's POST) is published for that file and points back into F
//! through its related information, so F's reader sees where it comes from.

mod common;

#[path = "lsp/client.rs"]
#[allow(dead_code)] // this file uses part of the client
mod client;

use client::Client;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A recursive copy of `from` in a fresh temporary folder.
fn copy_tree(from: &Path, name: &str) -> PathBuf {
    let to = std::env::temp_dir().join(format!(
        "retrylint-lsp-answer-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&to);
    common::copy_tree(from, &to);
    std::fs::canonicalize(&to).unwrap()
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// `check .` in `dir` as JSON findings.
fn answer(dir: &Path) -> Vec<Value> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .args(["check", ".", "--format", "json", "--fail-on", "never"])
        .current_dir(dir)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["diagnostics"].as_array().cloned().unwrap_or_default()
}

/// `CODE line` of each finding (1-based line), sorted.
fn keys(list: impl Iterator<Item = (String, u64)>) -> Vec<String> {
    let mut k: Vec<String> = list.map(|(c, l)| format!("{c} {l}")).collect();
    k.sort();
    k
}

#[test]
fn the_editor_publishes_the_answer_of_the_whole_project_for_each_file() {
    let mut projects = 0;
    let mut compared = 0;
    let mut pointing = 0;
    for example in [
        "platform",
        "shop",
        "layers",
        "spring",
        "spring-gateway",
        "grpc",
    ] {
        let src = repo().join("fixtures/examples").join(example);
        if !src.is_dir() {
            continue;
        }
        projects += 1;
        let dir = copy_tree(&src, example);
        let whole = answer(&dir);
        let mut c = Client::start(&dir, json!({}));
        for f in files(&dir) {
            let text = std::fs::read_to_string(&f).unwrap_or_default();
            c.open(&f, &text);
        }
        c.settle();
        for f in files(&dir) {
            let rel = f
                .strip_prefix(&dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let expected = keys(whole.iter().filter(|d| d["path"] == rel.as_str()).map(|d| {
                (
                    d["code"].as_str().unwrap().to_string(),
                    d["line"].as_u64().unwrap(),
                )
            }));
            let published = keys(c.diagnostics_of(&f).iter().map(|d| {
                (
                    d["code"].as_str().unwrap_or_default().to_string(),
                    d["range"]["start"]["line"].as_u64().unwrap() + 1,
                )
            }));
            compared += expected.len();
            assert_eq!(published, expected, "{example}: {rel}");
        }
        // In a project of one spec, a finding located elsewhere on operations that
        // spec declares points into it (related information), so the spec's reader
        // can reach it.
        let specs: Vec<String> = files(&dir)
            .into_iter()
            .filter(|f| {
                let t = std::fs::read_to_string(f).unwrap_or_default();
                t.starts_with("openapi:") || t.contains("\nopenapi:") || t.contains("\"openapi\":")
            })
            .map(|f| {
                f.strip_prefix(&dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/")
            })
            .collect();
        if let [spec] = &specs[..] {
            for d in whole.iter().filter(|d| {
                d["path"] != spec.as_str()
                    && d["operations"].as_array().is_some_and(|o| !o.is_empty())
            }) {
                let labelled = d["labels"]
                    .as_array()
                    .is_some_and(|ls| ls.iter().any(|l| l["path"] == spec.as_str()));
                assert!(
                    labelled,
                    "{example}: {} does not point into {spec}: {d}",
                    d["code"]
                );
                pointing += 1;
            }
        }
        assert_eq!(c.shutdown(), 0);
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(projects >= 4);
    // The property held over real findings, not over empty lists.
    assert!(compared > 20, "{compared} findings compared");
    assert!(pointing > 5, "{pointing} findings pointing into a spec");
}
