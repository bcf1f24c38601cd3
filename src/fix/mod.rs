//! Fixes: what a rule proposes to change so that its finding goes away, as text
//! edits at byte spans of one or more files (the trees carry byte offsets), never a
//! re-serialised document, so comments, key order, quoting, indentation and
//! flow/block style stay as written.
//!
//! A rule computes the fix of its own finding (`fix` in the rule's file, listed in
//! `rules::REGISTRY`); `check --fix`/`--diff` (`check::fix`) and the language
//! server's code actions both take it from there. This module holds the shapes,
//! applying edits to a text ([`apply`]), choosing edits that do not overlap
//! ([`Batch`]) and the unified diff ([`diff::unified`]).

pub mod diff;
pub mod text;

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Whether applying a fix can change which requests are sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Safety {
    /// Cannot change which requests are sent (adding jitter, capping a
    /// `Retry-After` wait, a deadline the layer already implies, documenting a
    /// header): applied by `check --fix`.
    Safe,
    /// Changes behaviour or the API (narrowing retry conditions, turning a retry
    /// off for a method, requiring a new header): applied only with
    /// `--unsafe-fixes`.
    Unsafe,
}

impl Safety {
    /// `safe` or `unsafe`, as rule pages and `retrylint rules` write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Safety::Safe => "safe",
            Safety::Unsafe => "unsafe",
        }
    }
}

/// One text edit: replace the bytes `span` of the file `path` by `text` (an
/// insertion when `span` is empty).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Edit {
    /// The file, as the finding names it.
    pub path: PathBuf,
    /// Byte span in the file's text, end exclusive.
    pub span: Range<usize>,
    /// The replacement text.
    pub text: String,
}

/// The fix of one finding: a one-line title, its safety and its edits (at least
/// one; several files when the finding's node is shared through a `$ref`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    /// What it changes, imperative, identifiers in backticks
    /// ("Add `jitter: full` to the backoff").
    pub title: String,
    /// Safe or unsafe.
    pub safety: Safety,
    /// The edits, in no particular order.
    pub edits: Vec<Edit>,
}

impl Fix {
    /// A fix of `safety` made of `edits`; `None` when there is no edit.
    pub fn new(title: impl Into<String>, safety: Safety, edits: Vec<Edit>) -> Option<Fix> {
        (!edits.is_empty()).then(|| Fix {
            title: title.into(),
            safety,
            edits,
        })
    }

    /// A fix of one edit in `path`.
    pub fn one(
        title: impl Into<String>,
        safety: Safety,
        path: &Path,
        (span, text): text::Edit,
    ) -> Fix {
        Fix {
            title: title.into(),
            safety,
            edits: vec![Edit {
                path: path.to_path_buf(),
                span,
                text,
            }],
        }
    }
}

/// Where a fix reads the text of a file: the disk for `check --fix`, the editor's
/// buffers for the language server. `None`: the file cannot be read.
pub trait Texts {
    /// The current text of `path`.
    fn text(&self, path: &Path) -> Option<Arc<str>>;
}

impl<F: Fn(&Path) -> Option<Arc<str>>> Texts for F {
    fn text(&self, path: &Path) -> Option<Arc<str>> {
        self(path)
    }
}

/// A fix function: the edits that make one finding of its rule go away, computed
/// from the finding and the current text of its files (`texts`); `None` when the rule
/// cannot fix this finding (the file is not of a kind it edits, a value it needs is
/// not written).
pub type FixFn = fn(&crate::diagnostic::Diagnostic, &dyn Texts) -> Option<Fix>;

/// What a rule's fix is (its entry in `rules::REGISTRY`): its class, one line on
/// what it changes (the rule page's "Fix" line), and the function, in the rule's
/// own file.
pub struct RuleFix {
    /// Safe or unsafe.
    pub safety: Safety,
    /// What it changes, e.g. "sets `jitter: full` in the policy's `backoff`".
    pub changes: &'static str,
    /// Computes the fix of one finding.
    pub apply: FixFn,
}

