//! `check --format markdown` and `readiness --format markdown`: PR-comment Markdown,
//! read back with a CommonMark parser (pulldown-cmark, GFM tables) to check its
//! structure, its escaping, and GitHub's 65,536-character comment limit.

mod common;

use common::retrylint_in;
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use std::path::{Path, PathBuf};

const LIMIT: usize = 65_536;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// What a comment renders to: its tables (rows of cell texts, the header row
/// first) and every piece of raw HTML in it.
struct Rendered {
    tables: Vec<Vec<Vec<String>>>,
    html: Vec<String>,
    text: String,
}

fn render(md: &str) -> Rendered {
    let mut out = Rendered {
        tables: Vec::new(),
        html: Vec::new(),
        text: String::new(),
    };
    let mut cell: Option<String> = None;
    for event in Parser::new_ext(md, Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::Table(_)) => out.tables.push(Vec::new()),
            Event::Start(Tag::TableHead) | Event::Start(Tag::TableRow) => {
                out.tables.last_mut().unwrap().push(Vec::new())
            }
            Event::Start(Tag::TableCell) => cell = Some(String::new()),
            Event::End(TagEnd::TableCell) => {
                let c = cell.take().unwrap();
                out.tables.last_mut().unwrap().last_mut().unwrap().push(c);
            }
            Event::Text(t) | Event::Code(t) => {
                out.text.push_str(&t);
                if let Some(c) = cell.as_mut() {
                    c.push_str(&t);
                }
            }
            Event::Html(h) | Event::InlineHtml(h) => out.html.push(h.trim().to_string()),
            _ => {}
        }
    }
    out
}

/// The only raw HTML a comment may hold: its own `<code>`, `<details>` and
/// `<summary>` tags.
fn assert_only_own_html(r: &Rendered) {
    let tag = regex_lite::Regex::new(r"<[^>]*>").unwrap();
    for h in &r.html {
        for t in tag.find_iter(h) {
            assert!(
                [
                    "<code>",
                    "</code>",
                    "<details>",
                    "</details>",
                    "<summary>",
                    "</summary>"
                ]
                .contains(&t.as_str()),
                "raw HTML that the comment did not write: {} in {h:?}",
                t.as_str()
            );
        }
        assert!(!h.contains("script"), "{h}");
    }
}

fn json_count(dir: &Path, args: &[&str]) -> usize {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let (_, stdout, _) = retrylint_in(dir, &all);
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    v["diagnostics"].as_array().unwrap().len()
}

#[test]
fn check_markdown_of_the_shop_is_one_table_with_a_row_per_finding() {
    let dir = repo();
    let (code, md, stderr) = retrylint_in(
        &dir,
        &["check", "fixtures/examples/shop", "--format", "markdown"],
    );
    assert_eq!(code, 1, "{stderr}");
    let first = md.lines().next().unwrap();
    assert!(first.starts_with("**retrylint: errors found**"), "{first}");
    let r = render(&md);
    assert_only_own_html(&r);
    assert_eq!(r.tables.len(), 1, "{md}");
    let table = &r.tables[0];
    assert_eq!(table[0], ["severity", "rule", "location", "finding"]);
    assert_eq!(
        table.len() - 1,
        json_count(&dir, &["fixtures/examples/shop"])
    );
    assert!(table[1..].iter().all(|row| row.len() == 4));
    // Most severe first.
    let severities: Vec<&str> = table[1..].iter().map(|row| row[0].as_str()).collect();
    let rank = |s: &str| {
        ["error", "warning", "info"]
            .iter()
            .position(|x| *x == s)
            .unwrap()
    };
    assert!(
        severities.windows(2).all(|w| rank(w[0]) <= rank(w[1])),
        "{severities:?}"
    );
    assert!(table[1..]
        .iter()
        .any(|row| row[2].starts_with("fixtures/examples/shop/")));
    assert!(md.contains("<details><summary>How to fix ("), "{md}");
    insta::assert_snapshot!("check_shop_markdown", md);
}

