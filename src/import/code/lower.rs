//! From extracted clients to config objects: each [`CodeClient`] becomes one
//! client-layer [`ConfigObject`] whose routes are its call sites (method and path
//! as the code writes them) and whose settings carry origins in the real source
//! file. A source file has no YAML tree, so each file gets a located tree built
//! over the spans its clients and calls use (like the nginx and INI readers), and
//! every value is an [`At`] into it.

use super::model::{CallSite, CodeClient, Known, Setting, Span, Url};
use super::{rl019_unresolved_setting, rl208_idempotency_key_regenerated};
use crate::diagnostic::Diagnostic;
use crate::import::route::{PathMatch, RequestMatch};
use crate::import::{rl017_ineffective_setting, ConfigObject, OriginNote, Route};
use crate::policy::model::{
    AttemptTimeout, BackoffSettings, KeySettings, Layer, Misspelled, RetryAfterSettings, Settings,
    Signal, Spanned,
};
use crate::source::loader::Loaded;
use crate::source::refs::At;
use crate::source::tree::{Kind, NodeId, TreeBuilder};
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// One source file with a located tree over the spans used in it.
pub struct Located {
    /// The file with its built tree.
    pub doc: Arc<Loaded>,
    nodes: HashMap<(usize, usize), NodeId>,
    root: NodeId,
}

impl Located {
    /// Builds the located tree of `doc` (a loaded source file) over `spans`.
    pub fn new(doc: &Arc<Loaded>, spans: &BTreeSet<(usize, usize)>) -> Located {
        let text = &doc.file.text;
        let mut b = TreeBuilder::new(text);
        let root = b.open_seq(0);
        let mut nodes = HashMap::new();
        for &(start, end) in spans {
            let end = end.min(text.len());
            let start = start.min(end);
            let id = b.scalar(start..end, None, Kind::Str);
            nodes.insert((start, end), id);
        }
        b.close(text.len());
        let tree = b.finish(doc.file.text.clone());
        Located {
            doc: Arc::new(Loaded::new(doc.file.clone(), Ok(tree))),
            nodes,
            root,
        }
    }

    /// The node at `span` (the file itself when the span was not collected).
    pub fn at(&self, span: &Span) -> At {
        let len = self.doc.file.text.len();
        let end = span.end.min(len);
        let key = (span.start.min(end), end);
        At::new(
            &self.doc,
            self.nodes.get(&key).copied().unwrap_or(self.root),
        )
    }
}

/// The spans a client uses (settings, names, notes, findings) and its own calls'.
pub fn client_spans(c: &CodeClient, out: &mut BTreeSet<(usize, usize)>) {
    let mut add = |s: &Span| {
        out.insert((s.start, s.end));
    };
    add(&c.span);
    for (_, s) in &c.names {
        add(s);
    }
    if let Some(s) = &c.attempts {
        add(&s.span);
    }
    if let Some(s) = &c.retry_on {
        add(&s.span);
    }
    if let Some(s) = &c.methods {
        add(&s.span);
    }
    for s in [&c.backoff.base, &c.backoff.cap, &c.backoff.multiplier]
        .into_iter()
        .flatten()
    {
        add(&s.span);
    }
    if let Some(s) = &c.backoff.jitter {
        add(&s.span);
    }
    if let Some(r) = &c.retry_after {
        add(&r.honor.span);
        if let Some(m) = &r.max {
            add(&m.span);
        }
    }
    for s in [&c.deadline, &c.attempt_timeout].into_iter().flatten() {
        add(&s.span);
    }
    for (s, _) in &c.notes {
        add(s);
    }
    for (_, s) in &c.url_prefixes {
        add(s);
    }
    for f in &c.findings {
        add(&f.span);
    }
    for call in &c.calls {
        add(&call.span);
    }
}

/// A call's span, for the file that makes it.
pub fn call_span(call: &CallSite, out: &mut BTreeSet<(usize, usize)>) {
    out.insert((call.span.start, call.span.end));
}

