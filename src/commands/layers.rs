//! `retrylint layers OPERATION [PATHS]`: every layer that applies to one operation,
//! outermost first (client, gateways, mesh), each effective value with its origin
//! (`file:line:col`, "built-in default", or the platform default's note), then the
//! composed worst case across the layers (`layers.md` "Composition across layers"):
//! attempts reaching the upstream (the product, or the budget bound under load), the
//! worst-case time of each layer around the ones inside it, and which inner layer
//! outlives an outer one's bound (RL313's reading).

use super::import::{notes_at, position};
use super::{fail, load_config, EXIT_ERROR};
use crate::analysis::composition::shape;
use crate::analysis::{governed_candidates, EffectivePolicy, Field, JoinedOperation};
use crate::check::{analyze, Analyzed, CheckOptions};
use crate::cli::{LayersArgs, LayersFormat};
use crate::import::OriginNote;
use crate::policy::duration::format_millis;
use crate::policy::model::{AttemptTimeout, Jitter};
use crate::policy::selector::{did_you_mean, Selector};
use crate::report::policy_yaml::duration;
use crate::retry::{layer_worst_case_ms, total_attempts, LayerShape};
use crate::write;
use serde::Serialize;

/// One effective value of a layer.
#[derive(Debug, Serialize)]
pub struct Value {
    /// The key as a policy writes it (`backoff.base`, `retry_on`).
    pub key: &'static str,
    /// The value as a policy writes it (`2s`, `[connect-failure, 503]`); `null` when
    /// not set.
    pub value: Option<String>,
    /// `file:line:col` of the node it was read from; `null` for a built-in default
    /// or a value not set.
    pub origin: Option<String>,
    /// `built-in` for the built-in default of the join; `platform` when a
    /// platform-default note is attached to its node; `null` otherwise.
    pub default: Option<&'static str>,
    /// The platform-default notes at its node.
    pub notes: Vec<String>,
}

/// One layer of the operation.
#[derive(Debug, Serialize)]
pub struct LayerView {
    /// `client`, `gateway` or `mesh`.
    pub layer: &'static str,
    /// What sets it: the imported config object (`Istio VirtualService payments`),
    /// else the policy file, else the document's inline `x-retry`.
    pub source: String,
    /// The file it was read from (display path).
    pub file: String,
    /// Read from a retry config (not a written policy).
    pub imported: bool,
    /// The effective values, in a fixed order.
    pub values: Vec<Value>,
    /// Attempts this layer sends per request it receives.
    pub attempts: u64,
    /// Attempts under sustained load (a ratio budget or token bucket may lower it).
    pub attempts_under_load: f64,
    /// Worst-case time of this layer alone (each attempt bounded by its own
    /// timeout or deadline only), ms; `null` when unbounded.
    pub worst_case_alone_ms: Option<f64>,
    /// Worst-case time of this layer around the layers inside it, ms; `null` when
    /// unbounded.
    pub worst_case_ms: Option<f64>,
}

/// An inner layer that can retry longer than an outer layer waits for it.
#[derive(Debug, Serialize)]
pub struct Outlived {
    /// Index of the inner layer in `layers`.
    pub inner: usize,
    /// Index of the outer layer.
    pub outer: usize,
    /// The inner layer's worst case alone, ms; `null` when unbounded.
    pub inner_worst_case_ms: Option<f64>,
    /// The outer layer's bound, ms.
    pub outer_bound_ms: f64,
    /// `attempt_timeout` or `deadline`.
    pub outer_bound: &'static str,
}

/// The layers as one chain.
#[derive(Debug, Serialize)]
pub struct ComposedView {
    /// The product of every layer's attempts.
    pub attempts_product: u64,
    /// Every count is exact (no retried layer without `attempts`).
    pub attempts_exact: bool,
    /// Attempts reaching the upstream: the product, or the budget bound under load.
    pub attempts_total: f64,
    /// A budget lowers the total under load.
    pub bound_by_budget: bool,
    /// Worst-case time of the whole chain, ms; `null` when unbounded.
    pub worst_case_ms: Option<f64>,
    /// Inner layers that outlive an outer one.
    pub outlived: Vec<Outlived>,
}

