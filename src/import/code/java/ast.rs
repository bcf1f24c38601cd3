//! Small readers over the tree-sitter Java tree shared by the Java extractor:
//! annotations and their arguments, literals and same-file constants, imports, and
//! the declared types of variables. Every walk uses an explicit stack.

use super::super::CodeFile;
use std::collections::HashMap;
use tree_sitter::Node;

/// What the whole file says once: imports, `static final` constants, and the
/// declared type of every field, parameter and local variable (by name).
#[derive(Debug, Default)]
pub struct FileIndex {
    /// Imported names (`org.springframework.retry.annotation.Retryable`, or
    /// `org.springframework.retry.annotation.*`).
    pub imports: Vec<String>,
    /// Same-file constants: name -> initializer node range.
    pub constants: HashMap<String, std::ops::Range<usize>>,
    /// Variable name -> simple type name (generics dropped).
    pub types: HashMap<String, String>,
    /// The module's Spring properties, read when the file holds a `${` placeholder.
    pub props: super::properties::Props,
    /// Placeholders resolved from `props`: (span, note), taken by the client whose
    /// annotation holds the span.
    pub resolved: std::cell::RefCell<Vec<(std::ops::Range<usize>, String)>>,
}

impl FileIndex {
    /// True when `class` (fully qualified) is imported, directly or by its package's
    /// wildcard.
    pub fn imports_class(&self, class: &str) -> bool {
        let package = class.rsplit_once('.').map_or("", |(p, _)| p);
        self.imports
            .iter()
            .any(|i| i == class || i.strip_suffix(".*") == Some(package))
    }

    /// True when a simple name (`Retryable`) is imported from some other package
    /// than `packages` (then it is not the library's annotation).
    pub fn imported_from_elsewhere(&self, simple: &str, packages: &[&str]) -> bool {
        self.imports.iter().any(|i| {
            i.rsplit_once('.')
                .is_some_and(|(p, s)| s == simple && !packages.contains(&p))
        })
    }
}

/// Builds the [`FileIndex`] of `file`.
pub fn index(file: &CodeFile<'_>) -> FileIndex {
    let mut out = FileIndex::default();
    if file.text.contains("${") {
        out.props = super::properties::near(file.path(), file.boundary);
    }
    let mut stack = vec![file.tree.root_node()];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "import_declaration" => {
                let t = file.text_of(node);
                let t = t
                    .trim_start_matches("import")
                    .trim()
                    .trim_start_matches("static ")
                    .trim_end_matches(';')
                    .trim();
                out.imports.push(t.replace(char::is_whitespace, ""));
                continue;
            }
            "field_declaration" | "local_variable_declaration" | "constant_declaration" => {
                let ty = node
                    .child_by_field_name("type")
                    .map(|t| simple_type(file.text_of(t)));
                let is_const = node.kind() == "constant_declaration" || {
                    let mods = modifiers_text(file, node);
                    mods.contains("static") && mods.contains("final")
                };
                let mut cursor = node.walk();
                for d in node.children_by_field_name("declarator", &mut cursor) {
                    let Some(name) = d.child_by_field_name("name") else {
                        continue;
                    };
                    let name = file.text_of(name).to_string();
                    if let Some(ty) = &ty {
                        out.types.insert(name.clone(), ty.clone());
                    }
                    if is_const {
                        if let Some(v) = d.child_by_field_name("value") {
                            out.constants.insert(name, v.byte_range());
                        }
                    }
                }
            }
            "formal_parameter" | "spread_parameter" => {
                let ty = node.child_by_field_name("type").or_else(|| {
                    let mut c = node.walk();
                    let found = node
                        .named_children(&mut c)
                        .find(|n| n.kind().ends_with("type") || n.kind() == "type_identifier");
                    found
                });
                let name = node.child_by_field_name("name").or_else(|| {
                    let mut c = node.walk();
                    let found = node
                        .named_children(&mut c)
                        .find(|n| n.kind() == "variable_declarator")
                        .and_then(|d| d.child_by_field_name("name"));
                    found
                });
                if let (Some(t), Some(n)) = (ty, name) {
                    out.types
                        .insert(file.text_of(n).to_string(), simple_type(file.text_of(t)));
                }
            }
            _ => {}
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    out
}

/// `java.util.List<Foo>` -> `List`; `RetryRestTemplate` -> `RetryRestTemplate`.
pub fn simple_type(t: &str) -> String {
    let t = t.split('<').next().unwrap_or(t).trim();
    t.rsplit('.').next().unwrap_or(t).to_string()
}

fn modifiers_text<'a>(file: &'a CodeFile<'_>, node: Node<'_>) -> &'a str {
    let mut c = node.walk();
    let found = node
        .children(&mut c)
        .find(|n| n.kind() == "modifiers")
        .map_or("", |m| file.text_of(m));
    found
}

