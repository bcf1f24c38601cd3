//! Static values in JavaScript and TypeScript: literals, same-file constants
//! (`const RETRIES = 3`, `function delay(n) {...}`), object and array literals, and
//! simple arithmetic with JavaScript's own semantics (`^` is a bitwise XOR on
//! 32-bit integers, not a power; `**` is the power). Every walk uses an explicit
//! stack and a step budget, so deep nesting or cyclic constants never recurse or
//! loop.

use super::super::CodeFile;
use std::collections::HashMap;
use tree_sitter::Node;

/// The most evaluation steps one expression may take.
const STEP_BUDGET: usize = 10_000;

/// A statically known JavaScript value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A number (JavaScript numbers are doubles).
    Num(f64),
    /// A string.
    Str(String),
    /// A boolean.
    Bool(bool),
    /// `null` or `undefined`.
    Nothing,
    /// An array of known values.
    Array(Vec<Value>),
}

impl Value {
    /// The number, when it is one.
    pub fn num(&self) -> Option<f64> {
        match self {
            Value::Num(n) => Some(*n),
            _ => None,
        }
    }

    /// JavaScript truthiness (`0`, `NaN`, `""`, `false`, `null` and `undefined` are
    /// false).
    pub fn truthy(&self) -> bool {
        match self {
            Value::Num(n) => *n != 0.0 && !n.is_nan(),
            Value::Str(s) => !s.is_empty(),
            Value::Bool(b) => *b,
            Value::Nothing => false,
            Value::Array(_) => true,
        }
    }
}

/// The file-level names of a file: every `const`/`let`/`var` declarator with a
/// plain identifier name and every function declaration, by name (the first one
/// wins when a name is declared twice), and the imports (local name -> module).
pub struct Scope<'t> {
    decls: HashMap<String, Node<'t>>,
    /// Local name -> module specifier (`axiosRetry` -> `axios-retry`; for
    /// `import {retry} from '@octokit/plugin-retry'`, `retry` -> that module).
    pub imports: HashMap<String, String>,
    /// Local name -> the export it names, for `import {name as local}` (`{retry}`:
    /// `retry` -> `retry`); default and namespace imports are not in it.
    exports: HashMap<String, String>,
}

impl<'t> Scope<'t> {
    /// Collects the declarations and imports of `file`.
    pub fn of(file: &CodeFile<'t>) -> Scope<'t> {
        let mut decls = HashMap::new();
        let mut imports = HashMap::new();
        let mut exports = HashMap::new();
        let mut stack = vec![file.tree.root_node()];
        // One cursor for the walk (`named_children` and `children` reset it to
        // each node): a cursor per node cost an allocation each.
        let mut cursor = file.tree.walk();
        while let Some(node) = stack.pop() {
            match node.kind() {
                "variable_declarator" => {
                    if let (Some(name), Some(value)) = (
                        node.child_by_field_name("name"),
                        node.child_by_field_name("value"),
                    ) {
                        if name.kind() == "identifier" {
                            let n = file.text_of(name).to_string();
                            // `const x = require('got')`.
                            if let Some(m) = require_of(file, value) {
                                imports.entry(n.clone()).or_insert(m);
                            }
                            decls.entry(n).or_insert(value);
                        } else {
                            // `const [a, b] = f(x)`, `const {a} = o`: each name
                            // comes from the whole value (never evaluated as
                            // it, only shown in RL019 messages).
                            let mut ids = vec![name];
                            while let Some(x) = ids.pop() {
                                if matches!(
                                    x.kind(),
                                    "identifier" | "shorthand_property_identifier_pattern"
                                ) {
                                    decls.entry(file.text_of(x).to_string()).or_insert(value);
                                    continue;
                                }
                                let mut c = x.walk();
                                ids.extend(x.named_children(&mut c));
                            }
                        }
                    }
                }
                "function_declaration" => {
                    if let Some(name) = node.child_by_field_name("name") {
                        decls.entry(file.text_of(name).to_string()).or_insert(node);
                    }
                }
                "import_statement" => read_import(file, node, &mut imports, &mut exports),
                _ => {}
            }
            stack.extend(node.children(&mut cursor));
        }
        Scope {
            decls,
            imports,
            exports,
        }
    }

    /// The value node a name is declared with (`None` for parameters and unknowns).
    pub fn decl(&self, name: &str) -> Option<Node<'t>> {
        self.decls.get(name).copied()
    }

    /// The module a local name was imported from.
    pub fn module_of(&self, name: &str) -> Option<&str> {
        self.imports.get(name).map(String::as_str)
    }