/// One operation and its layers.
#[derive(Debug, Serialize)]
pub struct OperationView {
    /// `POST /payments`.
    pub operation: String,
    /// Its operationId.
    pub operation_id: Option<String>,
    /// The OpenAPI document (display path).
    pub document: String,
    /// The path these layers form, when the operation has several (alternative
    /// callers, Spring profiles, Istio entry paths; `layers.md` "Variants and entry
    /// paths"): the labels of its variants (``client `a.py` ``, ``profile `prod` ``,
    /// ``entry path: mesh``); empty when the operation has one path.
    pub path: Vec<String>,
    /// How many paths the operation has (1 when no two layers are alternatives);
    /// each is shown on its own, with its own composed worst case.
    pub paths: usize,
    /// For a request no OpenAPI document holds (`layers` on a route of a config
    /// that binds nothing): the route that would carry it, as `import` keys it
    /// (`api: prefix /api/, every method`); `document` is then the route's
    /// `file:line:col`. Absent for an operation of a spec.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route: Option<String>,
    /// The layers, outermost first.
    pub layers: Vec<LayerView>,
    /// The composed worst case.
    pub composed: ComposedView,
}

/// `retrylint layers`: exit 0, or 2 when the operation matches nothing or a file
/// could not be read.
pub fn run(args: &LayersArgs) -> u8 {
    if let Err(code) = super::check_root(args.root.as_deref()) {
        return code;
    }
    let config = match load_config(args.config.as_deref(), &args.paths) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let selector = match Selector::parse(&args.operation) {
        Ok(s) => s,
        Err(e) => return fail(format!("bad operation `{}`: {e}", args.operation)),
    };
    let analyzed = analyze(&CheckOptions {
        paths: args.paths.clone(),
        policies: args.policies.clone(),
        root: args.root.clone(),
        filter: config.filter.clone(),
        related: true,
        services: config.services.clone(),
        platforms: config.platforms.clone(),
        ..CheckOptions::default()
    });
    let unreadable: Vec<_> = analyzed
        .diagnostics
        .iter()
        .filter(|d| d.code == "RL001")
        .collect();
    for d in &unreadable {
        let l = &d.primary.location;
        let lc = l.file.line_col(l.span.start);
        write::errln(format_args!(
            "{}:{}:{}: {} {}: {}",
            l.file.display, lc.line, lc.column, d.code, d.name, d.message
        ));
    }
    let views = match views(&analyzed, &selector, &args.operation) {
        Ok(v) => v,
        Err(e) => {
            // No operation holds the request: the routes of configs that bind
            // nothing and would carry it, as `import` shows them (issue 36).
            let routes = route_views(&analyzed, &args.operation, &config.platforms);
            if routes.is_empty() {
                if analyzed.unbound_routes.is_empty() {
                    return fail(e);
                }
                return fail(format!(
                    "{e}; and no route of the {} retrying route(s) that bind nothing takes it",
                    analyzed.unbound_routes.len()
                ));
            }
            routes
        }
    };
    match args.format {
        LayersFormat::Json => write::outln(json(&views)),
        LayersFormat::Human => write::out(human(&views)),
    }
    if unreadable.is_empty() {
        0
    } else {
        EXIT_ERROR
    }
}

