//! `retrylint layers` and `retrylint import`, run as users run them.

mod common;

use common::retrylint_in;
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(args: &[&str]) -> (i32, String, String) {
    retrylint_in(&repo(), args)
}

#[test]
fn layers_of_the_three_layer_example() {
    let (code, out, err) = run(&["layers", "POST /payments", "fixtures/examples/layers"]);
    assert_eq!(code, 0, "{err}");
    // The composed figures are the readiness matrix's (README "Layers").
    assert!(out.contains("3 x 2 x 3 = 18"), "{out}");
    assert!(
        out.contains("whole chain                     6.6s"),
        "{out}"
    );
    insta::assert_snapshot!("layers_human", out);
}

#[test]
fn layers_with_a_budget_show_the_bound_under_load() {
    let (code, out, err) = run(&["layers", "createPayment", "fixtures/examples/layers-budget"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("under load (budgets)"), "{out}");
    insta::assert_snapshot!("layers_budget_human", out);
}

#[test]
fn layers_json_is_versioned_and_carries_origins() {
    let (code, out, err) = run(&[
        "layers",
        "POST /payments",
        "fixtures/examples/layers-budget",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["version"], 1);
    let op = &v["operations"][0];
    assert_eq!(op["operation"], "POST /payments");
    let layers: Vec<&str> = op["layers"]
        .as_array()
        .expect("layers")
        .iter()
        .map(|l| l["layer"].as_str().expect("layer"))
        .collect();
    assert_eq!(layers, ["client", "gateway", "mesh"]);
    let gateway_budget = op["layers"][1]["values"]
        .as_array()
        .expect("values")
        .iter()
        .find(|x| x["key"] == "budget")
        .expect("budget row");
    assert_eq!(
        gateway_budget["value"],
        "{ratio: 0.2, min_per_second: 10, window: 10s}"
    );
    assert_eq!(
        gateway_budget["origin"],
        "fixtures/examples/layers-budget/gateway.retry-policy.yaml:14:3"
    );
    assert_eq!(op["composed"]["bound_by_budget"], true);
    insta::assert_snapshot!("layers_budget_json", out);
}

#[test]
fn layers_of_an_operation_in_several_documents_shows_each() {
    let (code, out, err) = run(&[
        "layers",
        "POST /payments",
        "fixtures/examples/layers",
        "fixtures/examples/layers-budget",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("POST /payments (createPayment) in fixtures/examples/layers/openapi.yaml"),
        "{out}"
    );
    assert!(
        out.contains(
            "POST /payments (createPayment) in fixtures/examples/layers-budget/openapi.yaml"
        ),
        "{out}"
    );
}

#[test]
fn layers_of_an_unknown_operation_is_a_usage_error_with_a_suggestion() {
    let (code, out, err) = run(&["layers", "POST /paymnts", "fixtures/examples/layers"]);
    assert_eq!(code, 2);
    assert!(out.is_empty(), "{out}");
    insta::assert_snapshot!("layers_unknown_operation", err);
}

#[test]
fn import_of_a_file_that_is_no_retry_config_exits_1_naming_the_formats() {
    let (code, out, err) = run(&[
        "import",
        "fixtures/examples/layers/client.retry-policy.yaml",
    ]);
    assert_eq!(code, 1);
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("it is a retrylint policy already"), "{err}");
    assert!(err.contains("formats read: Istio VirtualService"), "{err}");
    let (code, _, err) = run(&[
        "import",
        "fixtures/examples/layers/openapi.yaml",
        "README.md",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("README.md: nothing imported"), "{err}");
    assert!(
        !err.contains("openapi.yaml: nothing imported"),
        "a named spec is used, not imported: {err}"
    );
}

#[test]
fn import_of_a_missing_file_exits_2() {
    let (code, out, err) = run(&["import", "fixtures/examples/no-such-config.yaml"]);
    assert_eq!(code, 2);
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("cannot read fixtures/examples/no-such-config.yaml"),
        "{err}"
    );
}

/// A real config (Envoy Gateway `BackendTrafficPolicy` + `HTTPRoute`, case 05 of
/// `retry-configs/README.md`): the policy `import` prints reads back as the same
/// layer `layers` shows.
#[test]
fn import_and_layers_of_a_real_envoy_gateway_config() {
    let case = repo().join("fixtures/cases/retry-configs/05-envoy-gateway-btp");
    let (code, out, err) = retrylint_in(
        &case,
        &["import", "backend-traffic-policy.yaml", "--root", "."],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("spec: openapi.yaml\n"), "{out}");
    assert!(out.contains("  POST /payments:"), "{out}");
    insta::assert_snapshot!("import_envoy_gateway_btp", out);
    // Saved beside the config, each document is a valid policy with the same values.
    let ws = retrylint::source::loader::Workspace::new(
        case.clone(),
        retrylint::source::loader::Limits::default(),
    );
    let docs: Vec<&str> = out
        .split("---\n")
        .filter(|d| !d.trim().is_empty())
        .collect();
    assert_eq!(docs.len(), 1, "{out}");
    let doc = ws.load_text(&case.join("imported.retry-policy.yaml"), docs[0]);
    let (policy, diags) = retrylint::policy::load_policy(&doc);
    assert!(
        diags.is_empty(),
        "{:?}",
        diags.iter().map(|d| &d.message).collect::<Vec<_>>()
    );
    let policy = policy.expect("a policy");
    assert_eq!(policy.layer().as_str(), "gateway");
    let payments = policy
        .operations
        .iter()
        .find(|e| e.text == "POST /payments")
        .expect("POST /payments");
    assert_eq!(
        payments.settings.attempts.as_ref().map(|a| a.value),
        Some(6)
    );
    assert_eq!(
        payments.settings.deadline.as_ref().map(|a| a.value),
        Some(15_000.0)
    );
    let (code, out, err) = retrylint_in(&case, &["layers", "POST /payments", ".", "--root", "."]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("gateway layer: Envoy Gateway HTTPRoute retry-route"),
        "{out}"
    );
    insta::assert_snapshot!("layers_envoy_gateway_btp", out);
}

/// Issue 36, config-only repositories: `import` of a config that binds no operation
/// prints its routes anyway, keyed by their match, with the RL016 reason on top, as a
/// display that cannot be read back as a policy (no `version:`, `routes:` not
/// `operations:`).
#[test]
fn import_of_an_unbound_config_shows_its_routes_keyed_by_match() {
    let (code, out, err) = run(&[
        "import",
        "fixtures/cases/88-config-only-repository/virtual-service.yaml",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("binds to no operation"), "{out}");
    assert!(out.contains("NOT A POLICY FILE"), "{out}");
    assert!(!out.contains("version:"), "{out}");
    assert!(!out.contains("\noperations:"), "{out}");
    assert!(
        out.contains("\"api: prefix /api/, every method\":"),
        "{out}"
    );
    assert!(
        out.contains("retry_on: [502, 503, 504, reset, timeout, connect-failure, refused-stream]"),
        "{out}"
    );
    assert!(out.contains("\"health: exact /healthz, GET\":"), "{out}");
    insta::assert_snapshot!(out);
}

/// Issue 36, config-only repositories: `layers` on a request that no OpenAPI
/// document holds shows the routes that would carry it, as `import` reads them:
/// the first matching route of each config that binds nothing, with its values and
/// their origins; a request no route carries is still an error.
#[test]
fn layers_on_a_route_of_a_config_only_repository() {
    let dir = "fixtures/cases/88-config-only-repository";
    let (code, out, err) = run(&["layers", "POST /api/orders", dir]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("route `api: prefix /api/, every method`"),
        "{out}"
    );
    assert!(
        out.contains("virtual-service.yaml:10:7 would carry it"),
        "{out}"
    );
    assert!(!out.contains("health"), "{out}");
    // The route's 3 retries are 4 attempts; the per-try timeout is its own.
    assert!(out.contains("attempts"), "{out}");
    assert!(out.contains("2s"), "{out}");
    insta::assert_snapshot!(out);

    let (code, out, _) = run(&["layers", "GET /healthz", dir, "--format", "json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let text = v.to_string();
    assert!(text.contains("health: exact /healthz, GET"), "{text}");

    let (code, _, err) = run(&["layers", "DELETE /nothing-routes-this", dir]);
    assert_eq!(code, 2);
    assert!(err.contains("matches no operation"), "{err}");
}