/// The annotations on a declaration (its `modifiers`).
pub fn annotations<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut c = node.walk();
    for child in node.children(&mut c) {
        if child.kind() == "modifiers" {
            let mut c2 = child.walk();
            out.extend(
                child
                    .children(&mut c2)
                    .filter(|a| matches!(a.kind(), "annotation" | "marker_annotation")),
            );
        } else if matches!(child.kind(), "annotation" | "marker_annotation") {
            out.push(child);
        }
    }
    out
}

/// The annotation's name as written (`Retryable`, `org.x.Retryable`).
pub fn annotation_name<'a>(file: &'a CodeFile<'_>, a: Node<'_>) -> &'a str {
    a.child_by_field_name("name")
        .map_or("", |n| file.text_of(n))
}

/// The simple name of an annotation (`org.x.Retryable` -> `Retryable`).
pub fn annotation_simple<'a>(file: &'a CodeFile<'_>, a: Node<'_>) -> &'a str {
    let n = annotation_name(file, a);
    n.rsplit('.').next().unwrap_or(n)
}

/// The first annotation of `node` with simple name `name`.
pub fn find_annotation<'t>(file: &CodeFile<'_>, node: Node<'t>, name: &str) -> Option<Node<'t>> {
    annotations(node)
        .into_iter()
        .find(|a| annotation_simple(file, *a) == name)
}

/// The arguments of an annotation: `(key, value)`; a single unnamed value has key
/// `value`.
pub fn annotation_args<'t>(file: &CodeFile<'_>, a: Node<'t>) -> Vec<(String, Node<'t>)> {
    let mut out = Vec::new();
    let Some(args) = a.child_by_field_name("arguments") else {
        return out;
    };
    let mut c = args.walk();
    for arg in args.named_children(&mut c) {
        if arg.kind() == "element_value_pair" {
            if let (Some(k), Some(v)) = (
                arg.child_by_field_name("key"),
                arg.child_by_field_name("value"),
            ) {
                out.push((file.text_of(k).to_string(), v));
            }
        } else if arg.kind() != "comment" {
            out.push(("value".to_string(), arg));
        }
    }
    out
}

/// The value of argument `key` (the first of `keys` present).
pub fn arg<'t>(args: &[(String, Node<'t>)], keys: &[&str]) -> Option<Node<'t>> {
    keys.iter()
        .find_map(|k| args.iter().find(|(a, _)| a == k).map(|(_, v)| *v))
}

