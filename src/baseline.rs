//! Baselines: `--write-baseline FILE` records the current findings; `--baseline FILE`
//! reports only findings that are not in it.
//!
//! A finding is keyed by rule, file (relative to the project root) and the JSON
//! Pointer of its primary node, never by line, so edits that move lines do not make
//! old findings new. Each key keeps a count: a baseline with two RL201 at one node
//! absorbs two, and a third is new.

use crate::diagnostic::Diagnostic;
use crate::report::root_relative;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The file format version.
pub const VERSION: u32 = 1;

/// One key and how many findings it had.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Entry {
    /// Rule code.
    pub rule: String,
    /// Path relative to the project root, `/`-separated.
    pub path: String,
    /// JSON Pointer of the primary node.
    pub pointer: String,
    /// Findings with this key.
    pub count: usize,
}

/// A baseline file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Baseline {
    /// Format version (1).
    pub version: u32,
    /// Entries, sorted.
    pub findings: Vec<Entry>,
}

fn key(d: &Diagnostic, root: &Path) -> (String, String, String) {
    (
        d.code.to_string(),
        root_relative(&d.primary.location, root),
        d.primary.location.pointer.clone(),
    )
}

/// The baseline of `diags`.
pub fn of(diags: &[Diagnostic], root: &Path) -> Baseline {
    let mut counts: BTreeMap<(String, String, String), usize> = BTreeMap::new();
    for d in diags {
        *counts.entry(key(d, root)).or_default() += 1;
    }
    Baseline {
        version: VERSION,
        findings: counts
            .into_iter()
            .map(|((rule, path, pointer), count)| Entry {
                rule,
                path,
                pointer,
                count,
            })
            .collect(),
    }
}

/// Renders a baseline as pretty JSON.
pub fn render(b: &Baseline) -> String {
    let mut s = serde_json::to_string_pretty(b).expect("serialisable");
    s.push('\n');
    s
}

/// Reads a baseline file.
pub fn read(path: &Path) -> Result<Baseline, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let b: Baseline =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    if b.version != VERSION {
        return Err(format!(
            "{}: baseline version {} is not supported (expected {VERSION})",
            path.display(),
            b.version
        ));
    }
    Ok(b)
}

/// Keeps the findings the baseline does not account for (in order).
pub fn filter_new(diags: Vec<Diagnostic>, baseline: &Baseline, root: &Path) -> Vec<Diagnostic> {
    let mut left: BTreeMap<(String, String, String), usize> = baseline
        .findings
        .iter()
        .map(|e| ((e.rule.clone(), e.path.clone(), e.pointer.clone()), e.count))
        .collect();
    diags
        .into_iter()
        .filter(|d| match left.get_mut(&key(d, root)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .collect()
}
