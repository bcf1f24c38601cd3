//! `retrylint lsp` driven by a scripted client over JSON-RPC: each capability
//! (diagnostics on open, change, save and watched files; hover; completion; go to
//! definition; code actions) on copies of the example shop.

#[path = "lsp/client.rs"]
mod client;

use client::{apply_edits, copy_dir, uri, Client};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn shop(name: &str) -> PathBuf {
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/examples/shop"),
        name,
    )
}

fn codes(list: &[Value]) -> Vec<String> {
    list.iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

fn find<'a>(list: &'a [Value], code: &str) -> &'a Value {
    list.iter()
        .find(|d| d["code"] == code)
        .unwrap_or_else(|| panic!("no {code} in {:?}", codes(list)))
}

fn pos(line: u32, character: u32) -> Value {
    json!({"line": line, "character": character})
}

fn at(path: &Path, line: u32, character: u32) -> Value {
    json!({"textDocument": {"uri": uri(path)}, "position": pos(line, character)})
}

/// 0-based line and column of the first `needle` in `text` (ASCII text).
fn locate(text: &str, needle: &str) -> (u32, u32) {
    let i = text.find(needle).unwrap_or_else(|| panic!("no {needle:?}"));
    let line = text[..i].matches('\n').count() as u32;
    let col = (i - text[..i].rfind('\n').map_or(0, |n| n + 1)) as u32;
    (line, col)
}

#[test]
fn initialize_announces_each_capability_in_utf16() {
    let dir = shop("caps");
    let c = Client::start(&dir, json!({}));
    let caps = &c.capabilities["capabilities"];
    assert_eq!(caps["positionEncoding"], "utf-16");
    assert_eq!(caps["hoverProvider"], true);
    assert_eq!(caps["definitionProvider"], true);
    assert!(caps["completionProvider"].is_object());
    assert_eq!(
        caps["codeActionProvider"]["codeActionKinds"],
        json!(["quickfix"])
    );
    assert_eq!(caps["textDocumentSync"]["change"], 1, "full sync");
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn diagnostics_carry_code_severity_range_rule_page_and_related_files() {
    let dir = shop("diags");
    let policy = dir.join("shop.retry-policy.yaml");
    let mut c = Client::start(&dir, json!({}));
    c.open(&policy, &std::fs::read_to_string(&policy).unwrap());
    c.settle();
    let list = c.diagnostics_of(&policy);
    let d = find(&list, "RL201");
    // `retry_on` of the refunds entry: line 30, columns 5..13 in `check`'s 1-based terms.
    assert_eq!(d["range"], json!({"start": pos(29, 4), "end": pos(29, 12)}));
    assert_eq!(d["severity"], 1);
    assert_eq!(d["source"], "retrylint");
    assert_eq!(
        d["codeDescription"]["href"],
        "https://github.com/retrylint/retrylint/blob/main/rules/RL201-unprotected-retry.md"
    );
    let related = d["relatedInformation"].as_array().unwrap();
    assert!(related[0]["location"]["uri"]
        .as_str()
        .unwrap()
        .ends_with("/openapi.yaml"));
    // The spec's findings are published too, though it is not open.
    let spec = c.diagnostics_of(&dir.join("openapi.yaml"));
    assert!(codes(&spec).contains(&"RL501".to_string()));
    assert_eq!(find(&list, "RL305")["severity"], 2);
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn an_unsaved_policy_buffer_changes_its_own_and_its_specs_findings() {
    let dir = shop("overlay");
    let policy = dir.join("shop.retry-policy.yaml");
    let spec = dir.join("openapi.yaml");
    let text = std::fs::read_to_string(&policy).unwrap();
    let mut c = Client::start(&dir, json!({}));
    c.open(&policy, &text);
    c.settle();
    let refunds_429 = |list: &[Value]| {
        list.iter()
            .any(|d| d["code"] == "RL501" && d["message"].as_str().unwrap().contains("refunds"))
    };
    assert!(refunds_429(&c.diagnostics_of(&spec)));
    // A suppression at the policy's top level covers the operations it governs: the
    // spec's finding about the refunds' 429 goes, though the spec did not change.
    let edited = text.replace(
        "layer: client\n",
        "layer: client\nignore:\n  - { rule: RL501, reason: the gateway adds Retry-After }\n",
    );
    assert_ne!(edited, text);
    c.change(&policy, &edited);
    c.settle();
    assert!(
        !refunds_429(&c.diagnostics_of(&spec)),
        "{:?}",
        codes(&c.diagnostics_of(&spec))
    );
    // A policy that retries nothing has no RL201.
    let off = text.replace("  retry: true", "  retry: false");
    let off = off.split("operations:").next().unwrap().to_string();
    c.change(&policy, &off);
    c.settle();
    assert!(!codes(&c.diagnostics_of(&policy)).contains(&"RL201".to_string()));
    assert_eq!(
        std::fs::read_to_string(&policy).unwrap(),
        text,
        "disk untouched"
    );
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn a_half_typed_file_is_rl001_and_the_server_goes_on() {
    let dir = shop("typing");
    let policy = dir.join("shop.retry-policy.yaml");
    let text = std::fs::read_to_string(&policy).unwrap();
    let mut c = Client::start(&dir, json!({}));
    c.open(&policy, &text);
    c.change(
        &policy,
        &format!("{text}  \"POST /orders\": {{ deadline: [\n"),
    );
    c.settle();
    assert_eq!(codes(&c.diagnostics_of(&policy)), ["RL001"]);
    c.change(&policy, &text);
    c.settle();
    assert!(codes(&c.diagnostics_of(&policy)).contains(&"RL201".to_string()));
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn a_spec_changed_on_disk_relints_on_did_change_watched_files() {
    let dir = shop("watched");
    let spec = dir.join("openapi.yaml");
    let mut c = Client::start(&dir, json!({}));
    c.settle();
    let before = codes(&c.diagnostics_of(&spec));
    assert!(before.contains(&"RL505".to_string()));
    let text = std::fs::read_to_string(&spec).unwrap();
    let fixed = text.replace(
        "        '202':\n",
        "        '202':\n          headers:\n            Location:\n              schema: {type: string}\n",
    );
    assert_ne!(fixed, text);
    std::fs::write(&spec, fixed).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&spec), "type": 2}]}),
    );
    c.settle();
    assert!(!codes(&c.diagnostics_of(&spec)).contains(&"RL505".to_string()));
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn a_configuration_turning_a_rule_off_and_a_baseline_are_honoured() {
    let dir = shop("config");
    let policy = dir.join("shop.retry-policy.yaml");
    std::fs::write(dir.join(".retrylint.yaml"), "rules:\n  RL305: off\n").unwrap();
    let mut c = Client::start(&dir, json!({}));
    c.settle();
    let got = codes(&c.diagnostics_of(&policy));
    assert!(!got.contains(&"RL305".to_string()) && got.contains(&"RL201".to_string()));
    assert_eq!(c.shutdown(), 0);
    // A baseline recording today's findings hides them all.
    let (code, _, err) = retrylint(&dir, &["check", "--write-baseline", "base.json", "."]);
    assert_eq!(code, 0, "{err}");
    let mut c = Client::start(&dir, json!({"baseline": "base.json"}));
    c.settle();
    assert!(
        c.diagnostics_of(&policy).is_empty(),
        "{:?}",
        c.diagnostics_of(&policy)
    );
    assert_eq!(c.shutdown(), 0);
    // The same through `.retrylint.yaml` `baseline:`.
    std::fs::write(
        dir.join(".retrylint.yaml"),
        "rules:\n  RL305: off\nbaseline: base.json\n",
    )
    .unwrap();
    let mut c = Client::start(&dir, json!({}));
    c.settle();
    assert!(c.diagnostics_of(&policy).is_empty());
    assert_eq!(c.shutdown(), 0);
}

