//! Code actions: safe, mechanical fixes for findings, each a `WorkspaceEdit` the
//! editor can preview before applying.
//!
//! - RL501/RL502: add a `Retry-After` header to the 429/503 response (through a
//!   `$ref`, the shared component is edited once, in its own file);
//! - RL305: add `jitter: full` to the backoff;
//! - `on_unknown_result: resend` where an idempotency key is declared: `replay-key`;
//! - any finding in a spec or policy: a suppression with a `reason` placeholder.

use super::position::{offset, range};
use super::text::{insert_entry, insert_item, parse, Edit, Parsed, Role};
use super::State;
use crate::diagnostic::Diagnostic;
use crate::source::tree::Kind;
use lsp_types::{CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, TextEdit};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The reason a new suppression is written with, for the author to replace.
pub const REASON_PLACEHOLDER: &str = "TODO: say why this finding is accepted";

/// The code actions for the findings in the requested range.
pub fn actions(state: &State, params: &CodeActionParams) -> Vec<CodeActionOrCommand> {
    let Some(path) =
        super::uri::to_path(&params.text_document.uri).map(|p| super::uri::canonical(&p))
    else {
        return Vec::new();
    };
    let Some(snapshot) = &state.snapshot else {
        return Vec::new();
    };
    let Some(text) = state.text(&path) else {
        return Vec::new();
    };
    let (from, to) = (
        offset(&text, params.range.start),
        offset(&text, params.range.end),
    );
    let mut out = Vec::new();
    for d in &snapshot.diagnostics {
        let at = &d.primary.location;
        if at.file.path != path || at.span.end < from || at.span.start > to {
            continue;
        }
        // Offsets are the lint's: a buffer edited since is not patched blindly.
        if *at.file.text != *text {
            continue;
        }
        let diagnostic = super::publish::to_lsp(d);
        for (title, edits) in fixes(state, d) {
            out.push(CodeActionOrCommand::CodeAction(CodeAction {
                title,
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![diagnostic.clone()]),
                edit: Some(workspace_edit(state, edits)),
                ..Default::default()
            }));
        }
    }
    out
}

/// Edits by file, made LSP text edits.
// `WorkspaceEdit::changes` is keyed by `Uri` (lsp-types' choice); its cell is a
// lazily parsed cache that never changes the key's hash.
#[allow(clippy::mutable_key_type)]
fn workspace_edit(state: &State, edits: Vec<(PathBuf, Edit)>) -> lsp_types::WorkspaceEdit {
    let mut changes: HashMap<lsp_types::Uri, Vec<TextEdit>> = HashMap::new();
    for (path, (span, new_text)) in edits {
        let Some(text) = state.text(&path) else {
            continue;
        };
        let file = crate::diagnostic::SourceFile::new(path.clone(), String::new(), &text);
        changes
            .entry(state.uri(&path))
            .or_default()
            .push(TextEdit::new(range(&file, &span), new_text));
    }
    lsp_types::WorkspaceEdit {
        changes: Some(changes),
        ..Default::default()
    }
}

/// The fixes of one finding: titles and edits.
fn fixes(state: &State, d: &Diagnostic) -> Vec<(String, Vec<(PathBuf, Edit)>)> {
    let path = d.primary.location.file.path.clone();
    let Some(text) = state.text(&path) else {
        return Vec::new();
    };
    let parsed = parse(&path, text);
    let pointer = d.primary.location.pointer.as_str();
    let mut out = Vec::new();
    let one = |e: Option<Edit>| e.map(|e| vec![(path.clone(), e)]);
    match d.code {
        "RL501" | "RL502" => {
            if let Some(edits) = retry_after(state, &path, &parsed, pointer) {
                out.push((
                    "Add a `Retry-After` header to the response".to_string(),
                    edits,
                ));
            }
        }
        "RL305" => {
            if let Some(e) = one(jitter(&parsed, pointer)) {
                out.push(("Add `jitter: full` to the backoff".to_string(), e));
            }
        }
        _ => {}
    }
    if let Some(e) = one(replay_key(&parsed, pointer)) {
        out.push((
            "Replace `resend` by `replay-key` (an idempotency key is declared)".to_string(),
            e,
        ));
    }
    if let Some(e) = one(suppression(&parsed, pointer, d.code)) {
        out.push((
            format!("Suppress {} here (with a reason to fill in)", d.code),
            e,
        ));
    }
    out
}

