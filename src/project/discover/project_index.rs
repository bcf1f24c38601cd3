//! An index of one project root for runs over named files: which policies govern a
//! document, and which files reach a file through `$ref`. Built from the walk a full
//! run makes (gitignore-aware, YAML/JSON names only) and read lazily: building it
//! loads only the files whose names say policy; a `$ref` look-up reads the other
//! files as text and parses only those whose text names the file looked for.

use super::{discover, is_openapi, spec_paths, Candidate, NameKind};
use crate::source::loader::{Loaded, Workspace};
use crate::source::pointer::parse_ref;
use crate::source::refs::normalize;
use crate::source::tree::Kind;
use rayon::prelude::*;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// A policy file found under the project root, with what it governs.
#[derive(Debug)]
struct IndexedPolicy {
    /// The policy file (under the root).
    path: PathBuf,
    /// Its directory (a policy without `spec:` governs the documents in it and below).
    dir: PathBuf,
    /// Its `spec:` targets, canonical (else lexically normalised) paths; empty when
    /// it has no `spec:` or does not parse.
    targets: Vec<PathBuf>,
}

/// The policies and YAML/JSON files under one project root.
#[derive(Debug)]
pub struct ProjectIndex {
    /// Every policy file of the walk with its `spec:` targets.
    policies: Vec<IndexedPolicy>,
    /// Every other YAML/JSON file of the walk (candidates for `$ref` look-ups).
    others: Vec<Candidate>,
}

impl ProjectIndex {
    /// Walks `root` (as `retrylint check ROOT` would) and reads the `spec:` of every
    /// policy file found. `root` should be canonical, so the paths found are too.
    pub fn build(root: &Path, ws: &Workspace) -> ProjectIndex {
        let (found, _problems) = discover(&[root.to_path_buf()], &[]);
        // A `.proto` holds no `$ref`: never a candidate for the look-ups.
        let (policies, others): (Vec<Candidate>, Vec<Candidate>) = found
            .into_iter()
            .filter(|c| c.kind != NameKind::Proto)
            .partition(|c| c.kind == NameKind::Policy);
        let policies = policies
            .par_iter()
            .map(|c| {
                let dir = c.path.parent().map(Path::to_path_buf).unwrap_or_default();
                let targets = spec_paths(&ws.load(&c.path))
                    .iter()
                    .map(|s| canonical(&dir.join(s)))
                    .collect();
                IndexedPolicy {
                    path: c.path.clone(),
                    dir,
                    targets,
                }
            })
            .collect();
        ProjectIndex { policies, others }
    }

    /// The policy files that govern `document` (a canonical path): those whose
    /// `spec:` names it, and those without `spec:` in its directory or a parent.
    pub fn policies_governing(&self, document: &Path) -> Vec<PathBuf> {
        self.policies
            .iter()
            .filter(|p| {
                if p.targets.is_empty() {
                    document.starts_with(&p.dir)
                } else {
                    p.targets.iter().any(|t| t == document)
                }
            })
            .map(|p| p.path.clone())
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
                .filter(|c| mentions_any(&c.path, &needles, limit))
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

/// True when the file's bytes contain one of `needles` (a cheap filter before
/// parsing). Files over `limit` bytes, unreadable, or not regular files (a link to
/// `/dev/zero` or a FIFO, which would never end or never return) are not read.
fn mentions_any(path: &Path, needles: &[Vec<u8>], limit: u64) -> bool {
    let Ok(bytes) = crate::source::loader::read_regular_file(path, limit) else {
        return false;
    };
    // A UTF-16 or UTF-32 file names its `$ref`s in its own encoding.
    let decoded = crate::source::encoding::decode_wide(&bytes);
    let bytes = decoded
        .as_ref()
        .map_or(&bytes[..], |(text, _)| text.as_bytes());
    needles
        .iter()
        .any(|n| !n.is_empty() && memchr::memmem::find(bytes, n).is_some())
}

/// The files a loaded file's `$ref`s name (canonical paths, relative refs resolved
/// against the file's directory); local and remote refs are left out.
fn external_refs(doc: &Loaded) -> Vec<PathBuf> {
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