    /// The export a local name was imported as by name (`import {a as b}`: `b` ->
    /// `a`); `None` for a default or namespace import, or no import.
    pub fn export_of(&self, name: &str) -> Option<&str> {
        self.exports.get(name).map(String::as_str)
    }

    /// `node` with wrappers (parentheses, `as`, `satisfies`, `!`) removed and
    /// identifiers followed to their same-file declaration (at most 8 hops).
    pub fn resolve(&self, file: &CodeFile<'_>, node: Node<'t>) -> Node<'t> {
        let mut n = node;
        for _ in 0..8 {
            n = unwrap(n);
            if n.kind() != "identifier" {
                return n;
            }
            match self.decl(file.text_of(n)) {
                Some(d) => n = d,
                None => return n,
            }
        }
        n
    }

    /// Evaluates `node` with `env` (parameter bindings); `None` when any part is not
    /// statically known.
    pub fn eval(&self, file: &CodeFile<'_>, node: Node<'t>, env: &[(&str, f64)]) -> Option<Value> {
        eval(self, file, node, env)
    }

    /// Where a name's value comes from, for an RL019 message: the expression as
    /// written, or `name = init` for a same-file declaration.
    pub fn provenance(&self, file: &CodeFile<'_>, node: Node<'t>) -> String {
        self.provenance_for(file, node, &[])
    }

    /// Like [`Scope::provenance`], but when `init` mentions a declared name that
    /// contains one of `hints` (`retr`, `status`), that name's declaration is
    /// shown instead, so the message reaches the input it comes from:
    /// `requestOpts ← retries = parseInt(core.getInput('retries'))`.
    pub fn provenance_for(&self, file: &CodeFile<'_>, node: Node<'t>, hints: &[&str]) -> String {
        let text = one_line(file.text_of(node));
        let n = unwrap(node);
        if n.kind() != "identifier" {
            return text;
        }
        let root = file.text_of(n);
        let Some(decl) = self.decl(root) else {
            return text;
        };
        let mut stack = vec![decl];
        let mut steps = 0;
        while let Some(x) = stack.pop() {
            steps += 1;
            if steps > 500 {
                break;
            }
            if x.kind() == "identifier" {
                let name = file.text_of(x);
                let lower = name.to_ascii_lowercase();
                if name != root && hints.iter().any(|h| lower.contains(h)) {
                    if let Some(d) = self
                        .decl(name)
                        .filter(|d| d.kind() != "function_declaration")
                    {
                        return format!("{text} ← {name} = {}", one_line(file.text_of(d)));
                    }
                }
                continue;
            }
            let mut cursor = x.walk();
            stack.extend(x.named_children(&mut cursor));
        }
        format!("{text} = {}", one_line(file.text_of(decl)))
    }
}

fn one_line(s: &str) -> String {
    let s: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.chars().count() > 70 {
        format!("{}…", s.chars().take(70).collect::<String>())
    } else {
        s
    }
}

/// `require('m')` -> `m`.
fn require_of(file: &CodeFile<'_>, value: Node<'_>) -> Option<String> {
    let v = unwrap(value);
    if v.kind() != "call_expression" {
        return None;
    }
    let f = v.child_by_field_name("function")?;
    if file.text_of(f) != "require" {
        return None;
    }
    let arg = v.child_by_field_name("arguments")?.named_child(0)?;
    string_of(file, arg)
}

fn read_import(
    file: &CodeFile<'_>,
    node: Node<'_>,
    imports: &mut HashMap<String, String>,
    exports: &mut HashMap<String, String>,
) {
    let Some(source) = node
        .child_by_field_name("source")
        .and_then(|s| string_of(file, s))
    else {
        return;
    };
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "import_clause" | "named_imports" => {}
            "import_specifier" => {
                let local = n
                    .child_by_field_name("alias")
                    .or_else(|| n.child_by_field_name("name"));
                if let Some(l) = local {
                    imports.insert(file.text_of(l).to_string(), source.clone());
                    if let Some(name) = n.child_by_field_name("name") {
                        exports.insert(
                            file.text_of(l).to_string(),
                            file.text_of(name).trim_matches(['\'', '"']).to_string(),
                        );
                    }
                }
                continue;
            }
            "namespace_import" => {
                if let Some(id) = n.named_child(0) {
                    imports.insert(file.text_of(id).to_string(), source.clone());
                }
                continue;
            }
            "identifier" if n.parent().is_some_and(|p| p.kind() == "import_clause") => {
                imports.insert(file.text_of(n).to_string(), source.clone());
                continue;
            }
            "import_statement" => {}
            _ => continue,
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
}

