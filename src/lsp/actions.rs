//! Code actions: fixes for findings, each a `WorkspaceEdit` the editor can preview
//! before applying.
//!
//! - the rule's own fix, from the one fix engine ([`crate::rules::fix_of`]), the
//!   same edits `check --fix` makes (an unsafe one says so in its title);
//! - any finding in a spec or policy: a suppression with a `reason` placeholder
//!   (editor-only).

use super::position::{offset, range};
use super::State;
use crate::diagnostic::Diagnostic;
use crate::fix::text::{insert_entry_first, insert_item, parse, Edit, Parsed, Role};
use crate::source::tree::Kind;
use lsp_types::{CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, TextEdit};
use serde_json::Value;
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

/// The fixes of one finding: titles and edits. The rule's own fix
/// ([`crate::rules::fix_of`], the one `check --fix` applies, read from the editor's
/// buffers), then a suppression (editor-only).
fn fixes(state: &State, d: &Diagnostic) -> Vec<(String, Vec<(PathBuf, Edit)>)> {
    let path = d.primary.location.file.path.clone();
    let Some(text) = state.text(&path) else {
        return Vec::new();
    };
    let parsed = parse(&path, text);
    let pointer = d.primary.location.pointer.as_str();
    let mut out = Vec::new();
    if let Some(fix) = engine_fix(state, d) {
        let title = match fix.safety {
            crate::fix::Safety::Safe => fix.title,
            crate::fix::Safety::Unsafe => format!("{} (unsafe: changes behaviour)", fix.title),
        };
        let edits = fix
            .edits
            .into_iter()
            .map(|e| (e.path, (e.span, e.text)))
            .collect();
        out.push((title, edits));
    }
    if let Some(e) = suppression(&parsed, pointer, d.code) {
        out.push((
            format!("Suppress {} here (with a reason to fill in)", d.code),
            vec![(path.clone(), e)],
        ));
    }
    out
}

/// The fix of finding `d` as `check --fix` computes it, over the editor's texts: the
/// finding's own file as open, other files (a shared `$ref` component) only inside
/// the read boundary ([`State::reached_text`]).
pub fn engine_fix(state: &State, d: &Diagnostic) -> Option<crate::fix::Fix> {
    let own = d.primary.location.file.path.clone();
    let texts = |p: &Path| {
        if p == own {
            state.text(p)
        } else {
            state.reached_text(&super::uri::canonical(p))
        }
    };
    crate::rules::fix_of(d, &texts)
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
        None => insert_entry_first(parsed, owner, key, &Value::Array(vec![item])),
    }
}
