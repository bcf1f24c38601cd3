//! Kong declarative configuration (`_format_version`): Gateway Services and their
//! Routes (`retry-configs.md` §9.3, §1 facts 1, 4, 5, 8, 10; Kong
//! `kong/db/schema/entities/services.lua`).
//!
//! - A service's `retries` counts retries (default **5**, so 6 tries); `retries: 0`
//!   turns them off. `connect_timeout`, `write_timeout`, `read_timeout` are integer
//!   **ms** (default 60000 each) and apply to every try: `read_timeout` is the v1
//!   `attempt_timeout`. There is no deadline, no backoff, and Retry-After is never
//!   read.
//! - Kong retries transport failures only (nginx `proxy_next_upstream error timeout`
//!   through its Lua balancer): `connect-failure`, `timeout`, `reset`; never a status.
//!   After the request was sent only idempotent methods (GET, HEAD, PUT, DELETE,
//!   OPTIONS, TRACE) are retried; POST and PATCH only when the connection failed
//!   before sending: the v1 `methods` filter.
//! - A value no file wrote (no `retries`, no timeouts) is located at the service item
//!   with an [`OriginNote`] naming Kong's default.
//! - Routes: nested `services[].routes[]` and top-level `routes[]` with a `service`
//!   reference (name or id). `paths` are prefixes, or regexes when they start with
//!   `~` (anchored at the start); with `_format_version` 1.1 or 2.1 a path with other
//!   characters than `[a-zA-Z0-9._~/%-]` is a regex, as Kong 3 migrates it
//!   (`kong/db/migrations/migrate_path_280_300.lua`). `methods` restrict, `hosts`
//!   name the API, `headers` make the match partial. `strip_path` (default true)
//!   replaces the matched prefix by the service's `path`; without it the service's
//!   `path` is put in front.
//! - Unknown keys on a service are RL017 (Kong rejects the whole declarative config).
//!   The layer is `gateway`. Terraform files of the Kong provider are not read.

use super::rl017_ineffective_setting;
use super::route::{full_match_regex, PathMatch, RequestMatch, Rewrite};
use super::{ConfigObject, ImportContext, Imported, OriginNote, Platform, Route};
use crate::diagnostic::Diagnostic;
use crate::policy::model::{AttemptTimeout, Layer, Settings, Signal, Spanned};
use crate::source::loader::Loaded;
use crate::source::refs::At;
use crate::source::strict::suggest;
use crate::source::tree::{Kind, NodeId, Tree};
use std::sync::Arc;

/// Kong's default `retries` (services.lua).
pub const DEFAULT_RETRIES: i64 = 5;
/// Kong's default `connect_timeout`, `write_timeout` and `read_timeout`, ms.
pub const DEFAULT_TIMEOUT_MS: i64 = 60_000;

/// The keys of a Gateway Service in declarative config (services.lua, Kong 3.x,
/// plus the `url` shorthand and the nested `routes` and `plugins`).
pub const SERVICE_KEYS: &[&str] = &[
    "id",
    "created_at",
    "updated_at",
    "name",
    "retries",
    "protocol",
    "host",
    "port",
    "path",
    "connect_timeout",
    "write_timeout",
    "read_timeout",
    "tags",
    "client_certificate",
    "tls_verify",
    "tls_verify_depth",
    "ca_certificates",
    "tls_sans",
    "enabled",
    "url",
    "routes",
    "plugins",
];

/// The methods Kong (nginx without `non_idempotent`) retries after sending.
pub const RETRIED_AFTER_SENDING: &[&str] = &["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"];

/// Stream protocols: such a service has no HTTP routes.
const STREAM_PROTOCOLS: &[&str] = &["tcp", "tls", "udp", "tls_passthrough"];

