//! HAProxy ACL conditions (`if`/`unless` after `use_backend` and
//! `http-request disable-l7-retry`), evaluated as far as route matching needs
//! (`doc/configuration.txt` §7): terms side by side are AND'ed, `||`/`or` separates
//! alternatives, `!` negates, `{ criterion values }` is an anonymous ACL, a name is a
//! named ACL (its `acl` lines OR'ed) or a predefined one (`METH_POST`, `TRUE`, ...).
//!
//! What is understood: path criteria (`path`, `path_beg`, `path_end`, `path_sub`,
//! `path_reg`, `path_dir`, `url_beg`, and `path -m beg|end|sub|reg|str|dir`), the
//! `method` criterion and the `METH_*` ACLs, and Host header criteria
//! (`hdr(host)`, `hdr_beg(host)`, `hdr_end(host)`, `hdr_dom(host)`, `req.hdr(host)`).
//! Anything else (other headers, source addresses, negated paths) makes the
//! alternative a "may match" (`partial`).

use super::reader::{Line, Word};
use crate::import::PathMatch;
use crate::source::tree::NodeId;
use std::collections::BTreeSet;

/// Every v1 method token.
pub const METHODS: &[&str] = &[
    "GET", "HEAD", "PUT", "POST", "DELETE", "OPTIONS", "PATCH", "TRACE",
];

/// A Host header condition: a name pattern for binding (`img`, `img*`, `*img`,
/// `*.img`, or a regex as written) and the criterion word it comes from.
#[derive(Debug, Clone)]
pub struct Host {
    /// The pattern as a name.
    pub name: String,
    /// The criterion word's node (the word itself borrows the file's text).
    pub node: NodeId,
}

/// One alternative of a condition: all its parts must hold.
#[derive(Debug, Clone)]
pub struct Alt {
    /// Path matches (any of them); `None`: every path.
    pub paths: Option<Vec<PathMatch>>,
    /// Methods; `None`: every method.
    pub methods: Option<BTreeSet<String>>,
    /// Host conditions (any of them); `None`: every host.
    pub hosts: Option<Vec<Host>>,
    /// Other conditions also decide.
    pub partial: bool,
}

impl Alt {
    fn any(partial: bool) -> Alt {
        Alt {
            paths: None,
            methods: None,
            hosts: None,
            partial,
        }
    }

