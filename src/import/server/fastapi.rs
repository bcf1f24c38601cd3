//! FastAPI: `@app.post("/x")` and `@router.post("/x")` decorators, with the prefix of
//! a router made in the same file (`router = APIRouter(prefix="/items")`). A prefix
//! given where the router is included (`app.include_router(r, prefix=...)`, often
//! in another file) is not read.

use super::route::{braces, join, ServerRoute};
use super::syntax::{args, keyword_arg, member_call, nodes, string};
use crate::import::code::CodeFile;
use std::collections::HashMap;

/// Text that a FastAPI file declaring routes holds.
pub const MARKERS: &[&str] = &["fastapi"];

const METHODS: &[&str] = &["get", "post", "put", "delete", "patch", "head", "options"];

/// Every route of `file`.
pub fn routes(file: &CodeFile<'_>) -> Vec<ServerRoute> {
    let all = nodes(file.tree.root_node());
    // Apps and routers made here: name -> prefix.
    let mut apps: HashMap<String, String> = HashMap::new();
    for n in &all {
        if n.kind() != "assignment" {
            continue;
        }
        let (Some(left), Some(right)) = (
            n.child_by_field_name("left"),
            n.child_by_field_name("right"),
        ) else {
            continue;
        };
        if right.kind() != "call" {
            continue;
        }
        let callee = right
            .child_by_field_name("function")
            .map_or("", |f| file.text_of(f));
        let simple = callee.rsplit('.').next().unwrap_or(callee);
        if matches!(simple, "FastAPI" | "APIRouter") {
            let prefix = keyword_arg(file, right, "prefix")
                .and_then(|p| string(file, p))
                .unwrap_or_default();
            apps.insert(file.text_of(left).to_string(), prefix);
        }
    }
    let mut out = Vec::new();
    for n in all.iter().filter(|n| n.kind() == "decorator") {
        let Some(call) = n.named_child(0).filter(|c| c.kind() == "call") else {
            continue;
        };
        let Some((recv, name)) = member_call(file, call) else {
            continue;
        };
        let Some(prefix) = apps.get(file.text_of(recv)) else {
            continue;
        };
        if !METHODS.contains(&name) {
            continue;
        }
        let path = args(call)
            .first()
            .and_then(|p| string(file, *p))
            .or_else(|| keyword_arg(file, call, "path").and_then(|p| string(file, p)));
        let Some(path) = path else { continue };
        out.push(ServerRoute {
            method: name.to_string(),
            path: braces(&join(prefix, &path)),
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
    fn app_and_router_decorators_with_the_router_prefix() {
        let got: Vec<(String, String)> = routes_of(
            Language::Python,
            "main.py",
            r#"from fastapi import FastAPI, APIRouter
app = FastAPI()
router = APIRouter(prefix="/items", tags=["items"])
client = httpx.Client()

@app.post("/orders")
async def create(order: Order): ...

@router.get("/{item_id}")
async def read(item_id: int): ...

@router.put(path="/{item_id}/tags/{rest:path}")
async def tag(item_id: int): ...

@client.post("/not-a-route")
def nope(): ...
"#,
        )
        .into_iter()
        .map(|r| (r.method, r.path))
        .collect();
        let want = [
            ("post", "/orders"),
            ("get", "/items/{item_id}"),
            ("put", "/items/{item_id}/tags/{rest}"),
        ];
        assert_eq!(
            got,
            want.map(|(m, p)| (m.to_string(), p.to_string())).to_vec()
        );
    }
}