/// Reads one Kong declarative config file. Never panics.
pub fn import(doc: &Arc<Loaded>, _ctx: &ImportContext<'_>) -> Imported {
    let mut out = Imported::default();
    let Ok(tree) = &doc.tree else {
        return out;
    };
    let Some(root) = tree.root() else {
        return out;
    };
    if tree.kind(root) != Kind::Map {
        return out;
    }
    let version = tree
        .get(root, "_format_version")
        .and_then(|v| tree.scalar(v))
        .unwrap_or("3.0");
    let legacy_paths = matches!(version, "1.1" | "2.1");
    let upstreams = tree.get(root, "upstreams");
    let top_routes: Vec<NodeId> = tree
        .get(root, "routes")
        .map(|r| tree.items(r).to_vec())
        .unwrap_or_default();
    let Some(services) = tree.get(root, "services") else {
        return out;
    };
    for &svc in tree.items(services) {
        if tree.kind(svc) != Kind::Map {
            continue;
        }
        if let Some(obj) = service(
            doc,
            tree,
            svc,
            &top_routes,
            upstreams,
            legacy_paths,
            &mut out.diagnostics,
        ) {
            out.objects.push(obj);
        }
    }
    out
}

/// The most milliseconds Kong's schema takes for a service timeout (services.lua
/// `nonzero_timeout`: an integer between 1 and 2^31 - 2).
const MAX_TIMEOUT_MS: i64 = (1 << 31) - 2;

/// A service timeout (ms) as Kong's schema takes it: an integer from 1 to
/// [`MAX_TIMEOUT_MS`]; `None` for anything else.
fn timeout_ms(tree: &Tree, n: NodeId) -> Option<i64> {
    tree.as_i64(n).filter(|t| (1..=MAX_TIMEOUT_MS).contains(t))
}

/// RL017 at a service timeout Kong refuses: "out of range" for a whole number
/// outside 1..=[`MAX_TIMEOUT_MS`] (negative, zero or too large), else not an integer.
fn invalid_timeout(
    doc: &Arc<Loaded>,
    tree: &Tree,
    n: NodeId,
    key: &str,
    label: &str,
) -> Diagnostic {
    let text = tree.scalar(n).unwrap_or("");
    let digits = text.strip_prefix('-').unwrap_or(text);
    let whole = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    let (message, tag) = if whole {
        (
            format!("`{key}: {text}` of Kong service `{label}` is out of range: 1 to {MAX_TIMEOUT_MS} ms"),
            "out of range",
        )
    } else {
        (
            format!("`{key}` of Kong service `{label}` is not a positive integer (ms)"),
            "invalid timeout",
        )
    };
    rl017_ineffective_setting::diagnostic(
        &At::new(doc, n),
        message,
        tag,
        format!("Kong rejects the declarative config, and retrylint reads no timeout from it (not the default {DEFAULT_TIMEOUT_MS} ms); write milliseconds as an integer (`{key}: 5000`)."),
    )
}

/// The fields of a service that bear on retries.
struct Service<'t> {
    name: Option<(NodeId, &'t str)>,
    id: Option<&'t str>,
    host: Option<(NodeId, String)>,
    path: String,
    protocol: String,
}

fn scalar<'t>(tree: &'t Tree, map: NodeId, key: &str) -> Option<(NodeId, &'t str)> {
    let v = tree.get(map, key)?;
    tree.scalar(v).map(|s| (v, s))
}

fn read_service<'t>(tree: &'t Tree, svc: NodeId) -> Service<'t> {
    let mut s = Service {
        name: scalar(tree, svc, "name"),
        id: scalar(tree, svc, "id").map(|(_, v)| v),
        host: scalar(tree, svc, "host").map(|(n, h)| (n, h.to_string())),
        path: scalar(tree, svc, "path").map_or(String::new(), |(_, p)| p.to_string()),
        protocol: scalar(tree, svc, "protocol")
            .map_or("http".to_string(), |(_, p)| p.to_ascii_lowercase()),
    };
    if let Some((node, url)) = scalar(tree, svc, "url") {
        let (scheme, rest) = url.split_once("://").unwrap_or(("http", url));
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let host = host.split(':').next().unwrap_or(host);
        s.protocol = scheme.to_ascii_lowercase();
        if !host.is_empty() {
            s.host = Some((node, host.to_string()));
        }
        s.path = path.to_string();
    }
    s
}

