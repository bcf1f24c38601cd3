//! `check::run` checks each OpenAPI document as it loads and drops its tree when
//! nothing of the run reads across documents (issue 18); `check::run_full` keeps every
//! tree. Both must find exactly the same: on every fixture folder, on the whole
//! fixture tree as one argument, and on a folder of specs with no policy (the case
//! that streams), including one whose `$ref` reaches another file.

use retrylint::check::{run, run_full, CheckOptions};
use retrylint::diagnostic::Diagnostic;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Everything a report shows of a finding.
fn shown(d: &Diagnostic) -> String {
    let labels: Vec<String> = d
        .labels
        .iter()
        .map(|l| {
            format!(
                "{}@{}..{} {}",
                l.location.file.display, l.location.span.start, l.location.span.end, l.message
            )
        })
        .collect();
    format!(
        "{} {:?} {}@{}..{} {} | {} | {:?} | {:?}",
        d.code,
        d.severity,
        d.primary.location.file.display,
        d.primary.location.span.start,
        d.primary.location.span.end,
        d.message,
        labels.join("; "),
        d.help,
        d.operations
    )
}

fn both(path: &Path) -> (Vec<String>, Vec<String>, bool, bool) {
    let options = CheckOptions {
        paths: vec![path.to_path_buf()],
        cwd: Some(repo()),
        related: true,
        ..CheckOptions::default()
    };
    let streamed = run(&options);
    let (analyzed, full) = run_full(&options);
    (
        streamed.diagnostics.iter().map(shown).collect(),
        full.iter().map(shown).collect(),
        streamed.could_not_lint,
        analyzed.could_not_lint,
    )
}

fn folders(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut children: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    children.sort();
    for c in children {
        if c.is_dir() {
            out.push(c.clone());
            if depth > 1 {
                folders(&c, depth - 1, out);
            }
        }
    }
}

#[test]
fn streaming_finds_what_the_whole_run_finds_on_every_fixture_folder() {
    let mut dirs = vec![repo().join("fixtures")];
    folders(&repo().join("fixtures"), 3, &mut dirs);
    let mut compared = 0;
    for dir in &dirs {
        let (streamed, full, s_err, f_err) = both(dir);
        assert_eq!(streamed, full, "findings differ on {}", dir.display());
        assert_eq!(s_err, f_err, "exit status differs on {}", dir.display());
        compared += 1;
    }
    assert!(compared > 100, "only {compared} folders compared");
}

