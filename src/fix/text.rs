//! A file read for editing: its located tree, the node a JSON Pointer names, and text
//! edits that add a key to a mapping or an item to a list in the file's own style
//! (block YAML, flow YAML or JSON). Used by the fixes and by the language server.

use crate::diagnostic::SourceFile;
use crate::source::tree::{Kind, NodeId, Tree};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

/// A file's text and, when it parses, its tree.
#[derive(Debug)]
pub struct Parsed {
    /// Text and line index.
    pub file: SourceFile,
    /// The tree (`None`: the text is not YAML/JSON yet, e.g. half typed).
    pub tree: Option<Tree>,
}

/// What a file is, from its top-level keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// An OpenAPI document (`openapi:` or `swagger:`).
    Spec,
    /// A retry policy (`version:` with `operations:`, `defaults:` or `spec:`).
    Policy,
    /// Anything else.
    Other,
}

/// Parses `text` of `path` (never panics; a syntax error leaves no tree).
pub fn parse(path: &Path, text: Arc<str>) -> Parsed {
    let file = SourceFile::new(path.to_path_buf(), path.display().to_string(), &text);
    let tree = Tree::parse(file.text.clone()).ok();
    Parsed { file, tree }
}

impl Parsed {
    /// What the file is.
    pub fn role(&self) -> Role {
        let Some((t, root)) = self.tree.as_ref().and_then(|t| Some((t, t.root()?))) else {
            return Role::Other;
        };
        if t.kind(root) != Kind::Map {
            return Role::Other;
        }
        let has = |k: &str| t.get(root, k).is_some();
        if has("openapi") || has("swagger") {
            Role::Spec
        } else if has("version") && (has("operations") || has("defaults") || has("spec")) {
            Role::Policy
        } else {
            Role::Other
        }
    }

    /// The smallest node whose span holds byte `offset`.
    pub fn node_at(&self, offset: usize) -> Option<NodeId> {
        let t = self.tree.as_ref()?;
        t.all_nodes()
            .filter(|&n| {
                let s = t.span(n);
                s.start <= offset && offset <= s.end
            })
            .min_by_key(|&n| t.span(n).len())
    }

    /// The node a finding points at: the one at its JSON Pointer, else (a dotted
    /// key such as Spring's `resilience4j.retry:`, which the pointer splits) the
    /// outermost node whose span is exactly the finding's (it may be a key).
    pub fn at_location(&self, location: &crate::diagnostic::Location) -> Option<NodeId> {
        let t = self.tree.as_ref()?;
        self.at_pointer(&location.pointer).or_else(|| {
            t.all_nodes()
                .filter(|&n| t.span(n) == location.span)
                .min_by_key(|&n| t.parent(n).is_some())
        })
    }

    /// The node at JSON Pointer `pointer` (`""`: the root).
    pub fn at_pointer(&self, pointer: &str) -> Option<NodeId> {
        let t = self.tree.as_ref()?;
        let tokens: Vec<String> = match pointer.strip_prefix('/') {
            Some(rest) => rest
                .split('/')
                .map(crate::source::pointer::unescape)
                .collect(),
            None => Vec::new(),
        };
        t.lookup(&tokens)
    }
}

/// A text edit as a byte range and its replacement.
pub type Edit = (std::ops::Range<usize>, String);

/// `value` written inline: JSON, or flow YAML with plain scalars where they read
/// the same.
pub fn flow(value: &Value, json: bool) -> String {
    match value {
        Value::Object(m) => {
            let items: Vec<String> = ordered(m)
                .into_iter()
                .map(|(k, v)| format!("{}: {}", scalar(k, json), flow(v, json)))
                .collect();
            if json {
                format!("{{{}}}", items.join(", "))
            } else {
                format!("{{ {} }}", items.join(", "))
            }
        }
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(|v| flow(v, json)).collect();
            format!("[{}]", items.join(", "))
        }
        Value::String(s) => scalar(s, json),
        other => other.to_string(),
    }
}

/// A mapping's entries as people write them: `rule` and `description` first (the
/// JSON map sorts its keys).
fn ordered(m: &serde_json::Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut entries: Vec<(&String, &Value)> = m.iter().collect();
    entries.sort_by_key(|(k, _)| match k.as_str() {
        "rule" => 0,
        "description" => 1,
        _ => 2,
    });
    entries
}

