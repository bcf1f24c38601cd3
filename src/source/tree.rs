//! The located tree: one arena of small nodes per file, every node with the byte span
//! of its value (and, for mapping values, of its key), built from YAML 1.2 events.
//!
//! Design (see `docs/architecture.md`):
//! - Scalars keep their source text as a byte span; only scalars whose decoded text
//!   differs from the source (escapes, folding) own a string.
//! - Typing follows the YAML 1.2 core schema: `YES`, `on`, `=` are strings, `0777` is
//!   the integer 777, integers beyond 64 bits stay integers kept as text.
//! - Aliases resolve by reference: an alias is the anchored node's id, never a copy, so
//!   an alias bomb costs one id per alias.
//! - `<<` merge keys (plain scalar keys only) apply at lookup; explicit keys win.
//! - A mapping that repeats a key keeps the last occurrence; every repetition is
//!   recorded in [`Tree::duplicates`] with both key spans (rule RL002).
//! - Nesting is bounded by the parser (255 block and 255 flow levels), so every
//!   recursive walk is bounded; dropping a tree never recurses (flat vectors).

mod json;

use granit_parser::{Event, Parser, ScalarStyle};
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

/// Index of a node in its [`Tree`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

const NONE: u32 = u32::MAX;

/// The YAML 1.2 core-schema type of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `null`, `~`, or an empty plain scalar.
    Null,
    /// `true` / `false` (core schema spellings only).
    Bool,
    /// A decimal, octal (`0o`) or hex (`0x`) integer of any size.
    Int,
    /// A float, `.inf` or `.nan`.
    Float,
    /// Any other scalar, and every quoted or block scalar.
    Str,
    /// A mapping.
    Map,
    /// A sequence.
    Seq,
}

const FLAG_OWNED: u8 = 1;
const FLAG_PLAIN: u8 = 2;
const FLAG_MERGE: u8 = 4; // mapping has a `<<` key
const FLAG_DUP: u8 = 8; // mapping repeats a key
const FLAG_CLOSED: u8 = 16; // collection fully built

#[derive(Debug, Clone)]
struct Node {
    start: u32,
    end: u32,
    // Scalar: text byte range (or owned index in `a`); Map: first entry, count;
    // Seq: first item, count.
    a: u32,
    b: u32,
    parent: u32,
    // Key node id when the parent is a mapping, item index when a sequence.
    slot: u32,
    kind: Kind,
    flags: u8,
}

/// A syntax error: message and byte offset into the (BOM-stripped) text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// What the parser reported.
    pub message: String,
    /// Byte offset of the error.
    pub offset: usize,
}

/// A repeated mapping key: the earlier occurrence and the repetition (both key nodes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Duplicate {
    /// The key as it appeared before.
    pub first: NodeId,
    /// The repetition.
    pub repeated: NodeId,
}

/// A parsed file: an arena of nodes with byte spans into the source text.
#[derive(Debug, Default, Clone)]
pub struct Tree {
    text: Arc<str>,
    nodes: Vec<Node>,
    entries: Vec<(NodeId, NodeId)>,
    items: Vec<NodeId>,
    owned: Vec<Box<str>>,
    root: Option<NodeId>,
    duplicates: Vec<Duplicate>,
    json: bool,
    aliases: bool,
    /// Byte span of this document in the stream (its `---` marker included).
    document: Range<usize>,
    /// Where each later non-empty document of the stream starts ([`Tree::parse`]).
    later_documents: Vec<Range<usize>>,
}

/// Which documents of a YAML stream the builder keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keep {
    /// The first non-empty document; later ones are parsed (so a syntax error
    /// anywhere is still an error) and only their starts are recorded.
    First,
    /// Every non-empty document, each as its own tree.
    All,
}

/// Deepest nesting of collections the parser accepts (block and flow alike); deeper
/// input is a syntax error naming this limit, never a stack overflow.
pub const MAX_NESTING: usize = 255;

/// [`Tree::parse_keeping_stream`] keeps the documents of a stream of more than this
/// many `---` separators only when they average at least [`TINY_DOCUMENT_BYTES`]:
/// a tree and its loaded file cost about 500 bytes beside the text.
const TINY_DOCUMENTS: usize = 1_000;

/// See [`TINY_DOCUMENTS`].
const TINY_DOCUMENT_BYTES: usize = 256;

/// Upper bound on `<<` merge chains followed during one lookup.
const MAX_MERGE_DEPTH: usize = 32;

impl Tree {
    /// Parses YAML 1.2 or JSON text into a located tree of its first document.
    ///
    /// A YAML stream is parsed to its end, so a syntax error in any document is an
    /// error; the nodes of later documents are not built, only where each starts is
    /// kept ([`Tree::later_documents`]). Empty documents (a lone `---` at the start, a
    /// trailing `---` with nothing after it, only comments) are no documents, and
    /// `...` end markers end a document without starting one. Errors carry the byte
    /// offset of the first problem.
    ///
    /// Text whose first non-blank character is `{` or `[` is first read by the JSON
    /// tokenizer, which builds the same tree as the YAML path at a fraction of the
    /// cost; on any JSON error the YAML path reads it (so errors keep their YAML
    /// messages and positions, and YAML written in flow style still parses).
    pub fn parse(text: Arc<str>) -> Result<Tree, SyntaxError> {
        let mut tree = match Tree::parse_json(&text) {
            Some(Ok(tree)) => tree,
            _ => Tree::parse_yaml(&text, Keep::First, &mut Vec::new())?
                .pop()
                .unwrap_or_default(),
        };
        tree.text = text;
        Ok(tree)
    }

