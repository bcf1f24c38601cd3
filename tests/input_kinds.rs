//! Input kinds found in real files (issue 11, section 5): YAML streams (RL014, case
//! 33), OpenAPI 3.1 references to a schema's `$id` or `$anchor` (case 38), and
//! equivalent templated paths (RL015).

use retrylint::check::{run, CheckOptions, CheckOutcome};
use retrylint::source::tree::Tree;

mod common;
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
    o.diagnostics.iter().map(common::code_at).collect()
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
    // JSON documents in a YAML stream (the JSON fast path gives way to the YAML one).
    assert_eq!(later_starts("{\"a\": 1}\n---\n{\"b\": 2}\n"), vec![(2, 1)]);
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

#[test]
fn case33_multi_document() {
    let o = check_case(&["33-multi-document"]);
    assert_eq!(
        findings(&o),
        vec![
            (
                "RL504".to_string(),
                "33-multi-document/openapi.yaml:10:5".to_string()
            ),
            (
                "RL014".to_string(),
                "33-multi-document/openapi.yaml:20:1".to_string()
            ),
        ]
    );
    let rl014 = o.diagnostics.iter().find(|d| d.code == "RL014").unwrap();
    assert_eq!(rl014.severity, retrylint::diagnostic::Severity::Warning);
    assert!(
        rl014
            .message
            .contains("an OpenAPI description is one document")
            && rl014.message.contains("the first was read"),
        "{}",
        rl014.message
    );
    // The first document is the one linted: its operation has the key (RL504).
    assert_eq!(o.documents, 1);
    assert_eq!(o.policies, 1);
    assert!(!o.could_not_lint);
}

const ORDERS: &str = "openapi: 3.0.3\ninfo: {title: Orders, version: '1'}\npaths: {}\n";

#[test]
fn a_syntax_error_in_a_later_document_cannot_be_linted() {
    let s = Scratch::new(
        "later-syntax",
        &[(
            "openapi.yaml",
            &format!("{ORDERS}---\nopenapi: 3.0.3\npaths: {{/a: [\n"),
        )],
    );
    let o = s.check();
    assert_eq!(codes(&o), vec!["RL001"]);
    // In the second document (line 6), at the unclosed bracket.
    assert_eq!(findings(&o)[0].1, "openapi.yaml:6:13");
    assert!(o.could_not_lint);
}

#[test]
fn a_policy_with_two_documents_is_rl014_and_its_first_is_read() {
    let policy = "version: 1\nspec: openapi.yaml\ndefaults: {retry: false}\n---\nversion: 1\nspec: openapi.yaml\noperations: {nothing: {retry: false}}\n";
    let s = Scratch::new(
        "policy-stream",
        &[("openapi.yaml", ORDERS), ("retry-policy.yaml", policy)],
    );
    let o = s.check();
    // The second document's unknown selector would be RL006: it is not read.
    assert_eq!(
        findings(&o),
        vec![("RL014".to_string(), "retry-policy.yaml:4:1".to_string())]
    );
    assert!(o.diagnostics[0]
        .message
        .contains("a retry policy is one document"));
    // A syntax error in the policy's second document: RL001, cannot lint.
    let broken = "version: 1\nspec: openapi.yaml\n---\noperations: {a: [\n";
    let s = Scratch::new(
        "policy-stream-syntax",
        &[("openapi.yaml", ORDERS), ("retry-policy.yaml", broken)],
    );
    let o = s.check();
    assert_eq!(codes(&o), vec!["RL001"]);
    assert!(o.could_not_lint);
}

#[test]
fn single_documents_with_markers_are_no_stream() {
    let s = Scratch::new(
        "markers",
        &[
            ("a/openapi.yaml", &format!("---\n{ORDERS}")),
            ("b/openapi.yaml", &format!("# head\n---\n{ORDERS}...\n")),
            ("c/openapi.yaml", &format!("{ORDERS}---\n")),
            (
                "d/openapi.yaml",
                &format!("{ORDERS}--- # nothing\n# more\n"),
            ),
        ],
    );
    let o = s.check();
    assert_eq!(findings(&o), vec![]);
    assert_eq!(o.documents, 4);
}

