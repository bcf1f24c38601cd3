//! Linkerd `ServiceProfile` (`linkerd.io/v1alpha2`, `retry-configs.md` §5.2; LD-SP,
//! LD-PT, LD-PX): `metadata.name` is the service's FQDN; `spec.routes` are tried in
//! order, the first match wins; a route's `condition` is `pathRegex` (implicitly
//! anchored: a full match), `method`, `all`, `any`, `not` (several keys in one
//! mapping are ANDed); `isRetryable: true` retries the route's failures (the
//! `responseClasses` with `isFailure: true`, default 5xx) within the
//! `spec.retryBudget` (default ratio 0.2, 10 retries/s, ttl 10 s), with no
//! per-request count; `timeout` covers all tries and a timed-out request is not
//! retried.
//!
//! Decisions (case README Q12 to Q14): `attempts` stays unset, because nothing bounds
//! one request's retries but the aggregate budget (which is set as `budget: ratio`),
//! so RL302 reports the missing per-request bound at `isRetryable`; no `timeout`
//! means no deadline, as the destination controller sets none (LD-PT "No default
//! timeout"; the docs' 10 s is not what the translator emits); no backoff is
//! documented for these retries, so none is set and RL305 says so.
//! `isRetryable` is a retry setting, not an effect declaration (`layers.md`).

use crate::diagnostic::Diagnostic;
use crate::import::gateway_api::build::{note, push_signals, sp, status_range};
use crate::import::gateway_api::routes::{get_path, seq, tree};
use crate::import::route::full_match_regex;
use crate::import::stream::KubeObject;
use crate::import::{
    duration, keys, rl017_ineffective_setting, ConfigObject, Imported, OriginNote, PathMatch,
    Platform, RequestMatch, Route,
};
use crate::policy::model::{Layer, RetryBudget, Settings, Signal, Spanned};
use crate::source::refs::At;
use crate::source::tree::{Kind, NodeId, Tree};

const ROUTE_KEYS: &[&str] = &[
    "name",
    "condition",
    "responseClasses",
    "isRetryable",
    "timeout",
];
const BUDGET_KEYS: &[&str] = &["retryRatio", "minRetriesPerSecond", "ttl"];
const CONDITION_KEYS: &[&str] = &["pathRegex", "method", "all", "any", "not"];

/// Every `ServiceProfile` of the run as a route table.
pub fn import(objects: &[KubeObject]) -> Imported {
    let mut out = Imported::default();
    for obj in objects
        .iter()
        .filter(|o| o.kind == "ServiceProfile" && o.group() == "linkerd.io")
    {
        if let Some(table) = profile(obj, &mut out.diagnostics) {
            out.objects.push(table);
        }
    }
    out
}

