//! Istio: `VirtualService` (`networking.istio.io` v1, v1beta1, v1alpha3) routes and
//! their `retries`/`timeout`, the implicit default retry policy when `retries` is
//! absent (by version, `retry-configs.md` §2.2), `MeshConfig.defaultHttpRetryPolicy`
//! (mesh config file, the `istio` ConfigMap's `mesh` key, `IstioOperator`
//! `spec.meshConfig`), and `DestinationRule` `connectionPool.http.maxRetries` (a
//! concurrency budget).
//!
//! One [`ConfigObject`] per VirtualService with HTTP routes: layer `gateway` when
//! `spec.gateways` names gateways and not `mesh` (it then runs only in those gateways'
//! Envoys), else `mesh` (the sidecars); names are `spec.hosts`, then the routes'
//! destination hosts; routes are the `http[]` items in order (Istio tries them in
//! order, first match wins: retry-configs.md §2.3).
//!
//! Submodules: [`retry`] (HTTPRetry -> settings, defaults, RL314), [`matching`]
//! (`match[]`, `rewrite`), [`mesh`] (the mesh default), [`budget`] (DestinationRule).

pub mod budget;
pub mod durations;
pub mod matching;
pub mod mesh;
pub mod retry;

#[cfg(test)]
mod tests;

use super::rl017_ineffective_setting as rl017;
use super::stream::KubeObject;
use super::{ConfigObject, ImportContext, Imported, OriginNote, Platform, Route};
use crate::diagnostic::Diagnostic;
use crate::policy::model::{Layer, Settings, Spanned};
use crate::source::loader::Loaded;
use crate::source::refs::At;
use crate::source::tree::{Kind, NodeId, Tree};
use retry::{HttpRetry, Policy, Src};
use std::collections::HashSet;
use std::sync::Arc;

/// The variant group of Istio's entry paths: a VirtualService bound to ingress
/// gateways, or the mesh VirtualService of the same host.
pub const ENTRY_GROUP: &str = "istio entry";

/// The label of the entry path through the sidecars of in-mesh callers.
pub const MESH_ENTRY: &str = "entry path: mesh";

/// The API versions of `networking.istio.io` that define VirtualService and
/// DestinationRule.
const VERSIONS: &[&str] = &["v1", "v1beta1", "v1alpha3"];

/// Reads the objects of this platform among `objects` (every Kubernetes object of
/// the run, so references between objects and files resolve): VirtualServices,
/// DestinationRules (budgets on the routes to their host), and the mesh default of an
/// `istio` ConfigMap or an `IstioOperator`.
pub fn import(objects: &[KubeObject], ctx: &ImportContext<'_>) -> Imported {
    import_with_mesh_files(objects, &[], ctx)
}

/// [`import`], with the documents of the run's files so that a bare mesh config file
/// (`defaultHttpRetryPolicy` at its top, no `apiVersion`) is found too.
pub fn import_with_mesh_files(
    objects: &[KubeObject],
    docs: &[Arc<Loaded>],
    ctx: &ImportContext<'_>,
) -> Imported {
    let mut out = Imported::default();
    let mesh_default = mesh::find(objects, docs, &mut out.diagnostics);
    let budgets = budget::read(objects, &mut out.diagnostics);
    for o in objects {
        if o.group() != "networking.istio.io"
            || !matches!(o.kind.as_str(), "VirtualService" | "DestinationRule")
        {
            continue;
        }
        let version = o.api_version.rsplit('/').next().unwrap_or("");
        if !VERSIONS.contains(&version) {
            let Ok(tree) = &o.doc.tree else { continue };
            let at = tree
                .get(o.node, "apiVersion")
                .map_or(At::new(&o.doc, o.node), |n| At::new(&o.doc, n));
            out.diagnostics.push(rl017::diagnostic(
                &at,
                format!("unknown {} version `{}`: not read", o.kind, o.api_version),
                "unknown version",
                format!("Istio serves {} as networking.istio.io/v1, v1beta1 or v1alpha3; retrylint did not read this object's retries.", o.kind),
            ));
            continue;
        }
        if o.kind == "VirtualService" {
            if let Some(object) = virtual_service(
                o,
                mesh_default.as_ref(),
                &budgets,
                ctx,
                &mut out.diagnostics,
            ) {
                out.objects.push(object);
            }
        }
    }
    dedup_diagnostics(&mut out.diagnostics);
    out
}

/// The settings Istio applies to a service of the mesh that no VirtualService routes
/// (`.retrylint.yaml` `services[].mesh: istio`): its built-in default, as for a route
/// without `retries` (retry-configs.md §1 fact 2, §2.2), with every value at `at` (the
/// binding's node), the notes naming the default, and RL314 when the Istio version
/// decides 503 and is not configured.
///
/// TODO(bind): the lead's binder calls this for a `services[].mesh: istio` entry that
/// no VirtualService of the run binds; when the run holds a mesh default
/// ([`mesh::find`]), call [`default_settings`] with it instead, since it replaces the
/// built-in default for that service too.
pub fn implicit_default_settings(
    at: &At,
    ctx: &ImportContext<'_>,
) -> (Settings, Vec<OriginNote>, Option<Diagnostic>) {
    let (settings, notes, mut diags) = default_settings(at, None, ctx);
    let rl314 = diags
        .iter()
        .position(|d| d.code == super::rl314_version_dependent_default::META.code)
        .map(|i| diags.swap_remove(i));
    (settings, notes, rl314)
}

