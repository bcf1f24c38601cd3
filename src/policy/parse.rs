//! Reading a policy file (or an inline `x-retry`) from the located tree, strictly.
//!
//! This walks the located tree directly rather than deserialising with serde: every
//! check (unknown key, wrong type, duration without unit, unknown signal, bad
//! selector) then knows the exact node it is about, so each RL005 names the file,
//! line and column of the offending key or value, and every accepted value keeps its
//! node as its origin. Duplicate keys are RL002's (the tree keeps the last one).

use super::duration::{parse_duration, Millis};
use super::model::*;
use super::selector::Selector;
use crate::diagnostic::Diagnostic;
use crate::policy::rl005_invalid_policy;
use crate::source::loader::Loaded;
use crate::source::refs::At;
use crate::source::strict::StrictReader;
use crate::source::tree::{Kind, NodeId};
use std::sync::Arc;

/// Keys of a policy file's top level.
pub const TOP_KEYS: &[&str] = &[
    "version",
    "spec",
    "layer",
    "defaults",
    "operations",
    "ignore",
];
/// Keys of an operation entry, `defaults`, or an inline `x-retry` (which also takes
/// `layer`).
pub const SETTINGS_KEYS: &[&str] = &[
    "retry",
    "effect",
    "idempotency_key",
    "status_endpoint",
    "on_unknown_result",
    "attempts",
    "deadline",
    "attempt_timeout",
    "backoff",
    "retry_on",
    "retry_after",
    "ignore",
    "methods",
    "budget",
    "hedging",
];
/// Keys of `budget` (one shape per mapping: [`BUDGET_SHAPES`]).
pub const BUDGET_KEYS: &[&str] = &[
    "ratio",
    "min_per_second",
    "min_concurrent",
    "window",
    "max_concurrent_retries",
    "tokens",
    "token_ratio",
];
/// The three shapes of `budget`: (shape, its keys, its required keys).
pub const BUDGET_SHAPES: &[(&str, &[&str], &[&str])] = &[
    (
        "ratio",
        &["ratio", "min_per_second", "min_concurrent", "window"],
        &["ratio"],
    ),
    (
        "concurrency",
        &["max_concurrent_retries"],
        &["max_concurrent_retries"],
    ),
    (
        "tokens",
        &["tokens", "token_ratio"],
        &["tokens", "token_ratio"],
    ),
];
/// Keys of `hedging`.
pub const HEDGING_KEYS: &[&str] = &["attempts", "delay"];
/// Keys of `idempotency_key`.
pub const KEY_KEYS: &[&str] = &[
    "header",
    "retention",
    "scope",
    "on_payload_mismatch",
    "on_concurrent",
];
/// Keys of `backoff`.
pub const BACKOFF_KEYS: &[&str] = &["base", "cap", "multiplier", "jitter"];
/// Keys of `retry_after`.
pub const RETRY_AFTER_KEYS: &[&str] = &["honor", "max", "on_invalid", "on_above_max"];
/// Keys of an `ignore` item.
pub const IGNORE_KEYS: &[&str] = &["rule", "reason"];
/// The named signals of `retry_on`: those of the signal table
/// ([`crate::retry::signals::SIGNALS`]) and `transport`.
pub const SIGNAL_NAMES: &[&str] = &crate::retry::signals::signal_names();
/// Keys of a `backoff.jitter` mapping (`jitter: {proportional: 0.2}`).
pub const JITTER_KEYS: &[&str] = &["proportional"];
/// The method tokens a `methods` filter may list (those of selectors).
pub const METHOD_NAMES: &[&str] = crate::policy::selector::METHODS;

pub use crate::source::strict::suggest;

/// Parses a loaded policy file. `None` when the file has no tree (RL001 is reported by
/// the loading stage), is empty (RL005) or its top level is not a mapping (RL005). A file with errors
/// still yields the settings that could be read, so other rules can run.
pub fn load_policy(doc: &Arc<Loaded>) -> (Option<PolicyFile>, Vec<Diagnostic>) {
    let Ok(tree) = &doc.tree else {
        return (None, Vec::new());
    };
    let mut p = Parser(StrictReader::new(doc, tree, &rl005_invalid_policy::META));
    if tree.root().is_none() {
        let location = crate::diagnostic::Location {
            file: doc.file.clone(),
            span: 0..0,
            pointer: String::new(),
        };
        let d = Diagnostic::new(
            &rl005_invalid_policy::META,
            "an empty retry-policy file: `version: 1` is required",
            location,
            "empty file",
        )
        .with_help("add `version: 1` and the policy's settings");
        return (None, vec![d]);
    }
    let policy = p.policy_file();
    (policy, p.0.diags)
}

