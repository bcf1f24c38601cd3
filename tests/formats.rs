//! Every output format over one shared sample (`fixtures/examples/shop`, run from the
//! repository root so paths are stable), as insta snapshots with the version redacted,
//! plus checks that parse each format back.

use retrylint::check::{run, CheckOptions, CheckOutcome};
use retrylint::report::{self, github, gitlab, json, junit, sarif};
use retrylint::rules::REGISTRY;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn shop() -> CheckOutcome {
    run(&CheckOptions {
        paths: vec![repo().join("fixtures/examples/shop")],
        cwd: Some(repo()),
        root: Some(repo()),
        ..CheckOptions::default()
    })
}

fn redact(s: &str) -> String {
    s.replace(
        &format!("\"{}\"", env!("CARGO_PKG_VERSION")),
        "\"[version]\"",
    )
}

#[test]
fn shared_sample_has_findings() {
    let outcome = shop();
    assert!(outcome.diagnostics.len() >= 3, "{:?}", outcome.diagnostics);
    assert!(outcome.diagnostics.iter().any(|d| d.code == "RL201"));
}

#[test]
fn json_format() {
    let outcome = shop();
    let text = json::render(&outcome.diagnostics);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(
        v["diagnostics"].as_array().unwrap().len(),
        outcome.diagnostics.len()
    );
    insta::assert_snapshot!("json", text);
}

#[test]
fn sarif_format() {
    let outcome = shop();
    let text = sarif::render(&outcome.diagnostics, &repo());
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["version"], "2.1.0");
    let run = &v["runs"][0];
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), REGISTRY.len());
    for (i, r) in REGISTRY.iter().enumerate() {
        assert_eq!(rules[i]["id"], r.meta.code);
        assert_eq!(rules[i]["name"], r.meta.name);
        for key in ["shortDescription", "fullDescription", "help"] {
            assert!(rules[i][key]["text"]
                .as_str()
                .is_some_and(|t| !t.is_empty()));
        }
        assert!(rules[i]["defaultConfiguration"]["level"].is_string());
    }
    let rl201 = REGISTRY
        .iter()
        .position(|r| r.meta.code == "RL201")
        .unwrap();
    assert!(rules[rl201]["help"]["markdown"]
        .as_str()
        .unwrap()
        .contains("# RL201 unprotected-retry"));
    assert_eq!(
        rules[rl201]["helpUri"],
        "https://github.com/retrylint/retrylint/blob/main/rules/RL201-unprotected-retry.md"
    );
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), outcome.diagnostics.len());
    for (res, d) in results.iter().zip(&outcome.diagnostics) {
        assert_eq!(res["ruleId"], d.code);
        let idx = res["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[idx]["id"], d.code);
        let loc = &res["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        let uri = loc["artifactLocation"]["uri"].as_str().unwrap();
        assert!(uri.starts_with("fixtures/examples/shop/"), "{uri}");
        assert!(loc["region"]["startLine"].as_u64().unwrap() >= 1);
        assert_eq!(
            res["relatedLocations"].as_array().map_or(0, Vec::len),
            d.labels.len()
        );
        assert_eq!(
            res["partialFingerprints"][sarif::FINGERPRINT_KEY]
                .as_str()
                .unwrap()
                .len(),
            32
        );
    }
    // The rule descriptors (rule documents) are checked above; keep them out of the
    // snapshot so a rule added elsewhere does not churn it.
    v["runs"][0]["tool"]["driver"]["rules"] = serde_json::json!("[checked above]");
    let text = serde_json::to_string_pretty(&v).unwrap();
    insta::assert_snapshot!("sarif", redact(&text));
}

#[test]
fn github_format() {
    let outcome = shop();
    let text = github::render(&outcome.diagnostics, &repo());
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), outcome.diagnostics.len());
    for (l, d) in lines.iter().zip(&outcome.diagnostics) {
        let cmd = match d.severity.as_str() {
            "info" => "notice",
            s => s,
        };
        assert!(l.starts_with(&format!("::{cmd} file=")), "{l}");
        assert!(
            l.contains(&format!(",title={} {}::", d.code, d.name)),
            "{l}"
        );
    }
    insta::assert_snapshot!("github", text);
}

#[test]
fn github_escaping() {
    assert_eq!(github::escape_data("50% a\r\nb"), "50%25 a%0D%0Ab");
    assert_eq!(github::escape_property("a:b,c%"), "a%3Ab%2Cc%25");
}

#[test]
fn junit_format() {
    let outcome = shop();
    let text = junit::render(&outcome.diagnostics);
    assert!(text.starts_with("<?xml"));
    assert_eq!(text.matches("<failure ").count(), outcome.diagnostics.len());
    assert_eq!(
        text.matches("<testcase ").count(),
        text.matches("</testcase>").count()
    );
    assert!(text.contains(&format!("failures=\"{}\"", outcome.diagnostics.len())));
    // One test case per finding: `tests` never below `failures` (issue 36).
    assert_eq!(
        text.matches("<testcase ").count(),
        outcome.diagnostics.len()
    );
    assert!(text.contains(&format!("tests=\"{}\"", outcome.diagnostics.len())));
    insta::assert_snapshot!("junit", text);
}

