//! Constant folding of Go expressions, as far as one file says them: integer and
//! float literals, `time` units (`100 * time.Millisecond`, `5 * time.Second`),
//! `time.Duration(x)`, `+ - * /` over those, parentheses, and identifiers bound to
//! a same-file `const`/`var` with one literal value. Everything else is
//! [`Val::Unknown`] with its source text (RL019 downstream, never a guess).
//!
//! The evaluator descends the expression with an explicit depth bound
//! ([`MAX_DEPTH`]), so deeply nested or half-typed code cannot exhaust the stack.

use super::imports::Imports;
use super::literal::{parse_int, string_value};
use crate::import::code::parse::node_text;
use std::collections::HashMap;
use tree_sitter::Node;

/// The deepest expression nesting folded; deeper is [`Val::Unknown`].
pub const MAX_DEPTH: usize = 24;

/// A folded value.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    /// An untyped integer constant (a bare `5`: nanoseconds where a
    /// `time.Duration` is expected).
    Int(i64),
    /// An untyped float constant.
    Float(f64),
    /// A `time.Duration`, in nanoseconds.
    Dur(f64),
    /// A string literal's value.
    Str(String),
    /// `true` / `false`.
    Bool(bool),
    /// Not known statically.
    Unknown(Unknown),
}

/// Why a value is not known.
#[derive(Debug, Clone, PartialEq)]
pub struct Unknown {
    /// The expression as written.
    pub expr: String,
    /// True when it names a value of another package (`config.MaxRetries_`),
    /// false for a parameter, a call, a field.
    pub foreign: bool,
}

/// Same-file `const` and `var` bindings with a single value expression.
pub struct Consts<'t> {
    /// Name -> value expression.
    pub by_name: HashMap<String, Node<'t>>,
}

