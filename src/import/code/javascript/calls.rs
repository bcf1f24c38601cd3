//! HTTP calls in JavaScript and TypeScript, on any receiver, so they link to a
//! client by the name it is stored under (here or in another file):
//! `client.post(url, data, config)` (axios), `request.post(url, {headers})` (got,
//! ky), `api('/orders', {method: 'POST'})` (an ofetch or got instance called as a
//! function), `fetch(url, {method})`, `axios({method, url})`, and Octokit's
//! `octokit.request('POST /repos/{owner}/{repo}/issues', ...)`.
//! URLs: string literals, template literals (`Url::Template` with `{}` for each
//! hole), `BASE + '/orders/' + id` concatenations, same-file constants;
//! `process.env.X` and parameters are `Url::Unknown`. Header names come from a
//! literal `headers` object of the options.

use super::super::model::{CallSite, Url};
use super::eval::{self, Value};
use super::{callee_path, Ctx};
use tree_sitter::Node;

const VERBS: &[&str] = &["get", "post", "put", "patch", "delete", "head", "options"];

/// The call site `call` is, if it is an HTTP call.
pub fn read(ctx: &Ctx<'_, '_>, call: Node<'_>) -> Option<CallSite> {
    if call.kind() != "call_expression" {
        return None;
    }
    let f = call.child_by_field_name("function")?;
    let args: Vec<Node<'_>> = {
        let a = call.child_by_field_name("arguments")?;
        let mut cursor = a.walk();
        a.named_children(&mut cursor)
            .filter(|n| n.kind() != "comment")
            .collect()
    };
    let (root, members) = match callee_path(ctx, f) {
        Some(p) => p,
        // `makeHttp(base).post(url)`: a verb on the result of a factory call.
        None => factory_verb(ctx, f)?,
    };
    let first = *args.first()?;
    match members.last() {
        Some(verb) if VERBS.contains(verb) => {
            let receiver = receiver_text(ctx, f)?;
            Some(CallSite {
                receiver,
                method: Some(verb.to_ascii_uppercase()),
                url: url_of(ctx, first),
                span: call.byte_range(),
                headers: headers(ctx, &args[1..]),
            })
        }
        Some(&"request") => {
            let receiver = receiver_text(ctx, f)?;
            // Octokit: `request('POST /repos/{owner}/{repo}/issues', ...)`.
            if let Some(route) = eval::string_of(ctx.file, first) {
                let (m, path) = route.split_once(' ')?;
                if !VERBS.contains(&m.to_ascii_lowercase().as_str()) {
                    return None;
                }
                return Some(CallSite {
                    receiver,
                    method: Some(m.to_ascii_uppercase()),
                    url: octokit_path(path),
                    span: call.byte_range(),
                    headers: headers(ctx, &args[1..]),
                });
            }
            config_call(ctx, call, receiver, &args)
        }
        None => {
            let receiver = root.to_string();
            if ctx.object(first).is_some() && prop_url(ctx, first).is_some() {
                // `axios({method, url})`.
                return config_call(ctx, call, receiver, &args);
            }
            let options = args.get(1).copied();
            Some(CallSite {
                receiver,
                method: method_of(ctx, options),
                url: url_of(ctx, first),
                span: call.byte_range(),
                headers: headers(ctx, &args[1..]),
            })
        }
        _ => None,
    }
}

/// For `f(...).verb`: (`f()`, `[verb]`), so the call is read as a call on that
/// receiver.
fn factory_verb<'a>(ctx: &'a Ctx<'_, '_>, f: Node<'_>) -> Option<(&'a str, Vec<&'a str>)> {
    let f = eval::unwrap(f);
    if f.kind() != "member_expression" {
        return None;
    }
    let obj = eval::unwrap(f.child_by_field_name("object")?);
    let inner = eval::unwrap(obj.child_by_field_name("function")?);
    if obj.kind() != "call_expression" || inner.kind() != "identifier" {
        return None;
    }
    let verb = ctx.file.text_of(f.child_by_field_name("property")?);
    Some((ctx.file.text_of(inner), vec![verb]))
}

fn receiver_text(ctx: &Ctx<'_, '_>, f: Node<'_>) -> Option<String> {
    let f = eval::unwrap(f);
    let obj = f.child_by_field_name("object")?;
    Some(factory_call(ctx, obj).unwrap_or_else(|| ctx.text(obj).to_string()))
}

/// `f()` when the receiver `obj` is the value of a call of the plain function `f`:
/// `makeHttp(base).post(...)`, or a local `const http = makeHttp(base)` declared
/// before the call in an enclosing block (the nearest one), so the call links to
/// a client that `f` returns ([`super::factory_names`]). One level: `f`'s own
/// result, not what a function calling `f` returns.
fn factory_call(ctx: &Ctx<'_, '_>, obj: Node<'_>) -> Option<String> {
    let obj = eval::unwrap(obj);
    let value = match obj.kind() {
        "call_expression" => obj,
        "identifier" => {
            let v = eval::unwrap(local_value(ctx, obj)?);
            if v.kind() == "await_expression" {
                eval::unwrap(v.named_child(0)?)
            } else {
                v
            }
        }
        _ => return None,
    };
    if value.kind() != "call_expression" {
        return None;
    }
    let f = eval::unwrap(value.child_by_field_name("function")?);
    (f.kind() == "identifier").then(|| format!("{}()", ctx.text(f)))
}

