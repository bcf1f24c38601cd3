//! Reading proto3 messages written as YAML or JSON: every field in either spelling
//! (`retry_policy` or proto3-JSON `retryPolicy`), integers also as strings (proto3
//! JSON writes int64/uint64 as `"2"`), booleans, and `google.protobuf.Duration`
//! (`"2s"`, `"0.100s"`, or `{seconds, nanos}`) in ms (`retry-configs.md` §3.3).

use crate::import::duration;
use crate::policy::duration::Millis;
use crate::source::tree::{Kind, NodeId, Tree};

/// The proto3-JSON (lowerCamelCase) spelling of a snake_case field name:
/// `retry_on` -> `retryOn`, `num_retries` -> `numRetries`.
pub fn camel(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The (key, value) nodes of field `snake` in the mapping `map`, in either spelling
/// (the snake_case one first); `None` when `map` is not a mapping or has neither.
pub fn field(tree: &Tree, map: NodeId, snake: &str) -> Option<(NodeId, NodeId)> {
    if tree.kind(map) != Kind::Map {
        return None;
    }
    tree.get_entry(map, snake).or_else(|| {
        let c = camel(snake);
        (c != snake).then(|| tree.get_entry(map, &c)).flatten()
    })
}

/// The value node of field `snake` in either spelling; an explicit `null` counts as
/// absent.
pub fn get(tree: &Tree, map: NodeId, snake: &str) -> Option<NodeId> {
    field(tree, map, snake)
        .map(|(_, v)| v)
        .filter(|&v| tree.kind(v) != Kind::Null)
}

/// The mapping value of field `snake` (`None` when absent or not a mapping).
pub fn map(tree: &Tree, parent: NodeId, snake: &str) -> Option<NodeId> {
    get(tree, parent, snake).filter(|&v| tree.kind(v) == Kind::Map)
}

/// The items of the sequence field `snake` (empty when absent or not a sequence).
pub fn items<'t>(tree: &'t Tree, parent: NodeId, snake: &str) -> &'t [NodeId] {
    match get(tree, parent, snake) {
        Some(v) => tree.items(v),
        None => &[],
    }
}

/// A scalar's text (strings, and numbers or booleans written plainly).
pub fn text(tree: &Tree, node: NodeId) -> Option<&str> {
    tree.scalar(node).filter(|_| tree.kind(node) != Kind::Null)
}

/// The text of the scalar field `snake`.
pub fn field_text<'t>(tree: &'t Tree, parent: NodeId, snake: &str) -> Option<&'t str> {
    get(tree, parent, snake).and_then(|v| text(tree, v))
}

/// An integer: a YAML/JSON integer, or a string of digits (proto3 JSON int64).
pub fn int(tree: &Tree, node: NodeId) -> Option<i64> {
    tree.as_i64(node)
        .or_else(|| tree.as_str(node)?.trim().parse::<i64>().ok())
}

/// A boolean: `true`/`false`, or the strings `"true"`/`"false"`.
pub fn boolean(tree: &Tree, node: NodeId) -> Option<bool> {
    tree.as_bool(node)
        .or_else(|| match tree.as_str(node)?.trim() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        })
}

/// A number (integer, float, or a numeric string).
pub fn number(tree: &Tree, node: NodeId) -> Option<f64> {
    tree.as_f64(node)
        .or_else(|| tree.as_str(node)?.trim().parse::<f64>().ok())
        .filter(|v| v.is_finite())
}

/// A `google.protobuf.Duration` in ms: a proto3-JSON string (`"2s"`, `"0.100s"`; Go
/// units also accepted), or a `{seconds, nanos}` mapping. `None` when unreadable or
/// negative.
pub fn duration_ms(tree: &Tree, node: NodeId) -> Option<Millis> {
    match tree.kind(node) {
        Kind::Map => {
            let secs = get(tree, node, "seconds")
                .and_then(|n| int(tree, n))
                .unwrap_or(0);
            let nanos = get(tree, node, "nanos")
                .and_then(|n| int(tree, n))
                .unwrap_or(0);
            let ms = secs as f64 * 1000.0 + nanos as f64 / 1_000_000.0;
            (ms >= 0.0).then_some(ms)
        }
        _ => duration::parse_go(text(tree, node)?).filter(|ms| *ms >= 0.0),
    }
}

/// Both spellings of each snake_case field name, for [`crate::import::keys::unknown_keys`].
pub fn both_spellings(snake: &[&str]) -> Vec<String> {
    let mut out = Vec::with_capacity(snake.len() * 2);
    for s in snake {
        out.push((*s).to_string());
        let c = camel(s);
        if c != *s {
            out.push(c);
        }
    }
    out
}

/// The `@type` of a message (`type.googleapis.com/envoy.config.listener.v3.Listener`),
/// or the empty string.
pub fn type_url(tree: &Tree, node: NodeId) -> &str {
    tree.get(node, "@type")
        .and_then(|n| tree.as_str(n))
        .unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn both_spellings_and_int64_strings() {
        assert_eq!(camel("retry_on"), "retryOn");
        assert_eq!(
            camel("host_selection_retry_max_attempts"),
            "hostSelectionRetryMaxAttempts"
        );
        let tree = Tree::parse(Arc::from(
            "a: {numRetries: \"2\", per_try_timeout: 0.250s, t: {seconds: 1, nanos: 500000000}}",
        ))
        .unwrap();
        let a = tree.get(tree.root().unwrap(), "a").unwrap();
        assert_eq!(
            get(&tree, a, "num_retries").and_then(|n| int(&tree, n)),
            Some(2)
        );
        assert_eq!(
            get(&tree, a, "per_try_timeout").and_then(|n| duration_ms(&tree, n)),
            Some(250.0)
        );
        assert_eq!(
            get(&tree, a, "t").and_then(|n| duration_ms(&tree, n)),
            Some(1500.0)
        );
        assert!(get(&tree, a, "retry_on").is_none());
    }
}