fn profile(obj: &KubeObject, diags: &mut Vec<Diagnostic>) -> Option<ConfigObject> {
    let t = tree(obj)?;
    let doc = &obj.doc;
    let obj_at = At::new(doc, obj.node);
    let spec = t.get(obj.node, "spec");
    let spec_at = spec.map_or(obj_at.clone(), |s| At::new(doc, s));
    let mut names = Vec::new();
    if let Some(n) = get_path(t, obj.node, &["metadata", "name"]) {
        let at = At::new(doc, n);
        names.push(Spanned {
            value: obj.name.clone(),
            at: at.clone(),
        });
        if let Some((short, _)) = obj.name.split_once('.') {
            names.push(Spanned {
                value: short.to_string(),
                at,
            });
        }
    }
    let (budget, budget_ok, budget_note) = read_budget(obj, t, spec, &spec_at, diags);
    let mut routes = Vec::new();
    for r in seq(t, spec.and_then(|s| t.get(s, "routes"))) {
        let r_at = At::new(doc, r);
        diags.extend(keys::unknown_keys(
            doc,
            r,
            ROUTE_KEYS,
            "Linkerd ServiceProfile route",
        ));
        let name = t
            .get(r, "name")
            .and_then(|n| t.scalar(n))
            .map(str::to_string);
        let matches = match t.get(r, "condition") {
            Some(c) => match condition(obj, t, c, diags) {
                Some(m) if !m.is_empty() => m,
                Some(_) => {
                    diags.push(never_matches(t, &r_at, c, name.as_deref()));
                    continue;
                }
                None => continue,
            },
            None => {
                diags.push(rl017_ineffective_setting::diagnostic(
                    &r_at,
                    "this ServiceProfile route has no `condition`, which Linkerd requires, so it never matches".into(),
                    "no condition",
                    "add a `condition` with `pathRegex` and `method`".into(),
                ));
                continue;
            }
        };
        let mut s = Settings::empty(r_at.clone());
        let mut notes: Vec<OriginNote> = Vec::new();
        let retryable = t.get(r, "isRetryable");
        match retryable.map(|n| (n, t.as_bool(n))) {
            Some((n, Some(true))) => {
                let at = At::new(doc, n);
                if budget_ok {
                    s.retry = Some(sp(true, &at));
                    notes.push(note(&at, format!("`isRetryable: true`: Linkerd retries this route's failures with no per-request limit, bounded only by the service's retry budget ({budget_note}); no backoff is documented for these retries; a request that hits the route `timeout` is not retried (retry-configs.md §5.2, §5.4)")));
                } else {
                    s.retry = Some(sp(false, &at));
                    notes.push(note(&at, "the retry budget is invalid, so the proxy retries nothing (retry-configs.md §5.2)"));
                }
            }
            Some((n, Some(false))) => s.retry = Some(sp(false, &At::new(doc, n))),
            Some((n, None)) => {
                diags.push(rl017_ineffective_setting::diagnostic(
                    &At::new(doc, n),
                    format!(
                        "`isRetryable: {}` is not true or false",
                        t.scalar(n).unwrap_or("")
                    ),
                    "invalid isRetryable",
                    "write `isRetryable: true` or remove it".into(),
                ));
                s.retry = Some(sp(false, &At::new(doc, n)));
            }
            None => {
                s.retry = Some(sp(false, &r_at));
                notes.push(note(
                    &r_at,
                    "no `isRetryable`: Linkerd does not retry this route (retry-configs.md §5.2)",
                ));
            }
        }
        let mut timeout_refused = false;
        if let Some(n) = t.get(r, "timeout") {
            let at = At::new(doc, n);
            let text = t.scalar(n).unwrap_or("");
            // The destination controller parses it with Go's `time.ParseDuration`: a
            // longer one does not parse, and a negative one is no timeout.
            let negative = text
                .trim()
                .strip_prefix('-')
                .and_then(duration::parse_go)
                .is_some_and(|ms| ms > 0.0);
            let refused = match duration::parse_go(text) {
                _ if negative => Some((
                    format!("`timeout: {text}` is out of range: a timeout is a positive duration"),
                    "out of range",
                )),
                Some(ms) if duration::fits_go(ms) => {
                    if ms > 0.0 {
                        s.deadline = Some(sp(ms, &at));
                    }
                    None
                }
                Some(_) => Some((
                    format!(
                        "`timeout: {text}` is out of range: at most {} (Go's `time.Duration`, an int64 of nanoseconds)",
                        duration::GO_MAX_TEXT
                    ),
                    "out of range",
                )),
                None => Some((
                    format!("`timeout: {text}` is not a duration, so the route has no timeout"),
                    "invalid timeout",
                )),
            };
            if let Some((message, label)) = refused {
                timeout_refused = true;
                diags.push(rl017_ineffective_setting::diagnostic(
                    &at,
                    message,
                    label,
                    "Linkerd cannot use this value, so retrylint reads no deadline from it; write a duration such as `300ms` or `5s`.".into(),
                ));
                // Read as no deadline, and not blamed again as a missing one (RL301).
                s.refuse("deadline", at.clone());
            }
        }
        if s.retry.as_ref().is_some_and(|v| v.value) {
            s.retry_on = Some(failures(obj, t, r, &r_at, &mut notes));
            s.budget = Some(Box::new(budget.clone()));
            if s.deadline.is_none() && !timeout_refused {
                notes.push(note(&r_at, "no `timeout`: the destination controller sets none, so no deadline (retry-configs.md §5.2: LD-PT \"No default timeout\"; the docs' 10 s is not emitted)"));
            }
        }
        routes.push(Route {
            at: r_at,
            name,
            matches,
            rewrite: None,
            settings: s,
            notes,
        });
    }
    Some(ConfigObject {
        method_scoped: Vec::new(),
        variant: None,
        url_prefixes: Vec::new(),
        platform: Platform::Linkerd,
        kind: obj.kind.clone(),
        name: obj.name.clone(),
        at: obj_at,
        layer: Layer::Mesh,
        names,
        routes,
    })
}

