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
