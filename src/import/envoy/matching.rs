//! Envoy route matching (`retry-configs.md` §3.3, ENV-P `RouteMatch`, ENV-UT): the
//! path specifier (`prefix`: string prefix; `path`: exact; `safe_regex`: full match;
//! `path_separated_prefix`: segment prefix; `path_match_policy` URI template;
//! `connect_matcher`), `headers[]` with `name: ":method"` as a method match (any other
//! header, `query_parameters`, `grpc`, `runtime_fraction`, ... only *may* match), and
//! the rewrites a backend sees (`prefix_rewrite`, a literal `regex_rewrite`).

use super::proto;
use crate::import::route::{full_match_regex, PathMatch, RequestMatch, Rewrite};
use crate::source::tree::{NodeId, Tree};

/// The methods a `:method` matcher can be evaluated against (RFC 9110 §9 and PATCH).
pub const METHODS: [&str; 9] = [
    "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT",
];

/// The methods an OpenAPI operation can have: a `:method` gate listing all of them
/// restricts nothing an API can receive.
const API_METHODS: [&str; 8] = [
    "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE",
];

/// What one `HeaderMatcher` says about the request.
#[derive(Debug, Clone, PartialEq)]
pub enum HeaderTest {
    /// A `:method` matcher: the methods it admits (upper case).
    Methods(Vec<String>),
    /// A matcher on another header (or a `:method` matcher retrylint cannot
    /// evaluate): some requests of any method may pass.
    Other,
}

/// Reads a `HeaderMatcher` (`exact_match`, `safe_regex_match`, `prefix_match`,
/// `suffix_match`, `contains_match`, `present_match`, `string_match.{exact, prefix,
/// suffix, contains, safe_regex, ignore_case}`, `invert_match`).
pub fn header_test(tree: &Tree, m: NodeId) -> HeaderTest {
    let name = proto::field_text(tree, m, "name").unwrap_or("");
    if !name.eq_ignore_ascii_case(":method") {
        return HeaderTest::Other;
    }
    let invert = proto::get(tree, m, "invert_match")
        .and_then(|n| proto::boolean(tree, n))
        .unwrap_or(false);
    let admitted = match method_predicate(tree, m) {
        Some(p) => p,
        None => return HeaderTest::Other,
    };
    let mut out: Vec<String> = METHODS
        .iter()
        .filter(|m| admitted.test(m) != invert)
        .map(|m| m.to_string())
        .collect();
    if let Pred::Exact(v, _) = &admitted {
        let upper = v.to_ascii_uppercase();
        if !invert && !METHODS.contains(&upper.as_str()) && !v.is_empty() {
            out.push(v.clone());
        }
    }
    HeaderTest::Methods(out)
}

/// The response statuses (100..=599) a `HeaderMatcher` on `:status` matches, as
/// Envoy's `retriable_headers` tests them against a response
/// (`retry_state_impl.cc` `wouldRetryFromHeaders()`: any matcher that matches gives
/// a retry with back-off). `range_match` is `[start, end)` over the status read as an
/// integer; the string matchers test its decimal text; `invert_match` flips the
/// answer. `None` for a matcher on another header, or one retrylint cannot evaluate
/// (an invalid regex, an unknown matcher kind): the caller assumes it retries.
pub fn status_codes(tree: &Tree, m: NodeId) -> Option<Vec<u16>> {
    let name = proto::field_text(tree, m, "name").unwrap_or("");
    if name != ":status" {
        return None;
    }
    let invert = proto::get(tree, m, "invert_match")
        .and_then(|n| proto::boolean(tree, n))
        .unwrap_or(false);
    let test: Box<dyn Fn(u16) -> bool> = if let Some(r) = proto::map(tree, m, "range_match") {
        let start = proto::get(tree, r, "start").and_then(|n| proto::int(tree, n))?;
        let end = proto::get(tree, r, "end").and_then(|n| proto::int(tree, n))?;
        Box::new(move |c| (start..end).contains(&i64::from(c)))
    } else {
        let pred = method_predicate(tree, m)?;
        Box::new(move |c| pred.test(&c.to_string()))
    };
    Some((100..=599).filter(|&c| test(c) != invert).collect())
}

