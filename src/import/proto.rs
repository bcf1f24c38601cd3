//! The RPCs of the run's `.proto` files: how a gRPC method config binds to HTTP
//! operations (`google.api.http` rules), and what an RPC says about its own safety
//! (`idempotency_level`, an AIP-155 `request_id`); `layers.md` "Binding" 4,
//! `retry-configs.md` §6.2.
//!
//! Scaffold: the types; the reader lands in issue 15.

use crate::diagnostic::Diagnostic;
use crate::policy::model::Spanned;
use crate::source::loader::Loaded;
use crate::source::refs::At;
use std::sync::Arc;

/// Every RPC of the `.proto` files of a run.
#[derive(Debug, Clone, Default)]
pub struct ProtoIndex {
    /// The RPCs, in file order.
    pub rpcs: Vec<Rpc>,
}

/// One RPC of a service.
#[derive(Debug, Clone)]
pub struct Rpc {
    /// The fully qualified service name (`google.pubsub.v1.Publisher`).
    pub service: String,
    /// The method name (`CreateTopic`).
    pub method: String,
    /// The RPC's name in the `.proto`.
    pub at: At,
    /// `google.api.http` rules, `additional_bindings` included (empty: none).
    pub http: Vec<HttpRule>,
    /// `option idempotency_level`, when written.
    pub idempotency_level: Option<Spanned<IdempotencyLevel>>,
    /// The request message's AIP-155 `string request_id` field, when it has one.
    pub request_id: Option<At>,
}

/// One `google.api.http` binding.
#[derive(Debug, Clone)]
pub struct HttpRule {
    /// The HTTP method, upper case (a `custom` kind as written).
    pub method: String,
    /// The path template (`/v1/{name=projects/*/topics/*}:publish`).
    pub template: String,
    /// The rule's node.
    pub at: At,
}

/// `MethodOptions.idempotency_level`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdempotencyLevel {
    /// `NO_SIDE_EFFECTS`: safe.
    NoSideEffects,
    /// `IDEMPOTENT`.
    Idempotent,
}

impl ProtoIndex {
    /// An index with no RPC.
    pub const fn empty() -> ProtoIndex {
        ProtoIndex { rpcs: Vec::new() }
    }

    /// Reads `files` (`.proto` sources). Scaffold: reads nothing yet.
    pub fn build(_files: &[Arc<Loaded>]) -> (ProtoIndex, Vec<Diagnostic>) {
        (ProtoIndex::default(), Vec::new())
    }

    /// The RPC `service`/`method` (fully qualified service name).
    pub fn rpc(&self, service: &str, method: &str) -> Option<&Rpc> {
        self.rpcs
            .iter()
            .find(|r| r.service == service && r.method == method)
    }

    /// The RPCs of `service` (fully qualified).
    pub fn service<'a>(&'a self, service: &'a str) -> impl Iterator<Item = &'a Rpc> + 'a {
        self.rpcs.iter().filter(move |r| r.service == service)
    }
}