fn scalar(s: &str, json: bool) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
        && !matches!(s, "true" | "false" | "null" | "yes" | "no" | "on" | "off")
        && s.parse::<f64>().is_err();
    if plain && !json {
        s.to_string()
    } else {
        Value::String(s.to_string()).to_string()
    }
}

/// `key: value` as block YAML lines at `indent` spaces, each ending in a newline.
fn block(key: &str, value: &Value, indent: usize) -> String {
    let pad = " ".repeat(indent);
    match value {
        Value::Object(m) if !m.is_empty() => {
            let mut s = format!("{pad}{}:\n", scalar(key, false));
            for (k, v) in ordered(m) {
                s.push_str(&block(k, v, indent + 2));
            }
            s
        }
        _ => format!("{pad}{}: {}\n", scalar(key, false), flow(value, false)),
    }
}

/// The edit adding `key: value` to the mapping `map` of `parsed`, in its style
/// ([`insert_entries`]).
pub fn insert_entry(parsed: &Parsed, map: NodeId, key: &str, value: &Value) -> Option<Edit> {
    insert_entries(parsed, map, &[(key, value.clone())])
}

/// As [`insert_entry`], but in a block mapping before its first key (a suppression
/// reads first in its operation).
pub fn insert_entry_first(parsed: &Parsed, map: NodeId, key: &str, value: &Value) -> Option<Edit> {
    insert_at(parsed, map, &[(key, value.clone())], true)
}

/// The one edit adding every `key: value` of `entries` (in order) to the mapping
/// `map` of `parsed`, in its style: block YAML lines at the mapping's indentation
/// after the line of its last value (so a comment above its first key stays with
/// that key, and one after its last value stays on its line), or flow/JSON items
/// before its first item. `None` when `entries` is empty or `map` is not a mapping.
pub fn insert_entries(parsed: &Parsed, map: NodeId, entries: &[(&str, Value)]) -> Option<Edit> {
    insert_at(parsed, map, entries, false)
}

fn insert_at(
    parsed: &Parsed,
    map: NodeId,
    entries: &[(&str, Value)],
    first_in_block: bool,
) -> Option<Edit> {
    let t = parsed.tree.as_ref()?;
    let text = &*parsed.file.text;
    if t.kind(map) != Kind::Map || entries.is_empty() {
        return None;
    }
    let span = t.span(map);
    let existing = t.raw_entries(map);
    if text[span.start..].starts_with('{') {
        let json = t.is_json();
        let items: Vec<String> = entries
            .iter()
            .map(|(key, value)| format!("{}: {}", scalar(key, json), flow(value, json)))
            .collect();
        let items = items.join(", ");
        // Before the first entry, so the mapping's own spacing stays as written.
        return Some(match existing.first() {
            Some(&(k, _)) => {
                let at = t.span(k).start;
                (at..at, format!("{items}, "))
            }
            None => {
                let at = span.start + 1;
                (at..at, if json { items } else { format!(" {items} ") })
            }
        });
    }
    let &(first, _) = existing.first()?;
    let key_start = t.span(first).start;
    let line_start = text[..key_start].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..key_start];
    let indent = key_start - line_start;
    let lines: String = entries
        .iter()
        .map(|(key, value)| block(key, value, indent))
        .collect();
    let own_line = before.chars().all(|c| c == ' ');
    if first_in_block && own_line {
        return Some((line_start..line_start, lines));
    }
    if !own_line && !before.chars().all(|c| c == ' ' || c == '-') {
        return None;
    }
    // After the line of the last value's last character (a block value's span may
    // run on to the next line; a comment may follow it on its line).
    let &(last_key, last) = existing.last()?;
    let span = t.span(last);
    let end = (span.start + text[span].trim_end().len()).max(t.span(last_key).end);
    let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
    // Before the `\r` of a CRLF line end.
    let line_end = if line_end > end && text.as_bytes()[line_end - 1] == b'\r' {
        line_end - 1
    } else {
        line_end
    };
    Some((
        line_end..line_end,
        format!("\n{}", lines.trim_end_matches('\n')),
    ))
}