/// The value of the nearest declaration of the identifier `name` in the blocks
/// around it, written before it (`const http = makeHttp(base)` in the same
/// function), else the file-level declaration.
fn local_value<'t>(ctx: &Ctx<'_, 't>, name: Node<'t>) -> Option<Node<'t>> {
    let wanted = ctx.text(name);
    let mut n = name;
    while let Some(p) = n.parent() {
        n = p;
        if !matches!(p.kind(), "statement_block" | "program") {
            continue;
        }
        let mut found = None;
        let mut cursor = p.walk();
        for stmt in p.named_children(&mut cursor) {
            if stmt.start_byte() >= name.start_byte() {
                break;
            }
            if !matches!(stmt.kind(), "lexical_declaration" | "variable_declaration") {
                continue;
            }
            let mut c = stmt.walk();
            for d in stmt.named_children(&mut c) {
                let named = d
                    .child_by_field_name("name")
                    .is_some_and(|x| x.kind() == "identifier" && ctx.text(x) == wanted);
                if named {
                    found = d.child_by_field_name("value");
                }
            }
        }
        if found.is_some() {
            return found;
        }
    }
    ctx.scope.decl(wanted)
}

fn prop_url<'t>(ctx: &Ctx<'_, 't>, obj: Node<'t>) -> Option<Node<'t>> {
    eval::prop(ctx.file, ctx.object(obj)?, "url")
}

/// `axios({method: 'post', url: '/orders', headers})`, `client.request({...})`.
fn config_call(
    ctx: &Ctx<'_, '_>,
    call: Node<'_>,
    receiver: String,
    args: &[Node<'_>],
) -> Option<CallSite> {
    let cfg = *args.first()?;
    let url = prop_url(ctx, cfg)?;
    Some(CallSite {
        receiver,
        method: method_of(ctx, Some(cfg)),
        url: url_of(ctx, url),
        span: call.byte_range(),
        headers: headers(ctx, args),
    })
}

/// The method an options object says (`GET` when it has no `method`; `None` when
/// the options or the method are not known statically).
pub fn method_of(ctx: &Ctx<'_, '_>, options: Option<Node<'_>>) -> Option<String> {
    let Some(o) = options else {
        return Some("GET".into());
    };
    let obj = ctx.object(o)?;
    match eval::prop(ctx.file, obj, "method") {
        None => Some("GET".into()),
        Some(m) => match ctx.scope.eval(ctx.file, m, &[]) {
            Some(Value::Str(s)) => Some(s.to_ascii_uppercase()),
            _ => None,
        },
    }
}

/// The lower-case header names set by a literal `headers` object in `args`.
pub fn headers(ctx: &Ctx<'_, '_>, args: &[Node<'_>]) -> Vec<String> {
    let mut out = Vec::new();
    for &a in args {
        let Some(obj) = ctx.object(a) else {
            continue;
        };
        if let Some(h) = eval::prop(ctx.file, obj, "headers").and_then(|h| ctx.object(h)) {
            for (k, _, _) in eval::props(ctx.file, h) {
                out.push(k.to_ascii_lowercase());
            }
        }
    }
    out
}

/// `/repos/{owner}/{repo}` -> a template with `{}` holes.
fn octokit_path(path: &str) -> Url {
    let mut out = String::new();
    let mut holes = false;
    let mut rest = path;
    while let Some(i) = rest.find('{') {
        let Some(j) = rest[i..].find('}') else {
            break;
        };
        out.push_str(&rest[..i]);
        out.push_str("{}");
        holes = true;
        rest = &rest[i + j + 1..];
    }
    out.push_str(rest);
    if holes {
        Url::Template(out)
    } else {
        Url::Literal(out)
    }
}

/// The URL `node` says: a literal, a template (`{}` per unknown part), or unknown.
pub fn url_of(ctx: &Ctx<'_, '_>, node: Node<'_>) -> Url {
    let text = ctx.text(node).to_string();
    let n = eval::unwrap(node);
    if let Some(Value::Str(s)) = ctx.scope.eval(ctx.file, n, &[]) {
        return Url::Literal(s);
    }
    // Flatten `a + b + c` and template literals into parts, left to right.
    let mut parts: Vec<Option<String>> = Vec::new();
    let mut stack = vec![n];
    let mut steps = 0;
    while let Some(x) = stack.pop() {
        steps += 1;
        if steps > 1000 {
            return Url::Unknown(text);
        }
        let x = eval::unwrap(x);
        match x.kind() {
            "binary_expression"
                if x.child_by_field_name("operator")
                    .is_some_and(|o| ctx.text(o) == "+") =>
            {
                if let (Some(l), Some(r)) = (
                    x.child_by_field_name("left"),
                    x.child_by_field_name("right"),
                ) {
                    stack.push(r);
                    stack.push(l);
                }
            }
            "template_string" => {
                let mut cursor = x.walk();
                let kids: Vec<Node<'_>> = x.named_children(&mut cursor).collect();
                for k in kids.into_iter().rev() {
                    stack.push(k);
                }
            }
            "string_fragment" | "escape_sequence" => parts.push(Some(ctx.text(x).to_string())),
            "template_substitution" => match x.named_child(0) {
                Some(e) => match ctx.scope.eval(ctx.file, e, &[]) {
                    Some(Value::Str(s)) => parts.push(Some(s)),
                    Some(Value::Num(v)) => parts.push(Some(format!("{v}"))),
                    _ => parts.push(None),
                },
                None => parts.push(None),
            },
            _ => match ctx.scope.eval(ctx.file, x, &[]) {
                Some(Value::Str(s)) => parts.push(Some(s)),
                _ => parts.push(None),
            },
        }
    }
    if parts.iter().all(Option::is_none) {
        return Url::Unknown(text);
    }
    let mut out = String::new();
    for p in parts {
        match p {
            Some(s) => out.push_str(&s),
            None if out.ends_with("{}") => {}
            None => out.push_str("{}"),
        }
    }
    Url::Template(out)
}
