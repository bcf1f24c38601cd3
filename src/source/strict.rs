//! Strict reading of a located tree into typed settings, shared by the retry-policy
//! parser and the `.retrylint.yaml` parser: every unknown key, wrong type and unknown
//! value is a finding at its exact node, with a "did you mean" where one is close.

use super::loader::Loaded;
use super::refs::At;
use super::tree::{Kind, NodeId, Tree};
use crate::diagnostic::Diagnostic;
use crate::diagnostic::RuleMeta;
use std::sync::Arc;

/// The closest candidate to `word` (Jaro-Winkler >= 0.8, `-`/`_`/space and case
/// folded), if any is close enough for a "did you mean".
pub fn suggest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let lower = word.to_ascii_lowercase().replace(['-', ' '], "_");
    candidates
        .iter()
        .map(|c| (strsim::jaro_winkler(&lower, &c.replace('-', "_")), *c))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// "a string", "a mapping", ... for messages.
pub fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Null => "null",
        Kind::Bool => "a boolean",
        Kind::Int => "an integer",
        Kind::Float => "a number",
        Kind::Str => "a string",
        Kind::Map => "a mapping",
        Kind::Seq => "a sequence",
    }
}

/// Reads one file's tree strictly, collecting findings of `rule`.
pub struct StrictReader<'a> {
    /// The file.
    pub doc: &'a Arc<Loaded>,
    /// Its tree.
    pub tree: &'a Tree,
    /// The rule every finding is reported under (RL005 for policies).
    pub rule: &'static RuleMeta,
    /// Findings so far.
    pub diags: Vec<Diagnostic>,
    /// Unknown keys whose "did you mean" names a known key, in reading order: what
    /// the author most likely meant to set (see [`Misspelling`]).
    pub misspelled: Vec<Misspelling>,
    /// The node of every finding so far, in reading order: a value found here was
    /// rejected (see [`StrictReader::rejected_entry`]).
    pub rejected: Vec<NodeId>,
}

/// An unknown key with a "did you mean": readers use it to tell "`K` is missing"
/// apart from "`K` is misspelled" (the typo is reported once, as the unknown key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Misspelling {
    /// The mapping holding the unknown key.
    pub map: NodeId,
    /// The unknown key's node.
    pub key: NodeId,
    /// The known key the "did you mean" names.
    pub intended: &'static str,
}

impl<'a> StrictReader<'a> {
    /// A reader of `tree` (the tree of `doc`).
    pub fn new(doc: &'a Arc<Loaded>, tree: &'a Tree, rule: &'static RuleMeta) -> Self {
        StrictReader {
            doc,
            tree,
            rule,
            diags: Vec::new(),
            misspelled: Vec::new(),
            rejected: Vec::new(),
        }
    }

    /// The node as an [`At`] of this file.
    pub fn at(&self, node: NodeId) -> At {
        At::new(self.doc, node)
    }

    /// Records a finding at `node` (and `node` in [`StrictReader::rejected`]).
    pub fn err(&mut self, node: NodeId, message: String, label: &str, help: Option<String>) {
        self.rejected.push(node);
        let mut d = Diagnostic::new(self.rule, message, self.at(node).location(), label);
        if let Some(h) = help {
            d = d.with_help(h);
        }
        self.diags.push(d);
    }

    /// The entry of one of `maps` whose value holds the rejected `node`: `(map, key
    /// node)` of the nearest such entry (`retry_on` for a bad signal inside it;
    /// `jitter` in `backoff`, not `backoff`, when both maps are given). `None` for a
    /// node that is a key (an unknown key, even deep inside the value, is at most a
    /// [`Misspelling`], not a bad value) or that lies outside every map.
    pub fn rejected_entry(&self, node: NodeId, maps: &[NodeId]) -> Option<(NodeId, NodeId)> {
        let is_key = |n: NodeId| {
            self.tree
                .parent(n)
                .is_some_and(|map| self.tree.raw_entries(map).iter().any(|(k, _)| *k == n))
        };
        if is_key(node) {
            return None;
        }
        let mut value = node;
        // Bounded: a tree's parent chain ends at its root (aliases included).
        for _ in 0..self.tree.len() {
            let parent = self.tree.parent(value)?;
            if maps.contains(&parent) {
                return self
                    .tree
                    .raw_entries(parent)
                    .iter()
                    .find(|(_, v)| *v == value)
                    .map(|(k, _)| (parent, *k));
            }
            value = parent;
        }
        None
    }

    /// "`what` must be `expected`, found a string".
    pub fn wrong_type(&mut self, node: NodeId, what: &str, expected: &str) {
        let found = kind_name(self.tree.kind(node));
        self.err(
            node,
            format!("{what} must be {expected}, found {found}"),
            "wrong type",
            None,
        );
    }

    /// True when `node` is a mapping; else a wrong-type finding.
    pub fn expect_map(&mut self, node: NodeId, what: &str) -> bool {
        if self.tree.kind(node) == Kind::Map {
            true
        } else {
            self.wrong_type(node, what, "a mapping");
            false
        }
    }

    /// Reports every key of `map` not in `allowed` (with "did you mean", also recorded
    /// in [`StrictReader::misspelled`]); returns the known entries.
    pub fn known_entries(
        &mut self,
        map: NodeId,
        allowed: &[&'static str],
        what: &str,
    ) -> Vec<(String, NodeId)> {
        let mut out = Vec::new();
        for (k, v) in self.tree.entries(map) {
            let Some(name) = self.tree.scalar(k).map(str::to_string) else {
                self.err(
                    k,
                    format!("{what} has a key that is not a scalar"),
                    "not a key",
                    None,
                );
                continue;
            };
            if allowed.contains(&name.as_str()) {
                out.push((name, v));
                continue;
            }
            let intended = suggest(&name, allowed);
            if let Some(intended) = intended {
                self.misspelled.push(Misspelling {
                    map,
                    key: k,
                    intended,
                });
            }
            let help = intended
                .map(|s| format!("did you mean `{s}`?"))
                .unwrap_or_else(|| {
                    let keys: Vec<String> = allowed.iter().map(|k| format!("`{k}`")).collect();
                    format!("known keys here: {}", keys.join(", "))
                });
            self.err(
                k,
                format!("unknown key `{name}` in {what}"),
                "unknown key",
                Some(help),
            );
        }
        out
    }

    /// One of the named `options` (a string scalar); else a finding with "did you
    /// mean".
    pub fn choice<T: Copy>(
        &mut self,
        node: NodeId,
        what: &str,
        options: &[(&'static str, T)],
    ) -> Option<T> {
        let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
        let Some(text) = self.tree.as_str(node).map(str::to_string) else {
            self.wrong_type(node, what, &format!("one of {}", names.join(", ")));
            return None;
        };
        if let Some((_, v)) = options.iter().find(|(n, _)| *n == text) {
            return Some(*v);
        }
        let help = match suggest(&text, &names) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("use one of {}", names.join(", ")),
        };
        self.err(
            node,
            format!("unknown value `{text}` for {what}"),
            "unknown value",
            Some(help),
        );
        None
    }
}
