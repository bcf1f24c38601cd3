//! Spring Cloud Gateway: the `Retry` filter of routes and `default-filters`
//! (`retry-configs.md` §7.2, §12 row SCG; case README 14, Q1, Q23-Q25).
//!
//! Read from a Spring `application*.yml`/`.properties` document (each profile
//! document on its own), under `spring.cloud.gateway.server.webflux` (4.3+),
//! `spring.cloud.gateway` (before 4.3), `spring.cloud.gateway.server.webmvc` and
//! `spring.cloud.gateway.mvc` (WebMVC, whose filter has no `statuses`, `jitter` or
//! `timeout` and whose shortcut is `retries, series, methods`):
//!
//! - Every route becomes one [`ConfigObject`] (layer gateway), in the gateway's order
//!   (`order`, then declaration: the first matching route wins), so that a route's
//!   `Host=` predicate decides its own binding (Q1: a route for another host binds
//!   to nothing, RL016 at its `Host`). Its names are its `Host` patterns, the host of
//!   its `uri` (a `${VAR:default}` placeholder takes its default; an unresolved one
//!   names nothing) and its `id`.
//! - `default-filters` apply to every route, before the route's own filters at the
//!   same position (`RouteDefinitionRouteLocator.getFilters`: both lists, ordered by
//!   position, stable). A route with its own `Retry` and a default `Retry` runs both,
//!   nested; they share one iteration counter, so the larger `retries` bounds the
//!   tries, and a method either admits is retried on the signals of both.
//! - `retries` counts retries (tries = retries + 1); signals are `statuses` ∪
//!   `series` (default 5xx) ∪ the `exceptions` (IOException: connect failure and
//!   reset; TimeoutException: timeout); `methods` (default GET) gates every retry,
//!   exceptions included (Q24), so a route is split per method set: the methods the
//!   filter admits are retried, the others are not retried at all. `backoff` and
//!   `jitter.randomFactor` (proportional) only when written; `timeout` is the
//!   deadline; the gateway's `httpclient.response-timeout` or the route's
//!   `metadata.response-timeout` (ms) is the per-try timeout. Retry-After is not read.
//! - Where findings point (case README table): the `Retry` filter item turns the
//!   retry on; the signals sit at the `methods` that admits the method when it is
//!   written (Q23), else at the filter; a default sits at the node that would have
//!   set it, with an [`OriginNote`].
//! - Unknown `Retry` arguments are RL017 with a "did you mean"; values Spring rejects
//!   (the route does not load) are RL017 too, and that route is read without the
//!   filter.

pub mod defs;
pub mod retry;
pub mod routing;
pub mod time_limiter;

use self::defs::{relaxed, Definition};
use self::retry::RetryFilter;
use self::time_limiter::TimeLimiter;
use super::source::{self, SpringDoc};
use crate::diagnostic::Diagnostic;
use crate::import::rl017_ineffective_setting;
use crate::import::route::{PathMatch, RequestMatch, Rewrite};
use crate::import::{ConfigObject, Imported, OriginNote, Platform, Route};
use crate::policy::model::{
    AttemptTimeout, BackoffSettings, Jitter, JitterFactor, Layer, Settings, Signal, Spanned,
};
use crate::source::loader::Loaded;
use crate::source::refs::At;
use crate::source::tree::{Kind, NodeId, Tree};
use std::sync::Arc;

/// Where Spring Cloud Gateway's properties live, and whether it is the WebMVC server.
const PREFIXES: &[(&str, bool)] = &[
    ("spring.cloud.gateway.server.webflux", false),
    ("spring.cloud.gateway", false),
    ("spring.cloud.gateway.server.webmvc", true),
    ("spring.cloud.gateway.mvc", true),
];

/// The source of the defaults, for notes.
const SOURCE: &str = "Spring Cloud Gateway RetryGatewayFilterFactory; retry-configs.md §7.2";