/// `node` without parentheses, `as T`, `satisfies T`, `x!` and `<T>x`.
pub fn unwrap(node: Node<'_>) -> Node<'_> {
    let mut n = node;
    for _ in 0..64 {
        match n.kind() {
            "parenthesized_expression"
            | "as_expression"
            | "satisfies_expression"
            | "non_null_expression"
            | "type_assertion" => {
                let Some(inner) = n.named_children(&mut n.walk()).find(|c| {
                    !matches!(c.kind(), "type_annotation" | "type_arguments")
                        && !c.kind().ends_with("_type")
                        && c.kind() != "type_identifier"
                }) else {
                    return n;
                };
                n = inner;
            }
            _ => return n,
        }
    }
    n
}

/// The text of a string literal (or a template literal without holes).
pub fn string_of(file: &CodeFile<'_>, node: Node<'_>) -> Option<String> {
    let n = unwrap(node);
    match n.kind() {
        "string" => Some(unquote(file.text_of(n))),
        "template_string" => {
            let mut c = n.walk();
            if n.named_children(&mut c)
                .any(|x| x.kind() == "template_substitution")
            {
                None
            } else {
                Some(unquote(file.text_of(n)))
            }
        }
        _ => None,
    }
}

fn unquote(s: &str) -> String {
    let s = s.trim();
    let s = s
        .strip_prefix(['"', '\'', '`'])
        .unwrap_or(s)
        .strip_suffix(['"', '\'', '`'])
        .unwrap_or(s);
    s.replace("\\'", "'").replace("\\\"", "\"")
}

/// The properties of an object literal, by key: (key, value node, pair node).
/// Shorthand `{ retry }` gives the identifier as its value; spreads and methods are
/// skipped.
pub fn props<'t>(file: &CodeFile<'_>, obj: Node<'t>) -> Vec<(String, Node<'t>, Node<'t>)> {
    let mut out = Vec::new();
    if obj.kind() != "object" {
        return out;
    }
    let mut cursor = obj.walk();
    for p in obj.named_children(&mut cursor) {
        match p.kind() {
            "pair" => {
                let (Some(k), Some(v)) =
                    (p.child_by_field_name("key"), p.child_by_field_name("value"))
                else {
                    continue;
                };
                let key = match k.kind() {
                    "string" => unquote(file.text_of(k)),
                    "computed_property_name" => continue,
                    _ => file.text_of(k).to_string(),
                };
                out.push((key, v, p));
            }
            "shorthand_property_identifier" => {
                out.push((file.text_of(p).to_string(), p, p));
            }
            _ => {}
        }
    }
    out
}

/// The value of property `key` of an object literal.
pub fn prop<'t>(file: &CodeFile<'_>, obj: Node<'t>, key: &str) -> Option<Node<'t>> {
    props(file, obj)
        .into_iter()
        .find(|(k, _, _)| k == key)
        .map(|(_, v, _)| v)
}

