//! NGINX `proxy_next_upstream*` per `location` (a located reader of nginx syntax), and
//! ingress-nginx `Ingress` annotations and controller ConfigMap (`retry-configs.md`
//! §8).
//!
//! nginx (§8.1; nginx docs `ngx_http_proxy_module`, source `ngx_http_upstream_next`):
//! - one [`ConfigObject`] per `server` block that proxies (`kind` `server`, layer
//!   gateway), named by its `server_name`s and the `upstream`s its `proxy_pass`es name;
//!   a `server` at the top of an included file counts as inside `http`;
//! - one [`Route`] per `location`, in the order nginx chooses: `=` exact, `^~`
//!   prefixes (longest first), regexes `~`/`~*` in file order, then plain prefixes
//!   (longest first); a `location` without `proxy_pass` is a route with
//!   `retry: false` (nginx answers it itself); `proxy_pass` with a URI part rewrites
//!   the matched prefix ([`Rewrite::Prefix`]);
//! - the `proxy_*` settings are inherited `http` → `server` → `location` (a lower
//!   level replaces the value): `proxy_next_upstream` (default `error timeout`) maps
//!   via [`conditions`]; TOTAL tries = `proxy_next_upstream_tries`, 0 (the default)
//!   meaning the number of `server`s of the `upstream` that `proxy_pass` names (Q15:
//!   the try an `error` on a cached keepalive connection gives back is not counted:
//!   it is one per stale connection, not a setting); a single server means no next
//!   server, so `retry: false`; `proxy_next_upstream_timeout` is the deadline (0:
//!   none); `proxy_read_timeout` (default 60 s, between two reads) the attempt
//!   timeout; no backoff (the next server at once), no jitter, Retry-After never
//!   honoured; without `non_idempotent` the `methods` filter of [`conditions`].

pub mod conditions;
pub mod ingress;
pub mod reader;
pub mod repeats;

pub use ingress::import_ingress;

use super::rl017_ineffective_setting;
use super::{ConfigObject, ImportContext, Imported, OriginNote, Platform, Route};
use super::{PathMatch, RequestMatch, Rewrite};
use crate::policy::model::{AttemptTimeout, BackoffSettings, Jitter, Layer, Settings, Spanned};
use crate::source::loader::Loaded;
use crate::source::refs::At;
use reader::{Config, Directive};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Where the nginx facts come from, for notes.
const SOURCE: &str = "nginx ngx_http_proxy_module, retry-configs.md §8.1";

/// The inherited settings this importer reads.
const INHERITED: &[&str] = &[
    "proxy_next_upstream",
    "proxy_next_upstream_tries",
    "proxy_next_upstream_timeout",
    "proxy_read_timeout",
    "proxy_connect_timeout",
];

/// Reads one nginx configuration file: RL001 when its syntax is wrong, else its
/// proxying `server` blocks with their routes, and RL017 for unknown conditions and
/// unreadable numbers or times.
pub fn import(doc: &Arc<Loaded>, ctx: &ImportContext<'_>) -> Imported {
    let _ = ctx;
    let mut config = match reader::read(doc) {
        Ok(c) => c,
        Err(d) => {
            return Imported {
                objects: Vec::new(),
                diagnostics: vec![*d],
                skipped: Vec::new(),
            }
        }
    };
    let mut out = Imported::default();
    out.diagnostics.extend(repeats::check(&config));
    validate(&config, &config.directives, &mut out);
    // `http` blocks, and the file itself when it is an included piece of `http`:
    // each taken out of the read file whole, so that a `server`'s directives are
    // dropped as soon as its routes are built and the file's parse never lives beside
    // all its routes (issue 43: memory per byte of nginx.conf).
    let mut directives = std::mem::take(&mut config.directives);
    let mut contexts: Vec<Vec<Directive<'_>>> = Vec::new();
    let top_level = directives
        .iter()
        .any(|d| d.name.text == "server" || d.name.text == "upstream");
    for http in directives.iter_mut().filter(|d| d.name.text == "http") {
        if let Some(block) = http.block.take() {
            contexts.push(block);
        }
    }
    if top_level {
        contexts.insert(0, directives);
    }
    // The few directives read across servers, copied: `upstream`s by name and each
    // context's inherited settings.
    let mut upstreams: HashMap<String, Directive<'_>> = HashMap::new();
    for list in &contexts {
        for u in list.iter().filter(|d| d.name.text == "upstream") {
            if let Some(name) = u.args.first() {
                upstreams.insert(name.text.to_string(), u.clone());
            }
        }
    }
    let upstreams: HashMap<&str, &Directive<'_>> =
        upstreams.iter().map(|(k, v)| (k.as_str(), v)).collect();
    for list in contexts {
        let inherited: Vec<Directive<'_>> = list
            .iter()
            .filter(|d| INHERITED.contains(&d.name.text.as_ref()))
            .cloned()
            .collect();
        let http_scope = Scope::default().enter(&inherited);
        for server in list.into_iter().filter(|d| d.name.text == "server") {
            if let Some(o) = server_object(&config, &server, &http_scope, &upstreams) {
                out.objects.push(o);
            }
        }
    }
    out
}