/// The signals assumed for a client whose condition is a custom predicate: "may
/// retry anything" (`retry-in-code.md` §3.3).
pub const MAY_RETRY_ANYTHING: &[Signal] = &[
    Signal::ConnectFailure,
    Signal::Reset,
    Signal::Timeout,
    Signal::Status(408),
    Signal::Status(429),
    Signal::Class(5),
];

/// What lowering one client gave.
pub struct Lowered {
    /// The config object (a client layer).
    pub object: ConfigObject,
    /// RL017/RL019/RL208 findings about the client's code.
    pub diagnostics: Vec<Diagnostic>,
}

/// Lowers `c` (a client of the file `home`) with `calls`: its own calls (in
/// `home`) and the linked calls of other files (each with its file). `instance`:
/// the route of the config object its named instance is ([`CodeClient::instance`]),
/// whose settings replace the ones read from code.
pub fn lower(
    c: &CodeClient,
    home: &Located,
    calls: &[(&Located, &CallSite)],
    instance: Option<&Route>,
) -> Lowered {
    let at = |s: &Span| home.at(s);
    let obj_at = at(&c.span);
    let mut notes: Vec<OriginNote> = Vec::new();
    let mut diagnostics = Vec::new();
    let platform = c.platform.display_name();
    let mut note = |s: &Span, known: &Known, what: &str| {
        match known {
        Known::Literal => {}
        Known::Default(source) => notes.push(OriginNote {
            at: at(s),
            text: crate::import::note_text(format!("{platform} default for {what}: {source}")),
        }),
        Known::Assumed { expr, assumed } => {
            diagnostics.push(rl019_unresolved_setting::diagnostic(
                &at(s),
                platform,
                what,
                expr,
                assumed,
            ));
        }
        Known::Refused { why } => diagnostics.push(rl017_ineffective_setting::diagnostic(
            &at(s),
            format!("{platform}: {why}"),
            "out of range",
            format!("{platform} cannot use this value, so retrylint reads no value for {what} from it (not the library default); write a finite number"),
        )),
    }
    };
    // A refused setting (RL017 above) is read as nothing, and not blamed again as
    // missing: `intended` is its policy key.
    let mut refused: Vec<(String, Span)> = Vec::new();
    let mut keep = |s: &Span, refused_here: bool, intended: &str| {
        if refused_here {
            refused.push((intended.to_string(), s.clone()));
        }
        !refused_here
    };
    let mut settings = Settings::empty(obj_at.clone());
    let retries = c.attempts.as_ref().is_some_and(|a| a.value > 1);
    let retry_at = c
        .attempts
        .as_ref()
        .map_or(c.span.clone(), |a| a.span.clone());
    settings.retry = Some(Spanned {
        value: retries,
        at: at(&retry_at),
    });
    if let Some(a) = &c.attempts {
        note(&a.span, &a.known, "attempts");
        if keep(&a.span, a.is_refused(), "attempts") {
            settings.attempts = Some(spanned(&at, a));
        } else {
            settings.retry = Some(Spanned {
                value: true,
                at: at(&retry_at),
            });
        }
    }
    let signals: Setting<Vec<Signal>> = match &c.retry_on {
        Some(s) => {
            note(&s.span, &s.known, "what is retried");
            s.clone()
        }
        None => Setting::default(
            MAY_RETRY_ANYTHING.to_vec(),
            c.span.clone(),
            "a custom condition: assumed to retry anything",
        ),
    };
    let sig_at = at(&signals.span);
    settings.retry_on = Some(Spanned {
        value: signals
            .value
            .iter()
            .map(|&s| Spanned {
                value: s,
                at: sig_at.clone(),
            })
            .collect(),
        at: sig_at.clone(),
    });
    if let Some(m) = &c.methods {
        note(&m.span, &m.known, "the methods retried");
        let m_at = at(&m.span);
        settings.methods = Some(Spanned {
            value: m
                .value
                .iter()
                .map(|x| Spanned {
                    value: x.to_ascii_uppercase(),
                    at: m_at.clone(),
                })
                .collect(),
            at: m_at,
        });
    }
    let b = &c.backoff;
    // One RL017 for a refused value that gives two settings (tenacity's
    // `multiplier` is the first delay and the multiplier).
    let mut told: Vec<Span> = Vec::new();
    for (s, what) in [
        (&b.base, "the first delay"),
        (&b.cap, "the delay cap"),
        (&b.multiplier, "the multiplier"),
    ] {
        if let Some(s) = s {
            if s.is_refused() {
                if told.contains(&s.span) {
                    continue;
                }
                told.push(s.span.clone());
            } else if what == "the multiplier" {
                continue;
            }
            note(&s.span, &s.known, what);
        }
    }
    if let Some(j) = &b.jitter {
        note(&j.span, &j.known, "jitter");
    }
    let mut read = |s: &Option<Setting<f64>>, key: &str| {
        s.as_ref()
            .filter(|s| keep(&s.span, s.is_refused(), key))
            .map(|s| spanned(&at, s))
    };
    settings.backoff = Some(BackoffSettings {
        at: obj_at.clone(),
        // A refused back-off value is not blamed again, neither as missing nor
        // for its jitter (RL305), as for Traefik's refused `initialInterval`.
        base: read(&b.base, "backoff"),
        cap: read(&b.cap, "backoff"),
        multiplier: read(&b.multiplier, "backoff"),
        jitter: b.jitter.as_ref().map(|s| spanned(&at, s)),
    });
    if let Some(r) = &c.retry_after {
        note(&r.honor.span, &r.honor.known, "Retry-After");
        settings.retry_after = Some(Box::new(RetryAfterSettings {
            at: at(&r.honor.span),
            honor: Some(spanned(&at, &r.honor)),
            max: r.max.as_ref().map(|s| spanned(&at, s)),
            on_invalid: None,
            on_above_max: None,
        }));
    }
    if let Some(d) = &c.deadline {
        note(&d.span, &d.known, "the deadline");
        if keep(&d.span, d.is_refused(), "deadline") {
            settings.deadline = Some(spanned(&at, d));
        }
    }
    if let Some(t) = &c.attempt_timeout {
        note(&t.span, &t.known, "the attempt timeout");
        if keep(&t.span, t.is_refused(), "attempt_timeout") {
            settings.attempt_timeout = Some(Spanned {
                value: AttemptTimeout::Fixed(t.value),
                at: at(&t.span),
            });
        }
    }
    settings
        .misspelled
        .extend(refused.into_iter().map(|(intended, s)| Misspelled {
            intended,
            at: at(&s),
        }));
    for (s, text) in &c.notes {
        notes.push(OriginNote {
            at: at(s),
            text: crate::import::note_text(text.clone()),
        });
    }
    for f in &c.findings {
        let d = match f.code {
            "RL019" => rl019_unresolved_setting::raw(&at(&f.span), f.message.clone(), &f.label),
            "RL208" => rl208_idempotency_key_regenerated::diagnostic(
                &at(&f.span),
                f.message.clone(),
                &f.label,
            ),
            _ => rl017_ineffective_setting::diagnostic(
                &at(&f.span),
                f.message.clone(),
                &f.label,
                f.help.clone(),
            ),
        };
        diagnostics.push(if f.help.is_empty() {
            d
        } else {
            d.with_help(f.help.clone())
        });
    }

    if let Some(r) = instance {
        settings = r.settings.clone();
        notes.extend(r.notes.iter().cloned());
    }
    let own: Vec<(&Located, &CallSite)> = c.calls.iter().map(|call| (home, call)).collect();
    let routes: Vec<Route> = own
        .iter()
        .chain(calls.iter())
        .map(|(file, call)| route(&settings, &notes, file, call, c))
        .collect();
    let routes = if routes.is_empty() {
        // No call seen: the client may serve any operation, but it binds only when
        // `.retrylint.yaml` names it (`services[].clients`); see `bind`.
        vec![Route {
            at: obj_at.clone(),
            name: None,
            matches: Vec::new(),
            rewrite: None,
            settings,
            notes,
        }]
    } else {
        routes
    };
    let name = c
        .names
        .first()
        .map_or_else(|| c.kind.clone(), |(n, _)| n.clone());
    Lowered {
        object: ConfigObject {
            method_scoped: c.method_scoped.clone(),
            variant: None,
            url_prefixes: c
                .url_prefixes
                .iter()
                .map(|(p, s)| Spanned {
                    value: p.clone(),
                    at: at(s),
                })
                .collect(),
            platform: c.platform,
            kind: c.kind.clone(),
            name,
            at: obj_at,
            layer: Layer::Client,
            names: c
                .names
                .iter()
                .map(|(n, s)| Spanned {
                    value: n.clone(),
                    at: at(s),
                })
                .chain(calls.iter().chain(own.iter()).filter_map(|(file, call)| {
                    host_of(&call.url).map(|h| Spanned {
                        value: h,
                        at: file.at(&call.span),
                    })
                }))
                .collect(),
            routes,
        },
        diagnostics,
    }
}

