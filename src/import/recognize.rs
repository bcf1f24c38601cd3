//! Recognising retry configs: by content for YAML and JSON (Kubernetes `apiVersion` +
//! `kind`, Envoy's top-level keys, Kong's `_format_version`, Traefik's dynamic
//! `http.middlewares`, an Istio mesh config's `defaultHttpRetryPolicy`), by name and
//! content for the formats that are not YAML (nginx, HAProxy, Traefik TOML);
//! `layers.md` "Recognising files".

use crate::source::loader::Loaded;
use crate::source::tree::{Kind, Tree};
use std::path::Path;

/// A config format retrylint reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// A YAML stream of Kubernetes objects (Istio, Gateway API, Envoy Gateway,
    /// Linkerd, Ingress, ConfigMaps, `IstioOperator`), read object by object.
    Kubernetes,
    /// An Istio mesh config file (`defaultHttpRetryPolicy` at the top).
    IstioMeshConfig,
    /// Envoy: a bootstrap, a route configuration, a listener or a config dump.
    Envoy,
    /// Kong declarative configuration (`_format_version`).
    Kong,
    /// Traefik dynamic configuration in YAML (`http.middlewares`).
    TraefikYaml,
    /// Traefik configuration in TOML.
    TraefikToml,
    /// nginx configuration.
    Nginx,
    /// HAProxy configuration.
    Haproxy,
    /// A gRPC service config (`methodConfig`, gRFC A6), standalone or inside a
    /// client config.
    GrpcServiceConfig,
    /// A Spring `application*.yml`/`.properties` (Resilience4j, Spring Cloud Gateway).
    Spring,
    /// An AWS shared config file (`[default]`, `[profile NAME]`).
    AwsConfig,
    /// Application source code that may build a retry client (`crate::import::code`),
    /// recognised by extension and a text pre-check.
    Code(super::code::Language),
}

/// Envoy's top-level keys, in both spellings.
const ENVOY_KEYS: &[&str] = &[
    "static_resources",
    "staticResources",
    "dynamic_resources",
    "dynamicResources",
    "virtual_hosts",
    "virtualHosts",
    "filter_chains",
    "filterChains",
    "route_config",
    "routeConfig",
];

/// The format of a loaded file, or `None` when it is no retry config. YAML/JSON
/// files are judged by their first document's top-level keys; other files by name
/// (`nginx.conf`, `*.conf`, `haproxy.cfg`, `*.cfg`, `*.toml`) and a look at their text.
pub fn recognize(doc: &Loaded) -> Option<Format> {
    let path = &doc.file.path;
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("properties"))
    {
        // Java properties: Spring's `application*.properties`, or any naming
        // `resilience4j.retry` / `spring.cloud.gateway`.
        return super::spring::source::recognize(doc).then_some(Format::Spring);
    }
    if let Some(format) = by_name(path, &doc.file.text) {
        return Some(format);
    }
    let tree = doc.tree.as_ref().ok()?;
    match by_content(tree) {
        // A manifest stream is a retry config only when it holds an object or
        // annotation retrylint reads (a Deployment alone is not).
        Some(Format::Kubernetes) if !KUBE_MARKERS.iter().any(|m| doc.file.text.contains(m)) => None,
        Some(format) => Some(format),
        // Spring `application*.yml` (by name) or any YAML setting
        // `resilience4j.retry` / `spring.cloud.gateway` (never a manifest or a spec).
        None => super::spring::source::recognize(doc).then_some(Format::Spring),
    }
}

/// Text that a Kubernetes stream holding something the importers read contains: the
/// kinds, annotations and ConfigMap keys of `layers.md` "Recognising files".
const KUBE_MARKERS: &[&str] = &[
    "VirtualService",
    "DestinationRule",
    "IstioOperator",
    "defaultHttpRetryPolicy",
    "HTTPRoute",
    "GRPCRoute",
    "BackendTrafficPolicy",
    "ServiceProfile",
    "retry.linkerd.io/",
    "timeout.linkerd.io/",
    "proxy-next-upstream",
    "retry-non-idempotent",
];