    /// [`Tree::parse`], in the same one pass also keeping every document of a YAML
    /// stream as [`Tree::parse_stream`] gives them: `(first, documents)`, the
    /// documents empty for a single document. For a loader that does not know yet
    /// whether the file is a stream by design (a Kubernetes manifest) or a single
    /// document, so that a stream is never parsed twice.
    pub fn parse_keeping_stream(text: Arc<str>) -> Result<(Tree, Vec<Tree>), SyntaxError> {
        if let Some(Ok(mut tree)) = Tree::parse_json(&text) {
            tree.text = text;
            return Ok((tree, Vec::new()));
        }
        // Only a stream that mentions retries (`retries:`, `retryOn`, `RetryPolicy`)
        // is worth its trees: a manifest of Deployments is read for its first
        // document only, and building the others would triple its peak memory. A
        // stream not kept is parsed again by whoever needs it (an Istio
        // VirtualService relying on the default retries): slower, never different.
        // Many tiny documents (a hostile stream) would cost far more as trees than
        // as text: for those, only where each starts is kept, as `parse` does.
        let bytes = text.as_bytes();
        let mentions_retries = memchr::memmem::find(bytes, b"retr").is_some()
            || memchr::memmem::find(bytes, b"Retr").is_some();
        let separators = memchr::memmem::find_iter(bytes, b"\n---").count();
        let tiny = separators > TINY_DOCUMENTS && text.len() / separators < TINY_DOCUMENT_BYTES;
        if !mentions_retries || tiny {
            return Ok((Tree::parse(text)?, Vec::new()));
        }
        let mut markers = Vec::new();
        let mut documents = Tree::parse_yaml(&text, Keep::All, &mut markers)?;
        for tree in &mut documents {
            tree.text = text.clone();
        }
        match documents.len() {
            // No document (only comments, a lone `---`): the tree `parse` gives.
            0 => return Ok((Tree::parse(text)?, Vec::new())),
            1 => return Ok((documents.pop().unwrap_or_default(), Vec::new())),
            _ => {}
        }
        let mut first = documents[0].clone();
        first.later_documents = markers.split_off(1);
        Ok((first, documents))
    }

    /// Parses a YAML stream (YAML 1.2 section 9.2) into one tree per non-empty
    /// document, in order, each with its [`Tree::document_span`]. For files that are
    /// streams by design (Kubernetes manifests); an OpenAPI description or a policy
    /// is one document and is read with [`Tree::parse`]. JSON text is one document.
    pub fn parse_stream(text: Arc<str>) -> Result<Vec<Tree>, SyntaxError> {
        let mut trees = match Tree::parse_json(&text) {
            Some(Ok(tree)) => vec![tree],
            _ => Tree::parse_yaml(&text, Keep::All, &mut Vec::new())?,
        };
        for tree in &mut trees {
            tree.text = text.clone();
        }
        Ok(trees)
    }

    /// The YAML path. JSON (and YAML double-quoted scalars) allow C1 control
    /// characters (U+0080..U+009F) unescaped; the YAML parser rejects them, so a copy
    /// with each replaced by a printable character of the same UTF-8 length is parsed
    /// instead, and every span still points into the original text.
    fn parse_yaml(
        text: &str,
        keep: Keep,
        markers: &mut Vec<Range<usize>>,
    ) -> Result<Vec<Tree>, SyntaxError> {
        let has_c1 = text
            .as_bytes()
            .windows(2)
            .any(|w| w[0] == 0xC2 && (0x80..=0x9F).contains(&w[1]) && w[1] != 0x85);
        if has_c1 {
            let parsed: String = text
                .chars()
                .map(|c| {
                    if ('\u{80}'..='\u{9f}').contains(&c) && c != '\u{85}' {
                        '\u{bf}'
                    } else {
                        c
                    }
                })
                .collect();
            Builder::new(&parsed).build(keep, markers)
        } else {
            Builder::new(text).build(keep, markers)
        }
    }

