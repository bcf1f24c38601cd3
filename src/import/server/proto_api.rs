//! A `.proto` service as an API by itself (issue 41): when no document of the run
//! describes a gRPC service, its RPCs are its operations, each `POST
//! /package.Service/Method` (the path gRPC sends every call to, over HTTP/2; the
//! gRPC wire protocol, "Requests"), so a gRPC service config or a mesh route that
//! names the service binds without an OpenAPI document. What the RPC says of
//! itself (`idempotency_level`, the AIP method kind of its name, an AIP-155
//! `request_id`) is read by the binding as it is for a spec's native-path
//! operations ([`crate::import::grpc::operation_semantics`]), so a `GetCart` is
//! safe and a `PlaceOrder` is a write.
//!
//! A service is read only when none of its RPCs has a `google.api.http` rule (those
//! are transcoded to the HTTP operations a spec describes, and bind through it) and
//! no document of the run has an operation under its native path. The document is
//! built by the server-code builder ([`super::document::document`]), served at
//! `http://package.Service`; findings on its operations point at the RPC's name in
//! the `.proto`.

use super::document;
use super::route::ServerRoute;
use crate::import::proto::ProtoIndex;
use crate::openapi::model::Document;
use crate::source::loader::Loaded;
use crate::source::refs::Resolver;
use std::sync::Arc;

/// The documents of the gRPC services of `protos` that no document of `specs`
/// describes, one per service (from the first file that declares it), in file and
/// service order.
pub fn documents(
    protos: &ProtoIndex,
    resolver: &Resolver<'_>,
    specs: &[Document],
) -> Vec<Document> {
    // (file, service) -> its RPCs, in first-seen order.
    let mut groups: Vec<(Arc<Loaded>, &str, Vec<ServerRoute>, bool)> = Vec::new();
    for rpc in &protos.rpcs {
        let doc = &rpc.at.doc;
        let index = match groups
            .iter()
            .position(|(d, s, _, _)| Arc::ptr_eq(d, doc) && *s == rpc.service)
        {
            Some(i) => i,
            None => {
                groups.push((doc.clone(), &rpc.service, Vec::new(), false));
                groups.len() - 1
            }
        };
        let group = &mut groups[index];
        group.3 |= !rpc.http.is_empty();
        group.2.push(ServerRoute {
            method: "post".to_string(),
            path: format!("/{}/{}", rpc.service, rpc.method),
            at: rpc.at.location().span,
            required_headers: Vec::new(),
        });
    }
    // One API per service: a `.proto` copied beside its client (eShop keeps the
    // basket service's in the server and in the app) describes the same service.
    let mut seen: Vec<&str> = Vec::new();
    groups.retain(|(_, service, _, _)| {
        let first = !seen.contains(service);
        seen.push(service);
        first
    });
    groups
        .into_iter()
        .filter(|(_, service, _, transcoded)| !transcoded && !described(service, specs))
        .filter_map(|(doc, service, routes, _)| {
            document::document(resolver, &doc, service, &routes)
        })
        .collect()
}

/// True when a document of `specs` has an operation under the service's native
/// path (`/package.Service/...`).
fn described(service: &str, specs: &[Document]) -> bool {
    let prefix = format!("/{service}/");
    specs
        .iter()
        .any(|d| d.operations.iter().any(|o| o.path.starts_with(&prefix)))
}