fn service(
    doc: &Arc<Loaded>,
    tree: &Tree,
    svc: NodeId,
    top_routes: &[NodeId],
    upstreams: Option<NodeId>,
    legacy_paths: bool,
    diags: &mut Vec<Diagnostic>,
) -> Option<ConfigObject> {
    let at = |n: NodeId| At::new(doc, n);
    let s = read_service(tree, svc);
    let label = s
        .name
        .map(|(_, n)| n.to_string())
        .or_else(|| s.host.as_ref().map(|(_, h)| h.clone()))
        .unwrap_or_else(|| "(unnamed)".to_string());
    diags.extend(unknown_keys(doc, tree, svc, &label));
    if STREAM_PROTOCOLS.contains(&s.protocol.as_str()) {
        return None;
    }
    let svc_at = at(svc);

    // retries (count of retries) and read_timeout (ms): written or Kong's default.
    // A `retries` Kong's schema refuses is RL017 at the value and read as no count
    // (`None`): the service and its routes are still imported, with neither
    // Kong's default 5 nor a clamped or wrapped number assumed.
    let retries_node = tree.get(svc, "retries");
    let retries: Option<i64> = match retries_node {
        None => Some(DEFAULT_RETRIES),
        Some(n) => match tree.as_i64(n).filter(|r| (0..=32767).contains(r)) {
            Some(r) => Some(r),
            None => {
                let text = tree.scalar(n).unwrap_or("");
                let digits = text.strip_prefix('-').unwrap_or(text);
                // Only a number is out of range: a quoted `"5"` is a string.
                let whole = tree.kind(n) == Kind::Int
                    && !digits.is_empty()
                    && digits.bytes().all(|b| b.is_ascii_digit());
                diags.push(rl017_ineffective_setting::diagnostic(
                    &at(n),
                    if whole {
                        format!("`retries: {text}` of Kong service `{label}` is out of range: 0 to 32767")
                    } else {
                        format!("`retries` of Kong service `{label}` is not an integer in 0..32767")
                    },
                    if whole { "out of range" } else { "invalid retries" },
                    "Kong rejects the declarative config, and retrylint reads no retry count from it (not the default 5); write the number of retries after the first try (`retries: 2` is 3 tries).".to_string(),
                ));
                None
            }
        },
    };
    let retry_node = retries_node.unwrap_or(svc);
    let retry_at = at(retry_node);
    let mut notes: Vec<OriginNote> = Vec::new();
    let mut settings = Settings::empty(svc_at.clone());
    match retries {
        Some(r) => {
            settings.attempts = Some(Spanned {
                value: r + 1,
                at: retry_at.clone(),
            });
            settings.retry = Some(Spanned {
                value: r > 0,
                at: retry_at.clone(),
            });
        }
        // Refused (RL017 above): `retries` is the service's only retry setting, so
        // nothing about retrying is read from it (not on with a default count, not
        // off), and no rule blames it again as missing (RL302) or as the retry
        // that lacks a deadline or jitter (RL301, RL305).
        None => settings.refuse("attempts", retry_at.clone()),
    }
    let retried = retries.is_some_and(|r| r > 0);
    let mut retry_note = String::new();
    if retries_node.is_none() {
        retry_note.push_str(&format!(
            "no `retries` on this service, so Kong's default applies: {DEFAULT_RETRIES} retries ({} tries)",
            DEFAULT_RETRIES + 1
        ));
    } else if retries.is_none() {
        retry_note.push_str("this `retries` is refused (RL017 at it): Kong rejects the declarative config, so nothing is read from it: no retry count (not 0 retries, not Kong's default 5) and no retry conditions");
    }
    if retried {
        let signals = [Signal::ConnectFailure, Signal::Timeout, Signal::Reset]
            .into_iter()
            .map(|value| Spanned {
                value,
                at: retry_at.clone(),
            })
            .collect();
        settings.retry_on = Some(Spanned {
            value: signals,
            at: retry_at.clone(),
        });
        settings.methods = Some(Spanned {
            value: RETRIED_AFTER_SENDING
                .iter()
                .map(|m| Spanned {
                    value: m.to_string(),
                    at: retry_at.clone(),
                })
                .collect(),
            at: retry_at.clone(),
        });
        if !retry_note.is_empty() {
            retry_note.push_str("; ");
        }
        retry_note.push_str("Kong retries transport failures only (connect failure, timeout, reset; never a status), GET, HEAD, PUT, DELETE, OPTIONS and TRACE also after sending, POST and PATCH only when the connection failed before sending; no backoff, no deadline, Retry-After not read");
    }

    let mut timeout_note = String::new();
    // The timeouts Kong's schema refuses, each once (RL017 at the value).
    for key in ["connect_timeout", "write_timeout", "read_timeout"] {
        if let Some(n) = tree.get(svc, key) {
            if timeout_ms(tree, n).is_none() {
                diags.push(invalid_timeout(doc, tree, n, key, &label));
            }
        }
    }
    let read_timeout = match tree.get(svc, "read_timeout") {
        // Reported above and read as nothing: not Kong's default 60000 ms.
        Some(n) => timeout_ms(tree, n).map(|t| (t, n)),
        None => {
            timeout_note = format!(
                "no `read_timeout` on this service, so Kong's default applies: {DEFAULT_TIMEOUT_MS} ms for every try"
            );
            Some((DEFAULT_TIMEOUT_MS, svc))
        }
    };
    if let Some((ms, node)) = read_timeout {
        settings.attempt_timeout = Some(Spanned {
            value: AttemptTimeout::Fixed(ms as f64),
            at: at(node),
        });
    }
    let defaults: Vec<&str> = ["connect_timeout", "write_timeout"]
        .into_iter()
        .filter(|k| tree.get(svc, k).is_none())
        .collect();
    if !defaults.is_empty() && retried {
        let text = format!(
            "no {}: Kong's default {DEFAULT_TIMEOUT_MS} ms each",
            defaults
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(" or ")
        );
        if timeout_note.is_empty() {
            timeout_note = text;
        } else {
            timeout_note = format!("{timeout_note}; {text}");
        }
    }
    // One note per node: the service item gathers every default it stands for.
    let source = " (Kong services.lua; retry-configs.md §9.3)";
    let retry_key = (retry_node, retry_note);
    let timeout_key = (svc, timeout_note);
    if retry_key.0 == timeout_key.0 {
        let text = [retry_key.1, timeout_key.1]
            .into_iter()
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("; ");
        if !text.is_empty() {
            notes.push(OriginNote {
                at: at(svc),
                text: crate::import::note_text(format!("{text}{source}")),
            });
        }
    } else {
        for (node, text) in [retry_key, timeout_key] {
            if !text.is_empty() {
                notes.push(OriginNote {
                    at: at(node),
                    text: crate::import::note_text(format!("{text}{source}")),
                });
            }
        }
    }

    // Names: the service, its host, the upstream of that name and its targets.
    let mut names: Vec<Spanned<String>> = Vec::new();
    let mut push_name = |value: &str, node: NodeId| {
        if !value.is_empty() && !names.iter().any(|n| n.value == value) {
            names.push(Spanned {
                value: value.to_string(),
                at: At::new(doc, node),
            });
        }
    };
    if let Some((n, name)) = s.name {
        push_name(name, n);
    }
    if let Some((n, host)) = &s.host {
        push_name(host, *n);
        for (node, name) in upstream_names(tree, upstreams, host) {
            push_name(&name, node);
        }
    }

    // Routes: nested, and top-level ones that reference this service.
    let mut route_nodes: Vec<NodeId> = tree
        .get(svc, "routes")
        .map(|r| tree.items(r).to_vec())
        .unwrap_or_default();
    for &r in top_routes {
        let Some(reference) = tree.get(r, "service") else {
            continue;
        };
        let refers = match tree.kind(reference) {
            Kind::Map => {
                scalar(tree, reference, "name")
                    .is_some_and(|(_, n)| Some(n) == s.name.map(|(_, x)| x))
                    || scalar(tree, reference, "id").is_some_and(|(_, n)| Some(n) == s.id)
            }
            _ => tree
                .scalar(reference)
                .is_some_and(|n| Some(n) == s.name.map(|(_, x)| x) || Some(n) == s.id),
        };
        if refers {
            route_nodes.push(r);
        }
    }
    // Sized up front: a service has a route or two, and a vector grown by a push
    // holds four (a 2,000-service kong.yaml spent half its peak on the spare
    // slots, issue 43).
    let mut routes: Vec<(i64, usize, Route)> = Vec::with_capacity(route_nodes.len());
    for r in route_nodes {
        if tree.kind(r) != Kind::Map {
            continue;
        }
        if let Some(hosts) = tree.get(r, "hosts") {
            for &h in tree.items(hosts) {
                if let Some(text) = tree.scalar(h) {
                    push_name(text, h);
                }
            }
        }
        for (order, route) in routes_of(doc, tree, r, &s.path, legacy_paths, &settings, &notes) {
            routes.push((order.0, order.1, route));
        }
    }
    // Kong tries regex paths first (highest `regex_priority` first), then prefixes,
    // longest first, then routes without paths.
    routes.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    Some(ConfigObject {
        method_scoped: Vec::new(),
        variant: None,
        url_prefixes: Vec::new(),
        platform: Platform::Kong,
        kind: "service".to_string(),
        name: label,
        at: svc_at,
        layer: Layer::Gateway,
        names,
        routes: routes.into_iter().map(|(_, _, r)| r).collect(),
    })
}

