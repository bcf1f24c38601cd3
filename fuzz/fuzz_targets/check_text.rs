//! Bytes -> located tree -> OpenAPI model -> rules -> both report formats.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retrylint::analysis::Analysis;
use retrylint::openapi::lint_document;
use retrylint::report::{self, human::HumanOptions};
use retrylint::rules::{rl001_invalid_syntax, run_checks, Context, Thresholds};
use retrylint::source::loader::{Limits, Workspace};
use retrylint::source::refs::Resolver;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let root = Path::new("/nonexistent-fuzz-root");
    let ws = Workspace::new(root.to_path_buf(), Limits::default());
    let loaded = ws.load_text(&root.join("openapi.yaml"), text);
    let resolver = Resolver::new(&ws, root);
    let (doc, mut diags) = lint_document(&resolver, &loaded);
    diags.extend(rl001_invalid_syntax::diagnostic(&loaded));
    let docs: Vec<_> = doc.into_iter().collect();
    let analysis = Analysis::default();
    let thresholds = Thresholds::default();
    let ctx = Context {
        documents: &docs,
        analysis: &analysis,
        thresholds: &thresholds,
    };
    diags.extend(run_checks(&ctx));
    let _ = report::json::render(&diags);
    let _ = report::human::render(&diags, HumanOptions { color: false, width: 100 });
});
