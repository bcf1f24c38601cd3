//! `retrylint report --format html`: the page's content without a browser, and, when
//! Debian's Chromium is installed (`/usr/bin/chromium`, or `RETRYLINT_CHROMIUM`),
//! the page as a headless browser renders it: its DOM after the script ran (counts,
//! rows, filters, chart, no script error) and a screenshot. Without Chromium the
//! browser tests say they skipped and pass.

#![allow(clippy::disallowed_macros)] // output for the reader (clippy.toml)

mod common;

use common::retrylint_in;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("retrylint-html-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `(errors, warnings, infos)` of `check --format json` over `paths`.
fn check_counts(paths: &[&str]) -> (usize, usize, usize) {
    let mut args = vec!["check"];
    args.extend_from_slice(paths);
    args.extend_from_slice(&["--format", "json"]);
    let (_, stdout, _) = retrylint_in(&repo(), &args);
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    let count = |s: &str| {
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["severity"] == s)
            .count()
    };
    (count("error"), count("warning"), count("info"))
}

fn readiness_operations(paths: &[&str]) -> usize {
    let mut args = vec!["readiness"];
    args.extend_from_slice(paths);
    args.extend_from_slice(&["--format", "json"]);
    let (_, stdout, _) = retrylint_in(&repo(), &args);
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    v["operations"].as_array().unwrap().len()
}

/// Writes the report of `paths` to `out`; returns the exit code.
fn report(paths: &[&str], out: &Path) -> i32 {
    let mut args = vec!["report", "--format", "html"];
    args.extend_from_slice(paths);
    let out = out.to_str().unwrap();
    args.extend_from_slice(&["-o", out]);
    let (code, _, stderr) = retrylint_in(&repo(), &args);
    assert!(code != 2, "{stderr}");
    code
}

