//! An index of one project root for runs over named files: which policies govern a
//! document, and which files reach a file through `$ref`. Built from the walk a full
//! run makes (gitignore-aware, YAML/JSON names only) and read lazily: building it
//! reads no file; a policy is parsed only when its text may name the document
//! looked for or it sits in the document's folder or above; a `$ref` look-up reads
//! the other files as text and parses only those whose text names the file looked
//! for.

use super::{is_openapi, spec_paths, walk, Candidate, NameKind};
use crate::source::loader::{Loaded, Workspace};
use crate::source::pointer::parse_ref;
use crate::source::refs::normalize;
use crate::source::tree::Kind;
use rayon::prelude::*;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A policy file found under the project root.
#[derive(Debug)]
struct IndexedPolicy {
    /// The policy file (under the root).
    path: PathBuf,
    /// Its directory (a policy without `spec:` governs the documents in it and below).
    dir: PathBuf,
    /// Its `spec:` targets, canonical (else lexically normalised) paths; empty when
    /// it has no `spec:` or does not parse. Read when first needed.
    targets: OnceLock<Vec<PathBuf>>,
}

impl IndexedPolicy {
    fn targets(&self, ws: &Workspace) -> &[PathBuf] {
        self.targets.get_or_init(|| {
            spec_paths(&ws.load(&self.path))
                .iter()
                .map(|s| canonical(&self.dir.join(s)))
                .collect()
        })
    }
}

/// The policies and YAML/JSON files under one project root.
#[derive(Debug)]
pub struct ProjectIndex {
    /// Every policy file of the walk.
    policies: Vec<IndexedPolicy>,
    /// Every other file of the walk but `.proto` files (candidates for `$ref`
    /// look-ups and for configs that may bind to a document).
    others: Vec<Candidate>,
    /// By file of `others`: its text, read when first scanned and kept for the
    /// index's other look-ups (a run over one file scans the project for configs
    /// naming its document, then for the configs naming the documents those name);
    /// `None` for a file not read (see [`scan`]).
    texts: Vec<OnceLock<Option<Box<[u8]>>>>,
    /// The file names of the symbolic links to files met by the walk: a `spec:`
    /// naming one names its target.
    link_names: Vec<Vec<u8>>,
    /// The OpenAPI documents of the walk while there are at most two (read when
    /// [`ProjectIndex::is_the_only_document`] is first asked).
    only_document: OnceLock<Vec<PathBuf>>,
    /// Every OpenAPI document of the walk with what a config must spell out to bind
    /// to it (read when [`ProjectIndex::documents_named_by`] is first asked).
    binding_names: OnceLock<BindingNames>,
}

/// What [`ProjectIndex::configs_mentioning`] found.
#[derive(Debug, Default)]
pub struct Mentions {
    /// The retry configs (YAML, JSON, text configs) holding a needle.
    pub configs: Vec<Candidate>,
    /// Some source file holds a needle.
    pub code: bool,
}

/// The OpenAPI documents of a project by the names a retry config or client that
/// binds to them must spell out (see [`ProjectIndex::documents_named_by`]).
#[derive(Debug)]
struct BindingNames {
    /// The documents (walk order).
    documents: Vec<Candidate>,
    /// One automaton over every distinct name (ASCII case-insensitive); `None` when
    /// no document has a name.
    finder: Option<Finder>,
    /// By pattern of `finder`: the documents (indexes into `documents`) it names.
    owners: Vec<Vec<usize>>,
}

impl ProjectIndex {
    /// Walks `root` (as `retrylint check ROOT` would). `root` should be canonical,
    /// so the paths found are too. Reads no file.
    pub fn build(root: &Path) -> ProjectIndex {
        let walked = walk(&[root.to_path_buf()], &[]);
        // A `.proto` holds no `$ref`: never a candidate for the look-ups.
        let (policies, others): (Vec<Candidate>, Vec<Candidate>) = walked
            .candidates
            .into_iter()
            .filter(|c| c.kind != NameKind::Proto)
            .partition(|c| c.kind == NameKind::Policy);
        let policies = policies
            .into_iter()
            .map(|c| IndexedPolicy {
                dir: c.path.parent().map(Path::to_path_buf).unwrap_or_default(),
                path: c.path,
                targets: OnceLock::new(),
            })
            .collect();
        let mut link_names: Vec<Vec<u8>> = walked
            .links
            .iter()
            .filter_map(|l| l.file_name())
            .map(|n| n.as_encoded_bytes().to_ascii_lowercase())
            .collect();
        link_names.sort();
        link_names.dedup();
        let texts = others.iter().map(|_| OnceLock::new()).collect();
        ProjectIndex {
            policies,
            others,
            texts,
            link_names,
            only_document: OnceLock::new(),
            binding_names: OnceLock::new(),
        }
    }

