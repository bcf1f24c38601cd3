//! Spring Cloud Gateway route definitions as written: a predicate or filter item is
//! either the shortcut `Name=a,b,c` (split on commas, each token trimmed, empty
//! tokens dropped: `FilterDefinition(String)` with `tokenizeToStringArray`) or the
//! full form `{name: Name, args: {...}}`. Arguments are looked up by their field name
//! (relaxed binding: `firstBackoff`, `first-backoff`) or, positionally, through the
//! factory's shortcut field order (`_genkey_N` keys count as positional too).

use super::super::source::{resolve, Resolved};
use crate::source::tree::{Kind, NodeId, Tree};

/// A scalar with Spring's placeholders resolved (`${VAR:default}` takes the
/// default); `Err` with the text as written when a placeholder has no default.
fn resolved(text: &str) -> Result<String, String> {
    match resolve(text) {
        Resolved::Known(s) => Ok(s),
        Resolved::Unknown(_) => Err(text.to_string()),
    }
}

/// One predicate or filter definition.
#[derive(Debug, Clone)]
pub struct Definition {
    /// The item node (the shortcut scalar, or the `{name, args}` mapping).
    pub node: NodeId,
    /// The factory name as written (`Retry`, `Path`, `StripPrefix`).
    pub name: String,
    /// True for the shortcut form (`Retry=3,...` or a bare `Retry`).
    pub shortcut: bool,
    /// The arguments, in written order.
    pub args: Vec<Arg>,
    /// The `args` mapping of the full form.
    pub args_node: Option<NodeId>,
}

/// One argument of a definition.
#[derive(Debug, Clone)]
pub struct Arg {
    /// The field name as a dotted path (`retries`, `backoff.firstBackoff`); `None`
    /// for a positional (shortcut or `_genkey_N`) argument.
    pub key: Option<String>,
    /// The node to point at: the value node of a keyed argument (its location is
    /// the key token), the item itself for a shortcut token.
    pub node: NodeId,
    /// The values: a scalar, or each item of a list (a YAML sequence, a
    /// `.properties` index map); a comma-separated scalar is split by [`Arg::list`].
    pub values: Vec<(String, NodeId)>,
    /// True when the value is a list node (not one scalar).
    pub is_list: bool,
    /// The placeholder when the value holds a `${VAR}` without a default (its value
    /// depends on the environment).
    pub unresolved: Option<String>,
}

impl Arg {
    /// The argument's single text value (the first, for a list).
    pub fn text(&self) -> Option<&str> {
        self.values.first().map(|(s, _)| s.as_str())
    }

    /// The argument as a list: the list items, or a scalar split on commas (Spring
    /// converts `GET,POST` to a list), each trimmed, empty ones dropped.
    pub fn list(&self) -> Vec<(String, NodeId)> {
        if self.is_list {
            return self.values.clone();
        }
        self.values
            .iter()
            .flat_map(|(s, n)| {
                s.split(',')
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(|t| (t.to_string(), *n))
                    .collect::<Vec<_>>()
            })
            .collect()
    }
}

