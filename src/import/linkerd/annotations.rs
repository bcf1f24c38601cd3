//! Linkerd's retry and timeout annotations (`retry-configs.md` §5.1; LD-REF, LD-PC
//! `parse_http_retry`, `convert_retry`):
//! - `retry.linkerd.io/http`: comma list of `5xx`, `gateway-error` (502-504), `xxx`,
//!   `xxx-yyy`; case-insensitive, no whitespace trimming (a space makes the list
//!   invalid); not valid on a `GRPCRoute`;
//! - `retry.linkerd.io/grpc`: `cancelled`, `deadline-exceeded`, `internal`,
//!   `resource-exhausted`, `unavailable`;
//! - `retry.linkerd.io/limit`: retries (default 1, and 0 means 1), so TOTAL = limit + 1;
//! - `retry.linkerd.io/timeout`: per-try timeout, unit required; a try that times out
//!   is retried (so `timeout` is a signal);
//! - `timeout.linkerd.io/request`: the deadline over all tries.
//!
//! Backoff is fixed by the proxy (25 ms to 250 ms, jitter ratio 1.0), Retry-After is
//! not honoured, connection errors are not retry conditions. Annotations on a route
//! override every retry annotation of its parent Service; a route without any takes
//! the Service's. A `ServiceProfile` for the Service switches the annotations off.
//! Only routes attached to a Service (GAMMA) are Linkerd's.

use crate::diagnostic::Diagnostic;
use crate::import::gateway_api::build::{backoff, note, push_signals, sp, status_range};
use crate::import::gateway_api::routes::{self, get_path, tree};
use crate::import::gateway_api::{has_linkerd_annotations, linkerd_owned};
use crate::import::stream::KubeObject;
use crate::import::{
    rl017_ineffective_setting, ConfigObject, Imported, OriginNote, Platform, RequestMatch, Route,
};
use crate::policy::duration::Millis;
use crate::policy::model::{AttemptTimeout, Jitter, Layer, Settings, Signal, Spanned};
use crate::source::refs::At;
use crate::source::strict::suggest;
use crate::source::tree::NodeId;

const HTTP: &str = "retry.linkerd.io/http";
const GRPC: &str = "retry.linkerd.io/grpc";
const LIMIT: &str = "retry.linkerd.io/limit";
const TIMEOUT: &str = "retry.linkerd.io/timeout";
const REQUEST: &str = "timeout.linkerd.io/request";
const KNOWN: &[&str] = &[
    HTTP,
    GRPC,
    LIMIT,
    TIMEOUT,
    REQUEST,
    "timeout.linkerd.io/response",
    "timeout.linkerd.io/idle",
];

/// The Linkerd annotations of one object: (name, value node) in source order.
struct Annotations<'o> {
    obj: &'o KubeObject,
    entries: Vec<(String, NodeId)>,
}

impl<'o> Annotations<'o> {
    fn of(obj: &'o KubeObject) -> Annotations<'o> {
        let mut entries = Vec::new();
        if let Some(t) = tree(obj) {
            if let Some(a) = get_path(t, obj.node, &["metadata", "annotations"]) {
                for &(k, v) in t.raw_entries(a) {
                    if let Some(name) = t.scalar(k) {
                        if name.starts_with("retry.linkerd.io/")
                            || name.starts_with("timeout.linkerd.io/")
                        {
                            entries.push((name.to_string(), v));
                        }
                    }
                }
            }
        }
        Annotations { obj, entries }
    }

    fn get(&self, name: &str) -> Option<(At, String)> {
        let t = tree(self.obj)?;
        self.entries
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| {
                (
                    At::new(&self.obj.doc, *v),
                    t.scalar(*v).unwrap_or("").to_string(),
                )
            })
    }

    fn has_retry(&self) -> bool {
        self.entries
            .iter()
            .any(|(n, _)| n.starts_with("retry.linkerd.io/"))
    }

    fn first_retry(&self) -> Option<At> {
        self.entries
            .iter()
            .find(|(n, _)| n.starts_with("retry.linkerd.io/"))
            .map(|(_, v)| At::new(&self.obj.doc, *v))
    }

