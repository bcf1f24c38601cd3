//! HTTP calls made through a Go client: resty requests
//! (`client.R().SetHeader("Idempotency-Key", k).SetBody(b).Post(url)`,
//! `.Execute("POST", url)`), go-retryablehttp's helpers (`client.Post(url, ct,
//! body)`, `Get`, `Head`, `PostForm`) and `client.Do(req)` with `req` built in the
//! same file by `retryablehttp.NewRequest("POST", url, body)` (or
//! `NewRequestWithContext`, or `http.NewRequest` for a `StandardClient()`), with
//! the headers set on `req.Header.Set(..)`.
//!
//! The receiver is kept as written so [`crate::import::code::link`] joins it to
//! the client stored under that name, in this file or another
//! (`utils.RestyClient`). A local alias (`client := utils.RestyClient`,
//! `std := rc.StandardClient()`) is followed back to what it names; a trailing
//! `.StandardClient()` keeps the client's identity.

use super::eval::{self, Val};
use super::Ctx;
use crate::import::code::model::{CallSite, Url};
use std::collections::HashMap;
use tree_sitter::Node;

const RESTY_VERBS: &[&str] = &["Get", "Post", "Put", "Patch", "Delete", "Head", "Options"];

/// How many alias hops are followed.
const MAX_ALIAS_HOPS: usize = 8;

/// A request built for `Do`: its method and URL expressions and the headers set
/// on it.
struct Built<'t> {
    method: Option<Node<'t>>,
    url: Option<Node<'t>>,
    headers: Vec<String>,
}

/// The calls of the file.
pub fn read(ctx: &Ctx<'_>) -> Vec<CallSite> {
    let aliases = aliases(ctx);
    let requests = requests(ctx);
    let mut out = Vec::new();
    for &call in &ctx.calls {
        let Some(f) = call.child_by_field_name("function") else {
            continue;
        };
        if f.kind() != "selector_expression" {
            continue;
        }
        let (Some(op), Some(field)) = (
            f.child_by_field_name("operand"),
            f.child_by_field_name("field"),
        ) else {
            continue;
        };
        let verb = ctx.text(field);
        let args: Vec<Node<'_>> = call
            .child_by_field_name("arguments")
            .map(|a| {
                let mut c = a.walk();
                a.named_children(&mut c).collect()
            })
            .unwrap_or_default();
        // resty: `X.R()...Verb(url)` or `.Execute(method, url)`.
        if RESTY_VERBS.contains(&verb) || verb == "Execute" {
            if let Some((receiver, headers)) = resty_request(ctx, op) {
                let (method, url) = if verb == "Execute" {
                    (args.first().and_then(|m| method_of(ctx, *m)), args.get(1))
                } else {
                    (Some(verb.to_ascii_uppercase()), args.first())
                };
                out.push(CallSite {
                    receiver: resolve(ctx, &aliases, &receiver),
                    method,
                    url: url.map_or(Url::Unknown(String::new()), |u| url_of(ctx, *u)),
                    span: call.byte_range(),
                    headers,
                });
                continue;
            }
        }
        if op.kind() == "identifier" && ctx.imports.is_package(ctx.text(op)) {
            continue; // `http.Get(..)`, `retryablehttp.Post(..)`: no client value
        }
        let receiver = ctx.text(op).to_string();
        match verb {
            "Get" | "Head" | "Post" | "PostForm" if !args.is_empty() => {
                let method = if verb == "PostForm" { "POST" } else { verb };
                // `Get(url)` takes one argument, `Post(url, bodyType, body)` three,
                // `PostForm(url, data)` two: a different arity is another API.
                let arity = match verb {
                    "Get" | "Head" => 1,
                    "PostForm" => 2,
                    _ => 3,
                };
                if args.len() != arity {
                    continue;
                }
                out.push(CallSite {
                    receiver: resolve(ctx, &aliases, &receiver),
                    method: Some(method.to_ascii_uppercase()),
                    url: url_of(ctx, args[0]),
                    span: call.byte_range(),
                    headers: Vec::new(),
                });
            }
            "Do" if args.len() == 1 => {
                let built = (args[0].kind() == "identifier")
                    .then(|| requests.get(ctx.text(args[0])))
                    .flatten();
                let Some(built) = built else {
                    continue;
                };
                out.push(CallSite {
                    receiver: resolve(ctx, &aliases, &receiver),
                    method: built.method.and_then(|m| method_of(ctx, m)),
                    url: built
                        .url
                        .map_or(Url::Unknown(String::new()), |u| url_of(ctx, u)),
                    span: call.byte_range(),
                    headers: built.headers.clone(),
                });
            }
            _ => {}
        }
    }
    out
}

