//! Kubernetes Gateway API `HTTPRoute`/`GRPCRoute` `rules[].retry` and `timeouts` (GEP-1731, `retry-configs.md` §4), and Envoy Gateway `BackendTrafficPolicy.spec.retry` with its target references.

use super::stream::KubeObject;
use super::{ImportContext, Imported};

/// Reads the objects of this platform among `objects` (every Kubernetes object of
/// the run, so references between objects and files resolve).
pub fn import(objects: &[KubeObject], ctx: &ImportContext<'_>) -> Imported {
    let _ = (objects, ctx);
    Imported::default()
}