fn retrylint(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn hover_shows_rule_docs_schema_meaning_and_operation_readiness() {
    let dir = shop("hover");
    let policy = dir.join("shop.retry-policy.yaml");
    let spec = dir.join("openapi.yaml");
    let text = std::fs::read_to_string(&policy).unwrap();
    let mut c = Client::start(&dir, json!({}));
    c.open(&policy, &text);
    c.settle();
    let on_finding = c.request("textDocument/hover", at(&policy, 29, 6));
    let shown = on_finding["contents"]["value"].as_str().unwrap();
    assert!(shown.contains("RL201 unprotected-retry"), "{shown}");
    let (l, col) = locate(&text, "deadline: 5s");
    let on_key = c.request("textDocument/hover", at(&policy, l, col + 2));
    let shown = on_key["contents"]["value"].as_str().unwrap();
    assert!(shown.starts_with("**`deadline`**:"), "{shown}");
    assert!(shown.contains("May be `todo`"), "{shown}");
    // Every key of the policy that carries no finding has its meaning from the schema
    // (objects, enums that also take `todo`, nested keys).
    for key in [
        "defaults:",
        "retry_on: [transport",
        "idempotency_key:",
        "header: Idempotency-Key",
        "on_payload_mismatch:",
        "on_concurrent:",
        "on_unknown_result: check-status",
        "backoff: { jitter",
        "retry_after:",
    ] {
        let (l, col) = locate(&text, key);
        let hover = c.request("textDocument/hover", at(&policy, l, col + 1));
        let name = key.split(':').next().unwrap();
        let shown = hover["contents"]["value"].as_str().unwrap_or("");
        assert!(
            shown.starts_with(&format!("**`{name}`**: ")),
            "hover on {key}: {hover}"
        );
    }
    let spec_text = std::fs::read_to_string(&spec).unwrap();
    let (l, col) = locate(&spec_text, "operationId: createOrder");
    let on_op = c.request("textDocument/hover", at(&spec, l, col + 3));
    let shown = on_op["contents"]["value"].as_str().unwrap();
    assert!(shown.starts_with("**POST /orders**"), "{shown}");
    assert!(shown.contains("idempotency-key"), "{shown}");
    assert!(shown.contains("client"), "layer stack: {shown}");
    assert_eq!(
        c.request("textDocument/hover", at(&policy, 0, 0)),
        Value::Null
    );
    assert_eq!(c.shutdown(), 0);
}

fn labels(list: &Value) -> Vec<String> {
    let items = list.as_array().cloned().unwrap_or_default();
    items
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn completion_offers_schema_keys_enum_values_and_operation_selectors() {
    let dir = shop("complete");
    let policy = dir.join("shop.retry-policy.yaml");
    let text = std::fs::read_to_string(&policy).unwrap();
    let mut c = Client::start(&dir, json!({}));
    c.open(&policy, &text);
    c.settle();
    // A new operation entry being typed: selectors of the governed spec.
    let typing = format!("{text}  \n");
    let last = typing.matches('\n').count() as u32 - 1;
    c.change(&policy, &typing);
    let got = labels(&c.request("textDocument/completion", at(&policy, last, 2)));
    assert!(got.contains(&"createOrder".to_string()), "{got:?}");
    assert!(
        got.contains(&"POST /payments/{paymentId}/refunds".to_string()),
        "{got:?}"
    );
    // A key inside an entry: the schema's keys.
    let typing = format!("{text}    on_\n");
    c.change(&policy, &typing);
    let got = labels(&c.request("textDocument/completion", at(&policy, last, 4)));
    assert!(got.contains(&"on_unknown_result".to_string()), "{got:?}");
    assert!(got.contains(&"idempotency_key".to_string()), "{got:?}");
    // A value: the key's enum.
    let typing = format!("{text}    on_unknown_result: \n");
    c.change(&policy, &typing);
    let got = labels(&c.request("textDocument/completion", at(&policy, last, 23)));
    assert!(got.contains(&"replay-key".to_string()), "{got:?}");
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn definition_goes_from_a_selector_and_a_ref_to_their_targets() {
    let dir = shop("definition");
    let policy = dir.join("shop.retry-policy.yaml");
    let spec = dir.join("openapi.yaml");
    let text = std::fs::read_to_string(&policy).unwrap();
    let mut c = Client::start(&dir, json!({}));
    c.open(&policy, &text);
    c.settle();
    let (l, col) = locate(&text, "createPayment:");
    let got = c.request("textDocument/definition", at(&policy, l, col + 2));
    let spec_text = std::fs::read_to_string(&spec).unwrap();
    let (pl, _) = locate(&spec_text, "  /payments:\n    post:");
    assert_eq!(got[0]["uri"], uri(&spec));
    assert_eq!(got[0]["range"]["start"]["line"], pl + 1, "the `post:` key");
    let (rl, rc) = locate(&spec_text, "'#/components/responses/TooManyRequests'");
    let got = c.request("textDocument/definition", at(&spec, rl, rc + 5));
    let (tl, tc) = locate(&spec_text, "    TooManyRequests:");
    assert_eq!(got[0]["range"]["start"], pos(tl, tc + 4));
    assert_eq!(c.shutdown(), 0);
}

/// The code actions at the range of the first finding `code` of `path`.
fn actions_for(c: &mut Client, path: &Path, code: &str) -> Vec<Value> {
    let list = c.diagnostics_of(path);
    let d = find(&list, code).clone();
    let got = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri(path)}, "range": d["range"], "context": {"diagnostics": [d]}}),
    );
    got.as_array().cloned().unwrap_or_default()
}

