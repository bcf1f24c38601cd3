//! RL209 route-may-resend-write: a route of a retry config (or a call of a retry
//! client in code) that no operation binds retries on a signal after which the
//! request may have been processed, and no method filter leaves out POST and PATCH.
//!
//! Without a bound operation the operation rules (RL201) cannot judge the route, but
//! its method is known: a route that may carry a POST or a PATCH and retries on a
//! possibly processed signal (those the signal table of [`crate::retry::signals`]
//! does not mark never processed: `5xx`, `502`-`504`, `reset`, `timeout`; the same
//! classification RL201 uses) may apply a write twice. Judged per route: a route of
//! an object whose other routes bound still counts when it bound nothing, and a
//! route that binds an operation is left to RL201 (never both for one route).
//!
//! One finding per retry setting, at the node that turns the retry on (a `retries`
//! block, a `Retry` filter): routes that share it (Spring Cloud Gateway
//! `default-filters`) are one finding with a label each. For a client in code, at
//! the call, and only when the call has a literal method. Client configs that name
//! no call (Resilience4j, AWS profiles, gRPC service configs) and gRPC routes are
//! not judged ([`judged`]); RL016 says how to bind them.

use super::{ConfigObject, Route};
use crate::diagnostic::catalog;
use crate::diagnostic::{Diagnostic, Location, RuleMeta};
use crate::policy::model::{Settings, Signal, Spanned};
use crate::source::refs::At;
use std::collections::{BTreeMap, HashSet};

/// Rule metadata ([`catalog::ROUTE_MAY_RESEND_WRITE`]).
pub const META: RuleMeta = catalog::ROUTE_MAY_RESEND_WRITE;

/// The methods whose repeat may apply a write twice (non-idempotent by method).
const WRITES: [&str; 2] = ["POST", "PATCH"];

/// One route that may resend a write.
struct Hit<'a> {
    /// The object's index in the run's objects.
    index: usize,
    /// The route's index in the object's routes.
    route_index: usize,
    object: &'a ConfigObject,
    route: &'a Route,
    /// The write methods the route retries (a subset of [`WRITES`]).
    writes: Vec<&'static str>,
    /// The possibly processed signals it retries on.
    signals: Vec<&'a Spanned<Signal>>,
}

