//! Istio `HTTPMatchRequest` and `HTTPRewrite` onto [`RequestMatch`] and [`Rewrite`]:
//! `match[]` is OR, the fields of one match are AND; `uri` is `exact`, `prefix` (a
//! STRING prefix: `/order` matches `/orders`) or `regex` (RE2, matched against the
//! whole path), `ignoreUriCase` applies to exact and prefix; `method` becomes a
//! case-sensitive `:method` match; headers, query parameters, authority, scheme, port
//! and source selectors also decide, so such a match is `partial`. `rewrite.uri`
//! replaces the matched prefix (a prefix match, or a route without `uri`) or the whole
//! path (an exact match). Sources: retry-configs.md §2.3; istio/api
//! `virtual_service.proto` (HTTPMatchRequest, HTTPRewrite); istio/istio
//! `route.go` `TranslateRouteMatch`.

use super::super::rl017_ineffective_setting as rl017;
use super::super::route::{full_match_regex, PathMatch, RequestMatch, Rewrite};
use crate::diagnostic::Diagnostic;
use crate::source::loader::Loaded;
use crate::source::refs::At;
use crate::source::tree::{Kind, NodeId, Tree};
use std::sync::Arc;

/// The methods a `method` prefix or regex is tested against.
const METHODS: &[&str] = &[
    "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT",
];

/// Match keys that only narrow which requests match (the route *may* match).
const NARROWING: &[&str] = &[
    "headers",
    "queryParams",
    "withoutHeaders",
    "authority",
    "scheme",
    "port",
    "sourceLabels",
    "sourceNamespace",
    "gateways",
    "statPrefix",
];

/// A matched `uri`, kept to decide the rewrite.
#[derive(Debug, Clone)]
pub enum UriKind {
    /// No `uri` (every path; Istio matches prefix `/`).
    None,
    /// `exact`.
    Exact,
    /// `prefix` with its text.
    Prefix(String),
    /// `regex`.
    Regex,
}

/// One `match[]` item read.
pub struct Match {
    /// The request match.
    pub request: RequestMatch,
    /// What kind of `uri` it had.
    pub uri: UriKind,
}

