//! What each subcommand prints and which exit code it returns.

pub mod diff;
pub mod html_report;
pub mod import;
pub mod import_routes;
pub mod init;
pub mod layers;
pub mod origin;
mod per_project;
pub mod plan;
pub mod policy_mode;
pub mod probe;
pub mod simulate;
pub mod stdin;

use crate::check::{run, CheckOptions, CheckOutcome};
use crate::cli::{
    CheckArgs, Color, FailOn, Format, PlanArgs, PlanFormat, ReadinessArgs, ReadinessFormat,
    RuleArgs, RulesArgs, SimulateArgs, SimulateFormat,
};
use crate::diagnostic::Severity;
use crate::report::{self, human::HumanOptions};
use crate::rules::REGISTRY;
use crate::source::loader::Limits;
use crate::write::{self, Target};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

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
    if let Err(code) = check_root(args.root.as_deref()) {
        return code;
    }
    let jobs = args.jobs.map(capped_jobs);
    if let Some(jobs) = jobs {
        crate::deep_stack::set_threads(jobs);
    }
    // A small run (a spec and its policy) on this thread, starting no thread.
    let one_thread = match jobs {
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

/// [`run`] once per project of the paths given, each with its own configuration
/// ([`per_project`]: named files of two services of a monorepo), the outcomes
/// merged; one run when the paths are of one project, or when standard input or
/// `--policy` files are part of the run. `--fail-on`, the baseline and the report
/// follow the configuration of the first path's project.
fn run_each_project(options: &CheckOptions, args: &CheckArgs) -> Result<CheckOutcome, u8> {
    if options.overlay.is_some() || !options.policies.is_empty() {
        return Ok(run(options));
    }
    // A folder below a walked folder that is a project of its own (a monorepo's
    // service with its own `.retrylint.yaml`, a `projects:` folder, a nested git work
    // tree) is checked as that project, with its configuration, as `check FILE` of
    // a file in it answers: its files are left out of the walk that found it and
    // queued here. With `--root` the run is one project, as before.
    let split = options.root.is_none();
    let asked_folders: Vec<PathBuf> = if options.paths.is_empty() {
        std::env::current_dir().ok().into_iter().collect()
    } else {
        options
            .paths
            .iter()
            .filter(|p| p.is_dir())
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .collect()
    };
    let groups = per_project::group_by_project(&options.paths, options.root.as_deref());
    let mut outcomes = Vec::with_capacity(groups.len());
    let mut nested: Vec<PathBuf> = Vec::new();
    let mut take = |outcome: CheckOutcome, nested: &mut Vec<PathBuf>| {
        // Only below a folder the run was asked about: a named file's project is
        // walked for context, and its nested projects are not the question.
        nested.extend(
            outcome
                .nested_projects
                .iter()
                .filter(|n| asked_folders.iter().any(|f| n.starts_with(f)))
                .cloned(),
        );
        outcomes.push(outcome);
    };
    if groups.len() < 2 {
        take(
            run(&CheckOptions {
                split_projects: split,
                ..options.clone()
            }),
            &mut nested,
        );
    } else {
        for group in groups {
            let outcome = run(&project_options(options, args, group, split)?);
            take(outcome, &mut nested);
        }
    }
    let mut done: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
    while let Some(project) = nested.pop() {
        if !done.insert(project.clone()) {
            continue;
        }
        let outcome = run(&project_options(options, args, vec![project], split)?);
        take(outcome, &mut nested);
    }
    if outcomes.len() == 1 {
        return Ok(outcomes.pop().unwrap_or_else(|| unreachable!()));
    }
    Ok(per_project::merge(outcomes))
}

/// The options of a run over `paths`, all of one project: its own configuration
/// (found from them, or `--config`), with the command line's rule selection.
fn project_options(
    options: &CheckOptions,
    args: &CheckArgs,
    paths: Vec<PathBuf>,
    split: bool,
) -> Result<CheckOptions, u8> {
    let config = load_config(args.config.as_deref(), &paths)?;
    let mut rule_levels = config.rules.clone();
    crate::config::apply_cli(&mut rule_levels, &args.select, &args.ignore).map_err(fail)?;
    Ok(CheckOptions {
        paths,
        thresholds: config.thresholds,
        rule_levels,
        filter: config.filter.clone(),
        services: config.services.clone(),
        platforms: config.platforms.clone(),
        split_projects: split,
        ..options.clone()
    })
}

/// `--jobs N` capped at the cores (with a note on standard error): a thread per core
/// is as fast as it gets, and each thread more costs its start and its deep stack
/// (`--jobs 1024` took 25 s on two files).
fn capped_jobs(asked: usize) -> usize {
    let cores = crate::deep_stack::cores();
    if asked <= cores {
        return asked;
    }
    write::errln(format_args!(
        "retrylint: note: --jobs {asked} is more than the {cores} core(s) here; using {cores}"
    ));
    cores
}

fn check_on_pool(args: &CheckArgs) -> u8 {
    // Refused before anything is read: the other formats are for machines that
    // want each finding.
    if args.statistics && !matches!(args.format, Format::Human | Format::Json) {
        return fail(format!(
            "--statistics works with --format human or json, not {}",
            clap::ValueEnum::to_possible_value(&args.format)
                .map(|v| v.get_name().to_owned())
                .unwrap_or_default()
        ));
    }
    let config = match load_config(args.config.as_deref(), &args.paths) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let mut rule_levels = config.rules.clone();
    if let Err(e) = crate::config::apply_cli(&mut rule_levels, &args.select, &args.ignore) {
        return fail(e);
    }
    // `-`: rendered manifests on standard input, checked with the current folder.
    let (paths, overlay) = if stdin::asks_for_stdin(&args.paths) {
        let cwd = std::env::current_dir().unwrap_or_default();
        match stdin::read(&args.paths, &cwd, args.max_file_size) {
            Ok(r) => (r.paths, Some(r.overlay)),
            Err(e) => return fail(e),
        }
    } else {
        (args.paths.clone(), None)
    };
    let options = CheckOptions {
        paths,
        overlay,
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
    if args.diff {
        return fix_diff(&options, args.unsafe_fixes);
    }
    if args.fix || args.unsafe_fixes {
        if let Err(code) = fix_files(&options, args.unsafe_fixes) {
            return code;
        }
    }
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
            write::errln(format_args!("retrylint: cannot use the baseline {e}"));
            return EXIT_ERROR;
        }
    };
    let options = CheckOptions {
        split: baseline.as_ref().map(|b| crate::baseline::split(b, &root)),
        ..options
    };
    let mut outcome = match crate::timing::phase("check", || run_each_project(&options, args)) {
        Ok(outcome) => outcome,
        Err(code) => return code,
    };
    // Helm templates of a chart are no YAML until rendered: said once, on standard
    // error (the report stays what the format promises), unless they were piped in.
    let templates = outcome
        .skipped
        .iter()
        .filter(|s| stdin::is_helm_template(s))
        .count();
    if templates > 0 && !stdin::asks_for_stdin(&args.paths) {
        write::errln(format_args!(
            "retrylint: note: {templates} Helm template{} not read (`{{{{ }}}}` is no YAML until rendered): render them and pipe the output: helm template . | retrylint check -",
            if templates == 1 { "" } else { "s" }
        ));
    }
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
    let output = Target::of(args.output.as_deref());
    if let Some(e) = output
        .file()
        .and_then(|p| overwrites_input("--output", p, &inputs))
    {
        return fail(e);
    }
    // The report written over the baseline just recorded would leave no baseline.
    if let (Some(output), Some(baseline)) = (output.file(), &args.write_baseline) {
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
            write::errln(format_args!("retrylint: cannot write the baseline {e}"));
            return EXIT_ERROR;
        }
        write::errln(format_args!(
            "retrylint: recorded {} finding(s) in the baseline {}",
            outcome.diagnostics.len(),
            path.display()
        ));
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
            write::errln(format_args!(
                "retrylint: the baseline {} hid {hidden} finding(s) recorded earlier",
                path.display()
            ));
        }
        // Named files see only part of the project: what did not occur may lie outside.
        let whole_project = args.paths.iter().all(|p| p.is_dir()) && args.policies.is_empty();
        if filtered.stale > 0 && whole_project {
            write::errln(format_args!(
                "retrylint: {} finding(s) recorded in the baseline {} no longer occur; record \
                 it again with `retrylint check --write-baseline {}` so they cannot come back \
                 unnoticed",
                filtered.stale,
                path.display(),
                path.display()
            ));
        }
    }
    // A CI step pointed at the wrong folder must not pass unnoticed (the exit code
    // stays 0: no finding; ruff says the same on standard error). A run that read
    // something (`.proto` files alone, for binding gRPC configs) is not "nothing".
    let nothing = outcome.documents == 0 && outcome.policies == 0 && outcome.configs == 0;
    if nothing && read_nothing && !outcome.could_not_lint {
        write::errln(format_args!(
            "retrylint: warning: found no OpenAPI document, retry policy or retry config \
             to check; nothing was checked{}",
            if args.verbose {
                ""
            } else {
                " (run with --verbose to list the files skipped)"
            }
        ));
    }
    // Machine formats keep standard output to their format: the files skipped
    // (`--verbose`) and what the read boundary left out are said on standard error
    // (the human format says them before its summary).
    if args.format != Format::Human && args.verbose {
        write::err(format_args!("{}", skipped_list(&outcome.skipped)));
    }
    if args.format != Format::Human && !outcome.left_out.is_empty() {
        if args.verbose {
            write::err(format_args!("{}", report::left_out_list(&outcome.left_out)));
        }
        write::errln(format_args!(
            "retrylint: {} path(s) outside the project root left out, not read{}",
            outcome.left_out.len(),
            if args.verbose {
                ""
            } else {
                " (run with --verbose to list them)"
            }
        ));
    }
    // One line per rule in place of the findings; the exit code is unchanged.
    if args.statistics {
        let counts = report::statistics::per_rule(&outcome.diagnostics);
        // The findings suppressions hid (`--show-suppressed`), where the report
        // lists them: before the summary, or on standard error beside JSON.
        let suppressed = report::suppressed_list(&outcome.suppressed);
        let text = match args.format {
            Format::Json => {
                if args.show_suppressed {
                    write::err(format_args!("{suppressed}"));
                }
                report::statistics::render_json(&counts)
            }
            _ => {
                let mut s = report::statistics::render_human(&counts);
                if args.show_suppressed {
                    s.push_str(&suppressed);
                }
                s.push_str(&summary_of(&outcome));
                s.push('\n');
                s
            }
        };
        if let Err(e) = write_output(output.file(), &text) {
            return fail(format!("cannot write the report: {e}"));
        }
        return exit_code(&outcome, args, &config);
    }
    let to_terminal = output.is_terminal();
    // JSON is written as it is serialised (a repository's report can be hundreds
    // of MB), and the human report finding by finding (below); the other formats
    // are rendered whole, then written.
    if args.format == Format::Json {
        if args.show_suppressed {
            write::err(format_args!(
                "{}",
                report::suppressed_list(&outcome.suppressed)
            ));
        }
        let written = crate::timing::phase("report", || {
            output.write(|out| report::json::write(&outcome.diagnostics, out))
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
                write::errln(format_args!("retrylint: SARIF output: {note}"));
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
                from_code: outcome.from_code,
                policies: outcome.policies,
                configs: outcome.configs,
                left_out: outcome.left_out.len(),
            },
            &root,
            report::markdown::COMMENT_LIMIT,
        ),
        Format::Human => {
            // The findings are rendered as they are written (below); this is the rest
            // of the report, after them.
            let mut s = String::new();
            if args.verbose {
                s.push_str(&skipped_list(&outcome.skipped));
            }
            if args.verbose {
                s.push_str(&report::left_out_list(&outcome.left_out));
            }
            if args.show_suppressed {
                s.push_str(&report::suppressed_list(&outcome.suppressed));
            }
            s.push_str(&summary_of(&outcome));
            s.push('\n');
            s
        }
    });
    if args.show_suppressed && args.format != Format::Human {
        write::err(format_args!(
            "{}",
            report::suppressed_list(&outcome.suppressed)
        ));
    }
    let written = crate::timing::phase("write", || match args.format {
        // Each finding is written as soon as it is rendered: the report of 50,000
        // findings is 70 MB of text, which a rendered string added to the run's peak
        // memory (issue 43).
        Format::Human => write_output_with(output.file(), |out| {
            let color = use_color(args.color, to_terminal);
            let width = if to_terminal {
                terminal_width().unwrap_or(100)
            } else {
                100
            };
            report::human::render_each(
                &outcome.diagnostics,
                HumanOptions { color, width },
                |finding| out.write_all(finding.as_bytes()),
            )?;
            out.write_all(text.as_bytes())
        }),
        _ => write_output(output.file(), &text),
    });
    if let Err(e) = written {
        return fail(format!("cannot write the report: {e}"));
    }
    exit_code(&outcome, args, &config)
}