    fn unknown(&self) -> Vec<Diagnostic> {
        self.entries
            .iter()
            .filter(|(n, _)| !KNOWN.contains(&n.as_str()))
            .map(|(n, v)| {
                let help = match suggest(n, KNOWN) {
                    Some(s) => format!("did you mean `{s}`? Linkerd ignores `{n}`, so the setting it was meant to make does not apply."),
                    None => format!("Linkerd reads {}.", KNOWN.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")),
                };
                rl017_ineffective_setting::diagnostic(
                    &At::new(&self.obj.doc, *v),
                    format!("unknown Linkerd annotation `{n}`"),
                    "unknown annotation",
                    help,
                )
            })
            .collect()
    }
}

/// The route tables of every route (and lone Service) Linkerd's annotations govern.
pub fn import(objects: &[KubeObject]) -> Imported {
    let mut out = Imported::default();
    let profiles: Vec<&KubeObject> = objects
        .iter()
        .filter(|o| o.kind == "ServiceProfile" && o.group() == "linkerd.io")
        .collect();
    for obj in objects.iter().filter(|o| has_linkerd_annotations(o)) {
        out.diagnostics.extend(Annotations::of(obj).unknown());
    }
    let services: Vec<&KubeObject> = objects
        .iter()
        .filter(|o| o.kind == "Service" && o.group().is_empty())
        .collect();
    let mut attached = Vec::new();
    for obj in objects.iter().filter(|o| routes::is_route(o)) {
        if !linkerd_owned(obj, objects) {
            continue;
        }
        let own = Annotations::of(obj);
        let parents = routes::service_parents(obj);
        if parents.is_empty() {
            if let Some(at) = own
                .first_retry()
                .or_else(|| own.get(REQUEST).map(|(a, _)| a))
            {
                out.diagnostics.push(rl017_ineffective_setting::diagnostic(
                    &at,
                    format!("{} `{}` attaches to no Service, and Linkerd reads these annotations only on routes whose parent is a Service", obj.kind, obj.name),
                    "not a mesh route",
                    "add a `parentRefs` entry with `kind: Service` (GAMMA), or remove the annotations".into(),
                ));
            }
            continue;
        }
        let parent: Option<&KubeObject> = parents.iter().find_map(|p| {
            services
                .iter()
                .find(|s| {
                    s.name == p.value && s.namespace == obj.namespace && has_linkerd_annotations(s)
                })
                .copied()
        });
        attached.extend(
            parents
                .iter()
                .map(|p| (p.value.clone(), obj.namespace.clone())),
        );
        let inherited = parent.map(Annotations::of);
        let retry_src = if own.has_retry() {
            Some(&own)
        } else {
            inherited.as_ref().filter(|a| a.has_retry())
        };
        let request = own
            .get(REQUEST)
            .or_else(|| inherited.as_ref().and_then(|a| a.get(REQUEST)));
        if let Some(sp_obj) = profile_for(&profiles, &parents, &obj.namespace) {
            if let Some(src) = retry_src {
                if let Some(at) = src.first_retry() {
                    out.diagnostics.push(profile_disables(&at, sp_obj));
                }
            }
            continue;
        }
        let (settings, notes) = settings(obj, retry_src, request, &mut out.diagnostics);
        let matches = routes::rule_matches(obj, &mut out.diagnostics);
        let t = tree(obj);
        let routes = matches
            .into_iter()
            .map(|m| Route {
                at: At::new(&obj.doc, m.match_node.unwrap_or(m.rule)),
                name: t
                    .and_then(|t| t.get(m.rule, "name").and_then(|n| t.scalar(n)))
                    .map(str::to_string)
                    .or_else(|| Some(format!("rules[{}]", m.rule_index))),
                matches: vec![m.request],
                rewrite: m.rewrite,
                settings: settings.clone(),
                notes: notes.clone(),
            })
            .collect();
        out.objects.push(ConfigObject {
            method_scoped: Vec::new(),
            variant: None,
            url_prefixes: Vec::new(),
            platform: Platform::Linkerd,
            kind: obj.kind.clone(),
            name: obj.name.clone(),
            at: At::new(&obj.doc, obj.node),
            layer: Layer::Mesh,
            names: routes::names(obj),
            routes,
        });
    }
    // Services with annotations that no route of the run attaches to: their default
    // route carries them.
    for svc in services.iter().filter(|s| has_linkerd_annotations(s)) {
        if attached
            .iter()
            .any(|(n, ns)| *n == svc.name && *ns == svc.namespace)
        {
            continue;
        }
        let own = Annotations::of(svc);
        let name = Spanned {
            value: svc.name.clone(),
            at: tree(svc)
                .and_then(|t| get_path(t, svc.node, &["metadata", "name"]))
                .map_or(At::new(&svc.doc, svc.node), |n| At::new(&svc.doc, n)),
        };
        if let Some(p) = profile_for(&profiles, std::slice::from_ref(&name), &svc.namespace) {
            if let Some(at) = own.first_retry() {
                out.diagnostics.push(profile_disables(&at, p));
            }
            continue;
        }
        let retry_src = own.has_retry().then_some(&own);
        let (settings, notes) = settings(svc, retry_src, own.get(REQUEST), &mut out.diagnostics);
        out.objects.push(ConfigObject {
            method_scoped: Vec::new(),
            variant: None,
            url_prefixes: Vec::new(),
            platform: Platform::Linkerd,
            kind: "Service".into(),
            name: svc.name.clone(),
            at: At::new(&svc.doc, svc.node),
            layer: Layer::Mesh,
            names: vec![name],
            routes: vec![Route {
                at: At::new(&svc.doc, svc.node),
                name: None,
                matches: vec![RequestMatch::any()],
                rewrite: None,
                settings,
                notes,
            }],
        });
    }
    out
}

/// The ServiceProfile whose name is the FQDN of one of `services` in `namespace`.
fn profile_for<'a>(
    profiles: &[&'a KubeObject],
    services: &[Spanned<String>],
    namespace: &str,
) -> Option<&'a KubeObject> {
    profiles.iter().copied().find(|p| {
        services.iter().any(|s| {
            let ns = if namespace.is_empty() {
                "default"
            } else {
                namespace
            };
            p.name == format!("{}.{ns}.svc.cluster.local", s.value)
        })
    })
}

