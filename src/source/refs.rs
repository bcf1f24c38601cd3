//! `$ref` resolution across files.
//!
//! A ref resolves relative to the file that holds it. Targets are confined to the
//! project root (no file outside it is read), `http(s)` refs are never fetched
//! (offline by design), and chains are followed iteratively with cycle detection, so
//! `P -> P` and `R2 -> R3 -> R2` end at once. Results are memoised per ref node and
//! never copy a subtree: a resolved ref is just (file, node id).
//!
//! In OpenAPI 3.1 documents ([`Resolver::enable_schema_ids`]) a `$ref` is a URI
//! reference resolved per JSON Schema 2020-12: against the base URI of its position
//! (the nearest enclosing `$id`, else the file's `file:` URI), naming a schema
//! resource by its `$id` (in the referring file or the document) and a node within
//! it by a JSON Pointer or an `$anchor` fragment ([`super::schema_ids`]).

use super::loader::{LoadError, Loaded, Workspace};
use super::pointer::parse_ref;
use super::schema_ids::{self, IdIndex};
use super::tree::{Kind, NodeId, Tree};
use crate::diagnostic::Location;
use std::collections::HashMap;

/// Maps keyed by addresses and node ids, hashed once per `$ref`: foldhash, not SipHash
/// (hashing a `PathBuf` key per ref was 7% of a directory run's CPU).
/// Mappings with this many entries or more are looked up through an index of their
/// keys ([`Resolver::key_index`]); smaller ones by comparing keys.
const INDEXED_MAP_ENTRIES: usize = 32;

/// A mapping's keys ([`Resolver::key_index`]), with the file they are in.
type KeyIndex = (Arc<Loaded>, Arc<FastMap<Box<str>, NodeId>>);

type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// A node in some loaded file.
#[derive(Debug, Clone)]
pub struct At {
    /// The file.
    pub doc: Arc<Loaded>,
    /// The node in that file's tree.
    pub node: NodeId,
}

impl At {
    /// A node in `doc`.
    pub fn new(doc: &Arc<Loaded>, node: NodeId) -> At {
        At {
            doc: doc.clone(),
            node,
        }
    }

    /// The file's tree (`None` only for a file that did not load; every `At` produced
    /// by the resolver or the model is in a loaded file).
    pub fn tree(&self) -> Option<&Tree> {
        self.doc.tree.as_ref().ok()
    }

    /// Where a diagnostic about this node points: the key token of its mapping entry
    /// (for a mapping inside a sequence, its first key; else the value), with the
    /// node's JSON Pointer. Use this for every primary location and label.
    pub fn location(&self) -> Location {
        match self.tree() {
            Some(t) => Location {
                file: self.doc.file.clone(),
                span: t.label_span(self.node),
                pointer: t.pointer(self.node),
            },
            None => self.file_location(),
        }
    }

    /// Like [`At::location`] but underlining the value itself (not its key).
    pub fn value_location(&self) -> Location {
        match self.tree() {
            Some(t) => Location {
                file: self.doc.file.clone(),
                span: t.span(self.node),
                pointer: t.pointer(self.node),
            },
            None => self.file_location(),
        }
    }

    /// The start of the file (no node).
    pub fn file_location(&self) -> Location {
        Location {
            file: self.doc.file.clone(),
            span: 0..0,
            pointer: String::new(),
        }
    }

    /// The node's scalar text, if it is a scalar.
    pub fn scalar(&self) -> Option<&str> {
        self.tree()?.scalar(self.node)
    }

    /// Identity of the node across files: (canonical path, where its document
    /// starts in the file, node id). Node ids restart in each document of a YAML
    /// stream (`crate::import::stream`): without the document's start, the third
    /// node of two VirtualServices in one file were one node, and a rule grouped
    /// their findings into one.
    pub fn key(&self) -> (PathBuf, usize, u32) {
        (
            self.doc.file.path.clone(),
            self.document_start(),
            self.node.0,
        )
    }

    /// True when both name the same node of the same document of the same file.
    pub fn same_node(&self, other: &At) -> bool {
        self.node == other.node
            && self.doc.file.path == other.doc.file.path
            && self.document_start() == other.document_start()
    }