/// `spec.retryBudget` (or the controller's default), whether the proxy accepts it,
/// and a description for notes.
fn read_budget(
    obj: &KubeObject,
    t: &Tree,
    spec: Option<NodeId>,
    spec_at: &At,
    diags: &mut Vec<Diagnostic>,
) -> (Spanned<RetryBudget>, bool, String) {
    let doc = &obj.doc;
    let Some(b) = spec.and_then(|s| t.get(s, "retryBudget")) else {
        let budget = RetryBudget::Ratio {
            ratio: 0.2,
            min_per_second: Some(10.0),
            min_concurrent: None,
            window_ms: Some(10_000.0),
        };
        return (
            sp(budget, spec_at),
            true,
            "no `retryBudget`, so the destination controller's default: ratio 0.2, at least 10 retries/s, ttl 10 s (LD-PT `defaultRetryBudget`)".into(),
        );
    };
    diags.extend(keys::unknown_keys(
        doc,
        b,
        BUDGET_KEYS,
        "Linkerd `retryBudget`",
    ));
    let num = |k: &str, d: f64| t.get(b, k).and_then(|n| t.as_f64(n)).unwrap_or(d);
    let ratio = num("retryRatio", 0.2);
    let min = num("minRetriesPerSecond", 10.0);
    let ttl_node = t.get(b, "ttl");
    let ttl = ttl_node
        .and_then(|n| t.scalar(n))
        .map_or(Some(10_000.0), duration::parse_go_bounded);
    let mut ok = true;
    // A `retryRatio` that is no number (`x`, `true`) does not decode (a float32):
    // refused like one out of range, never read as the default 0.2.
    let ratio_unreadable = t
        .get(b, "retryRatio")
        .is_some_and(|n| t.as_f64(n).is_none());
    if ratio_unreadable {
        ok = false;
        let n = t.get(b, "retryRatio").unwrap_or(b);
        diags.push(rl017_ineffective_setting::diagnostic(
            &At::new(doc, n),
            format!("`retryRatio: {}` is not a number, so Linkerd cannot read the profile and retries nothing", t.scalar(n).unwrap_or("...")),
            "budget rejected",
            "write a ratio such as `0.2` (20 % of requests)".into(),
        ));
    } else if !(0.0..=1000.0).contains(&ratio) {
        ok = false;
        // As written: `1e400` read as a float is `inf`, which the file never says.
        let written = t
            .get(b, "retryRatio")
            .and_then(|n| t.scalar(n))
            .map_or_else(|| ratio.to_string(), str::to_string);
        diags.push(rl017_ineffective_setting::diagnostic(
            &At::new(doc, t.get(b, "retryRatio").unwrap_or(b)),
            format!("`retryRatio: {written}` is outside 0..1000, so the proxy rejects the budget and retries nothing"),
            "budget rejected",
            "write a ratio such as `0.2` (20 % of requests)".into(),
        ));
    }
    // Linkerd's `RetryBudget` type reads `minRetriesPerSecond` as a uint32
    // (linkerd2 controller/gen/apis/serviceprofile/v1alpha2/types.go): a negative,
    // fractional or larger value does not decode, and the profile is not served.
    if let Some(n) = t.get(b, "minRetriesPerSecond") {
        let fits = t
            .as_i64(n)
            .is_some_and(|v| (0..=i64::from(u32::MAX)).contains(&v));
        if !fits {
            ok = false;
            diags.push(rl017_ineffective_setting::diagnostic(
                &At::new(doc, n),
                format!(
                    "`minRetriesPerSecond: {}` is not a whole number from 0 to {}, so Linkerd cannot read the profile and retries nothing",
                    t.scalar(n).unwrap_or("..."),
                    u32::MAX
                ),
                "not a uint32",
                "write a whole number of retries per second, such as `10` (Linkerd reads it as a uint32)".into(),
            ));
        }
    }
    match ttl {
        Some(ms) if (1000.0..=60_000.0).contains(&ms) => {}
        _ => {
            ok = false;
            diags.push(rl017_ineffective_setting::diagnostic(
                &At::new(doc, ttl_node.unwrap_or(b)),
                "`ttl` must be a duration from 1s to 60s, otherwise the proxy rejects the budget and retries nothing".into(),
                "budget rejected",
                "write a duration such as `10s`".into(),
            ));
        }
    }
    let budget = RetryBudget::Ratio {
        ratio: ratio.max(0.0),
        min_per_second: Some(min.max(0.0)),
        min_concurrent: None,
        window_ms: ttl,
    };
    let text = format!(
        "ratio {ratio}, at least {min} retries/s, ttl {}",
        ttl.map_or("invalid".into(), crate::policy::duration::format_millis)
    );
    (sp(budget, &At::new(doc, b)), ok, text)
}