/// The `match[]` list of a route (`None`: no `match`, every request).
pub fn read_matches(
    doc: &Arc<Loaded>,
    tree: &Tree,
    list: Option<NodeId>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Match> {
    let Some(list) = list.filter(|&n| tree.kind(n) == Kind::Seq) else {
        return vec![Match {
            request: RequestMatch::any(),
            uri: UriKind::None,
        }];
    };
    let items = tree.items(list);
    if items.is_empty() {
        return vec![Match {
            request: RequestMatch::any(),
            uri: UriKind::None,
        }];
    }
    items
        .iter()
        .map(|&m| read_match(doc, tree, m, diags))
        .collect()
}

fn read_match(doc: &Arc<Loaded>, tree: &Tree, m: NodeId, diags: &mut Vec<Diagnostic>) -> Match {
    let mut request = RequestMatch::any();
    let mut uri = UriKind::None;
    if tree.kind(m) != Kind::Map {
        return Match { request, uri };
    }
    request.partial = NARROWING.iter().any(|k| tree.get(m, k).is_some());
    if let Some(u) = tree.get(m, "uri") {
        let ignore_case = tree
            .get(m, "ignoreUriCase")
            .and_then(|n| tree.as_bool(n))
            .unwrap_or(false);
        let (path, kind) = string_match(doc, tree, u, "uri", diags);
        request.path = match (path, ignore_case) {
            (StringMatch::Exact(p), false) => PathMatch::Exact(p),
            (StringMatch::Prefix(p), false) => PathMatch::Prefix(p),
            (StringMatch::Exact(p), true) => case_insensitive(&regex::escape(&p)),
            (StringMatch::Prefix(p), true) => case_insensitive(&format!("{}.*", regex::escape(&p))),
            (StringMatch::Regex(re), _) => PathMatch::Regex(re),
            (StringMatch::Never, _) => PathMatch::Exact(String::new()),
            (StringMatch::Any, _) => PathMatch::Any,
        };
        uri = kind;
    }
    if let Some(mnode) = tree.get(m, "method") {
        let (method, _) = string_match(doc, tree, mnode, "method", diags);
        let methods: Vec<String> = match method {
            StringMatch::Exact(x) => {
                if METHODS.contains(&x.as_str()) || x.chars().all(|c| c.is_ascii_uppercase()) {
                    vec![x]
                } else {
                    diags.push(rl017::diagnostic(
                        &At::new(doc, mnode),
                        format!("method match `{x}` never matches: Istio compares methods case-sensitively"),
                        "never matches",
                        format!("write `{}`: request methods are upper case, so this route never applies.", x.to_ascii_uppercase()),
                    ));
                    Vec::new()
                }
            }
            StringMatch::Prefix(p) => METHODS
                .iter()
                .filter(|m| m.starts_with(p.as_str()))
                .map(|m| m.to_string())
                .collect(),
            StringMatch::Regex(re) => METHODS
                .iter()
                .filter(|m| re.is_match(m))
                .map(|m| m.to_string())
                .collect(),
            StringMatch::Never => Vec::new(),
            StringMatch::Any => METHODS.iter().map(|m| m.to_string()).collect(),
        };
        request.methods = Some(methods);
    }
    Match { request, uri }
}

fn case_insensitive(pattern: &str) -> PathMatch {
    match full_match_regex(&format!("(?i:{pattern})")) {
        Ok(re) => PathMatch::Regex(re),
        Err(_) => PathMatch::Any,
    }
}

enum StringMatch {
    Exact(String),
    Prefix(String),
    Regex(super::super::route::PathRegex),
    /// An invalid match (reported): matches nothing.
    Never,
    /// An empty match: matches everything.
    Any,
}

/// A `StringMatch` (`exact`, `prefix` or `regex`).
fn string_match(
    doc: &Arc<Loaded>,
    tree: &Tree,
    node: NodeId,
    field: &str,
    diags: &mut Vec<Diagnostic>,
) -> (StringMatch, UriKind) {
    let text = |k: &str| {
        tree.get(node, k)
            .and_then(|n| tree.scalar(n).map(|s| (n, s)))
    };
    if let Some((_, s)) = text("exact") {
        return (StringMatch::Exact(s.to_string()), UriKind::Exact);
    }
    if let Some((_, s)) = text("prefix") {
        return (
            StringMatch::Prefix(s.to_string()),
            UriKind::Prefix(s.to_string()),
        );
    }
    if let Some((n, s)) = text("regex") {
        return match full_match_regex(s) {
            Ok(re) => (StringMatch::Regex(re), UriKind::Regex),
            Err(e) => {
                diags.push(rl017::diagnostic(
                    &At::new(doc, n),
                    format!("`{field}` regex `{s}` does not compile, so this match never applies"),
                    "invalid regex",
                    format!(
                        "fix the RE2 expression ({}); Istio's validation rejects it.",
                        e.lines().last().unwrap_or("")
                    ),
                ));
                (StringMatch::Never, UriKind::Regex)
            }
        };
    }
    (StringMatch::Any, UriKind::None)
}

/// The rewrite of a route for one of its matches: `rewrite.uri` replaces the matched
/// prefix (prefix `/` when the match has no `uri`), or the whole path after an exact
/// match. `None` after a regex match (Envoy's `prefix_rewrite` has no prefix to
/// replace there; `uriRegexRewrite` is not read yet).
pub fn rewrite_for(tree: &Tree, route: NodeId, uri: &UriKind) -> Option<Rewrite> {
    let rw = tree.get(route, "rewrite")?;
    let to = tree
        .get(rw, "uri")
        .and_then(|n| tree.scalar(n))?
        .to_string();
    match uri {
        UriKind::None => Some(Rewrite::Prefix {
            from: "/".into(),
            to,
        }),
        UriKind::Prefix(p) => Some(Rewrite::Prefix {
            from: p.clone(),
            to,
        }),
        UriKind::Exact => Some(Rewrite::Full(to)),
        UriKind::Regex => None,
    }
}
