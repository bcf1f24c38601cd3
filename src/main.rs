//! The `retrylint` binary: parse the command line, call the library, print, exit.

use clap::Parser;
use retrylint::cli::{Cli, Command};
use std::process::ExitCode;

fn main() -> ExitCode {
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
        Command::Schema => retrylint::commands::schema(),
        Command::Completions(args) => retrylint::commands::completions(&args),
    };
    ExitCode::from(code)
}
