//! Completion in policy files: keys and enum values from the policy JSON Schema,
//! operation selectors (operationIds and `METHOD /path`) from the governed spec.
//! Works on half-typed text: the key path comes from indentation, not the tree.

use super::hover::{enum_values, properties, schema_at};
use super::State;
use crate::openapi::model::Operation;
use lsp_types::{CompletionItem, CompletionItemKind, CompletionParams, CompletionResponse};
use serde_json::Value;
use std::path::Path;

/// The completions at the params' position (none outside policy files).
pub fn complete(state: &State, params: &CompletionParams) -> Option<CompletionResponse> {
    let doc = &params.text_document_position;
    let path = super::uri::canonical(&super::uri::to_path(&doc.text_document.uri)?);
    let text = state.text(&path)?;
    let lines: Vec<&str> = text.split('\n').collect();
    let line_no = doc.position.line as usize;
    let line = *lines.get(line_no)?;
    let units: Vec<u16> = line
        .encode_utf16()
        .take(doc.position.character as usize)
        .collect();
    let before = String::from_utf16_lossy(&units);
    if !is_policy(&text) {
        return None;
    }
    let indent = before.len() - before.trim_start().len();
    let mut keys = parents(&lines[..line_no], indent);
    let schema = crate::policy::schema::schema();
    let typed = before.trim_start().trim_start_matches("- ");
    let items = if let Some((key, _value)) = typed.split_once(':') {
        // A value: the key's enum values (or selectors for a status endpoint).
        let key = key.trim().trim_matches('"').to_string();
        if key == "status_endpoint" {
            selectors(state, &path, &text)
        } else {
            keys.push(key);
            let node = schema_at(&schema, &schema, &keys)?;
            enum_values(&schema, node)?
                .into_iter()
                .map(|v| item(v, CompletionItemKind::ENUM_MEMBER, None))
                .collect()
        }
    } else if keys.len() == 1 && keys[0] == "operations" {
        selectors(state, &path, &text)
    } else {
        let node = schema_at(&schema, &schema, &keys)?;
        let props = properties(&schema, node)?;
        props
            .iter()
            .map(|(k, v)| {
                let doc = v
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let mut i = item(k.clone(), CompletionItemKind::PROPERTY, doc);
                i.insert_text = Some(format!("{k}: "));
                i
            })
            .collect()
    };
    Some(CompletionResponse::Array(items))
}

fn item(label: String, kind: CompletionItemKind, doc: Option<String>) -> CompletionItem {
    CompletionItem {
        label,
        kind: Some(kind),
        documentation: doc.map(lsp_types::Documentation::String),
        ..Default::default()
    }
}

/// Whether `text` reads as a retry policy (a `version:` key and one of `spec:`,
/// `operations:`, `defaults:` at the top level), even while half typed.
fn is_policy(text: &str) -> bool {
    let top = |k: &str| text.lines().any(|l| l.starts_with(&format!("{k}:")));
    top("version") && (top("spec") || top("operations") || top("defaults"))
}

/// The keys enclosing a line at `indent`: each nearest line above with less
/// indentation that opens a mapping (`key:`), outermost first.
fn parents(above: &[&str], indent: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut limit = indent;
    for l in above.iter().rev() {
        let t = l.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let i = l.len() - t.len();
        if i < limit {
            if let Some((k, rest)) = t.split_once(':') {
                if rest.trim().is_empty() || rest.trim_start().starts_with('#') {
                    out.push(
                        k.trim()
                            .trim_start_matches("- ")
                            .trim_matches('"')
                            .to_string(),
                    );
                }
            }
            limit = i;
            if i == 0 {
                break;
            }
        }
    }
    out.reverse();
    out
}

/// operationIds and `METHOD /path` of the spec the policy governs (`spec:`), else
/// of every spec of the last lint.
fn selectors(state: &State, policy: &Path, text: &str) -> Vec<CompletionItem> {
    let Some(snapshot) = &state.snapshot else {
        return Vec::new();
    };
    let spec = text
        .lines()
        .find_map(|l| l.strip_prefix("spec:"))
        .map(|s| s.trim().trim_matches(['"', '\'']).to_string())
        .and_then(|s| Some(super::uri::canonical(&policy.parent()?.join(s))));
    let ops: Vec<&Operation> = snapshot
        .analyzed
        .documents
        .iter()
        .filter(|d| spec.as_ref().is_none_or(|s| &d.doc.file.path == s))
        .flat_map(|d| d.operations.iter())
        .collect();
    let mut out = Vec::new();
    for op in ops {
        let shown = op.display();
        let mut i = item(
            shown.clone(),
            CompletionItemKind::REFERENCE,
            op.operation_id.clone(),
        );
        i.insert_text = Some(format!("\"{shown}\""));
        out.push(i);
        if let Some(id) = &op.operation_id {
            out.push(item(id.clone(), CompletionItemKind::REFERENCE, Some(shown)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::parents;

    #[test]
    fn the_key_path_comes_from_indentation() {
        let above = [
            "version: 1",
            "operations:",
            "  \"POST /x\":",
            "    backoff:",
            "      base: 1s",
        ];
        assert_eq!(parents(&above, 6), ["operations", "POST /x", "backoff"]);
        assert_eq!(parents(&above[..2], 2), ["operations"]);
        assert!(parents(&above, 0).is_empty());
    }
}
