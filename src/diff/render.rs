//! The outputs of `retrylint diff`: human (annotated), JSON (versioned), Markdown (a
//! pull-request comment) and GitHub workflow commands. SARIF (new findings only) is
//! `report::sarif` itself.

use super::compare::{Change, SideName, REGRESSIONS};
use super::Diff;
use crate::diagnostic::Diagnostic;
use crate::report::controls::escape;
use crate::report::human::HumanOptions;
use std::fmt::Write as _;
use std::path::Path;

/// GitHub's limit on the body of a pull-request comment, in characters.
pub const COMMENT_LIMIT: usize = 65_536;

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// `2 regressions, 1 improvement; findings: 1 new, 0 fixed`.
pub fn summary(diff: &Diff) -> String {
    format!(
        "{}, {}; findings: {} new, {} fixed",
        plural(diff.changes.regressions.len(), "regression"),
        plural(diff.changes.improvements.len(), "improvement"),
        diff.new_findings.len(),
        diff.fixed_findings.len()
    )
}

fn operation_name(c: &Change) -> String {
    match &c.operation_id {
        Some(id) => format!("{} ({id})", c.operation),
        None => c.operation.clone(),
    }
}

/// The regressions grouped by one change at one place: same kind, layer, values and
/// position; groups in order of first appearance, each in order.
fn same_change(changes: &[Change]) -> Vec<Vec<&Change>> {
    let keys: Vec<String> = changes
        .iter()
        .map(|c| {
            format!(
                "{}\u{0}{:?}\u{0}{}\u{0}{}\u{0}{}\u{0}{}\u{0}{}",
                c.kind, c.layer, c.base, c.head, c.at.file, c.at.line, c.at.column
            )
        })
        .collect();
    crate::import::grouped::by_first_appearance(&keys, String::as_str)
        .into_iter()
        .map(|g| g.into_iter().map(|i| &changes[i]).collect())
        .collect()
}

/// What a kind of change means ([`super::compare::REGRESSIONS`]), for a grouped row.
fn meaning(kind: &str) -> &'static str {
    super::compare::REGRESSIONS
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or("", |(_, m)| m)
}

fn layer_part(c: &Change) -> String {
    c.layer
        .as_ref()
        .map(|l| format!(" [{l} layer]"))
        .unwrap_or_default()
}

/// A finding's one-line form: `RL201 unprotected-retry at file:3:5: message`.
fn finding_line(d: &Diagnostic, shown: &str) -> String {
    let at = d
        .primary
        .location
        .file
        .line_col(d.primary.location.span.start);
    format!(
        "{} {} at {}:{}:{}: {}",
        d.code,
        d.name,
        escape(shown),
        at.line,
        at.column,
        escape(&d.message)
    )
}

/// The human report: each regression with its source line, the improvements, the new
/// findings as `check` shows them, the fixed ones, and the summary.
pub fn human(diff: &Diff, options: HumanOptions) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "retrylint diff {} -> {}\n",
        escape(&diff.base_label),
        escape(&diff.head_label)
    );
    if !diff.changes.regressions.is_empty() {
        out.push_str("regressions:\n\n");
    }
    for c in &diff.changes.regressions {
        let _ = writeln!(
            out,
            "regression {}: {}{}\n  {}",
            c.kind,
            escape(&operation_name(c)),
            layer_part(c),
            escape(&c.message)
        );
        let _ = writeln!(out, "  base: {}", escape(&c.base));
        let _ = writeln!(out, "  head: {}", escape(&c.head));
        let gutter = c.at.line.to_string().len();
        let pad = " ".repeat(gutter);
        let _ = writeln!(
            out,
            "  {pad}--> {}:{}:{} ({})",
            escape(&c.at.file),
            c.at.line,
            c.at.column,
            match c.side {
                super::compare::SideName::Base => "base",
                super::compare::SideName::Head => "head",
            }
        );
        let _ = writeln!(out, "  {pad} |");
        let _ = writeln!(out, "  {} | {}", c.at.line, escape(&c.at.excerpt));
        let caret = " ".repeat(c.at.column.saturating_sub(1) as usize);
        let _ = writeln!(out, "  {pad} | {caret}^\n");
    }
    if !diff.changes.improvements.is_empty() {
        out.push_str("improvements:\n");
        for c in &diff.changes.improvements {
            let _ = writeln!(
                out,
                "  {}: {}{}: {} -> {} ({}:{}:{})",
                c.kind,
                escape(&operation_name(c)),
                layer_part(c),
                escape(&c.base),
                escape(&c.head),
                escape(&c.at.file),
                c.at.line,
                c.at.column
            );
        }
        out.push('\n');
    }
    for (title, ops) in [
        ("operations added", &diff.changes.added),
        ("operations removed", &diff.changes.removed),
    ] {
        if !ops.is_empty() {
            let shown: Vec<String> = ops.iter().map(|o| escape(o).into_owned()).collect();
            let _ = writeln!(out, "{title}: {}\n", shown.join(", "));
        }
    }
    if !diff.new_findings.is_empty() {
        out.push_str("new findings:\n\n");
        out.push_str(&crate::report::human::render(&diff.new_findings, options));
    }
    if !diff.fixed_findings.is_empty() {
        out.push_str("fixed findings:\n");
        for d in &diff.fixed_findings {
            let shown = diff.base_naming.shown(&d.primary.location.file);
            let _ = writeln!(out, "  {}", finding_line(d, &shown));
        }
        out.push('\n');
    }
    let _ = writeln!(out, "{}", summary(diff));
    out
}

