//! Kubernetes Gateway API `HTTPRoute`/`GRPCRoute` `rules[].retry` and `timeouts`
//! (GEP-1731, `retry-configs.md` §4), and Envoy Gateway `BackendTrafficPolicy.spec.retry`
//! with its target references (§4.3).
//!
//! Each route object becomes one route table: one route per `rules[].matches[]` item
//! in Gateway API precedence ([`routes`]), each with its rule's settings. `attempts`
//! counts retries, so TOTAL tries = `attempts` + 1; `timeouts.request` is the
//! deadline, `timeouts.backendRequest` the attempt timeout. What the stanza retries
//! besides `codes`, its defaults and the default deadline depend on the
//! implementation ([`implementation`]); every default carries a note naming it.
//! A route whose rules retry through a `BackendTrafficPolicy` ([`btp`]) is an Envoy
//! Gateway table. The layer is `gateway`, or `mesh` for a GAMMA route (a Service
//! `parentRef`). Routes that carry Linkerd's `retry.linkerd.io/*` or
//! `timeout.linkerd.io/*` annotations (on themselves or their Service) are Linkerd's
//! ([`crate::import::linkerd`]).

pub mod btp;
pub mod build;
pub mod implementation;
pub mod routes;

use self::build::{backoff, note, push_signals, sp};
use self::implementation::{Choice, Implementation};
use self::routes::{get_path, tree};
use super::stream::KubeObject;
use super::{
    duration, keys, rl017_ineffective_setting, rl314_version_dependent_default, ConfigObject,
    ImportContext, Imported, OriginNote, Platform, Route,
};
use crate::diagnostic::Diagnostic;
use crate::policy::model::{AttemptTimeout, Jitter, Layer, Settings, Signal};
use crate::retry::GrpcCode;
use crate::source::refs::At;
use crate::source::tree::{Kind, NodeId, Tree};

/// Keys of a GEP-1731 `retry` stanza (GW-T `HTTPRouteRetry`).
const RETRY_KEYS: &[&str] = &["codes", "attempts", "backoff"];
/// Keys of `rules[].timeouts` (GW-T `HTTPRouteTimeouts`).
const TIMEOUT_KEYS: &[&str] = &["request", "backendRequest"];

/// Reads the objects of this platform among `objects` (every Kubernetes object of
/// the run, so references between objects and files resolve).
pub fn import(objects: &[KubeObject], ctx: &ImportContext<'_>) -> Imported {
    let mut out = Imported::default();
    let choice = implementation::choose(objects, ctx);
    let policies = btp::read_all(objects, &mut out.diagnostics);
    let mut used = vec![false; policies.len()];
    for obj in objects.iter().filter(|o| routes::is_route(o)) {
        if linkerd_owned(obj, objects) {
            continue;
        }
        let policy = btp::for_route(&policies, obj);
        if let Some(i) = policy {
            used[i] = true;
        }
        let policy = policy.map(|i| &policies[i]);
        if let Some(table) = route_table(obj, policy, &choice, ctx, &mut out.diagnostics) {
            out.objects.push(table);
        }
    }
    for (p, used) in policies.iter().zip(used) {
        if !used {
            out.objects.extend(btp::untargeted_table(p));
        }
    }
    out
}

/// True when Linkerd reads this route's retries: the route, or a Service it attaches
/// to (same namespace, in the run), carries a `retry.linkerd.io/*` or
/// `timeout.linkerd.io/*` annotation (`retry-configs.md` §5.1).
pub fn linkerd_owned(obj: &KubeObject, objects: &[KubeObject]) -> bool {
    if has_linkerd_annotations(obj) {
        return true;
    }
    routes::service_parents(obj).iter().any(|svc| {
        objects.iter().any(|o| {
            o.kind == "Service"
                && o.group().is_empty()
                && o.name == svc.value
                && o.namespace == obj.namespace
                && has_linkerd_annotations(o)
        })
    })
}

/// True when the object carries a `retry.linkerd.io/*` or `timeout.linkerd.io/*`
/// annotation.
pub fn has_linkerd_annotations(obj: &KubeObject) -> bool {
    let Some(t) = tree(obj) else { return false };
    let Some(a) = get_path(t, obj.node, &["metadata", "annotations"]) else {
        return false;
    };
    t.raw_entries(a).iter().any(|&(k, _)| {
        t.scalar(k).is_some_and(|k| {
            k.starts_with("retry.linkerd.io/") || k.starts_with("timeout.linkerd.io/")
        })
    })
}

