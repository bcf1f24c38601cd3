//! Go to definition: from a policy's operation selector to the operations it
//! matches in the spec, from a `$ref` to its target, from an imported route (a
//! finding's location in a retry config) to the operations it binds.

use super::position::{offset, range};
use super::State;
use crate::diagnostic::SourceFile;
use crate::fix::text::{parse, Role};
use lsp_types::{GotoDefinitionParams, GotoDefinitionResponse, Location};
use std::path::Path;

/// The definitions at the params' position.
pub fn definition(state: &State, params: &GotoDefinitionParams) -> Option<GotoDefinitionResponse> {
    let doc = &params.text_document_position_params;
    let path = super::uri::canonical(&super::uri::to_path(&doc.text_document.uri)?);
    let text = state.text(&path)?;
    let at = offset(&text, doc.position);
    let parsed = parse(&path, text);
    let mut out = reference(state, &path, &parsed, at);
    if out.is_empty() && parsed.role() == Role::Policy {
        out = selector(state, &parsed, at);
    }
    if out.is_empty() {
        out = bound_operations(state, &path, at);
    }
    (!out.is_empty()).then_some(GotoDefinitionResponse::Array(out))
}

fn location(state: &State, file: &SourceFile, span: std::ops::Range<usize>) -> Location {
    Location::new(state.uri(&file.path), range(file, &span))
}

/// The target of the `$ref` whose value is under `at`.
fn reference(
    state: &State,
    path: &Path,
    parsed: &crate::fix::text::Parsed,
    at: usize,
) -> Vec<Location> {
    let Some(t) = parsed.tree.as_ref() else {
        return Vec::new();
    };
    let Some(node) = parsed.node_at(at) else {
        return Vec::new();
    };
    let is_ref = t.key_of(node).and_then(|k| t.as_str(k)) == Some("$ref");
    let Some(value) = t.as_str(node).filter(|_| is_ref) else {
        return Vec::new();
    };
    let target = crate::source::pointer::parse_ref(value);
    if target.remote {
        return Vec::new();
    }
    let file = if target.file.is_empty() {
        path.to_path_buf()
    } else {
        match path.parent() {
            Some(dir) => super::uri::canonical(&dir.join(&target.file)),
            None => return Vec::new(),
        }
    };
    let Some(text) = state.reached_text(&file) else {
        return Vec::new();
    };
    let other = parse(&file, text);
    let span = other
        .tree
        .as_ref()
        .and_then(|t| t.lookup(&target.tokens).map(|n| t.label_span(n)))
        .unwrap_or(0..0);
    vec![location(state, &other.file, span)]
}

/// The operations the selector key under `at` matches.
fn selector(state: &State, parsed: &crate::fix::text::Parsed, at: usize) -> Vec<Location> {
    let (Some(snapshot), Some(t)) = (&state.snapshot, parsed.tree.as_ref()) else {
        return Vec::new();
    };
    let Some((key, value)) = super::hover::key_at(parsed, at) else {
        return Vec::new();
    };
    // Only keys of `operations` (and `status_endpoint` values) are selectors.
    let under_operations =
        t.pointer(value).starts_with("/operations/") && t.pointer(value).matches('/').count() == 2;
    if !under_operations {
        return Vec::new();
    }
    let Some(text) = t.scalar(key) else {
        return Vec::new();
    };
    let Ok(sel) = crate::policy::selector::Selector::parse(text) else {
        return Vec::new();
    };
    snapshot
        .analyzed
        .documents
        .iter()
        .flat_map(|d| d.operations.iter())
        .filter(|o| sel.matches(&o.method, &o.path, o.operation_id.as_deref()))
        .map(|o| {
            let l = o.key.location();
            location(state, &l.file, l.span)
        })
        .collect()
}

/// The operations a finding under `at` (in a retry config or policy) names in its
/// labels: an imported route's findings point at the operations it binds.
fn bound_operations(state: &State, path: &Path, at: usize) -> Vec<Location> {
    let Some(snapshot) = &state.snapshot else {
        return Vec::new();
    };
    let mut out: Vec<Location> = Vec::new();
    for d in &snapshot.diagnostics {
        let l = &d.primary.location;
        if l.file.path != path || at < l.span.start || at > l.span.end {
            continue;
        }
        for label in &d.labels {
            let is_spec = snapshot
                .analyzed
                .documents
                .iter()
                .any(|doc| doc.doc.file.path == label.location.file.path);
            if is_spec {
                let loc = location(state, &label.location.file, label.location.span.clone());
                if !out.contains(&loc) {
                    out.push(loc);
                }
            }
        }
    }
    out
}
