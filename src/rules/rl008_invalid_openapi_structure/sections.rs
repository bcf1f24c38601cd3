//! Whether `openapiv3::OpenAPI` accepts a document, read section by section: each
//! root field, each path item and each component entry on its own (in parallel).
//!
//! Why: `openapiv3` reads `paths` through flattened maps, so serde buffers the whole
//! `paths` object before reading it, and every `ReferenceOr`/`Schema` re-buffers its
//! subtree. Read in one piece, the GitHub REST description (13 MB) costs about three
//! bare parses and its `paths` buffer dominates peak memory. Read in pieces, the same
//! types see the same nodes, the buffers are one path item large and both cores work.
//!
//! The typed model has no cross-section checks, so the document reads iff every piece
//! reads with the type the model gives it:
//! - root: `openapi` (string), `info`, `servers`, `security`, `tags`, `externalDocs`
//!   each typed as in `openapiv3::OpenAPI`; `openapi`, `info` and `paths` required;
//!   `x-` fields take any value, other fields are ignored;
//! - `paths`: a mapping; each key starting with `/` a `ReferenceOr<PathItem>`;
//! - `components`: absent, null, or a mapping whose nine known sections are mappings
//!   of `ReferenceOr<T>`.
//!
//! Each piece is first offered to [`fast::accepts`], a walk over the tree that says
//! true only when it is certain the type accepts the piece; only the pieces it
//! declines are read with serde.
//!
//! Anything this reading is unsure of (a non-string key, a section that is not a
//! mapping) counts as "not accepted": the caller then reads the whole document the
//! slow, exact way, so a difference here can only cost time, never change a result.

use super::fast;
use super::piece::Piece;
use super::tree_de::{Limits, NodeDe};
use crate::source::tree::{Kind, NodeId, Tree};
use openapiv3 as oa;
use rayon::prelude::*;
use serde::de::DeserializeOwned;

/// How the pieces are read: straight from the JSON text (a JSON file without repeated
/// keys) or through the tree reader (any other tree).
#[derive(Debug, Clone, Copy)]
pub enum Source {
    /// `serde_json` over each piece's text span.
    JsonText,
    /// [`NodeDe`] over each piece's node.
    Tree {
        /// Nodes one piece may read; with `shared`, all pieces together.
        budget: usize,
        /// Deepest nesting, counted from the document root.
        max_depth: usize,
        /// One budget for the whole document: a tree with aliases, where a few
        /// nodes can stand for a huge document (an alias bomb referenced from every
        /// path item must not cost its expansion once per piece).
        shared: bool,
    },
}

impl Source {
    /// The budget every piece of a document shares, if this source has one.
    fn shared_limits(self) -> Option<Limits> {
        match self {
            Source::Tree {
                budget,
                max_depth,
                shared: true,
            } => Some(Limits::new(budget, max_depth)),
            _ => None,
        }
    }
}

/// True when every piece of the document reads with its `openapiv3` type; false when
/// one does not, or when the document is not shaped so that it can be read in pieces.
pub fn accepts(tree: &Tree, root: NodeId, source: Source) -> bool {
    let shared = source.shared_limits();
    match pieces(tree, root) {
        Some(pieces) => pieces
            .par_iter()
            .all(|&(piece, node, depth)| reads(tree, node, depth, piece, source, shared.as_ref())),
        None => false,
    }
}

/// The first piece, in document order, that does not read: its node and why, as
/// (JSON Pointer tokens from the root, message). `None` when every piece reads or
/// the document is not shaped for reading in pieces. `to_value` converts a node as
/// RL008's exact reading does (`None`: over its budget).
///
/// Used for documents too big to convert whole: the message is the piece type's
/// own, read from the piece alone, so it names the same problem as the whole reading
/// but may pick another failing piece when several fail.
pub fn first_failure(
    tree: &Tree,
    root: NodeId,
    source: Source,
    to_value: impl Fn(NodeId) -> Option<serde_json::Value>,
) -> Option<(Vec<String>, String)> {
    let pieces = pieces(tree, root)?;
    let shared = source.shared_limits();
    let &(piece, node, _) = pieces
        .iter()
        .find(|&&(piece, node, depth)| !reads(tree, node, depth, piece, source, shared.as_ref()))?;
    let value = to_value(node)?;
    let (inner, message) = explain(piece, &value)?;
    let mut tokens = path_to(tree, root, node);
    tokens.extend(inner);
    Some((tokens, message))
}

