//! The OpenAPI model and the input rules on the shared cases (`fixtures/cases/`) and on
//! small inline documents.

use retrylint::analysis::Analysis;
use retrylint::diagnostic::Diagnostic;
use retrylint::openapi::model::{Document, SpecVersion, StatusKey};
use retrylint::openapi::{dedup_findings, lint_document};
use retrylint::rules::{rl001_invalid_syntax, run_checks, Context, Thresholds};
use retrylint::source::loader::{Limits, LoadError, Loaded, Workspace};
use retrylint::source::refs::Resolver;
use retrylint::source::SourceFile;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .expect("manifest dir")
}

/// Spec rules checked elsewhere (see [`lint`]).
const LATER_SPEC_RULES: &[&str] = &["RL008", "RL502", "RL503", "RL504", "RL505"];

/// Runs the model, the whole-file checks and the spec rules over one loaded root.
fn lint(ws: &Workspace, root_dir: &Path, loaded: &Arc<Loaded>) -> (Vec<Document>, Vec<Diagnostic>) {
    let resolver = Resolver::new(ws, root_dir);
    let (doc, mut diags) = lint_document(&resolver, loaded);
    let docs: Vec<Document> = doc.into_iter().collect();
    let analysis = Analysis::default();
    let thresholds = Thresholds::default();
    let ctx = Context {
        documents: &docs,
        analysis: &analysis,
        thresholds: &thresholds,
    };
    diags.extend(run_checks(&ctx));
    // These tests pin the model, the input rules and RL501. The later spec rules
    // (RL008, RL502-RL505) have their own expectations in `tests/cases.rs` and
    // `fixtures/rules/`; keep them out of the exact position lists here.
    diags.retain(|d| !LATER_SPEC_RULES.contains(&d.code));
    dedup_findings(&mut diags);
    (docs, diags)
}

fn case(name: &str) -> (Vec<Document>, Vec<Diagnostic>) {
    let root = manifest().join("fixtures/cases");
    let ws = Workspace::new(manifest(), Limits::default());
    let loaded = ws.load(&root.join(name));
    assert!(
        loaded.tree.is_ok(),
        "{name} parses: {:?}",
        loaded.tree.as_ref().err()
    );
    lint(&ws, &root, &loaded)
}

/// Lints inline text as `virtual/<name>` under the project root `virtual/`.
fn inline(name: &str, text: &str) -> (Vec<Document>, Vec<Diagnostic>) {
    let root = manifest().join("virtual");
    let ws = Workspace::new(manifest(), Limits::default());
    let loaded = ws.load_text(&root.join(name), text);
    lint(&ws, &root, &loaded)
}

fn lc(file: &SourceFile, offset: usize) -> String {
    let p = file.line_col(offset);
    format!("{}:{}", p.line, p.column)
}

/// `RL004 30:7` for every finding, in output order.
fn positions(diags: &[Diagnostic]) -> Vec<String> {
    diags
        .iter()
        .map(|d| {
            let l = &d.primary.location;
            format!("{} {}", d.code, lc(&l.file, l.span.start))
        })
        .collect()
}

fn label_positions(d: &Diagnostic) -> Vec<String> {
    d.labels
        .iter()
        .map(|l| lc(&l.location.file, l.location.span.start))
        .collect()
}

// ---------------------------------------------------------------- shared cases

#[test]
fn case01_numeric_status_keys() {
    let (docs, diags) = case("01-numeric-status-keys.yaml");
    assert_eq!(positions(&diags), Vec::<String>::new());
    let op = &docs[0].operations[0];
    let keys: Vec<&str> = op.responses.iter().map(|r| r.key_text.as_str()).collect();
    assert_eq!(keys, ["201", "429", "503"]);
    assert_eq!(op.responses[1].status, StatusKey::Code(429));
    assert!(op
        .response_for(429)
        .unwrap()
        .header("retry-after")
        .is_some());
}

