//! The Python extractor: retry clients and HTTP calls of one file
//! (`retry-in-code.md` §1.1). So far: urllib3 `Retry(...)` (literal `total`,
//! `allowed_methods`, `status_forcelist`, `backoff_factor`) stored in a variable,
//! and `requests`-style calls (`session.post("/path")`) on any receiver.

use super::model::{CallSite, CodeClient, CodeFacts, Setting, Url};
use super::CodeFile;
use crate::import::Platform;
use crate::policy::model::{Jitter, Signal};
use tree_sitter::Node;

/// Reads the retry clients and calls of `file`.
pub fn extract(file: &CodeFile<'_>) -> CodeFacts {
    let mut out = CodeFacts::default();
    let mut stack = vec![file.tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.kind() == "call" {
            read_call(file, node, &mut out);
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    out
}

fn read_call(file: &CodeFile<'_>, call: Node<'_>, out: &mut CodeFacts) {
    let Some(function) = call.child_by_field_name("function") else {
        return;
    };
    let name = match function.kind() {
        "identifier" => file.text_of(function),
        "attribute" => function
            .child_by_field_name("attribute")
            .map_or("", |a| file.text_of(a)),
        _ => return,
    };
    if name == "Retry" {
        out.clients.push(urllib3_retry(file, call));
        return;
    }
    let method = name.to_ascii_uppercase();
    if function.kind() == "attribute"
        && matches!(
            method.as_str(),
            "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD"
        )
    {
        let receiver = function
            .child_by_field_name("object")
            .map_or("", |o| file.text_of(o));
        let url = call
            .child_by_field_name("arguments")
            .and_then(|a| a.named_child(0))
            .map(|a| url_of(file, a))
            .unwrap_or(Url::Unknown(String::new()));
        out.calls.push(CallSite {
            receiver: receiver.to_string(),
            method: Some(method),
            url,
            span: call.byte_range(),
            headers: Vec::new(),
        });
    }
}

fn url_of(file: &CodeFile<'_>, node: Node<'_>) -> Url {
    let text = file.text_of(node);
    match node.kind() {
        "string" => Url::Literal(text.trim_matches(|c| c == '"' || c == '\'').to_string()),
        _ => Url::Unknown(text.to_string()),
    }
}

/// urllib3 2.x `Retry(...)` (src: urllib3/urllib3@6a8536b6 `util/retry.py`).
fn urllib3_retry(file: &CodeFile<'_>, call: Node<'_>) -> CodeClient {
    let span = call.byte_range();
    let mut c = CodeClient::new(Platform::Urllib3, "Retry(...)", span.clone());
    // The variable it is assigned to names it.
    if let Some(parent) = call.parent().filter(|p| p.kind() == "assignment") {
        if let Some(left) = parent.child_by_field_name("left") {
            c.names
                .push((file.text_of(left).to_string(), left.byte_range()));
        }
    }
    c.attempts = Some(Setting::default(
        11,
        span.clone(),
        "total = 10 retries (urllib3 2.x `Retry`)",
    ));
    c.methods = Some(Setting::default(
        ["HEAD", "GET", "PUT", "DELETE", "OPTIONS", "TRACE"]
            .map(String::from)
            .to_vec(),
        span.clone(),
        "`allowed_methods` = HEAD, GET, PUT, DELETE, OPTIONS, TRACE",
    ));
    c.retry_on = Some(Setting::default(
        vec![Signal::ConnectFailure, Signal::Reset, Signal::Timeout],
        span.clone(),
        "connection and read errors; no status without `status_forcelist`",
    ));
    c.backoff.jitter = Some(Setting::default(
        Jitter::None,
        span.clone(),
        "`backoff_jitter` = 0",
    ));
    if let Some(args) = call.child_by_field_name("arguments") {
        let mut cursor = args.walk();
        for arg in args.named_children(&mut cursor) {
            if arg.kind() != "keyword_argument" {
                continue;
            }
            let (Some(k), Some(v)) = (
                arg.child_by_field_name("name"),
                arg.child_by_field_name("value"),
            ) else {
                continue;
            };
            let value = file.text_of(v);
            if file.text_of(k) == "total" {
                match value.parse::<i64>() {
                    Ok(n) => c.attempts = Some(Setting::literal(n + 1, v.byte_range())),
                    Err(_) => {
                        c.attempts = Some(Setting::assumed(
                            11,
                            v.byte_range(),
                            value,
                            "urllib3's default, 10 retries",
                        ))
                    }
                }
            }
        }
    }
    c
}
