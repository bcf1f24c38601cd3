//! HTTP calls in Java method bodies: Spring `RestTemplate` (`postForEntity(url,
//! ...)`, `exchange(url, HttpMethod.POST, ...)`, `put`, `delete`), `WebClient` and
//! `RestClient` chains (`webClient.post().uri("/x")`), the JDK `HttpRequest`
//! builder (`.uri(URI.create(...)).POST(...)`), calls of a wrapper whose name says
//! the verb (`retryRestTemplate.postForEntity(url, body)`), and calls of methods of
//! other types (`paymentClient.charge(req)`), which are joined to declarative
//! interface methods (Feign, `@HttpExchange`, Retrofit) by `Type#method`.
//!
//! Headers a call sets are read from the enclosing method: `headers.set("X", ..)`,
//! `.header("X", ..)`, `.add("X", ..)` with a literal or same-file constant name.

use super::super::model::{CallSite, Span, Url};
use super::super::CodeFile;
use super::ast::{self, FileIndex};
use tree_sitter::Node;

/// Types whose methods are HTTP calls themselves (not wrappers to join by name).
const HTTP_TYPES: &[&str] = &[
    "RestTemplate",
    "TestRestTemplate",
    "RestOperations",
    "WebClient",
    "RestClient",
    "HttpClient",
    "OkHttpClient",
    "HttpRequest",
    "Builder",
    "CloseableHttpClient",
];

/// `RestTemplate` methods and the verb each sends.
const REST_TEMPLATE: &[(&str, &str)] = &[
    ("postForEntity", "POST"),
    ("postForObject", "POST"),
    ("postForLocation", "POST"),
    ("getForEntity", "GET"),
    ("getForObject", "GET"),
    ("patchForObject", "PATCH"),
    ("headForHeaders", "HEAD"),
    ("optionsForAllow", "OPTIONS"),
];

/// What the calls of one body give.
#[derive(Debug, Default)]
pub struct BodyCalls {
    /// HTTP calls made directly.
    pub calls: Vec<CallSite>,
    /// `Type#method` of calls to other types' methods (joined to declarative
    /// interface methods of the run).
    pub names: Vec<(String, Span)>,
    /// Idempotency-key headers whose value is generated in the body (RL208): span
    /// and header name.
    pub regenerated_keys: Vec<(Span, String)>,
}

/// The verb a method name says (`postForEntity` -> POST, `deleteUser` -> DELETE).
pub fn verb_of_name(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    [
        ("post", "POST"),
        ("put", "PUT"),
        ("patch", "PATCH"),
        ("delete", "DELETE"),
        ("get", "GET"),
        ("head", "HEAD"),
    ]
    .into_iter()
    .find(|(p, _)| lower.starts_with(p))
    .map(|(_, v)| v)
}

