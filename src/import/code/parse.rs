//! Parsing one source file with its tree-sitter grammar, bounded: a file above
//! [`MAX_SOURCE_BYTES`] or one whose parse runs past [`PARSE_BUDGET`] is skipped
//! with a note (generated code, minified bundles), never a finding: source code is
//! not a spec, so it gets no RL001.

use super::language::Language;
use std::time::{Duration, Instant};

/// Larger source files are skipped (generated clients and bundles; 1 MiB).
pub const MAX_SOURCE_BYTES: usize = 1 << 20;

/// The most time one file's parse may take (2 s).
pub const PARSE_BUDGET: Duration = Duration::from_secs(2);

/// A parsed file, or why it was skipped.
pub enum Parsed {
    /// The syntax tree (it may hold error nodes: tree-sitter recovers, and the
    /// extractors read what parsed).
    Tree(tree_sitter::Tree),
    /// Skipped: the note says why ("too large", "no grammar in this build").
    Skipped(String),
}

/// Parses `text` as `language`.
pub fn parse(language: Language, text: &str) -> Parsed {
    if text.len() > MAX_SOURCE_BYTES {
        return Parsed::Skipped(format!(
            "{} bytes of {} is above the {} byte limit for source files (generated code?)",
            text.len(),
            language.name(),
            MAX_SOURCE_BYTES
        ));
    }
    let Some(grammar) = language.grammar() else {
        return Parsed::Skipped(format!(
            "this build has no {} grammar (cargo feature `{}`)",
            language.name(),
            language.feature()
        ));
    };
    let mut parser = tree_sitter::Parser::new();
    if parser.set_language(&grammar).is_err() {
        return Parsed::Skipped(format!(
            "the {} grammar does not match this tree-sitter version",
            language.name()
        ));
    }
    let start = Instant::now();
    // Returning true from the progress callback halts the parse. The clock is read
    // every 4096 calls: the callback runs very often.
    let mut calls: u32 = 0;
    let mut over_budget = |_: &tree_sitter::ParseState| {
        calls = calls.wrapping_add(1);
        calls.is_multiple_of(4096) && start.elapsed() > PARSE_BUDGET
    };
    let bytes = text.as_bytes();
    let tree = parser.parse_with_options(
        &mut |offset: usize, _| bytes.get(offset..).unwrap_or_default(),
        None,
        Some(tree_sitter::ParseOptions::new().progress_callback(&mut over_budget)),
    );
    match tree {
        Some(tree) => Parsed::Tree(tree),
        None => Parsed::Skipped(format!(
            "parsing took longer than {} s",
            PARSE_BUDGET.as_secs()
        )),
    }
}

/// The text of `node` in `text` (empty when the range is not on a character
/// boundary, which tree-sitter never produces for valid UTF-8).
pub fn node_text<'t>(node: tree_sitter::Node<'_>, text: &'t str) -> &'t str {
    text.get(node.byte_range()).unwrap_or("")
}
