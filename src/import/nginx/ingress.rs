//! ingress-nginx (`retry-configs.md` §8.2; kubernetes/ingress-nginx `config.go`,
//! `template.go` `buildNextUpstream`, annotations and ConfigMap docs): `Ingress`
//! objects (`networking.k8s.io` v1 and v1beta1, `extensions/v1beta1`) served by
//! ingress-nginx (class `nginx`, or any `nginx.ingress.kubernetes.io/` annotation),
//! one [`ConfigObject`] each (layer gateway, named by its `rules[].host`s and backend
//! services), one route per `paths[]` item (`Exact`, `Prefix` element-wise,
//! `ImplementationSpecific` a string prefix, a regex with `use-regex`), exact paths
//! first, then longest first, as ingress-nginx orders its locations;
//! `rewrite-target` as a rewrite (see [`rewrite`]).
//!
//! Settings: `…/proxy-next-upstream` (else the controller ConfigMap's
//! `proxy-next-upstream`, else `error timeout`), `non_idempotent` also from the
//! ConfigMap's `retry-non-idempotent: "true"`; `…/proxy-next-upstream-tries` (TOTAL
//! tries, default 3); `…/proxy-next-upstream-timeout` (unitless seconds, 0: none) the
//! deadline; `…/proxy-read-timeout` (seconds, default 60) the attempt timeout; no
//! backoff, no jitter, Retry-After never honoured.

use super::conditions;
use crate::import::stream::KubeObject;
use crate::import::{ConfigObject, ImportContext, Imported, OriginNote, Platform, Route};
use crate::import::{PathMatch, RequestMatch, Rewrite};
use crate::policy::model::{AttemptTimeout, BackoffSettings, Jitter, Layer, Settings, Spanned};
use crate::source::refs::At;
use crate::source::tree::{Kind, NodeId, Tree};

const SOURCE: &str = "ingress-nginx, retry-configs.md §8.2";
const PREFIX: &str = "nginx.ingress.kubernetes.io/";

/// A string setting with its node.
#[derive(Debug, Clone)]
struct Value {
    text: String,
    at: At,
}

/// The controller ConfigMap's retry keys (a ConfigMap with any of them).
#[derive(Debug, Default)]
struct Controller {
    values: Vec<(String, Value)>,
}

