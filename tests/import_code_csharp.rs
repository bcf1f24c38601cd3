//! C# retries in code (`retry-in-code.md` §1.4): Microsoft.Extensions.Http.Resilience
//! (`AddStandardResilienceHandler` on every client through
//! `ConfigureHttpClientDefaults`, on a typed client, on a Refit client), Polly 7
//! policies attached with `AddPolicyHandler` and a Polly 8 pipeline, each run as a
//! user runs `retrylint check` on the fixture folder (code + `api/openapi.yaml`),
//! with the codes and positions asserted and the human output snapshotted.

mod common;

use common::{codes, findings, has};

use std::path::PathBuf;

fn dir(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/code/csharp")
        .join(rel)
}

/// `retrylint check .` in the fixture: (exit code, stdout).
fn check(rel: &str) -> (i32, String) {
    let (code, stdout, stderr) = common::retrylint_in(&dir(rel), &["check", "."]);
    assert!(code == 0 || code == 1, "exit {code}; stderr: {stderr}");
    (code, stdout)
}

#[test]
fn standard_handler_on_every_client_retries_a_post_without_key() {
    let (code, stdout) = check("standard-defaults");
    assert_eq!(code, 1);
    let got = findings(&stdout);
    // The handler set in ServiceDefaults reaches the typed client's POST in another file.
    assert!(
        has(&got, "RL201 src/ServiceDefaults/Extensions.cs:20:18"),
        "{got:?}"
    );
    assert!(
        has(&got, "RL307 src/ServiceDefaults/Extensions.cs:20:18"),
        "{got:?}"
    );
    // Defaults are named: 3 retries, 2 s exponential with jitter, 30 s total timeout.
    assert!(stdout.contains("`MaxRetryAttempts` = 3"), "{stdout}");
    assert!(stdout.contains("no method filter: every method is retried, POST included"));
    assert!(
        !codes(&got).contains(&"RL305"),
        "jitter is on by default: {got:?}"
    );
    assert!(
        !codes(&got).contains(&"RL301"),
        "the 30 s total timeout is a deadline: {got:?}"
    );
    insta::assert_snapshot!(stdout);
}

#[test]
fn standard_handler_with_a_key_sent_on_the_request_is_clean_of_rl201() {
    let (_, stdout) = check("standard-clean");
    let got = findings(&stdout);
    assert!(!codes(&got).contains(&"RL201"), "{got:?}");
    // The key is read from `request.Headers.Add("Idempotency-Key", ...)` at the call.
    assert!(
        !codes(&got).contains(&"RL203"),
        "a key the code sends states no contract: {got:?}"
    );
    insta::assert_snapshot!(stdout);
}

#[test]
fn standard_handler_options_and_unsafe_methods_disabled() {
    let (_, stdout) = check("standard-safe-methods");
    let got = findings(&stdout);
    assert!(!codes(&got).contains(&"RL201"), "{got:?}");
    assert!(
        !codes(&got).contains(&"RL303"),
        "4 retries are 5 attempts: {got:?}"
    );
    // `options.TotalRequestTimeout.Timeout = 20 s` replaces the default deadline.
    assert!(!stdout.contains("default for the deadline"), "{stdout}");
    insta::assert_snapshot!(stdout);
}

#[test]
fn refit_client_with_standard_handler_binds_the_interface_methods() {
    let (code, stdout) = check("refit");
    assert_eq!(code, 1);
    let got = findings(&stdout);
    assert!(has(&got, "RL201 src/Program.cs:8:6"), "{got:?}");
    // Bound through the `[Post("/orders")]` method of `IOrdersApi`.
    assert!(
        stdout.contains("`POST /orders` is non-idempotent"),
        "{stdout}"
    );
    // The bound call site is labelled: the `[Post("/orders")]` attribute.
    assert!(stdout.contains("src/IOrdersApi.cs:10:6"), "{stdout}");
    assert!(stdout.contains("POST /orders is called here"), "{stdout}");
    insta::assert_snapshot!(stdout);
}

#[test]
fn refit_client_with_a_header_parameter_is_clean_of_rl201() {
    let (_, stdout) = check("refit-clean");
    let got = findings(&stdout);
    assert!(!codes(&got).contains(&"RL201"), "{got:?}");
    assert!(
        !codes(&got).contains(&"RL203"),
        "a key the code sends states no contract: {got:?}"
    );
    insta::assert_snapshot!(stdout);
}

#[test]
fn polly_v7_policy_attached_by_name() {
    let (code, stdout) = check("polly-v7");
    assert_eq!(code, 1);
    let got = findings(&stdout);
    let c = codes(&got);
    for want in ["RL201", "RL305", "RL301", "RL306"] {
        assert!(c.contains(&want), "{want} missing: {got:?}");
    }
    // `WaitAndRetryAsync(RetryCount, ...)`: the same-file constant, 3 retries.
    assert!(has(&got, "RL301 src/Startup.cs:21:32"), "{got:?}");
    assert!(stdout.contains("Polly 7 adds no jitter"), "{stdout}");
    insta::assert_snapshot!(stdout);
}

#[test]
fn polly_v8_pipeline_with_deadline_jitter_and_key_is_clean() {
    let (_, stdout) = check("polly-v8-clean");
    let got = findings(&stdout);
    let c = codes(&got);
    for absent in ["RL201", "RL301", "RL305", "RL019", "RL016"] {
        assert!(!c.contains(&absent), "{absent}: {got:?}");
    }
    // The call inside `_pipeline.ExecuteAsync(...)` is bound to the pipeline.
    assert!(
        !codes(&got).contains(&"RL203"),
        "a key the code sends states no contract: {got:?}"
    );
    insta::assert_snapshot!(stdout);
}

#[test]
fn polly_v8_key_generated_inside_the_retried_lambda_is_rl208() {
    let (code, stdout) = check("polly-v8-regenerated-key");
    assert_eq!(code, 1);
    let got = findings(&stdout);
    assert!(has(&got, "RL208 src/OrderSubmitter.cs:30:52"), "{got:?}");
    insta::assert_snapshot!(stdout);
}

#[test]
fn a_typed_client_handler_on_top_of_the_default_one_multiplies() {
    let (code, stdout) = check("stacked-handlers");
    assert_eq!(code, 1);
    let got = findings(&stdout);
    // Both layers bind to the same call: ConfigureHttpClientDefaults and the typed client's.
    assert!(
        has(&got, "RL311 src/ServiceDefaults/Extensions.cs:20:18"),
        "{got:?}"
    );
    assert!(has(&got, "RL201 src/WebApp/Program.cs:9:6"), "{got:?}");
    insta::assert_snapshot!(stdout);
}