/// The JSON report: `{"version": 1, "base", "head", "summary", "regressions",
/// "improvements", "operations_added", "operations_removed", "new_findings",
/// "fixed_findings"}`; findings have the shape of `check --format json`'s
/// diagnostics (BASE's paths as `REF:path` for a git revision).
pub fn json(diff: &Diff) -> String {
    let mut fixed =
        serde_json::to_value(crate::report::json::report(&diff.fixed_findings).diagnostics)
            .unwrap_or_default();
    if let (Some(rev), Some(list)) = (&diff.base_naming.revision, fixed.as_array_mut()) {
        for (d, diag) in list.iter_mut().zip(&diff.fixed_findings) {
            if let Some(loc) = d.get_mut("location") {
                loc["path"] = serde_json::Value::String(format!(
                    "{rev}:{}",
                    diff.base_naming.relative(&diag.primary.location.file)
                ));
            }
        }
    }
    let value = serde_json::json!({
        "version": super::VERSION,
        "base": diff.base_label,
        "head": diff.head_label,
        "summary": {
            "regressions": diff.changes.regressions.len(),
            "improvements": diff.changes.improvements.len(),
            "new_findings": diff.new_findings.len(),
            "fixed_findings": diff.fixed_findings.len(),
            "operations": diff.operations,
        },
        "regressions": diff.changes.regressions,
        "improvements": diff.changes.improvements,
        "operations_added": diff.changes.added,
        "operations_removed": diff.changes.removed,
        "new_findings": crate::report::json::report(&diff.new_findings).diagnostics,
        "fixed_findings": fixed,
    });
    let mut s = serde_json::to_string_pretty(&value).expect("serialisable");
    s.push('\n');
    s
}

