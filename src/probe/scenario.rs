//! Scenarios as data: what the fault server answers to each attempt of one client
//! (the last step repeats, so every script ends in a terminal answer), the herd size,
//! and whether the first connection is refused. Built-ins follow
//! `../shared/docs/probe-research.md` §4 (S01-S15); a YAML scenario file adds more
//! (`docs/commands/probe.md` "Scenario files").

use serde::{Deserialize, Serialize};

/// The Retry-After the server sends, as it renders on the wire.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RetryAfterForm {
    /// delay-seconds: `Retry-After: N`.
    Seconds(u64),
    /// An IMF-fixdate N seconds after the server's `Date` (judged absolutely).
    DateIn(u64),
    /// An IMF-fixdate one hour before the server's `Date` (means: retry now).
    PastDate,
    /// The value verbatim (invalid forms: `-5`, `1.5`, an RFC 3339 date, empty).
    Raw(String),
}

/// One answer of the script: what the server does with one attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Answer {
    /// A complete response with this status (and an optional Retry-After). A 2xx
    /// records the effect (or replays it for a known idempotency key); a 409 "in
    /// progress" and every other status records nothing.
    Status {
        /// The HTTP status code.
        status: u16,
        /// The Retry-After header, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_after: Option<RetryAfterForm>,
    },
    /// Read the whole request, record the effect, then reset the connection
    /// (`SO_LINGER` 0): the response is lost, the outcome unknown to the client.
    Reset,
    /// Read the whole request, record the effect, never answer.
    Hang,
    /// Record the effect, send the head at once, then the body one byte every
    /// 250 ms (past any read timeout the client has).
    SlowBody,
}

impl Answer {
    /// `Status` without Retry-After.
    pub const fn status(status: u16) -> Answer {
        Answer::Status {
            status,
            retry_after: None,
        }
    }

    /// Short label for reports: `503`, `429 RA=2`, `reset`, `hang`, `slow-body`.
    pub fn label(&self) -> String {
        match self {
            Answer::Status {
                status,
                retry_after: None,
            } => status.to_string(),
            Answer::Status {
                status,
                retry_after: Some(ra),
            } => match ra {
                RetryAfterForm::Seconds(s) => format!("{status} RA={s}"),
                RetryAfterForm::DateIn(s) => format!("{status} RA=date+{s}s"),
                RetryAfterForm::PastDate => format!("{status} RA=past-date"),
                RetryAfterForm::Raw(v) => format!("{status} RA={v:?}"),
            },
            Answer::Reset => "reset after body".into(),
            Answer::Hang => "hang".into(),
            Answer::SlowBody => "slow body".into(),
        }
    }

    /// True when the server processed the request (the effect happened): a 2xx, a
    /// reset after the body, a hang or a slow body.
    pub fn processes(&self) -> bool {
        match self {
            Answer::Status { status, .. } => (200..300).contains(status),
            Answer::Reset | Answer::Hang | Answer::SlowBody => true,
        }
    }
}

/// One scenario: a name, what it shows, and the script.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Kebab-case name (`storm-503`).
    pub name: String,
    /// One line: what the server does and what is checked.
    #[serde(default)]
    pub description: String,
    /// The answers to attempts 1, 2, ... of each client; the last one repeats.
    pub script: Vec<Answer>,
    /// How many copies of the client run at once (each against its own port).
    #[serde(default = "one")]
    pub herd: usize,
    /// The first connections are refused for this many ms (the port is bound but
    /// not listening): the refused-connection control, where a retry of any method
    /// is safe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refuse_first_ms: Option<u64>,
}

fn one() -> usize {
    1
}

/// The file form: `scenarios: [...]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioFile {
    scenarios: Vec<ScenarioEntry>,
}

/// One scenario as a file writes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioEntry {
    name: String,
    #[serde(default)]
    description: String,
    script: Vec<StepEntry>,
    #[serde(default = "one")]
    herd: usize,
    #[serde(default)]
    refuse_first_ms: Option<u64>,
}

