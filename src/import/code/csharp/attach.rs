//! Which `HttpClient`s a handler is attached to, from the `IHttpClientBuilder`
//! chain it is called on: `services.AddHttpClient<OrderingService>(...)` (a typed
//! client: the calls in class `OrderingService`), `AddHttpClient<IApi, Api>()`,
//! `AddHttpClient("github")` (a named client), `AddRefitClient<IOrdersApi>()` (the
//! Refit interface's methods), and `ConfigureHttpClientDefaults(http => ...)`
//! (every `HttpClient` of the application, [`EVERY`]).
//!
//! Calls made through an `HttpClient` get the receiver `HttpClient:<owner>`
//! ([`receiver_for`]): `<owner>` is the typed client class, the Refit interface or
//! the named client, so `link` joins them by the last segment, and the wildcard
//! name [`EVERY`] joins them all.

use super::super::model::Span;
use super::super::CodeFile;
use super::syntax;
use tree_sitter::Node;

/// The name of a handler that applies to every `HttpClient`
/// (`ConfigureHttpClientDefaults`): `link` joins it to every call whose receiver
/// starts with `HttpClient:`.
pub const EVERY: &str = "HttpClient:*";

/// The receiver given to a call made through an `HttpClient` owned by `owner`.
pub fn receiver_for(owner: &str) -> String {
    format!("HttpClient:{owner}")
}

/// The client names a handler call (`....AddStandardResilienceHandler()`,
/// `.AddPolicyHandler(p)`) is attached to.
pub fn targets(file: &CodeFile<'_>, handler: Node<'_>) -> Vec<(String, Span)> {
    let mut out: Vec<(String, Span)> = Vec::new();
    let mut cur = syntax::receiver(handler);
    for _ in 0..syntax::MAX_UP {
        let Some(n) = cur else { break };
        if n.kind() != "invocation_expression" {
            break;
        }
        match syntax::method_name(file, n) {
            "AddHttpClient" | "AddRefitClient" | "AddTypedClient" | "AddGrpcClient" => {
                out.extend(syntax::type_args(file, n));
                let args = syntax::args(n);
                if let Some((_, first)) = args.first() {
                    if first.kind() == "string_literal" {
                        let name = file.text_of(*first).trim_matches('"').to_string();
                        out.push((name, first.byte_range()));
                    }
                }
            }
            _ => {}
        }
        cur = syntax::receiver(n);
    }
    if syntax::enclosing_call(file, handler, &["ConfigureHttpClientDefaults"]).is_some() {
        let span = name_span(file, handler);
        out.push((EVERY.to_string(), span.clone()));
        // Makes the files that use an `HttpClient` candidates for linking.
        out.push(("HttpClient".to_string(), span));
    }
    out
}

/// From the method name of `call` to its end (`AddStandardResilienceHandler()` of
/// a long chain), where findings about the construct point.
pub fn name_span(_file: &CodeFile<'_>, call: Node<'_>) -> Span {
    let end = call.end_byte();
    let start = call
        .child_by_field_name("function")
        .and_then(|f| {
            if f.kind() == "member_access_expression" {
                f.child_by_field_name("name")
            } else {
                Some(f)
            }
        })
        .map_or(call.start_byte(), |n| n.start_byte());
    start..end
}
