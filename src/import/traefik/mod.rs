//! Traefik dynamic configuration, YAML or TOML: the `retry` middlewares
//! (`http.middlewares.<name>.retry`) and the routers that use them
//! (`http.routers.<name>`: `rule`, `middlewares`, `service`, `priority`);
//! `retry-configs.md` §9.2.
//!
//! - TOML is read into a located tree ([`toml_tree`]; valid files by the lean reader
//!   of `toml_lean`, anything else by `toml_edit`); a syntax error is RL001 at its
//!   position. A Go template that breaks the syntax (`{{ if
//!   }}` lines) is skipped: [`read`] says so in [`TraefikRead::skipped_template`]
//!   (printed under `--verbose`; render the template first). Placeholders inside
//!   strings (`"http://{{ .WhoamiIP }}:80"`) are just strings.
//! - Keys are matched case-insensitively, as Traefik's file provider does.
//! - One route table per Traefik service that a retrying router reaches: its routes
//!   are every router of that service in Traefik's order (highest `priority` first;
//!   the default priority is the rule's length), the routers without a retry
//!   middleware as `retry: false`, so they shadow the others as in Traefik.
//! - Middleware references may carry a provider (`retry@file`); one of another
//!   provider (`@docker`) is not in this file and is skipped. `chain` middlewares are
//!   followed. The layer is `gateway`.

pub mod retry;
pub mod rule;
mod toml_lean;
pub mod toml_tree;

use super::{ConfigObject, ImportContext, Imported, OriginNote, Platform, Route};
use crate::diagnostic::Diagnostic;
use crate::import::rl017_ineffective_setting;
use crate::policy::model::{Layer, Settings, Spanned};
use crate::source::loader::Loaded;
use crate::source::refs::At;
use crate::source::rl001_invalid_syntax;
use crate::source::tree::{Kind, NodeId, Tree};
use retry::RetryMiddleware;
use std::collections::HashMap;
use std::sync::Arc;

/// What [`read`] found in one file.
#[derive(Debug, Default)]
pub struct TraefikRead {
    /// Route tables and findings.
    pub imported: Imported,
    /// True when the file is a Go template whose directives break the TOML/YAML
    /// syntax: it was skipped without a finding (print it under `--verbose`:
    /// "render the template first").
    pub skipped_template: bool,
}

/// Reads one Traefik file (the [`read`] result without the template flag).
pub fn import(doc: &Arc<Loaded>, ctx: &ImportContext<'_>) -> Imported {
    read(doc, ctx).imported
}

/// Reads one Traefik dynamic configuration file, YAML or TOML (by its `.toml`
/// extension). Never panics; a TOML syntax error is RL001 with its position.
pub fn read(doc: &Arc<Loaded>, _ctx: &ImportContext<'_>) -> TraefikRead {
    let mut out = TraefikRead::default();
    let is_toml = doc
        .file
        .path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    let located = if is_toml {
        match toml_tree::parse(&doc.file.text) {
            Ok(tree) => Arc::new(Loaded::new(doc.file.clone(), Ok(tree))),
            Err(e) => {
                if is_template(&doc.file.text) {
                    out.skipped_template = true;
                } else if let Some((key, first, repeated)) =
                    toml_tree::duplicate_key(&doc.file.text, &e)
                {
                    // RL002 as in every other format, with both definitions.
                    out.imported
                        .diagnostics
                        .push(crate::source::rl002_duplicate_key::repeated(
                            &doc.file,
                            &key,
                            first,
                            repeated,
                            "TOML forbids defining a key twice, so Traefik refuses the whole file; retrylint reads nothing from it.",
                        ));
                } else {
                    out.imported
                        .diagnostics
                        .push(rl001_invalid_syntax::in_format(
                            doc, "TOML", &e.message, e.offset,
                        ));
                }
                return out;
            }
        }
    } else {
        if doc.tree.is_err() {
            // The loader reports the YAML error; a template is skipped.
            out.skipped_template = is_template(&doc.file.text);
            return out;
        }
        doc.clone()
    };
    out.imported = import_tree(&located);
    out
}

