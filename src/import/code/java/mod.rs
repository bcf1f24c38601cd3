//! The Java extractor: retry clients and HTTP calls of one file
//! (`retry-in-code.md` §1.3, §3.2):
//! - [`spring_retry`]: `@Retryable` of Spring Retry and of Spring Framework 7,
//!   told apart by the import;
//! - [`resilience4j`]: `@Retry(name)`, whose settings come from the Spring config;
//! - [`feign`]: a `Retryer.Default` bean (every Feign client of the run) or builder;
//! - [`declarative`]: Feign, `@HttpExchange` and Retrofit interface methods, each a
//!   call with an exact method and path;
//! - [`calls`]: the HTTP calls in a retried method (`RestTemplate`, `WebClient`,
//!   `RestClient`, a wrapper named by its verb, a declarative interface method).
//!
//! A retry annotation on a method retries the calls in its body; on a class, the
//! calls of all its methods. Every client is also named `Type#method` (the wrapper
//! it annotates), so the calls of that wrapper elsewhere
//! (`retryRestTemplate.postForEntity(url, body)`) join it; calls of declarative
//! interface methods join by the same `Interface#method` names.

pub mod ast;
pub mod calls;
pub mod declarative;
pub mod feign;
pub mod number;
pub mod properties;
pub mod resilience4j;
pub mod settings;
pub mod spring_retry;

use super::model::{CodeClient, CodeFacts, Finding};
use super::CodeFile;
use tree_sitter::Node;

/// Types whose methods are not HTTP calls; `Type#method` names are not made for
/// them (loggers, collections, mappers).
const NOT_CLIENTS: &[&str] = &[
    "Logger",
    "Log",
    "String",
    "List",
    "Map",
    "Set",
    "Optional",
    "ObjectMapper",
    "HttpHeaders",
    "StringBuilder",
    "Collection",
    "Stream",
    "Object",
    "Duration",
    "MultiValueMap",
    "UriComponentsBuilder",
    "URI",
    "Gson",
    "JsonNode",
];

/// Reads the retry clients and calls of `file`.
pub fn extract(file: &CodeFile<'_>) -> CodeFacts {
    let mut out = CodeFacts::default();
    let idx = ast::index(file);
    let declared = declarative::read(file, &idx);
    for d in &declared {
        out.calls.push(d.call.clone());
        if d.feign {
            let mut c = d.call.clone();
            c.receiver = feign::EVERY_FEIGN_CLIENT.to_string();
            out.calls.push(c);
        }
        let mut c = d.call.clone();
        c.receiver.clone_from(&d.interface);
        out.calls.push(c);
    }
    let root = file.tree.root_node();
    for decl in ast::descendants(root, "method_declaration")
        .into_iter()
        .chain(ast::descendants(root, "class_declaration"))
        .chain(ast::descendants(root, "interface_declaration"))
    {
        for a in ast::annotations(decl) {
            if let Some(mut c) = client_of(file, &idx, a) {
                attach(file, &idx, decl, &declared, &mut c);
                out.clients.push(c);
            }
        }
    }
    out.clients.extend(feign::read(file, &idx, &mut out.notes));
    out.calls.extend(calls::wrapper_calls(file, &idx, root));
    out
}

/// The retry client an annotation is, if any.
fn client_of(file: &CodeFile<'_>, idx: &ast::FileIndex, a: Node<'_>) -> Option<CodeClient> {
    let simple = ast::annotation_simple(file, a);
    if simple == "Retryable" {
        let flavour = spring_retry::flavour(file, idx, a)?;
        let mut c = spring_retry::read(file, idx, a, flavour);
        let range = a.byte_range();
        idx.resolved.borrow_mut().retain(|(s, note)| {
            let inside = s.start >= range.start && s.end <= range.end;
            if inside {
                c.notes.push((s.clone(), note.clone()));
            }
            !inside
        });
        return Some(c);
    }
    if simple == "Retry" && resilience4j::is_retry(file, idx, a) {
        return Some(resilience4j::read(file, idx, a));
    }
    None
}

/// The enclosing type's simple name.
fn type_name<'a>(file: &'a CodeFile<'_>, n: Node<'_>) -> &'a str {
    let t = if matches!(
        n.kind(),
        "class_declaration" | "interface_declaration" | "enum_declaration" | "record_declaration"
    ) {
        Some(n)
    } else {
        ast::ancestor(
            n,
            &[
                "class_declaration",
                "interface_declaration",
                "enum_declaration",
                "record_declaration",
            ],
        )
    };
    t.and_then(|t| t.child_by_field_name("name"))
        .map_or("", |x| file.text_of(x))
}

/// Gives client `c` (annotating `decl`, a method or a type) its names and calls.
fn attach(
    file: &CodeFile<'_>,
    idx: &ast::FileIndex,
    decl: Node<'_>,
    declared: &[declarative::Declared],
    c: &mut CodeClient,
) {
    let ty = type_name(file, decl).to_string();
    let methods: Vec<Node<'_>> = if decl.kind() == "method_declaration" {
        vec![decl]
    } else {
        let Some(body) = decl.child_by_field_name("body") else {
            return;
        };
        let mut cur = body.walk();
        let found = body
            .named_children(&mut cur)
            .filter(|m| m.kind() == "method_declaration")
            .collect();
        found
    };
    let platform = c.platform.display_name();
    for m in methods {
        let Some(name) = m.child_by_field_name("name") else {
            continue;
        };
        let mname = file.text_of(name);
        c.names.push((format!("{ty}#{mname}"), name.byte_range()));
        // An annotated declarative interface method is a call itself.
        let range = m.byte_range();
        for d in declared.iter().filter(|d| d.node == range) {
            c.calls.push(d.call.clone());
        }
        let Some(body) = m.child_by_field_name("body") else {
            continue;
        };
        let found = calls::in_body(file, idx, body);
        c.calls.extend(found.calls);
        for (n, s) in found.names {
            let t = n.split('#').next().unwrap_or("");
            if !NOT_CLIENTS.contains(&t) && !c.names.iter().any(|(x, _)| *x == n) {
                c.names.push((n, s));
            }
        }
        for (span, header) in found.regenerated_keys {
            c.findings.push(Finding {
                code: "RL208",
                span,
                message: format!(
                    "the `{header}` key is generated inside `{ty}#{mname}`, which {platform} `{}` retries: every attempt sends a new key",
                    c.kind
                ),
                label: "a new key on every attempt".into(),
                help: String::new(),
            });
        }
    }
}