fn titled<'a>(actions: &'a [Value], start: &str) -> &'a Value {
    actions
        .iter()
        .find(|a| a["title"].as_str().unwrap().starts_with(start))
        .unwrap_or_else(|| panic!("no action {start:?} in {actions:?}"))
}

#[test]
fn code_actions_fix_jitter_replay_key_and_suppress_with_a_reason() {
    let dir = shop("actions");
    let policy = dir.join("shop.retry-policy.yaml");
    let text = std::fs::read_to_string(&policy).unwrap();
    let mut c = Client::start(&dir, json!({}));
    c.open(&policy, &text);
    c.settle();
    let u = uri(&policy);
    // RL305: `jitter: full` in the flow mapping of the defaults' backoff.
    let acts = actions_for(&mut c, &policy, "RL305");
    let edits = titled(&acts, "Add `jitter: full`")["edit"]["changes"][&u].clone();
    let fixed = apply_edits(&text, edits.as_array().unwrap());
    assert!(
        fixed.contains("backoff: { jitter: full, base: 100ms, cap: 2s }"),
        "{fixed}"
    );
    c.change(&policy, &fixed);
    c.settle();
    assert!(!codes(&c.diagnostics_of(&policy)).contains(&"RL305".to_string()));
    // A suppression of RL201 on the refunds entry, with a reason to fill in.
    let acts = actions_for(&mut c, &policy, "RL201");
    let edits = titled(&acts, "Suppress RL201")["edit"]["changes"][&u].clone();
    let suppressed = apply_edits(&fixed, edits.as_array().unwrap());
    assert!(
        suppressed.contains("  \"POST /payments/{id}/refunds\":\n    ignore: [{ rule: RL201, reason: \"TODO: say why this finding is accepted\" }]\n    deadline: 30s"),
        "{suppressed}"
    );
    c.change(&policy, &suppressed);
    c.settle();
    assert!(!codes(&c.diagnostics_of(&policy)).contains(&"RL201".to_string()));
    // `resend` where the entry declares a key: `replay-key`.
    let keyed = suppressed.replace(
        "    on_unknown_result: resend",
        "    idempotency_key: { header: Idempotency-Key, retention: 1h }\n    on_unknown_result: resend",
    );
    c.change(&policy, &keyed);
    c.settle();
    let list = c.diagnostics_of(&policy);
    let on_resend = list
        .iter()
        .find(|d| {
            d["data"]["pointer"]
                .as_str()
                .unwrap()
                .ends_with("/on_unknown_result")
        })
        .cloned();
    if let Some(d) = on_resend {
        let acts = c.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": u}, "range": d["range"], "context": {"diagnostics": [d]}}),
        );
        let acts = acts.as_array().cloned().unwrap_or_default();
        let edits = titled(&acts, "Replace `resend`")["edit"]["changes"][&u].clone();
        let replayed = apply_edits(&keyed, edits.as_array().unwrap());
        assert!(replayed.contains("on_unknown_result: replay-key"));
    } else {
        panic!("no finding on on_unknown_result: {:?}", codes(&list));
    }
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn retry_after_through_a_ref_edits_the_shared_component_once_in_its_own_file() {
    let dir = shop("ref");
    let spec = dir.join("openapi.yaml");
    // The 429 component moves to its own JSON file, shared by three operations.
    let text = std::fs::read_to_string(&spec).unwrap();
    let moved = text.replace(
        "'#/components/responses/TooManyRequests'",
        "'./responses.json#/TooManyRequests'",
    );
    std::fs::write(&spec, &moved).unwrap();
    let shared = dir.join("responses.json");
    std::fs::write(
        &shared,
        "{\"TooManyRequests\": {\"description\": \"rate limit exceeded\"}}\n",
    )
    .unwrap();
    let mut c = Client::start(&dir, json!({}));
    c.settle();
    // The finding is on the operations' responses or on the component: every
    // Retry-After action edits the component, in its file, once.
    let mut all = c.diagnostics_of(&spec);
    all.extend(c.diagnostics_of(&shared));
    let on_429: Vec<&Value> = all
        .iter()
        .filter(|d| {
            d["code"] == "RL501"
                && d["message"]
                    .as_str()
                    .unwrap()
                    .contains("429 response shared")
        })
        .collect();
    assert!(!on_429.is_empty(), "{:?}", codes(&all));
    let d = on_429[0].clone();
    let file = if c.diagnostics_of(&shared).contains(&d) {
        &shared
    } else {
        &spec
    };
    let acts = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri(file)}, "range": d["range"], "context": {"diagnostics": [d]}}),
    );
    let acts = acts.as_array().cloned().unwrap_or_default();
    let changes = titled(&acts, "Add a `Retry-After`")["edit"]["changes"].clone();
    let changes = changes.as_object().unwrap();
    assert_eq!(changes.len(), 1, "one file: {changes:?} {d}");
    let edits = changes[&uri(&shared)].as_array().unwrap();
    assert_eq!(edits.len(), 1);
    let out = apply_edits(&std::fs::read_to_string(&shared).unwrap(), edits);
    let v: Value = serde_json::from_str(&out).expect("still JSON");
    assert_eq!(
        v["TooManyRequests"]["headers"]["Retry-After"]["schema"]["type"],
        "integer"
    );
    // Applied on disk, the findings about the 429 go.
    std::fs::write(&shared, out).unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&shared), "type": 2}]}),
    );
    c.settle();
    let mut all = c.diagnostics_of(&spec);
    all.extend(c.diagnostics_of(&shared));
    assert!(!all.iter().any(|d| d["code"] == "RL501"
        && d["message"]
            .as_str()
            .unwrap()
            .contains("429 response shared")));
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn positions_are_utf16_after_non_ascii_text() {
    let dir = shop("utf16");
    let policy = dir.join("shop.retry-policy.yaml");
    let text = std::fs::read_to_string(&policy).unwrap();
    // An unknown key holding `é` (one UTF-16 unit, two bytes) and `😀` (two units,
    // four bytes): RL005 spans it.
    let flow = text.replace(
        "  \"POST /payments/{id}/refunds\":\n    deadline: 30s\n    retry_on: [timeout, 500, 503]\n    on_unknown_result: resend",
        "  \"POST /payments/{id}/refunds\": { \"dé😀\": 1, retry_on: [timeout, 500, 503], deadline: 30s }",
    );
    let mut c = Client::start(&dir, json!({}));
    c.open(&policy, &flow);
    c.settle();
    let list = c.diagnostics_of(&policy);
    let d = find(&list, "RL005");
    let (l, col) = locate(&flow, "\"dé😀\"");
    // The unknown key starts after ASCII only: its column is its byte column.
    assert_eq!(d["range"]["start"], pos(l, col), "{d}");
    // `"dé😀"` is 6 UTF-16 units (2 quotes, d, é, 2 for 😀) though 9 bytes.
    assert_eq!(d["range"]["end"], pos(l, col + 6), "{d}");
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn definition_goes_from_an_imported_route_to_the_operations_it_binds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/examples/platform");
    let envoy = dir.join("deploy/envoy/envoy.yaml");
    let mut c = Client::start(&dir, json!({}));
    c.settle();
    let rl201 = find(&c.diagnostics_of(&envoy), "RL201").clone();
    let start = &rl201["range"]["start"];
    let got = c.request(
        "textDocument/definition",
        at(
            &envoy,
            start["line"].as_u64().unwrap() as u32,
            start["character"].as_u64().unwrap() as u32,
        ),
    );
    let got = got.as_array().unwrap();
    assert!(!got.is_empty());
    let spec = uri(&dir.join("api/openapi.yaml"));
    assert!(got.iter().all(|l| l["uri"] == spec.as_str()), "{got:?}");
    // RL201's label: the unprotected operation (line 28 in check's 1-based terms).
    assert!(
        got.iter().any(|l| l["range"]["start"]["line"] == 27),
        "{got:?}"
    );
    assert_eq!(c.shutdown(), 0);
}