/// True when `doc` is a Traefik TOML file whose Go template directives break the
/// syntax: it is skipped (listed by `--verbose`: render it first), not linted.
pub fn is_broken_template(doc: &Loaded) -> bool {
    is_template(&doc.file.text) && toml_tree::parse(&doc.file.text).is_err()
}

/// True when the text holds Go template actions (`{{ ... }}`).
fn is_template(text: &str) -> bool {
    text.contains("{{") && text.contains("}}")
}

/// A key of `map` matched case-insensitively (the last one wins): (key, value).
pub(crate) fn get_ci(tree: &Tree, map: NodeId, key: &str) -> Option<(NodeId, NodeId)> {
    if tree.kind(map) != Kind::Map {
        return None;
    }
    tree.raw_entries(map)
        .iter()
        .rev()
        .find(|&&(k, _)| tree.scalar(k).is_some_and(|s| s.eq_ignore_ascii_case(key)))
        .copied()
}

/// A boolean value (`true`, or the string `"true"`, as Go's parser accepts).
pub(crate) fn is_true(tree: &Tree, node: NodeId) -> bool {
    tree.as_bool(node)
        .or_else(|| {
            tree.as_str(node)
                .map(|s| s.trim().eq_ignore_ascii_case("true"))
        })
        .unwrap_or(false)
}

/// What a middleware is, as far as retries go.
enum Middleware {
    /// Index into the retry middlewares read.
    Retry(usize),
    Chain(Vec<String>),
}

/// A router as read.
struct Router {
    name: String,
    node: NodeId,
    rule: Option<(NodeId, String)>,
    service: Option<(NodeId, String)>,
    priority: i64,
    retry: Option<usize>,
}