#[test]
fn case02_anchors_merge_keys() {
    let (docs, diags) = case("02-anchors-merge-keys.yaml");
    assert_eq!(positions(&diags), ["RL501 44:9"]);
    assert_eq!(diags[0].operation.as_deref(), Some("POST /b"));
    let ops = &docs[0].operations;
    assert_eq!(ops.len(), 2);
    for op in ops {
        assert!(op.header_param("Idempotency-Key").unwrap().required);
        assert!(op.responses.iter().all(|r| r.key_text != "<<"));
    }
    assert!(ops[0]
        .response_for(429)
        .unwrap()
        .header("Retry-After")
        .is_some());
}

#[test]
fn case03_ref_cycles() {
    let (docs, diags) = case("03-ref-cycles.yaml");
    assert_eq!(
        positions(&diags),
        ["RL004 30:7", "RL004 33:7", "RL004 35:7"]
    );
    let r2 = &diags[2];
    assert!(
        r2.message.contains("R2") && r2.message.contains("R3"),
        "{}",
        r2.message
    );
    assert_eq!(label_positions(r2), ["37:7"]);
    let tree_op = docs[0]
        .operations
        .iter()
        .find(|o| o.path == "/tree")
        .unwrap();
    assert_eq!(tree_op.responses.len(), 1);
    assert_eq!(tree_op.responses[0].status, StatusKey::Code(200));
}

#[test]
fn case05_relative_external_refs() {
    let (docs, diags) = case("05-relative-external-refs.yaml");
    assert_eq!(positions(&diags), Vec::<String>::new());
    let op = &docs[0].operations[0];
    assert_eq!(op.display(), "POST /orders");
    let key = op.header_param("Idempotency-Key").expect("key parameter");
    assert!(key.required);
    assert!(key.at.doc.file.display.ends_with("ops/common.yaml"));
    let too_many = op.response_for(429).unwrap();
    assert!(too_many
        .at
        .doc
        .file
        .display
        .ends_with("shared/responses.yaml"));
    assert_eq!(too_many.at.location().pointer, "/TooMany");
    let schema = too_many
        .header("Retry-After")
        .unwrap()
        .schema
        .clone()
        .unwrap();
    assert_eq!(schema.location().pointer, "/RetryAfterHeader/schema");
}

#[test]
fn case06_header_name_case() {
    let (docs, diags) = case("06-header-name-case.yaml");
    assert_eq!(positions(&diags), ["RL009 39:11"]);
    assert_eq!(label_positions(&diags[0]), ["35:11"]);
    assert!(diags[0].message.contains("`IDEMPOTENCY-KEY`"));
    assert!(diags[0].message.contains("`Idempotency-Key`"));
    assert_eq!(diags[0].operation.as_deref(), Some("POST /refunds"));
    let payments = &docs[0].operations[0];
    assert_eq!(payments.params.len(), 1);
    assert!(payments.header_param("Idempotency-Key").unwrap().required);
}

#[test]
fn case08_default_response() {
    let (docs, diags) = case("08-default-response.yaml");
    assert_eq!(positions(&diags), Vec::<String>::new());
    let exports = &docs[0].operations[0];
    assert!(exports.response_for(429).is_none());
    assert_eq!(exports.responses[1].status, StatusKey::Default);
}

#[test]
fn case10_duplicate_keys() {
    let (docs, diags) = case("10-duplicate-keys.yaml");
    assert_eq!(positions(&diags), ["RL002 20:9", "RL002 22:3"]);
    assert_eq!(label_positions(&diags[0]), ["14:9"]);
    assert_eq!(label_positions(&diags[1]), ["9:3"]);
    let ops: Vec<String> = docs[0].operations.iter().map(|o| o.display()).collect();
    assert_eq!(ops, ["GET /items"]);
}

#[test]
fn case11_bom_crlf() {
    let (_, diags) = case("11-bom-crlf.yaml");
    assert_eq!(positions(&diags), ["RL501 17:9"]);
    assert_eq!(diags[0].operation.as_deref(), Some("POST /orders"));
}

#[test]
fn case13_json_surrogates() {
    let (docs, diags) = case("13-json-surrogate-escapes.json");
    assert_eq!(positions(&diags), Vec::<String>::new());
    assert!(!docs[0].operations.is_empty());
}

