//! Envoy Gateway `BackendTrafficPolicy` (`gateway.envoyproxy.io`, `retry-configs.md`
//! §4.3): `spec.retry` (`numRetries`, default 2 = retries, so 3 tries;
//! `retryOn.triggers` in Envoy's `retry_on` vocabulary, default
//! `connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes`;
//! `retryOn.httpStatusCodes`, default [503], effective only with
//! `retriable-status-codes`; `perRetry.timeout`; `perRetry.backOff.baseInterval` /
//! `maxInterval`, full jitter, default 25 ms / 10 x base) and
//! `spec.timeout.http.requestTimeout`, applied to the routes of its `targetRef` /
//! `targetRefs` (an `HTTPRoute`/`GRPCRoute`, or a `Gateway` and its routes, by name in
//! the policy's namespace). A rule's own `retry` wins over the policy. The deadline
//! is the rule's `timeouts.request`, else the policy's `requestTimeout`, else
//! Envoy's 15 s route timeout (EG-API, EG-TR, ENV-P).

use super::build::{backoff, note, push_signals, sp};
use super::implementation::ENVOY_ROUTE_TIMEOUT_MS;
use super::routes::{self, get_path, seq, tree};
use crate::diagnostic::Diagnostic;
use crate::import::stream::KubeObject;
use crate::import::{
    duration, envoy_retry_on, keys, rl017_ineffective_setting, ConfigObject, OriginNote, Platform,
    RequestMatch, Route,
};
use crate::policy::model::{AttemptTimeout, Jitter, Layer, Settings, Signal};
use crate::source::refs::At;
use crate::source::tree::{NodeId, Tree};

const RETRY_KEYS: &[&str] = &[
    "numRetries",
    "numAttemptsPerPriority",
    "retryOn",
    "perRetry",
];
const RETRY_ON_KEYS: &[&str] = &["triggers", "httpStatusCodes"];
const PER_RETRY_KEYS: &[&str] = &["timeout", "idleTimeout", "backOff"];
const BACKOFF_KEYS: &[&str] = &["baseInterval", "maxInterval"];
const DEFAULT_TRIGGERS: &[&str] = &[
    "connect-failure",
    "refused-stream",
    "unavailable",
    "cancelled",
    "retriable-status-codes",
];

/// One `BackendTrafficPolicy`, read once.
#[derive(Debug, Clone)]
pub struct Policy {
    /// The object.
    pub obj: KubeObject,
    /// `(kind, name)` of each target reference.
    targets: Vec<(String, String)>,
    /// The settings of `spec.retry` (`None`: the policy sets no retry).
    retry: Option<(Settings, Vec<OriginNote>)>,
    /// `spec.timeout.http.requestTimeout` (ms) and its node.
    request_timeout: Option<(f64, At)>,
}

/// Every `BackendTrafficPolicy` of the run, with RL017 for what it cannot mean.
pub fn read_all(objects: &[KubeObject], diags: &mut Vec<Diagnostic>) -> Vec<Policy> {
    objects
        .iter()
        .filter(|o| o.group() == "gateway.envoyproxy.io" && o.kind == "BackendTrafficPolicy")
        .filter_map(|o| read(o, diags))
        .collect()
}

/// The index of the policy that applies to `route`: one naming the route, else one
/// naming a Gateway the route attaches to.
pub fn for_route(policies: &[Policy], route: &KubeObject) -> Option<usize> {
    let same_ns = |p: &Policy| p.obj.namespace == route.namespace;
    let direct = policies.iter().position(|p| {
        same_ns(p)
            && p.targets
                .iter()
                .any(|(k, n)| *k == route.kind && *n == route.name)
    });
    direct.or_else(|| {
        let gateways = routes::gateway_parents(route);
        policies.iter().position(|p| {
            same_ns(p)
                && p.targets
                    .iter()
                    .any(|(k, n)| k == "Gateway" && gateways.iter().any(|g| g.value == *n))
        })
    })
}

