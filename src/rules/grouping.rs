//! The one grouping helper every rule uses: one finding per (rule, primary node), with
//! a label per affected operation, never one finding per operation.
//!
//! A `defaults` value, a root `x-retry` value or a response component shared through
//! `$ref` usually affects many operations. Reporting it once per operation would print
//! the same line many times, so a rule collects its hits per primary node and builds
//! one finding per node:
//! - [`Collector`] for findings whose message is a template (`{ops}` for the affected
//!   operations): push a [`Hit`] per operation, get the findings back;
//! - [`ByNode`] for rules that combine what they found per operation (lists of missing
//!   items, several status operations) into their own message, then call
//!   [`label_operations`] (or [`with_users`] for spec nodes).
//!
//! [`Diagnostic::operations`] lists every affected operation; [`Diagnostic::operation`]
//! is set when exactly one is.

use crate::analysis::{EffectivePolicy, JoinedOperation};
use crate::diagnostic::{Diagnostic, Location, Severity};
use crate::openapi::model::{Operation, Response};
use crate::policy::model::Layer;
use crate::rules::{Context, RuleMeta};
use crate::source::refs::At;
use crate::source::tree::NodeId;
use crate::source::SourceFile;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Every (operation, its OpenAPI operation, one of its layers), in operation then
/// layer order.
pub fn layers<'a>(
    ctx: &'a Context<'a>,
) -> impl Iterator<Item = (&'a JoinedOperation, &'a Operation, &'a EffectivePolicy)> + 'a {
    ctx.analysis.operations.iter().flat_map(move |jo| {
        let op = jo.resolve(ctx.documents);
        jo.layers.iter().map(move |eff| (jo, op, eff))
    })
}

/// [`layers`] restricted to retried layers ([`EffectivePolicy::is_retried`]).
pub fn retried_layers<'a>(
    ctx: &'a Context<'a>,
) -> impl Iterator<Item = (&'a JoinedOperation, &'a Operation, &'a EffectivePolicy)> + 'a {
    layers(ctx).filter(|(_, _, eff)| eff.is_retried())
}

/// A group's key: the primary node (file, node) and what else must agree for two
/// hits to share a finding (empty for [`ByNode::add`]).
type Key = (PathBuf, usize, u32, String);

/// Hits collected per primary node, in first-seen order.
pub struct ByNode<'a, T> {
    order: Vec<Key>,
    groups: HashMap<Key, Group<'a, T>>,
}

/// The hits of one primary node.
pub struct Group<'a, T> {
    /// The primary node.
    pub at: At,
    /// Every affected operation with what the rule found for it, in order.
    pub hits: Vec<(&'a Operation, T)>,
}

impl<'a, T> Group<'a, T> {
    /// The affected operations, in order, each once.
    pub fn operations(&self) -> Vec<&'a Operation> {
        // A set, not a scan of `out`: a response shared by thousands of operations
        // (Microsoft Graph) made the scan quadratic.
        let mut seen: HashSet<(&Path, NodeId)> = HashSet::new();
        self.hits
            .iter()
            .filter(|(op, _)| seen.insert((op.key.doc.file.path.as_path(), op.key.node)))
            .map(|(op, _)| *op)
            .collect()
    }

    /// The first hit's data.
    pub fn first(&self) -> &T {
        &self.hits[0].1
    }
}

impl<'a, T> Default for ByNode<'a, T> {
    fn default() -> Self {
        ByNode {
            order: Vec::new(),
            groups: HashMap::new(),
        }
    }
}

impl<'a, T> ByNode<'a, T> {
    /// Nothing collected.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records that `op` is affected by the value at `primary`.
    pub fn add(&mut self, primary: &At, op: &'a Operation, data: T) {
        self.add_keyed(primary, String::new(), op, data);
    }