/// The views of the operations `selector` matches; an error sentence (with a "did
/// you mean") when it matches none.
pub fn views(
    analyzed: &Analyzed,
    selector: &Selector,
    text: &str,
) -> Result<Vec<OperationView>, String> {
    let documents = &analyzed.documents;
    let matched: Vec<&JoinedOperation> = analyzed
        .analysis
        .operations
        .iter()
        .filter(|j| {
            let op = j.resolve(documents);
            selector.matches(&op.method, &op.path, op.operation_id.as_deref())
        })
        .collect();
    if matched.is_empty() {
        if documents.is_empty() {
            return Err(format!(
                "`{text}` matches no operation: the run holds no OpenAPI document (name the spec or its folder)"
            ));
        }
        let all: Vec<usize> = (0..documents.len()).collect();
        let hint = did_you_mean(text, &governed_candidates(documents, &all))
            .map(|s| format!("; did you mean `{s}`?"))
            .unwrap_or_default();
        let names: Vec<String> = documents
            .iter()
            .map(|d| format!("`{}`", d.doc.file.display))
            .collect();
        return Err(format!(
            "`{text}` matches no operation of {}{hint}",
            names.join(", ")
        ));
    }
    Ok(matched.iter().map(|j| view(analyzed, j)).collect())
}

/// `layers` on a request that no operation of the run holds (a deployment
/// repository with no OpenAPI document, or a route for a host no spec serves): for
/// each config object that binds nothing (its RL016), the first of its routes that
/// would carry `METHOD /path` (platforms match routes in order), shown as a layer of
/// its own with its values and origins. Each is shown on its own: with no operation
/// to bind them, nothing says whether a request passes two of them in turn or takes
/// one or the other, so they are never multiplied. Empty when `text` is no
/// `METHOD /path` or no route would carry it.
fn route_views(
    analyzed: &Analyzed,
    text: &str,
    platforms: &crate::config::Platforms,
) -> Vec<OperationView> {
    let Some((method, path)) = text.trim().split_once(' ') else {
        return Vec::new();
    };
    let (method, path) = (method.to_ascii_uppercase(), path.trim());
    if !method.chars().all(|c| c.is_ascii_alphabetic()) || !path.starts_with('/') {
        return Vec::new();
    }
    let unbound: Vec<&crate::diagnostic::Diagnostic> = analyzed
        .diagnostics
        .iter()
        .filter(|d| d.code == "RL016")
        .collect();
    let mut files: Vec<&std::path::Path> = unbound
        .iter()
        .map(|d| d.primary.location.file.path.as_path())
        .collect();
    files.dedup();
    let protos = crate::import::proto::ProtoIndex::empty();
    let ctx = crate::import::ImportContext {
        platforms,
        protos: &protos,
    };
    let ws = crate::source::loader::Workspace::new(
        std::env::current_dir().unwrap_or_default(),
        crate::source::loader::Limits::default(),
    );
    let mut out: Vec<(u8, OperationView)> = Vec::new();
    let mut seen: Vec<&std::path::Path> = Vec::new();
    for file in files {
        if seen.contains(&file) {
            continue;
        }
        seen.push(file);
        let doc = ws.load(file);
        for (object, _) in super::import_routes::unbound_objects(&doc, &unbound, &ctx) {
            let Some(route) = object.routes.iter().find(|r| {
                r.matches.is_empty()
                    || r.matches
                        .iter()
                        .any(|m| m.may_match(&method, path, "", None))
            }) else {
                continue;
            };
            let eff = crate::analysis::route_effective(
                object.layer,
                &route.settings,
                &method,
                path,
                &route.at,
            );
            let s = shape(&eff);
            let worst = layer_worst_case_ms(&s, None);
            let total = total_attempts(std::slice::from_ref(&s));
            let source = format!(
                "{} {} `{}`",
                object.platform.display_name(),
                object.kind,
                object.name
            );
            let rank = match eff.layer.as_str() {
                "client" => 0,
                "gateway" => 1,
                _ => 2,
            };
            let layer = LayerView {
                layer: eff.layer.as_str(),
                source,
                file: doc.file.display.clone(),
                imported: true,
                values: values(&eff, &route.notes),
                attempts: s.attempts().0,
                attempts_under_load: s.attempts_under_load().0,
                worst_case_alone_ms: worst,
                worst_case_ms: worst,
            };
            out.push((
                rank,
                OperationView {
                    operation: format!("{method} {path}"),
                    operation_id: None,
                    document: position(&route.at),
                    route: Some(super::import_routes::route_key(route)),
                    path: Vec::new(),
                    paths: 1,
                    layers: vec![layer],
                    composed: ComposedView {
                        attempts_product: total.product,
                        attempts_exact: total.exact,
                        attempts_total: total.total(),
                        bound_by_budget: total.bound_by_budget,
                        worst_case_ms: worst,
                        outlived: Vec::new(),
                    },
                },
            ));
        }
    }
    out.sort_by_key(|(rank, _)| *rank);
    out.into_iter().map(|(_, v)| v).collect()
}

