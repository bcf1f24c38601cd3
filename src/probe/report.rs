//! Probe output: human (a timeline per scenario, then its findings with "expected
//! (plan) vs observed", then the observed policy as v1 YAML), JSON with stable
//! fields, and JUnit (one test case per scenario, a failure per finding).

use super::infer::{policy_yaml, ObservedPolicy};
use super::journal::{Attempt, Journal};
use super::judge::ProbeFinding;
use super::measure::dur;
use super::scenario::Scenario;
use crate::report::controls::escape;
use crate::report::junit::xml_escape;
use serde::Serialize;

/// One scenario as run and judged.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioResult {
    /// The scenario.
    pub scenario: Scenario,
    /// What the server observed.
    pub journal: Journal,
    /// What the judge found.
    pub findings: Vec<ProbeFinding>,
    /// The last lines the first client wrote to standard error.
    pub stderr_tail: Vec<String>,
}

/// A whole probe run.
#[derive(Debug, Clone, Serialize)]
pub struct ProbeReport {
    /// Format version of the JSON output.
    pub version: u32,
    /// The operation (`POST /orders`).
    pub operation: String,
    /// Where its effective policy comes from; `null` without one.
    pub policy: Option<String>,
    /// The scenarios, in the order they were given.
    pub scenarios: Vec<ScenarioResult>,
    /// Findings over the whole run (RL609 drift of the observed policy).
    pub run_findings: Vec<ProbeFinding>,
    /// The policy the client follows, as observed.
    pub observed_policy: ObservedPolicy,
    /// The observed policy as a v1 policy file.
    pub observed_policy_yaml: String,
    /// Checks skipped and why, and other remarks.
    pub notes: Vec<String>,
}

impl ProbeReport {
    /// Every finding: per scenario, then the run's.
    pub fn findings(&self) -> impl Iterator<Item = &ProbeFinding> {
        self.scenarios
            .iter()
            .flat_map(|s| s.findings.iter())
            .chain(self.run_findings.iter())
    }
}

fn key_text(a: &Attempt) -> String {
    match &a.key {
        None => "-".into(),
        Some((_, v)) if v.chars().count() > 12 => {
            let short: String = v.chars().take(10).collect();
            format!("{}..", escape(&short))
        }
        Some((_, v)) => escape(v).into_owned(),
    }
}

fn timeline(out: &mut String, journal: &Journal) {
    let clients = journal.client_count();
    let shown = if clients > 1 { 1 } else { clients };
    out.push_str(
        "  #  t          method  key           answer                  gap        effect\n",
    );
    for c in 0..shown {
        let attempts = journal.of_client(c);
        let mut prev: Option<&Attempt> = None;
        for a in &attempts {
            let gap = prev
                .and_then(|p| p.outcome_ms())
                .map_or("-".to_string(), |o| dur(a.t_ms - o));
            out.push_str(&format!(
                "  {:<2} {:<10} {:<7} {:<13} {:<23} {:<10} {}\n",
                a.index + 1,
                dur(a.t_ms),
                escape(&a.method),
                key_text(a),
                a.answer.label(),
                gap,
                match a.effect {
                    super::journal::EffectRecord::None => "-",
                    super::journal::EffectRecord::Recorded => "recorded",
                    super::journal::EffectRecord::Replayed => "replayed",
                }
            ));
            prev = Some(a);
        }
    }
    if clients > 1 {
        out.push_str(&format!("  (client 1 of {clients} shown)\n"));
    }
    for end in journal.clients.iter().take(shown) {
        let how = match (&end.killed, end.exit_code) {
            (Some(reason), _) => format!("ended by the probe ({reason})"),
            (None, Some(code)) => format!("exited {code}"),
            (None, None) => "ended by a signal".into(),
        };
        out.push_str(&format!("  client {how} at {}\n", dur(end.ended_ms)));
    }
}

fn finding_lines(out: &mut String, f: &ProbeFinding) {
    out.push_str(&format!(
        "  {}[{}] {}: {}\n",
        f.severity.as_str(),
        f.code,
        f.name,
        escape(&f.message)
    ));
    out.push_str(&format!("      expected: {}\n", escape(&f.expected)));
    out.push_str(&format!("      observed: {}\n", escape(&f.observed)));
}