    /// The policy files that govern `document` (a canonical path): those whose
    /// `spec:` names it, and those without `spec:` in its directory or a parent.
    ///
    /// Only the policies that may govern it are parsed: those in its directory or
    /// above, and those whose text holds its file name, the name of a symbolic link
    /// of the walk, or a backslash (a YAML escape could spell the name), ASCII
    /// case-insensitively. A `spec:` can name the document in no other way, short
    /// of a link outside the project root.
    pub fn policies_governing(&self, document: &Path, ws: &Workspace) -> Vec<PathBuf> {
        let mut needles: Vec<Vec<u8>> = needles(document)
            .into_iter()
            .map(|n| n.to_ascii_lowercase())
            .collect();
        needles.extend(self.link_names.iter().cloned());
        needles.push(b"\\".to_vec());
        let finder = finder(&needles, Case::Insensitive);
        let limit = ws.limits().max_file_bytes;
        self.policies
            .par_iter()
            .filter(|p| {
                let above = document.starts_with(&p.dir);
                if !above
                    && !finder
                        .as_ref()
                        .is_some_and(|f| mentions_any(ws.boundary(), &p.path, f, limit))
                {
                    return false;
                }
                let targets = p.targets(ws);
                if targets.is_empty() {
                    above
                } else {
                    targets.iter().any(|t| t == document)
                }
            })
            .map(|p| p.path.clone())
            .collect()
    }

    /// True when `document` (a canonical path) is the only OpenAPI document under
    /// the root: then every retry config and client of the project that binds to no
    /// other API takes it (`layers.md` "Binding", the only spec of the run). Only
    /// the files whose text says `openapi` or `swagger` are parsed, those that open
    /// as a document and the smallest first, until a second document turns up.
    pub fn is_the_only_document(&self, document: &Path, ws: &Workspace) -> bool {
        self.only_document(ws).is_some_and(|only| only == document)
    }

    /// The only OpenAPI document under the root (canonical), if there is exactly one
    /// (see [`ProjectIndex::is_the_only_document`]).
    pub fn only_document(&self, ws: &Workspace) -> Option<PathBuf> {
        let found = self.only_document.get_or_init(|| {
            // The files that say `openapi` or `swagger`, those that open as a
            // document first and the smallest first: parsing stops at the second
            // document, so two small documents settle the answer (no only document)
            // before a large one or a fragment that merely says `openapi` is parsed.
            // The answer does not depend on the order.
            let mut candidates: Vec<(bool, usize, usize)> =
                self.marked_documents(ws, |i, _, text| {
                    let head = &text[..text.len().min(super::HEAD_BYTES)];
                    (!super::head_opens_as_openapi(head), text.len(), i)
                });
            candidates.sort_unstable();
            let mut found: Vec<PathBuf> = Vec::new();
            for (_, _, i) in candidates {
                let c = &self.others[i];
                if is_openapi(&ws.load(&c.path)) {
                    found.push(canonical(&c.path));
                    if found.len() > 1 {
                        break;
                    }
                }
            }
            found
        });
        match found.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }

