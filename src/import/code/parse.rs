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

/// Comments inside expressions (`f(/* instance */ x, y)`, a comment in an object
/// literal) are named nodes in tree-sitter's trees, so an extractor reading "the
/// first argument" would read the comment. Returns the text with those comments
/// blanked (each byte but line breaks a space: every offset, line and column is
/// kept), or `None` when no comment sits inside an expression. Comments between
/// statements are left: extractors match statements by kind.
pub fn blank_inner_comments(tree: &tree_sitter::Tree, text: &str) -> Option<String> {
    // Parents whose children are statements or declarations.
    const CONTAINERS: &[&str] = &[
        "module",
        "program",
        "source_file",
        "compilation_unit",
        "block",
        "statement_block",
        "class_body",
        "interface_body",
        "enum_body",
        "declaration_list",
        "field_declaration_list",
        "namespace_declaration",
        "file_scoped_namespace_declaration",
        "class_declaration",
        "interface_declaration",
        "switch_body",
        "import_spec_list",
    ];
    // Every file is walked whole, so kinds are told by id (no string per node).
    let language = tree.language();
    let is_comment: Vec<bool> = (0..language.node_kind_count())
        .map(|id| {
            u16::try_from(id)
                .ok()
                .and_then(|id| language.node_kind_for_id(id))
                .is_some_and(|kind| kind.contains("comment"))
        })
        .collect();
    let mut spans: Vec<std::ops::Range<usize>> = Vec::new();
    for_each_named_node(tree, |node| {
        if !is_comment
            .get(usize::from(node.kind_id()))
            .copied()
            .unwrap_or(false)
        {
            return true;
        }
        let inner = node
            .parent()
            .is_some_and(|p| !CONTAINERS.contains(&p.kind()));
        if inner {
            spans.push(node.byte_range());
        }
        false
    });
    if spans.is_empty() {
        return None;
    }
    let mut bytes = text.as_bytes().to_vec();
    for r in spans {
        for b in bytes.get_mut(r)?.iter_mut() {
            if *b != b'\n' && *b != b'\r' {
                *b = b' ';
            }
        }
    }
    // Only ASCII bytes of whole comments were replaced by ASCII spaces... except
    // inside multi-byte characters of a comment, which become spaces too: still
    // UTF-8, since every byte of those characters is replaced.
    String::from_utf8(bytes).ok()
}

/// Visits the root of `tree` and its named descendants in document order, with
/// one cursor (no allocation per node); `visit` returns whether to go into the
/// node's named children.
pub fn for_each_named_node<'t>(
    tree: &'t tree_sitter::Tree,
    mut visit: impl FnMut(tree_sitter::Node<'t>) -> bool,
) {
    let mut cursor = tree.walk();
    let mut descend = visit(cursor.node());
    loop {
        if descend && first_named_child(&mut cursor) {
            descend = visit(cursor.node());
            continue;
        }
        // The next named node after this one's subtree: a sibling, or one of an
        // ancestor's.
        loop {
            if next_named_sibling(&mut cursor) {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
        descend = visit(cursor.node());
    }
}

/// Moves `cursor` to its node's first named child; stays (false) when there is none.
fn first_named_child(cursor: &mut tree_sitter::TreeCursor<'_>) -> bool {
    if !cursor.goto_first_child() {
        return false;
    }
    if cursor.node().is_named() || next_named_sibling(cursor) {
        return true;
    }
    cursor.goto_parent();
    false
}

/// Moves `cursor` to the next named sibling of its node; false when there is none
/// (the cursor is then on the last sibling: the caller goes up to the parent).
fn next_named_sibling(cursor: &mut tree_sitter::TreeCursor<'_>) -> bool {
    while cursor.goto_next_sibling() {
        if cursor.node().is_named() {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(language: Language, text: &str) -> tree_sitter::Tree {
        match parse(language, text) {
            Parsed::Tree(t) => t,
            Parsed::Skipped(why) => panic!("{why}"),
        }
    }

    #[test]
    fn comments_inside_calls_are_blanked_with_offsets_kept() {
        let text = "axiosRetry(client /* instance */, { retries: 0, // none\n});\n// top\n";
        let blanked = blank_inner_comments(&tree(Language::TypeScript, text), text).unwrap();
        assert_eq!(blanked.len(), text.len());
        assert_eq!(
            blanked,
            "axiosRetry(client               , { retries: 0,        \n});\n// top\n"
        );
    }

    #[test]
    fn statement_level_comments_need_no_second_parse() {
        let text = "# a comment\nx = Retry(total=3)\n";
        assert!(blank_inner_comments(&tree(Language::Python, text), text).is_none());
    }
}
