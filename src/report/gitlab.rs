//! `--format gitlab`: GitLab Code Quality (a JSON array of issues).
//!
//! Severity: error -> `major`, warning -> `minor`, info -> `info` (`critical` and
//! `blocker` are left to configuration of the MR widget, never emitted). Paths are
//! relative to the project root (plain, not percent-encoded); `fingerprint` is the one
//! SARIF uses (rule, file, JSON Pointer), so it is stable when lines move. The
//! `description` is the message and the help as sentences: `Message. Help: Do this.`

use super::{controls, fingerprints, message_and_help, root_relative};
use crate::diagnostic::{Diagnostic, Severity};
use serde::Serialize;
use std::path::Path;

/// One Code Quality issue.
#[derive(Debug, Serialize)]
pub struct Issue {
    /// The message and the help: `Message. Help: Do this.`
    pub description: String,
    /// `RL201 unprotected-retry`.
    pub check_name: String,
    /// Unique and stable per finding.
    pub fingerprint: String,
    /// `info` | `minor` | `major` | `critical` | `blocker`.
    pub severity: &'static str,
    /// Where.
    pub location: IssueLocation,
}

/// `location` of an issue.
#[derive(Debug, Serialize)]
pub struct IssueLocation {
    /// Path relative to the project root.
    pub path: String,
    /// Line range.
    pub lines: Lines,
}

/// `location.lines`.
#[derive(Debug, Serialize)]
pub struct Lines {
    /// 1-based first line.
    pub begin: u32,
    /// 1-based last line.
    pub end: u32,
}

/// The GitLab severity of a finding.
pub fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "major",
        Severity::Warning => "minor",
        Severity::Info => "info",
    }
}

/// The issues.
pub fn issues(diags: &[Diagnostic], root: &Path) -> Vec<Issue> {
    diags
        .iter()
        .zip(fingerprints(diags, root))
        .map(|(d, fingerprint)| {
            let loc = &d.primary.location;
            let start = loc.file.line_col(loc.span.start);
            let end = loc.file.line_col(loc.span.end);
            Issue {
                description: controls::escape(&message_and_help(d)).into_owned(),
                check_name: format!("{} {}", d.code, d.name),
                fingerprint,
                severity: severity(d.severity),
                location: IssueLocation {
                    path: root_relative(loc, root),
                    lines: Lines {
                        begin: start.line,
                        end: end.line.max(start.line),
                    },
                },
            }
        })
        .collect()
}

/// Renders the report (pretty-printed, trailing newline).
pub fn render(diags: &[Diagnostic], root: &Path) -> String {
    let mut s = serde_json::to_string_pretty(&issues(diags, root)).expect("serialisable");
    s.push('\n');
    s
}