enum Pred {
    Exact(String, bool),
    Prefix(String, bool),
    Suffix(String, bool),
    Contains(String, bool),
    Regex(crate::import::route::PathRegex),
    Present(bool),
}

impl Pred {
    fn test(&self, method: &str) -> bool {
        let cmp = |v: &str, ic: bool, f: fn(&str, &str) -> bool| {
            if ic {
                f(&method.to_ascii_lowercase(), &v.to_ascii_lowercase())
            } else {
                f(method, v)
            }
        };
        match self {
            Pred::Exact(v, ic) => cmp(v, *ic, |a, b| a == b),
            Pred::Prefix(v, ic) => cmp(v, *ic, |a, b| a.starts_with(b)),
            Pred::Suffix(v, ic) => cmp(v, *ic, |a, b| a.ends_with(b)),
            Pred::Contains(v, ic) => cmp(v, *ic, |a, b| a.contains(b)),
            Pred::Regex(re) => re.is_match(method),
            Pred::Present(p) => *p,
        }
    }
}

fn method_predicate(tree: &Tree, m: NodeId) -> Option<Pred> {
    let s = |k: &str| proto::field_text(tree, m, k).map(str::to_string);
    if let Some(v) = s("exact_match") {
        return Some(Pred::Exact(v, false));
    }
    if let Some(v) = s("prefix_match") {
        return Some(Pred::Prefix(v, false));
    }
    if let Some(v) = s("suffix_match") {
        return Some(Pred::Suffix(v, false));
    }
    if let Some(v) = s("contains_match") {
        return Some(Pred::Contains(v, false));
    }
    if let Some(re) = proto::map(tree, m, "safe_regex_match") {
        return regex_pred(tree, re);
    }
    if let Some(p) = proto::get(tree, m, "present_match").and_then(|n| proto::boolean(tree, n)) {
        return Some(Pred::Present(p));
    }
    if let Some(sm) = proto::map(tree, m, "string_match") {
        let ic = proto::get(tree, sm, "ignore_case")
            .and_then(|n| proto::boolean(tree, n))
            .unwrap_or(false);
        let t = |k: &str| proto::field_text(tree, sm, k).map(str::to_string);
        if let Some(v) = t("exact") {
            return Some(Pred::Exact(v, ic));
        }
        if let Some(v) = t("prefix") {
            return Some(Pred::Prefix(v, ic));
        }
        if let Some(v) = t("suffix") {
            return Some(Pred::Suffix(v, ic));
        }
        if let Some(v) = t("contains") {
            return Some(Pred::Contains(v, ic));
        }
        if let Some(re) = proto::map(tree, sm, "safe_regex") {
            return regex_pred(tree, re);
        }
        return None;
    }
    // No value matcher at all: Envoy treats the matcher as "header present".
    Some(Pred::Present(true))
}

fn regex_pred(tree: &Tree, re: NodeId) -> Option<Pred> {
    let pattern = proto::field_text(tree, re, "regex")?;
    full_match_regex(pattern).ok().map(Pred::Regex)
}

/// True when `methods` admits every method an API operation can have.
pub fn admits_every_api_method(methods: &[String]) -> bool {
    API_METHODS
        .iter()
        .all(|m| methods.iter().any(|x| x.eq_ignore_ascii_case(m)))
}

/// A route's `match`, read.
#[derive(Debug)]
pub struct MatchRead {
    /// The request match.
    pub request: RequestMatch,
    /// The prefix or exact path the path specifier names (for `prefix_rewrite`), and
    /// whether it is exact.
    pub literal: Option<(String, bool)>,
    /// A problem worth RL017 (a regex that does not compile: the route matches
    /// nothing), with the node it is about.
    pub problem: Option<(NodeId, String)>,
}