/// For `X.R().SetHeader(..)...` (the operand of the verb): the receiver `X` and
/// the header names set along the chain.
fn resty_request(ctx: &Ctx<'_>, mut node: Node<'_>) -> Option<(String, Vec<String>)> {
    let mut headers = Vec::new();
    for _ in 0..256 {
        if node.kind() != "call_expression" {
            return None;
        }
        let f = node.child_by_field_name("function")?;
        if f.kind() != "selector_expression" {
            return None;
        }
        let op = f.child_by_field_name("operand")?;
        let field = ctx.text(f.child_by_field_name("field")?);
        let args = node.child_by_field_name("arguments");
        match field {
            "R" | "NewRequest" => return Some((ctx.text(op).to_string(), headers)),
            "SetHeader" => {
                if let Some(Val::Str(h)) = args
                    .and_then(|a| a.named_child(0))
                    .map(|k| eval::eval(ctx.file.text, &ctx.imports, &ctx.consts, k))
                {
                    headers.push(h.to_ascii_lowercase());
                }
            }
            "SetHeaders" => {
                if let Some(m) = args.and_then(|a| a.named_child(0)) {
                    headers.extend(map_keys(ctx, m));
                }
            }
            _ => {}
        }
        node = op;
    }
    None
}

/// The string keys of a `map[string]string{...}` literal, lower case.
fn map_keys(ctx: &Ctx<'_>, m: Node<'_>) -> Vec<String> {
    let Some(body) = m
        .child_by_field_name("body")
        .filter(|_| m.kind() == "composite_literal")
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut c = body.walk();
    for el in body.named_children(&mut c) {
        if let Some(Val::Str(k)) = el
            .child_by_field_name("key")
            .map(|k| eval::eval(ctx.file.text, &ctx.imports, &ctx.consts, k))
        {
            out.push(k.to_ascii_lowercase());
        }
    }
    out
}

/// Local aliases: `x := <selector or identifier>`, `x := y.StandardClient()`,
/// and `x := f()` / `var x = f()` where `f` is a function of this file or of
/// another package of the project (`utils.NewClient()`), so a client returned
/// by a function is reached through the variable that stores it. Calls of the
/// retry libraries themselves (`resty.New()`) are not aliases: the variable is
/// the client's own name.
fn aliases(ctx: &Ctx<'_>) -> HashMap<String, String> {
    let mut pairs: Vec<(Node<'_>, Node<'_>)> = Vec::new();
    for &stmt in &ctx.assignments {
        let (Some(l), Some(r)) = (
            stmt.child_by_field_name("left"),
            stmt.child_by_field_name("right"),
        ) else {
            continue;
        };
        if l.named_child_count() != 1 || r.named_child_count() != 1 {
            continue;
        }
        if let (Some(l), Some(r)) = (l.named_child(0), r.named_child(0)) {
            pairs.push((l, r));
        }
    }
    for &spec in &ctx.vars {
        let names: Vec<Node<'_>> = {
            let mut c = spec.walk();
            spec.children_by_field_name("name", &mut c).collect()
        };
        let value = spec.child_by_field_name("value");
        if let ([name], Some(v)) = (names.as_slice(), value) {
            if v.named_child_count() == 1 {
                if let Some(v) = v.named_child(0) {
                    pairs.push((*name, v));
                }
            }
        }
    }
    let mut out = HashMap::new();
    for (l, r) in pairs {
        if l.kind() != "identifier" {
            continue;
        }
        let target = match r.kind() {
            "selector_expression" | "identifier" => ctx.text(r),
            "call_expression" => {
                let text = ctx.text(r);
                if let Some(t) = strip_standard_client(text) {
                    t
                } else {
                    let Some(callee) = r.child_by_field_name("function") else {
                        continue;
                    };
                    let local =
                        callee.kind() == "identifier" && ctx.funcs.contains_key(ctx.text(callee));
                    let project = callee.kind() == "selector_expression"
                        && callee.child_by_field_name("operand").is_some_and(|p| {
                            let p = ctx.text(p);
                            p != "fmt"
                                && ctx.imports.is_package(p)
                                && !ctx.imports.is_resty(p)
                                && !ctx.imports.is_retryablehttp(p)
                                && !ctx.imports.is_http(p)
                        });
                    if !(local || project) {
                        continue;
                    }
                    ctx.text(callee)
                }
            }
            _ => continue,
        };
        let name = ctx.text(l);
        if target != name {
            out.insert(name.to_string(), target.to_string());
        }
    }
    out
}

