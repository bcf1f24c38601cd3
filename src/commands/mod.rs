//! What each subcommand prints and which exit code it returns.

pub mod diff;
pub mod html_report;
pub mod import;
pub mod init;
pub mod layers;
pub mod plan;
pub mod policy_mode;
pub mod simulate;

use crate::check::{run, CheckOptions};
use crate::cli::{
    CheckArgs, Color, FailOn, Format, PlanArgs, PlanFormat, ReadinessArgs, ReadinessFormat,
    RuleArgs, RulesArgs, SimulateArgs, SimulateFormat,
};
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
        crate::deep_stack::set_threads(jobs);
    }
    // A small run (a spec and its policy) on this thread, starting no thread.
    let one_thread = match args.jobs {
        Some(jobs) => jobs == 1,
        None => crate::project::size::is_small(&args.paths, &args.policies, args.root.as_deref()),
    };
    if one_thread {
        return crate::deep_stack::run_on_this_thread(|| check_on_pool(args));
    }
    // On the deep-stack pool from start to end: each parallel step then splits on
    // the pool's threads, with no hand-over (a wake-up and a wait) per step, and
    // rayon's global pool is never started (pre-commit runs on one small file).
    crate::deep_stack::run(|| check_on_pool(args))
}

fn check_on_pool(args: &CheckArgs) -> u8 {
    let config = match load_config(args.config.as_deref(), &args.paths) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let mut rule_levels = config.rules.clone();
    if let Err(e) = crate::config::apply_cli(&mut rule_levels, &args.select, &args.ignore) {
        return fail(e);
    }
    let options = CheckOptions {
        paths: args.paths.clone(),
        policies: args.policies.clone(),
        root: args.root.clone(),
        limits: Limits {
            max_file_bytes: args.max_file_size,
            ..Limits::default()
        },
        thresholds: config.thresholds,
        rule_levels,
        filter: config.filter.clone(),
        related: true,
        services: config.services.clone(),
        platforms: config.platforms.clone(),
        ..CheckOptions::default()
    };
    let root = crate::check::report_root(&options);
    // `--baseline`, else the configuration's `baseline:` (not while recording one).
    let baseline_path = args.baseline.clone().or_else(|| {
        args.write_baseline
            .is_none()
            .then(|| config.baseline.clone())
            .flatten()
    });
    // The baseline is read before the run: the rules split grouped findings by it.
    let baseline = match baseline_path.as_deref().map(crate::baseline::read) {
        None => None,
        Some(Ok(b)) => Some(b),
        Some(Err(e)) => {
            eprintln!("retrylint: cannot use the baseline {e}");
            return EXIT_ERROR;
        }
    };
    let options = CheckOptions {
        split: baseline.as_ref().map(|b| crate::baseline::split(b, &root)),
        ..options
    };
    let mut outcome = crate::timing::phase("check", || run(&options));
    // Before `inputs` is taken below (the files a report must not overwrite).
    let read_nothing = outcome.inputs.is_empty();
    let mut inputs = with_config_file(std::mem::take(&mut outcome.inputs), &config);
    if let Some(e) = args
        .write_baseline
        .as_deref()
        .and_then(|p| overwrites_input("--write-baseline", p, &inputs))
    {
        return fail(e);
    }
    // `--output` must not replace the baseline either (`--write-baseline` may).
    inputs.extend(
        baseline_path
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok()),
    );
    if let Some(e) = args
        .output
        .as_deref()
        .and_then(|p| overwrites_input("--output", p, &inputs))
    {
        return fail(e);
    }
    // The report written over the baseline just recorded would leave no baseline.
    if let (Some(output), Some(baseline)) = (&args.output, &args.write_baseline) {
        if same_file_to_be(output, baseline) {
            return fail(format!(
                "--output {} names the file --write-baseline records; refusing to write the \
                 report over the baseline (choose another path)",
                output.display()
            ));
        }
    }
    if let Some(path) = &args.write_baseline {
        let b = crate::baseline::of(&outcome.diagnostics, &root);
        if let Err(e) = write_file(path, &crate::baseline::render(&b)) {
            eprintln!("retrylint: cannot write the baseline {e}");
            return EXIT_ERROR;
        }
        eprintln!(
            "retrylint: recorded {} finding(s) in the baseline {}",
            outcome.diagnostics.len(),
            path.display()
        );
    }
    if let (Some(b), Some(path)) = (&baseline, &baseline_path) {
        let before = outcome.diagnostics.len();
        // A file that could not be read is never accepted: an RL001 a baseline
        // recorded is still reported, so an exit 2 always says why.
        let (unreadable, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut outcome.diagnostics)
            .into_iter()
            .partition(|d| d.code == crate::rules::rl001_invalid_syntax::META.code);
        let filtered = crate::baseline::filter(rest, b, &root);
        outcome.diagnostics = filtered.new;
        outcome.diagnostics.extend(unreadable);
        crate::diagnostic::sort_and_dedup(&mut outcome.diagnostics);
        let hidden = before - outcome.diagnostics.len();
        if hidden > 0 {
            eprintln!(
                "retrylint: the baseline {} hid {hidden} finding(s) recorded earlier",
                path.display()
            );
        }
        // Named files see only part of the project: what did not occur may lie outside.
        let whole_project = args.paths.iter().all(|p| p.is_dir()) && args.policies.is_empty();
        if filtered.stale > 0 && whole_project {
            eprintln!(
                "retrylint: {} finding(s) recorded in the baseline {} no longer occur; record \
                 it again with `retrylint check --write-baseline {}` so they cannot come back \
                 unnoticed",
                filtered.stale,
                path.display(),
                path.display()
            );
        }
    }
    // A CI step pointed at the wrong folder must not pass unnoticed (the exit code
    // stays 0: no finding; ruff says the same on standard error). A run that read
    // something (`.proto` files alone, for binding gRPC configs) is not "nothing".
    let nothing = outcome.documents == 0 && outcome.policies == 0 && outcome.configs == 0;
    if nothing && read_nothing && !outcome.could_not_lint {
        eprintln!(
            "retrylint: warning: found no OpenAPI document, retry policy or retry config \
             to check; nothing was checked (run with --verbose to list the files skipped)"
        );
    }
    // Machine formats keep standard output to their format: what the read boundary
    // left out is said on standard error (the human format says it in its summary).
    if args.format != Format::Human && !outcome.left_out.is_empty() {
        if args.verbose {
            eprint!("{}", report::left_out_list(&outcome.left_out));
        }
        eprintln!(
            "retrylint: {} path(s) outside the project root left out, not read{}",
            outcome.left_out.len(),
            if args.verbose {
                ""
            } else {
                " (run with --verbose to list them)"
            }
        );
    }
    let to_terminal = args.output.is_none() && std::io::stdout().is_terminal();
    // JSON is written as it is serialised (a repository's report can be hundreds
    // of MB); the other formats are rendered whole, then written.
    if args.format == Format::Json {
        if args.show_suppressed {
            eprint!("{}", report::suppressed_list(&outcome.suppressed));
        }
        let written = crate::timing::phase("report", || {
            write_output_with(args.output.as_deref(), |out| {
                report::json::write(&outcome.diagnostics, out)
            })
        });
        if let Err(e) = written {
            return fail(format!("cannot write the report: {e}"));
        }
        return exit_code(&outcome, args, &config);
    }
    let text = crate::timing::phase("report", || match args.format {
        Format::Json => report::json::render(&outcome.diagnostics),
        Format::Sarif => {
            let sarif = report::sarif::emit(&outcome.diagnostics, &root, &Default::default());
            for note in &sarif.omitted {
                eprintln!("retrylint: SARIF output: {note}");
            }
            sarif.text
        }
        Format::Github => {
            let workspace = std::env::var_os("GITHUB_WORKSPACE");
            let base = report::github::base(workspace.as_deref(), &root);
            report::github::render(&outcome.diagnostics, &base)
        }
        Format::Junit => report::junit::render(&outcome.diagnostics),
        Format::Gitlab => report::gitlab::render(&outcome.diagnostics, &root),
        Format::Markdown => report::markdown::render(
            &outcome.diagnostics,
            report::markdown::Checked {
                documents: outcome.documents,
                policies: outcome.policies,
                configs: outcome.configs,
                left_out: outcome.left_out.len(),
            },
            &root,
            report::markdown::COMMENT_LIMIT,
        ),
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
                    // A template (Helm's `{{ }}`) is no config until it is rendered.
                    let template = std::fs::read_to_string(skipped)
                        .is_ok_and(|t| t.contains("{{") && t.contains("}}"));
                    let source =
                        crate::source::language::Language::of_path(std::path::Path::new(skipped))
                            .is_some();
                    s.push_str(&if let Some((path, why)) = skipped.split_once(": skipped: ") {
                        // A source file the code reader skipped says why itself.
                        format!("skipped {path}: {why}\n")
                    } else if source {
                        format!("skipped {skipped}: source code that cannot be read as UTF-8 text (binary, not UTF-8 or unreadable)\n")
                    } else if template {
                        format!("skipped {skipped}: a template, not yet YAML (render it first, e.g. `helm template`, and check the output)\n")
                    } else {
                        format!("skipped {skipped}: neither an OpenAPI document, a retry policy nor a retry config retrylint reads\n")
                    });
                }
            }
            if args.verbose {
                s.push_str(&report::left_out_list(&outcome.left_out));
            }
            if args.show_suppressed {
                s.push_str(&report::suppressed_list(&outcome.suppressed));
            }
            s.push_str(&report::summary_line(
                &outcome.diagnostics,
                outcome.documents,
                outcome.policies,
                outcome.configs,
                outcome.left_out.len(),
            ));
            s.push('\n');
            s
        }
    });
    if args.show_suppressed && args.format != Format::Human {
        eprint!("{}", report::suppressed_list(&outcome.suppressed));
    }
    if let Err(e) = crate::timing::phase("write", || write_output(args.output.as_deref(), &text)) {
        return fail(format!("cannot write the report: {e}"));
    }
    exit_code(&outcome, args, &config)
}

