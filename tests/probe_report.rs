//! The probe's report formats over fixed journals (so the snapshots are stable):
//! the human timeline with "expected vs observed", the observed policy as v1 YAML,
//! JUnit and the JSON field names.

use retrylint::probe::infer::{infer, policy_yaml};
use retrylint::probe::journal::{Attempt, ClientEnd, EffectRecord, Journal};
use retrylint::probe::judge::{drift, judge, Expectations};
use retrylint::probe::report::{human, json, junit, ProbeReport, ScenarioResult};
use retrylint::probe::scenario::{builtins, Answer};
use retrylint::retry::{Effect, EffectivePolicyView, Jitter, RetryAfterPolicy, RetryOnEntry};

fn attempt(
    client: usize,
    index: usize,
    t_ms: f64,
    answer: Answer,
    effect: EffectRecord,
) -> Attempt {
    Attempt {
        client,
        index,
        t_ms,
        wall_ms: 1_767_225_600_000.0 + t_ms,
        method: "POST".into(),
        path: "/orders".into(),
        key: None,
        body_hash: 1,
        body_len: 2,
        answer,
        retry_after: None,
        date: None,
        answered_ms: Some(t_ms + 2.0),
        closed_ms: None,
        effect,
    }
}

fn ended(client: usize, ms: f64, killed: Option<&str>) -> ClientEnd {
    ClientEnd {
        client,
        exit_code: if killed.is_some() { None } else { Some(0) },
        ended_ms: ms,
        killed: killed.map(str::to_string),
    }
}

/// What curl 7.88 `--retry 3 --retry-all-errors` did in three scenarios (§5 of the
/// research, figures rounded).
fn curl_like() -> Vec<Journal> {
    use EffectRecord::{None as No, Recorded};
    let mut storm = Vec::new();
    for c in 0..4 {
        let skew = c as f64;
        storm.push(attempt(c, 0, 40.0 + skew, Answer::status(503), No));
        storm.push(attempt(c, 1, 1_045.0 + skew, Answer::status(503), No));
        storm.push(attempt(c, 2, 3_050.0 + skew, Answer::status(200), Recorded));
    }
    let mut invalid = attempt(0, 0, 30.0, Answer::status(429), No);
    invalid.retry_after = Some("2015-10-21T07:28:00Z".into());
    vec![
        Journal {
            scenario: "storm-503".into(),
            attempts: storm,
            clients: (0..4).map(|c| ended(c, 3_060.0, None)).collect(),
            refused_ms: None,
        },
        Journal {
            scenario: "lost-response".into(),
            attempts: vec![
                attempt(0, 0, 25.0, Answer::Reset, Recorded),
                attempt(0, 1, 1_037.0, Answer::status(201), Recorded),
            ],
            clients: vec![ended(0, 1_041.0, None)],
            refused_ms: None,
        },
        Journal {
            scenario: "ra-invalid".into(),
            attempts: vec![invalid],
            clients: vec![ended(0, 6_040.0, Some("idle"))],
            refused_ms: None,
        },
    ]
}

fn report(journals: Vec<Journal>, exp: &Expectations, policy: Option<&str>) -> ProbeReport {
    let all = builtins();
    let observed = infer(&journals);
    let run_findings = exp
        .policy
        .as_ref()
        .and_then(|p| drift(&observed, p))
        .into_iter()
        .collect();
    ProbeReport {
        version: 1,
        operation: "POST /orders".into(),
        policy: policy.map(str::to_string),
        observed_policy_yaml: policy_yaml(&observed, "POST /orders"),
        scenarios: journals
            .into_iter()
            .map(|j| ScenarioResult {
                scenario: all.iter().find(|s| s.name == j.scenario).unwrap().clone(),
                findings: judge(&j, exp),
                journal: j,
                stderr_tail: Vec::new(),
            })
            .collect(),
        run_findings,
        observed_policy: observed,
        notes: vec!["the deadline check (RL605) was skipped: the policy has no deadline and no --deadline was given".into()],
    }
}

#[test]
fn human_report_of_a_curl_like_client_without_policy() {
    let r = report(curl_like(), &Expectations::default(), None);
    insta::assert_snapshot!(human(&r));
}

