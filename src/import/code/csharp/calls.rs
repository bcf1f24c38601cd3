//! The HTTP calls of a C# file: `HttpClient` verbs (`PostAsync`, `PostAsJsonAsync`,
//! `GetFromJsonAsync`, ...), `SendAsync(new HttpRequestMessage(HttpMethod.Post,
//! "/x"))` with the headers added to that request (`request.Headers.Add(
//! "Idempotency-Key", ...)`), and Refit interface methods (`[Post("/orders")]`,
//! with `[Headers("Idempotency-Key: ...")]` and `[Header("Idempotency-Key")]`
//! parameters).
//!
//! Each call's receiver is `HttpClient:<owner>` ([`attach::receiver_for`]): the
//! class the call is made in (a typed client), the named client of
//! `CreateClient("name")`, or the Refit interface; a call made inside
//! `pipeline.ExecuteAsync(...)` has the pipeline (or Polly policy) as receiver.

use super::super::model::{CallSite, Url};
use super::super::CodeFile;
use super::attach;
use super::eval::{self, Consts};
use super::options;
use super::syntax;
use tree_sitter::Node;

/// `HttpClient` methods and the HTTP method each sends.
const VERBS: &[(&str, &str)] = &[
    ("GetAsync", "GET"),
    ("GetStringAsync", "GET"),
    ("GetStreamAsync", "GET"),
    ("GetByteArrayAsync", "GET"),
    ("GetFromJsonAsync", "GET"),
    ("PostAsync", "POST"),
    ("PostAsJsonAsync", "POST"),
    ("PutAsync", "PUT"),
    ("PutAsJsonAsync", "PUT"),
    ("PatchAsync", "PATCH"),
    ("PatchAsJsonAsync", "PATCH"),
    ("DeleteAsync", "DELETE"),
    ("DeleteFromJsonAsync", "DELETE"),
    ("SendAsync", ""),
    ("Send", ""),
];

/// Reads `call` when it is an `HttpClient` call.
pub fn http_call(file: &CodeFile<'_>, consts: &Consts<'_>, call: Node<'_>) -> Option<CallSite> {
    let name = syntax::method_name(file, call);
    let (_, verb) = VERBS.iter().find(|(m, _)| *m == name)?;
    let recv = syntax::receiver(call)?;
    let recv_text = file.text_of(recv);
    let last = recv_text.rsplit('.').next().unwrap_or(recv_text);
    let class_text = syntax::enclosing(
        call,
        &[
            "class_declaration",
            "record_declaration",
            "struct_declaration",
        ],
    )
    .map_or("", |c| file.text_of(c));
    let lower = last.to_ascii_lowercase();
    if !(class_text.contains("HttpClient") || lower.contains("client") || lower.contains("http")) {
        return None;
    }
    let body = syntax::enclosing(
        call,
        &[
            "method_declaration",
            "local_function_statement",
            "constructor_declaration",
            "lambda_expression",
        ],
    );
    let args = syntax::args(call);
    let mut headers: Vec<String> = Vec::new();
    let (method, url) = if verb.is_empty() {
        let (_, req) = *args.first()?;
        let (creation, req_name) = request_message(file, body, req, call.start_byte());
        let method = creation.and_then(|cr| {
            syntax::args(cr)
                .first()
                .and_then(|(_, m)| options::http_method(file, *m))
                .or_else(|| {
                    initializer_value(file, cr, "Method")
                        .and_then(|m| options::http_method(file, m))
                })
        });
        let url = creation
            .and_then(|cr| {
                syntax::args(cr)
                    .get(1)
                    .map(|(_, u)| *u)
                    .or_else(|| initializer_value(file, cr, "RequestUri"))
            })
            .map_or(Url::Unknown(file.text_of(req).to_string()), |u| {
                url_of(file, consts, u)
            });
        if let Some(cr) = creation {
            headers.extend(initializer_headers(file, cr));
        }
        if let (Some(b), Some(n)) = (body, req_name) {
            headers.extend(added_headers(file, b, &format!("{n}.Headers")));
        }
        (method, url)
    } else {
        let url = syntax::arg(file, &args, "requestUri", 0)
            .map_or(Url::Unknown(String::new()), |u| url_of(file, consts, u));
        (Some(verb.to_string()), url)
    };
    if let Some(b) = body {
        headers.extend(added_headers(
            file,
            b,
            &format!("{recv_text}.DefaultRequestHeaders"),
        ));
    }
    headers.sort();
    headers.dedup();
    Some(CallSite {
        receiver: owner(file, consts, call, recv),
        method,
        url,
        span: call.byte_range(),
        headers,
    })
}