    /// The JSON path alone: `None` when the text does not start like JSON, else the
    /// tree or the first JSON error (its text not attached: [`Tree::parse`] does).
    fn parse_json(text: &str) -> Option<Result<Tree, SyntaxError>> {
        let first = text
            .bytes()
            .find(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r'))?;
        if first != b'{' && first != b'[' {
            return None;
        }
        let mut builder = Builder::new(text);
        // Roughly one node per 12 bytes of pretty-printed JSON.
        builder.tree.nodes.reserve(text.len() / 12);
        Some(json::build(&mut builder).map(|()| {
            builder.tree.json = true;
            builder.tree.document = 0..text.len();
            builder.tree
        }))
    }

    /// Byte span of this document in its file: from its `---` marker (or its first
    /// character when it has none) to its end (its `...` marker included).
    pub fn document_span(&self) -> Range<usize> {
        self.document.clone()
    }

    /// Where each later non-empty document of the stream starts, after the one this
    /// tree holds: the span of its `---` marker (empty, at its first character, for
    /// a bare document after a `...`). Empty for a single document and for trees
    /// from [`Tree::parse_stream`].
    pub fn later_documents(&self) -> &[Range<usize>] {
        &self.later_documents
    }

    /// True when the document holds nothing: no node, or only the empty null of a
    /// `---` with nothing after it.
    fn is_empty_document(&self) -> bool {
        match self.root {
            None => true,
            Some(r) => self.kind(r) == Kind::Null && self.span(r).is_empty(),
        }
    }

    /// True when the document uses an alias (`*name`): some node is reachable by more
    /// than one path, so walks that expand aliases need a budget.
    pub fn has_aliases(&self) -> bool {
        self.aliases
    }

    /// True when the tree was read by the JSON tokenizer (the text is JSON).
    pub fn is_json(&self) -> bool {
        self.json
    }

    /// The document's root node; `None` for an empty document.
    pub fn root(&self) -> Option<NodeId> {
        self.root
    }

    /// Number of nodes in the arena (each alias costs none).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when the document holds no node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Every repeated key in the file, in source order.
    pub fn duplicates(&self) -> &[Duplicate] {
        &self.duplicates
    }

    /// All node ids in source order of creation (a linear scan, aliases not expanded).
    pub fn all_nodes(&self) -> impl Iterator<Item = NodeId> + '_ {
        (0..self.nodes.len() as u32).map(NodeId)
    }

    /// The node's core-schema kind.
    pub fn kind(&self, id: NodeId) -> Kind {
        self.nodes[id.0 as usize].kind
    }

    /// Byte span of the node's value.
    pub fn span(&self, id: NodeId) -> Range<usize> {
        let n = &self.nodes[id.0 as usize];
        n.start as usize..n.end as usize
    }

    /// The parent collection, if any (for an aliased node, its definition's parent).
    pub fn parent(&self, id: NodeId) -> Option<NodeId> {
        let p = self.nodes[id.0 as usize].parent;
        (p != NONE).then_some(NodeId(p))
    }

    /// The key node under which a mapping value is defined.
    pub fn key_of(&self, id: NodeId) -> Option<NodeId> {
        let n = &self.nodes[id.0 as usize];
        if n.parent != NONE && self.nodes[n.parent as usize].kind == Kind::Map {
            Some(NodeId(n.slot))
        } else {
            None
        }
    }

    /// The span a diagnostic about this node should underline: the key token of a
    /// mapping entry, the first key of a mapping inside a sequence, else the value.
    pub fn label_span(&self, id: NodeId) -> Range<usize> {
        if let Some(key) = self.key_of(id) {
            return self.span(key);
        }
        if self.kind(id) == Kind::Map {
            if let Some((k, _)) = self.raw_entries(id).first() {
                return self.span(*k);
            }
        }
        self.span(id)
    }

    /// True when the node is a scalar written without quotes.
    pub fn is_plain(&self, id: NodeId) -> bool {
        self.nodes[id.0 as usize].flags & FLAG_PLAIN != 0
    }

    /// The decoded text of a scalar (whatever its type); `None` for collections.
    pub fn scalar(&self, id: NodeId) -> Option<&str> {
        let n = &self.nodes[id.0 as usize];
        match n.kind {
            Kind::Map | Kind::Seq => None,
            _ if n.flags & FLAG_OWNED != 0 => Some(&self.owned[n.a as usize]),
            _ => Some(&self.text()[n.a as usize..n.b as usize]),
        }
    }

    /// The text of a string-typed scalar (`Kind::Str`).
    pub fn as_str(&self, id: NodeId) -> Option<&str> {
        (self.kind(id) == Kind::Str)
            .then(|| self.scalar(id))
            .flatten()
    }

    /// A boolean scalar's value.
    pub fn as_bool(&self, id: NodeId) -> Option<bool> {
        (self.kind(id) == Kind::Bool).then(|| {
            self.scalar(id) == Some("true") || matches!(self.scalar(id), Some("True" | "TRUE"))
        })
    }

    /// An integer scalar's value when it fits in `i64` (`None` when it does not, or is
    /// not an integer).
    pub fn as_i64(&self, id: NodeId) -> Option<i64> {
        if self.kind(id) != Kind::Int {
            return None;
        }
        parse_core_int(self.scalar(id)?)
    }

    /// A numeric scalar's value as `f64` (integers beyond 64 bits are rounded).
    pub fn as_f64(&self, id: NodeId) -> Option<f64> {
        let text = self.scalar(id)?;
        match self.kind(id) {
            Kind::Int => parse_core_int(text)
                .map(|v| v as f64)
                .or_else(|| text.trim_start_matches('+').parse::<f64>().ok()),
            Kind::Float => parse_core_float(text),
            _ => None,
        }
    }

    /// True when a mapping has a `<<` merge key or repeats a key, so that its
    /// effective entries ([`Tree::entries`]) differ from those written
    /// ([`Tree::raw_entries`]); false for a mapping without either, and for any other
    /// node. A flag test: no walk, no allocation.
    pub fn merges_or_repeats(&self, map: NodeId) -> bool {
        let n = &self.nodes[map.0 as usize];
        n.kind == Kind::Map && n.flags & (FLAG_MERGE | FLAG_DUP) != 0
    }

    /// Mapping entries exactly as written (duplicates included, merges not applied).
    pub fn raw_entries(&self, map: NodeId) -> &[(NodeId, NodeId)] {
        let n = &self.nodes[map.0 as usize];
        if n.kind != Kind::Map {
            return &[];
        }
        &self.entries[n.a as usize..(n.a + n.b) as usize]
    }

