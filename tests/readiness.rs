//! The readiness matrix: the four answers and the verdict per operation.

use retrylint::check::{run_full, CheckOptions};
use retrylint::readiness::{matrix, render, Matrix};
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn matrix_of(paths: &[&str]) -> Matrix {
    let (analyzed, diags) = run_full(&CheckOptions {
        paths: paths.iter().map(|p| repo().join(p)).collect(),
        cwd: Some(repo()),
        root: Some(repo().join("fixtures")),
        ..CheckOptions::default()
    });
    matrix(&analyzed, &diags)
}

#[test]
fn case20_verdicts() {
    let m = matrix_of(&[
        "fixtures/cases/20-post-retry-no-idempotency.yaml",
        "fixtures/cases/20-post-retry-no-idempotency.retry-policy.yaml",
    ]);
    let by = |method: &str, path: &str| {
        m.operations
            .iter()
            .find(|r| r.method == method && r.path == path)
            .unwrap_or_else(|| panic!("{method} {path}"))
    };
    let snapshots = by("POST", "/snapshots");
    assert_eq!(snapshots.verdict, "not-ready");
    assert!(snapshots.safety.is_empty());
    assert!(snapshots.findings.contains(&"RL201".to_string()));
    assert!(snapshots.missing.contains(&"Q2".to_string()));
    let payments = by("POST", "/payments");
    assert_eq!(payments.safety, vec!["idempotency-key"]);
    assert_eq!(
        payments
            .idempotency_key
            .as_ref()
            .map(|k| (k.header.as_str(), k.required)),
        Some(("Idempotency-Key", true))
    );
    assert_eq!(payments.on_unknown_result.as_deref(), Some("replay-key"));
    assert_eq!(payments.attempts, Some(3));
    assert_eq!(payments.deadline_ms, Some(10_000.0));
    assert_eq!(payments.amplification, 3);
    let profile = by("PUT", "/profile");
    assert_eq!(profile.effect, "idempotent");
    assert!(!profile.effect_declared);
    assert_eq!(profile.safety, vec!["idempotent-method"]);
}

#[test]
fn without_a_policy_every_operation_is_not_retried() {
    let m = matrix_of(&["fixtures/cases/06-header-name-case.yaml"]);
    assert!(!m.operations.is_empty());
    assert!(m
        .operations
        .iter()
        .all(|r| !r.retried && r.layers.is_empty()));
    let payments = m.operations.iter().find(|r| r.path == "/payments").unwrap();
    assert_eq!(payments.verdict, "not-retried");
    // A warning finding (RL009) makes an operation not ready even when not retried.
    let refunds = m.operations.iter().find(|r| r.path == "/refunds").unwrap();
    assert_eq!(refunds.verdict, "not-ready");
    assert!(
        refunds.findings.contains(&"RL009".to_string()),
        "{:?}",
        refunds.findings
    );
    // The operation's `idempotency-key` replaces the path-level one: required.
    assert_eq!(
        payments.idempotency_key.as_ref().map(|k| k.required),
        Some(true)
    );
}

#[test]
fn shop_matrix_snapshots() {
    let m = matrix_of(&["fixtures/examples/shop"]);
    let (ready, not_ready, not_retried) = m.verdict_counts();
    assert_eq!(ready + not_ready + not_retried, m.operations.len());
    assert!(not_ready >= 1);
    insta::assert_snapshot!("shop_table", render::table(&m));
    insta::assert_snapshot!("shop_markdown", render::markdown(&m));
    let json: serde_json::Value = serde_json::from_str(&render::json(&m)).unwrap();
    assert_eq!(json["version"], 1);
    for field in [
        "method",
        "path",
        "operation_id",
        "effect",
        "effect_declared",
        "safety",
        "idempotency_key",
        "retried",
        "retry_on",
        "attempts",
        "deadline_ms",
        "on_unknown_result",
        "layers",
        "amplification",
        "findings",
        "verdict",
    ] {
        assert!(
            json["operations"][0].get(field).is_some(),
            "missing `{field}`"
        );
    }
}

#[test]
fn shop_example_shows_a_finding_for_each_readiness_question() {
    use retrylint::rules::{find, Question};
    let outcome = retrylint::check::run(&CheckOptions {
        paths: vec![repo().join("fixtures/examples/shop")],
        cwd: Some(repo()),
        ..CheckOptions::default()
    });
    for q in [
        Question::Effect,
        Question::Safety,
        Question::Budget,
        Question::UnknownResult,
    ] {
        assert!(
            outcome
                .diagnostics
                .iter()
                .any(|d| find(d.code).map(|r| r.meta.question) == Some(q)),
            "no finding for {q:?}"
        );
    }
}