/// One answer as a file writes it: `reset`, `hang`, `slow-body`, or
/// `{status: 429, retry_after: ...}`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum StepEntry {
    Word(String),
    Status {
        status: u16,
        #[serde(default)]
        retry_after: Option<RetryAfterEntry>,
    },
}

/// `retry_after:` a number of seconds, `"date+N"` (an IMF-fixdate N s ahead),
/// `"past-date"`, or any other text sent verbatim.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RetryAfterEntry {
    Seconds(u64),
    Text(String),
}

impl StepEntry {
    fn answer(self) -> Result<Answer, String> {
        match self {
            StepEntry::Word(w) => match w.as_str() {
                "reset" => Ok(Answer::Reset),
                "hang" => Ok(Answer::Hang),
                "slow-body" => Ok(Answer::SlowBody),
                other => Err(format!(
                    "unknown answer `{other}` (reset, hang, slow-body, or {{status: N}})"
                )),
            },
            StepEntry::Status {
                status,
                retry_after,
            } => {
                if !(100..=599).contains(&status) {
                    return Err(format!("`status: {status}` is not an HTTP status"));
                }
                let retry_after = retry_after.map(|ra| match ra {
                    RetryAfterEntry::Seconds(n) => RetryAfterForm::Seconds(n),
                    RetryAfterEntry::Text(t) if t == "past-date" => RetryAfterForm::PastDate,
                    RetryAfterEntry::Text(t) => {
                        match t.strip_prefix("date+").and_then(|n| n.parse().ok()) {
                            Some(n) => RetryAfterForm::DateIn(n),
                            None => RetryAfterForm::Raw(t),
                        }
                    }
                });
                Ok(Answer::Status {
                    status,
                    retry_after,
                })
            }
        }
    }
}

/// Herd size of the built-in herd scenario (`storm-503`) unless `--herd` says.
pub const DEFAULT_HERD: usize = 8;

/// Name of the scenario RL602 (synchronised retries) is judged on.
pub const STORM: &str = "storm-503";

/// Name of the refused-connection control.
pub const REFUSED: &str = "refused";

/// The built-in scenarios, in the order `--all` runs them.
pub fn builtins() -> Vec<Scenario> {
    use Answer::{Hang, Reset};
    let s = |name: &str, description: &str, script: Vec<Answer>| Scenario {
        name: name.into(),
        description: description.into(),
        script,
        herd: 1,
        refuse_first_ms: None,
    };
    let ra = |status: u16, form: RetryAfterForm| Answer::Status {
        status,
        retry_after: Some(form),
    };
    let ok = Answer::status(200);
    vec![
        s(
            "ra-seconds",
            "429 with Retry-After: 2, then 200: the retry waits 2 s",
            vec![ra(429, RetryAfterForm::Seconds(2)), ok.clone()],
        ),
        s(
            "ra-date",
            "429 with Retry-After as an IMF-fixdate 2 s ahead, then 200: judged absolutely",
            vec![ra(429, RetryAfterForm::DateIn(2)), ok.clone()],
        ),
        Scenario {
            herd: DEFAULT_HERD,
            ..s(
                STORM,
                "503 without Retry-After twice, then 200, to a herd: the retries spread",
                vec![Answer::status(503), Answer::status(503), ok.clone()],
            )
        },
        Scenario {
            herd: DEFAULT_HERD,
            ..s(
                "ra-503",
                "503 with Retry-After: 1 to a herd, then 200: every client waits at least 1 s",
                vec![ra(503, RetryAfterForm::Seconds(1)), ok.clone()],
            )
        },
        s(
            "ra-huge",
            "429 with Retry-After: 9999999: the client gives up or caps its wait",
            vec![ra(429, RetryAfterForm::Seconds(9_999_999)), ok.clone()],
        ),
        s(
            "ra-invalid",
            "429 with an RFC 3339 Retry-After (invalid): backoff or stop, never a long wait",
            vec![
                ra(429, RetryAfterForm::Raw("2015-10-21T07:28:00Z".into())),
                ok.clone(),
            ],
        ),
        s(
            "ra-past",
            "429 with a past HTTP-date: retry now, within the backoff",
            vec![ra(429, RetryAfterForm::PastDate), ok.clone()],
        ),
        s(
            "lost-response",
            "the request is processed, then the connection reset: no second effect",
            vec![Reset, Answer::status(201)],
        ),
        s(
            "hang",
            "the request is processed and never answered: the attempt is bounded, no second effect",
            vec![Hang, Answer::status(201)],
        ),
        s(
            "slow-body",
            "the head at once, the body one byte every 250 ms: the attempt is bounded, no second effect",
            vec![Answer::SlowBody, Answer::status(201)],
        ),
        s(
            "post-503",
            "503 without Retry-After, then 201: a write is repeated only with a stable key",
            vec![Answer::status(503), Answer::status(201)],
        ),
        Scenario {
            refuse_first_ms: Some(REFUSED_MS),
            ..s(
                REFUSED,
                "the first connection is refused, then 201: a retry is safe for any method (control)",
                vec![Answer::status(201)],
            )
        },
        s(
            "always-503",
            "503 forever: attempts and deadline bound the loop",
            vec![Answer::status(503)],
        ),
        s(
            "client-error",
            "400, then 200: a client error is not retried",
            vec![Answer::status(400), ok.clone()],
        ),
        s(
            "in-progress",
            "409 (in progress), then 201: a keyed retry with backoff and the same key",
            vec![Answer::status(409), Answer::status(201)],
        ),
    ]
}