    /// Sequence items (aliases already resolved to their targets).
    pub fn items(&self, seq: NodeId) -> &[NodeId] {
        let n = &self.nodes[seq.0 as usize];
        if n.kind != Kind::Seq {
            return &[];
        }
        &self.items[n.a as usize..(n.a + n.b) as usize]
    }

    fn is_merge_key(&self, key: NodeId) -> bool {
        self.is_plain(key) && self.scalar(key) == Some("<<")
    }

    /// Looks up `key` in a mapping: the last explicit occurrence wins; otherwise the
    /// `<<` merge sources are searched in order. Returns (key node, value node).
    pub fn get_entry(&self, map: NodeId, key: &str) -> Option<(NodeId, NodeId)> {
        self.get_entry_depth(map, key, 0)
    }

    fn get_entry_depth(&self, map: NodeId, key: &str, depth: usize) -> Option<(NodeId, NodeId)> {
        let n = &self.nodes[map.0 as usize];
        if n.kind != Kind::Map {
            return None;
        }
        if let Some(found) = self.explicit_entry(map, key) {
            return Some(found);
        }
        if n.flags & FLAG_MERGE == 0 {
            return None;
        }
        // Each merge source is searched once per lookup: a `<<` bomb (every level
        // merging the previous one nine times) stays linear in the arena.
        let mut visited = std::collections::HashSet::new();
        self.merged_entry(map, key, depth, &mut visited)
    }

    fn explicit_entry(&self, map: NodeId, key: &str) -> Option<(NodeId, NodeId)> {
        self.raw_entries(map)
            .iter()
            .rev()
            .find(|&&(k, _)| self.scalar(k) == Some(key) && !self.is_merge_key(k))
            .copied()
    }

    fn merged_entry(
        &self,
        map: NodeId,
        key: &str,
        depth: usize,
        visited: &mut std::collections::HashSet<NodeId>,
    ) -> Option<(NodeId, NodeId)> {
        if depth >= MAX_MERGE_DEPTH {
            return None;
        }
        for source in self.merge_sources(map) {
            if !visited.insert(source) {
                continue;
            }
            if let Some(found) = self.explicit_entry(source, key) {
                return Some(found);
            }
            if self.nodes[source.0 as usize].flags & FLAG_MERGE != 0 {
                if let Some(found) = self.merged_entry(source, key, depth + 1, visited) {
                    return Some(found);
                }
            }
        }
        None
    }

    /// Looks up the value of `key` in a mapping (merge-aware, last occurrence wins).
    pub fn get(&self, map: NodeId, key: &str) -> Option<NodeId> {
        self.get_entry(map, key).map(|(_, v)| v)
    }

    /// The mapping nodes that `<<` keys merge into `map`, in precedence order.
    fn merge_sources(&self, map: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        for &(k, v) in self.raw_entries(map).iter().rev() {
            if !self.is_merge_key(k) {
                continue;
            }
            match self.kind(v) {
                Kind::Map => out.push(v),
                Kind::Seq => out.extend(
                    self.items(v)
                        .iter()
                        .copied()
                        .filter(|&i| self.kind(i) == Kind::Map),
                ),
                _ => {}
            }
        }
        out
    }

    /// The effective entries of a mapping: each key once (its last occurrence), in
    /// source order, then keys merged by `<<` that no explicit key overrides. `<<`
    /// itself is never yielded.
    pub fn entries(&self, map: NodeId) -> Vec<(NodeId, NodeId)> {
        let n = &self.nodes[map.0 as usize];
        if n.kind != Kind::Map {
            return Vec::new();
        }
        let raw = self.raw_entries(map);
        if n.flags & (FLAG_MERGE | FLAG_DUP) == 0 {
            return raw.to_vec();
        }
        let mut out: Vec<(NodeId, NodeId)> = Vec::with_capacity(raw.len());
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for &(k, v) in raw {
            if self.is_merge_key(k) {
                continue;
            }
            let text = self.scalar(k).unwrap_or("");
            if let Some(&i) = seen.get(text) {
                out[i] = (k, v);
            } else {
                seen.insert(text, out.len());
                out.push((k, v));
            }
        }
        if n.flags & FLAG_MERGE != 0 {
            let mut visited = std::collections::HashSet::new();
            self.collect_merged(map, &mut out, &mut seen, &mut visited, 0);
        }
        out
    }

