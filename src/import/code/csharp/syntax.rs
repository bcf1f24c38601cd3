//! Small helpers over the tree-sitter-c-sharp 0.23 syntax tree: the parts of an
//! invocation (`recv.Name<T>(args)`), lambda bodies, enclosing declarations. Every
//! walk is a loop (parents, receiver chains) or an explicit stack, never recursion.

use super::super::CodeFile;
use tree_sitter::Node;

/// The most parents a walk up the tree looks at (deeply nested code is read as far
/// as this, not further).
pub const MAX_UP: usize = 64;

/// The method name of an invocation: `AddHttpClient` for
/// `services.AddHttpClient<T>(...)`, `Foo` for `Foo(...)`.
pub fn method_name<'t>(file: &'t CodeFile<'_>, call: Node<'_>) -> &'t str {
    let Some(f) = call.child_by_field_name("function") else {
        return "";
    };
    let name = match f.kind() {
        "member_access_expression" => f.child_by_field_name("name"),
        _ => Some(f),
    };
    match name {
        Some(n) if n.kind() == "generic_name" => n.named_child(0).map_or("", |i| file.text_of(i)),
        Some(n) if n.kind() == "identifier" => file.text_of(n),
        _ => "",
    }
}

/// The receiver of `recv.Name(...)` (`None` for a plain `Name(...)`).
pub fn receiver<'t>(call: Node<'t>) -> Option<Node<'t>> {
    let f = call.child_by_field_name("function")?;
    (f.kind() == "member_access_expression")
        .then(|| f.child_by_field_name("expression"))
        .flatten()
}

/// The type arguments of `Name<A, B>(...)`, as their last name segments.
pub fn type_args(file: &CodeFile<'_>, call: Node<'_>) -> Vec<(String, std::ops::Range<usize>)> {
    let Some(f) = call.child_by_field_name("function") else {
        return Vec::new();
    };
    let g = if f.kind() == "member_access_expression" {
        f.child_by_field_name("name")
    } else {
        Some(f)
    };
    let Some(g) = g.filter(|g| g.kind() == "generic_name") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut cursor = g.walk();
    for list in g.named_children(&mut cursor) {
        if list.kind() != "type_argument_list" {
            continue;
        }
        let mut c2 = list.walk();
        for t in list.named_children(&mut c2) {
            let text = file.text_of(t);
            let base = text.split('<').next().unwrap_or(text);
            let last = base.rsplit('.').next().unwrap_or(base).trim();
            if !last.is_empty() {
                out.push((last.to_string(), t.byte_range()));
            }
        }
    }
    out
}

/// The arguments of an invocation or object creation: (name if `name: value`, value).
pub fn args<'t>(call: Node<'t>) -> Vec<(Option<Node<'t>>, Node<'t>)> {
    let list = call.child_by_field_name("arguments").or_else(|| {
        let mut cursor = call.walk();
        let found = call
            .named_children(&mut cursor)
            .find(|c| c.kind() == "argument_list");
        found
    });
    let Some(list) = list else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut cursor = list.walk();
    for a in list.named_children(&mut cursor) {
        if a.kind() != "argument" {
            continue;
        }
        let name = a.child_by_field_name("name");
        let mut c2 = a.walk();
        let value = a
            .named_children(&mut c2)
            .filter(|v| Some(*v) != name)
            .last();
        if let Some(v) = value {
            out.push((name, v));
        }
    }
    out
}

/// The argument named `name`, else the one at `index`.
pub fn arg<'t>(
    file: &CodeFile<'_>,
    list: &[(Option<Node<'t>>, Node<'t>)],
    name: &str,
    index: usize,
) -> Option<Node<'t>> {
    list.iter()
        .find(|(n, _)| n.is_some_and(|n| file.text_of(n) == name))
        .or_else(|| list.get(index).filter(|(n, _)| n.is_none()))
        .map(|(_, v)| *v)
}

/// A lambda's first parameter name and its body.
pub fn lambda<'t>(file: &CodeFile<'_>, node: Node<'t>) -> Option<(String, Node<'t>)> {
    if node.kind() != "lambda_expression" {
        return None;
    }
    let body = node.child_by_field_name("body")?;
    let params = node.child_by_field_name("parameters");
    let name = match params {
        Some(p) if p.kind() == "identifier" || p.kind() == "implicit_parameter" => {
            file.text_of(p).to_string()
        }
        Some(p) => {
            let mut cursor = p.walk();
            let first = p
                .named_children(&mut cursor)
                .find(|c| c.kind() == "parameter")
                .and_then(|c| c.child_by_field_name("name"))
                .map(|n| file.text_of(n).to_string());
            first.unwrap_or_default()
        }
        None => {
            let mut cursor = node.walk();
            let first = node
                .named_children(&mut cursor)
                .find(|c| c.kind() == "identifier" || c.kind() == "implicit_parameter")
                .map(|n| file.text_of(n).to_string());
            first.unwrap_or_default()
        }
    };
    Some((name, body))
}

/// The nodes of `root`'s subtree (root included), in source order, read with an
/// explicit stack, at most `limit` of them.
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

/// The nearest ancestor invocation (at most [`MAX_UP`] levels up) whose method
/// name is one of `names`.
pub fn enclosing_call<'t>(file: &CodeFile<'_>, node: Node<'t>, names: &[&str]) -> Option<Node<'t>> {
    let mut cur = node.parent();
    for _ in 0..MAX_UP {
        let n = cur?;
        if n.kind() == "invocation_expression" && names.contains(&method_name(file, n)) {
            return Some(n);
        }
        cur = n.parent();
    }
    None
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

/// The name of the nearest enclosing class, record, struct or interface.
pub fn enclosing_type_name(file: &CodeFile<'_>, node: Node<'_>) -> Option<String> {
    let t = enclosing(
        node,
        &[
            "class_declaration",
            "record_declaration",
            "struct_declaration",
            "interface_declaration",
        ],
    )?;
    t.child_by_field_name("name")
        .map(|n| file.text_of(n).to_string())
}

/// The name a value is stored under: `var x = VALUE`, `x = VALUE`, a field
/// initializer, or the method that returns it (`return VALUE;`, `=> VALUE`).
pub fn stored_name(
    file: &CodeFile<'_>,
    value: Node<'_>,
) -> Option<(String, std::ops::Range<usize>)> {
    let mut cur = value;
    for _ in 0..MAX_UP {
        let p = cur.parent()?;
        match p.kind() {
            // Fluent chains and wrappers: the outermost expression is what is stored.
            "member_access_expression"
            | "invocation_expression"
            | "argument_list"
            | "argument"
            | "parenthesized_expression"
            | "await_expression"
            | "cast_expression" => {}
            "variable_declarator" => {
                let n = p.child_by_field_name("name")?;
                return Some((file.text_of(n).to_string(), n.byte_range()));
            }
            "assignment_expression" => {
                let n = p.child_by_field_name("left")?;
                return Some((file.text_of(n).to_string(), n.byte_range()));
            }
            "return_statement" | "arrow_expression_clause" => {
                let m = enclosing(
                    p,
                    &[
                        "method_declaration",
                        "local_function_statement",
                        "property_declaration",
                    ],
                )?;
                let n = m.child_by_field_name("name")?;
                return Some((file.text_of(n).to_string(), n.byte_range()));
            }
            _ => return None,
        }
        cur = p;
    }
    None
}
