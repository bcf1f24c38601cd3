//! The Python extractor: retry clients and HTTP calls of one file
//! (`retry-in-code.md` §1.1):
//! - urllib3 `Retry(...)` and its subclasses ([`urllib3`]; an overridden
//!   `is_retry` is a custom condition), requests `HTTPAdapter(max_retries=...)`
//!   mounted on a session (`s.mount(prefix, adapter)`: the session names the
//!   client);
//! - tenacity `@retry` / `Retrying(...)` ([`tenacity`]) and backoff
//!   `on_exception` / `on_predicate` ([`backoff`]): calls inside the decorated
//!   function are the client's, and a key generated there is RL208 ([`calls`]);
//! - aiohttp-retry `RetryClient` / `ExponentialRetry` and the 1.x per-call
//!   `retry_attempts=` ([`aiohttp`]);
//! - Stainless-generated SDK constructors (`OpenAI(max_retries=...)`) with the
//!   SDK's own retry defaults ([`stainless`]);
//! - HTTP calls ([`calls`]) on any receiver, linked to clients by name.
//!
//! Values are literals or same-file constants ([`eval`]), library defaults named
//! with the library and version, or assumed (RL019) ([`settings`]).

pub mod aiohttp;
pub mod backoff;
pub mod calls;
pub mod eval;
pub mod pins;
pub mod settings;
pub mod stainless;
pub mod tenacity;
pub mod urllib3;

use super::model::{CodeClient, CodeFacts, Span};
use super::CodeFile;
use eval::{last_name, Ctx};
use std::collections::HashMap;
use tree_sitter::Node;

