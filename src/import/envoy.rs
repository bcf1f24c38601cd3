//! Envoy: route and virtual-host `retry_policy`, route `timeout`, `hedge_policy`,
//! cluster `retry_budget`/`max_retries` (`retry-configs.md` §3, §1, §12), read from
//! every shape an Envoy config is written in, YAML or proto3 JSON, snake_case or
//! camelCase, int64 as strings ([`proto`]):
//! - a bootstrap: `static_resources.listeners[]` (each HTTP connection manager's
//!   inline `route_config`) and `static_resources.clusters[]` (budgets);
//! - a route configuration (`virtual_hosts`), or a list of them;
//! - a listener (`filter_chains[].filters[]` -> `typed_config` of the
//!   `HttpConnectionManager` -> `route_config`; Kuma and Envoy Gateway goldens);
//! - xDS resources (`resources: [{name, resource: {...}}]`, items with `@type`);
//! - a config dump (`configs: [{"@type": ...ListenersConfigDump}, {...RoutesConfigDump,
//!   static_route_configs, dynamic_route_configs[].route_config}, {...ClustersConfigDump}]`).
//!
//! One [`ConfigObject`] per virtual host: its `names` are its `domains` (but `*`) and
//! the clusters its routes target; its routes in order (first match wins, ENV-P), each
//! with the settings of [`policy::settings`]. A route's `retry_policy` replaces the
//! virtual host's. A `retriable_request_headers` gate on `:method` that admits only
//! some methods makes Envoy clear `retry_on` for every other request (ENV-RS): it
//! gates every retry, connection failures included, so it is not the v1 `methods`
//! filter (which spares never-processed signals) but a restriction of which requests
//! the retry applies to. The route is therefore split in two: the same matches
//! restricted to the gate's methods, retrying, then the same matches for the other
//! methods with `retry: false` at the gate node.
//!
//! Layer (README case Q6): `mesh` when the file shows a sidecar, `gateway` otherwise
//! (a bootstrap or an edge proxy, §12). Sidecar markers: a listener on a loopback
//! address (only processes of the same pod reach it: Kuma's outbound listeners), a
//! listener taking redirected traffic (`use_original_dst`, or `bind_to_port: false`
//! behind Istio's `virtualOutbound`), sidecar listener and route names (Kuma's
//! `outbound:`/`inbound:`, Istio's `virtualOutbound`/`virtualInbound`, `inbound|`),
//! and the `x-kuma-tags` request header Kuma's data plane proxies add.
//! `trafficDirection` alone does not decide: Istio emits `OUTBOUND` on its gateway
//! listeners too.

pub mod cluster;
pub mod matching;
pub mod policy;
pub mod proto;

use super::stream;
use super::{ConfigObject, ImportContext, Imported, OriginNote, Platform, Route};
use crate::diagnostic::Diagnostic;
use crate::import::rl017_ineffective_setting;
use crate::import::route::RequestMatch;
use crate::policy::model::{Layer, RetryBudget, Spanned};
use crate::source::loader::Loaded;
use crate::source::refs::At;
use crate::source::tree::{Kind, NodeId, Tree};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Deepest nesting of config-dump wrappers followed.
const MAX_DEPTH: u8 = 16;

/// Reads one file of this platform (every document of a YAML stream).
pub fn import(doc: &Arc<Loaded>, ctx: &ImportContext<'_>) -> Imported {
    let _ = ctx;
    let docs = match stream::documents(doc) {
        Ok(d) => d,
        Err(d) => {
            return Imported {
                objects: Vec::new(),
                diagnostics: vec![*d],
                skipped: Vec::new(),
            }
        }
    };
    let mut out = Imported::default();
    for d in &docs {
        if let Ok(tree) = &d.tree {
            out.extend(import_document(d, tree));
        }
    }
    let mut seen = HashSet::new();
    out.diagnostics.retain(|d| {
        seen.insert((
            d.primary.location.file.path.clone(),
            d.primary.location.span.start,
            d.message.clone(),
        ))
    });
    out
}

/// Why a listener or route configuration is a sidecar's (`None`: a gateway's).
type Sidecar = Option<String>;