/// `headers: {Retry-After: ...}` on the response at `pointer`, following its `$ref`
/// to the component it shares (in this file or another).
fn retry_after(
    state: &State,
    path: &Path,
    parsed: &Parsed,
    pointer: &str,
) -> Option<Vec<(PathBuf, Edit)>> {
    let t = parsed.tree.as_ref()?;
    let node = parsed.at_pointer(pointer)?;
    let node = if t.kind(node) == Kind::Map {
        node
    } else {
        t.parent(node)?
    };
    if let Some(reference) = t.get(node, "$ref").and_then(|r| t.as_str(r)) {
        let target = crate::source::pointer::parse_ref(reference);
        if target.remote {
            return None;
        }
        let file = if target.file.is_empty() {
            path.to_path_buf()
        } else {
            super::uri::canonical(&path.parent()?.join(&target.file))
        };
        let other = parse(&file, state.reached_text(&file)?);
        let pointer = format!(
            "/{}",
            target
                .tokens
                .iter()
                .map(|s| crate::source::pointer::escape(s))
                .collect::<Vec<_>>()
                .join("/")
        );
        return retry_after(state, &file, &other, &pointer);
    }
    let swagger2 = t.root().and_then(|r| t.get(r, "swagger")).is_some();
    let header = if swagger2 {
        json!({"type": "integer", "description": "Seconds to wait before retrying"})
    } else {
        json!({"description": "Seconds to wait before retrying", "schema": {"type": "integer"}})
    };
    let edit = match t.get(node, "headers") {
        Some(h) if t.kind(h) == Kind::Map => insert_entry(parsed, h, "Retry-After", &header)?,
        Some(_) => return None,
        None => insert_entry(parsed, node, "headers", &json!({ "Retry-After": header }))?,
    };
    Some(vec![(path.to_path_buf(), edit)])
}

/// `jitter: full` in the backoff at (or under) `pointer`.
fn jitter(parsed: &Parsed, pointer: &str) -> Option<Edit> {
    let t = parsed.tree.as_ref()?;
    let node = parsed.at_pointer(pointer)?;
    let full = json!("full");
    if t.kind(node) != Kind::Map {
        // `jitter: none`: the value itself.
        let key = t.key_of(node).and_then(|k| t.as_str(k).map(str::to_string));
        return (key.as_deref() == Some("jitter")).then(|| (t.span(node), "full".to_string()));
    }
    let last = pointer.rsplit('/').next().unwrap_or("");
    if last == "backoff" {
        return match t.get(node, "jitter") {
            Some(j) => Some((t.span(j), "full".to_string())),
            None => insert_entry(parsed, node, "jitter", &full),
        };
    }
    match t.get(node, "backoff") {
        Some(b) if t.kind(b) == Kind::Map => match t.get(b, "jitter") {
            Some(j) => Some((t.span(j), "full".to_string())),
            None => insert_entry(parsed, b, "jitter", &full),
        },
        Some(_) => None,
        None => insert_entry(parsed, node, "backoff", &json!({ "jitter": "full" })),
    }
}

/// `on_unknown_result: resend` -> `replay-key` when the entry holding it, or the
/// policy's `defaults`, declares an `idempotency_key`.
fn replay_key(parsed: &Parsed, pointer: &str) -> Option<Edit> {
    let t = parsed.tree.as_ref()?;
    if parsed.role() != Role::Policy {
        return None;
    }
    let node = parsed.at_pointer(pointer)?;
    let map = if t.kind(node) == Kind::Map {
        node
    } else {
        t.parent(node)?
    };
    let value = t.get(map, "on_unknown_result")?;
    if t.as_str(value) != Some("resend") {
        return None;
    }
    let root = t.root()?;
    let declared = t.get(map, "idempotency_key").is_some()
        || t.get(root, "defaults")
            .and_then(|d| t.get(d, "idempotency_key"))
            .is_some();
    declared.then(|| (t.span(value), "replay-key".to_string()))
}

/// A `{rule, reason}` suppression at the operation the finding is about (the
/// policy's `operations` entry, the spec's operation), else at the top level.
fn suppression(parsed: &Parsed, pointer: &str, code: &str) -> Option<Edit> {
    let t = parsed.tree.as_ref()?;
    let tokens: Vec<&str> = pointer.split('/').skip(1).collect();
    let (key, owner) = match parsed.role() {
        Role::Policy => {
            let owner = match tokens.as_slice() {
                ["operations", sel, ..] => parsed.at_pointer(&format!("/operations/{sel}")),
                _ => t.root(),
            };
            ("ignore", owner?)
        }
        Role::Spec => {
            let owner = match tokens.as_slice() {
                ["paths", p, m, ..] if !m.is_empty() => parsed
                    .at_pointer(&format!("/paths/{p}/{m}"))
                    .filter(|&n| t.kind(n) == Kind::Map),
                _ => None,
            };
            (crate::suppress::EXTENSION, owner.or(t.root())?)
        }
        Role::Other => return None,
    };
    let mut item = serde_json::Map::new();
    item.insert("rule".into(), Value::String(code.into()));
    item.insert("reason".into(), Value::String(REASON_PLACEHOLDER.into()));
    let item = Value::Object(item);
    match t.get(owner, key) {
        Some(list) => insert_item(parsed, list, &item),
        None => insert_entry(parsed, owner, key, &Value::Array(vec![item])),
    }
}