/// The edit removing the entry `key` from the block mapping `map`: every line from
/// the key's to the value's last (a comment on them goes too). `None` in a flow
/// mapping or JSON, when the key shares its line with something before it (`- key:`),
/// or when `key` is absent.
pub fn remove_entry(parsed: &Parsed, map: NodeId, key: &str) -> Option<Edit> {
    let t = parsed.tree.as_ref()?;
    let text = &*parsed.file.text;
    if t.kind(map) != Kind::Map || text[t.span(map).start..].starts_with('{') {
        return None;
    }
    let &(k, v) = t
        .raw_entries(map)
        .iter()
        .find(|&&(k, _)| t.as_str(k) == Some(key))?;
    let key_start = t.span(k).start;
    let line_start = text[..key_start].rfind('\n').map_or(0, |i| i + 1);
    if !text[line_start..key_start].chars().all(|c| c == ' ') {
        return None;
    }
    let end = t.span(v).end.max(t.span(k).end);
    let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
    Some((line_start..line_end, String::new()))
}

/// The mapping a policy finding at `pointer` belongs to: its `operations` entry
/// (`/operations/<selector>`) or `defaults`; `None` elsewhere.
pub fn policy_entry(parsed: &Parsed, pointer: &str) -> Option<NodeId> {
    let t = parsed.tree.as_ref()?;
    let tokens: Vec<&str> = pointer.split('/').skip(1).collect();
    let node = match tokens.as_slice() {
        ["operations", sel, ..] => parsed.at_pointer(&format!("/operations/{sel}")),
        ["defaults", ..] => parsed.at_pointer("/defaults"),
        _ => None,
    }?;
    (t.kind(node) == Kind::Map).then_some(node)
}

/// The value of `key` for a policy `entry`: its own, else the policy's `defaults`'
/// (as a policy inherits keys it does not write).
pub fn inherited(parsed: &Parsed, entry: NodeId, key: &str) -> Option<NodeId> {
    let t = parsed.tree.as_ref()?;
    t.get(entry, key).or_else(|| {
        let defaults = t.get(t.root()?, "defaults")?;
        (defaults != entry && t.kind(defaults) == Kind::Map)
            .then(|| t.get(defaults, key))
            .flatten()
    })
}

/// The `retry_after` entries a policy `entry` lacks for a bounded, stated wait, to
/// add to its `retry_after` mapping: `honor: true` (when `with_honor`), `max` (the
/// entry's inherited `deadline` as written, when there is one) and `on_invalid:
/// backoff`. Shared by the fixes of RL306 and RL307.
pub fn bounded_retry_after(
    parsed: &Parsed,
    entry: NodeId,
    retry_after: Option<NodeId>,
    with_honor: bool,
) -> Vec<(&'static str, Value)> {
    let Some(t) = parsed.tree.as_ref() else {
        return Vec::new();
    };
    let has = |key: &str| retry_after.is_some_and(|m| t.get(m, key).is_some());
    let mut out = Vec::new();
    if with_honor && !has("honor") {
        out.push(("honor", Value::Bool(true)));
    }
    if !has("max") {
        if let Some(deadline) = inherited(parsed, entry, "deadline").and_then(|n| t.as_str(n)) {
            out.push(("max", Value::String(deadline.to_string())));
        }
    }
    if !has("on_invalid") {
        out.push(("on_invalid", Value::String("backoff".into())));
    }
    out
}

/// `path` read through `texts` and parsed, with the tree of the document of its YAML
/// stream (`---`) that holds byte `offset` (a Kubernetes manifest of several
/// objects); `None` when it cannot be read.
pub fn read_at(texts: &dyn super::Texts, path: &Path, offset: usize) -> Option<Parsed> {
    let mut parsed = read(texts, path)?;
    let several = parsed
        .tree
        .as_ref()
        .is_some_and(|t| !t.later_documents().is_empty());
    if several {
        let trees = Tree::parse_stream(parsed.file.text.clone()).ok()?;
        parsed.tree = trees
            .into_iter()
            .filter(|t| t.root().is_some_and(|r| t.span(r).start <= offset))
            .last();
    }
    Some(parsed)
}

/// `path` read through `texts` and parsed; `None` when it cannot be read.
pub fn read(texts: &dyn super::Texts, path: &Path) -> Option<Parsed> {
    Some(parse(path, texts.text(path)?))
}