enum Task<'t> {
    Visit(Node<'t>),
    Apply(Node<'t>, usize),
}

fn number(text: &str) -> Option<f64> {
    let t: String = text.chars().filter(|&c| c != '_').collect();
    let t = t.trim_end_matches('n');
    let lower = t.to_ascii_lowercase();
    let radix = |p: &str, r: u32| {
        i64::from_str_radix(&lower[p.len()..], r)
            .ok()
            .map(|v| v as f64)
    };
    if lower.starts_with("0x") {
        radix("0x", 16)
    } else if lower.starts_with("0o") {
        radix("0o", 8)
    } else if lower.starts_with("0b") {
        radix("0b", 2)
    } else {
        t.parse::<f64>().ok()
    }
}

/// JavaScript `ToInt32`.
fn int32(x: f64) -> i32 {
    if !x.is_finite() {
        return 0;
    }
    let m = x.trunc().rem_euclid(4_294_967_296.0);
    (m as u32) as i32
}

fn eval<'t>(
    scope: &Scope<'t>,
    file: &CodeFile<'_>,
    root: Node<'t>,
    env: &[(&str, f64)],
) -> Option<Value> {
    let mut tasks = vec![Task::Visit(root)];
    let mut values: Vec<Value> = Vec::new();
    let mut steps = 0usize;
    while let Some(task) = tasks.pop() {
        steps += 1;
        if steps > STEP_BUDGET {
            return None;
        }
        match task {
            Task::Visit(n) => {
                let n = unwrap(n);
                match n.kind() {
                    "number" => values.push(Value::Num(number(file.text_of(n))?)),
                    "string" | "template_string" => values.push(Value::Str(string_of(file, n)?)),
                    "true" => values.push(Value::Bool(true)),
                    "false" => values.push(Value::Bool(false)),
                    "null" | "undefined" => values.push(Value::Nothing),
                    "identifier" => {
                        let name = file.text_of(n);
                        if let Some((_, v)) = env.iter().find(|(k, _)| *k == name) {
                            values.push(Value::Num(*v));
                        } else if name == "Infinity" {
                            values.push(Value::Num(f64::INFINITY));
                        } else if name == "undefined" {
                            values.push(Value::Nothing);
                        } else {
                            let d = scope.decl(name)?;
                            if d.kind() == "function_declaration" {
                                return None;
                            }
                            tasks.push(Task::Visit(d));
                        }
                    }
                    "member_expression" => match file.text_of(n) {
                        "Number.POSITIVE_INFINITY" => values.push(Value::Num(f64::INFINITY)),
                        "Number.MAX_SAFE_INTEGER" => {
                            values.push(Value::Num(9_007_199_254_740_991.0))
                        }
                        _ => return None,
                    },
                    "unary_expression" => {
                        let arg = n.child_by_field_name("argument")?;
                        tasks.push(Task::Apply(n, 1));
                        tasks.push(Task::Visit(arg));
                    }
                    "binary_expression" => {
                        let (l, r) = (
                            n.child_by_field_name("left")?,
                            n.child_by_field_name("right")?,
                        );
                        tasks.push(Task::Apply(n, 2));
                        tasks.push(Task::Visit(r));
                        tasks.push(Task::Visit(l));
                    }
                    "ternary_expression" => {
                        let c = n.child_by_field_name("condition")?;
                        let a = n.child_by_field_name("consequence")?;
                        let b = n.child_by_field_name("alternative")?;
                        tasks.push(Task::Apply(n, 3));
                        tasks.push(Task::Visit(b));
                        tasks.push(Task::Visit(a));
                        tasks.push(Task::Visit(c));
                    }
                    "array" => {
                        let mut cursor = n.walk();
                        let elems: Vec<Node<'t>> = n.named_children(&mut cursor).collect();
                        if elems.iter().any(|e| e.kind() == "spread_element") {
                            return None;
                        }
                        tasks.push(Task::Apply(n, elems.len()));
                        for e in elems.into_iter().rev() {
                            tasks.push(Task::Visit(e));
                        }
                    }
                    "call_expression" => {
                        let f = file.text_of(n.child_by_field_name("function")?);
                        if !matches!(
                            f,
                            "Math.pow"
                                | "Math.min"
                                | "Math.max"
                                | "Math.round"
                                | "Math.floor"
                                | "Math.ceil"
                        ) {
                            return None;
                        }
                        let args = n.child_by_field_name("arguments")?;
                        let mut cursor = args.walk();
                        let elems: Vec<Node<'t>> = args.named_children(&mut cursor).collect();
                        tasks.push(Task::Apply(n, elems.len()));
                        for e in elems.into_iter().rev() {
                            tasks.push(Task::Visit(e));
                        }
                    }
                    _ => return None,
                }
            }
            Task::Apply(n, k) => {
                if values.len() < k {
                    return None;
                }
                let args = values.split_off(values.len() - k);
                values.push(apply(file, n, args)?);
            }
        }
    }
    (values.len() == 1).then(|| values.pop()).flatten()
}

fn apply(file: &CodeFile<'_>, n: Node<'_>, args: Vec<Value>) -> Option<Value> {
    match n.kind() {
        "unary_expression" => {
            let op = file.text_of(n.child_by_field_name("operator")?);
            let a = &args[0];
            Some(match op {
                "-" => Value::Num(-a.num()?),
                "+" => Value::Num(a.num()?),
                "!" => Value::Bool(!a.truthy()),
                "~" => Value::Num(f64::from(!int32(a.num()?))),
                _ => return None,
            })
        }
        "ternary_expression" => {
            let mut it = args.into_iter();
            let (c, a, b) = (it.next()?, it.next()?, it.next()?);
            Some(if c.truthy() { a } else { b })
        }
        "array" => Some(Value::Array(args)),
        "call_expression" => {
            let f = file.text_of(n.child_by_field_name("function")?);
            let nums: Option<Vec<f64>> = args.iter().map(Value::num).collect();
            let nums = nums?;
            Some(Value::Num(match f {
                "Math.pow" if nums.len() == 2 => nums[0].powf(nums[1]),
                "Math.min" => nums.iter().copied().fold(f64::INFINITY, f64::min),
                "Math.max" => nums.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                "Math.round" if nums.len() == 1 => (nums[0] + 0.5).floor(),
                "Math.floor" if nums.len() == 1 => nums[0].floor(),
                "Math.ceil" if nums.len() == 1 => nums[0].ceil(),
                _ => return None,
            }))
        }
        "binary_expression" => {
            let op = file.text_of(n.child_by_field_name("operator")?);
            let mut it = args.into_iter();
            let (a, b) = (it.next()?, it.next()?);
            binary(op, a, b)
        }
        _ => None,
    }
}

