//! Go HTTP routers: `net/http` 1.22 patterns (`mux.HandleFunc("POST /cart/{id}",
//! h)`, `http.Handle(...)`) and gorilla/mux (`r.HandleFunc("/cart", h)
//! .Methods(http.MethodPost)`, `.Methods("POST")`). A path built as
//! `baseUrl + "/cart"` keeps its literal parts (the prefix variable is usually
//! empty or set at deployment); a route that names no method (every method) is not
//! read.

use super::route::{braces, ServerRoute};
use super::syntax::{args, member_call, nodes, string};
use crate::import::code::CodeFile;
use tree_sitter::Node;

/// Text that a Go file declaring routes holds.
pub const MARKERS: &[&str] = &["Handle"];

const METHODS: &[&str] = &["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"];

/// Every route of `file`.
pub fn routes(file: &CodeFile<'_>) -> Vec<ServerRoute> {
    let mut out = Vec::new();
    for call in nodes(file.tree.root_node()) {
        let Some((_, name)) = member_call(file, call) else {
            continue;
        };
        if !matches!(name, "HandleFunc" | "Handle") {
            continue;
        }
        let a = args(call);
        if a.len() < 2 {
            continue;
        }
        let Some(pattern) = literal_parts(file, a[0]) else {
            continue;
        };
        let (methods, path) = match pattern.split_once(' ') {
            Some((m, p)) if METHODS.contains(&m) => (vec![m.to_ascii_lowercase()], p.trim()),
            _ => (chained_methods(file, call), pattern.as_str()),
        };
        // A 1.22 pattern may name a host (`example.com/x`): the path is what follows.
        let path = match path.find('/') {
            Some(i) => &path[i..],
            None => continue,
        };
        for m in methods {
            out.push(ServerRoute {
                method: m,
                path: braces(path),
                at: call.byte_range(),
                required_headers: Vec::new(),
            });
        }
    }
    out
}

/// The string of a literal or of `+` joined literals, dropping the parts that are
/// not literals; `None` when no part is.
fn literal_parts(file: &CodeFile<'_>, n: Node<'_>) -> Option<String> {
    if n.kind() == "binary_expression" {
        let l = n.child_by_field_name("left")?;
        let r = n.child_by_field_name("right")?;
        return match (literal_parts(file, l), literal_parts(file, r)) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or_default() + &b.unwrap_or_default()),
        };
    }
    string(file, n)
}

/// gorilla/mux: the methods of `.Methods(...)` chained on the route.
fn chained_methods(file: &CodeFile<'_>, call: Node<'_>) -> Vec<String> {
    let mut out = Vec::new();
    let mut node = call;
    // handle(...).Methods(...), possibly after .Name(...) or other builders.
    while let Some(sel) = node.parent().filter(|p| p.kind() == "selector_expression") {
        let Some(outer) = sel.parent().filter(|p| p.kind() == "call_expression") else {
            break;
        };
        if let Some((_, "Methods")) = member_call(file, outer) {
            for a in args(outer) {
                let t = string(file, a).unwrap_or_else(|| {
                    let t = file.text_of(a);
                    t.strip_prefix("http.Method")
                        .unwrap_or(t)
                        .to_ascii_uppercase()
                });
                let t = t.to_ascii_uppercase();
                if METHODS.contains(&t.as_str()) {
                    out.push(t.to_ascii_lowercase());
                }
            }
        }
        node = outer;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testing::routes_of;
    use crate::import::code::Language;

    #[test]
    fn patterns_and_gorilla_methods() {
        let got: Vec<(String, String)> = routes_of(
            Language::Go,
            "main.go",
            r#"package main
func main() {
    mux := http.NewServeMux()
    mux.HandleFunc("POST /cart/{id}", addToCart)
    mux.HandleFunc("GET /static/{path...}", static)
    mux.HandleFunc("/healthz", health)
    r := mux.NewRouter()
    r.HandleFunc(baseUrl+"/cart/checkout", svc.placeOrderHandler).Methods(http.MethodPost)
    r.HandleFunc(baseUrl + "/product/{id}", svc.productHandler).Methods(http.MethodGet, "HEAD")
}
"#,
        )
        .into_iter()
        .map(|r| (r.method, r.path))
        .collect();
        let want = [
            ("post", "/cart/{id}"),
            ("get", "/static/{path}"),
            ("post", "/cart/checkout"),
            ("get", "/product/{id}"),
            ("head", "/product/{id}"),
        ];
        assert_eq!(
            got,
            want.map(|(m, p)| (m.to_string(), p.to_string())).to_vec()
        );
    }
}