/// The findings over `objects`, appended to `out`, where `bound[i][r]` is true when
/// route `r` of object `i` took an operation of a spec. `entry(i, r)` says how to
/// bind route `r` of object `i` (the `.retrylint.yaml` `services:` entry to add, or
/// what the spec it serves lacks), for the help. Appended rather than returned: a
/// config of 100,000 unbound routes has a finding each, and a returned list copied
/// into the caller's was held twice at the peak of the run (issue 43).
pub fn findings(
    objects: &[ConfigObject],
    bound: &[Vec<bool>],
    entry: &dyn Fn(usize, usize) -> String,
    out: &mut Vec<Diagnostic>,
) {
    // Primary location (file, start, end) -> hits, in object and route order.
    let mut groups: BTreeMap<(std::path::PathBuf, usize, usize), (At, Vec<Hit<'_>>)> =
        BTreeMap::new();
    for (i, o) in objects.iter().enumerate() {
        if !judged(o) {
            continue;
        }
        let is_bound = |r: usize| {
            bound
                .get(i)
                .and_then(|b| b.get(r))
                .copied()
                .unwrap_or(false)
        };
        // The config routes (node and paths) of which some part took an operation.
        let bound_routes: HashSet<String> = (0..o.routes.len())
            .filter(|&r| is_bound(r))
            .map(|r| config_route(&o.routes[r]))
            .collect();
        for (r, route) in o.routes.iter().enumerate() {
            // A route the importer split by method (a Spring Cloud Gateway `Retry`
            // filter's `methods`: the retried methods, and the rest not retried) is
            // one route of the config: when its other part took an operation on the
            // same paths, the route is bound and the API it serves declares no write
            // the retry admits there, so the operation rules have judged it (a write
            // sent there reaches no handler: the server answers 404 or 405).
            if is_bound(r) || bound_routes.contains(&config_route(route)) {
                continue;
            }
            let Some(hit) = hit(i, r, o, route) else {
                continue;
            };
            let Some(primary) = primary(o, route) else {
                continue;
            };
            let loc = primary.location();
            groups
                .entry((loc.file.path.clone(), loc.span.start, loc.span.end))
                .or_insert_with(|| (primary.clone(), Vec::new()))
                .1
                .push(hit);
        }
    }
    out.extend(
        groups
            .into_values()
            .map(|(primary, hits)| diagnostic(&primary, &hits, entry)),
    );
}

/// One route of the config as written, whatever methods the importer split it
/// into: its node and its path matches and rewrite. (`PathMatch` holds compiled
/// patterns and has no equality; their debug form names the pattern.)
fn config_route(route: &Route) -> String {
    let loc = route.at.location();
    let paths: Vec<String> = route
        .matches
        .iter()
        .map(|m| format!("{:?}", m.path))
        .collect();
    format!(
        "{}:{}-{} {paths:?} {:?}",
        loc.file.path.display(),
        loc.span.start,
        loc.span.end,
        route.rewrite
    )
}

/// True for the objects whose routes say which method they carry: route tables of
/// gateways and meshes, and clients in code (by their calls). A client config
/// (Resilience4j instance, AWS profile, gRPC service config) applies to whatever
/// calls go through it, so its method is unknown; a gRPC route (`GRPCRoute`)
/// carries only POSTs whose effect is the RPC's own semantics.
fn judged(o: &ConfigObject) -> bool {
    if o.grpc() || o.kind == "GRPCRoute" {
        return false;
    }
    o.platform.is_code() || !o.layer.is_client()
}

/// True when the node of `outer` holds the location `inner` (same file).
fn holds(outer: &At, inner: &Location) -> bool {
    let Some(tree) = outer.tree() else {
        return false;
    };
    let span = tree.span(outer.node);
    outer.doc.file.path == inner.file.path
        && span.start <= inner.span.start
        && inner.span.end <= span.end
}

/// The route as a hit, when it is retried, may carry a write the retry admits, and
/// retries on a possibly processed signal.
fn hit<'a>(
    index: usize,
    route_index: usize,
    o: &'a ConfigObject,
    route: &'a Route,
) -> Option<Hit<'a>> {
    let s = &route.settings;
    let retried = s.retry.as_ref().is_some_and(|v| v.value)
        && s.retry_on.as_ref().is_some_and(|l| !l.value.is_empty())
        && s.attempts.as_ref().is_none_or(|a| a.value > 1);
    if !retried {
        return None;
    }
    let writes: Vec<&'static str> = WRITES
        .into_iter()
        .filter(|w| route_may_carry(o, route, w) && admitted(s, w))
        .collect();
    if writes.is_empty() {
        return None;
    }
    // The classification RL201 uses (`EffectivePolicy::unsafe_signals`).
    let signals: Vec<&Spanned<Signal>> = s
        .retry_on
        .as_ref()
        .map(|l| {
            l.value
                .iter()
                .filter(|x| !x.value.never_processed() && x.value.applies_to(false))
                .collect()
        })
        .unwrap_or_default();
    if signals.is_empty() {
        return None;
    }
    Some(Hit {
        index,
        route_index,
        object: o,
        route,
        writes,
        signals,
    })
}

/// True when the route's matches may carry a request with `method`: a route without
/// matches takes every request; a call in code only with its literal method.
fn route_may_carry(o: &ConfigObject, route: &Route, method: &str) -> bool {
    if o.platform.is_code() {
        return route.matches.iter().any(|m| {
            m.methods
                .as_ref()
                .is_some_and(|ms| ms.iter().any(|x| x.eq_ignore_ascii_case(method)))
        });
    }
    route.matches.is_empty()
        || route.matches.iter().any(|m| {
            m.methods
                .as_ref()
                .is_none_or(|ms| ms.iter().any(|x| x.eq_ignore_ascii_case(method)))
        })
}

/// True unless the retry's `methods` filter leaves `method` out.
fn admitted(s: &Settings, method: &str) -> bool {
    s.methods.as_ref().is_none_or(|ms| {
        ms.value
            .iter()
            .any(|x| x.value.eq_ignore_ascii_case(method))
    })
}

