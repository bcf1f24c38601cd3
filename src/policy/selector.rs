//! Operation selectors: keys of `operations` and values of `status_endpoint`.
//!
//! `METHOD /path` (one upper-case method token or `*`, one space, a path starting with
//! `/`) or else an `operationId`. In a path, a `{name}` segment matches any template
//! segment whatever its name, never a literal one; `*` matches exactly one segment;
//! `**` (last segment only) matches zero or more.
//!
//! Rank (policy-format.md), most specific first:
//! 0. an operationId, or an exact path with an explicit method;
//! 1. an exact path with `*`;
//! 2. a wildcard path with an explicit method;
//! 3. a wildcard path with `*`;
//!
//! and between two wildcard paths of one tier, the one with more literal segments
//! (here: segments that are not `*`/`**`, i.e. literals and `{name}` templates).

use std::fmt;

/// The HTTP methods a selector may name (OpenAPI's operation keys, upper-cased).
pub const METHODS: &[&str] = &[
    "GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE",
];

/// One segment of a selector path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// Matches exactly this literal segment (never a template).
    Literal(String),
    /// A segment holding `{...}`: matches a template segment of the same shape whatever
    /// the parameter names (`{id}` matches `{orderId}`; `{id}.json` matches
    /// `{name}.json`). Stored with every `{...}` replaced by `{}`.
    Template(String),
    /// `*`: exactly one segment.
    Star,
    /// `**`: zero or more segments (last segment only).
    DoubleStar,
}

/// A parsed selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// `METHOD /path`.
    Path {
        /// Upper-case method, `None` for `*`.
        method: Option<String>,
        /// The path's segments.
        segments: Vec<Segment>,
    },
    /// Anything else: an `operationId`.
    OperationId(String),
}

/// Why a selector is invalid (RL005).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectorError(pub String);

impl fmt::Display for SelectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Specificity of a selector: smaller sorts first (more specific). Two matching
/// entries with equal [`Rank`] are a tie (RL005).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rank {
    /// 0..=3, see the module documentation.
    pub tier: u8,
    /// For wildcard paths: the negated count of non-wildcard segments (more literal
    /// segments sort first); 0 for tiers 0 and 1.
    pub literals: i64,
}

/// Replaces each `{...}` in a path segment by `{}`.
pub fn normalize_template(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    let mut depth = 0;
    for c in segment.chars() {
        match c {
            '{' => {
                if depth == 0 {
                    out.push('{');
                }
                depth += 1;
            }
            '}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    out.push('}');
                }
            }
            _ if depth > 0 => {}
            _ => out.push(c),
        }
    }
    out
}

fn split_path(path: &str) -> Vec<&str> {
    // "/" is the root: no segments. A trailing slash yields an empty last segment,
    // which is kept so that `/a/` and `/a` differ as they do in OpenAPI.
    let rest = path.strip_prefix('/').unwrap_or(path);
    if rest.is_empty() {
        Vec::new()
    } else {
        rest.split('/').collect()
    }
}

impl Selector {
    /// Parses a selector. Text with whitespace or a `/` is read as `METHOD /path` and
    /// must be well formed; anything else is an operationId.
    pub fn parse(text: &str) -> Result<Selector, SelectorError> {
        if text.is_empty() {
            return Err(SelectorError("an empty selector".into()));
        }
        let looks_like_path = text.contains(char::is_whitespace) || text.contains('/');
        if !looks_like_path {
            return Ok(Selector::OperationId(text.to_string()));
        }
        let Some((method, path)) = text.split_once(' ') else {
            return Err(SelectorError(format!(
                "selector `{text}` needs a method: write `METHOD /path` (e.g. `GET {text}`) or an operationId"
            )));
        };
        let method = if method == "*" {
            None
        } else if METHODS.contains(&method) {
            Some(method.to_string())
        } else if METHODS.contains(&method.to_ascii_uppercase().as_str()) {
            return Err(SelectorError(format!(
                "method `{method}` must be upper-case: `{}`",
                method.to_ascii_uppercase()
            )));
        } else {
            return Err(SelectorError(format!(
                "`{method}` is not an HTTP method (use one of {} or `*`)",
                METHODS.join(", ")
            )));
        };
        if !path.starts_with('/') || path.contains(char::is_whitespace) {
            return Err(SelectorError(format!(
                "the path of selector `{text}` must start with `/` after exactly one space and contain no whitespace"
            )));
        }
        let raw = split_path(path);
        let mut segments = Vec::with_capacity(raw.len());
        for (i, seg) in raw.iter().enumerate() {
            let s = match *seg {
                "*" => Segment::Star,
                "**" if i + 1 == raw.len() => Segment::DoubleStar,
                "**" => {
                    return Err(SelectorError(format!(
                        "`**` may only be the last segment of selector `{text}`"
                    )))
                }
                s if s.contains('*') => {
                    return Err(SelectorError(format!(
                        "`*` must be a whole segment in selector `{text}`"
                    )))
                }
                s if s.contains('{') || s.contains('}') => {
                    if s.matches('{').count() != s.matches('}').count() {
                        return Err(SelectorError(format!(
                            "unbalanced `{{` `}}` in selector `{text}`"
                        )));
                    }
                    Segment::Template(normalize_template(s))
                }
                s => Segment::Literal(s.to_string()),
            };
            segments.push(s);
        }
        Ok(Selector::Path { method, segments })
    }

