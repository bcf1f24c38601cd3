//! Small readers shared by the route readers of several languages over their
//! tree-sitter trees: a call's receiver, method name and arguments, string
//! literals, and a walk over every node (an explicit stack, no recursion).

use crate::import::code::CodeFile;
use tree_sitter::Node;

/// Every node of the file, in document order.
pub fn nodes<'t>(root: Node<'t>) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        out.push(n);
        let mut c = n.walk();
        let children: Vec<Node<'t>> = n.named_children(&mut c).collect();
        stack.extend(children.into_iter().rev());
    }
    out
}

/// For a call node (Go and JavaScript `call_expression`, Python `call`, C#
/// `invocation_expression`) of a member (`recv.Name(...)`): the receiver node and
/// the member's name.
pub fn member_call<'t>(file: &'t CodeFile<'_>, call: Node<'t>) -> Option<(Node<'t>, &'t str)> {
    if !matches!(
        call.kind(),
        "call_expression" | "call" | "invocation_expression"
    ) {
        return None;
    }
    let f = call.child_by_field_name("function")?;
    let (recv, name) = match f.kind() {
        "selector_expression" => (
            f.child_by_field_name("operand")?,
            f.child_by_field_name("field")?,
        ),
        "member_expression" => (
            f.child_by_field_name("object")?,
            f.child_by_field_name("property")?,
        ),
        "attribute" => (
            f.child_by_field_name("object")?,
            f.child_by_field_name("attribute")?,
        ),
        "member_access_expression" => (
            f.child_by_field_name("expression")?,
            f.child_by_field_name("name")?,
        ),
        _ => return None,
    };
    Some((recv, file.text_of(name)))
}

/// The positional arguments of a call (C# `argument` wrappers unwrapped; Python
/// keyword arguments left out).
pub fn args<'t>(call: Node<'t>) -> Vec<Node<'t>> {
    let Some(list) = call.child_by_field_name("arguments") else {
        return Vec::new();
    };
    let mut c = list.walk();
    list.named_children(&mut c)
        .filter(|a| !matches!(a.kind(), "comment" | "keyword_argument"))
        .map(|a| {
            if a.kind() == "argument" {
                a.named_child(a.named_child_count().saturating_sub(1))
                    .unwrap_or(a)
            } else {
                a
            }
        })
        .collect()
}

/// The value of keyword argument `key` of a Python call.
pub fn keyword_arg<'t>(file: &CodeFile<'_>, call: Node<'t>, key: &str) -> Option<Node<'t>> {
    let list = call.child_by_field_name("arguments")?;
    let mut c = list.walk();
    let found = list
        .named_children(&mut c)
        .filter(|a| a.kind() == "keyword_argument")
        .find(|a| {
            a.child_by_field_name("name")
                .is_some_and(|n| file.text_of(n) == key)
        });
    found.and_then(|a| a.child_by_field_name("value"))
}

/// The text of a plain string literal, without quotes; `None` for anything else
/// (an interpolated or formatted string, an expression).
pub fn string(file: &CodeFile<'_>, n: Node<'_>) -> Option<String> {
    if !matches!(
        n.kind(),
        "string"
            | "string_literal"
            | "interpreted_string_literal"
            | "raw_string_literal"
            | "verbatim_string_literal"
    ) {
        return None;
    }
    let t = file.text_of(n);
    let t = t.trim_start_matches(['@', 'r', 'R', 'u', 'U', 'b', 'B']);
    if t.starts_with(['$', 'f', 'F']) {
        return None;
    }
    for q in ["\"\"\"", "'''", "\"", "'", "`"] {
        if let Some(inner) = t.strip_prefix(q).and_then(|s| s.strip_suffix(q)) {
            return Some(inner.to_string());
        }
    }
    None
}