/// The URL a Java expression gives: a literal, a concatenation (`{}` for the
/// computed parts), `String.format` with `%s`, `URI.create(x)`, or unknown.
pub fn url_of(file: &CodeFile<'_>, idx: &FileIndex, node: Node<'_>) -> Url {
    if let Some(s) = ast::string_value(file, idx, node) {
        return Url::Literal(s);
    }
    match node.kind() {
        "binary_expression" => {
            // Flatten `a + "/x" + b` left to right.
            let mut parts: Vec<Node<'_>> = Vec::new();
            let mut stack = vec![node];
            while let Some(n) = stack.pop() {
                let is_plus = n.kind() == "binary_expression"
                    && n.child_by_field_name("operator")
                        .is_some_and(|o| file.text_of(o) == "+");
                if is_plus {
                    if let (Some(l), Some(r)) = (
                        n.child_by_field_name("left"),
                        n.child_by_field_name("right"),
                    ) {
                        stack.push(r);
                        stack.push(l);
                        continue;
                    }
                }
                parts.push(n);
            }
            let mut out = String::new();
            let mut any_literal = false;
            for p in parts {
                match ast::string_value(file, idx, p) {
                    Some(s) => {
                        any_literal = true;
                        out.push_str(&s);
                    }
                    None => {
                        if !out.ends_with("{}") {
                            out.push_str("{}");
                        }
                    }
                }
            }
            if any_literal {
                Url::Template(out)
            } else {
                Url::Unknown(file.text_of(node).to_string())
            }
        }
        "method_invocation" => {
            let name = node
                .child_by_field_name("name")
                .map_or("", |n| file.text_of(n));
            let args = node.child_by_field_name("arguments");
            let first = args.and_then(|a| a.named_child(0));
            match (name, first) {
                ("create", Some(a)) | ("fromUriString", Some(a)) | ("fromHttpUrl", Some(a)) => {
                    url_of(file, idx, a)
                }
                ("format", Some(a)) => match ast::string_value(file, idx, a) {
                    Some(f) => {
                        Url::Template(f.replace("%s", "{}").replace("%d", "{}").replace("%%", "%"))
                    }
                    None => Url::Unknown(file.text_of(node).to_string()),
                },
                _ => Url::Unknown(file.text_of(node).to_string()),
            }
        }
        _ => Url::Unknown(file.text_of(node).to_string()),
    }
}

/// True when an argument looks like a URL (a literal path or URL, a concatenation
/// holding one, or a variable named like one).
fn url_like(file: &CodeFile<'_>, idx: &FileIndex, node: Node<'_>) -> bool {
    match url_of(file, idx, node) {
        Url::Literal(s) | Url::Template(s) => {
            s.starts_with('/') || s.starts_with("{}") || s.contains("://")
        }
        _ => {
            let t = file.text_of(node).to_ascii_lowercase();
            ["url", "uri", "path", "endpoint"]
                .iter()
                .any(|k| t.contains(k))
        }
    }
}

/// The declared type of a receiver (`x`, `this.x`), if the file says it.
fn receiver_type(file: &CodeFile<'_>, idx: &FileIndex, object: Node<'_>) -> Option<String> {
    let name = match object.kind() {
        "identifier" => file.text_of(object),
        "field_access" => object
            .child_by_field_name("field")
            .map(|f| file.text_of(f))?,
        _ => return None,
    };
    idx.types.get(name).cloned()
}

/// The header names set anywhere in `scope` (lower case), with the value node.
pub fn headers_set<'t>(
    file: &CodeFile<'_>,
    idx: &FileIndex,
    scope: Node<'t>,
) -> Vec<(String, Node<'t>)> {
    let mut out = Vec::new();
    for inv in ast::descendants(scope, "method_invocation") {
        let name = inv
            .child_by_field_name("name")
            .map_or("", |n| file.text_of(n));
        if !matches!(
            name,
            "set" | "add" | "header" | "addHeader" | "setHeader" | "put" | "headers"
        ) {
            continue;
        }
        let Some(args) = inv.child_by_field_name("arguments") else {
            continue;
        };
        let (Some(k), Some(v)) = (args.named_child(0), args.named_child(1)) else {
            continue;
        };
        if let Some(h) = ast::string_value(file, idx, k) {
            if !h.is_empty() && !h.contains(' ') && !h.contains('/') {
                out.push((h.to_ascii_lowercase(), v));
            }
        }
    }
    out
}

/// True when `value` (a header value expression in `scope`) is generated there: a
/// `UUID.randomUUID()` (or a local variable initialised from one in `scope`).
fn generated_in(file: &CodeFile<'_>, scope: Node<'_>, value: Node<'_>) -> bool {
    let t = file.text_of(value);
    if t.contains("randomUUID") || t.contains("UlidCreator") || t.contains("nanoTime") {
        return true;
    }
    if value.kind() != "identifier" {
        return false;
    }
    ast::descendants(scope, "variable_declarator")
        .iter()
        .any(|d| {
            d.child_by_field_name("name")
                .is_some_and(|n| file.text_of(n) == t)
                && d.child_by_field_name("value")
                    .is_some_and(|v| file.text_of(v).contains("randomUUID"))
        })
}

