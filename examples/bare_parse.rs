//! The baseline for `scripts/bench.sh`: parse files to a generic value and exit.
//! `.json` files go through `serde_json::Value`, anything else through
//! `serde_yaml::Value`, every document of a YAML stream. Given a directory, every
//! `.yaml`/`.yml`/`.json` file under it is parsed, on rayon's default threads (as
//! `retrylint check` reads a directory). Prints the number of top-level entries so
//! the parse is not optimised away.
//!
//! `cargo run --release --example bare_parse -- FILE|DIR`

#![allow(clippy::disallowed_macros)] // output for the reader (clippy.toml)

use rayon::prelude::*;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

// The binary's allocator, so the floor is parsing, not a slower malloc.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn parse(path: &Path) -> Result<usize, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if path.extension().is_some_and(|e| e == "json") {
        serde_json::from_str::<serde_json::Value>(&text)
            .map(|v| v.as_object().map_or(0, |m| m.len()))
            .map_err(|e| format!("{}: {e}", path.display()))
    } else {
        let mut entries = 0;
        for doc in serde_yaml::Deserializer::from_str(&text) {
            let v = serde_yaml::Value::deserialize(doc)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            entries += v.as_mapping().map_or(0, |m| m.len());
        }
        Ok(entries)
    }
}

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1).map(PathBuf::from) else {
        eprintln!("usage: bare_parse FILE|DIR");
        return ExitCode::from(2);
    };
    let files: Vec<PathBuf> = if path.is_dir() {
        walkdir::WalkDir::new(&path)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .map(|e| e.into_path())
            .filter(|p| {
                p.extension()
                    .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
            })
            .collect()
    } else {
        vec![path]
    };
    let results: Vec<Result<usize, String>> = files.par_iter().map(|p| parse(p)).collect();
    let mut entries = 0;
    for r in results {
        match r {
            Ok(n) => entries += n,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::from(1);
            }
        }
    }
    println!("{entries}");
    ExitCode::SUCCESS
}
