//! Istio: `VirtualService` (`networking.istio.io` v1, v1beta1, v1alpha3) routes and their `retries`/`timeout`, the implicit default retry policy when `retries` is absent (by version, `retry-configs.md` §2.2), `MeshConfig.defaultHttpRetryPolicy` (mesh config file, the `istio` ConfigMap's `mesh` key, `IstioOperator` `spec.meshConfig`), and `DestinationRule` `connectionPool.http.maxRetries` (a concurrency budget).

use super::stream::KubeObject;
use super::{ImportContext, Imported};
use crate::source::loader::Loaded;
use std::sync::Arc;

/// Reads the objects of this platform among `objects` (every Kubernetes object of
/// the run, so references between objects and files resolve).
pub fn import(objects: &[KubeObject], ctx: &ImportContext<'_>) -> Imported {
    let _ = (objects, ctx);
    Imported::default()
}

/// [`import`], with the documents of the run's files so that a bare mesh config file
/// (`defaultHttpRetryPolicy` at its top, no `apiVersion`) is found too.
pub fn import_with_mesh_files(
    objects: &[KubeObject],
    docs: &[Arc<Loaded>],
    ctx: &ImportContext<'_>,
) -> Imported {
    let _ = docs;
    import(objects, ctx)
}