    fn collect_merged<'a>(
        &'a self,
        map: NodeId,
        out: &mut Vec<(NodeId, NodeId)>,
        seen: &mut HashMap<&'a str, usize>,
        visited: &mut std::collections::HashSet<NodeId>,
        depth: usize,
    ) {
        if depth >= MAX_MERGE_DEPTH {
            return;
        }
        for source in self.merge_sources(map) {
            // A source merged more than once (through aliases) adds nothing new.
            if !visited.insert(source) {
                continue;
            }
            for &(k, v) in self.raw_entries(source).iter().rev() {
                if self.is_merge_key(k) {
                    continue;
                }
                let text = self.scalar(k).unwrap_or("");
                if !seen.contains_key(text) {
                    seen.insert(text, out.len());
                    out.push((k, v));
                }
            }
            if self.nodes[source.0 as usize].flags & FLAG_MERGE != 0 {
                self.collect_merged(source, out, seen, visited, depth + 1);
            }
        }
    }

    /// The JSON Pointer (RFC 6901) of a node, following its definition's parents.
    pub fn pointer(&self, id: NodeId) -> String {
        let mut segments: Vec<String> = Vec::new();
        let mut cur = id;
        let mut guard = 0;
        while let Some(parent) = self.parent(cur) {
            let n = &self.nodes[cur.0 as usize];
            match self.kind(parent) {
                Kind::Map => segments.push(self.scalar(NodeId(n.slot)).unwrap_or("").to_string()),
                _ => segments.push(n.slot.to_string()),
            }
            cur = parent;
            guard += 1;
            if guard > 100_000 {
                break;
            }
        }
        let mut out = String::new();
        for seg in segments.iter().rev() {
            out.push('/');
            out.push_str(&super::pointer::escape(seg));
        }
        out
    }

    /// Follows a decoded JSON Pointer (list of reference tokens) from the root.
    pub fn lookup(&self, tokens: &[String]) -> Option<NodeId> {
        self.lookup_from(self.root?, tokens)
    }

    /// Follows a decoded JSON Pointer from `start` (the root of an embedded schema
    /// resource, JSON Schema 2020-12 section 9.2.1).
    pub fn lookup_from(&self, start: NodeId, tokens: &[String]) -> Option<NodeId> {
        let mut cur = start;
        for token in tokens {
            cur = match self.kind(cur) {
                Kind::Map => self.get(cur, token)?,
                Kind::Seq => {
                    let i: usize = token.parse().ok()?;
                    *self.items(cur).get(i)?
                }
                _ => return None,
            };
        }
        Some(cur)
    }

    /// The source text the spans point into (BOM already stripped).
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// Parses a YAML 1.2 core-schema integer (`[-+]?[0-9]+`, `0o…`, `0x…`) into `i64`.
pub fn parse_core_int(text: &str) -> Option<i64> {
    if let Some(hex) = text.strip_prefix("0x") {
        return i64::from_str_radix(hex, 16).ok();
    }
    if let Some(oct) = text.strip_prefix("0o") {
        return i64::from_str_radix(oct, 8).ok();
    }
    text.strip_prefix('+').unwrap_or(text).parse::<i64>().ok()
}

fn parse_core_float(text: &str) -> Option<f64> {
    match text {
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Some(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Some(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => Some(f64::NAN),
        _ => text.parse::<f64>().ok(),
    }
}

/// Resolves a plain scalar's type per the YAML 1.2 core schema (tag resolution).
pub fn core_schema_kind(text: &str) -> Kind {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Kind::Null,
        "true" | "True" | "TRUE" | "false" | "False" | "FALSE" => return Kind::Bool,
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF"
        | ".nan" | ".NaN" | ".NAN" => return Kind::Float,
        _ => {}
    }
    let b = text.as_bytes();
    if let Some(rest) = text.strip_prefix("0x") {
        if !rest.is_empty() && rest.bytes().all(|c| c.is_ascii_hexdigit()) {
            return Kind::Int;
        }
        return Kind::Str;
    }
    if let Some(rest) = text.strip_prefix("0o") {
        if !rest.is_empty() && rest.bytes().all(|c| (b'0'..=b'7').contains(&c)) {
            return Kind::Int;
        }
        return Kind::Str;
    }
    let digits = match b.first() {
        Some(b'-' | b'+') => &b[1..],
        _ => b,
    };
    if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) {
        return Kind::Int;
    }
    // [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
    let mut i = 0;
    let mut int_digits = 0;
    while i < digits.len() && digits[i].is_ascii_digit() {
        i += 1;
        int_digits += 1;
    }
    let mut frac_digits = 0;
    let mut had_dot = false;
    if i < digits.len() && digits[i] == b'.' {
        had_dot = true;
        i += 1;
        while i < digits.len() && digits[i].is_ascii_digit() {
            i += 1;
            frac_digits += 1;
        }
    }
    if int_digits == 0 && (frac_digits == 0 || !had_dot) {
        return Kind::Str;
    }
    if i < digits.len() && (digits[i] == b'e' || digits[i] == b'E') {
        i += 1;
        if i < digits.len() && (digits[i] == b'-' || digits[i] == b'+') {
            i += 1;
        }
        let exp_start = i;
        while i < digits.len() && digits[i].is_ascii_digit() {
            i += 1;
        }
        if i == exp_start {
            return Kind::Str;
        }
    }
    if i == digits.len() {
        Kind::Float
    } else {
        Kind::Str
    }
}

struct Frame {
    node: u32,
    first_child: usize,
}

/// Maps with at most this many entries look for repeated keys by comparing every
/// pair (no allocation); larger ones use a hash map.
const LINEAR_DUP_SCAN: usize = 12;

struct Builder<'t> {
    text: &'t str,
    tree: Tree,
    stack: Vec<Frame>,
    pending: Vec<NodeId>,
    anchors: Vec<u32>,
}

impl<'t> Builder<'t> {
    fn new(text: &'t str) -> Self {
        Builder {
            text,
            tree: Tree::default(),
            stack: Vec::new(),
            pending: Vec::new(),
            anchors: Vec::new(),
        }
    }

