//! Route matching shared by every importer: which requests a route may match (path
//! exact, string prefix, segment prefix, full-match regex, URI template; methods),
//! and the rewrite a proxy applies before the request reaches the backend.
//!
//! The spec describes the backend, so an operation `METHOD /backend/path` is matched
//! by inverting the rewrite to get the path the proxy sees, then testing the route's
//! matches on it (`layers.md` "Binding" 2 and 3). An OpenAPI path parameter stands
//! for one non-empty segment without `/`; a route *may* match when some value of the
//! parameters makes it match, which is enough for safety findings.

use regex_automata::nfa::thompson::{self, pikevm::PikeVM, WhichCaptures};
use std::sync::Arc;

/// How a route matches the request path.
#[derive(Debug, Clone)]
pub enum PathMatch {
    /// Every path.
    Any,
    /// The path equals this (query stripped).
    Exact(String),
    /// The path starts with this string (`/order` matches `/orders`: Istio `prefix`,
    /// Envoy `prefix`, Kong paths, nginx `location` prefixes).
    Prefix(String),
    /// Element-wise prefix (`/abc` matches `/abc` and `/abc/def`, not `/abcd`):
    /// Gateway API `PathPrefix`, Kubernetes Ingress `Prefix`, Envoy
    /// `path_separated_prefix`.
    SegmentPrefix(String),
    /// A regular expression that must match the whole path (RE2 as Envoy anchors it;
    /// Linkerd `pathRegex` is anchored too). An invalid one matches nothing (the
    /// importer reports it).
    Regex(PathRegex),
    /// A URI template (`/users/{id}`, Envoy `{name=*}`/`{name=**}`): `{x}` and `*`
    /// match one segment, `**` and `{x=**}` the rest.
    Template(String),
    /// The operation whose `operationId` equals this (a trailing `*` matches any
    /// rest: `Payments_*`). Client configs name operations, not paths: a
    /// Resilience4j instance, a gRPC method bound through generated OpenAPI. Never
    /// matches a path: [`crate::import::bind`] tests it against the operation.
    OperationId(String),
    /// The operations tagged with this tag (OpenAPI `tags`); like
    /// [`PathMatch::OperationId`], tested against the operation.
    Tag(String),
}

/// One request match: a path match AND a method set; `partial` when the platform
/// also tests headers or query parameters (then the route only *may* match).
#[derive(Debug, Clone)]
pub struct RequestMatch {
    /// The path match.
    pub path: PathMatch,
    /// Upper-case methods; `None`: every method.
    pub methods: Option<Vec<String>>,
    /// True when other conditions (headers, query) also decide.
    pub partial: bool,
}

impl RequestMatch {
    /// A match of every request.
    pub fn any() -> RequestMatch {
        RequestMatch {
            path: PathMatch::Any,
            methods: None,
            partial: false,
        }
    }

    /// A path match for every method.
    pub fn path(path: PathMatch) -> RequestMatch {
        RequestMatch {
            path,
            methods: None,
            partial: false,
        }
    }
}

/// A rewrite of the request path before it reaches the backend.
#[derive(Debug, Clone)]
pub enum Rewrite {
    /// The matched prefix `from` is replaced by `to` (Envoy `prefix_rewrite`, Istio
    /// `rewrite.uri` on a prefix match, Gateway API `ReplacePrefixMatch`, nginx
    /// `proxy_pass` with a URI part, Kong `strip_path` with `to` empty).
    Prefix {
        /// What the proxy sees.
        from: String,
        /// What the backend sees instead.
        to: String,
    },
    /// The whole path is replaced (Gateway API `ReplaceFullPath`, Istio `rewrite.uri`
    /// on an exact match; Spring Cloud Gateway `SetPath`, whose `{name}` segments
    /// take the request's path variables).
    Full(String),
    /// A prefix is added in front of the path (Spring Cloud Gateway `PrefixPath`).
    AddPrefix(String),
    /// The first n path segments are removed, whatever they are (Spring Cloud Gateway
    /// `StripPrefix=n` when the route's path does not spell those segments out).
    StripSegments(usize),
    /// Several rewrites applied in order, the first to the path the proxy sees
    /// (Spring Cloud Gateway's default filters and route filters together).
    Chain(Vec<Rewrite>),
}

