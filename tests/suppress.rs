//! Suppressions: reasoned ones hide findings (and are listed), unreasoned ones are
//! RL013 and hide nothing, unused ones are RL010; root and response scopes.

use retrylint::check::{run, CheckOptions, CheckOutcome};
use std::path::PathBuf;

fn check_text(name: &str, spec: &str) -> CheckOutcome {
    check_files(name, &[("openapi.yaml", spec)])
}

/// Checks a temporary project made of `files` (name, text).
fn check_files(name: &str, files: &[(&str, &str)]) -> CheckOutcome {
    let dir =
        std::env::temp_dir().join(format!("retrylint-suppress-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (file, text) in files {
        std::fs::write(dir.join(file), text).unwrap();
    }
    let out = run(&CheckOptions {
        paths: vec![dir.clone()],
        cwd: Some(dir.clone()),
        root: Some(dir.clone()),
        ..CheckOptions::default()
    });
    let _ = std::fs::remove_dir_all(&dir);
    out
}

fn codes(o: &CheckOutcome) -> Vec<&'static str> {
    o.diagnostics.iter().map(|d| d.code).collect()
}

const SPEC: &str = r#"openapi: 3.0.3
info: {title: Shop, version: "1"}
ROOT
paths:
  /orders:
    get:
      responses:
        '429':
          description: limited
RESPONSE
"#;

fn spec(root: &str, response: &str) -> String {
    SPEC.replace("ROOT\n", root).replace("RESPONSE\n", response)
}

#[test]
fn root_suppression_by_name_hides_and_lists() {
    let o = check_text(
        "root",
        &spec(
            "x-retrylint-ignore:\n  - {rule: rate-limit-without-retry-after, reason: \"gateway adds it\"}\n",
            "",
        ),
    );
    assert!(codes(&o).is_empty(), "{:?}", codes(&o));
    assert_eq!(o.suppressed.len(), 1);
    assert_eq!(o.suppressed[0].diagnostic.code, "RL501");
    assert_eq!(o.suppressed[0].reason, "gateway adds it");
    let listed = retrylint::report::suppressed_list(&o.suppressed);
    assert!(listed.contains("reason: gateway adds it"), "{listed}");
}

#[test]
fn response_suppression_hides() {
    let o = check_text(
        "response",
        &spec(
            "",
            "          x-retrylint-ignore:\n            - {rule: RL501, reason: \"documented elsewhere\"}\n",
        ),
    );
    assert!(codes(&o).is_empty(), "{:?}", codes(&o));
    assert_eq!(o.suppressed.len(), 1);
}

#[test]
fn unreasoned_suppression_is_rl013_and_hides_nothing() {
    let o = check_text(
        "noreason",
        &spec(
            "x-retrylint-ignore:\n  - {rule: RL501, reason: \"  \"}\n",
            "",
        ),
    );
    assert_eq!(codes(&o), vec!["RL013", "RL501"]);
    assert!(o.suppressed.is_empty());
}

#[test]
fn unused_suppression_is_rl010() {
    let o = check_text(
        "unused",
        &spec(
            "x-retrylint-ignore:\n  - {rule: RL201, reason: \"no policy here\"}\n",
            "",
        ),
    );
    assert_eq!(codes(&o), vec!["RL010", "RL501"]);
}

#[test]
fn shop_has_no_suppressions() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let o = run(&CheckOptions {
        paths: vec![repo.join("fixtures/examples/shop")],
        cwd: Some(repo.clone()),
        root: Some(repo),
        ..CheckOptions::default()
    });
    assert!(o.suppressed.is_empty());
}

#[test]
fn policy_entry_suppression_hides_a_shared_finding_about_its_operation() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/rules/RL101-undeclared-effect/trigger-defaults-shared-by-two-posts");
    let read = |f: &str| std::fs::read_to_string(src.join(f)).unwrap();
    let policy = read("retry-policy.yaml")
        + "operations:\n  createReport:\n    ignore:\n      - {rule: RL101, reason: \"reports are de-duplicated by name\"}\n";
    let o = check_files(
        "shared",
        &[
            ("openapi.yaml", &read("openapi.yaml")),
            ("retry-policy.yaml", &policy),
        ],
    );
    // The one RL101 finding at `defaults` covers both operations; the suppression on
    // one of them matches it.
    assert!(!codes(&o).contains(&"RL101"), "{:?}", codes(&o));
    assert_eq!(o.suppressed.len(), 1);
    assert_eq!(
        o.suppressed[0].diagnostic.operations,
        ["POST /orders/search", "POST /reports"]
    );
}