#[derive(Default)]
struct Found {
    listeners: Vec<NodeId>,
    hcms: Vec<NodeId>,
    route_configs: Vec<NodeId>,
    vhosts: Vec<NodeId>,
    clusters: Vec<NodeId>,
}

fn import_document(doc: &Arc<Loaded>, tree: &Tree) -> Imported {
    let mut out = Imported::default();
    let Some(root) = tree.root() else { return out };
    let mut found = Found::default();
    visit(tree, root, 0, &mut found);

    let mut budgets: HashMap<String, ClusterFacts> = HashMap::new();
    for &c in &found.clusters {
        if let Some((name, b, note)) = cluster::budget(doc, tree, c) {
            budgets.entry(name).or_insert(ClusterFacts {
                budget: (b, note),
                http3_fallback: cluster::http3_tcp_fallback(tree, c),
            });
        }
    }

    // Route configurations with the sidecar evidence of the listener holding them.
    let mut tables: Vec<(NodeId, Sidecar)> = Vec::new();
    let mut rds: HashMap<String, Sidecar> = HashMap::new();
    for &l in &found.listeners {
        let side = listener_sidecar(tree, l);
        for hcm in listener_hcms(tree, l) {
            hcm_tables(tree, hcm, &side, &mut tables, &mut rds);
        }
    }
    for &h in &found.hcms {
        hcm_tables(tree, h, &None, &mut tables, &mut rds);
    }
    for &rc in &found.route_configs {
        let name = proto::field_text(tree, rc, "name").unwrap_or("");
        tables.push((rc, rds.get(name).cloned().flatten()));
    }
    let mut seen_names = HashSet::new();
    let mut seen_nodes = HashSet::new();
    for (rc, side) in tables {
        let name = proto::field_text(tree, rc, "name")
            .unwrap_or("")
            .to_string();
        if !seen_nodes.insert(rc) || (!name.is_empty() && !seen_names.insert(name.clone())) {
            continue; // a config dump lists inline route configurations twice
        }
        let side = side.or_else(|| route_config_sidecar(tree, rc));
        for &vh in proto::items(tree, rc, "virtual_hosts") {
            read_vhost(doc, tree, vh, &name, &side, &budgets, &mut out);
        }
    }
    for &vh in &found.vhosts {
        read_vhost(doc, tree, vh, "", &None, &budgets, &mut out);
    }
    out
}