    /// The byte offset where the node's document starts in its file (0 for a file
    /// of one document, or one that did not parse).
    pub fn document_start(&self) -> usize {
        self.tree()
            .and_then(|t| t.root().map(|r| t.span(r).start))
            .unwrap_or(0)
    }
}

/// Why a `$ref` did not lead to a value. `at` is the `$ref` string node that failed.
#[derive(Debug, Clone)]
pub enum RefProblem {
    /// The target file or pointer does not exist (message says which).
    Missing {
        /// The `$ref` string node.
        at: At,
        /// Which part is missing.
        reason: String,
    },
    /// The target leaves the project root; nothing was read.
    OutsideRoot {
        /// The `$ref` string node.
        at: At,
        /// The normalised target path (never read).
        target: PathBuf,
    },
    /// An `http(s)` (or other scheme) ref: never fetched.
    Remote {
        /// The `$ref` string node.
        at: At,
        /// OpenAPI 3.1: the absolute URI the ref resolved to, which no schema `$id`
        /// of the document set names. `None` in 2.0 and 3.0, which have no `$id`.
        unknown_id: Option<UnknownId>,
    },
    /// The target file exists but could not be loaded.
    BadFile {
        /// The `$ref` string node.
        at: At,
        /// Why the target file has no tree.
        error: LoadError,
    },
    /// A chain of refs that never reaches a value; the `$ref` nodes of the cycle.
    Cycle {
        /// The `$ref` string nodes of the cycle, in chain order.
        members: Vec<At>,
    },
    /// More hops than [`super::loader::Limits::max_ref_hops`].
    TooLong {
        /// The `$ref` string node.
        at: At,
    },
}

/// An OpenAPI 3.1 `$ref` whose absolute URI names no schema `$id` of the document
/// set (the referring file and the document being linted).
#[derive(Debug, Clone)]
pub struct UnknownId {
    /// The absolute URI (without fragment) the ref resolved to.
    pub uri: String,
    /// True when the ref was a relative reference, resolved against the `$id` of an
    /// enclosing schema: meant for a schema of the document, so always reported.
    pub relative: bool,
    /// The `$id` of the document set closest to `uri`, for a "did you mean".
    pub closest: Option<String>,
}

/// A `$ref` node's identity within one resolver: its file's `Loaded` address and its
/// node id. The memo keeps that `Loaded` alive beside the entry, so the address is
/// never reused while the key is held.
type Key = (usize, u32);

/// A memo entry: the ref's file (kept alive, see [`Key`]) and where the ref led.
type Memoised = (Arc<Loaded>, Result<At, RefProblem>);

fn key_of(doc: &Arc<Loaded>, node: NodeId) -> Key {
    (Arc::as_ptr(doc) as usize, node.0)
}

/// Resolves refs for documents under one project root.
#[derive(Debug)]
pub struct Resolver<'w> {
    ws: &'w Workspace,
    root: PathBuf,
    memo: Mutex<FastMap<Key, Memoised>>,
    /// Refs already resolved to a node, by the referring file's `Loaded` address (kept
    /// alive by the workspace cache or the memo) and the ref's text: specs refer to
    /// the same few components many times, and a look-up parses the ref and scans
    /// each mapping on its way. Only found targets are kept (a problem names its own
    /// `$ref` node).
    by_text: Mutex<FastMap<usize, FastMap<Box<str>, At>>>,
    /// Keys of the big mappings ref look-ups go through (`components/schemas` of a
    /// spec with thousands of schemas), by `Loaded` address and mapping node: a
    /// look-up in a mapping otherwise compares every key ([`Tree::get`]).
    /// The `Loaded` is kept beside its index so that its address is not reused.
    key_index: Mutex<FastMap<(usize, NodeId), KeyIndex>>,
    /// OpenAPI 3.1: the document being linted, whose schema `$id`s refs may name;
    /// unset, refs are file paths and JSON Pointers only.
    schema_ids: OnceLock<Arc<Loaded>>,
    /// The `$id` index of each file, built on first need.
    id_indexes: Mutex<HashMap<PathBuf, Arc<IdIndex>>>,
    /// Some `$ref` named a file other than the one holding it.
    reached_other: std::sync::atomic::AtomicBool,
}

