//! Suppressions with reasons, applied after the rules.
//!
//! Where they are written:
//! - OpenAPI documents: `x-retrylint-ignore: [{rule, reason}]` at the root, on a path
//!   item, an operation or a response;
//! - retry policies: `ignore: [{rule, reason}]` at the top level or in an `operations`
//!   entry (parsed by the policy parser).
//!
//! What one matches (a finding of its rule, named by code or name):
//! - at a document root: findings in that document or about any of its operations;
//! - at a policy's top level: findings in that policy or about any operation it governs;
//! - on a path item, operation, response or policy entry: findings about the
//!   operation(s) there (any of `Diagnostic::operations`), or whose primary location or a
//!   label lies inside that node.
//!
//! A suppression without a non-empty `reason` is RL013 and does **not** suppress (the
//! format requires a reason; an unreasoned suppression is not a decision on record).
//! A reasoned suppression that matched nothing in the run is RL010. Neither RL010 nor
//! RL013 can itself be suppressed.

use crate::analysis::Analysis;
use crate::diagnostic::{Diagnostic, Location};
use crate::openapi::model::Document;
use crate::rules::{self, rl010_unused_suppression, rl013_suppression_without_reason};
use crate::source::refs::At;
use crate::source::tree::Kind;
use std::collections::HashSet;
use std::ops::Range;
use std::path::PathBuf;

/// The OpenAPI extension key.
pub const EXTENSION: &str = "x-retrylint-ignore";

/// One suppression as found, with what it covers.
#[derive(Debug, Clone)]
pub struct Suppression {
    /// The `{rule, reason}` item.
    pub at: At,
    /// The rule as written (code or name), if any.
    pub rule_text: Option<String>,
    /// The rule's code, when the name or code is known.
    pub code: Option<&'static str>,
    /// The reason, if any (trimmed; empty counts as none).
    pub reason: Option<String>,
    /// Where it is written, for messages: `document root`, `operation`, ...
    pub scope: &'static str,
    /// Operations covered (`METHOD /path`).
    pub operations: HashSet<String>,
    /// Nodes covered: (canonical file, byte span).
    pub nodes: Vec<(PathBuf, Range<usize>)>,
}

/// A finding that a suppression hid.
#[derive(Debug, Clone)]
pub struct Suppressed {
    /// The finding.
    pub diagnostic: Diagnostic,
    /// Where the suppression is.
    pub by: Location,
    /// Its reason.
    pub reason: String,
}

/// The result of applying suppressions.
#[derive(Debug, Default)]
pub struct Applied {
    /// Findings that remain, plus RL010/RL013 findings.
    pub diagnostics: Vec<Diagnostic>,
    /// Findings hidden, with the suppression and reason.
    pub suppressed: Vec<Suppressed>,
}

fn node_span(at: &At) -> Option<(PathBuf, Range<usize>)> {
    let tree = at.tree()?;
    Some((at.doc.file.path.clone(), tree.span(at.node)))
}

fn inside(loc: &Location, nodes: &[(PathBuf, Range<usize>)]) -> bool {
    nodes.iter().any(|(path, span)| {
        *path == loc.file.path
            && loc.span.start >= span.start
            && loc.span.start < span.end.max(span.start + 1)
    })
}

impl Suppression {
    fn covers(&self, d: &Diagnostic) -> bool {
        if self.code != Some(d.code) {
            return false;
        }
        d.operations.iter().any(|op| self.operations.contains(op))
            || inside(&d.primary.location, &self.nodes)
            || d.labels.iter().any(|l| inside(&l.location, &self.nodes))
    }
}

/// Reads the `x-retrylint-ignore` list of the mapping at `owner`, if any.
fn from_extension(owner: &At, scope: &'static str, out: &mut Vec<Suppression>) {
    let Some(tree) = owner.tree() else { return };
    if tree.kind(owner.node) != Kind::Map {
        return;
    }
    let Some(list) = tree.get(owner.node, EXTENSION) else {
        return;
    };
    let items: Vec<_> = if tree.kind(list) == Kind::Seq {
        tree.items(list).to_vec()
    } else {
        vec![list]
    };
    for item in items {
        let at = At::new(&owner.doc, item);
        let (rule_text, reason) = if tree.kind(item) == Kind::Map {
            (
                tree.get(item, "rule")
                    .and_then(|n| tree.scalar(n))
                    .map(str::to_string),
                tree.get(item, "reason")
                    .and_then(|n| tree.scalar(n))
                    .map(str::to_string),
            )
        } else {
            (tree.scalar(item).map(str::to_string), None)
        };
        out.push(new(at, rule_text, reason, scope, owner));
    }
}

fn new(
    at: At,
    rule_text: Option<String>,
    reason: Option<String>,
    scope: &'static str,
    owner: &At,
) -> Suppression {
    let code = rule_text
        .as_deref()
        .and_then(|r| rules::find(r.trim()))
        .map(|r| r.meta.code);
    Suppression {
        at,
        rule_text,
        code,
        reason: reason
            .map(|r| r.trim().to_string())
            .filter(|r| !r.is_empty()),
        scope,
        operations: HashSet::new(),
        nodes: node_span(owner).into_iter().collect(),
    }
}

