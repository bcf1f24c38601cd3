//! `check --statistics`: how many findings each rule gave (one row per rule and
//! severity), most first, in place of the findings themselves (ruff's
//! `--statistics`). A first look at a large repository (552 RL011 blocks on the
//! Kubernetes spec) reads as one line per rule.

use crate::diagnostic::{Diagnostic, Severity};
use std::collections::BTreeMap;

/// One rule's share of the findings.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RuleCount {
    /// The rule's code (`RL201`).
    pub code: &'static str,
    /// The rule's name (`retried-post-without-key`).
    pub name: &'static str,
    /// The severity of these findings (a rule with findings of two severities has
    /// a row for each).
    pub severity: Severity,
    /// How many findings it gave.
    pub count: usize,
}

/// The findings counted per rule and severity (a rule's findings may differ in
/// severity: RL306 is an error where the layer retries a write): most findings
/// first, then by code, errors before warnings.
pub fn per_rule(diags: &[Diagnostic]) -> Vec<RuleCount> {
    let mut by_code: BTreeMap<(&'static str, std::cmp::Reverse<Severity>), RuleCount> =
        BTreeMap::new();
    for d in diags {
        by_code
            .entry((d.code, std::cmp::Reverse(d.severity)))
            .or_insert(RuleCount {
                code: d.code,
                name: d.name,
                severity: d.severity,
                count: 0,
            })
            .count += 1;
    }
    let mut counts: Vec<RuleCount> = by_code.into_values().collect();
    // Stable: equal counts stay in code order.
    counts.sort_by_key(|c| std::cmp::Reverse(c.count));
    counts
}

/// The human table: one line per rule, `COUNT  CODE  NAME  SEVERITY`, the counts
/// right-aligned and the names padded to one column.
pub fn render_human(counts: &[RuleCount]) -> String {
    let count_width = counts
        .iter()
        .map(|c| c.count.to_string().len())
        .max()
        .unwrap_or(1);
    let name_width = counts.iter().map(|c| c.name.len()).max().unwrap_or(0);
    let mut s = String::new();
    for c in counts {
        s.push_str(&format!(
            "{:>count_width$}  {}  {:<name_width$}  {}\n",
            c.count,
            c.code,
            c.name,
            c.severity.as_str()
        ));
    }
    if !counts.is_empty() {
        s.push('\n');
    }
    s
}

/// The JSON form: an array of `{code, name, severity, count}`, most findings first.
pub fn render_json(counts: &[RuleCount]) -> String {
    let mut s = serde_json::to_string_pretty(counts).unwrap_or_else(|_| "[]".to_owned());
    s.push('\n');
    s
}