/// Who the call is made through (see the module doc).
fn owner(file: &CodeFile<'_>, consts: &Consts<'_>, call: Node<'_>, recv: Node<'_>) -> String {
    if let Some(exec) = syntax::enclosing_call(file, call, &["ExecuteAsync", "Execute"]) {
        if let Some(p) = syntax::receiver(exec) {
            return file.text_of(p).to_string();
        }
    }
    let recv_text = file.text_of(recv);
    if let Some(v) = consts.var(recv_text) {
        if super::reach::is_plain_client(file, v) {
            return super::reach::PLAIN.to_string();
        }
        let t = file.text_of(v);
        if let Some(i) = t.find("CreateClient(") {
            let rest = &t[i + "CreateClient(".len()..];
            if let Some(name) = rest.strip_prefix('"').and_then(|r| r.split('"').next()) {
                return attach::receiver_for(name);
            }
        }
    }
    if syntax::enclosing(
        call,
        &[
            "class_declaration",
            "record_declaration",
            "struct_declaration",
        ],
    )
    .is_some_and(|c| super::reach::builds_its_own_clients(file, c))
    {
        return super::reach::PLAIN.to_string();
    }
    let class = syntax::enclosing_type_name(file, call).unwrap_or_default();
    attach::receiver_for(&class)
}

/// The `new HttpRequestMessage(...)` a `SendAsync` argument is (inline, or the
/// last local of that name declared before `before` in `body`), and the local's
/// name.
fn request_message<'t>(
    file: &CodeFile<'_>,
    body: Option<Node<'t>>,
    req: Node<'t>,
    before: usize,
) -> (Option<Node<'t>>, Option<String>) {
    if req.kind() == "object_creation_expression" {
        return (Some(req), None);
    }
    if req.kind() != "identifier" {
        return (None, None);
    }
    let name = file.text_of(req).to_string();
    let Some(b) = body else {
        return (None, Some(name));
    };
    let mut found = None;
    for n in syntax::descendants(b, 20_000) {
        if n.start_byte() >= before {
            break;
        }
        if n.kind() == "variable_declarator"
            && n.child_by_field_name("name")
                .is_some_and(|x| file.text_of(x) == name)
        {
            let mut cursor = n.walk();
            found = n
                .named_children(&mut cursor)
                .find(|v| v.kind() == "object_creation_expression");
        }
    }
    (found, Some(name))
}

/// `Name = value` in the object initializer of `creation`.
fn initializer_value<'t>(file: &CodeFile<'_>, creation: Node<'t>, name: &str) -> Option<Node<'t>> {
    let init = creation.child_by_field_name("initializer")?;
    let mut cursor = init.walk();
    let a = init.named_children(&mut cursor).find(|a| {
        a.kind() == "assignment_expression"
            && a.child_by_field_name("left")
                .is_some_and(|l| file.text_of(l).trim() == name)
    })?;
    a.child_by_field_name("right")
}

/// `Headers = { { "Idempotency-Key", key } }` in the initializer.
fn initializer_headers(file: &CodeFile<'_>, creation: Node<'_>) -> Vec<String> {
    let Some(h) = initializer_value(file, creation, "Headers") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for n in syntax::descendants(h, 512) {
        if n.kind() == "initializer_expression" {
            if let Some(first) = n.named_child(0).filter(|f| f.kind() == "string_literal") {
                out.push(file.text_of(first).trim_matches('"').to_ascii_lowercase());
            }
        }
    }
    out
}

/// The header names `target.Add("Name", ...)` / `TryAddWithoutValidation` adds in
/// `body` (`request.Headers`, `_http.DefaultRequestHeaders`).
fn added_headers(file: &CodeFile<'_>, body: Node<'_>, target: &str) -> Vec<String> {
    let mut out = Vec::new();
    for n in syntax::descendants(body, 20_000) {
        if n.kind() != "invocation_expression"
            || !matches!(
                syntax::method_name(file, n),
                "Add" | "TryAddWithoutValidation"
            )
        {
            continue;
        }
        let Some(r) = syntax::receiver(n) else {
            continue;
        };
        let rt: String = file.text_of(r).split_whitespace().collect();
        if rt != target && rt.strip_prefix("this.") != Some(target) {
            continue;
        }
        if let Some((_, first)) = syntax::args(n).first() {
            if first.kind() == "string_literal" {
                out.push(file.text_of(*first).trim_matches('"').to_ascii_lowercase());
            }
        }
    }
    out
}