    /// The files of the walk that may be a retry config (not a policy, not a file
    /// named as a spec) and hold one of `needles` (lower case), ASCII
    /// case-insensitively, and whether a source file holds one: the configs and
    /// clients that may bind to a document, found without parsing any file. Source
    /// files are scanned after the configs and only until one holds a needle (a
    /// client in code brings the whole project: see `related`).
    pub fn configs_mentioning(&self, needles: &[Vec<u8>], ws: &Workspace) -> Mentions {
        let Some(finder) = finder(needles, Case::Insensitive) else {
            return Mentions::default();
        };
        let holds = |i: usize| {
            self.text(i, ws).is_some_and(|t| {
                // A file whose first lines open an OpenAPI document is never sorted
                // as a retry config: a spec naming another spec's hosts or
                // operationIds brings nothing (every spec of a folder of specs
                // named freely came, with the specs their texts named in turn).
                let config_like = !(self.others[i].kind == NameKind::Other
                    && super::head_opens_as_openapi(&t[..t.len().min(super::HEAD_BYTES)]));
                config_like
                    && (finder.is_match(t)
                        || (self.others[i].kind == NameKind::Other
                            && escaped_scalars(&self.others[i].path, t, ws)
                                .is_some_and(|d| finder.is_match(d.as_bytes()))))
            })
        };
        let configs = self
            .others
            .par_iter()
            .enumerate()
            .filter(|(i, c)| matches!(c.kind, NameKind::Other | NameKind::TextConfig) && holds(*i))
            .map(|(_, c)| c.clone())
            .collect();
        let code = self
            .others
            .par_iter()
            .enumerate()
            .any(|(i, c)| matches!(c.kind, NameKind::Source(_)) && holds(i));
        Mentions { configs, code }
    }

    /// True when a source file of `language` holds `needle` (ASCII
    /// case-insensitively).
    pub fn sources_mention(
        &self,
        language: crate::import::code::Language,
        needle: &[u8],
        ws: &Workspace,
    ) -> bool {
        let Some(finder) = finder(&[needle.to_vec()], Case::Insensitive) else {
            return false;
        };
        self.others.par_iter().enumerate().any(|(i, c)| {
            c.kind == NameKind::Source(language)
                && self.text(i, ws).is_some_and(|t| finder.is_match(t))
        })
    }

    /// The OpenAPI documents of the walk that the retry configs at `configs` may
    /// bind to: those one of whose names (`names_of`, read from the document's text:
    /// hosts, operationIds; see `related::binding_needles_in_text`) a config's text
    /// holds, ASCII case-insensitively. The same test, read the other way, as
    /// [`ProjectIndex::configs_mentioning`]: a config that binds to a document names
    /// it. The documents and their names are read once per index (the files whose
    /// text says `openapi` or `swagger`, in parallel, never parsed); each config is
    /// scanned once for every name.
    pub fn documents_named_by(
        &self,
        configs: &[PathBuf],
        ws: &Workspace,
        names_of: fn(&[u8]) -> Vec<Vec<u8>>,
    ) -> Vec<Candidate> {
        let names = self.binding_names(ws, names_of);
        let Some(finder) = &names.finder else {
            return Vec::new();
        };
        let mut hit: Vec<usize> = patterns_in(configs, ws, finder)
            .into_iter()
            .flat_map(|p| names.owners[p].iter().copied())
            .collect();
        hit.sort_unstable();
        hit.dedup();
        hit.into_iter()
            .map(|i| names.documents[i].clone())
            .collect()
    }

    /// The documents of `named` (each with its names, lower case) one of whose names
    /// the retry configs at `configs` hold, read as
    /// [`ProjectIndex::documents_named_by`] reads them: for the names a document's
    /// text does not spell (the service identity the repository gives it), in the
    /// order of `named`.
    pub fn documents_named_in(
        &self,
        configs: &[PathBuf],
        ws: &Workspace,
        named: &[(Candidate, Vec<Vec<u8>>)],
    ) -> Vec<Candidate> {
        let (patterns, owners): (Vec<Vec<u8>>, Vec<usize>) = named
            .iter()
            .enumerate()
            .flat_map(|(i, (_, names))| names.iter().map(move |n| (n.clone(), i)))
            .unzip();
        let Some(finder) = finder(&patterns, Case::Insensitive) else {
            return Vec::new();
        };
        // `finder` leaves out empty names: its pattern numbers count the others.
        let owners: Vec<usize> = patterns
            .iter()
            .zip(owners)
            .filter(|(p, _)| !p.is_empty())
            .map(|(_, o)| o)
            .collect();
        let mut hit: Vec<usize> = patterns_in(configs, ws, &finder)
            .into_iter()
            .map(|p| owners[p])
            .collect();
        hit.sort_unstable();
        hit.dedup();
        hit.into_iter().map(|i| named[i].0.clone()).collect()
    }

