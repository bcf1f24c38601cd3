//! The JavaScript / TypeScript / TSX extractor: retry clients and HTTP calls of one
//! file (`retry-in-code.md` §1.2). The three grammars share the node kinds read
//! here. Libraries: axios-retry ([`axios_retry`]), got and ky ([`got_ky`]),
//! ofetch ([`ofetch`]), `@octokit/plugin-retry` ([`octokit`]); calls through any
//! receiver ([`calls`]); values from literals and same-file constants
//! ([`eval`]). A library is recognised by its import (`import got from 'got'`,
//! `require('ky')`) or, without one, by its usual name.

pub mod axios_retry;
pub mod calls;
pub mod eval;
pub mod got_ky;
pub mod octokit;
pub mod ofetch;

use super::model::{CodeClient, CodeFacts, Finding, Span};
use super::CodeFile;
use eval::Scope;
use tree_sitter::Node;

/// What the library readers share for one file.
pub struct Ctx<'f, 't> {
    /// The file.
    pub file: &'f CodeFile<'t>,
    /// Its declarations and imports.
    pub scope: Scope<'t>,
}

impl<'t> Ctx<'_, 't> {
    /// The text of `node`.
    pub fn text(&self, node: Node<'_>) -> &str {
        self.file.text_of(node)
    }

    /// True when the identifier `name` is the library `module` (imported from it,
    /// or, with no import of that name in the file, spelled as one of `usual`).
    pub fn is_lib(&self, name: &str, module: &str, usual: &[&str]) -> bool {
        match self.scope.module_of(name) {
            Some(m) => m == module || m.starts_with(&format!("{module}/")),
            None => usual.contains(&name),
        }
    }

    /// The object literal `node` is or names (same-file constant), if any.
    pub fn object(&self, node: Node<'t>) -> Option<Node<'t>> {
        let n = self.scope.resolve(self.file, node);
        (n.kind() == "object").then_some(n)
    }
}

/// The root identifier of a callee (`got.default.post` -> `got`), and the member
/// names after it (`["default", "post"]`).
pub fn callee_path<'a>(ctx: &'a Ctx<'_, '_>, f: Node<'_>) -> Option<(&'a str, Vec<&'a str>)> {
    let mut members = Vec::new();
    let mut n = eval::unwrap(f);
    for _ in 0..16 {
        match n.kind() {
            "identifier" => {
                members.reverse();
                return Some((ctx.file.text_of(n), members));
            }
            "member_expression" => {
                let p = n.child_by_field_name("property")?;
                members.push(ctx.file.text_of(p));
                n = eval::unwrap(n.child_by_field_name("object")?);
            }
            _ => return None,
        }
    }
    None
}

/// The names a construct's value is stored under: the variable of `const x = ...`
/// (also through `await` and wrappers, and `export const`), or the target of
/// `this.x = ...` / `x = ...`.
pub fn names_of(ctx: &Ctx<'_, '_>, node: Node<'_>) -> Vec<(String, Span)> {
    let mut n = node;
    for _ in 0..8 {
        let Some(p) = n.parent() else {
            break;
        };
        match p.kind() {
            "await_expression"
            | "parenthesized_expression"
            | "as_expression"
            | "satisfies_expression"
            | "non_null_expression" => n = p,
            "variable_declarator" => {
                return p
                    .child_by_field_name("name")
                    .filter(|x| x.kind() == "identifier")
                    .map(|x| vec![(ctx.text(x).to_string(), x.byte_range())])
                    .unwrap_or_default();
            }
            "assignment_expression" => {
                return p
                    .child_by_field_name("left")
                    .map(|x| vec![(ctx.text(x).to_string(), x.byte_range())])
                    .unwrap_or_default();
            }
            "public_field_definition" | "field_definition" => {
                return p
                    .child_by_field_name("name")
                    .or_else(|| p.child_by_field_name("property"))
                    .map(|x| vec![(ctx.text(x).to_string(), x.byte_range())])
                    .unwrap_or_default();
            }
            _ => break,
        }
    }
    Vec::new()
}

