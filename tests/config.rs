//! `.retrylint.yaml`, `--config`, `--select`/`--ignore`/`--fail-on`, and partial
//! runs over file arguments (pre-commit), through the binary.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

static COUNTER: AtomicUsize = AtomicUsize::new(0);

const SPEC: &str = r#"openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /orders:
    post:
      operationId: createOrder
      responses:
        "201": {description: created}
"#;

const POLICY: &str = r#"version: 1
spec: openapi.yaml
defaults:
  retry: true
  attempts: 7
  deadline: 5s
  backoff: {base: 100ms, cap: 2s, jitter: full}
  retry_on: [timeout, 503]
"#;

/// A throwaway project: `.git/` at its root (the project root), the spec and policy
/// under `api/`. Findings: RL101 info, RL201 error, RL303/RL306/RL401 warnings.
fn project() -> PathBuf {
    let n = COUNTER.fetch_add(1, Ordering::SeqCst);
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("config-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("api")).unwrap();
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::write(dir.join("api/openapi.yaml"), SPEC).unwrap();
    std::fs::write(dir.join("api/retry-policy.yaml"), POLICY).unwrap();
    dir
}

fn write(dir: &Path, name: &str, text: &str) {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(cwd: &Path, args: &[&str]) -> Out {
    let out = Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .output()
        .expect("runs");
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `(code, severity)` of each finding of `check --format json ARGS`, and the exit code.
fn findings(cwd: &Path, args: &[&str]) -> (i32, Vec<(String, String)>) {
    let mut all = vec!["check", "--format", "json"];
    all.extend_from_slice(args);
    let out = run(cwd, &all);
    assert!(out.code < 2, "exit {}: {}", out.code, out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
    let mut list: Vec<(String, String)> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    list.sort();
    (out.code, list)
}

fn codes(list: &[(String, String)]) -> Vec<&str> {
    list.iter().map(|(c, _)| c.as_str()).collect()
}

fn severity_of<'a>(list: &'a [(String, String)], code: &str) -> Option<&'a str> {
    list.iter()
        .find(|(c, _)| c == code)
        .map(|(_, s)| s.as_str())
}

#[test]
fn without_config_every_rule_reports() {
    let dir = project();
    let (code, list) = findings(&dir, &[]);
    assert_eq!(code, 1);
    assert_eq!(
        codes(&list),
        ["RL101", "RL201", "RL303", "RL306", "RL401"],
        "{list:?}"
    );
}

#[test]
fn config_in_a_parent_directory_is_found() {
    let dir = project();
    write(&dir, ".retrylint.yaml", "rules:\n  RL201: off\n");
    // Run from api/: the file sits one level up.
    let (code, list) = findings(&dir.join("api"), &[]);
    assert!(!codes(&list).contains(&"RL201"), "{list:?}");
    assert_eq!(code, 0, "no error left");
}

#[test]
fn config_flag_wins_over_discovery() {
    let dir = project();
    write(&dir, ".retrylint.yaml", "rules:\n  RL201: off\n");
    write(&dir, "other.yaml", "rules:\n  unprotected-retry: warning\n");
    let (code, list) = findings(&dir, &["--config", "other.yaml"]);
    assert_eq!(severity_of(&list, "RL201"), Some("warning"));
    assert_eq!(code, 0);
}

#[test]
fn off_removes_findings_by_code_name_and_prefix() {
    let dir = project();
    write(
        &dir,
        ".retrylint.yaml",
        "rules:\n  RL3: off\n  unknown-result-unhandled: off\n  RL306: info\n",
    );
    let (_, list) = findings(&dir, &[]);
    // The exact `RL306` entry wins over the `RL3` prefix.
    assert_eq!(codes(&list), ["RL101", "RL201", "RL306"], "{list:?}");
    assert_eq!(severity_of(&list, "RL306"), Some("info"));
}

#[test]
fn severity_change_moves_the_exit_code() {
    let dir = project();
    write(&dir, ".retrylint.yaml", "rules:\n  RL201: warning\n");
    let (code, list) = findings(&dir, &[]);
    assert_eq!(severity_of(&list, "RL201"), Some("warning"));
    assert_eq!(code, 0);
    write(
        &dir,
        ".retrylint.yaml",
        "rules:\n  RL201: warning\n  RL101: error\n",
    );
    let (code, _) = findings(&dir, &[]);
    assert_eq!(code, 1, "RL101 raised to error fails the run");
    write(
        &dir,
        ".retrylint.yaml",
        "rules:\n  RL201: info\nfail_on: info\n",
    );
    let (code, _) = findings(&dir, &[]);
    assert_eq!(code, 1, "fail_on: info");
}

#[test]
fn cli_overrides_the_file() {
    let dir = project();
    write(
        &dir,
        ".retrylint.yaml",
        "rules:\n  RL201: off\nfail_on: never\n",
    );
    // --select re-enables a rule the file turned off, and keeps only it.
    let (code, list) = findings(&dir, &["--select", "RL201"]);
    assert_eq!(codes(&list), ["RL201"]);
    assert_eq!(code, 0, "fail_on: never from the file");
    let (code, _) = findings(&dir, &["--select", "RL201", "--fail-on", "error"]);
    assert_eq!(code, 1, "--fail-on overrides fail_on");
    // Comma-separated and repeated, codes, names and prefixes.
    let (_, list) = findings(
        &dir,
        &[
            "--select",
            "RL2,RL3",
            "--select",
            "undeclared-effect",
            "--ignore",
            "RL306",
        ],
    );
    assert_eq!(codes(&list), ["RL101", "RL201", "RL303"], "{list:?}");
    let (_, list) = findings(&dir, &["--ignore", "excessive-attempts,RL1"]);
    assert_eq!(codes(&list), ["RL306", "RL401"], "{list:?}");
}

#[test]
fn unknown_cli_selector_is_a_usage_error() {
    let dir = project();
    let out = run(&dir, &["check", "--select", "unprotected-retyr"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("did you mean `unprotected-retry`"),
        "{}",
        out.stderr
    );
}

#[test]
fn include_and_exclude_filter_files() {
    let dir = project();
    write(&dir, "legacy/openapi.yaml", SPEC);
    write(&dir, "legacy/retry-policy.yaml", POLICY);
    let (_, all) = findings(&dir, &[]);
    assert_eq!(all.len(), 10, "two projects: {all:?}");
    write(&dir, ".retrylint.yaml", "exclude: [legacy]\n");
    let (_, list) = findings(&dir, &[]);
    assert_eq!(list.len(), 5, "{list:?}");
    write(&dir, ".retrylint.yaml", "include: ['legacy/**']\n");
    let out = run(&dir, &["check", "--format", "json"]);
    assert!(out.stdout.contains("legacy/retry-policy.yaml"));
    assert!(
        !out.stdout.contains("\"api/retry-policy.yaml"),
        "{}",
        out.stdout
    );
}

#[test]
fn strict_errors_name_file_line_column_and_suggest() {
    let dir = project();
    write(
        &dir,
        ".retrylint.yaml",
        "rules:\n  RL201: eror\n  unprotected-retyr: off\nthreshold:\n  max_attempts: 3\nfail_on: sometimes\n",
    );
    let out = run(&dir, &["check"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stdout.is_empty(), "nothing checked: {}", out.stdout);
    let e = &out.stderr;
    assert!(e.contains("unknown value `eror`"), "{e}");
    assert!(e.contains("did you mean `error`?"), "{e}");
    assert!(e.contains("unknown rule `unprotected-retyr`"), "{e}");
    assert!(e.contains("did you mean `unprotected-retry`?"), "{e}");
    assert!(e.contains("unknown key `threshold`"), "{e}");
    assert!(e.contains("did you mean `thresholds`?"), "{e}");
    assert!(e.contains("unknown value `sometimes` for `fail_on`"), "{e}");
    assert!(e.contains(".retrylint.yaml:2:"), "line and column: {e}");
    assert!(e.contains(".retrylint.yaml:4:1"), "line and column: {e}");
}

#[test]
fn wrong_types_are_errors() {
    let dir = project();
    write(
        &dir,
        ".retrylint.yaml",
        "thresholds:\n  max_attempts: '8'\n  max_amplification: 0\ninclude: 3\n",
    );
    let out = run(&dir, &["check"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("`thresholds.max_attempts` must be an integer, found a string"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("must be at least 1"), "{}", out.stderr);
    assert!(out.stderr.contains("`include` must be a list of globs"));
}

#[test]
fn thresholds_reach_rl303_and_rl311() {
    let dir = project();
    write(&dir, ".retrylint.yaml", "thresholds:\n  max_attempts: 8\n");
    let (_, list) = findings(&dir, &[]);
    assert!(!codes(&list).contains(&"RL303"), "{list:?}");
    write(&dir, ".retrylint.yaml", "thresholds:\n  max_attempts: 2\n");
    let out = run(&dir, &["check", "--format", "json"]);
    assert!(
        out.stdout.contains("above the limit of 2"),
        "{}",
        out.stdout
    );

    // RL311: a gateway layer retrying 3 times behind the client's 7 = 21.
    write(
        &dir,
        "api/gateway.retry-policy.yaml",
        "version: 1\nspec: openapi.yaml\nlayer: gateway\ndefaults:\n  retry: true\n  attempts: 3\n  deadline: 5s\n  backoff: {base: 100ms, cap: 2s, jitter: full}\n  retry_on: [connect-failure]\n",
    );
    let (_, list) = findings(&dir, &[]);
    assert!(codes(&list).contains(&"RL311"), "{list:?}");
    write(
        &dir,
        ".retrylint.yaml",
        "thresholds:\n  max_amplification: 21\n  max_attempts: 8\n",
    );
    let (_, list) = findings(&dir, &[]);
    assert!(!codes(&list).contains(&"RL311"), "{list:?}");
}

#[test]
fn readiness_takes_the_config() {
    let dir = project();
    write(&dir, ".retrylint.yaml", "rules:\n  RL201: off\n");
    let out = run(&dir, &["readiness", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stdout.contains("RL201"), "{}", out.stdout);
    write(&dir, ".retrylint.yaml", "rules:\n  RL201: of\n");
    let out = run(&dir, &["readiness"]);
    assert_eq!(out.code, 2);
}

// Partial runs (pre-commit passes only the changed files).

#[test]
fn a_passed_document_brings_its_policies() {
    let dir = project();
    let (_, full) = findings(&dir, &[]);
    let (code, partial) = findings(&dir, &["api/openapi.yaml"]);
    assert_eq!(partial, full);
    assert_eq!(code, 1);
}

#[test]
fn a_passed_policy_brings_its_documents() {
    let dir = project();
    let (_, full) = findings(&dir, &[]);
    let (_, partial) = findings(&dir, &["api/retry-policy.yaml"]);
    assert_eq!(partial, full, "no RL006 for selectors of an unread spec");
}

#[test]
fn policies_without_spec_in_parent_directories_govern() {
    let dir = project();
    std::fs::remove_file(dir.join("api/retry-policy.yaml")).unwrap();
    // A policy at the project root with no `spec:` governs api/openapi.yaml.
    write(
        &dir,
        "retry-policy.yaml",
        &POLICY.replace("spec: openapi.yaml\n", ""),
    );
    // One in a sibling directory does not.
    write(
        &dir,
        "other/retry-policy.yaml",
        &POLICY.replace("spec: openapi.yaml\n", "layer: gateway\n"),
    );
    let (_, partial) = findings(&dir, &["api/openapi.yaml"]);
    assert_eq!(
        codes(&partial),
        ["RL101", "RL201", "RL303", "RL306", "RL401"]
    );
    let (_, policy_only) = findings(&dir, &["retry-policy.yaml"]);
    assert_eq!(policy_only, partial);
}

#[test]
fn unrelated_yaml_alone_checks_nothing() {
    let dir = project();
    write(&dir, "ci/docker-compose.yml", "services: {}\n");
    let (code, list) = findings(&dir, &["ci/docker-compose.yml"]);
    assert_eq!(code, 0);
    assert!(list.is_empty());
}

/// `.retrylint.yaml` is found from the checked paths, not from where retrylint runs:
/// checking another repository uses that repository's configuration.
#[test]
fn configuration_is_found_from_the_checked_path() {
    let base =
        std::env::temp_dir().join(format!("retrylint-config-from-path-{}", std::process::id()));
    let repo = base.join("repo");
    let elsewhere = base.join("elsewhere");
    std::fs::create_dir_all(repo.join("api")).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(
        repo.join("api/openapi.yaml"),
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /orders:\n    post:\n      responses:\n        '201': {description: created}\n      x-retry: {retry: true, retry_on: [503]}\n",
    )
    .unwrap();
    let run = |cwd: &std::path::Path, arg: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_retrylint"))
            .current_dir(cwd)
            .args(["check", arg, "--format", "json"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let before = run(&elsewhere, "../repo");
    assert!(before.contains("RL201"), "{before}");
    std::fs::write(repo.join(".retrylint.yaml"), "rules:\n  RL201: off\n").unwrap();
    let after_from_elsewhere = run(&elsewhere, "../repo");
    let after_from_file = run(&elsewhere, "../repo/api/openapi.yaml");
    let _ = std::fs::remove_dir_all(&base);
    assert!(
        !after_from_elsewhere.contains("RL201"),
        "{after_from_elsewhere}"
    );
    assert!(!after_from_file.contains("RL201"), "{after_from_file}");
}
