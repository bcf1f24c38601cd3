//! Policy model: durations, selectors, strict parsing with positions, the join's
//! precedence and origins, and the rules RL005, RL006, RL201, RL202, RL301.

use retrylint::analysis::{join, Analysis, Source};
use retrylint::diagnostic::Diagnostic;
use retrylint::openapi::model::{Document, Operation, Parameter, SpecVersion};
use retrylint::policy::duration::{parse_duration, DurationError};
use retrylint::policy::model::{AttemptTimeout, Effect, Jitter, Layer, Signal, UnknownResult};
use retrylint::policy::selector::Selector;
use retrylint::policy::{load_policy, model::PolicyFile};
use retrylint::rules::{self, Context, Thresholds, REGISTRY};
use retrylint::source::loader::{Limits, Loaded, Workspace};
use retrylint::source::refs::At;
use retrylint::source::tree::{NodeId, Tree};
use std::path::{Path, PathBuf};
use std::sync::Arc;

// ---------------------------------------------------------------- helpers

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn workspace() -> Workspace {
    Workspace::new(root(), Limits::default())
}

const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

fn params(loaded: &Arc<Loaded>, tree: &Tree, item: NodeId) -> Vec<Parameter> {
    let Some(list) = tree.get(item, "parameters") else {
        return Vec::new();
    };
    tree.items(list)
        .iter()
        .map(|&p| Parameter {
            name: tree
                .get(p, "name")
                .and_then(|n| tree.scalar(n))
                .unwrap_or("")
                .into(),
            location: tree
                .get(p, "in")
                .and_then(|n| tree.scalar(n))
                .unwrap_or("")
                .into(),
            required: tree.get(p, "required").and_then(|n| tree.as_bool(n)) == Some(true),
            handler_key: false,
            at: At::new(loaded, p),
            listed_at: At::new(loaded, p),
        })
        .collect()
}

/// A tiny stand-in for the OpenAPI builder: reads `paths` (no `$ref`s).
fn document(loaded: Arc<Loaded>) -> Document {
    let tree = loaded.tree.as_ref().expect("fixture parses");
    let r = tree.root().unwrap();
    let mut operations = Vec::new();
    if let Some(paths) = tree.get(r, "paths") {
        for (pk, pv) in tree.entries(paths) {
            let path = tree.scalar(pk).unwrap().to_string();
            let path_params = params(&loaded, tree, pv);
            for (mk, mv) in tree.entries(pv) {
                let method = tree.scalar(mk).unwrap();
                if !METHODS.contains(&method) {
                    continue;
                }
                let mut ps = path_params.clone();
                for p in params(&loaded, tree, mv) {
                    ps.retain(|q| {
                        !(q.location == p.location && q.name.eq_ignore_ascii_case(&p.name))
                    });
                    ps.push(p);
                }
                operations.push(Operation {
                    method: method.to_string(),
                    path: path.clone(),
                    operation_id: tree
                        .get(mv, "operationId")
                        .and_then(|n| tree.scalar(n))
                        .map(str::to_string),
                    tags: Vec::new(),
                    at: At::new(&loaded, mv),
                    key: At::new(&loaded, mk),
                    params: ps,
                    responses: Vec::new(),
                    x_retry: tree.get(mv, "x-retry").map(|n| At::new(&loaded, n)),
                });
            }
        }
    }
    Document {
        x_retry: tree.get(r, "x-retry").map(|n| At::new(&loaded, n)),
        doc: loaded,
        version: SpecVersion::OpenApi30,
        operations,
        webhooks: Vec::new(),
        structure_check: None,
        server_code: None,
        path_matching: Default::default(),
    }
}

fn policy(loaded: &Arc<Loaded>) -> (PolicyFile, Vec<Diagnostic>) {
    let (p, d) = load_policy(loaded);
    (p.expect("policy parses"), d)
}

struct Run {
    docs: Vec<Document>,
    analysis: Analysis,
    join_diags: Vec<Diagnostic>,
    parse_diags: Vec<Diagnostic>,
    findings: Vec<Diagnostic>,
}

/// Loads spec and policy fixtures from disk, joins them and runs every check.
fn run(specs: &[&str], policies: &[&str]) -> Run {
    let ws = workspace();
    let docs: Vec<Document> = specs
        .iter()
        .map(|s| document(ws.load(&root().join(s))))
        .collect();
    let mut parse_diags = Vec::new();
    let pols: Vec<PolicyFile> = policies
        .iter()
        .map(|p| {
            let (pf, d) = policy(&ws.load(&root().join(p)));
            parse_diags.extend(d);
            pf
        })
        .collect();
    let (analysis, join_diags) = join(&docs, &pols);
    let thresholds = Thresholds::default();
    let findings = rules::run_checks(&Context {
        documents: &docs,
        analysis: &analysis,
        thresholds: &thresholds,
    });
    Run {
        docs,
        analysis,
        join_diags,
        parse_diags,
        findings,
    }
}

fn line_col(d: &Diagnostic) -> (u32, u32) {
    let loc = &d.primary.location;
    let lc = loc.file.line_col(loc.span.start);
    (lc.line, lc.column)
}

fn label_pos(l: &retrylint::diagnostic::Label) -> (String, u32, u32) {
    let lc = l.location.file.line_col(l.location.span.start);
    (l.location.file.display.clone(), lc.line, lc.column)
}

/// Parses policy text (no file on disk).
fn parse_text(text: &str) -> (Option<PolicyFile>, Vec<Diagnostic>) {
    let ws = workspace();
    let loaded = ws.load_text(Path::new("inline/t.retry-policy.yaml"), text);
    load_policy(&loaded)
}

