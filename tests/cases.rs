//! End to end over `fixtures/cases/` (copies of the shared fault-kind cases): each
//! gives the codes and positions its README states, for the rules implemented.

use retrylint::check::{run, CheckOptions, CheckOutcome};
use std::path::PathBuf;

mod common;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn check(paths: &[&str]) -> CheckOutcome {
    let dir = repo().join("fixtures/cases");
    run(&CheckOptions {
        paths: paths.iter().map(|p| dir.join(p)).collect(),
        cwd: Some(dir.clone()),
        root: Some(dir),
        ..CheckOptions::default()
    })
}

/// `"line:col"` of a finding's primary location.
fn line_col(d: &retrylint::diagnostic::Diagnostic) -> String {
    let lc = d
        .primary
        .location
        .file
        .line_col(d.primary.location.span.start);
    format!("{}:{}", lc.line, lc.column)
}

/// `(code, "line:col")` of every finding of the given codes.
fn found(outcome: &CheckOutcome, codes: &[&str]) -> Vec<(String, String)> {
    outcome
        .diagnostics
        .iter()
        .filter(|d| codes.contains(&d.code))
        .map(|d| (d.code.to_string(), line_col(d)))
        .collect()
}

/// RL5xx spec rules checked on the cases: `(code, "line:col", operation)`.
const SPEC: &[&str] = &["RL502", "RL503", "RL504", "RL505"];

fn spec_found(outcome: &CheckOutcome) -> Vec<(String, String, String)> {
    outcome
        .diagnostics
        .iter()
        .filter(|d| SPEC.contains(&d.code))
        .map(|d| {
            (
                d.code.to_string(),
                line_col(d),
                d.operation.clone().unwrap_or_default(),
            )
        })
        .collect()
}

fn triples(list: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    list.iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

const ISSUE2: &[&str] = &[
    "RL001", "RL002", "RL003", "RL004", "RL005", "RL006", "RL007", "RL009", "RL011", "RL012",
    "RL201", "RL202", "RL301", "RL501",
];

#[test]
fn case01_numeric_status_keys() {
    let o = check(&["01-numeric-status-keys.yaml"]);
    assert_eq!(found(&o, ISSUE2), vec![]);
    assert!(!o.could_not_lint);
    assert_eq!(spec_found(&o), triples(&[("RL504", "9:5", "POST /orders")]));
}

#[test]
fn case02_anchors_merge_keys() {
    let o = check(&["02-anchors-merge-keys.yaml"]);
    assert_eq!(found(&o, ISSUE2), pairs(&[("RL501", "44:9")]));
    assert_eq!(
        spec_found(&o),
        triples(&[("RL504", "29:5", "POST /a"), ("RL504", "37:5", "POST /b")])
    );
}

#[test]
fn case03_ref_cycles() {
    let o = check(&["03-ref-cycles.yaml"]);
    let f = found(&o, ISSUE2);
    assert!(f.contains(&("RL004".into(), "30:7".into())), "{f:?}");
    assert!(f.contains(&("RL004".into(), "33:7".into())), "{f:?}");
    let r2r3: Vec<_> = f
        .iter()
        .filter(|(c, at)| c == "RL004" && (at == "35:7" || at == "37:7"))
        .collect();
    assert_eq!(r2r3.len(), 1, "{f:?}");
    assert_eq!(f.iter().filter(|(c, _)| c == "RL004").count(), 3, "{f:?}");
}

#[test]
fn case05_relative_external_refs() {
    let o = check(&["05-relative-external-refs.yaml"]);
    assert_eq!(found(&o, ISSUE2), vec![]);
    assert_eq!(o.documents, 1);
}

#[test]
fn case06_header_name_case() {
    let o = check(&["06-header-name-case.yaml"]);
    let f = found(&o, ISSUE2);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].0, "RL009");
    assert!(f[0].1 == "39:11" || f[0].1 == "35:11", "{f:?}");
    assert_eq!(
        spec_found(&o),
        triples(&[
            ("RL504", "16:5", "POST /payments"),
            ("RL504", "33:5", "POST /refunds")
        ])
    );
}

#[test]
fn case08_default_response() {
    let o = check(&["08-default-response.yaml"]);
    assert_eq!(found(&o, ISSUE2), vec![]);
    assert_eq!(
        spec_found(&o),
        triples(&[
            ("RL504", "10:5", "POST /exports"),
            ("RL505", "18:9", "POST /exports")
        ])
    );
}

#[test]
fn case10_duplicate_keys() {
    let o = check(&["10-duplicate-keys.yaml"]);
    assert_eq!(
        found(&o, ISSUE2),
        pairs(&[("RL002", "20:9"), ("RL002", "22:3")])
    );
    let d = o.diagnostics.iter().find(|d| d.code == "RL002").unwrap();
    let first = d.labels[0]
        .location
        .file
        .line_col(d.labels[0].location.span.start);
    assert_eq!((first.line, first.column), (14, 9));
}

#[test]
fn case11_bom_crlf() {
    let o = check(&["11-bom-crlf.yaml"]);
    assert_eq!(found(&o, ISSUE2), pairs(&[("RL501", "17:9")]));
    assert_eq!(spec_found(&o), triples(&[("RL504", "7:5", "POST /orders")]));
}

#[test]
fn case13_json_surrogate_escapes() {
    let o = check(&["13-json-surrogate-escapes.json"]);
    assert_eq!(found(&o, ISSUE2), vec![]);
    assert_eq!(o.documents, 1);
    assert_eq!(
        spec_found(&o),
        triples(&[("RL504", "10:7", "POST /messages")])
    );
}

#[test]
fn case17_alias_bomb() {
    let o = check(&["17-alias-bomb.yaml"]);
    assert!(o.diagnostics.is_empty(), "{:?}", o.diagnostics);
    assert_eq!(o.documents, 1);
}

#[test]
fn case20_post_retry_without_idempotency() {
    let o = check(&[
        "20-post-retry-no-idempotency.yaml",
        "20-post-retry-no-idempotency.retry-policy.yaml",
    ]);
    let errors: Vec<_> = o
        .diagnostics
        .iter()
        .filter(|d| {
            d.severity >= retrylint::diagnostic::Severity::Warning && ISSUE2.contains(&d.code)
        })
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    let d = errors[0];
    assert_eq!(d.code, "RL201");
    assert_eq!(d.operation.as_deref(), Some("POST /snapshots"));
    assert!(d
        .primary
        .location
        .file
        .display
        .ends_with(".retry-policy.yaml"));
    assert!(d
        .labels
        .iter()
        .any(|l| l.location.file.display == "20-post-retry-no-idempotency.yaml"));
}