/// The human report.
pub fn human(r: &ProbeReport) -> String {
    let mut out = format!("probe {}", escape(&r.operation));
    match &r.policy {
        Some(p) => out.push_str(&format!(" (policy: {})\n", escape(p))),
        None => out.push_str(" (no policy: safety checks only)\n"),
    }
    for s in &r.scenarios {
        let herd = if s.journal.client_count() > 1 {
            format!(", herd of {}", s.journal.client_count())
        } else {
            String::new()
        };
        out.push_str(&format!(
            "\n{}{herd}: {}\n",
            s.scenario.name, s.scenario.description
        ));
        if let Some(ms) = s.journal.refused_ms {
            out.push_str(&format!(
                "  connections refused for the first {ms} ms (not seen by the server)\n"
            ));
        }
        if s.journal.attempts.is_empty() {
            out.push_str("  no attempt reached the server\n");
            for line in &s.stderr_tail {
                out.push_str(&format!("  | {}\n", escape(line)));
            }
        } else {
            timeline(&mut out, &s.journal);
        }
        if s.findings.is_empty() && !s.journal.attempts.is_empty() {
            out.push_str("  ok\n");
        }
        for f in &s.findings {
            finding_lines(&mut out, f);
        }
    }
    if !r.run_findings.is_empty() {
        out.push_str("\nwhole run:\n");
        for f in &r.run_findings {
            finding_lines(&mut out, f);
        }
    }
    out.push_str("\nobserved policy:\n");
    for line in r.observed_policy_yaml.lines() {
        out.push_str(&format!("  {line}\n"));
    }
    for n in &r.notes {
        out.push_str(&format!("\nnote: {n}\n"));
    }
    let (mut e, mut w, mut i) = (0, 0, 0);
    for f in r.findings() {
        match f.severity {
            crate::diagnostic::Severity::Error => e += 1,
            crate::diagnostic::Severity::Warning => w += 1,
            crate::diagnostic::Severity::Info => i += 1,
        }
    }
    out.push_str(&format!(
        "\n{} scenario(s): {e} error(s), {w} warning(s), {i} info\n",
        r.scenarios.len()
    ));
    out
}

/// The JSON report (pretty, stable field names: [`ProbeReport`]).
pub fn json(r: &ProbeReport) -> String {
    serde_json::to_string_pretty(r).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
}

/// JUnit XML: one test case per finding (named by its scenario and code), with its
/// `<failure>`, and one passing test case per clean scenario, so `tests` >=
/// `failures` as JUnit readers expect.
pub fn junit(r: &ProbeReport) -> String {
    let mut cases: Vec<(String, Option<&ProbeFinding>)> = Vec::new();
    for s in &r.scenarios {
        if s.findings.is_empty() {
            cases.push((s.scenario.name.clone(), None));
        }
        for f in &s.findings {
            cases.push((format!("{} {}", s.scenario.name, f.code), Some(f)));
        }
    }
    for f in &r.run_findings {
        cases.push((format!("observed-policy {}", f.code), Some(f)));
    }
    let failures = cases.iter().filter(|(_, f)| f.is_some()).count();
    let tests = cases.len().max(1);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"retrylint probe\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\">\n"
    ));
    out.push_str(&format!(
        "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\">\n",
        xml_escape(&r.operation)
    ));
    if cases.is_empty() {
        out.push_str("    <testcase classname=\"probe\" name=\"no scenario\"/>\n");
    }
    for (name, finding) in &cases {
        match finding {
            None => out.push_str(&format!(
                "    <testcase classname=\"probe\" name=\"{}\"/>\n",
                xml_escape(name)
            )),
            Some(f) => out.push_str(&format!(
                "    <testcase classname=\"probe\" name=\"{}\">\n      <failure type=\"{}\" message=\"{} {}: {}\">expected: {}&#10;observed: {}</failure>\n    </testcase>\n",
                xml_escape(name),
                f.code,
                f.code,
                f.name,
                xml_escape(&f.message),
                xml_escape(&f.expected),
                xml_escape(&f.observed)
            )),
        }
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// The observed policy YAML for `operation` (re-exported for the command).
pub fn observed_yaml(observed: &ObservedPolicy, operation: &str) -> String {
    policy_yaml(observed, operation)
}