/// Finds listeners, connection managers, route configurations, virtual hosts and
/// clusters in whatever wrapping the file uses.
fn visit(tree: &Tree, n: NodeId, depth: u8, found: &mut Found) {
    if depth > MAX_DEPTH {
        return;
    }
    match tree.kind(n) {
        Kind::Seq => {
            for &i in tree.items(n) {
                visit(tree, i, depth + 1, found);
            }
            return;
        }
        Kind::Map => {}
        _ => return,
    }
    let ty = proto::type_url(tree, n);
    let short = ty.rsplit('.').next().unwrap_or("");
    let sub = |found: &mut Found, list: &str, inner: &[&str]| {
        for &item in proto::items(tree, n, list) {
            let target = inner
                .iter()
                .try_fold(item, |cur, k| proto::get(tree, cur, k));
            if let Some(t) = target {
                visit(tree, t, depth + 1, found);
            }
        }
    };
    match short {
        "BootstrapConfigDump" => {
            if let Some(b) = proto::get(tree, n, "bootstrap") {
                visit(tree, b, depth + 1, found);
            }
            return;
        }
        "ListenersConfigDump" => {
            sub(found, "static_listeners", &["listener"]);
            for &item in proto::items(tree, n, "dynamic_listeners") {
                let state = ["active_state", "warming_state", "draining_state"]
                    .iter()
                    .find_map(|s| proto::map(tree, item, s));
                if let Some(l) = state.and_then(|s| proto::get(tree, s, "listener")) {
                    visit(tree, l, depth + 1, found);
                }
            }
            return;
        }
        "RoutesConfigDump" => {
            sub(found, "static_route_configs", &["route_config"]);
            sub(found, "dynamic_route_configs", &["route_config"]);
            return;
        }
        "ClustersConfigDump" => {
            sub(found, "static_clusters", &["cluster"]);
            sub(found, "dynamic_active_clusters", &["cluster"]);
            sub(found, "dynamic_warming_clusters", &["cluster"]);
            return;
        }
        "Listener" => return found.listeners.push(n),
        "RouteConfiguration" => return found.route_configs.push(n),
        "VirtualHost" => return found.vhosts.push(n),
        "Cluster" => return found.clusters.push(n),
        "HttpConnectionManager" => return found.hcms.push(n),
        _ if short.ends_with("ConfigDump") && short != "ConfigDump" => return,
        _ => {}
    }
    if let Some(c) = proto::get(tree, n, "configs") {
        visit(tree, c, depth + 1, found);
    }
    if let Some(r) = tree
        .get(n, "resources")
        .filter(|&r| tree.kind(r) == Kind::Seq)
    {
        for &item in tree.items(r) {
            let inner = tree.get(item, "resource").unwrap_or(item);
            visit(tree, inner, depth + 1, found);
        }
        return;
    }
    if let Some(sr) = proto::map(tree, n, "static_resources") {
        for &l in proto::items(tree, sr, "listeners") {
            found.listeners.push(l);
        }
        for &c in proto::items(tree, sr, "clusters") {
            found.clusters.push(c);
        }
        return;
    }
    let has = |k: &str| proto::get(tree, n, k).is_some();
    if has("virtual_hosts") {
        found.route_configs.push(n);
    } else if has("filter_chains") || has("default_filter_chain") || has("address") && has("name") {
        found.listeners.push(n);
    } else if has("route_config") || has("rds") || has("http_filters") {
        found.hcms.push(n);
    } else if has("circuit_breakers") || has("connect_timeout") || has("load_assignment") {
        found.clusters.push(n);
    }
}

/// The HTTP connection managers of a listener's filter chains.
fn listener_hcms(tree: &Tree, l: NodeId) -> Vec<NodeId> {
    let mut chains: Vec<NodeId> = proto::items(tree, l, "filter_chains").to_vec();
    chains.extend(proto::map(tree, l, "default_filter_chain"));
    let mut out = Vec::new();
    for fc in chains {
        for &f in proto::items(tree, fc, "filters") {
            let cfg = proto::map(tree, f, "typed_config").or_else(|| proto::map(tree, f, "config"));
            let name = proto::field_text(tree, f, "name").unwrap_or("");
            let is_hcm = name.contains("http_connection_manager")
                || cfg.is_some_and(|c| proto::type_url(tree, c).ends_with("HttpConnectionManager"));
            if let (true, Some(c)) = (is_hcm, cfg) {
                out.push(c);
            }
        }
    }
    out
}

fn hcm_tables(
    tree: &Tree,
    hcm: NodeId,
    side: &Sidecar,
    tables: &mut Vec<(NodeId, Sidecar)>,
    rds: &mut HashMap<String, Sidecar>,
) {
    if let Some(rc) = proto::map(tree, hcm, "route_config") {
        tables.push((rc, side.clone()));
    }
    if let Some(name) =
        proto::map(tree, hcm, "rds").and_then(|r| proto::field_text(tree, r, "route_config_name"))
    {
        let e = rds.entry(name.to_string()).or_insert(None);
        if e.is_none() {
            *e = side.clone();
        }
    }
}

/// Sidecar evidence on a listener (Q6).
fn listener_sidecar(tree: &Tree, l: NodeId) -> Sidecar {
    let name = proto::field_text(tree, l, "name").unwrap_or("");
    if let Some(m) = sidecar_name(name) {
        return Some(format!("listener `{name}` {m}"));
    }
    let addr = proto::map(tree, l, "address")
        .and_then(|a| proto::map(tree, a, "socket_address"))
        .and_then(|s| proto::field_text(tree, s, "address"))
        .unwrap_or("");
    if addr.starts_with("127.") || addr == "::1" || addr == "localhost" {
        return Some(format!("the listener is on {addr}: only processes of the same pod reach it, as a sidecar's outbound listener"));
    }
    let flag = |k: &str| proto::get(tree, l, k).and_then(|n| proto::boolean(tree, n));
    if flag("use_original_dst") == Some(true) {
        return Some(
            "the listener takes redirected traffic (`use_original_dst`), as a sidecar does"
                .to_string(),
        );
    }
    if flag("bind_to_port") == Some(false) {
        return Some("the listener does not bind its port (`bind_to_port: false`): it is reached through a sidecar's redirecting listener".to_string());
    }
    None
}

