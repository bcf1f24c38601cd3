//! Bytes -> located tree -> retry-policy model -> join -> both report formats.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retrylint::report::{self, human::HumanOptions};
use retrylint::rules::rl001_invalid_syntax;
use retrylint::source::loader::{Limits, Workspace};
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let root = Path::new("/nonexistent-fuzz-root");
    let ws = Workspace::new(root.to_path_buf(), Limits::default());
    let loaded = ws.load_text(&root.join("retry-policy.yaml"), text);
    let (policy, mut diags) = retrylint::policy::load_policy(&loaded);
    diags.extend(rl001_invalid_syntax::diagnostic(&loaded));
    let policies: Vec<_> = policy.into_iter().collect();
    let (_, d) = retrylint::analysis::join(&[], &policies);
    diags.extend(d);
    let _ = report::json::render(&diags);
    let _ = report::human::render(&diags, HumanOptions { color: false, width: 100 });
});
