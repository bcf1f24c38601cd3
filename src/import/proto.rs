//! The `.proto` files of a run, read for binding gRPC method configs to HTTP
//! operations (`layers.md` "Binding" 4, `retry-configs.md` §6.2): every RPC with its
//! fully qualified service, its `google.api.http` rules, its `idempotency_level` and
//! whether its request message has an AIP-155 `string request_id` field.
//!
//! Files are parsed at syntax level (`protox_parse`): imports are not resolved
//! (`google/api/annotations.proto` is usually not in the run), so `google.api.http`
//! is recognised by its name and its text-format value read from the source. A
//! request type is looked up among the messages of every `.proto` file of the run by
//! protobuf scoping (the RPC's package, then each enclosing package); a type from a
//! file not in the run (`google.protobuf.Empty`) has no `request_id`. Not read:
//! `body`, `response_body`, `selector`, service-level options, `google.api.method_signature`,
//! field behaviours, streaming flags. A syntax error is RL001 at its position and the
//! other files are still read; protos produce no other finding (a proto is not a
//! retry config).

mod reader;
#[cfg(test)]
mod tests;
pub mod text_format;

use crate::diagnostic::Diagnostic;
use crate::policy::model::Spanned;
use crate::source::loader::{LoadError, Loaded};
use crate::source::refs::At;
use crate::source::rl001_invalid_syntax;
use rayon::prelude::*;
use std::collections::HashMap;
use std::fmt::Write;
use std::sync::{Arc, OnceLock};

/// Every RPC of the `.proto` files of the run, with its HTTP bindings and its
/// idempotency signals.
#[derive(Debug, Clone, Default)]
pub struct ProtoIndex {
    /// The RPCs, file by file in the order given, each file's services and RPCs in
    /// file order.
    pub rpcs: Vec<Rpc>,
    /// service -> indexes in `rpcs`, in order; built on the first look-up (RPCs
    /// pushed later are still found, by a scan).
    by_service: OnceLock<ByService>,
}

#[derive(Debug, Clone)]
struct ByService {
    /// `rpcs.len()` when built.
    len: usize,
    map: HashMap<String, Vec<usize>>,
}

/// One RPC of a `.proto` file.
#[derive(Debug, Clone)]
pub struct Rpc {
    /// The fully qualified service: package + service (`google.pubsub.v1.Publisher`).
    pub service: String,
    /// The method (`CreateTopic`).
    pub method: String,
    /// The RPC, located at its name in the `.proto`.
    pub at: At,
    /// `google.api.http` rules, the rule first, then its `additional_bindings` in
    /// order (empty: none).
    pub http: Vec<HttpRule>,
    /// `option idempotency_level`, when `NO_SIDE_EFFECTS` or `IDEMPOTENT` (located at
    /// the option name).
    pub idempotency_level: Option<Spanned<IdempotencyLevel>>,
    /// AIP-155: the `string request_id` field of the request message (located at the
    /// field name), when the request message is in a `.proto` of the run and has one.
    pub request_id: Option<At>,
}

/// One HTTP binding of an RPC (`google.api.HttpRule`, google/api/http.proto).
#[derive(Debug, Clone)]
pub struct HttpRule {
    /// The HTTP method in upper case (`GET`, `POST`, ...); a `custom` rule's `kind`
    /// as written (`HEAD`).
    pub method: String,
    /// The path template as written (`/v1/{name=projects/*/topics/*}:publish`).
    pub template: String,
    /// The rule, located at its pattern keyword (`post`, `custom`).
    pub at: At,
}

/// `google.protobuf.MethodOptions.IdempotencyLevel`, without `IDEMPOTENCY_UNKNOWN`
/// (which says nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdempotencyLevel {
    /// `NO_SIDE_EFFECTS`: a read; safe to retry.
    NoSideEffects,
    /// `IDEMPOTENT`: repeating it has the effect of doing it once.
    Idempotent,
}

impl IdempotencyLevel {
    /// The name as written in a `.proto`.
    pub fn as_str(self) -> &'static str {
        match self {
            IdempotencyLevel::NoSideEffects => "NO_SIDE_EFFECTS",
            IdempotencyLevel::Idempotent => "IDEMPOTENT",
        }
    }
}

impl ProtoIndex {
    /// An index with no RPC.
    pub const fn empty() -> ProtoIndex {
        ProtoIndex {
            rpcs: Vec::new(),
            by_service: OnceLock::new(),
        }
    }