    /// True when the path holds `*` or `**`.
    pub fn is_wildcard(&self) -> bool {
        match self {
            Selector::Path { segments, .. } => segments
                .iter()
                .any(|s| matches!(s, Segment::Star | Segment::DoubleStar)),
            Selector::OperationId(_) => false,
        }
    }

    /// The selector's specificity.
    pub fn rank(&self) -> Rank {
        match self {
            Selector::OperationId(_) => Rank {
                tier: 0,
                literals: 0,
            },
            Selector::Path { method, segments } => {
                let wildcard = self.is_wildcard();
                let tier = match (wildcard, method.is_some()) {
                    (false, true) => 0,
                    (false, false) => 1,
                    (true, true) => 2,
                    (true, false) => 3,
                };
                let literals = if wildcard {
                    -(segments
                        .iter()
                        .filter(|s| !matches!(s, Segment::Star | Segment::DoubleStar))
                        .count() as i64)
                } else {
                    0
                };
                Rank { tier, literals }
            }
        }
    }

    /// Does the selector select the operation with this lower-case (or any-case)
    /// method key, path template and operationId?
    pub fn matches(&self, method: &str, path: &str, operation_id: Option<&str>) -> bool {
        match self {
            Selector::OperationId(id) => operation_id == Some(id.as_str()),
            Selector::Path {
                method: m,
                segments,
            } => {
                if let Some(m) = m {
                    if !m.eq_ignore_ascii_case(method) {
                        return false;
                    }
                }
                if !path.starts_with('/') {
                    return false;
                }
                match_segments(segments, &split_path(path))
            }
        }
    }
}

/// An operation as a selector can name it: its method key (any case), path
/// template and operationId.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate<'a> {
    /// Method key as written in the document (`post`).
    pub method: &'a str,
    /// Path template (`/orders/{id}`).
    pub path: &'a str,
    /// `operationId`, if declared.
    pub operation_id: Option<&'a str>,
}

/// "Did you mean": the selector (as it would be written) of the operation that
/// `text`, a selector matching none of `candidates`, most likely meant. In order:
///
/// 1. an operationId that differs only in case (`CreateDeployment` for
///    `createDeployment`);
/// 2. for `METHOD /path`, the same method and path with a trailing slash added or
///    removed;
/// 3. the closest operationId (for an operationId selector) or `METHOD /path` (for
///    a path selector; template parameter names are ignored, `{id}` is `{orderId}`),
///    by Damerau-Levenshtein distance over the text, case-insensitively, at most
///    `clamp(len / 6, 1, 3)` edits.
///
/// Ties go to the first candidate in the given order. `None` for wildcard selectors
/// (they name a group, not one operation), for selectors that do not parse, and
/// when nothing is close.
pub fn did_you_mean(text: &str, candidates: &[Candidate<'_>]) -> Option<String> {
    let selector = Selector::parse(text).ok()?;
    if selector.is_wildcard() {
        return None;
    }
    let max_edits = (text.chars().count() / 6).clamp(1, 3);
    let closest = |wanted: &str, options: &mut dyn Iterator<Item = (String, String)>| {
        let wanted = wanted.to_lowercase();
        options
            .map(|(key, shown)| {
                (
                    strsim::damerau_levenshtein(&wanted, &key.to_lowercase()),
                    shown,
                )
            })
            .filter(|(d, _)| *d <= max_edits)
            .min_by_key(|(d, _)| *d)
            .map(|(_, shown)| shown)
    };
    match &selector {
        Selector::OperationId(id) => {
            let ids = || candidates.iter().filter_map(|c| c.operation_id);
            if let Some(same) = ids().find(|c| c.eq_ignore_ascii_case(id)) {
                return Some(same.to_string());
            }
            closest(id, &mut ids().map(|c| (c.to_string(), c.to_string())))
        }
        Selector::Path { method, .. } => {
            let (_, path) = text.split_once(' ')?;
            let same_method = |c: &&Candidate<'_>| {
                method
                    .as_deref()
                    .is_none_or(|m| m.eq_ignore_ascii_case(c.method))
            };
            let toggled = match path.strip_suffix('/') {
                Some(p) if !p.is_empty() => p.to_string(),
                Some(_) => return None,
                None => format!("{path}/"),
            };
            let method_text = method.as_deref().unwrap_or("*");
            if let Some(c) = candidates
                .iter()
                .filter(same_method)
                .find(|c| c.path == toggled)
            {
                return Some(format!("{method_text} {}", c.path));
            }
            let wanted = selector.to_string();
            closest(
                &wanted,
                &mut candidates.iter().map(|c| {
                    let normalized: Vec<String> = split_path(c.path)
                        .iter()
                        .map(|seg| normalize_template(seg))
                        .collect();
                    let m = c.method.to_ascii_uppercase();
                    (
                        format!("{m} /{}", normalized.join("/")),
                        format!("{m} {}", c.path),
                    )
                }),
            )
        }
    }
}