/// Reads the Spring Cloud Gateway routes of one Spring file: the base variant (the
/// documents without a profile, merged) and each profile's merged variant when that
/// profile's own documents write gateway properties (`documents`: the documents one
/// by one, to see which profile writes what). Profile variants come first, so that
/// for the operations they bind the profile's routes are the ones checked, as for
/// Resilience4j (the join stacks the objects of one file as one layer, first match
/// winning: variants are alternatives, not layers). Never panics.
pub fn import(variants: &[SpringDoc], documents: &[SpringDoc]) -> Imported {
    let mut profiles = Imported::default();
    let mut base = Imported::default();
    for v in variants {
        match &v.profile {
            None => import_document(&v.doc, v.root, None, &mut base),
            Some((p, _)) => {
                let writes_gateway = documents.iter().any(|d| {
                    d.profile.as_ref().is_some_and(|(q, _)| q == p)
                        && d.doc.tree.as_ref().is_ok_and(|t| {
                            PREFIXES
                                .iter()
                                .any(|(prefix, _)| !source::find(t, d.root, prefix).is_empty())
                        })
                });
                if writes_gateway {
                    import_document(&v.doc, v.root, Some(p.as_str()), &mut profiles);
                }
            }
        }
    }
    // A finding about a value the base and a profile variant share is reported once.
    let mut out = profiles;
    out.objects.extend(base.objects);
    for d in base.diagnostics {
        let same = |e: &Diagnostic| {
            e.code == d.code
                && e.primary.location.span == d.primary.location.span
                && e.primary.location.file.path == d.primary.location.file.path
        };
        if !out.diagnostics.iter().any(same) {
            out.diagnostics.push(d);
        }
    }
    out
}

/// Reads one document (`profile`: its `spring.config.activate.on-profile`).
pub fn import_document(doc: &Arc<Loaded>, root: NodeId, profile: Option<&str>, out: &mut Imported) {
    let Ok(tree) = &doc.tree else { return };
    for &(prefix, webmvc) in PREFIXES {
        let defaults: Vec<Definition> = if webmvc {
            Vec::new()
        } else {
            source::find(tree, root, &format!("{prefix}.default-filters"))
                .into_iter()
                .flat_map(|n| defs::list_items(tree, n))
                .filter_map(|i| defs::read(tree, i))
                .collect()
        };
        let response_timeout =
            source::find(tree, root, &format!("{prefix}.httpclient.response-timeout"))
                .into_iter()
                .find_map(|n| {
                    tree.scalar(n)
                        .and_then(retry::spring_duration)
                        .map(|ms| (ms, n))
                });
        let route_nodes: Vec<NodeId> = source::find(tree, root, &format!("{prefix}.routes"))
            .into_iter()
            .flat_map(|n| defs::list_items(tree, n))
            .collect();
        // Default filters are read once: their findings are reported once.
        let mut default_retries: Vec<(usize, RetryFilter)> = Vec::new();
        for (i, d) in defaults.iter().enumerate() {
            check_name(doc, tree, d, &mut out.diagnostics);
            if d.name == "Retry" {
                if let Some(f) = read_retry(doc, tree, d, webmvc, &mut out.diagnostics) {
                    default_retries.push((i, f));
                }
            }
        }
        let ctx = DocContext {
            doc,
            tree,
            root,
            profile,
            webmvc,
            defaults: &defaults,
            default_retries: &default_retries,
            response_timeout,
        };
        let mut objects: Vec<(i64, usize, ConfigObject)> = Vec::new();
        for (k, &r) in route_nodes.iter().enumerate() {
            if tree.kind(r) != Kind::Map {
                continue;
            }
            let order = get(tree, r, "order")
                .and_then(|n| tree.as_i64(n))
                .unwrap_or(0);
            let mut o = route_object(&ctx, r, k, &mut out.diagnostics);
            o.variant = Some(super::profile_variant(doc, ctx.profile));
            objects.push((order, k, o));
        }
        objects.sort_by_key(|(order, k, _)| (*order, *k));
        out.objects.extend(objects.into_iter().map(|(_, _, o)| o));
    }
}