    /// Like [`ByNode::add`], but hits share a group only when `discriminator` agrees
    /// too.
    fn add_keyed(&mut self, primary: &At, mut discriminator: String, op: &'a Operation, data: T) {
        if is_known(primary, op) {
            // Known and new hits never share a finding (see [`Split`]).
            discriminator.push_str("\u{0}known");
        }
        let (path, document, node) = primary.key();
        let key = (path, document, node, discriminator);
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

/// Which hits a baseline already records: `is_known(rule, primary, document,
/// operation)` with the primary node's location, the operation's OpenAPI document and
/// the operation as `METHOD /path`.
pub trait Partition: Send + Sync {
    /// True when the baseline records a finding of `rule` at `primary` about
    /// `operation`.
    fn is_known(
        &self,
        rule: &str,
        primary: &Location,
        document: &SourceFile,
        operation: &str,
    ) -> bool;
}

/// A baseline's view for the grouping: while a rule runs under [`Split::run`], hits the
/// baseline records and new hits of one node form separate findings, so the finding
/// that survives the baseline names only the new operations (its message, help and
/// labels are built from the new hits alone). Without a split nothing changes. The
/// split only shapes findings; the baseline filter decides what is hidden, so a wrong
/// answer (a rule keying its finding at another node than it groups on) never hides a
/// finding, it only lets the reported one name recorded operations too.
#[derive(Clone)]
pub struct Split(pub Arc<dyn Partition>);

impl std::fmt::Debug for Split {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Split")
    }
}

thread_local! {
    /// The rule running on this thread and the split it runs under.
    static SPLIT: RefCell<Option<(&'static str, Split)>> = const { RefCell::new(None) };
}

impl Split {
    /// Runs `f` (one rule's check, `rule` its code) under `split`, restoring whatever
    /// was set before (rayon may run another rule's check nested on this thread).
    pub fn run<R>(split: Option<&Split>, rule: &'static str, f: impl FnOnce() -> R) -> R {
        let Some(split) = split else { return f() };
        let before = SPLIT.with(|s| s.replace(Some((rule, split.clone()))));
        struct Restore(Option<(&'static str, Split)>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let before = self.0.take();
                SPLIT.with(|s| *s.borrow_mut() = before);
            }
        }
        let _restore = Restore(before);
        f()
    }
}

fn is_known(primary: &At, op: &Operation) -> bool {
    SPLIT.with(|s| match &*s.borrow() {
        Some((rule, split)) => {
            split
                .0
                .is_known(rule, &primary.location(), &op.key.doc.file, &op.display())
        }
        None => false,
    })
}

/// One problem found on one operation in one layer.
pub struct Hit<'a> {
    /// The most specific node that sets the offending value.
    pub primary: At,
    /// The primary label (a short noun phrase).
    pub label: String,
    /// The message, with `{ops}` standing for the affected operation(s) ("`GET /a`",
    /// "`GET /a` and `GET /b`"), and `{is}` / `{does}` for the verb agreeing with it.
    pub message: String,
    /// Help text (imperative), with the same placeholders as the message.
    pub help: String,
    /// Severity (rules with two severities lower it for the milder case).
    pub severity: Severity,
    /// The affected operation.
    pub op: &'a Operation,
    /// Label text on the operation.
    pub op_label: String,
    /// Other policy nodes worth showing (the deadline, another layer's attempts).
    pub labels: Vec<(Location, String)>,
}

impl<'a> Hit<'a> {
    /// A hit of `meta`'s default severity, the operation labelled "affected
    /// operation".
    pub fn new(
        meta: &RuleMeta,
        primary: &At,
        label: impl Into<String>,
        message: impl Into<String>,
        help: impl Into<String>,
        op: &'a Operation,
    ) -> Hit<'a> {
        Hit {
            primary: primary.clone(),
            label: label.into(),
            message: message.into(),
            help: help.into(),
            severity: meta.severity,
            op,
            op_label: "affected operation".to_string(),
            labels: Vec::new(),
        }
    }

    /// A hit at the node that turns retrying on in `eff` (`retry: true`): "{ops} {is}
    /// retried without {what}", the operation labelled "retried operation". `None`
    /// when no node turns it on.
    pub fn retried_without(
        meta: &RuleMeta,
        eff: &EffectivePolicy,
        op: &'a Operation,
        what: &str,
        help: impl Into<String>,
    ) -> Option<Hit<'a>> {
        let at = eff.retry_origin()?;
        let message = format!(
            "{{ops}} {{is}} retried{} without {what}",
            layer_phrase(eff.layer)
        );
        Some(
            Hit::new(meta, at, "retry turned on here", message, help, op)
                .op_label("retried operation"),
        )
    }

    /// Moves the primary location to `at` with `label` (the label list is unchanged).
    pub fn primary_at(mut self, at: &At, label: impl Into<String>) -> Hit<'a> {
        self.primary = at.clone();
        self.label = label.into();
        self
    }

    /// Sets the severity.
    pub fn severity(mut self, severity: Severity) -> Hit<'a> {
        self.severity = severity;
        self
    }

    /// Sets the label text on the operation.
    pub fn op_label(mut self, label: impl Into<String>) -> Hit<'a> {
        self.op_label = label.into();
        self
    }

    /// Adds a label at another node (skipped when it is the primary node).
    pub fn label_at(mut self, at: Option<&At>, message: impl Into<String>) -> Hit<'a> {
        if let Some(at) = at {
            if !at.same_node(&self.primary) {
                self.labels.push((at.location(), message.into()));
            }
        }
        self
    }
}

