//! Linkerd: `retry.linkerd.io/*` and `timeout.linkerd.io/*` annotations on `HTTPRoute`/`GRPCRoute`/`Service`, and `ServiceProfile` routes (`retry-configs.md` §5).

use super::stream::KubeObject;
use super::{ImportContext, Imported};

/// Reads the objects of this platform among `objects` (every Kubernetes object of
/// the run, so references between objects and files resolve).
pub fn import(objects: &[KubeObject], ctx: &ImportContext<'_>) -> Imported {
    let _ = (objects, ctx);
    Imported::default()
}
