//! Input kinds found in real files (issue 11, section 5): YAML streams (RL014, case
//! 33), OpenAPI 3.1 references to a schema's `$id` or `$anchor` (case 38), and
//! equivalent templated paths (RL015).

use retrylint::check::{run, CheckOptions, CheckOutcome};
use retrylint::source::tree::Tree;
use retrylint::source::SourceFile;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Checks `paths` (relative to `dir`) with `dir` as root and current directory.
fn check_in(dir: &Path, paths: &[&str]) -> CheckOutcome {
    run(&CheckOptions {
        paths: paths.iter().map(|p| dir.join(p)).collect(),
        cwd: Some(dir.to_path_buf()),
        root: Some(dir.to_path_buf()),
        ..CheckOptions::default()
    })
}

fn check_case(paths: &[&str]) -> CheckOutcome {
    check_in(&repo().join("fixtures/cases"), paths)
}

/// A scratch folder holding `files`, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str, files: &[(&str, &str)]) -> Scratch {
        let dir = std::env::temp_dir().join(format!(
            "retrylint-input-kinds-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        Scratch(dir)
    }

    fn check(&self) -> CheckOutcome {
        check_in(&self.0, &["."])
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `(code, "file:line:col")` of every finding.
fn findings(o: &CheckOutcome) -> Vec<(String, String)> {
    o.diagnostics
        .iter()
        .map(|d| {
            let l = &d.primary.location;
            let lc = l.file.line_col(l.span.start);
            (
                d.code.to_string(),
                format!("{}:{}:{}", l.file.display, lc.line, lc.column),
            )
        })
        .collect()
}

fn codes(o: &CheckOutcome) -> Vec<&'static str> {
    o.diagnostics.iter().map(|d| d.code).collect()
}

// ---- YAML streams ---------------------------------------------------------------

/// `(line, column)` of every later document's start, as [`Tree::parse`] records them.
fn later_starts(text: &str) -> Vec<(u32, u32)> {
    let file = SourceFile::new(PathBuf::from("t.yaml"), "t.yaml".into(), text);
    let tree = Tree::parse(file.text.clone()).expect("parses");
    tree.later_documents()
        .iter()
        .map(|r| {
            let lc = file.line_col(r.start);
            (lc.line, lc.column)
        })
        .collect()
}

#[test]
fn a_second_document_is_recorded_where_its_marker_is() {
    assert_eq!(later_starts("a: 1\n---\nb: 2\n"), vec![(2, 1)]);
    assert_eq!(
        later_starts("a: 1\n--- # two\nb: 2\n---\nc: 3\n"),
        vec![(2, 1), (4, 1)]
    );
    // A bare document after an end marker is a document too (YAML 1.2, 9.2).
    assert_eq!(later_starts("a: 1\n...\nb: 2\n"), vec![(3, 1)]);
    // A scalar is content.
    assert_eq!(later_starts("a: 1\n--- two\n"), vec![(2, 1)]);
}

#[test]
fn markers_that_start_no_second_document() {
    for text in [
        "---\na: 1\n",                        // a lone `---` at the start
        "# head\n---\na: 1\n...\n",           // comments, then `---` ... `...`
        "---\na: 1\n...\n",                   // end marker
        "a: 1\n---\n",                        // a trailing `---` with nothing after
        "a: 1\n--- # nothing\n# more\n...\n", // a trailing document of comments
        "a: 1\n...\n---\n...\n",              // an empty document after the end
        "%YAML 1.2\n---\na: 1\n",             // a directive
        "{\"a\": 1}\n",                       // JSON
    ] {
        assert_eq!(later_starts(text), vec![], "{text:?}");
    }
}

#[test]
fn an_empty_first_document_gives_way_to_the_next() {
    let text = "---\n---\nopenapi: 3.0.3\n";
    let tree = Tree::parse(Arc::from(text)).unwrap();
    let root = tree.root().unwrap();
    assert!(tree.get(root, "openapi").is_some());
    assert!(tree.later_documents().is_empty());
}

#[test]
fn a_syntax_error_in_a_later_document_is_an_error() {
    let text = "a: 1\n---\nb: [1, 2\n";
    let err = Tree::parse(Arc::from(text)).unwrap_err();
    let file = SourceFile::new(PathBuf::from("t.yaml"), "t.yaml".into(), text);
    assert_eq!(file.line_col(err.offset).line, 3, "{err:?}");
}

#[test]
fn a_stream_reads_every_document_with_its_span() {
    let text = "# manifests\n---\nkind: A\n...\n---\nkind: B\nx: &x 1\n---\n---\nkind: C\nx: &x 2\ny: *x\n---\n";
    let trees = Tree::parse_stream(Arc::from(text)).unwrap();
    let kinds: Vec<_> = trees
        .iter()
        .map(|t| t.scalar(t.get(t.root().unwrap(), "kind").unwrap()).unwrap())
        .collect();
    assert_eq!(kinds, vec!["A", "B", "C"]);
    let spans: Vec<_> = trees.iter().map(|t| &text[t.document_span()]).collect();
    assert_eq!(spans[0], "---\nkind: A\n...");
    assert!(spans[1].starts_with("---\nkind: B"), "{:?}", spans[1]);
    assert!(spans[2].starts_with("---\nkind: C"), "{:?}", spans[2]);
    // Anchors belong to their document: C's `*x` is C's own `&x`, and an alias to
    // an anchor of an earlier document is an error.
    let c = &trees[2];
    let y = c.get(c.root().unwrap(), "y").unwrap();
    assert_eq!(c.as_i64(y), Some(2));
    assert!(Tree::parse_stream(Arc::from("a: &x 1\n---\nb: *x\n")).is_err());
    assert!(Tree::parse_stream(Arc::from("a: 1\n---\nb: [\n")).is_err());
    assert_eq!(Tree::parse_stream(Arc::from("")).unwrap().len(), 0);
}
