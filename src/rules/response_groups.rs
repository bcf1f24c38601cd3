//! Shared by the spec rules (RL5xx): one finding per definition. A response (or any
//! node) reached by several operations, or through a `$ref`, gives one finding at its
//! definition with a label per operation that uses it, never one finding per use.

use crate::diagnostic::Diagnostic;
use crate::openapi::model::{Operation, Response};
use crate::rules::Context;
use crate::source::refs::At;
use std::collections::HashMap;
use std::path::PathBuf;

/// A node and the operations that reach it, in document order.
pub struct Group<'a, T> {
    /// What the operations share (a response, a header schema, an example).
    pub item: T,
    /// The node it is defined at.
    pub at: At,
    /// The operations that use it (each once).
    pub ops: Vec<&'a Operation>,
}

/// Collects items by the node they are defined at, first occurrence first.
pub struct Grouper<'a, T> {
    order: Vec<(PathBuf, u32)>,
    groups: HashMap<(PathBuf, u32), Group<'a, T>>,
}

impl<'a, T> Default for Grouper<'a, T> {
    fn default() -> Self {
        Grouper {
            order: Vec::new(),
            groups: HashMap::new(),
        }
    }
}

impl<'a, T> Grouper<'a, T> {
    /// Records that `op` uses `item`, defined at `at` (the first item seen for a node
    /// is kept).
    pub fn add(&mut self, at: &At, item: T, op: &'a Operation) {
        let key = at.key();
        let group = self.groups.entry(key.clone()).or_insert_with(|| {
            self.order.push(key);
            Group {
                item,
                at: at.clone(),
                ops: Vec::new(),
            }
        });
        if !group.ops.iter().any(|o| std::ptr::eq(*o, op)) {
            group.ops.push(op);
        }
    }

    /// The groups in the order their nodes were first seen.
    pub fn into_groups(mut self) -> Vec<Group<'a, T>> {
        self.order
            .iter()
            .filter_map(|k| self.groups.remove(k))
            .collect()
    }
}

/// Groups, per response definition, the operations whose `pick` response it is.
pub fn group_responses<'a>(
    ctx: &Context<'a>,
    pick: impl Fn(&'a Operation) -> Option<&'a Response>,
) -> Vec<Group<'a, &'a Response>> {
    let mut g = Grouper::default();
    for doc in ctx.documents {
        for op in &doc.operations {
            if let Some(resp) = pick(op) {
                g.add(&resp.at, resp, op);
            }
        }
    }
    g.into_groups()
}

/// `of `POST /orders`` or `shared by 3 operations`, for messages.
pub fn whose(ops: &[&Operation]) -> String {
    if ops.len() == 1 {
        format!("of `{}`", ops[0].display())
    } else {
        format!("shared by {} operations", ops.len())
    }
}

/// Sets the operation when one operation is concerned, and labels every operation
/// when the node is shared (several users, or defined outside the operation).
pub fn with_users(mut d: Diagnostic, at: &At, ops: &[&Operation]) -> Diagnostic {
    if ops.len() == 1 {
        d = d.with_operation(ops[0].display());
    }
    let shared = ops.len() > 1 || ops.iter().any(|op| !defined_inside(at, &op.at));
    if shared {
        for op in ops {
            d = d.with_label(op.key.location(), format!("used by `{}`", op.display()));
        }
    }
    d
}

/// True when `at` is defined inside `container` (same file, a descendant of it).
pub fn defined_inside(at: &At, container: &At) -> bool {
    if at.doc.file.path != container.doc.file.path {
        return false;
    }
    let Some(tree) = at.tree() else {
        return false;
    };
    let mut cur = Some(at.node);
    let mut guard = 0;
    while let Some(n) = cur {
        if n == container.node {
            return true;
        }
        guard += 1;
        if guard > 100_000 {
            return false;
        }
        cur = tree.parent(n);
    }
    false
}
