//! Hover: on a finding, its rule's documentation; on a policy key, the key's
//! meaning from the policy JSON Schema; on an operation of a spec, its readiness
//! answers and layer stack.

use super::position::offset;
use super::State;
use crate::fix::text::{parse, Parsed, Role};
use crate::source::tree::NodeId;
use lsp_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind};
use serde_json::Value;

/// The hover at the params' position, if anything is known there.
pub fn hover(state: &State, params: &HoverParams) -> Option<Hover> {
    let doc = &params.text_document_position_params;
    let path = super::uri::canonical(&super::uri::to_path(&doc.text_document.uri)?);
    let text = state.text(&path)?;
    let at = offset(&text, doc.position);
    let parsed = parse(&path, text);
    let mut parts = findings_at(state, &path, at);
    match parsed.role() {
        Role::Policy => parts.extend(policy_key(&parsed, at)),
        Role::Spec => parts.extend(operation(state, &path, at)),
        Role::Other => {}
    }
    (!parts.is_empty()).then(|| Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: parts.join("\n\n---\n\n"),
        }),
        range: None,
    })
}

/// The documentation of the rules of the findings covering `at`.
fn findings_at(state: &State, path: &std::path::Path, at: usize) -> Vec<String> {
    let Some(snapshot) = &state.snapshot else {
        return Vec::new();
    };
    let mut codes: Vec<&str> = snapshot
        .diagnostics
        .iter()
        .filter(|d| {
            let l = &d.primary.location;
            l.file.path == path && l.span.start <= at && at <= l.span.end
        })
        .map(|d| d.code)
        .collect();
    codes.dedup();
    codes
        .into_iter()
        .filter_map(|code| {
            let rule = crate::rules::find(code)?;
            let body = crate::rules::docs::doc(code).map_or(rule.meta.summary, |d| d.body);
            Some(format!(
                "**{} {}** ({})\n\n{}",
                code,
                rule.meta.name,
                rule.meta.severity.as_str(),
                body
            ))
        })
        .collect()
}

/// The key under `at` with its value node, when `at` is on a key.
pub fn key_at(parsed: &Parsed, at: usize) -> Option<(NodeId, NodeId)> {
    let t = parsed.tree.as_ref()?;
    t.all_nodes()
        .filter(|&n| t.kind(n) == crate::source::tree::Kind::Map)
        .flat_map(|m| t.raw_entries(m).iter().copied())
        .find(|&(k, _)| {
            let s = t.span(k);
            s.start <= at && at <= s.end
        })
}