/// The names `f()` of the functions that return a client stored under one of
/// `names` (`function makeHttp() { const inst = axios.create(); axiosRetry(inst);
/// return inst }`, `export const api = (base) => { ...; return inst }`), so a call
/// through `makeHttp(base)`, here or in a file that imports `makeHttp`, links to
/// the client ([`calls`] names such a receiver `makeHttp()`). One level: the
/// function around the construct.
pub fn factory_names(
    ctx: &Ctx<'_, '_>,
    at: Node<'_>,
    names: &[(String, Span)],
) -> Vec<(String, Span)> {
    let Some(func) = enclosing_function(at) else {
        return Vec::new();
    };
    let returns_name = |ret: Node<'_>| {
        ret.named_child(0).map(eval::unwrap).is_some_and(|v| {
            v.kind() == "identifier" && names.iter().any(|(n, _)| n == ctx.text(v))
        })
    };
    let mut returned = false;
    let mut stack = vec![func.child_by_field_name("body")];
    while let Some(Some(n)) = stack.pop() {
        if n.kind() == "return_statement" && returns_name(n) {
            returned = true;
            break;
        }
        // An arrow function's expression body: `() => inst` (rare; kept simple).
        let mut cursor = n.walk();
        for k in n.named_children(&mut cursor) {
            // Returns of nested functions are theirs, not this function's.
            if !is_function(k) {
                stack.push(Some(k));
            }
        }
    }
    if !returned {
        return Vec::new();
    }
    let named = match func.child_by_field_name("name") {
        Some(x) if func.kind() == "function_declaration" => {
            vec![(ctx.text(x).to_string(), x.byte_range())]
        }
        _ => names_of(ctx, func),
    };
    named
        .into_iter()
        .filter(|(n, _)| !n.contains('.'))
        .map(|(n, s)| (format!("{n}()"), s))
        .collect()
}

fn is_function(n: Node<'_>) -> bool {
    matches!(
        n.kind(),
        "function_declaration"
            | "function_expression"
            | "arrow_function"
            | "function"
            | "method_definition"
            | "generator_function_declaration"
    )
}