fn profile_disables(at: &At, profile: &KubeObject) -> Diagnostic {
    rl017_ineffective_setting::diagnostic(
        at,
        format!("ServiceProfile `{}` exists for this Service, so Linkerd's proxies use it and ignore these retry annotations", profile.name),
        "ignored: a ServiceProfile applies",
        "configure retries in one place: remove the ServiceProfile's routes, or these annotations (retry-configs.md §5.1)".into(),
    )
}

/// Why Linkerd refuses a duration annotation.
enum Refused {
    /// Not a number with a unit.
    Syntax,
    /// Negative, or milliseconds beyond a `u64`.
    OutOfRange,
}

/// A duration annotation in ms as Linkerd reads it, or why it is refused.
///
/// Linkerd's policy controller (`parse_duration` in its outbound index) reads a
/// whole number of `ms`, `s`, `m`, `h` or `d` (a bare `0` is zero): no fraction, no
/// `us`, no compound such as `1h30m` (Go's syntax, which Linkerd does not take), and
/// a value whose milliseconds overflow a `u64` is refused.
fn annotation_duration(text: &str) -> Result<Millis, Refused> {
    let t = text.trim();
    if let Some(rest) = t.strip_prefix('-') {
        // Below zero: out of range when the rest is a duration, else no duration.
        return match annotation_duration(rest) {
            Ok(_) | Err(Refused::OutOfRange) => Err(Refused::OutOfRange),
            Err(Refused::Syntax) => Err(Refused::Syntax),
        };
    }
    let Some(last_digit) = t.rfind(|c: char| c.is_ascii_digit()) else {
        return Err(Refused::Syntax);
    };
    let (magnitude, unit) = t.split_at(last_digit + 1);
    let factor: u64 = match unit {
        "" if magnitude.bytes().all(|b| b == b'0') => 0,
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return Err(Refused::Syntax),
    };
    let value = match magnitude.parse::<u64>() {
        Ok(value) => value,
        Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => {
            return Err(Refused::OutOfRange)
        }
        Err(_) => return Err(Refused::Syntax),
    };
    let ms = value.checked_mul(factor).ok_or(Refused::OutOfRange)?;
    Ok(ms as Millis)
}

/// RL017 at a duration annotation beyond Linkerd's range; `what` names the setting
/// retrylint then does not read (`deadline`, `per-try timeout`).
fn out_of_range_duration(at: &At, key: &str, text: &str, what: &str) -> Diagnostic {
    rl017_ineffective_setting::diagnostic(
        at,
        format!("`{key}: {text}` is out of range: 0 to {}ms (Linkerd reads whole milliseconds into a `u64`)", u64::MAX),
        "out of range",
        format!("Linkerd's policy controller refuses this route's annotations, so retrylint reads no {what} from it; write a duration with its unit, such as `1s` or `500ms`."),
    )
}

fn invalid(at: &At, message: String, help: &str) -> Diagnostic {
    rl017_ineffective_setting::diagnostic(at, message, "invalid annotation", help.to_string())
}

