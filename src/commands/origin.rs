//! Where a value a command prints came from: its `file:line:col` and the
//! platform-default notes attached to its node (`import`'s comments and footnotes).

use crate::import::OriginNote;
use crate::source::refs::At;

/// `file:line:col` of the key (or value) a node stands for, the path as the run
/// displays it (relative to the current directory).
pub fn position(at: &At) -> String {
    let l = at.location();
    let lc = l.file.line_col(l.span.start);
    format!("{}:{}:{}", l.file.display, lc.line, lc.column)
}

/// The notes at the node `at` stands for (same file, same span).
pub fn notes_at<'n>(at: &At, notes: &'n [OriginNote]) -> Vec<&'n OriginNote> {
    // Compared by file and span only: a location's JSON Pointer is costly, and this
    // runs for every value of every layer (240 callers of one operation in `layers`).
    let span = |a: &At| match a.tree() {
        Some(t) => t.label_span(a.node),
        None => a.location().span,
    };
    let l = span(at);
    notes
        .iter()
        .filter(|n| n.at.doc.file.path == at.doc.file.path && span(&n.at) == l)
        .collect()
}