/// The edit adding `item` to the list `seq` of `parsed`, in its style.
pub fn insert_item(parsed: &Parsed, seq: NodeId, item: &Value) -> Option<Edit> {
    let t = parsed.tree.as_ref()?;
    let text = &*parsed.file.text;
    if t.kind(seq) != Kind::Seq {
        return None;
    }
    let span = t.span(seq);
    let items = t.items(seq);
    let json = t.is_json();
    if text[span.start..].starts_with('[') {
        let sep = if items.is_empty() { "" } else { ", " };
        let at = span.start + 1;
        return Some((at..at, format!("{}{sep}", flow(item, json))));
    }
    let first = *items.first()?;
    let item_start = t.span(first).start;
    let dash = text[..item_start].rfind('-')?;
    let line_start = text[..dash].rfind('\n').map_or(0, |i| i + 1);
    let pad = &text[line_start..dash];
    if !pad.chars().all(|c| c == ' ') {
        return None;
    }
    Some((
        line_start..line_start,
        format!("{pad}- {}\n", flow(item, false)),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn apply(text: &str, edit: Edit) -> String {
        let mut s = text.to_string();
        s.replace_range(edit.0, &edit.1);
        s
    }

    fn parsed(name: &str, text: &str) -> Parsed {
        parse(Path::new(name), Arc::from(text))
    }

    #[test]
    fn an_entry_joins_a_block_mapping_at_its_indentation() {
        let text = "a:\n  b: 1\n  c: 2\n";
        let p = parsed("x.yaml", text);
        let map = p.at_pointer("/a").unwrap();
        let e = insert_entry(&p, map, "jitter", &json!("full")).unwrap();
        assert_eq!(apply(text, e), "a:\n  b: 1\n  c: 2\n  jitter: full\n");
        // After a trailing comment and a nested block; before the first key when asked.
        let text = "a:\n  # the b\n  b: 1  # one\n  c:\n    d: 2\nz: 0\n";
        let p = parsed("x.yaml", text);
        let map = p.at_pointer("/a").unwrap();
        let e = insert_entry(&p, map, "jitter", &json!("full")).unwrap();
        assert_eq!(
            apply(text, e),
            "a:\n  # the b\n  b: 1  # one\n  c:\n    d: 2\n  jitter: full\nz: 0\n"
        );
        let e = insert_entry_first(&p, map, "jitter", &json!("full")).unwrap();
        assert_eq!(
            apply(text, e),
            "a:\n  # the b\n  jitter: full\n  b: 1  # one\n  c:\n    d: 2\nz: 0\n"
        );
    }

    #[test]
    fn an_entry_joins_a_flow_mapping_and_a_json_object() {
        let text = "backoff: { base: 100ms }\n";
        let p = parsed("x.yaml", text);
        let e = insert_entry(
            &p,
            p.at_pointer("/backoff").unwrap(),
            "jitter",
            &json!("full"),
        );
        assert_eq!(
            apply(text, e.unwrap()),
            "backoff: { jitter: full, base: 100ms }\n"
        );
        let text = "{\"a\": {\"b\": 1}}";
        let p = parsed("x.json", text);
        let value = json!({"Retry-After": {"schema": {"type": "integer"}}});
        let e = insert_entry(&p, p.at_pointer("/a").unwrap(), "headers", &value).unwrap();
        let out = apply(text, e);
        assert_eq!(
            out,
            "{\"a\": {\"headers\": {\"Retry-After\": {\"schema\": {\"type\": \"integer\"}}}, \"b\": 1}}"
        );
        assert!(serde_json::from_str::<Value>(&out).is_ok());
    }

    #[test]
    fn nested_values_are_written_as_block_yaml() {
        let text = "r:\n  description: x\n";
        let p = parsed("x.yaml", text);
        let value = json!({"Retry-After": {"schema": {"type": "integer"}}});
        let e = insert_entry(&p, p.at_pointer("/r").unwrap(), "headers", &value).unwrap();
        assert_eq!(
            apply(text, e),
            "r:\n  description: x\n  headers:\n    Retry-After:\n      schema:\n        type: integer\n"
        );
    }

    #[test]
    fn an_item_joins_a_block_list() {
        let text = "ignore:\n  - rule: RL1\n    reason: x\n";
        let p = parsed("x.yaml", text);
        let e = insert_item(
            &p,
            p.at_pointer("/ignore").unwrap(),
            &json!({"rule": "RL2"}),
        );
        assert_eq!(
            apply(text, e.unwrap()),
            "ignore:\n  - { rule: RL2 }\n  - rule: RL1\n    reason: x\n"
        );
    }
}