fn sidecar_name(name: &str) -> Option<&'static str> {
    if name.starts_with("outbound:") || name.starts_with("inbound:") {
        Some("is named as Kuma names a sidecar's listeners and routes")
    } else if name == "virtualOutbound" || name == "virtualInbound" || name.starts_with("inbound|")
    {
        Some("is named as Istio names a sidecar's listeners and routes")
    } else {
        None
    }
}

/// Sidecar evidence on a route configuration or a virtual host (Q6).
fn route_config_sidecar(tree: &Tree, rc: NodeId) -> Sidecar {
    let name = proto::field_text(tree, rc, "name").unwrap_or("");
    if let Some(m) = sidecar_name(name) {
        return Some(format!("route configuration `{name}` {m}"));
    }
    kuma_tags(tree, rc)
}

fn kuma_tags(tree: &Tree, n: NodeId) -> Sidecar {
    proto::items(tree, n, "request_headers_to_add")
        .iter()
        .any(|&h| {
            proto::map(tree, h, "header")
                .and_then(|hv| proto::field_text(tree, hv, "key"))
                .is_some_and(|k| k.eq_ignore_ascii_case("x-kuma-tags"))
        })
        .then(|| "it adds `x-kuma-tags`, the header Kuma's sidecar proxies send".to_string())
}

/// What a route's retries need to know of a cluster defined in the file.
struct ClusterFacts {
    /// Its retry budget and the note on its default.
    budget: (Spanned<RetryBudget>, Option<OriginNote>),
    /// It may send a try over HTTP/3 with a TCP fallback.
    http3_fallback: bool,
}

/// Whether the route's target `clusters` may use HTTP/3 with a TCP fallback: yes
/// when one defined in the file does, no when every target is defined without it,
/// unknown (`None`) when a target is not in the file or there is none (a
/// `cluster_header`, a plugin).
fn http3_fallback(
    tree: &Tree,
    clusters: &[NodeId],
    facts: &HashMap<String, ClusterFacts>,
) -> Option<bool> {
    let targets: Vec<Option<bool>> = clusters
        .iter()
        .filter_map(|&c| proto::text(tree, c))
        .map(|c| facts.get(c).map(|f| f.http3_fallback))
        .collect();
    if targets.contains(&Some(true)) {
        Some(true)
    } else if !targets.is_empty() && targets.iter().all(Option::is_some) {
        Some(false)
    } else {
        None
    }
}

