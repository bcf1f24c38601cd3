//! Linkerd: `retry.linkerd.io/*` and `timeout.linkerd.io/*` annotations on
//! `HTTPRoute`/`GRPCRoute`/`Service` ([`annotations`], Linkerd 2.16+), and
//! `ServiceProfile` routes ([`service_profile`]) (`retry-configs.md` §5), and the
//! `x-linkerd-retryable`/`x-linkerd-timeout` OpenAPI extensions that
//! `linkerd profile --open-api` turns into `ServiceProfile` routes ([`openapi_ext`],
//! read from the specs at binding). All are the `mesh` layer: Linkerd's proxy
//! retries on the client side of the mesh.

pub mod annotations;
pub mod openapi_ext;
pub mod service_profile;

use super::stream::KubeObject;
use super::{ImportContext, Imported};

/// Reads the objects of this platform among `objects` (every Kubernetes object of
/// the run, so references between objects and files resolve).
pub fn import(objects: &[KubeObject], ctx: &ImportContext<'_>) -> Imported {
    let _ = ctx;
    let mut out = annotations::import(objects);
    out.extend(service_profile::import(objects));
    out
}

#[cfg(test)]
mod tests;
