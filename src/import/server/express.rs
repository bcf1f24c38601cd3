//! Express (and Fastify's shorthand): `app.post("/x", handler)` and
//! `router.post(...)` on an app or router made in the same file (`express()`,
//! `express.Router()`, `Router()`, `fastify()`), with the prefix a router is
//! mounted at in that file (`app.use("/api", router)`). Calls on any other
//! receiver (an HTTP client's `axios.post`) are not routes.

use super::route::{colons, join, ServerRoute};
use super::syntax::{args, member_call, nodes, string};
use crate::import::code::CodeFile;
use std::collections::HashMap;

/// Text that an Express or Fastify file declaring routes holds.
pub const MARKERS: &[&str] = &["express", "fastify", "Router("];

const METHODS: &[&str] = &["get", "post", "put", "delete", "patch", "head", "options"];

/// Every route of `file`.
pub fn routes(file: &CodeFile<'_>) -> Vec<ServerRoute> {
    let all = nodes(file.tree.root_node());
    // Apps and routers made here: name -> mount prefix.
    let mut apps: HashMap<String, String> = HashMap::new();
    for n in &all {
        if n.kind() != "variable_declarator" {
            continue;
        }
        let (Some(name), Some(value)) = (
            n.child_by_field_name("name"),
            n.child_by_field_name("value"),
        ) else {
            continue;
        };
        let value = match value.kind() {
            "await_expression" => value.named_child(0).unwrap_or(value),
            _ => value,
        };
        if value.kind() != "call_expression" {
            continue;
        }
        let callee = value
            .child_by_field_name("function")
            .map_or("", |f| file.text_of(f));
        if matches!(
            callee,
            "express" | "express.Router" | "Router" | "fastify" | "Fastify"
        ) {
            apps.insert(file.text_of(name).to_string(), String::new());
        }
    }
    // `app.use("/api", router)`: the router's prefix.
    for n in &all {
        let Some((recv, "use")) = member_call(file, *n) else {
            continue;
        };
        if !apps.contains_key(file.text_of(recv)) {
            continue;
        }
        let a = args(*n);
        if let (Some(prefix), Some(router)) = (a.first().and_then(|p| string(file, *p)), a.get(1)) {
            let router = file.text_of(*router).to_string();
            if let Some(p) = apps.get_mut(&router) {
                *p = prefix;
            }
        }
    }
    let mut out = Vec::new();
    for n in &all {
        let Some((recv, name)) = member_call(file, *n) else {
            continue;
        };
        let Some(prefix) = apps.get(file.text_of(recv)) else {
            continue;
        };
        if !METHODS.contains(&name) {
            continue;
        }
        let a = args(*n);
        if a.len() < 2 {
            continue;
        }
        let Some(path) = string(file, a[0]) else {
            continue;
        };
        out.push(ServerRoute {
            method: name.to_string(),
            path: colons(&join(prefix, &path)),
            at: n.byte_range(),
            required_headers: Vec::new(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testing::routes_of;
    use crate::import::code::Language;

    #[test]
    fn app_and_mounted_router_routes() {
        let got: Vec<(String, String)> = routes_of(
            Language::JavaScript,
            "server.js",
            r#"const express = require('express');
const app = express();
const router = express.Router();
router.post('/orders/:id/pay', pay);
app.get("/health", (req, res) => res.send("ok"));
app.use('/api', router);
axios.post('/not-a-route', body);
app.get('setting');
"#,
        )
        .into_iter()
        .map(|r| (r.method, r.path))
        .collect();
        let want = [("post", "/api/orders/{id}/pay"), ("get", "/health")];
        assert_eq!(
            got,
            want.map(|(m, p)| (m.to_string(), p.to_string())).to_vec()
        );
    }
}