/// The `--verbose` lines of the files a run skipped, one per file with why:
/// `skipped PATH: WHY` (a source file the code reader skipped, a file that is not
/// UTF-8, a Helm template, or YAML/JSON that is none of the kinds retrylint reads).
fn skipped_list(skipped: &[String]) -> String {
    skipped
        .iter()
        .map(|skipped| {
            // A template (Helm's `{{ }}`) is no config until it is rendered.
            let template = stdin::is_template(skipped);
            let source =
                crate::source::language::Language::of_path(std::path::Path::new(skipped))
                    .is_some();
            if let Some((path, why)) = skipped.split_once(": skipped: ") {
                // A source file the code reader skipped says why itself.
                format!("skipped {path}: {why}\n")
            } else if source {
                format!("skipped {skipped}: source code that cannot be read as UTF-8 text (binary, not UTF-8 or unreadable)\n")
            } else if template {
                format!("skipped {skipped}: a template, not yet YAML (render it first, e.g. `helm template`, and check the output)\n")
            } else {
                format!("skipped {skipped}: neither an OpenAPI document, a retry policy nor a retry config retrylint reads\n")
            }
        })
        .collect()
}

/// The human summary line of a run (`3 errors, 8 warnings, ...`).
fn summary_of(outcome: &crate::check::CheckOutcome) -> String {
    report::summary_line(
        &outcome.diagnostics,
        outcome.documents,
        outcome.from_code,
        outcome.policies,
        outcome.configs,
        outcome.left_out.len(),
    )
}

