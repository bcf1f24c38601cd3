//! ASP.NET Core minimal APIs: `app.MapPost("/x", handler)` (and `MapGet`, `MapPut`,
//! `MapDelete`, `MapPatch`) with the prefixes of `MapGroup("/api")` groups, chained
//! (`app.MapGroup("api/orders").HasApiVersion(1.0)`) or kept in a variable, in the
//! same file. A handler's `[FromHeader(Name = "x-requestid")]` parameter (a method
//! of the same file named as the handler, or a lambda's parameter) is a required
//! header unless its type is nullable or it has a default. Controllers
//! (`[Route]`, `[HttpPost]`) are not read yet.

use super::route::{braces, join, ServerRoute};
use super::syntax::{args, member_call, nodes, string};
use crate::import::code::CodeFile;
use std::collections::HashMap;
use tree_sitter::Node;

/// Text that a file declaring minimal API routes holds.
pub const MARKERS: &[&str] = &["Map"];

const MAPS: &[(&str, &str)] = &[
    ("MapGet", "get"),
    ("MapPost", "post"),
    ("MapPut", "put"),
    ("MapDelete", "delete"),
    ("MapPatch", "patch"),
];

/// Every route of `file`.
pub fn routes(file: &CodeFile<'_>) -> Vec<ServerRoute> {
    let all = nodes(file.tree.root_node());
    // Groups kept in variables: name -> prefix (declarations in file order).
    let mut groups: HashMap<String, String> = HashMap::new();
    for n in all.iter().filter(|n| n.kind() == "variable_declarator") {
        let mut c = n.walk();
        let named: Vec<Node<'_>> = n.named_children(&mut c).collect();
        let (Some(name), Some(value)) = (named.first(), named.last()) else {
            continue;
        };
        let value = if value.kind() == "equals_value_clause" {
            value.named_child(0).unwrap_or(*value)
        } else {
            *value
        };
        if name.kind() != "identifier" || value.id() == name.id() {
            continue;
        }
        if let Some(prefix) = group_prefix(file, value, &groups) {
            groups.insert(file.text_of(*name).to_string(), prefix);
        }
    }
    let mut out = Vec::new();
    for n in &all {
        let Some((recv, name)) = member_call(file, *n) else {
            continue;
        };
        let Some((_, method)) = MAPS.iter().find(|(m, _)| *m == name) else {
            continue;
        };
        let a = args(*n);
        let Some(path) = a.first().and_then(|p| string(file, *p)) else {
            continue;
        };
        let prefix = prefix_of(file, recv, &groups);
        // A handler written inline (a lambda of thirty lines) is no part of where
        // the route is declared: a call over several lines ends at its path.
        let at = match a.first() {
            Some(p) if file.text_of(*n).contains('\n') => n.start_byte()..p.end_byte(),
            _ => n.byte_range(),
        };
        out.push(ServerRoute {
            method: method.to_string(),
            path: braces(&join(&prefix, &path)),
            at,
            required_headers: a
                .get(1)
                .map(|h| handler_headers(file, *h, &all))
                .unwrap_or_default(),
        });
    }
    out
}

/// The prefix routes mapped on `recv` take: a group variable's, a chain's
/// `MapGroup`s, or none.
fn prefix_of(file: &CodeFile<'_>, recv: Node<'_>, groups: &HashMap<String, String>) -> String {
    group_prefix(file, recv, groups).unwrap_or_default()
}

/// The prefix of a group expression: `x.MapGroup("p")` (after `x`'s own prefix),
/// a builder call on a group (`.HasApiVersion(1.0)`, `.WithTags(...)`), or a group
/// variable; `None` for anything that is not a group.
fn group_prefix(
    file: &CodeFile<'_>,
    expr: Node<'_>,
    groups: &HashMap<String, String>,
) -> Option<String> {
    let mut suffixes: Vec<String> = Vec::new();
    let mut node = expr;
    let mut is_group = false;
    // Down the chain, an explicit loop: receivers nest to the left.
    for _ in 0..64 {
        if node.kind() == "identifier" {
            let base = groups.get(file.text_of(node));
            if base.is_none() && !is_group {
                return None;
            }
            let mut p = base.cloned().unwrap_or_default();
            for s in suffixes.iter().rev() {
                p = join(&p, s);
            }
            return Some(p);
        }
        let (recv, name) = member_call(file, node)?;
        if name == "MapGroup" {
            is_group = true;
            suffixes.push(args(node).first().and_then(|p| string(file, *p))?);
        }
        node = recv;
    }
    None
}

