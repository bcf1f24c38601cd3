//! Renders a JSON file as YAML (for `scripts/bench.sh`'s YAML rows).
//!
//! `cargo run --release --example to_yaml -- IN.json OUT.yaml`

#![allow(clippy::disallowed_macros)] // output for the reader (clippy.toml)

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = args.as_slice() else {
        eprintln!("usage: to_yaml IN.json OUT.yaml");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(input) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{input}: {e}");
            return ExitCode::from(2);
        }
    };
    let value: serde_json::Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("{input}: {e}");
            return ExitCode::from(1);
        }
    };
    let yaml = match serde_yaml::to_string(&value) {
        Ok(y) => y,
        Err(e) => {
            eprintln!("{input}: {e}");
            return ExitCode::from(1);
        }
    };
    if let Err(e) = std::fs::write(output, yaml) {
        eprintln!("{output}: {e}");
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}
