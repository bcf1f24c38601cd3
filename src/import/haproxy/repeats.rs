//! RL002 for a retry setting that one HAProxy section writes twice (`retries`,
//! `retry-on`, `timeout <name>`, `mode`): HAProxy keeps the last line without a
//! word, so the first is dead text that a reader takes for the setting.

use super::reader::{Config, Line};
use crate::diagnostic::Diagnostic;
use crate::source::rl002_duplicate_key;
use std::collections::HashMap;
use std::ops::Range;

/// RL002 at every repeat of a retry setting within one section (the earlier line
/// labelled), in file order.
pub fn check(config: &Config<'_>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for section in &config.sections {
        let mut seen: HashMap<String, &Line<'_>> = HashMap::new();
        for line in &section.lines {
            let Some(key) = setting(line) else { continue };
            match seen.get(&key) {
                Some(first) => out.push(rl002_duplicate_key::repeated(
                    &config.doc.file,
                    &key,
                    span(first),
                    span(line),
                    "HAProxy keeps the last line, so the first is ignored.",
                )),
                None => {
                    seen.insert(key, line);
                }
            }
        }
    }
    out
}

/// The setting a line writes, when it is one whose repeat overrides.
fn setting(line: &Line<'_>) -> Option<String> {
    match line.keyword.text.as_ref() {
        k @ ("retries" | "retry-on" | "mode") => Some(k.to_string()),
        "timeout" => line.args.first().map(|a| format!("timeout {}", a.text)),
        _ => None,
    }
}

/// The line from its keyword to its last word.
fn span(line: &Line<'_>) -> Range<usize> {
    let end = line.args.last().unwrap_or(&line.keyword).span().end;
    line.keyword.span().start..end
}