/// `check --diff`: the fixes as a unified diff on standard output, nothing written;
/// exit 1 when a file would change, 0 when none would, 2 when a file could not be
/// read (RL001: no fix is computed then).
fn fix_diff(options: &CheckOptions, unsafe_fixes: bool) -> u8 {
    let mode = crate::check::fix::FixMode {
        unsafe_fixes,
        write: false,
    };
    let done = crate::check::fix::fix(options, mode);
    if done.refused {
        for line in &done.unreadable {
            write::errln(format_args!("retrylint: {line}"));
        }
        write::errln(
            "retrylint: a file could not be read or parsed (RL001); no fix computed \
             (run `retrylint check` to see it)",
        );
        return EXIT_ERROR;
    }
    for changed in done.changed.values() {
        write::out(crate::fix::diff::unified(
            &changed.display,
            &changed.before,
            &changed.after,
        ));
    }
    write::errln(format_args!(
        "retrylint: {} fix(es) would change {} file(s){}",
        done.applied,
        done.changed.len(),
        unsafe_note(done.unsafe_left)
    ));
    u8::from(!done.changed.is_empty())
}

/// `check --fix`: applies the fixes and says what it did on standard error; the
/// check that follows reports what remains. `Err(2)` when a file could not be
/// written.
fn fix_files(options: &CheckOptions, unsafe_fixes: bool) -> Result<(), u8> {
    let mode = crate::check::fix::FixMode {
        unsafe_fixes,
        write: true,
    };
    let done = crate::check::fix::fix(options, mode);
    if done.refused {
        write::errln("retrylint: a file could not be read or parsed (RL001); no file was fixed");
        return Ok(());
    }
    for e in &done.errors {
        write::errln(format_args!("retrylint: cannot write the fixed file {e}"));
    }
    write::errln(format_args!(
        "retrylint: applied {} fix(es) to {} file(s){}",
        done.applied,
        done.changed.len(),
        unsafe_note(done.unsafe_left)
    ));
    if done.errors.is_empty() {
        Ok(())
    } else {
        Err(EXIT_ERROR)
    }
}

