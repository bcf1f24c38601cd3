//! A small evaluator for the Python expressions retry settings are written in:
//! literals (numbers, strings, `True`/`False`/`None`, tuples, lists, sets),
//! simple arithmetic (`+ - * / // **`, unary minus), `timedelta(seconds=...)`,
//! `range(a, b)` and set comprehensions over it, and names: a local variable of the
//! enclosing function (its last assignment before the use, with later
//! `.add/.remove/.discard` calls applied), a module-level `NAME = <literal>`
//! constant of the same file. Anything else is [`Eval::Unknown`] (never a guess):
//! the caller turns it into an assumed value (RL019). Evaluation depth is bounded.

use super::super::parse::node_text;
use super::super::CodeFile;
use std::collections::HashMap;
use tree_sitter::Node;

/// How deep names and sub-expressions are followed.
const MAX_DEPTH: usize = 24;

/// A statically known Python value.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    /// An `int`.
    Int(i64),
    /// A `float` (or a `timedelta`, in seconds).
    Float(f64),
    /// A `str`.
    Str(String),
    /// `True` / `False`.
    Bool(bool),
    /// `None`.
    None,
    /// A tuple, list, set or frozenset.
    Seq(Vec<Val>),
}

impl Val {
    /// The number, if this is one (`True` is not).
    pub fn num(&self) -> Option<f64> {
        match self {
            Val::Int(i) => Some(*i as f64),
            Val::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// The integer, if this is an `int` (or a float with no fraction).
    pub fn int(&self) -> Option<i64> {
        match self {
            Val::Int(i) => Some(*i),
            Val::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => Some(*f as i64),
            _ => None,
        }
    }

    /// Python truthiness.
    pub fn truthy(&self) -> bool {
        match self {
            Val::Int(i) => *i != 0,
            Val::Float(f) => *f != 0.0,
            Val::Str(s) => !s.is_empty(),
            Val::Bool(b) => *b,
            Val::None => false,
            Val::Seq(v) => !v.is_empty(),
        }
    }
}

/// The result of evaluating an expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Eval {
    /// Known statically.
    Known(Val),
    /// Not known; `param_default` is the declared default when the expression is
    /// a parameter of the enclosing function (`timeout=10`), shown as the assumed
    /// value.
    Unknown {
        /// The declared default of the parameter, if the expression is one.
        param_default: Option<Val>,
    },
}

impl Eval {
    fn unknown() -> Eval {
        Eval::Unknown {
            param_default: None,
        }
    }

    /// The value, when known.
    pub fn known(self) -> Option<Val> {
        match self {
            Eval::Known(v) => Some(v),
            Eval::Unknown { .. } => None,
        }
    }
}

/// The file being read, with its module-level assignments.
pub struct Ctx<'f, 't> {
    /// The file.
    pub file: &'f CodeFile<'t>,
    /// Module-level `NAME = expr` (the last one wins).
    pub consts: HashMap<&'t str, Node<'t>>,
}

impl<'f, 't> Ctx<'f, 't> {
    /// Reads the module-level assignments of `file`.
    pub fn new(file: &'f CodeFile<'t>) -> Ctx<'f, 't> {
        let mut consts = HashMap::new();
        let root = file.tree.root_node();
        let mut cursor = root.walk();
        for stmt in root.named_children(&mut cursor) {
            if stmt.kind() != "expression_statement" {
                continue;
            }
            let Some(a) = stmt.named_child(0).filter(|a| a.kind() == "assignment") else {
                continue;
            };
            if let (Some(l), Some(r)) = (
                a.child_by_field_name("left"),
                a.child_by_field_name("right"),
            ) {
                if l.kind() == "identifier" {
                    consts.insert(node_text(l, file.text), r);
                }
            }
        }
        Ctx { file, consts }
    }