fn binary(op: &str, a: Value, b: Value) -> Option<Value> {
    match op {
        "&&" => return Some(if a.truthy() { b } else { a }),
        "||" => return Some(if a.truthy() { a } else { b }),
        "??" => return Some(if a == Value::Nothing { b } else { a }),
        "===" | "==" => return Some(Value::Bool(a == b)),
        "!==" | "!=" => return Some(Value::Bool(a != b)),
        "+" => {
            if let (Value::Str(x), y) | (y, Value::Str(x)) = (&a, &b) {
                let _ = (x, y);
                let s = |v: &Value| match v {
                    Value::Str(s) => Some(s.clone()),
                    Value::Num(n) => Some(format!("{n}")),
                    _ => None,
                };
                return Some(Value::Str(format!("{}{}", s(&a)?, s(&b)?)));
            }
        }
        _ => {}
    }
    let (x, y) = (a.num()?, b.num()?);
    Some(match op {
        "+" => Value::Num(x + y),
        "-" => Value::Num(x - y),
        "*" => Value::Num(x * y),
        "/" => Value::Num(x / y),
        "%" => Value::Num(x % y),
        "**" => Value::Num(x.powf(y)),
        "^" => Value::Num(f64::from(int32(x) ^ int32(y))),
        "|" => Value::Num(f64::from(int32(x) | int32(y))),
        "&" => Value::Num(f64::from(int32(x) & int32(y))),
        "<<" => Value::Num(f64::from(int32(x).wrapping_shl(int32(y) as u32 & 31))),
        ">>" => Value::Num(f64::from(int32(x).wrapping_shr(int32(y) as u32 & 31))),
        "<" => Value::Bool(x < y),
        "<=" => Value::Bool(x <= y),
        ">" => Value::Bool(x > y),
        ">=" => Value::Bool(x >= y),
        _ => return None,
    })
}

/// A function value (arrow function, function expression or declaration): its
/// first parameter's name and its result expression (an expression body, or a
/// block whose only statement is `return expr`).
pub fn function_of<'t>(file: &CodeFile<'_>, f: Node<'t>) -> Option<(Option<String>, Node<'t>)> {
    if !matches!(
        f.kind(),
        "arrow_function" | "function_expression" | "function_declaration" | "function"
    ) {
        return None;
    }
    let param = if let Some(p) = f.child_by_field_name("parameter") {
        Some(file.text_of(p).to_string())
    } else {
        let ps = f.child_by_field_name("parameters")?;
        let first = ps.named_child(0);
        first.and_then(|p| {
            let id = p.child_by_field_name("pattern").unwrap_or(p);
            (id.kind() == "identifier").then(|| file.text_of(id).to_string())
        })
    };
    let body = f.child_by_field_name("body")?;
    if body.kind() != "statement_block" {
        return Some((param, body));
    }
    let mut cursor = body.walk();
    let stmts: Vec<Node<'t>> = body
        .named_children(&mut cursor)
        .filter(|s| s.kind() != "comment")
        .collect();
    match stmts.as_slice() {
        [ret] if ret.kind() == "return_statement" => Some((param, ret.named_child(0)?)),
        _ => None,
    }
}

/// The `^` expressions inside `node` (JavaScript's XOR, often meant as a power).
pub fn xors<'t>(file: &CodeFile<'_>, node: Node<'t>) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind() == "binary_expression"
            && n.child_by_field_name("operator")
                .is_some_and(|o| file.text_of(o) == "^")
        {
            out.push(n);
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    out.sort_by_key(|n| n.start_byte());
    out
}

/// True when `node`'s text mentions `needle` (e.g. `Math.random`).
pub fn mentions(file: &CodeFile<'_>, node: Node<'_>, needle: &str) -> bool {
    file.text_of(node).contains(needle)
}
