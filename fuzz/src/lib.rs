//! One harness for the importer fuzz targets: a small project on disk whose files
//! the fuzzer's bytes replace through the pipeline's overlay (the editor's unsaved
//! buffers), so every target runs the whole `check` as a user's run does (discover,
//! recognise, import, bind, join, rules, every report format) without writing a
//! file per input.
//!
//! Each target names the files it fuzzes; the project also holds a small OpenAPI
//! document, so imported routes bind to operations and the operation rules run.

use retrylint::check::{self, CheckOptions};
use retrylint::report::{self, human::HumanOptions};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// The spec every fuzzed project holds: a POST and a GET under a host the
/// seeds' routes name, so routes bind.
const SPEC: &str = "openapi: 3.0.3
info: {title: fuzz, version: '1'}
servers: [{url: 'https://api.example.com'}]
paths:
  /orders:
    post:
      operationId: createOrder
      responses: {'201': {description: created}}
    get:
      operationId: listOrders
      responses: {'200': {description: ok}}
";

/// A project folder (created once per process, under the system temp folder) holding
/// `openapi.yaml` and an empty file for each of `names`; returns its canonical path.
fn project(names: &[&str]) -> &'static Path {
    static ROOTS: OnceLock<std::sync::Mutex<HashMap<String, &'static Path>>> = OnceLock::new();
    let key = names.join("\n");
    let mut roots = ROOTS.get_or_init(Default::default).lock().unwrap();
    if let Some(root) = roots.get(&key) {
        return root;
    }
    let dir = std::env::temp_dir().join(format!(
        "retrylint-fuzz-{}-{}",
        std::process::id(),
        roots.len()
    ));
    std::fs::create_dir_all(&dir).expect("temp folder");
    // A git marker keeps the project root here, whatever lies above the temp folder.
    std::fs::create_dir_all(dir.join(".git")).expect("temp folder");
    std::fs::write(dir.join("openapi.yaml"), SPEC).expect("temp file");
    for name in names {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("temp folder");
        }
        std::fs::write(path, "").expect("temp file");
    }
    let root: &'static Path = Box::leak(dir.canonicalize().expect("temp folder").into_boxed_path());
    roots.insert(key, root);
    root
}

/// Runs `check` over a project whose files `files` (name, text) replace, and renders
/// the findings in the human, JSON, SARIF, GitHub, GitLab and JUnit formats. Panics only where retrylint
/// does: that is what the fuzzer looks for.
pub fn check_files(files: &[(&str, &str)]) {
    let names: Vec<&str> = files.iter().map(|(name, _)| *name).collect();
    check_files_in(&names, files);
}

/// [`check_files`] in a project holding an empty file for each of `on_disk` (a
/// superset of the names in `files`): one project for every combination a target
/// draws, so the temp folder does not grow with the inputs.
pub fn check_files_in(on_disk: &[&str], files: &[(&str, &str)]) {
    let root = project(on_disk);
    let overlay: HashMap<PathBuf, Arc<str>> = files
        .iter()
        .map(|(name, text)| (root.join(name), Arc::from(*text)))
        .collect();
    let options = CheckOptions {
        paths: vec![root.to_path_buf()],
        cwd: Some(root.to_path_buf()),
        overlay: Some(Arc::new(overlay)),
        ..CheckOptions::default()
    };
    let outcome = check::run(&options);
    let diags = &outcome.diagnostics;
    let _ = report::json::render(diags);
    let _ = report::sarif::render(diags, root);
    let _ = report::github::render(diags, root);
    let _ = report::gitlab::render(diags, root);
    let _ = report::junit::render(diags);
    let _ = report::human::render(
        diags,
        HumanOptions {
            color: false,
            width: 100,
        },
    );
}

/// The fuzzer's bytes as text: importers read UTF-8 (other encodings are decoded
/// before them, and `check_text` covers the decoding).
pub fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// Splits `data` into a selector byte and the rest: targets that cover several file
/// names (one family, several spellings) pick the name with it.
pub fn pick<'a, T>(data: &'a [u8], choices: &'a [T]) -> Option<(&'a T, &'a [u8])> {
    let (&first, rest) = data.split_first()?;
    Some((&choices[first as usize % choices.len()], rest))
}