    /// The text of `node`.
    pub fn text(&self, node: Node<'_>) -> &'t str {
        node_text(node, self.file.text)
    }

    /// The text of an expression for a message: comments dropped, whitespace runs
    /// collapsed to one space (`(\n  A,  # x\n  B,\n)` -> `( A, B, )`).
    pub fn expr(&self, node: Node<'_>) -> String {
        let mut out = String::new();
        for line in self.text(node).lines() {
            let line = match line.find('#') {
                Some(i) if !line[..i].contains(['"', '\'']) => &line[..i],
                _ => line,
            };
            for word in line.split_whitespace() {
                if !out.is_empty()
                    && !out.ends_with(['(', '[', '{'])
                    && !word.starts_with([')', ']', '}'])
                {
                    out.push(' ');
                }
                out.push_str(word);
            }
        }
        out
    }

    /// Evaluates `node`.
    pub fn eval(&self, node: Node<'t>) -> Eval {
        self.eval_at(node, 0)
    }

    /// The expression a name stands for (its local or module-level assignment),
    /// followed through further names; `node` itself when it is not a name or the
    /// name is not assigned in this file. For reading calls stored in constants
    /// (`WAIT = wait_fixed(2)`).
    pub fn resolve(&self, node: Node<'t>) -> Node<'t> {
        let mut n = node;
        for _ in 0..MAX_DEPTH {
            let n2 = match n.kind() {
                "parenthesized_expression" => n.named_child(0),
                "identifier" => self
                    .local(n)
                    .or_else(|| self.consts.get(self.text(n)).copied()),
                _ => None,
            };
            match n2 {
                Some(x) if x != n => n = x,
                _ => break,
            }
        }
        n
    }

    fn eval_at(&self, node: Node<'t>, depth: usize) -> Eval {
        if depth > MAX_DEPTH {
            return Eval::unknown();
        }
        let d = depth + 1;
        let t = self.text(node);
        let known = |v: Val| Eval::Known(v);
        match node.kind() {
            "integer" => parse_int(t).map_or_else(Eval::unknown, |i| known(Val::Int(i))),
            "float" => t
                .replace('_', "")
                .parse::<f64>()
                .map_or_else(|_| Eval::unknown(), |f| known(Val::Float(f))),
            "true" => known(Val::Bool(true)),
            "false" => known(Val::Bool(false)),
            "none" => known(Val::None),
            "string" => match string_literal(node, self.file.text) {
                Some(s) => known(Val::Str(s)),
                None => Eval::unknown(),
            },
            "concatenated_string" => {
                let mut s = String::new();
                let mut cursor = node.walk();
                for part in node.named_children(&mut cursor) {
                    match string_literal(part, self.file.text) {
                        Some(p) => s.push_str(&p),
                        None => return Eval::unknown(),
                    }
                }
                known(Val::Str(s))
            }
            "parenthesized_expression" => match node.named_child(0) {
                Some(x) => self.eval_at(x, d),
                None => Eval::unknown(),
            },
            "tuple" | "list" | "set" => {
                let mut v = Vec::new();
                let mut cursor = node.walk();
                for item in node.named_children(&mut cursor) {
                    if item.kind() == "comment" {
                        continue;
                    }
                    match self.eval_at(item, d) {
                        Eval::Known(Val::Seq(inner)) if item.kind() == "list_splat" => {
                            v.extend(inner)
                        }
                        Eval::Known(x) => v.push(x),
                        Eval::Unknown { .. } => return Eval::unknown(),
                    }
                }
                known(Val::Seq(v))
            }
            "list_splat" => match node.named_child(0) {
                Some(x) => self.eval_at(x, d),
                None => Eval::unknown(),
            },
            "unary_operator" => {
                let op = node.child_by_field_name("operator").map(|o| self.text(o));
                match (
                    op,
                    node.child_by_field_name("argument")
                        .map(|a| self.eval_at(a, d)),
                ) {
                    (Some("-"), Some(Eval::Known(Val::Int(i)))) => known(Val::Int(-i)),
                    (Some("-"), Some(Eval::Known(Val::Float(f)))) => known(Val::Float(-f)),
                    (Some("+"), Some(e)) => e,
                    _ => Eval::unknown(),
                }
            }
            "binary_operator" => self.binary(node, d),
            // `math.inf`, `math.nan`: known non-finite floats.
            "attribute" if t == "math.inf" => known(Val::Float(f64::INFINITY)),
            "attribute" if t == "math.nan" => known(Val::Float(f64::NAN)),
            "identifier" => self.name(node, d),
            "call" => self.call(node, d),
            "set_comprehension" | "list_comprehension" => self.comprehension(node, d),
            _ => Eval::unknown(),
        }
    }

    fn binary(&self, node: Node<'t>, d: usize) -> Eval {
        let (Some(l), Some(r), Some(op)) = (
            node.child_by_field_name("left"),
            node.child_by_field_name("right"),
            node.child_by_field_name("operator"),
        ) else {
            return Eval::unknown();
        };
        let (Eval::Known(a), Eval::Known(b)) = (self.eval_at(l, d), self.eval_at(r, d)) else {
            return Eval::unknown();
        };
        let op = self.text(op);
        let v = match (&a, &b, op) {
            (Val::Str(x), Val::Str(y), "+") => Some(Val::Str(format!("{x}{y}"))),
            (Val::Seq(x), Val::Seq(y), "+" | "|") => {
                let mut v = x.clone();
                v.extend(y.iter().filter(|e| op == "+" || !x.contains(e)).cloned());
                Some(Val::Seq(v))
            }
            (Val::Int(x), Val::Int(y), _) => match op {
                "+" => x.checked_add(*y).map(Val::Int),
                "-" => x.checked_sub(*y).map(Val::Int),
                "*" => x.checked_mul(*y).map(Val::Int),
                "//" if *y != 0 => Some(Val::Int(x.div_euclid(*y))),
                "/" if *y != 0 => Some(Val::Float(*x as f64 / *y as f64)),
                "**" => u32::try_from(*y)
                    .ok()
                    .and_then(|e| x.checked_pow(e))
                    .map(Val::Int),
                _ => None,
            },
            _ => match (a.num(), b.num()) {
                (Some(x), Some(y)) => {
                    let f = match op {
                        "+" => Some(x + y),
                        "-" => Some(x - y),
                        "*" => Some(x * y),
                        "/" if y != 0.0 => Some(x / y),
                        "//" if y != 0.0 => Some((x / y).floor()),
                        "**" => Some(x.powf(y)),
                        _ => None,
                    };
                    f.filter(|f| f.is_finite()).map(Val::Float)
                }
                _ => None,
            },
        };
        v.map_or_else(Eval::unknown, Eval::Known)
    }

    /// A name: a local assignment before the use, a parameter (unknown, with its
    /// default), or a module constant.
    fn name(&self, node: Node<'t>, d: usize) -> Eval {
        if let Some(v) = self.local(node) {
            let mut e = self.eval_at(v, d);
            if let Eval::Known(Val::Seq(items)) = &mut e {
                self.apply_mutations(node, v, items);
            }
            return e;
        }
        if let Some(p) = self.parameter(node) {
            return Eval::Unknown {
                param_default: p.and_then(|p| self.eval_at(p, d).known()),
            };
        }
        match self.consts.get(self.text(node)) {
            Some(v) if *v != node => self.eval_at(*v, d),
            _ => Eval::unknown(),
        }
    }

    /// `timedelta(...)` (in seconds), `frozenset/set/tuple/list(x)`, `range(a, b)`,
    /// `int(x)` / `float(x)` of a known number.
    fn call(&self, node: Node<'t>, d: usize) -> Eval {
        let Some(f) = node.child_by_field_name("function") else {
            return Eval::unknown();
        };
        let name = last_name(self.text(f));
        let args = node.child_by_field_name("arguments");
        let positional: Vec<Node<'t>> = args.map_or_else(Vec::new, |a| {
            let mut c = a.walk();
            a.named_children(&mut c)
                .filter(|n| n.kind() != "keyword_argument" && n.kind() != "comment")
                .collect()
        });
        match name {
            "timedelta" => {
                let mut secs = 0.0;
                let units = [
                    ("days", 86400.0),
                    ("seconds", 1.0),
                    ("microseconds", 1e-6),
                    ("milliseconds", 1e-3),
                    ("minutes", 60.0),
                    ("hours", 3600.0),
                    ("weeks", 604800.0),
                ];
                for (i, p) in positional.iter().enumerate() {
                    match (
                        units.get(i),
                        self.eval_at(*p, d).known().and_then(|v| v.num()),
                    ) {
                        (Some((_, k)), Some(x)) => secs += k * x,
                        _ => return Eval::unknown(),
                    }
                }
                for (k, v) in self.keywords(node) {
                    let Some((_, mult)) = units.iter().find(|(n, _)| *n == k) else {
                        return Eval::unknown();
                    };
                    match self.eval_at(v, d).known().and_then(|v| v.num()) {
                        Some(x) => secs += mult * x,
                        None => return Eval::unknown(),
                    }
                }
                Eval::Known(Val::Float(secs))
            }
            "frozenset" | "set" | "tuple" | "list" | "sorted" => match positional.first() {
                None => Eval::Known(Val::Seq(Vec::new())),
                Some(x) => match self.eval_at(*x, d) {
                    Eval::Known(Val::Seq(v)) => Eval::Known(Val::Seq(v)),
                    _ => Eval::unknown(),
                },
            },
            "range" => {
                let nums: Option<Vec<i64>> = positional
                    .iter()
                    .map(|p| self.eval_at(*p, d).known().and_then(|v| v.int()))
                    .collect();
                let (a, b) = match nums.as_deref() {
                    Some([b]) => (0, *b),
                    Some([a, b]) => (*a, *b),
                    _ => return Eval::unknown(),
                };
                if b - a > 100_000 {
                    return Eval::unknown();
                }
                Eval::Known(Val::Seq((a..b).map(Val::Int).collect()))
            }
            "int" | "float" => match positional.first().map(|p| self.eval_at(*p, d)) {
                Some(Eval::Known(v)) if v.num().is_some() => Eval::Known(v),
                // `float('nan')`, `float('inf')`, `float('-Infinity')`: Python's
                // special values, known statically (and refused where a number is
                // read).
                Some(Eval::Known(Val::Str(s))) if name == "float" => {
                    let t = s.trim().to_ascii_lowercase();
                    let (neg, body) = match t.strip_prefix('-') {
                        Some(b) => (true, b),
                        None => (false, t.strip_prefix('+').unwrap_or(&t)),
                    };
                    let f = match body {
                        "nan" => f64::NAN,
                        "inf" | "infinity" => f64::INFINITY,
                        _ => return Eval::unknown(),
                    };
                    Eval::Known(Val::Float(if neg { -f } else { f }))
                }
                _ => Eval::unknown(),
            },
            _ => Eval::unknown(),
        }
    }

