//! Gates that must not pass silently (break-test of issue 11): a `spec:` naming a
//! file that is not one OpenAPI description (RL005), a stream whose OpenAPI document
//! is a later one (RL014), file names that are not UTF-8 (discovery by bytes), and
//! RL001 kept whatever `--ignore`/`--select`/`rules` say (exit 2 always says why).
//! Inputs: `fixtures/gates/`.

mod common;

use retrylint::check::{run, CheckOptions, CheckOutcome};
use std::path::{Path, PathBuf};

fn gates() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/gates")
}

/// Checks `path` (relative to `fixtures/gates`) as `retrylint check PATH` from there.
fn check(path: &str) -> CheckOutcome {
    check_in(&gates(), path)
}

fn check_in(dir: &Path, path: &str) -> CheckOutcome {
    run(&CheckOptions {
        paths: vec![dir.join(path)],
        cwd: Some(dir.to_path_buf()),
        root: Some(dir.to_path_buf()),
        related: true,
        ..CheckOptions::default()
    })
}

/// `(code, "file:line:col", message)` of every finding.
fn findings(o: &CheckOutcome) -> Vec<(String, String, String)> {
    o.diagnostics
        .iter()
        .map(|d| {
            let loc = &d.primary.location;
            let lc = loc.file.line_col(loc.span.start);
            let (line, col) = (lc.line, lc.column);
            (
                d.code.to_string(),
                format!("{}:{line}:{col}", loc.file.display),
                d.message.clone(),
            )
        })
        .collect()
}

#[test]
fn spec_naming_a_plain_yaml_file_is_rl005_at_the_spec_value() {
    let o = check("spec-not-openapi");
    let f = findings(&o);
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0].0, "RL005");
    assert_eq!(f[0].1, "spec-not-openapi/retry-policy.yaml:4:7");
    assert!(f[0].2.contains("`openapi.yaml`"), "{}", f[0].2);
    assert!(f[0].2.contains("not an OpenAPI description"), "{}", f[0].2);
    assert!(!o.could_not_lint);
}

#[test]
fn spec_naming_an_unparsable_file_is_rl005_and_the_error_rl001() {
    let o = check("spec-unparsable");
    let f = findings(&o);
    let codes: Vec<(&str, &str)> = f.iter().map(|x| (x.0.as_str(), x.1.as_str())).collect();
    assert_eq!(
        codes,
        [
            ("RL001", "spec-unparsable/api.yaml:2:6"),
            ("RL005", "spec-unparsable/retry-policy.yaml:2:7"),
        ]
    );
    assert!(f[1].2.contains("could not be read"), "{}", f[1].2);
    assert!(o.could_not_lint);
}

#[test]
fn spec_naming_a_stream_whose_second_document_is_openapi_is_rl005_and_rl014() {
    let o = check("stream-second");
    let f = findings(&o);
    let rl014 = f.iter().find(|x| x.0 == "RL014").expect("RL014");
    assert_eq!(rl014.1, "stream-second/openapi.yaml:2:1");
    assert!(rl014.2.contains("the second document"), "{}", rl014.2);
    let rl005 = f.iter().find(|x| x.0 == "RL005").expect("RL005");
    assert_eq!(rl005.1, "stream-second/retry-policy.yaml:4:7");
    assert!(
        rl005.2.contains("second document of the stream"),
        "{}",
        rl005.2
    );
    // The OpenAPI document is read (a spec-like name) and governed by the policy.
    assert_eq!(o.documents, 1);
    assert!(f.iter().any(|x| x.0 == "RL201"), "{f:#?}");
}

#[test]
fn a_named_stream_is_read_on_its_first_openapi_document() {
    let o = check("stream-named/api.yaml");
    let f = findings(&o);
    assert_eq!(o.documents, 1);
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0].0, "RL014");
    assert_eq!(f[0].1, "stream-named/api.yaml:2:1");
}

#[test]
fn walked_streams_of_other_names_are_still_skipped_without_a_finding() {
    for dir in ["stream-named", "manifests"] {
        let o = check(dir);
        assert_eq!(o.documents, 0, "{dir}");
        assert!(o.diagnostics.is_empty(), "{dir}: {:#?}", findings(&o));
        assert_eq!(o.skipped.len(), 1, "{dir}");
    }
    // A named manifest without any OpenAPI document is skipped too.
    let o = check("manifests/deploy.yaml");
    assert!(o.diagnostics.is_empty() && o.documents == 0);
}

#[cfg(unix)]
#[test]
fn files_whose_names_are_not_utf8_are_walked_and_linted() {
    use std::os::unix::ffi::OsStrExt;
    let dir = std::env::temp_dir().join(format!("retrylint-gates-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("nonutf8")).unwrap();
    let name = std::ffi::OsStr::from_bytes(b"orders-\xff.yaml");
    // The input is `fixtures/gates/nonutf8/orders.yaml` (git keeps names as bytes,
    // but a checkout on another system may not): renamed here.
    std::fs::copy(
        gates().join("nonutf8/orders.yaml"),
        dir.join("nonutf8").join(name),
    )
    .unwrap();
    let o = check_in(&dir, "nonutf8");
    let f = findings(&o);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(o.documents, 1, "{f:#?}");
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0].0, "RL501");
    assert_eq!(
        f[0].1, "nonutf8/orders-\u{fffd}.yaml:7:9",
        "printed lossily"
    );
}

#[test]
fn rl001_is_reported_whatever_ignore_select_or_rules_say() {
    let dir = gates();
    for args in [
        &["check", "--ignore", "RL001", "binary.json"][..],
        &["check", "--select", "RL2", "binary.json"][..],
    ] {
        let (code, out, _) = common::retrylint_in(&dir, args);
        assert_eq!(code, 2, "{args:?}");
        assert!(out.contains("RL001"), "{args:?}: {out}");
        assert!(out.contains("`binary.json` is a binary file"), "{out}");
        assert!(out.contains("1 error"), "{out}");
    }
    let levels = {
        let mut l = retrylint::config::RuleLevels::default();
        l.0.insert("RL001", retrylint::config::Level::Off);
        l
    };
    let o = run(&CheckOptions {
        paths: vec![dir.join("binary.json")],
        cwd: Some(dir.clone()),
        rule_levels: levels,
        ..CheckOptions::default()
    });
    assert!(o.could_not_lint);
    assert_eq!(findings(&o)[0].0, "RL001");
}