/// `; N more with --unsafe-fixes` when unsafe fixes were left out.
fn unsafe_note(left: usize) -> String {
    if left == 0 {
        String::new()
    } else {
        format!("; {left} unsafe fix(es) left out (apply them with --unsafe-fixes)")
    }
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
    let mut out =
        String::from("| code | name | severity | question | fix |\n|---|---|---|---|---|\n");
    for r in REGISTRY {
        out.push_str(&format!(
            "| [{}](rules/{}-{}.md) | `{}` | {} | {} | {} |\n",
            r.meta.code,
            r.meta.code,
            r.meta.name,
            r.meta.name,
            r.meta.severity.as_str(),
            r.meta.question.as_str(),
            fix_class(r)
        ));
    }
    out
}

/// `retrylint rules`: the catalog.
pub fn rules(args: &RulesArgs) -> u8 {
    if args.markdown {
        write::out(rules_markdown_table());
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
                    "fix": r.fix.as_ref().map(|f| f.safety.as_str()),
                    "fix_changes": r.fix.as_ref().map(|f| f.changes),
                })
            })
            .collect();
        write::outln(format_args!(
            "{}",
            serde_json::to_string_pretty(&rows).expect("json")
        ));
        return 0;
    }
    write::outln(format_args!(
        "{:<7} {:<38} {:<8} {:<18} {:<6} summary",
        "code", "name", "severity", "question", "fix"
    ));
    for r in REGISTRY {
        write::outln(format_args!(
            "{:<7} {:<38} {:<8} {:<18} {:<6} {}",
            r.meta.code,
            r.meta.name,
            r.meta.severity.as_str(),
            r.meta.question.as_str(),
            fix_class(r),
            r.meta.summary
        ));
    }
    0
}