fn only<'a>(diags: &'a [Diagnostic], code: &str) -> Vec<&'a Diagnostic> {
    diags.iter().filter(|d| d.code == code).collect()
}

// ---------------------------------------------------------------- durations

#[test]
fn durations_valid_forms_in_milliseconds() {
    for (text, ms) in [
        ("250ms", 250.0),
        ("2s", 2000.0),
        ("1.5s", 1500.0),
        ("5m", 300_000.0),
        ("24h", 86_400_000.0),
        ("7d", 604_800_000.0),
        ("1m30s", 90_000.0),
        ("1h30m", 5_400_000.0),
        ("1s500ms", 1500.0),
        ("0s", 0.0),
    ] {
        assert_eq!(parse_duration(text), Ok(ms), "{text}");
    }
}

#[test]
fn durations_invalid_forms() {
    assert_eq!(parse_duration("100"), Err(DurationError::MissingUnit));
    assert_eq!(parse_duration("-1s"), Err(DurationError::Signed));
    assert_eq!(parse_duration("+1s"), Err(DurationError::Signed));
    assert_eq!(parse_duration(""), Err(DurationError::Empty));
    assert_eq!(
        parse_duration("3sec"),
        Err(DurationError::UnknownUnit("sec".into()))
    );
    assert_eq!(parse_duration("30s1m"), Err(DurationError::UnitOrder));
    assert_eq!(parse_duration("1s1s"), Err(DurationError::UnitOrder));
    for bad in ["s", "1.2.3s", "1 s", ".5s", "1.s", "1s 2ms"] {
        assert!(parse_duration(bad).is_err(), "{bad}");
    }
}

/// Issue 43 "values out of range": a duration past 10,000 years (an overflowing
/// `10^23h`, or one past the bound by a millisecond) is an error of its own, never
/// saturated, infinite or a panic; the longest protobuf Duration still reads.
#[test]
fn durations_out_of_range_are_errors() {
    for long in [
        "100000000000000000000000h",
        "3652500d1ms",
        "3652501d",
        &format!("{}ms", "9".repeat(400)),
    ] {
        assert_eq!(parse_duration(long), Err(DurationError::TooLong), "{long}");
    }
    assert_eq!(parse_duration("3652500d"), Ok(315_576_000_000_000.0));
}

/// The same in a policy file: RL005 at the value, and no deadline read from it.
#[test]
fn policy_deadline_out_of_range_is_rl005_at_its_position() {
    let text = "version: 1
defaults:
  retry: true
  deadline: 100000000000000000000000h
  attempt_timeout: 3652500d
";
    let (p, d) = parse_text(text);
    let got: Vec<((u32, u32), &str, &str)> = d
        .iter()
        .map(|d| (line_col(d), d.code, d.primary.message.as_str()))
        .collect();
    assert_eq!(got, vec![((4, 3), "RL005", "invalid duration")]);
    assert!(
        d[0].message.contains("longer than 10,000 years"),
        "{}",
        d[0].message
    );
    let defaults = p.unwrap().defaults.unwrap();
    assert!(defaults.deadline.is_none());
    assert!(defaults.attempt_timeout.is_some());
}

// ---------------------------------------------------------------- selectors

#[test]
fn selector_parsing_and_errors() {
    assert_eq!(
        Selector::parse("getOrders").unwrap(),
        Selector::OperationId("getOrders".into())
    );
    for bad in [
        "post /orders",
        "GET orders",
        "GET  /orders",
        "FETCH /orders",
        "/orders",
        "GET /a/**/b",
        "GET /a*",
        "",
    ] {
        assert!(Selector::parse(bad).is_err(), "{bad:?} should be invalid");
    }
    let e = Selector::parse("post /orders").unwrap_err();
    assert!(e.0.contains("`POST`"), "{e}");
}

#[test]
fn selector_matching() {
    let s = |t: &str| Selector::parse(t).unwrap();
    // {name} matches any template segment, never a literal one.
    assert!(s("GET /orders/{id}").matches("get", "/orders/{orderId}", None));
    assert!(!s("GET /orders/{id}").matches("get", "/orders/latest", None));
    assert!(!s("GET /orders/latest").matches("get", "/orders/{id}", None));
    assert!(!s("GET /orders/{id}").matches("post", "/orders/{id}", None));
    // `*` one segment, any method with `*`.
    assert!(s("* /orders/*").matches("delete", "/orders/{id}", None));
    assert!(s("* /orders/*").matches("get", "/orders/latest", None));
    assert!(!s("* /orders/*").matches("get", "/orders", None));
    assert!(!s("* /orders/*").matches("get", "/orders/a/b", None));
    // `**` zero or more.
    assert!(s("GET /orders/**").matches("get", "/orders", None));
    assert!(s("GET /orders/**").matches("get", "/orders/{id}/items", None));
    assert!(!s("GET /orders/**").matches("get", "/ordersx", None));
    assert!(s("GET /**").matches("get", "/", None));
    // operationId.
    assert!(s("getOrder").matches("get", "/x", Some("getOrder")));
    assert!(!s("getOrder").matches("get", "/x", Some("getOrders")));
    assert!(!s("getOrder").matches("get", "/x", None));
}