/// The schema's description of the policy key under `at`.
fn policy_key(parsed: &Parsed, at: usize) -> Option<String> {
    let t = parsed.tree.as_ref()?;
    let (key, value) = key_at(parsed, at)?;
    let pointer = t.pointer(value);
    let tokens: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(crate::source::pointer::unescape)
        .collect();
    let schema = crate::policy::schema::schema();
    let node = schema_at(&schema, &schema, &tokens)?;
    let description = description(&schema, node)?;
    let mut s = format!("**`{}`**: {description}", t.scalar(key).unwrap_or(""));
    if takes_todo(&schema, node) {
        s.push_str("\n\nMay be `todo`: an open question, reported as RL018 until answered.");
    }
    if let Some(values) = enum_values(&schema, node) {
        s.push_str(&format!(
            "\n\nOne of: {}",
            values
                .iter()
                .map(|v| format!("`{v}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Some(s)
}

/// A schema node's description: its own, that of the type it refers to, else that of
/// its first `anyOf`/`oneOf` branch that has one (a field that also takes `todo` is
/// `anyOf: [its type, todo]`).
fn description<'a>(root: &'a Value, node: &'a Value) -> Option<&'a str> {
    let resolved = resolve(root, node);
    if let Some(d) = node
        .get("description")
        .or_else(|| resolved.get("description"))
        .and_then(Value::as_str)
    {
        return Some(d);
    }
    ["anyOf", "oneOf"]
        .iter()
        .filter_map(|k| resolved.get(*k).and_then(Value::as_array))
        .flatten()
        .filter(|b| !is_todo(root, b))
        .find_map(|b| description(root, b))
}

/// Whether a branch is the `todo` value of an open question.
fn is_todo(root: &Value, node: &Value) -> bool {
    resolve(root, node).get("const").and_then(Value::as_str) == Some("todo")
}

/// Whether a field accepts `todo` (one of its `anyOf` branches is it).
fn takes_todo(root: &Value, node: &Value) -> bool {
    resolve(root, node)
        .get("anyOf")
        .and_then(Value::as_array)
        .is_some_and(|bs| bs.iter().any(|b| is_todo(root, b)))
}

/// Follows a `#/...` reference inside the schema.
fn resolve<'a>(root: &'a Value, node: &'a Value) -> &'a Value {
    let mut node = node;
    for _ in 0..16 {
        match node
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
        {
            Some(p) => match root.pointer(p) {
                Some(n) => node = n,
                None => break,
            },
            None => break,
        }
    }
    node
}

/// The schema describing the value at `tokens` (object properties, additional and
/// pattern properties, array items, and the branches of `oneOf`/`anyOf`/`allOf`).
/// The node is returned before its own `$ref` is followed: a property's
/// description is preferred to that of the type it refers to.
pub fn schema_at<'a>(root: &'a Value, node: &'a Value, tokens: &[String]) -> Option<&'a Value> {
    let Some((first, rest)) = tokens.split_first() else {
        return Some(node);
    };
    let node = resolve(root, node);
    let next = node
        .get("properties")
        .and_then(|p| p.get(first.as_str()))
        .or_else(|| {
            node.get("patternProperties")
                .and_then(Value::as_object)
                .and_then(|m| m.values().next())
        })
        .or_else(|| node.get("additionalProperties").filter(|a| a.is_object()))
        .or_else(|| first.parse::<usize>().ok().and_then(|_| node.get("items")));
    if let Some(next) = next {
        if let Some(found) = schema_at(root, next, rest) {
            return Some(found);
        }
    }
    ["oneOf", "anyOf", "allOf"]
        .iter()
        .filter_map(|k| node.get(*k).and_then(Value::as_array))
        .flatten()
        .find_map(|branch| schema_at(root, branch, tokens))
}

/// The properties a schema node declares (through its branches).
pub fn properties<'a>(
    root: &'a Value,
    node: &'a Value,
) -> Option<&'a serde_json::Map<String, Value>> {
    let node = resolve(root, node);
    if let Some(p) = node.get("properties").and_then(Value::as_object) {
        return Some(p);
    }
    ["oneOf", "anyOf", "allOf"]
        .iter()
        .filter_map(|k| node.get(*k).and_then(Value::as_array))
        .flatten()
        .find_map(|b| properties(root, b))
}

/// The enum values a schema node allows (through its branches).
pub fn enum_values(root: &Value, node: &Value) -> Option<Vec<String>> {
    let node = resolve(root, node);
    let mut out: Vec<String> = node
        .get("enum")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                .collect()
        })
        .unwrap_or_default();
    for k in ["oneOf", "anyOf"] {
        for b in node.get(k).and_then(Value::as_array).into_iter().flatten() {
            out.extend(enum_values(root, b).unwrap_or_default());
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Readiness answers and the layer stack of the operation under `at`.
fn operation(state: &State, path: &std::path::Path, at: usize) -> Option<String> {
    let snapshot = state.snapshot.as_ref()?;
    let analyzed = &snapshot.analyzed;
    let op = analyzed
        .documents
        .iter()
        .flat_map(|d| d.operations.iter())
        .filter(|o| o.at.doc.file.path == path)
        .filter(|o| {
            let s = o.key.location().span;
            let body = o.at.value_location().span;
            (s.start <= at && at <= s.end) || (body.start <= at && at <= body.end)
        })
        .min_by_key(|o| o.at.value_location().span.len())?;
    let name = op.display();
    let matrix = crate::readiness::matrix(analyzed, &snapshot.diagnostics);
    let row = matrix
        .operations
        .iter()
        .find(|r| format!("{} {}", r.method, r.path) == name)?;
    let mut s = format!(
        "**{name}**: {}\n\n- effect: {}{}\n- safe to retry because: {}\n- retried: {}{}\n- on an unknown result: {}\n",
        row.verdict,
        row.effect,
        if row.effect_declared { " (declared)" } else { "" },
        if row.safety.is_empty() { "nothing".to_string() } else { row.safety.join(", ") },
        if row.retried { "yes" } else { "no" },
        row.attempts.map(|a| format!(", {a} attempts")).unwrap_or_default(),
        row.on_unknown_result.as_deref().unwrap_or("(not said)"),
    );
    if !row.findings.is_empty() {
        s.push_str(&format!("- findings: {}\n", row.findings.join(", ")));
    }
    if let Ok(selector) = crate::policy::selector::Selector::parse(&name) {
        if let Ok(views) = crate::commands::layers::views(analyzed, &selector, &name) {
            s.push_str(&format!(
                "\n```text\n{}```",
                crate::commands::layers::human(&views)
            ));
        }
    }
    Some(s)
}