/// The exit code of a `check` whose report is written: 2 when some file could not be
/// linted, else 1 when a finding reaches the fail level (0 while recording a baseline).
fn exit_code(
    outcome: &crate::check::CheckOutcome,
    args: &CheckArgs,
    config: &crate::config::Config,
) -> u8 {
    if outcome.could_not_lint {
        return EXIT_ERROR;
    }
    // Recording a baseline adopts today's findings: the run that records them passes
    // (PHPStan's --generate-baseline and ESLint's suppressions do the same).
    if args.write_baseline.is_some() {
        return 0;
    }
    let threshold = fail_threshold(args.fail_on, config);
    let failed = threshold.is_some_and(|t| outcome.diagnostics.iter().any(|d| d.severity >= t));
    u8::from(failed)
}

fn terminal_width() -> Option<usize> {
    std::env::var("COLUMNS").ok()?.parse().ok()
}

/// The rule list as a Markdown table (the README's list is this, checked by a test).
pub fn rules_markdown_table() -> String {
    let mut out = String::from("| code | name | severity | question |\n|---|---|---|---|\n");
    for r in REGISTRY {
        out.push_str(&format!(
            "| [{}](rules/{}-{}.md) | `{}` | {} | {} |\n",
            r.meta.code,
            r.meta.code,
            r.meta.name,
            r.meta.name,
            r.meta.severity.as_str(),
            r.meta.question.as_str()
        ));
    }
    out
}