/// The HTTP calls, joined names and regenerated keys of a retried `body` (a method
/// body or a class body). `params`: the enclosing method's parameter names.
pub fn in_body(file: &CodeFile<'_>, idx: &FileIndex, body: Node<'_>) -> BodyCalls {
    let mut out = BodyCalls::default();
    let headers = headers_set(file, idx, body);
    for (h, v) in &headers {
        if crate::retry::is_key_header(h) && generated_in(file, body, *v) {
            out.regenerated_keys.push((v.byte_range(), h.clone()));
        }
    }
    let header_names: Vec<String> = headers.into_iter().map(|(h, _)| h).collect();
    for inv in ast::descendants(body, "method_invocation") {
        match http_call(file, idx, inv) {
            Some(Http::Call(mut c)) => {
                c.headers = header_names.clone();
                out.calls.push(c);
            }
            Some(Http::Joined(name)) => out.names.push((name, inv.byte_range())),
            None => {}
        }
    }
    out
}

/// Calls of wrappers outside retried bodies (`retryRestTemplate.postForEntity(url,
/// ...)` in a service), as unattached calls whose receiver is `Type#method`: they
/// join a `@Retryable` on that wrapper method (named `Type#method`).
pub fn wrapper_calls(file: &CodeFile<'_>, idx: &FileIndex, root: Node<'_>) -> Vec<CallSite> {
    let mut out = Vec::new();
    for inv in ast::descendants(root, "method_invocation") {
        let (Some(object), Some(name)) = (
            inv.child_by_field_name("object"),
            inv.child_by_field_name("name"),
        ) else {
            continue;
        };
        let Some(ty) = receiver_type(file, idx, object) else {
            continue;
        };
        if HTTP_TYPES.contains(&ty.as_str()) {
            continue;
        }
        let name = file.text_of(name);
        let Some(verb) = verb_of_name(name) else {
            continue;
        };
        let Some(first) = inv
            .child_by_field_name("arguments")
            .and_then(|a| a.named_child(0))
        else {
            continue;
        };
        if !url_like(file, idx, first) {
            continue;
        }
        let scope =
            ast::ancestor(inv, &["method_declaration", "constructor_declaration"]).unwrap_or(root);
        out.push(CallSite {
            receiver: format!("{ty}#{name}"),
            method: Some(verb.to_string()),
            url: url_of(file, idx, first),
            span: inv.byte_range(),
            headers: headers_set(file, idx, scope)
                .into_iter()
                .map(|(h, _)| h)
                .collect(),
        });
    }
    out
}

enum Http {
    Call(CallSite),
    Joined(String),
}

