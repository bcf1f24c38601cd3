//! The `retrylint` binary: parse the command line, call the library, print, exit.

use clap::Parser;
use retrylint::cli::{Cli, Command};
use std::io::IsTerminal;
use std::process::ExitCode;

// mimalloc: the pipeline allocates many small tree nodes and strings on every core;
// glibc malloc took a fifth of the CPU of a directory run (issue 18's profile).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // SIGPIPE stays ignored (Rust's default): a closed pipe is an error of a write,
    // which `retrylint::write` turns into a quiet end (`retrylint rules | head -1`).
    let code = match Cli::try_parse() {
        Ok(cli) => run(cli.command),
        Err(e) => usage(&e),
    };
    ExitCode::from(retrylint::write::finish(code))
}

fn run(command: Command) -> u8 {
    match command {
        Command::Check(args) => retrylint::commands::check(&args),
        Command::Rules(args) => retrylint::commands::rules(&args),
        Command::Rule(args) => retrylint::commands::rule(&args),
        Command::Readiness(args) => retrylint::commands::readiness(&args),
        Command::Plan(args) => retrylint::commands::plan(&args),
        Command::Simulate(args) => retrylint::commands::simulate(&args),
        Command::Import(args) => retrylint::commands::import::run(&args),
        Command::Init(args) => retrylint::commands::init::run(&args),
        Command::Layers(args) => retrylint::commands::layers::run(&args),
        Command::Report(args) => retrylint::commands::html_report::run(&args),
        Command::Diff(args) => retrylint::commands::diff::run(&args),
        Command::Schema => retrylint::commands::schema(),
        Command::Lsp => retrylint::lsp::run(),
        Command::Completions(args) => retrylint::commands::completions(&args),
        Command::Probe(args) => retrylint::commands::probe::run(&args),
    }
}

/// clap's help, version or usage error through the one writer (`--help > /dev/full`
/// is exit 2 with one line, as every other output): 0 for help and version, 2 for a
/// usage error.
fn usage(e: &clap::Error) -> u8 {
    let to_stderr = e.use_stderr();
    let terminal = if to_stderr {
        std::io::stderr().is_terminal()
    } else {
        std::io::stdout().is_terminal()
    };
    let rendered = e.render();
    let text = if terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) {
        rendered.ansi().to_string()
    } else {
        rendered.to_string()
    };
    if to_stderr {
        retrylint::write::err(text);
        2
    } else {
        retrylint::write::out(text);
        0
    }
}