/// `retrylint rules`: the catalog.
pub fn rules(args: &RulesArgs) -> u8 {
    if args.markdown {
        print!("{}", rules_markdown_table());
        return 0;
    }
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
    if let (Some(policy), Some(operation)) = (&args.policy, &args.operation) {
        return plan_policy(args, policy, operation);
    }
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
    if let Some(note) = args.method.as_deref().and_then(plan::method_note) {
        eprintln!("retrylint: note: {note}");
    }
    let decision = crate::retry::decide(&plan::input_from_args(args));
    match args.format {
        PlanFormat::Json => println!("{}", plan::decision_json(&decision)),
        PlanFormat::Human => println!("{}", plan::decision_human(&decision)),
    }
    0
}

fn fail(message: impl std::fmt::Display) -> u8 {
    eprintln!("retrylint: {message}");
    EXIT_ERROR
}

/// The run's input files (canonical paths) and the configuration file it read.
fn with_config_file(
    mut inputs: Vec<std::path::PathBuf>,
    config: &crate::config::Config,
) -> Vec<std::path::PathBuf> {
    inputs.extend(
        config
            .path
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok()),
    );
    inputs
}

/// The message refusing `flag PATH` when `path` is one of `inputs` (canonical paths
/// of the files the run read: specs, policies, `$ref` targets, the configuration):
/// writing there would replace an input with a report. Paths are compared
/// canonicalised, so `./x.yaml`, `a/../x.yaml` and symbolic links are caught; a path
/// that does not exist yet is no input.
/// True when two paths to be written (either may not exist yet) name one file: their
/// folders' canonical paths (else the paths as given, made absolute) and file names
/// agree.
fn same_file_to_be(a: &std::path::Path, b: &std::path::Path) -> bool {
    let place = |p: &std::path::Path| {
        let absolute = std::env::current_dir().map_or_else(|_| p.to_path_buf(), |cwd| cwd.join(p));
        let parent = absolute
            .parent()
            .map(|d| std::fs::canonicalize(d).unwrap_or_else(|_| d.to_path_buf()));
        (parent, absolute.file_name().map(|n| n.to_os_string()))
    };
    place(a) == place(b)
}