impl Controller {
    fn get(&self, key: &str) -> Option<Value> {
        self.values
            .iter()
            .rfind(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    }
}

const CONTROLLER_KEYS: &[&str] = &[
    "proxy-next-upstream",
    "proxy-next-upstream-tries",
    "proxy-next-upstream-timeout",
    "retry-non-idempotent",
    "proxy-read-timeout",
];

fn str_value(tree: &Tree, o: &KubeObject, node: NodeId) -> Option<Value> {
    let text = match tree.kind(node) {
        Kind::Map | Kind::Seq => return None,
        _ => tree.scalar(node)?.to_string(),
    };
    Some(Value {
        text,
        at: At::new(&o.doc, node),
    })
}

/// ingress-nginx: `Ingress` objects with `nginx.ingress.kubernetes.io/proxy-next-upstream*`
/// annotations and the controller ConfigMap (`proxy-next-upstream`,
/// `retry-non-idempotent`), among every Kubernetes object of the run.
pub fn import_ingress(objects: &[KubeObject], ctx: &ImportContext<'_>) -> Imported {
    let _ = ctx;
    let mut controller = Controller::default();
    for o in objects.iter().filter(|o| o.kind == "ConfigMap") {
        let Ok(tree) = &o.doc.tree else { continue };
        let Some(data) = tree.get(o.node, "data") else {
            continue;
        };
        if !CONTROLLER_KEYS.iter().any(|k| tree.get(data, k).is_some()) {
            continue;
        }
        for k in CONTROLLER_KEYS {
            if let Some(v) = tree.get(data, k).and_then(|n| str_value(tree, o, n)) {
                controller.values.push((k.to_string(), v));
            }
        }
    }
    let mut out = Imported::default();
    for o in objects
        .iter()
        .filter(|o| o.kind == "Ingress" && matches!(o.group(), "networking.k8s.io" | "extensions"))
    {
        if let Some(obj) = ingress(o, &controller, &mut out.diagnostics) {
            out.objects.push(obj);
        }
    }
    out
}

fn ingress(
    o: &KubeObject,
    controller: &Controller,
    diagnostics: &mut Vec<crate::diagnostic::Diagnostic>,
) -> Option<ConfigObject> {
    let tree = o.doc.tree.as_ref().ok()?;
    let meta = tree.get(o.node, "metadata");
    let annotations = meta.and_then(|m| tree.get(m, "annotations"));
    let annotation = |key: &str| {
        annotations
            .and_then(|a| tree.get(a, &format!("{PREFIX}{key}")))
            .and_then(|n| str_value(tree, o, n))
    };
    let spec = tree.get(o.node, "spec")?;
    let class = annotations
        .and_then(|a| tree.get(a, "kubernetes.io/ingress.class"))
        .or_else(|| tree.get(spec, "ingressClassName"))
        .and_then(|n| tree.scalar(n))
        .map(str::to_string);
    let nginx_annotated = annotations.is_some_and(|a| {
        tree.raw_entries(a)
            .iter()
            .any(|(k, _)| tree.scalar(*k).is_some_and(|k| k.starts_with(PREFIX)))
    });
    match &class {
        Some(c) if !c.contains("nginx") => return None,
        None if !nginx_annotated => return None,
        _ => {}
    }
    let object_at = At::new(&o.doc, annotations.or(meta).unwrap_or(o.node));
    // `rewrite-target` turns the paths into regexes too (ingress-nginx docs).
    let target = annotation("rewrite-target").map(|v| v.text);
    let use_regex = annotation("use-regex").is_some_and(|v| v.text == "true") || target.is_some();
    let mut names: Vec<Spanned<String>> = Vec::new();
    let push_name = |names: &mut Vec<Spanned<String>>, node: NodeId| {
        if let Some(v) = tree.as_str(node) {
            if !v.is_empty() && !names.iter().any(|n| n.value == v) {
                names.push(Spanned {
                    value: v.to_string(),
                    at: At::new(&o.doc, node),
                });
            }
        }
    };
    type PathRow = (u8, usize, usize, NodeId, PathMatch, String, Option<Rewrite>);
    let mut paths: Vec<PathRow> = Vec::new();
    let rules = tree.get(spec, "rules");
    for rule in rules.map(|r| tree.items(r).to_vec()).unwrap_or_default() {
        if let Some(h) = tree.get(rule, "host") {
            push_name(&mut names, h);
        }
        let items = tree
            .get(rule, "http")
            .and_then(|h| tree.get(h, "paths"))
            .map(|p| tree.items(p).to_vec())
            .unwrap_or_default();
        for item in items {
            let path = tree
                .get(item, "path")
                .and_then(|n| tree.scalar(n))
                .unwrap_or("/")
                .to_string();
            let path_type = tree
                .get(item, "pathType")
                .and_then(|n| tree.scalar(n))
                .unwrap_or("ImplementationSpecific");
            if let Some(b) = tree.get(item, "backend") {
                let svc = tree
                    .get(b, "service")
                    .and_then(|s| tree.get(s, "name"))
                    .or_else(|| tree.get(b, "serviceName"));
                if let Some(s) = svc {
                    push_name(&mut names, s);
                }
            }
            let (rank, m) = if use_regex {
                let re = crate::import::route::PathRegex::new(&format!("(?i)^{path}"));
                (1, re.map(PathMatch::Regex).unwrap_or(PathMatch::Any))
            } else {
                match path_type {
                    "Exact" => (0, PathMatch::Exact(path.clone())),
                    "Prefix" => (1, PathMatch::SegmentPrefix(path.clone())),
                    _ => (1, PathMatch::Prefix(path.clone())),
                }
            };
            let n = paths.len();
            let rewrite = target.as_deref().and_then(|t| rewrite(&path, t));
            paths.push((
                rank,
                path.len(),
                n,
                item,
                m,
                format!("{path_type} {path}"),
                rewrite,
            ));
        }
    }
    if paths.is_empty() {
        let default = tree
            .get(spec, "defaultBackend")
            .or_else(|| tree.get(spec, "backend"))?;
        paths.push((
            1,
            0,
            0,
            default,
            PathMatch::Any,
            "default backend".into(),
            None,
        ));
    }
    paths.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));

    // Settings shared by every path of the object.
    let mut settings = Settings::empty(object_at.clone());
    let mut notes = Vec::new();
    let mut note = |at: &At, text: String| {
        notes.push(OriginNote {
            at: at.clone(),
            text: crate::import::note_text(text),
        })
    };
    let pnu = annotation("proxy-next-upstream").or_else(|| controller.get("proxy-next-upstream"));
    let on_at = pnu.as_ref().map_or(object_at.clone(), |v| v.at.clone());
    let text = match &pnu {
        Some(v) => v.text.clone(),
        None => {
            note(&on_at, format!("no `{PREFIX}proxy-next-upstream` annotation nor ConfigMap key, so ingress-nginx's default `error timeout` applies ({SOURCE})"));
            "error timeout".into()
        }
    };
    let tokens: Vec<(String, At)> = text
        .split_whitespace()
        .map(|t| (t.to_string(), on_at.clone()))
        .collect();
    let conds = conditions::read(&tokens, "`proxy-next-upstream`");
    // The controller ConfigMap's `retry-non-idempotent: "true"` turns `non_idempotent`
    // on for every Ingress of the controller (ingress-nginx `template.go`
    // `buildNextUpstream`; kubernetes/ingress-nginx#1512, #4174): it is what lets a
    // POST through, so it is the origin of the methods this layer re-sends.
    let global_non_idempotent = controller
        .get("retry-non-idempotent")
        .filter(|v| v.text == "true" && conds.non_idempotent.is_none());
    let non_idempotent = conds.non_idempotent.is_some() || global_non_idempotent.is_some();
    diagnostics.extend(conds.diagnostics.iter().cloned());
    if conds.off.is_some() || conds.signals.is_empty() {
        settings.retry = Some(Spanned {
            value: false,
            at: on_at.clone(),
        });
    } else {
        settings.retry = Some(Spanned {
            value: true,
            at: on_at.clone(),
        });
        settings.retry_on = Some(Spanned {
            value: conds.signals.clone(),
            at: on_at.clone(),
        });
        let tries = annotation("proxy-next-upstream-tries")
            .or_else(|| controller.get("proxy-next-upstream-tries"));
        match tries.as_ref().and_then(|v| Some((v.text.trim().parse::<i64>().ok()?, v.at.clone()))) {
            Some((n, at)) if n > 0 => settings.attempts = Some(Spanned { value: n, at }),
            Some((_, at)) => note(&at, format!("`proxy-next-upstream-tries` 0 means no limit: as many tries as the service has endpoints ({SOURCE})")),
            None => {
                settings.attempts = Some(Spanned {
                    value: 3,
                    at: on_at.clone(),
                });
                note(&on_at, format!("no `proxy-next-upstream-tries`: ingress-nginx's default is 3 tries in total ({SOURCE})"));
            }
        }
        if let Some(v) = &global_non_idempotent {
            settings.methods = Some(conditions::all_methods(&v.at));
            note(&v.at, format!("the controller ConfigMap's `retry-non-idempotent: \"true\"` adds `non_idempotent` to every Ingress's `proxy-next-upstream`: nginx passes a POST, LOCK or PATCH to the next endpoint too ({SOURCE})"));
        }
        if !non_idempotent {
            settings.methods = Some(conditions::methods_filter(&on_at));
            note(&on_at, format!("without `non_idempotent` (or the ConfigMap's `retry-non-idempotent: \"true\"`), nginx never passes a POST, LOCK or PATCH to the next endpoint once it was sent ({SOURCE})"));
        }
        let zero = Spanned {
            value: 0.0,
            at: on_at.clone(),
        };
        settings.backoff = Some(BackoffSettings {
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
        note(&on_at, format!("nginx passes the request to the next endpoint at once: no backoff, no jitter, Retry-After not read ({SOURCE})"));
        let secs = |v: &Value| {
            v.text
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|s| s.is_finite() && *s >= 0.0)
        };
        match annotation("proxy-read-timeout").or_else(|| controller.get("proxy-read-timeout")) {
            Some(v) if secs(&v).is_some() => {
                settings.attempt_timeout = Some(Spanned {
                    value: AttemptTimeout::Fixed(secs(&v).unwrap_or(60.0) * 1000.0),
                    at: v.at.clone(),
                })
            }
            _ => {
                settings.attempt_timeout = Some(Spanned {
                    value: AttemptTimeout::Fixed(60_000.0),
                    at: on_at.clone(),
                });
                note(&on_at, format!("no `proxy-read-timeout`: ingress-nginx's default 60 s between two reads bounds each try ({SOURCE})"));
            }
        }
        match annotation("proxy-next-upstream-timeout")
            .or_else(|| controller.get("proxy-next-upstream-timeout"))
        {
            Some(v) if secs(&v).is_some_and(|s| s > 0.0) => {
                settings.deadline = Some(Spanned {
                    value: secs(&v).unwrap_or(0.0) * 1000.0,
                    at: v.at.clone(),
                })
            }
            _ => note(&on_at, format!("`proxy-next-upstream-timeout` is 0 (the default; unitless seconds): nothing limits the time spent passing the request on ({SOURCE})")),
        }
    }
    let routes = paths
        .into_iter()
        .map(|(_, _, _, node, m, name, rewrite)| {
            let at = At::new(&o.doc, node);
            let mut s = settings.clone();
            s.at = at.clone();
            Route {
                at,
                name: Some(name),
                matches: vec![RequestMatch::path(m)],
                rewrite,
                settings: s,
                notes: notes.clone(),
            }
        })
        .collect();
    Some(ConfigObject {
        method_scoped: Vec::new(),
        variant: None,
        url_prefixes: Vec::new(),
        platform: Platform::IngressNginx,
        kind: "Ingress".into(),
        name: o.name.clone(),
        at: At::new(&o.doc, o.node),
        layer: Layer::Gateway,
        names,
        routes,
    })
}

