//! The Go extractor (`retry-in-code.md` §1.5): go-retryablehttp clients
//! ([`retryablehttp`]: `retryablehttp.NewClient()` with field assignments, and
//! `retryablehttp.Client{...}` literals) and resty clients ([`resty`]: `resty.New()`
//! builder chains and setter statements on the variable or field that holds the
//! client, v1/v2/v3 told apart by the import path and `go.mod`), plus the HTTP
//! calls made through them ([`calls`]: `client.R().SetHeader(..).Post(url)`,
//! `client.Post(url, ..)`, `client.Do(req)` with `req` from
//! `retryablehttp.NewRequest("POST", url, body)`).
//!
//! Values are folded by [`eval`] (literals, `time` units, same-file constants);
//! a bare integer where a `time.Duration` is expected is RL017 (nanoseconds); a
//! value of another package or a parameter is RL019 with what was assumed. A custom
//! `CheckRetry` / retry condition is "may retry anything" unless it is a same-file
//! function (or a function literal) whose body [`condition`] reads.
//!
//! Every walk over the tree uses an explicit stack.

pub mod calls;
pub mod condition;
pub mod eval;
pub mod imports;
pub mod literal;
pub mod package;
pub mod resty;
pub mod retryablehttp;
pub mod settings;

use super::model::{CodeClient, CodeFacts, Span};
use super::CodeFile;
use eval::Consts;
use imports::Imports;
use std::collections::HashMap;
use tree_sitter::Node;

/// What the readers of one file share.
pub struct Ctx<'a> {
    /// The file.
    pub file: &'a CodeFile<'a>,
    /// Its imports.
    pub imports: Imports,
    /// Its `const`/`var` bindings.
    pub consts: Consts<'a>,
    /// Its functions and methods by name (methods by their bare name).
    pub funcs: HashMap<String, Node<'a>>,
    /// Every call expression, in source order.
    pub calls: Vec<Node<'a>>,
    /// Every assignment-like statement (`=`, `:=`), in source order.
    pub assignments: Vec<Node<'a>>,
    /// Every `var` spec, in source order.
    pub vars: Vec<Node<'a>>,
    /// The package values of the other files of the package, read on first use.
    siblings: std::cell::OnceCell<package::Siblings>,
}

impl<'a> Ctx<'a> {
    fn new(file: &'a CodeFile<'a>) -> Ctx<'a> {
        let root = file.tree.root_node();
        let mut funcs = HashMap::new();
        let mut calls = Vec::new();
        let mut assignments = Vec::new();
        let mut vars = Vec::new();
        let mut stack = vec![root];
        // One cursor for the walk (`named_children` and `children` reset it to
        // each node): a cursor per node cost an allocation each.
        let mut walker = root.walk();
        while let Some(node) = stack.pop() {
            match node.kind() {
                "function_declaration" | "method_declaration" => {
                    if let Some(n) = node.child_by_field_name("name") {
                        funcs.insert(file.text_of(n).to_string(), node);
                    }
                }
                "call_expression" => calls.push(node),
                "assignment_statement" | "short_var_declaration" => assignments.push(node),
                "var_spec" => vars.push(node),
                _ => {}
            }
            stack.extend(node.named_children(&mut walker));
        }
        calls.sort_by_key(|n| (n.start_byte(), n.end_byte()));
        assignments.sort_by_key(|n| n.start_byte());
        vars.sort_by_key(|n| n.start_byte());
        Ctx {
            file,
            imports: Imports::read(file),
            consts: Consts::collect(file.text, root),
            funcs,
            calls,
            assignments,
            vars,
            siblings: std::cell::OnceCell::new(),
        }
    }

    /// The text of `node`.
    pub fn text(&self, node: Node<'_>) -> &'a str {
        self.file.text_of(node)
    }

    /// The value of `name` when another file of the same package declares it
    /// with a literal value, and that file's name.
    pub fn sibling(&self, name: &str) -> Option<&(eval::Val, String)> {
        self.siblings
            .get_or_init(|| {
                let root = self.file.tree.root_node();
                match package::package_of(self.file.text, root) {
                    Some(p) => package::Siblings::load(self.file.path(), &p, self.file.boundary),
                    None => package::Siblings::default(),
                }
            })
            .get(name)
    }

    /// The same-file function a callback expression names (`retryHTTPCheck`,
    /// `c.retryHTTPCheck`), when it is declared in this file.
    pub fn local_func(&self, expr: Node<'_>) -> Option<Node<'a>> {
        let name = match expr.kind() {
            "identifier" => self.text(expr),
            "selector_expression" => {
                let op = expr.child_by_field_name("operand")?;
                if op.kind() == "identifier" && self.imports.is_package(self.text(op)) {
                    return None;
                }
                self.text(expr.child_by_field_name("field")?)
            }
            _ => return None,
        };
        self.funcs.get(name).copied()
    }
}

/// Reads the retry clients and calls of `file`.
pub fn extract(file: &CodeFile<'_>) -> CodeFacts {
    let ctx = Ctx::new(file);
    let mut out = CodeFacts::default();
    out.clients.extend(retryablehttp::read(&ctx));
    out.clients.extend(resty::read(&ctx));
    out.calls = calls::read(&ctx);
    out
}

/// The name an expression's value is stored under: the left side of `x := e`,
/// `x = e`, `var x = e`, the key of `Field: e` in a composite literal, or the
/// enclosing function's name for `return e`. Walks up through `&e`, `(e)` and
/// expression lists.
pub fn name_of(ctx: &Ctx<'_>, node: Node<'_>) -> Option<(String, Span)> {
    let mut cur = node;
    let mut parent = cur.parent()?;
    while matches!(
        parent.kind(),
        "unary_expression" | "parenthesized_expression"
    ) {
        cur = parent;
        parent = cur.parent()?;
    }
    match parent.kind() {
        "expression_list" => {
            let index = {
                let mut c = parent.walk();
                let i = parent
                    .named_children(&mut c)
                    .position(|n| n.id() == cur.id());
                i?
            };
            let stmt = parent.parent()?;
            match stmt.kind() {
                "assignment_statement" | "short_var_declaration" => {
                    let left = stmt.child_by_field_name("left")?;
                    let target = left.named_child(index)?;
                    Some((ctx.text(target).to_string(), target.byte_range()))
                }
                "var_spec" => {
                    let mut c = stmt.walk();
                    let target = stmt.children_by_field_name("name", &mut c).nth(index)?;
                    Some((ctx.text(target).to_string(), target.byte_range()))
                }
                "return_statement" => enclosing_func_name(ctx, stmt),
                _ => None,
            }
        }
        "literal_element" => {
            let keyed = parent.parent().filter(|k| k.kind() == "keyed_element")?;
            let key = keyed.child_by_field_name("key")?;
            if key.id() == parent.id() {
                return None;
            }
            Some((ctx.text(key).to_string(), key.byte_range()))
        }
        "return_statement" => enclosing_func_name(ctx, parent),
        _ => None,
    }
}

/// When the client at `node` is stored in a local variable that its function
/// returns (`c := resty.New(); ...; return c`), the function's name names it
/// too, so `var client = newClient()` elsewhere reaches it. A struct field the
/// local is stored in within that function (`return &Client{http: c}`,
/// `s.http = c`) names it as well, so the methods' `c.http.Post(..)` reach it
/// (case 51, the usual Go shape of an API client).
pub fn add_return_names(ctx: &Ctx<'_>, c: &mut CodeClient, node: Node<'_>) {
    let Some((local, _)) = c.names.first().cloned() else {
        return;
    };
    let mut func = node.parent();
    while let Some(f) = func {
        if matches!(
            f.kind(),
            "function_declaration" | "method_declaration" | "func_literal"
        ) {
            break;
        }
        func = f.parent();
    }
    let Some(func) = func.filter(|f| f.kind() != "func_literal") else {
        return;
    };
    let Some(body) = func.child_by_field_name("body") else {
        return;
    };
    add_field_names(ctx, c, body, &local);
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        if n.kind() == "func_literal" {
            continue;
        }
        if n.kind() == "return_statement" {
            let first = n.named_child(0).and_then(|l| {
                if l.kind() == "expression_list" {
                    l.named_child(0)
                } else {
                    Some(l)
                }
            });
            if first.is_some_and(|e| ctx.text(e) == local) {
                if let Some(name) = enclosing_func_name(ctx, n) {
                    if !c.names.iter().any(|(x, _)| *x == name.0) {
                        c.names.push(name);
                    }
                }
                return;
            }
        }
        let mut cur = n.walk();
        stack.extend(n.named_children(&mut cur));
    }
}

