//! Traefik router rules (`Host(\`api.example.com\`) && PathPrefix(\`/api\`)`), read
//! well enough to bind a router to operations: the expression is turned into
//! OR'ed [`RequestMatch`]es (disjunctive normal form), and the `Host` names it tests
//! are collected for binding (`retry-configs.md` §9.2; Traefik
//! `pkg/muxer/http/matcher.go`).
//!
//! - `Path` is an exact match, `PathPrefix` a string prefix, `PathRegexp` an
//!   unanchored Go regexp (so it may match anywhere in the path); v2 templates
//!   (`{id}`, `{id:[0-9]+}`) in `Path`/`PathPrefix` are read as regexes.
//! - `Method` (v2 also `Methods`, several arguments) gives the method set; a negated
//!   `Method` its complement.
//! - `Host`, `HostHeader`, `HostRegexp`, `HostSNI` only name the API: they do not
//!   make a match partial.
//! - Anything else (`Header`, `Query`, `ClientIP`, an unknown matcher, a negated path
//!   or a negated group) makes the match partial: the route then only *may* match.
//!
//! A rule that does not parse, or expands to more than [`MAX_TERMS`] terms, reads as
//! "every request, partial": for safety findings "may match" is enough.

use crate::import::route::{full_match_regex, PathMatch, RequestMatch};

/// Most OR'ed terms kept from one rule before it is read as "may match anything".
pub const MAX_TERMS: usize = 64;

/// The HTTP methods a negated `Method` leaves (the v1 method vocabulary).
const ALL_METHODS: &[&str] = &[
    "GET", "HEAD", "PUT", "POST", "DELETE", "OPTIONS", "PATCH", "TRACE",
];

/// What a rule tests: its OR'ed request matches and the host names it names.
#[derive(Debug, Clone)]
pub struct Rule {
    /// The request matches, OR'ed (never empty).
    pub matches: Vec<RequestMatch>,
    /// Literal hosts of `Host`/`HostHeader`/`HostSNI` matchers, in order.
    pub hosts: Vec<String>,
    /// False when the text did not parse (then `matches` is "any, partial").
    pub parsed: bool,
}

/// Reads a rule expression.
pub fn parse(text: &str) -> Rule {
    let tokens = match tokenize(text) {
        Some(t) => t,
        None => return unparsed(),
    };
    let mut p = Parser { tokens, pos: 0 };
    let Some(expr) = p.or_expr(0) else {
        return unparsed();
    };
    if p.pos != p.tokens.len() {
        return unparsed();
    }
    let mut hosts = Vec::new();
    expr.hosts(&mut hosts);
    let dnf = expr.dnf();
    let matches = match dnf {
        Some(terms) if !terms.is_empty() => terms.iter().map(|t| to_match(t)).collect(),
        _ => vec![any_partial()],
    };
    Rule {
        matches,
        hosts,
        parsed: true,
    }
}

fn unparsed() -> Rule {
    Rule {
        matches: vec![any_partial()],
        hosts: Vec::new(),
        parsed: false,
    }
}

fn any_partial() -> RequestMatch {
    RequestMatch {
        path: PathMatch::Any,
        methods: None,
        partial: true,
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    Str(String),
    Open,
    Close,
    Comma,
    And,
    Or,
    Not,
}

fn tokenize(text: &str) -> Option<Vec<Token>> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        match c {
            c if c.is_whitespace() => {
                chars.next();
            }
            '(' | ')' | ',' | '!' => {
                chars.next();
                out.push(match c {
                    '(' => Token::Open,
                    ')' => Token::Close,
                    ',' => Token::Comma,
                    _ => Token::Not,
                });
            }
            '&' | '|' => {
                chars.next();
                match chars.next() {
                    Some((_, d)) if d == c => {}
                    _ => return None,
                }
                out.push(if c == '&' { Token::And } else { Token::Or });
            }
            '`' | '"' | '\'' => {
                chars.next();
                let start = i + 1;
                let mut end = None;
                let mut escaped = false;
                for (j, d) in chars.by_ref() {
                    if c != '`' && d == '\\' && !escaped {
                        escaped = true;
                        continue;
                    }
                    if d == c && !escaped {
                        end = Some(j);
                        break;
                    }
                    escaped = false;
                }
                let end = end?;
                let raw = &text[start..end];
                out.push(Token::Str(if c == '`' {
                    raw.to_string()
                } else {
                    raw.replace("\\\"", "\"").replace("\\\\", "\\")
                }));
            }
            c if c.is_ascii_alphanumeric() || c == '_' => {
                let start = i;
                let mut end = i;
                while let Some(&(j, d)) = chars.peek() {
                    if d.is_ascii_alphanumeric() || d == '_' {
                        end = j + d.len_utf8();
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push(Token::Ident(text[start..end].to_string()));
            }
            _ => return None,
        }
    }
    Some(out)
}

/// A parsed expression.
#[derive(Debug, Clone)]
enum Expr {
    Matcher { name: String, args: Vec<String> },
    Not(Box<Expr>),
    And(Vec<Expr>),
    Or(Vec<Expr>),
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
}

/// Deepest nesting of parentheses and `!` read (deeper: "does not parse").
const MAX_DEPTH: usize = 64;

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn or_expr(&mut self, depth: usize) -> Option<Expr> {
        let mut terms = vec![self.and_expr(depth)?];
        while self.peek() == Some(&Token::Or) {
            self.pos += 1;
            terms.push(self.and_expr(depth)?);
        }
        Some(if terms.len() == 1 {
            terms.pop()?
        } else {
            Expr::Or(terms)
        })
    }

    fn and_expr(&mut self, depth: usize) -> Option<Expr> {
        let mut terms = vec![self.unary(depth)?];
        while self.peek() == Some(&Token::And) {
            self.pos += 1;
            terms.push(self.unary(depth)?);
        }
        Some(if terms.len() == 1 {
            terms.pop()?
        } else {
            Expr::And(terms)
        })
    }

    fn unary(&mut self, depth: usize) -> Option<Expr> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()?.clone() {
            Token::Not => {
                self.pos += 1;
                Some(Expr::Not(Box::new(self.unary(depth + 1)?)))
            }
            Token::Open => {
                self.pos += 1;
                let e = self.or_expr(depth + 1)?;
                (self.peek() == Some(&Token::Close)).then_some(())?;
                self.pos += 1;
                Some(e)
            }
            Token::Ident(name) => {
                self.pos += 1;
                (self.peek() == Some(&Token::Open)).then_some(())?;
                self.pos += 1;
                let mut args = Vec::new();
                loop {
                    match self.peek()?.clone() {
                        Token::Close => {
                            self.pos += 1;
                            break;
                        }
                        Token::Str(s) => {
                            self.pos += 1;
                            args.push(s);
                            match self.peek()? {
                                Token::Comma => self.pos += 1,
                                Token::Close => {}
                                _ => return None,
                            }
                        }
                        _ => return None,
                    }
                }
                Some(Expr::Matcher { name, args })
            }
            _ => None,
        }
    }
}