fn route_table(
    obj: &KubeObject,
    policy: Option<&btp::Policy>,
    choice: &Choice,
    ctx: &ImportContext<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Option<ConfigObject> {
    let t = tree(obj)?;
    let rules = routes::seq(t, get_path(t, obj.node, &["spec", "rules"]));
    let has_stanza = rules.iter().any(|&r| t.get(r, "retry").is_some());
    let istio_default = choice.imp == Implementation::Istio;
    if !has_stanza && policy.is_none() && !istio_default {
        return None;
    }
    if has_stanza && choice.imp == Implementation::Unknown {
        if let Some(first) = rules.iter().find_map(|&r| t.get(r, "retry")) {
            diags.push(unknown_implementation(&At::new(&obj.doc, first), obj));
        }
    }
    let mut per_rule: Vec<(Settings, Vec<OriginNote>)> = Vec::new();
    let mut via_btp = false;
    let mut istio_rl314 = false;
    for &rule in &rules {
        let rule_at = At::new(&obj.doc, rule);
        let timeouts = t.get(rule, "timeouts");
        if let Some(tm) = timeouts {
            diags.extend(keys::unknown_keys(
                &obj.doc,
                tm,
                TIMEOUT_KEYS,
                "Gateway API `timeouts`",
            ));
        }
        let settings = if let Some(r) = t.get(rule, "retry") {
            stanza(obj, t, rule, r, timeouts, choice, diags)
        } else if let Some(p) = policy {
            via_btp = true;
            p.settings_for_rule(obj, t, rule, timeouts, diags)
        } else if istio_default {
            let (s, n, unknown_version) =
                istio_implicit(obj, t, rule, timeouts, choice, ctx, diags);
            if unknown_version && !istio_rl314 {
                istio_rl314 = true;
                diags.push(istio_version_unknown(&rule_at, obj));
            }
            (s, n)
        } else {
            let mut s = Settings::empty(rule_at.clone());
            s.retry = Some(sp(false, &rule_at));
            read_deadline(obj, t, timeouts, &mut s, &mut Vec::new(), diags);
            let n = vec![note(
                &rule_at,
                format!(
                    "no `retry` here: {} does not retry this rule ({}; retry-configs.md §4.1)",
                    choice.imp.name(),
                    choice.why
                ),
            )];
            (s, n)
        };
        per_rule.push(settings);
    }
    let matches = routes::rule_matches(obj, diags);
    let routes = matches
        .into_iter()
        .filter_map(|m| {
            let (settings, notes) = per_rule.get(m.rule_index)?.clone();
            let at = At::new(&obj.doc, m.match_node.unwrap_or(m.rule));
            Some(Route {
                at,
                name: t
                    .get(m.rule, "name")
                    .and_then(|n| t.scalar(n))
                    .map(str::to_string)
                    .or_else(|| Some(format!("rules[{}]", m.rule_index))),
                matches: vec![m.request],
                rewrite: m.rewrite,
                settings,
                notes,
            })
        })
        .collect();
    let layer = if routes::service_parents(obj).is_empty() {
        Layer::Gateway
    } else {
        Layer::Mesh
    };
    Some(ConfigObject {
        method_scoped: Vec::new(),
        variant: None,
        url_prefixes: Vec::new(),
        platform: if via_btp || choice.imp == Implementation::EnvoyGateway {
            Platform::EnvoyGateway
        } else {
            Platform::GatewayApi
        },
        kind: obj.kind.clone(),
        name: obj.name.clone(),
        at: At::new(&obj.doc, obj.node),
        layer,
        names: routes::names(obj),
        routes,
    })
}

fn unknown_implementation(at: &At, obj: &KubeObject) -> Diagnostic {
    let readings = [
        Implementation::Istio,
        Implementation::EnvoyGateway,
        Implementation::Cilium,
        Implementation::Gep,
    ]
    .iter()
    .map(|i| format!("{}: {}; {}", i.name(), i.signals_text(), i.deadline_text()))
    .collect::<Vec<_>>()
    .join(". ");
    rl314_version_dependent_default::diagnostic(
        at,
        format!(
            "{} `{}`: what its `retry` stanzas retry besides `codes`, their default deadline and whether a `backendRequest` expiry is retried depend on the Gateway API implementation, which `.retrylint.yaml` does not name; retrylint reads the least safe of them. {readings}.",
            obj.kind, obj.name
        ),
        "implementation-specific retry",
        "name the implementation in `.retrylint.yaml`: `platforms: {gateway_api: {implementation: envoy-gateway}}` (or `istio`, `cilium`, `gep`)".into(),
    )
}

fn istio_version_unknown(at: &At, obj: &KubeObject) -> Diagnostic {
    rl314_version_dependent_default::diagnostic(
        at,
        format!(
            "{} `{}` has rules without `retry`, so Istio's implicit default applies, and whether it retries 503 depends on the Istio version: up to 1.23, or 1.24 to 1.26 with `EXCLUDE_UNSAFE_503_FROM_DEFAULT_RETRY=false`, 503 is retried; 1.24 and later with the default flag, never (retry-configs.md §2.2). retrylint reads it without 503.",
            obj.kind, obj.name
        ),
        "version-dependent default",
        "name the version in `.retrylint.yaml`: `platforms: {istio: {version: \"1.25\", exclude_unsafe_503: true}}`".into(),
    )
}

fn ineffective(at: &At, message: String, label: &str, help: &str) -> Diagnostic {
    rl017_ineffective_setting::diagnostic(at, message, label, help.to_string())
}

/// The most digits GEP-2257 allows in the number of one unit of a duration (its
/// validation pattern `^([0-9]{1,5}(h|m|s|ms)){1,4}$`).
pub(super) const GEP_2257_DIGITS: usize = 5;

/// False when a number of the duration `text` (its whole part) has more digits than
/// GEP-2257 allows ([`GEP_2257_DIGITS`]): beyond the Gateway API's range, whatever
/// Go would read (`100000ms`, `99999999999999999999999h`).
pub(super) fn within_gep_2257(text: &str) -> bool {
    text.split(|c: char| !c.is_ascii_digit() && c != '.')
        .all(|number| number.split('.').next().unwrap_or("").len() <= GEP_2257_DIGITS)
}

/// True when `text` has GEP-2257's shape whatever its digit counts: one to four
/// parts, each a whole number and one of `h`, `m`, `s`, `ms` (the CRD's pattern
/// `^([0-9]{1,5}(h|m|s|ms)){1,4}$`, whose digit limit [`within_gep_2257`] checks
/// apart, as out of range). No fraction, no `us` or `ns`, no sign: what Go's
/// `time.ParseDuration` would also take (`1.5s`, `1us`) is no Gateway API duration.
pub(super) fn gep_2257_shaped(text: &str) -> bool {
    let mut rest = text.as_bytes();
    let mut parts = 0;
    while !rest.is_empty() {
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 {
            return false;
        }
        rest = &rest[digits..];
        let unit = if rest.starts_with(b"ms") {
            2
        } else if matches!(rest.first(), Some(b'h' | b'm' | b's')) {
            1
        } else {
            return false;
        };
        rest = &rest[unit..];
        parts += 1;
    }
    (1..=4).contains(&parts)
}

/// A GEP-1731 duration at `node`, or RL017.
fn read_duration(
    obj: &KubeObject,
    t: &Tree,
    node: NodeId,
    what: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<f64> {
    let text = t.scalar(node).unwrap_or("");
    let shaped = gep_2257_shaped(text);
    if shaped && (!within_gep_2257(text) || duration::parse_go_bounded(text).is_none()) {
        diags.push(ineffective(
            &At::new(&obj.doc, node),
            format!("`{what}: {text}` is out of range: a Gateway API duration has at most {GEP_2257_DIGITS} digits per unit (GEP-2257: up to `99999h`)"),
            "out of range",
            "the Gateway API rejects the route as written, so retrylint reads no value from it (not the implementation's default); write a GEP-2257 duration such as `500ms`, `2s` or `1m30s`",
        ));
        return None;
    }
    match duration::parse_go_bounded(text).filter(|_| shaped) {
        Some(ms) => Some(ms),
        None => {
            diags.push(ineffective(
                &At::new(&obj.doc, node),
                format!("`{what}: {text}` is not a Gateway API duration, so it sets nothing"),
                "invalid duration",
                "write a GEP-2257 duration such as `500ms`, `2s` or `1m30s`",
            ));
            None
        }
    }
}

/// The rule's `timeouts.request` as the deadline (a `0s` switches it off), or the
/// implementation default when `default` is given.
fn read_deadline(
    obj: &KubeObject,
    t: &Tree,
    timeouts: Option<NodeId>,
    s: &mut Settings,
    notes: &mut Vec<OriginNote>,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let Some(node) = timeouts.and_then(|tm| t.get(tm, "request")) else {
        return false;
    };
    let at = At::new(&obj.doc, node);
    match read_duration(obj, t, node, "request", diags) {
        Some(0.0) => notes.push(note(
            &at,
            "`request: 0s` switches the request timeout off: no deadline (retry-configs.md §4.1)",
        )),
        Some(ms) => s.deadline = Some(sp(ms, &at)),
        // Reported at the value (RL017) and read as nothing: not the
        // implementation's default, and not blamed again as a missing deadline.
        None => s.refuse("deadline", at),
    }
    true
}

/// The settings of a rule with a `retry` stanza `r`.
fn stanza(
    obj: &KubeObject,
    t: &Tree,
    rule: NodeId,
    r: NodeId,
    timeouts: Option<NodeId>,
    choice: &Choice,
    diags: &mut Vec<Diagnostic>,
) -> (Settings, Vec<OriginNote>) {
    let imp = choice.imp;
    let r_at = At::new(&obj.doc, r);
    let rule_at = At::new(&obj.doc, rule);
    let mut s = Settings::empty(r_at.clone());
    let mut notes = Vec::new();
    if t.kind(r) == Kind::Map {
        diags.extend(keys::unknown_keys(
            &obj.doc,
            r,
            RETRY_KEYS,
            "Gateway API `retry`",
        ));
    }
    let by = format!("{} ({})", imp.name(), choice.why);
    // attempts: retries, so total = attempts + 1.
    let mut off = false;
    if let Some(n) = t.get(r, "attempts") {
        let at = At::new(&obj.doc, n);
        match t.as_i64(n) {
            Some(0) => {
                off = true;
                notes.push(note(
                    &at,
                    "`attempts: 0`: no retries (retry-configs.md §4.1)",
                ));
            }
            Some(v) if v > 0 => s.attempts = Some(sp(v.saturating_add(1), &at)),
            _ => {
                let text = t.scalar(n).unwrap_or("");
                let digits = text.strip_prefix('+').unwrap_or(text);
                let message = if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                    format!(
                        "`attempts: {text}` is out of range: at most {} retries (an int64)",
                        i64::MAX
                    )
                } else {
                    format!("`attempts: {text}` is not a count of retries")
                };
                diags.push(ineffective(
                    &at,
                    message,
                    "invalid attempts",
                    "the Gateway API rejects the route as written, so retrylint reads no count from it (not the implementation's default); write the number of retries after the first try, e.g. `attempts: 2`",
                ));
                // Read as nothing, and not reported again as missing.
                s.refuse("attempts", at);
            }
        }
    }
    if off {
        s.retry = Some(sp(false, &r_at));
        read_deadline(obj, t, timeouts, &mut s, &mut notes, diags);
        return (s, notes);
    }
    s.retry = Some(sp(true, &r_at));
    if s.attempts.is_none() && s.misspelled.is_empty() {
        s.attempts = Some(sp(3, &r_at));
        notes.push(note(
            &r_at,
            format!("no `attempts`: 2 retries, 3 tries in all, under {by} (Istio 2, Envoy Gateway 2; retry-configs.md §1 fact 4, §4.2)"),
        ));
    }
    // codes, then the implementation's connection errors.
    let codes = t.get(r, "codes");
    let list_at = codes.map_or(r_at.clone(), |c| At::new(&obj.doc, c));
    let mut list = Vec::new();
    let mut codes_given = false;
    for c in routes::seq(t, codes) {
        let at = At::new(&obj.doc, c);
        match t.as_i64(c) {
            Some(v) if (400..=599).contains(&v) => {
                codes_given = true;
                push_signals(&mut list, &[Signal::Status(v as u16)], &at);
            }
            _ => diags.push(ineffective(
                &at,
                format!(
                    "retry code `{}` is outside 400-599, which the Gateway API rejects",
                    t.scalar(c).unwrap_or("")
                ),
                "invalid code",
                "write an HTTP status between 400 and 599",
            )),
        }
    }
    push_signals(&mut list, &imp.stanza_signals(!codes_given), &r_at);
    notes.push(note(
        &r_at,
        format!("{} ({})", imp.signals_text(), choice.why),
    ));
    s.retry_on = Some(sp(list, &list_at));
    // backoff: Envoy's base interval (every implementation here is Envoy-based).
    match t.get(r, "backoff") {
        Some(b) => {
            let at = At::new(&obj.doc, b);
            match read_duration(obj, t, b, "backoff", diags) {
                Some(base) => {
                    s.backoff = Some(backoff(&at, (base, &at), (base * 10.0, &at), Jitter::Full));
                    notes.push(note(&at, format!("`backoff` is Envoy's base interval under {by}: each wait is uniform in [0, (2^N-1) x base), capped at 10 x base (retry-configs.md §1 fact 8, §3.1)")));
                }
                // Reported at the value (RL017) and read as nothing: not the
                // implementation's default, and no second finding for a missing
                // back-off or jitter.
                None => s.refuse("backoff", at),
            }
        }
        None => {
            s.backoff = Some(backoff(&r_at, (25.0, &r_at), (250.0, &r_at), Jitter::Full));
            notes.push(note(&r_at, format!("no `backoff`: Envoy's default under {by}, 25 ms base, 250 ms cap, full jitter (retry-configs.md §1 fact 8, §3.1)")));
        }
    }
    // timeouts.
    match timeouts.and_then(|tm| t.get(tm, "backendRequest")) {
        Some(n) => {
            if let Some(ms) = read_duration(obj, t, n, "backendRequest", diags) {
                let at = At::new(&obj.doc, n);
                let v = if ms == 0.0 {
                    AttemptTimeout::Remaining
                } else {
                    AttemptTimeout::Fixed(ms)
                };
                s.attempt_timeout = Some(sp(v, &at));
            }
        }
        None => {
            s.attempt_timeout = Some(sp(AttemptTimeout::Remaining, &r_at));
            notes.push(note(&r_at, "no `timeouts.backendRequest`: each try may use what is left of the request timeout (retry-configs.md §4.1)"));
        }
    }
    if !read_deadline(obj, t, timeouts, &mut s, &mut notes, diags) {
        let at = timeouts.map_or(rule_at.clone(), |tm| At::new(&obj.doc, tm));
        if let Some(ms) = imp.default_deadline() {
            s.deadline = Some(sp(ms, &at));
        }
        notes.push(note(
            &at,
            format!("{} ({})", imp.deadline_text(), choice.why),
        ));
    }
    (s, notes)
}

/// Istio's implicit default for a rule without `retry` (IST-GW: the route becomes a
/// VirtualService route without `retries`; `retry-configs.md` §1 fact 2, §2.2).
/// The third value is true when the Istio version that decides 503 is not known.
fn istio_implicit(
    obj: &KubeObject,
    t: &Tree,
    rule: NodeId,
    timeouts: Option<NodeId>,
    choice: &Choice,
    ctx: &ImportContext<'_>,
    diags: &mut Vec<Diagnostic>,
) -> (Settings, Vec<OriginNote>, bool) {
    let at = At::new(&obj.doc, rule);
    let mut s = Settings::empty(at.clone());
    let mut notes = Vec::new();
    s.retry = Some(sp(true, &at));
    s.attempts = Some(sp(3, &at));
    let istio = ctx.platforms.istio.unwrap_or_default();
    let (with_503, unknown) = match istio.version {
        None => (false, true),
        Some(v) if v <= (1, 23) => (true, false),
        Some(v) if v <= (1, 26) => (istio.exclude_unsafe_503 == Some(false), false),
        Some(_) => (false, false),
    };
    let mut signals = vec![
        Signal::ConnectFailure,
        Signal::RefusedStream,
        Signal::Grpc(GrpcCode::Unavailable),
        Signal::Grpc(GrpcCode::Cancelled),
    ];
    if with_503 {
        signals.push(Signal::Status(503));
    }
    let mut list = Vec::new();
    push_signals(&mut list, &signals, &at);
    s.retry_on = Some(sp(list, &at));
    s.backoff = Some(backoff(&at, (25.0, &at), (250.0, &at), Jitter::Full));
    s.attempt_timeout = Some(sp(AttemptTimeout::Remaining, &at));
    notes.push(note(&at, format!(
        "no `retry` here, so Istio's implicit default applies ({}): 2 retries (3 tries) on connect-failure, refused-stream, unavailable, cancelled{}, 25 ms backoff with full jitter, no per-try timeout (retry-configs.md §1 fact 2, §2.2, §4.2)",
        choice.why,
        if with_503 { " and 503" } else { "" }
    )));
    if !read_deadline(obj, t, timeouts, &mut s, &mut notes, diags) {
        notes.push(note(&at, Implementation::Istio.deadline_text()));
    }
    (s, notes, unknown)
}

#[cfg(test)]
pub(crate) mod tests;