    /// `{x for x in range(...)}` (the identity comprehension only).
    fn comprehension(&self, node: Node<'t>, d: usize) -> Eval {
        let body = node.child_by_field_name("body");
        let mut cursor = node.walk();
        let clauses: Vec<Node<'t>> = node.named_children(&mut cursor).skip(1).collect();
        let [clause] = clauses.as_slice() else {
            return Eval::unknown();
        };
        if clause.kind() != "for_in_clause" {
            return Eval::unknown();
        }
        let (Some(body), Some(left), Some(right)) = (
            body,
            clause.child_by_field_name("left"),
            clause.child_by_field_name("right"),
        ) else {
            return Eval::unknown();
        };
        if self.text(body) != self.text(left) {
            return Eval::unknown();
        }
        self.eval_at(right, d)
    }

    /// The keyword arguments of a call, as (name, value).
    pub fn keywords(&self, call: Node<'t>) -> Vec<(&'t str, Node<'t>)> {
        let Some(args) = call.child_by_field_name("arguments") else {
            return Vec::new();
        };
        let mut cursor = args.walk();
        args.named_children(&mut cursor)
            .filter(|a| a.kind() == "keyword_argument")
            .filter_map(|a| {
                Some((
                    self.text(a.child_by_field_name("name")?),
                    a.child_by_field_name("value")?,
                ))
            })
            .collect()
    }