/// How long the refused-connection control keeps its port closed, in ms.
pub const REFUSED_MS: u64 = 400;

/// Reads a scenario file: `scenarios:`, a list of `name`, `description`, `script`
/// (answers: `reset`, `hang`, `slow-body`, `{status: N, retry_after: ...}`), `herd`,
/// `refuse_first_ms` (docs/commands/probe.md "Scenario files"). Errors are sentences
/// naming the scenario.
pub fn parse_file(text: &str) -> Result<Vec<Scenario>, String> {
    let file: ScenarioFile =
        serde_yaml::from_str(text).map_err(|e| format!("invalid scenario file: {e}"))?;
    let mut out = Vec::new();
    for s in file.scenarios {
        if s.script.is_empty() {
            return Err(format!("scenario `{}`: `script` is empty", s.name));
        }
        if s.herd == 0 || s.herd > MAX_HERD {
            return Err(format!(
                "scenario `{}`: `herd` must be 1..={MAX_HERD}",
                s.name
            ));
        }
        let script = s
            .script
            .into_iter()
            .map(StepEntry::answer)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("scenario `{}`: {e}", s.name))?;
        out.push(Scenario {
            name: s.name,
            description: s.description,
            script,
            herd: s.herd,
            refuse_first_ms: s.refuse_first_ms,
        });
    }
    Ok(out)
}

/// The largest herd accepted (each copy is a process and a port).
pub const MAX_HERD: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_have_unique_names_and_nonempty_scripts() {
        let all = builtins();
        let mut names: Vec<_> = all.iter().map(|s| s.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len());
        assert!(all.iter().all(|s| !s.script.is_empty()));
    }

    #[test]
    fn a_scenario_file_reads_and_rejects_an_empty_script() {
        let text = "scenarios:\n  - name: ra-negative\n    script:\n      - {status: 429, retry_after: '-5'}\n      - {status: 429, retry_after: 2}\n      - {status: 429, retry_after: date+3}\n      - reset\n      - {status: 200}\n";
        let parsed = parse_file(text).unwrap();
        let ra = |form| Answer::Status {
            status: 429,
            retry_after: Some(form),
        };
        assert_eq!(
            parsed[0].script,
            [
                ra(RetryAfterForm::Raw("-5".into())),
                ra(RetryAfterForm::Seconds(2)),
                ra(RetryAfterForm::DateIn(3)),
                Answer::Reset,
                Answer::status(200)
            ]
        );
        assert!(parse_file("scenarios:\n  - name: x\n    script: []\n").is_err());
        assert!(parse_file("scenarios:\n  - name: x\n    script: [hang]\n    herd: 0\n").is_err());
        assert!(parse_file("scenarios:\n  - name: x\n    script: [explode]\n").is_err());
        assert!(parse_file("scenarios:\n  - name: x\n    script: [{status: 999}]\n").is_err());
    }
}
