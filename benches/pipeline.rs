//! Benchmarks of each stage on generated inputs of growing size, to show that cost
//! grows linearly: building the located tree (YAML and JSON), resolving refs and
//! building the model, running all rules, rendering each format.
//!
//! `cargo bench --bench pipeline` (divan). Real-spec timings against bare parses
//! and peer tools are in `scripts/bench.sh`.

use retrylint::check::{run, run_full, CheckOptions};
use retrylint::report;
use retrylint::source::tree::Tree;
use std::fmt::Write;
use std::path::PathBuf;
use std::sync::Arc;

fn main() {
    divan::main();
}

/// A spec with `n` path items, each with a GET and a POST, sharing components.
fn spec_yaml(n: usize) -> String {
    let mut s = String::from("openapi: 3.0.3\ninfo: {title: generated, version: \"1\"}\npaths:\n");
    for i in 0..n {
        let _ = write!(
            s,
            "  /items{i}/{{id}}:\n    parameters:\n      - {{name: id, in: path, required: true, schema: {{type: string}}}}\n    get:\n      operationId: get{i}\n      responses:\n        '200': {{description: ok}}\n        '429': {{$ref: '#/components/responses/Throttled'}}\n    post:\n      operationId: create{i}\n      parameters:\n        - $ref: '#/components/parameters/Key'\n      responses:\n        '201': {{description: created}}\n        '409': {{description: in flight}}\n        '503': {{description: down}}\n"
        );
    }
    s.push_str("components:\n  parameters:\n    Key: {name: Idempotency-Key, in: header, required: true, schema: {type: string}}\n  responses:\n    Throttled:\n      description: slow down\n      headers:\n        Retry-After: {schema: {type: integer, minimum: 0}}\n");
    s
}

/// The same spec rendered as JSON.
fn spec_json(n: usize) -> String {
    let v: serde_json::Value = serde_yaml::from_str(&spec_yaml(n)).expect("valid");
    serde_json::to_string_pretty(&v).expect("json")
}

/// A chain of 40 schemas, each referring twice to the next (ref fan-out).
fn fan_out_yaml() -> String {
    let mut s = String::from("openapi: 3.0.3\ninfo: {title: fan-out, version: \"1\"}\npaths:\n  /x:\n    get:\n      responses:\n        '200':\n          description: ok\n          content: {application/json: {schema: {$ref: '#/components/schemas/C0'}}}\ncomponents:\n  schemas:\n");
    for i in 0..40 {
        let _ = writeln!(
            s,
            "    C{i}: {{allOf: [{{$ref: '#/components/schemas/C{n}'}}, {{$ref: '#/components/schemas/C{n}'}}]}}",
            n = i + 1
        );
    }
    s.push_str("    C40: {type: string}\n");
    s
}

const SIZES: &[usize] = &[100, 1_000, 10_000];

#[divan::bench(args = SIZES)]
fn tree_yaml(bencher: divan::Bencher, n: usize) {
    let text: Arc<str> = Arc::from(spec_yaml(n));
    bencher
        .counter(divan::counter::BytesCount::new(text.len()))
        .bench(|| Tree::parse(text.clone()).expect("parses"));
}

#[divan::bench(args = SIZES)]
fn tree_json(bencher: divan::Bencher, n: usize) {
    let text: Arc<str> = Arc::from(spec_json(n));
    bencher
        .counter(divan::counter::BytesCount::new(text.len()))
        .bench(|| Tree::parse(text.clone()).expect("parses"));
}

#[divan::bench(args = SIZES)]
fn serde_yaml_value_baseline(bencher: divan::Bencher, n: usize) {
    let text = spec_yaml(n);
    bencher.bench(|| serde_yaml::from_str::<serde_yaml::Value>(&text).expect("parses"));
}

#[divan::bench(args = SIZES)]
fn serde_json_value_baseline(bencher: divan::Bencher, n: usize) {
    let text = spec_json(n);
    bencher.bench(|| serde_json::from_str::<serde_json::Value>(&text).expect("parses"));
}

/// A temporary directory holding one generated spec (and a policy).
struct Fixture {
    dir: PathBuf,
}

impl Fixture {
    fn new(name: &str, spec: &str, policy: Option<&str>) -> Fixture {
        let dir =
            std::env::temp_dir().join(format!("retrylint-bench-{}-{name}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        std::fs::write(dir.join("openapi.yaml"), spec).expect("write");
        if let Some(p) = policy {
            std::fs::write(dir.join("retry-policy.yaml"), p).expect("write");
        }
        Fixture { dir }
    }

    fn options(&self) -> CheckOptions {
        CheckOptions {
            paths: vec![self.dir.clone()],
            root: Some(self.dir.clone()),
            cwd: Some(self.dir.clone()),
            ..CheckOptions::default()
        }
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

const POLICY: &str = "version: 1\nspec: openapi.yaml\ndefaults:\n  retry: true\n  attempts: 3\n  deadline: 3s\n  backoff: {base: 100ms, cap: 2s, jitter: full}\n  retry_on: [transport, 429, 503]\n  retry_after: {honor: true, max: 2s, on_invalid: backoff}\n  idempotency_key: {header: Idempotency-Key, retention: 24h, scope: per-client, on_payload_mismatch: reject, on_concurrent: reject}\n  on_unknown_result: replay-key\n";

/// The whole pipeline (read, tree, refs, model, join, all rules) on a spec with a
/// policy.
#[divan::bench(args = SIZES, sample_count = 20)]
fn check_all_rules(bencher: divan::Bencher, n: usize) {
    let fx = Fixture::new(&format!("check{n}"), &spec_yaml(n), Some(POLICY));
    let options = fx.options();
    bencher.bench(|| run(&options));
}

/// Ref fan-out: 40 components each referring twice to the next stays linear.
#[divan::bench]
fn ref_fan_out(bencher: divan::Bencher) {
    let fx = Fixture::new("fanout", &fan_out_yaml(), None);
    let options = fx.options();
    bencher.bench(|| run(&options));
}

/// Rendering the findings of a 1,000-path spec in each format.
#[divan::bench(args = ["human", "json"])]
fn render(bencher: divan::Bencher, format: &str) {
    // A policy without keys: every POST is an unprotected retry, so there is output.
    let policy = POLICY.replace("  idempotency_key: {header: Idempotency-Key, retention: 24h, scope: per-client, on_payload_mismatch: reject, on_concurrent: reject}\n", "");
    let fx = Fixture::new(
        &format!("render-{format}"),
        &spec_yaml(1_000),
        Some(&policy),
    );
    let (_, diags) = run_full(&fx.options());
    assert!(!diags.is_empty());
    bencher.bench(|| match format {
        "human" => report::human::render(&diags, report::human::HumanOptions::default()),
        _ => report::json::render(&diags),
    });
}