fn read_vhost(
    doc: &Arc<Loaded>,
    tree: &Tree,
    vh: NodeId,
    table: &str,
    side: &Sidecar,
    budgets: &HashMap<String, ClusterFacts>,
    out: &mut Imported,
) {
    let at = |n: NodeId| At::new(doc, n);
    let side = side.clone().or_else(|| kuma_tags(tree, vh));
    let layer = if side.is_some() {
        Layer::Mesh
    } else {
        Layer::Gateway
    };
    let mut names: Vec<Spanned<String>> = Vec::new();
    for &d in proto::items(tree, vh, "domains") {
        if let Some(t) = proto::text(tree, d).filter(|t| *t != "*" && !t.is_empty()) {
            names.push(Spanned {
                value: t.to_string(),
                at: at(d),
            });
        }
    }
    let vh_policy = proto::map(tree, vh, "retry_policy");
    if let Some(p) = vh_policy {
        out.diagnostics.extend(policy::check(doc, tree, p));
    }
    let vh_hedge = proto::map(tree, vh, "hedge_policy");
    let mut routes: Vec<Route> = Vec::new();
    let mut earlier = matching::ShadowIndex::default();
    for (i, &r) in proto::items(tree, vh, "routes").iter().enumerate() {
        let rname = proto::field_text(tree, r, "name").map(str::to_string);
        let label = rname
            .clone()
            .map_or_else(|| format!("#{}", i + 1), |n| format!("`{n}`"));
        let read = proto::map(tree, r, "match").map(|m| matching::route_match(tree, m));
        // A route whose path regex does not compile matches nothing: it neither
        // shadows nor is shadowed (two such routes are not "the same path").
        let mut compiles = true;
        let (request, literal) = match read {
            Some(m) => {
                if let Some((node, msg)) = m.problem {
                    compiles = false;
                    out.diagnostics.push(rl017_ineffective_setting::diagnostic(
                        &at(node),
                        msg,
                        "invalid regex",
                        "fix the regex (RE2 syntax, matched against the whole path).".to_string(),
                    ));
                }
                (m.request, m.literal)
            }
            None => (RequestMatch::any(), None),
        };
        if let Some(by) = earlier.first_shadowing(&request).filter(|_| compiles) {
            out.diagnostics.push(rl017_ineffective_setting::diagnostic(
                &at(r),
                format!("route {label} never matches: route {by} above it matches every request it would"),
                "never matches",
                "move this route above the broader one, or remove it: Envoy tries a virtual host's routes in order and the first match wins.".to_string(),
            ));
        }
        if compiles {
            earlier.push(request.clone(), label);
        }
        let Some(action) = proto::map(tree, r, "route") else {
            // `redirect`, `direct_response`, `filter_action`: Envoy answers itself.
            let mut s = crate::policy::model::Settings::empty(at(r));
            s.retry = Some(Spanned {
                value: false,
                at: at(r),
            });
            routes.push(Route {
                at: at(r),
                name: rname,
                matches: vec![request],
                rewrite: None,
                settings: s,
                notes: vec![OriginNote { at: at(r), text: crate::import::note_text("this route has no `route` action (a redirect or a direct response): Envoy answers it without a backend, so nothing is retried")}],
            });
            continue;
        };
        let mut clusters: Vec<NodeId> = proto::get(tree, action, "cluster").into_iter().collect();
        if let Some(wc) = proto::map(tree, action, "weighted_clusters") {
            clusters.extend(
                proto::items(tree, wc, "clusters")
                    .iter()
                    .filter_map(|&c| proto::get(tree, c, "name")),
            );
        }
        for &c in &clusters {
            if let Some(t) = proto::text(tree, c) {
                if !names.iter().any(|n| n.value == t) {
                    names.push(Spanned {
                        value: t.to_string(),
                        at: at(c),
                    });
                }
            }
        }
        let budget = clusters
            .iter()
            .filter_map(|&c| proto::text(tree, c))
            .find_map(|c| budgets.get(c).map(|f| f.budget.clone()));
        let http3_fallback = http3_fallback(tree, &clusters, budgets);
        out.diagnostics
            .extend(policy::check_route_action(doc, tree, action));
        let own = proto::map(tree, action, "retry_policy");
        if let Some(p) = own {
            out.diagnostics.extend(policy::check(doc, tree, p));
        }
        let hedge = proto::map(tree, action, "hedge_policy").or(vh_hedge);
        let inputs = policy::Inputs {
            doc,
            tree,
            route: r,
            action,
            policy: own.or(vh_policy),
            policy_from_vhost: own.is_none() && vh_policy.is_some(),
            hedge,
            budget,
            http3_fallback,
        };
        let mut read = policy::settings(&inputs);
        // A virtual host's policy is read once per route: its RL019 once.
        for d in std::mem::take(&mut read.diagnostics) {
            let same = |x: &Diagnostic| {
                x.code == d.code
                    && x.message == d.message
                    && x.primary.location.span == d.primary.location.span
            };
            if !out.diagnostics.iter().any(same) {
                out.diagnostics.push(d);
            }
        }
        if let Some(h) = hedge {
            out.diagnostics
                .extend(check_hedge(doc, tree, h, own.or(vh_policy)));
        }
        let (rewrite, rw_note) = matching::rewrite(tree, action, literal.as_ref());
        if let Some((n, text)) = rw_note {
            read.notes.push(OriginNote {
                at: at(n),
                text: crate::import::note_text(text),
            });
        }
        let route = Route {
            at: at(r),
            name: rname,
            matches: vec![request],
            rewrite,
            settings: read.settings,
            notes: read.notes,
        };
        match read.gate {
            None => routes.push(route),
            Some((g, methods)) => routes.extend(split_by_gate(doc, route, g, &methods)),
        }
    }
    let vname = proto::field_text(tree, vh, "name")
        .unwrap_or("")
        .to_string();
    let name = match (table.is_empty(), vname.is_empty()) {
        (_, false) => vname,
        (false, true) => table.to_string(),
        (true, true) => names
            .first()
            .map_or_else(|| "-".to_string(), |n| n.value.clone()),
    };
    let _ = side;
    out.objects.push(ConfigObject {
        method_scoped: Vec::new(),
        variant: None,
        url_prefixes: Vec::new(),
        platform: Platform::Envoy,
        kind: "virtual host".to_string(),
        name,
        at: at(vh),
        layer,
        names,
        routes,
    });
}

