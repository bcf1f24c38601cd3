//! The baseline for `scripts/bench.sh`: parse one file to a generic value and exit.
//! `.json` files go through `serde_json::Value`, anything else through
//! `serde_yaml::Value`. Prints the number of top-level entries so the parse is not
//! optimised away.
//!
//! `cargo run --release --example bare_parse -- FILE`

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: bare_parse FILE");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(2);
        }
    };
    let entries = if path.ends_with(".json") {
        match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(v) => v.as_object().map_or(0, |m| m.len()),
            Err(e) => {
                eprintln!("{path}: {e}");
                return ExitCode::from(1);
            }
        }
    } else {
        match serde_yaml::from_str::<serde_yaml::Value>(&text) {
            Ok(v) => v.as_mapping().map_or(0, |m| m.len()),
            Err(e) => {
                eprintln!("{path}: {e}");
                return ExitCode::from(1);
            }
        }
    };
    println!("{entries}");
    ExitCode::SUCCESS
}