/// The effective directive of each inherited setting.
#[derive(Debug, Clone, Default)]
struct Scope<'a> {
    set: HashMap<&'static str, &'a Directive<'a>>,
}

impl<'a> Scope<'a> {
    fn enter(&self, block: &'a [Directive<'a>]) -> Scope<'a> {
        let mut next = self.clone();
        for name in INHERITED {
            if let Some(d) = block.iter().rfind(|d| d.name.text == *name) {
                next.set.insert(name, d);
            }
        }
        next
    }

    fn get(&self, name: &str) -> Option<&'a Directive<'a>> {
        self.set.get(name).copied()
    }
}

/// RL017 for every `proxy_next_upstream*` directive of the file whose value nginx
/// would refuse, reported once per directive.
fn validate(config: &Config<'_>, list: &[Directive<'_>], out: &mut Imported) {
    for d in list {
        match d.name.text.as_ref() {
            "proxy_next_upstream" => {
                let tokens: Vec<(String, At)> = d
                    .args
                    .iter()
                    .map(|a| (a.text.to_string(), config.word_at(a)))
                    .collect();
                out.diagnostics
                    .extend(conditions::read(&tokens, "`proxy_next_upstream`").diagnostics);
            }
            "proxy_next_upstream_tries"
                if d.args.len() != 1 || d.args[0].text.parse::<i64>().map_or(true, |n| n < 0) =>
            {
                // All digits but too large: out of range, not malformed.
                let over = d.args.len() == 1
                    && !d.args[0].text.is_empty()
                    && d.args[0].text.bytes().all(|b| b.is_ascii_digit());
                out.diagnostics.push(rl017_ineffective_setting::diagnostic(
                    &config.at(d),
                    if over {
                        format!(
                            "`proxy_next_upstream_tries {}` is out of range: at most {} tries (nginx's `ngx_atoi`)",
                            d.args[0].text,
                            i64::MAX
                        )
                    } else {
                        "`proxy_next_upstream_tries` needs one non-negative number".into()
                    },
                    if over { "out of range" } else { "not a number" },
                    "write the total number of tries, e.g. `proxy_next_upstream_tries 2;` (0: as many as the upstream has servers); nginx refuses this value".into(),
                ));
            }
            "proxy_next_upstream_timeout" | "proxy_read_timeout" | "proxy_connect_timeout"
                if d.args.len() != 1 || conditions::nginx_time(&d.args[0].text).is_none() =>
            {
                let over = d.args.len() == 1
                    && conditions::nginx_time_unbounded(&d.args[0].text).is_some();
                out.diagnostics.push(rl017_ineffective_setting::diagnostic(
                    &config.at(d),
                    if over {
                        format!(
                            "`{} {}` is out of range: at most {} ms (nginx's `ngx_parse_time`)",
                            d.name.text,
                            d.args[0].text,
                            i64::MAX
                        )
                    } else {
                        format!("`{}` needs one nginx time", d.name.text)
                    },
                    if over { "out of range" } else { "not a time" },
                    "write a time such as `30s`, `500ms` or `1m` (a bare number is seconds); nginx refuses this value".into(),
                ));
            }
            _ => {}
        }
        if let Some(block) = &d.block {
            validate(config, block, out);
        }
    }
}