/// One conjunct of the normal form: a matcher, possibly negated.
#[derive(Debug, Clone)]
struct Atom {
    negated: bool,
    name: String,
    args: Vec<String>,
}

impl Expr {
    fn hosts(&self, out: &mut Vec<String>) {
        match self {
            Expr::Matcher { name, args } => {
                if matches!(
                    name.to_ascii_lowercase().as_str(),
                    "host" | "hostheader" | "hostsni"
                ) {
                    for a in args {
                        if a != "*" && !out.contains(a) {
                            out.push(a.clone());
                        }
                    }
                }
            }
            Expr::Not(_) => {}
            Expr::And(v) | Expr::Or(v) => v.iter().for_each(|e| e.hosts(out)),
        }
    }

    /// The disjunctive normal form; `None` when it exceeds [`MAX_TERMS`].
    fn dnf(&self) -> Option<Vec<Vec<Atom>>> {
        match self {
            Expr::Matcher { name, args } => {
                // v2 allowed several arguments to path and host matchers, OR'ed
                // (`PathPrefix(`/a`, `/b`)`); `Method(s)` arguments form one set and
                // `Header(`name`, `value`)` takes a pair.
                let lower = name.to_ascii_lowercase();
                if args.len() > 1 && (lower.starts_with("path") || lower.starts_with("host")) {
                    Some(
                        args.iter()
                            .map(|a| {
                                vec![Atom {
                                    negated: false,
                                    name: name.clone(),
                                    args: vec![a.clone()],
                                }]
                            })
                            .collect(),
                    )
                } else {
                    Some(vec![vec![Atom {
                        negated: false,
                        name: name.clone(),
                        args: args.clone(),
                    }]])
                }
            }
            Expr::Not(inner) => match inner.as_ref() {
                Expr::Matcher { name, args } => Some(vec![vec![Atom {
                    negated: true,
                    name: name.clone(),
                    args: args.clone(),
                }]]),
                // A negated group: "some requests", read as partial.
                _ => Some(vec![vec![Atom {
                    negated: true,
                    name: String::new(),
                    args: Vec::new(),
                }]]),
            },
            Expr::Or(v) => {
                let mut out = Vec::new();
                for e in v {
                    out.extend(e.dnf()?);
                    if out.len() > MAX_TERMS {
                        return None;
                    }
                }
                Some(out)
            }
            Expr::And(v) => {
                let mut acc: Vec<Vec<Atom>> = vec![Vec::new()];
                for e in v {
                    let d = e.dnf()?;
                    let mut next = Vec::new();
                    for a in &acc {
                        for b in &d {
                            let mut t = a.clone();
                            t.extend(b.iter().cloned());
                            next.push(t);
                            if next.len() > MAX_TERMS {
                                return None;
                            }
                        }
                    }
                    acc = next;
                }
                Some(acc)
            }
        }
    }
}