/// Reads the retry clients and calls of `file`.
pub fn extract(file: &CodeFile<'_>) -> CodeFacts {
    let cx = Ctx::new(file);
    let text = file.text;
    let has = |s: &str| text.contains(s);
    let (tenacity_file, backoff_file, aiohttp_file) =
        (has("tenacity"), has("backoff"), has("aiohttp_retry"));
    let aiohttp_1x = has("retry_attempts=");
    let subclasses = urllib3::subclasses(&cx);

    let mut call_nodes: Vec<Node<'_>> = Vec::new();
    let mut decorated: Vec<Node<'_>> = Vec::new();
    let mut stack = vec![file.tree.root_node()];
    // One cursor for the walk (`named_children` and `children` reset it to
    // each node): a cursor per node cost an allocation each.
    let mut cursor = file.tree.walk();
    while let Some(node) = stack.pop() {
        match node.kind() {
            "call" => call_nodes.push(node),
            "decorated_definition" => decorated.push(node),
            _ => {}
        }
        stack.extend(node.named_children(&mut cursor));
    }
    call_nodes.sort_by_key(|n| n.start_byte());
    decorated.sort_by_key(|n| n.start_byte());

    let mut out = CodeFacts::default();
    // Decorated functions retried as a whole: (body range, client index).
    let mut scopes: Vec<(Span, usize)> = Vec::new();
    // Client index by the span of the construct that built it.
    let mut by_span: HashMap<(usize, usize), usize> = HashMap::new();

    for d in &decorated {
        let Some(def) = d
            .child_by_field_name("definition")
            .filter(|f| f.kind() == "function_definition")
        else {
            continue;
        };
        let mut cursor = d.walk();
        let decorators: Vec<Node<'_>> = d
            .named_children(&mut cursor)
            .filter(|n| n.kind() == "decorator")
            .collect();
        for dec in decorators {
            let Some(expr) = dec.named_child(0) else {
                continue;
            };
            let callee = match expr.kind() {
                "call" => expr
                    .child_by_field_name("function")
                    .map_or("", |f| cx.text(f)),
                _ => cx.text(expr),
            };
            let name = last_name(callee);
            // `api_retry = retry(...)` then `@api_retry`: the decorator object kept
            // in a module-level variable of this file.
            let kept = (tenacity_file && expr.kind() == "identifier")
                .then(|| cx.resolve(expr))
                .filter(|r| *r != expr && is_tenacity_retry_call(&cx, *r));
            let (client, lib) = if let Some(r) = kept {
                // Named by the function only: a file importing `api_retry` from
                // another module must not link to this file's object of that name.
                let c = tenacity::client(&cx, r, &format!("@{callee}"));
                // The constructor loop below must not read it again.
                by_span.insert((r.start_byte(), r.end_byte()), out.clients.len());
                (c, "tenacity")
            } else if tenacity_file
                && name == "retry"
                && (callee == "retry" || callee == "tenacity.retry")
            {
                (tenacity::client(&cx, expr, "@retry"), "tenacity")
            } else if backoff_file
                && expr.kind() == "call"
                && matches!(name, "on_exception" | "on_predicate")
            {
                (
                    backoff::client(&cx, expr, &format!("@backoff.{name}")),
                    "backoff",
                )
            } else {
                continue;
            };
            let mut client = client;
            if let Some(n) = def.child_by_field_name("name") {
                client.names.push((cx.text(n).to_string(), n.byte_range()));
            }
            client
                .findings
                .extend(calls::regenerated_keys(&cx, def, lib));
            if lib == "tenacity" {
                tenacity::raise_for_status(&cx, def, &mut client);
            }
            scopes.push((def.byte_range(), out.clients.len()));
            by_span.insert((expr.start_byte(), expr.end_byte()), out.clients.len());
            out.clients.push(client);
        }
    }

    // Constructors.
    for &call in &call_nodes {
        if by_span.contains_key(&(call.start_byte(), call.end_byte())) {
            continue;
        }
        let Some(function) = call.child_by_field_name("function") else {
            continue;
        };
        let callee = cx.text(function);
        let name = last_name(callee);
        let client: Option<CodeClient> = if name == "Retry" && !callee.starts_with("httpx") {
            Some(urllib3::retry(&cx, call, "Retry", None))
        } else if let Some(custom) = subclasses.get(name) {
            Some(urllib3::retry(&cx, call, name, custom.clone()))
        } else if tenacity_file && matches!(name, "Retrying" | "AsyncRetrying") {
            Some(tenacity::client(&cx, call, &format!("{name}(...)")))
        } else if tenacity_file
            && is_tenacity_retry_call(&cx, call)
            && call.parent().is_some_and(|p| p.kind() == "assignment")
            && cx.enclosing_function(call).is_none()
        {
            // A decorator object no function of this file uses: another file
            // imports it (`from app.retry_config import api_retry`), and the
            // functions it decorates there are its calls (linked by its name).
            Some(tenacity::client(&cx, call, &format!("{callee}(...)")))
        } else if backoff_file
            && matches!(name, "on_exception" | "on_predicate")
            && callee.contains("backoff")
        {
            Some(backoff::client(&cx, call, &format!("backoff.{name}(...)")))
        } else if (has("openai") || has("anthropic"))
            && stainless::CONSTRUCTORS.contains(&name)
            && function.kind() != "attribute"
            || matches!(
                callee,
                "openai.OpenAI" | "openai.AsyncOpenAI" | "anthropic.Anthropic"
            )
        {
            Some(stainless::client(&cx, call, name))
        } else if aiohttp_file && name == "ExponentialRetry" {
            Some(aiohttp::exponential(&cx, call))
        } else if aiohttp_file
            && name == "RetryClient"
            && !aiohttp_1x
            && cx.arg(call, "retry_options", Some(1)).is_none()
        {
            Some(aiohttp::default_client(&cx, call))
        } else {
            None
        };
        if let Some(mut c) = client {
            // `for attempt in Retrying(...): with attempt: ...`: the loop body is
            // retried as a whole, like a decorated function.
            if let Some(body) = call
                .parent()
                .filter(|p| p.kind() == "for_statement")
                .and_then(|f| f.child_by_field_name("body"))
            {
                c.findings
                    .extend(calls::regenerated_keys(&cx, body, "tenacity"));
                scopes.push((body.byte_range(), out.clients.len()));
            }
            if let Some(n) = assigned_name(&cx, call) {
                c.names.push(n);
            } else if let Some(f) = cx
                .enclosing_function(call)
                .and_then(|f| f.child_by_field_name("name"))
            {
                // `backoff.on_exception(...)(func)` in a helper: the helper names it.
                c.names.push((cx.text(f).to_string(), f.byte_range()));
            }
            by_span.insert((call.start_byte(), call.end_byte()), out.clients.len());
            out.clients.push(c);
        }
    }

    // Wrappers that name a client built elsewhere: HTTPAdapter, RetryClient, mount.
    let mut adapters: HashMap<(usize, usize), usize> = HashMap::new();
    for &call in &call_nodes {
        let Some(function) = call.child_by_field_name("function") else {
            continue;
        };
        let name = last_name(cx.text(function));
        let target = match name {
            "HTTPAdapter" => cx.arg(call, "max_retries", Some(2)),
            "RetryClient" if aiohttp_file => cx.arg(call, "retry_options", Some(1)),
            _ => None,
        };
        let Some(target) = target else {
            continue;
        };
        let resolved = cx.resolve(target);
        let idx = match by_span.get(&(resolved.start_byte(), resolved.end_byte())) {
            Some(&i) => Some(i),
            None if name == "HTTPAdapter" => urllib3::adapter_int(&cx, call, target).map(|c| {
                out.clients.push(c);
                out.clients.len() - 1
            }),
            None => None,
        };
        let Some(idx) = idx else {
            continue;
        };
        if let Some(n) = assigned_name(&cx, call) {
            out.clients[idx].names.push(n);
        }
        adapters.insert((call.start_byte(), call.end_byte()), idx);
    }
    // Clients mounted once with a prefix that is not a literal.
    let mut mount_unknown: Vec<usize> = Vec::new();
    for &call in &call_nodes {
        let Some(function) = call.child_by_field_name("function") else {
            continue;
        };
        if function.kind() != "attribute"
            || function
                .child_by_field_name("attribute")
                .is_none_or(|a| cx.text(a) != "mount")
        {
            continue;
        }
        let pos = cx.positional(call);
        let (Some(prefix), Some(adapter)) = (pos.first(), pos.get(1)) else {
            continue;
        };
        let a = cx.resolve(*adapter);
        let Some(&idx) = adapters.get(&(a.start_byte(), a.end_byte())) else {
            continue;
        };
        let Some(recv) = function.child_by_field_name("object") else {
            continue;
        };
        let mut recv_name = cx.text(recv).to_string();
        if recv_name == "self" {
            if let Some(class) = cx.enclosing_class(call) {
                recv_name = class.to_string();
            }
        }
        let c = &mut out.clients[idx];
        if !c.names.iter().any(|(n, _)| *n == recv_name) {
            c.names.push((recv_name, recv.byte_range()));
        }
        // The adapter serves the URLs that start with the mount prefix (requests
        // `Session.get_adapter`: the longest matching prefix; the session's own
        // `http://` and `https://` adapters retry nothing). A prefix that is not a
        // literal may be any: the client then serves every URL.
        match cx.eval(*prefix).known() {
            Some(eval::Val::Str(p)) if !mount_unknown.contains(&idx) => {
                c.url_prefixes.push((p.clone(), prefix.byte_range()));
            }
            _ => {
                mount_unknown.push(idx);
                c.url_prefixes.clear();
            }
        }
        // The mount prefix names the host the session reaches.
        if let Some(eval::Val::Str(p)) = cx.eval(*prefix).known() {
            if let Some(host) = p
                .split_once("://")
                .and_then(|(_, rest)| rest.split(['/', ':']).next())
                .filter(|h| !h.is_empty())
            {
                let host = host.to_ascii_lowercase();
                if !c.names.iter().any(|(n, _)| *n == host) {
                    c.names.push((host, prefix.byte_range()));
                }
            }
        }
    }

    let imported_decorated = imported_decorated(&cx, file.tree.root_node(), &decorated);
    // HTTP calls: aiohttp-retry 1.x per-call clients, calls inside a retried
    // function, the rest unattached (linked by receiver name).
    for &call in &call_nodes {
        let Some(site) = calls::call_site(&cx, call) else {
            continue;
        };
        if aiohttp_file {
            if let Some(mut c) = aiohttp::per_call(&cx, call) {
                c.names.push((site.receiver.clone(), site.span.clone()));
                c.calls.push(site);
                out.clients.push(c);
                continue;
            }
        }
        let owner = scopes
            .iter()
            .filter(|(r, _)| r.start <= call.start_byte() && call.end_byte() <= r.end)
            .min_by_key(|(r, _)| r.end - r.start)
            .map(|(_, i)| *i);
        // A call inside a retried function is that client's, and also goes through
        // the client its receiver names (a session with its own `Retry`): both
        // retry it, so it is offered to the linker too.
        if let Some(i) = owner {
            out.clients[i].calls.push(site.clone());
        }
        // A call through a plain `requests` session of its own (`self.session =
        // Session()` in its class, `s = requests.Session()` in its function),
        // which no client of this file is stored under, goes through no retry
        // client: it must not link by name to another file's session (case 97).
        let own_name = |n: &str| {
            out.clients
                .iter()
                .any(|c| c.names.iter().any(|(x, _)| x == n))
        };
        let plain = plain_session(&cx, call, &site.receiver)
            && !own_name(&site.receiver)
            && !own_name(crate::import::code::link::last_segment(&site.receiver));
        // A call inside a function decorated by an imported name (`@api_retry`
        // from `app.retry_config`) goes through the client of that name, if one
        // is built in another file.
        for (body, decorator) in &imported_decorated {
            if body.start <= call.start_byte() && call.end_byte() <= body.end {
                let mut through = site.clone();
                through.receiver = decorator.clone();
                out.calls.push(through);
            }
        }
        if !plain {
            out.calls.push(site);
        }
    }
    out
}