#[test]
fn selector_ranks() {
    let r = |t: &str| Selector::parse(t).unwrap().rank();
    assert_eq!(r("getOrder"), r("GET /orders/{id}"));
    assert!(r("GET /orders/{id}") < r("* /orders/{id}"));
    assert!(r("* /orders/{id}") < r("GET /orders/*"));
    assert!(r("GET /orders/*") < r("* /orders/*"));
    assert!(r("GET /orders/*/items") < r("GET /orders/*"));
    assert!(r("GET /orders/**") < r("GET /**"));
    assert_eq!(r("GET /a/*"), r("GET /*/b"));
    // Even a long wildcard path with `*` ranks below a short one with a method.
    assert!(r("GET /*") < r("* /a/b/c/*"));
}

// ---------------------------------------------------------------- strict parsing

#[test]
fn unknown_key_with_position_and_suggestion() {
    let (p, d) = parse_text("version: 1\ndefaults:\n  retyr: true\n  retry_on: [timeout]\n");
    assert!(p.is_some());
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code, "RL005");
    assert_eq!(line_col(&d[0]), (3, 3));
    assert!(d[0].message.contains("`retyr`"), "{}", d[0].message);
    assert_eq!(d[0].help.as_deref(), Some("did you mean `retry`?"));
    assert_eq!(d[0].primary.location.pointer, "/defaults/retyr");
}

#[test]
fn unknown_top_level_and_nested_keys() {
    let (_, d) = parse_text(
        "version: 1\noperation: {}\ndefaults:\n  backoff: {base: 1s, jiter: full}\n  retry_after: {honour: true}\n",
    );
    let helps: Vec<_> = d
        .iter()
        .map(|d| (line_col(d), d.help.as_deref().unwrap().to_string()))
        .collect();
    assert_eq!(
        helps,
        vec![
            ((2, 1), "did you mean `operations`?".to_string()),
            ((4, 23), "did you mean `jitter`?".to_string()),
            ((5, 17), "did you mean `honor`?".to_string()),
        ]
    );
}

#[test]
fn durations_types_enums_and_signals_are_checked() {
    let text = "version: 1
defaults:
  deadline: 100
  attempts: \"3\"
  attempt_timeout: 2 s
  backoff: {base: 100ms, jitter: ful, multiplier: x}
  retry_on: [timout, 503, 5xx, 999, transport]
  effect: mutating
  retry: yes
";
    let (p, d) = parse_text(text);
    let got: Vec<((u32, u32), &str)> = d
        .iter()
        .map(|d| (line_col(d), d.primary.message.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            ((3, 3), "duration without unit"),
            ((4, 3), "wrong type"),
            ((5, 3), "invalid duration"),
            ((6, 26), "unknown value"),
            ((6, 39), "wrong type"),
            ((7, 14), "unknown signal"),
            ((7, 32), "unknown signal"),
            ((8, 3), "unknown value"),
            ((9, 3), "wrong type"),
        ]
    );
    assert!(d.iter().all(|d| d.code == "RL005"));
    assert!(d[0].message.contains("has no unit"));
    assert_eq!(d[3].help.as_deref(), Some("did you mean `full`?"));
    assert_eq!(d[5].help.as_deref(), Some("did you mean `timeout`?"));
    // What could be read is kept, with its origin.
    let defaults = p.unwrap().defaults.unwrap();
    let signals: Vec<Signal> = defaults
        .retry_on
        .unwrap()
        .value
        .iter()
        .map(|s| s.value)
        .collect();
    assert_eq!(
        signals,
        vec![Signal::Status(503), Signal::Class(5), Signal::Transport]
    );
    assert_eq!(defaults.backoff.unwrap().base.unwrap().value, 100.0);
    assert!(defaults.deadline.is_none());
}

#[test]
fn version_is_required_and_must_be_one() {
    let (_, d) = parse_text("defaults: {retry: false}\n");
    assert_eq!(d.len(), 1);
    assert!(d[0].message.contains("version: 1"), "{}", d[0].message);
    let (_, d) = parse_text("version: 2\n");
    assert_eq!(d.len(), 1);
    assert_eq!(line_col(&d[0]), (1, 1));
    assert!(d[0].message.contains("version"));
    let (_, d) = parse_text("version: '1'\n");
    assert_eq!(d.len(), 1, "a string version is a wrong type");
    let (p, d) = parse_text("# nothing\n");
    assert!(p.is_none());
    assert_eq!((d.len(), d[0].code), (1, "RL005"));
    let (p, d) = parse_text("- version: 1\n");
    assert!(p.is_none());
    assert_eq!(d[0].code, "RL005");
}

#[test]
fn bad_selectors_and_ignore_lists() {
    let text = "version: 1
ignore:
  - {rule: RL301, reason: batch job}
operations:
  post /orders: {}
  \"GET /a/**/b\": {}
  \"POST /orders\":
    ignore: [{rule: RL201, reason: legacy, note: x}]
";
    let (p, d) = parse_text(text);
    let got: Vec<_> = d.iter().map(line_col).collect();
    assert_eq!(got, vec![(5, 3), (6, 3), (8, 44)]);
    assert!(d[0].message.contains("`post /orders`"));
    let p = p.unwrap();
    assert_eq!(p.ignore.len(), 1);
    assert_eq!(p.ignore[0].rule.as_ref().unwrap().value, "RL301");
    assert_eq!(p.ignore[0].reason.as_ref().unwrap().value, "batch job");
    assert_eq!(p.operations.len(), 3);
    assert!(p.operations[0].selector.is_none());
    assert_eq!(p.operations[2].settings.ignore.len(), 1);
}