/// Where the finding points: the call, for a client in code; else the node that
/// turns the retry on (a `retries` block, a `Retry` filter), else the signals.
fn primary<'a>(o: &ConfigObject, route: &'a Route) -> Option<&'a At> {
    if o.platform.is_code() {
        return Some(&route.at);
    }
    let s = &route.settings;
    s.retry
        .as_ref()
        .map(|r| &r.at)
        .or_else(|| s.retry_on.as_ref().map(|l| &l.at))
        .or(Some(&route.at))
}

/// How a route is named in a message: `the Istio VirtualService `ledger` route
/// `api``, `the Spring Cloud Gateway route `customers-service``, `the call `POST
/// /orders` through the tenacity client `x``.
fn subject(h: &Hit<'_>) -> String {
    let o = h.object;
    let platform = o.platform.display_name();
    if o.platform.is_code() {
        return match &h.route.name {
            Some(call) => format!(
                "the call `{call}` through the {platform} {} `{}`",
                o.kind, o.name
            ),
            None => format!("a call through the {platform} {} `{}`", o.kind, o.name),
        };
    }
    match &h.route.name {
        Some(r) if *r != o.name => format!("the {platform} {} `{}` route `{r}`", o.kind, o.name),
        _ => format!("the {platform} {} `{}`", o.kind, o.name),
    }
}

