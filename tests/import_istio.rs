//! End to end over the Istio cases of `fixtures/cases/retry-configs/` (copies of the
//! shared acceptance cases): `retrylint check` on each case folder, human output,
//! compared with the expectations of the cases' README.

use std::path::PathBuf;

mod common;

fn case(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/cases/retry-configs")
        .join(name)
}

/// `retrylint check .` in the case folder: (exit code, stdout).
fn check(name: &str) -> (i32, String) {
    let (code, out, _) = common::retrylint_in(&case(name), &["check", "."]);
    (code, out)
}

#[test]
fn case_01_istio_retry_5xx() {
    let (code, out) = check("01-istio-retry-5xx");
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("virtual-service.yaml:34:7"),
        "RL201 at retryOn:\n{out}"
    );
    insta::assert_snapshot!("case_01_istio_retry_5xx", out);
}

#[test]
fn case_02_istio_default_conditions() {
    let (code, out) = check("02-istio-default-conditions");
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("RL314"), "{out}");
    assert!(
        !out.contains("RL201"),
        "no RL201 while no version is named:\n{out}"
    );
    insta::assert_snapshot!("case_02_istio_default_conditions", out);
}

#[test]
fn case_02_with_istio_1_23_retries_503() {
    let (code, out) = check("02-istio-default-conditions-1.23");
    assert_eq!(code, 1, "{out}");
    assert!(!out.contains("RL314"), "{out}");
    assert!(
        out.contains("RL201"),
        "503 after sending on POST /ratings:\n{out}"
    );
    insta::assert_snapshot!("case_02_istio_1_23", out);
}

/// One RL314 per reading and file (issue 42; per file since issue 36): three routes
/// without `retries:` in two files are two findings, the one of the file holding two
/// routes at its first, labelling the second and naming every operation both bind;
/// never three identical warnings, and never one finding that a run over one of the
/// files could not give.
#[test]
fn routes_sharing_a_version_dependent_default_are_one_rl314_per_file() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/rules/RL314-version-dependent-default/trigger-many-routes");
    let (_, out, err) = common::retrylint_in(
        &dir,
        &["check", ".", "--format", "json", "--fail-on", "never"],
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
    let all = v
        .as_array()
        .cloned()
        .unwrap_or_else(|| v["diagnostics"].as_array().cloned().unwrap_or_default());
    let rl314: Vec<&serde_json::Value> = all.iter().filter(|d| d["code"] == "RL314").collect();
    assert_eq!(rl314.len(), 2, "{out}");
    let files: Vec<&str> = rl314.iter().map(|d| d["path"].as_str().unwrap()).collect();
    assert!(
        files.contains(&"canary.yaml") && files.contains(&"virtual-service.yaml"),
        "{out}"
    );
    let merged = rl314
        .iter()
        .find(|d| d["path"] == "virtual-service.yaml")
        .unwrap();
    assert_eq!(merged["labels"].as_array().map(Vec::len), Some(1), "{out}");
    assert!(
        merged["message"]
            .as_str()
            .unwrap()
            .ends_with("(1 more route with the same default is labelled)"),
        "{out}"
    );
}

/// Two VirtualServices in one file (a YAML stream) whose `retries` sit at the same
/// place of their documents are two nodes: each finding at one names only the
/// operations its own route binds (node identity once ignored the document, so the
/// second VirtualService's operations were labelled at the first one's `retries`).
#[test]
fn same_place_in_two_documents_of_a_stream_is_two_nodes() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["orders", "billing"] {
        std::fs::create_dir_all(dir.path().join(name)).unwrap();
        std::fs::write(
            dir.path().join(name).join("openapi.yaml"),
            format!(
                "openapi: 3.0.3\ninfo: {{title: {name}, version: '1'}}\nservers:\n  - url: https://{name}.example.com\npaths:\n  /{name}:\n    post:\n      operationId: create_{name}\n      responses:\n        '201': {{description: created}}\n"
            ),
        )
        .unwrap();
    }
    let vs = |name: &str| {
        format!("apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata:\n  name: {name}\nspec:\n  hosts: [{name}.example.com]\n  http:\n    - route: [{{destination: {{host: {name}}}}}]\n      retries: {{attempts: 3, perTryTimeout: 2s, retryOn: 5xx}}\n      timeout: 10s\n")
    };
    std::fs::write(
        dir.path().join("routes.yaml"),
        format!("{}---\n{}", vs("orders"), vs("billing")),
    )
    .unwrap();
    let (_, out, err) = common::retrylint_in(
        dir.path(),
        &["check", ".", "--format", "json", "--fail-on", "never"],
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
    let rl201: Vec<&serde_json::Value> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "RL201")
        .collect();
    assert_eq!(rl201.len(), 2, "one RL201 per VirtualService: {out}");
    for d in &rl201 {
        let ops: Vec<&str> = d["operations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o.as_str().unwrap())
            .collect();
        assert_eq!(ops.len(), 1, "each names its own operation only: {out}");
    }
    assert_ne!(rl201[0]["line"], rl201[1]["line"], "{out}");
}