#[test]
fn every_operation_key_parses_with_origins() {
    let text = "version: 1
spec: [a.yaml, b.yaml]
layer: gateway
operations:
  \"POST /orders\":
    retry: true
    effect: non-idempotent
    idempotency_key: {header: Idempotency-Key, retention: 24h, scope: per-client, on_payload_mismatch: reject, on_concurrent: wait}
    status_endpoint: \"GET /orders/by-request/{requestId}\"
    on_unknown_result: check-status
    attempts: 3
    deadline: 3s
    attempt_timeout: 1s
    backoff: {base: 100ms, cap: 2s, multiplier: 1.5, jitter: decorrelated}
    retry_on: [connect-failure, 429]
    retry_after: {honor: true, max: 10s, on_invalid: stop}
";
    let (p, d) = parse_text(text);
    assert!(d.is_empty(), "{d:#?}");
    let p = p.unwrap();
    assert_eq!(p.layer(), Layer::Gateway);
    assert_eq!(p.spec.len(), 2);
    let s = &p.operations[0].settings;
    assert_eq!(s.effect.as_ref().unwrap().value, Effect::NonIdempotent);
    let key = s.idempotency_key.as_ref().unwrap();
    assert_eq!(key.retention.as_ref().unwrap().value, 86_400_000.0);
    assert_eq!(
        s.attempt_timeout.as_ref().unwrap().value,
        AttemptTimeout::Fixed(1000.0)
    );
    assert_eq!(
        s.backoff
            .as_ref()
            .unwrap()
            .multiplier
            .as_ref()
            .unwrap()
            .value,
        1.5
    );
    assert_eq!(
        s.on_unknown_result.as_ref().unwrap().value,
        UnknownResult::CheckStatus
    );
    let deadline = s.deadline.as_ref().unwrap();
    let tree = deadline.at.doc.tree.as_ref().unwrap();
    let lc = deadline
        .at
        .doc
        .file
        .line_col(tree.label_span(deadline.at.node).start);
    assert_eq!((lc.line, lc.column), (12, 5));
    assert_eq!(
        deadline.at.location().pointer,
        "/operations/POST ~1orders/deadline"
    );
}

// ---------------------------------------------------------------- join

#[test]
fn precedence_of_the_five_levels_with_origins() {
    let r = run(
        &["fixtures/policy/precedence/openapi.yaml"],
        &["fixtures/policy/precedence/retry-policy.yaml"],
    );
    assert!(
        r.parse_diags.is_empty() && r.join_diags.is_empty(),
        "{:#?}",
        r.join_diags
    );
    let jo = &r.analysis.operations[0];
    assert_eq!(r.docs[0].operations[jo.operation].path, "/orders/{orderId}");
    let eff = jo.layer(Layer::Client).expect("client layer");
    assert_eq!(eff.entry, Some(0));
    let pos = |at: &Option<At>| {
        let at = at.as_ref().unwrap();
        let loc = at.location();
        let lc = loc.file.line_col(loc.span.start);
        (loc.file.display.clone(), lc.line)
    };
    let spec = "fixtures/policy/precedence/openapi.yaml".to_string();
    let pol = "fixtures/policy/precedence/retry-policy.yaml".to_string();
    // 1. entry beats operation x-retry (attempts 3, not 7).
    let attempts = eff.attempts.as_ref().unwrap();
    assert_eq!((attempts.value, attempts.source), (3, Source::Entry));
    assert_eq!(pos(&attempts.at), (pol.clone(), 10));
    // 2. operation x-retry beats defaults (deadline 7s, not 3s).
    let deadline = eff.deadline.as_ref().unwrap();
    assert_eq!(
        (deadline.value, deadline.source),
        (7000.0, Source::OperationXRetry)
    );
    assert_eq!(pos(&deadline.at), (spec.clone(), 15));
    // 3. defaults beat the root x-retry (jitter full, not none).
    let jitter = eff.backoff.jitter.as_ref().unwrap();
    assert_eq!(
        (jitter.value, jitter.source),
        (Jitter::Full, Source::Defaults)
    );
    // 4. root x-retry fills what nothing else sets.
    let unknown = eff.on_unknown_result.as_ref().unwrap();
    assert_eq!(
        (unknown.value, unknown.source),
        (UnknownResult::Fail, Source::RootXRetry)
    );
    assert_eq!(pos(&unknown.at), (spec.clone(), 6));
    assert_eq!(eff.effect.value, Effect::Idempotent);
    assert_eq!(eff.effect.source, Source::RootXRetry);
    // 5. built-ins.
    assert_eq!(eff.backoff.multiplier.value, 2.0);
    assert_eq!(eff.backoff.multiplier.source, Source::BuiltIn);
    assert!(eff.backoff.multiplier.at.is_none());
    assert_eq!(eff.attempt_timeout.value, AttemptTimeout::Remaining);
    // Mappings combine key by key: cap from the entry, base from defaults.
    let cap = eff.backoff.cap.as_ref().unwrap();
    assert_eq!((cap.value, cap.source), (5000.0, Source::Entry));
    let base = eff.backoff.base.as_ref().unwrap();
    assert_eq!((base.value, base.source), (100.0, Source::Defaults));
    // Lists replace: only the entry's signal, none of the defaults'.
    let signals: Vec<Signal> = eff
        .retry_on
        .as_ref()
        .unwrap()
        .value
        .iter()
        .map(|s| s.value)
        .collect();
    assert_eq!(signals, vec![Signal::ConnectFailure]);
    assert!(eff.is_retried());
    assert!(eff.unsafe_signals().is_empty());
}