/// The failure classes of a route: each `responseClasses` item with `isFailure: true`
/// and a `status` range, or 5xx by default.
fn failures(
    obj: &KubeObject,
    t: &Tree,
    r: NodeId,
    r_at: &At,
    notes: &mut Vec<OriginNote>,
) -> Spanned<Vec<Spanned<Signal>>> {
    let doc = &obj.doc;
    let mut list = Vec::new();
    let mut list_at = None;
    for c in seq(t, t.get(r, "responseClasses")) {
        if t.get(c, "isFailure").and_then(|n| t.as_bool(n)) != Some(true) {
            continue;
        }
        let at = At::new(doc, c);
        let Some(status) = get_path(t, c, &["condition", "status"]) else {
            notes.push(note(
                &at,
                "a failure class without a `status` range: retrylint cannot name its signals",
            ));
            continue;
        };
        let bound = |k: &str, d: i64| t.get(status, k).and_then(|n| t.as_i64(n)).unwrap_or(d);
        let (min, max) = (bound("min", 100), bound("max", 599));
        let clamp = |v: i64| v.clamp(0, 999) as u16;
        push_signals(&mut list, &status_range(clamp(min), clamp(max)), &at);
        list_at.get_or_insert(at);
    }
    match list_at {
        Some(at) => sp(list, &at),
        None => {
            push_signals(&mut list, &[Signal::Class(5)], r_at);
            notes.push(note(r_at, "no failure `responseClasses`: the proxy counts 5xx as failures (retry-configs.md §5.2)"));
            sp(list, r_at)
        }
    }
}

/// The requests a `condition` may match (OR'ed), or `None` when it never matches
/// (an invalid `pathRegex`, reported).
fn condition(
    obj: &KubeObject,
    t: &Tree,
    c: NodeId,
    diags: &mut Vec<Diagnostic>,
) -> Option<Vec<RequestMatch>> {
    condition_at(obj, t, c, diags, 0)
}

/// RL017 at a route whose `condition` can never match (`all` of two methods, an
/// empty `any`): the route is dead, and so are its `isRetryable` and `timeout`.
fn never_matches(t: &Tree, r_at: &At, c: NodeId, name: Option<&str>) -> Diagnostic {
    let mut methods = Vec::new();
    required_methods(t, c, &mut methods, 0);
    let route = name.map_or_else(
        || "this ServiceProfile route".to_string(),
        |n| format!("the ServiceProfile route `{n}`"),
    );
    let why = if methods.len() > 1 {
        format!(
            "it requires every one of {} (`all`), and a request has one method",
            methods
                .iter()
                .map(|m| format!("`method: {m}`"))
                .collect::<Vec<_>>()
                .join(" and ")
        )
    } else {
        "no request satisfies every part of it".to_string()
    };
    rl017_ineffective_setting::diagnostic(
        r_at,
        format!("the `condition` of {route} can never match: {why}, so the route is dead and its settings never apply"),
        "never matches",
        "split it into one route per method, or use `any` for alternatives (`any: [{method: POST}, {method: GET}]`)".into(),
    )
}