/// The URL an argument gives: a literal, an interpolated string (`$"/orders/{id}"`
/// -> `/orders/{}`), a concatenation, a string constant, `new Uri("...")`.
pub fn url_of(file: &CodeFile<'_>, consts: &Consts<'_>, node: Node<'_>) -> Url {
    let text = file.text_of(node);
    if let Some(s) = eval::string(file, consts, node) {
        return Url::Literal(rooted(&s));
    }
    match node.kind() {
        "interpolated_string_expression" => {
            let mut out = String::new();
            let mut cursor = node.walk();
            for c in node.named_children(&mut cursor) {
                match c.kind() {
                    "string_content" => out.push_str(file.text_of(c)),
                    "interpolation" => out.push_str("{}"),
                    _ => {}
                }
            }
            Url::Template(rooted(&out))
        }
        "binary_expression" => {
            // `A + B + C`, flattened left to right with an explicit stack.
            let mut parts = Vec::new();
            let mut stack = vec![node];
            while let Some(n) = stack.pop() {
                let plus = n.kind() == "binary_expression"
                    && n.child_by_field_name("operator")
                        .is_some_and(|o| file.text_of(o) == "+");
                if plus {
                    if let (Some(l), Some(r)) = (
                        n.child_by_field_name("left"),
                        n.child_by_field_name("right"),
                    ) {
                        stack.push(r);
                        stack.push(l);
                        continue;
                    }
                }
                parts.push(eval::string(file, consts, n));
            }
            let holes = parts.iter().any(Option::is_none);
            let s: String = parts
                .into_iter()
                .map(|p| p.unwrap_or_else(|| "{}".into()))
                .collect();
            if holes {
                Url::Template(rooted(&s))
            } else {
                Url::Literal(rooted(&s))
            }
        }
        "object_creation_expression" if text.contains("Uri") => syntax::args(node)
            .first()
            .map_or(Url::Unknown(text.to_string()), |(_, v)| {
                url_of(file, consts, *v)
            }),
        _ => Url::Unknown(text.to_string()),
    }
}

/// A relative URL (`api/orders`, resolved against the client's `BaseAddress`)
/// gets its leading `/`.
fn rooted(u: &str) -> String {
    if u.contains("://") || u.starts_with('/') || u.starts_with("{}") || u.is_empty() {
        u.to_string()
    } else {
        format!("/{u}")
    }
}

