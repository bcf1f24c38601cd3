//! HTTP call sites (`session.post(url, headers={...})`, `requests.post(...)`,
//! `session.request("POST", url)`) with their URL (literal, f-string or `BASE +
//! "/x"` as a template with `{}` holes) and the header names they set; and RL208:
//! an `Idempotency-Key` generated inside a retried function.

use super::eval::{last_name, string_literal, Ctx, Eval, Val};
use crate::import::code::model::{CallSite, Finding, Url};
use tree_sitter::Node;

const VERBS: [&str; 7] = ["get", "post", "put", "patch", "delete", "head", "options"];

/// Receivers whose `.get(...)` is a mapping lookup, not an HTTP call.
const NOT_HTTP: [&str; 14] = [
    "environ", "headers", "kwargs", "params", "options", "config", "settings", "dict", "cache",
    "data", "json", "response", "resp", "os",
];

/// Reads an HTTP call at `call`, if it is one.
pub fn call_site<'t>(cx: &Ctx<'_, 't>, call: Node<'t>) -> Option<CallSite> {
    let function = call.child_by_field_name("function")?;
    if function.kind() != "attribute" {
        return None;
    }
    let attr = cx.text(function.child_by_field_name("attribute")?);
    let receiver = cx.text(function.child_by_field_name("object")?);
    let recv_last = last_name(receiver)
        .trim_start_matches('_')
        .to_ascii_lowercase();
    if NOT_HTTP.contains(&recv_last.as_str()) {
        return None;
    }
    let pos = cx.positional(call);
    let (method, url_node) = if VERBS.contains(&attr) {
        (
            Some(attr.to_ascii_uppercase()),
            cx.arg(call, "url", Some(0)),
        )
    } else if attr == "request" {
        let m = cx.arg(call, "method", Some(0))?;
        let method = match cx.eval(m) {
            Eval::Known(Val::Str(s)) => Some(s.to_ascii_uppercase()),
            _ => None,
        };
        let url = cx
            .keywords(call)
            .into_iter()
            .find(|(k, _)| *k == "url")
            .map(|(_, v)| v)
            .or_else(|| pos.get(1).copied());
        (method, url)
    } else {
        return None;
    };
    let url_node = url_node?;
    let url = url_of(cx, url_node);
    // `cache.get("key")`-like lookups: a literal that is no URL or path.
    if let Url::Literal(u) = &url {
        if !(u.starts_with('/') || u.contains("://")) {
            return None;
        }
    }
    Some(CallSite {
        receiver: receiver.to_string(),
        method,
        url,
        span: call.byte_range(),
        headers: headers(cx, call),
    })
}

/// The URL written at `node`.
pub fn url_of<'t>(cx: &Ctx<'_, 't>, node: Node<'t>) -> Url {
    let mut parts = String::new();
    let mut holes = 0;
    if !template(cx, node, &mut parts, &mut holes, 0) {
        return Url::Unknown(cx.text(node).to_string());
    }
    if holes == 0 {
        Url::Literal(parts)
    } else if parts == "{}" {
        Url::Unknown(cx.text(node).to_string())
    } else {
        Url::Template(parts)
    }
}

/// Appends the template of `node` to `out` (`{}` for each unknown part); false
/// when nothing about it is known.
fn template<'t>(
    cx: &Ctx<'_, 't>,
    node: Node<'t>,
    out: &mut String,
    holes: &mut usize,
    depth: usize,
) -> bool {
    if depth > 16 {
        return false;
    }
    match node.kind() {
        "string" => {
            let mut cursor = node.walk();
            for part in node.named_children(&mut cursor) {
                match part.kind() {
                    "string_start" | "string_end" => {}
                    "interpolation" => {
                        let inner = part.named_child(0);
                        match inner.map(|i| cx.eval(i)) {
                            Some(Eval::Known(Val::Str(s))) => out.push_str(&s),
                            Some(Eval::Known(Val::Int(i))) => out.push_str(&i.to_string()),
                            _ => {
                                out.push_str("{}");
                                *holes += 1;
                            }
                        }
                    }
                    _ => out.push_str(cx.text(part)),
                }
            }
            true
        }
        "binary_operator"
            if node
                .child_by_field_name("operator")
                .is_some_and(|o| cx.text(o) == "+") =>
        {
            let (Some(l), Some(r)) = (
                node.child_by_field_name("left"),
                node.child_by_field_name("right"),
            ) else {
                return false;
            };
            for side in [l, r] {
                if !template(cx, side, out, holes, depth + 1) {
                    out.push_str("{}");
                    *holes += 1;
                }
            }
            true
        }
        "parenthesized_expression" => node
            .named_child(0)
            .is_some_and(|n| template(cx, n, out, holes, depth + 1)),
        "identifier" => {
            if let Eval::Known(Val::Str(s)) = cx.eval(node) {
                out.push_str(&s);
                return true;
            }
            let r = cx.resolve(node);
            r != node
                && matches!(r.kind(), "string" | "binary_operator")
                && template(cx, r, out, holes, depth + 1)
        }
        _ => match cx.eval(node) {
            Eval::Known(Val::Str(s)) => {
                out.push_str(&s);
                true
            }
            _ => false,
        },
    }
}

