//! Declarative HTTP interfaces: each annotated interface method is one call with an
//! exact method and path template, the most reliable binding there is
//! (`retry-in-code.md` §3.2 (1)):
//! - OpenFeign through Spring Cloud (`@FeignClient(url, path)`, `${...}` taken from
//!   the module's `application.yml`, or `http://<name>` without a `url`; + Spring MVC
//!   `@GetMapping/@PostMapping/@PutMapping/@DeleteMapping/@PatchMapping`,
//!   `@RequestMapping(value, method = RequestMethod.POST)`, a class-level
//!   `@RequestMapping` prefix) and Feign's own `@RequestLine("POST /orders/{id}")`;
//! - Spring 6 HTTP interfaces (`@HttpExchange("/prefix")` on the interface,
//!   `@PostExchange("/x")`, `@HttpExchange(url, method)`);
//! - Retrofit (`@POST("orders")`, `@HTTP(method = "POST", path = "x")`).
//!
//! Headers a method declares (`@RequestHeader("Idempotency-Key")` and Retrofit
//! `@Header("X")` parameters, Feign/Retrofit `@Headers("X: v")`, Spring `headers =
//! "X=v"`) are the call's headers. Path variables (`{id}`, `{id:\d+}`) become `{}`.

use super::super::model::{CallSite, Url};
use super::super::CodeFile;
use super::ast::{self, FileIndex};
use tree_sitter::Node;

/// One interface method read as a call.
#[derive(Debug, Clone)]
pub struct Declared {
    /// The interface's simple name.
    pub interface: String,
    /// The method's name.
    pub method: String,
    /// True when the interface is a `@FeignClient` (a Feign `Retryer` bean applies).
    pub feign: bool,
    /// The method declaration (annotations on it apply to this call).
    pub node: std::ops::Range<usize>,
    /// The call.
    pub call: CallSite,
}

const SPRING_MAPPINGS: &[(&str, Option<&str>)] = &[
    ("GetMapping", Some("GET")),
    ("PostMapping", Some("POST")),
    ("PutMapping", Some("PUT")),
    ("DeleteMapping", Some("DELETE")),
    ("PatchMapping", Some("PATCH")),
    ("RequestMapping", None),
    ("GetExchange", Some("GET")),
    ("PostExchange", Some("POST")),
    ("PutExchange", Some("PUT")),
    ("DeleteExchange", Some("DELETE")),
    ("PatchExchange", Some("PATCH")),
    ("HttpExchange", None),
];

const RETROFIT: &[&str] = &["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"];

/// Every declarative interface method of the file.
pub fn read(file: &CodeFile<'_>, idx: &FileIndex) -> Vec<Declared> {
    let mut out = Vec::new();
    for iface in ast::descendants(file.tree.root_node(), "interface_declaration") {
        let Some(name) = iface.child_by_field_name("name") else {
            continue;
        };
        let interface = file.text_of(name).to_string();
        let feign_ann = ast::find_annotation(file, iface, "FeignClient");
        let mut prefix = String::new();
        if let Some(f) = feign_ann {
            let args = ast::annotation_args(file, f);
            let resolved = |keys: &[&str]| {
                ast::arg(&args, keys)
                    .and_then(|v| ast::string_value(file, idx, v))
                    .and_then(|u| super::properties::resolve_string(&u, &idx.props))
                    .filter(|u| !u.is_empty())
            };
            match resolved(&["url"]) {
                Some(u) if u.contains("://") => prefix.push_str(u.trim_end_matches('/')),
                // No URL: Spring Cloud OpenFeign calls `http://<name>` through the
                // load balancer.
                None if ast::arg(&args, &["url"]).is_none() => {
                    if let Some(n) = resolved(&["name", "value"]).filter(|n| {
                        n.chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
                    }) {
                        prefix = format!("http://{n}");
                    }
                }
                _ => {}
            }
            if let Some(p) = resolved(&["path"]) {
                prefix = join(&prefix, &p);
            }
        }
        for class_ann in ["RequestMapping", "HttpExchange"] {
            if let Some(a) = ast::find_annotation(file, iface, class_ann) {
                let args = ast::annotation_args(file, a);
                if let Some(p) = ast::arg(&args, &["value", "path", "url"])
                    .and_then(|v| first_string(file, idx, v))
                {
                    if !p.contains("${") {
                        prefix = join(&prefix, &p);
                    }
                }
            }
        }
        let Some(body) = iface.child_by_field_name("body") else {
            continue;
        };
        let mut c = body.walk();
        let methods: Vec<Node<'_>> = body
            .named_children(&mut c)
            .filter(|m| m.kind() == "method_declaration")
            .collect();
        for m in methods {
            let Some(mname) = m.child_by_field_name("name") else {
                continue;
            };
            let Some((verb, path, at)) = mapping(file, idx, m) else {
                continue;
            };
            let full = join(&prefix, &path);
            let url = template(&full);
            let mut headers = declared_headers(file, idx, m);
            headers.sort();
            headers.dedup();
            out.push(Declared {
                interface: interface.clone(),
                method: file.text_of(mname).to_string(),
                feign: feign_ann.is_some(),
                node: m.byte_range(),
                call: CallSite {
                    receiver: format!("{interface}#{}", file.text_of(mname)),
                    method: verb,
                    url,
                    span: at,
                    headers,
                },
            });
        }
    }
    out
}