#[test]
fn case17_alias_bomb() {
    let (docs, diags) = case("17-alias-bomb.yaml");
    assert_eq!(positions(&diags), Vec::<String>::new());
    // Aliases are kept by reference: the tree stays the size of the text, not of
    // the billion values the aliases stand for.
    let tree = docs[0].doc.tree.as_ref().expect("parsed");
    assert!(tree.len() < 1_000, "{} nodes", tree.len());
}

#[test]
fn case19_retry_after_values() {
    let (docs, diags) = case("19-retry-after-values.yaml");
    // RL503 is another rule; nothing of the model's or RL501's here.
    assert_eq!(positions(&diags), Vec::<String>::new());
    let op = &docs[0].operations[0];
    let h = op.response_for(503).unwrap().header("Retry-After").unwrap();
    assert_eq!(
        h.schema.as_ref().unwrap().location().pointer,
        "/paths/~1search/get/responses/503/headers/Retry-After/schema"
    );
}

#[test]
fn case20_model() {
    let (docs, diags) = case("20-post-retry-no-idempotency.yaml");
    assert!(diags.iter().all(|d| d.code != "RL003" && d.code != "RL004"));
    assert!(!docs[0].operations.is_empty());
}

// ---------------------------------------------------------------- inline fixtures

#[test]
fn swagger2_parameters_responses_and_header_type() {
    let (docs, diags) = inline(
        "s2.yaml",
        r#"swagger: "2.0"
info: {title: t, version: "1"}
paths:
  /orders:
    post:
      parameters:
        - $ref: '#/parameters/Idem'
      responses:
        '201':
          description: created
        '429':
          $ref: '#/responses/TooMany'
    trace:
      responses:
        '200': {description: ok}
parameters:
  Idem:
    name: Idempotency-Key
    in: header
    required: true
    type: string
responses:
  TooMany:
    description: throttled
    headers:
      Retry-After:
        type: integer
"#,
    );
    assert_eq!(positions(&diags), Vec::<String>::new());
    let doc = &docs[0];
    assert_eq!(doc.version, SpecVersion::Swagger2);
    assert_eq!(doc.operations.len(), 1, "2.0 has no trace");
    let op = &doc.operations[0];
    let p = op.header_param("idempotency-key").unwrap();
    assert!(p.required);
    assert_eq!(p.at.location().pointer, "/parameters/Idem");
    assert_eq!(
        p.listed_at.location().pointer,
        "/paths/~1orders/post/parameters/0"
    );
    let r = op.response_for(429).unwrap();
    assert_eq!(r.at.location().pointer, "/responses/TooMany");
    let h = r.header("retry-after").unwrap();
    let schema = h.schema.as_ref().unwrap();
    assert!(schema.same_node(&h.at));
    let t = schema.tree().unwrap();
    assert_eq!(
        t.get(schema.node, "type").and_then(|n| t.scalar(n)),
        Some("integer")
    );
}

#[test]
fn openapi31_webhooks_only() {
    let (docs, diags) = inline(
        "wh.yaml",
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\nwebhooks:\n  newPet:\n    post:\n      responses:\n        '200': {description: ok}\n",
    );
    assert_eq!(positions(&diags), Vec::<String>::new());
    let doc = &docs[0];
    assert_eq!(doc.version, SpecVersion::OpenApi31);
    assert!(doc.operations.is_empty());
    assert_eq!(doc.webhooks.len(), 1);
    assert_eq!(doc.webhooks[0].display(), "POST newPet");
}

#[test]
fn openapi30_with_webhooks_is_rl007() {
    let (docs, diags) = inline(
        "wh30.yaml",
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\nwebhooks:\n  newPet:\n    post:\n      responses:\n        '200': {description: ok}\n",
    );
    assert_eq!(positions(&diags), ["RL007 4:1"]);
    assert!(docs[0].webhooks.is_empty());
}

