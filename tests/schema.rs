//! `retrylint schema` (the policy format's JSON Schema) and `retrylint completions`.

use retrylint::policy::parse::{
    BACKOFF_KEYS, IGNORE_KEYS, JITTER_KEYS, KEY_KEYS, METHOD_NAMES, RETRY_AFTER_KEYS,
    SETTINGS_KEYS, SIGNAL_NAMES, TOP_KEYS,
};
use serde_json::Value;
use std::collections::BTreeSet;
use std::process::Command;

fn retrylint(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn schema() -> Value {
    let (code, out) = retrylint(&["schema"]);
    assert_eq!(code, 0);
    serde_json::from_str(&out).expect("the schema is JSON")
}

fn keys(v: &Value) -> BTreeSet<String> {
    v["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .cloned()
        .collect()
}

fn set(keys: &[&str]) -> BTreeSet<String> {
    keys.iter().map(|k| k.to_string()).collect()
}

#[test]
fn schema_keys_are_the_parsers_keys() {
    let s = schema();
    assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
    let defs = &s["$defs"];
    assert_eq!(keys(&s), set(TOP_KEYS));
    assert_eq!(s["additionalProperties"], false);
    let settings = &defs["settings"];
    assert_eq!(keys(settings), set(SETTINGS_KEYS));
    assert_eq!(settings["additionalProperties"], false);
    let p = &settings["properties"];
    assert_eq!(keys(&p["idempotency_key"]), set(KEY_KEYS));
    assert_eq!(keys(&p["backoff"]), set(BACKOFF_KEYS));
    assert_eq!(keys(&p["retry_after"]), set(RETRY_AFTER_KEYS));
    assert_eq!(keys(&defs["ignore"]["items"]), set(IGNORE_KEYS));
    let names: BTreeSet<String> = defs["signal"]["oneOf"][0]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, set(SIGNAL_NAMES));
    // Fields that answer a readiness question also take `todo` (an `anyOf` of the
    // value and `$defs/todo`).
    let jitter = &p["backoff"]["properties"]["jitter"]["anyOf"][0]["oneOf"];
    assert_eq!(keys(&jitter[1]), set(JITTER_KEYS));
    assert_eq!(
        jitter[1]["properties"]["proportional"]["exclusiveMinimum"],
        0
    );
    assert_eq!(jitter[1]["properties"]["proportional"]["maximum"], 1);
    let methods: BTreeSet<String> = p["methods"]["items"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(methods, set(METHOD_NAMES));
    assert_eq!(p["attempts"]["anyOf"][0]["type"], "integer");
    assert_eq!(p["attempts"]["anyOf"][0]["minimum"], 1);
    assert_eq!(defs["todo"]["const"], "todo");
    // `todo` exactly where the parser takes it (TODO_FIELDS), nowhere else.
    let takes_todo = |v: &Value| {
        v["anyOf"]
            .as_array()
            .is_some_and(|a| a.iter().any(|x| x["$ref"] == "#/$defs/todo"))
    };
    let mut open: BTreeSet<String> = BTreeSet::new();
    for (k, v) in p.as_object().unwrap() {
        if takes_todo(v) {
            open.insert(k.clone());
        }
        if let Some(inner) = v["properties"].as_object() {
            for (ik, iv) in inner {
                if takes_todo(iv) {
                    open.insert(format!("{k}.{ik}"));
                }
            }
        }
    }
    let mut expected: BTreeSet<String> = retrylint::policy::model::TODO_FIELDS
        .iter()
        .map(|(f, _, _)| f.to_string())
        .collect();
    // `scope` is free text: `todo` is a string there already.
    expected.remove("idempotency_key.scope");
    assert_eq!(open, expected);
    assert_eq!(s["properties"]["version"]["const"], 1);
}

#[test]
fn policy_format_doc_holds_the_signal_table() {
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/policy-format.md"),
    )
    .expect("docs/policy-format.md");
    let table = retrylint::retry::signals::markdown_table();
    assert!(
        doc.contains(&table),
        "docs/policy-format.md must hold the signal table of src/retry/signals.rs verbatim:\n{table}"
    );
    let s = schema();
    let description = s["$defs"]["signal"]["oneOf"][0]["description"]
        .as_str()
        .unwrap();
    for m in retrylint::retry::signals::SIGNALS {
        if m.never_processed {
            let never = description.split(';').next().unwrap();
            assert!(never.contains(&format!("`{}`", m.name)), "{description}");
        }
    }
}

#[test]
fn duration_pattern_agrees_with_the_parser() {
    let s = schema();
    let pattern = s["$defs"]["duration"]["pattern"].as_str().unwrap();
    assert_eq!(s["$defs"]["duration"]["minLength"], 2);
    let re = regex_lite::Regex::new(pattern).expect("a valid regex");
    for ok in [
        "250ms", "2s", "1.5s", "5m", "24h", "7d", "1m30s", "0s", "1h0m0s",
    ] {
        assert!(re.is_match(ok), "{ok} should match");
        assert!(
            retrylint::policy::duration::parse_duration(ok).is_ok(),
            "{ok}"
        );
    }
    for bad in ["100", "-1s", "30s1m", "1s1s", "1 s", "s", "2x", "1.s"] {
        assert!(!re.is_match(bad), "{bad} should not match");
        assert!(
            retrylint::policy::duration::parse_duration(bad).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn bash_completions_mention_check() {
    let (code, out) = retrylint(&["completions", "bash"]);
    assert_eq!(code, 0);
    assert!(out.contains("check"), "{out}");
    assert!(out.contains("retrylint"));
    for shell in ["zsh", "fish", "powershell", "elvish"] {
        let (code, out) = retrylint(&["completions", shell]);
        assert_eq!(code, 0, "{shell}");
        assert!(out.contains("check"), "{shell}");
    }
}

#[test]
fn schema_budget_and_hedging_keys_are_the_parsers() {
    use retrylint::policy::parse::{BUDGET_KEYS, BUDGET_SHAPES, HEDGING_KEYS};
    let s = schema();
    let defs = &s["$defs"];
    assert_eq!(
        keys(&defs["settings"]["properties"]["hedging"]),
        set(HEDGING_KEYS)
    );
    let shapes = defs["budget"]["oneOf"].as_array().expect("three shapes");
    assert_eq!(shapes.len(), BUDGET_SHAPES.len());
    let mut all = BTreeSet::new();
    for (shape, (_, shape_keys, required)) in shapes.iter().zip(BUDGET_SHAPES) {
        assert_eq!(keys(shape), set(shape_keys));
        let req: BTreeSet<String> = shape["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        assert_eq!(req, set(required));
        all.extend(keys(shape));
    }
    assert_eq!(all, set(BUDGET_KEYS));
}