    /// Every file of the walk that may be an OpenAPI document (YAML or JSON whose
    /// text says `openapi` or `swagger`; read once per index, never parsed), in walk
    /// order.
    pub fn documents(&self, ws: &Workspace, names_of: fn(&[u8]) -> Vec<Vec<u8>>) -> &[Candidate] {
        &self.binding_names(ws, names_of).documents
    }

    fn binding_names(&self, ws: &Workspace, names_of: fn(&[u8]) -> Vec<Vec<u8>>) -> &BindingNames {
        self.binding_names.get_or_init(|| {
            let found: Vec<(Candidate, Vec<Vec<u8>>)> =
                self.marked_documents(ws, |_, c, text| (c.clone(), names_of(text)));
            let mut by_name: std::collections::BTreeMap<Vec<u8>, Vec<usize>> =
                std::collections::BTreeMap::new();
            for (i, (_, names)) in found.iter().enumerate() {
                for n in names.iter().filter(|n| !n.is_empty()) {
                    by_name.entry(n.clone()).or_default().push(i);
                }
            }
            let patterns: Vec<Vec<u8>> = by_name.keys().cloned().collect();
            BindingNames {
                documents: found.into_iter().map(|(c, _)| c).collect(),
                finder: finder(&patterns, Case::Insensitive),
                owners: by_name.into_values().collect(),
            }
        })
    }

    /// The OpenAPI documents of the index whose `$ref` closure includes one of
    /// `targets` (canonical paths): the documents that refer to a target directly or
    /// through other files. Refs resolve relative to the file that holds them, as
    /// the resolver reads them; remote refs are never followed.
    pub fn documents_referring(&self, targets: &[PathBuf], ws: &Workspace) -> Vec<Candidate> {
        let mut reached: HashSet<PathBuf> = targets.iter().cloned().collect();
        let mut frontier: Vec<PathBuf> = targets.to_vec();
        let mut documents = Vec::new();
        while !frontier.is_empty() {
            let needles: Vec<Vec<u8>> = frontier.iter().flat_map(|t| needles(t)).collect();
            let Some(finder) = finder(&needles, Case::Sensitive) else {
                break;
            };
            let wanted: HashSet<&Path> = frontier.iter().map(PathBuf::as_path).collect();
            let hits: Vec<(Candidate, bool)> = self
                .others
                .par_iter()
                .enumerate()
                // Source code holds no `$ref` the resolver follows.
                .filter(|(_, c)| !matches!(c.kind, NameKind::Source(_)))
                .filter(|(_, c)| !reached.contains(&c.path))
                .filter(|(i, _)| self.text(*i, ws).is_some_and(|t| finder.is_match(t)))
                .map(|(_, c)| c)
                .filter_map(|c| {
                    let doc = ws.load(&c.path);
                    external_refs(&doc)
                        .iter()
                        .any(|r| wanted.contains(r.as_path()))
                        .then(|| (c.clone(), is_openapi(&doc)))
                })
                .collect();
            frontier = Vec::new();
            for (c, openapi) in hits {
                if reached.insert(c.path.clone()) {
                    frontier.push(c.path.clone());
                    if openapi {
                        documents.push(c);
                    }
                }
            }
        }
        documents.sort_by(|a, b| a.path.cmp(&b.path));
        documents
    }
}

impl ProjectIndex {
    /// `f` of each file of the walk that may be an OpenAPI document (YAML or JSON,
    /// or named on the command line, whose text says `openapi` or `swagger`; never
    /// parsed) with its index, candidate and text, in walk order. The texts are
    /// read on every core and kept for the other look-ups.
    fn marked_documents<T: Send>(
        &self,
        ws: &Workspace,
        f: impl Fn(usize, &Candidate, &[u8]) -> T + Sync + Send,
    ) -> Vec<T> {
        let markers = finder(
            &[b"openapi".to_vec(), b"swagger".to_vec()],
            Case::Insensitive,
        );
        self.others
            .par_iter()
            .enumerate()
            .filter(|(_, c)| {
                matches!(
                    c.kind,
                    NameKind::SpecLike | NameKind::Other | NameKind::Unlisted
                )
            })
            .filter_map(|(i, c)| {
                let text = self.text(i, ws)?;
                markers
                    .as_ref()
                    .is_some_and(|m| m.is_match(text))
                    .then(|| f(i, c, text))
            })
            .collect()
    }

