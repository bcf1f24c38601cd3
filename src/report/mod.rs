//! One emitter per output format, all over the same sorted diagnostic list. Line and
//! column are computed here, never earlier.

pub mod controls;
pub mod github;
pub mod gitlab;
pub mod html;
pub mod human;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod policy_yaml;
pub mod sarif;
pub mod sarif_limits;
pub mod starter_policy;
pub mod statistics;

use crate::diagnostic::{Diagnostic, Location, Severity};
use crate::source::SourceFile;
use std::collections::HashMap;
use std::path::Path;

/// Counts per severity, for the summary line.
#[derive(Debug, Default, Clone, Copy, serde::Serialize)]
pub struct Counts {
    /// Errors.
    pub errors: usize,
    /// Warnings.
    pub warnings: usize,
    /// Infos.
    pub infos: usize,
}

impl Counts {
    /// Counts the diagnostics by severity.
    pub fn of(diags: &[Diagnostic]) -> Counts {
        Counts::of_iter(diags)
    }

    /// Counts the diagnostics by severity.
    pub fn of_iter<'a>(diags: impl IntoIterator<Item = &'a Diagnostic>) -> Counts {
        let mut c = Counts::default();
        for d in diags {
            match d.severity {
                Severity::Error => c.errors += 1,
                Severity::Warning => c.warnings += 1,
                Severity::Info => c.infos += 1,
            }
        }
        c
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// `2 errors, 1 warning, 0 infos (1 OpenAPI document checked, 1 policy file)`;
/// `documents` counts the APIs read from server code too, and `from_code` says how
/// many of them were (`3 APIs read from server code` beside the OpenAPI documents:
/// no OpenAPI document describes those services).
pub fn summary_line(
    diags: &[Diagnostic],
    documents: usize,
    from_code: usize,
    policies: usize,
    configs: usize,
    left_out: usize,
) -> String {
    let c = Counts::of(diags);
    let configs = if configs == 0 {
        String::new()
    } else {
        format!(", {}", plural(configs, "retry config"))
    };
    // Only when some path was left out: the line of every other run is unchanged.
    let left_out = if left_out == 0 {
        String::new()
    } else {
        format!(
            "; {} outside the project root left out",
            plural(left_out, "path")
        )
    };
    let code = if from_code == 0 {
        String::new()
    } else {
        format!(", {} read from server code", plural(from_code, "API"))
    };
    format!(
        "{}, {}, {} ({} checked{code}, {}{configs}){left_out}",
        plural(c.errors, "error"),
        plural(c.warnings, "warning"),
        plural(c.infos, "info"),
        plural(documents.saturating_sub(from_code), "OpenAPI document"),
        plural(policies, "policy file"),
    )
}

/// The `--verbose` lines of the paths a run left out because their real path lies
/// outside the project root (see [`crate::source::boundary`]), one per path:
/// `left out PATH: its real path lies outside the project root, so it is not read`.
pub fn left_out_list(paths: &[String]) -> String {
    paths
        .iter()
        .map(|p| {
            format!(
                "left out {p}: its real path lies outside the project root, so it is not read\n"
            )
        })
        .collect()
}

/// Capitalised, ending with a period: messages and help are written as clauses
/// (rustc's style), SARIF and GitLab show them as sentences.
pub fn sentence(s: &str) -> String {
    let mut out: String = s
        .chars()
        .take(1)
        .flat_map(char::to_uppercase)
        .chain(s.chars().skip(1))
        .collect();
    if !out.ends_with(['.', '?', '!']) {
        out.push('.');
    }
    out
}

/// The message and the help as sentences, `Message. Help: Do this.` (the help part
/// only when there is one).
pub fn message_and_help(d: &Diagnostic) -> String {
    let mut text = sentence(&d.message);
    if let Some(h) = &d.help {
        text.push_str(" Help: ");
        text.push_str(&sentence(h));
    }
    text
}

/// A file's path relative to `root` (the project root; for `--format github` the
/// workspace), `/`-separated and not escaped (the display path when the file is
/// outside `root`).
pub fn root_relative(loc: &Location, root: &Path) -> String {
    root_relative_file(&loc.file, root)
}

/// [`root_relative`] for a whole file: its path relative to `root`, `/`-separated,
/// else its display path.
pub fn root_relative_file(file: &SourceFile, root: &Path) -> String {
    match file.path.strip_prefix(root) {
        Ok(rel) => rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
        Err(_) => file.display.clone(),
    }
}

/// FNV-1a, 64 bits: a hash whose value never changes between Rust versions (unlike
/// `DefaultHasher`), so fingerprints are stable across releases.
pub fn fnv1a64(bytes: &[u8], seed: u64) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325_u64 ^ seed;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The stable identity of a finding: rule, root-relative file and JSON Pointer of the
/// primary node. Line numbers are left out on purpose, so it survives edits that move
/// lines. Two findings with one key are told apart by [`fingerprints`].
pub fn finding_key(d: &Diagnostic, root: &Path) -> String {
    format!(
        "{}|{}|{}",
        d.code,
        root_relative(&d.primary.location, root),
        d.primary.location.pointer
    )
}

/// One fingerprint per diagnostic (same order): 32 hex digits over
/// [`finding_key`] and the occurrence index of that key in the list.
pub fn fingerprints(diags: &[Diagnostic], root: &Path) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    diags
        .iter()
        .map(|d| {
            let key = finding_key(d, root);
            let n = seen.entry(key.clone()).or_insert(0);
            let text = format!("{key}|{n}");
            *n += 1;
            format!(
                "{:016x}{:016x}",
                fnv1a64(text.as_bytes(), 0),
                fnv1a64(text.as_bytes(), 0x9e37_79b9_7f4a_7c15)
            )
        })
        .collect()
}

/// `--show-suppressed`: one line per hidden finding with where it was suppressed and why.
pub fn suppressed_list(suppressed: &[crate::suppress::Suppressed]) -> String {
    let mut out = String::new();
    for s in suppressed {
        let d = &s.diagnostic;
        let at = d
            .primary
            .location
            .file
            .line_col(d.primary.location.span.start);
        let by = s.by.file.line_col(s.by.span.start);
        out.push_str(&format!(
            "suppressed {} {} at {}:{}:{}: {}\n  by {}:{}:{}, reason: {}\n",
            d.code,
            d.name,
            controls::escape(&d.primary.location.file.display),
            at.line,
            at.column,
            controls::escape(&d.message),
            controls::escape(&s.by.file.display),
            by.line,
            by.column,
            controls::escape(&s.reason)
        ));
    }
    out.push_str(&format!(
        "{} suppressed\n",
        plural(suppressed.len(), "finding")
    ));
    out
}