/// How a `location` matches, from its arguments; `None` for a named location
/// (`@name`, reached only by internal redirects) or an unreadable one.
fn location_match(d: &Directive<'_>) -> Option<(u8, PathMatch, String)> {
    let args: Vec<&str> = d.args.iter().map(|a| a.text.as_ref()).collect();
    let (modifier, path) = match args.as_slice() {
        [m, p] => (*m, *p),
        [one] => {
            if let Some(rest) = one.strip_prefix("^~") {
                ("^~", rest)
            } else if let Some(rest) = one.strip_prefix("~*") {
                ("~*", rest)
            } else if let Some(rest) = one.strip_prefix('~') {
                ("~", rest)
            } else if let Some(rest) = one.strip_prefix('=') {
                ("=", rest)
            } else {
                ("", *one)
            }
        }
        _ => return None,
    };
    if path.starts_with('@') || path.is_empty() {
        return None;
    }
    Some(match modifier {
        "=" => (
            0,
            PathMatch::Exact(path.to_string()),
            format!("location = {path}"),
        ),
        "^~" => (
            1,
            PathMatch::Prefix(path.to_string()),
            format!("location ^~ {path}"),
        ),
        "~" | "~*" => {
            let pattern = if modifier == "~*" {
                format!("(?i){path}")
            } else {
                path.to_string()
            };
            // nginx searches the URI (no anchors of its own); an expression the
            // regex engine cannot compile (PCRE-only syntax) may match anything.
            let m = super::route::PathRegex::new(&pattern)
                .map(PathMatch::Regex)
                .unwrap_or(PathMatch::Any);
            (2, m, format!("location {modifier} {path}"))
        }
        "" => (
            3,
            PathMatch::Prefix(path.to_string()),
            format!("location {path}"),
        ),
        _ => return None,
    })
}

/// Every `location` of a block (nested ones too) with its scope, in file order.
fn locations<'a>(
    block: &'a [Directive<'a>],
    scope: &Scope<'a>,
    out: &mut Vec<(&'a Directive<'a>, Scope<'a>)>,
) {
    for loc in block.iter().filter(|d| d.name.text == "location") {
        let inner = scope.enter(loc.block.as_deref().unwrap_or(&[]));
        out.push((loc, inner.clone()));
        if let Some(b) = &loc.block {
            locations(b, &inner, out);
        }
    }
}

/// True when the `proxy_pass` host looks like the name of an `upstream` group (no
/// port, no dot, not `localhost`, not an address), so its servers are elsewhere.
fn single_name(host: &str, pass: &Directive<'_>) -> bool {
    let url = pass.args.first().map_or("", |a| a.text.as_ref());
    let after_scheme = url.split_once("://").map_or(url, |(_, r)| r);
    let hostport = after_scheme.split('/').next().unwrap_or("");
    !hostport.contains(':') && !host.contains('.') && host != "localhost" && !host.starts_with('[')
}

/// The upstream name and the URI part of a `proxy_pass` URL.
fn split_pass(url: &str) -> (String, Option<String>) {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .unwrap_or(url);
    if rest.starts_with("unix:") {
        return ("unix".into(), None);
    }
    let (hostport, uri) = match rest.find('/') {
        Some(i) => (&rest[..i], Some(rest[i..].to_string())),
        None => (rest, None),
    };
    let host = match hostport.rsplit_once(':') {
        Some((h, port)) if port.bytes().all(|b| b.is_ascii_digit()) => h,
        _ => hostport,
    };
    (host.to_string(), uri)
}