    /// The positional arguments of a call.
    pub fn positional(&self, call: Node<'t>) -> Vec<Node<'t>> {
        let Some(args) = call.child_by_field_name("arguments") else {
            return Vec::new();
        };
        let mut cursor = args.walk();
        args.named_children(&mut cursor)
            .filter(|a| {
                !matches!(
                    a.kind(),
                    "keyword_argument" | "comment" | "dictionary_splat" | "list_splat"
                )
            })
            .collect()
    }

    /// The argument named `kw`, or else the positional one at `pos`.
    pub fn arg(&self, call: Node<'t>, kw: &str, pos: Option<usize>) -> Option<Node<'t>> {
        self.keywords(call)
            .into_iter()
            .find(|(k, _)| *k == kw)
            .map(|(_, v)| v)
            .or_else(|| pos.and_then(|i| self.positional(call).get(i).copied()))
    }

    /// The innermost function definition around `node`.
    pub fn enclosing_function(&self, node: Node<'t>) -> Option<Node<'t>> {
        let mut n = node.parent();
        while let Some(p) = n {
            if p.kind() == "function_definition" || p.kind() == "lambda" {
                return Some(p);
            }
            n = p.parent();
        }
        None
    }

    /// The innermost class around `node`, by name.
    pub fn enclosing_class(&self, node: Node<'t>) -> Option<&'t str> {
        let mut n = node.parent();
        while let Some(p) = n {
            if p.kind() == "class_definition" {
                return p.child_by_field_name("name").map(|x| self.text(x));
            }
            n = p.parent();
        }
        None
    }

    /// The right side of the last `name = ...` in the enclosing function (or the
    /// module) before `use_`.
    fn local(&self, use_: Node<'t>) -> Option<Node<'t>> {
        // In a function its body; at module level the module (a loop body there).
        let body = match self.enclosing_function(use_) {
            Some(func) => func.child_by_field_name("body")?,
            None => self.file.tree.root_node(),
        };
        let name = self.text(use_);
        let mut best: Option<Node<'t>> = None;
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            if n.start_byte() >= use_.start_byte() {
                continue;
            }
            if matches!(
                n.kind(),
                "function_definition" | "class_definition" | "lambda"
            ) {
                continue;
            }
            if n.kind() == "assignment" {
                if let (Some(l), Some(r)) = (
                    n.child_by_field_name("left"),
                    n.child_by_field_name("right"),
                ) {
                    if l.kind() == "identifier"
                        && self.text(l) == name
                        && r.end_byte() <= use_.start_byte()
                        && best.is_none_or(|b| b.start_byte() < r.start_byte())
                    {
                        best = Some(r);
                    }
                }
            }
            let mut cursor = n.walk();
            stack.extend(n.named_children(&mut cursor));
        }
        best
    }

    /// `Some(default)` when `use_` names a parameter of the enclosing function.
    fn parameter(&self, use_: Node<'t>) -> Option<Option<Node<'t>>> {
        let func = self.enclosing_function(use_)?;
        let params = func.child_by_field_name("parameters")?;
        let name = self.text(use_);
        let mut cursor = params.walk();
        for p in params.named_children(&mut cursor) {
            let (pname, default) = match p.kind() {
                "identifier" => (Some(p), None),
                "typed_parameter" => (p.named_child(0), None),
                "default_parameter" | "typed_default_parameter" => (
                    p.child_by_field_name("name"),
                    p.child_by_field_name("value"),
                ),
                _ => (None, None),
            };
            if pname.is_some_and(|n| self.text(n) == name) {
                return Some(default);
            }
        }
        None
    }

    /// Applies `name.add(x)`, `name.remove(x)`, `name.discard(x)` calls between
    /// the assignment `value` and the use.
    fn apply_mutations(&self, use_: Node<'t>, value: Node<'t>, items: &mut Vec<Val>) {
        let Some(func) = self.enclosing_function(use_) else {
            return;
        };
        let name = self.text(use_);
        let mut calls: Vec<Node<'t>> = Vec::new();
        let mut stack = vec![func];
        while let Some(n) = stack.pop() {
            if n.end_byte() <= value.end_byte() || n.start_byte() >= use_.start_byte() {
                continue;
            }
            if n.kind() == "call" {
                calls.push(n);
            }
            let mut cursor = n.walk();
            stack.extend(n.named_children(&mut cursor));
        }
        calls.sort_by_key(|c| c.start_byte());
        for c in calls {
            let Some(f) = c
                .child_by_field_name("function")
                .filter(|f| f.kind() == "attribute")
            else {
                continue;
            };
            let (Some(obj), Some(attr)) = (
                f.child_by_field_name("object"),
                f.child_by_field_name("attribute"),
            ) else {
                continue;
            };
            if self.text(obj) != name {
                continue;
            }
            let arg = self
                .positional(c)
                .first()
                .and_then(|a| self.eval_at(*a, 1).known());
            match (self.text(attr), arg) {
                ("add" | "append", Some(v)) => items.push(v),
                ("remove" | "discard", Some(v)) => items.retain(|x| *x != v),
                _ => {}
            }
        }
    }
}

/// A Python integer literal (`10`, `1_000`, `0x10`).
fn parse_int(t: &str) -> Option<i64> {
    let t = t.replace('_', "");
    let lower = t.to_ascii_lowercase();
    if let Some(h) = lower.strip_prefix("0x") {
        i64::from_str_radix(h, 16).ok()
    } else if let Some(o) = lower.strip_prefix("0o") {
        i64::from_str_radix(o, 8).ok()
    } else if let Some(b) = lower.strip_prefix("0b") {
        i64::from_str_radix(b, 2).ok()
    } else {
        t.parse().ok()
    }
}

/// The value of a plain string literal (no interpolation; escapes kept as written,
/// which URLs and header names do not use).
pub fn string_literal(node: Node<'_>, text: &str) -> Option<String> {
    if node.kind() != "string" {
        return None;
    }
    let mut s = String::new();
    let mut cursor = node.walk();
    for part in node.named_children(&mut cursor) {
        match part.kind() {
            "string_start" | "string_end" => {}
            "string_content" | "escape_sequence" => s.push_str(node_text(part, text)),
            _ => return None,
        }
    }
    Some(s)
}

/// The last dotted segment of a callee (`tenacity.retry` -> `retry`).
pub fn last_name(callee: &str) -> &str {
    callee.rsplit('.').next().unwrap_or(callee).trim()
}

/// True when `expr` names a timeout (`timeout`, `self.read_timeout`,
/// `TIMEOUT_S`): passed where a count goes, it is a unit mistake (RL017).
pub fn looks_like_timeout(expr: &str) -> bool {
    let last = last_name(expr).to_ascii_lowercase();
    last.contains("timeout") && last.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}
