//! Budgets, hedging and composition across layers: the `budget` and `hedging` policy
//! keys (RL005 on bad values), the readiness `composed` chain, and RL311's budget
//! bound, over `fixtures/composition/`.

use retrylint::check::{run, run_full, CheckOptions};
use retrylint::readiness::{matrix, render};
use retrylint::retry::{Hedging, RetryBudget};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn options(dir: &Path) -> CheckOptions {
    CheckOptions {
        paths: vec![dir.to_path_buf()],
        cwd: Some(repo()),
        root: Some(dir.to_path_buf()),
        ..CheckOptions::default()
    }
}

const SPEC: &str = "openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths:\n  /orders:\n    get:\n      responses:\n        \"200\": {description: ok}\n";

/// Findings (code, message) of a policy with `settings` under `GET /orders`.
fn lint_settings(name: &str, settings: &str) -> Vec<(String, String)> {
    let dir = std::env::temp_dir().join(format!("retrylint-budget-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("openapi.yaml"), SPEC).unwrap();
    let policy = format!(
        "version: 1\nspec: openapi.yaml\noperations:\n  \"GET /orders\":\n    retry: true\n    attempts: 2\n    deadline: 2s\n    backoff: {{base: 100ms, cap: 1s, jitter: full}}\n    retry_on: [transport]\n{settings}"
    );
    std::fs::write(dir.join("client.retry-policy.yaml"), policy).unwrap();
    let outcome = run(&options(&dir));
    let _ = std::fs::remove_dir_all(&dir);
    outcome
        .diagnostics
        .iter()
        .map(|d| (d.code.to_string(), d.message.clone()))
        .collect()
}

fn rl005(found: &[(String, String)]) -> Vec<&str> {
    found
        .iter()
        .filter(|(c, _)| c == "RL005")
        .map(|(_, m)| m.as_str())
        .collect()
}

#[test]
fn every_budget_shape_and_hedging_parse_cleanly() {
    for (name, s) in [
        (
            "ratio",
            "    budget: {ratio: 0.2, min_per_second: 10, min_concurrent: 3, window: 10s}\n",
        ),
        ("cap", "    budget: {max_concurrent_retries: 3}\n"),
        ("tokens", "    budget: {tokens: 10, token_ratio: 0.1}\n"),
        ("hedging", "    hedging: {attempts: 3, delay: 100ms}\n"),
        ("hedging-no-delay", "    hedging: {attempts: 2}\n"),
    ] {
        let found = lint_settings(name, s);
        assert!(rl005(&found).is_empty(), "{name}: {found:?}");
    }
}

#[test]
fn bad_budgets_and_hedging_are_rl005() {
    let cases = [
        (
            "mixed",
            "    budget: {ratio: 0.2, tokens: 10, token_ratio: 0.1}\n",
            "mixes the keys of `ratio` and `tokens` budgets",
        ),
        ("empty", "    budget: {}\n", "names no budget"),
        (
            "incomplete",
            "    budget: {tokens: 10}\n",
            "a `tokens` budget needs `token_ratio`",
        ),
        (
            "negative",
            "    budget: {ratio: -0.1}\n",
            "`budget.ratio` must be at least 0",
        ),
        (
            "zero-tokens",
            "    budget: {tokens: 0, token_ratio: 0.1}\n",
            "`budget.tokens` must be above 0",
        ),
        (
            "bare-window",
            "    budget: {ratio: 0.2, window: 10}\n",
            "`budget.window` `10` has no unit",
        ),
        ("typo", "    budget: {ratoi: 0.2}\n", "unknown key `ratoi`"),
        (
            "cap-negative",
            "    budget: {max_concurrent_retries: -1}\n",
            "must be at least 0",
        ),
        (
            "hedging-zero",
            "    hedging: {attempts: 0}\n",
            "`hedging.attempts` must be at least 1",
        ),
        (
            "hedging-no-attempts",
            "    hedging: {delay: 1s}\n",
            "`hedging` needs `attempts`",
        ),
        ("hedging-scalar", "    hedging: 3\n", "`hedging`"),
    ];
    for (name, s, expected) in cases {
        let found = lint_settings(name, s);
        let msgs = rl005(&found);
        assert!(
            msgs.iter().any(|m| m.contains(expected)),
            "{name}: expected an RL005 containing {expected:?}, got {found:?}"
        );
    }
}

#[test]
fn the_three_layer_chain_composes() {
    let dir = repo().join("fixtures/composition/three-layers");
    let (analyzed, diags) = run_full(&options(&dir));
    let m = matrix(&analyzed, &diags);
    let json: serde_json::Value = serde_json::from_str(&render::json(&m)).unwrap();
    let get = &json["operations"][0];
    assert_eq!(get["method"], "GET");
    // `attempts` stays the client layer's.
    assert_eq!(get["attempts"], 3);
    let c = &get["composed"];
    let kinds: Vec<&str> = c["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["client", "gateway", "mesh"]);
    assert!(c["layers"][1]["source"]
        .as_str()
        .unwrap()
        .ends_with("gateway.retry-policy.yaml"));
    // 3 x 3 x 2 = 18 per request; under load the gateway's 20 % budget counts 1.2
    // (the mesh's concurrency cap does not count): 3 x 1.2 x 2 = 7.2.
    assert_eq!(c["attempts_total"], 7.2);
    assert_eq!(c["attempts_bound_by_budget"], true);
    // mesh 2 x 300ms + 25ms = 625ms; gateway 3 x 625ms + 75ms = 1950ms;
    // client 3 x 1950ms + 300ms = 6150ms, within its 10s deadline.
    assert_eq!(c["worst_case_ms"], 6150.0);
    assert_eq!(c["unprotected_layers"].as_array().unwrap().len(), 0);

    let post = &json["operations"][1];
    assert_eq!(post["method"], "POST");
    let unprotected: Vec<&str> = post["composed"]["unprotected_layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert_eq!(unprotected, ["gateway", "mesh"]);

    let table = render::table(&m);
    assert!(table.contains("all layers"), "{table}");
    assert!(table.contains("7.2 x (budget), 6.15s"), "{table}");

    let codes: Vec<(&str, String)> = diags.iter().map(|d| (d.code, d.message.clone())).collect();
    let rl311 = codes
        .iter()
        .find(|(c, m)| *c == "RL311" && m.contains("GET /orders"))
        .expect("RL311 on GET /orders");
    assert!(
        rl311.1.contains(
            "under load the 20% ratio budget of the gateway layer bounds it near 7.2 attempts"
        ),
        "{}",
        rl311.1
    );
    assert!(codes.iter().any(|(c, _)| *c == "RL207"), "{codes:?}");
    assert!(codes
        .iter()
        .any(|(c, m)| *c == "RL312" && m.contains("POST /orders")));
}

#[test]
fn budget_and_hedging_types_serialise_their_shape() {
    let b = RetryBudget::Tokens {
        tokens: 10.0,
        token_ratio: 0.1,
    };
    let v = serde_json::to_value(b).unwrap();
    assert_eq!(v["shape"], "tokens");
    let h = Hedging {
        attempts: 3,
        delay_ms: 100.0,
    };
    assert!(h.sends_copies());
}

/// The worked example (README "Layers"): the client's key, required by the spec,
/// travels to the gateway and the mesh, so `composed` lists every layer as protected
/// (as RL201 sees it: no RL201 for the proxies), not only the layer that declares it.
#[test]
fn the_clients_key_protects_every_layer_of_the_example() {
    let dir = repo().join("fixtures/examples/layers");
    let (analyzed, diags) = run_full(&options(&dir));
    assert!(!diags.iter().any(|d| d.code == "RL201" || d.code == "RL203"));
    let m = matrix(&analyzed, &diags);
    let json: serde_json::Value = serde_json::from_str(&render::json(&m)).unwrap();
    let post = json["operations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["method"] == "POST")
        .expect("POST /payments");
    let names = |key: &str| -> Vec<String> {
        post["composed"][key]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names("protected_layers"), ["client", "gateway", "mesh"]);
    assert!(names("unprotected_layers").is_empty());
    assert_eq!(post["composed"]["attempts_total"], 18);
    assert_eq!(post["composed"]["worst_case_ms"], 6600.0);
}
