//! Issue 42's rule, held for every importer that has conditions retrylint cannot
//! evaluate: such a condition reads as retrying (never "no retry"), and RL019 says
//! what was assumed. Each row of [`CASES`] is a fixture of
//! `fixtures/unknown_conditions/` whose only retry condition is code (or a value)
//! retrylint cannot evaluate, in front of a `POST /orders` without an idempotency
//! key: the run must report RL201 for that POST (the operation is read as retried)
//! and an RL019 naming the condition. A fixture without its own `api/` gets the
//! shared `fixtures/unknown_conditions/openapi.yaml`. The rows of [`REJECTED`] are
//! configs the platform rejects: those retry nothing, and RL017 says why.

mod common;

use std::path::{Path, PathBuf};

/// One importer's unknown condition.
struct Case {
    /// Folder under `fixtures/unknown_conditions/`.
    dir: &'static str,
    /// Text the RL019 message must hold: the condition as written.
    names: &'static str,
    /// Text the RL019 message must hold: what was assumed.
    assumed: &'static str,
    /// Signals RL201 must list for the POST: what the platform retries on with
    /// the condition true.
    retried_on: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        dir: "axios-retry",
        names: "shouldRetry",
        assumed: "may retry anything",
        retried_on: &["`reset`", "`timeout`", "`429`", "`5xx`"],
    },
    Case {
        dir: "tenacity",
        names: "is_bad",
        assumed: "may retry anything",
        retried_on: &["`reset`", "`timeout`", "`429`", "`5xx`"],
    },
    Case {
        dir: "backoff",
        names: "is_bad",
        assumed: "may retry anything",
        retried_on: &["`reset`", "`timeout`", "`429`", "`5xx`"],
    },
    Case {
        dir: "retryablehttp",
        names: "policy.ShouldRetry",
        assumed: "may retry anything",
        retried_on: &["`reset`", "`timeout`", "`429`", "`5xx`"],
    },
    Case {
        dir: "polly",
        names: "RetryRules.ShouldRetry",
        assumed: "may retry anything",
        retried_on: &["`reset`", "`timeout`", "`429`", "`5xx`"],
    },
    Case {
        dir: "spring-retry",
        names: "retryRules.shouldRetry",
        assumed: "assumed true",
        retried_on: &["`reset`", "`timeout`", "`4xx`", "`5xx`"],
    },
    Case {
        dir: "resilience4j",
        names: "RetryRules",
        assumed: "retry any exception",
        retried_on: &["`reset`", "`timeout`", "`4xx`", "`5xx`"],
    },
    Case {
        dir: "reqwest-retry",
        names: "RetryRules",
        assumed: "may retry anything",
        retried_on: &["`reset`", "`timeout`", "`429`", "`5xx`"],
    },
    Case {
        dir: "aiohttp-retry",
        names: "response_ok",
        assumed: "may retry anything",
        retried_on: &["`reset`", "`timeout`", "`429`", "`5xx`"],
    },
    Case {
        dir: "resty",
        names: "policy.ShouldRetry",
        assumed: "may retry anything",
        retried_on: &["`reset`", "`timeout`", "`429`", "`5xx`"],
    },
    Case {
        dir: "envoy",
        names: "x-upstream-retry",
        assumed: "every 5xx",
        retried_on: &["`5xx`"],
    },
];

/// A config the platform itself rejects: nothing of it is retried, RL017 names
/// why (the other half of issue 42's rule).
struct Rejected {
    /// Folder under `fixtures/unknown_conditions/`.
    dir: &'static str,
    /// Text the RL017 message must hold: what the platform rejects.
    names: &'static str,
}

const REJECTED: &[Rejected] = &[
    // Istio's `validateHTTPRetry` rejects a `retryOn` token it does not know.
    Rejected {
        dir: "istio-rejected",
        names: "retriable-future-thing",
    },
    // grpc-go and grpc-java fail to parse a service config naming an unknown
    // status code.
    Rejected {
        dir: "grpc-rejected",
        names: "SOMETHING_NEW",
    },
    // The same for a hedging policy's `nonFatalStatusCodes`: nothing is hedged.
    Rejected {
        dir: "grpc-hedging-rejected",
        names: "SOMETHING_NEW",
    },
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/unknown_conditions")
}

/// Copies `from` into `to`, recursively.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// `retrylint check . --format json` over a fresh copy of the case (with the
/// shared spec when it has none): (exit code, (code, message) of each finding).
fn run(dir_name: &str) -> (i32, Vec<(String, String)>) {
    let dir = std::env::temp_dir().join(format!(
        "retrylint-unknown-{}-{}",
        dir_name,
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    copy_dir(&root().join(dir_name), &dir);
    if !dir.join("api").exists() {
        std::fs::create_dir_all(dir.join("api")).unwrap();
        std::fs::copy(root().join("openapi.yaml"), dir.join("api/openapi.yaml")).unwrap();
    }
    let (code, out, err) = common::retrylint_in(&dir, &["check", ".", "--format", "json"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(code == 0 || code == 1, "{dir_name}: exit {code}; {err}");
    let json: serde_json::Value = serde_json::from_str(&out).expect("JSON report");
    let diags = json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or("").to_string(),
                d["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    (code, diags)
}

#[test]
fn a_condition_retrylint_cannot_evaluate_reads_as_retrying() {
    let mut failures = Vec::new();
    for case in CASES {
        let (code, diags) = run(case.dir);
        // The POST is read as retried: RL201 for it.
        let rl201 = diags.iter().any(|(c, m)| {
            c == "RL201"
                && m.contains("`POST /orders`")
                && case.retried_on.iter().all(|s| m.contains(s))
        });
        // RL019 names the condition and what was assumed.
        let rl019 = diags
            .iter()
            .any(|(c, m)| c == "RL019" && m.contains(case.names) && m.contains(case.assumed));
        if code != 1 || !rl201 || !rl019 {
            failures.push(format!(
                "{}: exit {code}, RL201 for the POST {rl201}, RL019 naming `{}` {rl019}\n{diags:#?}",
                case.dir, case.names
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_config_the_platform_rejects_retries_nothing() {
    let mut failures = Vec::new();
    for case in REJECTED {
        let (_, diags) = run(case.dir);
        let retried = diags
            .iter()
            .any(|(c, _)| matches!(c.as_str(), "RL201" | "RL207" | "RL301" | "RL401"));
        let rl017 = diags
            .iter()
            .any(|(c, m)| c == "RL017" && m.contains(case.names));
        if retried || !rl017 {
            failures.push(format!(
                "{}: read as retried {retried}, RL017 naming `{}` {rl017}\n{diags:#?}",
                case.dir, case.names
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