/// Sample values tried for a path parameter when testing whether a route may match.
const SAMPLES: &[&str] = &["1", "x", "00000000-0000-0000-0000-000000000000", "a-b_c.d"];

/// The concrete paths the proxy may see for the backend path template `template`
/// (an OpenAPI path, `/users/{id}`), after inverting `rewrite` and prefixing
/// `base_path`; empty when the rewrite can never produce that backend path.
pub fn proxy_paths(template: &str, base_path: &str, rewrite: Option<&Rewrite>) -> Vec<String> {
    let backend = join_base(base_path, template);
    let seen = match rewrite {
        None => Some(backend),
        Some(rw) => invert(rw, backend),
    };
    match seen {
        None => Vec::new(),
        Some(s) if s == ANY => vec![String::from(ANY)],
        Some(s) => instantiate(&s),
    }
}

/// Stands for "any path the proxy may see" once a rewrite forgets the request path.
const ANY: &str = "\u{0}any";

/// The path (template) the proxy sees for the backend path `backend`, undoing
/// `rewrite`; `None` when the rewrite never produces it.
fn invert(rewrite: &Rewrite, backend: String) -> Option<String> {
    if backend == ANY {
        return Some(backend);
    }
    match rewrite {
        Rewrite::Prefix { from, to } => {
            let to_trimmed = to.trim_end_matches('/');
            if to.is_empty() || to == "/" {
                Some(join_base(from, &backend))
            } else if backend == to_trimmed || backend.starts_with(&format!("{to_trimmed}/")) {
                Some(join_base(from, &backend[to_trimmed.len()..]))
            } else if backend.starts_with(to.as_str()) {
                Some(format!("{from}{}", &backend[to.len()..]))
            } else {
                None
            }
        }
        Rewrite::Full(path) => {
            // Any request path may be rewritten to `path`: the route matches if the
            // backend path is that one, whatever was asked.
            // A path built from the request's variables (Spring `SetPath=/{segment}`)
            // is a template.
            (instantiate(&backend)
                .iter()
                .any(|b| b == path || (path.contains('{') && template_matches(path, b))))
            .then(|| ANY.to_string())
        }
        Rewrite::AddPrefix(prefix) => {
            let rest = strip_segment_prefix(&backend, prefix.trim_end_matches('/'))?;
            Some(if rest.is_empty() {
                "/".to_string()
            } else {
                rest
            })
        }
        Rewrite::StripSegments(n) => {
            // One sample segment per stripped one (`{stripped}` becomes a sample
            // value, as a path parameter does).
            let mut out = String::new();
            for _ in 0..*n {
                out.push_str("/{stripped}");
            }
            Some(if backend == "/" && *n > 0 {
                out
            } else {
                format!("{out}{backend}")
            })
        }
        Rewrite::Chain(list) => list
            .iter()
            .rev()
            .try_fold(backend, |path, rw| invert(rw, path)),
    }
}

/// What follows `prefix` in `path`, compared segment by segment, where a
/// `{stripped}` segment of `path` (left by inverting a `StripSegments`) stands for
/// any one segment; `None` when `path` does not start with `prefix`.
fn strip_segment_prefix(path: &str, prefix: &str) -> Option<String> {
    if prefix.is_empty() {
        return Some(path.to_string());
    }
    let mut rest = path;
    for seg in prefix.trim_start_matches('/').split('/') {
        let r = rest.strip_prefix('/')?;
        let (head, tail) = r.find('/').map_or((r, ""), |i| (&r[..i], &r[i..]));
        if head != seg && head != "{stripped}" {
            return None;
        }
        rest = tail;
    }
    Some(rest.to_string())
}