/// The rewrite of `nginx.ingress.kubernetes.io/rewrite-target` on `path`: nginx's
/// `rewrite "(?i)path" target break;` replaces the whole URI, so a target without
/// captures is a full rewrite; the usual `path(/|$)(.*)` with a target ending in
/// `$N` strips the literal prefix before the first group; anything else is not
/// modelled (`None`).
fn rewrite(path: &str, target: &str) -> Option<Rewrite> {
    if !target.contains('$') {
        return Some(Rewrite::Full(target.to_string()));
    }
    let open = path.find('(')?;
    let prefix = &path[..open];
    let to = target.trim_end_matches(|c: char| c.is_ascii_digit());
    let to = to.strip_suffix('$')?;
    if to.contains('$') || prefix.contains(['^', '[', '*', '+', '?', '\\', '.']) {
        return None;
    }
    Some(Rewrite::Prefix {
        from: prefix.to_string(),
        to: to.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrite_targets() {
        assert!(matches!(rewrite("/api", "/"), Some(Rewrite::Full(t)) if t == "/"));
        assert!(matches!(
            rewrite("/api(/|$)(.*)", "/$2"),
            Some(Rewrite::Prefix { from, to }) if from == "/api" && to == "/"
        ));
        assert!(rewrite("/a.b(.*)", "/$1").is_none());
        assert!(rewrite("/api", "/$1/$2").is_none());
    }
}