/// RL017 for `hedge_on_per_try_timeout` that can never fire: no per-try timeout in
/// the policy that applies (ENV-P `HedgePolicy`).
fn check_hedge(doc: &Arc<Loaded>, tree: &Tree, h: NodeId, p: Option<NodeId>) -> Vec<Diagnostic> {
    let Some(n) = proto::get(tree, h, "hedge_on_per_try_timeout") else {
        return Vec::new();
    };
    if proto::boolean(tree, n) != Some(true) {
        return Vec::new();
    }
    let per_try = p
        .and_then(|p| proto::get(tree, p, "per_try_timeout"))
        .and_then(|t| proto::duration_ms(tree, t))
        .is_some_and(|ms| ms > 0.0);
    if per_try {
        return Vec::new();
    }
    vec![rl017_ineffective_setting::diagnostic(
        &At::new(doc, n),
        "`hedge_on_per_try_timeout` without a `per_try_timeout` never hedges".to_string(),
        "never fires",
        "a hedge is sent when a try's `per_try_timeout` expires: set `retry_policy.per_try_timeout`, or remove the hedge policy.".to_string(),
    )]
}

/// A route whose retries `retriable_request_headers` admits only for `methods`:
/// the same matches restricted to those methods (retrying), then the matches for the
/// other methods with `retry: false` at the gate.
fn split_by_gate(doc: &Arc<Loaded>, route: Route, gate: NodeId, methods: &[String]) -> Vec<Route> {
    let within = |ms: &Option<Vec<String>>| -> Option<Vec<String>> {
        match ms {
            None => Some(methods.to_vec()),
            Some(v) => {
                let kept: Vec<String> = v
                    .iter()
                    .filter(|m| methods.iter().any(|g| g.eq_ignore_ascii_case(m)))
                    .cloned()
                    .collect();
                (!kept.is_empty()).then_some(kept)
            }
        }
    };
    let gated: Vec<RequestMatch> = route
        .matches
        .iter()
        .filter_map(|m| {
            within(&m.methods).map(|ms| RequestMatch {
                path: m.path.clone(),
                methods: Some(ms),
                partial: m.partial,
            })
        })
        .collect();
    let all_within = route.matches.iter().all(|m| {
        m.methods.as_ref().is_some_and(|v| {
            v.iter()
                .all(|x| methods.iter().any(|g| g.eq_ignore_ascii_case(x)))
        })
    });
    let mut out = Vec::new();
    let mut rest = route.clone();
    if !gated.is_empty() {
        let mut r = route;
        r.matches = gated;
        out.push(r);
    }
    if !all_within {
        let at = At::new(doc, gate);
        rest.settings.retry = Some(Spanned {
            value: false,
            at: at.clone(),
        });
        rest.settings.hedging = None;
        rest.settings.budget = None;
        rest.notes.push(OriginNote {
            at,
            text: crate::import::note_text(format!("`retriable_request_headers` admits only {}: Envoy clears `retry_on` for every other method, so those requests are not retried at all (ENV-RS, retry-configs.md §3.1, §3.4)", methods.join(", "))),
        });
        out.push(rest);
    }
    out
}

#[cfg(test)]
mod tests;