fn import_tree(doc: &Arc<Loaded>) -> Imported {
    let mut out = Imported::default();
    let Ok(tree) = &doc.tree else {
        return out;
    };
    let Some(root) = tree.root() else {
        return out;
    };
    let Some((_, http)) = get_ci(tree, root, "http") else {
        return out;
    };

    // Middlewares: retry ones (read once, findings once) and chains.
    let mut retries: Vec<RetryMiddleware> = Vec::new();
    let mut middlewares: HashMap<String, Middleware> = HashMap::new();
    // The chain middlewares: (name, name node, the names it lists).
    let mut chains: Vec<(String, NodeId, Vec<String>)> = Vec::new();
    if let Some((_, mws)) = get_ci(tree, http, "middlewares") {
        // Exactly as many as there are retry middlewares: a middleware is most of a
        // kilobyte, and a doubled vector's old and new buffers were the peak of a
        // large file's run (issue 43).
        let count = tree
            .raw_entries(mws)
            .iter()
            .filter(|&&(_, v)| get_ci(tree, v, "retry").is_some())
            .count();
        retries.reserve_exact(count);
        for &(k, v) in tree.raw_entries(mws) {
            let Some(name) = tree.scalar(k) else { continue };
            if let Some((_, block)) = get_ci(tree, v, "retry") {
                let r = retry::read(doc, tree, name, block, &mut out.diagnostics);
                middlewares.insert(name.to_string(), Middleware::Retry(retries.len()));
                retries.push(r);
            } else if let Some((_, chain)) = get_ci(tree, v, "chain") {
                let names = get_ci(tree, chain, "middlewares")
                    .map(|(_, list)| strings(tree, list))
                    .unwrap_or_default();
                chains.push((name.to_string(), k, names.clone()));
                middlewares.insert(name.to_string(), Middleware::Chain(names));
            }
        }
    }
    out.diagnostics.extend(chain_cycles(doc, &chains));
    if retries.is_empty() {
        return out;
    }
    // Routers.
    let mut routers = Vec::new();
    if let Some((_, rs)) = get_ci(tree, http, "routers") {
        routers.reserve_exact(tree.raw_entries(rs).len());
        for &(k, v) in tree.raw_entries(rs) {
            let Some(name) = tree.scalar(k) else { continue };
            if tree.kind(v) != Kind::Map {
                continue;
            }
            let rule = get_ci(tree, v, "rule")
                .and_then(|(_, r)| tree.scalar(r).map(|s| (r, s.to_string())));
            let service = get_ci(tree, v, "service").and_then(|(_, s)| {
                tree.scalar(s)
                    .map(|t| (s, strip_provider(t).unwrap_or(t).to_string()))
            });
            let priority = get_ci(tree, v, "priority")
                .and_then(|(_, p)| tree.as_i64(p))
                .filter(|p| *p != 0)
                .unwrap_or_else(|| rule.as_ref().map_or(0, |(_, r)| r.len() as i64));
            let refs = get_ci(tree, v, "middlewares")
                .map(|(_, list)| strings(tree, list))
                .unwrap_or_default();
            let retry = find_retry(&refs, &middlewares, 0);
            routers.push(Router {
                name: name.to_string(),
                node: v,
                rule,
                service,
                priority,
                retry,
            });
        }
    }
    // Traefik tries routers by priority, highest first (stable for ties).
    routers.sort_by_key(|r| std::cmp::Reverse(r.priority));

    // One table per service that a retrying router reaches.
    let mut services: Vec<String> = Vec::new();
    for r in &routers {
        let svc = r.service.as_ref().map_or(String::new(), |(_, s)| s.clone());
        let retrying = r.retry.is_some_and(|i| retries[i].settings.is_some());
        if retrying && !services.contains(&svc) {
            services.push(svc);
        }
    }
    let services_node = get_ci(tree, http, "services").map(|(_, s)| s);
    for svc in services {
        let group: Vec<&Router> = routers
            .iter()
            .filter(|r| r.service.as_ref().map_or(String::new(), |(_, s)| s.clone()) == svc)
            .collect();
        let svc_node = services_node
            .and_then(|s| get_ci(tree, s, &svc))
            .map(|(_, v)| v);
        let first = group.first().map_or(http, |r| r.node);
        let at_node = svc_node
            .or_else(|| {
                group
                    .iter()
                    .find_map(|r| r.service.as_ref().map(|(n, _)| *n))
            })
            .unwrap_or(first);
        let mut names: Vec<Spanned<String>> = Vec::new();
        let mut push_name = |value: String, node: NodeId| {
            if !value.is_empty() && !value.contains("{{") && !names.iter().any(|n| n.value == value)
            {
                names.push(Spanned {
                    value,
                    at: At::new(doc, node),
                });
            }
        };
        if !svc.is_empty() {
            push_name(svc.clone(), at_node);
        }
        if let Some(node) = svc_node {
            for (url_node, host) in server_hosts(tree, node) {
                push_name(host, url_node);
            }
        }
        // A route holds its settings (most of a kilobyte): no growth slack.
        let mut routes = Vec::with_capacity(group.len());
        for r in &group {
            let parsed = r.rule.as_ref().map(|(_, text)| rule::parse(text));
            if let (Some(p), Some((rule_node, _))) = (&parsed, &r.rule) {
                for h in &p.hosts {
                    push_name(h.clone(), *rule_node);
                }
            }
            let matches = parsed.map(|p| p.matches).unwrap_or_default();
            let router_at = At::new(doc, r.node);
            let (settings, notes) = match r.retry.map(|i| &retries[i]) {
                Some(m) => match &m.settings {
                    Some(s) => (s.clone(), m.notes.clone()),
                    // Traefik rejects the middleware: the router is not served.
                    None => continue,
                },
                None => {
                    let mut s = Settings::empty(router_at.clone());
                    s.retry = Some(Spanned {
                        value: false,
                        at: router_at.clone(),
                    });
                    (s, Vec::<OriginNote>::new())
                }
            };
            routes.push(Route {
                at: router_at,
                name: Some(r.name.clone()),
                matches,
                rewrite: None,
                settings,
                notes,
            });
        }
        out.objects.push(ConfigObject {
            method_scoped: Vec::new(),
            variant: None,
            url_prefixes: Vec::new(),
            platform: Platform::Traefik,
            kind: "service".to_string(),
            name: if svc.is_empty() {
                "(no service)".to_string()
            } else {
                svc.clone()
            },
            at: At::new(doc, at_node),
            layer: Layer::Gateway,
            names,
            routes,
        });
    }
    out
}

