//! The probe section of `report --format html`: a probe run read back from
//! `retrylint probe --format json` (version 1), rendered as a table per scenario
//! (attempt, time, method, key, fault applied, gap, effect, verdict) followed by its
//! findings ("expected vs observed"), then the findings over the whole run.
//!
//! It reads the JSON rather than running a probe: the page is built offline, from a
//! probe CI already ran.

use super::journal::{Attempt, EffectRecord, Journal};
use super::measure::dur;
use super::scenario::Scenario;
use crate::report::html::escape;
use serde::Deserialize;
use std::fmt::Write as _;

/// The probe JSON format version this reader understands.
pub const PROBE_JSON_VERSION: u32 = 1;

/// The part of the probe JSON the page shows.
#[derive(Debug, Deserialize)]
struct ProbeJson {
    version: u32,
    operation: String,
    policy: Option<String>,
    scenarios: Vec<ScenarioJson>,
    #[serde(default)]
    run_findings: Vec<FindingJson>,
    #[serde(default)]
    notes: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct ScenarioJson {
    scenario: Scenario,
    journal: Journal,
    #[serde(default)]
    findings: Vec<FindingJson>,
}

#[derive(Debug, Deserialize)]
struct FindingJson {
    code: String,
    name: String,
    severity: String,
    message: String,
    expected: String,
    observed: String,
    client: Option<usize>,
    attempt: Option<usize>,
}

/// Renders the probe JSON `text` as one HTML `<section id="probe">`. Errors are
/// sentences: not JSON, not a probe report, or another format version.
pub fn section(text: &str) -> Result<String, String> {
    let p: ProbeJson = serde_json::from_str(text)
        .map_err(|e| format!("not a probe report (`retrylint probe --format json` output): {e}"))?;
    if p.version != PROBE_JSON_VERSION {
        return Err(format!(
            "probe report version {} (this retrylint reads version {PROBE_JSON_VERSION})",
            p.version
        ));
    }
    let mut out = String::new();
    let _ = write!(
        out,
        "<section id=\"probe\"><h2>Probe of {}</h2><p>{}</p>",
        escape(&p.operation),
        match &p.policy {
            Some(policy) => format!("Policy: <code>{}</code>", escape(policy)),
            None => "No policy: the safety checks only.".into(),
        }
    );
    for s in &p.scenarios {
        scenario(&mut out, s);
    }
    if !p.run_findings.is_empty() {
        out.push_str("<h3>Whole run</h3>");
        findings(&mut out, &p.run_findings);
    }
    if !p.notes.is_empty() {
        out.push_str("<ul class=\"probe-notes\">");
        for n in &p.notes {
            let _ = write!(out, "<li>{}</li>", escape(n));
        }
        out.push_str("</ul>");
    }
    out.push_str("</section>");
    Ok(out)
}

/// One scenario: its heading, the first client's timeline, how each client shown
/// ended, and the findings.
fn scenario(out: &mut String, s: &ScenarioJson) {
    let j = &s.journal;
    let clients = j.client_count();
    let herd = if clients > 1 {
        format!(", herd of {clients}")
    } else {
        String::new()
    };
    let _ = write!(
        out,
        "<h3 id=\"probe-{}\">{}{herd}</h3><p>{}</p>",
        escape(&s.scenario.name),
        escape(&s.scenario.name),
        escape(&s.scenario.description)
    );
    if let Some(ms) = j.refused_ms {
        let _ = write!(
            out,
            "<p>Connections refused for the first {ms} ms (not seen by the server).</p>"
        );
    }
    out.push_str("<table class=\"probe-timeline\"><thead><tr><th>#</th><th>t</th><th>method</th><th>key</th><th>fault applied</th><th>gap</th><th>effect</th><th>verdict</th></tr></thead><tbody>");
    let attempts = j.of_client(0);
    let mut prev: Option<&Attempt> = None;
    for a in &attempts {
        let gap = prev
            .and_then(|p| p.outcome_ms())
            .map_or("-".to_string(), |o| dur(a.t_ms - o));
        let key = a.key.as_ref().map_or("-", |(_, v)| v.as_str());
        let effect = match a.effect {
            EffectRecord::None => "-",
            EffectRecord::Recorded => "recorded",
            EffectRecord::Replayed => "replayed",
        };
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td><td>{gap}</td><td>{effect}</td><td>{}</td></tr>",
            a.index + 1,
            dur(a.t_ms),
            escape(&a.method),
            escape(key),
            escape(&a.answer.label()),
            verdict(&s.findings, a)
        );
        prev = Some(a);
    }
    out.push_str("</tbody></table>");
    if clients > 1 {
        let _ = write!(out, "<p>Client 1 of {clients} shown.</p>");
    }
    if let Some(end) = j.clients.iter().find(|e| e.client == 0) {
        let how = match (&end.killed, end.exit_code) {
            (Some(reason), _) => format!("ended by the probe ({})", escape(reason)),
            (None, Some(code)) => format!("exited {code}"),
            (None, None) => "ended by a signal".into(),
        };
        let _ = write!(out, "<p>The client {how} at {}.</p>", dur(end.ended_ms));
    }
    if s.findings.is_empty() {
        out.push_str("<p class=\"probe-ok\">ok</p>");
    } else {
        findings(out, &s.findings);
    }
}

/// The codes of the findings that point at attempt `a` of the first client (or at
/// no client), else `ok`.
fn verdict(findings: &[FindingJson], a: &Attempt) -> String {
    let codes: Vec<String> = findings
        .iter()
        .filter(|f| f.attempt == Some(a.index + 1) && f.client.unwrap_or(0) == a.client)
        .map(|f| {
            format!(
                "<span class=\"{}\">{}</span>",
                severity_class(&f.severity),
                escape(&f.code)
            )
        })
        .collect();
    if codes.is_empty() {
        "ok".into()
    } else {
        codes.join(" ")
    }
}

fn severity_class(severity: &str) -> &'static str {
    match severity {
        "error" => "error",
        "warning" => "warning",
        _ => "info",
    }
}

/// Findings as a list: severity, code, name, message, expected and observed.
fn findings(out: &mut String, list: &[FindingJson]) {
    out.push_str("<ul class=\"probe-findings\">");
    for f in list {
        let _ = write!(
            out,
            "<li><span class=\"{}\">{}[{}]</span> {}: {}<br>expected: {}<br>observed: {}</li>",
            severity_class(&f.severity),
            escape(&f.severity),
            escape(&f.code),
            escape(&f.name),
            escape(&f.message),
            escape(&f.expected),
            escape(&f.observed)
        );
    }
    out.push_str("</ul>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_json_and_other_versions_are_sentences() {
        assert!(section("{}").unwrap_err().contains("not a probe report"));
        assert!(section("not json").is_err());
        let v2 = r#"{"version":2,"operation":"x","policy":null,"scenarios":[]}"#;
        assert!(section(v2).unwrap_err().contains("version 2"));
    }
}
