//! "Each finding points at the setting and labels the bound call site": a finding
//! about an operation retried by a client in code points at the client's setting
//! (the `Retry(...)`, the decorator); this adds a label at the call through which
//! that client reaches the operation (`session.post("/orders")`), which may be in
//! another file.

use crate::diagnostic::Diagnostic;
use crate::policy::model::PolicyFile;
use crate::source::language::Language;
use std::collections::HashMap;

/// Adds to each finding located in a source file a label at the call site of the
/// code-imported policy entry for its operation (when that call is elsewhere).
pub fn label_call_sites(diagnostics: Vec<Diagnostic>, policies: &[PolicyFile]) -> Vec<Diagnostic> {
    // (file of the client, operation) -> call sites.
    let mut calls: HashMap<(&std::path::Path, &str), Vec<&crate::source::refs::At>> =
        HashMap::new();
    for p in policies.iter().filter(|p| p.imported.is_some()) {
        if Language::of_path(&p.doc.file.path).is_none() {
            continue;
        }
        for e in &p.operations {
            calls
                .entry((e.settings.at.doc.file.path.as_path(), e.text.as_str()))
                .or_default()
                .push(&e.at);
        }
        // The client's other calls of an operation: labelled like the first.
        for (text, at) in p.imported.iter().flat_map(|i| &i.also_called) {
            if let Some(e) = p.operations.iter().find(|e| &e.text == text) {
                calls
                    .entry((e.settings.at.doc.file.path.as_path(), e.text.as_str()))
                    .or_default()
                    .push(at);
            }
        }
    }
    if calls.is_empty() {
        return diagnostics;
    }
    diagnostics
        .into_iter()
        .map(|mut d| {
            let file = d.primary.location.file.path.clone();
            if Language::of_path(&file).is_none() {
                return d;
            }
            let ops: Vec<String> = d
                .operation
                .iter()
                .chain(d.operations.iter())
                .cloned()
                .collect();
            for op in ops {
                for at in calls
                    .get(&(file.as_path(), op.as_str()))
                    .into_iter()
                    .flatten()
                {
                    let loc = at.location();
                    let same = |l: &crate::diagnostic::Location| {
                        l.file.path == loc.file.path && l.span == loc.span
                    };
                    if same(&d.primary.location) || d.labels.iter().any(|l| same(&l.location)) {
                        continue;
                    }
                    d = d.with_label(loc, format!("{op} is called here"));
                }
            }
            d
        })
        .collect()
}