/// A rule's fix class as `retrylint rules` shows it: `safe`, `unsafe`, or `-` (no
/// fix).
fn fix_class(rule: &crate::rules::Rule) -> &'static str {
    rule.fix.as_ref().map_or("-", |f| f.safety.as_str())
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
                write::errln(format_args!("retrylint: cannot read standard input: {e}"));
                return EXIT_ERROR;
            }
            s
        } else {
            match std::fs::read_to_string(path) {
                Ok(s) => s,
                Err(e) => {
                    write::errln(format_args!(
                        "retrylint: cannot read {}: {e}",
                        path.display()
                    ));
                    return EXIT_ERROR;
                }
            }
        };
        return match plan::answer_json_text(&text) {
            Ok(lines) => {
                for l in lines {
                    write::outln(&l);
                }
                0
            }
            Err(e) => {
                write::errln(format_args!("retrylint: {e}"));
                EXIT_ERROR
            }
        };
    }
    if let Some(note) = args.method.as_deref().and_then(plan::method_note) {
        write::errln(format_args!("retrylint: note: {note}"));
    }
    let decision = crate::retry::decide(&plan::input_from_args(args));
    match args.format {
        PlanFormat::Json => write::outln(plan::decision_json(&decision)),
        PlanFormat::Human => write::outln(plan::decision_human(&decision)),
    }
    0
}

fn fail(message: impl std::fmt::Display) -> u8 {
    write::errln(format_args!("retrylint: {message}"));
    EXIT_ERROR
}

