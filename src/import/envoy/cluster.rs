//! An Envoy cluster's retry budget (ENV-CB `CircuitBreakers.Thresholds`, priority
//! `DEFAULT`; retry-configs.md §3.1; policy-format.md "Retry budgets"): a
//! `retry_budget` (`budget_percent` default 20 %, `min_retry_concurrency` default 3)
//! replaces `max_retries` (concurrent retries, default 3).

use super::proto;
use crate::import::OriginNote;
use crate::policy::model::{RetryBudget, Spanned};
use crate::source::loader::Loaded;
use crate::source::refs::At;
use crate::source::tree::{NodeId, Tree};
use std::sync::Arc;

/// Default `max_retries` (ENV-CB).
pub const DEFAULT_MAX_RETRIES: u64 = 3;

/// A cluster's name and the budget every route targeting it gets, with the note on
/// the Envoy defaults it uses.
pub fn budget(
    doc: &Arc<Loaded>,
    tree: &Tree,
    cluster: NodeId,
) -> Option<(String, Spanned<RetryBudget>, Option<OriginNote>)> {
    let name = proto::field_text(tree, cluster, "name")?.to_string();
    let at = |n: NodeId| At::new(doc, n);
    let cb = proto::map(tree, cluster, "circuit_breakers");
    let threshold = cb.and_then(|cb| {
        proto::items(tree, cb, "thresholds")
            .iter()
            .copied()
            .find(|&t| {
                proto::get(tree, t, "priority")
                    .and_then(|p| proto::text(tree, p))
                    .is_none_or(|p| p == "DEFAULT" || p == "0")
            })
    });
    if let Some(t) = threshold {
        if let Some(rb) = proto::map(tree, t, "retry_budget") {
            let pct_node = proto::get(tree, rb, "budget_percent");
            let pct = pct_node.and_then(|n| {
                proto::get(tree, n, "value")
                    .and_then(|v| proto::number(tree, v))
                    .or_else(|| proto::number(tree, n))
            });
            let min_node = proto::get(tree, rb, "min_retry_concurrency");
            let min = min_node
                .and_then(|n| proto::int(tree, n))
                .and_then(|v| u64::try_from(v).ok());
            let mut defaults = Vec::new();
            if pct.is_none() {
                defaults.push("`budget_percent` 20 %");
            }
            if min.is_none() {
                defaults.push("`min_retry_concurrency` 3");
            }
            let note = (!defaults.is_empty()).then(|| OriginNote {
                at: at(rb),
                text: crate::import::note_text(format!("cluster `{name}`: Envoy's retry budget defaults apply: {} (ENV-CB, retry-configs.md §3.1)", defaults.join(", "))),
            });
            let value = RetryBudget::Ratio {
                ratio: pct.unwrap_or(20.0).max(0.0) / 100.0,
                min_per_second: None,
                min_concurrent: Some(min.unwrap_or(3)),
                window_ms: None,
            };
            return Some((name, Spanned { value, at: at(rb) }, note));
        }
        if let Some(n) = proto::get(tree, t, "max_retries") {
            if let Some(v) = proto::int(tree, n).and_then(|v| u64::try_from(v).ok()) {
                let value = RetryBudget::Concurrency {
                    max_concurrent_retries: v,
                };
                return Some((name, Spanned { value, at: at(n) }, None));
            }
        }
    }
    let node = threshold.or(cb).unwrap_or(cluster);
    let note = OriginNote {
        at: at(node),
        text: crate::import::note_text(format!("cluster `{name}` sets no `max_retries` nor `retry_budget`: Envoy's default circuit breaker allows at most 3 concurrent retries (ENV-CB, retry-configs.md §3.1)")),
    };
    let value = RetryBudget::Concurrency {
        max_concurrent_retries: DEFAULT_MAX_RETRIES,
    };
    Some((
        name,
        Spanned {
            value,
            at: at(node),
        },
        Some(note),
    ))
}

/// True when the cluster may send a try over HTTP/3 with a TCP fallback: one of its
/// `typed_extension_protocol_options` (`envoy.extensions.upstreams.http.v3.HttpProtocolOptions`)
/// has an `auto_config` holding `http3_protocol_options`. `auto_config` is what sets
/// the cluster's `USE_ALPN` feature and `http3_protocol_options` its `HTTP3` feature
/// (`source/common/upstream/upstream_impl.cc`); an `explicit_http_config` with HTTP/3
/// has no TCP fallback. Only such a cluster retries under `http3-post-connect-failure`:
/// `retry_state_impl.cc` `wouldRetryFromReset()` asks
/// `clusterSupportsHttp3AndTcpFallback(cluster_)` (both features) before it retries.
pub fn http3_tcp_fallback(tree: &Tree, cluster: NodeId) -> bool {
    let Some(opts) = proto::map(tree, cluster, "typed_extension_protocol_options") else {
        return false;
    };
    tree.entries(opts).into_iter().any(|(_, v)| {
        proto::map(tree, v, "auto_config")
            .is_some_and(|a| proto::get(tree, a, "http3_protocol_options").is_some())
    })
}
