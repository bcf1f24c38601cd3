//! `--format markdown`: a pull-request comment in GitHub-flavoured Markdown. A short
//! verdict line, a table of the findings (most severe first), and a collapsed
//! `<details>` block with each finding's help. The whole comment stays within
//! GitHub's comment limit ([`COMMENT_LIMIT`]): rows that do not fit are counted
//! (`… and 123 more findings`), never cut in the middle.
//!
//! Every string from an input (paths, messages, operation names) goes through
//! [`escape`], so a spec cannot break the table or inject HTML into the comment.

use super::{controls, root_relative, summary_line};
use crate::diagnostic::{Diagnostic, Severity};
use std::path::Path;

/// GitHub's limit on an issue or pull-request comment body: 65,536 characters. The
/// emitters count bytes, which are never fewer than characters.
pub const COMMENT_LIMIT: usize = 65_536;

/// Room kept free for what closes the comment (the truncation note, `</details>`).
const RESERVE: usize = 400;

/// Escapes text for a table cell or a line of Markdown: control characters as
/// [`controls::escape`] writes them, line breaks as spaces, `&`, `<`, `>` as HTML
/// entities (no tag can open), and every other ASCII punctuation that Markdown reads
/// inline (`|`, `` ` ``, `*`, `_`, `[`, `]`, `\`, `#`, `~`, `!`, and `$`, GitHub's
/// math) behind a backslash, so it shows as itself. Text is never at the start of a
/// line, so list and heading markers need no escape.
pub fn escape(s: &str) -> String {
    let flat: String = s
        .chars()
        .map(|c| {
            if matches!(c, '\n' | '\r' | '\t') {
                ' '
            } else {
                c
            }
        })
        .collect();
    let mut out = String::with_capacity(flat.len());
    for c in controls::escape(&flat).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '#' | '~' | '!' | '$' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// Text in monospace for a cell: `<code>` around [`escape`]d text (a code span
/// would end at a backtick in the text; escapes do not apply inside one).
pub fn code(s: &str) -> String {
    format!("<code>{}</code>", escape(s))
}

/// A message or help sentence: its backticked identifiers (the house style of
/// messages) in `<code>`, the rest [`escape`]d. Text with an odd number of
/// backticks is escaped whole.
pub fn prose(s: &str) -> String {
    let parts: Vec<&str> = s.split('`').collect();
    if parts.len().is_multiple_of(2) {
        return escape(s);
    }
    parts
        .iter()
        .enumerate()
        .map(|(i, p)| if i % 2 == 1 { code(p) } else { escape(p) })
        .collect()
}

/// A Markdown text that never grows past its limit: pieces are appended whole or
/// not at all.
#[derive(Debug)]
pub struct Limited {
    text: String,
    limit: usize,
}

impl Limited {
    /// An empty text that may grow to `limit` bytes.
    pub fn new(limit: usize) -> Limited {
        Limited {
            text: String::new(),
            limit,
        }
    }

    /// Appends `piece` if it fits with `reserve` bytes left over for what must still
    /// follow; returns whether it was appended.
    pub fn push(&mut self, piece: &str, reserve: usize) -> bool {
        let fits = self.text.len() + piece.len() + reserve <= self.limit;
        if fits {
            self.text.push_str(piece);
        }
        fits
    }

    /// Appends what must be there (a closing tag, the note), cut at a character
    /// boundary if even that would pass the limit.
    pub fn push_always(&mut self, piece: &str) {
        let room = self.limit.saturating_sub(self.text.len());
        let mut end = piece.len().min(room);
        while !piece.is_char_boundary(end) {
            end -= 1;
        }
        self.text.push_str(&piece[..end]);
    }

    /// The text.
    pub fn finish(self) -> String {
        self.text
    }
}

/// `N more findings` and the like, with the noun in the plural when N is not 1.
pub fn more(n: usize, noun: &str) -> String {
    format!(
        "\n… and {} more {noun}{}\n",
        n,
        if n == 1 { "" } else { "s" }
    )
}

fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

/// Where a finding is: `path:line:col`, the path relative to `root` (the project
/// root, as in the repository the comment is on).
fn place(d: &Diagnostic, root: &Path) -> String {
    let loc = &d.primary.location;
    let at = loc.file.line_col(loc.span.start);
    format!("{}:{}:{}", root_relative(loc, root), at.line, at.column)
}

/// What the run checked, for the verdict line.
#[derive(Debug, Clone, Copy, Default)]
pub struct Checked {
    /// OpenAPI documents linted, those read from server code included.
    pub documents: usize,
    /// Of `documents`, the APIs read from server code.
    pub from_code: usize,
    /// Policy files read.
    pub policies: usize,
    /// Retry configs read.
    pub configs: usize,
    /// Paths left out because they lie outside the project root.
    pub left_out: usize,
}

/// The comment for `check --format markdown`, at most `limit` bytes (use
/// [`COMMENT_LIMIT`]); paths relative to `root`.
pub fn render(diags: &[Diagnostic], checked: Checked, root: &Path, limit: usize) -> String {
    let mut sorted: Vec<&Diagnostic> = diags.iter().collect();
    // Most severe first, so what a full comment leaves out is the least severe.
    sorted.sort_by_key(|d| std::cmp::Reverse(d.severity));
    let mut out = Limited::new(limit);
    let verdict = if diags.is_empty() {
        "no findings"
    } else if diags.iter().any(|d| d.severity == Severity::Error) {
        "errors found"
    } else {
        "findings"
    };
    out.push_always(&format!(
        "**retrylint: {verdict}**: {}\n",
        escape(&summary_line(
            diags,
            checked.documents,
            checked.from_code,
            checked.policies,
            checked.configs,
            checked.left_out,
        ))
    ));
    if sorted.is_empty() {
        return out.finish();
    }
    out.push_always("\n| severity | rule | location | finding |\n|---|---|---|---|\n");
    let mut shown = 0;
    for d in &sorted {
        let row = format!(
            "| {} | {} {} | {} | {} |\n",
            severity_word(d.severity),
            d.code,
            escape(d.name),
            code(&place(d, root)),
            prose(&super::sentence(&d.message)),
        );
        if !out.push(&row, RESERVE) {
            break;
        }
        shown += 1;
    }
    if shown < sorted.len() {
        out.push_always(&more(sorted.len() - shown, "finding"));
        out.push_always("\n`retrylint check --format json` lists them all.\n");
        return out.finish();
    }
    let helped: Vec<&&Diagnostic> = sorted.iter().filter(|d| d.help.is_some()).collect();
    if helped.is_empty() {
        return out.finish();
    }
    out.push_always(&format!(
        "\n<details><summary>How to fix ({} findings)</summary>\n\n",
        helped.len()
    ));
    let mut listed = 0;
    for d in &helped {
        let item = format!(
            "- {} {} at {}: {}\n",
            d.code,
            escape(d.name),
            code(&place(d, root)),
            prose(&super::sentence(d.help.as_deref().unwrap_or_default()))
        );
        if !out.push(&item, RESERVE) {
            break;
        }
        listed += 1;
    }
    if listed < helped.len() {
        out.push_always(&more(helped.len() - listed, "finding"));
    }
    out.push_always("\n</details>\n");
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_neutralises_tables_and_html() {
        assert_eq!(escape("a|b"), "a\\|b");
        assert_eq!(escape("<script>"), "&lt;script&gt;");
        assert_eq!(escape("`x`"), "\\`x\\`");
        assert_eq!(escape("line\nbreak"), "line break");
        assert_eq!(escape("&amp;"), "&amp;amp;");
    }

    #[test]
    fn prose_shows_identifiers_as_code_and_escapes_inside_them() {
        assert_eq!(
            prose("`POST /a|b` has no `deadline`"),
            "<code>POST /a\\|b</code> has no <code>deadline</code>"
        );
        // An odd backtick cannot pair: everything is escaped.
        assert_eq!(prose("a `b"), "a \\`b");
        assert_eq!(escape("$x$ @team"), "\\$x\\$ @team");
    }

    #[test]
    fn limited_never_passes_its_limit() {
        let mut l = Limited::new(10);
        assert!(l.push("12345", 0));
        assert!(!l.push("123456", 0));
        assert!(!l.push("1234", 2));
        l.push_always("ééééé");
        let text = l.finish();
        assert!(text.len() <= 10, "{text}");
        assert_eq!(text, "12345éé");
    }
}