impl<'w> Resolver<'w> {
    /// A resolver confining file targets to `root` (canonicalised when possible).
    pub fn new(ws: &'w Workspace, root: &Path) -> Resolver<'w> {
        Resolver {
            ws,
            root: std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf()),
            memo: Mutex::new(FastMap::default()),
            by_text: Mutex::new(FastMap::default()),
            key_index: Mutex::new(FastMap::default()),
            schema_ids: OnceLock::new(),
            id_indexes: Mutex::new(HashMap::new()),
            reached_other: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// True once a `$ref` resolved through this resolver named another file (loaded
    /// or not): what it found is then shared with whatever else reads that file.
    pub fn reached_other_files(&self) -> bool {
        self.reached_other
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Resolves refs per JSON Schema 2020-12 from now on (OpenAPI 3.1): `entry` is
    /// the document being linted, whose `$id`s every file's refs may name. Call it
    /// before the first look-up; later calls are ignored.
    pub fn enable_schema_ids(&self, entry: &Arc<Loaded>) {
        let _ = self.schema_ids.set(entry.clone());
    }

    /// The workspace files are loaded from.
    pub fn workspace(&self) -> &'w Workspace {
        self.ws
    }

    /// The project root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The `$ref` string node of a mapping, if it is a ref object.
    pub fn ref_node(at: &At) -> Option<NodeId> {
        let tree = at.doc.tree.as_ref().ok()?;
        if tree.kind(at.node) != Kind::Map {
            return None;
        }
        let v = tree.get(at.node, "$ref")?;
        (tree.kind(v) == Kind::Str).then_some(v)
    }

    /// Follows `$ref`s from `at` until a node that is not a ref object. A node that
    /// is not a ref object resolves to itself.
    pub fn deref(&self, at: &At) -> Result<At, RefProblem> {
        let Some(first_ref) = Self::ref_node(at) else {
            return Ok(at.clone());
        };
        let key = key_of(&at.doc, first_ref);
        if let Some((_, hit)) = self.memo.lock().expect("memo").get(&key) {
            return hit.clone();
        }
        let result = self.follow(at);
        self.memo
            .lock()
            .expect("memo")
            .insert(key, (at.doc.clone(), result.clone()));
        result
    }

    fn follow(&self, start: &At) -> Result<At, RefProblem> {
        let mut chain: Vec<(Key, At)> = Vec::new();
        let result = self.follow_chain(start, &mut chain);
        // Every ref of the chain leads to the same end: remember it for each, so a
        // long chain reached from each of its links is followed once, not once per
        // link (quadratic otherwise).
        let mut memo = self.memo.lock().expect("memo");
        for (key, at) in chain {
            memo.entry(key).or_insert_with(|| (at.doc, result.clone()));
        }
        result
    }

    fn follow_chain(&self, start: &At, chain: &mut Vec<(Key, At)>) -> Result<At, RefProblem> {
        let mut seen: FastMap<Key, usize> = FastMap::default();
        let mut cur = start.clone();
        loop {
            let Some(ref_node) = Self::ref_node(&cur) else {
                return Ok(cur);
            };
            let key = key_of(&cur.doc, ref_node);
            if let Some(&pos) = seen.get(&key) {
                let members = chain[pos..].iter().map(|(_, a)| a.clone()).collect();
                return Err(RefProblem::Cycle { members });
            }
            if !chain.is_empty() {
                if let Some((_, hit)) = self.memo.lock().expect("memo").get(&key) {
                    return hit.clone();
                }
            }
            if chain.len() >= self.ws.limits().max_ref_hops {
                return Err(RefProblem::TooLong {
                    at: At::new(&cur.doc, ref_node),
                });
            }
            let ref_at = At::new(&cur.doc, ref_node);
            seen.insert(key, chain.len());
            chain.push((key, ref_at.clone()));
            cur = self.target(&ref_at)?;
        }
    }

    /// Number of memoised `$ref` results (each ref followed is remembered once): a
    /// timing-free measure of resolution work.
    pub fn memo_len(&self) -> usize {
        self.memo.lock().expect("memo").len()
    }

    /// One hop: the node a `$ref` string node names (not followed further).
    pub fn target(&self, ref_at: &At) -> Result<At, RefProblem> {
        let tree = match &ref_at.doc.tree {
            Ok(t) => t,
            Err(e) => {
                return Err(RefProblem::BadFile {
                    at: ref_at.clone(),
                    error: e.clone(),
                })
            }
        };
        let text = tree.scalar(ref_at.node).unwrap_or("");
        if let Some(entry) = self.schema_ids.get() {
            if let Some(found) = self.target_by_uri(ref_at, tree, text, entry) {
                return found;
            }
        }
        self.target_by_path(ref_at, text)
    }

    /// The `$id` index of a loaded file (built once).
    fn id_index(&self, doc: &Arc<Loaded>) -> Option<Arc<IdIndex>> {
        let tree = doc.tree.as_ref().ok()?;
        let key = doc.file.path.clone();
        if let Some(hit) = self.id_indexes.lock().expect("ids").get(&key) {
            return Some(hit.clone());
        }
        let index = Arc::new(IdIndex::build(tree, &doc.file.path));
        Some(
            self.id_indexes
                .lock()
                .expect("ids")
                .entry(key)
                .or_insert(index)
                .clone(),
        )
    }

    /// The OpenAPI 3.1 reading of a ref (JSON Schema 2020-12): `None` when it reads
    /// as it would as a file path and JSON Pointer (no scheme, no enclosing `$id`, a
    /// pointer fragment), so ordinary refs keep their one code path.
    ///
    /// A relative ref inside an `$id`-ed schema that names nothing there is also
    /// tried as a path relative to the file, as tools without `$id` support read it.
    fn target_by_uri(
        &self,
        ref_at: &At,
        tree: &Tree,
        text: &str,
        entry: &Arc<Loaded>,
    ) -> Option<Result<At, RefProblem>> {
        let index = self.id_index(&ref_at.doc)?;
        // Cheap tests first: most refs are `#/...` pointers in files without `$id`.
        let absolute = text.contains(':') && schema_ids::has_scheme(text);
        let plain_name = text
            .split_once('#')
            .is_some_and(|(_, f)| !f.is_empty() && !f.starts_with('/'));
        let base = if index.has_ids() {
            index.base_of(tree, tree.parent(ref_at.node))
        } else {
            index.file_uri()
        };
        let inside_id = base != index.file_uri();
        if !absolute && !inside_id && !plain_name {
            return None;
        }
        let (uri, fragment) = schema_ids::resolve(base, text)?;
        let found = self
            .resource(ref_at, &index, entry, &uri)
            .and_then(|found| match found {
                Some((doc, index, node)) => {
                    self.within_resource(ref_at, text, doc, &index, &uri, node, fragment)
                }
                None => Err(RefProblem::Remote {
                    at: ref_at.clone(),
                    unknown_id: Some(UnknownId {
                        closest: self.closest_id(&index, entry, &uri),
                        uri,
                        relative: !absolute,
                    }),
                }),
            });
        if found.is_err() && inside_id && !absolute {
            if let Ok(at) = self.target_by_path(ref_at, text) {
                return Some(Ok(at));
            }
        }
        Some(found)
    }

    /// The file, its index and node of the schema resource `uri`: an `$id` of the
    /// referring file or of the entry document, or a `file:` URI (read like a
    /// relative file ref). `Ok(None)` when no resource of the set has that URI.
    #[allow(clippy::type_complexity)]
    fn resource(
        &self,
        ref_at: &At,
        index: &Arc<IdIndex>,
        entry: &Arc<Loaded>,
        uri: &str,
    ) -> Result<Option<(Arc<Loaded>, Arc<IdIndex>, NodeId)>, RefProblem> {
        let doc = &ref_at.doc;
        if let Some(node) = doc.tree.as_ref().ok().and_then(|t| index.resource(t, uri)) {
            return Ok(Some((doc.clone(), index.clone(), node)));
        }
        if let (Some(entry_index), Ok(tree)) = (self.id_index(entry), &entry.tree) {
            if let Some(node) = entry_index.resource(tree, uri) {
                return Ok(Some((entry.clone(), entry_index, node)));
            }
        }
        let Some(path) = schema_ids::file_path(uri) else {
            return Ok(None);
        };
        let file = self.load_file(ref_at, &path, &path.display().to_string())?;
        let file_index = self.id_index(&file).unwrap_or_default();
        let node = file
            .tree
            .as_ref()
            .ok()
            .and_then(|t| t.root())
            .ok_or_else(|| RefProblem::Missing {
                at: ref_at.clone(),
                reason: format!("file `{}` is empty", path.display()),
            })?;
        Ok(Some((file, file_index, node)))
    }

    /// The node a fragment names within the resource `uri` rooted at `node`: the
    /// resource itself, a JSON Pointer from it, or an `$anchor` of it.
    #[allow(clippy::too_many_arguments)]
    fn within_resource(
        &self,
        ref_at: &At,
        text: &str,
        doc: Arc<Loaded>,
        index: &IdIndex,
        uri: &str,
        node: NodeId,
        fragment: Option<String>,
    ) -> Result<At, RefProblem> {
        let tree = doc.tree.as_ref().expect("an indexed file has a tree");
        let fragment = fragment.unwrap_or_default();
        if fragment.is_empty() {
            return Ok(At { doc, node });
        }
        let found = match schema_ids::pointer_tokens(&fragment) {
            Some(tokens) => tree
                .lookup_from(node, &tokens)
                .ok_or_else(|| format!("`{text}` points to nothing")),
            None => {
                let name = schema_ids::plain_name(&fragment);
                index
                    .anchor(uri, &name)
                    .ok_or_else(|| format!("no `$anchor` `{name}` in `{uri}`"))
            }
        };
        match found {
            Ok(node) => Ok(At { doc, node }),
            Err(reason) => Err(RefProblem::Missing {
                at: ref_at.clone(),
                reason,
            }),
        }
    }

    /// The `$id` of the document set nearest to `uri` (a few edits away), if any.
    fn closest_id(&self, index: &IdIndex, entry: &Arc<Loaded>, uri: &str) -> Option<String> {
        let entry_index = self.id_index(entry);
        let ids = index.ids().chain(entry_index.iter().flat_map(|i| i.ids()));
        let limit = (uri.chars().count() / 8).max(2);
        ids.map(|id| (strsim::levenshtein(id, uri), id))
            .filter(|&(d, _)| d <= limit)
            .min()
            .map(|(_, id)| id.to_string())
    }

    /// A ref read as a relative file path and a JSON Pointer (2.0, 3.0, and 3.1 refs
    /// outside `$id`-ed schemas).
    fn target_by_path(&self, ref_at: &At, text: &str) -> Result<At, RefProblem> {
        let doc_key = Arc::as_ptr(&ref_at.doc) as usize;
        let known = self
            .by_text
            .lock()
            .expect("by_text")
            .get(&doc_key)
            .and_then(|m| m.get(text).cloned());
        if let Some(found) = known {
            return Ok(found);
        }
        let found = self.target_by_path_uncached(ref_at, text)?;
        self.by_text
            .lock()
            .expect("by_text")
            .entry(doc_key)
            .or_default()
            .insert(text.into(), found.clone());
        Ok(found)
    }

    fn target_by_path_uncached(&self, ref_at: &At, text: &str) -> Result<At, RefProblem> {
        let target = parse_ref(text);
        if target.remote {
            return Err(RefProblem::Remote {
                at: ref_at.clone(),
                unknown_id: None,
            });
        }
        let doc = if target.file.is_empty() {
            ref_at.doc.clone()
        } else {
            let base = ref_at
                .doc
                .file
                .path
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default();
            self.load_file(ref_at, &base.join(&target.file), &target.file)?
        };
        let tree = doc.tree.as_ref().expect("checked by load_file");
        if target.plain_name_fragment {
            return Err(RefProblem::Missing {
                at: ref_at.clone(),
                reason: format!(
                    "fragment `#{}` is not a JSON Pointer",
                    target.tokens.first().map(String::as_str).unwrap_or("")
                ),
            });
        }
        let found = if target.tokens.is_empty() {
            tree.root()
        } else {
            self.lookup(&doc, tree, &target.tokens)
        };
        match found {
            Some(node) => Ok(At { doc, node }),
            None => Err(RefProblem::Missing {
                at: ref_at.clone(),
                reason: format!("`{text}` points to nothing"),
            }),
        }
    }

    /// [`Tree::lookup`], through [`Resolver::key_index`] in mappings of
    /// [`INDEXED_MAP_ENTRIES`] entries or more.
    fn lookup(&self, doc: &Arc<Loaded>, tree: &Tree, tokens: &[String]) -> Option<NodeId> {
        let mut cur = tree.root()?;
        for token in tokens {
            cur = match tree.kind(cur) {
                Kind::Map if tree.raw_entries(cur).len() >= INDEXED_MAP_ENTRIES => {
                    self.indexed_get(doc, tree, cur, token)?
                }
                Kind::Map => tree.get(cur, token)?,
                Kind::Seq => *tree.items(cur).get(token.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(cur)
    }

    /// [`Tree::get`] in a big mapping, by an index of its keys built on first use: the
    /// last of repeated keys wins, as there. A mapping with a `<<` key (YAML merge)
    /// is not indexed: its look-up searches the merged mappings too.
    fn indexed_get(
        &self,
        doc: &Arc<Loaded>,
        tree: &Tree,
        map: NodeId,
        key: &str,
    ) -> Option<NodeId> {
        let at = (Arc::as_ptr(doc) as usize, map);
        let index = self
            .key_index
            .lock()
            .expect("key_index")
            .get(&at)
            .map(|(_, keys)| keys.clone());
        let index = match index {
            Some(index) => index,
            None => {
                let entries = tree.raw_entries(map);
                if entries.iter().any(|&(k, _)| tree.scalar(k) == Some("<<")) {
                    return tree.get(map, key);
                }
                let mut keys = FastMap::default();
                keys.reserve(entries.len());
                for &(k, v) in entries {
                    if let Some(text) = tree.scalar(k) {
                        keys.insert(Box::from(text), v);
                    }
                }
                let index = Arc::new(keys);
                self.key_index
                    .lock()
                    .expect("key_index")
                    .insert(at, (doc.clone(), index.clone()));
                index
            }
        };
        index.get(key).copied()
    }

    /// Loads the file a ref names (`path`, absolute; `shown` as written in the ref),
    /// confined to the project root; the referring file itself when it is that file.
    fn load_file(&self, ref_at: &At, path: &Path, shown: &str) -> Result<Arc<Loaded>, RefProblem> {
        let joined = normalize(path);
        if joined == ref_at.doc.file.path {
            return Ok(ref_at.doc.clone());
        }
        self.reached_other
            .store(true, std::sync::atomic::Ordering::Relaxed);
        // The read boundary's test (`super::boundary`), against this document's root:
        // a refused `$ref` is RL003, located at the ref, rather than a path left out.
        if !super::boundary::inside(&self.root, &joined) {
            return Err(RefProblem::OutsideRoot {
                at: ref_at.clone(),
                target: joined,
            });
        }
        let canonical = match self.ws.boundary().real_path(&joined) {
            Some(c) => c,
            None => {
                return Err(RefProblem::Missing {
                    at: ref_at.clone(),
                    reason: format!("file `{shown}` does not exist"),
                })
            }
        };
        // A symlink inside the root may still point outside it.
        if !super::boundary::inside(&self.root, &canonical) {
            return Err(RefProblem::OutsideRoot {
                at: ref_at.clone(),
                target: canonical,
            });
        }
        let doc = self.ws.load_referenced(&canonical);
        if let Err(e) = &doc.tree {
            return Err(RefProblem::BadFile {
                at: ref_at.clone(),
                error: e.clone(),
            });
        }
        Ok(doc)
    }
}

/// Lexically normalises `a/b/../c` to `a/c` (no file-system access).
pub use super::boundary::normalize;