#[test]
fn inline_x_retry_layer_and_method_default_effect() {
    let r = run(
        &["fixtures/policy/precedence/openapi.yaml"],
        &["fixtures/policy/precedence/retry-policy.yaml"],
    );
    let jo = &r.analysis.operations[1];
    assert_eq!(r.docs[0].operations[jo.operation].path, "/orders");
    let layers: Vec<Layer> = jo.layers.iter().map(|l| l.layer).collect();
    assert_eq!(layers, vec![Layer::Client, Layer::Gateway]);
    let gw = jo.layer(Layer::Gateway).unwrap();
    assert_eq!(gw.attempts.as_ref().unwrap().value, 2);
    assert_eq!(
        gw.attempts.as_ref().unwrap().source,
        Source::OperationXRetry
    );
    assert!(gw.policy.is_none());
    // The effect is the endpoint's: the root x-retry's `effect: idempotent` (client
    // layer) holds for the gateway layer too, so its 503 retry is no RL201.
    assert_eq!(gw.effect.value, Effect::Idempotent);
    assert_eq!(gw.effect.source, Source::RootXRetry);
    assert_eq!(jo.declared_effects.len(), 1);
    assert!(only(&r.findings, "RL201").is_empty());
    // The client layer's unmatched POST /orders falls to defaults with the root's
    // declared effect (idempotent): no RL201 there.
    let client = jo.layer(Layer::Client).unwrap();
    assert_eq!(client.entry, None);
    assert_eq!(client.effect.value, Effect::Idempotent);
}

#[test]
fn ties_and_unknown_operations() {
    let r = run(
        &["fixtures/policy/unknown/openapi.yaml"],
        &["fixtures/policy/unknown/retry-policy.yaml"],
    );
    let rl005 = only(&r.join_diags, "RL005");
    assert_eq!(rl005.len(), 1, "{rl005:#?}");
    assert_eq!(line_col(rl005[0]), (5, 3));
    assert!(rl005[0].message.contains("`GET /orders/{id}`"));
    assert!(rl005[0].message.contains("`GET /orders/{orderId}`"));
    assert_eq!(rl005[0].operation.as_deref(), Some("GET /orders/{orderId}"));
    let mut rl006: Vec<_> = only(&r.join_diags, "RL006")
        .iter()
        .map(|d| line_col(d))
        .collect();
    rl006.sort();
    // `GET /orders/latest` (a literal never matches a template), the status endpoint
    // (at its key), and the operationId `listOrders`.
    assert_eq!(rl006, vec![(7, 3), (12, 5), (13, 3)]);
    // The POST: `* /orders/{id}` (exact path, any method) beats `POST /orders/*`.
    let post = &r.analysis.operations[1];
    assert_eq!(post.layers[0].entry, Some(4));
    assert!(post.layers[0].status_operation.is_none());
    // The GET: the tie resolves to the first entry; `POST /orders/*` matched only POST.
    assert_eq!(r.analysis.operations[0].layers[0].entry, Some(0));
}

#[test]
fn retry_true_without_signals_is_rl005() {
    let ws = workspace();
    let spec = ws.load_text(
        Path::new("inline/nosig/openapi.yaml"),
        "openapi: 3.0.3\npaths:\n  /a:\n    get: {}\n    put: {}\n",
    );
    let pol = ws.load_text(
        Path::new("inline/nosig/retry-policy.yaml"),
        "version: 1\ndefaults:\n  retry: true\noperations:\n  \"PUT /a\":\n    retry_on: []\n",
    );
    let docs = vec![document(spec)];
    let (p, d) = policy(&pol);
    assert!(d.is_empty());
    let (analysis, diags) = join(&docs, &[p]);
    let got: Vec<_> = diags.iter().map(|d| (d.code, line_col(d))).collect();
    // Once per node: both operations share the `retry: true` of defaults.
    assert_eq!(got, vec![("RL005", (3, 3))]);
    assert!(diags[0].message.contains("`retry: true` without signals"));
    assert!(!analysis.operations[0].layers[0].is_retried());
}

#[test]
fn two_policy_files_of_one_layer_are_rl005() {
    let r = run(
        &["fixtures/policy/layers/openapi.yaml"],
        &[
            "fixtures/policy/layers/client.retry-policy.yaml",
            "fixtures/policy/layers/sdk.retry-policy.yaml",
            "fixtures/policy/layers/mesh.retry-policy.yaml",
        ],
    );
    let rl005 = only(&r.join_diags, "RL005");
    assert_eq!(rl005.len(), 1, "{rl005:#?}");
    assert!(rl005[0]
        .primary
        .location
        .file
        .display
        .ends_with("sdk.retry-policy.yaml"));
    assert_eq!(line_col(rl005[0]), (3, 1));
    assert!(rl005[0].labels[0]
        .location
        .file
        .display
        .ends_with("client.retry-policy.yaml"));
    // The mesh layer is a layer of its own.
    let layers: Vec<Layer> = r.analysis.operations[0]
        .layers
        .iter()
        .map(|l| l.layer)
        .collect();
    assert_eq!(layers, vec![Layer::Client, Layer::Mesh]);
    assert!(r.analysis.operations[0].layers[1].is_retried());
    assert_eq!(r.analysis.governs, vec![vec![0], vec![0], vec![0]]);
}

// ---------------------------------------------------------------- rules