#[test]
fn unsupported_versions_are_rl007() {
    let (docs, diags) = inline(
        "v32.yaml",
        "openapi: 3.2.0\ninfo: {title: t, version: '1'}\npaths: {}\n",
    );
    assert!(docs.is_empty());
    assert_eq!(positions(&diags), ["RL007 1:1"]);
    assert!(diags[0].message.contains("3.2.0"));
    let (docs, diags) = inline("v12.yaml", "info: {}\nswagger: '1.2'\n");
    assert!(docs.is_empty());
    assert_eq!(positions(&diags), ["RL007 2:1"]);
    let (docs, diags) = inline("v30.yaml", "openapi: 3.0.0\npaths: {}\n");
    assert_eq!(docs[0].version, SpecVersion::OpenApi30);
    assert!(diags.is_empty());
    let (docs, diags) = inline("notapi.yaml", "name: x\n");
    assert!(docs.is_empty() && diags.is_empty());
}

const SIBLINGS: &str = "info: {title: t, version: '1'}
paths:
  /a:
    get:
      parameters:
        - $ref: '#/components/parameters/Q'
          description: ignored before 3.1
          required: true
      responses:
        '200': {description: ok}
components:
  parameters:
    Q: {name: q, in: query}
";

#[test]
fn ref_siblings() {
    let (_, diags) = inline("sib30.yaml", &format!("openapi: 3.0.3\n{SIBLINGS}"));
    assert_eq!(positions(&diags), ["RL011 8:11", "RL011 9:11"]);
    let (_, diags) = inline("sib31.yaml", &format!("openapi: 3.1.0\n{SIBLINGS}"));
    assert_eq!(positions(&diags), ["RL011 9:11"]);
    assert!(diags[0].message.contains("`required`"));
    let two = "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths: {}\ndefinitions:\n  A:\n    $ref: '#/definitions/B'\n    description: x\n  B: {type: string}\n";
    let (_, diags) = inline("sib20.yaml", two);
    assert_eq!(positions(&diags), ["RL011 7:5"]);
}

#[test]
fn shared_429_component_is_one_finding_with_a_label_per_operation() {
    let (_, diags) = inline(
        "shared.yaml",
        "openapi: 3.0.3
info: {title: t, version: '1'}
paths:
  /a:
    get:
      responses:
        '429': {$ref: '#/components/responses/TooMany'}
  /b:
    post:
      responses:
        '4XX': {$ref: '#/components/responses/TooMany'}
components:
  responses:
    TooMany:
      description: throttled
",
    );
    assert_eq!(positions(&diags), ["RL501 14:5"]);
    assert_eq!(label_positions(&diags[0]), ["5:5", "9:5"]);
    assert_eq!(diags[0].operation, None);
}

#[test]
fn range_covers_429_unless_explicit() {
    let (_, diags) = inline(
        "range.yaml",
        "openapi: 3.0.3
paths:
  /a:
    get:
      responses:
        '4XX':
          description: client error
        '429':
          description: explicit
          headers:
            Retry-After: {schema: {type: integer}}
  /b:
    get:
      responses:
        4xx:
          description: lower-case range, no Retry-After
        20X:
          description: invalid
",
    );
    assert_eq!(
        positions(&diags),
        ["RL012 15:9", "RL501 15:9", "RL012 17:9"]
    );
    assert!(diags[0].message.contains("`4XX`"));
}

#[test]
fn ref_outside_root_is_rl003() {
    let (docs, diags) = inline(
        "out.yaml",
        "openapi: 3.0.3
paths:
  /a:
    get:
      parameters:
        - $ref: '../../outside/common.yaml#/parameters/Q'
      responses:
        '200': {description: ok}
",
    );
    assert_eq!(positions(&diags), ["RL003 6:11"]);
    assert!(diags[0].message.contains("project root"));
    assert!(docs[0].operations[0].params.is_empty());
}

#[test]
fn http_ref_is_rl003_only_where_the_model_needs_it() {
    let (_, diags) = inline(
        "http.yaml",
        "openapi: 3.0.3
paths:
  /a:
    get:
      parameters:
        - $ref: 'https://example.com/common.yaml#/parameters/Q'
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: 'https://example.com/schemas.yaml#/Pet'}
",
    );
    assert_eq!(positions(&diags), ["RL003 6:11"]);
    assert!(diags[0].message.contains("remote"));
}

