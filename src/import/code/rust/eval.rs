//! Folding Rust constant expressions: integer and float literals with `+ - * /`,
//! same-file `const`/`static` items and `let` bindings whose name is unique in the
//! file, `Duration::from_secs/from_millis/from_secs_f64/from_micros/from_nanos(n)`,
//! `Duration::new(s, ns)`, `Duration::ZERO`, and string literals. Anything else is
//! not known (`None`): the caller reports it (RL019), never guesses.

use super::super::CodeFile;
use super::syntax;
use std::collections::HashMap;
use tree_sitter::Node;

const MAX_DEPTH: usize = 32;

/// The same-file named values.
pub struct Consts<'t> {
    values: HashMap<String, Option<Node<'t>>>,
}

impl<'t> Consts<'t> {
    /// Collects `const`/`static` items and `let` bindings of `file`; a name bound
    /// twice is not known.
    pub fn collect(file: &CodeFile<'t>) -> Consts<'t> {
        let mut values: HashMap<String, Option<Node<'t>>> = HashMap::new();
        let mut stack = vec![file.tree.root_node()];
        while let Some(n) = stack.pop() {
            let named = match n.kind() {
                "const_item" | "static_item" => n
                    .child_by_field_name("name")
                    .zip(n.child_by_field_name("value")),
                "let_declaration" => n
                    .child_by_field_name("pattern")
                    .filter(|p| p.kind() == "identifier")
                    .zip(n.child_by_field_name("value")),
                _ => None,
            };
            if let Some((name, value)) = named {
                values
                    .entry(file.text_of(name).to_string())
                    .and_modify(|v| *v = None)
                    .or_insert(Some(value));
            }
            let mut cursor = n.walk();
            stack.extend(n.children(&mut cursor));
        }
        Consts { values }
    }

    /// The value expression bound to `name` (once in the file).
    pub fn get(&self, name: &str) -> Option<Node<'t>> {
        self.values.get(name).copied().flatten()
    }
}

/// A number.
pub fn number(file: &CodeFile<'_>, consts: &Consts<'_>, node: Node<'_>) -> Option<f64> {
    number_at(file, consts, node, 0)
}

fn number_at(
    file: &CodeFile<'_>,
    consts: &Consts<'_>,
    node: Node<'_>,
    depth: usize,
) -> Option<f64> {
    if depth > MAX_DEPTH {
        return None;
    }
    let node = syntax::unwrap(node);
    let text = file.text_of(node);
    match node.kind() {
        "integer_literal" | "float_literal" => {
            let t: String = text.chars().filter(|c| *c != '_').collect();
            let digits_end = t
                .find(['u', 'i', 'f'])
                .filter(|_| !t.starts_with("0x"))
                .unwrap_or(t.len());
            let t = &t[..digits_end];
            if let Some(hex) = t.strip_prefix("0x") {
                i64::from_str_radix(hex, 16).ok().map(|v| v as f64)
            } else {
                t.parse::<f64>().ok()
            }
        }
        "unary_expression" if text.starts_with('-') => {
            Some(-number_at(file, consts, node.named_child(0)?, depth + 1)?)
        }
        "type_cast_expression" => number_at(file, consts, node.named_child(0)?, depth + 1),
        "binary_expression" => {
            let l = number_at(file, consts, node.child_by_field_name("left")?, depth + 1)?;
            let r = number_at(file, consts, node.child_by_field_name("right")?, depth + 1)?;
            match file.text_of(node.child_by_field_name("operator")?) {
                "+" => Some(l + r),
                "-" => Some(l - r),
                "*" => Some(l * r),
                "/" if r != 0.0 => Some(l / r),
                _ => None,
            }
        }
        "identifier" => number_at(file, consts, consts.get(text)?, depth + 1),
        "call_expression" if syntax::function_text(file, node).ends_with("Some") => {
            number_at(file, consts, *syntax::args(node).first()?, depth + 1)
        }
        _ => None,
    }
}

/// An integer.
pub fn int(file: &CodeFile<'_>, consts: &Consts<'_>, node: Node<'_>) -> Option<i64> {
    let v = number(file, consts, node)?;
    (v.fract() == 0.0 && v.abs() < 1e15).then_some(v as i64)
}

/// A `Duration` in ms.
pub fn duration_ms(file: &CodeFile<'_>, consts: &Consts<'_>, node: Node<'_>) -> Option<f64> {
    duration_at(file, consts, node, 0)
}

fn duration_at(
    file: &CodeFile<'_>,
    consts: &Consts<'_>,
    node: Node<'_>,
    depth: usize,
) -> Option<f64> {
    if depth > MAX_DEPTH {
        return None;
    }
    let node = syntax::unwrap(node);
    let text = file.text_of(node);
    match node.kind() {
        "call_expression" => {
            let f = syntax::function_text(file, node);
            let args = syntax::args(node);
            if f == "Some" {
                return duration_at(file, consts, *args.first()?, depth + 1);
            }
            if !f.contains("Duration") {
                return None;
            }
            let unit = match f.rsplit("::").next()? {
                "from_millis" => 1.0,
                "from_secs" | "from_secs_f64" | "from_secs_f32" => 1_000.0,
                "from_micros" => 0.001,
                "from_nanos" => 0.000_001,
                "from_mins" => 60_000.0,
                "from_hours" => 3_600_000.0,
                "new" => {
                    let s = number(file, consts, *args.first()?)?;
                    let ns = number(file, consts, *args.get(1)?)?;
                    return Some(s * 1_000.0 + ns / 1_000_000.0);
                }
                _ => return None,
            };
            Some(number(file, consts, *args.first()?)? * unit)
        }
        "scoped_identifier" if text.ends_with("Duration::ZERO") => Some(0.0),
        "identifier" => duration_at(file, consts, consts.get(text)?, depth + 1),
        _ => None,
    }
}

/// A string literal's content, or a string constant's.
pub fn string(file: &CodeFile<'_>, consts: &Consts<'_>, node: Node<'_>) -> Option<String> {
    let node = syntax::unwrap(node);
    match node.kind() {
        "string_literal" | "raw_string_literal" => {
            let mut cursor = node.walk();
            let s: String = node
                .named_children(&mut cursor)
                .filter(|c| c.kind() == "string_content")
                .map(|c| file.text_of(c))
                .collect();
            Some(s)
        }
        "identifier" => {
            let v = consts.get(file.text_of(node))?;
            (v.id() != node.id())
                .then(|| string(file, consts, v))
                .flatten()
        }
        "scoped_identifier" => {
            let name = file.text_of(node).rsplit("::").next()?;
            string(file, consts, consts.get(name)?)
        }
        "call_expression" => {
            // `HeaderName::from_static("x")`, `"x".to_string()`, `String::from("x")`.
            let m = syntax::method_name(file, node);
            match m {
                "from_static" | "from" => string(file, consts, *syntax::args(node).first()?),
                "to_string" | "to_owned" | "into" => string(file, consts, syntax::receiver(node)?),
                _ => None,
            }
        }
        _ => None,
    }
}
