//! The `retrylint` binary: parse the command line, call the library, print, exit.

use clap::Parser;
use retrylint::cli::{Cli, Command};
use std::io::IsTerminal;
use std::process::ExitCode;

// mimalloc: the pipeline allocates many small tree nodes and strings on every core;
// glibc malloc took a fifth of the CPU of a directory run (issue 18's profile).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// The mimalloc C library the allocator above links: its options by index.
extern "C" {
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

/// `mi_option_purge_delay` in the `mi_option_t` enum of `mimalloc.h` (the same
/// index in mimalloc v2 and v3, the versions `libmimalloc-sys` 0.1 builds).
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

/// Freed memory goes back to the system 10 ms after it is freed (mimalloc v2's
/// default), not mimalloc v3's 1,000 ms: a run frees a file's parse structures
/// within milliseconds, and holding them for a second kept them in the peak RSS
/// (issue 43: a 1.6 MB haproxy.cfg 113 MB at 1,000 ms, 81 MB at 10; a directory
/// of 2,000 specs 520 MB and 488 MB, no slower).
fn return_freed_memory_promptly() {
    // SAFETY: `mi_option_set` only stores an integer option; any value is valid
    // for the delay (0: at once, -1: never), and no allocation depends on it.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, 10) }
}

fn main() -> ExitCode {
    return_freed_memory_promptly();
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