fn match_segments(pattern: &[Segment], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((Segment::DoubleStar, _)) => true,
        Some((first, rest)) => {
            let Some((seg, path_rest)) = path.split_first() else {
                return false;
            };
            let ok = match first {
                Segment::Star => true,
                Segment::Literal(l) => l == seg && !seg.contains('{'),
                Segment::Template(t) => seg.contains('{') && normalize_template(seg) == *t,
                Segment::DoubleStar => unreachable!(),
            };
            ok && match_segments(rest, path_rest)
        }
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Selector::OperationId(id) => f.write_str(id),
            Selector::Path { method, segments } => {
                f.write_str(method.as_deref().unwrap_or("*"))?;
                f.write_str(" ")?;
                if segments.is_empty() {
                    return f.write_str("/");
                }
                for s in segments {
                    f.write_str("/")?;
                    match s {
                        Segment::Literal(l) | Segment::Template(l) => f.write_str(l)?,
                        Segment::Star => f.write_str("*")?,
                        Segment::DoubleStar => f.write_str("**")?,
                    }
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPS: &[Candidate<'static>] = &[
        Candidate {
            method: "post",
            path: "/deployments",
            operation_id: Some("createDeployment"),
        },
        Candidate {
            method: "post",
            path: "/transfers",
            operation_id: Some("createTransfer"),
        },
        Candidate {
            method: "get",
            path: "/orders/{orderId}",
            operation_id: None,
        },
        Candidate {
            method: "get",
            path: "/catalog/",
            operation_id: Some("listCatalog"),
        },
    ];

    fn dym(text: &str) -> Option<String> {
        did_you_mean(text, OPS)
    }

    #[test]
    fn operation_id_case_first() {
        assert_eq!(dym("CreateDeployment").as_deref(), Some("createDeployment"));
        assert_eq!(dym("CREATETRANSFER").as_deref(), Some("createTransfer"));
    }

    #[test]
    fn operation_id_by_edit_distance() {
        assert_eq!(dym("createDeploymnet").as_deref(), Some("createDeployment"));
        assert_eq!(dym("listCatalogs").as_deref(), Some("listCatalog"));
        assert_eq!(dym("deleteEverything"), None);
    }

    #[test]
    fn trailing_slash_either_way() {
        assert_eq!(dym("GET /catalog").as_deref(), Some("GET /catalog/"));
        assert_eq!(dym("POST /transfers/").as_deref(), Some("POST /transfers"));
        // The slash toggle keeps the selector's method; another method is an edit.
        assert_eq!(dym("* /catalog").as_deref(), Some("* /catalog/"));
    }

    #[test]
    fn path_by_edit_distance_ignoring_parameter_names() {
        assert_eq!(dym("POST /transfer").as_deref(), Some("POST /transfers"));
        assert_eq!(
            dym("GET /order/{id}").as_deref(),
            Some("GET /orders/{orderId}")
        );
        assert_eq!(dym("PUT /transfers").as_deref(), Some("POST /transfers"));
        assert_eq!(dym("DELETE /accounts/{id}/keys"), None);
    }

    #[test]
    fn wildcards_and_bad_selectors_get_none() {
        assert_eq!(dym("POST /transfer/*"), None);
        assert_eq!(dym("* /**"), None);
        assert_eq!(dym("post /transfers"), None);
        assert_eq!(dym("POST /"), None);
        assert_eq!(did_you_mean("createTransfer", &[]), None);
    }
}
