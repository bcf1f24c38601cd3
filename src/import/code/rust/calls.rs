//! The HTTP calls of a Rust file: reqwest (and reqwest-middleware) request chains
//! ending in `.send()`: `client.post("url").header("Idempotency-Key", k).send()`,
//! `client.request(Method::POST, url)`. The receiver is the client expression as
//! written (`client`, `self.http`), so calls link to the client stored under that
//! name; header names come from `.header(name, value)`.

use super::super::model::{CallSite, Url};
use super::super::CodeFile;
use super::eval::{self, Consts};
use super::syntax;
use tree_sitter::Node;

/// A request chain read from its `.send()` call.
pub struct Request<'t> {
    /// The call, for the model.
    pub call: CallSite,
    /// The value expressions of the headers it sets, with the header name.
    pub header_values: Vec<(String, Node<'t>)>,
}

/// Reads `send` (a `.send()` call) as a request chain.
pub fn request<'t>(
    file: &CodeFile<'_>,
    consts: &Consts<'_>,
    send: Node<'t>,
) -> Option<Request<'t>> {
    if syntax::method_name(file, send) != "send" {
        return None;
    }
    let mut headers = Vec::new();
    let mut header_values = Vec::new();
    let mut cur = syntax::receiver(send)?;
    for _ in 0..syntax::MAX_UP {
        if cur.kind() != "call_expression" {
            return None;
        }
        let name = syntax::method_name(file, cur);
        let args = syntax::args(cur);
        let verb = match name {
            "get" | "post" | "put" | "patch" | "delete" | "head" if args.len() == 1 => {
                Some((name.to_ascii_uppercase(), args[0]))
            }
            "request" if args.len() == 2 => {
                let m = file.text_of(args[0]);
                let m = m.rsplit("::").next().unwrap_or(m).trim_matches('"');
                Some((m.to_ascii_uppercase(), args[1]))
            }
            _ => None,
        };
        if let Some((method, url)) = verb {
            let recv = syntax::receiver(cur)?;
            headers.sort();
            headers.dedup();
            return Some(Request {
                call: CallSite {
                    receiver: resolve_receiver(file, consts, recv),
                    method: method
                        .chars()
                        .all(|c| c.is_ascii_uppercase())
                        .then_some(method),
                    url: url_of(file, consts, url),
                    span: send.byte_range(),
                    headers,
                },
                header_values,
            });
        }
        if name == "header" && args.len() == 2 {
            if let Some(h) = eval::string(file, consts, args[0]) {
                let h = h.to_ascii_lowercase();
                header_values.push((h.clone(), args[1]));
                headers.push(h);
            } else {
                let t = file.text_of(args[0]);
                if t.to_ascii_uppercase().contains("IDEMPOTENCY_KEY") {
                    headers.push("idempotency-key".into());
                    header_values.push(("idempotency-key".into(), args[1]));
                }
            }
        }
        cur = syntax::receiver(cur)?;
    }
    None
}

/// The receiver as written, or, when it is a variable or field set from a
/// builder function of the program (`let client = http_client();`, `Self {
/// client: http_client() }`), that function's name: the client is stored under it.
fn resolve_receiver(file: &CodeFile<'_>, consts: &Consts<'_>, recv: Node<'_>) -> String {
    let text = file.text_of(recv);
    let last = text.rsplit('.').next().unwrap_or(text);
    let builder_fn = |v: Node<'_>| -> Option<String> {
        let v = syntax::unwrap(v);
        if v.kind() != "call_expression" || !syntax::args(v).is_empty() {
            return None;
        }
        let f = syntax::function_text(file, v);
        let name = f.rsplit("::").next()?;
        let generic = [
            "new", "default", "builder", "clone", "build", "unwrap", "expect",
        ];
        (!generic.contains(&name) && !f.contains('.') && !name.is_empty()).then(|| name.to_string())
    };
    if let Some(name) = consts.get(last).and_then(builder_fn) {
        return name;
    }
    if text.starts_with("self.") {
        for n in syntax::descendants(file.tree.root_node(), 200_000) {
            if n.kind() == "field_initializer"
                && n.child_by_field_name("field")
                    .is_some_and(|f| file.text_of(f) == last)
            {
                if let Some(name) = n.child_by_field_name("value").and_then(builder_fn) {
                    return name;
                }
            }
        }
    }
    text.to_string()
}

/// The URL of a request: a literal, `format!("{}/orders/{}", base, id)` (holes
/// as `{}`), a string constant, `base + "/orders"`.
pub fn url_of(file: &CodeFile<'_>, consts: &Consts<'_>, node: Node<'_>) -> Url {
    let node = syntax::unwrap(node);
    if let Some(s) = eval::string(file, consts, node) {
        return Url::Literal(s);
    }
    let text = file.text_of(node);
    match node.kind() {
        "macro_invocation" if text.starts_with("format!") => {
            let lit = syntax::descendants(node, 64)
                .into_iter()
                .find(|n| n.kind() == "string_literal")
                .and_then(|n| eval::string(file, consts, n));
            match lit {
                Some(f) => Url::Template(holes(&f)),
                None => Url::Unknown(text.to_string()),
            }
        }
        "binary_expression" => {
            let l = node.child_by_field_name("left");
            let r = node.child_by_field_name("right");
            let part = |n: Option<Node<'_>>| {
                n.and_then(|n| eval::string(file, consts, n))
                    .unwrap_or_else(|| "{}".to_string())
            };
            Url::Template(format!("{}{}", part(l), part(r)))
        }
        _ => Url::Unknown(text.to_string()),
    }
}

/// `{}/orders/{id}` -> `{}/orders/{}` (`{{` stays a brace).
fn holes(f: &str) -> String {
    let mut out = String::new();
    let mut chars = f.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '{' => {
                for d in chars.by_ref() {
                    if d == '}' {
                        break;
                    }
                }
                out.push_str("{}");
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            _ => out.push(c),
        }
    }
    out
}

/// True when `value` makes a new random value (a key made per attempt).
pub fn is_fresh_random(text: &str) -> bool {
    [
        "new_v4",
        "new_v7",
        "Uuid::now_v7",
        "rand::",
        "thread_rng",
        "random()",
        "nanoid!",
        "Ulid::new",
    ]
    .iter()
    .any(|m| text.contains(m))
}
