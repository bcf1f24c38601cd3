//! Baselines end to end: the CI flow through the binary in a scratch directory (case
//! 40 of `../shared/cases`, copied to `fixtures/cases/40-baseline-new-operation`), and
//! the keying over real runs (new operation, new label in another file, new layer,
//! identical findings, moved lines).

use retrylint::baseline;
use retrylint::check::{run, CheckOptions, CheckOutcome};
use retrylint::diagnostic::Diagnostic;
use std::path::{Path, PathBuf};

mod common;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn case40(side: &str) -> PathBuf {
    repo()
        .join("fixtures/cases/40-baseline-new-operation")
        .join(side)
}

/// A fresh scratch directory holding copies of the files of each of `from`.
fn scratch(name: &str, from: &[PathBuf]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("retrylint-bl-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for f in from {
        copy_files(f, &dir);
    }
    dir
}

fn copy_files(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// Runs the binary in `dir`: (exit code, stdout, stderr).
fn retrylint(dir: &Path, args: &[&str]) -> (i32, String, String) {
    common::retrylint_in(dir, args)
}

/// `(code, operations)` of each finding in a JSON report.
fn json_findings(stdout: &str) -> Vec<(String, Vec<String>, String)> {
    let v: serde_json::Value = serde_json::from_str(stdout).expect("json report");
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let ops = d["operations"]
                .as_array()
                .map(|a| a.iter().map(|o| o.as_str().unwrap().to_string()).collect())
                .unwrap_or_default();
            (
                d["code"].as_str().unwrap().to_string(),
                ops,
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn case40_ci_flow_reports_only_the_new_operation() {
    let dir = scratch("ci", &[case40("before")]);
    // Adopt: record today's findings (printed, and said on stderr; the run passes).
    // The folder of the baseline file is created.
    let (code, _, err) = retrylint(&dir, &["check", "--write-baseline", "ci/base.json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("recorded 2 finding(s) in the baseline ci/base.json"),
        "{err}"
    );
    std::fs::rename(dir.join("ci/base.json"), dir.join("base.json")).unwrap();
    let written = std::fs::read_to_string(dir.join("base.json")).unwrap();
    assert!(written.contains("\"version\": 3"), "{written}");
    assert!(written.contains("POST /orders"), "{written}");
    // Check against it: clean.
    let (code, out, err) = retrylint(&dir, &["check", "--baseline", "base.json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("the baseline base.json hid 2 finding(s)"),
        "{err}"
    );

    // A commit adds `POST /payments`, retried by the same `defaults`.
    std::fs::copy(
        case40("after").join("openapi.yaml"),
        dir.join("openapi.yaml"),
    )
    .unwrap();
    let args = ["check", "--baseline", "base.json", "--format", "json"];
    let (code, out, err) = retrylint(&dir, &args);
    assert_eq!(code, 1, "{out}{err}");
    let found = json_findings(&out);
    let codes: Vec<&str> = found.iter().map(|(c, _, _)| c.as_str()).collect();
    assert_eq!(codes, ["RL201", "RL306"], "{out}");
    for (code, ops, message) in &found {
        assert_eq!(ops, &["POST /payments"], "{code}: {out}");
        assert!(message.contains("`POST /payments`"), "{message}");
        assert!(!message.contains("POST /orders"), "{message}");
    }
    // The human report names only the new operation too (message and labels).
    let (code, out, _) = retrylint(&dir, &["check", "--baseline", "base.json"]);
    assert_eq!(code, 1);
    assert!(out.contains("`POST /payments` is non-idempotent"), "{out}");
    assert!(!out.contains("/orders"), "{out}");

    // Accept it, then move lines around: the paths swap places, comments push every
    // line down, the policy's keys are reordered. Still clean.
    let (code, _, _) = retrylint(&dir, &["check", "--write-baseline", "base.json"]);
    assert_eq!(code, 0);
    std::fs::write(
        dir.join("openapi.yaml"),
        "# moved\n# down\nopenapi: 3.0.3\ninfo: {title: Orders, version: '1'}\npaths:\n  \
         /payments:\n    post:\n      operationId: createPayment\n      responses:\n        \
         '201': {description: charged}\n  /orders:\n    post:\n      operationId: \
         createOrder\n      responses:\n        '201': {description: created}\n",
    )
    .unwrap();
    let policy = std::fs::read_to_string(dir.join("retry-policy.yaml")).unwrap();
    std::fs::write(
        dir.join("retry-policy.yaml"),
        format!("# a comment\n\n{policy}"),
    )
    .unwrap();
    let (code, out, err) = retrylint(&dir, &["check", "--baseline", "base.json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!err.contains("no longer occur"), "{err}");

    // `POST /payments` is removed again: clean, and the two recorded findings that no
    // longer occur are named on stderr (left in, they would hide their return).
    std::fs::copy(
        case40("before").join("openapi.yaml"),
        dir.join("openapi.yaml"),
    )
    .unwrap();
    let (code, out, err) = retrylint(&dir, &["check", "--baseline", "base.json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("2 finding(s) recorded in the baseline base.json no longer occur")
            && err.contains("--write-baseline base.json"),
        "{err}"
    );
    // A run over named files sees part of the project: no such note.
    let args = ["check", "--baseline", "base.json", "openapi.yaml"];
    let (code, _, err) = retrylint(&dir, &args);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("no longer occur"), "{err}");

    // A baseline of the previous format (no operations) is refused: exit 2, and the
    // message says how to record it again.
    std::fs::write(
        dir.join("old.json"),
        r#"{"version": 1, "findings": [{"rule": "RL201", "path": "retry-policy.yaml", "pointer": "/defaults/retry_on", "count": 1}]}"#,
    )
    .unwrap();
    let (code, out, err) = retrylint(&dir, &["check", "--baseline", "old.json"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("--write-baseline old.json"), "{err}");
    assert!(err.contains("format 1"), "{err}");
    // Format 2 (operations without their document) is refused the same way.
    std::fs::write(
        dir.join("old.json"),
        r#"{"version": 2, "findings": [{"rule": "RL201", "path": "retry-policy.yaml", "pointer": "/defaults/retry_on", "operations": ["POST /orders"]}]}"#,
    )
    .unwrap();
    let (code, _, err) = retrylint(&dir, &["check", "--baseline", "old.json"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("format 2"), "{err}");
    assert!(err.contains("--write-baseline old.json"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

const SPEC_A: &str = "openapi: 3.0.3\ninfo: {title: A, version: '1'}\npaths:\n  /orders:\n    post:\n      operationId: createOrder\n      responses:\n        '201': {description: created}\n";
const SPEC_B: &str = "openapi: 3.0.3\ninfo: {title: B, version: '1'}\npaths:\n  /refunds:\n    post:\n      operationId: createRefund\n      responses:\n        '201': {description: created}\n";
const ORDERS_B: &str = "  /orders:\n    post:\n      operationId: createOrderB\n      responses:\n        '201': {description: created}\n";

/// Two specs under one policy whose defaults retry every operation unprotected (one
/// grouped RL201); `b.yaml` has `POST /orders` too when `orders_in_b`.
fn two_specs(name: &str, orders_in_b: bool) -> PathBuf {
    let dir = scratch(name, &[]);
    std::fs::write(dir.join("a.yaml"), SPEC_A).unwrap();
    let b = if orders_in_b {
        format!("{SPEC_B}{ORDERS_B}")
    } else {
        SPEC_B.to_string()
    };
    std::fs::write(dir.join("b.yaml"), b).unwrap();
    std::fs::write(
        dir.join("retry-policy.yaml"),
        "version: 1\nspec: [a.yaml, b.yaml]\ndefaults:\n  retry: true\n  effect: non-idempotent\n  \
         attempts: 3\n  deadline: 5s\n  backoff: {base: 100ms, cap: 1s, jitter: full}\n  \
         retry_on: [timeout]\n  on_unknown_result: fail\n",
    )
    .unwrap();
    dir
}

#[test]
fn a_new_operation_named_like_one_in_another_spec_is_reported() {
    // Regression: the baseline keyed operations by `METHOD /path` alone, so a new
    // `POST /orders` in b.yaml passed for a.yaml's recorded one (exit 0, "hid 1").
    let dir = two_specs("same-name", false);
    let (code, _, err) = retrylint(&dir, &["check", "--write-baseline", "base.json"]);
    assert_eq!(code, 0, "{err}");
    let written = std::fs::read_to_string(dir.join("base.json")).unwrap();
    assert!(written.contains("\"a.yaml#POST /orders\""), "{written}");
    std::fs::write(dir.join("b.yaml"), format!("{SPEC_B}{ORDERS_B}")).unwrap();
    let (code, out, err) = retrylint(
        &dir,
        &["check", "--baseline", "base.json", "--format", "json"],
    );
    assert_eq!(code, 1, "{out}\n{err}");
    let found = json_findings(&out);
    assert_eq!(found.len(), 1, "{out}");
    assert_eq!(found[0].0, "RL201");
    assert_eq!(found[0].1, ["POST /orders"], "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let labels = v["diagnostics"][0]["labels"].as_array().unwrap();
    assert!(
        labels.iter().any(|l| l["path"] == "b.yaml"),
        "the new operation is b.yaml's: {out}"
    );
    assert!(
        labels.iter().all(|l| l["path"] != "a.yaml"),
        "a.yaml's recorded operation is not reported: {out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn operations_of_two_specs_with_one_name_stay_two() {
    let dir = two_specs("two-names", true);
    // JSON: both `POST /orders` are listed, each with its document.
    let (code, out, _) = retrylint(&dir, &["check", "--format", "json"]);
    assert_eq!(code, 1, "{out}");
    let found = json_findings(&out);
    assert_eq!(found.len(), 1, "{out}");
    assert_eq!(
        found[0].1,
        [
            "a.yaml#POST /orders",
            "POST /refunds",
            "b.yaml#POST /orders"
        ],
        "{out}"
    );
    // Readiness: two rows that say which spec they are in.
    let (_, table, err) = retrylint(&dir, &["readiness"]);
    let rows: Vec<&str> = table
        .lines()
        .filter(|l| l.contains("POST /orders"))
        .collect();
    assert_eq!(rows.len(), 2, "{table}{err}");
    assert!(rows[0].starts_with("a.yaml#POST /orders "), "{table}");
    assert!(rows[1].starts_with("b.yaml#POST /orders "), "{table}");
    // The baseline records both, one key each.
    let b = record(&dir);
    assert_eq!(
        b.findings[0].operations,
        [
            "a.yaml#POST /orders",
            "b.yaml#POST /orders",
            "b.yaml#POST /refunds"
        ]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A check of `dir` with the baseline `b` applied as the CLI does (split + filter).
fn check_against(dir: &Path, b: Option<&baseline::Baseline>) -> Vec<Diagnostic> {
    let root = std::fs::canonicalize(dir).unwrap();
    let outcome: CheckOutcome = run(&CheckOptions {
        paths: vec![root.clone()],
        cwd: Some(root.clone()),
        root: Some(root.clone()),
        split: b.map(|b| baseline::split(b, &root)),
        ..CheckOptions::default()
    });
    match b {
        Some(b) => baseline::filter_new(outcome.diagnostics, b, &root),
        None => outcome.diagnostics,
    }
}

fn record(dir: &Path) -> baseline::Baseline {
    let root = std::fs::canonicalize(dir).unwrap();
    let b = baseline::of(&check_against(dir, None), &root);
    // Through the file, as a CI run reads it.
    let file = dir.join("base.json");
    std::fs::write(&file, baseline::render(&b)).unwrap();
    baseline::read(&file).unwrap()
}

fn summary(diags: &[Diagnostic]) -> Vec<(String, Vec<String>)> {
    diags
        .iter()
        .map(|d| (d.code.to_string(), d.operations.clone()))
        .collect()
}

#[test]
fn identical_findings_stay_hidden_and_the_file_is_stable() {
    let dir = scratch("same", &[case40("after")]);
    let b = record(&dir);
    assert!(check_against(&dir, Some(&b)).is_empty());
    // Recording again gives the same bytes (sorted, deterministic).
    let first = baseline::render(&b);
    assert_eq!(baseline::render(&record(&dir)), first);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_new_operation_in_another_spec_file_is_reported_alone() {
    // One policy governing two specs; a new operation appears in the second one.
    let dir = scratch("two-specs", &[case40("before")]);
    let policy = std::fs::read_to_string(dir.join("retry-policy.yaml")).unwrap();
    std::fs::write(
        dir.join("retry-policy.yaml"),
        policy.replace("spec: openapi.yaml", "spec: [openapi.yaml, billing.yaml]"),
    )
    .unwrap();
    let billing =
        "openapi: 3.0.3\ninfo: {title: Billing, version: '1'}\npaths:\n  /invoices:\n    \
                   get:\n      responses:\n        '200': {description: ok}\n";
    std::fs::write(dir.join("billing.yaml"), billing).unwrap();
    let b = record(&dir);
    assert!(check_against(&dir, Some(&b)).is_empty());
    std::fs::write(
        dir.join("billing.yaml"),
        format!(
            "{billing}  /refunds:\n    post:\n      responses:\n        '201': {{description: ok}}\n"
        ),
    )
    .unwrap();
    let new = check_against(&dir, Some(&b));
    assert!(!new.is_empty());
    for d in &new {
        assert_eq!(d.operations, ["POST /refunds"], "{}: {}", d.code, d.message);
        assert!(
            d.labels
                .iter()
                .all(|l| !l.location.file.display.ends_with("openapi.yaml")),
            "{}: a label on the old operations' spec",
            d.code
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn rl311(side: &str) -> PathBuf {
    repo()
        .join("fixtures/rules/RL311-retry-amplification")
        .join(side)
}

#[test]
fn a_new_layer_is_reported() {
    // Client and gateway retry `GET /orders`; then a mesh layer joins. Its policy is a
    // label in another file on the recorded RL311 finding.
    let dir = scratch("layer", &[rl311("trigger-client-and-gateway")]);
    let b = record(&dir);
    assert!(check_against(&dir, Some(&b)).is_empty());
    let mesh = rl311("trigger-three-layers").join("mesh.retry-policy.yaml");
    std::fs::copy(&mesh, dir.join("mesh.retry-policy.yaml")).unwrap();
    let new = check_against(&dir, Some(&b));
    let rl311: Vec<&Diagnostic> = new.iter().filter(|d| d.code == "RL311").collect();
    assert_eq!(rl311.len(), 1, "{:?}", summary(&new));
    assert!(
        rl311[0].message.contains("3 layers"),
        "{}",
        rl311[0].message
    );
    // Removing it again: nothing new.
    std::fs::remove_file(dir.join("mesh.retry-policy.yaml")).unwrap();
    assert!(check_against(&dir, Some(&b)).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn new_users_of_a_shared_component_are_reported_even_with_the_same_message() {
    // RL505 at one shared 202 response: recorded for two operations; two more join.
    // Both halves read "shared by 2 operations" at the same node; the new half must
    // not be dropped as a repeat of the recorded one.
    let dir = scratch(
        "component",
        &[repo().join(
            "fixtures/rules/RL505-accepted-without-status-location/trigger-shared-component",
        )],
    );
    let b = record(&dir);
    assert!(check_against(&dir, Some(&b)).is_empty());
    let spec = dir.join("openapi.yaml");
    let text = std::fs::read_to_string(&spec).unwrap();
    let more = "  /reports:\n    post:\n      responses:\n        '202':\n          $ref: '#/components/responses/Accepted'\n  \
                /backups:\n    post:\n      responses:\n        '202':\n          $ref: '#/components/responses/Accepted'\ncomponents:\n";
    std::fs::write(&spec, text.replace("components:\n", more)).unwrap();
    let new = check_against(&dir, Some(&b));
    assert_eq!(
        summary(&new),
        [(
            "RL505".to_string(),
            vec!["POST /reports".to_string(), "POST /backups".to_string()]
        )]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every rule fixture with a finding over several operations: drop one operation from
/// the baseline and the run reports exactly that operation, in one finding of the same
/// rule, and nothing else. (Checks that each rule's finding is keyed at the node its
/// grouping splits on.)
#[test]
fn every_grouped_finding_splits_off_exactly_the_unrecorded_operation() {
    let mut tried = 0;
    let rules = repo().join("fixtures/rules");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&rules)
        .unwrap()
        .flat_map(|r| std::fs::read_dir(r.unwrap().path()).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    // And the shop spec under one-line `defaults` that get many rules wrong at once,
    // so most rules' findings cover several operations.
    for (i, defaults) in BAD_DEFAULTS.iter().enumerate() {
        let dir =
            std::env::temp_dir().join(format!("retrylint-bl-defaults-{i}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let shop = repo().join("fixtures/examples/shop");
        std::fs::copy(shop.join("openapi.yaml"), dir.join("openapi.yaml")).unwrap();
        std::fs::write(
            dir.join("retry-policy.yaml"),
            format!("version: 1\nspec: openapi.yaml\ndefaults: {defaults}\n"),
        )
        .unwrap();
        dirs.push(dir);
    }
    let mut codes = std::collections::BTreeSet::new();
    for dir in dirs {
        let root = std::fs::canonicalize(&dir).unwrap();
        let all = check_against(&root, None);
        let full = baseline::of(&all, &root);
        for d in all.iter().filter(|d| d.operations.len() > 1) {
            tried += 1;
            codes.insert(d.code);
            let dropped = d.operations.last().unwrap().clone();
            let document = d.operation_documents.last().unwrap().as_ref().unwrap();
            let key = format!(
                "{}#{dropped}",
                retrylint::report::root_relative_file(document, &root)
            );
            let mut b = full.clone();
            let path = retrylint::report::root_relative(&d.primary.location, &root);
            let entry = b
                .findings
                .iter_mut()
                .find(|e| {
                    e.rule == d.code
                        && e.path == path
                        && e.pointer == d.primary.location.pointer
                        && e.operations.contains(&key)
                })
                .unwrap();
            let at = entry.operations.iter().position(|o| *o == key).unwrap();
            entry.operations.remove(at);
            let new = check_against(&root, Some(&b));
            assert_eq!(
                summary(&new),
                [(d.code.to_string(), vec![dropped.clone()])],
                "{}: {} without {dropped}",
                dir.display(),
                d.code
            );
        }
    }
    // The rules seen grouped (so a rule that stops grouping is noticed here).
    assert!(
        codes.len() >= 18,
        "{tried} grouped findings, rules {codes:?}"
    );
    for (i, _) in BAD_DEFAULTS.iter().enumerate() {
        let dir =
            std::env::temp_dir().join(format!("retrylint-bl-defaults-{i}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// One-line `defaults` over every operation of the shop spec, each wrong in several
/// ways (with the rule fixtures: 37 grouped findings of 20 rules when written).
const BAD_DEFAULTS: &[&str] = &[
    "{retry: true, effect: non-idempotent, attempts: 10, backoff: {base: 100ms, cap: 1s}, retry_on: [503, 409, 429], on_unknown_result: resend}",
    "{retry: true, attempts: 3, deadline: 3s, attempt_timeout: 2s, backoff: {base: 100ms, cap: 1s, jitter: full}, retry_on: [transport, 429], retry_after: {honor: true, max: 30s, on_invalid: stop}}",
    "{retry: true, effect: non-idempotent, idempotency_key: {header: X-Request-Id, retention: 1s, scope: per-client, on_payload_mismatch: reject, on_concurrent: reject}, on_unknown_result: replay-key, attempts: 3, deadline: 1m, backoff: {base: 200ms, cap: 2s, jitter: full}, retry_on: [transport]}",
    "{retry: true, effect: non-idempotent, status_endpoint: 'GET /nope', on_unknown_result: check-status, attempts: 0, deadline: 10ms, backoff: {base: 1s, cap: 2s, jitter: full}, retry_on: [transport]}",
    "{retry: true, effect: idempotent, attempts: 3, deadline: 5s, backoff: {base: 100ms, cap: 1s, jitter: full}, retry_on: [transport, 400]}",
];

#[test]
fn the_configurations_baseline_key_is_used_without_the_flag() {
    let dir =
        std::env::temp_dir().join(format!("retrylint-config-baseline-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let shop = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/examples/shop");
    for f in ["openapi.yaml", "shop.retry-policy.yaml"] {
        std::fs::copy(shop.join(f), dir.join(f)).unwrap();
    }
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_retrylint"))
            .args(args)
            .current_dir(&dir)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert_eq!(
        run(&["check", "."]).0,
        Some(1),
        "findings without a baseline"
    );
    assert_eq!(
        run(&["check", "--write-baseline", "base.json", "."]).0,
        Some(0)
    );
    std::fs::write(dir.join(".retrylint.yaml"), "baseline: base.json\n").unwrap();
    let (code, stderr) = run(&["check", "."]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("hid 17 finding(s)"), "{stderr}");
    std::fs::write(dir.join(".retrylint.yaml"), "baseline: [base.json]\n").unwrap();
    let (code, stderr) = run(&["check", "."]);
    assert_eq!(
        code,
        Some(2),
        "a baseline that is not a string is a configuration error"
    );
    assert!(stderr.contains("`baseline`"), "{stderr}");
}

#[test]
fn the_report_is_never_written_over_the_baseline_being_recorded() {
    let dir =
        std::env::temp_dir().join(format!("retrylint-baseline-output-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("out")).unwrap();
    let shop = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/examples/shop");
    for f in ["openapi.yaml", "shop.retry-policy.yaml"] {
        std::fs::copy(shop.join(f), dir.join(f)).unwrap();
    }
    // The same file spelt two ways, and not yet existing.
    let (code, _, stderr) = retrylint(
        &dir,
        &[
            "check",
            "--format",
            "json",
            "--write-baseline",
            "out/base.json",
            "--output",
            "./out/../out/base.json",
            "openapi.yaml",
        ],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--write-baseline records"), "{stderr}");
    assert!(!dir.join("out/base.json").exists(), "nothing was written");
    // Two different files: both written.
    let (code, _, stderr) = retrylint(
        &dir,
        &[
            "check",
            "--format",
            "json",
            "--write-baseline",
            "out/base.json",
            "--output",
            "out/report.json",
            "openapi.yaml",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let baseline = std::fs::read_to_string(dir.join("out/base.json")).unwrap();
    let report = std::fs::read_to_string(dir.join("out/report.json")).unwrap();
    assert_ne!(baseline, report);
    assert!(report.contains("\"diagnostics\""));
    let _ = std::fs::remove_dir_all(&dir);
}