/// The view of one joined operation: its layers with their values and origins, and
/// the composed worst case (also the HTML report's layer stacks).
pub fn view(analyzed: &Analyzed, j: &JoinedOperation) -> OperationView {
    let op = j.resolve(&analyzed.documents);
    let document = analyzed.documents[j.document].doc.file.display.clone();
    let policies = &analyzed.analysis.policies;
    let shapes: Vec<LayerShape> = j.layers.iter().map(shape).collect();
    // Worst case of each layer around the ones inside it (innermost first).
    let mut nested: Vec<Option<f64>> = vec![None; shapes.len()];
    let mut inner: Option<f64> = None;
    for (i, s) in shapes.iter().enumerate().rev() {
        inner = layer_worst_case_ms(s, inner);
        nested[i] = inner;
    }
    let layers: Vec<LayerView> = j
        .layers
        .iter()
        .zip(&shapes)
        .zip(&nested)
        .map(|((eff, s), worst)| {
            let policy = eff.policy.and_then(|i| policies.get(i));
            let (source, file, imported) = match policy {
                Some(p) => match &p.imported {
                    Some(i) => (i.source.clone(), p.doc.file.display.clone(), true),
                    None => (
                        p.doc.file.display.clone(),
                        p.doc.file.display.clone(),
                        false,
                    ),
                },
                None => (
                    format!("inline x-retry of {document}"),
                    document.clone(),
                    false,
                ),
            };
            LayerView {
                layer: eff.layer.as_str(),
                source,
                file,
                imported,
                values: values(eff, &analyzed.notes),
                attempts: s.attempts().0,
                attempts_under_load: s.attempts_under_load().0,
                worst_case_alone_ms: layer_worst_case_ms(s, None),
                worst_case_ms: *worst,
            }
        })
        .collect();
    let total = total_attempts(&shapes);
    let outlived = outlived(&j.layers, &shapes);
    OperationView {
        operation: op.display(),
        operation_id: op.operation_id.clone(),
        document,
        path: if j.paths > 1 {
            j.path.iter().map(|v| v.label.clone()).collect()
        } else {
            Vec::new()
        },
        paths: j.paths,
        route: None,
        layers,
        composed: ComposedView {
            attempts_product: total.product,
            attempts_exact: total.exact,
            attempts_total: total.total(),
            bound_by_budget: total.bound_by_budget,
            worst_case_ms: nested.first().copied().flatten(),
            outlived,
        },
    }
}

/// The shorter of an outer layer's fixed `attempt_timeout` and its `deadline`.
fn outer_bound(eff: &EffectivePolicy) -> Option<(f64, &'static str)> {
    let timeout = match eff.attempt_timeout.value {
        AttemptTimeout::Fixed(ms) => Some((ms, "attempt_timeout")),
        AttemptTimeout::Remaining => None,
    };
    let deadline = eff.deadline.as_ref().map(|d| (d.value, "deadline"));
    match (timeout, deadline) {
        (Some(t), Some(d)) => Some(if t.0 <= d.0 { t } else { d }),
        (t, d) => t.or(d),
    }
}

