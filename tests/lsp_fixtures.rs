//! `retrylint lsp` publishes what `check --format json` prints, on every fixture
//! folder: the same codes, severities and ranges (UTF-16 positions from the JSON's
//! line and scalar-value columns), nothing more, nothing less.

#[path = "lsp/client.rs"]
#[allow(dead_code)] // this file uses part of the client
mod client;

use client::Client;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

mod common;

/// Every folder holding fixture files: each rule's trigger/clean cases and the examples.
fn fixture_dirs() -> Vec<PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for group in ["fixtures/rules", "fixtures/examples"] {
        let Ok(entries) = std::fs::read_dir(repo.join(group)) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let cases: Vec<PathBuf> = std::fs::read_dir(&p)
                .into_iter()
                .flatten()
                .flatten()
                .map(|c| c.path())
                .filter(|c| c.is_dir())
                .collect();
            if group == "fixtures/rules" {
                out.extend(cases);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// UTF-16 column (0-based) of a 1-based line and scalar-value column of `text`.
fn utf16_col(text: &str, line: u64, column: u64) -> u64 {
    let l = text.split('\n').nth(line as usize - 1).unwrap_or("");
    l.chars()
        .take(column as usize - 1)
        .map(|c| c.len_utf16() as u64)
        .sum()
}

type Key = (String, String, String, u64, u64, u64, u64);

fn from_check(dir: &Path) -> BTreeSet<Key> {
    let (_, stdout, stderr) = common::retrylint_in(dir, &["check", "--format", "json", "."]);
    let report: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{}: check --format json: {e}\n{stderr}", dir.display()));
    let canonical = std::fs::canonicalize(dir).unwrap();
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let path = d["path"].as_str().unwrap();
            let file = std::fs::canonicalize(dir.join(path)).unwrap();
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
            let n = |k: &str| d[k].as_u64().unwrap();
            (
                file.strip_prefix(&canonical)
                    .unwrap_or(&file)
                    .display()
                    .to_string(),
                d["code"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
                n("line") - 1,
                utf16_col(text, n("line"), n("column")),
                n("end_line") - 1,
                utf16_col(text, n("end_line"), n("end_column")),
            )
        })
        .collect()
}

fn from_lsp(dir: &Path) -> BTreeSet<Key> {
    let mut c = Client::start(dir, json!({}));
    c.settle();
    let root = format!("{}/", client::uri(dir));
    let severity = |s: u64| match s {
        1 => "error",
        2 => "warning",
        _ => "info",
    };
    let mut out = BTreeSet::new();
    for (uri, list) in &c.diagnostics {
        for d in list {
            let r = &d["range"];
            let n = |a: &str, b: &str| r[a][b].as_u64().unwrap();
            let rel = uri.strip_prefix(&root).unwrap_or(uri).replace("%20", " ");
            out.insert((
                rel,
                d["code"].as_str().unwrap().to_string(),
                severity(d["severity"].as_u64().unwrap()).to_string(),
                n("start", "line"),
                n("start", "character"),
                n("end", "line"),
                n("end", "character"),
            ));
        }
    }
    assert_eq!(c.shutdown(), 0);
    out
}

#[test]
fn lsp_diagnostics_equal_check_json_on_every_fixture() {
    let dirs = fixture_dirs();
    assert!(
        dirs.len() > 200,
        "found only {} fixture folders",
        dirs.len()
    );
    let mut compared = 0;
    let mut findings = 0;
    for dir in &dirs {
        let want = from_check(dir);
        let got = from_lsp(dir);
        assert_eq!(
            got,
            want,
            "{}: LSP (left) and check (right) differ",
            dir.display()
        );
        compared += 1;
        findings += want.len();
    }
    assert!(
        findings > 200,
        "only {findings} findings over {compared} folders"
    );
}