/// Merges hits into findings: one per (primary node, message template, severity).
#[derive(Default)]
pub struct Collector<'a> {
    groups: ByNode<'a, Hit<'a>>,
}

impl<'a> Collector<'a> {
    /// A collector with nothing in it.
    pub fn new() -> Collector<'a> {
        Collector::default()
    }

    /// Adds every hit (none, for an empty `Option`).
    pub fn extend(&mut self, hits: impl IntoIterator<Item = Hit<'a>>) {
        for hit in hits {
            self.push(hit);
        }
    }

    /// Adds one hit.
    pub fn push(&mut self, hit: Hit<'a>) {
        let discriminator = format!("{}\u{0}{}", hit.severity.as_str(), hit.message);
        let primary = hit.primary.clone();
        self.groups.add_keyed(&primary, discriminator, hit.op, hit);
    }

    /// The findings, in the order their first hit was pushed.
    pub fn finish(self, meta: &RuleMeta) -> Vec<Diagnostic> {
        self.groups
            .into_groups()
            .into_iter()
            .map(|g| {
                let ops = g.operations();
                let first = g.first();
                let fill = |text: &str| {
                    let one = ops.len() == 1;
                    text.replace("{ops}", &operation_list(&ops))
                        .replace("{is}", if one { "is" } else { "are" })
                        .replace("{does}", if one { "does" } else { "do" })
                };
                let mut d = Diagnostic::new(
                    meta,
                    fill(&first.message),
                    first.primary.location(),
                    &first.label,
                );
                d.severity = first.severity;
                // Each label once, in the order of the hits: a set beside the list,
                // since one finding can group thousands of operations (a scan per
                // label made `check` quadratic in them; issue 43).
                let mut seen: HashSet<(&std::path::Path, usize, usize, &str)> = HashSet::new();
                for (_, hit) in &g.hits {
                    for (loc, msg) in &hit.labels {
                        let key = (
                            loc.file.path.as_path(),
                            loc.span.start,
                            loc.span.end,
                            msg.as_str(),
                        );
                        if seen.insert(key) {
                            d = d.with_label(loc.clone(), msg.clone());
                        }
                    }
                }
                // The label of each operation: its first hit's.
                let mut op_labels: HashMap<(PathBuf, usize, u32), &String> = HashMap::new();
                for (o, h) in &g.hits {
                    op_labels.entry(o.key.key()).or_insert(&h.op_label);
                }
                let d = label_operations(d, &ops, |op| {
                    op_labels
                        .get(&op.key.key())
                        .map(|l| (*l).clone())
                        .unwrap_or_default()
                });
                d.with_help(fill(&first.help))
            })
            .collect()
    }
}

fn same_location(a: &Location, b: &Location) -> bool {
    a.span == b.span && a.file.path.as_os_str() == b.file.path.as_os_str()
}

/// Groups, per response definition, the operations whose `pick` response it is.
pub fn group_responses<'a>(
    ctx: &Context<'a>,
    pick: impl Fn(&'a Operation) -> Option<&'a Response>,
) -> Vec<Group<'a, &'a Response>> {
    let mut g = ByNode::new();
    for doc in ctx.documents {
        for op in &doc.operations {
            if let Some(resp) = pick(op) {
                g.add(&resp.at, op, resp);
            }
        }
    }
    g.into_groups()
}

/// "`GET /a`", "`GET /a` and `GET /b`", "`GET /a`, `GET /b` and `GET /c`",
/// "`GET /a`, `GET /b` and 3 more operations".
pub fn operation_list(ops: &[&Operation]) -> String {
    let names: Vec<String> = ops.iter().map(|o| o.display()).collect();
    subject(&names)
}

fn subject(names: &[String]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match q.len() {
        0..=3 => join_and(&q),
        n => format!("{}, {} and {} more operations", q[0], q[1], n - 2),
    }
}

/// `a`, `a and b`, `a, b and c`.
pub fn join_and(items: &[String]) -> String {
    match items.len() {
        0 => String::new(),
        1 => items[0].clone(),
        n => format!("{} and {}", items[..n - 1].join(", "), items[n - 1]),
    }
}

