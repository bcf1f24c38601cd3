//! The `retrylint` binary: parse the command line, call the library, print, exit.

use clap::Parser;
use retrylint::cli::{Cli, Command};
use std::process::ExitCode;

// mimalloc: the pipeline allocates many small tree nodes and strings on every core;
// glibc malloc took a fifth of the CPU of a directory run (issue 18's profile).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    restore_default_sigpipe();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let code = match cli.command {
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
    };
    ExitCode::from(code)
}

/// `retrylint rules | head` must end quietly like any Unix tool, not panic inside
/// `println!`: Rust ignores SIGPIPE by default, so restore the default action.
#[cfg(unix)]
fn restore_default_sigpipe() {
    // SAFETY: called first thing in `main`, before any thread exists; setting a
    // signal disposition to SIG_DFL has no other precondition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn restore_default_sigpipe() {}
