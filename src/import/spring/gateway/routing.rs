//! Which requests a Spring Cloud Gateway route takes and what path its backend sees
//! (`retry-configs.md` §7.2 "Route matching"; SCG `PathRoutePredicateFactory`,
//! `HostRoutePredicateFactory`, `MethodRoutePredicateFactory`, and the path filters
//! `StripPrefix`, `PrefixPath`, `RewritePath`, `SetPath`).
//!
//! - `Path=` takes Spring `PathPattern`s, OR'ed: `{name}` is one non-empty segment,
//!   `{name:regex}` one segment matching the regex, `*` any characters inside a
//!   segment, `?` one character, `**` or `{*name}` at the end any number of
//!   segments (none included). A pattern becomes a full-match regex.
//! - `Method=` lists methods (several `Method=` predicates are AND'ed).
//! - `Host=` takes Ant-style host patterns with `.` as separator: `**.example.org`
//!   and `{sub}.example.org` become the name `*.example.org` for binding; a route
//!   whose hosts name another API than the spec binds to nothing (case README Q1).
//! - Other predicates (`Header`, `Query`, `Cookie`, `After`, `Weight`, ...) make the
//!   match partial: the route only may match.
//! - Path filters, in the gateway's filter order, become one [`Rewrite`]:
//!   `StripPrefix=n` removes n segments (the literal ones the `Path` pattern spells
//!   out, else any), `PrefixPath=/p` adds a prefix, `RewritePath=regex, replacement`
//!   is read when it replaces a literal prefix (`/red/?(?<segment>.*), /$\{segment}`)
//!   and makes the match partial otherwise, `SetPath=/x` replaces the whole path.

use super::defs::{Arg, Definition};
use crate::import::route::{full_match_regex, PathMatch, Rewrite};
use crate::source::tree::NodeId;

/// What a route's predicates say.
#[derive(Debug, Clone, Default)]
pub struct Predicates {
    /// `Path` patterns as written (OR'ed); empty: every path.
    pub paths: Vec<String>,
    /// `Method` methods, upper case (`None`: every method).
    pub methods: Option<Vec<String>>,
    /// `Host` patterns with their nodes.
    pub hosts: Vec<(String, NodeId)>,
    /// Names of predicates that also decide (headers, query, time, weight ...).
    pub other: Vec<String>,
}

const PATH_ORDER: &[&str] = &["patterns", "matchTrailingSlash"];

/// Values of a GATHER_LIST predicate (`Host`, `Method`, `Path`): every positional
/// argument, and the list under `field` or its older singular name (`pattern`,
/// `method` in Spring Cloud Gateway 2.x).
fn gathered(def: &Definition, field: &str) -> Vec<(String, NodeId)> {
    let singular = field.strip_suffix('s').unwrap_or(field);
    let mut out = Vec::new();
    for a in &def.args {
        match &a.key {
            None => out.extend(a.list()),
            Some(k)
                if super::defs::relaxed_key_eq(k, field)
                    || super::defs::relaxed_key_eq(k, singular) =>
            {
                out.extend(a.list())
            }
            Some(_) => {}
        }
    }
    out
}

/// Reads a route's predicates.
pub fn predicates(defs: &[Definition]) -> Predicates {
    let mut p = Predicates::default();
    for d in defs {
        match d.name.as_str() {
            "Path" => {
                let mut values = gathered(d, PATH_ORDER[0]);
                // GATHER_LIST_TAIL_FLAG: a trailing true/false is `matchTrailingSlash`.
                if values.last().is_some_and(|(v, _)| {
                    v.eq_ignore_ascii_case("true") || v.eq_ignore_ascii_case("false")
                }) {
                    values.pop();
                }
                if !p.paths.is_empty() {
                    // Two `Path` predicates are AND'ed: keep the first, may match.
                    p.other.push("Path".to_string());
                    continue;
                }
                p.paths = values.into_iter().map(|(v, _)| v).collect();
            }
            "Method" => {
                let methods: Vec<String> = gathered(d, "methods")
                    .into_iter()
                    .map(|(m, _)| m.trim().to_ascii_uppercase())
                    .collect();
                p.methods = Some(match p.methods.take() {
                    None => methods,
                    Some(before) => before.into_iter().filter(|m| methods.contains(m)).collect(),
                });
            }
            "Host" => p.hosts.extend(gathered(d, "patterns")),
            other => p.other.push(other.to_string()),
        }
    }
    p
}

