//! The endpoint model: what the rules need of an OpenAPI document, one shape for
//! Swagger 2.0, OpenAPI 3.0 and 3.1. Every element keeps where it is defined
//! ([`At`]: file + node), so findings point at the definition (through `$ref`s).

use crate::source::loader::Loaded;
use crate::source::refs::At;
use std::sync::Arc;

/// The OpenAPI version family of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum SpecVersion {
    /// Swagger 2.0 (`swagger: "2.0"`).
    Swagger2,
    /// OpenAPI 3.0.x.
    OpenApi30,
    /// OpenAPI 3.1.x.
    OpenApi31,
}

/// One OpenAPI document (a file with a top-level `openapi` or `swagger` key).
#[derive(Debug)]
pub struct Document {
    /// The root file.
    pub doc: Arc<Loaded>,
    /// Its version family.
    pub version: SpecVersion,
    /// Operations under `paths`, in document order.
    pub operations: Vec<Operation>,
    /// 3.1 `webhooks` operations: provider-initiated, never client-retried.
    pub webhooks: Vec<Operation>,
    /// The root's inline `x-retry` mapping (policy defaults), if any.
    pub x_retry: Option<At>,
    /// RL008's finding when it was already computed (by
    /// the pipeline, beside the ref scan: [`crate::openapi::lint_document_beside`]); `None` when
    /// not yet computed.
    pub structure_check: Option<Option<crate::diagnostic::Diagnostic>>,
    /// The service whose server code this document was read from (routes declared
    /// in code, `crate::import::server`) when no OpenAPI document describes it;
    /// `None` for a written OpenAPI document.
    pub server_code: Option<String>,
    /// How loosely the server matches request paths to this document's templates:
    /// exactly for a written OpenAPI document (`/x` and `/x/` are two paths);
    /// its framework's own rule for one read from server code.
    pub path_matching: PathMatching,
}

/// How a server matches a request path to a path template, beyond the template's
/// own syntax.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PathMatching {
    /// Literal segments match in any case (`/api/Orders` reaches `/api/orders`).
    pub any_case: bool,
    /// A trailing `/` makes no difference (`/api/orders/` reaches `/api/orders`).
    pub trailing_slash_optional: bool,
}

/// One operation: a method under a path item.
#[derive(Debug, Clone)]
pub struct Operation {
    /// Lower-case method key as written under the path item (`post`).
    pub method: String,
    /// The path template key (`/orders/{id}`).
    pub path: String,
    /// `operationId`, if declared.
    pub operation_id: Option<String>,
    /// `tags`, as written (client configs may name operations by tag).
    pub tags: Vec<String>,
    /// The operation mapping (after resolving a path-item `$ref`).
    pub at: At,
    /// The method key node under the path item (where operation labels point).
    pub key: At,
    /// Effective parameters: path-level merged with operation-level, the operation's
    /// replacing a path-level one with the same `in` and name (header names compare
    /// case-insensitively). Duplicates within one level are kept (RL009 reports them).
    pub params: Vec<Parameter>,
    /// Responses, in document order.
    pub responses: Vec<Response>,
    /// The operation's inline `x-retry` mapping, if any.
    pub x_retry: Option<At>,
}

impl Operation {
    /// `POST /orders`: the method upper-cased and the path template.
    pub fn display(&self) -> String {
        format!("{} {}", self.method.to_ascii_uppercase(), self.path)
    }

    /// The header parameter named `name` (case-insensitive), if declared.
    pub fn header_param(&self, name: &str) -> Option<&Parameter> {
        self.params
            .iter()
            .rev()
            .find(|p| p.location == "header" && p.name.eq_ignore_ascii_case(name))
    }

    /// The response that documents `code`: an explicit code beats its `NXX` range;
    /// `default` never counts.
    pub fn response_for(&self, code: u16) -> Option<&Response> {
        self.responses
            .iter()
            .find(|r| r.status == StatusKey::Code(code))
            .or_else(|| {
                self.responses
                    .iter()
                    .find(|r| r.status == StatusKey::Range((code / 100) as u8))
            })
    }
}

/// One parameter as the operation sees it.
#[derive(Debug, Clone)]
pub struct Parameter {
    /// `name`.
    pub name: String,
    /// `in`: `path`, `query`, `header`, `cookie`, `body`, `formData`.
    pub location: String,
    /// `required: true`.
    pub required: bool,
    /// The parameter mapping (resolved through `$ref`).
    pub at: At,
    /// Where it is listed (the sequence item, possibly a `$ref`).
    pub listed_at: At,
    /// True for a header that a server's handler requires and de-duplicates on by
    /// its name (an idempotency key or a request id, `[FromHeader(Name =
    /// "x-requestid")]`), read from server code (`crate::import::server`): it is the
    /// operation's key whatever its name. Always false in a written document.
    pub handler_key: bool,
}

/// A response key read as a status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusKey {
    /// An explicit code (`429`, `'429'`).
    Code(u16),
    /// A range `4XX` (also read from a lower-case `4xx`, which RL012 reports).
    Range(u8),
    /// `default`.
    Default,
    /// Anything else (RL012).
    Invalid,
}

/// One response of an operation.
#[derive(Debug, Clone)]
pub struct Response {
    /// The key as written.
    pub key_text: String,
    /// The key read as a status.
    pub status: StatusKey,
    /// The key node in the `responses` mapping.
    pub key: At,
    /// The response mapping (resolved through `$ref`).
    pub at: At,
    /// Declared headers (a missing `headers` map is none).
    pub headers: Vec<Header>,
    /// True when the response declares a `links` map with at least one link.
    pub has_links: bool,
}

impl Response {
    /// The header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&Header> {
        self.headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
    }
}

/// One response header.
#[derive(Debug, Clone)]
pub struct Header {
    /// The header name as written.
    pub name: String,
    /// The header's name key node.
    pub key: At,
    /// The header object (resolved through `$ref`).
    pub at: At,
    /// Its schema node (3.x `schema`, resolved), or for Swagger 2.0 the header object
    /// itself (which carries `type`/`format`).
    pub schema: Option<At>,
}