/// True when `receiver` (the receiver of `call`, as written) is provably a plain
/// `requests` session: `self.x` whose every assignment in the enclosing class is
/// `Session()`, `requests.Session()`, `requests.session()` (no arguments) or
/// `None`, or a name the enclosing function (or module) last assigned one of them.
/// A session's adapters are mounted on it by name, which [`extract`] has
/// already turned into client names; this only says it was built plain here.
fn plain_session(cx: &Ctx<'_, '_>, call: Node<'_>, receiver: &str) -> bool {
    let is_plain_ctor = |v: Node<'_>| match v.kind() {
        "none" => true,
        "call" => {
            let callee = v.child_by_field_name("function").map_or("", |f| cx.text(f));
            matches!(
                callee,
                "Session" | "requests.Session" | "requests.session" | "requests.sessions.Session"
            ) && cx.positional(v).is_empty()
                && cx.keywords(v).is_empty()
        }
        _ => false,
    };
    if let Some(attr) = receiver.strip_prefix("self.") {
        if attr.contains('.') {
            return false;
        }
        let mut class = call.parent();
        while let Some(p) = class {
            if p.kind() == "class_definition" {
                break;
            }
            class = p.parent();
        }
        let Some(class) = class else {
            return false;
        };
        let mut values: Vec<Node<'_>> = Vec::new();
        let mut stack = vec![class];
        while let Some(n) = stack.pop() {
            if n.kind() == "assignment"
                && n.child_by_field_name("left")
                    .is_some_and(|l| cx.text(l) == receiver)
            {
                match n.child_by_field_name("right") {
                    Some(r) => values.push(r),
                    None => return false,
                }
            }
            let mut cursor = n.walk();
            stack.extend(n.named_children(&mut cursor));
        }
        return !values.is_empty() && values.into_iter().all(is_plain_ctor);
    }
    let Some(object) = call
        .child_by_field_name("function")
        .and_then(|f| f.child_by_field_name("object"))
        .filter(|o| o.kind() == "identifier")
    else {
        return false;
    };
    let value = cx.resolve(object);
    value != object && value.kind() == "call" && is_plain_ctor(value)
}