/// The header names (lower case) of `headers=` in a call: a dict literal, or a
/// name assigned one in the function or the module.
fn headers<'t>(cx: &Ctx<'_, 't>, call: Node<'t>) -> Vec<String> {
    let Some(h) = cx
        .keywords(call)
        .into_iter()
        .find(|(k, _)| *k == "headers")
        .map(|(_, v)| cx.resolve(v))
    else {
        return Vec::new();
    };
    dict_keys(cx, h)
        .into_iter()
        .map(|(k, _, _)| k.to_ascii_lowercase())
        .collect()
}

/// The string keys of a dict literal (or `dict(k=v)`), with the key and value nodes.
fn dict_keys<'t>(cx: &Ctx<'_, 't>, d: Node<'t>) -> Vec<(String, Node<'t>, Node<'t>)> {
    let mut out = Vec::new();
    if d.kind() != "dictionary" {
        return out;
    }
    let mut cursor = d.walk();
    for pair in d.named_children(&mut cursor) {
        if pair.kind() != "pair" {
            continue;
        }
        let (Some(k), Some(v)) = (
            pair.child_by_field_name("key"),
            pair.child_by_field_name("value"),
        ) else {
            continue;
        };
        let key = string_literal(k, cx.file.text).or_else(|| match cx.eval(k) {
            Eval::Known(Val::Str(s)) => Some(s),
            _ => None,
        });
        if let Some(key) = key {
            out.push((key, k, v));
        }
    }
    out
}

/// Callees that generate a fresh random key.
const GENERATORS: [&str; 6] = [
    "uuid4",
    "uuid1",
    "uuid7",
    "token_hex",
    "token_urlsafe",
    "token_bytes",
];

/// RL208: in `func` (a function or loop body retried as a whole by `lib`), an
/// idempotency-key header whose
/// value is generated in the function (`uuid.uuid4()`, `secrets.token_hex()`,
/// directly or through a local variable): one finding at each generation.
pub fn regenerated_keys<'t>(cx: &Ctx<'_, 't>, func: Node<'t>, lib: &str) -> Vec<Finding> {
    let fname = func
        .child_by_field_name("name")
        .map_or("the retried block", |n| cx.text(n));
    let mut out: Vec<Finding> = Vec::new();
    let mut values: Vec<(String, Node<'t>)> = Vec::new();
    let mut stack = vec![func];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "dictionary" => {
                for (k, _, v) in dict_keys(cx, n) {
                    if crate::retry::is_key_header(&k) {
                        values.push((k, v));
                    }
                }
            }
            // headers["Idempotency-Key"] = ...
            "assignment" => {
                if let (Some(l), Some(r)) = (
                    n.child_by_field_name("left"),
                    n.child_by_field_name("right"),
                ) {
                    if l.kind() == "subscript" {
                        if let Some(k) = l
                            .child_by_field_name("subscript")
                            .and_then(|s| string_literal(s, cx.file.text))
                        {
                            if crate::retry::is_key_header(&k) {
                                values.push((k, r));
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    for (header, v) in values {
        // The value, or what a local name holds.
        let mut todo = vec![(v, 0usize)];
        while let Some((n, depth)) = todo.pop() {
            if depth > 8 {
                continue;
            }
            if n.kind() == "identifier" {
                let r = cx.resolve(n);
                if r != n && r.start_byte() >= func.start_byte() && r.end_byte() <= func.end_byte()
                {
                    todo.push((r, depth + 1));
                }
                continue;
            }
            if n.kind() == "call" {
                let callee = n.child_by_field_name("function").map_or("", |f| cx.text(f));
                if GENERATORS.contains(&last_name(callee)) {
                    if !out.iter().any(|f| f.span == n.byte_range()) {
                        out.push(Finding {
                            code: "RL208",
                            span: n.byte_range(),
                            message: format!(
                                "the `{header}` value is generated by `{}` inside `{fname}`, which {lib} \
                                 retries as a whole: every attempt sends a new key, so the server \
                                 sees each retry as a new request",
                                cx.text(n)
                            ),
                            label: "a new key on every attempt".into(),
                            help: String::new(),
                        });
                    }
                    continue;
                }
            }
            let mut cursor = n.walk();
            for c in n.named_children(&mut cursor) {
                todo.push((c, depth + 1));
            }
        }
    }
    out
}
