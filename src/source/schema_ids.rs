//! JSON Schema 2020-12 identifiers in the Schema Objects of OpenAPI 3.1 documents:
//! which node each `$id`, `$anchor` and `$dynamicAnchor` names, and the base URI a
//! `$ref` resolves against. Nothing is fetched.
//!
//! Sources: JSON Schema Core 2020-12 section 8.2.1 (`$id` names a schema resource;
//! a relative `$id` resolves against the enclosing resource's URI), 8.2.2 (`$anchor`
//! and `$dynamicAnchor` name a plain-name fragment within their resource; for static
//! resolution a dynamic anchor is an anchor), 9.1.1 (the initial base URI is the
//! document's retrieval URI: here the file's `file:` URI) and 9.2 (embedded
//! resources); OpenAPI 3.1.0, "Relative References in URIs" (Schema Objects use the
//! nearest parent `$id` as base URI).
//! Reference resolution (RFC 3986 section 5.2) and normalisation (6.2.2) are
//! `fluent-uri`'s; IRIs (RFC 3987) are accepted, so non-ASCII `$id`s work.

use super::pointer::parse_ref;
use super::tree::{Kind, NodeId, Tree};
use fluent_uri::{Iri, IriRef};
use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, CONTROLS};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Characters of a file path that a `file:` URI path must percent-encode.
const PATH: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b']')
    .add(b'\\')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// Keys whose values are literal data, not schemas (unless the key is itself a
/// property name under `properties` or the like).
const LITERAL_KEYS: &[&str] = &["example", "examples", "default", "const", "enum"];

/// Keys whose values map names to schemas: a literal key right below them is a name.
const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "schemas",
];

/// The schema resources and anchors of one file.
#[derive(Debug, Default)]
pub struct IdIndex {
    /// The file's own URI (normalised): the base of everything outside a `$id`.
    file_uri: String,
    /// Each node with a `$id`, and the absolute URI it names (no fragment).
    ids: HashMap<NodeId, String>,
    /// Absolute URI of each schema resource -> its node (the first wins).
    resources: HashMap<String, NodeId>,
    /// (resource URI, anchor name) -> the node with that `$anchor` or
    /// `$dynamicAnchor` (the first wins).
    anchors: HashMap<(String, String), NodeId>,
}

impl IdIndex {
    /// Indexes `tree`, the tree of the file at `path` (an absolute path).
    pub fn build(tree: &Tree, path: &Path) -> IdIndex {
        let mut index = IdIndex {
            file_uri: file_uri(path),
            ..IdIndex::default()
        };
        // Nodes are created before their children, so in arena order a node's
        // enclosing resource is indexed before the node.
        let mut anchored = Vec::new();
        for node in tree.all_nodes() {
            if tree.kind(node) != Kind::Map {
                continue;
            }
            let text = |key: &str| {
                tree.raw_entries(node)
                    .iter()
                    .rev()
                    .find(|&&(k, v)| tree.scalar(k) == Some(key) && tree.kind(v) == Kind::Str)
                    .and_then(|&(_, v)| tree.scalar(v))
            };
            let id = text("$id");
            let anchor = text("$anchor");
            let dynamic = text("$dynamicAnchor");
            if id.is_none() && anchor.is_none() && dynamic.is_none() {
                continue;
            }
            if in_literal(tree, node) {
                continue;
            }
            if let Some(id) = id {
                let base = index.base_of(tree, tree.parent(node)).to_string();
                match resolve(&base, id) {
                    // A fragment-only `$id: '#name'` is the draft-07 spelling of an
                    // anchor in the enclosing resource.
                    Some((uri, Some(name))) if uri == base && !name.is_empty() => {
                        anchored.push((node, name));
                    }
                    Some((uri, _)) => {
                        index.resources.entry(uri.clone()).or_insert(node);
                        index.ids.insert(node, uri);
                    }
                    None => {}
                }
            }
            for name in [anchor, dynamic].into_iter().flatten() {
                anchored.push((node, name.to_string()));
            }
        }
        for (node, name) in anchored {
            let resource = index.base_of(tree, Some(node)).to_string();
            index.anchors.entry((resource, name)).or_insert(node);
        }
        index
    }

    /// The file's own `file:` URI.
    pub fn file_uri(&self) -> &str {
        &self.file_uri
    }

    /// True when the file declares a `$id` (so some bases differ from the file's).
    pub fn has_ids(&self) -> bool {
        !self.ids.is_empty()
    }

    /// The base URI at `node`: the URI of the nearest enclosing node (itself
    /// included) with a `$id`, else the file's URI. `None` stands for the root's
    /// parent.
    pub fn base_of(&self, tree: &Tree, node: Option<NodeId>) -> &str {
        let mut cur = node;
        while let Some(n) = cur {
            if let Some(uri) = self.ids.get(&n) {
                return uri;
            }
            cur = tree.parent(n);
        }
        &self.file_uri
    }

    /// The node of the schema resource named `uri` (absolute, normalised, without
    /// fragment): an embedded resource, or the file itself (its root).
    pub fn resource(&self, tree: &Tree, uri: &str) -> Option<NodeId> {
        match self.resources.get(uri) {
            Some(&n) => Some(n),
            None if uri == self.file_uri => tree.root(),
            None => None,
        }
    }

    /// The node with `$anchor` (or `$dynamicAnchor`) `name` in the resource `uri`.
    pub fn anchor(&self, uri: &str, name: &str) -> Option<NodeId> {
        self.anchors
            .get(&(uri.to_string(), name.to_string()))
            .copied()
    }

    /// Every `$id` URI of the file.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.resources.keys().map(String::as_str)
    }
}