/// The binding name of a `Host` pattern: `**.example.org`, `*.example.org` and
/// `{sub}.example.org` give `*.example.org`; a literal host stays; a pattern that
/// matches every host gives none.
pub fn host_name(pattern: &str) -> Option<String> {
    let p = pattern.trim();
    let labels: Vec<&str> = p.split('.').collect();
    let wild = |l: &str| l.contains('*') || l.contains('{') || l.contains('?');
    if labels.iter().all(|l| !wild(l)) {
        return (!p.is_empty()).then(|| p.to_string());
    }
    let first_literal = labels.iter().position(|l| !wild(l))?;
    let rest = &labels[first_literal..];
    if first_literal == 0 || rest.iter().any(|l| wild(l)) {
        return None;
    }
    Some(format!("*.{}", rest.join(".")))
}

/// A Spring `PathPattern` as a [`PathMatch`]; `Err` with the reason when it cannot
/// be read (then the route may match any path).
pub fn path_match(pattern: &str) -> Result<PathMatch, String> {
    let p = pattern.trim();
    if !p.starts_with('/') {
        return Err(format!("`{p}` does not start with `/`"));
    }
    if !p.contains(['*', '{', '?']) {
        return Ok(PathMatch::Exact(p.to_string()));
    }
    let mut re = String::new();
    let segments: Vec<&str> = p[1..].split('/').collect();
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        if *seg == "**" || (seg.starts_with("{*") && seg.ends_with('}')) {
            re.push_str("(?:/.*)?");
            if !last {
                return Err(format!("`{seg}` is only allowed at the end of `{p}`"));
            }
            continue;
        }
        re.push('/');
        let mut chars = seg.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            match c {
                '{' => {
                    let close = seg[at..]
                        .find('}')
                        .ok_or_else(|| format!("unclosed `{{` in `{p}`"))?;
                    let inner = &seg[at + 1..at + close];
                    match inner.split_once(':') {
                        Some((_, rx)) => re.push_str(&format!("(?:{rx})")),
                        None => re.push_str("[^/]+"),
                    }
                    while chars.peek().is_some_and(|(j, _)| *j <= at + close) {
                        chars.next();
                    }
                }
                '*' => re.push_str("[^/]*"),
                '?' => re.push_str("[^/]"),
                other => re.push_str(&regex::escape(&other.to_string())),
            }
        }
    }
    full_match_regex(&re).map(PathMatch::Regex)
}

/// The literal segments a `Path` pattern starts with (`/api/v1/**` → `api`, `v1`).
fn literal_segments(pattern: &str) -> Vec<String> {
    pattern
        .trim_start_matches('/')
        .split('/')
        .take_while(|s| !s.is_empty() && !s.contains(['*', '{', '?']))
        .map(str::to_string)
        .collect()
}

/// A path filter read into a rewrite step; `partial` when retrylint had to guess.
#[derive(Debug, Clone)]
pub struct Step {
    /// The rewrite.
    pub rewrite: Rewrite,
    /// True when the step is only an approximation (the match becomes partial).
    pub partial: bool,
}

fn text_arg<'d>(d: &'d Definition, field: &str, order: &[&str]) -> Option<&'d str> {
    d.arg(field, order).and_then(Arg::text)
}

/// The rewrite step of a path filter, for a route whose `Path` pattern is `path`
/// (`None`: no `Path` predicate); `None` for a filter that does not touch the path.
pub fn step(d: &Definition, path: Option<&str>) -> Option<Step> {
    match d.name.as_str() {
        "StripPrefix" => {
            let parts = match text_arg(d, "parts", &["parts"]) {
                None => 1,
                Some(t) => t.trim().parse::<usize>().ok()?,
            };
            if parts == 0 {
                return None;
            }
            // More segments than any path has: bounded so inverting stays cheap.
            let parts = parts.min(64);
            let literal = path.map(literal_segments).unwrap_or_default();
            Some(if literal.len() >= parts {
                Step {
                    rewrite: Rewrite::Prefix {
                        from: format!("/{}", literal[..parts].join("/")),
                        to: String::new(),
                    },
                    partial: false,
                }
            } else {
                Step {
                    rewrite: Rewrite::StripSegments(parts),
                    partial: false,
                }
            })
        }
        "PrefixPath" => {
            let prefix = text_arg(d, "prefix", &["prefix"])?.trim();
            Some(Step {
                rewrite: Rewrite::AddPrefix(prefix.to_string()),
                partial: prefix.contains('{'),
            })
        }
        "RewritePath" => {
            let order = ["regexp", "replacement"];
            let regexp = text_arg(d, "regexp", &order)?.trim();
            let replacement = text_arg(d, "replacement", &order).unwrap_or("").trim();
            Some(rewrite_path(regexp, replacement))
        }
        "SetPath" => {
            let template = text_arg(d, "template", &["template"])?.trim();
            if template.contains('{') {
                // The new path is built from the request's path variables: any
                // request the predicates take may reach a backend path of that shape.
                Some(Step {
                    rewrite: Rewrite::Full(template.to_string()),
                    partial: true,
                })
            } else {
                Some(Step {
                    rewrite: Rewrite::Full(template.to_string()),
                    partial: false,
                })
            }
        }
        _ => None,
    }
}