fn server_object(
    config: &Config<'_>,
    server: &Directive<'_>,
    http: &Scope<'_>,
    upstreams: &HashMap<&str, &Directive<'_>>,
) -> Option<ConfigObject> {
    let block = server.block.as_deref()?;
    let scope = http.enter(block);
    let mut locs = Vec::new();
    locations(block, &scope, &mut locs);
    if !locs.iter().any(|(l, _)| l.last("proxy_pass").is_some()) {
        return None;
    }
    let mut names: Vec<Spanned<String>> = Vec::new();
    // The values in `names`: a look-up per name, not a scan.
    let mut named: HashSet<String> = HashSet::new();
    for sn in server.children("server_name") {
        for a in &sn.args {
            if a.text != "_" && !a.text.is_empty() && named.insert(a.text.to_string()) {
                names.push(Spanned {
                    value: a.text.to_string(),
                    at: config.word_at(a),
                });
            }
        }
    }
    let mut routes: Vec<(u8, usize, usize, Route)> = Vec::new();
    for (i, (loc, lscope)) in locs.iter().enumerate() {
        let Some((rank, path, name)) = location_match(loc) else {
            continue;
        };
        let len = match &path {
            PathMatch::Prefix(p) => p.len(),
            _ => 0,
        };
        let at = config.at(loc);
        let mut route = Route {
            at: at.clone(),
            name: Some(name),
            matches: vec![RequestMatch::path(path.clone())],
            rewrite: None,
            settings: Settings::empty(at.clone()),
            notes: Vec::new(),
        };
        match loc.last("proxy_pass") {
            None => {
                route.settings.retry = Some(Spanned {
                    value: false,
                    at: at.clone(),
                });
                let other = [
                    "grpc_pass",
                    "fastcgi_pass",
                    "uwsgi_pass",
                    "scgi_pass",
                    "memcached_pass",
                ]
                .into_iter()
                .find(|n| loc.last(n).is_some());
                route.notes.push(OriginNote {
                    at: at.clone(),
                    text: crate::import::note_text(match other {
                        Some(n) => format!("this location passes requests with `{n}`, whose own `*_next_upstream` retrylint does not read yet: read as no retry"),
                        None => "no `proxy_pass` in this location: nginx answers it itself, nothing is passed to an upstream".into(),
                    }),
                });
            }
            Some(pass) => {
                let url = pass.args.first();
                let (host, uri) = url.map(|u| split_pass(&u.text)).unwrap_or_default();
                if let (Some(uri), PathMatch::Prefix(p) | PathMatch::Exact(p)) = (&uri, &path) {
                    if !uri.contains('$') {
                        route.rewrite = Some(Rewrite::Prefix {
                            from: p.clone(),
                            to: uri.clone(),
                        });
                    }
                }
                let upstream = upstreams.get(host.as_str()).copied();
                if let Some(u) = upstream {
                    if let Some(n) = u.args.first() {
                        if named.insert(n.text.to_string()) {
                            names.push(Spanned {
                                value: n.text.to_string(),
                                at: config.word_at(n),
                            });
                        }
                    }
                }
                if let (None, Some(u)) = (upstream, url) {
                    if !host.is_empty() && !host.contains('$') && named.insert(host.clone()) {
                        names.push(Spanned {
                            value: host.clone(),
                            at: config.word_at(u),
                        });
                    }
                }
                let servers = match upstream {
                    Some(u) => Some((u.children("server").count(), u.last("keepalive").is_some())),
                    // A bare name without a port is an `upstream` group defined in
                    // another (included) file; a variable is resolved per request.
                    None if host.contains('$') || host.is_empty() || single_name(&host, pass) => {
                        None
                    }
                    None => Some((1, false)),
                };
                retry_settings(config, &mut route, lscope, &host, servers);
            }
        }
        routes.push((rank, len, i, route));
    }
    // nginx's choice: exact, then `^~` prefixes (longest first), regexes in order,
    // plain prefixes (longest first).
    routes.sort_by(|a, b| {
        a.0.cmp(&b.0).then_with(|| match a.0 {
            1 | 3 => b.1.cmp(&a.1).then(a.2.cmp(&b.2)),
            _ => a.2.cmp(&b.2),
        })
    });
    let name = server
        .last("server_name")
        .and_then(|d| d.args.first())
        .map(|a| a.text.to_string())
        .or_else(|| {
            server
                .last("listen")
                .and_then(|d| d.args.first())
                .map(|a| format!("listen {}", a.text))
        })
        .unwrap_or_else(|| "server".into());
    Some(ConfigObject {
        method_scoped: Vec::new(),
        variant: None,
        url_prefixes: Vec::new(),
        platform: Platform::Nginx,
        kind: "server".into(),
        name,
        at: config.at(server),
        layer: Layer::Gateway,
        names,
        // A new vector, not the sort keys' buffer reused in place (a collect from a
        // vector's own iterator keeps its allocation: its growth slack and the keys'
        // width stayed with every server).
        routes: {
            let mut kept = Vec::with_capacity(routes.len());
            kept.extend(routes.into_iter().map(|r| r.3));
            kept
        },
    })
}

