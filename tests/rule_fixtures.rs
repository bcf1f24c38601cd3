//! Every rule's fixtures: `fixtures/rules/<CODE>-<name>/trigger-*/` must produce the
//! rule, `clean-*/` must not. The rendered human output of each case is an insta
//! snapshot (clean cases snapshot to no finding of that rule).

use retrylint::check::{run, CheckOptions};
use retrylint::report::human::{render, HumanOptions};
use retrylint::rules::REGISTRY;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cases() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(repo().join("fixtures/rules"))
        .min_depth(2)
        .max_depth(2)
        .sort_by_file_name()
    {
        let entry = entry.expect("readable fixtures");
        if entry.file_type().is_dir() {
            let rule_dir = entry
                .path()
                .parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_string_lossy()
                .to_string();
            out.push((rule_dir, entry.path().to_path_buf()));
        }
    }
    out
}

fn check_dir(dir: &Path) -> retrylint::check::CheckOutcome {
    // A fixture may carry its own `.retrylint.yaml` (`services:`, `platforms:`).
    let config = match dir.join(".retrylint.yaml") {
        p if p.is_file() => {
            retrylint::config::load(Some(&p), dir).expect("the fixture's configuration reads")
        }
        _ => retrylint::config::Config::default(),
    };
    run(&CheckOptions {
        paths: vec![dir.to_path_buf()],
        cwd: Some(repo()),
        root: Some(dir.to_path_buf()),
        services: config.services,
        platforms: config.platforms,
        ..CheckOptions::default()
    })
}

#[test]
fn every_rule_fixture_triggers_or_stays_clean() {
    let mut failures = Vec::new();
    let all = cases();
    assert!(!all.is_empty(), "no fixtures found");
    for (rule_dir, dir) in &all {
        let code = &rule_dir[..5];
        let case = dir.file_name().unwrap().to_string_lossy().to_string();
        let outcome = check_dir(dir);
        let fired = outcome
            .diagnostics
            .iter()
            .filter(|d| d.code == code)
            .count();
        if case.starts_with("trigger") && fired == 0 {
            failures.push(format!("{rule_dir}/{case}: expected {code}, got none"));
        }
        if case.starts_with("clean") && fired != 0 {
            failures.push(format!(
                "{rule_dir}/{case}: expected no {code}, got {fired}"
            ));
        }
        let relevant: Vec<_> = outcome
            .diagnostics
            .iter()
            .filter(|d| d.code == code)
            .cloned()
            .collect();
        let rendered = render(&relevant, HumanOptions::default());
        insta::assert_snapshot!(format!("{rule_dir}__{case}"), rendered);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_registered_rule_has_trigger_and_clean_fixtures() {
    let all = cases();
    let mut missing = Vec::new();
    // `probe` rules (RL6xx) judge journals, not files: their trigger and clean cases
    // are in tests/probe_judge.rs (tests/rule_docs.rs holds that).
    for rule in REGISTRY
        .iter()
        .filter(|r| r.meta.question != retrylint::diagnostic::Question::Observed)
    {
        let dir = format!("{}-{}", rule.meta.code, rule.meta.name);
        let has = |prefix: &str| {
            all.iter().any(|(r, d)| {
                *r == dir && d.file_name().unwrap().to_string_lossy().starts_with(prefix)
            })
        };
        if !has("trigger") {
            missing.push(format!("{dir}/trigger-*"));
        }
        if !has("clean") {
            missing.push(format!("{dir}/clean-*"));
        }
    }
    assert!(missing.is_empty(), "missing fixtures: {missing:?}");
}
