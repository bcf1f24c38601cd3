//! `retrylint probe`: load the operation's effective policy as `check` does, run the
//! chosen scenarios concurrently against the client command (each on its own
//! loopback ports), judge each journal, infer the observed policy, report, and exit
//! 0/1/2 (2 also when the client never connected).

use super::{configured_options, fail, fail_threshold, load_config, write_output, EXIT_ERROR};
use crate::check::analyze;
use crate::cli::{ProbeArgs, ProbeFormat};
use crate::policy::duration::parse_duration;
use crate::probe::expect::{expectations, find_operation, key_headers, standalone, Operation};
use crate::probe::infer::{infer, policy_yaml};
use crate::probe::judge::{drift, judge};
use crate::probe::report::{human, json, junit, ProbeReport, ScenarioResult};
use crate::probe::run::{run_scenario, RunOptions, BASE_URL_ENV};
use crate::probe::scenario::{builtins, parse_file, Scenario, REFUSED};
use crate::write;
use std::net::{IpAddr, Ipv4Addr};

/// A duration flag in ms, or its default; the error names the flag.
fn duration(flag: &str, value: Option<&str>, default_ms: f64) -> Result<f64, String> {
    match value {
        None => Ok(default_ms),
        Some(text) => parse_duration(text).map_err(|e| format!("--{flag} `{text}`: {e}")),
    }
}

/// The scenarios to run: the named ones (built-ins and the scenario file's), else
/// all of them.
fn chosen(args: &ProbeArgs) -> Result<Vec<Scenario>, String> {
    let mut all = builtins();
    if let Some(path) = &args.scenario_file {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        for s in parse_file(&text).map_err(|e| format!("{}: {e}", path.display()))? {
            all.retain(|b| b.name != s.name);
            all.push(s);
        }
    }
    if args.scenario.is_empty() {
        return Ok(all);
    }
    args.scenario
        .iter()
        .map(|name| {
            all.iter()
                .find(|s| &s.name == name)
                .cloned()
                .ok_or_else(|| {
                    format!(
                        "unknown scenario `{name}` (one of: {})",
                        all.iter()
                            .map(|s| s.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                })
        })
        .collect()
}

/// The operation and its policy: with no path and no `--policy`, the operation
/// stands alone (safety checks only).
fn operation(args: &ProbeArgs) -> Result<Operation, u8> {
    if args.paths.is_empty() && args.policies.is_empty() {
        return standalone(&args.operation).map_err(fail);
    }
    let config = load_config(args.config.as_deref(), &args.paths)?;
    let analyzed = analyze(&configured_options(
        &config,
        &args.paths,
        &args.policies,
        args.root.as_deref(),
    ));
    let unreadable: Vec<_> = analyzed
        .diagnostics
        .iter()
        .filter(|d| d.code == "RL001" || d.code == "RL005")
        .collect();
    if let Some(d) = unreadable.first() {
        let l = &d.primary.location;
        let lc = l.file.line_col(l.span.start);
        return Err(fail(format!(
            "{}:{}:{}: {} {}: {}",
            l.file.display, lc.line, lc.column, d.code, d.name, d.message
        )));
    }
    find_operation(&analyzed, &args.operation).map_err(fail)
}

/// `retrylint probe`.
pub fn run(args: &ProbeArgs) -> u8 {
    if let Err(code) = super::check_root(args.root.as_deref()) {
        return code;
    }
    let times = (|| {
        Ok::<_, String>((
            match &args.deadline {
                Some(d) => Some(duration("deadline", Some(d), 0.0)?),
                None => None,
            },
            duration("wait-bound", args.wait_bound.as_deref(), 5_000.0)?,
            duration("grace", args.grace.as_deref(), 1_000.0)?,
            duration("epsilon", args.epsilon.as_deref(), 50.0)?,
            duration("time-limit", args.time_limit.as_deref(), 60_000.0)?,
        ))
    })();
    let (deadline, wait_bound, grace, epsilon, time_limit) = match times {
        Ok(t) => t,
        Err(e) => return fail(e),
    };
    let scenarios = match chosen(args) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let op = match operation(args) {
        Ok(op) => op,
        Err(code) => return code,
    };
    let fail_on = match load_config(args.config.as_deref(), &args.paths) {
        Ok(config) => fail_threshold(args.fail_on, &config),
        Err(code) => return code,
    };
    let exp = expectations(&op, deadline, wait_bound, epsilon, grace);
    let opts = RunOptions {
        bind: args.bind.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST)),
        key_headers: key_headers(&op),
        // A client quiet past both its Retry-After bound and its deadline (+ grace)
        // is waiting past anything worth waiting: ended, so no run waits 2015 s.
        idle_limit_ms: exp.wait_bound_ms.max(exp.deadline_ms.unwrap_or(0.0)) + exp.grace_ms,
        time_limit_ms: time_limit,
        herd: args.herd.map(usize::from),
    };
    // Every scenario at once, each on its own ports: the run takes as long as its
    // longest scenario.
    let runs: Vec<Result<_, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = scenarios
            .iter()
            .map(|s| {
                let opts = &opts;
                scope.spawn(move || run_scenario(s, &args.client, opts))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a scenario thread panicked".into()))
            })
            .collect()
    });
    let mut results = Vec::new();
    for (scenario, run) in scenarios.into_iter().zip(runs) {
        let run = match run {
            Ok(r) => r,
            Err(e) => return fail(e),
        };
        let findings = judge(&run.journal, &exp);
        results.push(ScenarioResult {
            scenario,
            journal: run.journal,
            findings,
            stderr_tail: run.stderr_tail,
        });
    }
    let journals: Vec<_> = results.iter().map(|r| r.journal.clone()).collect();
    let observed = infer(&journals);
    let run_findings: Vec<_> = exp
        .policy
        .as_ref()
        .and_then(|p| drift(&observed, p))
        .into_iter()
        .collect();
    let mut notes = Vec::new();
    if exp.deadline_ms.is_none() {
        notes.push(
            "the deadline check (RL605) was skipped: the policy has no deadline and no --deadline was given"
                .to_string(),
        );
    }
    let connected = results
        .iter()
        .filter(|r| r.scenario.name != REFUSED)
        .any(|r| !r.journal.attempts.is_empty())
        || results.iter().all(|r| r.scenario.name == REFUSED)
            && results.iter().any(|r| !r.journal.attempts.is_empty());
    let report = ProbeReport {
        version: 1,
        operation: op.name.clone(),
        policy: op.policy_source.clone(),
        observed_policy_yaml: policy_yaml(&observed, &op.name),
        scenarios: results,
        run_findings,
        observed_policy: observed,
        notes,
    };
    if let Some(path) = &args.observed_policy {
        if let Err(e) = write_output(Some(path), &report.observed_policy_yaml) {
            return fail(format!("cannot write `{}`: {}", e.path.display(), e.error));
        }
    }
    match args.format {
        ProbeFormat::Human => write::out(human(&report)),
        ProbeFormat::Json => write::outln(json(&report)),
        ProbeFormat::Junit => write::out(junit(&report)),
    }
    if !connected {
        write::errln(format_args!(
            "retrylint: the client never connected to the fault server: did it read {BASE_URL_ENV} (or `{{base_url}}`)?"
        ));
        return EXIT_ERROR;
    }
    let failing = fail_on.is_some_and(|t| report.findings().any(|f| f.severity >= t));
    u8::from(failing)
}