#[test]
fn a_save_relints_with_the_saved_text() {
    let dir = shop("save");
    let policy = dir.join("shop.retry-policy.yaml");
    let text = std::fs::read_to_string(&policy).unwrap();
    let mut c = Client::start(&dir, json!({}));
    c.open(&policy, &text);
    c.settle();
    assert!(codes(&c.diagnostics_of(&policy)).contains(&"RL303".to_string()));
    let saved = text.replace("    attempts: 8\n", "    attempts: 2\n");
    std::fs::write(&policy, &saved).unwrap();
    c.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri(&policy)}, "text": saved}),
    );
    c.settle();
    assert!(!codes(&c.diagnostics_of(&policy)).contains(&"RL303".to_string()));
    // Closed, the file on disk is what is linted (the same text here).
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri(&policy)}}),
    );
    c.settle();
    assert!(!codes(&c.diagnostics_of(&policy)).contains(&"RL303".to_string()));
    assert!(codes(&c.diagnostics_of(&policy)).contains(&"RL201".to_string()));
    assert_eq!(c.shutdown(), 0);
}

fn framed(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// A reply (no method) whose error has `code`.
fn refusal(code: i64) -> impl Fn(&Value) -> bool {
    move |m: &Value| m.get("method").is_none() && m["error"]["code"] == code
}

/// Bad frames never end the server (issue 43): a body that is not JSON is a
/// `-32700` reply, JSON that is no JSON-RPC message a `-32600` reply (with its id),
/// a malformed header is skipped up to the next `Content-Length:`, and so is a frame
/// over the size limit, refused with `-32600`. The server answers the next request.
#[test]
fn bad_frames_are_answered_or_skipped_and_the_server_goes_on() {
    let dir = shop("frames");
    let policy = dir.join("shop.retry-policy.yaml");
    let text = std::fs::read_to_string(&policy).unwrap();
    let mut c = Client::start(&dir, json!({}));
    c.open(&policy, &text);
    c.settle();

    c.send_raw(&framed("{abc}"));
    let parse = c.wait_for(refusal(-32700));
    assert_eq!(parse["id"], Value::Null, "{parse}");
    assert!(parse["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("Parse error"));

    c.send_raw(&framed(
        r#"{"id": "no-jsonrpc", "method": "textDocument/hover"}"#,
    ));
    let invalid = c.wait_for(refusal(-32600));
    assert_eq!(invalid["id"], "no-jsonrpc", "{invalid}");
    c.send_raw(&framed("[1, 2]"));
    let batch = c.wait_for(refusal(-32600));
    assert_eq!(batch["id"], Value::Null, "{batch}");

    // Skipped silently: the request that follows is answered.
    c.send_raw(b"Content-Length: twelve\r\n\r\n{\"jsonrpc\": \"2.0\"}");
    c.send_raw(b"no header at all\r\n\r\n");
    let (line, col) = locate(&text, "deadline: 5s");
    let deadline = |hover: &Value| {
        hover["contents"]["value"]
            .as_str()
            .is_some_and(|v| v.starts_with("**`deadline`**"))
    };
    let hover = c.request("textDocument/hover", at(&policy, line, col + 2));
    assert!(deadline(&hover), "{hover}");

    // Over the limit: its length is not trusted, nothing is allocated for it; the
    // frame after it is read (the refusal comes once that frame's header is found).
    c.send_raw(b"Content-Length: 99999999999\r\n\r\n{\"jsonrpc\": \"2.0\", \"id\": 99}");
    let after = json!({"jsonrpc": "2.0", "id": "after-big", "method": "textDocument/hover",
        "params": at(&policy, line, col + 2)});
    c.send_raw(&framed(&after.to_string()));
    let (mut big, mut answered) = (None, None);
    while big.is_none() || answered.is_none() {
        let m = c.wait_for(|m| m.get("method").is_none());
        if m["id"] == "after-big" {
            answered = Some(m);
        } else if m["error"]["code"] == -32600 {
            big = Some(m);
        }
    }
    let (big, answered) = (big.unwrap(), answered.unwrap());
    assert!(
        big["error"]["message"]
            .as_str()
            .unwrap()
            .contains("99999999999 bytes"),
        "{big}"
    );
    assert!(deadline(&answered["result"]), "{answered}");
    assert_eq!(c.shutdown(), 0);
}

/// A whole session at once: `frames` written to `retrylint lsp` in `dir`, its input
/// then closed; the exit code, the messages it wrote and its standard error.
fn session(dir: &Path, frames: &[&str]) -> (i32, Vec<Value>, String) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .arg("lsp")
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for f in frames {
        // The server may have ended (after `exit`): what it did not read is lost.
        let _ = stdin.write_all(&framed(f));
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let mut messages = Vec::new();
    let mut rest = &out.stdout[..];
    while let Some(start) = rest.windows(4).position(|w| w == b"\r\n\r\n") {
        let header = String::from_utf8_lossy(&rest[..start]);
        let length: usize = header
            .trim()
            .strip_prefix("Content-Length: ")
            .unwrap()
            .parse()
            .unwrap();
        let body = &rest[start + 4..start + 4 + length];
        messages.push(serde_json::from_slice(body).unwrap());
        rest = &rest[start + 4 + length..];
    }
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code().unwrap_or(-1), messages, err)
}

/// A valid `initialize` for `dir` with id `id`.
fn initialize_frame(dir: &Path, id: i64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize",
        "params": {"processId": null, "rootUri": uri(dir), "capabilities": {}}})
    .to_string()
}