/// `name@provider` -> `name` when the provider is `file` (or absent); `None` for
/// another provider.
fn strip_provider(text: &str) -> Option<&str> {
    match text.rsplit_once('@') {
        None => Some(text),
        Some((name, "file")) => Some(name),
        Some(_) => None,
    }
}

/// RL017 at every `chain` middleware that lies on a cycle of chains (`a` lists `b`,
/// `b` lists `a`; or `a` lists itself): Traefik refuses it ("recursion detected"),
/// so the routers using it get none of its middlewares, a retry included.
fn chain_cycles(doc: &Arc<Loaded>, chains: &[(String, NodeId, Vec<String>)]) -> Vec<Diagnostic> {
    let index: HashMap<&str, usize> = chains
        .iter()
        .enumerate()
        .map(|(i, (name, _, _))| (name.as_str(), i))
        .collect();
    let edges: Vec<Vec<usize>> = chains
        .iter()
        .map(|(_, _, refs)| {
            refs.iter()
                .filter_map(|r| strip_provider(r).and_then(|n| index.get(n).copied()))
                .collect()
        })
        .collect();
    crate::import::cycles::members(&edges)
        .into_iter()
        .map(|i| {
            let (name, node, _) = &chains[i];
            let lists: Vec<String> = edges[i]
                .iter()
                .map(|&j| format!("`{}`", chains[j].0))
                .collect();
            rl017_ineffective_setting::diagnostic(
                &At::new(doc, *node),
                format!(
                    "the chain middleware `{name}` is part of a cycle of chains (it lists {})",
                    lists.join(", ")
                ),
                "chain cycle",
                "Traefik refuses a chain that reaches itself (\"recursion detected\"), so the routers using it get none of its middlewares, a retry included; list each middleware once, without a chain that leads back.".to_string(),
            )
        })
        .collect()
}

/// The retry middleware a router's `middlewares` list reaches (through chains),
/// the first one in order.
fn find_retry(
    refs: &[String],
    middlewares: &HashMap<String, Middleware>,
    depth: usize,
) -> Option<usize> {
    if depth > 16 {
        return None;
    }
    for r in refs {
        let Some(name) = strip_provider(r) else {
            continue;
        };
        match middlewares.get(name) {
            Some(Middleware::Retry(i)) => return Some(*i),
            Some(Middleware::Chain(inner)) => {
                if let Some(i) = find_retry(inner, middlewares, depth + 1) {
                    return Some(i);
                }
            }
            None => {}
        }
    }
    None
}

/// The string items of a sequence (or a single string).
fn strings(tree: &Tree, node: NodeId) -> Vec<String> {
    match tree.kind(node) {
        Kind::Seq => tree
            .items(node)
            .iter()
            .filter_map(|&i| tree.scalar(i).map(str::to_string))
            .collect(),
        Kind::Map | Kind::Null => Vec::new(),
        _ => tree
            .scalar(node)
            .map(|s| s.split(',').map(|x| x.trim().to_string()).collect())
            .unwrap_or_default(),
    }
}

/// The hosts of `loadBalancer.servers[].url` of a service, with their url nodes.
fn server_hosts(tree: &Tree, service: NodeId) -> Vec<(NodeId, String)> {
    let mut out = Vec::new();
    let Some((_, lb)) = get_ci(tree, service, "loadBalancer") else {
        return out;
    };
    let Some((_, servers)) = get_ci(tree, lb, "servers") else {
        return out;
    };
    for &s in tree.items(servers) {
        let Some((_, url)) = get_ci(tree, s, "url") else {
            continue;
        };
        let Some(text) = tree.scalar(url) else {
            continue;
        };
        let rest = text.split_once("://").map_or(text, |(_, r)| r);
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let host = if host.starts_with('[') {
            host.split_inclusive(']').next().unwrap_or(host)
        } else {
            host.split(':').next().unwrap_or(host)
        };
        if !host.is_empty() {
            out.push((url, host.to_string()));
        }
    }
    out
}

#[cfg(test)]
mod tests;
