//! What each subcommand prints and which exit code it returns.

pub mod plan;

use crate::check::{run, CheckOptions};
use crate::cli::{CheckArgs, Color, FailOn, Format, PlanArgs, PlanFormat, RulesArgs};
use crate::diagnostic::Severity;
use crate::report::{self, human::HumanOptions};
use crate::rules::REGISTRY;
use crate::source::loader::Limits;
use std::io::{IsTerminal, Write};

/// Exit code: could not lint.
pub const EXIT_ERROR: u8 = 2;

fn use_color(choice: Color, to_terminal: bool) -> bool {
    match choice {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => to_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    }
}

/// `retrylint check`: returns 0, 1 or 2 (see the catalog's exit-code rules).
pub fn check(args: &CheckArgs) -> u8 {
    if let Some(jobs) = args.jobs {
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs.max(1))
            .build_global();
    }
    let options = CheckOptions {
        paths: args.paths.clone(),
        policies: args.policies.clone(),
        root: args.root.clone(),
        limits: Limits {
            max_file_bytes: args.max_file_size,
            ..Limits::default()
        },
        ..CheckOptions::default()
    };
    let mut outcome = run(&options);
    let root = crate::check::report_root(&options);
    if let Some(path) = &args.write_baseline {
        let b = crate::baseline::of(&outcome.diagnostics, &root);
        if let Err(e) = std::fs::write(path, crate::baseline::render(&b)) {
            eprintln!(
                "retrylint: cannot write the baseline {}: {e}",
                path.display()
            );
            return EXIT_ERROR;
        }
    }
    if let Some(path) = &args.baseline {
        match crate::baseline::read(path) {
            Ok(b) => {
                outcome.diagnostics = crate::baseline::filter_new(
                    std::mem::take(&mut outcome.diagnostics),
                    &b,
                    &root,
                );
            }
            Err(e) => {
                eprintln!("retrylint: cannot read the baseline {e}");
                return EXIT_ERROR;
            }
        }
    }
    let to_terminal = args.output.is_none() && std::io::stdout().is_terminal();
    let text = match args.format {
        Format::Json => report::json::render(&outcome.diagnostics),
        Format::Sarif => report::sarif::render(&outcome.diagnostics, &root),
        Format::Github => report::github::render(&outcome.diagnostics),
        Format::Junit => report::junit::render(&outcome.diagnostics),
        Format::Gitlab => report::gitlab::render(&outcome.diagnostics, &root),
        Format::Human => {
            let color = use_color(args.color, to_terminal);
            let width = if to_terminal {
                terminal_width().unwrap_or(100)
            } else {
                100
            };
            let mut s = report::human::render(&outcome.diagnostics, HumanOptions { color, width });
            if args.verbose {
                for skipped in &outcome.skipped {
                    s.push_str(&format!(
                        "skipped {skipped}: neither an OpenAPI document nor a retry policy\n"
                    ));
                }
            }
            if args.show_suppressed {
                s.push_str(&report::suppressed_list(&outcome.suppressed));
            }
            s.push_str(&report::summary_line(
                &outcome.diagnostics,
                outcome.documents,
                outcome.policies,
            ));
            s.push('\n');
            s
        }
    };
    if args.show_suppressed && args.format != Format::Human {
        eprint!("{}", report::suppressed_list(&outcome.suppressed));
    }
    let written = match &args.output {
        Some(path) => std::fs::write(path, &text).map_err(|e| format!("{}: {e}", path.display())),
        None => std::io::stdout()
            .write_all(text.as_bytes())
            .map_err(|e| e.to_string()),
    };
    if let Err(e) = written {
        eprintln!("retrylint: cannot write the report: {e}");
        return EXIT_ERROR;
    }
    if outcome.could_not_lint {
        return EXIT_ERROR;
    }
    let threshold = match args.fail_on {
        FailOn::Error => Some(Severity::Error),
        FailOn::Warning => Some(Severity::Warning),
        FailOn::Info => Some(Severity::Info),
        FailOn::Never => None,
    };
    let failed = threshold.is_some_and(|t| outcome.diagnostics.iter().any(|d| d.severity >= t));
    u8::from(failed)
}

fn terminal_width() -> Option<usize> {
    std::env::var("COLUMNS").ok()?.parse().ok()
}

/// `retrylint rules`: the catalog.
pub fn rules(args: &RulesArgs) -> u8 {
    if args.json {
        let rows: Vec<serde_json::Value> = REGISTRY
            .iter()
            .map(|r| {
                serde_json::json!({
                    "code": r.meta.code,
                    "name": r.meta.name,
                    "severity": r.meta.severity.as_str(),
                    "question": r.meta.question,
                    "summary": r.meta.summary,
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&rows).expect("json"));
        return 0;
    }
    println!(
        "{:<7} {:<38} {:<8} {:<18} summary",
        "code", "name", "severity", "question"
    );
    for r in REGISTRY {
        println!(
            "{:<7} {:<38} {:<8} {:<18} {}",
            r.meta.code,
            r.meta.name,
            r.meta.severity.as_str(),
            r.meta.question.as_str(),
            r.meta.summary
        );
    }
    0
}

/// `retrylint plan`: prints the decision; exit 0, or 2 on bad input.
pub fn plan(args: &PlanArgs) -> u8 {
    if let Some(path) = &args.input {
        let text = if path.as_os_str() == "-" {
            let mut s = String::new();
            if let Err(e) = std::io::Read::read_to_string(&mut std::io::stdin(), &mut s) {
                eprintln!("retrylint: cannot read standard input: {e}");
                return EXIT_ERROR;
            }
            s
        } else {
            match std::fs::read_to_string(path) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("retrylint: cannot read {}: {e}", path.display());
                    return EXIT_ERROR;
                }
            }
        };
        return match plan::answer_json_text(&text) {
            Ok(lines) => {
                for l in lines {
                    println!("{l}");
                }
                0
            }
            Err(e) => {
                eprintln!("retrylint: {e}");
                EXIT_ERROR
            }
        };
    }
    let flags = plan::PlanFlags {
        method: args.method.clone(),
        status: args.status,
        transport_error: args.transport_error,
        attempt: args.attempt,
        now_ms: args.now_ms,
        deadline_ms: args.deadline_ms,
        base_ms: args.base_ms,
        cap_ms: args.cap_ms,
        max_attempts: args.max_attempts,
        random_unit: args.random_unit,
        retry_after_ms: args.retry_after_ms,
        retry_after: args.retry_after.clone(),
        idempotency_key: args.idempotency_key,
        status_endpoint: args.status_endpoint,
    };
    let decision = crate::retry::decide(&plan::input_from_flags(&flags));
    match args.format {
        PlanFormat::Json => println!("{}", plan::decision_json(&decision)),
        PlanFormat::Human => println!("{}", plan::decision_human(&decision)),
    }
    0
}