    fn offset_of(&self, s: &str) -> Option<usize> {
        let base = self.text.as_ptr() as usize;
        let p = s.as_ptr() as usize;
        (p >= base && p + s.len() <= base + self.text.len()).then(|| p - base)
    }

    fn push_node(&mut self, node: Node) -> u32 {
        let id = self.tree.nodes.len() as u32;
        self.tree.nodes.push(node);
        id
    }

    fn set_anchor(&mut self, anchor: usize, id: u32) {
        if anchor == 0 {
            return;
        }
        if self.anchors.len() <= anchor {
            self.anchors.resize(anchor + 1, NONE);
        }
        self.anchors[anchor] = id;
    }

    fn attach(&mut self, id: NodeId) {
        if self.stack.is_empty() {
            if self.tree.root.is_none() {
                self.tree.root = Some(id);
            }
        } else {
            self.pending.push(id);
        }
    }

    /// Adds a scalar spanning `start..end` whose decoded text is `text[a..b]` or,
    /// when `owned` is given, that string.
    fn scalar(
        &mut self,
        start: u32,
        end: u32,
        text: (u32, u32),
        owned: Option<Box<str>>,
        kind: Kind,
        plain: bool,
    ) -> u32 {
        let mut flags = FLAG_CLOSED;
        let (a, b) = match owned {
            None => text,
            Some(s) => {
                flags |= FLAG_OWNED;
                let idx = self.tree.owned.len() as u32;
                self.tree.owned.push(s);
                (idx, 0)
            }
        };
        if plain {
            flags |= FLAG_PLAIN;
        }
        let id = self.push_node(Node {
            start,
            end,
            a,
            b,
            parent: NONE,
            slot: 0,
            kind,
            flags,
        });
        self.attach(NodeId(id));
        id
    }

    /// Opens a mapping or sequence starting at `start`.
    fn open(&mut self, kind: Kind, start: u32, end: u32) -> u32 {
        let id = self.push_node(Node {
            start,
            end,
            a: 0,
            b: 0,
            parent: NONE,
            slot: 0,
            kind,
            flags: 0,
        });
        self.attach(NodeId(id));
        self.stack.push(Frame {
            node: id,
            first_child: self.pending.len(),
        });
        id
    }

    /// Reads the YAML event stream. With [`Keep::First`], the first non-empty
    /// document (or the empty one when there is no other) is built and the rest are
    /// only parsed, their starts recorded; with [`Keep::All`], each non-empty
    /// document becomes a tree of its own.
    /// Builds the documents `keep` asks for; with [`Keep::All`], `markers` gets the
    /// start of each document kept, as [`Tree::later_documents`] records them.
    fn build(
        mut self,
        keep: Keep,
        markers: &mut Vec<Range<usize>>,
    ) -> Result<Vec<Tree>, SyntaxError> {
        let mut marker: Range<usize> = 0..0;
        let options = granit_parser::options! {
            emit_comments: false,
            simple_key_max_lookahead: 16 * 1024,
        };
        let mut parser = Parser::new_from_str_with_options(self.text, options);
        let mut done: Vec<Tree> = Vec::new();
        // `Keep::First`: the first non-empty document is complete; later documents
        // are parsed without building nodes.
        let mut skipping = false;
        // A later document whose first node (which tells whether it is empty) is
        // still to come: where it starts.
        let mut unseen: Option<Range<usize>> = None;
        loop {
            let next = match parser.next() {
                None => break,
                Some(n) => n,
            };
            let (event, span) = next.map_err(|e| {
                let offset = e
                    .marker()
                    .byte_offset()
                    .unwrap_or_else(|| char_to_byte(self.text, e.marker().index()));
                let mut message = e.info().to_string();
                if message.contains("recursion limit") {
                    message = format!(
                        "nesting deeper than {MAX_NESTING} levels (the parser's limit; {message})"
                    );
                }
                let offset = offset.min(self.text.len());
                let offset = if message.contains("tab") {
                    indentation_tab_after(self.text, offset).unwrap_or(offset)
                } else {
                    offset
                };
                SyntaxError { message, offset }
            })?;
            let range = span.byte_range().unwrap_or(0..0);
            let (start, end) = (range.start as u32, range.end as u32);
            if skipping {
                match event {
                    Event::DocumentStart(..) => unseen = Some(range),
                    Event::Scalar(_, ScalarStyle::Plain, ..) if range.is_empty() => unseen = None,
                    Event::Scalar(..)
                    | Event::Alias(_)
                    | Event::MappingStart(..)
                    | Event::SequenceStart(..) => {
                        if let Some(marker) = unseen.take() {
                            self.tree.later_documents.push(marker);
                        }
                    }
                    _ => {}
                }
                continue;
            }
            match event {
                Event::DocumentStart(..) => {
                    // An empty document before this one is no document: start over.
                    if self.tree.root.is_some() {
                        self.tree = Tree::default();
                    }
                    self.anchors.clear();
                    self.tree.document = range.start..range.end;
                    marker = range.clone();
                }
                Event::DocumentEnd => {
                    self.tree.document.end = self.tree.document.end.max(range.end);
                    if !self.tree.is_empty_document() {
                        match keep {
                            Keep::First => skipping = true,
                            Keep::All => {
                                markers.push(marker.clone());
                                done.push(std::mem::take(&mut self.tree));
                            }
                        }
                    }
                }
                Event::Scalar(value, style, anchor, tag) => {
                    let plain = style == ScalarStyle::Plain;
                    let kind = match &tag {
                        Some(t) if t.is_yaml_core_schema() => match t.suffix() {
                            "str" => Kind::Str,
                            "null" => Kind::Null,
                            "bool" => Kind::Bool,
                            "int" => Kind::Int,
                            "float" => Kind::Float,
                            _ => Kind::Str,
                        },
                        Some(_) => Kind::Str,
                        None if plain => core_schema_kind(&value),
                        None => Kind::Str,
                    };
                    let (text, owned) = match self.offset_of(&value) {
                        Some(off) if matches!(value, std::borrow::Cow::Borrowed(_)) => {
                            ((off as u32, (off + value.len()) as u32), None)
                        }
                        _ => ((0, 0), Some(value.into_owned().into_boxed_str())),
                    };
                    let id = self.scalar(start, end, text, owned, kind, plain);
                    self.set_anchor(anchor, id);
                }
                Event::SequenceStart(_, anchor, _) | Event::MappingStart(_, anchor, _) => {
                    let kind = if matches!(event, Event::MappingStart(..)) {
                        Kind::Map
                    } else {
                        Kind::Seq
                    };
                    let id = self.open(kind, start, end);
                    self.set_anchor(anchor, id);
                }
                Event::SequenceEnd => self.close_seq(end),
                Event::MappingEnd => self.close_map(end),
                Event::Alias(anchor) => {
                    self.tree.aliases = true;
                    let target = self.anchors.get(anchor).copied().unwrap_or(NONE);
                    let usable =
                        target != NONE && self.tree.nodes[target as usize].flags & FLAG_CLOSED != 0;
                    if usable {
                        self.attach(NodeId(target));
                    } else {
                        // An alias to a collection still being built would make a cycle:
                        // keep it as a null at the alias position.
                        let id = self.push_node(Node {
                            start,
                            end,
                            a: start,
                            b: start,
                            parent: NONE,
                            slot: 0,
                            kind: Kind::Null,
                            flags: FLAG_CLOSED | FLAG_PLAIN,
                        });
                        self.attach(NodeId(id));
                    }
                }
                _ => {}
            }
        }
        match keep {
            Keep::First => done.push(self.tree),
            Keep::All => {}
        }
        Ok(done)
    }

