//! Folding C# constant expressions: integer and real literals with `+ - * /`,
//! same-file constants (`const int MaxRetries = 5;`, `static readonly TimeSpan
//! Delay = ...`), `TimeSpan.FromSeconds/FromMilliseconds/FromMinutes/FromHours(n)`,
//! `new TimeSpan(h, m, s)`, `TimeSpan.Zero`, and string literals. Anything else is
//! not known (`None`): the caller reports it as assumed (RL019), never guesses.

use super::super::CodeFile;
use std::collections::HashMap;
use tree_sitter::Node;

/// How deep a folded expression may nest (deeper is "not known").
const MAX_DEPTH: usize = 32;

/// The same-file constants: name -> value expression (`const` locals and fields,
/// `static readonly` and `readonly` fields).
pub struct Consts<'t> {
    values: HashMap<String, Node<'t>>,
    vars: HashMap<String, Node<'t>>,
}

impl<'t> Consts<'t> {
    /// Collects the constants of `file` (a walk with an explicit stack).
    pub fn collect(file: &CodeFile<'t>) -> Consts<'t> {
        let mut values = HashMap::new();
        let mut vars = HashMap::new();
        let mut stack = vec![file.tree.root_node()];
        while let Some(n) = stack.pop() {
            if matches!(
                n.kind(),
                "field_declaration" | "local_declaration_statement"
            ) {
                let text = file.text_of(n);
                let head = text.split('=').next().unwrap_or("");
                let constant = head
                    .split_whitespace()
                    .any(|w| w == "const" || w == "readonly");
                if constant {
                    read_declarators(file, n, &mut values);
                }
                read_declarators(file, n, &mut vars);
                continue;
            }
            let mut cursor = n.walk();
            stack.extend(n.children(&mut cursor));
        }
        Consts { values, vars }
    }

    /// The initial value of any variable or field `name` of the file (an options
    /// object built once and passed by name); not a constant.
    pub fn var(&self, name: &str) -> Option<Node<'t>> {
        self.vars.get(name).copied()
    }

    /// The value expression of the constant `name`.
    pub fn get(&self, name: &str) -> Option<Node<'t>> {
        self.values.get(name).copied()
    }
}

fn read_declarators<'t>(file: &CodeFile<'t>, decl: Node<'t>, out: &mut HashMap<String, Node<'t>>) {
    let mut cursor = decl.walk();
    for vd in decl.named_children(&mut cursor) {
        if vd.kind() != "variable_declaration" {
            continue;
        }
        let mut c2 = vd.walk();
        for d in vd.named_children(&mut c2) {
            if d.kind() != "variable_declarator" {
                continue;
            }
            let Some(name) = d.child_by_field_name("name") else {
                continue;
            };
            let mut c3 = d.walk();
            let value = d
                .named_children(&mut c3)
                .filter(|v| v.id() != name.id())
                .last();
            if let Some(v) = value {
                out.insert(file.text_of(name).to_string(), v);
            }
        }
    }
}

/// A number: a literal, a constant, or arithmetic over them.
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
    let text = file.text_of(node);
    match node.kind() {
        "integer_literal" => {
            let t: String = text.chars().filter(|c| *c != '_').collect();
            let t = t.trim_end_matches(['u', 'U', 'l', 'L']);
            if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                i64::from_str_radix(hex, 16).ok().map(|v| v as f64)
            } else {
                t.parse::<i64>().ok().map(|v| v as f64)
            }
        }
        "real_literal" => {
            let t: String = text.chars().filter(|c| *c != '_').collect();
            t.trim_end_matches(['f', 'F', 'd', 'D', 'm', 'M'])
                .parse()
                .ok()
        }
        "parenthesized_expression" => number_at(file, consts, node.named_child(0)?, depth + 1),
        "prefix_unary_expression" => {
            let v = number_at(file, consts, node.named_child(0)?, depth + 1)?;
            match text.trim_start().chars().next() {
                Some('-') => Some(-v),
                Some('+') => Some(v),
                _ => None,
            }
        }
        "cast_expression" => number_at(file, consts, node.child_by_field_name("value")?, depth + 1),
        "binary_expression" => {
            let l = number_at(file, consts, node.child_by_field_name("left")?, depth + 1)?;
            let r = number_at(file, consts, node.child_by_field_name("right")?, depth + 1)?;
            let op = node
                .child_by_field_name("operator")
                .map(|o| file.text_of(o))?;
            match op {
                "+" => Some(l + r),
                "-" => Some(l - r),
                "*" => Some(l * r),
                "/" if r != 0.0 => Some(l / r),
                _ => None,
            }
        }
        "identifier" | "member_access_expression" => {
            let name = text.rsplit('.').next().unwrap_or(text);
            let v = consts.get(name)?;
            if v.id() == node.id() {
                return None;
            }
            number_at(file, consts, v, depth + 1)
        }
        _ => None,
    }
}

