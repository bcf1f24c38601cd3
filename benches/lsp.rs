//! The language server's re-lint after an edit of a 13 MB spec (the GitHub REST API,
//! `@octokit/openapi@23.0.2` `generated/api.github.com.json`, fetched into
//! `.cache/corpus/` by `scripts/bench.sh` or `scripts/corpus.sh`): the unsaved buffer
//! is the overlay, so this is the work the lint worker does between a pause in
//! typing and the diagnostics reaching the editor (the editor's main loop is never
//! blocked by it: the worker is another thread).
//!
//! `cargo bench --bench lsp`; prints a note and measures nothing when the spec is
//! absent.

#![allow(clippy::disallowed_macros)] // output for the reader (clippy.toml)

use retrylint::source::loader::Overlay;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn main() {
    divan::main();
}

fn spec() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(".cache/corpus/octokit/package/generated/api.github.com.json");
    if p.is_file() {
        Some(p)
    } else {
        eprintln!(
            "benches/lsp: {} is absent (run scripts/corpus.sh); skipped",
            p.display()
        );
        None
    }
}

/// A folder holding the spec and a policy over it, and an edited copy of the spec's
/// text (one description changed, as a keystroke would).
fn workspace() -> Option<(PathBuf, Arc<Overlay>)> {
    let spec = spec()?;
    let dir = std::env::temp_dir().join(format!("retrylint-bench-lsp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let copy = dir.join("api.github.com.json");
    std::fs::copy(&spec, &copy).ok()?;
    std::fs::write(
        dir.join("github.retry-policy.yaml"),
        "version: 1\nspec: api.github.com.json\nlayer: client\ndefaults:\n  retry: true\n  attempts: 3\n  retry_on: [timeout, 503]\n",
    )
    .ok()?;
    let text = std::fs::read_to_string(&copy).ok()?;
    let edited = text.replacen("\"description\": \"", "\"description\": \"edited ", 1);
    let mut overlay = Overlay::new();
    overlay.insert(std::fs::canonicalize(&copy).ok()?, Arc::from(edited));
    Some((std::fs::canonicalize(&dir).ok()?, Arc::new(overlay)))
}

#[divan::bench(sample_count = 5)]
fn relint_13mb_spec_after_an_edit(bencher: divan::Bencher) {
    let Some((root, overlay)) = workspace() else {
        return;
    };
    bencher.bench(|| {
        let snapshot = retrylint::lsp::lint::lint(&root, overlay.clone(), None);
        divan::black_box(snapshot.diagnostics.len())
    });
}