fn overwrites_input(
    flag: &str,
    path: &std::path::Path,
    inputs: &[std::path::PathBuf],
) -> Option<String> {
    let canonical = std::fs::canonicalize(path).ok()?;
    inputs.contains(&canonical).then(|| {
        format!(
            "{flag} {} names a file this run reads as input; refusing to write over it \
             (choose another path)",
            path.display()
        )
    })
}

/// Writes `text` to `path`, creating its missing parent folders (`--output
/// reports/retrylint.sarif` in a fresh checkout). Errors name the path.
fn write_file(path: &std::path::Path, text: &str) -> Result<(), String> {
    replace_file(path, |out| out.write_all(text.as_bytes()))
}

/// Writes `path` (its folders made) whole or not at all: into a temporary file beside
/// it, renamed over `path` once every byte is written, so a full disk or an error
/// half-way leaves the old file (a baseline, a report) as it was, never a truncated
/// one. An existing file keeps its permissions; a new one gets those `File::create`
/// gives (0666 less the umask). Written in place instead (truncated, as
/// `File::create` does): a symbolic link (`/dev/stdout`, whose target may be the
/// very file a shell redirected stdout to; any other link, written through), a path
/// that is not a regular file (a FIFO, a device), a file with other hard links, and
/// a file in a folder where no temporary file can be made. Errors name the file.
fn replace_file(
    path: &std::path::Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), String> {
    let named = |e: std::io::Error| format!("{}: {e}", path.display());
    let existing = std::fs::symlink_metadata(path).ok();
    let replaceable = !existing
        .as_ref()
        .is_some_and(|m| !m.is_file() || shared_inode(m));
    let temp = if replaceable {
        let parent = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(std::path::Path::new("."));
        std::fs::create_dir_all(parent).map_err(named)?;
        let mut builder = tempfile::Builder::new();
        builder.prefix(".retrylint-").suffix(".tmp");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        match builder.tempfile_in(parent) {
            Ok(temp) => Some(temp),
            // A read-only folder may still hold a writable file.
            Err(e) if existing.is_some() && e.kind() == std::io::ErrorKind::PermissionDenied => {
                None
            }
            Err(e) => return Err(named(e)),
        }
    } else {
        None
    };
    let Some(mut temp) = temp else {
        let mut file = std::fs::File::create(path).map_err(named)?;
        let mut out = std::io::BufWriter::new(&mut file);
        write(&mut out).map_err(named)?;
        return out.flush().map_err(named);
    };
    if let Some(m) = &existing {
        // Exactly the old mode (the umask would narrow a 0666 file).
        temp.as_file()
            .set_permissions(m.permissions())
            .map_err(named)?;
    }
    {
        let mut out = std::io::BufWriter::new(temp.as_file_mut());
        write(&mut out).map_err(named)?;
        out.flush().map_err(named)?;
    }
    temp.persist(path).map_err(|e| named(e.error))?;
    Ok(())
}

