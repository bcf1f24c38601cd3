//! Shared plumbing for policy rules: one finding per (rule, primary node).
//!
//! Several operations can share one offending node (a `defaults` value, a root
//! `x-retry` value, one `status_endpoint` line). A rule collects its hits per primary
//! node with [`ByNode`] and then builds one finding per node, with a label per
//! affected operation ([`label_operations`]).

use crate::diagnostic::{Diagnostic, Location};
use crate::openapi::model::Operation;
use crate::policy::model::Layer;
use crate::source::refs::At;
use std::collections::HashMap;
use std::path::PathBuf;

/// Hits collected per primary node, in first-seen order.
pub(crate) struct ByNode<'a, T> {
    order: Vec<(PathBuf, u32)>,
    groups: HashMap<(PathBuf, u32), Group<'a, T>>,
}

/// The hits of one primary node.
pub(crate) struct Group<'a, T> {
    /// The primary node.
    pub at: At,
    /// Every affected operation with what the rule found for it, in order.
    pub hits: Vec<(&'a Operation, T)>,
}

impl<'a, T> Group<'a, T> {
    /// The affected operations, in order, each once.
    pub fn operations(&self) -> Vec<&'a Operation> {
        let mut out: Vec<&'a Operation> = Vec::new();
        for (op, _) in &self.hits {
            if !out.iter().any(|o| o.key.same_node(&op.key)) {
                out.push(op);
            }
        }
        out
    }

    /// The first hit's data.
    pub fn first(&self) -> &T {
        &self.hits[0].1
    }
}

impl<'a, T> ByNode<'a, T> {
    /// Nothing collected.
    pub fn new() -> Self {
        ByNode {
            order: Vec::new(),
            groups: HashMap::new(),
        }
    }

    /// Records that `op` is affected by the value at `primary`.
    pub fn add(&mut self, primary: &At, op: &'a Operation, data: T) {
        let key = primary.key();
        self.groups
            .entry(key.clone())
            .or_insert_with(|| {
                self.order.push(key);
                Group {
                    at: primary.clone(),
                    hits: Vec::new(),
                }
            })
            .hits
            .push((op, data));
    }

    /// The groups, in first-seen order.
    pub fn into_groups(mut self) -> Vec<Group<'a, T>> {
        self.order
            .iter()
            .filter_map(|k| self.groups.remove(k))
            .collect()
    }
}

/// `` `POST /orders` ``, `` `POST /orders` and `PATCH /orders/{id}` ``, or the first
/// three names and how many more.
pub(crate) fn operation_list(ops: &[&Operation]) -> String {
    let names: Vec<String> = ops.iter().map(|o| format!("`{}`", o.display())).collect();
    match names.len() {
        n if n <= 3 => join_and(&names),
        n => format!("{} and {} more", names[..3].join(", "), n - 3),
    }
}

/// `a`, `a and b`, `a, b and c`.
pub(crate) fn join_and(items: &[String]) -> String {
    match items.len() {
        0 => String::new(),
        1 => items[0].clone(),
        n => format!("{} and {}", items[..n - 1].join(", "), items[n - 1]),
    }
}

/// ` by the gateway layer` (nothing for the client layer), as rl201 and rl301 say it.
pub(crate) fn layer_phrase(layer: Layer) -> String {
    match layer {
        Layer::Client => String::new(),
        l => format!(" by the {} layer", l.as_str()),
    }
}

/// Adds a label on each affected operation and sets [`Diagnostic::operation`] when
/// the finding is about exactly one operation. A finding shared by several
/// operations (one `defaults` value) names no single operation; its labels list them.
pub(crate) fn label_operations(
    mut d: Diagnostic,
    ops: &[&Operation],
    label: impl Fn(&Operation) -> String,
) -> Diagnostic {
    for op in ops {
        d = with_label_once(d, op.key.location(), label(op));
    }
    if let [op] = ops {
        d = d.with_operation(op.display());
    }
    d
}

/// Adds a label unless the primary location or an existing label already underlines
/// the same span of the same file.
pub(crate) fn with_label_once(
    d: Diagnostic,
    location: Location,
    message: impl Into<String>,
) -> Diagnostic {
    let same = |l: &Location| l.file.path == location.file.path && l.span == location.span;
    if same(&d.primary.location) || d.labels.iter().any(|l| same(&l.location)) {
        return d;
    }
    d.with_label(location, message)
}

/// The text of a scalar value node as written (`5m`), else `fallback`.
pub(crate) fn written(at: Option<&At>, fallback: impl FnOnce() -> String) -> String {
    at.and_then(|a| a.scalar().map(str::to_string))
        .unwrap_or_else(fallback)
}
