//! HAProxy `retries`, `retry-on`, `option redispatch` and `timeout` lines per backend,
//! with frontend `use_backend` ACL routing (`retry-configs.md` §9.1; HAProxy
//! `doc/configuration.txt`, `include/haproxy/defaults.h`).
//!
//! Mapping (layer gateway):
//! - a backend's settings come from its own lines, else from the `defaults` section
//!   before it (or the one its `from NAME` names);
//! - TOTAL tries = `retries` + 1 (default `retries 3`: 4 tries); `retries 0` or
//!   `retry-on none`: no retry;
//! - `retry-on` (http mode only; it replaces, default `conn-failure`):
//!   `conn-failure` → connect-failure, `empty-response`/`junk-response` → reset,
//!   `response-timeout` → timeout, `0rtt-rejected` → refused-stream, status codes,
//!   `all-retryable-errors` → all of those with 500 502 503 504;
//! - backoff: the fixed turn-around pause min(`timeout connect`, 1 s) before a retry
//!   (base = cap, multiplier 1, no jitter); `timeout server` the attempt timeout when
//!   `retry-on` retries a try that timed out (`response-timeout`), else a note (it
//!   then ends the request as it would without retries); no deadline; Retry-After
//!   never read;
//! - `http-request disable-l7-retry if <method ACL>` is the `methods` filter (it keeps
//!   connection-failure retries, as the filter keeps never-processed signals).
//!
//! Routing: one [`ConfigObject`] per `frontend` (and `listen`) whose routes are its
//! `use_backend` rules in order, then `default_backend`, each carrying the settings
//! of the backend it reaches (first match wins across backends, which one object per
//! backend could not express: the default backend only gets what no earlier rule
//! took). Rules whose condition is on the Host header (Q17) form an object of their
//! own named by the host pattern (`img*` for `hdr_beg(host) -i img`), so binding
//! compares them with the spec's server host instead of applying them to every
//! request. A backend no frontend reaches is an object with one catch-all route.

pub mod acl;
pub mod reader;
pub mod repeats;

use super::rl017_ineffective_setting;
use super::{ConfigObject, ImportContext, Imported, OriginNote, Platform, RequestMatch, Route};
use crate::policy::model::{
    AttemptTimeout, BackoffSettings, Jitter, Layer, Settings, Signal, Spanned,
};
use crate::source::loader::Loaded;
use crate::source::refs::At;
use crate::source::strict::suggest;
use reader::{Config, Line, Section};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

const SOURCE: &str = "HAProxy configuration manual, retry-configs.md §9.1";

/// Every `retry-on` keyword.
pub const RETRY_ON: &[&str] = &[
    "none",
    "conn-failure",
    "empty-response",
    "junk-response",
    "response-timeout",
    "0rtt-rejected",
    "all-retryable-errors",
    "401",
    "403",
    "404",
    "408",
    "421",
    "425",
    "429",
    "500",
    "501",
    "502",
    "503",
    "504",
];

/// The signals of one `retry-on` keyword; `None` for an unknown one.
pub fn signals(keyword: &str) -> Option<Vec<Signal>> {
    Some(match keyword {
        "none" => vec![],
        "conn-failure" => vec![Signal::ConnectFailure],
        "empty-response" | "junk-response" => vec![Signal::Reset],
        "response-timeout" => vec![Signal::Timeout],
        "0rtt-rejected" => vec![Signal::RefusedStream],
        "all-retryable-errors" => vec![
            Signal::ConnectFailure,
            Signal::Reset,
            Signal::Timeout,
            Signal::RefusedStream,
            Signal::Status(500),
            Signal::Status(502),
            Signal::Status(503),
            Signal::Status(504),
        ],
        k if RETRY_ON.contains(&k) => vec![Signal::Status(k.parse().ok()?)],
        _ => return None,
    })
}

/// The longest time HAProxy accepts, ms: a timer is a signed 32-bit count of ms
/// (`parse_time_err`: "timer overflow ... maximum value is 2147483647 ms or ~24.8
/// days"), and a longer one stops the configuration from loading.
pub const MAX_TIME_MS: f64 = 2_147_483_647.0;

