//! What the integration tests share: running the built binary as users do.

use std::path::Path;
use std::process::Command;

/// Runs `retrylint ARGS` in `dir` with colour off and no `GITHUB_WORKSPACE` (so the
/// paths of every format are those of a local run): (exit code, stdout, stderr).
#[allow(dead_code)] // each test crate uses what it needs of this module
pub fn retrylint_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_WORKSPACE")
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `(code, "file:line:col")` of a finding's primary location (1-based, in characters).
#[allow(dead_code)] // each test crate uses what it needs of this module
pub fn code_at(d: &retrylint::diagnostic::Diagnostic) -> (String, String) {
    let l = &d.primary.location;
    let lc = l.file.line_col(l.span.start);
    (
        d.code.to_string(),
        format!("{}:{}:{}", l.file.display, lc.line, lc.column),
    )
}

/// `CODE file:line:col` of each finding in the human output, in report order: a
/// finding's code line, then the first `╭─[file:line:col]` header after it.
#[allow(dead_code)] // each test crate uses what it needs of this module
pub fn findings(stdout: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut code: Option<String> = None;
    for l in stdout.lines() {
        let t = l.trim();
        if t.len() > 5 && t.starts_with("RL") && t[2..5].bytes().all(|b| b.is_ascii_digit()) {
            code = Some(t[..5].to_string());
        } else if let (Some(c), Some(start)) = (&code, l.find("╭─[")) {
            let rest = &l[start + "╭─[".len()..];
            if let Some(end) = rest.find(']') {
                out.push(format!("{c} {}", &rest[..end]));
            }
            code = None;
        }
    }
    out
}

/// [`findings`], sorted.
#[allow(dead_code)] // each test crate uses what it needs of this module
pub fn findings_sorted(stdout: &str) -> Vec<String> {
    let mut out = findings(stdout);
    out.sort();
    out
}

/// True when `got` (from [`findings`]) holds `want` (`RL201 file:line:col`).
#[allow(dead_code)] // each test crate uses what it needs of this module
pub fn has(got: &[String], want: &str) -> bool {
    got.iter().any(|g| g == want)
}

/// The codes of `got` (from [`findings`]).
#[allow(dead_code)] // each test crate uses what it needs of this module
pub fn codes(got: &[String]) -> Vec<&str> {
    got.iter().map(|g| &g[..5]).collect()
}

/// The project folders two levels under each of `tops` (relative to the
/// repository: `fixtures/rules` gives `fixtures/rules/RL201-.../trigger-...`), in
/// name order: the fixtures a test checks one by one.
#[allow(dead_code)] // each test crate uses what it needs of this module
pub fn fixture_dirs(tops: &[&str]) -> Vec<std::path::PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for top in tops {
        for entry in walkdir::WalkDir::new(repo.join(top))
            .min_depth(2)
            .max_depth(2)
            .sort_by_file_name()
        {
            let entry = entry.expect("readable fixtures");
            if entry.file_type().is_dir() {
                out.push(entry.into_path());
            }
        }
    }
    out
}

/// The options of `check` run over one fixture folder as its own project, with the
/// `services:` and `platforms:` of its `.retrylint.yaml` when it has one.
#[allow(dead_code)] // each test crate uses what it needs of this module
pub fn fixture_options(dir: &Path) -> retrylint::check::CheckOptions {
    let config = match dir.join(".retrylint.yaml") {
        p if p.is_file() => retrylint::config::load(Some(&p), dir).expect("config reads"),
        _ => retrylint::config::Config::default(),
    };
    retrylint::check::CheckOptions {
        paths: vec![dir.to_path_buf()],
        cwd: Some(dir.to_path_buf()),
        root: Some(dir.to_path_buf()),
        services: config.services,
        platforms: config.platforms,
        ..retrylint::check::CheckOptions::default()
    }
}

/// A text config's out-of-range fixture (issue 43) in `dir`: `check_out` (the
/// check of `dir`) followed by `import FILE`'s output, after asserting that each of
/// `refused` is one RL017 saying "out of range" (never "needs one non-negative
/// number") and that `import` reads no count of tries and no attempt timeout (not
/// the platform's default).
#[allow(dead_code)] // each test crate uses what it needs of this module
pub fn out_of_range_fixture(dir: &str, file: &str, check_out: &str, refused: &[&str]) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let (code, iout, ierr) = retrylint_in(&root, &["import", file]);
    let out = format!("{check_out}\n--- import {file}: exit {code}\n{iout}{ierr}");
    assert_eq!(
        out.matches("RL017 ineffective-setting:").count(),
        refused.len(),
        "{out}"
    );
    for value in refused {
        assert!(out.contains(&format!("`{value}` is out of range")), "{out}");
    }
    assert!(!out.contains("needs one"), "{out}");
    let import: String = iout.lines().filter(|l| !l.starts_with('#')).collect();
    assert!(!import.contains("attempts:"), "{out}");
    assert!(!import.contains("attempt_timeout:"), "{out}");
    out
}

/// The lines of the calls labelled "`operation` is called here" on the `code`
/// findings in `retrylint check . --format json` run in `dir`, as `path:line`,
/// sorted and de-duplicated: every call a client in code makes of the operation.
#[allow(dead_code)] // each test crate uses what it needs of this module
pub fn called_here(dir: &Path, code: &str, operation: &str) -> Vec<String> {
    let (_, out, err) = retrylint_in(dir, &["check", ".", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
    let mut at: Vec<String> = v["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| d["code"] == code)
        .flat_map(|d| d["labels"].as_array().cloned().unwrap_or_default())
        .filter(|l| l["message"] == format!("{operation} is called here").as_str())
        .map(|l| format!("{}:{}", l["path"].as_str().unwrap_or(""), l["line"]))
        .collect();
    at.sort();
    at.dedup();
    at
}

/// Copies the tree `from` to `to` (folders and regular files; links and anything else
/// left out), creating `to`.
#[allow(dead_code)] // each test crate uses what it needs of this module
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir") {
        let e = e.expect("entry");
        let target = to.join(e.file_name());
        let kind = e.file_type().expect("file type");
        if kind.is_dir() {
            copy_tree(&e.path(), &target);
        } else if kind.is_file() {
            std::fs::copy(e.path(), target).expect("copy");
        }
    }
}
