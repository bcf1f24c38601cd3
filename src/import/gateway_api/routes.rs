//! What an `HTTPRoute`/`GRPCRoute` matches, shared by the Gateway API and Linkerd
//! importers: each `rules[].matches[]` item as a [`RequestMatch`] with the rule's
//! `URLRewrite`, in Gateway API precedence order, and the names the route serves
//! (`hostnames`, the Services of GAMMA `parentRefs`, gRPC services).
//!
//! Precedence (`retry-configs.md` §4.4, GW-T `HTTPRouteRule`): an `Exact` path before
//! any prefix, then the longest `PathPrefix` (counted in characters), then a match
//! with a `method`, then the most header matches, then the most query matches, then
//! rule order and match order. The API leaves `RegularExpression` paths
//! implementation-specific; they are placed after `Exact` and before prefixes, as
//! Envoy Gateway sorts them. `PathPrefix` is element-wise and the default path is
//! `PathPrefix /`. Headers and query parameters make a match partial ("may match").

use crate::diagnostic::Diagnostic;
use crate::import::rl017_ineffective_setting;
use crate::import::route::{full_match_regex, PathMatch, RequestMatch, Rewrite};
use crate::import::stream::KubeObject;
use crate::policy::model::Spanned;
use crate::source::refs::At;
use crate::source::tree::{Kind, NodeId, Tree};

/// One match of one rule, ready to become a route.
#[derive(Debug, Clone)]
pub struct RuleMatch {
    /// 0-based index of the rule in `rules`.
    pub rule_index: usize,
    /// The `rules[]` item.
    pub rule: NodeId,
    /// The `matches[]` item (`None`: the rule has no `matches`, so `PathPrefix /`).
    pub match_node: Option<NodeId>,
    /// What the match selects.
    pub request: RequestMatch,
    /// The rule's `URLRewrite` for this match.
    pub rewrite: Option<Rewrite>,
    key: (u8, i64, u8, i64, i64, usize, usize),
}

/// The tree of a Kubernetes object's document.
pub fn tree(obj: &KubeObject) -> Option<&Tree> {
    obj.doc.tree.as_ref().ok()
}

/// The node at `path` (mapping keys) below `from`.
pub fn get_path(tree: &Tree, from: NodeId, path: &[&str]) -> Option<NodeId> {
    let mut node = from;
    for key in path {
        node = tree.get(node, key)?;
    }
    Some(node)
}

/// The items of a sequence at `node` (empty when it is not a sequence).
pub fn seq(tree: &Tree, node: Option<NodeId>) -> Vec<NodeId> {
    node.filter(|&n| tree.kind(n) == Kind::Seq)
        .map(|n| tree.items(n).to_vec())
        .unwrap_or_default()
}

/// True for a `GRPCRoute`.
pub fn is_grpc(obj: &KubeObject) -> bool {
    obj.kind == "GRPCRoute"
}

/// True for an `HTTPRoute` or `GRPCRoute` of `gateway.networking.k8s.io` (any
/// version).
pub fn is_route(obj: &KubeObject) -> bool {
    obj.group() == "gateway.networking.k8s.io"
        && matches!(obj.kind.as_str(), "HTTPRoute" | "GRPCRoute")
}

/// The `parentRefs` that are Services (GAMMA): each name with its node.
pub fn service_parents(obj: &KubeObject) -> Vec<Spanned<String>> {
    parents(obj, true)
}

/// The `parentRefs` that are Gateways (kind absent or `Gateway`).
pub fn gateway_parents(obj: &KubeObject) -> Vec<Spanned<String>> {
    parents(obj, false)
}

fn parents(obj: &KubeObject, services: bool) -> Vec<Spanned<String>> {
    let Some(t) = tree(obj) else {
        return Vec::new();
    };
    let refs = seq(t, get_path(t, obj.node, &["spec", "parentRefs"]));
    let mut out = Vec::new();
    for r in refs {
        let kind = t
            .get(r, "kind")
            .and_then(|k| t.as_str(k))
            .unwrap_or("Gateway");
        if (kind == "Service") != services {
            continue;
        }
        if let Some(n) = t.get(r, "name") {
            if let Some(name) = t.scalar(n) {
                out.push(Spanned {
                    value: name.to_string(),
                    at: At::new(&obj.doc, n),
                });
            }
        }
    }
    out
}