/// An HAProxy time (`5s`, `100ms`, `1m`; a bare number is ms) in ms; `None` for
/// anything else and for a time over [`MAX_TIME_MS`].
pub fn time(text: &str) -> Option<f64> {
    let s = text.trim();
    let digits = s.bytes().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let n: f64 = s[..digits].parse().ok()?;
    let factor = match &s[digits..] {
        "" | "ms" => 1.0,
        "us" => 0.001,
        "s" => 1000.0,
        "m" => 60_000.0,
        "h" => 3_600_000.0,
        "d" => 86_400_000.0,
        _ => return None,
    };
    Some(n * factor).filter(|&ms| ms <= MAX_TIME_MS)
}

/// A `retries` count HAProxy keeps as written: a whole number from 0 up to a C
/// `int` (`conn_retries`, read with `atol`: a larger one wraps); `None` otherwise.
fn retries(text: &str) -> Option<i64> {
    text.parse::<i64>()
        .ok()
        .filter(|n| (0..=i64::from(i32::MAX)).contains(n))
}

/// [`time`] without its bound: `Some` for a time HAProxy's syntax reads, however
/// long, so a time beyond [`MAX_TIME_MS`] is told apart from one that is malformed.
fn time_unbounded(text: &str) -> Option<f64> {
    let s = text.trim();
    let digits = s.bytes().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    matches!(&s[digits..], "" | "ms" | "us" | "s" | "m" | "h" | "d").then_some(f64::INFINITY)
}

/// The keywords of the lines this importer reads: those routes are built from
/// ([`Proxy::find`], `acl`, `use_backend`, ...), and those [`validate`] and
/// [`repeats`] check (`clitimeout`). The reader keeps no other line, nor builds a
/// node for one (no finding or route points at a `server` line).
const LINES_READ: &[&str] = &[
    "mode",
    "retries",
    "retry-on",
    "timeout",
    "contimeout",
    "srvtimeout",
    "clitimeout",
    "option",
    "no",
    "acl",
    "use_backend",
    "default_backend",
    "http-request",
];

/// A proxy section and the `defaults` section it inherits from.
#[derive(Clone, Copy)]
struct Proxy<'a> {
    section: &'a Section<'a>,
    defaults: Option<&'a Section<'a>>,
}

