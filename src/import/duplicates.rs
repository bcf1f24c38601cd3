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
    let docs = stream::documents(doc).unwrap_or_default();
    let mut out = in_documents(&docs, effect);
    if format == Format::TraefikYaml {
        out.extend(docs.iter().flat_map(case_variants));
    }
    out
}

/// What Traefik does with two keys of one mapping that differ only in case.
pub const TRAEFIK_CASE: &str = "Traefik matches the keys of its dynamic configuration without regard to case, so both name one field and one value is thrown away; retrylint reads the last.";

/// RL002 for keys of one mapping that are equal ignoring ASCII case but written
/// differently (`attempts`, then `Attempts`): Traefik's file provider reads them as
/// one field (paerser matches field names case-insensitively). Keys repeated exactly
/// are the tree's own duplicates, reported by [`in_documents`]. Maps of names
/// (routers, middlewares, services, transports, header names) are left alone.
fn case_variants(doc: &Arc<Loaded>) -> Vec<Diagnostic> {
    use crate::source::tree::Kind;
    let Ok(tree) = &doc.tree else {
        return Vec::new();
    };
    // Maps whose keys are names, not fields (routers, middlewares, services and
    // transports by name; header names): their keys are not matched to fields.
    let names_map = |map| {
        tree.key_of(map)
            .and_then(|k| tree.scalar(k))
            .map(str::to_ascii_lowercase)
            .is_some_and(|k| {
                matches!(
                    k.as_str(),
                    "routers" | "middlewares" | "services" | "serverstransports"
                ) || k.contains("headers")
            })
    };
    let mut out = Vec::new();
    for map in tree
        .all_nodes()
        .filter(|&n| tree.kind(n) == Kind::Map && !names_map(n))
    {
        let mut seen: std::collections::HashMap<String, crate::source::tree::NodeId> =
            std::collections::HashMap::new();
        for &(key, _) in tree.raw_entries(map) {
            let Some(text) = tree.scalar(key) else {
                continue;
            };
            match seen.get(&text.to_ascii_lowercase()) {
                Some(&first) if tree.scalar(first) != Some(text) => {
                    out.push(rl002_duplicate_key::repeated(
                        &doc.file,
                        text,
                        tree.span(first),
                        tree.span(key),
                        TRAEFIK_CASE,
                    ));
                }
                Some(_) => {}
                None => {
                    seen.insert(text.to_ascii_lowercase(), key);
                }
            }
        }
    }
    out
}

/// RL002 for every repeated key of each of `docs` (the documents of one stream),
/// the message ending with `effect`.
pub fn in_documents(docs: &[Arc<Loaded>], effect: &str) -> Vec<Diagnostic> {
    docs.iter()
        .flat_map(|d| rl002_duplicate_key::check_config(d, effect))
        .collect()
}