/// The routes of one Kong route item: one per path (each path has its own
/// rewrite), with the sort key (class, length) Kong's order uses.
fn routes_of(
    doc: &Arc<Loaded>,
    tree: &Tree,
    r: NodeId,
    service_path: &str,
    legacy_paths: bool,
    settings: &Settings,
    notes: &[OriginNote],
) -> Vec<((i64, usize), Route)> {
    let name = scalar(tree, r, "name").map(|(_, n)| n.to_string());
    let methods: Option<Vec<String>> = tree.get(r, "methods").map(|m| {
        tree.items(m)
            .iter()
            .filter_map(|&i| tree.scalar(i).map(|s| s.to_ascii_uppercase()))
            .collect()
    });
    let partial_base = tree
        .get(r, "headers")
        .is_some_and(|h| !tree.raw_entries(h).is_empty())
        || tree.get(r, "expression").is_some();
    let strip = tree
        .get(r, "strip_path")
        .and_then(|v| tree.as_bool(v))
        .unwrap_or(true);
    let regex_priority = tree
        .get(r, "regex_priority")
        .and_then(|v| tree.as_i64(v))
        .unwrap_or(0);
    let paths: Vec<String> = tree
        .get(r, "paths")
        .map(|p| {
            tree.items(p)
                .iter()
                .filter_map(|&i| tree.scalar(i).map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let add_service_path = || {
        let p = service_path.trim_end_matches('/');
        (!p.is_empty()).then(|| Rewrite::AddPrefix(p.to_string()))
    };
    let make = |path: PathMatch, rewrite: Option<Rewrite>, partial: bool| Route {
        at: At::new(doc, r),
        name: name.clone(),
        matches: vec![RequestMatch {
            path,
            methods: methods.clone(),
            partial: partial || partial_base,
        }],
        rewrite,
        settings: settings.clone(),
        notes: notes.to_vec(),
    };
    if paths.is_empty() || tree.get(r, "expression").is_some() {
        return vec![(
            (i64::MIN, 0),
            make(PathMatch::Any, add_service_path(), false),
        )];
    }
    let mut out = Vec::new();
    for p in paths {
        let regex = p
            .strip_prefix('~')
            .map(str::to_string)
            .or_else(|| (legacy_paths && !is_plain_path(&p)).then(|| p.clone()));
        match regex {
            Some(re) => {
                // Anchored at the start; a stripped regex match cannot be inverted.
                let (path, partial) = match full_match_regex(&format!("(?:{re}).*")) {
                    Ok(rx) => (PathMatch::Regex(rx), strip),
                    Err(_) => (PathMatch::Any, true),
                };
                let rewrite = if strip { None } else { add_service_path() };
                out.push((
                    (
                        i64::MAX / 2 + regex_priority.clamp(-1_000_000, 1_000_000),
                        0,
                    ),
                    make(path, rewrite, partial),
                ));
            }
            None => {
                let rewrite = if strip {
                    Some(Rewrite::Prefix {
                        from: p.clone(),
                        to: service_path.to_string(),
                    })
                } else {
                    add_service_path()
                };
                let len = p.len();
                out.push(((0, len), make(PathMatch::Prefix(p), rewrite, false)));
            }
        }
    }
    out
}

/// Kong 2.x's test for a plain (non-regex) path: only `[a-zA-Z0-9._~/%-]`.
fn is_plain_path(path: &str) -> bool {
    path.chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '~' | '/' | '%'))
}

/// The upstream named `host` and its targets' hosts, with their nodes.
fn upstream_names(tree: &Tree, upstreams: Option<NodeId>, host: &str) -> Vec<(NodeId, String)> {
    let mut out = Vec::new();
    let Some(ups) = upstreams else {
        return out;
    };
    for &u in tree.items(ups) {
        let Some((n, name)) = scalar(tree, u, "name") else {
            continue;
        };
        if name != host {
            continue;
        }
        out.push((n, name.to_string()));
        if let Some(targets) = tree.get(u, "targets") {
            for &t in tree.items(targets) {
                if let Some((tn, target)) = scalar(tree, t, "target") {
                    let h = if target.starts_with('[') {
                        target.split_inclusive(']').next().unwrap_or(target)
                    } else {
                        target.split(':').next().unwrap_or(target)
                    };
                    out.push((tn, h.to_string()));
                }
            }
        }
    }
    out
}

/// RL017 for every key of a service Kong does not define.
fn unknown_keys(doc: &Arc<Loaded>, tree: &Tree, svc: NodeId, label: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for &(k, _) in tree.raw_entries(svc) {
        let Some(key) = tree.scalar(k) else { continue };
        if SERVICE_KEYS.contains(&key) {
            continue;
        }
        let help = match suggest(key, SERVICE_KEYS) {
            Some(s) => format!("did you mean `{s}`? Kong does not know `{key}` on a service and rejects the declarative config (\"unknown field\")."),
            None => format!("Kong does not know `{key}` on a service and rejects the declarative config (\"unknown field\"). Known keys: {}.", SERVICE_KEYS.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")),
        };
        out.push(rl017_ineffective_setting::diagnostic(
            &At::new(doc, k),
            format!("unknown key `{key}` in Kong service `{label}`"),
            "unknown key",
            help,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Platforms;
    use crate::import::summary;
    use crate::source::loader::{Limits, Workspace};
    use std::path::Path;

    fn render(name: &str) -> String {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let ws = Workspace::new(root.to_path_buf(), Limits::default());
        let doc = ws.load(&root.join("fixtures/import/kong").join(name));
        let platforms = Platforms::default();
        let imported = import(
            &doc,
            &ImportContext {
                platforms: &platforms,
                protos: &crate::import::proto::ProtoIndex::empty(),
            },
        );

        summary::render_imported(&imported, false)
    }

    #[test]
    fn corpus_defaults_point_at_the_service_item() {
        let text = render("load-balancing-kong.yaml");
        assert!(text.contains("retry true @3:4"), "{text}");
        assert!(text.contains("attempts 6 @3:4"), "{text}");
        assert!(text.contains("attempt_timeout 60s @3:4"), "{text}");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn trigger_written_values_and_top_level_routes() {
        let text = render("trigger-retries.yaml");
        assert!(text.contains("attempts 3 @"), "{text}");
        assert!(text.contains("RL017 unknown key `retires`"), "{text}");
        insta::assert_snapshot!(text);
    }

    /// Values Kong's schema refuses (issue 43): one RL017 each saying "out of
    /// range", and no timeout read from them (not the default 60 s). A refused
    /// `retries` refuses only itself: its service and route are still imported,
    /// with no count of tries.
    #[test]
    fn trigger_out_of_range() {
        let text = render("trigger-out-of-range.yaml");
        assert_eq!(text.matches("RL017 `").count(), 4, "{text}");
        assert_eq!(text.matches("is out of range").count(), 4, "{text}");
        let (orders, payments) = text
            .split_once("Kong service `payments`")
            .expect("the service of the refused `retries` is imported");
        assert!(!orders.contains("attempt_timeout"), "{text}");
        assert!(payments.contains("route payments"), "{text}");
        assert!(!payments.contains("attempts"), "{text}");
        insta::assert_snapshot!(text);
    }

    /// A quoted `retries: "5"` is a string where Kong wants an integer: one RL017
    /// saying it is not an integer (the type is wrong), not "out of range"; the
    /// service is still imported, with no count of tries read.
    #[test]
    fn trigger_retries_quoted() {
        let text = render("trigger-retries-quoted.yaml");
        assert_eq!(text.matches("RL017 `").count(), 1, "{text}");
        assert!(text.contains("route payments"), "{text}");
        assert!(!text.contains("attempts"), "{text}");
        assert!(text.contains("is not an integer in 0..32767"), "{text}");
        assert!(!text.contains("out of range"), "{text}");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn clean_retries_off() {
        let text = render("clean-no-retries.yaml");
        assert!(text.contains("retry false"), "{text}");
        assert!(!text.contains("retry_on"), "{text}");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn legacy_regex_paths() {
        assert!(is_plain_path("/users/me"));
        assert!(!is_plain_path("/users/\\d+$"));
    }
}