fn strip_standard_client(text: &str) -> Option<&str> {
    text.strip_suffix(".StandardClient()")
}

/// Follows local aliases and drops a trailing `.StandardClient()`.
fn resolve(_ctx: &Ctx<'_>, aliases: &HashMap<String, String>, receiver: &str) -> String {
    let mut cur = strip_standard_client(receiver)
        .unwrap_or(receiver)
        .to_string();
    for _ in 0..MAX_ALIAS_HOPS {
        match aliases.get(&cur) {
            Some(next) => cur = strip_standard_client(next).unwrap_or(next).to_string(),
            None => break,
        }
    }
    cur
}

/// Requests built in the file: `req, err := retryablehttp.NewRequest(m, url, b)`
/// (also `NewRequestWithContext(ctx, m, url, b)` and `http.NewRequest*`), by
/// variable name, with the headers `req.Header.Set/Add("K", v)` sets.
fn requests<'t>(ctx: &Ctx<'t>) -> HashMap<String, Built<'t>> {
    let mut out: HashMap<String, Built<'t>> = HashMap::new();
    for &stmt in &ctx.assignments {
        let (Some(l), Some(r)) = (
            stmt.child_by_field_name("left"),
            stmt.child_by_field_name("right"),
        ) else {
            continue;
        };
        let (Some(var), Some(call)) = (l.named_child(0), r.named_child(0)) else {
            continue;
        };
        if call.kind() != "call_expression" || var.kind() != "identifier" {
            continue;
        }
        let Some(f) = call.child_by_field_name("function") else {
            continue;
        };
        let text = ctx.text(f);
        let Some((pkg, name)) = text.split_once('.') else {
            continue;
        };
        if !(ctx.imports.is_retryablehttp(pkg) || ctx.imports.is_http(pkg)) {
            continue;
        }
        let skip = match name {
            "NewRequest" => 0,
            "NewRequestWithContext" => 1,
            _ => continue,
        };
        let args: Vec<Node<'t>> = call
            .child_by_field_name("arguments")
            .map(|a| {
                let mut c = a.walk();
                a.named_children(&mut c).collect()
            })
            .unwrap_or_default();
        out.insert(
            ctx.text(var).to_string(),
            Built {
                method: args.get(skip).copied(),
                url: args.get(skip + 1).copied(),
                headers: Vec::new(),
            },
        );
    }
    // `req.Header.Set("Idempotency-Key", k)`
    for &call in &ctx.calls {
        let Some(f) = call.child_by_field_name("function") else {
            continue;
        };
        let text = ctx.text(f);
        let Some((var, rest)) = text.split_once('.') else {
            continue;
        };
        if !matches!(rest, "Header.Set" | "Header.Add") {
            continue;
        }
        let Some(b) = out.get_mut(var) else {
            continue;
        };
        if let Some(Val::Str(h)) = call
            .child_by_field_name("arguments")
            .and_then(|a| a.named_child(0))
            .map(|k| eval::eval(ctx.file.text, &ctx.imports, &ctx.consts, k))
        {
            b.headers.push(h.to_ascii_lowercase());
        }
    }
    out
}