fn enclosing_function(n: Node<'_>) -> Option<Node<'_>> {
    let mut n = n;
    while let Some(p) = n.parent() {
        if is_function(p) {
            return Some(p);
        }
        n = p;
    }
    None
}

/// An RL017 finding.
pub fn rl017(span: Span, message: String, label: &str, help: &str) -> Finding {
    Finding {
        code: "RL017",
        span,
        message,
        label: label.to_string(),
        help: help.to_string(),
    }
}

/// Reads the retry clients and calls of `file`.
pub fn extract(file: &CodeFile<'_>) -> CodeFacts {
    let ctx = Ctx {
        file,
        scope: Scope::of(file),
    };
    let mut out = CodeFacts::default();
    let mut calls: Vec<Node<'_>> = Vec::new();
    let mut stack = vec![file.tree.root_node()];
    // One cursor for the walk (`named_children` and `children` reset it to
    // each node): a cursor per node cost an allocation each.
    let mut cursor = file.tree.walk();
    while let Some(node) = stack.pop() {
        if matches!(node.kind(), "call_expression" | "new_expression") {
            calls.push(node);
        }
        stack.extend(node.children(&mut cursor));
    }
    calls.sort_by_key(|n| n.start_byte());
    let plugin_classes = octokit::plugin_classes(&ctx, &calls);
    let mut used_classes: Vec<String> = Vec::new();
    for &call in &calls {
        let clients_before = out.clients.len();
        if let Some(c) = axios_retry::read(&ctx, call) {
            out.clients.push(c);
        } else if let Some(r) = got_ky::read(&ctx, call) {
            match r {
                got_ky::Read::Client(c) => out.clients.push(*c),
                got_ky::Read::Plain => {}
            }
        } else if let Some(c) = ofetch::read(&ctx, call) {
            out.clients.push(c);
        } else if let Some(c) = octokit::read(&ctx, call, &plugin_classes, &mut used_classes) {
            out.clients.push(c);
        }
        // A client a function returns is reached through that function's calls.
        for c in out.clients.iter_mut().skip(clients_before) {
            let more = factory_names(&ctx, call, &c.names);
            for m in more {
                if !c.names.contains(&m) {
                    c.names.push(m);
                }
            }
        }
        // A call that built a per-request client is that client's call already.
        let own_call = out.clients.get(clients_before..).is_some_and(|cs| {
            cs.iter()
                .any(|c: &CodeClient| c.calls.iter().any(|x| x.span == call.byte_range()))
        });
        if !own_call {
            if let Some(site) = calls::read(&ctx, call) {
                out.calls.push(site);
            }
        }
    }
    out.clients.extend(octokit::unused_classes(
        &ctx,
        &plugin_classes,
        &used_classes,
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::super::model::{Known, Url};
    use super::super::parse::{parse, Parsed};
    use super::*;
    use crate::diagnostic::source_file::SourceFile;
    use crate::source::language::Language;
    use crate::source::loader::Loaded;
    use std::sync::Arc;

    fn facts(language: Language, text: &str) -> CodeFacts {
        let doc = Arc::new(Loaded::new(
            Arc::new(SourceFile::new("t.ts".into(), "t.ts".into(), text)),
            Err(crate::source::loader::LoadError::Io("code".into())),
        ));
        let Parsed::Tree(tree) = parse(language, text) else {
            panic!("parses");
        };
        extract(&CodeFile {
            doc: &doc,
            text,
            language,
            tree: &tree,
            boundary: &crate::source::boundary::ReadBoundary::unbounded(),
        })
    }

    fn ts(text: &str) -> CodeFacts {
        facts(Language::TypeScript, text)
    }

    #[test]
    fn xor_is_not_a_power() {
        let f = ts("import axiosRetry from 'axios-retry';\n\
                    axiosRetry(axios, { retries: 2, retryDelay: n => (2 ^ n) * 1000 });");
        let c = &f.clients[0];
        assert_eq!(c.attempts.as_ref().unwrap().value, 3);
        // 2 ^ 1 = 3, 2 ^ 2 = 0.
        assert_eq!(c.backoff.base.as_ref().unwrap().value, 3000.0);
        assert_eq!(c.findings.len(), 1);
        assert!(
            c.findings[0].message.contains("3 s, 0 ms"),
            "{}",
            c.findings[0].message
        );
    }

    #[test]
    fn same_file_constants_and_arithmetic() {
        let f = ts(
            "import got from 'got';\nconst N = 2 * 2;\nconst M = ['POST'];\n\
                    export const api = got.extend({ retry: { limit: N - 1, methods: M } });",
        );
        let c = &f.clients[0];
        assert_eq!(c.names[0].0, "api");
        assert_eq!(c.attempts.as_ref().unwrap().value, 4);
        assert_eq!(c.methods.as_ref().unwrap().value, vec!["POST".to_string()]);
    }

    #[test]
    fn env_values_are_assumed() {
        let f = ts("import ky from 'ky';\nconst api = ky.create({ retry: { limit: Number(process.env.R) } });");
        let a = f.clients[0].attempts.as_ref().unwrap();
        assert!(matches!(a.known, Known::Assumed { .. }));
        assert_eq!(a.value, 3);
    }

    #[test]
    fn urls_from_templates_and_env() {
        let f = ts("const BASE = 'https://api.example.com';\n\
                    client.post(`${BASE}/orders/${id}/items`, body, { headers: { 'Idempotency-Key': k } });\n\
                    client.get(process.env.URL);\nclient.put(BASE + '/x/' + id);");
        assert_eq!(f.calls.len(), 3);
        assert_eq!(
            f.calls[0].url,
            Url::Template("https://api.example.com/orders/{}/items".into())
        );
        assert_eq!(f.calls[0].headers, vec!["idempotency-key".to_string()]);
        assert!(matches!(f.calls[1].url, Url::Unknown(_)));
        assert_eq!(
            f.calls[2].url,
            Url::Template("https://api.example.com/x/{}".into())
        );
    }

    #[test]
    fn javascript_and_tsx_use_their_grammars() {
        let js = facts(
            Language::JavaScript,
            "const { ofetch } = require('ofetch');\nconst api = ofetch.create({ retry: 3 });",
        );
        assert_eq!(js.clients.len(), 1);
        assert!(js.clients[0].methods.is_none());
        let tsx = facts(
            Language::Tsx,
            "import ky from 'ky';\nconst api = ky.create({ retry: 1 });\nconst X = () => <div/>;",
        );
        assert_eq!(tsx.clients.len(), 1);
    }

    #[test]
    fn instances_of_instances_inherit() {
        let f = ts("import ky from 'ky';\n\
                    const api = ky.create({ retry: { limit: 4, methods: ['post'] } });\n\
                    const authed = api.extend({ headers: {} });\n\
                    authed.post('/orders', { retry: { limit: 1 } });\n\
                    api.get('/orders');");
        assert_eq!(f.clients.len(), 3);
        let authed = &f.clients[1];
        assert_eq!(authed.names[0].0, "authed");
        assert_eq!(authed.attempts.as_ref().unwrap().value, 5);
        assert_eq!(
            authed.methods.as_ref().unwrap().value,
            vec!["POST".to_string()]
        );
        let call = &f.clients[2];
        assert_eq!(call.attempts.as_ref().unwrap().value, 2);
        assert_eq!(call.calls.len(), 1);
        assert_eq!(f.calls.iter().filter(|c| c.receiver == "api").count(), 1);
    }

    #[test]
    fn an_ofetch_instance_called_with_a_number_retries_post() {
        let f = ts("import { ofetch } from 'ofetch';\n\
                    const api = ofetch.create({ baseURL: 'https://x.example', retryDelay: 200 });\n\
                    api('/orders', { method: 'POST', retry: 3 });\n\
                    api('/orders');");
        assert_eq!(f.clients.len(), 2);
        let c = &f.clients[1];
        assert!(c.methods.is_none());
        assert_eq!(c.attempts.as_ref().unwrap().value, 4);
        assert_eq!(c.backoff.base.as_ref().unwrap().value, 200.0);
        assert_eq!(c.calls[0].method.as_deref(), Some("POST"));
        assert_eq!(f.calls.iter().filter(|c| c.receiver == "api").count(), 1);
    }

    #[test]
    fn axios_timeout_is_a_deadline_across_retries() {
        let f = ts("import axios from 'axios';\nimport axiosRetry from 'axios-retry';\n\
                    const client = axios.create({ timeout: 10_000 });\naxiosRetry(client, { retries: 2 });\n\
                    const other = axios.create({ timeout: 3000 });\naxiosRetry(other, { shouldResetTimeout: true });");
        assert_eq!(f.clients[0].deadline.as_ref().unwrap().value, 10_000.0);
        assert!(f.clients[0].attempt_timeout.is_none());
        assert_eq!(f.clients[1].attempt_timeout.as_ref().unwrap().value, 3000.0);
        assert!(f.clients[1].deadline.is_none());
    }

    #[test]
    fn a_factory_names_its_client_and_its_callers_reach_it() {
        let f = ts("import axios from 'axios';\nimport axiosRetry from 'axios-retry';\n\
            export function makeHttp(b) { const inst = axios.create({baseURL: b}); axiosRetry(inst); return inst }\n\
            export const other = (b) => { const x = axios.create(); axiosRetry(x); return 1 }\n\
            async function f(b) { const http = makeHttp(b); await http.post('/a'); return makeHttp(b).get('/b') }");
        let names: Vec<&str> = f.clients[0].names.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["inst", "makeHttp()"]);
        // A function that does not return the client is no factory.
        assert!(f.clients[1].names.iter().all(|(n, _)| !n.ends_with("()")));
        let calls: Vec<(&str, Option<&str>)> = f
            .calls
            .iter()
            .map(|c| (c.receiver.as_str(), c.method.as_deref()))
            .collect();
        assert!(calls.contains(&("makeHttp()", Some("POST"))), "{calls:?}");
        assert!(calls.contains(&("makeHttp()", Some("GET"))), "{calls:?}");
    }

    #[test]
    fn axios_retry_scopes_status_signals_to_idempotent_methods() {
        let f = ts("import axiosRetry from 'axios-retry';\naxiosRetry(client);");
        let c = &f.clients[0];
        assert!(c.methods.is_none());
        assert_eq!(c.method_scoped.len(), 1);
        assert!(!c.method_scoped[0].1.contains(&"POST".to_string()));
        assert!(c.method_scoped[0]
            .0
            .contains(&crate::policy::model::Signal::Status(429)));
        // Only idempotent-method helpers: one methods filter, nothing scoped.
        let f = ts("import axiosRetry from 'axios-retry';\naxiosRetry(client, { retryCondition: axiosRetry.isIdempotentRequestError });");
        let c = &f.clients[0];
        assert!(c.methods.is_some() && c.method_scoped.is_empty());
    }

    #[test]
    fn bad_input_never_panics() {
        let deep = format!(
            "axiosRetry(axios, {{ retries: {}1{} }});",
            "(".repeat(5000),
            ")".repeat(5000)
        );
        let _ = ts(&deep);
        let _ = ts("import got from 'got'; got.extend({ retry: { limit: ");
        let _ = ts("const a = b; const b = a; axiosRetry(x, { retries: a });");
        let f = ts("axiosRetry(x, { retries: 1 << 40 >> 38 });");
        assert!(f.clients[0].attempts.is_some());
    }
}