    /// The text of `others[i]` (wide encodings decoded), read once.
    fn text(&self, i: usize, ws: &Workspace) -> Option<&[u8]> {
        self.texts[i]
            .get_or_init(|| {
                let mut text = None;
                scan(
                    ws.boundary(),
                    &self.others[i].path,
                    ws.limits().max_file_bytes,
                    |bytes| text = Some(Box::from(bytes)),
                );
                text
            })
            .as_deref()
    }
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| normalize(p))
}

/// The byte strings a `$ref` to `target` must contain: its file name as written, and
/// percent-encoded when that differs (RFC 3986 §2.1).
fn needles(target: &Path) -> Vec<Vec<u8>> {
    let Some(name) = target.file_name() else {
        return Vec::new();
    };
    let plain = name.as_encoded_bytes().to_vec();
    let encoded = percent_encoding::percent_encode(&plain, percent_encoding::NON_ALPHANUMERIC)
        .to_string()
        // `.`, `-`, `_` and `~` are unreserved: never encoded in practice.
        .replace("%2E", ".")
        .replace("%2D", "-")
        .replace("%5F", "_")
        .replace("%7E", "~")
        .into_bytes();
    if encoded == plain {
        vec![plain]
    } else {
        vec![plain, encoded]
    }
}

/// How [`mentions_any`] compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Case {
    Sensitive,
    /// ASCII letters of either case (the needles are lowercase).
    Insensitive,
}

/// The string scalars of a YAML or JSON file whose text holds an escape that may
/// spell a name ([`may_spell_by_escape`]), as the file means them, one a line: a host
/// written `ord\x65rs` or `\u0065` binds as `orders`, and its text does not spell
/// it. `None` when the text holds no such escape or the file does not parse.
fn escaped_scalars(path: &Path, text: &[u8], ws: &Workspace) -> Option<String> {
    if !may_spell_by_escape(text) {
        return None;
    }
    let doc = ws.load(path);
    // Every document of a YAML stream (a file of VirtualServices).
    let documents = crate::import::stream::documents(&doc).ok()?;
    let mut out = String::new();
    for d in &documents {
        let Ok(tree) = &d.tree else { continue };
        for n in tree.all_nodes() {
            if let Some(s) = tree.scalar(n) {
                out.push_str(s);
                out.push('\n');
            }
        }
    }
    Some(out)
}

/// True when `text` holds an escape that can put a character of a host, an
/// operationId or a file name into a scalar: `\x`, `\u`, `\U` (any character; YAML
/// 1.2 §5.7, JSON), `\/` (a slash) and a backslash ending a line (YAML joins the
/// next line without a space). The other escapes give whitespace, quotes, a
/// backslash or control and Unicode line characters, which no name holds, so a file
/// with only those (a regular expression's `\d`, a Windows path) needs no parse.
/// Sound, not exact: `\\x` counts too.
fn may_spell_by_escape(text: &[u8]) -> bool {
    memchr::memchr_iter(b'\\', text).any(|i| {
        matches!(
            text.get(i + 1),
            Some(b'x' | b'u' | b'U' | b'/' | b'\n' | b'\r')
        )
    })
}

/// Finds any of a set of needles in one pass over a file (a scan per needle read a
/// repository of sources once per operationId).
///
/// ASCII case-insensitive needles are searched for in a lower-cased copy of the text
/// (a thread's buffer, reused) with a case-sensitive automaton: `aho-corasick` builds
/// no SIMD prefilter for a case-insensitive one, and its automaton alone scanned
/// about 1 GB/s, a quarter of a pre-commit run over a repository's 29 MB of configs
/// and sources (issue 36); lower-casing is a vectorised copy. The answers are the
/// same: a needle matches exactly where it matched with `ascii_case_insensitive`.
#[derive(Debug)]
struct Finder {
    /// Any match (leftmost-first, so small needle sets get a SIMD prefilter); built
    /// on first use by [`Finder::is_match`].
    any: OnceLock<Option<aho_corasick::AhoCorasick>>,
    /// Every occurrence of every needle (standard semantics, for overlapping
    /// matches); built on first use by [`Finder::patterns`].
    every: OnceLock<Option<aho_corasick::AhoCorasick>>,
    /// The needles, non-empty (lower case when `case` is insensitive).
    needles: Vec<Vec<u8>>,
    case: Case,
}