/// Adds to `c` the struct fields that `local` is stored in within `body`: the key
/// of a keyed literal element whose value is `local` (`Client{http: c}`) and the
/// selector a plain assignment stores `local` in (`s.http = c`). Nested function
/// literals are not entered (their `local` may be another variable).
fn add_field_names(ctx: &Ctx<'_>, c: &mut CodeClient, body: Node<'_>, local: &str) {
    let push = |c: &mut CodeClient, target: Node<'_>| {
        let name = ctx.text(target).to_string();
        if !c.names.iter().any(|(x, _)| *x == name) {
            c.names.push((name, target.byte_range()));
        }
    };
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "func_literal" => continue,
            "keyed_element" => {
                if let (Some(key), Some(value)) =
                    (n.child_by_field_name("key"), n.child_by_field_name("value"))
                {
                    if ctx.text(value) == local && key.kind() == "literal_element" {
                        push(c, key);
                    }
                }
            }
            "assignment_statement" => {
                let (Some(left), Some(right)) = (
                    n.child_by_field_name("left"),
                    n.child_by_field_name("right"),
                ) else {
                    continue;
                };
                if left.named_child_count() == 1 && ctx.text(right) == local {
                    if let Some(target) = left
                        .named_child(0)
                        .filter(|t| t.kind() == "selector_expression")
                    {
                        push(c, target);
                    }
                }
            }
            _ => {}
        }
        let mut cur = n.walk();
        stack.extend(n.named_children(&mut cur));
    }
}

fn enclosing_func_name(ctx: &Ctx<'_>, node: Node<'_>) -> Option<(String, Span)> {
    let mut cur = node.parent();
    while let Some(n) = cur {
        if matches!(n.kind(), "function_declaration" | "method_declaration") {
            let name = n.child_by_field_name("name")?;
            return Some((ctx.text(name).to_string(), name.byte_range()));
        }
        if n.kind() == "func_literal" {
            return None;
        }
        cur = n.parent();
    }
    None
}

/// True when `a` and `b` name the same storage: equal text, or equal last
/// segments (`c.client` ~ `client`, `e.httpClient_` ~ `httpClient_`).
pub fn same_name(a: &str, b: &str) -> bool {
    a == b || super::link::last_segment(a) == super::link::last_segment(b)
}