/// Reads a `RouteMatch` mapping.
pub fn route_match(tree: &Tree, m: NodeId) -> MatchRead {
    let mut literal = None;
    let mut problem = None;
    let mut methods: Option<Vec<String>> = None;
    let path = if let Some(p) = proto::field_text(tree, m, "prefix") {
        literal = Some((p.to_string(), false));
        if p.is_empty() || p == "/" {
            PathMatch::Prefix("/".to_string())
        } else {
            PathMatch::Prefix(p.to_string())
        }
    } else if let Some(p) = proto::field_text(tree, m, "path") {
        literal = Some((p.to_string(), true));
        PathMatch::Exact(p.to_string())
    } else if let Some(p) = proto::field_text(tree, m, "path_separated_prefix") {
        literal = Some((p.to_string(), false));
        PathMatch::SegmentPrefix(p.to_string())
    } else if let Some((node, pattern)) = proto::map(tree, m, "safe_regex")
        .and_then(|r| Some((r, proto::field_text(tree, r, "regex")?)))
        .or_else(|| {
            let n = proto::get(tree, m, "regex")?;
            Some((n, proto::text(tree, n)?))
        })
    {
        match full_match_regex(pattern) {
            Ok(re) => PathMatch::Regex(re),
            Err(e) => {
                problem = Some((node, format!("the path regex `{pattern}` does not compile ({e}), so Envoy rejects the route and retrylint matches nothing with it")));
                never()
            }
        }
    } else if let Some(t) = proto::map(tree, m, "path_match_policy").and_then(|pmp| {
        let cfg = proto::map(tree, pmp, "typed_config")?;
        proto::field_text(tree, cfg, "path_template")
    }) {
        PathMatch::Template(t.to_string())
    } else if proto::get(tree, m, "connect_matcher").is_some() {
        methods = Some(vec!["CONNECT".to_string()]);
        PathMatch::Any
    } else {
        PathMatch::Any
    };
    let mut partial = false;
    for &h in proto::items(tree, m, "headers") {
        match header_test(tree, h) {
            HeaderTest::Methods(ms) => {
                methods = Some(match methods {
                    None => ms,
                    Some(prev) => prev
                        .into_iter()
                        .filter(|p| ms.iter().any(|x| x.eq_ignore_ascii_case(p)))
                        .collect(),
                });
            }
            HeaderTest::Other => partial = true,
        }
    }
    for k in [
        "query_parameters",
        "grpc",
        "runtime_fraction",
        "dynamic_metadata",
        "tls_context",
        "filter_state",
        "cookies",
    ] {
        if proto::get(tree, m, k).is_some_and(|v| {
            !matches!(tree.kind(v), crate::source::tree::Kind::Seq) || !tree.items(v).is_empty()
        }) {
            partial = true;
        }
    }
    MatchRead {
        request: RequestMatch {
            path,
            methods,
            partial,
        },
        literal,
        problem,
    }
}

/// A path match that matches nothing (a route Envoy would reject).
fn never() -> PathMatch {
    PathMatch::Exact("\u{0}never".to_string())
}

/// The rewrite of a `RouteAction` as a [`Rewrite`], or a note on why it cannot be
/// inverted (then the route is bound as if there were none).
pub fn rewrite(
    tree: &Tree,
    action: NodeId,
    literal: Option<&(String, bool)>,
) -> (Option<Rewrite>, Option<(NodeId, String)>) {
    if let Some(node) = proto::get(tree, action, "prefix_rewrite") {
        let to = proto::text(tree, node).unwrap_or("").to_string();
        return match literal {
            Some((from, false)) => (
                Some(Rewrite::Prefix {
                    from: from.clone(),
                    to,
                }),
                None,
            ),
            Some((_, true)) => (Some(Rewrite::Full(to)), None),
            None => (None, Some((node, "`prefix_rewrite` on a route without a literal prefix or path: retrylint cannot invert it, so it matches operations by the path the proxy sees".to_string()))),
        };
    }
    if let Some(rr) = proto::map(tree, action, "regex_rewrite") {
        let pattern = proto::map(tree, rr, "pattern")
            .and_then(|p| proto::field_text(tree, p, "regex"))
            .unwrap_or("");
        let subst = proto::field_text(tree, rr, "substitution").unwrap_or("");
        return match literal_regex_prefix(pattern, subst) {
            Some((from, to)) => (Some(Rewrite::Prefix { from, to }), None),
            None => (None, Some((rr, format!("`regex_rewrite` `{pattern}` -> `{subst}` is not a literal prefix rewrite: retrylint cannot invert it, so it matches operations by the path the proxy sees")))),
        };
    }
    if let Some(p) = proto::get(tree, action, "path_rewrite_policy") {
        return (None, Some((p, "`path_rewrite_policy` (URI template rewrite) is not inverted yet: retrylint matches operations by the path the proxy sees".to_string())));
    }
    (None, None)
}

