//! Shared plumbing for the policy rules (RL3xx): walking every operation's layers,
//! and turning per-operation hits into findings, one per (rule, primary node, problem)
//! with a label per affected operation.
//!
//! A `defaults` value (or a root `x-retry` value) usually affects many operations.
//! Reporting it once per operation would print the same policy line many times; a
//! [`Collector`] merges every hit that has the same primary node and the same message
//! template into one finding whose message names the operations and which labels each
//! of them in the spec. `Diagnostic::operation` is set when exactly one operation is
//! affected (a finding about several operations is suppressed by its node).

use crate::analysis::{EffectivePolicy, JoinedOperation};
use crate::diagnostic::{Diagnostic, Label, Location, Severity};
use crate::openapi::model::Operation;
use crate::policy::model::Layer;
use crate::rules::{Context, RuleMeta};
use crate::source::refs::At;
use std::collections::HashMap;
use std::path::PathBuf;

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

/// `""` for the client layer, else `" by the gateway layer"` (as RL201 and RL301 say
/// it).
pub fn by_layer(layer: Layer) -> String {
    match layer {
        Layer::Client => String::new(),
        l => format!(" by the {} layer", l.as_str()),
    }
}

/// One problem found on one operation in one layer.
pub struct Hit<'a> {
    /// The most specific node that sets the offending value.
    pub primary: At,
    /// The primary label (a short noun phrase).
    pub label: String,
    /// The message, with `{ops}` standing for the affected operation(s) ("`GET /a`",
    /// "`GET /a` and `GET /b`") and `{is}` for "is" / "are" agreeing with it.
    pub message: String,
    /// Help text (imperative).
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

struct Group<'a> {
    first: Hit<'a>,
    ops: Vec<(&'a Operation, String)>,
    labels: Vec<(Location, String)>,
}

/// Merges hits into findings: one per (primary node, message template, severity).
#[derive(Default)]
pub struct Collector<'a> {
    order: Vec<GroupKey>,
    groups: HashMap<GroupKey, Group<'a>>,
}

type GroupKey = (PathBuf, u32, String, Severity);

fn same_location(a: &Location, b: &Location) -> bool {
    a.file.path == b.file.path && a.span == b.span
}

impl<'a> Collector<'a> {
    /// A collector with nothing in it.
    pub fn new() -> Collector<'a> {
        Collector::default()
    }

    /// Adds one hit.
    pub fn push(&mut self, hit: Hit<'a>) {
        let (path, node) = hit.primary.key();
        let key = (path, node, hit.message.clone(), hit.severity);
        match self.groups.get_mut(&key) {
            Some(g) => {
                if !g
                    .ops
                    .iter()
                    .any(|(o, _)| same_location(&o.key.location(), &hit.op.key.location()))
                {
                    g.ops.push((hit.op, hit.op_label.clone()));
                }
                for (loc, msg) in hit.labels {
                    if !g
                        .labels
                        .iter()
                        .any(|(l, m)| same_location(l, &loc) && *m == msg)
                    {
                        g.labels.push((loc, msg));
                    }
                }
            }
            None => {
                self.order.push(key.clone());
                let ops = vec![(hit.op, hit.op_label.clone())];
                let labels = hit.labels.clone();
                self.groups.insert(
                    key,
                    Group {
                        first: hit,
                        ops,
                        labels,
                    },
                );
            }
        }
    }

    /// The findings, in the order their first hit was pushed.
    pub fn finish(mut self, meta: &RuleMeta) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for key in &self.order {
            let Some(g) = self.groups.remove(key) else {
                continue;
            };
            let names: Vec<String> = g.ops.iter().map(|(o, _)| o.display()).collect();
            let message = g
                .first
                .message
                .replace("{ops}", &subject(&names))
                .replace("{is}", if names.len() == 1 { "is" } else { "are" });
            let mut d = Diagnostic::new(meta, message, g.first.primary.location(), &g.first.label);
            d.severity = g.first.severity;
            for (loc, msg) in g.labels {
                d.labels.push(Label {
                    location: loc,
                    message: msg,
                });
            }
            for (op, label) in &g.ops {
                d = d.with_label(op.key.location(), label.clone());
            }
            d = d.with_help(g.first.help.clone());
            if names.len() == 1 {
                d = d.with_operation(names[0].clone());
            }
            out.push(d);
        }
        out
    }
}

/// "`GET /a`", "`GET /a` and `GET /b`", "`GET /a`, `GET /b` and `GET /c`",
/// "`GET /a`, `GET /b` and 3 more operations".
fn subject(names: &[String]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match q.len() {
        0 => String::new(),
        1 => q[0].clone(),
        2 | 3 => format!("{} and {}", q[..q.len() - 1].join(", "), q[q.len() - 1]),
        n => format!("{}, {} and {} more operations", q[0], q[1], n - 2),
    }
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