/// Every suppression of the run, with what it covers.
pub fn collect(documents: &[Document], analysis: &Analysis) -> Vec<Suppression> {
    let mut out: Vec<Suppression> = Vec::new();
    for doc in documents {
        let Ok(tree) = &doc.doc.tree else { continue };
        let Some(root) = tree.root() else { continue };
        let root_at = At::new(&doc.doc, root);
        let start = out.len();
        from_extension(&root_at, "document root", &mut out);
        let all: HashSet<String> = doc.operations.iter().map(|o| o.display()).collect();
        for s in &mut out[start..] {
            s.operations.extend(all.iter().cloned());
        }
        for op in &doc.operations {
            let mut found = Vec::new();
            if let Some(item) = op.at.tree().and_then(|t| t.parent(op.at.node)) {
                from_extension(&At::new(&op.at.doc, item), "path item", &mut found);
            }
            from_extension(&op.at, "operation", &mut found);
            for r in &op.responses {
                from_extension(&r.at, "response", &mut found);
            }
            for mut s in found {
                s.operations.insert(op.display());
                // A shared node (path item, `$ref`'d response) is one suppression.
                if let Some(prev) = out.iter_mut().find(|p| p.at.same_node(&s.at)) {
                    prev.operations.extend(s.operations);
                } else {
                    out.push(s);
                }
            }
        }
    }
    for (p, policy) in analysis.policies.iter().enumerate() {
        let governed = |entry: Option<usize>| -> HashSet<String> {
            analysis
                .operations
                .iter()
                .filter(|jo| {
                    jo.layers
                        .iter()
                        .any(|l| l.policy == Some(p) && (entry.is_none() || l.entry == entry))
                })
                .filter_map(|jo| {
                    documents
                        .get(jo.document)
                        .and_then(|d| d.operations.get(jo.operation))
                        .map(|o| o.display())
                })
                .collect()
        };
        let policy_suppression = |s: &crate::policy::model::Suppression, owner: &At, scope| {
            new(
                s.at.clone(),
                s.rule.as_ref().map(|r| r.value.clone()),
                s.reason.as_ref().map(|r| r.value.clone()),
                scope,
                owner,
            )
        };
        // Most policies (and every imported config) suppress nothing: do not walk
        // every joined operation for them.
        if policy.ignore.is_empty() {
            for (e, entry) in policy.operations.iter().enumerate() {
                if entry.settings.ignore.is_empty() {
                    continue;
                }
                let ops = governed(Some(e));
                for s in &entry.settings.ignore {
                    let mut sup = policy_suppression(s, &entry.at, "policy operation entry");
                    sup.operations = ops.clone();
                    out.push(sup);
                }
            }
            continue;
        }
        let top_ops = governed(None);
        for s in &policy.ignore {
            let mut sup = policy_suppression(s, &policy.at, "policy top level");
            sup.operations = top_ops.clone();
            out.push(sup);
        }
        for (e, entry) in policy.operations.iter().enumerate() {
            if entry.settings.ignore.is_empty() {
                continue;
            }
            let ops = governed(Some(e));
            for s in &entry.settings.ignore {
                let mut sup = policy_suppression(s, &entry.at, "policy operation entry");
                sup.operations = ops.clone();
                out.push(sup);
            }
        }
    }
    out
}

/// Applies `suppressions` to `diags`: hides covered findings (reasoned suppressions
/// only) and adds RL013 for unreasoned and RL010 for unused ones.
pub fn apply(diags: Vec<Diagnostic>, suppressions: &[Suppression]) -> Applied {
    let mut used = vec![false; suppressions.len()];
    let mut applied = Applied::default();
    for d in diags {
        let hit = suppressions
            .iter()
            .enumerate()
            .find(|(_, s)| s.reason.is_some() && s.covers(&d));
        match hit {
            Some((i, s)) => {
                used[i] = true;
                applied.suppressed.push(Suppressed {
                    diagnostic: d,
                    by: s.at.location(),
                    reason: s.reason.clone().unwrap_or_default(),
                });
            }
            None => applied.diagnostics.push(d),
        }
    }
    for (s, used) in suppressions.iter().zip(used) {
        let what = s.rule_text.as_deref().unwrap_or("").trim();
        if s.reason.is_none() {
            applied.diagnostics.push(
                Diagnostic::new(
                    &rl013_suppression_without_reason::META,
                    format!(
                        "the suppression of `{what}` ({}) has no `reason`, so it is not applied",
                        s.scope
                    ),
                    s.at.location(),
                    "no reason",
                )
                .with_help("add `reason: \"...\"` saying why the finding is accepted"),
            );
        } else if !used {
            let message = match (s.code, what.is_empty()) {
                (_, true) => format!("the suppression ({}) names no `rule`", s.scope),
                (None, false) => format!(
                    "the suppression ({}) names `{what}`, which is not a rule",
                    s.scope
                ),
                (Some(code), false) => format!(
                    "the suppression of `{what}` ({}) matched no {code} finding",
                    s.scope
                ),
            };
            applied.diagnostics.push(
                Diagnostic::new(
                    &rl010_unused_suppression::META,
                    message,
                    s.at.location(),
                    "unused suppression",
                )
                .with_help("delete the suppression, or fix its rule"),
            );
        }
    }
    applied
}
