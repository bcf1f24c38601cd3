//! `retrylint init`: the starter policy of a spec, read back with the real policy
//! parser and checked (every `todo` is one RL018 at its value, nothing is RL005).

#![allow(clippy::disallowed_macros)] // output for the reader (clippy.toml)

mod common;

use common::retrylint_in;
use retrylint::policy::model::Settings;
use retrylint::source::loader::{Limits, Workspace};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh folder holding a copy of `files` (name, source path).
fn folder(name: &str, files: &[(&str, &Path)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("retrylint-init-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (to, from) in files {
        std::fs::copy(from, dir.join(to)).unwrap();
    }
    dir
}

fn shop_spec() -> PathBuf {
    repo().join("fixtures/examples/shop/openapi.yaml")
}

/// 1-based line numbers of the `todo` values of a policy text.
fn todo_lines(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            let value = l.split('#').next().unwrap_or("");
            value.trim_end().ends_with(": todo")
        })
        .map(|(i, _)| i + 1)
        .collect()
}

/// Every settings mapping of a parsed policy: `defaults` and each entry.
fn all_settings(p: &retrylint::policy::model::PolicyFile) -> Vec<&Settings> {
    p.defaults
        .iter()
        .chain(p.operations.iter().map(|e| &e.settings))
        .collect()
}

/// Reads `policy` with the policy parser: no finding, and one `todo` per `todo` line.
fn parses_cleanly(policy: &Path) -> retrylint::policy::model::PolicyFile {
    let ws = Workspace::new(policy.parent().unwrap().to_path_buf(), Limits::default());
    let doc = ws.load(policy);
    let (parsed, diags) = retrylint::policy::load_policy(&doc);
    assert!(diags.is_empty(), "the starter policy parses: {diags:?}");
    let parsed = parsed.expect("a policy");
    let text = std::fs::read_to_string(policy).unwrap();
    let todos: usize = all_settings(&parsed).iter().map(|s| s.todos.len()).sum();
    assert_eq!(todos, todo_lines(&text).len(), "{text}");
    parsed
}