/// The methods a condition requires (its own `method` and those of its `all`
/// items), upper case, each once.
fn required_methods(t: &Tree, c: NodeId, out: &mut Vec<String>, depth: usize) {
    if t.kind(c) != Kind::Map || depth > MAX_CONDITION_DEPTH {
        return;
    }
    if let Some(m) = t.get(c, "method").and_then(|n| t.scalar(n)) {
        let m = m.trim().to_ascii_uppercase();
        if !out.contains(&m) {
            out.push(m);
        }
    }
    for item in seq(t, t.get(c, "all")) {
        required_methods(t, item, out, depth + 1);
    }
}

/// Nesting of `all`/`any` deeper than this is read as "may match" (hostile input
/// must not exhaust the stack).
const MAX_CONDITION_DEPTH: usize = 32;

fn condition_at(
    obj: &KubeObject,
    t: &Tree,
    c: NodeId,
    diags: &mut Vec<Diagnostic>,
    depth: usize,
) -> Option<Vec<RequestMatch>> {
    if t.kind(c) != Kind::Map || depth > MAX_CONDITION_DEPTH {
        return Some(vec![may_match()]);
    }
    diags.extend(keys::unknown_keys(
        &obj.doc,
        c,
        CONDITION_KEYS,
        "Linkerd route `condition`",
    ));
    let mut acc = vec![RequestMatch::any()];
    if let Some(n) = t.get(c, "pathRegex") {
        let pattern = t.scalar(n).unwrap_or("").trim();
        match full_match_regex(pattern) {
            Ok(re) => acc = and(acc, vec![RequestMatch::path(PathMatch::Regex(re))]),
            Err(e) => {
                diags.push(rl017_ineffective_setting::diagnostic(
                    &At::new(&obj.doc, n),
                    format!("`pathRegex: {pattern}` does not compile, so this route never matches"),
                    "invalid regular expression",
                    format!("the regex engine says: {e}"),
                ));
                return None;
            }
        }
    }
    if let Some(n) = t.get(c, "method") {
        let m = t.scalar(n).unwrap_or("").to_ascii_uppercase();
        acc = and(
            acc,
            vec![RequestMatch {
                path: PathMatch::Any,
                methods: Some(vec![m]),
                partial: false,
            }],
        );
    }
    for item in seq(t, t.get(c, "all")) {
        acc = and(acc, condition_at(obj, t, item, diags, depth + 1)?);
    }
    if let Some(any) = t.get(c, "any") {
        let mut alt = Vec::new();
        for item in seq(t, Some(any)) {
            alt.extend(condition_at(obj, t, item, diags, depth + 1).unwrap_or_default());
        }
        acc = and(acc, alt);
    }
    if t.get(c, "not").is_some() {
        acc = and(acc, vec![may_match()]);
    }
    Some(acc)
}

/// A match retrylint cannot evaluate exactly (`not`): any request may match.
fn may_match() -> RequestMatch {
    RequestMatch {
        path: PathMatch::Any,
        methods: None,
        partial: true,
    }
}

/// The matches of both `a` and `b`.
fn and(a: Vec<RequestMatch>, b: Vec<RequestMatch>) -> Vec<RequestMatch> {
    let mut out = Vec::new();
    for x in &a {
        for y in &b {
            let methods = match (&x.methods, &y.methods) {
                (None, m) | (m, None) => m.clone(),
                (Some(p), Some(q)) => {
                    let both: Vec<String> = p.iter().filter(|m| q.contains(m)).cloned().collect();
                    if both.is_empty() {
                        continue;
                    }
                    Some(both)
                }
            };
            let (path, extra) = match (&x.path, &y.path) {
                (PathMatch::Any, p) | (p, PathMatch::Any) => (p.clone(), false),
                (p, _) => (p.clone(), true),
            };
            out.push(RequestMatch {
                path,
                methods,
                partial: x.partial || y.partial || extra,
            });
        }
    }
    out
}