/// `RewritePath=regexp, replacement` as a prefix replacement when the regex is a
/// literal prefix followed by one group that the replacement puts after its own
/// literal prefix (`/red/?(?<segment>.*)` → `/$\{segment}`).
fn rewrite_path(regexp: &str, replacement: &str) -> Step {
    let replacement = replacement.replace("$\\", "$");
    let body = regexp.trim_start_matches('^');
    let meta = |c: char| "()[]{}?*+.|\\$^".contains(c);
    let lit_end = body.find(meta).unwrap_or(body.len());
    let mut from = body[..lit_end].to_string();
    let after = &body[lit_end..];
    // `/red/?(...)`: the slash before `?` is optional.
    let after = match after.strip_prefix('?') {
        Some(rest) if from.ends_with('/') => {
            from.pop();
            rest
        }
        _ => after,
    };
    let to_end = replacement.find('$').unwrap_or(replacement.len());
    let to = replacement[..to_end].to_string();
    let one_group_to_end = after.starts_with('(')
        && after.ends_with(".*)")
        && after.matches('(').count() == 1
        && (replacement[to_end..].starts_with("${") && replacement.ends_with('}')
            || replacement[to_end..].len() == 2);
    Step {
        rewrite: Rewrite::Prefix { from, to },
        partial: !one_group_to_end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::tree::Tree;

    #[test]
    fn path_patterns() {
        let m = path_match("/api/**").unwrap();
        assert!(m.matches("/api"));
        assert!(m.matches("/api/a/b"));
        assert!(!m.matches("/apix"));
        let m = path_match("/red/{segment}").unwrap();
        assert!(m.matches("/red/1"));
        assert!(!m.matches("/red/1/2"));
        let m = path_match("/files/{*rest}").unwrap();
        assert!(m.matches("/files/a/b"));
        let m = path_match("/v?/item*").unwrap();
        assert!(m.matches("/v1/items"));
        let m = path_match("/id/{id:\\d+}").unwrap();
        assert!(m.matches("/id/42"));
        let t = Tree::parse(std::sync::Arc::from(
            "- name: Path\n  args:\n    pattern: /old/**\n",
        ))
        .unwrap();
        let item = t.items(t.root().unwrap())[0];
        let p = predicates(&[super::super::defs::read(&t, item).unwrap()]);
        assert_eq!(p.paths, ["/old/**"], "the 2.x singular `pattern`");
        let m = path_match("/id/{id:\\d+}").unwrap();
        assert!(m.matches("/id/42"));
        assert!(!m.matches("/id/x"));
        assert!(matches!(path_match("/retry").unwrap(), PathMatch::Exact(_)));
    }

    #[test]
    fn host_patterns_become_names() {
        assert_eq!(
            host_name("**.retrypostconfig.org").as_deref(),
            Some("*.retrypostconfig.org")
        );
        assert_eq!(
            host_name("{sub}.myhost.org").as_deref(),
            Some("*.myhost.org")
        );
        assert_eq!(
            host_name("api.example.org").as_deref(),
            Some("api.example.org")
        );
        assert_eq!(host_name("**"), None);
    }

    #[test]
    fn rewrite_path_prefix_forms() {
        let s = rewrite_path("/red/?(?<segment>.*)", "/$\\{segment}");
        assert!(!s.partial);
        assert!(matches!(&s.rewrite, Rewrite::Prefix { from, to } if from == "/red" && to == "/"));
        let s = rewrite_path("/service(?<segment>/?.*)", "$\\{segment}");
        assert!(!s.partial);
        assert!(
            matches!(&s.rewrite, Rewrite::Prefix { from, to } if from == "/service" && to.is_empty())
        );
        let s = rewrite_path("/(?<a>[^/]+)/x/(?<b>.*)", "/$\\{b}/$\\{a}");
        assert!(s.partial);
    }
}