/// Parses an inline `x-retry` mapping (operation settings plus `layer`) found in an
/// OpenAPI document. `None` when the node is not a mapping (RL005).
pub fn parse_x_retry(at: &At) -> (Option<Settings>, Vec<Diagnostic>) {
    let Ok(tree) = &at.doc.tree else {
        return (None, Vec::new());
    };
    let mut p = Parser(StrictReader::new(
        &at.doc,
        tree,
        &rl005_invalid_policy::META,
    ));
    let s = if p.expect_map(at.node, "`x-retry`") {
        Some(p.settings(at.node, true))
    } else {
        None
    };
    (s, p.0.diags)
}

/// The policy reader: the shared strict reader, reporting under RL005.
struct Parser<'a>(StrictReader<'a>);

impl<'a> std::ops::Deref for Parser<'a> {
    type Target = StrictReader<'a>;
    fn deref(&self) -> &StrictReader<'a> {
        &self.0
    }
}

impl std::ops::DerefMut for Parser<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl<'a> Parser<'a> {
    fn spanned<T>(&self, value: T, node: NodeId) -> Spanned<T> {
        Spanned {
            value,
            at: self.at(node),
        }
    }

    fn string(&mut self, node: NodeId, what: &str) -> Option<Spanned<String>> {
        match self.tree.as_str(node) {
            Some(s) => Some(self.spanned(s.to_string(), node)),
            None => {
                self.wrong_type(node, what, "a string");
                None
            }
        }
    }

    fn boolean(&mut self, node: NodeId, what: &str) -> Option<Spanned<bool>> {
        match self.tree.as_bool(node) {
            Some(b) => Some(self.spanned(b, node)),
            None => {
                self.wrong_type(node, what, "`true` or `false`");
                None
            }
        }
    }

    fn integer(&mut self, node: NodeId, what: &str) -> Option<Spanned<i64>> {
        match self.tree.as_i64(node) {
            Some(i) => Some(self.spanned(i, node)),
            None if self.tree.kind(node) == Kind::Int => {
                self.err(node, format!("{what} is too large"), "too large", None);
                None
            }
            None => {
                self.wrong_type(node, what, "an integer");
                None
            }
        }
    }

    fn number(&mut self, node: NodeId, what: &str) -> Option<Spanned<f64>> {
        match self.tree.as_f64(node) {
            Some(f) if f.is_finite() => Some(self.spanned(f, node)),
            Some(_) => {
                self.err(
                    node,
                    format!("{what} must be a finite number"),
                    "not finite",
                    None,
                );
                None
            }
            None => {
                self.wrong_type(node, what, "a number");
                None
            }
        }
    }

    fn duration(&mut self, node: NodeId, what: &str) -> Option<Spanned<Millis>> {
        let kind = self.tree.kind(node);
        let text = self.tree.scalar(node).unwrap_or("");
        match kind {
            Kind::Int | Kind::Float => {
                self.err(
                    node,
                    format!("{what} `{text}` has no unit"),
                    "duration without unit",
                    Some(format!(
                        "write the unit: `{text}ms` or `{text}s` (a bare number is ms in one ecosystem, s in another)"
                    )),
                );
                None
            }
            Kind::Str => match parse_duration(text) {
                Ok(ms) => Some(self.spanned(ms, node)),
                Err(e) => {
                    self.err(
                        node,
                        format!("{what} `{text}` is not a valid duration: {e}"),
                        "invalid duration",
                        Some("write a duration such as `250ms`, `2s`, `1m30s` or `24h`".into()),
                    );
                    None
                }
            },
            _ => {
                self.wrong_type(node, what, "a duration such as `2s`");
                None
            }
        }
    }

    /// True (and the todo recorded) when `node` is the string `todo`: an open
    /// question, accepted only in the fields of [`TODO_FIELDS`].
    fn todo(&self, node: NodeId, field: &'static str, todos: &mut Vec<Todo>) -> bool {
        debug_assert!(todo_question(field).is_some(), "{field} takes no todo");
        if self.tree.kind(node) == Kind::Str && self.tree.as_str(node) == Some("todo") {
            todos.push(Todo {
                field,
                at: self.at(node),
            });
            return true;
        }
        false
    }

