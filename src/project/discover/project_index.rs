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
    /// The file names of the symbolic links to files met by the walk: a `spec:`
    /// naming one names its target.
    link_names: Vec<Vec<u8>>,
    /// The OpenAPI documents of the walk while there are at most two (read when
    /// [`ProjectIndex::is_the_only_document`] is first asked).
    only_document: OnceLock<Vec<PathBuf>>,
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
        ProjectIndex {
            policies,
            others,
            link_names,
            only_document: OnceLock::new(),
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
        let limit = ws.limits().max_file_bytes;
        self.policies
            .par_iter()
            .filter(|p| {
                let above = document.starts_with(&p.dir);
                if !above
                    && !mentions_any(ws.boundary(), &p.path, &needles, limit, Case::Insensitive)
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
    /// other API takes it (`layers.md` "Binding", the only spec of the run). Files
    /// are read one by one until a second document turns up; only those whose text
    /// says `openapi` or `swagger` are parsed.
    pub fn is_the_only_document(&self, document: &Path, ws: &Workspace) -> bool {
        self.only_document(ws).is_some_and(|only| only == document)
    }

    /// The only OpenAPI document under the root (canonical), if there is exactly one
    /// (see [`ProjectIndex::is_the_only_document`]).
    pub fn only_document(&self, ws: &Workspace) -> Option<PathBuf> {
        let found = self.only_document.get_or_init(|| {
            let limit = ws.limits().max_file_bytes;
            let markers = [b"openapi".to_vec(), b"swagger".to_vec()];
            let mut found: Vec<PathBuf> = Vec::new();
            for c in &self.others {
                if !matches!(
                    c.kind,
                    NameKind::SpecLike | NameKind::Other | NameKind::Unlisted
                ) || !mentions_any(ws.boundary(), &c.path, &markers, limit, Case::Insensitive)
                {
                    continue;
                }
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

    /// The files of the walk that may be a retry config or a client in code (not a
    /// policy, not a file named as a spec) and hold one of `needles` (lower case),
    /// ASCII case-insensitively: the configs and clients that may bind to a
    /// document, found without parsing any file.
    pub fn configs_mentioning(&self, needles: &[Vec<u8>], ws: &Workspace) -> Vec<Candidate> {
        if needles.is_empty() {
            return Vec::new();
        }
        let limit = ws.limits().max_file_bytes;
        self.others
            .par_iter()
            .filter(|c| {
                matches!(
                    c.kind,
                    NameKind::Other | NameKind::TextConfig | NameKind::Source(_)
                ) && mentions_any(ws.boundary(), &c.path, needles, limit, Case::Insensitive)
            })
            .cloned()
            .collect()
    }

    /// The OpenAPI documents of the index whose `$ref` closure includes one of
    /// `targets` (canonical paths): the documents that refer to a target directly or
    /// through other files. Refs resolve relative to the file that holds them, as
    /// the resolver reads them; remote refs are never followed.
    pub fn documents_referring(&self, targets: &[PathBuf], ws: &Workspace) -> Vec<Candidate> {
        let mut reached: HashSet<PathBuf> = targets.iter().cloned().collect();
        let mut frontier: Vec<PathBuf> = targets.to_vec();
        let mut documents = Vec::new();
        let limit = ws.limits().max_file_bytes;
        while !frontier.is_empty() {
            let needles: Vec<Vec<u8>> = frontier.iter().flat_map(|t| needles(t)).collect();
            let wanted: HashSet<&Path> = frontier.iter().map(PathBuf::as_path).collect();
            let hits: Vec<(Candidate, bool)> = self
                .others
                .par_iter()
                .filter(|c| !reached.contains(&c.path))
                .filter(|c| mentions_any(ws.boundary(), &c.path, &needles, limit, Case::Sensitive))
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

/// True when the file's bytes contain one of `needles` (a cheap filter before
/// parsing). Files over `limit` bytes, unreadable, not regular files (a link to
/// `/dev/zero` or a FIFO, which would never end or never return), or outside the
/// read `boundary` are not read.
fn mentions_any(
    boundary: &crate::source::boundary::ReadBoundary,
    path: &Path,
    needles: &[Vec<u8>],
    limit: u64,
    case: Case,
) -> bool {
    // The read boundary first: a walked link out of the project is never opened.
    if !boundary.admits(path) {
        return false;
    }
    thread_local! {
        // One buffer per thread for the whole scan (files are read one at a time).
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    /// A buffer grown past this (bytes) by one big file is not kept: a long-lived
    /// process (the language server) would hold it for nothing.
    const KEEP_BYTES: usize = 16 * 1024 * 1024;
    BUFFER.with_borrow_mut(|buffer| {
        let found = crate::source::loader::read_regular_file_into(path, limit, buffer).is_ok() && {
            // A UTF-16 or UTF-32 file names its `$ref`s in its own encoding.
            let decoded = crate::source::encoding::decode_wide(buffer);
            let mut bytes = decoded
                .as_ref()
                .map_or(&buffer[..], |(text, _)| text.as_bytes());
            let lowered;
            if case == Case::Insensitive {
                lowered = bytes.to_ascii_lowercase();
                bytes = &lowered;
            }
            needles
                .iter()
                .any(|n| !n.is_empty() && memchr::memmem::find(bytes, n).is_some())
        };
        if buffer.capacity() > KEEP_BYTES {
            *buffer = Vec::new();
        }
        found
    })
}

/// The files a loaded file's `$ref`s name (canonical paths, relative refs resolved
/// against the file's directory); local and remote refs are left out.
pub(super) fn external_refs(doc: &Loaded) -> Vec<PathBuf> {
    let Ok(tree) = &doc.tree else {
        return Vec::new();
    };
    let dir = doc.file.path.parent().unwrap_or(Path::new(""));
    let mut out: Vec<PathBuf> = tree
        .all_nodes()
        .filter(|&n| tree.kind(n) == Kind::Str)
        .filter(|&n| tree.key_of(n).and_then(|k| tree.scalar(k)) == Some("$ref"))
        .filter_map(|n| tree.scalar(n))
        .map(parse_ref)
        .filter(|r| !r.remote && !r.file.is_empty())
        .map(|r| canonical(&dir.join(&r.file)))
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
