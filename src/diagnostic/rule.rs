//! A rule's identity as every stage sees it: [`RuleMeta`] (code, name, default
//! severity, readiness question, summary) and the [`Question`] it serves. The
//! identities themselves are in [`super::catalog`].

use super::Severity;

/// Which readiness question a rule serves (docs/domain.md, "Readiness: the four
/// questions"), or `Input` for rules about reading the files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Question {
    /// RL0xx: the files can be read as meant.
    Input,
    /// Q1: which effect is repeated.
    Effect,
    /// Q2: why repeating it is safe.
    Safety,
    /// Q3: the time and attempt budget.
    Budget,
    /// Q4: what happens when the result is unknown.
    UnknownResult,
    /// RL5xx: the server contract in the OpenAPI document.
    ServerContract,
    /// RL6xx: behaviour observed on the wire by `retrylint probe` (never reported by
    /// `check`: the registry lists these rules without a check).
    Observed,
}

impl Question {
    /// Short human label.
    pub fn as_str(self) -> &'static str {
        match self {
            Question::Input => "input",
            Question::Effect => "Q1 effect",
            Question::Safety => "Q2 safety",
            Question::Budget => "Q3 budget",
            Question::UnknownResult => "Q4 unknown result",
            Question::ServerContract => "server contract",
            Question::Observed => "observed (probe)",
        }
    }
}

/// A rule's identity and defaults, declared once in [`super::catalog`].
#[derive(Debug, Clone, Copy)]
pub struct RuleMeta {
    /// `RLnnn`; never reused.
    pub code: &'static str,
    /// kebab-case name.
    pub name: &'static str,
    /// Default severity (for rules with two, the higher).
    pub severity: Severity,
    /// The readiness question served.
    pub question: Question,
    /// One line: what it reports.
    pub summary: &'static str,
}