/// Text for a Markdown table cell or list item: ASCII punctuation Markdown reads
/// (and `|`) backslash-escaped, line breaks as spaces, controls escaped.
pub fn md(s: &str) -> String {
    let s = escape(s);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '#' | '!' | '~' | '&' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

/// Appends `part` unless the text would pass `limit` (counting what must follow);
/// returns false when it did not fit.
fn fits(out: &mut String, part: &str, limit: usize) -> bool {
    if out.chars().count() + part.chars().count() > limit {
        return false;
    }
    out.push_str(part);
    true
}

/// The Markdown pull-request comment: a verdict line, a table of regressions, and
/// `<details>` for the new and fixed findings and the improvements; within
/// [`COMMENT_LIMIT`] characters (what does not fit is counted, never cut mid-row).
pub fn markdown(diff: &Diff, fails: bool) -> String {
    // Room kept for the closing lines and the truncation notes.
    let limit = COMMENT_LIMIT - 1_000;
    let regressions = &diff.changes.regressions;
    let mark = if fails { "❌" } else { "✅" };
    let mut out = format!("### {mark} retrylint diff: {}\n\n", md(&summary(diff)));
    let _ = writeln!(
        out,
        "Compared {} with {}: {} in HEAD.\n",
        md(&diff.base_label),
        md(&diff.head_label),
        plural(diff.operations, "operation")
    );
    let mut omitted = 0;
    if !regressions.is_empty() {
        out.push_str("| Operation | Regression | Base | Head | Where |\n|---|---|---|---|---|\n");
        // One change at one place (a policy's `defaults`, a shared route) that
        // regresses many operations is one row with a count, not a row each.
        for group in same_change(regressions) {
            let c = group[0];
            let operations = match group.len() {
                1 => operation_name(c),
                n => {
                    let shown: Vec<String> =
                        group.iter().take(3).map(|c| operation_name(c)).collect();
                    let rest = n - shown.len();
                    let more = if rest > 0 {
                        format!(" and {rest} more")
                    } else {
                        String::new()
                    };
                    format!("{}{more} ({n} operations)", shown.join(", "))
                }
            };
            let message = if group.len() == 1 {
                c.message.clone()
            } else {
                meaning(c.kind).to_string()
            };
            let row = format!(
                "| {}{} | **{}**: {} | {} | {} | {}:{} |\n",
                md(&operations),
                md(&layer_part(c)),
                c.kind,
                md(&message),
                md(&c.base),
                md(&c.head),
                md(&c.at.file),
                c.at.line
            );
            if omitted > 0 || !fits(&mut out, &row, limit) {
                omitted += 1;
            }
        }
        if omitted > 0 {
            let _ = writeln!(
                out,
                "\n… and {} more (the comment limit is {COMMENT_LIMIT} characters; `--format json` lists every one)",
                plural(omitted, "regression")
            );
        }
        out.push('\n');
    }
    let new: Vec<String> = diff
        .new_findings
        .iter()
        .map(|d| {
            format!(
                "- **{}** `{}` ({}) {}",
                d.code,
                d.name,
                d.severity.as_str(),
                md(&finding_line_tail(d, &d.primary.location.file.display))
            )
        })
        .collect();
    let fixed: Vec<String> = diff
        .fixed_findings
        .iter()
        .map(|d| {
            let shown = diff.base_naming.shown(&d.primary.location.file);
            format!(
                "- **{}** `{}` {}",
                d.code,
                d.name,
                md(&finding_line_tail(d, &shown))
            )
        })
        .collect();
    let improved: Vec<String> = diff
        .changes
        .improvements
        .iter()
        .map(|c| {
            format!(
                "- {}{}: **{}**: {} → {}",
                md(&operation_name(c)),
                md(&layer_part(c)),
                c.kind,
                md(&c.base),
                md(&c.head)
            )
        })
        .collect();
    for (title, items) in [
        ("New findings", new),
        ("Fixed findings", fixed),
        ("Improvements", improved),
    ] {
        if items.is_empty() {
            continue;
        }
        let head = format!("<details><summary>{title} ({})</summary>\n\n", items.len());
        if !fits(&mut out, &head, limit) {
            // The reserve below the limit keeps room for this line.
            let _ = writeln!(out, "{title}: {} not shown (comment limit)\n", items.len());
            continue;
        }
        let mut left = 0;
        for item in &items {
            if left > 0 || !fits(&mut out, &format!("{item}\n"), limit) {
                left += 1;
            }
        }
        if left > 0 {
            let _ = writeln!(out, "\n… and {left} more");
        }
        out.push_str("\n</details>\n\n");
    }
    out.push_str("<sub>Regression kinds: ");
    let kinds: Vec<&str> = REGRESSIONS.iter().map(|(k, _)| *k).collect();
    let legend = format!("{}.</sub>\n", kinds.join(", "));
    if !fits(&mut out, &legend, COMMENT_LIMIT) {
        out.push_str("…</sub>\n");
    }
    out
}

/// `at file:3:5: message`.
fn finding_line_tail(d: &Diagnostic, shown: &str) -> String {
    let at = d
        .primary
        .location
        .file
        .line_col(d.primary.location.span.start);
    format!("at {shown}:{}:{}: {}", at.line, at.column, d.message)
}

/// GitHub workflow commands: one per regression (`error` when regressions fail the
/// run, else `warning`), then the new findings as `check --format github` writes
/// them. Paths are relative to `base` (`GITHUB_WORKSPACE`, else HEAD's root).
pub fn github(diff: &Diff, base: &Path, regressions_fail: bool) -> String {
    use crate::report::github::{escape_data, escape_property};
    let mut out = String::new();
    let command = if regressions_fail { "error" } else { "warning" };
    for c in &diff.changes.regressions {
        let abs = diff.head_naming.root.join(&c.at.path);
        let path = abs
            .strip_prefix(base)
            .map(|p| {
                p.components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/")
            })
            .unwrap_or_else(|_| c.at.path.clone());
        // A workflow command can only point into the checked-out (HEAD) files: a
        // removal's position is in BASE, so it annotates the file as a whole and names
        // the BASE line in the message (BASE's line number would mark an unrelated
        // HEAD line).
        let (position, removed_at) = match c.side {
            SideName::Head => (
                format!(",line={},col={}", c.at.line, c.at.column),
                String::new(),
            ),
            SideName::Base => (
                String::new(),
                format!(" [was at {}:{}:{}]", c.at.file, c.at.line, c.at.column),
            ),
        };
        let _ = writeln!(
            out,
            "::{command} file={}{position},title={}::{}",
            escape_property(&path),
            escape_property(&format!("retrylint diff {}", c.kind)),
            escape_data(&format!(
                "{}{}: {} (base: {}; head: {}){removed_at}",
                operation_name(c),
                layer_part(c),
                c.message,
                c.base,
                c.head
            ))
        );
    }
    out.push_str(&crate::report::github::render(&diff.new_findings, base));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::compare::{Change, Changes, SideName};
    use crate::diff::facts::{Naming, Pos};

    fn diff_with(regressions: usize) -> Diff {
        let naming = Naming {
            root: std::path::PathBuf::from("/project"),
            revision: None,
        };
        let change = |i: usize| Change {
            kind: "attempts-raised",
            operation: format!("POST /orders/{i}"),
            operation_id: Some(format!("createOrder{i}")),
            layer: Some("client".into()),
            message: "the client layer makes 5 attempts (was 3) | with a pipe".into(),
            base: "3".into(),
            head: "5".into(),
            side: SideName::Head,
            at: Pos {
                file: "client.retry-policy.yaml".into(),
                path: "client.retry-policy.yaml".into(),
                line: 6,
                column: 3,
                excerpt: "  attempts: 5".into(),
            },
        };
        Diff {
            base_label: "main".into(),
            head_label: "the working tree".into(),
            changes: Changes {
                regressions: (0..regressions).map(change).collect(),
                improvements: Vec::new(),
                added: Vec::new(),
                removed: Vec::new(),
            },
            new_findings: Vec::new(),
            fixed_findings: Vec::new(),
            base_naming: naming.clone(),
            head_naming: naming,
            base_unreadable: false,
            head_unreadable: false,
            operations: regressions,
            inputs: Vec::new(),
        }
    }

    #[test]
    fn a_long_comment_stops_at_whole_rows_within_the_limit_and_counts_the_rest() {
        let text = markdown(&diff_with(5_000), true);
        assert!(text.chars().count() <= COMMENT_LIMIT, "{}", text.len());
        let rows = text.lines().filter(|l| l.starts_with("| POST")).count();
        assert!(rows > 100 && rows < 5_000, "{rows}");
        assert!(
            text.contains(&format!(
                "… and {} more",
                plural(5_000 - rows, "regression")
            )),
            "no count of the rest"
        );
        // Every row kept is whole: five cells (the message's `|` is escaped).
        for l in text.lines().filter(|l| l.starts_with("| POST")) {
            assert_eq!(l.matches(" | ").count(), 4, "{l}");
        }
    }

    #[test]
    fn a_short_comment_is_not_truncated() {
        let text = markdown(&diff_with(3), true);
        assert_eq!(text.lines().filter(|l| l.starts_with("| POST")).count(), 3);
        assert!(!text.contains("more (the comment limit"));
        assert!(text.starts_with("### ❌ retrylint diff: 3 regressions"));
    }

    #[test]
    fn markdown_text_is_escaped() {
        assert_eq!(md("a|b <x> *y*\nz"), "a\\|b \\<x\\> \\*y\\* z");
    }
}