    fn choice<T: Copy>(
        &mut self,
        node: NodeId,
        what: &str,
        options: &[(&'static str, T)],
    ) -> Option<Spanned<T>> {
        let value = self.0.choice(node, what, options)?;
        Some(self.spanned(value, node))
    }

    fn layer(&mut self, node: NodeId) -> Option<Spanned<Layer>> {
        self.choice(
            node,
            "`layer`",
            &[
                ("client", Layer::Client),
                ("gateway", Layer::Gateway),
                ("mesh", Layer::Mesh),
            ],
        )
    }

    fn policy_file(&mut self) -> Option<PolicyFile> {
        let root = self.tree.root()?;
        if !self.expect_map(root, "a retry-policy file") {
            return None;
        }
        let mut pf = PolicyFile {
            doc: self.doc.clone(),
            at: self.at(root),
            version: None,
            spec: Vec::new(),
            layer: None,
            defaults: None,
            operations: Vec::new(),
            ignore: Vec::new(),
            imported: None,
        };
        for (key, v) in self.known_entries(root, TOP_KEYS, "a retry-policy file") {
            match key.as_str() {
                "version" => {
                    if self.tree.as_i64(v) == Some(1) && self.tree.kind(v) == Kind::Int {
                        pf.version = Some(self.spanned(1, v));
                    } else {
                        let text = self.tree.scalar(v).unwrap_or("a collection").to_string();
                        self.err(
                            v,
                            format!("unsupported policy `version` `{text}`"),
                            "unsupported version",
                            Some("write `version: 1` (an integer)".into()),
                        );
                    }
                }
                "spec" => match self.tree.kind(v) {
                    Kind::Seq => {
                        for &item in self.tree.items(v) {
                            if let Some(s) = self.string(item, "a `spec` item") {
                                pf.spec.push(s);
                            }
                        }
                    }
                    _ => {
                        if let Some(s) = self.string(v, "`spec`") {
                            pf.spec.push(s);
                        }
                    }
                },
                "layer" => pf.layer = self.layer(v),
                "defaults" => {
                    if self.expect_map(v, "`defaults`") {
                        pf.defaults = Some(self.settings(v, false));
                    }
                }
                "operations" => {
                    if self.expect_map(v, "`operations`") {
                        pf.operations = self.operations(v);
                    }
                }
                "ignore" => pf.ignore = self.suppressions(v),
                _ => unreachable!("filtered by known_entries"),
            }
        }
        if !self
            .tree
            .entries(root)
            .iter()
            .any(|(k, _)| self.tree.scalar(*k) == Some("version"))
        {
            self.err(
                root,
                "a retry-policy file must declare `version: 1`".into(),
                "no `version`",
                Some("add `version: 1` at the top".into()),
            );
        }
        Some(pf)
    }

    fn operations(&mut self, map: NodeId) -> Vec<OperationEntry> {
        let mut out = Vec::new();
        for (k, v) in self.tree.entries(map) {
            let Some(text) = self.tree.scalar(k).map(str::to_string) else {
                self.err(
                    k,
                    "an `operations` key must be a selector string".into(),
                    "not a selector",
                    None,
                );
                continue;
            };
            let selector = match Selector::parse(&text) {
                Ok(s) => Some(s),
                Err(e) => {
                    self.err(
                        k,
                        format!("invalid selector `{text}`: {e}"),
                        "bad selector",
                        Some("write `METHOD /path` (e.g. `POST /orders/{id}`, `* /admin/**`) or an operationId".into()),
                    );
                    None
                }
            };
            let settings = match self.tree.kind(v) {
                Kind::Map => self.settings(v, false),
                Kind::Null => Settings::empty(self.at(v)),
                _ => {
                    self.wrong_type(v, &format!("the settings of `{text}`"), "a mapping");
                    Settings::empty(self.at(v))
                }
            };
            out.push(OperationEntry {
                text,
                selector,
                at: self.at(v),
                settings,
            });
        }
        out
    }

    fn settings(&mut self, map: NodeId, allow_layer: bool) -> Settings {
        let mut s = Settings::empty(self.at(map));
        let typos_from = self.0.misspelled.len();
        let rejected_from = self.0.rejected.len();
        // Nested mappings whose misspelled keys belong to these settings.
        let mut nested: Vec<(NodeId, &'static str)> = vec![(map, "")];
        let mut keys: Vec<&str> = SETTINGS_KEYS.to_vec();
        if allow_layer {
            keys.push("layer");
        }
        let what = if allow_layer {
            "`x-retry`"
        } else {
            "operation settings"
        };
        for (key, v) in self.known_entries(map, &keys, what) {
            match key.as_str() {
                "layer" => s.layer = self.layer(v),
                "retry" => s.retry = self.boolean(v, "`retry`"),
                "effect" if self.todo(v, "effect", &mut s.todos) => {}
                "effect" => {
                    s.effect = self.choice(
                        v,
                        "`effect`",
                        &[
                            ("safe", Effect::Safe),
                            ("idempotent", Effect::Idempotent),
                            ("non-idempotent", Effect::NonIdempotent),
                        ],
                    )
                }
                "idempotency_key" => {
                    if self.expect_map(v, "`idempotency_key`") {
                        nested.push((v, "idempotency_key."));
                        s.idempotency_key = Some(Box::new(self.key_settings(v, &mut s.todos)));
                    }
                }
                "status_endpoint" => {
                    if let Some(text) = self.string(v, "`status_endpoint`") {
                        match Selector::parse(&text.value) {
                            Ok(sel) => s.status_endpoint = Some(Box::new(self.spanned(sel, v))),
                            Err(e) => self.err(
                                v,
                                format!("invalid `status_endpoint` selector `{}`: {e}", text.value),
                                "bad selector",
                                Some("write `GET /path` or an operationId".into()),
                            ),
                        }
                    }
                }
                "on_unknown_result" if self.todo(v, "on_unknown_result", &mut s.todos) => {}
                "on_unknown_result" => {
                    s.on_unknown_result = self.choice(
                        v,
                        "`on_unknown_result`",
                        &[
                            ("resend", UnknownResult::Resend),
                            ("replay-key", UnknownResult::ReplayKey),
                            ("check-status", UnknownResult::CheckStatus),
                            ("reconcile", UnknownResult::Reconcile),
                            ("fail", UnknownResult::Fail),
                        ],
                    )
                }
                "attempts" if self.todo(v, "attempts", &mut s.todos) => {}
                "attempts" => s.attempts = self.integer(v, "`attempts`"),
                "deadline" if self.todo(v, "deadline", &mut s.todos) => {}
                "deadline" => s.deadline = self.duration(v, "`deadline`"),
                "attempt_timeout" => {
                    if self.tree.as_str(v) == Some("remaining") {
                        s.attempt_timeout = Some(self.spanned(AttemptTimeout::Remaining, v));
                    } else {
                        s.attempt_timeout = self
                            .duration(v, "`attempt_timeout`")
                            .map(|d| self.spanned(AttemptTimeout::Fixed(d.value), v));
                    }
                }
                "backoff" => {
                    if self.expect_map(v, "`backoff`") {
                        nested.push((v, "backoff."));
                        s.backoff = Some(self.backoff(v, &mut s.todos));
                    }
                }
                "retry_on" => s.retry_on = self.signals(v),
                "retry_after" => {
                    if self.expect_map(v, "`retry_after`") {
                        nested.push((v, "retry_after."));
                        s.retry_after = Some(Box::new(self.retry_after(v, &mut s.todos)));
                    }
                }
                "ignore" => s.ignore = self.suppressions(v),
                "methods" => s.methods = self.methods(v),
                "budget" => {
                    if self.expect_map(v, "`budget`") {
                        nested.push((v, "budget."));
                        s.budget = self.budget(v).map(Box::new);
                    }
                }
                "hedging" => {
                    if self.expect_map(v, "`hedging`") {
                        nested.push((v, "hedging."));
                        s.hedging = self.hedging(v);
                    }
                }
                _ => unreachable!("filtered by known_entries"),
            }
        }
        s.misspelled = self.0.misspelled[typos_from..]
            .iter()
            .filter_map(|m| {
                let (_, prefix) = nested.iter().find(|(node, _)| *node == m.map)?;
                Some(Misspelled {
                    intended: format!("{prefix}{}", m.intended),
                    at: self.at(m.key),
                })
            })
            .collect();
        // A key whose value was rejected (RL005 at the value) counts as misspelled:
        // the bad value is reported once, not again as "`K` is missing" downstream.
        let maps: Vec<NodeId> = nested.iter().map(|(node, _)| *node).collect();
        for &node in &self.0.rejected[rejected_from..] {
            let Some((map, key)) = self.rejected_entry(node, &maps) else {
                continue;
            };
            let (_, prefix) = nested.iter().find(|(n, _)| *n == map).expect("in maps");
            let Some(name) = self.tree.scalar(key) else {
                continue;
            };
            let intended = format!("{prefix}{name}");
            if !s.misspelled.iter().any(|m| m.intended == intended) {
                s.misspelled.push(Misspelled {
                    intended,
                    at: self.at(key),
                });
            }
        }
        s
    }

    fn key_settings(&mut self, map: NodeId, todos: &mut Vec<Todo>) -> KeySettings {
        let mut k = KeySettings {
            at: self.at(map),
            header: None,
            retention: None,
            scope: None,
            on_payload_mismatch: None,
            on_concurrent: None,
            in_request: false,
        };
        for (key, v) in self.known_entries(map, KEY_KEYS, "`idempotency_key`") {
            match key.as_str() {
                "header" => k.header = self.string(v, "`idempotency_key.header`"),
                "retention" if self.todo(v, "idempotency_key.retention", todos) => {}
                "scope" if self.todo(v, "idempotency_key.scope", todos) => {}
                "on_payload_mismatch"
                    if self.todo(v, "idempotency_key.on_payload_mismatch", todos) => {}
                "on_concurrent" if self.todo(v, "idempotency_key.on_concurrent", todos) => {}
                "retention" => k.retention = self.duration(v, "`idempotency_key.retention`"),
                "scope" => k.scope = self.string(v, "`idempotency_key.scope`"),
                "on_payload_mismatch" => {
                    k.on_payload_mismatch = self.choice(
                        v,
                        "`on_payload_mismatch`",
                        &[
                            ("reject", PayloadMismatch::Reject),
                            ("ignore", PayloadMismatch::Ignore),
                        ],
                    )
                }
                "on_concurrent" => {
                    k.on_concurrent = self.choice(
                        v,
                        "`on_concurrent`",
                        &[
                            ("reject", Concurrent::Reject),
                            ("wait", Concurrent::Wait),
                            ("ignore", Concurrent::Ignore),
                        ],
                    )
                }
                _ => unreachable!("filtered by known_entries"),
            }
        }
        k
    }

    fn backoff(&mut self, map: NodeId, todos: &mut Vec<Todo>) -> BackoffSettings {
        let mut b = BackoffSettings {
            at: self.at(map),
            base: None,
            cap: None,
            multiplier: None,
            jitter: None,
        };
        for (key, v) in self.known_entries(map, BACKOFF_KEYS, "`backoff`") {
            match key.as_str() {
                "base" if self.todo(v, "backoff.base", todos) => {}
                "cap" if self.todo(v, "backoff.cap", todos) => {}
                "jitter" if self.todo(v, "backoff.jitter", todos) => {}
                "base" => b.base = self.duration(v, "`backoff.base`"),
                "cap" => b.cap = self.duration(v, "`backoff.cap`"),
                "multiplier" => b.multiplier = self.number(v, "`backoff.multiplier`"),
                "jitter" => b.jitter = self.jitter(v),
                _ => unreachable!("filtered by known_entries"),
            }
        }
        b
    }

    /// A number that must be at least `min` (`exclusive`: above it); RL005 otherwise.
    fn bounded_number(
        &mut self,
        node: NodeId,
        what: &str,
        min: f64,
        exclusive: bool,
    ) -> Option<f64> {
        let n = self.number(node, what)?.value;
        let ok = if exclusive { n > min } else { n >= min };
        if !ok {
            let bound = if exclusive { "above" } else { "at least" };
            self.err(
                node,
                format!("{what} must be {bound} {min}"),
                "out of range",
                None,
            );
            return None;
        }
        Some(n)
    }

    /// A non-negative integer (`min` the least allowed); RL005 otherwise.
    fn count(&mut self, node: NodeId, what: &str, min: i64) -> Option<u64> {
        let n = self.integer(node, what)?.value;
        if n < min {
            self.err(
                node,
                format!("{what} must be at least {min}"),
                "out of range",
                None,
            );
            return None;
        }
        u64::try_from(n).ok()
    }

    /// `budget:`: one of three shapes, told apart by its keys ([`BUDGET_SHAPES`]).
    /// Keys of two shapes, or a shape without its required keys, are RL005.
    fn budget(&mut self, map: NodeId) -> Option<Spanned<RetryBudget>> {
        let entries = self.known_entries(map, BUDGET_KEYS, "`budget`");
        let keys: Vec<&str> = entries
            .iter()
            .filter_map(|(k, _)| BUDGET_KEYS.iter().copied().find(|b| b == k))
            .collect();
        let shapes: Vec<&(&str, &[&str], &[&str])> = BUDGET_SHAPES
            .iter()
            .filter(|(_, ks, _)| keys.iter().any(|k| ks.contains(k)))
            .collect();
        let shape = match shapes.as_slice() {
            [one] => *one,
            [] => {
                self.err(
                    map,
                    "`budget` names no budget".into(),
                    "empty budget",
                    Some("write `{ratio: 0.2}`, `{max_concurrent_retries: 3}` or `{tokens: 10, token_ratio: 0.1}`".into()),
                );
                return None;
            }
            _ => {
                let names: Vec<String> = shapes.iter().map(|(n, _, _)| format!("`{n}`")).collect();
                self.err(
                    map,
                    format!("`budget` mixes the keys of {} budgets", names.join(" and ")),
                    "one shape per budget",
                    Some("a budget is a ratio (`ratio`, `min_per_second`, `min_concurrent`, `window`), a concurrency cap (`max_concurrent_retries`) or a token bucket (`tokens`, `token_ratio`): keep one".into()),
                );
                return None;
            }
        };
        let (name, _, required) = *shape;
        let missing: Vec<&str> = required
            .iter()
            .copied()
            .filter(|r| !keys.contains(r))
            .collect();
        if !missing.is_empty() {
            self.err(
                map,
                format!(
                    "a `{name}` budget needs {}",
                    missing
                        .iter()
                        .map(|m| format!("`{m}`"))
                        .collect::<Vec<_>>()
                        .join(" and ")
                ),
                "incomplete budget",
                None,
            );
            return None;
        }
        let mut ok = true;
        let mut ratio = None;
        let mut min_per_second = None;
        let mut min_concurrent = None;
        let mut window_ms = None;
        let mut max_concurrent_retries = None;
        let mut tokens = None;
        let mut token_ratio = None;
        for (key, v) in entries {
            let got = match key.as_str() {
                "ratio" => {
                    ratio = self.bounded_number(v, "`budget.ratio`", 0.0, false);
                    ratio.is_some()
                }
                "min_per_second" => {
                    min_per_second = self.bounded_number(v, "`budget.min_per_second`", 0.0, false);
                    min_per_second.is_some()
                }
                "min_concurrent" => {
                    min_concurrent = self.count(v, "`budget.min_concurrent`", 0);
                    min_concurrent.is_some()
                }
                "window" => {
                    window_ms = self.duration(v, "`budget.window`").map(|d| d.value);
                    window_ms.is_some()
                }
                "max_concurrent_retries" => {
                    max_concurrent_retries = self.count(v, "`budget.max_concurrent_retries`", 0);
                    max_concurrent_retries.is_some()
                }
                "tokens" => {
                    tokens = self.bounded_number(v, "`budget.tokens`", 0.0, true);
                    tokens.is_some()
                }
                "token_ratio" => {
                    token_ratio = self.bounded_number(v, "`budget.token_ratio`", 0.0, true);
                    token_ratio.is_some()
                }
                _ => unreachable!("filtered by known_entries"),
            };
            ok &= got;
        }
        if !ok {
            return None;
        }
        let budget = match name {
            "ratio" => RetryBudget::Ratio {
                ratio: ratio?,
                min_per_second,
                min_concurrent,
                window_ms,
            },
            "concurrency" => RetryBudget::Concurrency {
                max_concurrent_retries: max_concurrent_retries?,
            },
            _ => RetryBudget::Tokens {
                tokens: tokens?,
                token_ratio: token_ratio?,
            },
        };
        Some(self.spanned(budget, map))
    }

    /// `hedging:`: `attempts` (copies in total, required, >= 1) and `delay` (absent:
    /// 0, all at once).
    fn hedging(&mut self, map: NodeId) -> Option<Spanned<Hedging>> {
        let mut attempts = None;
        let mut delay_ms = Some(0.0);
        let mut seen_attempts = false;
        for (key, v) in self.known_entries(map, HEDGING_KEYS, "`hedging`") {
            match key.as_str() {
                "attempts" => {
                    seen_attempts = true;
                    attempts = self.count(v, "`hedging.attempts`", 1);
                }
                "delay" => delay_ms = self.duration(v, "`hedging.delay`").map(|d| d.value),
                _ => unreachable!("filtered by known_entries"),
            }
        }
        if !seen_attempts {
            self.err(
                map,
                "`hedging` needs `attempts` (copies in total, including the first)".into(),
                "no `attempts`",
                Some("write e.g. `hedging: {attempts: 3, delay: 100ms}`".into()),
            );
        }
        let h = Hedging {
            attempts: attempts?,
            delay_ms: delay_ms?,
        };
        Some(self.spanned(h, map))
    }

    fn retry_after(&mut self, map: NodeId, todos: &mut Vec<Todo>) -> RetryAfterSettings {
        let mut r = RetryAfterSettings {
            at: self.at(map),
            honor: None,
            max: None,
            on_invalid: None,
            on_above_max: None,
        };
        for (key, v) in self.known_entries(map, RETRY_AFTER_KEYS, "`retry_after`") {
            match key.as_str() {
                "honor" => r.honor = self.boolean(v, "`retry_after.honor`"),
                "max" if self.todo(v, "retry_after.max", todos) => {}
                "max" => r.max = self.duration(v, "`retry_after.max`"),
                "on_invalid" => {
                    r.on_invalid = self.choice(
                        v,
                        "`retry_after.on_invalid`",
                        &[("backoff", OnInvalid::Backoff), ("stop", OnInvalid::Stop)],
                    )
                }
                "on_above_max" => {
                    r.on_above_max = self.choice(
                        v,
                        "`retry_after.on_above_max`",
                        &[("backoff", OnInvalid::Backoff), ("stop", OnInvalid::Stop)],
                    )
                }
                _ => unreachable!("filtered by known_entries"),
            }
        }
        r
    }

    fn signals(&mut self, node: NodeId) -> Option<Spanned<Vec<Spanned<Signal>>>> {
        if self.tree.kind(node) != Kind::Seq {
            self.wrong_type(node, "`retry_on`", "a list of signals");
            return None;
        }
        let mut out = Vec::new();
        let items = self.tree.items(node);
        for &item in items {
            if let Some(sig) = self.signal(item) {
                out.push(self.spanned(sig, item));
            }
        }
        if out.is_empty() && !items.is_empty() {
            // Every signal was rejected (each an RL005 already): the list is rejected
            // like a bad scalar, not read as a deliberately empty `retry_on: []`.
            return None;
        }
        Some(self.spanned(out, node))
    }

    fn signal(&mut self, node: NodeId) -> Option<Signal> {
        let kind = self.tree.kind(node);
        let text = match (kind, self.tree.scalar(node)) {
            (Kind::Int | Kind::Str, Some(t)) => t.to_string(),
            _ => {
                self.wrong_type(node, "a `retry_on` item", "a signal name or an HTTP status");
                return None;
            }
        };
        // Names from the signal table, statuses 100..=599, classes `5xx`/`5XX`.
        let sig = text.parse::<Signal>().ok();
        if sig.is_none() {
            let help = match suggest(&text, SIGNAL_NAMES) {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!(
                    "use {}, an HTTP status (`503`) or a class (`5xx`)",
                    SIGNAL_NAMES
                        .iter()
                        .map(|s| format!("`{s}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            self.err(
                node,
                format!("unknown signal `{text}` in `retry_on`"),
                "unknown signal",
                Some(help),
            );
        }
        sig
    }

    /// `backoff.jitter`: a variant name, or `{proportional: F}` with 0 < F <= 1. A
    /// rejected value marks `backoff.jitter` as rejected (so RL305 does not report
    /// it again as missing).
    fn jitter(&mut self, v: NodeId) -> Option<Spanned<Jitter>> {
        let jitter = if self.tree.kind(v) == Kind::Map {
            let mut found = None;
            for (_, f) in self.known_entries(v, JITTER_KEYS, "`backoff.jitter`") {
                found = self.jitter_factor(f).map(Jitter::Proportional);
            }
            if found.is_none() && self.tree.entries(v).is_empty() {
                self.err(
                    v,
                    "`backoff.jitter` is an empty mapping".into(),
                    "no jitter",
                    Some("write a variant (`full`) or `{proportional: 0.5}`".into()),
                );
            }
            found
        } else {
            let named = self.choice(
                v,
                "`backoff.jitter`",
                &[
                    ("none", Some(Jitter::None)),
                    ("full", Some(Jitter::Full)),
                    ("equal", Some(Jitter::Equal)),
                    ("decorrelated", Some(Jitter::Decorrelated)),
                    ("proportional", None),
                ],
            );
            match named {
                Some(Spanned { value: None, .. }) => {
                    self.err(
                        v,
                        "`proportional` jitter needs its factor".into(),
                        "no factor",
                        Some("write `jitter: {proportional: 0.5}` (±50% around the backoff; gRPC uses 0.2)".into()),
                    );
                    None
                }
                Some(Spanned { value, .. }) => value,
                None => None,
            }
        };
        if jitter.is_none() && !self.0.rejected.contains(&v) {
            self.0.rejected.push(v);
        }
        jitter.map(|j| self.spanned(j, v))
    }

    /// The factor of `jitter: {proportional: F}`: a number, 0 < F <= 1.
    fn jitter_factor(&mut self, node: NodeId) -> Option<JitterFactor> {
        let f = self.number(node, "`backoff.jitter.proportional`")?;
        let factor = JitterFactor::new(f.value);
        if factor.is_none() {
            self.err(
                node,
                format!(
                    "`backoff.jitter.proportional` `{}` is out of range: the factor must be above 0 and at most 1",
                    f.value
                ),
                "factor out of range",
                Some("the delay is drawn from [b(1-f), b(1+f)] around the backoff b: gRPC uses 0.2, Resilience4j, Spring and Traefik 0.5".into()),
            );
        }
        factor
    }

    /// `methods`: a list of upper-case HTTP method tokens (those of selectors).
    fn methods(&mut self, node: NodeId) -> Option<Spanned<Vec<Spanned<String>>>> {
        if self.tree.kind(node) != Kind::Seq {
            self.wrong_type(node, "`methods`", "a list of HTTP methods");
            return None;
        }
        let mut out = Vec::new();
        let items = self.tree.items(node);
        for &item in items {
            let Some(text) = self.tree.as_str(item).map(str::to_string) else {
                self.wrong_type(item, "a `methods` item", "an HTTP method such as `GET`");
                continue;
            };
            if METHOD_NAMES.contains(&text.as_str()) {
                out.push(self.spanned(text, item));
                continue;
            }
            let upper = text.to_ascii_uppercase();
            let help = if METHOD_NAMES.contains(&upper.as_str()) {
                format!("did you mean `{upper}`? Method tokens are case-sensitive (RFC 9110 section 9.1)")
            } else {
                // `suggest` folds the word's case, not the candidates'.
                let lower: Vec<String> = METHOD_NAMES
                    .iter()
                    .map(|m| m.to_ascii_lowercase())
                    .collect();
                let lower: Vec<&str> = lower.iter().map(String::as_str).collect();
                match suggest(&text, &lower) {
                    Some(s) => format!("did you mean `{}`?", s.to_ascii_uppercase()),
                    None => format!("use one of {}", METHOD_NAMES.join(", ")),
                }
            };
            self.err(
                item,
                format!("unknown method `{text}` in `methods`"),
                "unknown method",
                Some(help),
            );
        }
        if out.is_empty() && !items.is_empty() {
            // Every method was rejected: not read as a deliberately empty list.
            return None;
        }
        Some(self.spanned(out, node))
    }

    fn suppressions(&mut self, node: NodeId) -> Vec<Suppression> {
        if self.tree.kind(node) != Kind::Seq {
            self.wrong_type(node, "`ignore`", "a list of `{rule, reason}` mappings");
            return Vec::new();
        }
        let mut out = Vec::new();
        for &item in self.tree.items(node) {
            if !self.expect_map(item, "an `ignore` item") {
                continue;
            }
            let mut s = Suppression {
                at: self.at(item),
                rule: None,
                reason: None,
            };
            for (key, v) in self.known_entries(item, IGNORE_KEYS, "an `ignore` item") {
                match key.as_str() {
                    "rule" => s.rule = self.string(v, "`rule`"),
                    "reason" => s.reason = self.string(v, "`reason`"),
                    _ => unreachable!("filtered by known_entries"),
                }
            }
            out.push(s);
        }
        out
    }
}