#[test]
fn streaming_finds_what_the_whole_run_finds_on_specs_without_policies() {
    let dir = std::env::temp_dir().join(format!("retrylint-streaming-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("api")).unwrap();
    // Two self-contained specs (streamed), one whose `$ref` names another file (kept
    // for the whole run), and a spec that does not parse.
    let spec = |title: &str, extra: &str| {
        format!(
            "openapi: 3.0.3\ninfo: {{title: {title}, version: '1'}}\npaths:\n  /orders:\n    post:\n      operationId: create{title}\n      responses:\n        '429': {{description: slow down}}\n        '503': {{description: unavailable}}\n{extra}"
        )
    };
    std::fs::write(dir.join("api/a.yaml"), spec("A", "")).unwrap();
    std::fs::write(
        dir.join("api/b.yaml"),
        spec("B", "x-retry: {attempts: 3}\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("api/c.yaml"),
        "openapi: 3.0.3\ninfo: {title: C, version: '1'}\npaths:\n  /c:\n    get:\n      responses:\n        '200': {$ref: 'parts.yaml#/ok'}\n",
    )
    .unwrap();
    std::fs::write(dir.join("api/parts.yaml"), "ok: {description: fine}\n").unwrap();
    add_file(&dir, "api/broken.yaml", "openapi: 3.0.3\npaths: [\n");
    let (streamed, full, s_err, f_err) = both(&dir);
    assert_eq!(streamed, full);
    assert!(s_err && f_err, "the broken spec is reported by both");
    assert!(
        streamed.iter().any(|d| d.starts_with("RL501")),
        "the 429s without Retry-After are found: {streamed:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_spec_another_reaches_by_ref_is_taken_back_into_the_whole_run() {
    // `shared.yaml` is an OpenAPI document of its own (it streams) and a `$ref`
    // target of `main.yaml` (kept whole): once that is known, its streamed findings
    // are dropped and it is checked with the whole run, without doing the run again.
    let dir =
        std::env::temp_dir().join(format!("retrylint-streaming-shared-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("api")).unwrap();
    // Many files, so either may load first on either thread.
    for n in 0..40 {
        std::fs::write(
            dir.join(format!("api/s{n:02}.yaml")),
            "openapi: 3.0.3\ninfo: {title: S, version: '1'}\npaths:\n  /s:\n    post:\n      responses:\n        '429': {description: slow down}\n",
        )
        .unwrap();
    }
    std::fs::write(
        dir.join("api/shared.yaml"),
        "openapi: 3.0.3\ninfo: {title: Shared, version: '1'}\npaths:\n  /shared:\n    post:\n      responses:\n        '429': {$ref: '#/components/responses/Slow'}\ncomponents:\n  responses:\n    Slow: {description: slow down}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("api/main.yaml"),
        "openapi: 3.0.3\ninfo: {title: Main, version: '1'}\npaths:\n  /main:\n    post:\n      responses:\n        '429': {$ref: 'shared.yaml#/components/responses/Slow'}\n        '503': {$ref: 'shared.yaml#/components/responses/Slow'}\n",
    )
    .unwrap();
    let (streamed, full, s_err, f_err) = both(&dir);
    assert_eq!(streamed, full);
    assert!(!s_err && !f_err);
    assert!(
        streamed.iter().any(|d| d.contains("shared.yaml@")),
        "{streamed:?}"
    );
    let options = CheckOptions {
        paths: vec![dir.clone()],
        cwd: Some(repo()),
        related: true,
        ..CheckOptions::default()
    };
    assert_eq!(run(&options).documents, 42);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_big_spec_streamed_beside_small_ones_finds_what_the_whole_run_finds() {
    // Files of `BIG_FILE_BYTES` or more are checked one at a time on a lane of their
    // own; their findings must land in the same places of the report.
    let dir = std::env::temp_dir().join(format!("retrylint-streaming-big-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("api")).unwrap();
    let mut big = String::from("openapi: 3.0.3\ninfo: {title: Big, version: '1'}\npaths:\n");
    let mut n = 0;
    while big.len() < retrylint::project::BIG_FILE_BYTES as usize + 1024 {
        big.push_str(&format!(
            "  /orders{n}:\n    post:\n      operationId: create{n}\n      description: {}\n      responses:\n        '429': {{description: slow down}}\n",
            "x".repeat(400)
        ));
        n += 1;
    }
    std::fs::write(dir.join("api/m-big.yaml"), &big).unwrap();
    for name in ["a", "z"] {
        std::fs::write(
            dir.join(format!("api/{name}.yaml")),
            "openapi: 3.0.3\ninfo: {title: S, version: '1'}\npaths:\n  /s:\n    get:\n      responses:\n        '429': {description: slow down}\n",
        )
        .unwrap();
    }
    let (streamed, full, s_err, f_err) = both(&dir);
    assert_eq!(streamed, full);
    assert!(!s_err && !f_err);
    let in_big = streamed
        .iter()
        .filter(|d| d.contains("m-big.yaml@"))
        .count();
    assert!(
        in_big >= n,
        "{in_big} findings in the big spec of {n} operations"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_spec_changed_after_its_check_keeps_its_positions_and_loses_only_its_excerpt() {
    // A streamed document's text is let go after its check and read back for the
    // human excerpts; a file edited in between must not show another text, nor a
    // position computed from it (it did: line 1 and a column the file's length).
    use retrylint::report::human::{render, HumanOptions};
    use retrylint::source::SourceFile;
    let dir = std::env::temp_dir().join(format!("retrylint-streaming-gone-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("api")).unwrap();
    let text = "openapi: 3.0.3\ninfo: {title: Orders, version: '1'}\npaths:\n  /orders:\n    get:\n      responses:\n        '429': {description: slow down}\n";
    let path = dir.join("api/orders.yaml");
    std::fs::write(&path, text).unwrap();
    let options = CheckOptions {
        paths: vec![dir.clone()],
        cwd: Some(dir.clone()),
        related: true,
        ..CheckOptions::default()
    };
    let result = run(&options);
    let d = &result.diagnostics;
    assert!(!d.is_empty(), "the 429 without Retry-After is a finding");
    assert!(d.iter().all(|d| d.primary.location.file.is_released()));
    // Same length, other bytes: only the hash tells.
    std::fs::write(&path, text.replace("slow down", "SLOW DOWN")).unwrap();
    let shown = render(d, HumanOptions::default());
    let original = SourceFile::new(path.clone(), "x".into(), text);
    for f in d {
        let at = original.line_col(f.primary.location.span.start);
        let header = format!("[api/orders.yaml:{}:{}]", at.line, at.column);
        assert!(at.line > 1, "{header}");
        assert!(shown.contains(&header), "{header} not in:\n{shown}");
    }
    assert!(shown.contains("(the file changed after it was checked: no excerpt)"));
    assert!(
        !shown.contains("SLOW DOWN"),
        "the edited text is never shown:\n{shown}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// An Istio VirtualService retrying every request to `orders` on 5xx and resets.
const VS_ORDERS: &str = "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: orders}\nspec:\n  hosts: [orders]\n  http:\n  - route: [{destination: {host: orders}}]\n    retries: {attempts: 3, retryOn: '5xx,reset'}\n";

/// A temporary repository holding `files` (path relative to it, text), with its
/// canonical path.
fn repository(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(tmp.path()).unwrap();
    for (rel, text) in files {
        add_file(&dir, rel, text);
    }
    (tmp, dir)
}

fn add_file(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// `check::run` over `dir` beside `check::run_full`: the outcome of the first (its
/// count of documents checked alone) and both sets of findings.
fn streamed_beside_full(dir: &Path) -> (retrylint::check::CheckOutcome, Vec<String>) {
    let options = CheckOptions {
        paths: vec![dir.to_path_buf()],
        cwd: Some(dir.to_path_buf()),
        related: true,
        ..CheckOptions::default()
    };
    let outcome = run(&options);
    let (_, full) = run_full(&options);
    let streamed: Vec<String> = outcome.diagnostics.iter().map(shown).collect();
    let full: Vec<String> = full.iter().map(shown).collect();
    assert_eq!(streamed, full, "findings differ on {}", dir.display());
    (outcome, streamed)
}

#[test]
fn beside_a_retry_config_only_the_documents_it_may_bind_are_held() {
    // Issue 40: a VirtualService in `deploy/` used to hold every document of the
    // run whole. Now only the spec whose server it names is held; the others are
    // checked as they load, and RL016 of a route naming no spec still lists every
    // spec of the run as a candidate, in walk order.
    let spec = |title: &str, host: &str| {
        format!(
            "openapi: 3.0.3\ninfo: {{title: {title}, version: '1'}}\nservers: [{{url: 'http://{host}'}}]\npaths:\n  /orders:\n    post:\n      operationId: create{title}\n      responses:\n        '201': {{description: created}}\n        '429': {{description: slow down}}\n"
        )
    };
    let (_tmp, dir) = repository(&[
        ("api/orders.yaml", &spec("Orders", "orders.shop.svc")),
        ("deploy/vs.yaml", "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: orders}\nspec:\n  hosts: [orders.shop.svc]\n  http:\n  - route: [{destination: {host: orders.shop.svc}}]\n    retries: {attempts: 3, retryOn: '5xx,reset'}\n---\napiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: elsewhere}\nspec:\n  hosts: [nowhere.example.net]\n  http:\n  - route: [{destination: {host: nowhere.example.net}}]\n    retries: {attempts: 3, retryOn: '5xx'}\n"),
    ]);
    for n in 0..7 {
        add_file(
            &dir,
            &format!("api/s{n}.yaml"),
            &spec(&format!("S{n}"), &format!("s{n}.example.org")),
        );
    }
    let (outcome, found) = streamed_beside_full(&dir);
    assert_eq!(outcome.documents, 8);
    assert_eq!(outcome.streamed, 7, "only the bound spec is held");
    assert!(
        found
            .iter()
            .any(|d| d.starts_with("RL201") && d.contains("api/orders.yaml")),
        "the retried POST of the bound spec is judged: {found:#?}"
    );
    let unbound = found
        .iter()
        .find(|d| d.starts_with("RL016") && d.contains("elsewhere"))
        .expect("the route to no spec's host is RL016");
    assert!(
        unbound.contains("`api/orders.yaml`, `api/s0.yaml`, `api/s1.yaml`, `api/s2.yaml`, `api/s3.yaml`, and 3 more"),
        "{unbound}"
    );
    assert!(unbound.contains("`s0.example.org`"), "{unbound}");
}

#[test]
fn the_only_spec_of_a_run_binds_a_config_that_names_no_host() {
    // A route naming no spec's host binds to the run's only spec (`layers.md`
    // "Binding" 3); checked alone as it loaded, that spec is taken back. A file
    // that opens as a spec but does not parse is no second spec.
    let (_tmp, dir) = repository(&[
        ("api/openapi.yaml", "openapi: 3.0.3\ninfo: {title: Orders, version: '1'}\npaths:\n  /orders:\n    post:\n      operationId: createOrder\n      responses:\n        '201': {description: created}\n"),
        ("deploy/vs.yaml", VS_ORDERS),
    ]);
    let (outcome, found) = streamed_beside_full(&dir);
    assert_eq!(outcome.streamed, 0);
    assert!(
        found.iter().any(|d| d.starts_with("RL201")),
        "the lone spec is bound: {found:#?}"
    );
    add_file(&dir, "api/broken.yaml", "openapi: 3.0.3\npaths: [\n");
    let (outcome, found) = streamed_beside_full(&dir);
    assert_eq!(outcome.streamed, 0);
    assert!(found.iter().any(|d| d.starts_with("RL001")));
    assert!(found.iter().any(|d| d.starts_with("RL201")), "{found:#?}");
}

#[test]
fn a_file_that_builds_no_document_is_counted_as_the_whole_run_counts_it() {
    // An `openapi: 4.0.0` file opens as a spec but builds no document (RL007): the
    // streamed run counted it among the documents checked, the whole run did not.
    let (_tmp, dir) = repository(&[
        ("a.yaml", "openapi: 3.0.3\ninfo: {title: A, version: '1'}\nservers: [{url: 'https://a.example.com'}]\npaths:\n  /a:\n    get:\n      responses: {'200': {description: ok}}\n"),
        ("b.yaml", "openapi: 4.0.0\ninfo: {title: B, version: '1'}\npaths: {}\n"),
    ]);
    let options = CheckOptions {
        paths: vec![dir.clone()],
        cwd: Some(dir.clone()),
        related: true,
        ..CheckOptions::default()
    };
    for with_config in [false, true] {
        if with_config {
            add_file(&dir, "vs.yaml", VS_ORDERS);
        }
        let (_, found) = streamed_beside_full(&dir);
        assert!(found.iter().any(|d| d.starts_with("RL007")), "{found:#?}");
        let (analyzed, _) = run_full(&options);
        assert_eq!(run(&options).documents, analyzed.documents.len());
        assert_eq!(analyzed.documents.len(), 1);
    }
}