/// The key tokens from `root` down to `node`.
fn path_to(tree: &Tree, root: NodeId, node: NodeId) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut cur = node;
    while cur != root {
        let Some(key) = tree.key_of(cur) else { break };
        tokens.push(tree.scalar(key).unwrap_or("").to_string());
        let Some(parent) = tree.parent(cur) else {
            break;
        };
        cur = parent;
    }
    tokens.reverse();
    tokens
}

/// Why `value` does not read as `piece`'s type: (tokens inside it, message).
fn explain(piece: Piece, value: &serde_json::Value) -> Option<(Vec<String>, String)> {
    // Read as the item itself when it is no `$ref`, so that the path goes inside
    // (a `ReferenceOr` buffers its value and the path stops at it).
    if matches!(piece, Piece::PathItem) && value.get("$ref").is_none() {
        return why::<oa::PathItem>(value);
    }
    struct Why<'v>(&'v serde_json::Value);
    impl WithType for Why<'_> {
        type Out = Option<(Vec<String>, String)>;
        fn call<T: DeserializeOwned>(self) -> Self::Out {
            why::<T>(self.0)
        }
    }
    with_type(piece, Why(value))
}

/// A call generic over the type a piece is read as ([`with_type`]).
trait WithType {
    type Out;
    fn call<T: DeserializeOwned>(self) -> Self::Out;
}

/// Calls `f` with the `openapiv3` type of `piece`: the one table of piece types,
/// shared by the check and the explanation so that they never read differently.
fn with_type<F: WithType>(piece: Piece, f: F) -> F::Out {
    use oa::ReferenceOr as R;
    match piece {
        Piece::Str => f.call::<String>(),
        Piece::Info => f.call::<oa::Info>(),
        Piece::Servers => f.call::<Vec<oa::Server>>(),
        Piece::Security => f.call::<Option<Vec<oa::SecurityRequirement>>>(),
        Piece::Tags => f.call::<Vec<oa::Tag>>(),
        Piece::ExternalDocs => f.call::<Option<oa::ExternalDocumentation>>(),
        Piece::PathItem => f.call::<R<oa::PathItem>>(),
        Piece::Schema => f.call::<R<oa::Schema>>(),
        Piece::Response => f.call::<R<oa::Response>>(),
        Piece::Parameter => f.call::<R<oa::Parameter>>(),
        Piece::Example => f.call::<R<oa::Example>>(),
        Piece::RequestBody => f.call::<R<oa::RequestBody>>(),
        Piece::Header => f.call::<R<oa::Header>>(),
        Piece::SecurityScheme => f.call::<R<oa::SecurityScheme>>(),
        Piece::Link => f.call::<R<oa::Link>>(),
        Piece::Callback => f.call::<R<oa::Callback>>(),
    }
}

fn why<T: DeserializeOwned>(value: &serde_json::Value) -> Option<(Vec<String>, String)> {
    let err = serde_path_to_error::deserialize::<_, T>(value).err()?;
    let mut tokens = Vec::new();
    super::push_path(&mut tokens, err.path());
    Some((tokens, err.inner().to_string()))
}

