//! The registry and `rules/` agree, and every documented example is run: "Example"
//! must produce its rule, "Use instead" must not.

use retrylint::check::{run, CheckOptions};
use retrylint::diagnostic::catalog;
use retrylint::rules::docs::{doc_for, example_files, front_matter, section, RULE_DOCS};
use retrylint::rules::REGISTRY;
use std::path::PathBuf;

/// The catalog (identities, at the bottom) and the registry (checks, on top) list
/// the same rules in the same order, each rule's `META` being its catalog entry.
#[test]
fn registry_and_catalog_agree() {
    let registry: Vec<&str> = REGISTRY.iter().map(|r| r.meta.code).collect();
    let catalog: Vec<&str> = catalog::ALL.iter().map(|m| m.code).collect();
    assert_eq!(registry, catalog);
    for (r, m) in REGISTRY.iter().zip(catalog::ALL) {
        let identity = |m: &retrylint::diagnostic::RuleMeta| {
            (m.code, m.name, m.severity, m.question, m.summary)
        };
        assert_eq!(identity(r.meta), identity(m));
        assert_eq!(catalog::find(m.name).map(|f| f.code), Some(m.code));
        assert_eq!(
            catalog::find(&m.code.to_lowercase()).map(|f| f.name),
            Some(m.name)
        );
    }
    assert!(catalog::find("no-such-rule").is_none());
}

/// A code's hundreds digit says which readiness question its rule serves
/// (ARCHITECTURE.md, "A rule").
#[test]
fn a_code_names_its_question() {
    use retrylint::diagnostic::Question;
    for m in catalog::ALL {
        let expected = match &m.code[2..3] {
            "0" => Question::Input,
            "1" => Question::Effect,
            "2" => Question::Safety,
            "3" => Question::Budget,
            "4" => Question::UnknownResult,
            "5" => Question::ServerContract,
            "6" => Question::Observed,
            other => panic!("{}: no question for the digit {other}", m.code),
        };
        assert_eq!(m.question, expected, "{}", m.code);
    }
}

#[test]
fn registry_is_sorted_unique_and_kebab_case() {
    let codes: Vec<&str> = REGISTRY.iter().map(|r| r.meta.code).collect();
    let mut sorted = codes.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(codes, sorted, "codes must be unique and sorted");
    for r in REGISTRY {
        let name = r.meta.name;
        assert!(
            !name.is_empty()
                && name.split('-').all(|w| !w.is_empty()
                    && w.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())),
            "{name} is not kebab-case"
        );
        assert!(
            r.meta.code.len() == 5 && r.meta.code.starts_with("RL"),
            "{}",
            r.meta.code
        );
    }
}

#[test]
fn every_rule_has_exactly_one_doc_and_every_doc_a_rule() {
    for r in REGISTRY {
        let expected = format!("{}-{}.md", r.meta.code, r.meta.name);
        let matching: Vec<_> = RULE_DOCS
            .iter()
            .filter(|(n, _)| n.starts_with(r.meta.code))
            .collect();
        assert_eq!(
            matching.len(),
            1,
            "{}: {:?}",
            r.meta.code,
            matching.iter().map(|m| m.0).collect::<Vec<_>>()
        );
        assert_eq!(matching[0].0, expected);
    }
    for (name, _) in RULE_DOCS {
        assert!(
            REGISTRY
                .iter()
                .any(|r| format!("{}-{}.md", r.meta.code, r.meta.name) == *name),
            "rules/{name} documents no registered rule"
        );
    }
}

#[test]
fn front_matter_matches_the_registry() {
    for r in REGISTRY {
        let doc = doc_for(r.meta.code).expect("doc exists");
        let fm: std::collections::HashMap<_, _> = front_matter(doc).into_iter().collect();
        assert_eq!(fm.get("code"), Some(&r.meta.code));
        assert_eq!(fm.get("name"), Some(&r.meta.name));
        assert_eq!(
            fm.get("severity"),
            Some(&r.meta.severity.as_str()),
            "{}",
            r.meta.code
        );
        let question = serde_json::to_value(r.meta.question).unwrap();
        assert_eq!(
            fm.get("question").copied(),
            question.as_str(),
            "{}",
            r.meta.code
        );
        for s in [
            "What it does",
            "Why it matters",
            "Example",
            "Use instead",
            "References",
        ] {
            assert!(
                section(doc, s).is_some(),
                "{}: missing `## {s}`",
                r.meta.code
            );
        }
    }
}