/// `base` + `path` with exactly one `/` between them.
fn join_base(base: &str, path: &str) -> String {
    let b = base.trim_end_matches('/');
    if b.is_empty() {
        if path.is_empty() {
            "/".to_string()
        } else {
            path.to_string()
        }
    } else if path.is_empty() || path == "/" {
        b.to_string()
    } else if path.starts_with('/') {
        format!("{b}{path}")
    } else {
        format!("{b}/{path}")
    }
}

/// The template with every `{param}` replaced by each sample value (the same sample
/// for every parameter, which is enough for "may match").
fn instantiate(template: &str) -> Vec<String> {
    if !template.contains('{') {
        return vec![template.to_string()];
    }
    SAMPLES
        .iter()
        .map(|sample| {
            let mut out = String::with_capacity(template.len());
            let mut rest = template;
            while let Some(open) = rest.find('{') {
                out.push_str(&rest[..open]);
                match rest[open..].find('}') {
                    Some(close) => {
                        out.push_str(sample);
                        rest = &rest[open + close + 1..];
                    }
                    None => {
                        out.push_str(&rest[open..]);
                        rest = "";
                    }
                }
            }
            out.push_str(rest);
            out
        })
        .collect()
}

impl PathMatch {
    /// True when the concrete path `path` matches.
    pub fn matches(&self, path: &str) -> bool {
        if path == ANY {
            return true;
        }
        match self {
            PathMatch::Any => true,
            PathMatch::Exact(p) => path == p,
            PathMatch::Prefix(p) => path.starts_with(p.as_str()),
            PathMatch::SegmentPrefix(p) => {
                let p = p.trim_end_matches('/');
                p.is_empty() || path == p || path.starts_with(&format!("{p}/"))
            }
            PathMatch::Regex(re) => re.is_match(path),
            PathMatch::Template(t) => template_matches(t, path),
            PathMatch::OperationId(_) | PathMatch::Tag(_) => false,
        }
    }
}

impl PathMatch {
    /// True when the concrete path `path` matches with literal text compared in any
    /// case (a server whose routing ignores case, `PathMatching::any_case`).
    pub fn matches_any_case(&self, path: &str) -> bool {
        if self.matches(path) {
            return true;
        }
        let lower = path.to_ascii_lowercase();
        match self {
            PathMatch::Exact(p) => p.to_ascii_lowercase() == lower,
            PathMatch::Prefix(p) => lower.starts_with(&p.to_ascii_lowercase()),
            PathMatch::SegmentPrefix(p) => {
                PathMatch::SegmentPrefix(p.to_ascii_lowercase()).matches(&lower)
            }
            PathMatch::Template(t) => template_matches(&t.to_ascii_lowercase(), &lower),
            // Compiled again, case-insensitive, only when case could matter.
            PathMatch::Regex(re) => {
                (re.as_str().bytes().any(|b| b.is_ascii_uppercase())
                    || path.bytes().any(|b| b.is_ascii_uppercase()))
                    && PathRegex::new(&format!("(?i:{})", re.as_str()))
                        .is_ok_and(|ci| ci.is_match(path))
            }
            PathMatch::Any | PathMatch::OperationId(_) | PathMatch::Tag(_) => false,
        }
    }
}

/// The match of a concrete request path a client sends (`/orders/7`): it reaches
/// the operations whose template may produce it, so each of its segments also
/// matches a parameter of a template (tested on the instantiated template, where a
/// parameter is one of the sample values). A regular expression over the
/// instantiated paths.
pub fn request_path(path: &str) -> PathMatch {
    let mut pattern = String::new();
    for seg in path.trim_start_matches('/').split('/') {
        pattern.push('/');
        // An empty segment (a trailing `/`) is only itself, never a parameter.
        if seg.is_empty() {
            continue;
        }
        let samples: Vec<String> = SAMPLES.iter().map(|s| regex::escape(s)).collect();
        pattern.push_str(&format!("(?:{}|{})", regex::escape(seg), samples.join("|")));
    }
    match full_match_regex(&pattern) {
        Ok(re) => PathMatch::Regex(re),
        Err(_) => PathMatch::Exact(path.to_string()),
    }
}