/// A file with more than one hard link: replacing it would split the links.
fn shared_inode(meta: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        meta.nlink() > 1
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

/// Writes a report to `path` ([`replace_file`]) or to stdout through `write`, as it
/// is produced. Errors name the file.
fn write_output_with(
    path: Option<&std::path::Path>,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), String> {
    match path {
        Some(path) => replace_file(path, write),
        None => write(&mut std::io::stdout().lock()).map_err(|e| e.to_string()),
    }
}

fn write_output(path: Option<&std::path::Path>, text: &str) -> Result<(), String> {
    write_output_with(path, |out| out.write_all(text.as_bytes()))
}

/// The lowest severity that fails the run (exit 1): `--fail-on` when given, else the
/// configuration's `fail_on`, else error; `None` never fails.
fn fail_threshold(choice: Option<FailOn>, config: &crate::config::Config) -> Option<Severity> {
    match choice {
        Some(FailOn::Error) => Some(Severity::Error),
        Some(FailOn::Warning) => Some(Severity::Warning),
        Some(FailOn::Info) => Some(Severity::Info),
        Some(FailOn::Never) => None,
        None => config.fail_on.unwrap_or(Some(Severity::Error)),
    }
}

/// The options every reporting command derives from the configuration: its
/// thresholds, rule levels, `include`/`exclude`, `services:` and `platforms:`, with
/// the related files a full run would read.
fn configured_options(
    config: &crate::config::Config,
    paths: &[std::path::PathBuf],
    policies: &[std::path::PathBuf],
    root: Option<&std::path::Path>,
) -> CheckOptions {
    CheckOptions {
        paths: paths.to_vec(),
        policies: policies.to_vec(),
        root: root.map(std::path::Path::to_path_buf),
        thresholds: config.thresholds,
        rule_levels: config.rules.clone(),
        filter: config.filter.clone(),
        related: true,
        services: config.services.clone(),
        platforms: config.platforms.clone(),
        ..CheckOptions::default()
    }
}

/// Writes a report to `--output` (or standard output), refusing an output path that
/// is one of the run's `inputs` (see [`overwrites_input`]). The error is the exit
/// code, after the message is printed.
fn write_report(
    output: Option<&std::path::Path>,
    text: &str,
    inputs: &[std::path::PathBuf],
    what: &str,
) -> Result<(), u8> {
    if let Some(e) = output.and_then(|p| overwrites_input("--output", p, inputs)) {
        return Err(fail(e));
    }
    write_output(output, text).map_err(|e| fail(format!("cannot write the {what}: {e}")))
}

/// The current time in epoch ms (the one clock of the tool). Only the commands read
/// it: the decision functions take "now" as an input, so they stay reproducible.
/// `plan --policy` uses it unless `--now-ms` is given; `simulate` starts its t = 0
/// at it, so an HTTP-date Retry-After is measured from the real present (a past
/// date then means no extra wait, RFC 9110 §10.2.3), never from 1970.
fn wall_clock_epoch_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_millis() as f64)
}

/// `plan --policy FILE --operation SELECTOR`: the policy-mode decision.
fn plan_policy(args: &PlanArgs, policy: &std::path::Path, operation: &str) -> u8 {
    use crate::policy::duration::parse_duration;
    use crate::retry::{decide_policy, PolicyDecisionInput, Signal, SplitMix64};
    let (name, effective) =
        match policy_mode::effective_for(policy, operation, args.layer.as_deref()) {
            Ok(found) => found,
            Err(e) => return fail(e),
        };
    let Some(signal) = args.signal.as_deref() else {
        return fail("policy mode needs --signal (e.g. `timeout`, `connect-failure`, `503`)");
    };
    let signal: Signal = match signal.parse() {
        Ok(s) => s,
        Err(e) => return fail(format!("--signal: {e}")),
    };
    let elapsed_ms = match args.elapsed.as_deref().map(parse_duration) {
        None => 0.0,
        Some(Ok(ms)) => ms,
        Some(Err(e)) => return fail(format!("--elapsed: {e}")),
    };
    let attempt = match args.attempt {
        Some(a) if a >= 0.0 && a.fract() == 0.0 && a <= f64::from(u32::MAX) => a as u32,
        None => 0,
        Some(a) => return fail(format!("--attempt must be a non-negative integer, got {a}")),
    };
    let view = crate::policy_view::decision_view(&effective);
    let mut rng = SplitMix64::new(args.seed);
    let decision = decide_policy(
        &view,
        &PolicyDecisionInput {
            signal,
            attempt,
            elapsed_ms,
            retry_after: args.retry_after.as_deref(),
            now_epoch_ms: args.now_ms.unwrap_or_else(wall_clock_epoch_ms),
            previous_ms: args.previous_ms,
        },
        &mut || rng.next_unit(),
    );
    match args.format {
        PlanFormat::Json => println!("{}", plan::decision_json(&decision)),
        PlanFormat::Human => println!(
            "{name} ({} layer): {}",
            effective.layer.as_str(),
            plan::decision_human(&decision)
        ),
    }
    0
}

