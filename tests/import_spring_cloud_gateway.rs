//! End to end: the Spring Cloud Gateway case of `retry-configs` (case 14: a bare
//! `- Retry`, `methods: GET,POST`, Host-matched routes, the dotted key
//! `gateway.server.webflux:`) and small trigger/clean folders, checked as a user
//! runs them, and snapshotted.

mod common;

use std::path::PathBuf;

fn dir(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The `file:line:col` headers of the human output, in order.
fn positions(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| {
            let start = l.find("╭─[")? + "╭─[".len();
            let end = l[start..].find(']')? + start;
            Some(l[start..end].to_string())
        })
        .collect()
}

/// The findings as (code, first position after the header).
fn findings(stdout: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut code: Option<String> = None;
    for l in stdout.lines() {
        if l.starts_with("RL") {
            code = l.split_whitespace().next().map(str::to_string);
        } else if let (Some(c), Some(start)) = (&code, l.find("╭─[")) {
            let rest = &l[start + "╭─[".len()..];
            if let Some(end) = rest.find(']') {
                out.push((c.clone(), rest[..end].to_string()));
                code = None;
            }
        }
    }
    out
}

#[test]
fn case_14_spring_cloud_gateway() {
    let (code, stdout, stderr) = common::retrylint_in(
        &dir("fixtures/cases/retry-configs/14-spring-cloud-gateway"),
        &["check", "."],
    );
    assert_eq!(code, 1, "findings expected; stderr: {stderr}");
    let found = findings(&stdout);
    let expected = [
        ("RL201", "application.yml:31:17"),
        ("RL301", "application.yml:13:15"),
        ("RL301", "application.yml:29:15"),
        ("RL305", "application.yml:13:15"),
        ("RL305", "application.yml:29:15"),
        ("RL306", "application.yml:13:15"),
        ("RL306", "application.yml:29:15"),
        ("RL101", "application.yml:29:15"),
        ("RL016", "application.yml:18:15"),
        // The route for another host binds nothing, and its filter retries POST on
        // 5xx, reset and timeout.
        ("RL209", "application.yml:20:15"),
    ];
    for (c, at) in expected {
        assert!(
            found.iter().any(|(fc, fa)| fc == c && fa == at),
            "{c} at {at} missing:\n{stdout}"
        );
    }
    assert_eq!(found.len(), expected.len(), "{found:?}\n{stdout}");
    // Q23: RL201 names the filter that retries.
    assert!(stdout.contains("retry turned on here"), "{stdout}");
    // Q24: a bare Retry retries GET only, exceptions included: nothing on POST /httpbin/retry.
    assert!(!stdout.contains("POST /httpbin/retry"), "{stdout}");
    for absent in ["RL303", "RL309", "RL310", "RL401", "RL402", "RL001"] {
        assert!(!stdout.contains(absent), "{absent} fired:\n{stdout}");
    }
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn trigger_methods_post_resends_a_post() {
    let (code, stdout, stderr) = common::retrylint_in(
        &dir("fixtures/import/spring/e2e-trigger-post-retried"),
        &["check", "."],
    );
    assert_eq!(code, 1, "findings expected; stderr: {stderr}");
    // `methods: POST` replaces GET: POST /orders is retried on 5xx, reset, timeout.
    assert!(stdout.contains("RL201"), "{stdout}");
    assert!(
        positions(&stdout)
            .iter()
            .any(|p| p == "application.yml:16:17"),
        "{stdout}"
    );
    // StripPrefix=1 behind /api/**: the spec's /orders is bound; GET is not retried.
    assert!(!stdout.contains("GET /orders"), "{stdout}");
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn clean_get_only_with_deadline_and_jitter() {
    let (code, stdout, stderr) = common::retrylint_in(
        &dir("fixtures/import/spring/e2e-clean-get-only"),
        &["check", "."],
    );
    assert_eq!(code, 0, "no findings expected; stderr: {stderr}\n{stdout}");
    assert!(!stdout.contains("RL201"), "{stdout}");
}

#[test]
fn properties_shortcut() {
    let (code, stdout, stderr) = common::retrylint_in(
        &dir("fixtures/import/spring/scg-e2e-properties"),
        &["check", "."],
    );
    assert_eq!(code, 1, "findings expected; stderr: {stderr}");
    // Retry=3,INTERNAL_SERVER_ERROR,POST,...: POST retried on 500, 5xx and transport,
    // pointing into the .properties line of the filter.
    assert!(stdout.contains("RL201"), "{stdout}");
    assert!(stdout.contains("application.properties:9:"), "{stdout}");
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

/// `layers` names the route that governs the operation, even when several routes
/// of one file form the gateway layer (case 14: `retry_post_test` retries
/// `POST /httpbin/anything`, after `retry_test` in the file).
#[test]
fn layers_names_the_governing_route() {
    let (code, stdout, stderr) = common::retrylint_in(
        &dir("fixtures/cases/retry-configs/14-spring-cloud-gateway"),
        &["layers", "POST /httpbin/anything"],
    );
    assert_eq!(code, 0, "stderr: {stderr}");
    assert!(stdout.contains("retry_post_test"), "{stdout}");
}

/// Service identity from the repository's own names: two specs that write no server
/// host, each in a Spring Boot service whose `spring.application.name` is
/// `customers-service` and `vets-service` (the latter as `${APP_NAME:vets-service}`
/// in a `.properties` file). The gateway's routes `lb://vets-service` and
/// `lb://customers-service` bind to the spec of the service they name, not to
/// nothing (two specs) and not to each other's: RL201 for `POST /vets` from the
/// retrying route `vets`, nothing on `POST /owners` (its route does not retry), no
/// RL016.
#[test]
fn lb_names_bind_to_the_spec_of_the_application_so_named() {
    let (code, stdout, stderr) = common::retrylint_in(
        &dir("fixtures/import/spring/identity-application-name"),
        &["check", "--format", "json", "."],
    );
    assert_eq!(code, 1, "{stdout}{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let diags = v["diagnostics"].as_array().expect("diagnostics");
    let codes: Vec<(&str, String)> = diags
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or(""),
                d["operations"].to_string(),
            )
        })
        .collect();
    assert!(
        codes
            .iter()
            .any(|(c, ops)| *c == "RL201" && ops.contains("POST /vets")),
        "{codes:?}"
    );
    assert!(!codes.iter().any(|(c, _)| *c == "RL016"), "{codes:?}");
    assert!(
        !codes.iter().any(|(_, ops)| ops.contains("/owners")),
        "{codes:?}"
    );
    let (_, layers, _) = common::retrylint_in(
        &dir("fixtures/import/spring/identity-application-name"),
        &["layers", "createOwner", "."],
    );
    assert!(
        layers.contains("gateway layer: Spring Cloud Gateway route customers "),
        "{layers}"
    );
}