#[test]
fn junit_escaping() {
    assert_eq!(
        junit::xml_escape("<a href=\"x\">&'\n\u{1}"),
        "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&#10;\u{fffd}"
    );
    assert!(junit::render(&[]).contains("name=\"no findings\""));
}

#[test]
fn gitlab_format() {
    let outcome = shop();
    let text = gitlab::render(&outcome.diagnostics, &repo());
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let issues = v.as_array().unwrap();
    assert_eq!(issues.len(), outcome.diagnostics.len());
    let mut prints: Vec<&str> = issues
        .iter()
        .map(|i| i["fingerprint"].as_str().unwrap())
        .collect();
    prints.sort();
    prints.dedup();
    assert_eq!(prints.len(), issues.len(), "fingerprints are unique");
    for (i, d) in issues.iter().zip(&outcome.diagnostics) {
        assert!(i["check_name"].as_str().unwrap().starts_with(d.code));
        assert!(["info", "minor", "major", "critical", "blocker"]
            .contains(&i["severity"].as_str().unwrap()));
        assert!(i["location"]["path"]
            .as_str()
            .unwrap()
            .starts_with("fixtures/examples/shop/"));
        assert!(i["location"]["lines"]["begin"].as_u64().unwrap() >= 1);
    }
    insta::assert_snapshot!("gitlab", text);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// A scratch directory under the target dir (removed first).
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("retrylint-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn check_in(dir: &Path) -> CheckOutcome {
    run(&CheckOptions {
        paths: vec![dir.to_path_buf()],
        cwd: Some(dir.to_path_buf()),
        root: Some(dir.to_path_buf()),
        ..CheckOptions::default()
    })
}

#[test]
fn fingerprints_survive_a_line_shift() {
    let dir = scratch("fingerprints");
    copy_dir(&repo().join("fixtures/examples/shop"), &dir);
    let root = std::fs::canonicalize(&dir).unwrap();
    let before = check_in(&dir);
    let prints_before = report::fingerprints(&before.diagnostics, &root);
    let spec = dir.join("openapi.yaml");
    let text = std::fs::read_to_string(&spec).unwrap();
    std::fs::write(&spec, format!("# a comment\n# another\n\n{text}")).unwrap();
    let after = check_in(&dir);
    assert_eq!(before.diagnostics.len(), after.diagnostics.len());
    let moved = after
        .diagnostics
        .iter()
        .zip(&before.diagnostics)
        .filter(|(a, b)| {
            a.primary.location.file.path == spec.canonicalize().unwrap()
                && a.primary.location.span.start != b.primary.location.span.start
        })
        .count();
    assert!(moved > 0, "the edit moved some finding");
    let prints_after = report::fingerprints(&after.diagnostics, &root);
    assert_eq!(prints_before, prints_after);
    // The SARIF and GitLab fingerprints are these.
    let v: serde_json::Value =
        serde_json::from_str(&gitlab::render(&after.diagnostics, &root)).unwrap();
    assert_eq!(v[0]["fingerprint"].as_str().unwrap(), prints_after[0]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn baseline_survives_a_line_shift() {
    use retrylint::baseline;
    let dir = scratch("baseline");
    copy_dir(&repo().join("fixtures/examples/shop"), &dir);
    let root = std::fs::canonicalize(&dir).unwrap();
    let before = check_in(&dir);
    assert!(!before.diagnostics.is_empty());
    let b = baseline::of(&before.diagnostics, &root);
    let written = dir.join("baseline.json");
    std::fs::write(&written, baseline::render(&b)).unwrap();
    let b = baseline::read(&written).unwrap();
    for name in ["openapi.yaml", "shop.retry-policy.yaml"] {
        let f = dir.join(name);
        let text = std::fs::read_to_string(&f).unwrap();
        std::fs::write(&f, format!("# moved\n# down\n{text}")).unwrap();
    }
    let after = check_in(&dir);
    assert_eq!(after.diagnostics.len(), before.diagnostics.len());
    assert!(baseline::filter_new(after.diagnostics, &b, &root).is_empty());
    // A new finding is still reported: drop one finding (an operation or a count)
    // from the first entry.
    let mut fewer = b.clone();
    let first = &mut fewer.findings[0];
    if first.operations.pop().is_none() {
        first.count -= 1;
    }
    let again = check_in(&dir);
    let new = baseline::filter_new(again.diagnostics, &fewer, &root);
    assert_eq!(new.len(), 1);
    assert_eq!(new[0].code, fewer.findings[0].rule);
    let _ = std::fs::remove_dir_all(&dir);
}