fn http_call(file: &CodeFile<'_>, idx: &FileIndex, inv: Node<'_>) -> Option<Http> {
    let name = file.text_of(inv.child_by_field_name("name")?);
    let args = inv.child_by_field_name("arguments");
    let arg = |i: usize| args.and_then(|a| a.named_child(i));
    let object = inv.child_by_field_name("object");
    let ty = object.and_then(|o| receiver_type(file, idx, o));
    let receiver = object.map_or(String::new(), |o| file.text_of(o).to_string());
    let is_template = ty
        .as_deref()
        .is_some_and(|t| t.contains("RestTemplate") || t == "RestOperations")
        || receiver.to_ascii_lowercase().contains("template");
    let call = |method: Option<String>, url: Url| {
        Some(Http::Call(CallSite {
            receiver: receiver.clone(),
            method,
            url,
            span: inv.byte_range(),
            headers: Vec::new(),
        }))
    };
    // RestTemplate.
    if let Some((_, verb)) = REST_TEMPLATE.iter().find(|(n, _)| *n == name) {
        if ty.as_deref().is_none_or(|t| HTTP_TYPES.contains(&t)) || is_template {
            let url = arg(0).map_or(Url::Unknown(String::new()), |a| url_of(file, idx, a));
            return call(Some(verb.to_string()), url);
        }
    }
    if matches!(name, "exchange" | "execute") && object.is_some() {
        let second = arg(1).map(|a| file.text_of(a)).unwrap_or("");
        if is_template || second.contains("HttpMethod.") {
            let method = second
                .strip_prefix("HttpMethod.")
                .map(|m| m.to_ascii_uppercase())
                .filter(|m| m.chars().all(|c| c.is_ascii_alphabetic()));
            let url = arg(0).map_or(Url::Unknown(String::new()), |a| url_of(file, idx, a));
            return call(method, url);
        }
    }
    if matches!(name, "put" | "delete") && is_template {
        let url = arg(0).map_or(Url::Unknown(String::new()), |a| url_of(file, idx, a));
        return call(Some(name.to_ascii_uppercase()), url);
    }
    // WebClient / RestClient / HttpRequest chains: read at the `uri(...)` link.
    if name == "uri" {
        let url = arg(0).map_or(Url::Unknown(String::new()), |a| url_of(file, idx, a));
        // The verb before (`webClient.post().uri(..)`) or after
        // (`HttpRequest.newBuilder().uri(..).POST(..)`) in the chain.
        let mut method = None;
        let mut root = String::new();
        let mut n = object;
        while let Some(o) = n {
            if o.kind() != "method_invocation" {
                root = file.text_of(o).to_string();
                break;
            }
            let link = o
                .child_by_field_name("name")
                .map_or("", |x| file.text_of(x));
            if let Some(m) = chain_verb(file, o, link) {
                method = Some(m);
            }
            n = o.child_by_field_name("object");
        }
        let mut up = inv.parent();
        while let Some(p) = up {
            if p.kind() != "method_invocation" {
                break;
            }
            let link = p
                .child_by_field_name("name")
                .map_or("", |x| file.text_of(x));
            if method.is_none() {
                if let Some(m) = chain_verb(file, p, link) {
                    method = Some(m);
                }
            }
            up = p.parent();
        }
        method.as_ref()?;
        let mut c = CallSite {
            receiver: root,
            method,
            url,
            span: inv.byte_range(),
            headers: Vec::new(),
        };
        // Headers set in the chain itself are found by `headers_set` on the body.
        c.headers.clear();
        return Some(Http::Call(c));
    }
    // A wrapper named by its verb with a URL argument, or another type's method.
    let ty = ty?;
    if HTTP_TYPES.contains(&ty.as_str()) {
        return None;
    }
    if let (Some(verb), Some(first)) = (verb_of_name(name), arg(0)) {
        if url_like(file, idx, first) {
            return call(Some(verb.to_string()), url_of(file, idx, first));
        }
    }
    Some(Http::Joined(format!("{ty}#{name}")))
}

/// The verb a chain link sets: `post()` (WebClient, RestClient), `POST(body)`
/// (JDK `HttpRequest.Builder`), `method(HttpMethod.POST)`.
fn chain_verb(file: &CodeFile<'_>, link_node: Node<'_>, link: &str) -> Option<String> {
    let args = link_node.child_by_field_name("arguments")?;
    let argc = args.named_child_count();
    match link {
        "post" | "put" | "patch" | "delete" | "get" | "head" | "options" if argc == 0 => {
            Some(link.to_ascii_uppercase())
        }
        "POST" | "PUT" | "DELETE" | "GET" => Some(link.to_string()),
        "method" => {
            let a = file.text_of(args.named_child(0)?);
            let m = a.rsplit('.').next().unwrap_or(a);
            m.chars()
                .all(|c| c.is_ascii_alphabetic())
                .then(|| m.to_ascii_uppercase())
                .filter(|m| !m.is_empty())
        }
        _ => None,
    }
}