#[test]
fn a_ref_target_with_two_documents_is_rl014() {
    let spec = "openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200': {$ref: 'responses.yaml#/Ok'}\n";
    let s = Scratch::new(
        "ref-stream",
        &[
            ("openapi.yaml", spec),
            (
                "responses.yaml",
                "Ok: {description: ok}\n---\nOk: {description: other}\n",
            ),
        ],
    );
    let o = s.check();
    assert_eq!(
        findings(&o),
        vec![("RL014".to_string(), "responses.yaml:2:1".to_string())]
    );
}

// ---- OpenAPI 3.1 references ---------------------------------------------------

#[test]
fn case38_oas31_schema_id() {
    let o = check_case(&["38-oas31-schema-id.yaml"]);
    assert_eq!(findings(&o), vec![]);
    assert_eq!(o.documents, 1);
    assert!(!o.could_not_lint);
}

/// A 3.1 spec whose 429 `Retry-After` header schema is `$ref: REF`, with `schemas`
/// (YAML, indented under `components.schemas`).
fn spec31(version: &str, reference: &str, schemas: &str) -> String {
    format!(
        "openapi: {version}
info: {{title: Quotas, version: '1'}}
paths:
  /quotas:
    get:
      operationId: getQuota
      responses:
        '200': {{description: ok}}
        '429':
          description: slow down
          headers:
            Retry-After:
              schema:
                $ref: '{reference}'
components:
  schemas:
{schemas}"
    )
}

/// A schema that RL503 reports (RFC 3339 is not an HTTP-date), so a finding at it
/// proves the `$ref` reached it.
const BAD_DATE: &str = "type: string, format: date-time";