fn to_match(term: &[Atom]) -> RequestMatch {
    let mut path: Option<PathMatch> = None;
    let mut methods: Option<Vec<String>> = None;
    let mut partial = false;
    for atom in term {
        let lower = atom.name.to_ascii_lowercase();
        match lower.as_str() {
            "path" | "pathprefix" | "pathregexp" if !atom.negated => {
                let Some(arg) = atom.args.first() else {
                    partial = true;
                    continue;
                };
                let m = path_match(&lower, arg);
                if path.is_some() {
                    // Two path tests AND'ed: keep the first, the other also decides.
                    partial = true;
                } else {
                    match m {
                        Some(m) => path = Some(m),
                        None => partial = true,
                    }
                }
            }
            "method" | "methods" => {
                let set: Vec<String> = atom.args.iter().map(|m| m.to_ascii_uppercase()).collect();
                let set: Vec<String> = if atom.negated {
                    ALL_METHODS
                        .iter()
                        .map(|m| m.to_string())
                        .filter(|m| !set.contains(m))
                        .collect()
                } else {
                    set
                };
                methods = Some(match methods {
                    None => set,
                    Some(prev) => prev.into_iter().filter(|m| set.contains(m)).collect(),
                });
            }
            "host" | "hostheader" | "hostregexp" | "hostsni" | "hostsniregexp" if !atom.negated => {
            }
            _ => partial = true,
        }
    }
    RequestMatch {
        path: path.unwrap_or(PathMatch::Any),
        methods,
        partial,
    }
}

/// The path match of `Path` / `PathPrefix` / `PathRegexp` (lower-case `kind`) with
/// argument `arg`; `None` when a regex does not compile.
fn path_match(kind: &str, arg: &str) -> Option<PathMatch> {
    match kind {
        "pathregexp" => full_match_regex(&format!(".*(?:{arg}).*"))
            .ok()
            .map(PathMatch::Regex),
        _ if arg.contains('{') => {
            let re = template_regex(arg)?;
            let pattern = if kind == "path" {
                re
            } else {
                format!("{re}.*")
            };
            full_match_regex(&pattern).ok().map(PathMatch::Regex)
        }
        "path" => Some(PathMatch::Exact(arg.to_string())),
        _ => Some(PathMatch::Prefix(arg.to_string())),
    }
}

/// A v2 (gorilla/mux) path template as a regex: `{name}` is one segment,
/// `{name:re}` is `re`, other text is literal.
fn template_regex(template: &str) -> Option<String> {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&regex::escape(&rest[..open]));
        let after = &rest[open + 1..];
        // The closing brace at depth 0 (a regex may hold `{2}`).
        let mut depth = 0usize;
        let mut close = None;
        for (i, c) in after.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    close = Some(i);
                    break;
                }
                '}' => depth -= 1,
                _ => {}
            }
        }
        let close = close?;
        let inner = &after[..close];
        match inner.split_once(':') {
            Some((_, re)) => out.push_str(&format!("(?:{re})")),
            None => out.push_str("[^/]+"),
        }
        rest = &after[close + 1..];
    }
    out.push_str(&regex::escape(rest));
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_and_method() {
        let r = parse("Host(`api.example.com`) && PathPrefix(`/api`) && Method(`POST`)");
        assert!(r.parsed);
        assert_eq!(r.hosts, vec!["api.example.com".to_string()]);
        assert_eq!(r.matches.len(), 1);
        let m = &r.matches[0];
        assert!(!m.partial);
        assert!(matches!(&m.path, PathMatch::Prefix(p) if p == "/api"));
        assert_eq!(m.methods, Some(vec!["POST".to_string()]));
    }

    #[test]
    fn or_gives_several_matches_and_headers_are_partial() {
        let r = parse("(Path(`/a`) || Path(`/b`)) && Header(`X-Env`, `prod`)");
        assert_eq!(r.matches.len(), 2);
        assert!(r.matches.iter().all(|m| m.partial));
        assert!(r.matches[1].may_match("GET", "/b", "", None));
        assert!(!r.matches[1].may_match("GET", "/c", "", None));
    }

    #[test]
    fn negated_method_is_its_complement() {
        let r = parse("PathPrefix(`/`) && !Method(`POST`)");
        let m = &r.matches[0];
        assert!(!m.partial);
        assert!(!m.may_match("POST", "/x", "", None));
        assert!(m.may_match("PUT", "/x", "", None));
    }

    #[test]
    fn regexes_and_templates() {
        let r = parse("PathRegexp(`^/users/[0-9]+`)");
        assert!(r.matches[0].may_match("GET", "/users/{id}", "", None));
        assert!(!r.matches[0].may_match("GET", "/orders", "", None));
        let r = parse("Path(`/users/{id:[0-9]+}`)");
        assert!(r.matches[0].may_match("GET", "/users/{id}", "", None));
        assert!(!r.matches[0].may_match("GET", "/users/{id}/x", "", None));
    }

    #[test]
    fn garbage_reads_as_may_match_anything() {
        for text in ["PathPrefix(`/x`", "&& Path(`/`)", "Path(`/`) &", "((((", ""] {
            let r = parse(text);
            assert!(!r.parsed, "{text}");
            assert!(r.matches[0].partial);
        }
        let deep = format!("{}Path(`/`){}", "(".repeat(500), ")".repeat(500));
        assert!(!parse(&deep).parsed);
    }
}