fn read(obj: &KubeObject, diags: &mut Vec<Diagnostic>) -> Option<Policy> {
    let t = tree(obj)?;
    let spec = t.get(obj.node, "spec")?;
    let mut targets = Vec::new();
    let mut refs = seq(t, t.get(spec, "targetRefs"));
    refs.extend(t.get(spec, "targetRef"));
    for r in refs {
        let text = |k: &str| {
            t.get(r, k)
                .and_then(|n| t.scalar(n))
                .unwrap_or("")
                .to_string()
        };
        targets.push((text("kind"), text("name")));
    }
    let request_timeout = get_path(t, spec, &["timeout", "http", "requestTimeout"]).and_then(|n| {
        let ms = duration_at(obj, t, n, "requestTimeout", diags)?;
        Some((ms, At::new(&obj.doc, n)))
    });
    let retry = t
        .get(spec, "retry")
        .map(|r| retry_settings(obj, t, r, diags));
    Some(Policy {
        obj: obj.clone(),
        targets,
        retry,
        request_timeout,
    })
}

fn duration_at(
    obj: &KubeObject,
    t: &Tree,
    n: NodeId,
    what: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<f64> {
    let text = t.scalar(n).unwrap_or("");
    if duration::parse_go_nanos(text).is_some()
        && (!super::within_gep_2257(text) || duration::parse_go_bounded(text).is_none())
    {
        diags.push(rl017_ineffective_setting::diagnostic(
            &At::new(&obj.doc, n),
            format!("`{what}: {text}` is out of range: a Gateway API duration has at most {} digits per unit (GEP-2257: up to `99999h`)", super::GEP_2257_DIGITS),
            "out of range",
            "Envoy Gateway rejects the policy as written, so retrylint reads no value from it (not the default); write a duration such as `250ms` or `10s`".into(),
        ));
        return None;
    }
    let parsed = duration::parse_go_bounded(text);
    if parsed.is_none() {
        diags.push(rl017_ineffective_setting::diagnostic(
            &At::new(&obj.doc, n),
            format!("`{what}: {text}` is not a duration, so it sets nothing"),
            "invalid duration",
            "write a Go duration such as `250ms` or `10s`".into(),
        ));
    }
    parsed
}

fn retry_settings(
    obj: &KubeObject,
    t: &Tree,
    r: NodeId,
    diags: &mut Vec<Diagnostic>,
) -> (Settings, Vec<OriginNote>) {
    let doc = &obj.doc;
    let r_at = At::new(doc, r);
    let mut s = Settings::empty(r_at.clone());
    let mut notes = Vec::new();
    diags.extend(keys::unknown_keys(
        doc,
        r,
        RETRY_KEYS,
        "Envoy Gateway `retry`",
    ));
    s.retry = Some(sp(true, &r_at));
    let mut return_default = true;
    match t.get(r, "numRetries") {
        // An int32 in Envoy Gateway's API (`NumRetries *int32`).
        Some(n)
            if t.as_i64(n)
                .is_some_and(|v| (0..=i64::from(i32::MAX)).contains(&v)) =>
        {
            let v = t.as_i64(n).unwrap_or(0);
            s.attempts = Some(sp(v.saturating_add(1), &At::new(doc, n)));
            if v == 0 {
                s.retry = Some(sp(false, &At::new(doc, n)));
            }
        }
        other => {
            if let Some(n) = other {
                let text = t.scalar(n).unwrap_or("");
                let digits = text.strip_prefix('+').unwrap_or(text);
                let message = if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                    format!(
                        "`numRetries: {text}` is out of range: at most {} retries (an int32)",
                        i32::MAX
                    )
                } else {
                    format!("`numRetries: {text}` is not a count of retries")
                };
                diags.push(rl017_ineffective_setting::diagnostic(
                    &At::new(doc, n),
                    message,
                    "invalid numRetries",
                    "Envoy Gateway rejects the policy as written, so retrylint reads no count from it (not the default); write the number of retries after the first try, e.g. `numRetries: 2`".into(),
                ));
                // Read as nothing, and not reported again as missing.
                s.refuse("attempts", At::new(doc, n));
                return_default = false;
            }
            if return_default {
                s.attempts = Some(sp(3, &r_at));
                notes.push(note(&r_at, "no `numRetries`: Envoy Gateway's default of 2 retries, 3 tries in all (retry-configs.md §4.3, EG-API)"));
            }
        }
    }
    // retryOn.
    let on = t.get(r, "retryOn");
    if let Some(o) = on {
        diags.extend(keys::unknown_keys(
            doc,
            o,
            RETRY_ON_KEYS,
            "Envoy Gateway `retryOn`",
        ));
    }
    let list_at = on.map_or(r_at.clone(), |o| At::new(doc, o));
    let mut list = Vec::new();
    let triggers = on.and_then(|o| t.get(o, "triggers"));
    let mut status_codes_trigger = false;
    match triggers {
        Some(tr) => {
            for item in seq(t, Some(tr)) {
                let at = At::new(doc, item);
                let token = t.scalar(item).unwrap_or("");
                status_codes_trigger |= token == "retriable-status-codes";
                match envoy_retry_on::signals(token) {
                    Some(sig) => push_signals(&mut list, &sig, &at),
                    None => diags.push(rl017_ineffective_setting::diagnostic(
                        &at,
                        format!("unknown retry trigger `{token}`: Envoy Gateway rejects it"),
                        "unknown trigger",
                        format!("use one of: {}", "5xx, gateway-error, reset, reset-before-request, connect-failure, retriable-4xx, refused-stream, retriable-status-codes, cancelled, deadline-exceeded, internal, resource-exhausted, unavailable"),
                    )),
                }
            }
        }
        None => {
            status_codes_trigger = true;
            for token in DEFAULT_TRIGGERS {
                push_signals(
                    &mut list,
                    &envoy_retry_on::signals(token).unwrap_or_default(),
                    &list_at,
                );
            }
            notes.push(note(&list_at, "no `triggers`: Envoy Gateway's default `connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes` (retry-configs.md §4.3, EG-TR)"));
        }
    }
    let codes = on.and_then(|o| t.get(o, "httpStatusCodes"));
    match codes {
        Some(c) if status_codes_trigger => {
            for item in seq(t, Some(c)) {
                let at = At::new(doc, item);
                match t.as_i64(item) {
                    Some(v) if (100..=599).contains(&v) => {
                        push_signals(&mut list, &[Signal::Status(v as u16)], &at)
                    }
                    _ => diags.push(rl017_ineffective_setting::diagnostic(
                        &at,
                        format!("`{}` is not an HTTP status", t.scalar(item).unwrap_or("")),
                        "invalid status",
                        "write an HTTP status such as `503`".into(),
                    )),
                }
            }
        }
        Some(c) => diags.push(rl017_ineffective_setting::diagnostic(
            &At::new(doc, c),
            "`httpStatusCodes` has no effect: `triggers` lacks `retriable-status-codes`".into(),
            "ignored status codes",
            "add `retriable-status-codes` to `triggers`, or remove `httpStatusCodes`".into(),
        )),
        None if status_codes_trigger => {
            push_signals(&mut list, &[Signal::Status(503)], &list_at);
            notes.push(note(&list_at, "no `httpStatusCodes`: Envoy Gateway retries 503 for `retriable-status-codes` (retry-configs.md §4.3, EG-TR)"));
        }
        None => {}
    }
    if list.is_empty() && s.retry.as_ref().is_some_and(|v| v.value) {
        diags.push(rl017_ineffective_setting::diagnostic(
            &list_at,
            "this retry policy retries on nothing retrylint can name, so it is read as no retry"
                .into(),
            "no retry condition",
            "add a trigger such as `connect-failure`".into(),
        ));
        s.retry = Some(sp(false, &r_at));
    }
    s.retry_on = Some(sp(list, &list_at));
    // perRetry.
    let per = t.get(r, "perRetry");
    if let Some(p) = per {
        diags.extend(keys::unknown_keys(
            doc,
            p,
            PER_RETRY_KEYS,
            "Envoy Gateway `perRetry`",
        ));
    }
    match per.and_then(|p| t.get(p, "timeout")) {
        Some(n) => {
            if let Some(ms) = duration_at(obj, t, n, "timeout", diags) {
                s.attempt_timeout = Some(sp(AttemptTimeout::Fixed(ms), &At::new(doc, n)));
            }
        }
        None => {
            s.attempt_timeout = Some(sp(AttemptTimeout::Remaining, &r_at));
            notes.push(note(&r_at, "no `perRetry.timeout`: each try may use what is left of the route timeout (retry-configs.md §3.1, §4.3)"));
        }
    }
    match per.and_then(|p| t.get(p, "backOff")) {
        Some(b) => {
            diags.extend(keys::unknown_keys(
                doc,
                b,
                BACKOFF_KEYS,
                "Envoy Gateway `backOff`",
            ));
            let b_at = At::new(doc, b);
            let base_node = t.get(b, "baseInterval");
            let base = base_node.and_then(|n| duration_at(obj, t, n, "baseInterval", diags));
            let base_at = base_node.map_or(b_at.clone(), |n| At::new(doc, n));
            let max_node = t.get(b, "maxInterval");
            let cap = max_node.and_then(|n| duration_at(obj, t, n, "maxInterval", diags));
            let cap_at = max_node.map_or(b_at.clone(), |n| At::new(doc, n));
            // A written interval Envoy Gateway rejects (RL017 at it) is read as no
            // back-off at all: not the default base, not 10 x base.
            if (base_node.is_some() && base.is_none()) || (max_node.is_some() && cap.is_none()) {
                s.refuse("backoff", b_at);
                return (s, notes);
            }
            let base = base.unwrap_or(25.0);
            if cap.is_none() {
                notes.push(note(&b_at, "no `maxInterval`: Envoy caps the backoff at 10 x `baseInterval` (retry-configs.md §3.1, §4.3)"));
            }
            s.backoff = Some(backoff(
                &b_at,
                (base, &base_at),
                (cap.unwrap_or(base * 10.0), &cap_at),
                Jitter::Full,
            ));
            notes.push(note(&b_at, "Envoy's backoff: each wait is uniform in [0, (2^N-1) x base), full jitter (retry-configs.md §3.1, §4.3)"));
        }
        None => {
            s.backoff = Some(backoff(&r_at, (25.0, &r_at), (250.0, &r_at), Jitter::Full));
            notes.push(note(&r_at, "no `perRetry.backOff`: Envoy's default 25 ms base, 250 ms cap, full jitter (retry-configs.md §3.1, §4.3)"));
        }
    }
    (s, notes)
}

