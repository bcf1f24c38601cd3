//! RL002 duplicate-key: a mapping repeats a key. Every repetition is reported, with a
//! label on the earlier occurrence; the model keeps the last occurrence.

use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::diagnostic::RuleMeta;
use crate::source::loader::Loaded;
use crate::source::refs::At;
use std::sync::Arc;

/// Rule metadata ([`catalog::DUPLICATE_KEY`]).
pub const META: RuleMeta = catalog::DUPLICATE_KEY;

/// Every repeated key of one loaded file (none when the file has no tree).
pub fn check_file(doc: &Arc<Loaded>) -> Vec<Diagnostic> {
    let Ok(tree) = &doc.tree else {
        return Vec::new();
    };
    tree.duplicates()
        .iter()
        .map(|d| {
            let key = tree.scalar(d.repeated).unwrap_or("");
            let repeated = At::new(doc, d.repeated).value_location();
            let first = At::new(doc, d.first).value_location();
            Diagnostic::new(
                &META,
                format!("The key `{key}` is repeated in this mapping; only the last occurrence is used."),
                repeated,
                "repeated key",
            )
            .with_label(first, "first occurrence")
            .with_help("Remove or rename one of the two entries.")
        })
        .collect()
}