/// `retry(...)` or `tenacity.retry(...)`: a tenacity decorator object.
fn is_tenacity_retry_call(cx: &Ctx<'_, '_>, n: Node<'_>) -> bool {
    n.kind() == "call"
        && n.child_by_field_name("function")
            .is_some_and(|f| matches!(cx.text(f), "retry" | "tenacity.retry"))
}

/// The names this file imports with `from module import name` (the local name,
/// `as` aliases included).
fn from_imports(cx: &Ctx<'_, '_>, root: Node<'_>) -> Vec<String> {
    let mut out = Vec::new();
    let mut cursor = root.walk();
    for stmt in root.named_children(&mut cursor) {
        if stmt.kind() != "import_from_statement" {
            continue;
        }
        let mut c = stmt.walk();
        for n in stmt.children_by_field_name("name", &mut c) {
            let local = match n.kind() {
                "aliased_import" => n.child_by_field_name("alias"),
                _ => Some(n),
            };
            if let Some(l) = local {
                out.push(cx.text(l).to_string());
            }
        }
    }
    out
}

/// The bodies of functions decorated by a bare name this file imports, with that
/// name.
fn imported_decorated(
    cx: &Ctx<'_, '_>,
    root: Node<'_>,
    decorated: &[Node<'_>],
) -> Vec<(Span, String)> {
    let imported = from_imports(cx, root);
    let mut out = Vec::new();
    for d in decorated {
        let Some(def) = d
            .child_by_field_name("definition")
            .filter(|f| f.kind() == "function_definition")
        else {
            continue;
        };
        let mut cursor = d.walk();
        for dec in d
            .named_children(&mut cursor)
            .filter(|n| n.kind() == "decorator")
        {
            let Some(expr) = dec.named_child(0).filter(|e| e.kind() == "identifier") else {
                continue;
            };
            let name = cx.text(expr);
            if imported.iter().any(|i| i == name) {
                out.push((def.byte_range(), name.to_string()));
            }
        }
    }
    out
}

/// The name a constructed value is stored under: `x = Call(...)`,
/// `self.x = Call(...)`, `with Call(...) as x`.
fn assigned_name(cx: &Ctx<'_, '_>, call: Node<'_>) -> Option<(String, Span)> {
    let parent = call.parent()?;
    let target = match parent.kind() {
        "assignment" => parent
            .child_by_field_name("left")
            .filter(|l| matches!(l.kind(), "identifier" | "attribute")),
        "as_pattern" => parent.child_by_field_name("alias").and_then(|a| {
            if a.kind() == "as_pattern_target" {
                a.named_child(0)
            } else {
                Some(a)
            }
        }),
        "await" => return assigned_name(cx, parent),
        // `decorator = backoff.on_exception(...)(func)`
        "call" if parent.child_by_field_name("function") == Some(call) => {
            return assigned_name(cx, parent)
        }
        _ => None,
    }?;
    Some((cx.text(target).to_string(), target.byte_range()))
}

#[cfg(test)]
mod tests;