/// `^/literal` -> `/sub` and `^/literal/(.*)` -> `/sub/\1` as a prefix rewrite.
fn literal_regex_prefix(pattern: &str, subst: &str) -> Option<(String, String)> {
    let body = pattern.strip_prefix('^')?;
    let (lit, to) = if let Some(lit) = body
        .strip_suffix("(.*)$")
        .or_else(|| body.strip_suffix("(.*)"))
    {
        (lit, subst.strip_suffix("\\1")?)
    } else {
        (body, subst)
    };
    let is_literal = |s: &str| !s.chars().any(|c| "\\.^$|?*+()[]{}".contains(c));
    (is_literal(lit) && is_literal(to) && lit.starts_with('/'))
        .then(|| (lit.to_string(), to.to_string()))
}

/// True when a route with `a` before a route with `b` leaves `b` nothing to match
/// (first match wins, ENV-P): `a` tests no header or query, admits every method `b`
/// admits, and its path covers `b`'s.
pub fn shadows(a: &RequestMatch, b: &RequestMatch) -> bool {
    if a.partial {
        return false;
    }
    match (&a.methods, &b.methods) {
        (None, _) => {}
        (Some(_), None) => return false,
        (Some(am), Some(bm)) => {
            if !bm
                .iter()
                .all(|m| am.iter().any(|x| x.eq_ignore_ascii_case(m)))
            {
                return false;
            }
        }
    }
    let lit = |p: &PathMatch| -> Option<String> {
        match p {
            PathMatch::Exact(s) | PathMatch::Prefix(s) | PathMatch::SegmentPrefix(s) => {
                Some(s.clone())
            }
            PathMatch::Template(t) => Some(t.split(['{', '*']).next().unwrap_or("").to_string()),
            PathMatch::Any
            | PathMatch::Regex(_)
            | PathMatch::OperationId(_)
            | PathMatch::Tag(_) => None,
        }
    };
    match &a.path {
        PathMatch::Any => true,
        PathMatch::Prefix(p) => match &b.path {
            PathMatch::Any | PathMatch::Regex(_) => p.is_empty() || p == "/",
            other => lit(other).is_some_and(|q| q.starts_with(p.as_str())),
        },
        PathMatch::Exact(p) => matches!(&b.path, PathMatch::Exact(q) if q == p),
        PathMatch::SegmentPrefix(p) => {
            let p = p.trim_end_matches('/');
            match &b.path {
                PathMatch::Exact(q) | PathMatch::SegmentPrefix(q) => {
                    p.is_empty() || q == p || q.starts_with(&format!("{p}/"))
                }
                PathMatch::Prefix(q) => !p.is_empty() && q.starts_with(&format!("{p}/")),
                _ => p.is_empty(),
            }
        }
        PathMatch::Regex(_)
        | PathMatch::Template(_)
        | PathMatch::OperationId(_)
        | PathMatch::Tag(_) => false,
    }
}

/// The routes seen so far in a virtual host, indexed so that finding the first one
/// that [`shadows`] a new route costs a lookup per character of the new route's
/// literal path, not a comparison with every earlier route (tables of tens of
/// thousands of routes exist). Only a route matching every path, or one whose path
/// string is a prefix of the new route's literal, can shadow it.
#[derive(Debug, Default)]
pub struct ShadowIndex {
    routes: Vec<(RequestMatch, String)>,
    by_key: std::collections::HashMap<String, Vec<usize>>,
    any: Vec<usize>,
}