/// `retrylint simulate`: herd simulation of an operation's policy, or of the chain of
/// its layers (client -> gateway -> mesh) when several apply and `--layer` is not
/// given.
pub fn simulate(args: &SimulateArgs) -> u8 {
    use crate::cli::SimulateFailure;
    use crate::policy::duration::parse_duration;
    use crate::retry::{simulate_chain, ChainConfig, Failure};
    let (name, layers) =
        match policy_mode::layers_for(&args.policy, &args.operation, args.layer.as_deref()) {
            Ok(found) => found,
            Err(e) => return fail(e),
        };
    let outage_ms = match parse_duration(&args.outage) {
        Ok(ms) => ms,
        Err(e) => return fail(format!("--outage: {e}")),
    };
    // A duration becomes delay-seconds (rounded up); anything else is sent raw.
    let retry_after = args.retry_after.as_ref().map(|v| match parse_duration(v) {
        Ok(ms) => format!("{}", (ms / 1000.0).ceil() as u64),
        Err(_) => v.clone(),
    });
    let (failure, failing) = match (args.failure, args.attempt_ms) {
        (SimulateFailure::Status, None) => (Failure::Status { attempt_ms: 0.0 }, String::new()),
        (SimulateFailure::Status, Some(ms)) => (
            Failure::Status {
                attempt_ms: ms as f64,
            },
            format!(", 503 after {ms} ms"),
        ),
        (SimulateFailure::Timeout, None) => (
            Failure::Timeout,
            ", no answer (attempts time out)".to_owned(),
        ),
        (SimulateFailure::Timeout, Some(_)) => {
            return fail(
                "--attempt-ms is how long a 503 takes (--failure status); with --failure timeout an attempt lasts until the layer's attempt_timeout",
            )
        }
    };
    let config = ChainConfig {
        clients: args.clients,
        outage_ms,
        retry_after,
        start_epoch_ms: wall_clock_epoch_ms(),
        seed: args.seed,
        failure,
        layers: layers.iter().map(crate::policy_view::layer_view).collect(),
    };
    let report = match simulate_chain(&config) {
        Ok(r) => r,
        Err(e) => return fail(format!("{e}")),
    };
    match args.format {
        SimulateFormat::Json => {
            println!("{}", serde_json::to_string_pretty(&report).expect("json"))
        }
        SimulateFormat::Human => {
            let chain = match layers.as_slice() {
                [one] => format!("{} layer", one.layer.as_str()),
                many => many
                    .iter()
                    .map(|l| l.layer.as_str())
                    .collect::<Vec<_>>()
                    .join(" -> "),
            };
            println!(
                "{name} ({chain}), {} clients, outage {}{failing}",
                args.clients, args.outage
            );
            print!("{}", simulate::render_human(&report));
        }
    }
    0
}

/// `retrylint rule CODE|NAME`: prints the rule's documentation.
pub fn rule(args: &RuleArgs) -> u8 {
    let Some(rule) = crate::rules::find(&args.rule) else {
        let names: Vec<&str> = REGISTRY.iter().map(|r| r.meta.name).collect();
        let hint = crate::policy::parse::suggest(&args.rule, &names)
            .map(|s| format!(" (did you mean `{s}`?)"))
            .unwrap_or_default();
        return fail(format!(
            "no rule `{}`{hint}; `retrylint rules` lists them",
            args.rule
        ));
    };
    let meta = rule.meta;
    println!(
        "{} {} ({}, {})\n",
        meta.code,
        meta.name,
        meta.severity.as_str(),
        meta.question.as_str()
    );
    match crate::rules::docs::doc_for(meta.code) {
        Some(doc) => print!("{}", crate::rules::docs::body(doc)),
        None => println!("{}", meta.summary),
    }
    0
}

/// `retrylint readiness`: the per-endpoint matrix. Exit 0, or 2 when a file could
/// not be read (the matrix is still printed for the rest).
pub fn readiness(args: &ReadinessArgs) -> u8 {
    use crate::readiness::{matrix, render};
    let config = match load_config(args.config.as_deref(), &args.paths) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let options = configured_options(&config, &args.paths, &args.policies, args.root.as_deref());
    let (analyzed, diagnostics) = crate::check::run_full(&options);
    let inputs = with_config_file(analyzed.inputs.clone(), &config);
    let m = matrix(&analyzed, &diagnostics);
    let text = match args.format {
        ReadinessFormat::Table => render::table(&m),
        ReadinessFormat::Markdown => render::markdown(&m),
        ReadinessFormat::Json => render::json(&m),
    };
    if let Err(code) = write_report(args.output.as_deref(), &text, &inputs, "matrix") {
        return code;
    }
    for d in diagnostics.iter().filter(|d| d.code == "RL001") {
        let at = d
            .primary
            .location
            .file
            .line_col(d.primary.location.span.start);
        eprintln!(
            "{}:{}:{}: {} {}: {}",
            d.primary.location.file.display, at.line, at.column, d.code, d.name, d.message
        );
    }
    if analyzed.could_not_lint || diagnostics.iter().any(|d| d.code == "RL001") {
        EXIT_ERROR
    } else {
        0
    }
}

