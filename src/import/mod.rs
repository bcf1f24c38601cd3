//! Importers of the retry configurations that run: Istio, Envoy, Gateway API,
//! Linkerd, NGINX, HAProxy, Traefik, Kong, gRPC service configs, Spring, AWS and
//! retries in application code, each read into the same policy model as a layer with
//! its origin (file and JSON Pointer of every field).
//!
//! One module per platform, each with one entry point (a located tree and its file
//! in, layers out) and its own fixtures; mechanics they share (route matching,
//! durations, located readers) live here, below them, once. Importers sit beside
//! [`crate::openapi`] and [`crate::policy`], below the join: they may use
//! `diagnostic`, `source`, `retry`, `openapi` and `policy`, and nothing above.
//! Empty until the first importer lands.