/// Every piece with its node and depth below the root; `None` when the document is
/// not shaped for reading in pieces (a required field missing, a non-string key, a
/// section that is not a mapping).
pub(super) fn pieces(tree: &Tree, root: NodeId) -> Option<Vec<(Piece, NodeId, usize)>> {
    let mut out = Vec::new();
    let mut seen_required = 0;
    for (k, v) in string_keyed(tree, root)? {
        let piece = match tree.scalar(k)? {
            "openapi" => Piece::Str,
            "info" => Piece::Info,
            "servers" => Piece::Servers,
            "security" => Piece::Security,
            "tags" => Piece::Tags,
            "externalDocs" => Piece::ExternalDocs,
            "paths" => {
                for (pk, pv) in string_keyed(tree, v)? {
                    if tree.scalar(pk)?.starts_with('/') {
                        out.push((Piece::PathItem, pv, 2));
                    }
                }
                seen_required += 1;
                continue;
            }
            "components" => {
                if tree.kind(v) != Kind::Null {
                    components(tree, v, &mut out)?;
                }
                continue;
            }
            _ => continue,
        };
        if matches!(piece, Piece::Str | Piece::Info) {
            seen_required += 1;
        }
        out.push((piece, v, 1));
    }
    (seen_required == 3).then_some(out)
}

fn components(tree: &Tree, node: NodeId, out: &mut Vec<(Piece, NodeId, usize)>) -> Option<()> {
    for (k, section) in string_keyed(tree, node)? {
        let piece = match tree.scalar(k)? {
            "schemas" => Piece::Schema,
            "responses" => Piece::Response,
            "parameters" => Piece::Parameter,
            "examples" => Piece::Example,
            "requestBodies" => Piece::RequestBody,
            "headers" => Piece::Header,
            "securitySchemes" => Piece::SecurityScheme,
            "links" => Piece::Link,
            "callbacks" => Piece::Callback,
            _ => continue,
        };
        for (_, entry) in string_keyed(tree, section)? {
            out.push((piece, entry, 3));
        }
    }
    Some(())
}

/// The effective entries of a mapping whose keys are all strings; `None` otherwise.
fn string_keyed(tree: &Tree, map: NodeId) -> Option<Vec<(NodeId, NodeId)>> {
    if tree.kind(map) != Kind::Map {
        return None;
    }
    let entries = tree.entries(map);
    entries
        .iter()
        .all(|&(k, _)| tree.kind(k) == Kind::Str)
        .then_some(entries)
}

/// Whether one piece reads with its type: [`fast::accepts`] first, the exact serde
/// reading ([`reads_as`]) when it is unsure. Trees with aliases skip the fast walk:
/// their exact reading bounds alias expansion with a budget the walk would not share.
fn reads(
    tree: &Tree,
    node: NodeId,
    depth: usize,
    piece: Piece,
    source: Source,
    shared: Option<&Limits>,
) -> bool {
    if !tree.has_aliases() && fast::accepts(tree, node, depth, piece) {
        return true;
    }
    exact_reads(tree, node, depth, piece, source, shared)
}

/// Whether one piece reads with its type, by the exact serde reading alone.
pub(super) fn exact_reads(
    tree: &Tree,
    node: NodeId,
    depth: usize,
    piece: Piece,
    source: Source,
    shared: Option<&Limits>,
) -> bool {
    struct Reads<'t> {
        tree: &'t Tree,
        node: NodeId,
        depth: usize,
        source: (Source, Option<&'t Limits>),
    }
    impl WithType for Reads<'_> {
        type Out = bool;
        fn call<T: DeserializeOwned>(self) -> bool {
            reads_as::<T>(self.tree, self.node, self.depth, self.source)
        }
    }
    let source = (source, shared);
    with_type(
        piece,
        Reads {
            tree,
            node,
            depth,
            source,
        },
    )
}

fn reads_as<T: DeserializeOwned>(
    tree: &Tree,
    node: NodeId,
    depth: usize,
    (source, shared): (Source, Option<&Limits>),
) -> bool {
    match (source, shared) {
        (Source::JsonText, _) => serde_json::from_str::<T>(&tree.text()[tree.span(node)]).is_ok(),
        (Source::Tree { .. }, Some(limits)) => {
            T::deserialize(NodeDe::at_depth(tree, node, depth, limits)).is_ok()
        }
        (
            Source::Tree {
                budget, max_depth, ..
            },
            None,
        ) => {
            let limits = Limits::new(budget, max_depth);
            T::deserialize(NodeDe::at_depth(tree, node, depth, &limits)).is_ok()
        }
    }
}