impl Policy {
    /// The settings the policy gives a rule without its own `retry`, with the rule's
    /// deadline.
    pub fn settings_for_rule(
        &self,
        obj: &KubeObject,
        t: &Tree,
        rule: NodeId,
        timeouts: Option<NodeId>,
        diags: &mut Vec<Diagnostic>,
    ) -> (Settings, Vec<OriginNote>) {
        let rule_at = At::new(&obj.doc, rule);
        let (mut s, mut notes) = self.retry.clone().unwrap_or_else(|| {
            let mut s = Settings::empty(rule_at.clone());
            s.retry = Some(sp(false, &rule_at));
            (s, Vec::new())
        });
        let request = timeouts.and_then(|tm| t.get(tm, "request"));
        if let Some(n) = request {
            let at = At::new(&obj.doc, n);
            match duration_at(obj, t, n, "request", diags) {
                Some(0.0) => notes.push(note(
                    &at,
                    "`request: 0s` switches the route timeout off: no deadline",
                )),
                Some(ms) => s.deadline = Some(sp(ms, &at)),
                // Reported at the value (RL017) and read as nothing: not the
                // policy's timeout, and not blamed again as a missing deadline.
                None => s.refuse("deadline", at),
            }
        } else {
            self.default_deadline(&rule_at, &mut s, &mut notes);
        }
        (s, notes)
    }