fn run_example(code: &str, label: &str, files: &[(String, String)]) -> Vec<String> {
    let dir = std::env::temp_dir().join(format!(
        "retrylint-doc-{}-{code}-{label}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
    }
    // An example may carry a `.retrylint.yaml` (`services:`, `platforms:`).
    let config = retrylint::config::load(None, &dir).expect("the example's configuration reads");
    let outcome = run(&CheckOptions {
        paths: vec![dir.clone()],
        root: Some(dir.clone()),
        cwd: Some(dir.clone()),
        services: config.services,
        platforms: config.platforms,
        ..CheckOptions::default()
    });
    let _ = std::fs::remove_dir_all(&dir);
    outcome
        .diagnostics
        .iter()
        .map(|d| d.code.to_string())
        .collect()
}

#[test]
fn documented_examples_trigger_and_fixes_do_not() {
    let mut failures = Vec::new();
    for r in REGISTRY {
        let code = r.meta.code;
        let doc = doc_for(code).expect("doc exists");
        // A `probe` rule's example is a client on the wire, not files for `check`:
        // `probe_rules_are_never_checked_and_each_has_judge_tests` covers them.
        if r.meta.question == retrylint::diagnostic::Question::Observed {
            continue;
        }
        let example = example_files(section(doc, "Example").unwrap_or(""));
        let fixed = example_files(section(doc, "Use instead").unwrap_or(""));
        if example.is_empty() || fixed.is_empty() {
            failures.push(format!(
                "{code}: Example and Use instead need `file=` blocks"
            ));
            continue;
        }
        let got = run_example(code, "example", &example);
        if !got.iter().any(|c| c == code) {
            failures.push(format!(
                "{code}: Example does not produce {code} (got {got:?})"
            ));
        }
        let got = run_example(code, "fixed", &fixed);
        if got.iter().any(|c| c == code) {
            failures.push(format!("{code}: Use instead still produces {code}"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// The site's rule index (`docs/rules.md`) holds `retrylint rules --markdown`, its
/// links made relative to `docs/` (`../rules/…`).
#[test]
fn the_rule_index_lists_every_rule() {
    let page =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/rules.md"))
            .unwrap();
    let start = page
        .find("<!-- rules:start -->")
        .expect("docs/rules.md has the rules marker");
    let end = page
        .find("<!-- rules:end -->")
        .expect("docs/rules.md has the rules end marker");
    let expected = retrylint::commands::rules_markdown_table().replace("](rules/", "](../rules/");
    assert_eq!(
        page[start + "<!-- rules:start -->".len()..end].trim(),
        expected.trim(),
        "docs/rules.md's rule list is stale: paste `retrylint rules --markdown | sed 's|](rules/|](../rules/|'` between the markers"
    );
}

/// The rules of `retrylint probe` (RL6xx, question `observed`) are listed by the
/// registry but never run by `check` (no check function), their pages show a probe
/// run, and each has a tier-1 test in `tests/probe_judge.rs` (a journal that
/// triggers it and one that does not: `rl6nn_...`).
#[test]
fn probe_rules_are_never_checked_and_each_has_judge_tests() {
    use retrylint::diagnostic::Question;
    let judge_tests = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/probe_judge.rs"),
    )
    .unwrap();
    let observed: Vec<_> = REGISTRY
        .iter()
        .filter(|r| r.meta.question == Question::Observed)
        .collect();
    assert_eq!(observed.len(), 9);
    for r in observed {
        let code = r.meta.code;
        assert!(code.starts_with("RL6"), "{code}");
        assert!(r.check.is_none(), "{code} must not run in `check`");
        let doc = doc_for(code).expect("doc exists");
        assert!(
            section(doc, "Example").is_some_and(|e| e.contains(&format!("[{code}]"))),
            "{code}: the Example shows the finding in probe output"
        );
        assert!(
            judge_tests.contains(&format!("fn {}_", code.to_lowercase())),
            "{code}: no `fn {}_...` test in tests/probe_judge.rs",
            code.to_lowercase()
        );
    }
    for r in REGISTRY.iter().filter(|r| r.meta.code.starts_with("RL6")) {
        assert_eq!(r.meta.question, Question::Observed, "{}", r.meta.code);
    }
}