impl Finder {
    /// True when `text` holds a needle.
    fn is_match(&self, text: &[u8]) -> bool {
        let Some(any) = self.any.get_or_init(|| automaton(&self.needles, true)) else {
            return false;
        };
        self.on_text(text, |t| any.is_match(t))
    }

    /// The needles (pattern numbers: their order among the non-empty needles given)
    /// that `text` holds, each occurrence once.
    fn patterns(&self, text: &[u8]) -> Vec<usize> {
        let Some(every) = self.every.get_or_init(|| automaton(&self.needles, false)) else {
            return Vec::new();
        };
        self.on_text(text, |t| {
            every
                .find_overlapping_iter(t)
                .map(|m| m.pattern().as_usize())
                .collect()
        })
    }

    /// `look` of `text`, lower-cased (ASCII) when the needles are case-insensitive.
    fn on_text<T>(&self, text: &[u8], look: impl FnOnce(&[u8]) -> T) -> T {
        if self.case == Case::Sensitive {
            return look(text);
        }
        thread_local! {
            static LOWER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        /// A buffer grown past this (bytes) by one big file is not kept (as [`scan`]).
        const KEEP_BYTES: usize = 16 * 1024 * 1024;
        LOWER.with_borrow_mut(|lower| {
            lower.clear();
            lower.extend(text.iter().map(u8::to_ascii_lowercase));
            let found = look(lower);
            if lower.capacity() > KEEP_BYTES {
                *lower = Vec::new();
            }
            found
        })
    }
}

/// The automaton over `needles` (case-sensitive): leftmost-first for [`Finder::any`]
/// when `any`, else standard semantics for overlapping matches. A DFA scans
/// fastest; its tables grow with the needles, so past a few hundred the default
/// automaton is kept.
fn automaton(needles: &[Vec<u8>], any: bool) -> Option<aho_corasick::AhoCorasick> {
    let kind = (needles.len() <= 512).then_some(aho_corasick::AhoCorasickKind::DFA);
    let semantics = if any {
        aho_corasick::MatchKind::LeftmostFirst
    } else {
        aho_corasick::MatchKind::Standard
    };
    aho_corasick::AhoCorasick::builder()
        .match_kind(semantics)
        .kind(kind)
        .build(needles)
        .ok()
}

/// The finder of `needles` (empty ones left out: pattern numbers count the others);
/// `None` when there is nothing to look for.
fn finder(needles: &[Vec<u8>], case: Case) -> Option<Finder> {
    let needles: Vec<Vec<u8>> = needles
        .iter()
        .filter(|n| !n.is_empty())
        .map(|n| match case {
            Case::Sensitive => n.clone(),
            Case::Insensitive => n.to_ascii_lowercase(),
        })
        .collect();
    if needles.is_empty() {
        return None;
    }
    Some(Finder {
        any: OnceLock::new(),
        every: OnceLock::new(),
        needles,
        case,
    })
}

/// The patterns of `finder` that the files at `configs` hold (each match once; a
/// file's text and, when it holds escapes, its scalars as the file means them), read
/// on every core through the run's read boundary.
fn patterns_in(configs: &[PathBuf], ws: &Workspace, finder: &Finder) -> Vec<usize> {
    let limit = ws.limits().max_file_bytes;
    configs
        .par_iter()
        .flat_map_iter(|path| {
            let mut patterns: Vec<usize> = Vec::new();
            scan(ws.boundary(), path, limit, |bytes| {
                patterns.extend(finder.patterns(bytes));
                if let Some(decoded) = escaped_scalars(path, bytes, ws) {
                    patterns.extend(finder.patterns(decoded.as_bytes()));
                }
            });
            patterns
        })
        .collect()
}

/// True when the file's bytes contain one of the needles of `finder` (a cheap
/// filter before parsing); see [`scan`] for the files never read.
fn mentions_any(
    boundary: &crate::source::boundary::ReadBoundary,
    path: &Path,
    finder: &Finder,
    limit: u64,
) -> bool {
    let mut found = false;
    scan(boundary, path, limit, |bytes| {
        found = finder.is_match(bytes)
    });
    found
}

/// Calls `look` with the file's text as bytes (a UTF-16 or UTF-32 file decoded: it
/// names its `$ref`s and hosts in its own encoding). Files over `limit` bytes,
/// unreadable, not regular files (a link to `/dev/zero` or a FIFO, which would
/// never end or never return), or outside the read `boundary` are not read, and
/// `look` is not called.
fn scan(
    boundary: &crate::source::boundary::ReadBoundary,
    path: &Path,
    limit: u64,
    look: impl FnOnce(&[u8]),
) {
    // The read boundary first: a walked link out of the project is never opened.
    if !boundary.admits(path) {
        return;
    }
    thread_local! {
        // One buffer per thread for the whole scan (files are read one at a time).
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    /// A buffer grown past this (bytes) by one big file is not kept: a long-lived
    /// process (the language server) would hold it for nothing.
    const KEEP_BYTES: usize = 16 * 1024 * 1024;
    BUFFER.with_borrow_mut(|buffer| {
        if crate::source::loader::read_regular_file_into(path, limit, buffer).is_ok() {
            let decoded = crate::source::encoding::decode_wide(buffer);
            look(
                decoded
                    .as_ref()
                    .map_or(&buffer[..], |(text, _)| text.as_bytes()),
            );
        }
        if buffer.capacity() > KEEP_BYTES {
            *buffer = Vec::new();
        }
    });
}

/// The files a loaded file's `$ref`s name (canonical paths, relative refs resolved
/// against the file's directory); local and remote refs are left out.
pub(super) fn external_refs(doc: &Loaded) -> Vec<PathBuf> {
    let Ok(tree) = &doc.tree else {
        return Vec::new();
    };
    let dir = doc.file.path.parent().unwrap_or(Path::new(""));
    // Each file named once before its real path is looked up: a spec of 1,700
    // files names the same few in thousands of `$ref`s, and each look-up is a
    // `readlink` per folder of the path.
    let mut named: Vec<PathBuf> = tree
        .all_nodes()
        .filter(|&n| tree.kind(n) == Kind::Str)
        .filter(|&n| tree.key_of(n).and_then(|k| tree.scalar(k)) == Some("$ref"))
        .filter_map(|n| tree.scalar(n))
        .map(parse_ref)
        .filter(|r| !r.remote && !r.file.is_empty())
        .map(|r| normalize(&dir.join(&r.file)))
        .collect();
    named.sort();
    named.dedup();
    let mut out: Vec<PathBuf> = named.iter().map(|p| canonical(p)).collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_escapes_that_can_spell_a_name_need_a_parse() {
        for spelling in [
            &br#"host: "ord\x65rs""#[..],
            br#"{"host": "ord\u0065rs"}"#,
            br#"host: "ord\U00000065rs""#,
            br#"{"url": "http:\/\/orders"}"#,
            b"host: \"ord\\\n  ers\"",
            b"host: \"ord\\\r\n  ers\"",
        ] {
            assert!(
                may_spell_by_escape(spelling),
                "{}",
                String::from_utf8_lossy(spelling)
            );
        }
        for other in [
            &br#"pattern: "^\d+\t\"$""#[..],
            br#"path: 'C:\Windows'"#,
            b"plain text",
            b"ends with a backslash \\",
        ] {
            assert!(
                !may_spell_by_escape(other),
                "{}",
                String::from_utf8_lossy(other)
            );
        }
    }

    #[test]
    fn needles_add_the_percent_encoded_name_when_it_differs() {
        assert_eq!(
            needles(Path::new("a/responses.yaml")),
            vec![b"responses.yaml".to_vec()]
        );
        assert_eq!(
            needles(Path::new("a/my responses.yaml")),
            vec![
                b"my responses.yaml".to_vec(),
                b"my%20responses.yaml".to_vec()
            ]
        );
    }
}