#[test]
fn a_methods_filter_that_leaves_post_out_makes_it_never_processed() {
    let row = |dir: &str| {
        let m = matrix_of(&[dir]);
        m.operations
            .into_iter()
            .find(|r| r.method == "POST")
            .expect("POST /orders")
    };
    let filtered = row("fixtures/rules/RL201-unprotected-retry/clean-methods-filter-post");
    assert!(filtered.retried);
    assert!(
        filtered.safety.contains(&"never-processed".to_string()),
        "{:?}",
        filtered.safety
    );
    assert!(!filtered.findings.contains(&"RL201".to_string()));
    let unfiltered =
        row("fixtures/rules/RL201-unprotected-retry/trigger-post-without-methods-filter");
    assert!(unfiltered.safety.is_empty(), "{:?}", unfiltered.safety);
    assert!(unfiltered.findings.contains(&"RL201".to_string()));
}

/// One answer (issue 36): `readiness FILE` shows the operations FILE declares or
/// reaches, not every operation of its project (the project here is
/// `fixtures/cases`, which holds many specs).
#[test]
fn a_named_file_shows_only_the_operations_it_declares_or_reaches() {
    let json = |args: &[&str]| -> serde_json::Value {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_retrylint"))
            .arg("readiness")
            .args(args)
            .args(["--format", "json"])
            .current_dir(repo())
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let rows = |v: &serde_json::Value| -> Vec<String> {
        v["operations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| format!("{} {} {}", o["file"], o["method"], o["path"]))
            .collect()
    };
    let spec = json(&["fixtures/cases/29-retry-after-past-date.yaml"]);
    assert_eq!(
        rows(&spec),
        vec!["\"fixtures/cases/29-retry-after-past-date.yaml\" \"GET\" \"/reports\""]
    );
    // Its policy reaches the same operation.
    let policy = json(&["fixtures/cases/29-retry-after-past-date.retry-policy.yaml"]);
    assert_eq!(rows(&policy), rows(&spec));
    // The whole project has more.
    let whole = json(&["fixtures/cases"]);
    assert!(rows(&whole).len() > 10, "{:?}", rows(&whole));
    assert!(rows(&whole).contains(&rows(&spec)[0]));
}

/// Issue 42: an operation no bound layer retries, but which a retrying route of a
/// config that bound nothing may carry (its host names no spec), is `unknown`, with
/// that route named, not a confident `not-retried`; an operation no route matches
/// stays `not-retried`.
#[test]
fn an_unbound_retry_layer_makes_the_verdict_unknown() {
    let m = matrix_of(&["fixtures/readiness/unbound-layer"]);
    let by = |method: &str, path: &str| {
        m.operations
            .iter()
            .find(|r| r.method == method && r.path == path)
            .unwrap_or_else(|| panic!("{method} {path}"))
    };
    for (method, path) in [("POST", "/orders"), ("GET", "/orders")] {
        let r = by(method, path);
        assert_eq!(r.verdict, "unknown", "{method} {path}");
        assert_eq!(r.unbound_layers.len(), 1);
        assert!(
            r.unbound_layers[0].starts_with("Istio VirtualService orders-svc at "),
            "{:?}",
            r.unbound_layers
        );
        assert!(
            r.unbound_layers[0].ends_with("deploy/vs.yaml:7:7"),
            "{:?}",
            r.unbound_layers
        );
    }
    let health = by("GET", "/health");
    assert_eq!(health.verdict, "not-retried");
    assert!(health.unbound_layers.is_empty());
    let table = render::table(&m);
    assert!(
        table.contains("unknown (1 unbound retry layer may apply)"),
        "{table}"
    );
    assert!(
        table.contains("0 ready, 0 not ready, 1 not retried, 2 unknown (3 operations)"),
        "{table}"
    );
    // The Markdown comment lists the unknown rows with those that need an answer,
    // not in the collapsed "ready or not retried" block.
    let md = render::markdown_limited(&m, 60_000);
    let details = md
        .find("<details>")
        .expect("a details block for GET /health");
    let unknown_row = md
        .find("unknown (1 unbound retry layer may apply)")
        .expect("row");
    assert!(unknown_row < details, "{md}");
}