/// True when `node` sits in literal data (an `example`, `default`, `enum`, ...),
/// where `$id` is just a value.
fn in_literal(tree: &Tree, node: NodeId) -> bool {
    let mut cur = node;
    for _ in 0..1024 {
        let Some(parent) = tree.parent(cur) else {
            return false;
        };
        if let Some(key) = tree.key_of(cur).and_then(|k| tree.scalar(k)) {
            let named = tree
                .key_of(parent)
                .and_then(|k| tree.scalar(k))
                .is_some_and(|k| SCHEMA_MAPS.contains(&k));
            if LITERAL_KEYS.contains(&key) && !named {
                return true;
            }
        }
        cur = parent;
    }
    false
}

/// Resolves the URI reference `reference` against the absolute URI `base` (RFC 3986
/// section 5.2) and normalises the result (6.2.2): the absolute URI without its
/// fragment, and the fragment as written (percent-encoded; `None` when absent).
/// `None` when `reference` is not a URI (IRI) reference.
pub fn resolve(base: &str, reference: &str) -> Option<(String, Option<String>)> {
    let base = Iri::parse(base).ok()?;
    let reference = IriRef::parse(reference).ok()?;
    let resolved = reference.resolve_against(&base).ok()?.normalize();
    let fragment = resolved.fragment().map(|f| f.as_str().to_string());
    Some((resolved.strip_fragment().as_str().to_string(), fragment))
}

/// True when `reference` is an absolute URI (has a scheme, such as `https:` or
/// `urn:`).
pub fn has_scheme(reference: &str) -> bool {
    IriRef::parse(reference).is_ok_and(|r| r.has_scheme())
}

/// The `file:` URI of an absolute path (RFC 8089), normalised.
pub fn file_uri(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let encoded = utf8_percent_encode(&text, PATH).to_string();
    let uri = if encoded.starts_with('/') {
        format!("file://{encoded}")
    } else {
        format!("file:///{encoded}")
    };
    match Iri::parse(uri.as_str()) {
        Ok(iri) => iri.normalize().as_str().to_string(),
        Err(_) => uri,
    }
}

/// The path a `file:` URI names (`None` for another scheme or a remote host).
pub fn file_path(uri: &str) -> Option<PathBuf> {
    let iri = Iri::parse(uri).ok()?;
    if !iri.scheme().as_str().eq_ignore_ascii_case("file") {
        return None;
    }
    if let Some(auth) = iri.authority() {
        let host = auth.as_str();
        if !host.is_empty() && !host.eq_ignore_ascii_case("localhost") {
            return None;
        }
    }
    let path = percent_decode_str(iri.path().as_str()).decode_utf8_lossy();
    Some(PathBuf::from(path.into_owned()))
}

/// The decoded JSON Pointer tokens of a fragment (`None`: not a pointer, a plain
/// name).
pub fn pointer_tokens(fragment: &str) -> Option<Vec<String>> {
    let target = parse_ref(&format!("#{fragment}"));
    (!target.plain_name_fragment).then_some(target.tokens)
}

/// A plain-name fragment, percent-decoded.
pub fn plain_name(fragment: &str) -> String {
    percent_decode_str(fragment)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn resolves_per_rfc_3986() {
        let r = |b: &str, x: &str| resolve(b, x).unwrap();
        assert_eq!(
            r(
                "https://schemas.example.test/http/retry-after",
                "delay-seconds"
            ),
            (
                "https://schemas.example.test/http/delay-seconds".into(),
                None
            )
        );
        assert_eq!(
            r("https://EXAMPLE.test/a/b", "../c#frag"),
            ("https://example.test/c".into(), Some("frag".into()))
        );
        assert_eq!(
            r("file:///p/openapi.yaml", "#/components"),
            ("file:///p/openapi.yaml".into(), Some("/components".into()))
        );
        assert_eq!(
            r("file:///p/openapi.yaml", "urn:uuid:1234"),
            ("urn:uuid:1234".into(), None)
        );
    }

    #[test]
    fn file_uris_round_trip() {
        let p = Path::new("/srv/team apis/orders #2 50% ü.yaml");
        let uri = file_uri(p);
        assert_eq!(
            uri,
            "file:///srv/team%20apis/orders%20%232%2050%25%20ü.yaml"
        );
        assert_eq!(file_path(&uri).unwrap(), p);
        assert_eq!(file_path("https://x/y"), None);
    }

    #[test]
    fn indexes_ids_and_anchors_by_their_resource() {
        let text = "\
components:
  schemas:
    A:
      $id: 'https://x.test/s/a'
      $defs:
        inner:
          $id: 'b'
          $anchor: here
        named:
          $anchor: top
    Old:
      $id: '#legacy'
    Dyn:
      $dynamicAnchor: node
    Ex:
      example: {$id: 'https://x.test/not-a-schema'}
";
        let tree = Tree::parse(Arc::from(text)).unwrap();
        let ix = IdIndex::build(&tree, Path::new("/p/openapi.yaml"));
        let mut ids: Vec<_> = ix.ids().collect();
        ids.sort();
        assert_eq!(ids, vec!["https://x.test/s/a", "https://x.test/s/b"]);
        let file = ix.file_uri().to_string();
        assert!(ix.anchor("https://x.test/s/b", "here").is_some());
        assert!(ix.anchor("https://x.test/s/a", "top").is_some());
        assert!(ix.anchor(&file, "legacy").is_some());
        assert!(ix.anchor(&file, "node").is_some());
        assert!(ix.anchor(&file, "here").is_none());
        assert_eq!(ix.resource(&tree, &file), tree.root());
    }
}