fn rl003_messages(o: &CheckOutcome) -> Vec<(String, String)> {
    o.diagnostics
        .iter()
        .filter(|d| d.code == "RL003")
        .map(|d| {
            (
                d.message.clone(),
                d.help.as_deref().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn anchor_refs_resolve_in_31() {
    for (reference, schemas) in [
        (
            "#retry-date",
            format!("    Date: {{$anchor: retry-date, {BAD_DATE}}}\n"),
        ),
        (
            "#retry-date",
            format!("    Date: {{$dynamicAnchor: retry-date, {BAD_DATE}}}\n"),
        ),
        // An anchor inside an embedded resource is named through that resource.
        (
            "https://schemas.example.test/http#date",
            format!(
                "    Http:\n      $id: 'https://schemas.example.test/http'\n      $defs:\n        date: {{$anchor: date, {BAD_DATE}}}\n"
            ),
        ),
        // A JSON Pointer fragment is relative to the resource the URI names.
        (
            "https://schemas.example.test/http#/$defs/date",
            format!(
                "    Http:\n      $id: 'https://schemas.example.test/http'\n      $defs:\n        date: {{{BAD_DATE}}}\n"
            ),
        ),
        // A relative `$id` resolves against the enclosing one.
        (
            "https://schemas.example.test/http/date",
            format!(
                "    Http:\n      $id: 'https://schemas.example.test/http/'\n      $defs:\n        date: {{$id: date, {BAD_DATE}}}\n"
            ),
        ),
    ] {
        let s = Scratch::new("anchors", &[("openapi.yaml", &spec31("3.1.0", reference, &schemas))]);
        let o = s.check();
        assert_eq!(codes(&o), vec!["RL503"], "{reference}: {:?}", findings(&o));
    }
}

#[test]
fn relative_refs_inside_an_id_resolve_against_it() {
    let schemas = format!(
        "    Wrapper:\n      $id: 'https://schemas.example.test/http/retry-after'\n      oneOf:\n        - $ref: 'date'\n        - $ref: '#/$defs/also'\n      $defs:\n        also: {{type: integer}}\n    Date:\n      $id: 'https://schemas.example.test/http/date'\n      {BAD_DATE_BLOCK}\n",
        BAD_DATE_BLOCK = "type: string"
    );
    let s = Scratch::new(
        "relative-in-id",
        &[(
            "openapi.yaml",
            &spec31(
                "3.1.0",
                "https://schemas.example.test/http/retry-after",
                &schemas,
            ),
        )],
    );
    let o = s.check();
    assert_eq!(findings(&o), vec![]);
    // A local pointer that names nothing in the `$id`-ed resource is still read
    // against the file, as tools without `$id` support read it.
    let schemas = "    Wrapper:\n      $id: 'https://schemas.example.test/w'\n      oneOf:\n        - $ref: '#/components/schemas/Plain'\n    Plain: {type: integer}\n";
    let s = Scratch::new(
        "pointer-in-id",
        &[(
            "openapi.yaml",
            &spec31("3.1.1", "https://schemas.example.test/w", schemas),
        )],
    );
    assert_eq!(findings(&s.check()), vec![]);
}

#[test]
fn an_unresolvable_anchor_is_still_rl003() {
    let schemas = "    Delay: {$anchor: delay, type: integer}\n";
    for reference in ["#no-such-anchor", "https://schemas.example.test/x#delay"] {
        let s = Scratch::new(
            "bad-anchor",
            &[("openapi.yaml", &spec31("3.1.0", reference, schemas))],
        );
        let o = s.check();
        assert_eq!(codes(&o), vec!["RL003"], "{reference}");
    }
    // An anchor of another resource is not in scope.
    let schemas = "    Http:\n      $id: 'https://schemas.example.test/http'\n      $defs:\n        d: {$anchor: delay, type: integer}\n";
    let s = Scratch::new(
        "foreign-anchor",
        &[("openapi.yaml", &spec31("3.1.0", "#delay", schemas))],
    );
    let o = s.check();
    assert_eq!(codes(&o), vec!["RL003"]);
    assert!(
        rl003_messages(&o)[0].0.contains("no `$anchor` `delay`"),
        "{:?}",
        rl003_messages(&o)
    );
}

#[test]
fn an_unknown_absolute_id_stays_rl003_without_vendoring_advice_for_a_near_miss() {
    let schemas = "    Delay:\n      $id: 'https://schemas.example.test/http/delay-seconds'\n      type: integer\n";
    let s = Scratch::new(
        "near-miss",
        &[(
            "openapi.yaml",
            &spec31(
                "3.1.0",
                "https://schemas.example.test/http/delay-second",
                schemas,
            ),
        )],
    );
    let o = s.check();
    assert_eq!(codes(&o), vec!["RL003"]);
    let (message, help) = &rl003_messages(&o)[0];
    assert!(message.contains("names no schema `$id`"), "{message}");
    assert!(
        help.contains("did you mean the `$id` `https://schemas.example.test/http/delay-seconds`"),
        "{help}"
    );
    assert!(!help.to_lowercase().contains("vendor"), "{help}");
    // A relative ref made remote by its `$id` is reported even where the model does
    // not need it.
    let schemas = "    Wrapper:\n      $id: 'https://schemas.example.test/http/retry-after'\n      oneOf:\n        - $ref: 'delay-secs'\n    Delay:\n      $id: 'https://schemas.example.test/http/delay-seconds'\n      type: integer\n";
    let s = Scratch::new(
        "relative-miss",
        &[(
            "openapi.yaml",
            &spec31(
                "3.1.0",
                "https://schemas.example.test/http/delay-seconds",
                schemas,
            ),
        )],
    );
    let o = s.check();
    assert_eq!(
        findings(&o),
        vec![("RL003".to_string(), "openapi.yaml:20:11".to_string())]
    );
    assert!(rl003_messages(&o)[0]
        .0
        .contains("resolves to `https://schemas.example.test/http/delay-secs`"));
}

#[test]
fn ids_mean_nothing_in_30() {
    let schemas = "    Delay:\n      $id: 'https://schemas.example.test/http/delay-seconds'\n      type: integer\n";
    let s = Scratch::new(
        "ids-in-30",
        &[(
            "openapi.yaml",
            &spec31(
                "3.0.3",
                "https://schemas.example.test/http/delay-seconds",
                schemas,
            ),
        )],
    );
    let o = s.check();
    assert!(codes(&o).contains(&"RL003"), "{:?}", findings(&o));
    let (_, help) = &rl003_messages(&o)[0];
    assert!(help.contains("vendor"), "{help}");
}

#[test]
fn case38_refs_land_on_the_schemas_with_those_ids() {
    use retrylint::source::loader::{Limits, Workspace};
    use retrylint::source::refs::{At, Resolver};
    use retrylint::source::tree::Kind;
    let dir = repo().join("fixtures/cases");
    let ws = Workspace::new(dir.clone(), Limits::default());
    let doc = ws.load(&dir.join("38-oas31-schema-id.yaml"));
    let resolver = Resolver::new(&ws, &dir);
    let (model, diags) = retrylint::openapi::lint_document(&resolver, &doc);
    assert!(model.is_some() && diags.is_empty(), "{diags:?}");
    let tree = doc.tree.as_ref().unwrap();
    let targets: Vec<(String, String)> = tree
        .all_nodes()
        .filter(|&n| tree.kind(n) == Kind::Map)
        .filter_map(|n| tree.get(n, "$ref"))
        .map(|r| {
            let to = resolver.target(&At::new(&doc, r)).expect("resolves");
            (
                tree.scalar(r).unwrap().to_string(),
                to.tree().unwrap().pointer(to.node),
            )
        })
        .collect();
    assert_eq!(
        targets,
        vec![
            (
                "https://schemas.example.test/http/delay-seconds".to_string(),
                "/components/schemas/DelaySeconds".to_string()
            ),
            (
                "https://schemas.example.test/http/retry-after".to_string(),
                "/components/schemas/RetryAfter".to_string()
            ),
            (
                "delay-seconds".to_string(),
                "/components/schemas/DelaySeconds".to_string()
            ),
        ]
    );
}

#[test]
fn anchor_cycles_end_and_odd_ids_never_panic() {
    // `$ref` to its own anchor: a cycle (RL004), found at once.
    let schemas = "    Loop: {$anchor: loop, $ref: '#loop'}\n";
    let s = Scratch::new(
        "anchor-cycle",
        &[("openapi.yaml", &spec31("3.1.0", "#loop", schemas))],
    );
    let o = s.check();
    assert!(codes(&o).contains(&"RL004"), "{:?}", findings(&o));
    // Ids and refs that are no URI references, or name odd things: findings at most.
    let schemas = "    A: {$id: ':::', type: integer}\n    B: {$id: 'http://[::1', type: integer}\n    C: {$id: '#', type: integer}\n    D: {$id: 'urn:example:d', $defs: {x: {type: integer}}}\n    E: {$id: 'file:///etc/', oneOf: [{$ref: 'passwd'}]}\n    F: {oneOf: [{$ref: '#%ZZ'}, {$ref: 'urn:example:d#/$defs/x'}, {$ref: 'urn:example:d#/$defs/nope'}]}\n";
    for reference in [
        "urn:example:d#/$defs/x",
        "http://[::1",
        "#",
        "%",
        "file:///etc/passwd",
    ] {
        let s = Scratch::new(
            "odd-ids",
            &[("openapi.yaml", &spec31("3.1.0", reference, schemas))],
        );
        let o = s.check();
        assert!(
            codes(&o).iter().all(|c| ["RL003", "RL004"].contains(c)),
            "{reference}: {:?}",
            findings(&o)
        );
    }
}
