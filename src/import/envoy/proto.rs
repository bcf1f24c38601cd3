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

/// The largest `google.protobuf.Duration`, in seconds: about 10,000 years
/// (`duration.proto`: seconds within ±315,576,000,000, nanos within ±999,999,999).
pub const MAX_DURATION_SECONDS: i64 = 315_576_000_000;

/// Why a value is not a `google.protobuf.Duration` the platform accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DurationError {
    /// Not a duration at all (`nope`, `1e309s`, `{seconds: x}`).
    Unreadable,
    /// A duration beyond [`MAX_DURATION_SECONDS`] (or `nanos` beyond 999,999,999).
    OutOfRange,
    /// A negative duration (`-1s`, `{seconds: -1}`): a proto Duration, which Envoy
    /// refuses (`DurationUtil`: "Expected positive duration").
    Negative,
}

/// A `google.protobuf.Duration` in ms: a proto3-JSON string (`"2s"`, `"0.100s"`; Go
/// units also accepted), or a `{seconds, nanos}` mapping. `None` when unreadable,
/// negative or out of the Duration range ([`duration_checked`] says which).
pub fn duration_ms(tree: &Tree, node: NodeId) -> Option<Millis> {
    duration_checked(tree, node).ok()
}

/// [`duration_ms`], with why a value is refused: the platform rejects a Duration
/// beyond [`MAX_DURATION_SECONDS`], so it is never read as a (huge or default)
/// value.
pub fn duration_checked(tree: &Tree, node: NodeId) -> Result<Millis, DurationError> {
    let max_ms = MAX_DURATION_SECONDS as f64 * 1000.0;
    match tree.kind(node) {
        Kind::Map => {
            let part = |key: &str| match get(tree, node, key) {
                None => Ok(0),
                Some(n) => int(tree, n).ok_or(DurationError::Unreadable),
            };
            let (secs, nanos) = (part("seconds")?, part("nanos")?);
            if secs.abs() > MAX_DURATION_SECONDS || nanos.abs() > 999_999_999 {
                return Err(DurationError::OutOfRange);
            }
            if secs < 0 || nanos < 0 {
                return Err(DurationError::Negative);
            }
            Ok(secs as f64 * 1000.0 + nanos as f64 / 1_000_000.0)
        }
        _ => {
            let written = text(tree, node).ok_or(DurationError::Unreadable)?;
            // A sign is proto3 JSON (`"-1.5s"`): a Duration, negative unless zero.
            if let Some(magnitude) = written.trim().strip_prefix('-') {
                let ms = duration::parse_go(magnitude).ok_or(DurationError::Unreadable)?;
                return if ms == 0.0 {
                    Ok(0.0)
                } else {
                    Err(DurationError::Negative)
                };
            }
            let ms = duration::parse_go(written)
                .filter(|ms| *ms >= 0.0)
                .ok_or(DurationError::Unreadable)?;
            // An infinite sum is a number too long for f64: out of range too.
            if ms > max_ms {
                return Err(DurationError::OutOfRange);
            }
            Ok(ms)
        }
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

    #[test]
    fn negative_durations_are_out_of_range_not_unreadable() {
        let tree = Tree::parse(Arc::from(
            "a: [-1s, \"-0.5s\", {seconds: -3}, {seconds: 1, nanos: -1}, -0s, -x, --1s]",
        ))
        .unwrap();
        let a = tree.get(tree.root().unwrap(), "a").unwrap();
        let got: Vec<_> = tree
            .items(a)
            .iter()
            .map(|&n| duration_checked(&tree, n))
            .collect();
        use DurationError::*;
        assert_eq!(
            got,
            [
                Err(Negative),
                Err(Negative),
                Err(Negative),
                Err(Negative),
                Ok(0.0),
                Err(Unreadable),
                Err(Unreadable),
            ]
        );
    }
}
