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

/// One RL314 per reading (issue 42): three routes without `retries:` in two files
/// are one finding at the first, labelling the other two and naming every operation
/// they bind, not three identical warnings.
#[test]
fn routes_sharing_a_version_dependent_default_are_one_rl314() {
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
    assert_eq!(rl314.len(), 1, "{out}");
    assert_eq!(
        rl314[0]["labels"].as_array().map(Vec::len),
        Some(2),
        "{out}"
    );
    assert!(
        rl314[0]["message"]
            .as_str()
            .unwrap()
            .ends_with("(2 more routes with the same default are labelled)"),
        "{out}"
    );
}
