//! Rust retries in code (`retry-in-code.md` §1.6): reqwest-retry middleware (built
//! in one file, used through a struct field in another; a total-duration policy
//! with a key) and backon (defaults, a key made inside the retried closure: RL208,
//! a clean builder), each run as a user runs `retrylint check` on the fixture
//! folder (code + `api/openapi.yaml`), with codes and positions asserted and the
//! human output snapshotted.

mod common;

use common::{codes, findings, has};

use std::path::PathBuf;

fn dir(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/code/rust")
        .join(rel)
}

/// `retrylint check .` in the fixture: (exit code, stdout).
fn check(rel: &str) -> (i32, String) {
    let (code, stdout, stderr) = common::retrylint_in(&dir(rel), &["check", "."]);
    assert!(code == 0 || code == 1, "exit {code}; stderr: {stderr}");
    (code, stdout)
}

#[test]
fn reqwest_retry_client_built_in_a_function_retries_a_post_in_another_file() {
    let (code, stdout) = check("reqwest-retry");
    assert_eq!(code, 1);
    let got = findings(&stdout);
    // `Self { client: http_client() }` + `self.client.post(...)` in payments.rs.
    assert!(has(&got, "RL201 src/http.rs:8:15"), "{got:?}");
    assert!(has(&got, "RL306 src/http.rs:8:15"), "{got:?}");
    assert!(has(&got, "RL301 src/http.rs:6:77"), "{got:?}");
    assert!(
        !codes(&got).contains(&"RL305"),
        "full jitter by default: {got:?}"
    );
    assert!(stdout.contains("no method check"), "{stdout}");
    insta::assert_snapshot!(stdout);
}

#[test]
fn reqwest_retry_total_duration_and_key_is_clean_of_rl201_and_rl301() {
    let (_, stdout) = check("reqwest-retry-clean");
    let got = findings(&stdout);
    let c = codes(&got);
    for absent in ["RL201", "RL301", "RL303", "RL305", "RL019"] {
        assert!(!c.contains(&absent), "{absent}: {got:?}");
    }
    assert!(
        !codes(&got).contains(&"RL203"),
        "a key the code sends states no contract: {got:?}"
    );
    insta::assert_snapshot!(stdout);
}

#[test]
fn backon_defaults_retry_a_post_without_jitter_or_deadline() {
    let (code, stdout) = check("backon");
    assert_eq!(code, 1);
    let got = findings(&stdout);
    assert!(has(&got, "RL201 src/main.rs:4:5"), "{got:?}");
    assert!(has(&got, "RL305 src/main.rs:5:9"), "{got:?}");
    assert!(has(&got, "RL301 src/main.rs:5:9"), "{got:?}");
    // `error_for_status()` makes 4xx errors too: backon retries them.
    assert!(has(&got, "RL308 src/main.rs:4:5"), "{got:?}");
    insta::assert_snapshot!(stdout);
}

#[test]
fn backon_key_generated_inside_the_retried_closure_is_rl208() {
    let (code, stdout) = check("backon-regenerated-key");
    assert_eq!(code, 1);
    let got = findings(&stdout);
    assert!(has(&got, "RL208 src/main.rs:10:40"), "{got:?}");
    assert!(!codes(&got).contains(&"RL201"), "{got:?}");
    insta::assert_snapshot!(stdout);
}

#[test]
fn backon_key_made_once_with_jitter_and_total_delay_is_clean() {
    let (_, stdout) = check("backon-clean");
    let got = findings(&stdout);
    let c = codes(&got);
    for absent in ["RL201", "RL208", "RL301", "RL305", "RL306", "RL019"] {
        assert!(!c.contains(&absent), "{absent}: {got:?}");
    }
    insta::assert_snapshot!(stdout);
}