/// `text` with `edits` applied (byte spans into `text`, none overlapping another;
/// insertions at the same offset keep their order). `None` when an edit's span
/// lies outside `text`, is not on character boundaries, or overlaps another.
pub fn apply(text: &str, edits: &[(Range<usize>, String)]) -> Option<String> {
    let mut sorted: Vec<&(Range<usize>, String)> = edits.iter().collect();
    sorted.sort_by_key(|(span, _)| (span.start, span.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (span, new) in sorted {
        if span.start < at
            || span.end < span.start
            || !text.is_char_boundary(span.start)
            || !text.is_char_boundary(span.end)
            || span.end > text.len()
        {
            return None;
        }
        out.push_str(&text[at..span.start]);
        out.push_str(new);
        at = span.end;
    }
    out.push_str(&text[at..]);
    Some(out)
}

/// Fixes chosen for one pass: each fix is taken whole or not at all, and one whose
/// edits overlap (or touch at the same offset) an edit already taken waits for the
/// next pass, after the files are re-checked (as ruff does).
#[derive(Debug, Default)]
pub struct Batch {
    /// Edits taken, by file.
    pub edits: BTreeMap<PathBuf, Vec<(Range<usize>, String)>>,
    /// Titles of the fixes taken, in order.
    pub titles: Vec<String>,
    /// Fixes left for the next pass (they overlapped one taken).
    pub deferred: usize,
}

impl Batch {
    /// Takes `fix` unless it overlaps an edit already taken (or repeats one: two
    /// findings with the same fix, e.g. a shared component, take it once).
    /// Returns whether it was taken or was already there.
    pub fn take(&mut self, fix: &Fix) -> bool {
        let already = fix.edits.iter().all(|e| {
            self.edits
                .get(&e.path)
                .is_some_and(|v| v.iter().any(|(s, t)| *s == e.span && *t == e.text))
        });
        if already {
            return true;
        }
        let clashes = fix.edits.iter().any(|e| {
            self.edits
                .get(&e.path)
                .is_some_and(|v| v.iter().any(|(s, _)| overlaps(s, &e.span)))
        });
        let clashes_itself = fix.edits.iter().enumerate().any(|(i, a)| {
            fix.edits[i + 1..]
                .iter()
                .any(|b| a.path == b.path && overlaps(&a.span, &b.span))
        });
        if clashes || clashes_itself {
            self.deferred += 1;
            return false;
        }
        for e in &fix.edits {
            self.edits
                .entry(e.path.clone())
                .or_default()
                .push((e.span.clone(), e.text.clone()));
        }
        self.titles.push(fix.title.clone());
        true
    }

    /// True when nothing was taken.
    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }
}

/// Two spans that overlap, or two edits at the same offset (whose order would be a
/// guess).
fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    (a.start < b.end && b.start < a.end) || a.start == b.start
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fix(path: &str, span: Range<usize>, text: &str) -> Fix {
        Fix::one("t", Safety::Safe, Path::new(path), (span, text.to_string()))
    }

    #[test]
    fn edits_apply_from_the_end_and_keep_what_is_between() {
        let text = "a: 1\nb: 2\n";
        let out = apply(text, &[(8..9, "3".into()), (0..0, "# c\n".into())]).unwrap();
        assert_eq!(out, "# c\na: 1\nb: 3\n");
        assert_eq!(apply(text, &[(0..2, "x".into()), (1..3, "y".into())]), None);
        assert_eq!(apply(text, &[(9..20, "x".into())]), None);
    }

    #[test]
    fn an_overlapping_fix_waits_and_a_repeated_one_is_taken_once() {
        let mut batch = Batch::default();
        assert!(batch.take(&fix("a.yaml", 0..4, "x")));
        assert!(!batch.take(&fix("a.yaml", 2..6, "y")));
        assert!(!batch.take(&fix("a.yaml", 0..0, "z")));
        assert!(batch.take(&fix("a.yaml", 0..4, "x")));
        assert!(batch.take(&fix("b.yaml", 2..6, "y")));
        assert_eq!(batch.deferred, 2);
        assert_eq!(batch.titles.len(), 2);
        assert_eq!(batch.edits[Path::new("a.yaml")].len(), 1);
    }
}