#[test]
fn case_20_unprotected_post_retry() {
    let r = run(
        &["fixtures/cases/20-post-retry-no-idempotency.yaml"],
        &["fixtures/cases/20-post-retry-no-idempotency.retry-policy.yaml"],
    );
    assert!(r.parse_diags.is_empty(), "{:#?}", r.parse_diags);
    assert!(r.join_diags.is_empty(), "{:#?}", r.join_diags);
    let rl201 = only(&r.findings, "RL201");
    assert_eq!(rl201.len(), 1, "{rl201:#?}");
    let d = rl201[0];
    assert_eq!(d.operation.as_deref(), Some("POST /snapshots"));
    assert_eq!(d.severity, retrylint::diagnostic::Severity::Error);
    assert!(d
        .primary
        .location
        .file
        .display
        .ends_with(".retry-policy.yaml"));
    assert_eq!(line_col(d), (11, 3), "at the defaults' retry_on");
    assert_eq!(d.primary.location.pointer, "/defaults/retry_on");
    assert!(d.message.contains("`POST /snapshots`"));
    assert!(d.message.contains("`timeout`") && d.message.contains("`503`"));
    assert!(!d.message.contains("connect-failure"));
    let (file, line, col) = label_pos(&d.labels[0]);
    assert!(file.ends_with("20-post-retry-no-idempotency.yaml"));
    assert_eq!((line, col), (11, 5), "label on the `post` key");
    let help = d.help.as_deref().unwrap();
    assert!(help.contains("idempotency_key") && help.contains("check-status"));
    // Nothing else of error or warning level from these rules.
    assert!(only(&r.findings, "RL202").is_empty());
    assert!(only(&r.findings, "RL301").is_empty());
    // The joined view of the three operations.
    let eff = |path: &str| {
        let jo = r
            .analysis
            .operations
            .iter()
            .find(|j| r.docs[0].operations[j.operation].path == path)
            .unwrap();
        jo.layers[0].clone()
    };
    assert!(eff("/payments").is_protected());
    assert!(!eff("/snapshots").is_protected());
    assert_eq!(eff("/profile").effective_effect(), Effect::Idempotent);
    assert!(eff("/profile").is_retried());
}

#[test]
fn rl201_points_at_a_more_specific_retry_and_respects_status_checks() {
    let ws = workspace();
    let spec = ws.load_text(
        Path::new("inline/r201/openapi.yaml"),
        "openapi: 3.0.3\npaths:\n  /a:\n    post: {}\n  /b:\n    post: {}\n  /c:\n    post: {}\n  /s/{id}:\n    get: {}\n  /d:\n    get:\n      x-retry: {effect: non-idempotent}\n",
    );
    let pol = ws.load_text(
        Path::new("inline/r201/retry-policy.yaml"),
        "version: 1
defaults:
  deadline: 1s
  retry_on: [timeout]
operations:
  \"POST /a\":
    retry: true
  \"POST /b\":
    retry: true
    status_endpoint: \"GET /s/{x}\"
    on_unknown_result: check-status
  \"POST /c\":
    retry: true
    retry_on: [connect-failure, refused-stream]
  \"GET /d\":
    retry: true
",
    );
    let docs = vec![document(spec)];
    let (p, d) = policy(&pol);
    assert!(d.is_empty(), "{d:#?}");
    let (analysis, jd) = join(&docs, &[p]);
    assert!(jd.is_empty(), "{jd:#?}");
    let t = Thresholds::default();
    let found = retrylint::rules::rl201_unprotected_retry::check(&Context {
        documents: &docs,
        analysis: &analysis,
        thresholds: &t,
    });
    let got: Vec<_> = found
        .iter()
        .map(|d| (d.operation.clone().unwrap(), line_col(d)))
        .collect();
    assert_eq!(
        got,
        vec![
            ("POST /a".to_string(), (7, 5)),
            ("GET /d".to_string(), (16, 5))
        ]
    );
    // The `retry_on` list of defaults is labelled too, and the declared effect.
    assert_eq!(label_pos(&found[0].labels[1]).1, 4);
    assert!(found[1]
        .labels
        .iter()
        .any(|l| l.message == "declared non-idempotent"));
    let b = &analysis.operations[1].layers[0];
    assert!(b.checks_status());
    assert_eq!(
        b.status_operation.map(|o| o.operation),
        Some(3),
        "status endpoint resolves to GET /s/{{id}}"
    );
}

#[test]
fn rl202_key_header_must_be_declared() {
    let r = run(
        &["fixtures/policy/keys/openapi.yaml"],
        &["fixtures/policy/keys/retry-policy.yaml"],
    );
    assert!(r.join_diags.is_empty(), "{:#?}", r.join_diags);
    let rl202 = only(&r.findings, "RL202");
    // /orders: path-level parameter counts. /payments: case-insensitive match.
    // /refunds: a query parameter is not a header. /profile: PUT, not a key rule.
    let ops: Vec<_> = rl202.iter().map(|d| d.operation.clone().unwrap()).collect();
    assert_eq!(ops, vec!["POST /refunds"]);
    assert_eq!(line_col(rl202[0]), (8, 5), "at the policy's `header:`");
    assert_eq!(
        label_pos(&rl202[0].labels[0]).1,
        20,
        "label on the `post` key"
    );
    assert!(rl202[0].labels[0].message.contains("Idempotency-Key"));
    // Protected by the key: no RL201 anywhere.
    assert!(only(&r.findings, "RL201").is_empty());
}

#[test]
fn rl301_missing_deadline() {
    let r = run(
        &["fixtures/policy/deadline/openapi.yaml"],
        &["fixtures/policy/deadline/retry-policy.yaml"],
    );
    assert!(r.join_diags.is_empty(), "{:#?}", r.join_diags);
    let rl301 = only(&r.findings, "RL301");
    let got: Vec<_> = rl301
        .iter()
        .map(|d| (d.operation.clone().unwrap(), line_col(d)))
        .collect();
    // GET /items/{id} has a deadline; DELETE has `attempts: 1` (not retried).
    assert_eq!(got, vec![("GET /items".to_string(), (7, 5))]);
    assert_eq!(label_pos(&rl301[0].labels[0]).1, 5);
}