/// Reads the configuration (`--config`, else `.retrylint.yaml` found from the folder
/// holding every checked path up: [`crate::config::search_start`]). A configuration
/// error is printed like a diagnostic on standard error and is a usage error: `Err(2)`.
fn load_config(
    explicit: Option<&std::path::Path>,
    paths: &[std::path::PathBuf],
) -> Result<crate::config::Config, u8> {
    use crate::config::ConfigError;
    let cwd = std::env::current_dir().unwrap_or_default();
    let start = crate::config::search_start(paths, &cwd);
    match crate::config::load_from(explicit, &cwd, &start) {
        Ok(c) => Ok(c),
        Err(ConfigError::Io(e)) => Err(fail(e)),
        Err(ConfigError::Invalid(diags)) => {
            let color = use_color(Color::Auto, std::io::stderr().is_terminal());
            let text = report::human::render(&diags, HumanOptions { color, width: 100 });
            eprint!("{text}");
            eprintln!(
                "retrylint: the configuration is invalid ({} problem{}); nothing was checked",
                diags.len(),
                if diags.len() == 1 { "" } else { "s" }
            );
            Err(EXIT_ERROR)
        }
    }
}

/// `retrylint schema`: the JSON Schema of the retry-policy format.
pub fn schema() -> u8 {
    println!(
        "{}",
        serde_json::to_string_pretty(&crate::policy::schema::schema()).expect("json")
    );
    0
}

/// `retrylint completions SHELL`.
pub fn completions(args: &crate::cli::CompletionsArgs) -> u8 {
    use clap::CommandFactory;
    let mut cmd = crate::cli::Cli::command();
    clap_complete::generate(args.shell, &mut cmd, "retrylint", &mut std::io::stdout());
    0
}

#[cfg(test)]
mod tests {
    use super::replace_file;

    #[test]
    fn a_report_that_fails_half_way_leaves_the_old_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("reports/baseline.json");
        replace_file(&path, |out| out.write_all(b"old, whole")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old, whole");
        // A full disk half-way: the error names the file, the old text stays.
        let err = replace_file(&path, |out| {
            out.write_all(b"new, ha")?;
            Err(std::io::Error::new(
                std::io::ErrorKind::StorageFull,
                "disk full",
            ))
        })
        .unwrap_err();
        assert!(
            err.contains("baseline.json") && err.contains("disk full"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old, whole");
        // No temporary file is left beside it.
        let left: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["baseline.json"]);
        replace_file(&path, |out| out.write_all(b"new, whole")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new, whole");
        #[cfg(unix)]
        {
            use std::os::unix::fs::{symlink, PermissionsExt};
            // An existing file keeps its mode, private or not.
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
            replace_file(&path, |out| out.write_all(b"private")).unwrap();
            let kept = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(kept, 0o600);
            // A symbolic link is written through, never replaced (`/dev/stdout`).
            let link = dir.path().join("link.json");
            symlink(&path, &link).unwrap();
            replace_file(&link, |out| out.write_all(b"through")).unwrap();
            assert!(std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink());
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "through");
            // A file with another hard link keeps it.
            let hard = dir.path().join("hard.json");
            std::fs::hard_link(&path, &hard).unwrap();
            replace_file(&path, |out| out.write_all(b"both")).unwrap();
            assert_eq!(std::fs::read_to_string(&hard).unwrap(), "both");
            std::fs::remove_file(&hard).unwrap();
            std::fs::remove_file(&link).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
            let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode();
            std::fs::remove_file(&path).unwrap();
            replace_file(&path, |out| out.write_all(b"new")).unwrap();
            let created = dir.path().join("created.json");
            std::fs::File::create(&created).unwrap();
            assert_eq!(mode(&path), mode(&created), "the mode File::create gives");
        }
    }
}