/// The required `[FromHeader]` parameters of the handler `h`.
fn handler_headers<'t>(
    file: &CodeFile<'_>,
    h: Node<'t>,
    all: &[Node<'t>],
) -> Vec<(String, std::ops::Range<usize>)> {
    let params = match h.kind() {
        "identifier" | "member_access_expression" => {
            let name = file.text_of(h).rsplit('.').next().unwrap_or("").to_string();
            all.iter()
                .filter(|m| m.kind() == "method_declaration")
                .find(|m| {
                    m.child_by_field_name("name")
                        .is_some_and(|n| file.text_of(n) == name)
                })
                .and_then(|m| m.child_by_field_name("parameters"))
        }
        "lambda_expression" => h.child_by_field_name("parameters"),
        _ => None,
    };
    let Some(params) = params else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut c = params.walk();
    for p in params
        .named_children(&mut c)
        .filter(|p| p.kind() == "parameter")
    {
        let text = file.text_of(p);
        let Some(attr) = nodes(p)
            .into_iter()
            .filter(|a| a.kind() == "attribute")
            .find(|a| {
                a.child_by_field_name("name")
                    .is_some_and(|n| file.text_of(n).trim_end_matches("Attribute") == "FromHeader")
            })
        else {
            continue;
        };
        let nullable = p
            .child_by_field_name("type")
            .is_some_and(|t| t.kind() == "nullable_type" || file.text_of(t).ends_with('?'));
        let defaulted = text.contains('=') && {
            // `Name = "..."` inside the attribute is not a default value.
            let after_attr = &text[attr.end_byte().saturating_sub(p.start_byte())..];
            after_attr.contains('=')
        };
        if nullable || defaulted {
            continue;
        }
        let attr_text = file.text_of(attr);
        let name = attr_text
            .split_once("Name")
            .and_then(|(_, rest)| rest.split('"').nth(1))
            .map(str::to_string)
            .or_else(|| {
                p.child_by_field_name("name")
                    .map(|n| file.text_of(n).to_string())
            });
        if let Some(name) = name {
            out.push((name, attr.byte_range()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testing::routes_of;
    use crate::import::code::Language;

    #[test]
    fn groups_prefix_routes_and_from_header_is_a_key() {
        let got: Vec<(String, String, Vec<String>)> = routes_of(
            Language::CSharp,
            "OrdersApi.cs",
            r#"public static class OrdersApi
{
    public static RouteGroupBuilder MapOrdersApiV1(this IEndpointRouteBuilder app)
    {
        var api = app.MapGroup("api/orders").HasApiVersion(1.0);
        api.MapPut("/cancel", CancelOrderAsync);
        api.MapGet("{orderId:int}", GetOrderAsync);
        api.MapPost("/", CreateOrderAsync);
        app.MapPost("/api/webhooks", async (WebhookSubscriptionRequest r) => Results.Ok());
        return api;
    }

    public static async Task<Results<Ok, BadRequest<string>>> CancelOrderAsync(
        [FromHeader(Name = "x-requestid")] Guid requestId,
        CancelOrderCommand command) { return TypedResults.Ok(); }

    public static async Task<Ok<Order>> GetOrderAsync(int orderId, [FromHeader(Name = "x-trace")] string? trace) { return null; }

    public static async Task<Results<Ok, BadRequest<string>>> CreateOrderAsync(
        [FromHeader(Name = "x-requestid")] Guid requestId,
        CreateOrderRequest request) { return TypedResults.Ok(); }
}
"#,
        )
        .into_iter()
        .map(|r| {
            (
                r.method,
                r.path,
                r.required_headers.into_iter().map(|h| h.0).collect(),
            )
        })
        .collect();
        let key = vec!["x-requestid".to_string()];
        assert_eq!(
            got,
            vec![
                ("put".into(), "/api/orders/cancel".into(), key.clone()),
                ("get".into(), "/api/orders/{orderId}".into(), vec![]),
                ("post".into(), "/api/orders".into(), key),
                ("post".into(), "/api/webhooks".into(), vec![]),
            ]
        );
    }

    #[test]
    fn an_inline_handler_is_no_part_of_the_declaration() {
        let src = "class A {\n  void M(WebApplication app) {\n    app.MapPost(\"/x\", async () =>\n    {\n      return 1;\n    });\n    app.MapGet(\"/y\", H);\n  }\n}\n";
        let got = routes_of(Language::CSharp, "A.cs", src);
        assert_eq!(&src[got[0].at.clone()], "app.MapPost(\"/x\"");
        assert_eq!(&src[got[1].at.clone()], "app.MapGet(\"/y\", H)");
    }
}