    /// Reads every `.proto` file of a run (in parallel) into one index. Returns RL001
    /// for each syntax error (the file is left out, the others are read) and for a
    /// malformed `google.api.http` value (the RPC keeps its other rules). Never
    /// panics.
    pub fn build(files: &[Arc<Loaded>]) -> (ProtoIndex, Vec<Diagnostic>) {
        let reads: Vec<_> = files
            .par_iter()
            .map(|doc| match &doc.tree {
                // Not text (unreadable, binary, not UTF-8, too large): RL001. A YAML
                // syntax error says nothing about a `.proto`.
                Err(e) if !matches!(e, LoadError::Syntax(_)) => {
                    (None, vec![rl001_invalid_syntax::from_error(doc, e)])
                }
                _ => reader::read(doc),
            })
            .collect();
        let mut diagnostics = Vec::new();
        // Every message of the run by full name: its `request_id` field, if any.
        let mut messages: HashMap<&str, Option<At>> = HashMap::new();
        for (read, d) in &reads {
            diagnostics.extend(d.iter().cloned());
            let Some(read) = read else { continue };
            for (name, node) in &read.messages {
                messages
                    .entry(name.as_str())
                    .or_insert_with(|| node.map(|n| At::new(&read.doc, n)));
            }
        }
        let mut index = ProtoIndex::default();
        for read in reads.iter().filter_map(|(r, _)| r.as_ref()) {
            for s in &read.services {
                let service = reader::qualify(&read.package, &s.name);
                for r in &s.rpcs {
                    let at = |n| At::new(&read.doc, n);
                    let rpc = Rpc {
                        service: service.clone(),
                        method: r.name.clone(),
                        at: at(r.node),
                        http: r
                            .http
                            .iter()
                            .map(|(method, template, node)| HttpRule {
                                method: method.clone(),
                                template: template.clone(),
                                at: at(*node),
                            })
                            .collect(),
                        idempotency_level: r
                            .idempotency
                            .map(|(value, n)| Spanned { value, at: at(n) }),
                        request_id: resolve(&messages, &read.package, &r.input_type)
                            .and_then(|found| found.clone()),
                    };
                    index.rpcs.push(rpc);
                }
            }
        }
        (index, diagnostics)
    }

    /// An index of the given RPCs (tests, or RPCs known from elsewhere).
    pub fn from_rpcs(rpcs: impl IntoIterator<Item = Rpc>) -> ProtoIndex {
        ProtoIndex {
            rpcs: rpcs.into_iter().collect(),
            by_service: OnceLock::new(),
        }
    }

    /// The indexes in `rpcs` of `service`'s RPCs, in order.
    fn indexes<'a>(&'a self, service: &str) -> Box<dyn Iterator<Item = usize> + 'a> {
        let built = self.by_service.get_or_init(|| {
            let mut map: HashMap<String, Vec<usize>> = HashMap::new();
            for (i, r) in self.rpcs.iter().enumerate() {
                map.entry(r.service.clone()).or_default().push(i);
            }
            ByService {
                len: self.rpcs.len(),
                map,
            }
        });
        let known = built.map.get(service).into_iter().flatten().copied();
        // RPCs pushed after the map was built.
        let service = service.to_string();
        let later = (built.len..self.rpcs.len()).filter(move |&i| self.rpcs[i].service == service);
        Box::new(known.chain(later))
    }

    /// The RPC `method` of the fully qualified `service` (the first definition when
    /// two files define it).
    pub fn rpc(&self, service: &str, method: &str) -> Option<&Rpc> {
        self.indexes(service)
            .map(|i| &self.rpcs[i])
            .find(|r| r.method == method)
    }

    /// Every RPC of the fully qualified `service`, in file order.
    pub fn service<'a>(&'a self, service: &str) -> impl Iterator<Item = &'a Rpc> + 'a {
        self.indexes(service).map(move |i| &self.rpcs[i])
    }

    /// True when the run holds no RPC.
    pub fn is_empty(&self) -> bool {
        self.rpcs.is_empty()
    }

    /// The index as text, one RPC per line with its `file:line:col`, then its HTTP
    /// rules, idempotency level and `request_id`, each with `line:col`. For snapshot
    /// tests and `--verbose` listings; not a stable format.
    pub fn render(&self) -> String {
        let pos = |at: &At| {
            let loc = at.location();
            let lc = at.doc.file.line_col(loc.span.start);
            format!("{}:{}", lc.line, lc.column)
        };
        let mut out = String::new();
        for r in &self.rpcs {
            let _ = writeln!(
                out,
                "{}/{} @{}:{}",
                r.service,
                r.method,
                r.at.doc.file.display,
                pos(&r.at)
            );
            for h in &r.http {
                let _ = writeln!(out, "  http {} {} @{}", h.method, h.template, pos(&h.at));
            }
            if let Some(l) = &r.idempotency_level {
                let _ = writeln!(
                    out,
                    "  idempotency_level {} @{}",
                    l.value.as_str(),
                    pos(&l.at)
                );
            }
            if let Some(at) = &r.request_id {
                let _ = writeln!(out, "  request_id @{}:{}", at.doc.file.display, pos(at));
            }
        }
        out
    }
}

/// The message a type name written in package `package` refers to, by protobuf
/// scoping: a name starting with `.` is fully qualified; otherwise it is looked up in
/// `package`, then each enclosing package, then at the top. `None` when no file of
/// the run defines it.
fn resolve<'m, T>(messages: &'m HashMap<&str, T>, package: &str, name: &str) -> Option<&'m T> {
    if let Some(full) = name.strip_prefix('.') {
        return messages.get(full);
    }
    let mut scope = package;
    loop {
        if let Some(found) = messages.get(reader::qualify(scope, name).as_str()) {
            return Some(found);
        }
        if scope.is_empty() {
            return None;
        }
        scope = scope.rfind('.').map_or("", |i| &scope[..i]);
    }
}
