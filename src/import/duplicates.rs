//! RL002 duplicate-key in retry configs, as for specs and policies: a repeated key
//! silently throws one value away, and which one depends on the reader (the
//! Kubernetes API server rejects duplicate fields under strict field validation,
//! protobuf JSON parsing rejects a repeated field name, most YAML readers keep the
//! last). The importers read the last occurrence, as the model of a spec does.
//!
//! Formats read into a located tree from YAML or JSON get their duplicates from the
//! tree ([`crate::source::tree::Tree::duplicates`]), every document of a stream on
//! its own. Spring files (YAML and Java properties) and the formats read by text
//! find their own repeats where they read them (`spring::source`, TOML in
//! `traefik`, INI in `aws`, directives in `haproxy` and `nginx`), using
//! [`crate::source::rl002_duplicate_key`].

use super::stream;
use super::Format;
use crate::diagnostic::Diagnostic;
use crate::source::loader::Loaded;
use crate::source::rl002_duplicate_key;
use std::sync::Arc;

/// What Kubernetes does with a repeated field (the end of the RL002 message).
pub const KUBERNETES: &str = "the Kubernetes API server rejects it under strict field validation (`kubectl apply --validate=strict`) and otherwise keeps one of them; retrylint reads the last.";

/// What a protobuf JSON reader (gRPC service configs, Envoy) does with a repeated
/// field name.
pub const PROTOBUF_JSON: &str = "protobuf JSON parsing rejects a repeated field name, so the platform may refuse the whole config; retrylint reads the last.";

/// What other YAML and JSON readers do.
pub const OTHER: &str = "which copy is used differs between readers (most keep the last, some keep the first or reject the file); retrylint reads the last.";

/// RL002 for every repeated key of a recognised config file read from YAML or JSON,
/// each document of a stream on its own; nothing for Kubernetes streams (checked
/// with [`in_documents`] where they are split), for Spring files and the formats
/// read by text (their importers report their own, as they read the file) and for a
/// file that does not parse (RL001 is the importer's).
pub fn check(doc: &Arc<Loaded>, format: Format) -> Vec<Diagnostic> {
    let effect = match format {
        // Split into documents by the caller, which checks each: the stream is
        // parsed once.
        Format::Kubernetes | Format::IstioMeshConfig => return Vec::new(),
        Format::Envoy | Format::GrpcServiceConfig => PROTOBUF_JSON,
        Format::Kong | Format::TraefikYaml => OTHER,
        // Read once by its importer, which reports its repeats (YAML and
        // properties alike: `spring::source::read`).
        Format::Spring
        | Format::TraefikToml
        | Format::Nginx
        | Format::Haproxy
        | Format::AwsConfig
        | Format::Code(_) => return Vec::new(),
    };
    in_documents(&stream::documents(doc).unwrap_or_default(), effect)
}

/// RL002 for every repeated key of each of `docs` (the documents of one stream),
/// the message ending with `effect`.
pub fn in_documents(docs: &[Arc<Loaded>], effect: &str) -> Vec<Diagnostic> {
    docs.iter()
        .flat_map(|d| rl002_duplicate_key::check_config(d, effect))
        .collect()
}