/// The elements of `{A.class, B.class}` or a single `A.class`.
pub fn elements(node: Node<'_>) -> Vec<Node<'_>> {
    if node.kind() == "element_value_array_initializer" || node.kind() == "array_initializer" {
        let mut c = node.walk();
        node.named_children(&mut c)
            .filter(|n| n.kind() != "comment")
            .collect()
    } else {
        vec![node]
    }
}

/// The string of a literal (`"abc"` -> `abc`), with a same-file constant followed
/// and `+` of literals joined; `None` when not statically known.
pub fn string_value(file: &CodeFile<'_>, idx: &FileIndex, node: Node<'_>) -> Option<String> {
    let mut out = String::new();
    let mut stack = vec![(node, 0u8)];
    // An explicit stack over `+` and parentheses, left to right.
    while let Some((n, depth)) = stack.pop() {
        if depth > 16 {
            return None;
        }
        match n.kind() {
            "string_literal" => out.push_str(&literal_text(file, n)),
            "parenthesized_expression" => stack.push((n.named_child(0)?, depth + 1)),
            "binary_expression" => {
                let op = n.child_by_field_name("operator").map(|o| file.text_of(o));
                if op != Some("+") {
                    return None;
                }
                stack.push((n.child_by_field_name("right")?, depth + 1));
                stack.push((n.child_by_field_name("left")?, depth + 1));
            }
            "identifier" => {
                let r = idx.constants.get(file.text_of(n))?;
                let v = file
                    .tree
                    .root_node()
                    .descendant_for_byte_range(r.start, r.end)?;
                stack.push((v, depth + 1));
            }
            _ => return None,
        }
    }
    Some(out)
}

/// The text inside a string literal's quotes (escapes kept as written, text blocks
/// trimmed).
pub fn literal_text(file: &CodeFile<'_>, n: Node<'_>) -> String {
    let t = file.text_of(n);
    if let Some(inner) = t
        .strip_prefix("\"\"\"")
        .and_then(|s| s.strip_suffix("\"\"\""))
    {
        return inner.trim().to_string();
    }
    t.trim_matches('"').to_string()
}

/// A number: integer and floating literals (`1_000L`, `1.5d`), same-file
/// constants, unary minus, `+ - * /`, `TimeUnit.SECONDS.toMillis(n)` and
/// `Duration.ofSeconds(n).toMillis()` (both give milliseconds).
pub fn number(file: &CodeFile<'_>, idx: &FileIndex, node: Node<'_>) -> Option<f64> {
    // Post-order evaluation with an explicit stack: (node, visited).
    let mut work: Vec<(Node<'_>, bool, u8)> = vec![(node, false, 0)];
    let mut values: Vec<f64> = Vec::new();
    while let Some((n, visited, depth)) = work.pop() {
        if depth > 32 {
            return None;
        }
        match n.kind() {
            "decimal_integer_literal"
            | "hex_integer_literal"
            | "decimal_floating_point_literal" => {
                values.push(parse_number(file.text_of(n))?);
            }
            "parenthesized_expression" => work.push((n.named_child(0)?, false, depth + 1)),
            "unary_expression" => {
                let op = n.child_by_field_name("operator").map(|o| file.text_of(o));
                let operand = n.child_by_field_name("operand")?;
                match (op, visited) {
                    (Some("-"), false) => {
                        work.push((n, true, depth));
                        work.push((operand, false, depth + 1));
                    }
                    (Some("-"), true) => {
                        let v = values.pop()?;
                        values.push(-v);
                    }
                    (Some("+"), _) => work.push((operand, false, depth + 1)),
                    _ => return None,
                }
            }
            "binary_expression" => {
                if visited {
                    let r = values.pop()?;
                    let l = values.pop()?;
                    let op = n.child_by_field_name("operator").map(|o| file.text_of(o));
                    values.push(match op {
                        Some("+") => l + r,
                        Some("-") => l - r,
                        Some("*") => l * r,
                        Some("/") if r != 0.0 => l / r,
                        _ => return None,
                    });
                } else {
                    work.push((n, true, depth));
                    work.push((n.child_by_field_name("right")?, false, depth + 1));
                    work.push((n.child_by_field_name("left")?, false, depth + 1));
                }
            }
            "identifier" => {
                let r = idx.constants.get(file.text_of(n))?;
                let v = file
                    .tree
                    .root_node()
                    .descendant_for_byte_range(r.start, r.end)?;
                work.push((v, false, depth + 1));
            }
            "method_invocation" => {
                if visited {
                    let v = values.pop()?;
                    let factor = time_factor(file, n)?;
                    values.push(v * factor);
                } else {
                    let a = time_argument(file, n)?;
                    work.push((n, true, depth));
                    work.push((a, false, depth + 1));
                }
            }
            _ => return None,
        }
    }
    (values.len() == 1).then(|| values[0])
}

pub use super::number::parse_number;

const UNITS: &[(&str, f64)] = &[
    ("MILLISECONDS", 1.0),
    ("SECONDS", 1000.0),
    ("MINUTES", 60_000.0),
    ("HOURS", 3_600_000.0),
    ("Millis", 1.0),
    ("Seconds", 1000.0),
    ("Minutes", 60_000.0),
    ("Hours", 3_600_000.0),
];

/// `TimeUnit.SECONDS.toMillis(n)` / `SECONDS.toMillis(n)` / `Duration.ofSeconds(n)
/// .toMillis()`: the argument node.
fn time_argument<'t>(file: &CodeFile<'_>, n: Node<'t>) -> Option<Node<'t>> {
    let name = file.text_of(n.child_by_field_name("name")?);
    if name == "toMillis" {
        let object = n.child_by_field_name("object")?;
        if object.kind() == "method_invocation" {
            // Duration.ofX(n).toMillis()
            return object.child_by_field_name("arguments")?.named_child(0);
        }
        return n.child_by_field_name("arguments")?.named_child(0);
    }
    None
}

/// The milliseconds per unit of a [`time_argument`] call.
fn time_factor(file: &CodeFile<'_>, n: Node<'_>) -> Option<f64> {
    let object = n.child_by_field_name("object")?;
    if object.kind() == "method_invocation" {
        let of = file.text_of(object.child_by_field_name("name")?);
        let unit = of.strip_prefix("of")?;
        return UNITS.iter().find(|(u, _)| *u == unit).map(|(_, f)| *f);
    }
    let unit = file.text_of(object);
    let unit = unit.rsplit('.').next().unwrap_or(unit);
    UNITS.iter().find(|(u, _)| *u == unit).map(|(_, f)| *f)
}

/// The nearest ancestor of `node` with one of `kinds`.
pub fn ancestor<'t>(node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    let mut n = node.parent();
    while let Some(p) = n {
        if kinds.contains(&p.kind()) {
            return Some(p);
        }
        n = p.parent();
    }
    None
}

/// Every descendant of `node` (itself included) of kind `kind`, in source order.
pub fn descendants<'t>(node: Node<'t>, kind: &str) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind() == kind {
            out.push(n);
        }
        let mut c = n.walk();
        let children: Vec<Node<'t>> = n.named_children(&mut c).collect();
        stack.extend(children.into_iter().rev());
    }
    out
}