#[test]
fn human_report_with_a_declared_full_jitter_policy_shows_drift() {
    let exp = Expectations {
        policy: Some(EffectivePolicyView {
            retry: true,
            effect: Effect::NonIdempotent,
            idempotency_key: true,
            retry_on: vec![RetryOnEntry::Status(503), RetryOnEntry::Reset],
            attempts: Some(4),
            deadline_ms: Some(5_000.0),
            base_ms: Some(100.0),
            cap_ms: Some(2_000.0),
            multiplier: 2.0,
            jitter: Some(Jitter::Full),
            retry_after: RetryAfterPolicy {
                honor: true,
                max_ms: Some(2_000.0),
                ..Default::default()
            },
            ..EffectivePolicyView::default()
        }),
        key_header: Some("Idempotency-Key".into()),
        deadline_ms: Some(5_000.0),
        wait_bound_ms: 2_000.0,
        ..Expectations::default()
    };
    let mut r = report(curl_like(), &exp, Some("shop.retry-policy.yaml"));
    r.notes.clear();
    let text = human(&r);
    assert!(
        text.contains("declared `jitter: full`, observed none"),
        "{text}"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn junit_has_a_failure_per_finding_and_a_case_per_clean_scenario() {
    let r = report(curl_like(), &Expectations::default(), None);
    let xml = junit(&r);
    let findings = r.findings().count();
    assert_eq!(xml.matches("<failure ").count(), findings);
    assert!(xml.contains(&format!("failures=\"{findings}\"")));
    insta::assert_snapshot!(xml);
}

#[test]
fn json_keeps_its_field_names() {
    let r = report(curl_like(), &Expectations::default(), None);
    let v: serde_json::Value = serde_json::from_str(&json(&r)).unwrap();
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "notes",
            "observed_policy",
            "observed_policy_yaml",
            "operation",
            "policy",
            "run_findings",
            "scenarios",
            "version"
        ]
    );
    let f = &v["scenarios"][0]["findings"][0];
    assert_eq!(f["code"], "RL602");
    for key in [
        "name", "severity", "scenario", "message", "expected", "observed",
    ] {
        assert!(f.get(key).is_some(), "{key} in {f}");
    }
    let a = &v["scenarios"][0]["journal"]["attempts"][0];
    for key in [
        "client", "index", "t_ms", "method", "path", "key", "answer", "effect",
    ] {
        assert!(a.get(key).is_some(), "{key} in {a}");
    }
}

/// The scenario file example of docs/commands/probe.md reads as documented.
#[test]
fn the_documented_scenario_file_parses() {
    let page = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/commands/probe.md"),
    )
    .unwrap();
    let start = page.find("```yaml\nscenarios:").expect("the example") + "```yaml\n".len();
    let end = start + page[start..].find("```").unwrap();
    let parsed = retrylint::probe::scenario::parse_file(&page[start..end]).unwrap();
    assert_eq!(parsed.len(), 2);
    assert_eq!(parsed[1].script[0], Answer::SlowBody);
}

#[test]
fn html_section_of_a_probe_json_has_a_timeline_per_scenario_and_the_findings() {
    let r = report(curl_like(), &Expectations::default(), None);
    let section = retrylint::probe::html::section(&json(&r)).expect("a probe JSON reads back");
    assert!(section.starts_with("<section id=\"probe\">"), "{section}");
    assert!(section.ends_with("</section>"));
    // One table per scenario, with the timeline's columns.
    assert_eq!(
        section.matches("<table class=\"probe-timeline\">").count(),
        r.scenarios.len()
    );
    for column in [
        "<th>#</th>",
        "<th>t</th>",
        "<th>method</th>",
        "<th>key</th>",
        "<th>fault applied</th>",
        "<th>gap</th>",
        "<th>verdict</th>",
    ] {
        assert!(section.contains(column), "{column}");
    }
    for s in &r.scenarios {
        assert!(
            section.contains(&format!("<h3 id=\"probe-{}\">", s.scenario.name)),
            "{}",
            s.scenario.name
        );
    }
    // Every finding is listed, and the attempt it points at carries its code.
    for f in r.findings() {
        assert!(
            section.contains(&format!("[{}]</span>", f.code)),
            "{}",
            f.code
        );
        assert!(section.contains(&retrylint::report::html::escape(&f.message)));
    }
    let pointed = r
        .scenarios
        .iter()
        .flat_map(|s| &s.findings)
        .find(|f| f.attempt.is_some())
        .expect("a finding on an attempt");
    assert!(
        section.contains(&format!("\">{}</span></td></tr>", pointed.code)),
        "{section}"
    );
    // Text from the journal is escaped.
    assert!(!section.contains("<script"));
}

#[test]
fn report_html_with_probe_adds_the_section_and_rejects_other_json() {
    let dir = tempfile::tempdir().unwrap();
    let probe_json = dir.path().join("probe.json");
    let r = report(curl_like(), &Expectations::default(), None);
    std::fs::write(&probe_json, json(&r)).unwrap();
    let shop = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/examples/shop");
    let run = |probe: &std::path::Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_retrylint"))
            .args(["report", "--format", "html", shop, "--probe"])
            .arg(probe)
            .output()
            .expect("retrylint runs")
    };
    let out = run(&probe_json);
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(page.contains("<section id=\"probe\"><h2>Probe of POST /orders</h2>"));
    assert!(page.contains("<table class=\"probe-timeline\">"));
    // Not a probe report: exit 2 and a sentence, no page.
    let other = dir.path().join("other.json");
    std::fs::write(&other, "{\"version\": 1}").unwrap();
    let out = run(&other);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a probe report"));
}