/// The verb, path and annotation span of one interface method.
fn mapping(
    file: &CodeFile<'_>,
    idx: &FileIndex,
    m: Node<'_>,
) -> Option<(Option<String>, String, std::ops::Range<usize>)> {
    for a in ast::annotations(m) {
        let simple = ast::annotation_simple(file, a);
        let args = ast::annotation_args(file, a);
        if let Some((_, verb)) = SPRING_MAPPINGS.iter().find(|(n, _)| *n == simple) {
            let path = ast::arg(&args, &["value", "path", "url"])
                .and_then(|v| first_string(file, idx, v))
                .unwrap_or_default();
            let verb = match verb {
                Some(v) => Some(v.to_string()),
                None => ast::arg(&args, &["method"]).and_then(|v| {
                    let e = ast::elements(v);
                    // One method, or none known.
                    if e.len() != 1 {
                        return None;
                    }
                    let t = ast::string_value(file, idx, e[0])
                        .unwrap_or_else(|| file.text_of(e[0]).to_string());
                    let t = t.rsplit('.').next().unwrap_or(&t).to_ascii_uppercase();
                    RETROFIT.contains(&t.as_str()).then_some(t)
                }),
            };
            return Some((verb, path, a.byte_range()));
        }
        if RETROFIT.contains(&simple) {
            let path = ast::arg(&args, &["value"])
                .and_then(|v| ast::string_value(file, idx, v))
                .unwrap_or_default();
            return Some((Some(simple.to_string()), path, a.byte_range()));
        }
        if simple == "HTTP" {
            let verb = ast::arg(&args, &["method"])
                .and_then(|v| ast::string_value(file, idx, v))
                .map(|v| v.to_ascii_uppercase());
            let path = ast::arg(&args, &["path"])
                .and_then(|v| ast::string_value(file, idx, v))
                .unwrap_or_default();
            return Some((verb, path, a.byte_range()));
        }
        if simple == "RequestLine" {
            let line = ast::arg(&args, &["value"]).and_then(|v| ast::string_value(file, idx, v))?;
            let mut parts = line.split_whitespace();
            let verb = parts.next()?.to_ascii_uppercase();
            let path = parts.next().unwrap_or("/").to_string();
            return Some((Some(verb), path, a.byte_range()));
        }
    }
    None
}

/// The first string of a value or an array of values.
fn first_string(file: &CodeFile<'_>, idx: &FileIndex, v: Node<'_>) -> Option<String> {
    ast::elements(v)
        .into_iter()
        .find_map(|e| ast::string_value(file, idx, e))
}

/// Headers a method declares: `@RequestHeader("X")`/`@Header("X")` parameters,
/// `@Headers("X: v")`, `headers = "X=v"` of a Spring mapping.
fn declared_headers(file: &CodeFile<'_>, idx: &FileIndex, m: Node<'_>) -> Vec<String> {
    let mut out = Vec::new();
    for a in ast::annotations(m) {
        let simple = ast::annotation_simple(file, a);
        let args = ast::annotation_args(file, a);
        if simple == "Headers" {
            if let Some(v) = ast::arg(&args, &["value"]) {
                for e in ast::elements(v) {
                    if let Some(s) = ast::string_value(file, idx, e) {
                        if let Some((h, _)) = s.split_once(':') {
                            out.push(h.trim().to_ascii_lowercase());
                        }
                    }
                }
            }
        } else if SPRING_MAPPINGS.iter().any(|(n, _)| *n == simple) {
            if let Some(v) = ast::arg(&args, &["headers"]) {
                for e in ast::elements(v) {
                    if let Some(s) = ast::string_value(file, idx, e) {
                        let h = s.split(['=', ':']).next().unwrap_or("").trim();
                        if !h.is_empty() {
                            out.push(h.to_ascii_lowercase());
                        }
                    }
                }
            }
        }
    }
    if let Some(params) = m.child_by_field_name("parameters") {
        for p in ast::descendants(params, "formal_parameter") {
            for a in ast::annotations(p) {
                let simple = ast::annotation_simple(file, a);
                if !matches!(simple, "RequestHeader" | "Header" | "HeaderParam") {
                    continue;
                }
                let args = ast::annotation_args(file, a);
                if let Some(h) = ast::arg(&args, &["value", "name"])
                    .and_then(|v| ast::string_value(file, idx, v))
                {
                    out.push(h.to_ascii_lowercase());
                }
            }
        }
    }
    out
}

/// `prefix` + `path` with one `/` between.
fn join(prefix: &str, path: &str) -> String {
    if prefix.is_empty() {
        return if path.starts_with('/') || path.contains("://") {
            path.to_string()
        } else {
            format!("/{path}")
        };
    }
    if path.is_empty() {
        return prefix.to_string();
    }
    format!(
        "{}/{}",
        prefix.trim_end_matches('/'),
        path.trim_start_matches('/')
    )
}

/// `/orders/{id}` -> `Template("/orders/{}")`; a path without variables is a
/// literal.
fn template(path: &str) -> Url {
    if !path.contains('{') {
        return Url::Literal(path.to_string());
    }
    let mut out = String::new();
    let mut depth = 0;
    for ch in path.chars() {
        match ch {
            '{' => {
                if depth == 0 {
                    out.push_str("{}");
                }
                depth += 1;
            }
            '}' if depth > 0 => depth -= 1,
            _ if depth > 0 => {}
            _ => out.push(ch),
        }
    }
    Url::Template(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_join_and_variables_become_holes() {
        assert_eq!(join("", "orders"), "/orders");
        assert_eq!(join("/api/", "/orders"), "/api/orders");
        assert_eq!(
            join("https://h.example.com", "/x"),
            "https://h.example.com/x"
        );
        assert_eq!(
            template("/orders/{id:\\d+}/items/{n}"),
            Url::Template("/orders/{}/items/{}".into())
        );
        assert_eq!(template("/orders"), Url::Literal("/orders".into()));
    }
}
