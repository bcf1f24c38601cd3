//! NGINX `proxy_next_upstream*` per `location` (a located reader of nginx syntax), and ingress-nginx `Ingress` annotations and controller ConfigMap (`retry-configs.md` §8).

use super::stream::KubeObject;
use super::{ImportContext, Imported};
use crate::source::loader::Loaded;
use std::sync::Arc;

/// Reads one file of this platform.
pub fn import(doc: &Arc<Loaded>, ctx: &ImportContext<'_>) -> Imported {
    let _ = (doc, ctx);
    Imported::default()
}

/// ingress-nginx: `Ingress` objects with `nginx.ingress.kubernetes.io/proxy-next-upstream*`
/// annotations and the controller ConfigMap (`proxy-next-upstream`,
/// `retry-non-idempotent`), among every Kubernetes object of the run.
pub fn import_ingress(objects: &[KubeObject], ctx: &ImportContext<'_>) -> Imported {
    let _ = (objects, ctx);
    Imported::default()
}
