//! `retrylint diff`: one fixture pair per regression kind (`fixtures/diff/<kind>/`),
//! the formats, the exit codes, and real git histories in temporary repositories.

#![allow(clippy::disallowed_macros)] // output for the reader (clippy.toml)

mod common;

use common::retrylint_in;
use retrylint::diff::compare::REGRESSIONS;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn pair(kind: &str) -> (String, String) {
    (
        format!("fixtures/diff/{kind}/base"),
        format!("fixtures/diff/{kind}/head"),
    )
}

fn diff(args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["diff"];
    all.extend_from_slice(args);
    retrylint_in(&repo(), &all)
}

fn json_of(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

#[test]
fn every_regression_kind_is_found_on_its_own_fixture_pair() {
    for (kind, _) in REGRESSIONS {
        let (base, head) = pair(kind);
        let (code, stdout, stderr) = diff(&[&base, &head]);
        assert_eq!(code, 1, "{kind}: {stderr}\n{stdout}");
        assert!(
            stdout.contains(&format!("regression {kind}: ")),
            "{kind} not reported:\n{stdout}"
        );
        insta::assert_snapshot!(format!("diff-human-{kind}"), stdout);
    }
}

#[test]
fn each_regression_carries_both_values_and_the_side_of_its_position() {
    for (kind, _) in REGRESSIONS {
        let (base, head) = pair(kind);
        let (_, stdout, _) = diff(&[&base, &head, "--format", "json"]);
        let v = json_of(&stdout);
        let found: Vec<&serde_json::Value> = v["regressions"]
            .as_array()
            .expect("regressions")
            .iter()
            .filter(|r| r["kind"] == *kind)
            .collect();
        assert!(!found.is_empty(), "{kind}: {stdout}");
        for r in found {
            let side = r["side"].as_str().expect("side");
            let file = r["at"]["file"].as_str().expect("file");
            assert!(
                file.starts_with(&format!("fixtures/diff/{kind}/{side}/")),
                "{kind}: {file} is not in {side}"
            );
            assert!(r["at"]["line"].as_u64().expect("line") >= 1);
            assert_ne!(r["base"], r["head"], "{kind}: {r}");
        }
    }
}

#[test]
fn removals_point_into_base_and_the_rest_into_head() {
    let side_of = |kind: &str| {
        let (base, head) = pair(kind);
        let (_, stdout, _) = diff(&[&base, &head, "--format", "json"]);
        let v = json_of(&stdout);
        let r = v["regressions"]
            .as_array()
            .expect("regressions")
            .iter()
            .find(|r| r["kind"] == kind)
            .cloned()
            .expect("the kind");
        (
            r["side"].as_str().expect("side").to_string(),
            format!(
                "{}:{}",
                r["at"]["path"].as_str().expect("path"),
                r["at"]["line"]
            ),
        )
    };
    // The header was at line 10 of BASE's spec; HEAD has no such line.
    assert_eq!(
        side_of("key-removed"),
        ("base".into(), "openapi.yaml:10".into())
    );
    assert_eq!(
        side_of("deadline-lost"),
        ("base".into(), "client.retry-policy.yaml:7".into())
    );
    assert_eq!(
        side_of("key-optional"),
        ("head".into(), "openapi.yaml:10".into())
    );
    assert_eq!(
        side_of("attempts-raised"),
        ("head".into(), "client.retry-policy.yaml:6".into())
    );
}

#[test]
fn a_tree_compared_with_itself_has_nothing_to_report() {
    let (base, _) = pair("attempts-raised");
    let (code, stdout, stderr) = diff(&[&base, &base]);
    assert_eq!(code, 0, "{stderr}\n{stdout}");
    assert!(stdout.contains("0 regressions, 0 improvements; findings: 0 new, 0 fixed"));
}

#[test]
fn the_reverse_of_a_regression_is_an_improvement() {
    let (base, head) = pair("attempts-raised");
    let (code, stdout, stderr) = diff(&[&head, &base, "--format", "json"]);
    assert_eq!(code, 0, "{stderr}\n{stdout}");
    let v = json_of(&stdout);
    assert_eq!(v["summary"]["regressions"], 0);
    let kinds: Vec<&str> = v["improvements"]
        .as_array()
        .expect("improvements")
        .iter()
        .filter_map(|c| c["kind"].as_str())
        .collect();
    assert!(kinds.contains(&"attempts-lowered"), "{kinds:?}");
    assert!(kinds.contains(&"amplification-down"), "{kinds:?}");
}

#[test]
fn regressions_fail_unless_allowed() {
    let (base, head) = pair("jitter-dropped");
    assert_eq!(diff(&[&base, &head]).0, 1);
    let (code, stdout, _) = diff(&[&base, &head, "--allow-regressions"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("regression jitter-dropped"));
}

#[test]
fn renamed_path_parameters_keep_the_operation() {
    let dir = tempfile::tempdir().expect("tempdir");
    for side in ["base", "head"] {
        std::fs::create_dir(dir.path().join(side)).expect("mkdir");
    }
    let spec = |param: &str| {
        format!(
            "openapi: 3.0.3\ninfo: {{title: t, version: '1'}}\npaths:\n  /orders/{{{param}}}:\n    \
             put:\n      parameters:\n        - {{name: {param}, in: path, required: true, schema: {{type: string}}}}\n      \
             responses:\n        '200': {{description: ok}}\n"
        )
    };
    std::fs::write(dir.path().join("base/openapi.yaml"), spec("id")).expect("write");
    std::fs::write(dir.path().join("head/openapi.yaml"), spec("orderId")).expect("write");
    let (code, stdout, stderr) =
        retrylint_in(dir.path(), &["diff", "base", "head", "--format", "json"]);
    assert_eq!(code, 0, "{stderr}\n{stdout}");
    let v = json_of(&stdout);
    assert_eq!(v["operations_added"], serde_json::json!([]), "{stdout}");
    assert_eq!(v["operations_removed"], serde_json::json!([]), "{stdout}");
}

#[test]
fn new_findings_fail_at_the_fail_on_new_level() {
    // Dropping the key leaves the policy's key header undeclared: RL202, an error.
    let (base, head) = pair("key-removed");
    let (_, stdout, _) = diff(&[&base, &head, "--format", "json"]);
    let v = json_of(&stdout);
    let new: Vec<&str> = v["new_findings"]
        .as_array()
        .expect("new findings")
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert_eq!(new, ["RL202"], "{stdout}");
    assert_eq!(v["fixed_findings"], serde_json::json!([]));
    let allowed =
        |level: &str| diff(&[&base, &head, "--allow-regressions", "--fail-on-new", level]).0;
    assert_eq!(allowed("error"), 1);
    assert_eq!(allowed("never"), 0);
    // Dropping the jitter makes RL305 new, a warning: it fails from `warning` down.
    let (base_j, head_j) = pair("jitter-dropped");
    let level = |l: &str| diff(&[&base_j, &head_j, "--allow-regressions", "--fail-on-new", l]).0;
    assert_eq!(level("error"), 0);
    assert_eq!(level("warning"), 1);
    assert_eq!(level("info"), 1);
    // Reversed, the same finding is fixed, and nothing is new.
    let (_, stdout, _) = diff(&[&head, &base, "--format", "json"]);
    let v = json_of(&stdout);
    assert_eq!(v["summary"]["new_findings"], 0, "{stdout}");
    assert!(v["fixed_findings"]
        .as_array()
        .expect("fixed")
        .iter()
        .any(|d| d["code"] == "RL202"));
}

#[test]
fn sarif_holds_the_new_findings_only() {
    let (base, head) = pair("key-removed");
    let (_, json, _) = diff(&[&base, &head, "--format", "json"]);
    let new = json_of(&json)["summary"]["new_findings"]
        .as_u64()
        .expect("count");
    assert!(new > 0);
    let (code, sarif, _) = diff(&[&base, &head, "--format", "sarif"]);
    assert_eq!(code, 1);
    let v = json_of(&sarif);
    assert_eq!(v["version"], "2.1.0");
    let results = v["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len() as u64, new);
}

#[test]
fn github_commands_name_files_relative_to_the_head_root() {
    let (base, head) = pair("attempts-raised");
    let (_, stdout, _) = diff(&[&base, &head, "--format", "github"]);
    let first = stdout.lines().next().expect("a line");
    assert!(
        first.starts_with(
            "::error file=client.retry-policy.yaml,line=6,col=3,title=retrylint diff attempts-raised::"
        ),
        "{stdout}"
    );
}

/// A removal's position is in BASE: its workflow command annotates the HEAD file as a
/// whole (BASE's line number would mark an unrelated HEAD line) and names the BASE
/// position in the message.
#[test]
fn github_commands_of_removals_name_the_base_position_in_the_message() {
    let (base, head) = pair("key-removed");
    let (_, stdout, _) = diff(&[&base, &head, "--format", "github"]);
    let removal = stdout
        .lines()
        .find(|l| l.contains("title=retrylint diff key-removed::"))
        .unwrap_or_else(|| panic!("a key-removed command: {stdout}"));
    assert!(!removal.contains(",line="), "{removal}");
    assert!(removal.contains("[was at "), "{removal}");
}

/// The Markdown of a pair, parsed as GitHub-flavoured Markdown: (heading text, table
/// header cells, body rows, `<details>` blocks).
fn markdown_parts(text: &str) -> (String, Vec<String>, Vec<Vec<String>>, usize) {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let mut heading = String::new();
    let mut header = Vec::new();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let (mut in_heading, mut in_head, mut cell) = (false, false, None::<String>);
    let mut details = 0;
    for event in Parser::new_ext(text, Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::Heading { .. }) => in_heading = true,
            Event::End(TagEnd::Heading(_)) => in_heading = false,
            Event::Start(Tag::TableHead) => in_head = true,
            Event::End(TagEnd::TableHead) => in_head = false,
            Event::Start(Tag::TableRow) => rows.push(Vec::new()),
            Event::Start(Tag::TableCell) => cell = Some(String::new()),
            Event::End(TagEnd::TableCell) => {
                let c = cell.take().unwrap_or_default();
                if in_head {
                    header.push(c);
                } else if let Some(r) = rows.last_mut() {
                    r.push(c);
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if in_heading {
                    heading.push_str(&t);
                }
                if let Some(c) = cell.as_mut() {
                    c.push_str(&t);
                }
            }
            Event::Html(h) | Event::InlineHtml(h) if h.contains("<details>") => details += 1,
            _ => {}
        }
    }
    (heading, header, rows, details)
}

#[test]
fn markdown_is_a_verdict_a_table_of_regressions_and_details() {
    let (base, head) = pair("key-removed");
    let (code, text, _) = diff(&[&base, &head, "--format", "markdown"]);
    assert_eq!(code, 1);
    let (_, json, _) = diff(&[&base, &head, "--format", "json"]);
    let v = json_of(&json);
    let (heading, header, rows, details) = markdown_parts(&text);
    assert!(heading.starts_with("❌ retrylint diff: "), "{heading}");
    assert_eq!(header, ["Operation", "Regression", "Base", "Head", "Where"]);
    let regressions = v["regressions"].as_array().expect("regressions");
    assert_eq!(rows.len(), regressions.len(), "{text}");
    for (row, r) in rows.iter().zip(regressions) {
        assert_eq!(row.len(), 5, "{row:?}");
        assert!(
            row[0].starts_with(r["operation"].as_str().expect("op")),
            "{row:?}"
        );
        assert!(
            row[1].starts_with(r["kind"].as_str().expect("kind")),
            "{row:?}"
        );
        assert_eq!(row[2], r["base"].as_str().expect("base"));
        assert_eq!(row[3], r["head"].as_str().expect("head"));
    }
    // New findings and improvements (the key check's 409 answer stays).
    assert!(details >= 1, "{text}");
    assert!(text.chars().count() <= 65_536);
    // Nothing to report: a passing verdict and no table.
    let (code, text, _) = diff(&[&base, &base, "--format", "markdown"]);
    assert_eq!(code, 0);
    let (heading, header, rows, _) = markdown_parts(&text);
    assert!(
        heading.starts_with("✅ retrylint diff: 0 regressions"),
        "{heading}"
    );
    assert!(header.is_empty() && rows.is_empty());
}

#[test]
fn bad_input_is_exit_2_with_a_message() {
    let (code, _, stderr) = diff(&[
        "fixtures/diff/no-such-dir",
        "fixtures/diff/key-removed/head",
    ]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("BASE fixtures/diff/no-such-dir does not exist"),
        "{stderr}"
    );
    let (code, _, stderr) = diff(&["fixtures/diff/key-removed/head"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("got 1 path(s)"), "{stderr}");
    let (code, _, stderr) = diff(&["a", "b", "c"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("got 3 path(s)"), "{stderr}");
}

#[test]
fn the_report_never_replaces_an_input_of_head() {
    let dir = tempfile::tempdir().expect("tempdir");
    for side in ["base", "head"] {
        let to = dir.path().join(side);
        std::fs::create_dir(&to).expect("mkdir");
        for e in std::fs::read_dir(repo().join("fixtures/diff/key-optional").join(side))
            .expect("fixture")
        {
            let e = e.expect("entry");
            std::fs::copy(e.path(), to.join(e.file_name())).expect("copy");
        }
    }
    let spec = dir.path().join("head/openapi.yaml");
    let before = std::fs::read_to_string(&spec).expect("spec");
    let (code, _, stderr) = retrylint_in(
        dir.path(),
        &["diff", "base", "head", "-o", "head/openapi.yaml"],
    );
    assert_eq!(code, 2);
    assert!(stderr.contains("refusing to write over it"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&spec).expect("spec"), before);
    // Elsewhere the report is written, and the exit code is the diff's.
    let (code, stdout, _) = retrylint_in(
        dir.path(),
        &[
            "diff",
            "base",
            "head",
            "-o",
            "out/diff.md",
            "--format",
            "markdown",
        ],
    );
    assert_eq!(code, 1);
    assert!(stdout.is_empty());
    let written = std::fs::read_to_string(dir.path().join("out/diff.md")).expect("report");
    assert!(written.contains("**key-optional**"), "{written}");
}

/// A git repository in a temporary folder, with commands run without the user's
/// configuration.
struct Repo {
    dir: tempfile::TempDir,
}

impl Repo {
    fn new() -> Repo {
        let r = Repo {
            dir: tempfile::tempdir().expect("tempdir"),
        };
        r.git(&["init", "-q", "-b", "main"]);
        r
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn git(&self, args: &[&str]) {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(["-c", "commit.gpgsign=false"])
            .args(args)
            .current_dir(self.path())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .expect("git runs");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn copy(&self, from: &Path, to: &str) {
        let dest = self.path().join(to);
        std::fs::create_dir_all(&dest).expect("mkdir");
        for e in std::fs::read_dir(from).expect("fixture") {
            let e = e.expect("entry");
            std::fs::copy(e.path(), dest.join(e.file_name())).expect("copy");
        }
    }

    fn commit(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
    }

    fn diff(&self, args: &[&str]) -> (i32, String, String) {
        let mut all = vec!["diff"];
        all.extend_from_slice(args);
        retrylint_in(self.path(), &all)
    }
}

fn git_available() -> bool {
    let ok = Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: git is not installed");
    }
    ok
}

#[test]
fn base_revisions_of_a_real_history() {
    if !git_available() {
        return;
    }
    let r = Repo::new();
    r.copy(&repo().join("fixtures/diff/attempts-raised/base"), "api");
    r.commit("policy");
    // A feature branch raises the attempts.
    r.git(&["checkout", "-q", "-b", "feature"]);
    r.copy(&repo().join("fixtures/diff/attempts-raised/head"), "api");
    r.commit("more attempts");
    let (code, stdout, stderr) = r.diff(&["--base", "HEAD~1", "--format", "json"]);
    assert_eq!(code, 1, "{stderr}\n{stdout}");
    let v = json_of(&stdout);
    assert_eq!(v["base"], "HEAD~1");
    let raised = v["regressions"]
        .as_array()
        .expect("regressions")
        .iter()
        .find(|c| c["kind"] == "attempts-raised")
        .cloned()
        .expect("attempts-raised");
    assert_eq!(raised["at"]["file"], "api/client.retry-policy.yaml");
    assert_eq!(raised["base"], "3");
    assert_eq!(raised["head"], "5");
    // The same against the branch it started from, and for one folder.
    let (code, by_branch, _) = r.diff(&["--base", "main", "api", "--format", "json"]);
    assert_eq!(code, 1);
    assert_eq!(json_of(&by_branch)["regressions"], v["regressions"]);
    // An uncommitted edit is compared with the last commit: a removal points into it.
    let policy = r.path().join("api/client.retry-policy.yaml");
    let text = std::fs::read_to_string(&policy).expect("policy");
    std::fs::write(&policy, text.replace("  deadline: 10s\n", "")).expect("write");
    let (code, stdout, stderr) = r.diff(&["--base", "HEAD"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.contains("regression deadline-lost"), "{stdout}");
    assert!(
        stdout.contains("--> HEAD:api/client.retry-policy.yaml:7:3 (base)"),
        "{stdout}"
    );
    assert!(!stdout.contains("attempts-raised"), "{stdout}");
    // Against itself after a commit: nothing.
    r.commit("no deadline");
    let (code, stdout, _) = r.diff(&["--base", "HEAD"]);
    assert_eq!(code, 0, "{stdout}");
}

#[test]
fn a_folder_new_since_the_revision_has_an_empty_base() {
    if !git_available() {
        return;
    }
    let r = Repo::new();
    std::fs::write(r.path().join("README"), "x\n").expect("write");
    r.commit("start");
    r.copy(&repo().join("fixtures/diff/attempts-raised/base"), "api");
    let (code, stdout, stderr) = r.diff(&["--base", "HEAD", "api", "--format", "json"]);
    assert!(code == 0 || code == 1, "{stderr}");
    let v = json_of(&stdout);
    assert_eq!(v["operations_removed"], serde_json::json!([]));
    assert_eq!(
        v["operations_added"].as_array().map(Vec::len),
        Some(5),
        "{stdout}"
    );
}

#[test]
fn a_bad_revision_or_no_repository_is_exit_2() {
    if !git_available() {
        return;
    }
    let r = Repo::new();
    r.copy(&repo().join("fixtures/diff/attempts-raised/base"), "api");
    r.commit("policy");
    let (code, _, stderr) = r.diff(&["--base", "no-such-branch"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("--base no-such-branch: no such revision"),
        "{stderr}"
    );
    let outside = tempfile::tempdir().expect("tempdir");
    let (code, _, stderr) = retrylint_in(outside.path(), &["diff", "--base", "HEAD"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--base needs a git repository"), "{stderr}");
}

#[test]
fn a_real_spec_that_drops_its_key_header_regresses_every_operation_that_had_it() {
    let spec =
        repo().join("../shared/corpus/specs/Adyen-adyen-openapi--json-CheckoutService-v71.json");
    let Ok(text) = std::fs::read_to_string(&spec) else {
        eprintln!("skipped: ../shared/corpus is not here (the Adyen Checkout spec)");
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    for side in ["base", "head"] {
        std::fs::create_dir(dir.path().join(side)).expect("mkdir");
    }
    std::fs::write(dir.path().join("base/openapi.json"), &text).expect("write");
    // HEAD: every operation stops listing the shared `Idempotency-Key` parameter.
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let mut dropped = 0;
    for item in v["paths"].as_object_mut().expect("paths").values_mut() {
        for op in item.as_object_mut().expect("path item").values_mut() {
            let Some(params) = op.get_mut("parameters").and_then(|p| p.as_array_mut()) else {
                continue;
            };
            let before = params.len();
            params.retain(|p| !p.to_string().contains("Idempotency-Key"));
            dropped += before - params.len();
        }
    }
    assert!(dropped > 0);
    std::fs::write(dir.path().join("head/openapi.json"), v.to_string()).expect("write");
    let (code, stdout, stderr) =
        retrylint_in(dir.path(), &["diff", "base", "head", "--format", "json"]);
    assert_eq!(code, 1, "{stderr}");
    let out = json_of(&stdout);
    let removed: Vec<&serde_json::Value> = out["regressions"]
        .as_array()
        .expect("regressions")
        .iter()
        .filter(|r| r["kind"] == "key-removed")
        .collect();
    assert_eq!(removed.len(), dropped, "{stdout}");
    // Each points at its own operation's `$ref` in BASE.
    let lines: std::collections::HashSet<u64> = removed
        .iter()
        .map(|r| r["at"]["line"].as_u64().expect("line"))
        .collect();
    assert_eq!(lines.len(), dropped);
    assert!(removed.iter().all(|r| r["side"] == "base"));
}

/// Copies a fixture tree (folders too) into `to`.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("fixture") {
        let e = e.expect("entry");
        let dest = to.join(e.file_name());
        if e.path().is_dir() {
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).expect("copy");
        }
    }
}

/// The platform example (its `.retrylint.yaml` binds the Envoy and Istio configs to
/// `api/openapi.yaml` through `services:`) with a second API beside it in `billing/`.
fn platform_with_a_second_api(to: &Path) {
    copy_tree(&repo().join("fixtures/examples/platform"), to);
    copy_tree(&repo().join("fixtures/examples/shop"), &to.join("billing"));
}

/// Issue 36: each side reads its own `.retrylint.yaml` (BASE's `services:` bind
/// BASE's configs), so a byte-for-byte copy of a project diffed against it changes
/// nothing, and neither does a second API beside the first.
#[test]
fn a_copy_of_a_project_with_services_diffed_against_it_changes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    platform_with_a_second_api(&a);
    platform_with_a_second_api(&b);
    let (code, stdout, stderr) = retrylint_in(dir.path(), &["diff", "a", "b", "--format", "json"]);
    assert_eq!(code, 0, "{stderr}\n{stdout}");
    let v = json_of(&stdout);
    for list in [
        "regressions",
        "improvements",
        "new_findings",
        "fixed_findings",
    ] {
        assert_eq!(
            v[list].as_array().map(Vec::len),
            Some(0),
            "{list}: {stdout}"
        );
    }
    // The configs are bound on both sides: the operations are compared, and HEAD
    // alone has findings from the Envoy route (they are in both, so none is new).
    let (_, check, _) = retrylint_in(&b, &["check", ".", "--format", "json"]);
    assert!(check.contains("deploy/envoy"), "{check}");
}

#[test]
fn an_unchanged_work_tree_diffed_against_its_revision_changes_nothing() {
    if !git_available() {
        return;
    }
    let r = Repo::new();
    platform_with_a_second_api(r.path());
    r.commit("platform and billing");
    let (code, stdout, stderr) = r.diff(&["--base", "HEAD"]);
    assert_eq!(code, 0, "{stderr}\n{stdout}");
    assert!(
        stdout.contains("0 regressions, 0 improvements; findings: 0 new, 0 fixed"),
        "{stdout}"
    );
}

/// One change at one place (a policy's `defaults`) that regresses several operations
/// is one Markdown row with a count (issue 36: a `defaults` change was one row per
/// operation, 738 rows); JSON still lists each.
#[test]
fn markdown_groups_one_change_of_defaults_into_one_row() {
    let (base, head) = pair("jitter-dropped");
    let (_, json, _) = diff(&[&base, &head, "--format", "json"]);
    let v = json_of(&json);
    let jitter = v["regressions"]
        .as_array()
        .expect("regressions")
        .iter()
        .filter(|r| r["kind"] == "jitter-dropped")
        .count();
    assert_eq!(jitter, 3, "{json}");
    let (_, text, _) = diff(&[&base, &head, "--format", "markdown"]);
    let (_, _, rows, _) = markdown_parts(&text);
    let grouped: Vec<&Vec<String>> = rows
        .iter()
        .filter(|r| r[1].starts_with("jitter-dropped"))
        .collect();
    assert_eq!(grouped.len(), 1, "{text}");
    assert!(grouped[0][0].contains("(3 operations)"), "{text}");
    assert!(grouped[0][1].contains("lost its jitter"), "{text}");
}

/// Two client layers on one operation (a Go client in code and a Resilience4j
/// instance, bound to one spec when two examples share a folder) each pair with
/// their own on the other side: a tree against itself reports nothing (before,
/// both paired with the first client layer: "retry-on-widened" twice).
#[test]
fn two_client_layers_of_one_operation_pair_with_their_own() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("tree");
    copy_tree(&repo().join("fixtures/examples/code"), &root.join("code"));
    copy_tree(
        &repo().join("fixtures/examples/spring"),
        &root.join("spring"),
    );
    let root = root.to_string_lossy().into_owned();
    // The premise: one operation retried by two client layers.
    let (_, layers, _) = retrylint_in(&repo(), &["layers", "getOrder", &root]);
    assert!(
        layers.matches("client layer:").count() >= 2,
        "two client layers on getOrder: {layers}"
    );
    let (code, stdout, stderr) = diff(&[&root, &root]);
    assert_eq!(code, 0, "{stderr}\n{stdout}");
    assert!(
        stdout.contains("0 regressions, 0 improvements; findings: 0 new, 0 fixed"),
        "{stdout}"
    );
}
