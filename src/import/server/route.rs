//! One route a server declares, as every framework reader gives it, and the
//! normalisation of each framework's path syntax to OpenAPI's `{name}` template.

use std::ops::Range;

/// One operation a server's code declares: a method on a path template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerRoute {
    /// Lower-case HTTP method (`post`), as an OpenAPI path item key.
    pub method: String,
    /// The path template with OpenAPI `{name}` parameters, from the server's root
    /// (prefixes of classes, groups and routers joined).
    pub path: String,
    /// Byte span of the declaration in the source file (the mapping annotation, the
    /// `MapPost(...)` call): where findings on the operation point.
    pub at: Range<usize>,
    /// Header parameters the handler requires (`@RequestHeader("Idempotency-Key")`,
    /// `[FromHeader(Name = "x-requestid")]`), each with the span of its declaration.
    pub required_headers: Vec<(String, Range<usize>)>,
}

/// `prefix` + `path` with exactly one `/` between; the result starts with `/` and
/// has no trailing `/` unless it is the root.
pub fn join(prefix: &str, path: &str) -> String {
    let mut out = String::new();
    for part in [prefix, path] {
        let part = part.trim_matches('/');
        if !part.is_empty() {
            out.push('/');
            out.push_str(part);
        }
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

/// A path in `{name}` syntax with each parameter's constraint or catch-all marker
/// dropped: Spring `{id:\d+}`, ASP.NET Core `{id:int}`, `{*rest}` and `{**rest}`,
/// Go 1.22 `{rest...}`, FastAPI `{rest:path}` all become `{name}`.
pub fn braces(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        // The matching `}` (a Spring regex may hold braces of its own).
        let mut depth = 0usize;
        let mut close = None;
        for (i, c) in rest[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(open + i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(close) = close else {
            out.push_str(&rest[open..]);
            return out;
        };
        let inner = &rest[open + 1..close];
        let name = inner
            .split([':', '='])
            .next()
            .unwrap_or("")
            .trim_start_matches('*')
            .trim_end_matches("...")
            .trim_end_matches('?');
        out.push('{');
        out.push_str(name);
        out.push('}');
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// An Express path (`/owners/:ownerId`, `:id?`) in `{name}` syntax.
pub fn colons(path: &str) -> String {
    path.split('/')
        .map(|seg| match seg.strip_prefix(':') {
            Some(name) => {
                let name: String = name
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                format!("{{{name}}}")
            }
            None => seg.to_string(),
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_with_one_slash() {
        assert_eq!(join("/owners", "{ownerId}/pets"), "/owners/{ownerId}/pets");
        assert_eq!(join("", "owners/"), "/owners");
        assert_eq!(join("/api/", ""), "/api");
        assert_eq!(join("", ""), "/");
    }

    #[test]
    fn each_framework_syntax_becomes_braces() {
        assert_eq!(braces(r"/owners/{ownerId:\d+}"), "/owners/{ownerId}");
        assert_eq!(braces(r"/x/{id:[a-z]{2}}/y"), "/x/{id}/y");
        assert_eq!(braces("/items/{id:int}"), "/items/{id}");
        assert_eq!(braces("/files/{*rest}"), "/files/{rest}");
        assert_eq!(braces("/static/{path...}"), "/static/{path}");
        assert_eq!(braces("/f/{p:path}"), "/f/{p}");
        assert_eq!(braces("/broken/{id"), "/broken/{id");
        assert_eq!(
            colons("/owners/:ownerId/pets/:id?"),
            "/owners/{ownerId}/pets/{id}"
        );
    }
}