/// `check` on the folder: the (code, line) of every finding in `policy_name`, and
/// every code found.
fn check(dir: &Path, policy_name: &str) -> (Vec<(String, usize)>, Vec<String>) {
    let (code, out, err) = retrylint_in(dir, &["check", ".", "--format", "json"]);
    assert!(code == 0 || code == 1, "check runs: {err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let mut in_policy = Vec::new();
    let mut codes = Vec::new();
    for d in v["diagnostics"].as_array().unwrap() {
        let c = d["code"].as_str().unwrap().to_string();
        if d["path"].as_str() == Some(policy_name) {
            in_policy.push((c.clone(), d["line"].as_u64().unwrap() as usize));
        }
        codes.push(c);
    }
    (in_policy, codes)
}

/// The shop's starter policy (snapshot), and what it answers and leaves open.
#[test]
fn init_on_the_shop() {
    let dir = folder("shop", &[("openapi.yaml", &shop_spec())]);
    let (code, out, err) = retrylint_in(&dir, &["init", "openapi.yaml"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.is_empty(),
        "the policy goes to the file, not stdout: {out}"
    );
    assert!(
        err.contains("wrote retry-policy.yaml (13 open questions"),
        "{err}"
    );
    let text = std::fs::read_to_string(dir.join("retry-policy.yaml")).unwrap();
    insta::assert_snapshot!("init_shop", text);
    let p = parses_cleanly(&dir.join("retry-policy.yaml"));
    let entry = |id: &str| {
        &p.operations
            .iter()
            .find(|e| e.text == id)
            .unwrap_or_else(|| panic!("{id} written"))
            .settings
    };
    // A POST without a key in the spec: never retried, its effect open.
    let pay = entry("createPayment");
    assert_eq!(pay.retry.as_ref().map(|r| r.value), Some(false));
    assert!(pay.retry_on.is_none());
    assert!(pay.is_todo("effect") && pay.is_todo("on_unknown_result"));
    // The spec's key, 409 and 422 answer the key contract; retention stays open.
    let order = entry("createOrder");
    let key = order.idempotency_key.as_ref().expect("key");
    assert_eq!(key.header.as_ref().unwrap().value, "Idempotency-Key");
    assert!(key.on_payload_mismatch.is_some() && key.on_concurrent.is_some());
    assert!(order.is_todo("idempotency_key.retention"));
    // A safe GET is retried on transport failures and the spec's 429.
    let list = entry("listOrders");
    assert_eq!(list.retry.as_ref().map(|r| r.value), Some(true));
    let signals: Vec<String> = list
        .retry_on
        .as_ref()
        .unwrap()
        .value
        .iter()
        .map(|s| s.value.to_string())
        .collect();
    assert_eq!(signals, ["transport", "429"]);
    let d = p.defaults.as_ref().unwrap();
    for f in [
        "attempts",
        "deadline",
        "backoff.base",
        "backoff.cap",
        "backoff.jitter",
    ] {
        assert!(d.is_todo(f), "defaults.{f} is open");
    }
}

/// `check` on spec + starter policy: one RL018 at each `todo` line, nothing else in
/// the policy that says it is malformed (RL005) or names an unknown operation (RL006).
#[test]
fn every_todo_is_one_rl018_at_its_line() {
    let dir = folder("roundtrip", &[("openapi.yaml", &shop_spec())]);
    let (code, _, err) = retrylint_in(&dir, &["init", "openapi.yaml"]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(dir.join("retry-policy.yaml")).unwrap();
    let (found, codes) = check(&dir, "retry-policy.yaml");
    let mut rl018: Vec<usize> = found
        .iter()
        .filter(|(c, _)| c == "RL018")
        .map(|(_, l)| *l)
        .collect();
    rl018.sort_unstable();
    assert_eq!(rl018, todo_lines(&text));
    assert!(
        !codes.iter().any(|c| c == "RL005" || c == "RL006"),
        "{codes:?}"
    );
    // A todo is no answer: the retried GETs still lack a deadline and attempts.
    assert!(codes.iter().any(|c| c == "RL301"), "{codes:?}");
    assert!(codes.iter().any(|c| c == "RL302"), "{codes:?}");
}

#[test]
fn init_never_overwrites_a_file() {
    let dir = folder("overwrite", &[("openapi.yaml", &shop_spec())]);
    std::fs::write(dir.join("retry-policy.yaml"), "mine\n").unwrap();
    let (code, out, err) = retrylint_in(&dir, &["init", "openapi.yaml"]);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("retry-policy.yaml already exists"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.join("retry-policy.yaml")).unwrap(),
        "mine\n"
    );
    // -o names another existing file: refused too (the spec itself, here).
    let (code, _, err) = retrylint_in(&dir, &["init", "openapi.yaml", "-o", "openapi.yaml"]);
    assert_eq!(code, 2);
    assert!(err.contains("openapi.yaml already exists"), "{err}");
    // -o FILE that does not exist yet is written.
    let (code, _, err) = retrylint_in(
        &dir,
        &["init", "openapi.yaml", "-o", "client.retry-policy.yaml"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(dir.join("client.retry-policy.yaml").is_file());
}

/// `--layer gateway -o -`: standard output, the layer written, and no unknown-result
/// question a proxy cannot answer (RL401 is the client's).
#[test]
fn layer_gateway_to_stdout() {
    let dir = folder("gateway", &[("openapi.yaml", &shop_spec())]);
    let (code, out, err) = retrylint_in(
        &dir,
        &["init", "openapi.yaml", "--layer", "gateway", "-o", "-"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\nlayer: gateway\n"), "{out}");
    assert!(!out.contains("on_unknown_result: todo"), "{out}");
    assert!(
        !dir.join("retry-policy.yaml").exists(),
        "-o - writes no file"
    );
    std::fs::write(dir.join("gateway.retry-policy.yaml"), &out).unwrap();
    let p = parses_cleanly(&dir.join("gateway.retry-policy.yaml"));
    assert_eq!(p.layer().as_str(), "gateway");
    let (code, _, err) = retrylint_in(&dir, &["init", "openapi.yaml", "--layer", "edge"]);
    assert_eq!(code, 2, "{err}");
}

/// An imported config of the layer answers Q3 for the operations it binds.
#[test]
fn an_imported_layer_answers_the_budget() {
    let platform = repo().join("fixtures/examples/platform");
    let (code, out, err) = retrylint_in(
        &platform,
        &["init", "api/openapi.yaml", "--layer", "gateway", "-o", "-"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("attempts: 3                    # from deploy/envoy/envoy.yaml:25:31"),
        "{out}"
    );
    // Never copied: the config's retry_on for a POST the spec gives no key.
    let order = out
        .split("  createOrder:")
        .nth(1)
        .unwrap()
        .split("\n  get")
        .next()
        .unwrap();
    assert!(
        order.contains("retry: false") && !order.contains("retry_on"),
        "{order}"
    );
}

#[test]
fn bad_input_is_exit_2_and_writes_nothing() {
    let dir = folder("bad", &[]);
    std::fs::write(dir.join("broken.yaml"), "openapi: 3.0.3\npaths: {/a: [\n").unwrap();
    std::fs::write(dir.join("notes.yaml"), "title: not a spec\n").unwrap();
    let (code, _, err) = retrylint_in(&dir, &["init", "missing.yaml"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read missing.yaml"), "{err}");
    let (code, _, err) = retrylint_in(&dir, &["init", "broken.yaml"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("broken.yaml:") && err.contains("nothing was written"),
        "{err}"
    );
    let (code, _, err) = retrylint_in(&dir, &["init", "notes.yaml"]);
    assert_eq!(code, 2);
    assert!(err.contains("no OpenAPI document in notes.yaml"), "{err}");
    assert!(!dir.join("retry-policy.yaml").exists());
    let (code, _, _) = retrylint_in(&dir, &["init"]);
    assert_eq!(code, 2, "a spec is required");
}

/// `todo` only where it answers a question: elsewhere it is RL005, as before.
#[test]
fn todo_elsewhere_is_rl005() {
    let dir = folder("elsewhere", &[("openapi.yaml", &shop_spec())]);
    std::fs::write(
        dir.join("retry-policy.yaml"),
        "version: 1\nspec: openapi.yaml\ndefaults:\n  retry: todo\n  attempt_timeout: todo\n  retry_on: todo\n  retry_after: {honor: todo}\n",
    )
    .unwrap();
    let (found, _) = check(&dir, "retry-policy.yaml");
    let mut rl005: Vec<usize> = found
        .iter()
        .filter(|(c, _)| c == "RL005")
        .map(|(_, l)| *l)
        .collect();
    rl005.sort_unstable();
    assert_eq!(rl005, [4, 5, 6, 7], "{found:?}");
    assert!(!found.iter().any(|(c, _)| c == "RL018"), "{found:?}");
}

/// The done-when: `init` on Adyen Checkout, Stripe and Box gives a policy
/// that parses and whose every `todo` `check` reports as RL018. Needs ../shared.
#[test]
fn init_on_real_specs() {
    let specs = repo().join("../shared/corpus/specs");
    if !specs.is_dir() {
        eprintln!("skipped: ../shared/corpus/specs is absent (a clone without the shared corpus)");
        return;
    }
    for name in [
        "Adyen-adyen-openapi--json-CheckoutService-v71.json",
        "stripe-openapi--openapi-spec3.yaml",
        "box-box-openapi--openapi.json",
    ] {
        let dir = folder(&name[..5], &[(name, &specs.join(name))]);
        let (code, _, err) = retrylint_in(&dir, &["init", name]);
        assert_eq!(code, 0, "{name}: {err}");
        let text = std::fs::read_to_string(dir.join("retry-policy.yaml")).unwrap();
        let p = parses_cleanly(&dir.join("retry-policy.yaml"));
        assert!(
            p.operations.len() > 10,
            "{name}: {} operations",
            p.operations.len()
        );
        let (found, codes) = check(&dir, "retry-policy.yaml");
        let mut rl018: Vec<usize> = found
            .iter()
            .filter(|(c, _)| c == "RL018")
            .map(|(_, l)| *l)
            .collect();
        rl018.sort_unstable();
        assert_eq!(rl018, todo_lines(&text), "{name}");
        assert!(
            !codes.iter().any(|c| c == "RL005" || c == "RL006"),
            "{name}: {codes:?}"
        );
        eprintln!(
            "{name}: {} operations, {} todos, all RL018",
            p.operations.len(),
            rl018.len()
        );
    }
}

/// `effect: todo` is no declaration of safety: a retried `GET` whose effect is open
/// is taken as non-idempotent (RL201 without a key), and an entry's open question
/// is not answered by `defaults`.
#[test]
fn an_open_effect_is_never_safe() {
    let dir = folder("effect", &[("openapi.yaml", &shop_spec())]);
    std::fs::write(
        dir.join("retry-policy.yaml"),
        "version: 1\nspec: openapi.yaml\ndefaults:\n  effect: safe\n  attempts: 3\n  deadline: 3s\n  backoff: {base: 100ms, cap: 1s, jitter: full}\noperations:\n  getOrder:\n    effect: todo\n    retry: true\n    retry_on: [timeout]\n",
    )
    .unwrap();
    let (found, _) = check(&dir, "retry-policy.yaml");
    assert!(found.contains(&("RL018".to_string(), 10)), "{found:?}");
    assert!(found.iter().any(|(c, _)| c == "RL201"), "{found:?}");
}

/// An operationId the policy would read as `METHOD /path` (`orders/list`, `GET
/// /other`) is keyed by the operation's own `METHOD /path`: every entry of the starter
/// policy selects its operation (no RL005 bad selector, no RL006 unknown operation).
#[test]
fn operation_ids_that_read_as_paths_are_keyed_by_method_and_path() {
    let dir = folder("ids", &[]);
    std::fs::write(
        dir.join("openapi.yaml"),
        "openapi: 3.0.3\ninfo: {title: ids, version: '1'}\npaths:\n  /orders:\n    get:\n      operationId: orders/list\n      responses: {'200': {description: ok}}\n    put:\n      operationId: GET /other\n      responses: {'200': {description: ok}}\n    delete:\n      operationId: cancelAll\n      responses: {'204': {description: gone}}\n",
    )
    .unwrap();
    let (code, _, err) = retrylint_in(&dir, &["init", "openapi.yaml"]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(dir.join("retry-policy.yaml")).unwrap();
    assert!(text.contains("\n  GET /orders:"), "{text}");
    assert!(text.contains("\n  PUT /orders:"), "{text}");
    assert!(text.contains("\n  cancelAll:"), "{text}");
    parses_cleanly(&dir.join("retry-policy.yaml"));
    let (_, codes) = check(&dir, "retry-policy.yaml");
    assert!(
        !codes.iter().any(|c| c == "RL005" || c == "RL006"),
        "{codes:?}"
    );
}