/// The items in first-seen order, each once.
pub fn distinct<T: PartialEq>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// The operations' methods, upper-case in backticks, sorted, each once, joined:
/// `` `GET` and `HEAD` ``.
pub fn method_list<'o>(ops: impl IntoIterator<Item = &'o Operation>) -> String {
    let mut m: Vec<String> = ops
        .into_iter()
        .map(|o| format!("`{}`", o.method.to_ascii_uppercase()))
        .collect();
    m.sort();
    m.dedup();
    join_and(&m)
}

/// `of `POST /orders`` or `shared by 3 operations`, for messages about a spec node.
pub fn whose(ops: &[&Operation]) -> String {
    if ops.len() == 1 {
        format!("of `{}`", ops[0].display())
    } else {
        format!("shared by {} operations", ops.len())
    }
}

/// ` by the gateway layer` (nothing for the client layer).
pub fn layer_phrase(layer: Layer) -> String {
    match layer {
        Layer::Client => String::new(),
        l => format!(" by the {} layer", l.as_str()),
    }
}

/// Adds a label on each affected operation and records which operations the finding
/// concerns ([`name_operations`]).
pub fn label_operations(
    mut d: Diagnostic,
    ops: &[&Operation],
    label: impl Fn(&Operation) -> String,
) -> Diagnostic {
    // The places already labelled, as a set: one look-up per operation instead of a
    // scan of every label (quadratic for a component shared by thousands).
    let key = |l: &Location| (l.file.path.clone(), l.span.start, l.span.end);
    let mut labelled: HashSet<(PathBuf, usize, usize)> = std::iter::once(&d.primary)
        .chain(&d.labels)
        .map(|l| key(&l.location))
        .collect();
    for op in ops {
        let location = op.key.location();
        if labelled.insert(key(&location)) {
            d = d.with_label(location, label(op));
        }
    }
    name_operations(d, ops)
}

/// Records every operation the finding concerns ([`Diagnostic::operations`]);
/// [`Diagnostic::operation`] is set when there is exactly one.
pub fn name_operations(d: Diagnostic, ops: &[&Operation]) -> Diagnostic {
    d.with_operations_in(
        ops.iter()
            .map(|op| (Some(op.key.doc.file.clone()), op.display())),
    )
}

/// For a spec node (a response, a header schema): labels every operation that uses
/// it when it is shared (several users, or defined outside the operation), and names
/// the operations.
pub fn with_users(d: Diagnostic, at: &At, ops: &[&Operation]) -> Diagnostic {
    let shared = ops.len() > 1 || ops.iter().any(|op| !defined_inside(at, &op.at));
    if shared {
        label_operations(d, ops, |op| format!("used by `{}`", op.display()))
    } else {
        name_operations(d, ops)
    }
}

/// True when `at` is defined inside `container` (same file, a descendant of it).
pub fn defined_inside(at: &At, container: &At) -> bool {
    if at.doc.file.path != container.doc.file.path
        || at.document_start() != container.document_start()
    {
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

/// Adds a label unless the primary location or an existing label already underlines
/// the same span of the same file.
pub fn with_label_once(
    d: Diagnostic,
    location: Location,
    message: impl Into<String>,
) -> Diagnostic {
    let same = |l: &Location| same_location(l, &location);
    if same(&d.primary.location) || d.labels.iter().any(|l| same(&l.location)) {
        return d;
    }
    d.with_label(location, message)
}

/// The text of a scalar value node as written (`5m`), else `fallback`.
pub fn written(at: Option<&At>, fallback: impl FnOnce() -> String) -> String {
    at.and_then(|a| a.scalar().map(str::to_string))
        .unwrap_or_else(fallback)
}

#[cfg(test)]
mod tests {
    use super::subject;

    #[test]
    fn subjects() {
        let n = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(subject(&n(&["GET /a"])), "`GET /a`");
        assert_eq!(subject(&n(&["GET /a", "GET /b"])), "`GET /a` and `GET /b`");
        assert_eq!(
            subject(&n(&["GET /a", "GET /b", "GET /c"])),
            "`GET /a`, `GET /b` and `GET /c`"
        );
        assert_eq!(
            subject(&n(&["GET /a", "GET /b", "GET /c", "GET /d"])),
            "`GET /a`, `GET /b` and 2 more operations"
        );
    }
}