/// The signals of a `retry.linkerd.io/http` value, or `None` when Linkerd rejects it.
pub fn http_conditions(value: &str) -> Option<Vec<Signal>> {
    let mut out = Vec::new();
    for token in value.split(',') {
        let lower = token.to_ascii_lowercase();
        let code = |s: &str| -> Option<u16> {
            (s.len() == 3 && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse().ok())
                .flatten()
                .filter(|c| (100..=599).contains(c))
        };
        match lower.as_str() {
            "5xx" => out.push(Signal::Class(5)),
            "gateway-error" => out.extend([
                Signal::Status(502),
                Signal::Status(503),
                Signal::Status(504),
            ]),
            other => match other.split_once('-') {
                Some((a, b)) => {
                    let (a, b) = (code(a)?, code(b)?);
                    if a > b {
                        return None;
                    }
                    out.extend(status_range(a, b));
                }
                None => out.push(Signal::Status(code(other)?)),
            },
        }
    }
    Some(out)
}

/// The signals of a `retry.linkerd.io/grpc` value, or `None` when Linkerd rejects it.
pub fn grpc_conditions(value: &str) -> Option<Vec<Signal>> {
    value
        .split(',')
        .map(|token| match token.to_ascii_lowercase().as_str() {
            t @ ("cancelled" | "deadline-exceeded" | "internal" | "resource-exhausted"
            | "unavailable") => t.parse().ok(),
            _ => None,
        })
        .collect()
}