/// The names the route serves: its `hostnames`, the Services it attaches to (GAMMA),
/// and, for a `GRPCRoute`, the gRPC services its matches name (first, since a gRPC
/// service binds through protos or `services[].grpc`, not through a spec's host).
pub fn names(obj: &KubeObject) -> Vec<Spanned<String>> {
    let Some(t) = tree(obj) else {
        return Vec::new();
    };
    let mut out: Vec<Spanned<String>> = Vec::new();
    if is_grpc(obj) {
        for rule in seq(t, get_path(t, obj.node, &["spec", "rules"])) {
            for m in seq(t, t.get(rule, "matches")) {
                if let Some(s) = get_path(t, m, &["method", "service"]) {
                    if let Some(name) = t.scalar(s) {
                        if !out.iter().any(|n| n.value == name) {
                            out.push(Spanned {
                                value: name.to_string(),
                                at: At::new(&obj.doc, s),
                            });
                        }
                    }
                }
            }
        }
        return out;
    }
    for h in seq(t, get_path(t, obj.node, &["spec", "hostnames"])) {
        if let Some(name) = t.scalar(h) {
            out.push(Spanned {
                value: name.to_string(),
                at: At::new(&obj.doc, h),
            });
        }
    }
    out.extend(service_parents(obj));
    out
}

/// Every match of every rule of the route, in precedence order; RL017 for a match
/// that can never match (an invalid regular expression) in `diags`.
pub fn rule_matches(obj: &KubeObject, diags: &mut Vec<Diagnostic>) -> Vec<RuleMatch> {
    let Some(t) = tree(obj) else {
        return Vec::new();
    };
    let grpc = is_grpc(obj);
    let mut out = Vec::new();
    for (ri, rule) in seq(t, get_path(t, obj.node, &["spec", "rules"]))
        .into_iter()
        .enumerate()
    {
        let items = seq(t, t.get(rule, "matches"));
        if items.is_empty() {
            let request = if grpc {
                RequestMatch {
                    path: PathMatch::Any,
                    methods: Some(vec!["POST".into()]),
                    partial: false,
                }
            } else {
                RequestMatch::path(PathMatch::SegmentPrefix("/".into()))
            };
            let rewrite = rewrite(obj, t, rule, &request.path);
            out.push(RuleMatch {
                rule_index: ri,
                rule,
                match_node: None,
                key: (2, -1, 1, 0, 0, ri, 0),
                request,
                rewrite,
            });
            continue;
        }
        for (mi, m) in items.into_iter().enumerate() {
            let parsed = if grpc {
                grpc_match(obj, t, m, diags)
            } else {
                http_match(obj, t, m, diags)
            };
            let Some((request, class, len, headers, queries)) = parsed else {
                continue;
            };
            let rewrite = rewrite(obj, t, rule, &request.path);
            let has_method = if grpc {
                get_path(t, m, &["method", "method"]).is_some()
            } else {
                t.get(m, "method").is_some()
            };
            out.push(RuleMatch {
                rule_index: ri,
                rule,
                match_node: Some(m),
                key: (
                    class,
                    -len,
                    u8::from(!has_method),
                    -headers,
                    -queries,
                    ri,
                    mi,
                ),
                request,
                rewrite,
            });
        }
    }
    out.sort_by_key(|m| m.key);
    out
}

type Parsed = (RequestMatch, u8, i64, i64, i64);

fn count(t: &Tree, m: NodeId, key: &str) -> i64 {
    seq(t, t.get(m, key)).len() as i64
}

fn never_matches(obj: &KubeObject, node: NodeId, pattern: &str, err: &str) -> Diagnostic {
    rl017_ineffective_setting::diagnostic(
        &At::new(&obj.doc, node),
        format!("regular expression `{pattern}` does not compile, so this match never matches"),
        "invalid regular expression",
        format!("the regex engine says: {err}. Fix the expression; until then the route's retry settings apply to no request."),
    )
}

