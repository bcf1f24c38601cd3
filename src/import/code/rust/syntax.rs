//! Helpers over the tree-sitter-rust 0.24 syntax tree: method calls
//! (`recv.name(args)`), path calls (`Type::name(args)`), receiver chains through
//! `.await` and `?`, and the name a value is stored under. Walks are loops or
//! explicit stacks, never recursion.

use super::super::model::Span;
use super::super::CodeFile;
use tree_sitter::Node;

/// The most parents or chain links a walk looks at.
pub const MAX_UP: usize = 64;

/// `.await`, `?`, `&`, `(...)` around an expression: the expression itself.
pub fn unwrap<'t>(mut n: Node<'t>) -> Node<'t> {
    for _ in 0..MAX_UP {
        match n.kind() {
            "await_expression"
            | "try_expression"
            | "reference_expression"
            | "parenthesized_expression" => match n.named_child(0) {
                Some(c) => n = c,
                None => return n,
            },
            _ => return n,
        }
    }
    n
}

/// The method name of `recv.name(...)` / `recv.name::<T>(...)`, or the last
/// segment of `Path::name(...)` / `name(...)`.
pub fn method_name<'t>(file: &'t CodeFile<'_>, call: Node<'_>) -> &'t str {
    let Some(mut f) = call.child_by_field_name("function") else {
        return "";
    };
    if f.kind() == "generic_function" {
        match f.child_by_field_name("function") {
            Some(g) => f = g,
            None => return "",
        }
    }
    match f.kind() {
        "field_expression" => f
            .child_by_field_name("field")
            .map_or("", |n| file.text_of(n)),
        "scoped_identifier" => f
            .child_by_field_name("name")
            .map_or("", |n| file.text_of(n)),
        "identifier" => file.text_of(f),
        _ => "",
    }
}

/// The path of a path call: `ExponentialBackoff::builder` -> its full text.
pub fn function_text<'t>(file: &'t CodeFile<'_>, call: Node<'_>) -> &'t str {
    call.child_by_field_name("function")
        .map_or("", |f| file.text_of(f))
}

/// The receiver of `recv.name(...)`, through `.await` and `?`.
pub fn receiver<'t>(call: Node<'t>) -> Option<Node<'t>> {
    let mut f = call.child_by_field_name("function")?;
    if f.kind() == "generic_function" {
        f = f.child_by_field_name("function")?;
    }
    (f.kind() == "field_expression")
        .then(|| f.child_by_field_name("value"))
        .flatten()
        .map(unwrap)
}

/// The arguments of a call.
pub fn args<'t>(call: Node<'t>) -> Vec<Node<'t>> {
    let Some(a) = call.child_by_field_name("arguments") else {
        return Vec::new();
    };
    let mut cursor = a.walk();
    a.named_children(&mut cursor)
        .filter(|n| {
            n.kind() != "attribute_item"
                && n.kind() != "line_comment"
                && n.kind() != "block_comment"
        })
        .collect()
}

/// The method call whose receiver is `node` (`node.next(...)`), through `.await`/`?`.
pub fn next_in_chain<'t>(node: Node<'t>) -> Option<Node<'t>> {
    let mut cur = node;
    for _ in 0..4 {
        let p = cur.parent()?;
        match p.kind() {
            "await_expression" | "try_expression" => cur = p,
            "field_expression" => {
                let call = p.parent()?;
                let call = if call.kind() == "generic_function" {
                    call.parent()?
                } else {
                    call
                };
                return (call.kind() == "call_expression").then_some(call);
            }
            _ => return None,
        }
    }
    None
}

/// The outermost call of the fluent chain `node` starts (`a.b().c().d()` from `a.b()`).
pub fn chain_end<'t>(node: Node<'t>) -> Node<'t> {
    let mut cur = node;
    for _ in 0..MAX_UP {
        match next_in_chain(cur) {
            Some(n) => cur = n,
            None => break,
        }
    }
    cur
}

/// The nearest ancestor of one of `kinds`.
pub fn enclosing<'t>(node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    let mut cur = node.parent();
    for _ in 0..MAX_UP * 4 {
        let n = cur?;
        if kinds.contains(&n.kind()) {
            return Some(n);
        }
        cur = n.parent();
    }
    None
}

/// The name a value is stored under: `let x = VALUE`, `Self { field: VALUE }`,
/// `x = VALUE`, a `static`/`const`, or the function whose tail expression it is.
/// Fluent chains, `Arc::new(...)` and `.await`/`?` are looked through.
pub fn stored_name(file: &CodeFile<'_>, value: Node<'_>) -> Option<(String, Span)> {
    let mut cur = value;
    for _ in 0..MAX_UP {
        let p = cur.parent()?;
        match p.kind() {
            "call_expression"
            | "field_expression"
            | "arguments"
            | "await_expression"
            | "try_expression"
            | "reference_expression"
            | "parenthesized_expression"
            | "generic_function" => {}
            "let_declaration" => {
                let n = p.child_by_field_name("pattern")?;
                let text = file
                    .text_of(n)
                    .trim_start_matches("mut ")
                    .trim()
                    .to_string();
                return Some((text, n.byte_range()));
            }
            "field_initializer" => {
                let n = p.child_by_field_name("field")?;
                return Some((file.text_of(n).to_string(), n.byte_range()));
            }
            "assignment_expression" => {
                let n = p.child_by_field_name("left")?;
                return Some((file.text_of(n).to_string(), n.byte_range()));
            }
            "static_item" | "const_item" => {
                let n = p.child_by_field_name("name")?;
                return Some((file.text_of(n).to_string(), n.byte_range()));
            }
            "block" => {
                // The tail expression of a function body.
                let last = p.named_child(p.named_child_count().checked_sub(1)?)?;
                if last.id() != cur.id() {
                    return None;
                }
                let f = p.parent().filter(|f| f.kind() == "function_item")?;
                let n = f.child_by_field_name("name")?;
                return Some((file.text_of(n).to_string(), n.byte_range()));
            }
            _ => return None,
        }
        cur = p;
    }
    None
}

/// The nodes of `root`'s subtree in source order (explicit stack), at most `limit`.
pub fn descendants<'t>(root: Node<'t>, limit: usize) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if out.len() >= limit {
            break;
        }
        out.push(n);
        let mut cursor = n.walk();
        let children: Vec<Node<'t>> = n.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    out
}
