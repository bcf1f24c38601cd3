//! End to end: `x-linkerd-retryable` and `x-linkerd-timeout` on OpenAPI operations,
//! read as the Linkerd mesh layer `linkerd profile --open-api` would configure.
//! Fixtures: `fixtures/import/linkerd-openapi/`.

mod common;

use std::path::PathBuf;

fn dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/import/linkerd-openapi")
        .join(name)
}

#[test]
fn retryable_post_without_key_is_rl201() {
    let (code, stdout, stderr) = common::retrylint_in(&dir("trigger"), &["check", "."]);
    assert_eq!(code, 1, "findings expected; stderr: {stderr}");
    // At the extension of the POST; the GET's retry is not RL201.
    assert!(stdout.contains("RL201"), "{stdout}");
    assert!(stdout.contains("openapi.yaml:16:7"), "{stdout}");
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn retryable_get_with_timeout_is_not_rl201() {
    let (code, stdout, stderr) = common::retrylint_in(&dir("clean"), &["check", "."]);
    assert!(!stdout.contains("RL201"), "{stdout}{stderr}");
    assert!(!stdout.contains("RL017"), "{stdout}{stderr}");
    // The timeout is the deadline: no missing-deadline finding.
    assert!(!stdout.contains("RL301"), "{stdout}{stderr}");
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn values_linkerd_ignores_are_rl017() {
    let (code, stdout, stderr) = common::retrylint_in(&dir("invalid"), &["check", "."]);
    assert_eq!(code, 1, "findings expected; stderr: {stderr}");
    for at in [
        "openapi.yaml:7:5",  // on the path item
        "openapi.yaml:10:7", // "true" is a string
        "openapi.yaml:11:7", // 2 is a number
        "openapi.yaml:25:7", // not a Go duration
    ] {
        assert!(stdout.contains(at), "{at} missing:\n{stdout}");
    }
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn layers_shows_the_linkerd_mesh_layer() {
    let (code, stdout, stderr) =
        common::retrylint_in(&dir("trigger"), &["layers", "GET /books", "."]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("mesh"), "{stdout}");
    assert!(stdout.contains("Linkerd"), "{stdout}");
}

/// A ServiceProfile of the run governs the spec: it is what the proxy runs, so the
/// extensions (which it was generated from, or overrides) are not read again.
#[test]
fn a_service_profile_of_the_run_wins_over_the_extensions() {
    let (_, stdout, stderr) = common::retrylint_in(&dir("covered"), &["check", "."]);
    assert!(!stdout.contains("RL201"), "{stdout}{stderr}");
    assert!(stdout.contains("service-profile.yaml"), "{stdout}{stderr}");
    assert!(!stdout.contains("openapi.yaml:16:7"), "{stdout}{stderr}");
}
