//! Paths per output format and SARIF that GitHub code scanning accepts, through the
//! binary: cases 25 (one finding over 1,200 operations) and 26 (file and folder names
//! with space, `#`, `%` and non-ASCII), a CI step run from a subdirectory (with and
//! without `GITHUB_WORKSPACE`), and (ignored, release) a run over GitHub's result limit.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cases() -> PathBuf {
    repo().join("fixtures/cases")
}

/// Runs the binary in `dir`; `GITHUB_WORKSPACE` is set only when given.
fn run_in(dir: &Path, args: &[&str], workspace: Option<&Path>) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_retrylint"));
    cmd.args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_WORKSPACE");
    if let Some(w) = workspace {
        cmd.env("GITHUB_WORKSPACE", w);
    }
    let out = cmd.output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The value of `file=` in each `--format github` line.
fn github_files(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| {
            let start = l.find("file=").expect("file=") + 5;
            let end = start + l[start..].find(",line=").expect(",line=");
            l[start..end].to_string()
        })
        .collect()
}

const CASE26: &str = "26-sarif-uri/team apis/orders #2 50% ü.yaml";
const CASE26_URI: &str = "26-sarif-uri/team%20apis/orders%20%232%2050%25%20%C3%BC.yaml";

#[test]
fn case25_sarif_keeps_1000_related_locations_and_json_all_1200() {
    let args = ["check", "25-sarif-related-locations.yaml", "--root", "."];
    let (code, out, err) = run_in(
        &cases(),
        &[&args[..], &["--format", "sarif"]].concat(),
        None,
    );
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let results = v["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "RL501 once");
    let r = &results[0];
    assert_eq!(r["ruleId"], "RL501");
    let region = &r["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (region["startLine"].as_u64(), region["startColumn"].as_u64()),
        (Some(7209), Some(5))
    );
    let related = r["relatedLocations"].as_array().unwrap();
    assert_eq!(related.len(), 1000);
    let ids: std::collections::HashSet<u64> =
        related.iter().map(|l| l["id"].as_u64().unwrap()).collect();
    assert_eq!(ids.len(), 1000, "ids are unique");
    assert_eq!(related[999]["message"]["text"], "used by `GET /items0999`");
    let message = r["message"]["text"].as_str().unwrap();
    assert!(
        message.contains("1000 of the 1200 operations are listed as related locations; 200 more operations share this finding"),
        "{message}"
    );
    let notes = &v["runs"][0]["invocations"][0];
    assert_eq!(notes["executionSuccessful"], true);
    let note = notes["toolExecutionNotifications"][0]["message"]["text"]
        .as_str()
        .unwrap();
    assert!(
        note.starts_with("1 result keeps only 1000 related locations"),
        "{note}"
    );
    assert!(err.contains(note), "said on stderr too: {err}");

    let (_, out, _) = run_in(&cases(), &[&args[..], &["--format", "json"]].concat(), None);
    let v = json(&out);
    let d = &v["diagnostics"][0];
    assert_eq!(d["labels"].as_array().unwrap().len(), 1200);
    assert_eq!(d["operations"].as_array().unwrap().len(), 1200);
}

#[test]
fn case26_sarif_uri_is_percent_encoded_and_other_formats_show_the_plain_path() {
    let args = ["check", "26-sarif-uri", "--root", "."];
    let with = |format: &str| {
        let (code, out, err) = run_in(&cases(), &[&args[..], &["--format", format]].concat(), None);
        assert_eq!(code, 0, "{format}: {err}");
        out
    };
    let v = json(&with("sarif"));
    let loc = &v["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(loc["uri"], CASE26_URI);
    assert_eq!(loc["uriBaseId"], "%SRCROOT%");

    let v = json(&with("gitlab"));
    assert_eq!(v[0]["location"]["path"], CASE26);
    let v = json(&with("json"));
    assert_eq!(v["diagnostics"][0]["path"], CASE26);
    assert!(with("junit").contains(&format!("file=\"{CASE26}\"")));
    assert!(with("human").contains(CASE26));
    // GitHub's own escaping: `%` as `%25`, nothing else.
    assert_eq!(
        github_files(&with("github")),
        ["26-sarif-uri/team apis/orders #2 50%25 ü.yaml"]
    );
}

#[test]
fn gitlab_description_separates_message_and_help() {
    let (_, out, _) = run_in(
        &cases(),
        &["check", "26-sarif-uri", "--root", ".", "--format", "gitlab"],
        None,
    );
    assert_eq!(
        json(&out)[0]["description"],
        "The 429 response of `GET /orders` declares no `Retry-After` header. Help: Declare a \
         `Retry-After` header (delay-seconds or HTTP-date) on the 429 response so clients know \
         when to retry."
    );
}

/// `T/checkout/.git`, `T/checkout/services/team apis/orders #2 50% ü.yaml`: returns
/// `(T, T/checkout)`.
fn ci_layout(name: &str) -> (PathBuf, PathBuf) {
    let tmp = std::env::temp_dir().join(format!("retrylint-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let checkout = tmp.join("checkout");
    std::fs::create_dir_all(checkout.join(".git")).unwrap();
    let dir = checkout.join("services/team apis");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(cases().join(CASE26), dir.join("orders #2 50% ü.yaml")).unwrap();
    (tmp, checkout)
}

#[test]
fn a_step_with_working_directory_gets_paths_per_format() {
    let (tmp, checkout) = ci_layout("paths");
    let cwd = checkout.join("services");
    let format = |f: &str, workspace: Option<&Path>| {
        let (code, out, err) = run_in(&cwd, &["check", ".", "--format", f], workspace);
        assert_eq!(code, 0, "{f}: {err}");
        out
    };
    // Relative to the current directory: human, json, junit.
    let here = "team apis/orders #2 50% ü.yaml";
    assert_eq!(json(&format("json", None))["diagnostics"][0]["path"], here);
    assert!(format("junit", None).contains(&format!("file=\"{here}\"")));
    assert!(format("human", None).contains(here));
    // Relative to the project root (the git work tree): sarif, gitlab.
    let v = json(&format("sarif", None));
    assert_eq!(
        v["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "services/team%20apis/orders%20%232%2050%25%20%C3%BC.yaml"
    );
    assert_eq!(
        json(&format("gitlab", None))[0]["location"]["path"],
        "services/team apis/orders #2 50% ü.yaml"
    );
    // github: the project root without GITHUB_WORKSPACE, else GITHUB_WORKSPACE.
    let from_root = ["services/team apis/orders #2 50%25 ü.yaml"];
    assert_eq!(github_files(&format("github", None)), from_root);
    assert_eq!(github_files(&format("github", Some(&checkout))), from_root);
    // A checkout into a subfolder of the workspace (`actions/checkout` with `path:`).
    assert_eq!(
        github_files(&format("github", Some(&tmp))),
        ["checkout/services/team apis/orders #2 50%25 ü.yaml"]
    );
    // The workspace does not move SARIF or GitLab paths.
    let v = json(&format("gitlab", Some(&tmp)));
    assert_eq!(
        v[0]["location"]["path"],
        "services/team apis/orders #2 50% ü.yaml"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

/// More results than GitHub accepts in one run: 25,500 infos (503 without
/// `Retry-After`) and, last in the file, 100 warnings (429 without it). Run by CI in
/// release mode (`cargo test --release -- --ignored`).
#[test]
#[ignore = "large generated input; CI runs it in release mode"]
fn over_25000_results_the_most_severe_are_kept() {
    let tmp = std::env::temp_dir().join(format!("retrylint-big-sarif-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(tmp.join(".git")).unwrap();
    let mut spec = String::from("openapi: 3.0.3\ninfo: {title: big, version: '1'}\npaths:\n");
    for i in 0..25_600 {
        let status = if i >= 25_500 { "429" } else { "503" };
        spec.push_str(&format!(
            "  /r{i}:\n    get:\n      responses:\n        '200': {{description: ok}}\n        '{status}': {{description: busy}}\n"
        ));
    }
    std::fs::write(tmp.join("openapi.yaml"), spec).unwrap();
    let (code, out, err) = run_in(&tmp, &["check", ".", "--format", "sarif"], None);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let results = v["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 25_000);
    let warnings = results.iter().filter(|r| r["level"] == "warning").count();
    assert_eq!(warnings, 100, "every warning is kept");
    let note = v["runs"][0]["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
        .as_str()
        .unwrap();
    assert!(
        note.starts_with("Left out 600 of 25600 results (0 errors, 0 warnings, 600 infos)"),
        "{note}"
    );
    assert!(err.contains(note), "{err}");
    assert_eq!(v["runs"][0]["invocations"][0]["executionSuccessful"], true);
    assert!(retrylint::report::sarif_limits::gzip_len(out.as_bytes()) <= 10_000_000);
    let _ = std::fs::remove_dir_all(&tmp);
}