    fn close_seq(&mut self, end: u32) {
        let Some(frame) = self.stack.pop() else {
            return;
        };
        let children = &self.pending[frame.first_child..];
        let first = self.tree.items.len() as u32;
        for (i, child) in children.iter().enumerate() {
            let c = &mut self.tree.nodes[child.0 as usize];
            if c.parent == NONE && child.0 != frame.node {
                c.parent = frame.node;
                c.slot = i as u32;
            }
        }
        self.tree.items.extend_from_slice(children);
        let count = children.len() as u32;
        self.pending.truncate(frame.first_child);
        let n = &mut self.tree.nodes[frame.node as usize];
        n.a = first;
        n.b = count;
        n.end = n.end.max(end);
        n.flags |= FLAG_CLOSED;
    }

    fn close_map(&mut self, end: u32) {
        let Some(frame) = self.stack.pop() else {
            return;
        };
        let children = &self.pending[frame.first_child..];
        // An odd trailing child (never produced by a well-formed event stream) is
        // dropped, as pairs are whole.
        let children = &children[..children.len() & !1];
        let first = self.tree.entries.len() as u32;
        let mut flags = FLAG_CLOSED;
        let tree = &self.tree;
        let text = self.text;
        let key_text = |k: NodeId| -> Option<&str> {
            let n = &tree.nodes[k.0 as usize];
            match n.kind {
                Kind::Map | Kind::Seq => None,
                _ if n.flags & FLAG_OWNED != 0 => Some(&tree.owned[n.a as usize]),
                _ => Some(&text[n.a as usize..n.b as usize]),
            }
        };
        let is_merge =
            |k: NodeId, t: &str| tree.nodes[k.0 as usize].flags & FLAG_PLAIN != 0 && t == "<<";
        let pairs = children.len() / 2;
        let mut dups = Vec::new();
        if pairs <= LINEAR_DUP_SCAN {
            // Small maps: compare each key with the keys before it; the previous
            // occurrence is the latest earlier key with the same text.
            for i in 0..pairs {
                let k = children[2 * i];
                let Some(t) = key_text(k) else { continue };
                if is_merge(k, t) {
                    flags |= FLAG_MERGE;
                    continue;
                }
                for j in (0..i).rev() {
                    let prev = children[2 * j];
                    if key_text(prev) == Some(t) && !is_merge(prev, t) {
                        dups.push(Duplicate {
                            first: prev,
                            repeated: k,
                        });
                        break;
                    }
                }
            }
        } else {
            let mut seen: HashMap<&str, NodeId> = HashMap::with_capacity(pairs);
            for pair in children.chunks_exact(2) {
                let k = pair[0];
                let Some(t) = key_text(k) else { continue };
                if is_merge(k, t) {
                    flags |= FLAG_MERGE;
                    continue;
                }
                if let Some(prev) = seen.insert(t, k) {
                    dups.push(Duplicate {
                        first: prev,
                        repeated: k,
                    });
                }
            }
        }
        if !dups.is_empty() {
            flags |= FLAG_DUP;
            self.tree.duplicates.extend(dups);
        }
        let children = &self.pending[frame.first_child..frame.first_child + 2 * pairs];
        for pair in children.chunks_exact(2) {
            let (k, v) = (pair[0], pair[1]);
            for child in [k, v] {
                let c = &mut self.tree.nodes[child.0 as usize];
                if c.parent == NONE && child.0 != frame.node {
                    c.parent = frame.node;
                    c.slot = k.0;
                }
            }
            self.tree.entries.push((k, v));
        }
        self.pending.truncate(frame.first_child);
        let n = &mut self.tree.nodes[frame.node as usize];
        n.a = first;
        n.b = pairs as u32;
        n.end = n.end.max(end);
        n.flags |= flags;
    }
}

