//! Istio `DestinationRule` `spec.trafficPolicy.connectionPool.http.maxRetries`: the
//! most retries in flight at once to the rule's `host` (Envoy's circuit-breaker
//! `max_retries`), a concurrency budget on every route whose destination is that host
//! (layers.md "What the model gains"; retry-configs.md §12; istio/api
//! `networking/v1alpha3/destination_rule.proto` `ConnectionPoolSettings.HTTPSettings`).

use super::super::rl017_ineffective_setting as rl017;
use super::super::stream::KubeObject;
use crate::diagnostic::Diagnostic;
use crate::policy::model::{RetryBudget, Spanned};
use crate::source::refs::At;

/// One `maxRetries` of a DestinationRule.
#[derive(Debug, Clone)]
pub struct HostBudget {
    /// `spec.host` (a short name, an FQDN, or a `*.` wildcard).
    pub host: String,
    /// The rule's namespace (empty when not written).
    pub namespace: String,
    /// `maxRetries` at its node.
    pub budget: Spanned<RetryBudget>,
}

/// The `maxRetries` of every DestinationRule among `objects`; RL017 for a value that
/// is not a whole number >= 0.
pub fn read(objects: &[KubeObject], diags: &mut Vec<Diagnostic>) -> Vec<HostBudget> {
    let mut out = Vec::new();
    for o in objects {
        if o.kind != "DestinationRule" || o.group() != "networking.istio.io" {
            continue;
        }
        let Ok(tree) = &o.doc.tree else { continue };
        let Some(spec) = tree.get(o.node, "spec") else {
            continue;
        };
        let Some(host) = tree.get(spec, "host").and_then(|h| tree.scalar(h)) else {
            continue;
        };
        let Some(n) = tree
            .get(spec, "trafficPolicy")
            .and_then(|t| tree.get(t, "connectionPool"))
            .and_then(|c| tree.get(c, "http"))
            .and_then(|h| tree.get(h, "maxRetries"))
        else {
            continue;
        };
        let at = At::new(&o.doc, n);
        match tree.as_i64(n).and_then(|v| u64::try_from(v).ok()) {
            Some(v) => out.push(HostBudget {
                host: host.to_string(),
                namespace: o.namespace.clone(),
                budget: Spanned {
                    value: RetryBudget::Concurrency {
                        max_concurrent_retries: v,
                    },
                    at,
                },
            }),
            None => diags.push(rl017::diagnostic(
                &at,
                "`maxRetries` is not a whole number >= 0".into(),
                "invalid maxRetries",
                "`maxRetries` is the most retries in flight at once to the host; Istio's validation rejects this value.".into(),
            )),
        }
    }
    out
}

/// `host` as a fully qualified cluster name when it can be (`reviews` in namespace
/// `prod` is `reviews.prod.svc.cluster.local`; `reviews.prod` likewise).
fn fqdn(host: &str, namespace: &str) -> Option<String> {
    match host.matches('.').count() {
        0 if !namespace.is_empty() => Some(format!("{host}.{namespace}.svc.cluster.local")),
        0 => None,
        1 => Some(format!("{host}.svc.cluster.local")),
        _ => Some(host.to_string()),
    }
}

/// True when the route destination `dest` (written in namespace `dest_ns`) is the
/// DestinationRule host `rule_host` (written in `rule_ns`): Istio resolves short
/// names in the namespace of the object that writes them; a `*.` host matches by
/// suffix. Without namespaces, short names compare by their first label.
pub fn host_matches(dest: &str, dest_ns: &str, rule_host: &str, rule_ns: &str) -> bool {
    let d = fqdn(dest, dest_ns);
    if let Some(suffix) = rule_host.strip_prefix('*') {
        return rule_host == "*"
            || d.as_deref().unwrap_or(dest).ends_with(suffix)
            || dest.ends_with(suffix);
    }
    match (d, fqdn(rule_host, rule_ns)) {
        (Some(a), Some(b)) => a == b,
        _ => dest.split('.').next() == rule_host.split('.').next(),
    }
}

/// The smallest budget among `budgets` that applies to any of `destinations`.
pub fn for_destinations(
    budgets: &[HostBudget],
    destinations: &[String],
    namespace: &str,
) -> Option<Spanned<RetryBudget>> {
    budgets
        .iter()
        .filter(|b| {
            destinations
                .iter()
                .any(|d| host_matches(d, namespace, &b.host, &b.namespace))
        })
        .min_by_key(|b| match b.budget.value {
            RetryBudget::Concurrency {
                max_concurrent_retries,
            } => max_concurrent_retries,
            _ => u64::MAX,
        })
        .map(|b| b.budget.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_resolve_in_their_namespace() {
        assert!(host_matches(
            "reviews",
            "prod",
            "reviews.prod.svc.cluster.local",
            ""
        ));
        assert!(!host_matches(
            "reviews",
            "dev",
            "reviews.prod.svc.cluster.local",
            ""
        ));
        assert!(host_matches("reviews", "", "reviews", ""));
        assert!(host_matches(
            "reviews.prod.svc.cluster.local",
            "",
            "*.prod.svc.cluster.local",
            ""
        ));
        assert!(!host_matches("ratings", "prod", "reviews", "prod"));
    }
}