#[test]
fn registry_is_sorted_unique_and_holds_these_rules() {
    let codes: Vec<&str> = REGISTRY.iter().map(|r| r.meta.code).collect();
    let mut sorted = codes.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(codes, sorted);
    for (code, name) in [
        ("RL005", "invalid-policy"),
        ("RL006", "unknown-operation"),
        ("RL201", "unprotected-retry"),
        ("RL202", "idempotency-key-not-in-spec"),
        ("RL301", "missing-deadline"),
    ] {
        assert_eq!(rules::find(code).unwrap().meta.name, name);
        assert_eq!(rules::find(name).unwrap().meta.code, code);
    }
}

#[test]
fn inline_x_retry_is_parsed_strictly() {
    let ws = workspace();
    let spec = ws.load_text(
        Path::new("inline/xr/openapi.yaml"),
        "openapi: 3.0.3\nx-retry:\n  layer: edge\npaths:\n  /a:\n    post:\n      x-retry:\n        retry: true\n        retry_on: ['429', 5XX]\n        attemps: 2\n",
    );
    let docs = vec![document(spec)];
    let (analysis, diags) = join(&docs, &[]);
    let got: Vec<_> = diags
        .iter()
        .map(|d| (d.code, line_col(d), d.help.as_deref().map(str::to_string)))
        .collect();
    assert_eq!(
        got,
        vec![
            (
                "RL005",
                (3, 3),
                Some("use one of client, gateway, mesh".to_string())
            ),
            (
                "RL005",
                (10, 9),
                Some("did you mean `attempts`?".to_string())
            ),
        ]
    );
    let eff = &analysis.operations[0].layers[0];
    assert_eq!(eff.layer, Layer::Client);
    let signals: Vec<Signal> = eff
        .retry_on
        .as_ref()
        .unwrap()
        .value
        .iter()
        .map(|s| s.value)
        .collect();
    assert_eq!(signals, vec![Signal::Status(429), Signal::Class(5)]);
    assert!(eff.retries_status(503) && eff.retries_status(429) && !eff.retries_status(404));
    // Retried without a deadline: RL301 points into the OpenAPI document.
    let t = Thresholds::default();
    let found = retrylint::rules::rl301_missing_deadline::check(&Context {
        documents: &docs,
        analysis: &analysis,
        thresholds: &t,
    });
    assert_eq!(found.len(), 1);
    assert_eq!(line_col(&found[0]), (8, 9));
    // The misspelt `attempts` is the RL005 above, not also an RL302.
    let found = retrylint::rules::rl302_invalid_attempts::check(&Context {
        documents: &docs,
        analysis: &analysis,
        thresholds: &t,
    });
    assert!(found.is_empty(), "{found:?}");
}

// ---------------------------------------------------------------- misspelled keys

#[test]
fn the_parser_records_what_a_misspelled_key_meant() {
    let (p, diags) = parse_text(
        "version: 1\ndefaults:\n  attemps: 3\n  backof: {base: 1s}\n  retry_after: {honor: true, maxx: 2s}\n  idempotency_key: {haeder: K}\n  totally_unknown: 1\n  ignore: [{rule: RL301, reasn: x}]\n",
    );
    let p = p.expect("parses");
    let d = p.defaults.expect("defaults");
    let meant: Vec<&str> = d.misspelled.iter().map(|m| m.intended.as_str()).collect();
    // `backof` is the mapping; `totally_unknown` has no "did you mean"; a typo in an
    // `ignore` item belongs to no setting.
    assert_eq!(
        meant,
        [
            "attempts",
            "backoff",
            "retry_after.max",
            "idempotency_key.header"
        ]
    );
    // Each is reported once, at the unknown key.
    assert_eq!(only(&diags, "RL005").len(), 6, "{diags:?}");
    let at = &d.misspelled[0].at;
    let lc = at.doc.file.line_col(at.location().span.start);
    assert_eq!((lc.line, lc.column), (3, 3));
}

#[test]
fn a_misspelled_mapping_covers_its_keys() {
    let r = run(
        &["fixtures/policy/typo-cascade/openapi.yaml"],
        &["fixtures/policy/typo-cascade/typo-cascade.retry-policy.yaml"],
    );
    let eff = r.analysis.operations[0]
        .layer(Layer::Client)
        .expect("client layer");
    assert!(eff.is_misspelled("attempts"));
    assert!(eff.is_misspelled("backoff.jitter"));
    assert!(!eff.is_misspelled("backoff"));
    assert!(!eff.is_misspelled("backoff.base"));
    assert!(!eff.is_misspelled("attempts_total"));
    assert!(!eff.is_misspelled("retry_on"));
    assert!(r.docs.len() == 1 && r.join_diags.is_empty());
}