/// Every (inner, outer) pair where a retried or hedged inner layer's worst case
/// alone exceeds the bound of an outer layer of another kind (RL313's reading).
fn outlived(layers: &[EffectivePolicy], shapes: &[LayerShape]) -> Vec<Outlived> {
    let mut out = Vec::new();
    for (i, inner) in layers.iter().enumerate().skip(1) {
        if !shapes[i].multiplies() {
            continue;
        }
        let worst = layer_worst_case_ms(&shapes[i], None);
        for (o, outer) in layers[..i].iter().enumerate() {
            if outer.layer == inner.layer {
                continue;
            }
            let Some((bound, key)) = outer_bound(outer) else {
                continue;
            };
            if worst.is_none_or(|w| w > bound) {
                out.push(Outlived {
                    inner: i,
                    outer: o,
                    inner_worst_case_ms: worst,
                    outer_bound_ms: bound,
                    outer_bound: key,
                });
            }
        }
    }
    out
}

fn values(eff: &EffectivePolicy, notes: &[OriginNote]) -> Vec<Value> {
    let mut out = Vec::new();
    let mut push =
        |key: &'static str, value: Option<String>, at: Option<Option<&crate::source::refs::At>>| {
            let (origin, default, texts) = match at {
                None => (None, None, Vec::new()),
                Some(None) => (None, Some("built-in"), Vec::new()),
                Some(Some(at)) => {
                    let texts: Vec<String> = notes_at(at, notes)
                        .iter()
                        .map(|n| n.text.replace('\n', " "))
                        .collect();
                    let default = (!texts.is_empty()).then_some("platform");
                    (Some(position(at)), default, texts)
                }
            };
            out.push(Value {
                key,
                value,
                origin,
                default,
                notes: texts,
            });
        };
    fn f<T>(
        x: &Option<Field<T>>,
        show: impl Fn(&T) -> String,
    ) -> (Option<String>, Option<Option<&crate::source::refs::At>>) {
        match x {
            Some(field) => (Some(show(&field.value)), Some(field.at.as_ref())),
            None => (None, None),
        }
    }
    push(
        "retry",
        Some(eff.retry.value.to_string()),
        Some(eff.retry.at.as_ref()),
    );
    push(
        "effect",
        Some(eff.effect.value.as_str().to_string()),
        Some(eff.effect.at.as_ref()),
    );
    let k = &eff.idempotency_key;
    let (v, a) = f(&k.header, |h| h.clone());
    push("idempotency_key.header", v, a);
    let (v, a) = f(&k.retention, |r| duration(*r));
    push("idempotency_key.retention", v, a);
    if let Some(u) = &eff.on_unknown_result {
        push(
            "on_unknown_result",
            Some(
                serde_json::to_value(u.value)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
            ),
            Some(u.at.as_ref()),
        );
    }
    let (v, a) = f(&eff.attempts, |n| n.to_string());
    push("attempts", v, a);
    let (v, a) = f(&eff.retry_on, |l| {
        format!(
            "[{}]",
            l.iter()
                .map(|s| s.value.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    });
    push("retry_on", v, a);
    match &eff.methods {
        Some(m) => push(
            "methods",
            Some(format!(
                "[{}]",
                m.value
                    .iter()
                    .map(|s| s.value.clone())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            Some(m.at.as_ref()),
        ),
        None => push("methods", Some("every method".into()), Some(None)),
    }
    let b = &eff.backoff;
    let (v, a) = f(&b.base, |x| duration(*x));
    push("backoff.base", v, a);
    let (v, a) = f(&b.cap, |x| duration(*x));
    push("backoff.cap", v, a);
    push(
        "backoff.multiplier",
        Some(format!("{}", b.multiplier.value)),
        Some(b.multiplier.at.as_ref()),
    );
    let (v, a) = f(&b.jitter, |j| match j {
        Jitter::Proportional(x) => format!("{{proportional: {}}}", x.get()),
        other => other.as_str().to_string(),
    });
    push("backoff.jitter", v, a);
    push(
        "attempt_timeout",
        Some(match eff.attempt_timeout.value {
            AttemptTimeout::Remaining => "remaining".to_string(),
            AttemptTimeout::Fixed(ms) => duration(ms),
        }),
        Some(eff.attempt_timeout.at.as_ref()),
    );
    let (v, a) = f(&eff.deadline, |x| duration(*x));
    push("deadline", v, a);
    let r = &eff.retry_after;
    let (v, a) = f(&r.honor, |x| x.to_string());
    push("retry_after.honor", v, a);
    let (v, a) = f(&r.max, |x| duration(*x));
    push("retry_after.max", v, a);
    let (v, a) = f(&eff.budget, budget_text);
    push("budget", v, a);
    let (v, a) = f(&eff.hedging, |h| {
        format!(
            "{{attempts: {}, delay: {}}}",
            h.attempts,
            duration(h.delay_ms)
        )
    });
    push("hedging", v, a);
    out
}

fn budget_text(b: &crate::retry::RetryBudget) -> String {
    use crate::retry::RetryBudget;
    match b {
        RetryBudget::Ratio {
            ratio,
            min_per_second,
            min_concurrent,
            window_ms,
        } => {
            let mut parts = vec![format!("ratio: {ratio}")];
            if let Some(m) = min_per_second {
                parts.push(format!("min_per_second: {m}"));
            }
            if let Some(m) = min_concurrent {
                parts.push(format!("min_concurrent: {m}"));
            }
            if let Some(w) = window_ms {
                parts.push(format!("window: {}", duration(*w)));
            }
            format!("{{{}}}", parts.join(", "))
        }
        RetryBudget::Concurrency {
            max_concurrent_retries,
        } => format!("{{max_concurrent_retries: {max_concurrent_retries}}}"),
        RetryBudget::Tokens {
            tokens,
            token_ratio,
        } => format!("{{tokens: {tokens}, token_ratio: {token_ratio}}}"),
    }
}

fn time(ms: Option<f64>) -> String {
    ms.map_or_else(|| "unbounded".to_string(), format_millis)
}

/// The position of `views[n]` among the paths of its operation (1-based): the paths
/// of one operation come in a row.
fn path_number(views: &[OperationView], n: usize) -> usize {
    let same =
        |v: &OperationView| v.operation == views[n].operation && v.document == views[n].document;
    1 + views[..n].iter().rev().take_while(|v| same(v)).count()
}

/// The human text: a block per operation (per path of an operation that has several).
pub fn human(views: &[OperationView]) -> String {
    let mut out = String::new();
    for (n, v) in views.iter().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        let id = v
            .operation_id
            .as_ref()
            .map(|i| format!(" ({i})"))
            .unwrap_or_default();
        match &v.route {
            Some(route) => out.push_str(&format!(
                "{}: no OpenAPI document holds it; route `{route}` at {} would carry it\n",
                v.operation, v.document
            )),
            None => out.push_str(&format!("{}{id} in {}\n", v.operation, v.document)),
        }
        if !v.path.is_empty() {
            // One of several paths a request may take: never multiplied with the
            // others.
            out.push_str(&format!(
                "  path {} of {}: {}\n",
                path_number(views, n),
                v.paths,
                v.path.join(", ")
            ));
        }
        if v.layers.is_empty() {
            out.push_str(
                "  no layer applies: no policy, inline x-retry or retry config retries it\n",
            );
            continue;
        }
        let mut notes: Vec<String> = Vec::new();
        let value_width = v
            .layers
            .iter()
            .flat_map(|l| &l.values)
            .map(|x| x.value.as_deref().unwrap_or("-").chars().count())
            .filter(|&w| w <= 40)
            .max()
            .unwrap_or(1);
        for (i, l) in v.layers.iter().enumerate() {
            let file = if l.file == l.source {
                String::new()
            } else {
                format!(" ({})", l.file)
            };
            out.push_str(&format!(
                "\n  {}. {} layer: {}{file}\n",
                i + 1,
                l.layer,
                l.source
            ));
            for x in &l.values {
                let value = x.value.as_deref().unwrap_or("-");
                let mut origin = match (&x.origin, x.default) {
                    (Some(o), _) => o.clone(),
                    (None, Some(_)) => "built-in default".to_string(),
                    (None, None) => String::new(),
                };
                let mut marked: Vec<usize> = Vec::new();
                for t in &x.notes {
                    let k = match notes.iter().position(|n| n == t) {
                        Some(k) => k + 1,
                        None => {
                            notes.push(t.clone());
                            notes.len()
                        }
                    };
                    // A note repeated per route is marked once.
                    if !marked.contains(&k) {
                        marked.push(k);
                        origin.push_str(&format!(" [{k}]"));
                    }
                }
                let line = format!("     {:<26} {:<value_width$}  {origin}", x.key, value);
                out.push_str(line.trim_end());
                out.push('\n');
            }
        }
        for (k, t) in notes.iter().enumerate() {
            out.push_str(&format!("\n  [{}] {t}", k + 1));
        }
        if !notes.is_empty() {
            out.push('\n');
        }
        let c = &v.composed;
        let chain: Vec<&str> = v.layers.iter().map(|l| l.layer).collect();
        out.push_str(&format!("\n  composed ({}):\n", chain.join(" -> ")));
        let product: Vec<String> = v.layers.iter().map(|l| l.attempts.to_string()).collect();
        let exact = if c.attempts_exact {
            ""
        } else {
            " (at least: a retried layer without `attempts` counts 2)"
        };
        out.push_str(&format!(
            "     attempts reaching the upstream  {} = {}{exact}\n",
            product.join(" x "),
            c.attempts_product
        ));
        if c.bound_by_budget {
            let per: Vec<String> = v
                .layers
                .iter()
                .map(|l| crate::retry::format_factor(l.attempts_under_load))
                .collect();
            out.push_str(&format!(
                "     under load (budgets)            {} = {}\n",
                per.join(" x "),
                crate::retry::format_factor(c.attempts_total)
            ));
        }
        out.push_str("     worst case, inside out:\n");
        for (i, l) in v.layers.iter().enumerate().rev() {
            out.push_str(&format!(
                "       {}. {:<8} {:<10} (alone: {})\n",
                i + 1,
                l.layer,
                time(l.worst_case_ms),
                time(l.worst_case_alone_ms)
            ));
        }
        out.push_str(&format!(
            "     whole chain                     {}\n",
            time(c.worst_case_ms)
        ));
        for o in &c.outlived {
            let inner = &v.layers[o.inner];
            let outer = &v.layers[o.outer];
            let how_long = match o.inner_worst_case_ms {
                Some(w) => format!("for up to {}", format_millis(w)),
                None => "without bound".to_string(),
            };
            out.push_str(&format!(
                "     outlived: {}. {} may retry {how_long}, longer than {}. {}'s {} ({}) (RL313)\n",
                o.inner + 1,
                inner.layer,
                o.outer + 1,
                outer.layer,
                o.outer_bound,
                format_millis(o.outer_bound_ms)
            ));
        }
        if c.outlived.is_empty() && v.layers.len() > 1 {
            out.push_str("     no inner layer outlives an outer one's bound\n");
        }
    }
    out
}

/// The JSON document: `{"version": 1, "operations": [...]}`.
pub fn json(views: &[OperationView]) -> String {
    serde_json::to_string_pretty(&serde_json::json!({
        "version": 1,
        "operations": views,
    }))
    .expect("json")
}
