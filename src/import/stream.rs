//! The documents of a YAML stream, each as a loaded file of its own (same text and
//! path, its own tree), so that every value read from a Kubernetes manifest points
//! at its line in the real file. Kubernetes `List` objects are flattened item by
//! item by the callers ([`kube_objects`]).

use crate::diagnostic::Diagnostic;
use crate::source::loader::Loaded;
use crate::source::rl001_invalid_syntax;
use crate::source::tree::{Kind, NodeId, Tree};
use std::sync::Arc;

/// Every non-empty document of `doc`'s stream (`---` separators, `...` end markers
/// and empty documents tolerated), or RL001 at the first syntax error.
pub fn documents(doc: &Arc<Loaded>) -> Result<Vec<Arc<Loaded>>, Box<Diagnostic>> {
    let first = match &doc.tree {
        Ok(first) => first,
        Err(e) => return Err(Box::new(rl001_invalid_syntax::from_error(doc, e))),
    };
    if first.later_documents().is_empty() {
        return Ok(vec![doc.clone()]);
    }
    // Kept by the parse that loaded the file.
    if let Some(documents) = doc.stream() {
        return Ok(documents);
    }
    let trees = Tree::parse_stream(doc.file.text.clone()).map_err(|e| {
        Box::new(rl001_invalid_syntax::from_error(
            doc,
            &crate::source::loader::LoadError::Syntax(e),
        ))
    })?;
    Ok(trees
        .into_iter()
        .map(|tree| Arc::new(Loaded::new(doc.file.clone(), Ok(tree))))
        .collect())
}

/// A Kubernetes object: one document, or one item of a `List`.
#[derive(Debug, Clone)]
pub struct KubeObject {
    /// The document holding it.
    pub doc: Arc<Loaded>,
    /// The object's mapping.
    pub node: NodeId,
    /// `apiVersion` (`networking.istio.io/v1`).
    pub api_version: String,
    /// `kind` (`VirtualService`).
    pub kind: String,
    /// `metadata.name` (empty when absent).
    pub name: String,
    /// `metadata.namespace` (empty when absent).
    pub namespace: String,
}

impl KubeObject {
    /// The API group: `networking.istio.io` for `networking.istio.io/v1`, empty for
    /// the core group (`v1`).
    pub fn group(&self) -> &str {
        self.api_version
            .rsplit_once('/')
            .map_or("", |(group, _)| group)
    }
}

/// The Kubernetes objects of `docs` (each document with `apiVersion` and `kind`, and
/// the items of `kind: List` documents), in file order.
pub fn kube_objects(docs: &[Arc<Loaded>]) -> Vec<KubeObject> {
    let mut out = Vec::new();
    for doc in docs {
        let Ok(tree) = &doc.tree else { continue };
        let Some(root) = tree.root() else { continue };
        push_object(doc, tree, root, &mut out, 0);
    }
    out
}

fn push_object(doc: &Arc<Loaded>, tree: &Tree, node: NodeId, out: &mut Vec<KubeObject>, depth: u8) {
    if tree.kind(node) != Kind::Map {
        return;
    }
    let text = |key: &str| {
        tree.get(node, key)
            .and_then(|n| tree.as_str(n))
            .unwrap_or("")
            .to_string()
    };
    let api_version = text("apiVersion");
    let kind = text("kind");
    if api_version.is_empty() || kind.is_empty() {
        return;
    }
    if kind == "List" || kind.ends_with("List") && tree.get(node, "items").is_some() {
        if depth > 0 {
            return;
        }
        if let Some(items) = tree
            .get(node, "items")
            .filter(|&n| tree.kind(n) == Kind::Seq)
        {
            for &item in tree.items(items) {
                push_object(doc, tree, item, out, depth + 1);
            }
        }
        return;
    }
    let meta = tree.get(node, "metadata");
    let meta_text = |key: &str| {
        meta.and_then(|m| tree.get(m, key))
            .and_then(|n| tree.as_str(n))
            .unwrap_or("")
            .to_string()
    };
    out.push(KubeObject {
        doc: doc.clone(),
        node,
        api_version,
        name: meta_text("name"),
        namespace: meta_text("namespace"),
        kind,
    });
}