/// After initialization the server lints and publishes `policy`'s findings when it
/// is opened: it is serving.
fn serves(c: &mut Client, policy: &Path) {
    let text = std::fs::read_to_string(policy).unwrap();
    c.open(policy, &text);
    c.settle();
    assert!(
        !c.diagnostics_of(policy).is_empty(),
        "no diagnostics published for {}",
        policy.display()
    );
}

/// LSP 3.17 "Server lifecycle": before `initialize`, a response or a notification is
/// dropped and a request is answered `-32002`; a frame whose `method` is no string is
/// no message (`-32600`). None of them ends the server: the `initialize` that follows
/// is answered and the session goes on.
#[test]
fn frames_before_initialize_are_dropped_or_refused_and_initialize_follows() {
    let dir = shop("before-init");
    let mut c = Client::spawn(&dir);
    c.send_raw(&framed(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
    c.send_raw(&framed(
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}"#,
    ));
    c.send_raw(&framed(
        r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
    ));
    c.send_raw(&framed(r#"{"jsonrpc":"2.0","id":"five","method":5}"#));
    let five = c.wait_for(refusal(-32600));
    assert_eq!(five["id"], "five", "{five}");
    c.send_raw(&framed(r#"{"jsonrpc":"2.0","id":"null","method":null}"#));
    let null = c.wait_for(refusal(-32600));
    assert_eq!(null["id"], "null", "{null}");
    c.send_raw(&framed(
        r#"{"jsonrpc":"2.0","id":"early","method":"textDocument/hover","params":{}}"#,
    ));
    let early = c.wait_for(refusal(-32002));
    assert_eq!(early["id"], "early", "{early}");

    let caps = c.initialize(&dir, json!({}));
    assert_eq!(caps["capabilities"]["hoverProvider"], true, "{caps}");
    c.notify("initialized", json!({}));
    serves(&mut c, &dir.join("shop.retry-policy.yaml"));
    assert_eq!(c.shutdown(), 0);
}

/// `exit` before `initialize` ends the server (LSP: exit code 1, no `shutdown` came
/// first), quietly: the `initialize` after it is never read.
#[test]
fn exit_before_initialize_ends_the_server_with_1() {
    let dir = shop("exit-before-init");
    let (code, messages, err) = session(
        &dir,
        &[
            r#"{"jsonrpc":"2.0","method":"exit"}"#,
            &initialize_frame(&dir, 1),
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert!(messages.is_empty(), "{messages:?}");
    assert_eq!(err, "");
}

/// `initialize` whose params are no InitializeParams object is `-32602` and the
/// server waits for a valid one, which is answered; the session goes on.
#[test]
fn initialize_with_bad_params_is_invalid_params_and_a_valid_one_follows() {
    let dir = shop("bad-init");
    let mut c = Client::spawn(&dir);
    for params in [r#","params":"x""#, "", r#","params":[1]"#] {
        c.send_raw(&framed(&format!(
            r#"{{"jsonrpc":"2.0","id":"bad","method":"initialize"{params}}}"#
        )));
        let bad = c.wait_for(refusal(-32602));
        assert_eq!(bad["id"], "bad", "{params}: {bad}");
    }
    let caps = c.initialize(&dir, json!({}));
    assert!(caps["capabilities"].is_object(), "{caps}");
    c.notify("initialized", json!({}));
    serves(&mut c, &dir.join("shop.retry-policy.yaml"));
    assert_eq!(c.shutdown(), 0);
}

/// After initialization, a `method` that is no string or an `id` that is an object
/// is an Invalid Request (`-32600`), answered, not dropped; the server goes on.
#[test]
fn a_method_or_id_of_the_wrong_type_is_an_invalid_request() {
    let dir = shop("wrong-types");
    let mut c = Client::start(&dir, json!({}));
    c.send_raw(&framed(r#"{"jsonrpc":"2.0","id":1,"method":5}"#));
    let method = c.wait_for(refusal(-32600));
    assert_eq!(method["id"], 1, "{method}");
    c.send_raw(&framed(
        r#"{"jsonrpc":"2.0","id":{"a":1},"method":"textDocument/hover","params":{}}"#,
    ));
    let id = c.wait_for(refusal(-32600));
    assert_eq!(id["id"], Value::Null, "{id}");
    serves(&mut c, &dir.join("shop.retry-policy.yaml"));
    assert_eq!(c.shutdown(), 0);
}

/// `initialize` may be sent once (LSP): a second is an Invalid Request (`-32600`),
/// and the server goes on.
#[test]
fn a_second_initialize_is_an_invalid_request() {
    let dir = shop("second-init");
    let mut c = Client::start(&dir, json!({}));
    let again = c.request_raw(
        "initialize",
        json!({"processId": null, "rootUri": uri(&dir), "capabilities": {}}),
    );
    assert_eq!(again["error"]["code"], -32600, "{again}");
    serves(&mut c, &dir.join("shop.retry-policy.yaml"));
    assert_eq!(c.shutdown(), 0);
}

/// Errors before initialization say what was wrong in words, never Rust debug text
/// (`Request { id: ... }`), and nothing goes to standard error.
#[test]
fn errors_before_initialize_carry_no_debug_text() {
    let dir = shop("no-debug");
    let (code, messages, err) = session(
        &dir,
        &[
            r#"{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":"x"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"initialize"}"#,
            r#"{"jsonrpc":"2.0","id":4,"result":{}}"#,
        ],
    );
    assert_eq!(code, 1, "{err}");
    assert_eq!(err, "");
    let errors: Vec<(i64, String)> = messages
        .iter()
        .map(|m| {
            let e = &m["error"];
            (
                e["code"].as_i64().unwrap(),
                e["message"].as_str().unwrap().into(),
            )
        })
        .collect();
    let codes: Vec<i64> = errors.iter().map(|e| e.0).collect();
    assert_eq!(codes, [-32002, -32602, -32602], "{messages:?}");
    for (_, message) in &errors {
        assert!(
            !message.contains('{') && !message.contains("Request("),
            "{message}"
        );
    }
    assert!(errors[0].1.contains("textDocument/hover"), "{errors:?}");
}

/// The end of the input without `exit` is the client gone: the server ends quietly,
/// 1 without a `shutdown` first and 0 after one (LSP's codes for `exit`).
#[test]
fn the_end_of_input_ends_quietly_with_lsps_exit_codes() {
    let dir = shop("end-of-input");
    let (code, messages, err) = session(&dir, &[]);
    assert_eq!((code, messages.len(), err.as_str()), (1, 0, ""));
    let (code, _, err) = session(&dir, &[&initialize_frame(&dir, 1)]);
    assert_eq!((code, err.as_str()), (1, ""));
    let (code, messages, err) = session(
        &dir,
        &[
            &initialize_frame(&dir, 1),
            r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#,
        ],
    );
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(
        messages
            .iter()
            .any(|m| m["id"] == 2 && m.get("error").is_none()),
        "{messages:?}"
    );
    // And through the client: input closed after initialization, no shutdown.
    let c = Client::start(&dir, json!({}));
    assert_eq!(c.close(), 1);
}

/// The one fix engine: for the same finding, the code action (other than the
/// editor-only suppression) makes exactly the edits `check --diff` shows.
#[test]
fn code_actions_and_check_fix_make_the_same_edits() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cases = [
        (
            "fixtures/rules/RL305-missing-jitter/trigger-jitter-none",
            "RL305",
        ),
        (
            "fixtures/rules/RL305-missing-jitter/trigger-jitter-absent",
            "RL305",
        ),
        (
            "fixtures/rules/RL402-blind-resend/trigger-resend-with-key",
            "RL402",
        ),
        (
            "fixtures/rules/RL501-rate-limit-without-retry-after/trigger-shared-component",
            "RL501",
        ),
        (
            "fixtures/rules/RL502-unavailable-without-retry-after/trigger-swagger-2",
            "RL502",
        ),
        (
            "fixtures/rules/RL307-unbounded-retry-after/trigger-no-max-no-on-invalid",
            "RL307",
        ),
        (
            "fixtures/fix/RL306-retry-after-not-honored/trigger-block-with-comments",
            "RL306",
        ),
        (
            "fixtures/fix/RL301-missing-deadline/trigger-attempt-timeout",
            "RL301",
        ),
    ];
    for (n, (fixture, code)) in cases.iter().enumerate() {
        let dir = copy_dir(&root.join(fixture), &format!("parity-{n}"));
        let (exit, diff, err) = retrylint(&dir, &["check", "--diff", "--unsafe-fixes", "."]);
        assert_eq!(exit, 1, "{fixture}: {err}");
        let mut c = Client::start(&dir, json!({}));
        c.settle();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "json"))
            .collect();
        files.sort();
        let (file, d) = files
            .iter()
            .find_map(|f| {
                let list = c.diagnostics_of(f);
                list.iter()
                    .find(|d| d["code"] == *code)
                    .map(|d| (f.clone(), d.clone()))
            })
            .unwrap_or_else(|| panic!("{fixture}: no {code}"));
        let acts = c.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri(&file)}, "range": d["range"], "context": {"diagnostics": [d]}}),
        );
        let acts = acts.as_array().cloned().unwrap_or_default();
        let fix = acts
            .iter()
            .find(|a| !a["title"].as_str().unwrap().starts_with("Suppress"))
            .unwrap_or_else(|| panic!("{fixture}: no fix among {acts:?}"));
        let changes = fix["edit"]["changes"].as_object().unwrap();
        let mut shown = String::new();
        for f in &files {
            let Some(edits) = changes.get(&uri(f)) else {
                continue;
            };
            let before = std::fs::read_to_string(f).unwrap();
            let after = apply_edits(&before, edits.as_array().unwrap());
            let name = f.file_name().unwrap().to_string_lossy();
            shown.push_str(&retrylint::fix::diff::unified(&name, &before, &after));
        }
        assert_eq!(changes.len(), 1, "{fixture}: {changes:?}");
        assert_eq!(shown, diff, "{fixture}: the code action and --diff differ");
        assert_eq!(c.shutdown(), 0);
    }
}