#[test]
fn case19_retry_after_values() {
    let o = check(&["19-retry-after-values.yaml"]);
    let f = spec_found(&o);
    let rl503: Vec<&str> = f
        .iter()
        .filter(|(c, _, _)| c == "RL503")
        .map(|(_, at, _)| at.as_str())
        .collect();
    // `-5`, `1m0s`, `1.5` of the 429 header; the 503's `format: date-time` schema
    // (its `Retry-After` key 46:13 or its schema 47:15) and its RFC 3339 example.
    assert_eq!(rl503.len(), 5, "{f:?}");
    for at in ["36:19", "38:19", "42:19", "50:15"] {
        assert!(rl503.contains(&at), "{at} missing: {f:?}");
    }
    assert!(
        rl503.contains(&"46:13") || rl503.contains(&"47:15"),
        "{f:?}"
    );
    assert!(f.iter().all(|(_, _, op)| op == "GET /search"), "{f:?}");
    assert_eq!(found(&o, ISSUE2), vec![]);
}

/// `retrylint plan` in `fixtures/cases/`: (exit code, stdout, stderr).
fn plan_in_cases(args: &[&str]) -> (i32, String, String) {
    let args: Vec<&str> = std::iter::once("plan")
        .chain(args.iter().copied())
        .collect();
    common::retrylint_in(&repo().join("fixtures/cases"), &args)
}