/// The number after `id="ID">` in the page.
fn number_at(html: &str, id: &str) -> usize {
    let marker = format!("id=\"{id}\">");
    let at = html.find(&marker).unwrap_or_else(|| panic!("no #{id}")) + marker.len();
    html[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap()
}

#[test]
fn the_page_is_self_contained_and_counts_what_check_counts() {
    let dir = temp("shop");
    let out = dir.join("report.html");
    assert_eq!(
        report(&["fixtures/examples/shop"], &out),
        1,
        "exit codes as check"
    );
    let html = std::fs::read_to_string(&out).unwrap();
    // Nothing is fetched: no external script, style, image or font.
    for needle in [
        "<script src",
        "<link",
        "@import",
        "url(",
        "src=\"http",
        "href=\"http",
    ] {
        assert!(!html.contains(needle), "{needle} in the page");
    }
    assert_eq!(html.matches("<script>").count(), 1);
    assert!(html.contains("<style>"));
    let (errors, warnings, infos) = check_counts(&["fixtures/examples/shop"]);
    assert_eq!(number_at(&html, "count-errors"), errors);
    assert_eq!(number_at(&html, "count-warnings"), warnings);
    assert_eq!(number_at(&html, "count-infos"), infos);
    let operations = readiness_operations(&["fixtures/examples/shop"]);
    assert_eq!(html.matches("<tr class=\"").count(), operations);
    assert_eq!(html.matches("class=\"operation\"").count(), operations);
    assert_eq!(
        html.matches("class=\"finding\"").count(),
        errors + warnings + infos
    );
    // Five riskiest, non-idempotent first: the first chart is a POST.
    assert_eq!(html.matches("<figure class=\"load\">").count(), 5);
    let first = html.find("<figure class=\"load\">").unwrap();
    assert!(
        html[first..].contains("<title>POST "),
        "non-idempotent first"
    );
    assert!(
        html.contains("class=\"hit\""),
        "excerpts mark the finding's line"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_spec_holding_markup_shows_it_as_text() {
    let dir = temp("hostile");
    std::fs::write(
        dir.join("openapi.yaml"),
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  \"/x<script>alert(1)</script>\":\n    post:\n      summary: \"<img src=x onerror=alert(2)>\"\n      responses:\n        '201': {description: ok}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("api.retry-policy.yaml"),
        "version: 1\nspec: openapi.yaml\nlayer: client\ndefaults:\n  retry: true\n  attempts: 3\n  retry_on: [timeout]\n",
    )
    .unwrap();
    let (code, html, stderr) = retrylint_in(&dir, &["report", "."]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        html.matches("<script").count(),
        1,
        "only the page's own script"
    );
    assert!(!html.contains("<img"));
    assert!(html.contains("/x&lt;script&gt;alert(1)&lt;/script&gt;"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_report_is_never_written_over_an_input() {
    let dir = temp("input");
    let spec = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n";
    std::fs::write(dir.join("openapi.yaml"), spec).unwrap();
    let (code, _, stderr) = retrylint_in(&dir, &["report", ".", "-o", "./openapi.yaml"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("refusing to write over it"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.join("openapi.yaml")).unwrap(),
        spec
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Debian's Chromium, or `RETRYLINT_CHROMIUM`; `None` (the browser tests skip) when
/// neither is there. Never downloaded.
fn chromium() -> Option<PathBuf> {
    let candidates = std::env::var_os("RETRYLINT_CHROMIUM")
        .map(PathBuf::from)
        .into_iter()
        .chain(["/usr/bin/chromium", "/usr/bin/chromium-browser"].map(PathBuf::from));
    candidates.into_iter().find(|p| p.is_file())
}

/// Runs headless Chromium on `page` with `mode` (`--dump-dom` or
/// `--screenshot=FILE`); returns its standard output. A fresh profile each run;
/// everything that could reach the network is off.
fn browse(browser: &Path, page: &str, mode: &[&str], profile: &Path) -> String {
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--window-size=1280,2200",
            // Lets the page's script run to its end before the DOM is dumped.
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(mode)
        .arg(page)
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn file_url(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// Rows of the matrix the script left visible (`<tr ...>` without `hidden`).
fn visible_rows(dom: &str) -> usize {
    dom.match_indices("<tr class=\"")
        .filter(|(at, _)| {
            let tag_end = dom[*at..].find('>').unwrap();
            !dom[*at..*at + tag_end].contains("hidden")
        })
        .count()
}

/// Renders the report of `paths` in the browser and checks the DOM; returns the
/// screenshot's path.
fn browser_check(browser: &Path, name: &str, paths: &[&str]) -> PathBuf {
    let dir = temp(&format!("browser-{name}"));
    let out = dir.join("report.html");
    report(paths, &out);
    let dom = browse(
        browser,
        &file_url(&out),
        &["--dump-dom"],
        &dir.join("profile-1"),
    );
    assert!(dom.contains("data-script=\"ran\""), "the page's script ran");
    assert!(
        dom.contains("<pre id=\"errors\"></pre>"),
        "a script error: {}",
        &dom[..2000.min(dom.len())]
    );
    let (errors, warnings, infos) = check_counts(paths);
    assert_eq!(number_at(&dom, "count-errors"), errors);
    assert_eq!(number_at(&dom, "count-warnings"), warnings);
    assert_eq!(number_at(&dom, "count-infos"), infos);
    let operations = readiness_operations(paths);
    assert_eq!(number_at(&dom, "count-operations"), operations);
    assert_eq!(dom.matches("<tr class=\"").count(), operations);
    assert_eq!(visible_rows(&dom), operations, "no filter: every row shows");
    assert!(dom.contains("id=\"filter-verdict\"") && dom.contains("id=\"filter-question\""));
    assert!(dom.contains(&format!("{operations} of {operations} operations")));
    // The filter, set from the address: only not-retried rows stay.
    let not_retried = number_at(&dom, "count-not-retried");
    let filtered = browse(
        browser,
        &format!("{}#verdict=not-retried", file_url(&out)),
        &["--dump-dom"],
        &dir.join("profile-2"),
    );
    assert_eq!(visible_rows(&filtered), not_retried);
    assert!(filtered.contains(&format!("{not_retried} of {operations} operations")));
    // Cargo's scratch folder for integration tests (under CARGO_TARGET_DIR when set).
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("report-{name}.png"));
    let _ = std::fs::remove_file(&shot);
    browse(
        browser,
        &file_url(&out),
        &[&format!("--screenshot={}", shot.display())],
        &dir.join("profile-3"),
    );
    let png = std::fs::read(&shot).expect("a screenshot");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "{} bytes",
        png.len()
    );
    std::fs::remove_dir_all(&dir).unwrap();
    shot
}

#[test]
fn the_shop_report_renders_in_headless_chromium() {
    let Some(browser) = chromium() else {
        eprintln!("skipped: no Chromium (/usr/bin/chromium or RETRYLINT_CHROMIUM); `apt-get install chromium` runs this test");
        return;
    };
    let shot = browser_check(&browser, "shop", &["fixtures/examples/shop"]);
    eprintln!("screenshot: {}", shot.display());
}

#[test]
fn a_real_spec_report_renders_in_headless_chromium() {
    let Some(browser) = chromium() else {
        eprintln!("skipped: no Chromium (/usr/bin/chromium or RETRYLINT_CHROMIUM)");
        return;
    };
    let spec = "../shared/corpus/specs/Adyen-adyen-openapi--json-CheckoutService-v71.json";
    if !repo().join(spec).is_file() {
        eprintln!("skipped: {spec} is absent (the shared corpus is not checked out beside the repository)");
        return;
    }
    browser_check(&browser, "adyen-checkout", &[spec]);
}

#[test]
fn the_layers_example_renders_in_headless_chromium() {
    let Some(browser) = chromium() else {
        eprintln!("skipped: no Chromium (/usr/bin/chromium or RETRYLINT_CHROMIUM)");
        return;
    };
    browser_check(&browser, "layers", &["fixtures/examples/layers"]);
}
