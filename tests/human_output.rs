//! The default human output on real-world shapes of input: one minified line of
//! 70,000 characters with labels far apart (case 39: miette panicked, exit 101), and
//! one finding shared by 1,200 operations (case 25). The output never panics, stays
//! small, names each excerpt's own `file:line:col` (as `--format json` does) and shows
//! at most 20 labels per finding, then "and N more".

use proptest::prelude::*;
use retrylint::diagnostic::{Diagnostic, Location};
use retrylint::report::human::{render, HumanOptions, MAX_LABELS};
use retrylint::rules::rl501_rate_limit_without_retry_after::META;
use retrylint::source::SourceFile;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

fn cases() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/cases")
}

/// Runs `retrylint check ARGS` in `dir`: (exit code, stdout).
fn check(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .arg("check")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

/// Every `path:line:col` the JSON output names: primary locations and labels.
fn json_positions(json: &str) -> BTreeSet<String> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    let mut out = BTreeSet::new();
    for d in v["diagnostics"].as_array().unwrap() {
        out.insert(format!(
            "{}:{}:{}",
            d["path"].as_str().unwrap(),
            d["line"],
            d["column"]
        ));
        for l in d["labels"].as_array().unwrap() {
            out.insert(format!(
                "{}:{}:{}",
                l["path"].as_str().unwrap(),
                l["line"],
                l["column"]
            ));
        }
    }
    out
}

/// The `file:line:col` of every excerpt header (`╭─[file:line:col]`).
fn headers(human: &str) -> Vec<String> {
    human
        .lines()
        .filter_map(|l| {
            let at = l.find("╭─[")? + "╭─[".len();
            Some(l[at..].trim_end().trim_end_matches(']').to_string())
        })
        .collect()
}

/// Label texts drawn under excerpts (`╰── text`).
fn drawn_labels(human: &str) -> usize {
    human
        .lines()
        .filter(|l| l.trim_start().starts_with('·') && l.contains("╰──"))
        .count()
}

#[test]
fn case_39_long_line_is_cropped_with_real_positions() {
    let dir = cases().join("39-long-line-human");
    let (code, json) = check(&dir, &["--format", "json", "."]);
    assert_eq!(code, 0);
    let positions = json_positions(&json);
    // The two operations lie 70,000 columns apart on line 1.
    assert!(positions.contains("openapi.json:1:79"), "{positions:?}");
    assert!(positions.contains("openapi.json:1:70161"), "{positions:?}");
    for color in ["never", "always"] {
        let (code, human) = check(&dir, &["--color", color, "."]);
        assert_eq!(code, 0, "{human}");
        assert!(
            human.len() < 20_000,
            "{} bytes with colour {color}",
            human.len()
        );
        if color == "never" {
            let shown: BTreeSet<String> = headers(&human).into_iter().collect();
            assert!(shown.contains("retry-policy.yaml:3:12"), "{shown:?}");
            assert!(shown.contains("openapi.json:1:79"), "{shown:?}");
            assert!(shown.contains("openapi.json:1:70161"), "{shown:?}");
            // Every header names a place the finding is about, never an excerpt's start.
            assert!(shown.is_subset(&positions), "{shown:?} vs {positions:?}");
            assert!(human.contains('…'), "{human}");
            assert!(human.lines().all(|l| l.chars().count() < 400), "{human}");
        }
    }
}

#[test]
fn case_25_shows_twenty_labels_then_and_n_more() {
    let dir = cases();
    let file = "25-sarif-related-locations.yaml";
    let (_, json) = check(&dir, &["--format", "json", file]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let d = &v["diagnostics"][0];
    assert_eq!(d["code"], "RL501");
    let labels = d["labels"].as_array().unwrap().len();
    assert_eq!(d["operations"].as_array().unwrap().len(), 1200);
    let (code, human) = check(&dir, &["--color", "never", file]);
    assert_eq!(code, 0);
    assert!(human.len() < 20_000, "{} bytes", human.len());
    let drawn = drawn_labels(&human);
    assert!(drawn <= MAX_LABELS && drawn > 1, "{drawn} labels\n{human}");
    let more = labels + 1 - MAX_LABELS;
    assert!(
        human.contains(&format!("and {more} more operations")),
        "{human}"
    );
    // The primary location, the shared `Throttled` response, keeps its own header.
    assert!(
        headers(&human).contains(&format!("{file}:7209:5")),
        "{human}"
    );
}

fn location(file: &Arc<SourceFile>, span: std::ops::Range<usize>) -> Location {
    Location {
        file: file.clone(),
        span,
        pointer: String::new(),
    }
}

/// Moves `i` back to a char boundary of `text`.
fn boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Random lines (some of 70,000 characters, multi-byte text, tabs, CRLF) with
    /// random labels: the renderer never panics, and its lines and size stay bounded
    /// whatever the line lengths.
    #[test]
    fn any_labels_on_any_lines_render_small(
        lines in prop::collection::vec(
            (0usize..4, prop::sample::select(vec!["ab", "é", "\t", "👍", "{\"k\": 1}, "])),
            1..6,
        ),
        spans in prop::collection::vec((0.0f64..1.0, 0usize..200_000), 1..40),
        crlf in any::<bool>(),
        color in any::<bool>(),
    ) {
        let lengths = [3usize, 120, 5_000, 70_000];
        let mut text = String::new();
        for (len, piece) in &lines {
            let start = text.len();
            while text.len() - start < lengths[*len] {
                text.push_str(piece);
            }
            text.push_str(if crlf { "\r\n" } else { "\n" });
        }
        let file = Arc::new(SourceFile::new(PathBuf::from("x.json"), "x.json".into(), &text));
        let at = |(pos, len): (f64, usize)| {
            let start = boundary(&text, (pos * text.len() as f64) as usize);
            start..boundary(&text, start + len).max(start)
        };
        let mut d = Diagnostic::new(&META, "a finding", location(&file, at(spans[0])), "here");
        for (i, s) in spans[1..].iter().enumerate() {
            d = d.with_label(location(&file, at(*s)), format!("label{i}."));
        }
        let out = render(&[d], HumanOptions { color, width: 100 });
        prop_assert!(out.len() < 200_000, "{} bytes", out.len());
        prop_assert!(out.lines().all(|l| l.chars().count() < 5_000));
        // A multi-line label may be drawn in two excerpts: count distinct labels.
        let shown: BTreeSet<&str> = out
            .split("label")
            .skip(1)
            .filter_map(|rest| rest.split_once('.').map(|(n, _)| n))
            .collect();
        prop_assert!(shown.len() < MAX_LABELS, "{} labels", shown.len());
    }
}