/// An HTTP method: a string literal or constant, or `http.MethodPost` /
/// `resty.MethodPost`.
fn method_of(ctx: &Ctx<'_>, node: Node<'_>) -> Option<String> {
    if let Val::Str(m) = eval::eval(ctx.file.text, &ctx.imports, &ctx.consts, node) {
        return Some(m.to_ascii_uppercase());
    }
    let text = ctx.text(node);
    let (pkg, name) = text.split_once('.')?;
    if !(ctx.imports.is_http(pkg) || ctx.imports.is_resty(pkg)) {
        return None;
    }
    let m = name.strip_prefix("Method")?;
    (!m.is_empty()).then(|| m.to_ascii_uppercase())
}

/// The URL of a call: a literal, a concatenation with literal parts
/// (`base + "/orders/" + id` -> `{}/orders/{}`), `fmt.Sprintf` with a literal
/// format (each verb a hole), or unknown.
pub fn url_of(ctx: &Ctx<'_>, node: Node<'_>) -> Url {
    let text = ctx.text(node);
    match eval::eval(ctx.file.text, &ctx.imports, &ctx.consts, node) {
        Val::Str(s) => return Url::Literal(s),
        Val::Unknown(_) => {}
        _ => return Url::Unknown(text.to_string()),
    }
    if node.kind() == "binary_expression" {
        // Flatten `a + b + c` (left-nested) with an explicit stack.
        let mut parts: Vec<Node<'_>> = Vec::new();
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            let is_plus = n.kind() == "binary_expression"
                && n.child_by_field_name("operator")
                    .is_some_and(|o| ctx.text(o) == "+");
            match (
                is_plus,
                n.child_by_field_name("left"),
                n.child_by_field_name("right"),
            ) {
                (true, Some(l), Some(r)) => {
                    stack.push(r);
                    stack.push(l);
                }
                _ => parts.push(n),
            }
        }
        let mut out = String::new();
        let mut any_literal = false;
        for p in parts {
            match eval::eval(ctx.file.text, &ctx.imports, &ctx.consts, p) {
                Val::Str(s) => {
                    any_literal = true;
                    out.push_str(&s);
                }
                _ => {
                    if !out.ends_with("{}") {
                        out.push_str("{}");
                    }
                }
            }
        }
        if any_literal {
            return Url::Template(out);
        }
    }
    if node.kind() == "call_expression" {
        let callee = node
            .child_by_field_name("function")
            .map_or("", |f| ctx.text(f));
        if callee == "fmt.Sprintf" {
            if let Some(Val::Str(format)) = node
                .child_by_field_name("arguments")
                .and_then(|a| a.named_child(0))
                .map(|f| eval::eval(ctx.file.text, &ctx.imports, &ctx.consts, f))
            {
                return Url::Template(format_holes(&format));
            }
        }
    }
    Url::Unknown(text.to_string())
}

/// `"%s/orders/%d"` -> `"{}/orders/{}"` (`%%` stays a `%`).
fn format_holes(format: &str) -> String {
    let mut out = String::new();
    let mut chars = format.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch != '%' {
            out.push(ch);
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            out.push('%');
            continue;
        }
        // Flags, width, precision, then the verb letter.
        while let Some(&n) = chars.peek() {
            chars.next();
            if n.is_ascii_alphabetic() {
                break;
            }
        }
        out.push_str("{}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sprintf_holes() {
        assert_eq!(format_holes("%s/orders/%d"), "{}/orders/{}");
        assert_eq!(format_holes("%v/a%%b/%05d"), "{}/a%b/{}");
    }
}
