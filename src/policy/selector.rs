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