impl ShadowIndex {
    /// Records a route (in table order) with its label.
    pub fn push(&mut self, m: RequestMatch, label: String) {
        let i = self.routes.len();
        match &m.path {
            PathMatch::Any => self.any.push(i),
            PathMatch::Exact(p) | PathMatch::Prefix(p) => {
                self.by_key.entry(p.clone()).or_default().push(i)
            }
            PathMatch::SegmentPrefix(p) => self
                .by_key
                .entry(p.trim_end_matches('/').to_string())
                .or_default()
                .push(i),
            // A regex or template never shadows (see `shadows`).
            PathMatch::Regex(_)
            | PathMatch::Template(_)
            | PathMatch::OperationId(_)
            | PathMatch::Tag(_) => {}
        }
        self.routes.push((m, label));
    }

    /// The label of the first earlier route that shadows `b`.
    pub fn first_shadowing(&self, b: &RequestMatch) -> Option<&String> {
        let literal: &str = match &b.path {
            PathMatch::Exact(s) | PathMatch::Prefix(s) | PathMatch::SegmentPrefix(s) => s,
            PathMatch::Template(t) => t.split(['{', '*']).next().unwrap_or(""),
            PathMatch::Any
            | PathMatch::Regex(_)
            | PathMatch::OperationId(_)
            | PathMatch::Tag(_) => "",
        };
        let mut candidates: Vec<usize> = self.any.clone();
        let mut keys: Vec<&str> = literal
            .char_indices()
            .map(|(i, _)| &literal[..i])
            .chain(std::iter::once(literal))
            .collect();
        keys.push("/");
        for k in keys {
            if let Some(list) = self.by_key.get(k) {
                candidates.extend(list);
            }
        }
        candidates.sort_unstable();
        candidates.dedup();
        candidates
            .into_iter()
            .find(|&i| shadows(&self.routes[i].0, b))
            .map(|i| &self.routes[i].1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn tree(text: &str) -> Tree {
        Tree::parse(Arc::from(text)).unwrap()
    }

    #[test]
    fn method_matchers() {
        let t = tree("- {name: ':method', exact_match: POST}\n- {name: ':method', stringMatch: {safeRegex: {regex: 'GET|HEAD'}}}\n- {name: ':method', string_match: {exact: PUT}, invert_match: true}\n- {name: x-retry, present_match: true}\n");
        let items = t.items(t.root().unwrap()).to_vec();
        assert_eq!(
            header_test(&t, items[0]),
            HeaderTest::Methods(vec!["POST".into()])
        );
        assert_eq!(
            header_test(&t, items[1]),
            HeaderTest::Methods(vec!["GET".into(), "HEAD".into()])
        );
        let HeaderTest::Methods(not_put) = header_test(&t, items[2]) else {
            panic!("a method test")
        };
        assert!(!not_put.contains(&"PUT".to_string()) && not_put.contains(&"POST".to_string()));
        assert_eq!(header_test(&t, items[3]), HeaderTest::Other);
    }

    #[test]
    fn regex_rewrites_that_are_prefixes() {
        assert_eq!(
            literal_regex_prefix("^/api/(.*)", "/\\1"),
            Some(("/api/".into(), "/".into()))
        );
        assert_eq!(
            literal_regex_prefix("^/v1", "/v2"),
            Some(("/v1".into(), "/v2".into()))
        );
        assert_eq!(literal_regex_prefix("/v1/.+", "/x"), None);
    }

    #[test]
    fn a_catch_all_shadows_later_routes() {
        let any = RequestMatch::path(PathMatch::Prefix("/".into()));
        let items = RequestMatch::path(PathMatch::Exact("/items".into()));
        assert!(shadows(&any, &items));
        assert!(!shadows(&items, &any));
        let seg = RequestMatch::path(PathMatch::SegmentPrefix("/api".into()));
        assert!(shadows(
            &seg,
            &RequestMatch::path(PathMatch::Prefix("/api/v1".into()))
        ));
        assert!(!shadows(
            &seg,
            &RequestMatch::path(PathMatch::Prefix("/apix".into()))
        ));
        let mut partial = any.clone();
        partial.partial = true;
        assert!(!shadows(&partial, &items));
    }
}