    fn and(&self, other: &Alt) -> Alt {
        let mut partial = self.partial || other.partial;
        let paths = match (&self.paths, &other.paths) {
            (Some(a), Some(_)) => {
                partial = true;
                Some(a.clone())
            }
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        let hosts = match (&self.hosts, &other.hosts) {
            (Some(a), Some(_)) => {
                partial = true;
                Some(a.clone())
            }
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        let methods = match (&self.methods, &other.methods) {
            (Some(a), Some(b)) => Some(a.intersection(b).cloned().collect()),
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        Alt {
            paths,
            methods,
            hosts,
            partial,
        }
    }
}

/// Upper bound on alternatives kept (AND of ORs multiplies them).
const MAX_ALTS: usize = 64;

fn methods_of(set: &[&str]) -> Option<BTreeSet<String>> {
    Some(set.iter().map(|m| m.to_string()).collect())
}

fn escape(s: &str) -> String {
    regex::escape(s)
}

/// One criterion with its values (`path_beg /img /css`).
fn criterion(word: &Word<'_>, values: &[Word<'_>]) -> Vec<Alt> {
    let c = word.text.as_ref();
    let mut flags_match: Option<&str> = None;
    let mut vals: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < values.len() {
        let v = values[i].text.as_ref();
        match v {
            "-i" | "-n" | "--" => {}
            "-m" => {
                flags_match = values.get(i + 1).map(|w| w.text.as_ref());
                i += 1;
            }
            "-f" | "-M" | "-u" => i += 1,
            _ => vals.push(v),
        }
        i += 1;
    }
    let path_kind = match (c, flags_match) {
        ("path" | "url" | "base", Some(m)) => Some(m),
        ("path", None) => Some("str"),
        ("path_beg" | "url_beg" | "base_beg", _) => Some("beg"),
        ("path_end", _) => Some("end"),
        ("path_sub", _) => Some("sub"),
        ("path_reg", _) => Some("reg"),
        ("path_dir", _) => Some("dir"),
        _ => None,
    };
    if let Some(kind) = path_kind {
        let paths: Vec<PathMatch> = vals
            .iter()
            .map(|v| match kind {
                "str" => PathMatch::Exact(v.to_string()),
                "beg" => PathMatch::Prefix(v.to_string()),
                "end" => crate::import::route::PathRegex::new(&format!("{}$", escape(v)))
                    .map(PathMatch::Regex)
                    .unwrap_or(PathMatch::Any),
                "sub" => crate::import::route::PathRegex::new(&escape(v))
                    .map(PathMatch::Regex)
                    .unwrap_or(PathMatch::Any),
                "dir" => crate::import::route::PathRegex::new(&format!(
                    "(^|/){}(/|$)",
                    escape(v.trim_matches('/'))
                ))
                .map(PathMatch::Regex)
                .unwrap_or(PathMatch::Any),
                _ => crate::import::route::PathRegex::new(v)
                    .map(PathMatch::Regex)
                    .unwrap_or(PathMatch::Any),
            })
            .collect();
        return vec![Alt {
            paths: Some(paths),
            ..Alt::any(false)
        }];
    }
    if c == "method" {
        return vec![Alt {
            methods: Some(vals.iter().map(|v| v.to_ascii_uppercase()).collect()),
            ..Alt::any(false)
        }];
    }
    let lower = c.to_ascii_lowercase();
    let host_kind = [
        "hdr", "hdr_beg", "hdr_end", "hdr_dom", "hdr_reg", "req.hdr", "req.fhdr",
    ]
    .iter()
    .find(|k| lower == format!("{k}(host)"))
    .copied();
    if let Some(kind) = host_kind {
        let hosts = vals
            .iter()
            .map(|v| Host {
                name: match (kind, flags_match) {
                    ("hdr_beg", _) | (_, Some("beg")) => format!("{v}*"),
                    ("hdr_end", _) | (_, Some("end")) => format!("*{v}"),
                    ("hdr_dom", _) | (_, Some("dom")) => format!("*.{v}"),
                    _ => v.to_string(),
                },
                node: word.node,
            })
            .collect();
        return vec![Alt {
            hosts: Some(hosts),
            ..Alt::any(false)
        }];
    }
    vec![Alt::any(true)]
}

fn predefined(name: &str) -> Option<Vec<Alt>> {
    let m = |set: &[&str]| {
        Some(vec![Alt {
            methods: methods_of(set),
            ..Alt::any(false)
        }])
    };
    match name {
        "METH_GET" => m(&["GET", "HEAD"]),
        "METH_HEAD" => m(&["HEAD"]),
        "METH_POST" => m(&["POST"]),
        "METH_PUT" => m(&["PUT"]),
        "METH_DELETE" => m(&["DELETE"]),
        "METH_OPTIONS" => m(&["OPTIONS"]),
        "METH_TRACE" => m(&["TRACE"]),
        "METH_CONNECT" => m(&[]),
        "TRUE" | "HTTP" | "HTTP_1.0" | "HTTP_1.1" | "HTTP_2.0" | "HTTP_3.0" => {
            Some(vec![Alt::any(false)])
        }
        "FALSE" => Some(Vec::new()),
        _ => None,
    }
}

/// The named ACLs of a section: name → the `acl` lines defining it.
pub fn named<'l, 'a>(lines: &'l [Line<'a>]) -> Vec<(&'l str, &'l Line<'a>)> {
    lines
        .iter()
        .filter(|l| l.keyword.text == "acl" && !l.args.is_empty())
        .map(|l| (l.args[0].text.as_ref(), l))
        .collect()
}

fn named_alts(acls: &[(&str, &Line<'_>)], name: &str) -> Vec<Alt> {
    let defs: Vec<&Line<'_>> = acls
        .iter()
        .filter(|(n, _)| *n == name)
        .map(|(_, l)| *l)
        .collect();
    if defs.is_empty() {
        return predefined(name).unwrap_or_else(|| vec![Alt::any(true)]);
    }
    let mut out = Vec::new();
    for l in defs {
        if let Some(c) = l.args.get(1) {
            out.extend(criterion(c, &l.args[2..]));
        }
    }
    out
}

/// Complement of a term's alternatives, as far as it is expressible: methods
/// complement; anything else "may match".
fn negate(alts: &[Alt]) -> Vec<Alt> {
    if alts.is_empty() {
        return vec![Alt::any(false)];
    }
    if alts
        .iter()
        .all(|a| a.paths.is_none() && a.hosts.is_none() && !a.partial && a.methods.is_some())
    {
        let covered: BTreeSet<String> = alts
            .iter()
            .flat_map(|a| a.methods.clone().unwrap_or_default())
            .collect();
        return vec![Alt {
            methods: Some(
                METHODS
                    .iter()
                    .map(|m| m.to_string())
                    .filter(|m| !covered.contains(m))
                    .collect(),
            ),
            ..Alt::any(false)
        }];
    }
    vec![Alt::any(true)]
}

/// The alternatives of the condition `words` (what follows `if`), with the
/// section's named ACLs. `None` when the condition is `unless` (its negation is
/// taken).
pub fn condition(words: &[Word<'_>], acls: &[(&str, &Line<'_>)]) -> Vec<Alt> {
    let mut alts: Vec<Alt> = Vec::new();
    let mut current: Vec<Alt> = vec![Alt::any(false)];
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        let t: &str = &w.text;
        if t == "||" || t.eq_ignore_ascii_case("or") {
            alts.append(&mut current);
            current = vec![Alt::any(false)];
            i += 1;
            continue;
        }
        let (neg, t) = match t.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, t),
        };
        let mut term =
            if t == "{" || (t.is_empty() && words.get(i + 1).is_some_and(|n| n.text == "{")) {
                if t.is_empty() {
                    i += 1;
                }
                let close = words[i..]
                    .iter()
                    .position(|x| x.text == "}")
                    .map_or(words.len(), |p| i + p);
                let inner = &words[(i + 1).min(close)..close];
                i = close;
                match inner.split_first() {
                    Some((c, vals)) => criterion(c, vals),
                    None => vec![Alt::any(true)],
                }
            } else if t.is_empty() {
                vec![Alt::any(true)]
            } else {
                named_alts(acls, t)
            };
        if neg {
            term = negate(&term);
        }
        let mut next = Vec::new();
        for a in &current {
            for b in &term {
                if next.len() < MAX_ALTS {
                    next.push(a.and(b));
                }
            }
        }
        current = next;
        i += 1;
    }
    alts.extend(current);
    alts.truncate(MAX_ALTS);
    alts
}

/// The alternatives of `if ...` or `unless ...` words (the keyword included);
/// `unless` is negated as far as expressible. No keyword: every request.
pub fn guard(words: &[Word<'_>], acls: &[(&str, &Line<'_>)]) -> Vec<Alt> {
    match words.split_first() {
        Some((k, rest)) if k.text == "if" => condition(rest, acls),
        Some((k, rest)) if k.text == "unless" => negate(&condition(rest, acls)),
        _ => vec![Alt::any(false)],
    }
}