/// An integer ([`number`] with no fraction).
pub fn int(file: &CodeFile<'_>, consts: &Consts<'_>, node: Node<'_>) -> Option<i64> {
    let v = number(file, consts, node)?;
    (v.fract() == 0.0 && v.abs() < 1e15).then_some(v as i64)
}

/// A `TimeSpan` in ms: `TimeSpan.FromSeconds(2)`, `TimeSpan.FromMilliseconds(d)`,
/// `new TimeSpan(0, 0, 30)`, `TimeSpan.Zero`, a `TimeSpan` constant.
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
    let text = file.text_of(node);
    match node.kind() {
        "invocation_expression" => {
            let f = node.child_by_field_name("function")?;
            let ftext = file.text_of(f);
            let unit = match ftext.rsplit('.').next()? {
                "FromMilliseconds" => 1.0,
                "FromSeconds" => 1_000.0,
                "FromMinutes" => 60_000.0,
                "FromHours" => 3_600_000.0,
                "FromDays" => 86_400_000.0,
                _ => return None,
            };
            if !ftext.contains("TimeSpan") {
                return None;
            }
            let args = super::syntax::args(node);
            let (_, v) = args.first()?;
            Some(number(file, consts, *v)? * unit)
        }
        "object_creation_expression" => {
            let ty = node.child_by_field_name("type").map(|t| file.text_of(t))?;
            if ty.rsplit('.').next()? != "TimeSpan" {
                return None;
            }
            let nums: Option<Vec<f64>> = super::syntax::args(node)
                .iter()
                .map(|(_, v)| number(file, consts, *v))
                .collect();
            match nums?.as_slice() {
                [ticks] => Some(ticks / 10_000.0),
                [h, m, s] => Some(((h * 60.0 + m) * 60.0 + s) * 1_000.0),
                [d, h, m, s] => Some((((d * 24.0 + h) * 60.0 + m) * 60.0 + s) * 1_000.0),
                [d, h, m, s, ms] => Some((((d * 24.0 + h) * 60.0 + m) * 60.0 + s) * 1_000.0 + ms),
                _ => None,
            }
        }
        "parenthesized_expression" => duration_at(file, consts, node.named_child(0)?, depth + 1),
        "member_access_expression" if text.replace(' ', "") == "TimeSpan.Zero" => Some(0.0),
        "identifier" | "member_access_expression" => {
            let name = text.rsplit('.').next().unwrap_or(text);
            let v = consts.get(name)?;
            if v.id() == node.id() {
                return None;
            }
            duration_at(file, consts, v, depth + 1)
        }
        _ => None,
    }
}

/// A string literal's content (`"/orders"`, `@"/orders"`), or a string constant.
pub fn string(file: &CodeFile<'_>, consts: &Consts<'_>, node: Node<'_>) -> Option<String> {
    let text = file.text_of(node);
    match node.kind() {
        "string_literal" | "verbatim_string_literal" | "raw_string_literal" => Some(
            text.trim_start_matches('@')
                .trim_matches('"')
                .trim_end_matches("u8")
                .trim_matches('"')
                .to_string(),
        ),
        "identifier" | "member_access_expression" => {
            let name = text.rsplit('.').next().unwrap_or(text);
            let v = consts.get(name)?;
            if v.id() == node.id() || !v.kind().contains("string") {
                return None;
            }
            string(file, consts, v)
        }
        _ => None,
    }
}
