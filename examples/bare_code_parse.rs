//! The floor of a code scan, for `scripts/bench.sh`: walk DIR, keep the source files
//! whose text passes retrylint's pre-check (they mention a retry library), and parse
//! each with its tree-sitter grammar, in parallel on all cores; prints how many.
//!
//! `cargo run --release --example bare_code_parse -- DIR`

#![allow(clippy::disallowed_macros)] // output for the reader (clippy.toml)

use rayon::prelude::*;
use retrylint::source::language::Language;
use std::path::PathBuf;

fn main() {
    let dir = std::env::args()
        .nth(1)
        .map_or_else(|| PathBuf::from("."), PathBuf::from);
    let files: Vec<(PathBuf, Language)> = walkdir::WalkDir::new(&dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| Language::of_path(e.path()).map(|l| (e.into_path(), l)))
        .collect();
    let parsed: usize = files
        .par_iter()
        .map(|(path, language)| {
            let Ok(text) = std::fs::read(path) else {
                return 0;
            };
            if !language.may_hold_retries(&text) {
                return 0;
            }
            let Some(grammar) = language.grammar() else {
                return 0;
            };
            let mut parser = tree_sitter::Parser::new();
            if parser.set_language(&grammar).is_err() {
                return 0;
            }
            usize::from(parser.parse(&text, None).is_some())
        })
        .sum();
    println!("{} source files, {parsed} parsed", files.len());
}
