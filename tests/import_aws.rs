//! End to end: AWS SDK shared config files (`[default]`, `[profile NAME]` with
//! `retry_mode` and `max_attempts`) beside a small spec, checked as a user runs it,
//! and snapshotted. Fixtures: `fixtures/import/aws/`.

mod common;

use std::path::PathBuf;

fn dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/import/aws")
        .join(name)
}

#[test]
fn default_profile_binds_to_the_only_spec() {
    let (code, stdout, stderr) = common::retrylint_in(&dir("one-spec"), &["check", "."]);
    assert_eq!(code, 1, "findings expected; stderr: {stderr}");
    // The SDK retries every operation of the client: POST /orders without a key.
    assert!(stdout.contains("RL201"), "{stdout}");
    assert!(stdout.contains("config:5:1"), "{stdout}");
    assert!(stdout.contains("POST /orders"), "{stdout}");
    // Profile `ci` is no layer of its own: retrylint cannot tell which client uses it.
    assert!(stdout.contains("RL016"), "{stdout}");
    assert!(stdout.contains("`ci`"), "{stdout}");
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn services_clients_picks_the_profile_in_dot_aws() {
    let (code, stdout, stderr) = common::retrylint_in(&dir("clients"), &["check", "."]);
    assert_eq!(code, 1, "findings expected; stderr: {stderr}");
    // `.aws/config` is read although the walk skips hidden folders; `prod` (4 tries)
    // is bound by `services[].clients`, so `default` does not take the spec.
    assert!(stdout.contains(".aws/config"), "{stdout}");
    assert!(stdout.contains("RL201"), "{stdout}");
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn invalid_values_are_reported() {
    let (code, stdout, stderr) = common::retrylint_in(&dir("invalid"), &["check", "."]);
    // Only the RL017 warnings at the refused values: `retry_mode = fast` and
    // `max_attempts = 0` are read as nothing (issue 43), not as `standard` mode's 3
    // tries that RL201, RL301 and RL306 then blamed.
    assert_eq!(code, 0, "warnings only expected; stderr: {stderr}");
    for absent in ["RL201", "RL301", "RL306", "RL005"] {
        assert!(!stdout.contains(absent), "{absent}:\n{stdout}");
    }
    for at in ["config:2:1", "config:3:1", "config:6:1", "config:9:1"] {
        assert!(stdout.contains(at), "{at} missing:\n{stdout}");
    }
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn a_syntax_error_cannot_be_linted() {
    let (code, stdout, stderr) = common::retrylint_in(&dir("syntax"), &["check", "."]);
    assert_eq!(code, 2, "RL001 expected; stdout: {stdout}");
    assert!(stdout.contains("RL001"), "{stdout}{stderr}");
    assert!(stdout.contains("config:3:1"), "{stdout}");
}

#[test]
fn one_try_retries_nothing() {
    let (code, stdout, stderr) = common::retrylint_in(&dir("clean"), &["check", "."]);
    for c in ["RL201", "RL016", "RL017", "RL301", "RL305"] {
        assert!(!stdout.contains(c), "{c} fired:\n{stdout}{stderr}");
    }
    assert_eq!(code, 0, "clean expected: {stdout}{stderr}");
}

/// A git repository's `.git/config` is never read, even named on the command line,
/// even when it holds profile-like sections with retry keys.
#[test]
fn git_config_is_never_read() {
    let root = std::env::temp_dir().join(format!("retrylint-aws-git-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join(".git")).expect("temp dir");
    std::fs::copy(dir("one-spec/openapi.yaml"), root.join("openapi.yaml")).expect("spec");
    let git = "[core]\n\tbare = false\n[default]\nmax_attempts = 9\n";
    std::fs::write(root.join(".git/config"), git).expect("git config");
    let (code, stdout, stderr) = common::retrylint_in(&root, &["check", "."]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let (_, stdout, stderr) =
        common::retrylint_in(&root, &["check", "openapi.yaml", ".git/config"]);
    assert!(
        !stdout.contains("RL201") && !stdout.contains("AWS"),
        "{stdout}{stderr}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// The walk follows no symbolic link, and neither does the look for `.aws/config`: a
/// `.aws` linked to a home folder is not read.
#[cfg(unix)]
#[test]
fn a_linked_dot_aws_is_not_read() {
    let root = std::env::temp_dir().join(format!("retrylint-aws-link-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("home/.aws")).expect("temp dir");
    std::fs::create_dir_all(root.join("repo")).expect("temp dir");
    std::fs::copy(dir("one-spec/openapi.yaml"), root.join("repo/openapi.yaml")).expect("spec");
    std::fs::copy(dir("one-spec/config"), root.join("home/.aws/config")).expect("config");
    std::os::unix::fs::symlink(root.join("home/.aws"), root.join("repo/.aws")).expect("link");
    let (code, stdout, stderr) = common::retrylint_in(&root.join("repo"), &["check", "."]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    // The same folder, not linked, is read.
    std::fs::remove_file(root.join("repo/.aws")).expect("unlink");
    std::fs::rename(root.join("home/.aws"), root.join("repo/.aws")).expect("move");
    let (code, stdout, _) = common::retrylint_in(&root.join("repo"), &["check", "."]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains(".aws/config"), "{stdout}");
    let _ = std::fs::remove_dir_all(&root);
}

/// `retrylint import config` prints the profile as a client policy over the spec
/// beside it, each value with its line in the config.
#[test]
fn import_prints_the_profile_as_a_client_policy() {
    let root = std::env::temp_dir().join(format!("retrylint-aws-import-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).expect("temp dir");
    for f in ["config", "openapi.yaml"] {
        std::fs::copy(dir("one-spec").join(f), root.join(f)).expect("copy");
    }
    let (code, stdout, stderr) = common::retrylint_in(&root, &["import", "config"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    for line in [
        "layer: client",
        "attempts: 5                              # config:6:1",
        "retry_on: [429, 500, 502, 503, 504, connect-failure, timeout, reset]  # config:5:1 [1]",
        "budget: {tokens: 200, token_ratio: 0.2}",
        "POST /orders:",
    ] {
        assert!(stdout.contains(line), "{line} missing:\n{stdout}");
    }
    let _ = std::fs::remove_dir_all(&root);
}