fn by_content(tree: &Tree) -> Option<Format> {
    let root = tree.root()?;
    // A gRPC service config: a top-level `methodConfig`, gRFC A2 choices, or a
    // client config holding one (`serviceConfig`, `defaultServiceConfig`).
    if super::grpc::looks_like(tree) {
        return Some(Format::GrpcServiceConfig);
    }
    if tree.kind(root) == Kind::Seq {
        // A list of Envoy route configurations or listeners (Envoy Gateway goldens).
        let envoy_item =
            |&i: &crate::source::tree::NodeId| ENVOY_KEYS.iter().any(|k| tree.get(i, k).is_some());
        return tree
            .items(root)
            .iter()
            .any(envoy_item)
            .then_some(Format::Envoy);
    }
    if tree.kind(root) != Kind::Map {
        return None;
    }
    let has = |k: &str| tree.get(root, k).is_some();
    if has("apiVersion") && has("kind") {
        return Some(Format::Kubernetes);
    }
    if has("_format_version") {
        return Some(Format::Kong);
    }
    if ENVOY_KEYS.iter().any(|k| has(k)) {
        return Some(Format::Envoy);
    }
    if let Some(configs) = tree.get(root, "configs") {
        // An Envoy config dump: `configs: [{"@type": "...ConfigDump"}]`.
        if tree.kind(configs) == Kind::Seq
            && tree
                .items(configs)
                .iter()
                .any(|&c| tree.get(c, "@type").is_some())
        {
            return Some(Format::Envoy);
        }
    }
    if let Some(resources) = tree.get(root, "resources") {
        // Envoy xDS resources (Kuma and Envoy Gateway goldens): items with `@type`,
        // or named listeners and route configurations.
        if tree.kind(resources) == Kind::Seq
            && tree.items(resources).iter().any(|&r| {
                tree.get(r, "@type").is_some()
                    || tree.get(r, "resource").is_some()
                    || ENVOY_KEYS.iter().any(|k| tree.get(r, k).is_some())
            })
        {
            return Some(Format::Envoy);
        }
    }
    if has("address") && (has("filter_chains") || has("filterChains") || has("name")) {
        return Some(Format::Envoy);
    }
    if has("defaultHttpRetryPolicy") {
        return Some(Format::IstioMeshConfig);
    }
    if let Some(http) = tree.get(root, "http") {
        if tree.kind(http) == Kind::Map
            && (tree.get(http, "middlewares").is_some() || tree.get(http, "routers").is_some())
        {
            return Some(Format::TraefikYaml);
        }
    }
    None
}

fn by_name(path: &Path, text: &str) -> Option<Format> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    let ext = name.rsplit('.').next().unwrap_or("");
    match ext {
        "toml" => {
            (text.contains("[http.") || text.contains("[http]")).then_some(Format::TraefikToml)
        }
        "cfg" => looks_like_haproxy(text).then_some(Format::Haproxy),
        // A file named `config`: an AWS shared config (never `.git/config`).
        "config" => super::aws::recognizes(path, text).then_some(Format::AwsConfig),
        "conf" => {
            if name.starts_with("haproxy") && looks_like_haproxy(text) {
                Some(Format::Haproxy)
            } else if looks_like_nginx(text, path) {
                Some(Format::Nginx)
            } else {
                None
            }
        }
        _ => None,
    }
}

fn looks_like_haproxy(text: &str) -> bool {
    text.lines().any(|l| {
        let t = l.trim_start();
        l.len() == t.len()
            && ["backend ", "frontend ", "listen ", "defaults"]
                .iter()
                .any(|k| t.starts_with(k))
    })
}

fn looks_like_nginx(text: &str, path: &Path) -> bool {
    let in_nginx_folder = path
        .components()
        .any(|c| c.as_os_str().to_string_lossy().contains("nginx"));
    let name_is_nginx = path.file_name().is_some_and(|n| {
        n.to_string_lossy()
            .to_ascii_lowercase()
            .starts_with("nginx")
    });
    (name_is_nginx || in_nginx_folder || text.contains("proxy_pass"))
        && text.contains('{')
        && (text.contains("server") || text.contains("location") || text.contains("upstream"))
}

/// True when text that did not parse looks like a retry config retrylint reads (a
/// Kubernetes manifest holding one of its kinds or annotations, Kong's
/// `_format_version`, Envoy's `static_resources`), so that a syntax error in it is
/// reported rather than skipped. A template (`{{ }}`) is not: it is no config until
/// it is rendered.
pub fn looks_like_config_text(text: &str) -> bool {
    if text.contains("{{") {
        return false;
    }
    (text.contains("apiVersion") && KUBE_MARKERS.iter().any(|m| text.contains(m)))
        || text.contains("_format_version")
        || text.contains("static_resources")
        || text.contains("\"methodConfig\"")
        || super::spring::source::looks_like_spring_text(text)
}