/// A full-match regex from `pattern` (anchored: `^(?:pattern)$`); `Err` with the
/// regex engine's message when it does not compile.
pub fn full_match_regex(pattern: &str) -> Result<PathRegex, String> {
    PathRegex::new(&format!("^(?:{pattern})$"))
}

/// A regular expression a route tests request paths with: the syntax, Unicode
/// semantics, size limit and error messages of `regex::Regex`, compiled to the one
/// engine a yes/no test of a short path needs (the PikeVM of `regex-automata`,
/// which `regex` is made of), with no capture group but the match itself. A
/// `regex::Regex` also builds a one-pass DFA for an anchored expression, a bounded
/// backtracker, prefilters and lazy-DFA caches on its first search, about 33 KB per
/// expression; a PikeVM is about 1.2 KB.
///
/// Even that is kept only while it is used: [`PathRegex::new`] checks the
/// expression (a parse, or a compile where size may be at stake), [`PathRegex::is_match`] compiles it
/// again on first use and keeps it, and [`PathRegex::release`] drops it when the
/// routes' binding is done. A generated nginx.conf of 20,000 regex `location`s
/// held 24 MB of compiled expressions for the whole run, a quarter of its memory
/// (cases 83 and issue 43: memory per byte of a text config); binding compiles the
/// expressions of one route table at a time. Clones share the expression and its
/// compiled form (a route copied per method group compiles once).
#[derive(Clone)]
pub struct PathRegex(Arc<Compiled>);

/// The expression of a [`PathRegex`] and its clones, and its compiled form while it
/// is kept.
struct Compiled {
    /// The expression as written.
    pattern: Box<str>,
    /// The compiled expression while it is in use.
    vm: std::sync::Mutex<Kept>,
}

/// What a [`PathRegex`] keeps of its compiled form.
enum Kept {
    /// Nothing: before the first match, and after [`PathRegex::release`].
    Nothing,
    /// The compiled expression.
    Compiled(Arc<PikeVM>),
    /// It did not compile (kept through a release, so it is never tried again).
    Failed,
}

impl PathRegex {
    /// Checks `pattern`; `Err` with the message `regex::Regex::new` gives for it
    /// (a syntax error, or the compiled expression over its 10 MiB size limit).
    pub fn new(pattern: &str) -> Result<PathRegex, String> {
        match check(pattern) {
            Ok(()) => Ok(PathRegex(Arc::new(Compiled {
                pattern: pattern.into(),
                vm: std::sync::Mutex::new(Kept::Nothing),
            }))),
            // The message as `regex` words it (it parses with the same settings).
            Err(e) => {
                Err(regex::Regex::new(pattern).map_or_else(|e| e.to_string(), |_| e.to_string()))
            }
        }
    }

    /// True when the expression matches somewhere in `text` (unanchored unless the
    /// expression anchors itself). Compiles the expression when it is not kept, and
    /// keeps it until [`PathRegex::release`]. The search state is made per call: a
    /// few hundred bytes, not kept by every route.
    pub fn is_match(&self, text: &str) -> bool {
        let vm = {
            let mut kept = self.0.vm.lock().unwrap_or_else(|p| p.into_inner());
            match &*kept {
                Kept::Compiled(vm) => vm.clone(),
                Kept::Failed => return false,
                Kept::Nothing => match compile(&self.0.pattern) {
                    Ok(vm) => {
                        let vm = Arc::new(vm);
                        *kept = Kept::Compiled(vm.clone());
                        vm
                    }
                    // `new` checked the expression, so this is not expected; it
                    // matches nothing then, and is not compiled again.
                    Err(_) => {
                        *kept = Kept::Failed;
                        return false;
                    }
                },
            }
        };
        let mut cache = vm.create_cache();
        vm.is_match(&mut cache, text)
    }

