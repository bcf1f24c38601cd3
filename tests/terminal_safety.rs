//! A spec must not reach the terminal raw: control, line-separator and bidi
//! characters in messages are escaped, in source excerpts masked (same byte length,
//! so underlines stay under the right text). Reports are never written over inputs.

mod common;

use common::retrylint_in;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/terminal")
}

/// The characters that must never be printed raw (tab and line feed may).
fn unsafe_chars(s: &str) -> Vec<char> {
    s.chars()
        .filter(|&c| {
            matches!(c,
                '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
                | '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect()
}

#[test]
fn path_keys_with_controls_are_escaped_in_every_text_format() {
    for format in ["human", "github", "gitlab"] {
        let (code, out, err) = retrylint_in(
            &fixtures(),
            &[
                "check",
                "--color",
                "never",
                "--format",
                format,
                "ctrl-path-key.yaml",
            ],
        );
        assert_eq!(code, 0, "{format}: {err}");
        assert_eq!(unsafe_chars(&out), Vec::<char>::new(), "{format}: {out}");
        let shown = r"GET /a\u{1}b\u{1b}[31mRED\u{7}\u{2028}x";
        let shown = if format == "gitlab" {
            shown.replace('\\', r"\\")
        } else {
            shown.to_string()
        };
        assert!(out.contains(&shown), "{format}: {out}");
    }
}

#[test]
fn raw_controls_in_excerpts_are_masked_in_place() {
    // The JSON parser stops at the DEL (RL001); the excerpt around it is still shown.
    let (code, out, err) = retrylint_in(
        &fixtures(),
        &["check", "--color", "never", "raw-controls.json"],
    );
    assert_eq!(code, 2, "{err}");
    assert_eq!(unsafe_chars(&out), Vec::<char>::new(), "{out}");
    assert!(out.contains(r"unexpected character: `\u{7f}'"), "{out}");
    // NEL (2 bytes) is `¿`, DEL `?`, RLO (3 bytes) `\u{fffd}`: same bytes, same spans.
    assert!(out.contains("[raw-controls.json:3:30]"), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("\"description\": \"s¿l?o\u{fffd}w\""))
        .unwrap_or_else(|| panic!("{out}"));
    let del = lines[at].find("?o").unwrap();
    let mark = lines[at + 1].find('┬').unwrap_or_else(|| panic!("{out}"));
    assert_eq!(
        lines[at][..del].chars().count(),
        lines[at + 1][..mark].chars().count(),
        "{out}"
    );
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("retrylint-term-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(
        dir.join("openapi.yaml"),
        "openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths:\n  /a:\n    get:\n      \
         responses:\n        '200': {$ref: 'sub/ok.yaml'}\n",
    )
    .unwrap();
    std::fs::write(dir.join("sub/ok.yaml"), "description: ok\n").unwrap();
    std::fs::write(
        dir.join("retry-policy.yaml"),
        "version: 1\ndefaults: {retry: false}\n",
    )
    .unwrap();
    dir
}

#[test]
fn output_over_an_input_is_refused() {
    let dir = scratch("out");
    let before: Vec<_> = ["openapi.yaml", "sub/ok.yaml", "retry-policy.yaml"]
        .iter()
        .map(|f| std::fs::read(dir.join(f)).unwrap())
        .collect();
    for (flag, target) in [
        ("--output", "openapi.yaml"),
        ("--output", "./sub/../openapi.yaml"),
        ("--output", "sub/ok.yaml"),
        ("--output", "retry-policy.yaml"),
        ("--write-baseline", "openapi.yaml"),
        ("--write-baseline", "sub/ok.yaml"),
    ] {
        let (code, out, err) = retrylint_in(&dir, &["check", ".", flag, target]);
        assert_eq!(code, 2, "{flag} {target}: {out}{err}");
        assert!(err.contains("reads as input"), "{flag} {target}: {err}");
    }
    let after: Vec<_> = ["openapi.yaml", "sub/ok.yaml", "retry-policy.yaml"]
        .iter()
        .map(|f| std::fs::read(dir.join(f)).unwrap())
        .collect();
    assert_eq!(before, after);
    // An earlier report in the checked folder is no input: writing it again works.
    for _ in 0..2 {
        let (code, _, err) = retrylint_in(
            &dir,
            &["check", ".", "--format", "json", "--output", "report.json"],
        );
        assert!(code < 2, "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn displayed_paths_are_normalised() {
    let dir = scratch("norm");
    std::fs::create_dir_all(dir.join("deploy/client")).unwrap();
    std::fs::write(
        dir.join("deploy/client/retry-policy.yaml"),
        "version: 1\nspec: ../../openapi.yaml\ndefaults: {retry: false}\n",
    )
    .unwrap();
    let (code, _, err) = retrylint_in(
        &dir,
        &[
            "plan",
            "--policy",
            "deploy/client/retry-policy.yaml",
            "--operation",
            "GET /b",
            "--signal",
            "timeout",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("(`openapi.yaml`)"), "{err}");
    assert!(!err.contains(".."), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