/// Several routes sharing one retry setting, named together when they are routes of
/// one object (`the Istio VirtualService `x` routes `a` and `b``) or objects of one
/// platform and kind that are routes themselves (`the Spring Cloud Gateway routes
/// `a`, `b` and `c``).
fn several(hits: &[Hit<'_>]) -> Option<String> {
    let first = hits.first()?.object;
    if hits.iter().any(|h| h.object.platform.is_code()) {
        return None;
    }
    let mut names: Vec<String> = Vec::new();
    let mut named: HashSet<String> = HashSet::new();
    let mut push = |n: &str| {
        let n = format!("`{n}`");
        if named.insert(n.clone()) {
            names.push(n);
        }
    };
    let platform = first.platform.display_name();
    if hits.iter().all(|h| std::ptr::eq(h.object, first)) {
        for h in hits {
            push(h.route.name.as_deref()?);
        }
        return Some(format!(
            "the {platform} {} `{}` routes {}",
            first.kind,
            first.name,
            join_and(&names)
        ));
    }
    for h in hits {
        let o = h.object;
        if o.platform != first.platform || o.kind != first.kind {
            return None;
        }
        if h.route.name.as_ref().is_some_and(|r| *r != o.name) {
            return None;
        }
        push(&o.name);
    }
    Some(format!(
        "the {platform} {}s {}",
        first.kind,
        join_and(&names)
    ))
}

/// `a`, `a and b`, `a, b and c`.
fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn same(a: &Location, b: &Location) -> bool {
    a.file.path == b.file.path && a.span == b.span
}

/// What [`same`] compares, as a key: the labels of one finding are kept once each
/// with a set beside their list (a shared retry setting of 50,000 HAProxy routes is
/// one finding; a scan of the list per route made it quadratic).
fn place(l: &Location) -> (std::path::PathBuf, usize, usize) {
    (l.file.path.clone(), l.span.start, l.span.end)
}

fn diagnostic(
    primary: &At,
    hits: &[Hit<'_>],
    entry: &dyn Fn(usize, usize) -> String,
) -> Diagnostic {
    let primary_loc = primary.location();
    // Routes, each once (a Spring Cloud Gateway route is one route per path variant).
    let mut subjects: Vec<String> = Vec::new();
    let mut subjects_seen: HashSet<String> = HashSet::new();
    let mut route_nodes: Vec<(Location, String)> = Vec::new();
    let mut route_places = HashSet::new();
    let mut writes: Vec<&str> = Vec::new();
    let mut signals: Vec<String> = Vec::new();
    let mut signal_nodes: Vec<Location> = Vec::new();
    let mut signal_places = HashSet::new();
    let mut methods_nodes: Vec<(Location, String)> = Vec::new();
    let mut methods_places = HashSet::new();
    let mut every_method = false;
    for h in hits {
        let s = subject(h);
        if subjects_seen.insert(s.clone()) {
            subjects.push(s);
        }
        // The route (a call in code: the client it goes through).
        let (loc, label) = match (&h.route.name, h.object.platform.is_code()) {
            (_, true) => (h.object.at.location(), "the retry client".to_string()),
            (Some(r), false) => (
                h.route.at.location(),
                format!("route `{r}`: no operation binds it"),
            ),
            (None, false) => (
                h.route.at.location(),
                "route: no operation binds it".to_string(),
            ),
        };
        // A route that holds its own retry setting is named by the message; a label
        // above the setting would head the excerpt instead of the finding.
        let holds_setting = !h.object.platform.is_code() && holds(&h.route.at, &primary_loc);
        if !holds_setting && !same(&loc, &primary_loc) && route_places.insert(place(&loc)) {
            route_nodes.push((loc, label));
        }
        for w in &h.writes {
            if !writes.contains(w) {
                writes.push(w);
            }
        }
        for sig in &h.signals {
            let text = format!("`{}`", sig.value);
            if !signals.contains(&text) {
                signals.push(text);
            }
            let loc = sig.at.location();
            if !same(&loc, &primary_loc) && signal_places.insert(place(&loc)) {
                signal_nodes.push(loc);
            }
        }
        match &h.route.settings.methods {
            Some(m) => {
                let loc = m.at.location();
                if !same(&loc, &primary_loc) && methods_places.insert(place(&loc)) {
                    methods_nodes.push((loc, format!("admits {}", h.writes.join(" and "))));
                }
            }
            None => {
                every_method |= h.route.matches.is_empty()
                    || h.route.matches.iter().any(|m| m.methods.is_none());
            }
        }
    }
    // A methods filter's node often holds the signals too (Spring Cloud Gateway):
    // one label there.
    signal_nodes.retain(|l| !methods_places.contains(&place(l)));
    let subject = match subjects.as_slice() {
        [one] => one.clone(),
        many => {
            several(hits).unwrap_or_else(|| format!("{} routes ({})", many.len(), many.join(", ")))
        }
    };
    let verb = if subjects.len() == 1 {
        "retries"
    } else {
        "retry"
    };
    let for_methods = if every_method {
        "for every method".to_string()
    } else {
        format!(
            "for {}",
            join_and(&writes.iter().map(|w| w.to_string()).collect::<Vec<_>>())
        )
    };
    let write = writes.join(" or ");
    let message = format!(
        "{subject} {verb} on {} {for_methods}: {} may resend a {write} that the upstream already processed; no operation of a spec binds {}, so bind the API's spec to know which operations",
        signals.join(", "),
        if subjects.len() == 1 { "it" } else { "they" },
        if subjects.len() == 1 { "it" } else { "them" }
    );
    let never_sent: Vec<String> = crate::retry::signals::SIGNALS
        .iter()
        .filter(|m| m.never_processed)
        .map(|m| format!("`{}`", m.name))
        .collect();
    let mut entries: Vec<String> = Vec::new();
    let mut entries_seen: HashSet<String> = HashSet::new();
    for h in hits {
        let e = entry(h.index, h.route_index);
        if entries_seen.insert(e.clone()) {
            entries.push(e);
        }
    }
    let help = format!(
        "{}\nor narrow the retry: a method filter that leaves out {}, or retry only on signals after which the request was never sent ({})",
        entries.first().cloned().unwrap_or_default(),
        WRITES.join(" and "),
        never_sent.join(", ")
    );
    let primary_label = if hits.iter().any(|h| h.object.platform.is_code()) {
        "a retried call with a write method"
    } else {
        "retry turned on here"
    };
    let mut d = Diagnostic::new(&META, message, primary_loc, primary_label).with_help(help);
    // Exactly the labels it gets: a vector grown by pushes holds four, and a config
    // of 100,000 routes has a finding each (issue 43).
    d.labels
        .reserve_exact(methods_nodes.len() + signal_nodes.len() + route_nodes.len());
    for (loc, label) in methods_nodes {
        d = d.with_label(loc, label);
    }
    for loc in signal_nodes {
        d = d.with_label(loc, "retried on possibly processed attempts");
    }
    for (loc, label) in route_nodes {
        d = d.with_label(loc, label);
    }
    d
}