#[test]
fn check_markdown_without_findings_is_one_line() {
    let dir = std::env::temp_dir().join(format!("retrylint-md-clean-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("openapi.yaml"),
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n",
    )
    .unwrap();
    let (code, md, stderr) = retrylint_in(&dir, &["check", ".", "--format", "markdown"]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code, 0, "{stderr}");
    assert!(
        md.starts_with("**retrylint: no findings**: 0 errors"),
        "{md}"
    );
    assert_eq!(md.lines().count(), 1, "{md}");
}

/// A spec of `n` retried POST operations whose paths hold table and HTML syntax, each
/// with its own 429 response without `Retry-After` (one RL501 finding each).
fn hostile_project(name: &str, n: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("retrylint-md-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut spec = String::from("openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n");
    for i in 0..n {
        spec.push_str(&format!(
            "  \"/items{i}/a|b`c<script>alert(1)</script>\":\n    post:\n      responses:\n        '201': {{description: ok}}\n        '429': {{description: slow down}}\n"
        ));
    }
    std::fs::write(dir.join("openapi.yaml"), spec).unwrap();
    std::fs::write(
        dir.join("api.retry-policy.yaml"),
        "version: 1\nspec: openapi.yaml\nlayer: client\ndefaults:\n  retry: true\n  attempts: 4\n  retry_on: [timeout, 503]\n",
    )
    .unwrap();
    dir
}

#[test]
fn hostile_paths_never_break_the_table_or_reach_the_html() {
    let dir = hostile_project("hostile", 3);
    let (_, md, stderr) = retrylint_in(&dir, &["check", ".", "--format", "markdown"]);
    assert!(!md.contains("<script"), "{md}");
    let r = render(&md);
    assert_only_own_html(&r);
    let table = &r.tables[0];
    assert!(table.iter().all(|row| row.len() == 4), "{md}\n{stderr}");
    // The text shows the path as written.
    assert!(
        r.text.contains("a|b`c<script>alert(1)</script>"),
        "{}",
        r.text
    );

    let (_, md, _) = retrylint_in(&dir, &["readiness", ".", "--format", "markdown"]);
    assert!(!md.contains("<script"), "{md}");
    let r = render(&md);
    assert_only_own_html(&r);
    assert!(r.tables.iter().flatten().all(|row| row.len() == 8), "{md}");
    assert!(
        r.text.contains("/items0/a|b`c<script>alert(1)</script>"),
        "{}",
        r.text
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_comment_over_the_limit_is_cut_between_rows_and_says_how_many_are_left_out() {
    let dir = hostile_project("limit", 700);
    let total = json_count(&dir, &["."]);
    let (code, md, stderr) = retrylint_in(&dir, &["check", ".", "--format", "markdown"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(md.len() <= LIMIT, "{} bytes", md.len());
    assert!(
        md.len() > LIMIT - 2_000,
        "the limit is used: {} bytes",
        md.len()
    );
    let r = render(&md);
    let rows = r.tables[0].len() - 1;
    assert!(rows < total, "{rows} of {total}");
    assert!(r.tables[0].iter().all(|row| row.len() == 4));
    let note = format!("… and {} more findings", total - rows);
    assert!(
        md.contains(&note),
        "wanted {note:?} in the end of {}",
        &md[md.len() - 300..]
    );

    let (_, md, _) = retrylint_in(&dir, &["readiness", ".", "--format", "markdown"]);
    assert!(md.len() <= LIMIT, "{} bytes", md.len());
    let r = render(&md);
    let rows = r.tables[0].len() - 1;
    assert!(rows < 700, "{rows}");
    let note = format!("… and {} more operations", 700 - rows);
    assert!(
        md.contains(&note),
        "wanted {note:?} in {}",
        &md[md.len() - 300..]
    );
    assert!(r.tables.iter().flatten().all(|row| row.len() == 8));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn readiness_markdown_puts_the_operations_that_are_not_ready_first() {
    let dir = repo();
    let (code, md, _) = retrylint_in(
        &dir,
        &[
            "readiness",
            "fixtures/examples/layers",
            "--format",
            "markdown",
        ],
    );
    assert_eq!(code, 0);
    assert!(md.starts_with("**retrylint readiness: "), "{md}");
    let r = render(&md);
    assert_only_own_html(&r);
    let not_ready: Vec<&Vec<String>> = r.tables[0][1..].iter().collect();
    assert!(not_ready.iter().all(|row| row[7] == "not-ready"), "{md}");
    for t in &r.tables[1..] {
        assert!(t[1..].iter().all(|row| row[7] != "not-ready"), "{md}");
    }
}