/// `--root DIR` must name a folder that exists: a mistyped root would leave every
/// file "outside the project root" and pass with nothing checked (a green CI step),
/// and a file as the root would leave out everything beside it. A usage error, like
/// a missing `--config` file: one line on standard error, `Err(2)`.
fn check_root(root: Option<&std::path::Path>) -> Result<(), u8> {
    let Some(root) = root else {
        return Ok(());
    };
    if root.is_dir() {
        return Ok(());
    }
    let why = if root.exists() {
        "is not a folder"
    } else {
        "does not exist"
    };
    Err(fail(format!(
        "project root `{}` (--root) {why}",
        root.display()
    )))
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

/// Writes `text` to `path` whole or not at all, creating its missing parent folders
/// (`--output reports/retrylint.sarif` in a fresh checkout). Errors name the path.
fn write_file(path: &std::path::Path, text: &str) -> Result<(), write::FileError> {
    write::replace_file(path, |out| out.write_all(text.as_bytes()))
}

/// Writes a report to the `-o` target through `write`, as it is produced: a file
/// ([`write::replace_file`], whose error names it) or standard output (whose failure
/// [`write::finish`] reports).
fn write_output_with(
    path: Option<&std::path::Path>,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), write::FileError> {
    Target::of(path).write(write)
}

fn write_output(path: Option<&std::path::Path>, text: &str) -> Result<(), write::FileError> {
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

/// Writes a report to `--output` (or standard output: none, or `-`), refusing an output path that
/// is one of the run's `inputs` (see [`overwrites_input`]). The error is the exit
/// code, after the message is printed.
fn write_report(
    output: Option<&std::path::Path>,
    text: &str,
    inputs: &[std::path::PathBuf],
    what: &str,
) -> Result<(), u8> {
    if let Some(e) = Target::of(output)
        .file()
        .and_then(|p| overwrites_input("--output", p, inputs))
    {
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
        PlanFormat::Json => write::outln(plan::decision_json(&decision)),
        PlanFormat::Human => write::outln(format_args!(
            "{name} ({} layer): {}",
            effective.layer.as_str(),
            plan::decision_human(&decision)
        )),
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
        SimulateFormat::Json => write::outln(format_args!(
            "{}",
            serde_json::to_string_pretty(&report).expect("json")
        )),
        SimulateFormat::Human => {
            let chain = match layers.as_slice() {
                [one] => format!("{} layer", one.layer.as_str()),
                many => many
                    .iter()
                    .map(|l| l.layer.as_str())
                    .collect::<Vec<_>>()
                    .join(" -> "),
            };
            write::outln(format_args!(
                "{name} ({chain}), {} clients, outage {}{failing}",
                args.clients, args.outage
            ));
            write::out(simulate::render_human(&report));
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
    write::outln(format_args!(
        "{} {} ({}, {})\n",
        meta.code,
        meta.name,
        meta.severity.as_str(),
        meta.question.as_str()
    ));
    match crate::rules::docs::doc_for(meta.code) {
        Some(doc) => write::out(crate::rules::docs::body(doc)),
        None => write::outln(meta.summary),
    }
    0
}

/// `retrylint readiness`: the per-endpoint matrix. Exit 0, or 2 when a file could
/// not be read (the matrix is still printed for the rest).
pub fn readiness(args: &ReadinessArgs) -> u8 {
    use crate::readiness::{matrix, render};
    if let Err(code) = check_root(args.root.as_deref()) {
        return code;
    }
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
    // A deployment repository with no spec: an empty matrix says nothing of the
    // retries it holds.
    if m.operations.is_empty() && !analyzed.unbound_routes.is_empty() {
        let n = analyzed.unbound_routes.len();
        write::errln(format_args!(
            "retrylint: no operation to show: no OpenAPI document or server code describes the API, and {n} retrying {} bind nothing; `retrylint import FILE` shows what a config retries, `retrylint layers 'METHOD /path'` the routes one request would take, and `check` judges each route (RL209)",
            if n == 1 { "route" } else { "routes" }
        ));
    }
    for d in diagnostics.iter().filter(|d| d.code == "RL001") {
        let at = d
            .primary
            .location
            .file
            .line_col(d.primary.location.span.start);
        write::errln(format_args!(
            "{}:{}:{}: {} {}: {}",
            d.primary.location.file.display, at.line, at.column, d.code, d.name, d.message
        ));
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
            write::err(&text);
            write::errln(format_args!(
                "retrylint: the configuration is invalid ({} problem{}); nothing was checked",
                diags.len(),
                if diags.len() == 1 { "" } else { "s" }
            ));
            Err(EXIT_ERROR)
        }
    }
}

/// `retrylint schema`: the JSON Schema of the retry-policy format.
pub fn schema() -> u8 {
    write::outln(format_args!(
        "{}",
        serde_json::to_string_pretty(&crate::policy::schema::schema()).expect("json")
    ));
    0
}

/// `retrylint completions SHELL`.
pub fn completions(args: &crate::cli::CompletionsArgs) -> u8 {
    use clap::CommandFactory;
    let mut cmd = crate::cli::Cli::command();
    // Into memory first: clap_complete panics when its writer fails.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "retrylint", &mut script);
    write::stdout_with(|out| out.write_all(&script));
    0
}
