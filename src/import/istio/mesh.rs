//! The mesh-wide `MeshConfig.defaultHttpRetryPolicy`, which replaces Istio's built-in
//! default for every VirtualService route without `retries` (since Istio 1.12;
//! `defaultHttpRetryPolicy: {}` means attempts 0, i.e. no retries at all), read from
//! any of the three places a run may hold it: a bare mesh config file (the key at its
//! top), the `istio` ConfigMap's `mesh` key (a YAML text inside a string), and an
//! `IstioOperator`'s `spec.meshConfig`. Sources: retry-configs.md §1 fact 2, §2.1;
//! istio/api `mesh/v1alpha1/config.proto` field 62; istio/istio `route.go`
//! (`policy = opts.Mesh.GetDefaultHttpRetryPolicy()`).

use super::super::rl017_ineffective_setting as rl017;
use super::super::stream::KubeObject;
use super::retry::{self, HttpRetry, Src};
use crate::diagnostic::Diagnostic;
use crate::source::loader::Loaded;
use crate::source::refs::At;
use crate::source::tree::{Kind, NodeId, Tree};
use std::sync::Arc;

const KEY: &str = "defaultHttpRetryPolicy";

/// The mesh default of a run, or `None` when no mesh config sets it. The first one
/// found wins; each other one is RL017 (two mesh configs disagree about which applies).
pub fn find(
    objects: &[KubeObject],
    docs: &[Arc<Loaded>],
    diags: &mut Vec<Diagnostic>,
) -> Option<HttpRetry> {
    let mut found: Vec<HttpRetry> = Vec::new();
    // Bare mesh config files: no apiVersion/kind, the key at the top.
    for doc in docs {
        let Ok(tree) = &doc.tree else { continue };
        let Some(root) = tree.root() else { continue };
        if tree.kind(root) != Kind::Map || tree.get(root, "apiVersion").is_some() {
            continue;
        }
        if let Some(p) = policy_node(tree, root) {
            found.push(retry::read(
                Src::Doc(doc),
                p,
                "Istio `defaultHttpRetryPolicy`",
                diags,
            ));
            per_try_timeout_ignored(Src::Doc(doc), p, diags);
        }
    }
    for o in objects {
        let Ok(tree) = &o.doc.tree else { continue };
        match o.kind.as_str() {
            "IstioOperator" => {
                let Some(p) = tree
                    .get(o.node, "spec")
                    .and_then(|s| tree.get(s, "meshConfig"))
                    .and_then(|m| policy_node(tree, m))
                else {
                    continue;
                };
                found.push(retry::read(
                    Src::Doc(&o.doc),
                    p,
                    "Istio `defaultHttpRetryPolicy`",
                    diags,
                ));
                per_try_timeout_ignored(Src::Doc(&o.doc), p, diags);
            }
            "ConfigMap" if o.group().is_empty() && is_istio_config_map(&o.name) => {
                let Some(mesh) = tree.get(o.node, "data").and_then(|d| tree.get(d, "mesh")) else {
                    continue;
                };
                let Some(text) = tree.as_str(mesh) else {
                    continue;
                };
                let host = At::new(&o.doc, mesh);
                let inner = match Tree::parse(Arc::from(text)) {
                    Ok(t) => t,
                    Err(e) => {
                        diags.push(rl017::diagnostic(
                            &host,
                            format!("the `mesh` key of ConfigMap `{}` is not valid YAML: {}", o.name, e.message),
                            "invalid mesh config",
                            "Istio cannot read this mesh config, so its `defaultHttpRetryPolicy` is not applied; fix the YAML inside the string.".into(),
                        ));
                        continue;
                    }
                };
                let Some(root) = inner.root().filter(|&r| inner.kind(r) == Kind::Map) else {
                    continue;
                };
                if let Some(p) = policy_node(&inner, root) {
                    let src = Src::Embedded {
                        tree: &inner,
                        host: &host,
                    };
                    found.push(retry::read(src, p, "Istio `defaultHttpRetryPolicy`", diags));
                    per_try_timeout_ignored(src, p, diags);
                }
            }
            _ => {}
        }
    }
    let mut found = found.into_iter();
    let first = found.next()?;
    for other in found {
        let lc = first.at.doc.file.line_col(first.at.location().span.start);
        diags.push(rl017::diagnostic(
            &other.at,
            "a second mesh config sets `defaultHttpRetryPolicy`".into(),
            "another mesh default",
            format!(
                "retrylint applies the one at {}:{} to every VirtualService route without `retries`; a mesh has one mesh config, so keep one of them in the run (or `exclude` the other in .retrylint.yaml).",
                first.at.doc.file.display, lc.line
            ),
        ));
    }
    Some(first)
}

/// `defaultHttpRetryPolicy` of a mesh config mapping, unless it is null (a null
/// message field is an absent one).
fn policy_node(tree: &Tree, mesh: NodeId) -> Option<NodeId> {
    tree.get(mesh, KEY).filter(|&p| tree.kind(p) != Kind::Null)
}

/// `istio`, or a revision's `istio-<revision>`.
fn is_istio_config_map(name: &str) -> bool {
    name == "istio" || name.starts_with("istio-") && !name.contains("sidecar")
}

/// RL017 for `perTryTimeout` in the mesh default: it cannot be set globally.
fn per_try_timeout_ignored(src: Src<'_>, policy: NodeId, diags: &mut Vec<Diagnostic>) {
    let Some(tree) = src.tree() else { return };
    if let Some((k, _)) = tree.get_entry(policy, "perTryTimeout") {
        diags.push(rl017::diagnostic(
            &src.at(k),
            "`perTryTimeout` in the mesh-wide `defaultHttpRetryPolicy` is ignored".into(),
            "ignored",
            "Istio does not apply a per-try timeout globally (retry-configs.md §2.1): set `perTryTimeout` in each VirtualService route's `retries` instead.".into(),
        ));
    }
}