/// Builds a located [`Tree`] for a file that is not YAML or JSON (nginx and HAProxy
/// configuration, TOML, properties), so that values read from it carry the same
/// origins as YAML values: every node gets the byte span of its source text, and
/// findings point into the real file with a JSON Pointer over the built structure.
///
/// Call [`TreeBuilder::open_map`]/[`TreeBuilder::open_seq`], add children (in a
/// mapping: a key scalar, then its value), [`TreeBuilder::close`] each collection,
/// then [`TreeBuilder::finish`]. The first node added becomes the root. Spans are
/// byte ranges into the text given to [`TreeBuilder::new`]; a scalar whose value is
/// not that text verbatim is added with `owned` set.
pub struct TreeBuilder<'t> {
    builder: Builder<'t>,
}

impl<'t> TreeBuilder<'t> {
    /// A builder over `text` (the whole file).
    pub fn new(text: &'t str) -> TreeBuilder<'t> {
        TreeBuilder {
            builder: Builder::new(text),
        }
    }

    /// Adds a scalar spanning `span`. Its value is the text at `span`, or `owned`
    /// when given (a quoted string without its quotes, a joined value).
    pub fn scalar(&mut self, span: Range<usize>, owned: Option<String>, kind: Kind) -> NodeId {
        let (start, end) = (span.start as u32, span.end as u32);
        let id = self.builder.scalar(
            start,
            end,
            (start, end),
            owned.map(String::into_boxed_str),
            kind,
            false,
        );
        NodeId(id)
    }

    /// Room for `nodes` more nodes, `items` more sequence items and `entries` more
    /// mapping entries, when the caller knows them: the tree of a large text config
    /// is built at its size, not by doubling (whose last copy and slack were a
    /// quarter of the peak memory of a large haproxy.cfg; issue 43).
    pub fn reserve(&mut self, nodes: usize, items: usize, entries: usize) {
        let tree = &mut self.builder.tree;
        tree.nodes.reserve_exact(nodes);
        tree.items.reserve_exact(items);
        tree.entries.reserve_exact(entries);
    }

    /// Opens a mapping starting at byte `start`.
    pub fn open_map(&mut self, start: usize) -> NodeId {
        NodeId(self.builder.open(Kind::Map, start as u32, start as u32))
    }

    /// Opens a sequence starting at byte `start`.
    pub fn open_seq(&mut self, start: usize) -> NodeId {
        NodeId(self.builder.open(Kind::Seq, start as u32, start as u32))
    }

    /// Closes the innermost open collection; its span ends at byte `end` (or later,
    /// if a child ends later). A mapping with an odd number of children drops the
    /// last one.
    pub fn close(&mut self, end: usize) {
        let Some(frame) = self.builder.stack.last() else {
            return;
        };
        match self.builder.tree.nodes[frame.node as usize].kind {
            Kind::Map => self.builder.close_map(end as u32),
            _ => self.builder.close_seq(end as u32),
        }
    }

    /// The tree (open collections are closed at the end of the text).
    pub fn finish(mut self, text: Arc<str>) -> Tree {
        while !self.builder.stack.is_empty() {
            self.close(self.builder.text.len());
        }
        self.builder.tree.document = 0..self.builder.text.len();
        let mut tree = self.builder.tree;
        tree.text = text;
        // The tree lives as long as the findings that point into it, the vectors'
        // growth slack (up to half of each) with it: a text config's tree is most of
        // its importer's memory (issue 43: bytes of memory per byte of nginx.conf).
        tree.nodes.shrink_to_fit();
        tree.entries.shrink_to_fit();
        tree.items.shrink_to_fit();
        tree.owned.shrink_to_fit();
        tree
    }
}

/// The parser reports some tab errors at the scalar before the tab; point at the tab
/// used as indentation (the first tab at or after `offset` with only blanks before it
/// on its line).
#[allow(clippy::collapsible_match)] // clippy 1.95; kept as written upstream
fn indentation_tab_after(text: &str, offset: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut line_start = text[..offset].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let mut i = line_start;
    while i < bytes.len() {
        match bytes[i] {
            // A tab with only blanks before it on its line is indentation.
            b'\t'
                if bytes[line_start..i]
                    .iter()
                    .all(|&c| c == b' ' || c == b'\t') =>
            {
                return Some(i);
            }
            b'\n' | b'\r' => line_start = i + 1,
            _ => {}
        }
        i += 1;
        if i > offset + 4096 {
            break;
        }
    }
    None
}

fn char_to_byte(text: &str, chars: usize) -> usize {
    text.char_indices()
        .nth(chars)
        .map(|(i, _)| i)
        .unwrap_or(text.len())
}
