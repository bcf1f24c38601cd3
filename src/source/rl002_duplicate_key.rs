//! RL002 duplicate-key: a mapping repeats a key. Every repetition is reported, with a
//! label on the earlier occurrence; the model keeps the last occurrence. Specs,
//! policies and retry configs read from YAML or JSON use [`check_file`]; the config
//! formats read by text (TOML, Java properties, INI, proxy directives) find their
//! repeats themselves and use [`repeated`].

use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::diagnostic::RuleMeta;
use crate::diagnostic::{Location, SourceFile};
use crate::source::loader::Loaded;
use crate::source::refs::At;
use std::ops::Range;
use std::sync::Arc;

/// Rule metadata ([`catalog::DUPLICATE_KEY`]).
pub const META: RuleMeta = catalog::DUPLICATE_KEY;

/// Every repeated key of one loaded file (none when the file has no tree).
pub fn check_file(doc: &Arc<Loaded>) -> Vec<Diagnostic> {
    in_tree(doc, "only the last occurrence is used.")
}

/// Every repeated key of one loaded retry config (none when it has no tree), the
/// message ending with `effect`: what the platform does with the repeat ("the
/// Kubernetes API server rejects it ...").
pub fn check_config(doc: &Arc<Loaded>, effect: &str) -> Vec<Diagnostic> {
    in_tree(doc, effect)
}

fn in_tree(doc: &Arc<Loaded>, effect: &str) -> Vec<Diagnostic> {
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
                format!("The key `{key}` is repeated in this mapping; {effect}"),
                repeated,
                "repeated key",
            )
            .with_label(first, "first occurrence")
            .with_help("Remove or rename one of the two entries.")
        })
        .collect()
}

/// RL002 for a key (or directive) that a config format read by text repeats: `key`
/// as written, the byte spans of its first and repeated occurrence in `file`, and
/// `effect`, one sentence on what the platform does with the repeat ("Java
/// properties keep the last value.").
pub fn repeated(
    file: &Arc<SourceFile>,
    key: &str,
    first: Range<usize>,
    repeated: Range<usize>,
    effect: &str,
) -> Diagnostic {
    let at = |span: Range<usize>| Location {
        file: file.clone(),
        span,
        pointer: String::new(),
    };
    Diagnostic::new(
        &META,
        format!("`{key}` is set again here; {effect}"),
        at(repeated),
        "repeated key",
    )
    .with_label(at(first), "first occurrence")
    .with_help("Remove or rename one of the two entries.")
}