#[test]
fn a_rejected_value_counts_as_misspelled_for_its_key() {
    let r = run(
        &["fixtures/policy/value-cascade/openapi.yaml"],
        &["fixtures/policy/value-cascade/retry-policy.yaml"],
    );
    let eff = r.analysis.operations[0]
        .layer(Layer::Client)
        .expect("client layer");
    assert!(eff.attempts.is_none() && eff.deadline.is_none());
    assert!(eff.is_misspelled("attempts") && eff.is_misspelled("deadline"));
    assert!(!eff.is_misspelled("retry_on") && !eff.is_misspelled("backoff.jitter"));

    // A list whose every signal was rejected is rejected, not an empty `retry_on`.
    let r = run(
        &["fixtures/policy/value-cascade-signal/openapi.yaml"],
        &["fixtures/policy/value-cascade-signal/retry-policy.yaml"],
    );
    let eff = r.analysis.operations[0]
        .layer(Layer::Client)
        .expect("client layer");
    assert!(eff.retry_on.is_none() && eff.is_misspelled("retry_on"));
    assert!(!eff.is_misspelled("attempts"));
}

#[test]
fn layers_are_ordered_client_gateway_mesh_and_a_key_reaches_inward() {
    assert!(Layer::Client.is_client());
    assert!(!Layer::Gateway.is_client() && !Layer::Mesh.is_client());
    // A key declared at a layer protects it and every layer inside it.
    assert!(Layer::Client.reaches(Layer::Mesh));
    assert!(Layer::Gateway.reaches(Layer::Gateway));
    assert!(Layer::Gateway.reaches(Layer::Mesh));
    assert!(!Layer::Gateway.reaches(Layer::Client));
    assert!(!Layer::Mesh.reaches(Layer::Gateway));
    // The least safe of two declared effects holds.
    assert_eq!(
        Effect::Safe.least_safe(Effect::NonIdempotent),
        Effect::NonIdempotent
    );
    assert_eq!(
        Effect::Idempotent.least_safe(Effect::Safe),
        Effect::Idempotent
    );
}

#[test]
fn a_client_key_protects_the_mesh_that_resends_it() {
    use retrylint::analysis::Protection;
    let r = run(
        &["fixtures/cases/36-mesh-retry-post/openapi.yaml"],
        &[
            "fixtures/cases/36-mesh-retry-post/client.retry-policy.yaml",
            "fixtures/cases/36-mesh-retry-post/mesh.retry-policy.yaml",
        ],
    );
    let op = |i: usize| &r.docs[0].operations[r.analysis.operations[i].operation];
    let payouts = &r.analysis.operations[0];
    assert_eq!(op(0).path, "/payouts");
    assert!(payouts.protection(Layer::Mesh, op(0)).is_none());
    let transfers = &r.analysis.operations[1];
    assert_eq!(op(1).path, "/transfers");
    for layer in [Layer::Client, Layer::Mesh] {
        match transfers.protection(layer, op(1)) {
            Some(Protection::Key {
                declared_by,
                header,
            }) => {
                assert_eq!(declared_by, Layer::Client);
                assert_eq!(header.value, "Idempotency-Key");
            }
            other => panic!("{layer:?}: {other:?}"),
        }
    }
    // The client's declared effect holds for the mesh layer.
    let mesh = transfers.layer(Layer::Mesh).unwrap();
    assert_eq!(mesh.effect.value, Effect::NonIdempotent);
    assert!(mesh.effect.at.is_some());
}

// ---------------------------------------------------------------- signals, methods, jitter

#[test]
fn new_signals_methods_and_proportional_jitter_parse() {
    let (p, diags) = parse_text(
        "version: 1\ndefaults:\n  retry: true\n  methods: [GET, HEAD, PUT, DELETE]\n  backoff: {jitter: {proportional: 0.2}}\n  retry_on: [reset-before-request, unavailable, resource-exhausted, deadline-exceeded, internal, unknown, aborted, cancelled, transport]\n",
    );
    assert!(diags.is_empty(), "{diags:?}");
    let d = p.unwrap().defaults.unwrap();
    let methods: Vec<String> = d
        .methods
        .unwrap()
        .value
        .into_iter()
        .map(|m| m.value)
        .collect();
    assert_eq!(methods, ["GET", "HEAD", "PUT", "DELETE"]);
    let jitter = d.backoff.unwrap().jitter.unwrap().value;
    assert_eq!(jitter.to_string(), "proportional(0.2)");
    assert_ne!(jitter, Jitter::None);
    let signals: Vec<String> = d
        .retry_on
        .unwrap()
        .value
        .iter()
        .map(|s| s.value.to_string())
        .collect();
    assert_eq!(signals[0], "reset-before-request");
    assert_eq!(signals.len(), 9);
    assert!(Signal::ResetBeforeRequest.never_processed());
}

#[test]
fn bad_signals_methods_and_factors_are_rl005_with_did_you_mean() {
    let (_, diags) = parse_text(
        "version: 1\ndefaults:\n  methods: [get, FETCH, 1]\n  backoff: {jitter: {proportional: 1.01}}\n  retry_on: [unavaliable, reset-before-requets]\n",
    );
    let messages: Vec<String> = only(&diags, "RL005")
        .iter()
        .map(|d| format!("{} | {}", d.message, d.help.clone().unwrap_or_default()))
        .collect();
    assert_eq!(messages.len(), 6, "{messages:#?}");
    assert!(
        messages[0].contains("`get`") && messages[0].contains("did you mean `GET`"),
        "{messages:#?}"
    );
    assert!(messages[1].contains("`FETCH`"), "{messages:#?}");
    assert!(
        messages[2].contains("a `methods` item must be"),
        "{messages:#?}"
    );
    assert!(messages[3].contains("out of range"), "{messages:#?}");
    assert!(
        messages[4].contains("did you mean `unavailable`"),
        "{messages:#?}"
    );
    assert!(
        messages[5].contains("did you mean `reset-before-request`"),
        "{messages:#?}"
    );
}