fn http_match(
    obj: &KubeObject,
    t: &Tree,
    m: NodeId,
    diags: &mut Vec<Diagnostic>,
) -> Option<Parsed> {
    let path = t.get(m, "path");
    let kind = path
        .and_then(|p| t.get(p, "type"))
        .and_then(|n| t.as_str(n))
        .unwrap_or("PathPrefix");
    let value_node = path.and_then(|p| t.get(p, "value"));
    let value = value_node
        .and_then(|n| t.scalar(n))
        .unwrap_or("/")
        .to_string();
    let (pm, class, len) = match kind {
        "Exact" => (
            PathMatch::Exact(value.clone()),
            0,
            value.chars().count() as i64,
        ),
        "RegularExpression" => match full_match_regex(&value) {
            Ok(re) => (PathMatch::Regex(re), 1, value.chars().count() as i64),
            Err(e) => {
                diags.push(never_matches(obj, value_node.unwrap_or(m), &value, &e));
                return None;
            }
        },
        _ => (
            PathMatch::SegmentPrefix(value.clone()),
            2,
            value.chars().count() as i64,
        ),
    };
    let methods = t
        .get(m, "method")
        .and_then(|n| t.scalar(n))
        .map(|s| vec![s.to_ascii_uppercase()]);
    let headers = count(t, m, "headers");
    let queries = count(t, m, "queryParams");
    Some((
        RequestMatch {
            path: pm,
            methods,
            partial: headers > 0 || queries > 0,
        },
        class,
        len,
        headers,
        queries,
    ))
}

fn grpc_match(
    obj: &KubeObject,
    t: &Tree,
    m: NodeId,
    diags: &mut Vec<Diagnostic>,
) -> Option<Parsed> {
    let method = t.get(m, "method");
    let kind = method
        .and_then(|p| t.get(p, "type"))
        .and_then(|n| t.as_str(n))
        .unwrap_or("Exact");
    let text = |k: &str| {
        method
            .and_then(|p| t.get(p, k))
            .and_then(|n| t.scalar(n))
            .map(str::to_string)
    };
    let (service, name) = (text("service"), text("method"));
    let headers = count(t, m, "headers");
    let pm = match (kind, &service, &name) {
        (_, None, None) => PathMatch::Any,
        ("RegularExpression", s, n) => {
            let pattern = format!(
                "/{}/{}",
                s.as_deref().unwrap_or("[^/]+"),
                n.as_deref().unwrap_or("[^/]+")
            );
            match full_match_regex(&pattern) {
                Ok(re) => PathMatch::Regex(re),
                Err(e) => {
                    diags.push(never_matches(obj, method.unwrap_or(m), &pattern, &e));
                    return None;
                }
            }
        }
        (_, Some(s), Some(n)) => PathMatch::Exact(format!("/{s}/{n}")),
        (_, Some(s), None) => PathMatch::SegmentPrefix(format!("/{s}")),
        (_, None, Some(n)) => {
            PathMatch::Regex(full_match_regex(&format!("/[^/]+/{}", regex::escape(n))).ok()?)
        }
    };
    let class = match pm {
        PathMatch::Exact(_) => 0,
        PathMatch::Regex(_) => 1,
        _ => 2,
    };
    let len = service.as_deref().map_or(0, |s| s.chars().count() as i64);
    Some((
        RequestMatch {
            path: pm,
            methods: Some(vec!["POST".into()]),
            partial: headers > 0,
        },
        class,
        len,
        headers,
        0,
    ))
}

/// The rule's `URLRewrite` filter as a [`Rewrite`] for a match on `path`:
/// `ReplacePrefixMatch` replaces the matched prefix, `ReplaceFullPath` the whole path.
fn rewrite(obj: &KubeObject, t: &Tree, rule: NodeId, path: &PathMatch) -> Option<Rewrite> {
    let _ = obj;
    for f in seq(t, t.get(rule, "filters")) {
        if t.get(f, "type").and_then(|n| t.as_str(n)) != Some("URLRewrite") {
            continue;
        }
        let p = get_path(t, f, &["urlRewrite", "path"])?;
        let kind = t.get(p, "type").and_then(|n| t.as_str(n))?;
        match kind {
            "ReplacePrefixMatch" => {
                let to = t.get(p, "replacePrefixMatch").and_then(|n| t.scalar(n))?;
                let from = match path {
                    PathMatch::SegmentPrefix(v) | PathMatch::Prefix(v) => v.clone(),
                    _ => return None,
                };
                return Some(Rewrite::Prefix {
                    from,
                    to: to.to_string(),
                });
            }
            "ReplaceFullPath" => {
                let to = t.get(p, "replaceFullPath").and_then(|n| t.scalar(n))?;
                return Some(Rewrite::Full(to.to_string()));
            }
            _ => {}
        }
    }
    None
}