    /// Drops the compiled expression; the next [`PathRegex::is_match`] compiles it
    /// again.
    pub fn release(&self) {
        let mut kept = self.0.vm.lock().unwrap_or_else(|p| p.into_inner());
        if matches!(*kept, Kept::Compiled(_)) {
            *kept = Kept::Nothing;
        }
    }

    /// The expression as written.
    pub fn as_str(&self) -> &str {
        &self.0.pattern
    }
}

/// Whether `pattern` compiles with the settings of `regex::Regex`. Parsing it is
/// enough unless it may be over the size limit: a seventh of the cost of compiling
/// it, and it is compiled again when it is first matched. Only a counted repetition
/// (`x{1000}`) or a long expression can make an NFA of 10 MiB; an expression with a
/// brace or over 256 bytes is compiled here to know.
fn check(pattern: &str) -> Result<(), String> {
    // Any `{`: a counted repetition may be spelled with spaces or escapes inside
    // (`x{ 1000}`, an HAProxy `\ `), and a literal brace is rare in a path.
    if pattern.contains('{') || pattern.len() > 256 {
        return compile(pattern).map(drop);
    }
    regex_automata::util::syntax::parse_with(
        pattern,
        &regex_automata::util::syntax::Config::new().utf8(true),
    )
    .map(drop)
    .map_err(|e| e.to_string())
}

/// The PikeVM of `pattern` with the settings of `regex::Regex`.
fn compile(pattern: &str) -> Result<PikeVM, String> {
    PikeVM::builder()
        .syntax(regex_automata::util::syntax::Config::new().utf8(true))
        .thompson(
            thompson::Config::new()
                .nfa_size_limit(Some(10 * (1 << 20)))
                .which_captures(WhichCaptures::Implicit),
        )
        .build(pattern)
        .map_err(|e| e.to_string())
}

/// As `regex::Regex` shows itself: `Regex("pattern")` (snapshots of imported routes
/// print it).
impl std::fmt::Debug for PathRegex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Regex").field(&self.as_str()).finish()
    }
}

fn template_matches(template: &str, path: &str) -> bool {
    let t: Vec<&str> = template.trim_start_matches('/').split('/').collect();
    let p: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let mut i = 0;
    for (k, seg) in t.iter().enumerate() {
        let rest = *seg == "**" || seg.ends_with("=**}");
        if rest {
            return k == t.len() - 1 || p.len() >= t.len() - 1;
        }
        let Some(actual) = p.get(i) else {
            return false;
        };
        let wildcard = *seg == "*" || (seg.starts_with('{') && seg.ends_with('}'));
        if wildcard {
            if actual.is_empty() {
                return false;
            }
        } else if seg != actual {
            return false;
        }
        i += 1;
    }
    i == p.len()
}

impl PathMatch {
    /// For [`PathMatch::OperationId`] and [`PathMatch::Tag`]: whether they name the
    /// operation with `operation_id` and `tags`; `None` for path matches.
    pub fn names_operation(&self, operation_id: Option<&str>, tags: &[String]) -> Option<bool> {
        match self {
            PathMatch::OperationId(want) => {
                Some(operation_id.is_some_and(|id| match want.strip_suffix('*') {
                    Some(prefix) => id.starts_with(prefix),
                    None => id == want,
                }))
            }
            PathMatch::Tag(want) => Some(tags.iter().any(|t| t == want)),
            _ => None,
        }
    }
}

impl RequestMatch {
    /// [`RequestMatch::may_match`] on paths already computed by [`proxy_paths`].
    pub fn may_match_paths(&self, method: &str, paths: &[String]) -> bool {
        if let Some(methods) = &self.methods {
            if !methods.iter().any(|m| m.eq_ignore_ascii_case(method)) {
                return false;
            }
        }
        paths.iter().any(|p| self.path.matches(p))
    }