/// Spring's relaxed key form: lower case without `-` and `_` (`firstBackoff`,
/// `first-backoff` and `first_backoff` are one key).
pub fn relaxed(key: &str) -> String {
    key.chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// True when two (dotted) keys are the same under relaxed binding.
pub fn relaxed_key_eq(a: &str, b: &str) -> bool {
    let a: Vec<String> = a.split('.').map(relaxed).collect();
    let b: Vec<String> = b.split('.').map(relaxed).collect();
    a == b
}

/// The items of a list node: a sequence, or a mapping whose keys are all indexes
/// (`.properties` `routes[0]`, `routes[1]`), sorted by index. A mapping with other
/// keys is no list (empty).
pub fn list_items(tree: &Tree, node: NodeId) -> Vec<NodeId> {
    match tree.kind(node) {
        Kind::Seq => tree.items(node).to_vec(),
        Kind::Map => {
            let mut indexed: Vec<(u64, NodeId)> = Vec::new();
            for &(k, v) in tree.raw_entries(node) {
                let Some(idx) = tree
                    .scalar(k)
                    .map(|s| s.trim_matches(|c| c == '[' || c == ']'))
                    .and_then(|s| s.parse::<u64>().ok())
                else {
                    return Vec::new();
                };
                indexed.push((idx, v));
            }
            indexed.sort_by_key(|(i, _)| *i);
            indexed.into_iter().map(|(_, v)| v).collect()
        }
        _ => Vec::new(),
    }
}

/// The definition at `item`, or `None` when it is neither a scalar nor a mapping
/// with a `name`.
pub fn read(tree: &Tree, item: NodeId) -> Option<Definition> {
    if let Some(raw) = tree.scalar(item) {
        let text = resolved(raw).unwrap_or_else(|raw| raw);
        let text = text.as_str();
        let (name, rest) = match text.find('=') {
            Some(i) if i > 0 => (&text[..i], Some(&text[i + 1..])),
            _ => (text, None),
        };
        let args = rest
            .map(|r| {
                r.split(',')
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(|t| Arg {
                        key: None,
                        node: item,
                        values: vec![(t.to_string(), item)],
                        is_list: false,
                        unresolved: t.contains("${").then(|| t.to_string()),
                    })
                    .collect()
            })
            .unwrap_or_default();
        return Some(Definition {
            node: item,
            name: name.trim().to_string(),
            shortcut: true,
            args,
            args_node: None,
        });
    }
    if tree.kind(item) != Kind::Map {
        return None;
    }
    let mut name = None;
    let mut args_node = None;
    for &(k, v) in tree.raw_entries(item) {
        match tree.scalar(k).map(relaxed).as_deref() {
            Some("name") => name = tree.scalar(v).map(|s| s.trim().to_string()),
            Some("args") => args_node = Some(v),
            _ => {}
        }
    }
    let mut args = Vec::new();
    if let Some(a) = args_node {
        flatten(tree, a, "", &mut args);
    }
    Some(Definition {
        node: item,
        name: name?,
        shortcut: false,
        args,
        args_node,
    })
}

/// The arguments of a full-form `args` mapping with dotted keys (Spring binds the
/// nested `backoff: {firstBackoff: 10ms}` and the flat `backoff.firstBackoff: 10ms`
/// alike).
fn flatten(tree: &Tree, map: NodeId, prefix: &str, out: &mut Vec<Arg>) {
    if tree.kind(map) != Kind::Map {
        return;
    }
    for &(k, v) in tree.raw_entries(map) {
        let Some(key) = tree.scalar(k) else { continue };
        let positional = prefix.is_empty() && key.starts_with("_genkey_");
        let full = if prefix.is_empty() {
            key.to_string()
        } else {
            format!("{prefix}.{key}")
        };
        match tree.kind(v) {
            Kind::Map if list_items(tree, v).is_empty() => flatten(tree, v, &full, out),
            Kind::Map | Kind::Seq => {
                let mut unresolved = None;
                let values = list_items(tree, v)
                    .into_iter()
                    .filter_map(|i| {
                        tree.scalar(i).map(|s| match resolved(s) {
                            Ok(r) => (r, i),
                            Err(raw) => {
                                unresolved.get_or_insert(raw.clone());
                                (raw, i)
                            }
                        })
                    })
                    .collect();
                out.push(Arg {
                    key: (!positional).then_some(full),
                    node: v,
                    values,
                    is_list: true,
                    unresolved,
                });
            }
            _ => {
                let (values, unresolved) = match tree.scalar(v).map(resolved) {
                    Some(Ok(r)) => (vec![(r, v)], None),
                    Some(Err(raw)) => (vec![(raw.clone(), v)], Some(raw)),
                    None => (Vec::new(), None),
                };
                out.push(Arg {
                    key: (!positional).then_some(full),
                    node: v,
                    values,
                    is_list: false,
                    unresolved,
                });
            }
        }
    }
}

impl Definition {
    /// The argument for `field` (a dotted name of the factory's config), by key or
    /// by its position in `order` (the factory's shortcut field order).
    /// A value holding a placeholder without a default is not returned: its value
    /// depends on the environment (the caller reports it).
    pub fn arg(&self, field: &str, order: &[&str]) -> Option<&Arg> {
        self.written_arg(field, order)
            .filter(|a| a.unresolved.is_none())
    }

    /// The argument for `field` as written, placeholders or not.
    pub fn written_arg(&self, field: &str, order: &[&str]) -> Option<&Arg> {
        let mut position = 0;
        let mut found = None;
        for a in &self.args {
            match &a.key {
                Some(k) if relaxed_key_eq(k, field) => found = Some(a),
                Some(_) => {}
                None => {
                    if order.get(position).is_some_and(|f| *f == field) {
                        found = Some(a);
                    }
                    position += 1;
                }
            }
        }
        found
    }

    /// True when some argument's key starts with `prefix.` (a `backoff` or `jitter`
    /// block is written), or a positional argument fills such a field.
    pub fn has_block(&self, prefix: &str, order: &[&str]) -> Option<NodeId> {
        let mut position = 0;
        for a in &self.args {
            match &a.key {
                Some(k) => {
                    let first = k.split('.').next().unwrap_or("");
                    if relaxed(first) == relaxed(prefix) {
                        return Some(a.node);
                    }
                }
                None => {
                    if order
                        .get(position)
                        .is_some_and(|f| f.starts_with(&format!("{prefix}.")))
                    {
                        return Some(a.node);
                    }
                    position += 1;
                }
            }
        }
        None
    }

    /// The positional arguments beyond the shortcut field order (ignored by Spring).
    pub fn extra_positional(&self, order: &[&str]) -> Vec<&Arg> {
        self.args
            .iter()
            .filter(|a| a.key.is_none())
            .skip(order.len())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn tree(text: &str) -> Tree {
        Tree::parse(Arc::from(text)).expect("yaml")
    }

    #[test]
    fn shortcut_tokens_are_trimmed_and_empty_ones_dropped() {
        let t = tree("- Retry=3, INTERNAL_SERVER_ERROR,,GET\n");
        let item = t.items(t.root().unwrap())[0];
        let d = read(&t, item).unwrap();
        assert_eq!(d.name, "Retry");
        let order = ["retries", "statuses", "methods"];
        assert_eq!(d.arg("retries", &order).and_then(Arg::text), Some("3"));
        assert_eq!(
            d.arg("methods", &order).and_then(Arg::text),
            Some("GET"),
            "the empty token is dropped, GET stays third"
        );
    }

    #[test]
    fn full_form_binds_nested_and_dotted_keys_relaxed() {
        let t = tree(
            "- name: Retry\n  args:\n    methods: GET,POST\n    backoff:\n      first-backoff: 10ms\n    backoff.maxBackoff: 50ms\n",
        );
        let item = t.items(t.root().unwrap())[0];
        let d = read(&t, item).unwrap();
        let order: [&str; 0] = [];
        let methods: Vec<String> = d
            .arg("methods", &order)
            .unwrap()
            .list()
            .into_iter()
            .map(|(s, _)| s)
            .collect();
        assert_eq!(methods, ["GET", "POST"]);
        assert_eq!(
            d.arg("backoff.firstBackoff", &order).and_then(Arg::text),
            Some("10ms")
        );
        assert_eq!(
            d.arg("backoff.maxBackoff", &order).and_then(Arg::text),
            Some("50ms")
        );
        assert!(d.has_block("backoff", &order).is_some());
        assert!(d.has_block("jitter", &order).is_none());
    }

    #[test]
    fn index_maps_are_lists() {
        let t = tree("\"1\": b\n\"0\": a\n");
        let items = list_items(&t, t.root().unwrap());
        assert_eq!(t.scalar(items[0]), Some("a"));
        let t = tree("a: 1\n");
        assert!(list_items(&t, t.root().unwrap()).is_empty());
    }
}