fn spanned<T: Clone>(at: &impl Fn(&Span) -> At, s: &Setting<T>) -> Spanned<T> {
    Spanned {
        value: s.value.clone(),
        at: at(&s.span),
    }
}

/// One route per call: the call's method and path, the client's settings, and the
/// key header the call sets.
fn route(
    settings: &Settings,
    notes: &[OriginNote],
    file: &Located,
    call: &CallSite,
    client: &CodeClient,
) -> Route {
    let call_at = file.at(&call.span);
    let mut settings = settings.clone();
    let never_retries = &client.never_retries;
    // Signals the client retries for other methods only (axios-retry: `5xx` and
    // `429` for idempotent methods) leave this call's `retry_on`.
    let mut scoped_out = false;
    if let (Some(m), Some(on)) = (&call.method, settings.retry_on.as_mut()) {
        // Left out when some group scopes the signal and none of them lists `m`.
        let left_out = |s: &Signal| {
            let mut groups = client
                .method_scoped
                .iter()
                .filter(|(signals, _)| signals.contains(s))
                .peekable();
            groups.peek().is_some()
                && !groups.any(|(_, methods)| methods.iter().any(|x| x.eq_ignore_ascii_case(m)))
        };
        let before = on.value.len();
        on.value.retain(|s| !left_out(&s.value));
        scoped_out = before > 0 && on.value.is_empty();
    }
    // A call whose method the client's method filter leaves out is not retried
    // (got/ky/ofetch `methods`, urllib3 `allowed_methods`), nor one the library
    // always sends once (resty v3 `POST`).
    let filtered = match (&call.method, &settings.methods) {
        (Some(m), Some(ms)) => !ms.value.iter().any(|x| x.value.eq_ignore_ascii_case(m)),
        _ => false,
    };
    if filtered
        || scoped_out
        || call
            .method
            .as_ref()
            .is_some_and(|m| never_retries.contains(m))
    {
        if let Some(r) = settings.retry.as_mut() {
            r.value = false;
        }
    }
    if let Some(h) = call.headers.iter().find(|h| crate::retry::is_key_header(h)) {
        settings.idempotency_key = Some(Box::new(KeySettings {
            at: call_at.clone(),
            header: Some(Spanned {
                value: h.clone(),
                at: call_at.clone(),
            }),
            retention: None,
            scope: None,
            on_payload_mismatch: None,
            on_concurrent: None,
            in_request: false,
        }));
    }
    let path = match &call.url {
        Url::Literal(u) | Url::Template(u) => path_match(u),
        Url::OperationId(id) => Some(PathMatch::OperationId(id.clone())),
        Url::Unknown(_) => None,
    };
    let matches = match path {
        Some(path) => vec![RequestMatch {
            path,
            methods: call.method.clone().map(|m| vec![m]),
            partial: false,
        }],
        // A URL not known statically: the call may reach any operation of the API
        // the client is bound to, with this method.
        None => vec![RequestMatch {
            path: PathMatch::Any,
            methods: call.method.clone().map(|m| vec![m]),
            partial: false,
        }],
    };
    Route {
        at: call_at,
        name: Some(format!(
            "{} {}",
            call.method.as_deref().unwrap_or("(method unknown)"),
            match &call.url {
                Url::Literal(u) | Url::Template(u) | Url::OperationId(u) | Url::Unknown(u) =>
                    u.as_str(),
            }
        )),
        matches,
        rewrite: None,
        settings,
        notes: notes.to_vec(),
    }
}