    fn default_deadline(&self, at: &At, s: &mut Settings, notes: &mut Vec<OriginNote>) {
        match &self.request_timeout {
            Some((ms, n_at)) if *ms > 0.0 => s.deadline = Some(sp(*ms, n_at)),
            Some(_) => {}
            None => {
                s.deadline = Some(sp(ENVOY_ROUTE_TIMEOUT_MS, at));
                notes.push(note(at, format!(
                    "no `timeouts.request` and no `timeout.http.requestTimeout` in BackendTrafficPolicy `{}`: Envoy's 15 s route timeout (retry-configs.md §3.1, §12)",
                    self.obj.name
                )));
            }
        }
    }
}

/// A route table for a policy whose targets are not in the run: one route for every
/// request, named after the targets.
pub fn untargeted_table(p: &Policy) -> Option<ConfigObject> {
    let (mut s, mut notes) = p.retry.clone()?;
    let at = At::new(&p.obj.doc, p.obj.node);
    p.default_deadline(&s.at.clone(), &mut s, &mut notes);
    Some(ConfigObject {
        method_scoped: Vec::new(),
        variant: None,
        url_prefixes: Vec::new(),
        platform: Platform::EnvoyGateway,
        kind: p.obj.kind.clone(),
        name: p.obj.name.clone(),
        at: at.clone(),
        layer: Layer::Gateway,
        names: Vec::new(),
        routes: vec![Route {
            at,
            name: None,
            matches: vec![RequestMatch::any()],
            rewrite: None,
            settings: s,
            notes,
        }],
    })
}