/// What every route of one document shares.
struct DocContext<'a> {
    doc: &'a Arc<Loaded>,
    tree: &'a Tree,
    /// The document's root (where `resilience4j.timelimiter` is looked up).
    root: NodeId,
    profile: Option<&'a str>,
    webmvc: bool,
    defaults: &'a [Definition],
    default_retries: &'a [(usize, RetryFilter)],
    response_timeout: Option<(f64, NodeId)>,
}

/// The value of `key` in `map` under relaxed binding.
fn get(tree: &Tree, map: NodeId, key: &str) -> Option<NodeId> {
    if tree.kind(map) != Kind::Map {
        return None;
    }
    source::get(tree, map, key)
}

/// RL017 for a filter named like `Retry` in another case: Spring finds no factory
/// of that name and the route does not load.
fn check_name(doc: &Arc<Loaded>, _tree: &Tree, d: &Definition, diags: &mut Vec<Diagnostic>) {
    if d.name != "Retry" && relaxed(&d.name) == "retry" {
        diags.push(rl017_ineffective_setting::diagnostic(
            &At::new(doc, d.node),
            format!("unknown filter `{}`: did you mean `Retry`?", d.name),
            "unknown filter",
            "Spring Cloud Gateway looks filters up by their exact name (\"Unable to find GatewayFilterFactory\"), so this route does not load and nothing is retried".to_string(),
        ));
    }
}

fn read_retry(
    doc: &Arc<Loaded>,
    tree: &Tree,
    d: &Definition,
    webmvc: bool,
    diags: &mut Vec<Diagnostic>,
) -> Option<RetryFilter> {
    let push = |p: retry::Problem, diags: &mut Vec<Diagnostic>| {
        diags.push(rl017_ineffective_setting::diagnostic(
            &At::new(doc, p.node),
            p.message,
            p.label,
            p.help,
        ));
    };
    match retry::read(tree, d, webmvc) {
        Ok((f, problems)) => {
            for p in problems {
                push(p, diags);
            }
            if let (Some(j), None) = (f.jitter_node, &f.backoff) {
                diags.push(rl017_ineffective_setting::diagnostic(
                    &At::new(doc, j),
                    "`jitter` of the `Retry` filter has no `backoff` to spread".to_string(),
                    "jitter without backoff",
                    "without a `backoff` block the retries are immediate, and reactor-addons' `RandomJitter` leaves a zero delay at zero; add `backoff` (`firstBackoff`, `maxBackoff`, `factor`)".to_string(),
                ));
            }
            Some(f)
        }
        Err(p) => {
            push(p, diags);
            None
        }
    }
}