/// The settings of a route (or service) with no `retries`: the mesh default when the
/// run has one, else Istio's built-in default; no deadline (Istio disables Envoy's
/// 15 s route timeout), with its note. Findings: RL314, and RL017 from the mesh
/// default's `retryOn`.
pub fn default_settings(
    at: &At,
    mesh_default: Option<&HttpRetry>,
    ctx: &ImportContext<'_>,
) -> (Settings, Vec<OriginNote>, Vec<Diagnostic>) {
    let policy = mesh_default.map_or(Policy::BuiltIn, Policy::Mesh);
    let mut mapped = retry::settings(at, policy, ctx);
    if let Some(on) = mapped.settings.retry.as_ref().filter(|r| r.value) {
        mapped.notes.push(no_deadline_note(&on.at));
    }
    (mapped.settings, mapped.notes, mapped.diagnostics)
}

fn no_deadline_note(at: &At) -> OriginNote {
    OriginNote {
        at: at.clone(),
        text: "no `timeout:` on this route, so it has no deadline: Istio disables Envoy's 15s route timeout (retry-configs.md §1 fact 5, §2.1; istio/istio route.go setTimeout)".into(),
    }
}

fn virtual_service(
    o: &KubeObject,
    mesh_default: Option<&HttpRetry>,
    budgets: &[budget::HostBudget],
    ctx: &ImportContext<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Option<ConfigObject> {
    let doc = &o.doc;
    let tree = doc.tree.as_ref().ok()?;
    let spec = tree
        .get(o.node, "spec")
        .filter(|&s| tree.kind(s) == Kind::Map)?;
    let http = tree.get(spec, "http")?;
    let mut names: Vec<Spanned<String>> = strings(tree, spec, "hosts")
        .into_iter()
        .map(|(n, s)| Spanned {
            value: s,
            at: At::new(doc, n),
        })
        .collect();
    let gateways: Vec<String> = strings(tree, spec, "gateways")
        .into_iter()
        .map(|(_, s)| s)
        .collect();
    let layer = if !gateways.is_empty() && !gateways.iter().any(|g| g == "mesh") {
        Layer::Gateway
    } else {
        Layer::Mesh
    };
    let mut routes = Vec::new();
    for &item in tree.items(http) {
        if tree.kind(item) != Kind::Map {
            continue;
        }
        let destinations = destination_hosts(tree, item);
        for (n, host) in &destinations {
            if !names.iter().any(|x| &x.value == host) {
                names.push(Spanned {
                    value: host.clone(),
                    at: At::new(doc, *n),
                });
            }
        }
        let hosts: Vec<String> = destinations.into_iter().map(|(_, h)| h).collect();
        routes.extend(http_route(
            doc,
            tree,
            item,
            &hosts,
            &o.namespace,
            mesh_default,
            budgets,
            ctx,
            diags,
        ));
    }
    // An ingress gateway's Envoy sends the request straight to the workload; a mesh
    // VirtualService is applied by the sidecars of in-mesh callers: no request passes
    // both, so they are alternative entry paths (layers.md item 6).
    let variant = Some(crate::policy::model::Variant {
        group: ENTRY_GROUP.to_string(),
        label: match layer {
            Layer::Gateway => format!("entry path: ingress gateway `{}`", gateways.join("`, `")),
            _ => MESH_ENTRY.to_string(),
        },
    });
    Some(ConfigObject {
        method_scoped: Vec::new(),
        variant,
        url_prefixes: Vec::new(),
        platform: Platform::Istio,
        kind: o.kind.clone(),
        name: o.name.clone(),
        at: At::new(doc, o.node),
        layer,
        names,
        routes,
    })
}

/// The string items of the sequence at `key` (each with its node).
fn strings(tree: &Tree, map: NodeId, key: &str) -> Vec<(NodeId, String)> {
    tree.get(map, key)
        .map(|s| {
            tree.items(s)
                .iter()
                .filter_map(|&n| tree.scalar(n).map(|t| (n, t.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

/// `route[].destination.host` of an `http[]` item.
fn destination_hosts(tree: &Tree, item: NodeId) -> Vec<(NodeId, String)> {
    let Some(list) = tree.get(item, "route") else {
        return Vec::new();
    };
    tree.items(list)
        .iter()
        .filter_map(|&d| tree.get(d, "destination"))
        .filter_map(|d| tree.get(d, "host"))
        .filter_map(|h| tree.scalar(h).map(|s| (h, s.to_string())))
        .collect()
}

/// One `http[]` item as routes: one route, or one per match when `rewrite.uri`
/// depends on the match (a prefix rewrite after one match, a full one after another).
#[allow(clippy::too_many_arguments)]
fn http_route(
    doc: &Arc<Loaded>,
    tree: &Tree,
    item: NodeId,
    destinations: &[String],
    namespace: &str,
    mesh_default: Option<&HttpRetry>,
    budgets: &[budget::HostBudget],
    ctx: &ImportContext<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Route> {
    let route_at = At::new(doc, item);
    let name = tree
        .get(item, "name")
        .and_then(|n| tree.scalar(n))
        .map(str::to_string);
    let matches = matching::read_matches(doc, tree, tree.get(item, "match"), diags);
    let (mut settings, mut notes) = route_settings(doc, tree, item, mesh_default, ctx, diags);
    if settings.retry.as_ref().is_some_and(|r| r.value) {
        settings.budget = budget::for_destinations(budgets, destinations, namespace).map(Box::new);
    }
    deadline(doc, tree, item, &mut settings, &mut notes, diags);
    let has_rewrite = tree
        .get(item, "rewrite")
        .and_then(|r| tree.get(r, "uri"))
        .is_some();
    let route = |matches: Vec<matching::Match>| {
        let rewrite = matches
            .first()
            .and_then(|m| matching::rewrite_for(tree, item, &m.uri));
        Route {
            at: route_at.clone(),
            name: name.clone(),
            matches: matches.into_iter().map(|m| m.request).collect(),
            rewrite,
            settings: settings.clone(),
            notes: notes.clone(),
        }
    };
    if has_rewrite && matches.len() > 1 {
        matches.into_iter().map(|m| route(vec![m])).collect()
    } else {
        vec![route(matches)]
    }
}

/// The retry settings of one `http[]` item (without its deadline).
fn route_settings(
    doc: &Arc<Loaded>,
    tree: &Tree,
    item: NodeId,
    mesh_default: Option<&HttpRetry>,
    ctx: &ImportContext<'_>,
    diags: &mut Vec<Diagnostic>,
) -> (Settings, Vec<OriginNote>) {
    let route_at = At::new(doc, item);
    for key in ["redirect", "directResponse"] {
        if let Some((k, _)) = tree.get_entry(item, key) {
            let mut s = Settings::empty(route_at.clone());
            s.retry = Some(Spanned {
                value: false,
                at: At::new(doc, k),
            });
            let note = OriginNote {
                at: At::new(doc, k),
                text: crate::import::note_text(format!("`{key}`: the proxy answers this route itself, so no request reaches a backend and nothing is retried")),
            };
            return (s, vec![note]);
        }
    }
    if let Some((k, _)) = tree.get_entry(item, "delegate") {
        let note = OriginNote {
            at: At::new(doc, k),
            text: crate::import::note_text("`delegate`: the routes of the delegate VirtualService decide the retries; retrylint does not follow delegation yet"),
        };
        return (Settings::empty(route_at), vec![note]);
    }
    let written = tree
        .get(item, "retries")
        .filter(|&r| tree.kind(r) != Kind::Null)
        .map(|r| retry::read(Src::Doc(doc), r, "Istio `retries`", diags));
    let mapped = match &written {
        Some(r) => retry::settings(&route_at, Policy::Route(r), ctx),
        None => retry::settings(
            &route_at,
            mesh_default.map_or(Policy::BuiltIn, Policy::Mesh),
            ctx,
        ),
    };
    diags.extend(mapped.diagnostics);
    (mapped.settings, mapped.notes)
}

/// `http[].timeout` -> `deadline`; absent or `0s`: no deadline, with a note.
fn deadline(
    doc: &Arc<Loaded>,
    tree: &Tree,
    item: NodeId,
    settings: &mut Settings,
    notes: &mut Vec<OriginNote>,
    diags: &mut Vec<Diagnostic>,
) {
    let Some(n) = tree.get(item, "timeout") else {
        // The note goes where the retry is turned on, where RL301 points.
        if let Some(on) = settings.retry.as_ref().filter(|r| r.value) {
            notes.push(no_deadline_note(&on.at));
        }
        return;
    };
    let at = At::new(doc, n);
    let text = tree.scalar(n).unwrap_or("...");
    match durations::read(text) {
        Ok(ms) if ms > 0.0 => settings.deadline = Some(Spanned { value: ms, at }),
        Ok(_) => notes.push(OriginNote {
            at,
            text: crate::import::note_text("`timeout: 0s` switches the route timeout off, so the route has no deadline (retry-configs.md §2.1)"),
        }),
        Err(refused) => {
            diags.push(rl017::diagnostic(
                &at,
                format!("`timeout: {text}` {}", refused.what()),
                refused.label(),
                format!("{}, and retrylint reads no deadline; write a duration such as `5s` or `250ms`.", refused.why()),
            ));
            // Reported once (RL017), not again as a missing deadline (RL301).
            settings.refuse("deadline", at);
        }
    }
}

/// Keeps the first of findings with the same code, message and location (one RL314
/// at a mesh default shared by many routes).
fn dedup_diagnostics(diags: &mut Vec<Diagnostic>) {
    let mut seen = HashSet::new();
    diags.retain(|d| {
        seen.insert((
            d.code,
            d.message.clone(),
            d.primary.location.file.path.clone(),
            d.primary.location.span.clone(),
        ))
    });
}