impl<'a> Proxy<'a> {
    /// The last line matching `pred`, in the proxy, else in its defaults.
    fn find(&self, pred: impl Fn(&Line<'_>) -> bool) -> Option<&'a Line<'a>> {
        self.section.lines.iter().rfind(|l| pred(l)).or_else(|| {
            self.defaults
                .and_then(|d| d.lines.iter().rfind(|l| pred(l)))
        })
    }

    fn timeout(&self, which: &str, legacy: &str) -> Option<&'a Line<'a>> {
        self.find(|l| {
            (l.keyword.text == "timeout" && l.args.first().is_some_and(|a| a.text == which))
                || l.keyword.text == legacy
        })
    }

    fn mode_http(&self) -> bool {
        self.find(|l| l.keyword.text == "mode")
            .and_then(|l| l.args.first())
            .is_some_and(|a| a.text == "http")
    }
}

/// The proxies (frontend, backend, listen) of the file with their defaults.
fn proxies<'a>(config: &'a Config<'_>) -> Vec<Proxy<'a>> {
    let mut out = Vec::new();
    let mut last_defaults: Option<&Section<'_>> = None;
    // The first `defaults` section of each name, for `from NAME`.
    let mut named_defaults: HashMap<&str, &Section<'_>> = HashMap::new();
    for d in config.sections.iter().filter(|d| d.kind() == "defaults") {
        named_defaults.entry(d.name()).or_insert(d);
    }
    for s in &config.sections {
        match s.kind() {
            "defaults" => last_defaults = Some(s),
            "frontend" | "backend" | "listen" => {
                let texts = s.header.texts();
                let from = texts
                    .iter()
                    .position(|t| *t == "from")
                    .and_then(|i| texts.get(i + 1))
                    .and_then(|name| named_defaults.get(name).copied());
                out.push(Proxy {
                    section: s,
                    defaults: from.or(last_defaults),
                });
            }
            _ => {}
        }
    }
    out
}

/// Reads one HAProxy configuration file: RL001 when its syntax is wrong, else one
/// object per frontend/listen (and per unreached backend), and RL017 for unknown
/// `retry-on` keywords, unreadable `retries`, and `retry-on` in tcp mode.
pub fn import(doc: &Arc<Loaded>, ctx: &ImportContext<'_>) -> Imported {
    let _ = ctx;
    let config = match reader::read(doc, LINES_READ) {
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
    validate(&config, &mut out);
    let all = proxies(&config);
    // Backends (and listens) by name, the first of a name as HAProxy's own look-up:
    // a map, not a scan per `use_backend` (50,000 backends took 22 s: case 87).
    let mut backends: HashMap<&str, Proxy<'_>> = HashMap::new();
    for p in all
        .iter()
        .filter(|p| matches!(p.section.kind(), "backend" | "listen"))
    {
        backends.entry(p.section.name()).or_insert(*p);
    }
    let backend = |name: &str| backends.get(name).copied();
    let mut reached: HashSet<String> = HashSet::new();
    for p in all
        .iter()
        .filter(|p| matches!(p.section.kind(), "frontend" | "listen"))
    {
        let acls = acl::named(&p.section.lines);
        let mut main = object(&config, p, p.section.name().to_string());
        let mut main_names: HashSet<String> = HashSet::new();
        let mut host_objects: Vec<ConfigObject> = Vec::new();
        // Host object label → its index in `host_objects`.
        let mut host_index: HashMap<String, usize> = HashMap::new();
        let mut rules: Vec<(&Line<'_>, &str, &[reader::Word<'_>])> = Vec::new();
        for l in &p.section.lines {
            if l.keyword.text == "use_backend" {
                if let Some((name, guard)) = l.args.split_first() {
                    rules.push((l, name.text.as_ref(), guard));
                }
            }
        }
        // A route per rule (and the default): room for them at once, not the
        // doubling growth whose copies and slack were a fifth of the peak of a
        // frontend of 50,000 rules (issue 43).
        main.routes.reserve_exact(rules.len() + 1);
        let default = p
            .section
            .lines
            .iter()
            .rfind(|l| l.keyword.text == "default_backend");
        for (line, name, guard) in rules {
            let Some(target) = backend(name) else {
                continue;
            };
            reached.insert(name.to_string());
            let settings = backend_settings(&config, &target);
            for alt in acl::guard(guard, &acls) {
                let matches = request_matches(&alt);
                let route = Route {
                    at: config.at(line),
                    name: Some(format!("use_backend {name}")),
                    matches,
                    rewrite: None,
                    settings: settings.0.clone(),
                    notes: settings.1.clone(),
                };
                push_name(&mut main, &mut main_names, &config, &target);
                match &alt.hosts {
                    None => main.routes.push(route),
                    Some(hosts) => {
                        for h in hosts {
                            let label = format!("{} (Host {})", p.section.name(), h.name);
                            let i = *host_index.entry(label).or_insert_with_key(|label| {
                                let mut o = object(&config, p, label.clone());
                                o.names.push(Spanned {
                                    value: h.name.clone(),
                                    at: At::new(&config.doc, h.node),
                                });
                                host_objects.push(o);
                                host_objects.len() - 1
                            });
                            host_objects[i].routes.push(route.clone());
                        }
                    }
                }
            }
        }
        let fallback = match default {
            Some(l) => l
                .args
                .first()
                .and_then(|a| backend(&a.text))
                .map(|b| (l, b)),
            None if p.section.kind() == "listen" => Some((&p.section.header, *p)),
            None => None,
        };
        if let Some((line, target)) = fallback {
            reached.insert(target.section.name().to_string());
            push_name(&mut main, &mut main_names, &config, &target);
            let (settings, notes) = backend_settings(&config, &target);
            main.routes.push(Route {
                at: config.at(line),
                name: Some(if std::ptr::eq(line, &p.section.header) {
                    format!("listen {}", target.section.name())
                } else {
                    format!("default_backend {}", target.section.name())
                }),
                matches: vec![RequestMatch::any()],
                rewrite: None,
                settings,
                notes,
            });
        }
        if !main.routes.is_empty() {
            out.objects.push(main);
        }
        out.objects.extend(host_objects);
    }
    for p in all.iter().filter(|p| p.section.kind() == "backend") {
        if reached.contains(p.section.name()) {
            continue;
        }
        let mut o = object(&config, p, p.section.name().to_string());
        o.kind = "backend".into();
        push_name(&mut o, &mut HashSet::new(), &config, p);
        let (settings, notes) = backend_settings(&config, p);
        o.routes.push(Route {
            at: config.at(&p.section.header),
            name: Some(format!("backend {}", p.section.name())),
            matches: vec![RequestMatch::any()],
            rewrite: None,
            settings,
            notes,
        });
        out.objects.push(o);
    }
    out
}

fn object(config: &Config<'_>, p: &Proxy<'_>, name: String) -> ConfigObject {
    ConfigObject {
        method_scoped: Vec::new(),
        variant: None,
        url_prefixes: Vec::new(),
        platform: Platform::Haproxy,
        kind: p.section.kind().to_string(),
        name,
        at: config.at(&p.section.header),
        layer: Layer::Gateway,
        names: Vec::new(),
        routes: Vec::new(),
    }
}

/// Adds the backend's name to the object's names unless `named` (the names the
/// object has) holds it already.
fn push_name(
    o: &mut ConfigObject,
    named: &mut HashSet<String>,
    config: &Config<'_>,
    backend: &Proxy<'_>,
) {
    if let Some(w) = backend.section.header.args.first() {
        if named.insert(w.text.to_string()) {
            o.names.push(Spanned {
                value: w.text.to_string(),
                at: config.word_at(w),
            });
        }
    }
}

fn request_matches(alt: &acl::Alt) -> Vec<RequestMatch> {
    let methods = alt
        .methods
        .as_ref()
        .map(|m| m.iter().cloned().collect::<Vec<_>>());
    match &alt.paths {
        None => vec![RequestMatch {
            path: crate::import::PathMatch::Any,
            methods,
            partial: alt.partial,
        }],
        Some(paths) => paths
            .iter()
            .map(|p| RequestMatch {
                path: p.clone(),
                methods: methods.clone(),
                partial: alt.partial,
            })
            .collect(),
    }
}

/// RL017 for lines HAProxy refuses or ignores, once per line.
fn validate(config: &Config<'_>, out: &mut Imported) {
    for p in config.sections.iter() {
        let tcp = matches!(p.kind(), "frontend" | "backend" | "listen")
            && p.lines
                .iter()
                .rfind(|l| l.keyword.text == "mode")
                .and_then(|l| l.args.first())
                .is_some_and(|a| a.text == "tcp");
        for l in &p.lines {
            match l.keyword.text.as_ref() {
                "retry-on" => {
                    if tcp {
                        out.diagnostics.push(rl017_ineffective_setting::diagnostic(
                            &config.at(l),
                            format!("`retry-on` in `{} {}` is ignored: it runs in tcp mode", p.kind(), p.name()),
                            "ignored in tcp mode",
                            "HAProxy applies `retry-on` in http mode only; in tcp mode only connection failures are retried. Set `mode http` or remove the line.".into(),
                        ));
                    }
                    for a in &l.args {
                        if signals(&a.text).is_none() {
                            let help = match suggest(&a.text, RETRY_ON) {
                                Some(s) => format!("did you mean `{s}`? HAProxy refuses an unknown `retry-on` keyword, so this configuration does not load as written."),
                                None => format!("HAProxy knows only {}.", RETRY_ON.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")),
                            };
                            out.diagnostics.push(rl017_ineffective_setting::diagnostic(
                                &config.word_at(a),
                                format!("unknown `retry-on` keyword `{}`", a.text),
                                "unknown keyword",
                                help,
                            ));
                        }
                    }
                }
                // `timeout <name> <time>` (and the legacy `contimeout <time>` forms):
                // a time HAProxy cannot read stops the configuration from loading.
                "timeout" | "contimeout" | "srvtimeout" | "clitimeout" => {
                    let value = if l.keyword.text == "timeout" {
                        l.args.get(1)
                    } else {
                        l.args.first()
                    };
                    if let Some(a) = value.filter(|a| time(&a.text).is_none()) {
                        // A time HAProxy reads but that overflows its timer is out of
                        // range, not malformed.
                        let over = time_unbounded(&a.text).is_some();
                        out.diagnostics.push(rl017_ineffective_setting::diagnostic(
                            &config.word_at(a),
                            if over {
                                format!(
                                    "`{} {}` is out of range: at most {} ms (~24.8 days)",
                                    l.keyword.text,
                                    l.args.iter().map(|a| a.text.as_ref()).collect::<Vec<&str>>().join(" "),
                                    MAX_TIME_MS
                                )
                            } else {
                                format!("`{}` is not a time HAProxy can load", a.text)
                            },
                            if over { "out of range" } else { "not a time" },
                            format!("write a time such as `5s` or `100ms` (a bare number is ms) of at most {} ms (~24.8 days): HAProxy refuses this line (timer overflow or bad unit), and retrylint does not read it", MAX_TIME_MS),
                        ));
                    }
                }
                "retries" if l.args.len() != 1 || retries(&l.args[0].text).is_none() => {
                    let over = l.args.len() == 1
                        && !l.args[0].text.is_empty()
                        && l.args[0].text.bytes().all(|b| b.is_ascii_digit());
                    out.diagnostics.push(rl017_ineffective_setting::diagnostic(
                        &config.at(l),
                        if over {
                            format!("`retries {}` is out of range: at most {} retries (a C `int`)", l.args[0].text, i32::MAX)
                        } else {
                            "`retries` needs one non-negative number".into()
                        },
                        if over { "out of range" } else { "not a number" },
                        "write the number of retries after the first try, e.g. `retries 2`; HAProxy refuses this line, and retrylint reads no count from it (not the default 3)".into(),
                    ));
                }
                _ => {}
            }
        }
    }
}

/// The settings (and default notes) of a backend (or listen) section.
fn backend_settings(config: &Config<'_>, p: &Proxy<'_>) -> (Settings, Vec<OriginNote>) {
    let header = config.at(&p.section.header);
    let mut s = Settings::empty(header.clone());
    let mut notes = Vec::new();
    let mut note = |at: &At, text: String| {
        notes.push(OriginNote {
            at: at.clone(),
            text: crate::import::note_text(text),
        })
    };
    let retries_line = p.find(|l| l.keyword.text == "retries");
    let on_at = retries_line.map_or(header.clone(), |l| config.at(l));
    let retries = match retries_line {
        Some(l) => match l.args.first().and_then(|a| retries(&a.text)) {
            Some(n) => n,
            // Reported by `validate` (RL017 at the line) and read as nothing: not
            // HAProxy's default 3, not a huge or wrapped count.
            None => {
                s.refuse("attempts", on_at.clone());
                // Retried as `retry-on` says, with no count read.
                i64::MAX
            }
        },
        None => {
            note(&on_at, format!("no `retries` here nor in `defaults`: HAProxy's default is 3 retries (CONN_RETRIES), 4 tries in total ({SOURCE})"));
            3
        }
    };
    let http = p.mode_http();
    let retry_on_line = if http {
        p.find(|l| l.keyword.text == "retry-on")
    } else {
        None
    };
    let sig_at = retry_on_line.map_or(on_at.clone(), |l| config.at(l));
    let mut entries: Vec<Spanned<Signal>> = Vec::new();
    let mut none = false;
    match retry_on_line {
        Some(l) => {
            for a in &l.args {
                if a.text == "none" {
                    none = true;
                }
                for sig in signals(&a.text).unwrap_or_default() {
                    if !entries.iter().any(|e| e.value == sig) {
                        entries.push(Spanned {
                            value: sig,
                            at: config.word_at(a),
                        });
                    }
                }
            }
        }
        None => {
            entries.push(Spanned {
                value: Signal::ConnectFailure,
                at: sig_at.clone(),
            });
            let why = if http {
                "no `retry-on`: HAProxy retries on `conn-failure` only (the default)"
            } else {
                "tcp mode: HAProxy retries connection failures only"
            };
            note(
                &sig_at,
                format!("{why}: the request was never sent ({SOURCE})"),
            );
        }
    }
    if retries <= 0 || none || entries.is_empty() {
        s.retry = Some(Spanned {
            value: false,
            at: if none { sig_at } else { on_at },
        });
        return (s, notes);
    }
    s.retry = Some(Spanned {
        value: true,
        at: on_at.clone(),
    });
    if retries != i64::MAX {
        s.attempts = Some(Spanned {
            value: retries + 1,
            at: on_at.clone(),
        });
    }
    s.retry_on = Some(Spanned {
        value: entries,
        at: sig_at,
    });
    // The turn-around timer: min(timeout connect, 1 s), fixed.
    let connect = p.timeout("connect", "contimeout");
    let (pause, pause_at) =
        match connect.and_then(|l| Some((time(&l.args.get(1).or(l.args.first())?.text)?, l))) {
            Some((ms, l)) => (ms.min(1000.0), config.at(l)),
            None => (1000.0, on_at.clone()),
        };
    let pause_v = Spanned {
        value: pause,
        at: pause_at,
    };
    s.backoff = Some(BackoffSettings {
        at: on_at.clone(),
        base: Some(pause_v.clone()),
        cap: Some(pause_v),
        multiplier: Some(Spanned {
            value: 1.0,
            at: on_at.clone(),
        }),
        jitter: Some(Spanned {
            value: Jitter::None,
            at: on_at.clone(),
        }),
    });
    note(&on_at, format!("before a retry on the same server HAProxy waits the turn-around time min(`timeout connect`, 1 s), fixed, with no jitter; Retry-After is not read ({SOURCE})"));
    let redispatch = p.find(|l| {
        (l.keyword.text == "option" && l.args.first().is_some_and(|a| a.text == "redispatch"))
            || (l.keyword.text == "no" && l.texts().starts_with(&["option", "redispatch"]))
    });
    if let Some(l) = redispatch.filter(|l| l.keyword.text == "option") {
        let every = l.args.get(1).map_or("the last retry".to_string(), |n| {
            format!("every {}th retry", n.text)
        });
        note(
            &config.at(l),
            format!("`option redispatch`: {every} goes to another server ({SOURCE})"),
        );
    }
    // `timeout server` bounds every try; it is a retry's attempt timeout only when
    // `retry-on` retries a try that timed out (`response-timeout`): otherwise it
    // ends the request, as it would without retries.
    let timeout_retried = s
        .retry_on
        .as_ref()
        .is_some_and(|r| r.value.iter().any(|e| e.value == Signal::Timeout));
    match p.timeout("server", "srvtimeout") {
        Some(l) => {
            let ms = l.args.get(1).or(l.args.first()).and_then(|a| time(&a.text));
            match ms {
                Some(ms) if timeout_retried => {
                    s.attempt_timeout = Some(Spanned {
                        value: AttemptTimeout::Fixed(ms),
                        at: config.at(l),
                    })
                }
                Some(ms) => note(&config.at(l), format!("`timeout server` ({}) bounds each try; a try that times out is not retried (no `response-timeout` in `retry-on`) ({SOURCE})", crate::policy::duration::format_millis(ms))),
                None => {}
            }
        }
        None => note(
            &on_at,
            format!("no `timeout server`: a try waits for the server without limit ({SOURCE})"),
        ),
    }
    // `http-request disable-l7-retry [if|unless cond]`: no retry but connection
    // failures for the requests the condition selects.
    let acls = acl::named(&p.section.lines);
    for l in p.section.lines.iter().filter(|l| {
        l.keyword.text == "http-request"
            && l.args.first().is_some_and(|a| a.text == "disable-l7-retry")
    }) {
        let alts = acl::guard(&l.args[1..], &acls);
        let mut disabled: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
        let mut understood = true;
        for a in &alts {
            if a.paths.is_some() || a.hosts.is_some() || a.partial {
                understood = false;
                continue;
            }
            match &a.methods {
                Some(m) => disabled.extend(m.iter().cloned()),
                None => disabled.extend(acl::METHODS.iter().map(|m| m.to_string())),
            }
        }
        let at = config.at(l);
        if !understood {
            note(&at, format!("`http-request disable-l7-retry` with a condition on more than the method: it may not apply, so it is not counted ({SOURCE})"));
        }
        let kept: Vec<Spanned<String>> = match &s.methods {
            Some(m) => m.value.clone(),
            None => acl::METHODS
                .iter()
                .map(|m| Spanned {
                    value: m.to_string(),
                    at: at.clone(),
                })
                .collect(),
        }
        .into_iter()
        .filter(|m| !disabled.contains(&m.value))
        .collect();
        if !disabled.is_empty() {
            s.methods = Some(Spanned { value: kept, at });
        }
    }
    (s, notes)
}

#[cfg(test)]
mod tests;