/// The host of an absolute URL (`https://api.example.com/v1/orders` ->
/// `api.example.com`), which names the API the call reaches.
fn host_of(url: &Url) -> Option<String> {
    let (Url::Literal(u) | Url::Template(u)) = url else {
        return None;
    };
    let rest = u.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    // `https://catalog-api{}`: a base's host before a path not known statically.
    let authority = authority.strip_suffix("{}").unwrap_or(authority);
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = host.split(':').next()?.to_ascii_lowercase();
    (!host.is_empty() && !host.contains('{')).then_some(host)
}

/// The path a call's URL reaches, as a template over the spec's paths: the scheme
/// and host dropped, the query dropped, each `{}` hole a one-segment parameter; a
/// leading hole (an unknown base URL) is dropped, so `{}/orders/{}` is
/// `/orders/{p1}`.
fn path_match(url: &str) -> Option<PathMatch> {
    let mut u = url;
    if let Some((_, rest)) = u.split_once("://") {
        // `https://catalog-api{}`: the host known, the path not.
        if rest
            .split(['/', '?', '#'])
            .next()
            .is_some_and(|a| a.ends_with("{}"))
        {
            return None;
        }
        u = rest.find('/').map_or("/", |i| &rest[i..]);
    }
    let u = u.split(['?', '#']).next().unwrap_or("");
    let u = u.strip_prefix("{}").unwrap_or(u);
    // A relative path (`'orders'` under got's `prefixUrl`, axios `baseURL`) is a
    // path below the base URL, which is the spec's server.
    let relative;
    let u = if u.starts_with('/') {
        u
    } else if !url.contains("://") && u.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        relative = format!("/{u}");
        relative.as_str()
    } else {
        return None;
    };
    let mut out = String::new();
    let mut n = 0;
    let mut rest = u;
    while let Some(i) = rest.find("{}") {
        n += 1;
        out.push_str(&rest[..i]);
        out.push_str(&format!("{{p{n}}}"));
        rest = &rest[i + 2..];
    }
    out.push_str(rest);
    Some(if n == 0 && !url.contains("{}") {
        // A concrete path (`/orders/7`) reaches the template `/orders/{id}`; a
        // trailing slash is significant (`/signals/` reaches the spec's `/signals/`,
        // not `/signals`: they are two routes on the server, case 63).
        crate::import::route::request_path(&out)
    } else {
        PathMatch::Template(out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_from_urls() {
        let reaches = |m: Option<PathMatch>, p: &str| m.is_some_and(|m| m.matches(p));
        assert!(reaches(path_match("/orders"), "/orders"));
        assert!(reaches(
            path_match("https://api.example.com/v1/orders?x=1"),
            "/v1/orders"
        ));
        assert!(reaches(path_match("/orders/7"), "/orders/1"));
        assert!(
            matches!(path_match("{}/orders/{}"), Some(PathMatch::Template(p)) if p == "/orders/{p1}")
        );
        assert!(reaches(path_match("orders"), "/orders"));
        assert!(reaches(path_match("/signals/"), "/signals/"));
        // A trailing slash is significant (case 63): two paths.
        assert!(!reaches(path_match("/signals/"), "/signals"));
        assert!(!reaches(path_match("/signals"), "/signals/"));
        assert!(!reaches(path_match("/signals"), "/signals/x"));
        assert!(path_match("").is_none());
        assert_eq!(
            host_of(&Url::Literal("https://u@API.example.com:8443/x".into())).as_deref(),
            Some("api.example.com")
        );
        assert_eq!(host_of(&Url::Literal("/x".into())), None);
        // A base's host before a path not known statically.
        let unknown_path = Url::Template("https://catalog-api{}".into());
        assert_eq!(host_of(&unknown_path).as_deref(), Some("catalog-api"));
        assert!(path_match("https://catalog-api{}").is_none());
    }
}