/// The host of a route `uri` (`lb://catalog`, `http://localhost:9001/books`), with
/// `${VAR:default}` placeholders taking their default; `None` when a placeholder has
/// no default or the URI has no host (`forward:/x`, `no://op`).
fn uri_host(uri: &str) -> Option<String> {
    let source::Resolved::Known(text) = source::resolve(uri) else {
        return None;
    };
    let (scheme, rest) = text.split_once("://")?;
    if scheme == "no" {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if host.starts_with('[') {
        host.split_inclusive(']').next().unwrap_or(host)
    } else {
        host.split(':').next().unwrap_or(host)
    };
    (!host.is_empty()).then(|| host.to_string())
}

/// One route: its names, its matches per method group and the settings of each.
fn route_object(
    ctx: &DocContext<'_>,
    r: NodeId,
    k: usize,
    diags: &mut Vec<Diagnostic>,
) -> ConfigObject {
    let (doc, tree) = (ctx.doc, ctx.tree);
    let at = |n: NodeId| At::new(doc, n);
    let id_node = get(tree, r, "id");
    let id = id_node
        .and_then(|n| tree.scalar(n))
        .map_or_else(|| format!("route {}", k + 1), str::to_string);
    let predicates: Vec<Definition> = get(tree, r, "predicates")
        .map(|n| defs::list_items(tree, n))
        .unwrap_or_default()
        .into_iter()
        .filter_map(|i| defs::read(tree, i))
        .collect();
    let own_filters: Vec<Definition> = get(tree, r, "filters")
        .map(|n| defs::list_items(tree, n))
        .unwrap_or_default()
        .into_iter()
        .filter_map(|i| defs::read(tree, i))
        .collect();
    let p = routing::predicates(&predicates);

    // Names: hosts first (RL016 points at the first), then the uri's host, the id.
    let mut names: Vec<Spanned<String>> = Vec::new();
    for (pattern, node) in &p.hosts {
        if let Some(name) = routing::host_name(pattern) {
            names.push(Spanned {
                value: name,
                at: at(*node),
            });
        }
    }
    if let Some((n, host)) =
        get(tree, r, "uri").and_then(|n| tree.scalar(n).and_then(uri_host).map(|h| (n, h)))
    {
        if !names.iter().any(|x| x.value == host) {
            names.push(Spanned {
                value: host,
                at: at(n),
            });
        }
    }
    if let Some(n) = id_node {
        if !names.iter().any(|x| x.value == id) {
            names.push(Spanned {
                value: id.clone(),
                at: at(n),
            });
        }
    }

    // The filter chain: default and own filters ordered by position, defaults first.
    let mut chain: Vec<(usize, bool, &Definition)> = ctx
        .defaults
        .iter()
        .enumerate()
        .map(|(i, d)| (i, true, d))
        .chain(own_filters.iter().enumerate().map(|(i, d)| (i, false, d)))
        .collect();
    chain.sort_by_key(|(i, is_default, _)| (*i, !*is_default));

    // Retry filters in chain order (defaults already read).
    let mut retries: Vec<(bool, RetryFilter)> = Vec::new();
    for &(i, is_default, d) in &chain {
        if is_default {
            if let Some((_, f)) = ctx.default_retries.iter().find(|(j, _)| *j == i) {
                retries.push((true, f.clone()));
            }
            continue;
        }
        check_name(doc, tree, d, diags);
        if d.name == "Retry" {
            if let Some(f) = read_retry(doc, tree, d, ctx.webmvc, diags) {
                retries.push((false, f));
            }
        }
    }

    // A `CircuitBreaker` filter before the first `Retry` wraps the whole retry loop:
    // its TimeLimiter is the deadline (case 76). The tightest one when several do.
    let first_retry = chain.iter().position(|(_, _, d)| d.name == "Retry");
    let limiter: Option<TimeLimiter> = first_retry.and_then(|end| {
        chain[..end]
            .iter()
            .filter(|(_, _, d)| time_limiter::is_circuit_breaker(d))
            .map(|(_, _, d)| time_limiter::read(tree, ctx.root, d, &id))
            .min_by(|a, b| a.timeout_ms.total_cmp(&b.timeout_ms))
    });

    // The per-try timeout: the route's metadata, else the gateway's http client.
    let attempt_timeout = get(tree, r, "metadata")
        .and_then(|m| get(tree, m, "response-timeout"))
        .and_then(|n| {
            let t = tree.scalar(n)?.trim();
            match t.parse::<i64>() {
                Ok(v) if v < 0 => Some(None),
                Ok(v) => Some(Some((v as f64, n))),
                Err(_) => retry::spring_duration(t).map(|ms| Some((ms, n))),
            }
        })
        .unwrap_or(ctx.response_timeout);

    // Matches per Path pattern, each with its own rewrite (StripPrefix strips what
    // that pattern spells out).
    let patterns: Vec<Option<&str>> = if p.paths.is_empty() {
        vec![None]
    } else {
        p.paths.iter().map(|s| Some(s.as_str())).collect()
    };
    let partial_base = !p.other.is_empty();
    let mut variants: Vec<(PathMatch, Option<Rewrite>, bool)> = Vec::new();
    for pattern in patterns {
        let (path, mut partial) = match pattern {
            None => (PathMatch::Any, false),
            Some(text) => match routing::path_match(text) {
                Ok(m) => (m, false),
                Err(_) => (PathMatch::Any, true),
            },
        };
        let mut steps: Vec<Rewrite> = Vec::new();
        for &(_, _, d) in &chain {
            // StripPrefix strips what the pattern spells out only when no earlier
            // filter changed the path (a default `PrefixPath` runs first).
            let seen = if steps.is_empty() { pattern } else { None };
            if let Some(s) = routing::step(d, seen) {
                partial |= s.partial;
                steps.push(s.rewrite);
            }
        }
        let rewrite = match steps.len() {
            0 => None,
            1 => steps.pop(),
            _ => Some(Rewrite::Chain(steps)),
        };
        variants.push((path, rewrite, partial || partial_base));
    }

    let name = match ctx.profile {
        Some(pr) => format!("{id} (profile {pr})"),
        None => id.clone(),
    };
    let route_at = at(r);
    let mut routes: Vec<Route> = Vec::new();
    let mut push_routes =
        |methods: Option<Vec<String>>, settings: &Settings, notes: &[OriginNote]| {
            let methods = match (methods, &p.methods) {
                (None, m) => m.clone(),
                (Some(group), None) => Some(group),
                (Some(group), Some(pred)) => {
                    Some(group.into_iter().filter(|m| pred.contains(m)).collect())
                }
            };
            if methods.as_ref().is_some_and(Vec::is_empty) {
                return;
            }
            for (path, rewrite, partial) in &variants {
                routes.push(Route {
                    at: route_at.clone(),
                    name: Some(name.clone()),
                    matches: vec![RequestMatch {
                        path: path.clone(),
                        methods: methods.clone(),
                        partial: *partial,
                    }],
                    rewrite: rewrite.clone(),
                    settings: settings.clone(),
                    notes: notes.to_vec(),
                });
            }
        };

    if retries.is_empty() {
        let mut s = Settings::empty(route_at.clone());
        s.retry = Some(Spanned {
            value: false,
            at: route_at.clone(),
        });
        push_routes(None, &s, &[]);
    } else {
        // Methods grouped by the filters that admit them.
        let mut groups: Vec<(Vec<usize>, Vec<String>)> = Vec::new();
        for (_, f) in &retries {
            for m in &f.methods.value {
                let admitting: Vec<usize> = retries
                    .iter()
                    .enumerate()
                    .filter(|(_, (_, g))| g.methods.value.contains(m))
                    .map(|(i, _)| i)
                    .collect();
                match groups.iter_mut().find(|(a, _)| *a == admitting) {
                    Some((_, ms)) => {
                        if !ms.contains(m) {
                            ms.push(m.clone());
                        }
                    }
                    None => groups.push((admitting, vec![m.clone()])),
                }
            }
        }
        for (admitting, methods) in &groups {
            let filters: Vec<&(bool, RetryFilter)> =
                admitting.iter().map(|&i| &retries[i]).collect();
            let (s, notes) = retried_settings(ctx, &filters, attempt_timeout, limiter.as_ref());
            push_routes(Some(methods.clone()), &s, &notes);
        }
        // Every other method: not retried at all (the filter's `methods` gates every
        // retry, exceptions included).
        // The route's own filter when it has one (its `methods` says what is left
        // out), else the last default one.
        if let Some((_, f)) = retries
            .iter()
            .rev()
            .find(|(is_default, _)| !is_default)
            .or(retries.last())
        {
            let off_node = f.methods.node.unwrap_or(f.node);
            let mut s = Settings::empty(at(f.node));
            s.retry = Some(Spanned {
                value: false,
                at: at(off_node),
            });
            let admitted: Vec<String> = groups.iter().flat_map(|(_, m)| m.clone()).collect();
            let note = OriginNote {
                at: at(off_node),
                text: crate::import::note_text(format!(
                    "Spring Cloud Gateway's `Retry` filter retries only the methods in `methods` ({}{}), on every signal, exceptions included (spring-cloud-gateway#2708): other methods are not retried ({SOURCE})",
                    admitted.join(", "),
                    if f.methods.node.is_none() { ": the default" } else { "" }
                )),
            };
            push_routes(None, &s, &[note]);
        }
    }
    // Two or three routes (the retried method group, the rest) in a vector grown to
    // four: the slack was a third of the memory of a large application.properties.
    routes.shrink_to_fit();
    ConfigObject {
        method_scoped: Vec::new(),
        variant: None,
        url_prefixes: Vec::new(),
        platform: Platform::SpringCloudGateway,
        kind: "route".to_string(),
        name,
        at: route_at,
        layer: Layer::Gateway,
        names,
        routes,
    }
}

/// The settings of a method group retried by `filters` (in chain order; the last
/// is the innermost and gives backoff, jitter and timeout), with notes on defaults.
/// `limiter`: the TimeLimiter of a `CircuitBreaker` filter around the retry loop,
/// a deadline for it.
fn retried_settings(
    ctx: &DocContext<'_>,
    filters: &[&(bool, RetryFilter)],
    attempt_timeout: Option<(f64, NodeId)>,
    limiter: Option<&TimeLimiter>,
) -> (Settings, Vec<OriginNote>) {
    let doc = ctx.doc;
    let at = |n: NodeId| At::new(doc, n);
    let (_, primary) = filters[filters.len() - 1];
    let filter_at = at(primary.node);
    let mut s = Settings::empty(filter_at.clone());
    s.retry = Some(Spanned {
        value: true,
        at: filter_at.clone(),
    });
    let widest = filters
        .iter()
        .map(|(_, f)| f)
        .max_by_key(|f| f.retries.value)
        .unwrap_or(primary);
    s.attempts = Some(Spanned {
        value: widest.retries.value + 1,
        at: at(widest.retries.node.unwrap_or(widest.node)),
    });

    let mut signals: Vec<Spanned<Signal>> = Vec::new();
    let mut push = |value: Signal, node: NodeId| {
        if !signals.iter().any(|x| x.value == value) {
            signals.push(Spanned {
                value,
                at: at(node),
            });
        }
    };
    for (_, f) in filters {
        for &(code, node) in &f.statuses {
            push(Signal::Status(code), node);
        }
        for &(digit, node) in &f.series {
            push(Signal::Class(digit), node.unwrap_or(f.node));
        }
        for e in &f.exceptions {
            for &sig in &e.signals {
                push(sig, e.node.unwrap_or(f.node));
            }
        }
    }
    // Q23: the signals sit at the `methods` that admits the method when written.
    let list_node = primary.methods.node.unwrap_or(primary.node);
    s.retry_on = Some(Spanned {
        value: signals,
        at: at(list_node),
    });
    let mut methods: Vec<Spanned<String>> = Vec::new();
    for (_, f) in filters {
        for m in &f.methods.value {
            if !methods.iter().any(|x| &x.value == m) {
                methods.push(Spanned {
                    value: m.clone(),
                    at: at(f.methods.node.unwrap_or(f.node)),
                });
            }
        }
    }
    s.methods = Some(Spanned {
        value: methods,
        at: at(list_node),
    });
    if let Some(b) = &primary.backoff {
        let b_at = at(b.node);
        s.backoff = Some(BackoffSettings {
            at: b_at.clone(),
            base: Some(Spanned {
                value: b.first.value,
                at: b.first.node.map_or_else(|| b_at.clone(), at),
            }),
            cap: b.max.as_ref().map(|m| Spanned {
                value: m.value,
                at: m.node.map_or_else(|| b_at.clone(), at),
            }),
            multiplier: Some(Spanned {
                value: b.factor.value,
                at: b.factor.node.map_or_else(|| b_at.clone(), at),
            }),
            jitter: primary.jitter.as_ref().map(|j| {
                let j_at = j
                    .node
                    .or(primary.jitter_node)
                    .map_or_else(|| b_at.clone(), at);
                Spanned {
                    value: JitterFactor::new(j.value).map_or(Jitter::None, Jitter::Proportional),
                    at: j_at,
                }
            }),
        });
    }
    if let Some(t) = &primary.timeout {
        s.deadline = Some(Spanned {
            value: t.value,
            at: at(t.node.unwrap_or(primary.node)),
        });
    }
    let mut limiter_note = None;
    if let Some(l) = limiter.filter(|l| s.deadline.as_ref().is_none_or(|d| l.timeout_ms < d.value))
    {
        let l_at = at(l.node.unwrap_or(l.filter));
        s.deadline = Some(Spanned {
            value: l.timeout_ms,
            at: l_at.clone(),
        });
        let text = match l.node {
            Some(_) => format!(
                "the `CircuitBreaker` filter listed before `Retry` runs the whole retry loop inside circuit breaker `{}`, whose Resilience4j TimeLimiter (`resilience4j.timelimiter.{}.timeoutDuration`) cancels it: the deadline ({})",
                l.instance, l.from, time_limiter::SOURCE
            ),
            None => format!(
                "the `CircuitBreaker` filter listed before `Retry` runs the whole retry loop inside circuit breaker `{}`, whose Resilience4j TimeLimiter cancels it after `timeoutDuration`; no `resilience4j.timelimiter.instances.{}` nor `configs.default` sets it, so the default 1 s is the deadline (unless Java code configures it, e.g. `ReactiveResilience4JCircuitBreakerFactory.configureDefault`) ({})",
                l.instance, l.instance, time_limiter::SOURCE
            ),
        };
        limiter_note = Some(OriginNote {
            at: l_at,
            text: crate::import::note_text(text),
        });
    }
    if let Some((ms, node)) = attempt_timeout {
        s.attempt_timeout = Some(Spanned {
            value: AttemptTimeout::Fixed(ms),
            at: at(node),
        });
    }

    // Notes: the defaults this filter stands for, at the filter.
    let mut defaults: Vec<String> = Vec::new();
    if widest.retries.node.is_none() {
        defaults.push(format!(
            "retries {} ({} tries)",
            retry::DEFAULT_RETRIES,
            retry::DEFAULT_RETRIES + 1
        ));
    }
    if primary.series_node.is_none() {
        defaults.push(if primary.statuses.is_empty() {
            "series SERVER_ERROR (5xx)".to_string()
        } else {
            "series SERVER_ERROR (5xx), which `statuses` does not replace (spring-cloud-gateway#1536)".to_string()
        });
    }
    if primary.methods.node.is_none() {
        defaults.push("methods GET".to_string());
    }
    if primary.exceptions_node.is_none() {
        defaults.push(if primary.webmvc {
            "exceptions IOException, TimeoutException and RetryException (connect failure, reset, timeout)".to_string()
        } else {
            "exceptions IOException and TimeoutException (connect failure, reset, timeout)".to_string()
        });
    }
    if primary.backoff.is_none() {
        defaults.push("no backoff".to_string());
    }
    if primary.jitter.is_none() {
        defaults.push("no jitter".to_string());
    }
    if primary.timeout.is_none() && limiter_note.is_none() {
        defaults.push("no timeout (deadline)".to_string());
    }
    let mut notes: Vec<OriginNote> = limiter_note.into_iter().collect();
    if !defaults.is_empty() {
        notes.push(OriginNote {
            at: filter_at.clone(),
            text: crate::import::note_text(format!(
                "{} Spring Cloud Gateway's defaults for what {} not write: {}; Retry-After is not read ({SOURCE})",
                if filters.len() > 1 { "the `Retry` filters take" } else { "the `Retry` filter takes" },
                if filters.len() > 1 { "they do" } else { "it does" },
                defaults.join(", ")
            )),
        });
    }
    if let Some(b) = &primary.backoff {
        let mut missing = Vec::new();
        if b.first.node.is_none() {
            missing.push(format!(
                "firstBackoff {} ms",
                retry::DEFAULT_FIRST_BACKOFF_MS
            ));
        }
        if b.max.is_none() {
            missing.push("no maxBackoff (uncapped)".to_string());
        }
        if b.factor.node.is_none() {
            missing.push(format!("factor {}", retry::DEFAULT_FACTOR));
        }
        if !missing.is_empty() {
            notes.push(OriginNote {
                at: at(b.node),
                text: crate::import::note_text(format!(
                    "`backoff` defaults: {} ({SOURCE})",
                    missing.join(", ")
                )),
            });
        }
    }
    if let Some(j) = &primary.jitter {
        if j.node.is_none() {
            if let Some(n) = primary.jitter_node {
                notes.push(OriginNote {
                    at: at(n),
                    text: crate::import::note_text(format!(
                        "`jitter` without `randomFactor`: the default {} ({SOURCE})",
                        retry::DEFAULT_RANDOM_FACTOR
                    )),
                });
            }
        }
    }
    if primary.methods.node.is_some_and(|n| n != primary.node) {
        // Q23: a finding at `methods` names the filter that retries.
        let line = {
            let loc = filter_at.location();
            doc.file.line_col(loc.span.start).line
        };
        notes.push(OriginNote {
            at: at(list_node),
            text: crate::import::note_text(format!(
                "these methods are retried by the `Retry` filter at line {line} on {}",
                describe_signals(primary)
            )),
        });
    }
    if filters.len() > 1 {
        let lines: Vec<String> = filters
            .iter()
            .map(|(is_default, f)| {
                let loc = at(f.node).location();
                format!(
                    "{} at line {}",
                    if *is_default {
                        "a default filter"
                    } else {
                        "the route's filter"
                    },
                    doc.file.line_col(loc.span.start).line
                )
            })
            .collect();
        notes.push(OriginNote {
            at: filter_at,
            text: crate::import::note_text(format!(
                "several `Retry` filters run on this route, nested ({}); they share one iteration counter, so the largest `retries` bounds the tries and the signals add up ({SOURCE})",
                lines.join(", ")
            )),
        });
    }
    (s, notes)
}

/// The signals of a filter, for notes: `series SERVER_ERROR, exceptions ...`.
fn describe_signals(f: &RetryFilter) -> String {
    let mut parts = Vec::new();
    if !f.statuses.is_empty() {
        parts.push(format!(
            "statuses {}",
            f.statuses
                .iter()
                .map(|(c, _)| c.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !f.series.is_empty() {
        parts.push(format!(
            "series {}{}",
            f.series
                .iter()
                .map(|(d, _)| format!("{d}xx"))
                .collect::<Vec<_>>()
                .join(", "),
            if f.series_node.is_none() {
                " (the default)"
            } else {
                ""
            }
        ));
    }
    if !f.exceptions.is_empty() {
        parts.push(format!(
            "exceptions {}{}",
            f.exceptions
                .iter()
                .map(|e| e.class.rsplit('.').next().unwrap_or("").to_string())
                .collect::<Vec<_>>()
                .join(", "),
            if f.exceptions_node.is_none() {
                " (the default)"
            } else {
                ""
            }
        ));
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests;