#[test]
fn whole_file_ref_check_reports_unused_refs_once() {
    let (_, diags) = inline(
        "refs.yaml",
        "openapi: 3.0.3
paths:
  /a:
    get:
      parameters:
        - $ref: '#/components/parameters/Missing'
      responses:
        '200': {description: ok}
components:
  schemas:
    S: {$ref: '#/components/schemas/S'}
    Node:
      type: object
      properties:
        next: {$ref: '#/components/schemas/Node'}
        list: {type: array, items: {$ref: '#/components/schemas/Node'}}
    Unused:
      allOf:
        - $ref: '#/components/schemas/Nope'
      example:
        $ref: just data
",
    );
    assert_eq!(
        positions(&diags),
        ["RL003 6:11", "RL004 11:9", "RL003 19:11"]
    );
}

#[test]
fn path_level_parameters_merge() {
    let (docs, diags) = inline(
        "merge.yaml",
        "openapi: 3.0.3
paths:
  /a/{id}:
    parameters:
      - {name: id, in: path, required: true}
      - {name: X-Trace, in: header}
      - {name: v, in: query}
    get:
      parameters:
        - {name: x-trace, in: header, required: true}
        - {name: v, in: header}
      responses:
        '200': {description: ok}
",
    );
    assert!(diags.is_empty(), "{:?}", positions(&diags));
    let op = &docs[0].operations[0];
    let params: Vec<(String, String, bool)> = op
        .params
        .iter()
        .map(|p| (p.location.clone(), p.name.clone(), p.required))
        .collect();
    assert_eq!(
        params,
        [
            ("path".into(), "id".into(), true),
            ("query".into(), "v".into(), false),
            ("header".into(), "x-trace".into(), true),
            ("header".into(), "v".into(), false),
        ]
    );
}

#[test]
fn rl001_constructor() {
    let ws = Workspace::new(manifest(), Limits::default());
    let loaded = ws.load_text(&manifest().join("virtual/bad.yaml"), "a: 1\nb: [1, 2\n");
    let d = rl001_invalid_syntax::diagnostic(&loaded).expect("syntax error");
    assert_eq!(d.code, "RL001");
    let big = Loaded::new(
        loaded.file.clone(),
        Err(LoadError::TooLarge { size: 10, limit: 5 }),
    );
    let d = rl001_invalid_syntax::diagnostic(&big).unwrap();
    assert!(d.help.unwrap().contains("--max-file-size"));
    assert!(d.message.contains('5'));
    let ok = ws.load_text(&manifest().join("virtual/ok.yaml"), "a: 1\n");
    assert!(rl001_invalid_syntax::diagnostic(&ok).is_none());
}

#[test]
fn external_files_are_checked_once_each() {
    let root = manifest().join("fixtures/openapi/external");
    let ws = Workspace::new(manifest(), Limits::default());
    let loaded = ws.load(&root.join("root.yaml"));
    let (docs, diags) = lint(&ws, &root, &loaded);
    let shown: Vec<String> = diags
        .iter()
        .map(|d| {
            let l = &d.primary.location;
            let file = l.file.display.rsplit('/').next().unwrap().to_string();
            format!("{} {} {}", d.code, file, lc(&l.file, l.span.start))
        })
        .collect();
    assert_eq!(
        shown,
        [
            "RL002 a.yaml 3:3",
            "RL004 a.yaml 5:3",
            "RL003 a.yaml 9:3",
            "RL011 a.yaml 10:3",
            "RL001 broken.yaml 2:16",
            "RL003 root.yaml 12:11",
        ]
    );
    let cycle = diags.iter().find(|d| d.code == "RL004").unwrap();
    assert_eq!(label_positions(cycle), ["7:3"]);
    let op = &docs[0].operations[0];
    assert!(op.params.is_empty());
    assert_eq!(op.responses.len(), 1);
    assert_eq!(op.responses[0].at.location().pointer, "/Ok");
}