impl<'t> Consts<'t> {
    /// The top-level `const`/`var` specs only (package values, for the other
    /// files of a package).
    pub fn collect_top(text: &str, root: Node<'t>) -> Consts<'t> {
        let mut all = Consts::collect(text, root);
        all.by_name.retain(|_, v| {
            let mut p = v.parent();
            while let Some(n) = p {
                if matches!(
                    n.kind(),
                    "function_declaration" | "method_declaration" | "func_literal"
                ) {
                    return false;
                }
                p = n.parent();
            }
            true
        });
        all
    }

    /// Collects the package-level and local `const`/`var` specs of the file
    /// (an explicit stack over the tree). A name bound twice is dropped: it is
    /// not one value.
    pub fn collect(text: &str, root: Node<'t>) -> Consts<'t> {
        let mut by_name: HashMap<String, Node<'t>> = HashMap::new();
        let mut twice: Vec<String> = Vec::new();
        let mut stack = vec![root];
        // One cursor for the walk (`named_children` and `children` reset it to
        // each node): a cursor per node cost an allocation each.
        let mut walker = root.walk();
        while let Some(node) = stack.pop() {
            if matches!(node.kind(), "const_spec" | "var_spec") {
                let names: Vec<Node<'t>> = {
                    let mut c = node.walk();
                    node.children_by_field_name("name", &mut c).collect()
                };
                let values: Vec<Node<'t>> = node
                    .child_by_field_name("value")
                    .map(|v| {
                        let mut c = v.walk();
                        v.named_children(&mut c).collect()
                    })
                    .unwrap_or_default();
                if names.len() == values.len() {
                    for (n, v) in names.iter().zip(values) {
                        let name = node_text(*n, text).to_string();
                        if by_name.insert(name.clone(), v).is_some() {
                            twice.push(name);
                        }
                    }
                }
                continue;
            }
            stack.extend(node.named_children(&mut walker));
        }
        for n in twice {
            by_name.remove(&n);
        }
        Consts { by_name }
    }
}

/// Folds `node`.
pub fn eval(text: &str, imports: &Imports, consts: &Consts<'_>, node: Node<'_>) -> Val {
    eval_at(text, imports, consts, node, 0)
}

fn unknown(src: &str, node: Node<'_>, foreign: bool) -> Val {
    Val::Unknown(Unknown {
        expr: node_text(node, src).to_string(),
        foreign,
    })
}

/// The nanoseconds of a `time` unit name.
fn time_unit(name: &str) -> Option<f64> {
    Some(match name {
        "Nanosecond" => 1.0,
        "Microsecond" => 1e3,
        "Millisecond" => 1e6,
        "Second" => 1e9,
        "Minute" => 60e9,
        "Hour" => 3600e9,
        _ => return None,
    })
}

fn eval_at(src: &str, imports: &Imports, consts: &Consts<'_>, node: Node<'_>, depth: usize) -> Val {
    if depth > MAX_DEPTH {
        return unknown(src, node, false);
    }
    let text = node_text(node, src);
    match node.kind() {
        "int_literal" => parse_int(text).map_or_else(|| unknown(src, node, false), Val::Int),
        "float_literal" => text
            .replace('_', "")
            .parse()
            .map_or_else(|_| unknown(src, node, false), Val::Float),
        "interpreted_string_literal" | "raw_string_literal" => {
            string_value(text).map_or_else(|| unknown(src, node, false), Val::Str)
        }
        "true" => Val::Bool(true),
        "false" => Val::Bool(false),
        "parenthesized_expression" | "literal_element" => match node.named_child(0) {
            Some(inner) => eval_at(src, imports, consts, inner, depth + 1),
            None => unknown(src, node, false),
        },
        "identifier" => match consts.by_name.get(text) {
            Some(v) if v.id() != node.id() => eval_at(src, imports, consts, *v, depth + 1),
            _ => unknown(src, node, false),
        },
        "selector_expression" => {
            let (Some(op), Some(field)) = (
                node.child_by_field_name("operand"),
                node.child_by_field_name("field"),
            ) else {
                return unknown(src, node, false);
            };
            let pkg = node_text(op, src);
            if op.kind() == "identifier" && imports.is_time(pkg) {
                if let Some(ns) = time_unit(node_text(field, src)) {
                    return Val::Dur(ns);
                }
            }
            // `pkg.Name` of an imported package is another package's value; a
            // field of a local value (`config.MaxRetries_` on a parameter) is not
            // known either.
            let foreign = op.kind() == "identifier"
                && (imports.is_package(pkg) || !consts.by_name.contains_key(pkg));
            unknown(src, node, foreign)
        }
        "unary_expression" => {
            let op = node
                .child_by_field_name("operator")
                .map_or("", |o| node_text(o, src));
            let Some(inner) = node.child_by_field_name("operand") else {
                return unknown(src, node, false);
            };
            match (op, eval_at(src, imports, consts, inner, depth + 1)) {
                ("-", Val::Int(i)) => Val::Int(i.saturating_neg()),
                ("-", Val::Float(f)) => Val::Float(-f),
                ("-", Val::Dur(d)) => Val::Dur(-d),
                ("+", v @ (Val::Int(_) | Val::Float(_) | Val::Dur(_))) => v,
                ("!", Val::Bool(b)) => Val::Bool(!b),
                (_, Val::Unknown(u)) => Val::Unknown(Unknown {
                    expr: text.to_string(),
                    foreign: u.foreign,
                }),
                _ => unknown(src, node, false),
            }
        }
        "call_expression" | "type_conversion_expression" => {
            // `time.Duration(x)`: x nanoseconds.
            let (callee, arg) = if node.kind() == "call_expression" {
                let args = node.child_by_field_name("arguments");
                (
                    node.child_by_field_name("function"),
                    args.and_then(|a| a.named_child(0))
                        .filter(|_| args.is_some_and(|a| a.named_child_count() == 1)),
                )
            } else {
                (
                    node.child_by_field_name("type"),
                    node.child_by_field_name("operand"),
                )
            };
            let is_duration = callee.is_some_and(|c| {
                let t = node_text(c, src);
                t.rsplit_once('.')
                    .is_some_and(|(p, n)| n == "Duration" && imports.is_time(p))
            });
            match (is_duration, arg) {
                (true, Some(a)) => match eval_at(src, imports, consts, a, depth + 1) {
                    Val::Int(i) => Val::Dur(i as f64),
                    Val::Float(f) => Val::Dur(f.trunc()),
                    Val::Dur(d) => Val::Dur(d),
                    Val::Unknown(u) => Val::Unknown(Unknown {
                        expr: text.to_string(),
                        foreign: u.foreign,
                    }),
                    _ => unknown(src, node, false),
                },
                _ => unknown(src, node, false),
            }
        }
        "binary_expression" => {
            let (Some(l), Some(r), Some(op)) = (
                node.child_by_field_name("left"),
                node.child_by_field_name("right"),
                node.child_by_field_name("operator"),
            ) else {
                return unknown(src, node, false);
            };
            let a = eval_at(src, imports, consts, l, depth + 1);
            let b = eval_at(src, imports, consts, r, depth + 1);
            match binary(node_text(op, src), a, b) {
                Some(v) => v,
                None => {
                    // Keep "another package" when either side is.
                    let foreign = [l, r].iter().any(|n| {
                        matches!(
                            eval_at(src, imports, consts, *n, depth + 1),
                            Val::Unknown(Unknown { foreign: true, .. })
                        )
                    });
                    unknown(src, node, foreign)
                }
            }
        }
        _ => unknown(src, node, false),
    }
}

fn num(v: &Val) -> Option<f64> {
    match v {
        Val::Int(i) => Some(*i as f64),
        Val::Float(f) => Some(*f),
        _ => None,
    }
}

fn binary(op: &str, a: Val, b: Val) -> Option<Val> {
    Some(match (op, &a, &b) {
        ("+", Val::Str(x), Val::Str(y)) => Val::Str(format!("{x}{y}")),
        (_, Val::Int(x), Val::Int(y)) => Val::Int(match op {
            "+" => x.checked_add(*y)?,
            "-" => x.checked_sub(*y)?,
            "*" => x.checked_mul(*y)?,
            "/" => x.checked_div(*y)?,
            _ => return None,
        }),
        (_, Val::Dur(x), Val::Dur(y)) => match op {
            "+" => Val::Dur(x + y),
            "-" => Val::Dur(x - y),
            "/" if *y != 0.0 => Val::Float(x / y),
            _ => return None,
        },
        ("*", Val::Dur(d), n) | ("*", n, Val::Dur(d)) => Val::Dur(d * num(n)?),
        ("/", Val::Dur(d), n) => {
            let n = num(n)?;
            if n == 0.0 {
                return None;
            }
            Val::Dur((d / n).trunc())
        }
        (_, x, y) => {
            let (x, y) = (num(x)?, num(y)?);
            Val::Float(match op {
                "+" => x + y,
                "-" => x - y,
                "*" => x * y,
                "/" if y != 0.0 => x / y,
                _ => return None,
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duration_arithmetic() {
        assert_eq!(
            binary("*", Val::Int(100), Val::Dur(1e6)),
            Some(Val::Dur(1e8))
        );
        assert_eq!(binary("*", Val::Dur(1e9), Val::Int(5)), Some(Val::Dur(5e9)));
        assert_eq!(binary("/", Val::Dur(1e9), Val::Int(0)), None);
        assert_eq!(binary("+", Val::Int(i64::MAX), Val::Int(1)), None);
    }
}