fn settings(
    obj: &KubeObject,
    retry: Option<&Annotations<'_>>,
    request: Option<(At, String)>,
    diags: &mut Vec<Diagnostic>,
) -> (Settings, Vec<OriginNote>) {
    let obj_at = At::new(&obj.doc, obj.node);
    let mut notes = Vec::new();
    let first = retry.and_then(Annotations::first_retry);
    let mut s = Settings::empty(first.clone().unwrap_or_else(|| obj_at.clone()));
    if let Some((at, text)) = &request {
        match annotation_duration(text) {
            Ok(ms) if ms > 0.0 => s.deadline = Some(sp(ms, at)),
            Ok(_) => {}
            Err(Refused::Syntax) => diags.push(invalid(at, format!("`{REQUEST}: {text}` is not a duration Linkerd reads (a whole number of `ms`, `s`, `m`, `h` or `d`), so Linkerd sets no request timeout"), "write a whole number with its unit, such as `1s` or `500ms`")),
            Err(Refused::OutOfRange) => diags.push(out_of_range_duration(at, REQUEST, text, "deadline")),
        }
        // A refused value is read as no deadline, and not blamed again as a missing
        // one (RL301).
        if s.deadline.is_none() && annotation_duration(text).is_err() {
            s.refuse("deadline", at.clone());
        }
    }
    let (Some(a), Some(first)) = (retry, first) else {
        s.retry = Some(sp(false, &obj_at));
        return (s, notes);
    };
    let mut list = Vec::new();
    let mut list_at = None;
    if let Some((at, text)) = a.get(HTTP) {
        if routes::is_grpc(obj) && std::ptr::eq(a.obj, obj) {
            diags.push(invalid(
                &at,
                format!("`{HTTP}` is not valid on a GRPCRoute, so Linkerd ignores it"),
                "use `retry.linkerd.io/grpc` with gRPC status names",
            ));
        } else {
            match http_conditions(&text) {
                Some(sig) => {
                    push_signals(&mut list, &sig, &at);
                    list_at = Some(at);
                }
                None => diags.push(invalid(&at, format!("`{HTTP}: {text}` is not a valid list, so Linkerd retries no HTTP status here"), "write a comma list without spaces of `5xx`, `gateway-error`, `xxx` or `xxx-yyy` (codes 100-599), e.g. `5xx,429`")),
            }
        }
    }
    if let Some((at, text)) = a.get(GRPC) {
        match grpc_conditions(&text) {
            Some(sig) => {
                push_signals(&mut list, &sig, &at);
                list_at.get_or_insert(at);
            }
            None => diags.push(invalid(&at, format!("`{GRPC}: {text}` is not a valid list, so Linkerd retries no gRPC status here"), "write a comma list without spaces of `cancelled`, `deadline-exceeded`, `internal`, `resource-exhausted`, `unavailable`")),
        }
    }
    // A refused `retry.linkerd.io/timeout` (RL017 at it): no per-try timeout at all,
    // not "what is left of the request timeout".
    let mut timeout_refused = None;
    if let Some((at, text)) = a.get(TIMEOUT) {
        match annotation_duration(&text) {
            Err(Refused::OutOfRange) => {
                diags.push(out_of_range_duration(
                    &at,
                    TIMEOUT,
                    &text,
                    "per-try timeout",
                ));
                timeout_refused = Some(at);
            }
            Ok(ms) if ms > 0.0 => {
                s.attempt_timeout = Some(sp(AttemptTimeout::Fixed(ms), &at));
                push_signals(&mut list, &[Signal::Timeout], &at);
                list_at.get_or_insert(at.clone());
                notes.push(note(&at, "Linkerd cancels a try that outlives `retry.linkerd.io/timeout` and retries it (retry-configs.md §5.1, LD-REF)"));
            }
            // Zero is no per-try timeout (LD-PC filters it out).
            Ok(_) => notes.push(note(
                &at,
                "`retry.linkerd.io/timeout` of 0 sets no per-try timeout (LD-PC)",
            )),
            Err(Refused::Syntax) => {
                diags.push(invalid(
                    &at,
                    format!("`{TIMEOUT}: {text}` is not a duration Linkerd reads (a whole number of `ms`, `s`, `m`, `h` or `d`), so tries have no timeout"),
                    "write a duration with its unit, such as `150ms` (a bare number is invalid)",
                ));
                timeout_refused = Some(at);
            }
        }
    }
    let Some(list_at) = list_at else {
        diags.push(invalid(
            &first,
            format!(
                "the retry annotations of {} `{}` name no condition, so Linkerd retries nothing",
                a.obj.kind, a.obj.name
            ),
            "add `retry.linkerd.io/http` (e.g. `5xx`) or `retry.linkerd.io/grpc`",
        ));
        s.retry = Some(sp(false, &first));
        s.attempt_timeout = None;
        return (s, Vec::new());
    };
    if let Some(at) = timeout_refused {
        s.refuse("attempt_timeout", at);
    } else if s.attempt_timeout.is_none() {
        s.attempt_timeout = Some(sp(AttemptTimeout::Remaining, &first));
        notes.push(note(&first, "no valid `retry.linkerd.io/timeout`: each try may use what is left of the request timeout (retry-configs.md §5.1)"));
    }
    s.retry = Some(sp(true, &first));
    s.retry_on = Some(sp(list, &list_at));
    match a.get(LIMIT) {
        Some((at, text)) => match text.parse::<u16>() {
            Ok(v) => {
                let retries = if v == 0 { 1 } else { i64::from(v) };
                if v == 0 {
                    notes.push(note(&at, "`retry.linkerd.io/limit: \"0\"` means Linkerd's default of 1 retry (retry-configs.md §5.1, LD-PC)"));
                }
                s.attempts = Some(sp(retries + 1, &at));
            }
            // Linkerd's policy controller parses the limit as a `u16` and refuses the
            // route's annotations when that fails (LD-PC `parse_http_retry`): read as
            // no count (not the default of 1 retry), not blamed again (RL302).
            Err(_) => {
                let digits = text.strip_prefix(['-', '+']).unwrap_or(&text);
                let whole = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
                let help = "Linkerd's policy controller refuses this route's annotations, so retrylint reads no retry count from it (not the default of 1 retry); write the number of retries as a string, e.g. `\"2\"`";
                if whole {
                    diags.push(rl017_ineffective_setting::diagnostic(
                        &at,
                        format!("`{LIMIT}: {text}` is out of range: 0 to {} retries (Linkerd reads a `u16`)", u16::MAX),
                        "out of range",
                        help.to_string(),
                    ));
                } else {
                    diags.push(invalid(
                        &at,
                        format!("`{LIMIT}: {text}` is not a number of retries"),
                        help,
                    ));
                }
                notes.push(note(&at, "this `retry.linkerd.io/limit` is refused (RL017 at it), so no retry count is read from it"));
                s.refuse("attempts", at);
            }
        },
        None => {
            s.attempts = Some(sp(2, &first));
            notes.push(note(&first, "no `retry.linkerd.io/limit`: Linkerd's default of 1 retry, 2 tries in all (retry-configs.md §5.1, LD-PC)"));
        }
    }
    s.backoff = Some(backoff(
        &first,
        (25.0, &first),
        (250.0, &first),
        Jitter::Full,
    ));
    notes.push(note(&first, "Linkerd's fixed backoff: exponential from 25 ms to 250 ms, jitter ratio 1.0, not configurable; Retry-After is not honoured; bodies over 64 KiB are never retried (retry-configs.md §5.1, LD-PC)"));
    if request.is_none() {
        notes.push(note(&first, "no `timeout.linkerd.io/request`: Linkerd sets no request timeout, so no deadline (retry-configs.md §5.1)"));
    }
    if !std::ptr::eq(a.obj, obj) {
        notes.push(note(&first, format!("inherited from Service `{}`: the route has no retry annotation of its own (retry-configs.md §5.1)", a.obj.name)));
    }
    (s, notes)
}