    /// True when a request `method` to the backend path template `template` may be
    /// matched, with the proxy seeing `base_path` in front and `rewrite` applied.
    pub fn may_match(
        &self,
        method: &str,
        template: &str,
        base_path: &str,
        rewrite: Option<&Rewrite>,
    ) -> bool {
        if let Some(methods) = &self.methods {
            if !methods.iter().any(|m| m.eq_ignore_ascii_case(method)) {
                return false;
            }
        }
        proxy_paths(template, base_path, rewrite)
            .iter()
            .any(|p| self.path.matches(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_released_expression_compiles_again_and_clones_share_it() {
        let re = PathRegex::new("^/orders/[0-9]+$").unwrap();
        let copy = re.clone();
        assert!(re.is_match("/orders/12"));
        assert!(!re.is_match("/orders/x"));
        re.release();
        // Released for every clone; each compiles it again when it next matches.
        assert!(copy.is_match("/orders/7"));
        assert!(!copy.is_match("/orders/"));
        assert_eq!(copy.as_str(), "^/orders/[0-9]+$");
    }

    #[test]
    fn an_expression_over_the_size_limit_is_refused_when_checked() {
        // A parse alone accepts it; the counted repetition makes `new` compile it.
        let err = PathRegex::new(r"\w{1000}{1000}").err().unwrap();
        assert!(err.contains("size limit"), "{err}");
        // Spaces inside the braces are the same repetition (the newcomer's case).
        let err = PathRegex::new(r"/api/orders/\w{ 1000}{ 1000}")
            .err()
            .unwrap();
        assert!(err.contains("size limit"), "{err}");
        let err = PathRegex::new("/orders/(").err().unwrap();
        assert!(err.contains("unclosed group"), "{err}");
    }

    #[test]
    fn a_trailing_slash_is_significant() {
        let seen = |t: &str| proxy_paths(t, "", None);
        let slash = request_path("/api/ipam/ip-addresses/");
        assert!(seen("/api/ipam/ip-addresses/")
            .iter()
            .any(|p| slash.matches(p)));
        assert!(!seen("/api/ipam/ip-addresses")
            .iter()
            .any(|p| slash.matches(p)));
        // `/orders/` is not `/orders/{id}` with an empty id.
        assert!(!seen("/orders/{id}").iter().any(|p| slash.matches(p)));
        let bare = request_path("/api/ipam/ip-addresses");
        assert!(!seen("/api/ipam/ip-addresses/")
            .iter()
            .any(|p| bare.matches(p)));
        assert!(request_path("/").matches("/"));
    }

    #[test]
    fn any_case_matching_folds_literal_text_only_when_asked() {
        let m = request_path("/api/Orders/");
        let seen = proxy_paths("/api/orders/", "", None);
        assert!(!seen.iter().any(|p| m.matches(p)));
        assert!(seen.iter().any(|p| m.matches_any_case(p)));
        assert!(!proxy_paths("/api/webhooks/", "", None)
            .iter()
            .any(|p| m.matches_any_case(p)));
        assert!(PathMatch::Exact("/A".into()).matches_any_case("/a"));
        assert!(PathMatch::Template("/Orders/{id}".into()).matches_any_case("/orders/7"));
    }

    #[test]
    fn a_request_path_reaches_the_templates_that_produce_it() {
        let m = request_path("/orders/7");
        let seen = |t: &str| proxy_paths(t, "", None);
        assert!(seen("/orders/{id}").iter().any(|p| m.matches(p)));
        assert!(!seen("/orders").iter().any(|p| m.matches(p)));
        assert!(!seen("/payments/{id}").iter().any(|p| m.matches(p)));
        assert!(seen("/orders/7").iter().any(|p| m.matches(p)));
        let abc = request_path("/orders/abc");
        assert!(seen("/orders/{id}").iter().any(|p| abc.matches(p)));
        assert!(!seen("/orders/def").iter().any(|p| abc.matches(p)));
    }

    #[test]
    fn prefix_is_a_string_prefix_and_segment_prefix_is_element_wise() {
        assert!(PathMatch::Prefix("/order".into()).matches("/orders"));
        let tags = vec!["orders".to_string()];
        let id = PathMatch::OperationId("Payments_*".into());
        assert_eq!(id.names_operation(Some("Payments_Create"), &[]), Some(true));
        assert_eq!(id.names_operation(Some("Orders_Create"), &[]), Some(false));
        assert_eq!(id.names_operation(None, &[]), Some(false));
        let exact = PathMatch::OperationId("createOrder".into());
        assert_eq!(
            exact.names_operation(Some("createOrders"), &[]),
            Some(false)
        );
        assert_eq!(
            PathMatch::Tag("orders".into()).names_operation(None, &tags),
            Some(true)
        );
        assert_eq!(
            PathMatch::Exact("/x".into()).names_operation(Some("x"), &tags),
            None
        );
        assert!(!PathMatch::Tag("orders".into()).matches("/orders"));
        assert!(!PathMatch::SegmentPrefix("/order".into()).matches("/orders"));
        assert!(PathMatch::SegmentPrefix("/order".into()).matches("/order/1"));
        assert!(PathMatch::SegmentPrefix("/".into()).matches("/anything"));
    }

    #[test]
    fn a_parameter_may_match_a_digit_regex() {
        let m = RequestMatch::path(PathMatch::Regex(
            full_match_regex(r"/users/id/\d+").unwrap(),
        ));
        assert!(m.may_match("GET", "/users/id/{id}", "", None));
        assert!(!m.may_match("GET", "/users", "", None));
    }

    #[test]
    fn rewrites_are_inverted() {
        let strip = Rewrite::Prefix {
            from: "/mock".into(),
            to: String::new(),
        };
        let m = RequestMatch::path(PathMatch::Prefix("/mock".into()));
        assert!(m.may_match("POST", "/records", "", Some(&strip)));
        let add = Rewrite::AddPrefix("/httpbin".into());
        let m = RequestMatch::path(PathMatch::Exact("/retry".into()));
        assert!(m.may_match("GET", "/httpbin/retry", "", Some(&add)));
        assert!(!m.may_match("GET", "/retry", "", Some(&add)));
    }

    #[test]
    fn strip_segments_and_chains_are_inverted() {
        // StripPrefix=1 behind `/{service}/**`: the proxy sees one more segment.
        let m = RequestMatch::path(PathMatch::Template("/{service}/**".into()));
        assert!(m.may_match("GET", "/orders", "", Some(&Rewrite::StripSegments(1))));
        assert!(
            !RequestMatch::path(PathMatch::Exact("/orders".into())).may_match(
                "GET",
                "/orders",
                "",
                Some(&Rewrite::StripSegments(1))
            )
        );
        // PrefixPath=/httpbin, then StripPrefix=1: `/api/retry` -> `/httpbin/api/retry`
        // -> `/api/retry`.
        let chain = Rewrite::Chain(vec![
            Rewrite::AddPrefix("/httpbin".into()),
            Rewrite::StripSegments(1),
        ]);
        let m = RequestMatch::path(PathMatch::Exact("/api/retry".into()));
        assert!(m.may_match("GET", "/api/retry", "", Some(&chain)));
        assert!(!m.may_match("GET", "/retry", "", Some(&chain)));
    }

    #[test]
    fn templates_match_segments() {
        assert!(template_matches("/v1/{name=**}", "/v1/a/b"));
        assert!(template_matches("/users/{id}", "/users/7"));
        assert!(!template_matches("/users/{id}", "/users/7/x"));
    }
}
