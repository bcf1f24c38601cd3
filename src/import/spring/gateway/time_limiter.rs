//! The deadline a Spring Cloud Gateway `CircuitBreaker` filter puts around a
//! `Retry` filter listed after it (case 76): the filter wraps the rest of the chain,
//! the retry loop included, in a Spring Cloud CircuitBreaker whose Resilience4j
//! `TimeLimiter` cancels the whole call after `timeoutDuration`.
//!
//! Sources:
//! - spring-cloud-gateway `SpringCloudCircuitBreakerFilterFactory.apply`:
//!   `reactiveCircuitBreakerFactory.create(config.getId())`, and `Config.getId()`
//!   returns the filter's `name`, or the route id when no `name` is written (a
//!   `default-filters` item without `name` is one instance per route). Its shortcut
//!   field order is `name` (`CircuitBreaker=myCircuitBreaker`).
//! - resilience4j `TimeLimiterConfig`: `timeoutDuration = Duration.ofSeconds(1)`
//!   when nothing configures it.
//! - resilience4j-spring-boot `resilience4j.timelimiter.instances.<name>`
//!   (`timeoutDuration`, `baseConfig`) and `resilience4j.timelimiter.configs.<name>`;
//!   an instance without its own configuration takes `configs.default`.
//!
//! What is not read: a TimeLimiter configured in Java
//! (`ReactiveResilience4JCircuitBreakerFactory.configureDefault`), which the 1 s
//! default note names as a possibility.

use super::defs::Definition;
use super::retry::spring_duration;
use crate::import::spring::source;
use crate::source::tree::{NodeId, Tree};

/// Resilience4j's `TimeLimiterConfig` default `timeoutDuration` (ms).
pub const DEFAULT_TIMEOUT_MS: f64 = 1_000.0;

/// The source cited by the notes.
pub const SOURCE: &str = "Spring Cloud Gateway SpringCloudCircuitBreakerFilterFactory, resilience4j TimeLimiterConfig; retry-configs.md §7.2";

/// The TimeLimiter of one `CircuitBreaker` filter.
#[derive(Debug, Clone)]
pub struct TimeLimiter {
    /// The circuit breaker instance (`name`, else the route id).
    pub instance: String,
    /// `timeoutDuration` in ms.
    pub timeout_ms: f64,
    /// The `timeoutDuration` node it was read from; `None` for the 1 s default.
    pub node: Option<NodeId>,
    /// The `CircuitBreaker` filter item.
    pub filter: NodeId,
    /// Which property gave the value (`instances.x`, `configs.default`), for notes.
    pub from: String,
}

/// True for a Spring Cloud CircuitBreaker filter (`CircuitBreaker`, or its older
/// Resilience4j-specific name).
pub fn is_circuit_breaker(d: &Definition) -> bool {
    matches!(
        d.name.as_str(),
        "CircuitBreaker" | "SpringCloudCircuitBreakerResilience4J"
    )
}

/// The TimeLimiter of the `CircuitBreaker` filter `d` on the route `route_id`,
/// looked up in the Spring document rooted at `root`.
pub fn read(tree: &Tree, root: NodeId, d: &Definition, route_id: &str) -> TimeLimiter {
    let instance = d
        .arg("name", &["name"])
        .and_then(|a| a.text())
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .unwrap_or(route_id)
        .to_string();
    let base = source::find(tree, root, "resilience4j.timelimiter");
    let base = base.first().copied();
    let timeout_in = |map: NodeId| {
        source::get(tree, map, "timeoutDuration").and_then(|n| {
            let ms = tree.scalar(n).and_then(|t| match source::resolve(t) {
                source::Resolved::Known(t) => spring_duration(&t),
                source::Resolved::Unknown(_) => None,
            })?;
            Some((ms, n))
        })
    };
    let config = |name: &str| {
        base.and_then(|b| source::get(tree, b, "configs"))
            .and_then(|c| entry(tree, c, name))
    };
    let own = base
        .and_then(|b| source::get(tree, b, "instances"))
        .and_then(|i| entry(tree, i, &instance));
    let mut found: Option<(f64, NodeId, String)> = None;
    if let Some(own) = own {
        if let Some((ms, n)) = timeout_in(own) {
            found = Some((ms, n, format!("instances.{instance}")));
        } else if let Some(b) = source::get(tree, own, "baseConfig").and_then(|n| tree.scalar(n)) {
            found = config(b)
                .and_then(timeout_in)
                .map(|(ms, n)| (ms, n, format!("configs.{b}")));
        }
    }
    if found.is_none() {
        found = config("default")
            .and_then(timeout_in)
            .map(|(ms, n)| (ms, n, "configs.default".to_string()));
    }
    match found {
        Some((timeout_ms, n, from)) => TimeLimiter {
            instance,
            timeout_ms,
            node: Some(n),
            filter: d.node,
            from,
        },
        None => TimeLimiter {
            instance,
            timeout_ms: DEFAULT_TIMEOUT_MS,
            node: None,
            filter: d.node,
            from: "the default".to_string(),
        },
    }
}

/// The value of the map key `name` as written (instance and config names are map
/// keys: compared exactly, as Spring binds `Map<String, ..>` keys).
fn entry(tree: &Tree, map: NodeId, name: &str) -> Option<NodeId> {
    source::entries(tree, map)
        .into_iter()
        .rev()
        .find(|(k, _, _)| k == name)
        .map(|(_, _, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::spring::gateway::defs;

    fn tree(text: &str) -> Tree {
        Tree::parse(std::sync::Arc::from(text)).expect("yaml")
    }

    fn root(t: &Tree) -> NodeId {
        t.root().expect("a root")
    }

    fn filter(t: &Tree, path: &str) -> Definition {
        let n = source::find(t, root(t), path)[0];
        defs::read(t, defs::list_items(t, n)[0]).expect("a filter")
    }

    #[test]
    fn instance_by_name_else_route_id_with_configs_default_and_1s() {
        let t = tree("f:\n  - name: CircuitBreaker\n    args:\n      name: cb\nresilience4j:\n  timelimiter:\n    instances:\n      cb:\n        timeout-duration: 3s\n");
        let l = read(&t, root(&t), &filter(&t, "f"), "route");
        assert_eq!((l.instance.as_str(), l.timeout_ms), ("cb", 3000.0));
        assert!(l.node.is_some());

        let t = tree("f:\n  - CircuitBreaker\nresilience4j:\n  timelimiter:\n    configs:\n      default:\n        timeoutDuration: 2s\n");
        let l = read(&t, root(&t), &filter(&t, "f"), "orders");
        assert_eq!((l.instance.as_str(), l.timeout_ms), ("orders", 2000.0));
        assert_eq!(l.from, "configs.default");

        let t = tree("f:\n  - CircuitBreaker=other\nresilience4j:\n  timelimiter:\n    instances:\n      cb:\n        timeoutDuration: 3s\n");
        let l = read(&t, root(&t), &filter(&t, "f"), "orders");
        assert_eq!(
            (l.instance.as_str(), l.timeout_ms),
            ("other", DEFAULT_TIMEOUT_MS)
        );
        assert!(l.node.is_none());
    }
}