#[test]
fn case29_retry_after_past_date_means_no_extra_wait() {
    let case = |extra: &[&str]| {
        let mut args = vec![
            "--policy",
            "29-retry-after-past-date.retry-policy.yaml",
            "--operation",
            "listReports",
            "--signal",
            "503",
            "--attempt",
            "0",
            "--elapsed",
            "1s",
            "--retry-after",
            "Wed, 21 Oct 2015 07:28:00 GMT",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        let (code, out, err) = plan_in_cases(&args);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str::<serde_json::Value>(&out).expect("one JSON line")
    };
    // Without --now-ms the clock is the real time: the 2015 date is past, so the
    // delay is the policy's own full-jitter backoff for attempt 0 (base 200ms).
    for seed in ["0", "1", "2", "3", "4", "5", "6", "7"] {
        let v = case(&["--seed", seed]);
        assert_eq!(v["retry"], true, "{v}");
        assert_eq!(v["backoffMs"], 200, "{v}");
        let delay = v["delayMs"].as_f64().expect("a delay");
        assert!((0.0..=200.0).contains(&delay), "{v}");
    }
    // --now-ms is the clock when given: 3 s before the date, the date is waited for
    // (plus jitter); from 1970 it lies beyond the policy's 60 s `max`.
    const OCT_21_2015: i64 = 1_445_412_480_000;
    let before = (OCT_21_2015 - 3000).to_string();
    let v = case(&["--now-ms", &before]);
    let delay = v["delayMs"].as_f64().expect("a delay");
    assert!((3000.0..=3200.0).contains(&delay), "{v}");
    let v = case(&["--now-ms", "0"]);
    assert_eq!(v["reason"], "retry-after-exceeds-max", "{v}");
}

/// `(code, severity, operations, primary file)` of every finding, sorted.
fn summary(outcome: &CheckOutcome) -> Vec<(String, String, Vec<String>, String)> {
    let mut v: Vec<_> = outcome
        .diagnostics
        .iter()
        .map(|d| {
            (
                d.code.to_string(),
                d.severity.as_str().to_string(),
                d.operations.clone(),
                d.primary.location.file.display.clone(),
            )
        })
        .collect();
    v.sort();
    v
}

/// The readiness matrix of a case folder, as `readiness` computes it.
fn readiness_of(case: &str) -> retrylint::readiness::Matrix {
    let dir = repo().join("fixtures/cases").join(case);
    let (analyzed, diags) = retrylint::check::run_full(&CheckOptions {
        paths: vec![dir.clone()],
        cwd: Some(dir.clone()),
        root: Some(dir),
        ..CheckOptions::default()
    });
    retrylint::readiness::matrix(&analyzed, &diags)
}

/// `readiness` agrees with `check`: each row lists exactly the codes `check` reports
/// for that operation.
fn assert_readiness_agrees(case: &str, outcome: &CheckOutcome) {
    let m = readiness_of(case);
    for row in &m.operations {
        let name = format!("{} {}", row.method, row.path);
        let mut codes: Vec<String> = outcome
            .diagnostics
            .iter()
            .filter(|d| d.operations.contains(&name))
            .map(|d| d.code.to_string())
            .collect();
        codes.sort();
        codes.dedup();
        assert_eq!(row.findings, codes, "{name}");
    }
}

#[test]
fn case36_protection_travels_with_the_request() {
    let o = check(&["36-mesh-retry-post"]);
    let ops = |s: &str| vec![s.to_string()];
    assert_eq!(
        summary(&o),
        vec![
            (
                "RL101".into(),
                "info".into(),
                ops("POST /payouts"),
                "36-mesh-retry-post/mesh.retry-policy.yaml".into()
            ),
            (
                "RL201".into(),
                "error".into(),
                ops("POST /payouts"),
                "36-mesh-retry-post/mesh.retry-policy.yaml".into()
            ),
            (
                "RL311".into(),
                "warning".into(),
                ops("POST /transfers"),
                "36-mesh-retry-post/client.retry-policy.yaml".into()
            ),
        ]
    );
    let rl201 = o.diagnostics.iter().find(|d| d.code == "RL201").unwrap();
    assert!(
        rl201.message.contains("by the mesh layer"),
        "{}",
        rl201.message
    );
    let rl311 = o.diagnostics.iter().find(|d| d.code == "RL311").unwrap();
    assert!(rl311.message.contains("9 attempts"), "{}", rl311.message);
    assert_readiness_agrees("36-mesh-retry-post", &o);
    let m = readiness_of("36-mesh-retry-post");
    let payouts = &m.operations[0];
    assert_eq!(
        (payouts.method.as_str(), payouts.path.as_str()),
        ("POST", "/payouts")
    );
    // Only the mesh retries `/payouts`: its own budget and strategy, not the client's.
    assert_eq!(payouts.attempts, Some(3));
    assert_eq!(payouts.deadline_ms, Some(15_000.0));
    assert_eq!(payouts.on_unknown_result.as_deref(), Some("fail"));
    assert!(payouts.safety.is_empty());
    let transfers = &m.operations[1];
    assert_eq!(transfers.safety, vec!["idempotency-key"]);
    assert_eq!(transfers.amplification, 9);
    let table = retrylint::readiness::render::table(&m);
    assert!(table.contains("mesh 3 x, 15s "), "{table}");
    assert!(
        table.contains("client 3 x, 20s; mesh 3 x, 15s = 9 x"),
        "{table}"
    );
}

#[test]
fn case42_the_effect_is_the_endpoints() {
    let o = check(&["42-effect-across-layers"]);
    let codes: Vec<String> = summary(&o).into_iter().map(|s| s.0).collect();
    assert_eq!(codes, vec!["RL306", "RL306", "RL311"], "{:?}", summary(&o));
    let rl306_files: Vec<String> = summary(&o)
        .into_iter()
        .filter(|s| s.0 == "RL306")
        .map(|s| s.3)
        .collect();
    assert_eq!(
        rl306_files,
        vec![
            "42-effect-across-layers/client.retry-policy.yaml",
            "42-effect-across-layers/gateway.retry-policy.yaml"
        ]
    );
    let rl311 = o.diagnostics.iter().find(|d| d.code == "RL311").unwrap();
    assert!(rl311.message.contains("6 attempts"), "{}", rl311.message);
    assert_readiness_agrees("42-effect-across-layers", &o);
    let m = readiness_of("42-effect-across-layers");
    let search = &m.operations[0];
    assert_eq!(search.effect, "safe");
    assert!(search.effect_declared);
    // Each layer's own budget.
    let budgets: Vec<(String, Option<i64>, Option<f64>)> = search
        .layers
        .iter()
        .map(|l| (l.layer.clone(), l.attempts, l.deadline_ms))
        .collect();
    assert_eq!(
        budgets,
        vec![
            ("client".to_string(), Some(3), Some(5000.0)),
            ("gateway".to_string(), Some(2), Some(3000.0))
        ]
    );
    let table = retrylint::readiness::render::table(&m);
    assert!(
        table.contains("client 3 x, 5s; gateway 2 x, 3s = 6 x"),
        "{table}"
    );
}

/// Case 88: a deployment repository with no OpenAPI document. The `api` route
/// retries `gateway-error` for every method: RL209 (warning) at its `retries`; the
/// GET-only `health` route gets none; the ServiceProfile route whose `all` asks for
/// both POST and GET can never match: RL017. A warning keeps exit 0 under the
/// default `--fail-on error`; `--fail-on warning` fails.
#[test]
fn case88_config_only_repository() {
    let o = check(&["88-config-only-repository"]);
    let rl209: Vec<_> = o.diagnostics.iter().filter(|d| d.code == "RL209").collect();
    assert_eq!(rl209.len(), 1, "{:#?}", summary(&o));
    let d = rl209[0];
    assert_eq!(
        d.primary.location.file.display,
        "88-config-only-repository/virtual-service.yaml"
    );
    // The `retries` key of the `api` route (the case README says line 13; the file
    // holds it on line 14, below `prefix: /api/`).
    assert_eq!(line_col(d), "14:7");
    assert_eq!(d.severity.as_str(), "warning");
    assert!(d.message.contains("route `api`"), "{}", d.message);
    assert!(d.message.contains("for every method"), "{}", d.message);
    for s in ["`502`", "`503`", "`504`"] {
        assert!(d.message.contains(s), "{}", d.message);
    }
    assert!(!d.message.contains("connect-failure"), "{}", d.message);
    assert!(!d.message.contains("health"), "{}", d.message);
    assert!(
        d.help.as_deref().is_some_and(|h| h.contains("services:")
            && h.contains("names: [ledger.finance.svc.cluster.local]")
            && h.contains("`connect-failure`")),
        "{:?}",
        d.help
    );
    let rl017: Vec<_> = o.diagnostics.iter().filter(|d| d.code == "RL017").collect();
    assert_eq!(rl017.len(), 1, "{:#?}", summary(&o));
    assert_eq!(
        rl017[0].primary.location.file.display,
        "88-config-only-repository/service-profile.yaml"
    );
    assert_eq!(line_col(rl017[0]), "8:7");
    assert!(
        rl017[0].message.contains("create and read invoice")
            && rl017[0]
                .message
                .contains("`method: POST` and `method: GET`"),
        "{}",
        rl017[0].message
    );
    assert!(o.diagnostics.iter().all(|d| d.severity.as_str() != "error"));
    let dir = repo().join("fixtures/cases/88-config-only-repository");
    let (code, out, err) = common::retrylint_in(&dir, &["check", "."]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("RL209"), "{out}");
    let (code, out, err) = common::retrylint_in(&dir, &["check", "--fail-on", "warning", "."]);
    assert_eq!(code, 1, "{out}{err}");
}

/// Case 77: spring-petclinic's api-gateway with no spec. The default `Retry` filter
/// (`methods: POST`, 503) is shared by the four routes: one RL209 at the filter with
/// a label per route and one at its `methods`; exit 0.
#[test]
fn case77_no_spec_gateway_retries_post() {
    let o = check(&["77-no-spec-gateway-retries-post"]);
    let rl209: Vec<_> = o.diagnostics.iter().filter(|d| d.code == "RL209").collect();
    assert_eq!(rl209.len(), 1, "{:#?}", summary(&o));
    let d = rl209[0];
    assert_eq!(
        d.primary.location.file.display,
        "77-no-spec-gateway-retries-post/application.yml"
    );
    // `- name: Retry` of `default-filters`.
    assert_eq!(line_col(d), "15:15");
    assert!(d.message.contains("for POST"), "{}", d.message);
    assert!(d.message.contains("`503`"), "{}", d.message);
    let label_lines: Vec<(u32, &str)> = d
        .labels
        .iter()
        .map(|l| {
            (
                l.location.file.line_col(l.location.span.start).line,
                l.message.as_str(),
            )
        })
        .collect();
    for (line, route) in [
        (21, "vets-service"),
        (27, "visits-service"),
        (33, "customers-service"),
        (39, "genai-service"),
    ] {
        assert!(
            label_lines
                .iter()
                .any(|(l, m)| *l == line && m.contains(route)),
            "{route}: {label_lines:?}"
        );
        assert!(d.message.contains(&format!("`{route}`")), "{}", d.message);
    }
    // `methods: POST` (line 19) is labelled.
    assert!(
        label_lines
            .iter()
            .any(|(l, m)| *l == 19 && m.contains("POST")),
        "{label_lines:?}"
    );
    let dir = repo().join("fixtures/cases/77-no-spec-gateway-retries-post");
    let (code, out, err) = common::retrylint_in(&dir, &["check", "."]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("RL209"), "{out}");
}

/// Case 81: duplicate keys in retry configs, reported as in specs and policies.
/// vs.yaml repeats the route's `retries:` (the second, `attempts: 0`, is what Istio
/// reads): RL002 at 11:5, first occurrence labelled at 10:5. The gRPC service config
/// repeats `maxAttempts` and the top-level `methodConfig`: RL002 at each, on line 1.
/// The run exits 1 (RL002 is an error).
#[test]
fn case81_duplicate_keys_in_config() {
    let o = check(&["81-duplicate-keys-in-config"]);
    let rl002: Vec<(String, String, String, Vec<String>)> = o
        .diagnostics
        .iter()
        .filter(|d| d.code == "RL002")
        .map(|d| {
            (
                d.primary.location.file.display.clone(),
                line_col(d),
                d.message.clone(),
                d.labels
                    .iter()
                    .map(|l| {
                        let lc = l.location.file.line_col(l.location.span.start);
                        format!("{}:{} {}", lc.line, lc.column, l.message)
                    })
                    .collect(),
            )
        })
        .collect();
    assert_eq!(rl002.len(), 3, "{rl002:#?}");
    let vs = rl002
        .iter()
        .find(|d| d.0.ends_with("vs.yaml"))
        .expect("RL002 in vs.yaml");
    assert_eq!(vs.1, "11:5", "{vs:?}");
    assert!(vs.2.contains("`retries`"), "{vs:?}");
    assert!(vs.3.iter().any(|l| l.starts_with("10:5 ")), "{vs:?}");
    let grpc: Vec<_> = rl002
        .iter()
        .filter(|d| d.0.ends_with("grpc_service_config.json"))
        .collect();
    assert_eq!(grpc.len(), 2, "{grpc:#?}");
    for key in ["`maxAttempts`", "`methodConfig`"] {
        assert!(
            grpc.iter()
                .any(|d| d.1.starts_with("1:") && d.2.contains(key)),
            "{key}: {grpc:#?}"
        );
    }
    let dir = repo().join("fixtures/cases/81-duplicate-keys-in-config");
    let (code, out, err) = common::retrylint_in(&dir, &["check", "."]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("RL002"), "{out}");
    // `retrylint import` names the repeat too (on standard error).
    let (_, _, err) = common::retrylint_in(&dir, &["import", "vs.yaml"]);
    assert!(err.contains("RL002"), "{err}");
}

/// The findings of `code` as `(operations, "line:col", primary file)`.
fn of_code(o: &CheckOutcome, code: &str) -> Vec<(Vec<String>, String, String)> {
    o.diagnostics
        .iter()
        .filter(|d| d.code == code)
        .map(|d| {
            (
                d.operations.clone(),
                line_col(d),
                d.primary.location.file.display.clone(),
            )
        })
        .collect()
}

/// Case 60: `hedge_on_per_try_timeout` behind a "safe-looking" `retry_on`
/// (connect-failure, refused-stream). RL207 for `POST /quotes` at the hedge policy;
/// no RL207 for the GET, and no RL312: a hedged per-try timeout is retried whatever
/// `retry_on` says (envoyproxy/envoy#6228).
#[test]
fn case60_envoy_hedge_on_per_try_timeout() {
    let o = check(&["60-envoy-hedge-on-per-try-timeout"]);
    let rl207 = of_code(&o, "RL207");
    assert_eq!(rl207.len(), 1, "{:#?}", summary(&o));
    assert_eq!(rl207[0].0, vec!["POST /quotes".to_string()]);
    assert!(
        ["27", "28"].contains(&rl207[0].1.split(':').next().unwrap_or("")),
        "{rl207:?}"
    );
    assert_eq!(
        rl207[0].2,
        "60-envoy-hedge-on-per-try-timeout/deploy/envoy/envoy.yaml"
    );
    assert_eq!(of_code(&o, "RL312"), vec![], "{:#?}", summary(&o));
}

/// Case 90 (Envoy `retry_state_impl_test.cc`
/// `RetriableHeadersPolicyViaRetryPolicyConfiguration`): `retriable-headers` with a
/// `:status` range `[500, 505)` retries 500 to 504, so the POST is re-sent after a
/// 5xx: RL201 at `retry_on` (21:31), as for `retry_on: 5xx`; no RL019 (the matcher
/// is evaluated).
#[test]
fn case90_envoy_retriable_headers() {
    let o = check(&["90-envoy-retriable-headers"]);
    let rl201: Vec<_> = o.diagnostics.iter().filter(|d| d.code == "RL201").collect();
    assert_eq!(rl201.len(), 1, "{:#?}", summary(&o));
    let d = rl201[0];
    assert_eq!(d.operations, vec!["POST /items".to_string()]);
    assert_eq!(
        d.primary.location.file.display,
        "90-envoy-retriable-headers/envoy.yaml"
    );
    assert_eq!(line_col(d), "21:31");
    for code in ["`500`", "`503`", "`504`"] {
        assert!(d.message.contains(code), "{}", d.message);
    }
    assert!(!d.message.contains("`505`"), "{}", d.message);
    assert_eq!(of_code(&o, "RL019"), vec![]);
    let dir = repo().join("fixtures/cases/90-envoy-retriable-headers");
    let (code, out, err) = common::retrylint_in(&dir, &["import", "envoy.yaml", "openapi.yaml"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("retry: false"), "{out}");
}

/// Case 93 (`retry_state_impl.cc` `wouldRetryFromReset()`):
/// `http3-post-connect-failure` retries only over a cluster with HTTP/3 and a TCP
/// fallback; the `items` cluster has no HTTP/3, so Envoy never retries: no RL201,
/// no RL019 (the cluster is in the file), exit 0.
#[test]
fn case93_envoy_http3_post_connect_failure() {
    let o = check(&["93-envoy-http3-post-connect-failure"]);
    assert_eq!(of_code(&o, "RL201"), vec![], "{:#?}", summary(&o));
    assert_eq!(of_code(&o, "RL019"), vec![], "{:#?}", summary(&o));
    let dir = repo().join("fixtures/cases/93-envoy-http3-post-connect-failure");
    let (code, out, err) = common::retrylint_in(&dir, &["check", "."]);
    assert_eq!(code, 0, "{out}{err}");
    let (_, out, _) = common::retrylint_in(&dir, &["import", "envoy.yaml", "openapi.yaml"]);
    assert!(out.contains("retry: false"), "{out}");
}

/// Case 92 (gRFC A6 "Validation of retryPolicy"; grpc-go `convertRetryPolicy()`,
/// grpc-java `ManagedChannelServiceConfig`): a `retryPolicy` without `maxBackoff`
/// makes gRPC reject the service config, so nothing retries: RL017 says why, and no
/// RL201 for `CreateBook`. The same class: `initialBackoff` `"0s"` or `"100ms"`,
/// `backoffMultiplier` 0, a method name given twice.
#[test]
fn case92_grpc_rejected_config_retries_nothing() {
    let o = check(&["92-grpc-rejected-config"]);
    let rl017: Vec<_> = o.diagnostics.iter().filter(|d| d.code == "RL017").collect();
    assert_eq!(rl017.len(), 1, "{:#?}", summary(&o));
    assert!(
        rl017[0].message.contains("`maxBackoff`"),
        "{}",
        rl017[0].message
    );
    assert!(
        rl017[0]
            .help
            .as_deref()
            .is_some_and(|h| h.contains("nothing in it is retried")),
        "{:?}",
        rl017[0].help
    );
    for code in ["RL201", "RL302", "RL311"] {
        assert_eq!(of_code(&o, code), vec![], "{code}: {:#?}", summary(&o));
    }
    let case = repo().join("fixtures/cases/92-grpc-rejected-config");
    let (_, out, _) = common::retrylint_in(&case, &["import", "service_config.json"]);
    assert!(out.contains("retry: false"), "{out}");
    assert!(!out.contains("retry: true"), "{out}");
    assert!(out.contains("gRPC rejects this service config"), "{out}");

    // The same class of rejected configs, each beside the case's spec and proto.
    let policy = |extra: &str| {
        format!(
            r#"{{"methodConfig": [{{"name": [{{"service": "library.v1.Library"}}], "retryPolicy": {{"maxAttempts": 3, {extra}, "retryableStatusCodes": ["UNAVAILABLE"]}}}}]}}"#
        )
    };
    let variants = [
        (
            "zero initialBackoff",
            policy(r#""initialBackoff": "0s", "maxBackoff": "1s", "backoffMultiplier": 2"#),
        ),
        (
            "milliseconds",
            policy(r#""initialBackoff": "100ms", "maxBackoff": "1s", "backoffMultiplier": 2"#),
        ),
        (
            "zero multiplier",
            policy(r#""initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 0"#),
        ),
        (
            "duplicate name",
            r#"{"methodConfig": [
  {"name": [{"service": "library.v1.Library"}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}},
  {"name": [{"service": "library.v1.Library"}], "timeout": "5s"}
]}"#
            .to_string(),
        ),
    ];
    for (what, config) in variants {
        let dir = tempfile::tempdir().expect("a temporary folder");
        for f in ["library.proto", "library.swagger.json"] {
            std::fs::copy(case.join(f), dir.path().join(f)).expect("copy");
        }
        std::fs::write(dir.path().join("service_config.json"), config).expect("write");
        let (_, out, err) = common::retrylint_in(dir.path(), &["import", "service_config.json"]);
        assert!(
            out.contains("retry: false") && !out.contains("retry: true"),
            "{what}: {out}"
        );
        assert!(err.contains("RL017"), "{what}: {err}");
        let (_, out, _) = common::retrylint_in(dir.path(), &["check", "."]);
        assert!(out.contains("RL017"), "{what}: {out}");
        assert!(!out.contains("RL201"), "{what}: {out}");
    }
    // The valid config (a `maxBackoff` added) retries: CreateBook gets RL201.
    let dir = tempfile::tempdir().expect("a temporary folder");
    for f in ["library.proto", "library.swagger.json"] {
        std::fs::copy(case.join(f), dir.path().join(f)).expect("copy");
    }
    std::fs::write(
        dir.path().join("service_config.json"),
        policy(r#""initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2"#),
    )
    .expect("write");
    let (_, out, _) = common::retrylint_in(dir.path(), &["check", "."]);
    assert!(out.contains("RL201"), "{out}");
}

/// Case 91 (Envoy `retry_state_impl.cc` `parseResetInterval()`): a Retry-After above
/// `rate_limited_retry_back_off.max_interval` is discarded and Envoy retries after
/// its ordinary exponential back-off. The import says `on_above_max: backoff`, and
/// `plan` answers a 503 with `Retry-After: 30` by retrying within the first back-off
/// bound (25 ms), never "stop: retry-after-exceeds-max".
#[test]
fn case91_envoy_rate_limited_above_max_retries_on_backoff() {
    let case = repo().join("fixtures/cases/91-envoy-rate-limited-above-max");
    let dir = tempfile::tempdir().expect("a temporary folder");
    for f in ["envoy.yaml", "openapi.yaml"] {
        std::fs::copy(case.join(f), dir.path().join(f)).expect("copy");
    }
    let (code, imported, err) =
        common::retrylint_in(dir.path(), &["import", "envoy.yaml", "openapi.yaml"]);
    assert_eq!(code, 0, "{err}");
    assert!(imported.contains("on_above_max: backoff"), "{imported}");
    assert!(imported.contains("max: 10s"), "{imported}");
    std::fs::write(dir.path().join("imported.retry-policy.yaml"), &imported).expect("write");
    let (code, out, err) = common::retrylint_in(
        dir.path(),
        &[
            "plan",
            "--policy",
            "imported.retry-policy.yaml",
            "--operation",
            "getItem",
            "--layer",
            "gateway",
            "--signal",
            "503",
            "--retry-after",
            "30",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON line");
    assert_eq!(v["retry"], true, "{v}");
    assert_eq!(v["backoffMs"], 25, "{v}");
    let delay = v["delayMs"].as_f64().expect("a delay");
    assert!((0.0..=25.0).contains(&delay), "{v}");
    // Within `max_interval` the header is waited for.
    let (_, out, _) = common::retrylint_in(
        dir.path(),
        &[
            "plan",
            "--policy",
            "imported.retry-policy.yaml",
            "--operation",
            "getItem",
            "--layer",
            "gateway",
            "--signal",
            "503",
            "--retry-after",
            "3",
            "--format",
            "json",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON line");
    assert!(v["delayMs"].as_f64().is_some_and(|d| d >= 3000.0), "{v}");
}

/// `(code, file, line)` of every finding, sorted.
fn where_found(o: &CheckOutcome) -> Vec<(String, String, u32)> {
    let mut v: Vec<_> = o
        .diagnostics
        .iter()
        .map(|d| {
            let lc = d
                .primary
                .location
                .file
                .line_col(d.primary.location.span.start);
            (
                d.code.to_string(),
                d.primary.location.file.display.clone(),
                lc.line,
            )
        })
        .collect();
    v.sort();
    v
}

/// The labels of a finding as `file:line message`.
fn label_lines(d: &retrylint::diagnostic::Diagnostic) -> Vec<String> {
    d.labels
        .iter()
        .map(|l| {
            let lc = l.location.file.line_col(l.location.span.start);
            format!("{}:{} {}", l.location.file.display, lc.line, l.message)
        })
        .collect()
}

/// Case 78 (Istio Bookinfo): Swagger 2.0 `basePath: /api/v1` is the server path the
/// VirtualService `bookinfo` routes under (`prefix: /api/v1/products`), so it binds:
/// RL201 and RL306 at its `retries` (line 14) for `POST /products/{id}/reviews`. The
/// egress VirtualService for `www.googleapis.com` is no reason to bind the lone spec:
/// RL016 at that host naming it, and no finding of it on the Bookinfo operations.
#[test]
fn case78_swagger_base_path_and_lone_spec() {
    let o = check(&["78-swagger-base-path-and-lone-spec"]);
    let at = where_found(&o);
    let gateway = "78-swagger-base-path-and-lone-spec/bookinfo-gateway.yaml";
    let egress = "78-swagger-base-path-and-lone-spec/egress-googleapis.yaml";
    for code in ["RL201", "RL306"] {
        assert!(
            at.contains(&(code.to_string(), gateway.to_string(), 14)),
            "{code}: {at:?}"
        );
    }
    let rl201 = o.diagnostics.iter().find(|d| d.code == "RL201").unwrap();
    assert_eq!(
        rl201.operations,
        vec!["POST /products/{id}/reviews".to_string()]
    );
    // From the egress VirtualService: RL016 only, at its host, naming it.
    let from_egress: Vec<_> = o
        .diagnostics
        .iter()
        .filter(|d| d.primary.location.file.display == egress)
        .collect();
    assert_eq!(from_egress.len(), 1, "{at:?}");
    assert_eq!(from_egress[0].code, "RL016");
    assert_eq!(line_col(from_egress[0]), "6:11");
    assert!(
        from_egress[0].message.contains("`www.googleapis.com`"),
        "{}",
        from_egress[0].message
    );
    assert!(!at.iter().any(|(c, _, _)| c == "RL301" || c == "RL311"));
    assert!(!at.iter().any(|(c, f, _)| c == "RL016" && f == gateway));
}

/// Case 72 (spring-petclinic api-gateway): the route `vets-service` (`uri:
/// lb://vets-service`) names another service than the spec's server
/// (`customers-service`), so the run's only spec is no reason to bind it: RL016 at
/// its `uri` naming both hosts, and `POST /owners` is reached only by the route
/// `customers-service`, which does not retry: no error.
#[test]
fn case72_route_host_names_another_service() {
    let o = check(&["72-route-host-names-another-service"]);
    let at = where_found(&o);
    assert!(
        !o.diagnostics.iter().any(|d| d.severity.as_str() == "error"),
        "{at:?}"
    );
    assert!(!at.iter().any(|(c, _, _)| c == "RL201" || c == "RL301"));
    let rl016: Vec<_> = o.diagnostics.iter().filter(|d| d.code == "RL016").collect();
    assert_eq!(rl016.len(), 1, "{at:?}");
    assert_eq!(line_col(rl016[0]), "8:15");
    assert!(
        rl016[0].message.contains("`vets-service`"),
        "{}",
        rl016[0].message
    );
    assert!(
        rl016[0].message.contains("`customers-service`"),
        "{}",
        rl016[0].message
    );
    let dir = repo().join("fixtures/cases/72-route-host-names-another-service");
    let (code, out, err) = common::retrylint_in(&dir, &["layers", "createOwner", "."]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("gateway layer: Spring Cloud Gateway route customers-service"),
        "{out}"
    );
    assert!(!out.contains("vets-service"), "{out}");
}

/// Case 63 (netbox-ip-controller): the spec's path and the call's URL both end in
/// `/`, and a trailing slash is kept on both sides: urllib3 `Retry(allowed_methods=
/// None)` retries `POST /api/ipam/ip-addresses/` on 502/503/504 and read errors with
/// no key: RL201 at the `Retry` (line 6), the call labelled (line 13). The GET is
/// retried too, with no RL201. (`/x` against `/x/` binds nothing: the unit test
/// `a_trailing_slash_is_significant` in `import::route`.)
#[test]
fn case63_trailing_slash_paths() {
    let o = check(&["63-trailing-slash-paths"]);
    let rl201: Vec<_> = o.diagnostics.iter().filter(|d| d.code == "RL201").collect();
    assert_eq!(rl201.len(), 1, "{:?}", where_found(&o));
    let d = rl201[0];
    assert_eq!(
        d.primary.location.file.display,
        "63-trailing-slash-paths/ipcontroller/netbox.py"
    );
    assert_eq!(
        d.primary
            .location
            .file
            .line_col(d.primary.location.span.start)
            .line,
        6
    );
    assert_eq!(
        d.operations,
        vec!["POST /api/ipam/ip-addresses/".to_string()]
    );
    let labels = label_lines(d);
    assert!(
        labels
            .iter()
            .any(|l| l.starts_with("63-trailing-slash-paths/ipcontroller/netbox.py:13 ")),
        "{labels:?}"
    );
    // The GET is bound (retried, without a deadline) too.
    assert!(o.diagnostics.iter().any(|d| d.code == "RL301"
        && d.operations
            .contains(&"GET /api/ipam/ip-addresses/".to_string())));
    assert!(!o.diagnostics.iter().any(|d| d.code == "RL016"));
}

/// Case 74 (dotnet/eShop, Aspire): the typed client's `BaseAddress`
/// (`https+http://ordering-api`) names the host of `api/openapi.yaml`'s server, so
/// `ConfigureHttpClientDefaults(... AddStandardResilienceHandler())` binds the call
/// `POST /api/orders` of `OrderingService` though the run holds two specs: RL201
/// at the handler, the call labelled; no RL016.
#[test]
fn case74_dotnet_typed_client_base_address() {
    let o = check(&["74-dotnet-typed-client-base-address"]);
    let at = where_found(&o);
    let rl201: Vec<_> = o.diagnostics.iter().filter(|d| d.code == "RL201").collect();
    assert_eq!(rl201.len(), 1, "{at:?}");
    let d = rl201[0];
    assert_eq!(d.operations, vec!["POST /api/orders".to_string()]);
    assert_eq!(
        d.primary.location.file.display,
        "74-dotnet-typed-client-base-address/src/Extensions.cs"
    );
    assert_eq!(line_col(d), "7:18");
    let labels = label_lines(d);
    assert!(
        labels.iter().any(|l| l.starts_with(
            "74-dotnet-typed-client-base-address/src/OrderingService.cs:8 "
        )),
        "{labels:?}"
    );
    assert!(!at.iter().any(|(c, _, _)| c == "RL016" || c == "RL209"));
    // Nothing of the other spec's operations.
    assert!(!o
        .diagnostics
        .iter()
        .any(|d| d.operations.iter().any(|op| op.contains("catalog"))));
}

/// Case 75 (dotnet/eShop): `ConfigureHttpClientDefaults` reaches only clients
/// `IHttpClientFactory` makes: the `new HttpClient()` of `MobileRequestProvider` and
/// the test-server client of `tests/CatalogApiTests.cs` are not retried by it, so
/// nothing but RL016 (the handler's calls are not seen) and exit 0.
#[test]
fn case75_dotnet_client_defaults_reach() {
    let o = check(&["75-dotnet-client-defaults-reach"]);
    let at = where_found(&o);
    assert!(at.iter().all(|(c, _, _)| c == "RL016"), "{at:?}");
    assert!(o.diagnostics.iter().all(|d| d.labels.is_empty()
        || !label_lines(d)
            .iter()
            .any(|l| l.contains("tests/") || l.contains("MobileRequestProvider"))));
    let dir = repo().join("fixtures/cases/75-dotnet-client-defaults-reach");
    let (code, out, err) = common::retrylint_in(&dir, &["check", "."]);
    assert_eq!(code, 0, "{out}{err}");
}

/// Case 58 (kubernetes/ingress-nginx#4174, #1512): the controller ConfigMap's
/// `retry-non-idempotent: "true"` is what lets nginx pass a POST to the next pod.
/// RL201 for the POST at the Ingress's `proxy-next-upstream` (6:5) with the
/// ConfigMap key (7:3 of its file) labelled; no RL201 for the GET.
#[test]
fn case58_ingress_nginx_configmap_origin() {
    let o = check(&["58-ingress-nginx-configmap-origin"]);
    let rl201: Vec<_> = o.diagnostics.iter().filter(|d| d.code == "RL201").collect();
    assert_eq!(rl201.len(), 1, "{:#?}", summary(&o));
    let d = rl201[0];
    assert_eq!(
        d.operations,
        vec!["POST /3gpp-nidd/v1/deliveries".to_string()]
    );
    assert_eq!(
        d.primary.location.file.display,
        "58-ingress-nginx-configmap-origin/k8s/ingress.yaml"
    );
    assert_eq!(line_col(d), "6:5");
    let cm = d
        .labels
        .iter()
        .find(|l| {
            l.location
                .file
                .display
                .ends_with("k8s/ingress-nginx-controller-configmap.yaml")
        })
        .unwrap_or_else(|| panic!("the ConfigMap key is labelled: {:#?}", d.labels));
    assert_eq!(cm.location.file.line_col(cm.location.span.start).line, 7);
    assert!(cm.message.contains("`POST`"), "{}", cm.message);
    let dir = repo().join("fixtures/cases/58-ingress-nginx-configmap-origin");
    let (code, out, err) = common::retrylint_in(&dir, &["check", "."]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("retry-non-idempotent"), "{out}");
}

/// Case 51 (digitalocean/netbox-ip-controller#14): a go-retryablehttp client built
/// into a local (`c := retryablehttp.NewClient(); c.RetryMax = 3`) and stored in a
/// struct field (`return &Client{http: c}`) is followed to the methods' calls
/// (`c.http.Do(req)`, `c.http.Get(..)`): RL201 for the POST at the client (16:7)
/// with the call site labelled (line 28), RL305, and no RL201 for the GET.
#[test]
fn case51_go_client_in_struct_field() {
    let o = check(&["51-go-client-in-struct-field"]);
    let rl201: Vec<_> = o.diagnostics.iter().filter(|d| d.code == "RL201").collect();
    assert_eq!(rl201.len(), 1, "{:#?}", summary(&o));
    let d = rl201[0];
    assert_eq!(
        d.operations,
        vec!["POST /api/ipam/ip-addresses".to_string()]
    );
    assert_eq!(
        d.primary.location.file.display,
        "51-go-client-in-struct-field/internal/netbox/client.go"
    );
    assert!(["16", "17"].contains(&line_col(d).split(':').next().unwrap_or("")));
    assert!(
        d.labels
            .iter()
            .any(|l| l.location.file.line_col(l.location.span.start).line == 28),
        "{:#?}",
        d.labels
    );
    let rl305 = of_code(&o, "RL305");
    assert_eq!(rl305.len(), 1, "{:#?}", summary(&o));
    assert!(rl305[0]
        .0
        .contains(&"POST /api/ipam/ip-addresses".to_string()));
    assert_eq!(of_code(&o, "RL016"), vec![], "{:#?}", summary(&o));

    // The same client stored by an assignment (`s.http = c`) is followed too.
    let case = repo().join("fixtures/cases/51-go-client-in-struct-field");
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::create_dir_all(dir.path().join("api")).expect("mkdir");
    std::fs::copy(
        case.join("api/openapi.yaml"),
        dir.path().join("api/openapi.yaml"),
    )
    .expect("copy");
    let go = std::fs::read_to_string(case.join("internal/netbox/client.go")).expect("read");
    let go = go.replace(
        "\treturn &Client{http: c}",
        "\ts := &Client{}\n\ts.http = c\n\treturn s",
    );
    assert!(go.contains("s.http = c"));
    std::fs::write(dir.path().join("client.go"), go).expect("write");
    let (code, out, err) = common::retrylint_in(dir.path(), &["check", "--root", ".", "."]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("RL201"), "{out}");
    assert!(!out.contains("RL016"), "{out}");
}

/// Case 76 (spring-petclinic-microservices api-gateway): a `CircuitBreaker` filter
/// listed before `Retry` in `default-filters` runs the retry loop inside the
/// Resilience4j TimeLimiter of instance `defaultCircuitBreaker` (the filter's
/// `name`): its `timeoutDuration: 3s` (line 28) is the deadline, so no RL301. With no
/// TimeLimiter configured, Resilience4j's default 1 s is, at the filter, with a note.
#[test]
fn case76_scg_circuit_breaker_time_limiter() {
    let o = check(&["76-scg-circuitbreaker-time-limiter"]);
    assert_eq!(of_code(&o, "RL301"), vec![], "{:#?}", summary(&o));
    let case = repo().join("fixtures/cases/76-scg-circuitbreaker-time-limiter");
    let (code, out, err) =
        common::retrylint_in(&case, &["import", "application.yml", "openapi.yaml"]);
    assert_eq!(code, 0, "{err}");
    let deadline = out
        .lines()
        .find(|l| l.trim_start().starts_with("deadline:"))
        .unwrap_or_else(|| panic!("a deadline: {out}"));
    assert!(
        deadline.contains("3s") && deadline.contains("application.yml:28:"),
        "{deadline}"
    );
    assert!(out.contains("defaultCircuitBreaker"), "{out}");

    // Without `resilience4j.timelimiter`: the 1 s default, at the filter (7:15).
    let dir = tempfile::tempdir().expect("a temporary folder");
    let yml = std::fs::read_to_string(case.join("application.yml")).expect("read");
    let cut = yml.find("resilience4j:").expect("the TimeLimiter block");
    std::fs::write(dir.path().join("application.yml"), &yml[..cut]).expect("write");
    std::fs::copy(case.join("openapi.yaml"), dir.path().join("openapi.yaml")).expect("copy");
    let (code, out, err) =
        common::retrylint_in(dir.path(), &["import", "application.yml", "openapi.yaml"]);
    assert_eq!(code, 0, "{err}");
    let deadline = out
        .lines()
        .find(|l| l.trim_start().starts_with("deadline:"))
        .unwrap_or_else(|| panic!("a deadline: {out}"));
    assert!(
        deadline.contains("1s") && deadline.contains("application.yml:7:15"),
        "{deadline}"
    );
    assert!(out.contains("the default 1 s"), "{out}");
    let (_, out, err) = common::retrylint_in(dir.path(), &["check", "--root", ".", "."]);
    assert!(!out.contains("RL301"), "{out}{err}");
}

/// `(code, "file:line:col")` of every finding, for the variant cases.
fn at_file(o: &CheckOutcome) -> Vec<(String, String)> {
    o.diagnostics
        .iter()
        .map(|d| {
            let file = d
                .primary
                .location
                .file
                .display
                .rsplit('/')
                .next()
                .unwrap_or("");
            (d.code.to_string(), format!("{file}:{}", line_col(d)))
        })
        .collect()
}

/// Case 79: two retry clients in two files call `POST /api/pay`. They are two
/// callers, so two variants of the client layer, each judged on its own: RL201 at
/// both, RL303 at b.py's 70 attempts whatever the file names, no RL311 between them
/// (layers.md item 6); each finding names the client it comes from; `layers` shows
/// both paths and `import b.py` prints b.py's translation.
#[test]
fn case79_second_client_is_judged_too() {
    let o = check(&["79-second-client-dropped"]);
    let f = at_file(&o);
    for want in [
        ("RL201", "a.py:3:2"),
        ("RL201", "b.py:3:2"),
        ("RL303", "b.py:3:32"),
    ] {
        assert!(
            f.contains(&(want.0.to_string(), want.1.to_string())),
            "{want:?}: {f:?}"
        );
    }
    assert!(!f.iter().any(|(c, _)| c == "RL311"), "{f:?}");
    assert!(!f
        .iter()
        .any(|(c, at)| c == "RL303" && at.starts_with("a.py")));
    let rl303 = o.diagnostics.iter().find(|d| d.code == "RL303").unwrap();
    assert!(
        rl303
            .help
            .as_deref()
            .is_some_and(|h| h.contains("path: client `79-second-client-dropped/b.py`")),
        "{:?}",
        rl303.help
    );

    // File names decide nothing: the 70-attempt client is judged under any name.
    let tmp = tempfile::tempdir().unwrap();
    let src = repo().join("fixtures/cases/79-second-client-dropped");
    for (from, to) in [
        ("a.py", "z.py"),
        ("b.py", "a.py"),
        ("openapi.yaml", "openapi.yaml"),
    ] {
        std::fs::copy(src.join(from), tmp.path().join(to)).unwrap();
    }
    let (code, out, err) = common::retrylint_in(tmp.path(), &["check", ".", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let found: Vec<(String, String, u64)> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["path"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(
        found.contains(&("RL303".into(), "a.py".into(), 3)),
        "{found:?}"
    );
    assert!(
        found.contains(&("RL201".into(), "z.py".into(), 3)),
        "{found:?}"
    );
    assert!(!found.iter().any(|(c, _, _)| c == "RL311"), "{found:?}");

    let (code, out, err) = common::retrylint_in(&src, &["layers", "POST /api/pay", "."]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("path 1 of 2: client `a.py`"), "{out}");
    assert!(out.contains("path 2 of 2: client `b.py`"), "{out}");
    let (code, out, err) = common::retrylint_in(&src, &["import", "b.py"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("attempts: 70"), "{out}");
}

/// Case 79b: two tenacity-decorated functions of one file call `POST /api/pay`: two
/// variants, each judged (RL303 for `pay2`'s 70 attempts), no RL311; `layers` and
/// `readiness` list both.
#[test]
fn case79b_second_client_in_the_same_file() {
    let o = check(&["79b-second-client-same-file"]);
    let f = at_file(&o);
    for want in [
        ("RL201", "one.py:3:2"),
        ("RL201", "one.py:5:2"),
        ("RL303", "one.py:5:32"),
    ] {
        assert!(
            f.contains(&(want.0.to_string(), want.1.to_string())),
            "{want:?}: {f:?}"
        );
    }
    assert!(!f.iter().any(|(c, _)| c == "RL311"), "{f:?}");
    assert_eq!(f.iter().filter(|(c, _)| c == "RL303").count(), 1, "{f:?}");
    let dir = repo().join("fixtures/cases/79b-second-client-same-file");
    let (code, out, err) = common::retrylint_in(&dir, &["layers", "POST /api/pay", "."]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("tenacity @retry pay (one.py)"), "{out}");
    assert!(out.contains("tenacity @retry pay2 (one.py)"), "{out}");
    assert_eq!(out.matches("  path ").count(), 2, "{out}");
    let (_, out, err) = common::retrylint_in(&dir, &["readiness", ".", "--format", "json"]);
    let json: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let rows: Vec<(i64, String)> = json["operations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["path"] == "/api/pay")
        .map(|r| {
            (
                r["amplification"].as_i64().unwrap(),
                r["variant"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(
        rows.iter().any(|(a, v)| *a == 3 && v.contains("pay")),
        "{rows:?}"
    );
    assert!(
        rows.iter().any(|(a, v)| *a == 70 && v.contains("pay2")),
        "{rows:?}"
    );
}

/// Case 73: a VirtualService bound to an ingress `Gateway` and the mesh
/// VirtualService of the same host are two entry paths, not a stack: no RL311,
/// readiness "3 x" per path, and `layers` shows each path.
#[test]
fn case73_istio_ingress_and_mesh_are_entry_paths() {
    let o = check(&["73-istio-ingress-and-mesh-entry-paths"]);
    assert!(
        !o.diagnostics.iter().any(|d| d.code == "RL311"),
        "{:?}",
        at_file(&o)
    );
    let dir = repo().join("fixtures/cases/73-istio-ingress-and-mesh-entry-paths");
    let (code, out, err) = common::retrylint_in(&dir, &["readiness", "."]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("GET /product/{id} [entry path: ingress gateway `frontend-gateway`]"),
        "{out}"
    );
    assert!(
        out.contains("GET /product/{id} [entry path: mesh]"),
        "{out}"
    );
    assert!(out.contains("gateway 3 x, 5s"), "{out}");
    assert!(out.contains("mesh 3 x, 5s"), "{out}");
    assert!(!out.contains("9 x"), "{out}");
    let (code, out, err) = common::retrylint_in(&dir, &["layers", "product", "."]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("path 1 of 2: entry path: ingress gateway `frontend-gateway`"),
        "{out}"
    );
    assert!(out.contains("path 2 of 2: entry path: mesh"), "{out}");
    assert!(!out.contains("= 9"), "{out}");
}
