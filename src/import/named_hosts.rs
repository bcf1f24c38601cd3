//! The hosts a config object names explicitly (`layers.md` "Binding a config to
//! operations" 1, exact binding): the names that say "this route or client reaches
//! that host", as opposed to names that only identify the object (a Spring Cloud
//! Gateway route `id`, a client variable). An object that names a host other than a
//! spec's is never bound to that spec because it is the only one in the run.

use super::{ConfigObject, Platform};
use crate::policy::model::Spanned;

/// The names of `o` that are hosts it reaches, written by the user: Istio
/// VirtualService `hosts` and destination hosts, Gateway API and ingress-nginx
/// hostnames, a Spring Cloud Gateway route's `Host=` patterns and `uri` host (not its
/// `id`), and the host of an absolute URL a client in code calls. The bare wildcard
/// `*` names no host. Other platforms' names (Envoy clusters, NGINX upstreams,
/// Resilience4j instances, AWS profiles, gRPC services) are not read as hosts: they
/// are empty here, so those objects keep the lone-spec fallback.
pub fn named_hosts(o: &ConfigObject) -> Vec<&Spanned<String>> {
    let host_like = |n: &&Spanned<String>| {
        let v = n.value.trim();
        !v.is_empty() && v != "*"
    };
    match o.platform {
        Platform::Istio | Platform::GatewayApi | Platform::IngressNginx => {
            o.names.iter().filter(host_like).collect()
        }
        Platform::SpringCloudGateway => {
            // The route's `id` is a name (`services[].names` may bind by it), not a
            // host: it is the name whose node is the route's `id` value.
            let id_node =
                o.at.doc
                    .tree
                    .as_ref()
                    .ok()
                    .and_then(|t| t.get(o.at.node, "id"));
            o.names
                .iter()
                .filter(host_like)
                .filter(|n| Some(n.at.node) != id_node)
                .collect()
        }
        p if p.is_code() => {
            // A call's host is a name located at the call (`lower::lower`); the
            // client's own names (its variable, its kind) are located elsewhere.
            o.names
                .iter()
                .filter(host_like)
                .filter(|n| o.routes.iter().any(|r| r.at.same_node(&n.at)))
                .collect()
        }
        _ => Vec::new(),
    }
}

/// True when `host` (lower case, no port) is outside any cluster: a dotted DNS name
/// that is not a Kubernetes service form (`svc.ns`, `*.svc`, `*.svc.cluster.local`)
/// nor a `.local` name. `www.googleapis.com` is; `productpage`, `orders.shop`,
/// `orders.shop.svc.cluster.local` are not.
pub fn is_external(host: &str) -> bool {
    let host = host.trim().to_ascii_lowercase();
    let host = host.strip_prefix("*.").unwrap_or(&host);
    let labels: Vec<&str> = host.split('.').collect();
    if labels.len() < 2 || host.ends_with(".local") || labels.contains(&"svc") {
        return false;
    }
    // `svc.ns`: two labels, the second no top-level domain. A real domain of two
    // labels (`example.com`) has a TLD of letters that a namespace rarely equals;
    // treat the common TLDs as external, any other two-label name as `svc.ns`.
    if labels.len() == 2 {
        const TLDS: &[&str] = &[
            "com", "org", "net", "io", "dev", "app", "cloud", "ai", "co", "gov", "edu", "info",
            "biz", "me", "us", "uk", "de", "fr", "eu",
        ];
        return TLDS.contains(&labels[1]);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::is_external;

    #[test]
    fn cluster_names_are_not_external() {
        assert!(is_external("www.googleapis.com"));
        assert!(is_external("example.com"));
        assert!(is_external("*.example.org"));
        assert!(is_external("api.internal.example"));
        assert!(!is_external("productpage"));
        assert!(!is_external("orders.shop"));
        assert!(!is_external("orders.shop.svc.cluster.local"));
        assert!(!is_external("orders.shop.svc"));
        assert!(!is_external("printer.local"));
    }
}