fn note(route: &mut Route, at: &At, text: String) {
    route.notes.push(OriginNote {
        at: at.clone(),
        text: crate::import::note_text(text),
    });
}

/// Fills a proxying route's settings from the directives in effect.
fn retry_settings(
    config: &Config<'_>,
    route: &mut Route,
    scope: &Scope<'_>,
    host: &str,
    servers: Option<(usize, bool)>,
) {
    let loc_at = route.at.clone();
    let pnu = scope.get("proxy_next_upstream");
    let on_at = pnu.map_or(loc_at.clone(), |d| config.at(d));
    let conds = match pnu {
        Some(d) => conditions::read(
            &d.args
                .iter()
                .map(|a| (a.text.to_string(), config.word_at(a)))
                .collect::<Vec<_>>(),
            "`proxy_next_upstream`",
        ),
        None => {
            note(route, &on_at, format!("no `proxy_next_upstream` in effect here, so nginx's default `error timeout` applies: the next server after a connection error or timeout ({SOURCE})"));
            conditions::read(
                &[
                    ("error".to_string(), on_at.clone()),
                    ("timeout".to_string(), on_at.clone()),
                ],
                "the default",
            )
        }
    };
    if let Some(off) = &conds.off {
        route.settings.retry = Some(Spanned {
            value: false,
            at: off.clone(),
        });
        return;
    }
    if conds.signals.is_empty() {
        route.settings.retry = Some(Spanned {
            value: false,
            at: on_at,
        });
        return;
    }
    // TOTAL tries: `proxy_next_upstream_tries` (0: unlimited), bounded by the servers.
    let tries_d = scope.get("proxy_next_upstream_tries");
    let tries = tries_d
        .and_then(|d| d.args.first())
        .and_then(|a| a.text.parse::<i64>().ok())
        .filter(|&n| n >= 0);
    let tries_at = tries_d
        .and_then(|d| d.args.first())
        .map_or(on_at.clone(), |a| config.word_at(a));
    // A written value nginx refuses (RL017 in `validate`) is read as no count: not
    // the default of one try per server.
    let unread = tries_d.is_some_and(|d| d.args.len() != 1 || tries.is_none());
    let attempts = match (tries, servers) {
        _ if unread => {
            route.settings.refuse("attempts", tries_at.clone());
            Some((i64::MAX, tries_at.clone(), None))
        }
        (Some(n), Some((s, _))) if n > 0 && (n as usize) <= s => Some((n, tries_at.clone(), None)),
        (Some(n), None) if n > 0 => Some((n, tries_at.clone(), None)),
        (_, Some((s, keepalive))) => {
            let why = match tries {
                Some(n) if n > 0 => {
                    format!("`proxy_next_upstream_tries {n}` is above the number of servers")
                }
                Some(_) => "`proxy_next_upstream_tries 0` means no limit".to_string(),
                None => "no `proxy_next_upstream_tries` (0: no limit)".to_string(),
            };
            let what = if s == 1 {
                format!("`{host}` is one server")
            } else {
                format!("upstream `{host}` has {s} servers")
            };
            let refund = if keepalive {
                "; an `error` on a cached keepalive connection gives its try back, so a request may see one more try per stale connection (not counted here)"
            } else {
                ""
            };
            Some((
                s.max(1) as i64,
                tries_at.clone(),
                Some(format!("{why}, and {what}: nginx tries each server at most once, so {}{refund} ({SOURCE})", if s <= 1 { "a single try".to_string() } else { format!("{s} tries in total") })),
            ))
        }
        _ => None,
    };
    match attempts {
        Some((1, at, text)) => {
            route.settings.retry = Some(Spanned {
                value: false,
                at: on_at.clone(),
            });
            if let Some(text) = text {
                note(
                    route,
                    &at,
                    format!("{text}: there is no next server to pass the request to"),
                );
            }
            return;
        }
        Some((i64::MAX, _, _)) => {}
        Some((n, at, text)) => {
            route.settings.attempts = Some(Spanned {
                value: n,
                at: at.clone(),
            });
            if let Some(text) = text {
                note(route, &at, text);
            }
        }
        None => {
            route.settings.attempts = Some(Spanned {
                value: 2,
                at: tries_at.clone(),
            });
            note(
                route,
                &tries_at,
                format!("`proxy_pass` names `{host}`, whose servers this file does not list (an `upstream` in another file, or a variable): at least 2 tries assumed, one per server, up to `proxy_next_upstream_tries` ({SOURCE})"),
            )
        }
    }
    route.settings.retry = Some(Spanned {
        value: true,
        at: on_at.clone(),
    });
    route.settings.retry_on = Some(Spanned {
        value: conds.signals.clone(),
        at: on_at.clone(),
    });
    if conds.non_idempotent.is_none() {
        route.settings.methods = Some(conditions::methods_filter(&on_at));
        note(route, &on_at, format!("without `non_idempotent`, nginx never passes a POST, LOCK or PATCH to the next server once it was sent (nginx >= 1.9.13; {SOURCE})"));
    }
    let zero = Spanned {
        value: 0.0,
        at: on_at.clone(),
    };
    route.settings.backoff = Some(BackoffSettings {
        at: on_at.clone(),
        base: Some(zero.clone()),
        cap: Some(zero),
        multiplier: Some(Spanned {
            value: 1.0,
            at: on_at.clone(),
        }),
        jitter: Some(Spanned {
            value: Jitter::None,
            at: on_at.clone(),
        }),
    });
    note(route, &on_at, format!("nginx passes the request to the next server at once: no backoff, no jitter, Retry-After not read ({SOURCE})"));
    let time = |name: &str| {
        scope.get(name).and_then(|d| {
            let a = d.args.first()?;
            Some((conditions::nginx_time(&a.text)?, config.word_at(a)))
        })
    };
    let connect = time("proxy_connect_timeout").map_or(60_000.0, |t| t.0);
    // A written time nginx refuses (RL017 in `validate`) is read as nothing: not
    // nginx's default.
    let refused = |name: &str| {
        scope
            .get(name)
            .map(|d| config.at(d))
            .filter(|_| time(name).is_none())
    };
    match time("proxy_read_timeout") {
        Some((ms, at)) => {
            route.settings.attempt_timeout = Some(Spanned {
                value: AttemptTimeout::Fixed(ms),
                at,
            })
        }
        None if refused("proxy_read_timeout").is_some() => {}
        None => {
            route.settings.attempt_timeout = Some(Spanned {
                value: AttemptTimeout::Fixed(60_000.0),
                at: on_at.clone(),
            });
            note(route, &on_at, format!("no `proxy_read_timeout`: nginx's default 60 s between two reads bounds each try (connect: {}) ({SOURCE})", crate::policy::duration::format_millis(connect)));
        }
    }
    match time("proxy_next_upstream_timeout") {
        Some((ms, at)) if ms > 0.0 => {
            route.settings.deadline = Some(Spanned { value: ms, at })
        }
        None if refused("proxy_next_upstream_timeout").is_some() => {
            if let Some(at) = refused("proxy_next_upstream_timeout") {
                route.settings.refuse("deadline", at);
            }
        }
        _ => note(route, &on_at, format!("`proxy_next_upstream_timeout` is 0 (the default): nothing limits the time spent passing the request to next servers ({SOURCE})")),
    }
}

#[cfg(test)]
mod tests;