/// Refit: the methods of `iface` with an HTTP attribute.
pub fn refit(file: &CodeFile<'_>, consts: &Consts<'_>, iface: Node<'_>) -> Vec<CallSite> {
    let Some(name) = iface.child_by_field_name("name") else {
        return Vec::new();
    };
    let iname = file.text_of(name).to_string();
    let iface_headers = attribute_headers(file, iface);
    let Some(body) = iface.child_by_field_name("body") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut cursor = body.walk();
    for m in body.named_children(&mut cursor) {
        if m.kind() != "method_declaration" {
            continue;
        }
        let mut verb = None;
        let mut c2 = m.walk();
        for list in m.named_children(&mut c2) {
            if list.kind() != "attribute_list" {
                continue;
            }
            let mut c3 = list.walk();
            for a in list.named_children(&mut c3) {
                if a.kind() != "attribute" {
                    continue;
                }
                let an = a
                    .child_by_field_name("name")
                    .map_or("", |n| file.text_of(n));
                let an = an.rsplit('.').next().unwrap_or(an);
                let an = an.strip_suffix("Attribute").unwrap_or(an);
                let method = match an {
                    "Get" | "Post" | "Put" | "Patch" | "Delete" | "Head" | "Options" => {
                        an.to_ascii_uppercase()
                    }
                    _ => continue,
                };
                let mut c4 = a.walk();
                let path = a
                    .named_children(&mut c4)
                    .find(|c| c.kind() == "attribute_argument_list")
                    .and_then(|l| l.named_child(0))
                    .and_then(|arg| arg.named_child(arg.named_child_count().saturating_sub(1)))
                    .and_then(|v| eval::string(file, consts, v));
                verb = Some((method, path, a.byte_range()));
            }
        }
        let Some((method, path, span)) = verb else {
            continue;
        };
        let url = match path {
            Some(p) if p.contains('{') => Url::Template(rooted(&holes(&p))),
            Some(p) => Url::Literal(rooted(&p)),
            None => Url::Unknown(String::new()),
        };
        let mut headers = iface_headers.clone();
        headers.extend(attribute_headers(file, m));
        if let Some(params) = m.child_by_field_name("parameters") {
            for n in syntax::descendants(params, 2_000) {
                if n.kind() != "attribute" {
                    continue;
                }
                let an = n
                    .child_by_field_name("name")
                    .map_or("", |x| file.text_of(x));
                if an == "Header" || an == "HeaderAttribute" {
                    if let Some(s) = n
                        .named_child(1)
                        .and_then(|l| l.named_child(0))
                        .and_then(|a| a.named_child(a.named_child_count().saturating_sub(1)))
                        .and_then(|v| eval::string(file, consts, v))
                    {
                        headers.push(s.to_ascii_lowercase());
                    }
                }
            }
        }
        headers.sort();
        headers.dedup();
        out.push(CallSite {
            receiver: attach::receiver_for(&iname),
            method: Some(method),
            url,
            span,
            headers,
        });
    }
    out
}

/// `/orders/{id}` -> `/orders/{}`.
fn holes(p: &str) -> String {
    let mut out = String::new();
    let mut depth = 0;
    for ch in p.chars() {
        match ch {
            '{' => {
                if depth == 0 {
                    out.push_str("{}");
                }
                depth += 1;
            }
            '}' => depth = (depth - 1).max(0),
            _ if depth == 0 => out.push(ch),
            _ => {}
        }
    }
    out
}

/// The header names of `[Headers("Name: value", ...)]` directly on `decl`.
fn attribute_headers(file: &CodeFile<'_>, decl: Node<'_>) -> Vec<String> {
    let mut out = Vec::new();
    let mut cursor = decl.walk();
    for list in decl.named_children(&mut cursor) {
        if list.kind() != "attribute_list" {
            continue;
        }
        for n in syntax::descendants(list, 512) {
            if n.kind() != "attribute" {
                continue;
            }
            let an = n
                .child_by_field_name("name")
                .map_or("", |x| file.text_of(x));
            if an != "Headers" && an != "HeadersAttribute" {
                continue;
            }
            for s in syntax::descendants(n, 256) {
                if s.kind() == "string_literal" {
                    let t = file.text_of(s).trim_matches('"');
                    if let Some((h, _)) = t.split_once(':') {
                        out.push(h.trim().to_ascii_lowercase());
                    }
                }
            }
        }
    }
    out
}

/// A key made inside the lambda a pipeline or policy retries
/// (`pipeline.ExecuteAsync(async ct => { ...; request.Headers.Add("Idempotency-Key",
/// Guid.NewGuid().ToString()); ... })`): every attempt sends a new key (RL208).
/// Returns the span of the value. (A handler on the `HttpClient` re-sends the same
/// request message, so a key made in the calling method is not this.)
pub fn regenerated_key(file: &CodeFile<'_>, call: Node<'_>) -> Option<std::ops::Range<usize>> {
    let exec = syntax::enclosing_call(file, call, &["ExecuteAsync", "Execute"])?;
    let (_, lambda) = *syntax::args(exec).first()?;
    for n in syntax::descendants(lambda, 20_000) {
        if n.kind() != "invocation_expression"
            || !matches!(
                syntax::method_name(file, n),
                "Add" | "TryAddWithoutValidation"
            )
        {
            continue;
        }
        let args = syntax::args(n);
        let (Some((_, k)), Some((_, v))) = (args.first(), args.get(1)) else {
            continue;
        };
        let key = file.text_of(*k).trim_matches('"');
        let value = file.text_of(*v);
        if crate::retry::is_key_header(key)
            && ["Guid.NewGuid", "Ulid.NewUlid", "Random"]
                .iter()
                .any(|m| value.contains(m))
        {
            return Some(v.byte_range());
        }
    }
    None
}
