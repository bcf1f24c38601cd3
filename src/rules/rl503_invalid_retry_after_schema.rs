//! RL503 invalid-retry-after-schema: a `Retry-After` header schema that fits neither
//! delay-seconds (type `integer`, or a type array holding it, with no negative
//! `minimum`) nor HTTP-date (type `string` with no `format`, or a format other than
//! `date-time`/`date`); `oneOf`/`anyOf` fit when one branch fits. Also each
//! `Retry-After` example that is neither form. Each offending node is its own
//! finding; a node shared by several operations gives one finding with labels.
//!
//! `$ref`s inside the schema (`oneOf` branches and the like) and in `examples` are
//! followed within the same file; a target in another file is not read here and is
//! treated as fitting (no finding without evidence). A schema with no `type` and no
//! date `format` constrains nothing and is not reported.

use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::openapi::model::{Header, Operation};
use crate::retry::is_valid_retry_after_example;
use crate::rules::grouping::{whose, with_users, ByNode};
use crate::rules::{Context, RuleMeta};
use crate::source::pointer::parse_ref;
use crate::source::refs::At;
use crate::source::tree::{Kind, NodeId, Tree};

/// Rule metadata ([`catalog::INVALID_RETRY_AFTER_SCHEMA`]).
pub const META: RuleMeta = catalog::INVALID_RETRY_AFTER_SCHEMA;

const MAX_DEPTH: usize = 32;

/// What is wrong with a node.
enum Problem {
    /// The schema fits neither form; the reason.
    Schema(String),
    /// An example that is neither form; how it reads.
    Example(String),
}

/// Checks every `Retry-After` header of every response of every operation.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut g: ByNode<'_, Problem> = ByNode::new();
    for doc in ctx.documents {
        for op in &doc.operations {
            for resp in &op.responses {
                for h in &resp.headers {
                    if h.name.eq_ignore_ascii_case("Retry-After") {
                        check_header(h, op, &mut g);
                    }
                }
            }
        }
    }
    g.into_groups()
        .into_iter()
        .map(|grp| {
            let ops = grp.operations();
            let (message, label, help) = match grp.first() {
                Problem::Schema(reason) => (
                    format!(
                        "The `Retry-After` header schema {} fits neither delay-seconds nor an HTTP-date: {reason}.",
                        whose(&ops)
                    ),
                    "not delay-seconds or HTTP-date",
                    "Use `type: integer` with `minimum: 0` (delay-seconds) or `type: string` without `format: date-time` (HTTP-date, e.g. `Wed, 21 Oct 2015 07:28:00 GMT`).",
                ),
                Problem::Example(shown) => (
                    format!(
                        "The `Retry-After` example {shown} {} is neither delay-seconds nor an HTTP-date.",
                        whose(&ops)
                    ),
                    "invalid Retry-After value",
                    "Use a non-negative whole number of seconds (`120`) or an IMF-fixdate (`Wed, 21 Oct 2015 07:28:00 GMT`).",
                ),
            };
            let d = Diagnostic::new(&META, message, grp.at.location(), label).with_help(help);
            with_users(d, &grp.at, &ops)
        })
        .collect()
}

fn check_header<'a>(h: &Header, op: &'a Operation, g: &mut ByNode<'a, Problem>) {
    if let Some(schema) = &h.schema {
        if let Some(reason) = schema_problem(schema) {
            g.add(schema, op, Problem::Schema(reason));
        }
        schema_examples(schema, op, g, 0);
    }
    examples_of(&h.at, op, g);
    if let Some(content) = child(&h.at, "content") {
        for media in entries(&content) {
            examples_of(&media, op, g);
        }
    }
}

/// `example` and the `examples` map (Example Objects' `value`) of a header or media
/// type object.
fn examples_of<'a>(at: &At, op: &'a Operation, g: &mut ByNode<'a, Problem>) {
    if let Some(ex) = child(at, "example") {
        check_example(&ex, op, g);
    }
    if let Some(map) = child(at, "examples") {
        if kind(&map) == Some(Kind::Map) {
            for item in entries(&map) {
                let Some(item) = resolve_local(&item) else {
                    continue;
                };
                if let Some(value) = child(&item, "value") {
                    check_example(&value, op, g);
                }
            }
        }
    }
}

/// `example` and (3.1) `examples` arrays of a schema and of its `oneOf`/`anyOf`/
/// `allOf` branches.
fn schema_examples<'a>(schema: &At, op: &'a Operation, g: &mut ByNode<'a, Problem>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let Some(schema) = resolve_local(schema) else {
        return;
    };
    if kind(&schema) != Some(Kind::Map) {
        return;
    }
    if let Some(ex) = child(&schema, "example") {
        check_example(&ex, op, g);
    }
    if let Some(list) = child(&schema, "examples") {
        for item in items(&list) {
            check_example(&item, op, g);
        }
    }
    for comb in ["oneOf", "anyOf", "allOf"] {
        if let Some(list) = child(&schema, comb) {
            for branch in items(&list) {
                schema_examples(&branch, op, g, depth + 1);
            }
        }
    }
}

fn check_example<'a>(at: &At, op: &'a Operation, g: &mut ByNode<'a, Problem>) {
    let Some(tree) = at.tree() else {
        return;
    };
    if let Some(shown) = invalid_example(tree, at.node) {
        g.add(at, op, Problem::Example(shown));
    }
}

/// `Some(how it reads)` when the example is neither delay-seconds nor an HTTP-date.
/// YAML/JSON integers are delay-seconds when not negative; strings go through the one
/// Retry-After parser; `null` is not checked.
fn invalid_example(tree: &Tree, node: NodeId) -> Option<String> {
    let text = tree.scalar(node).unwrap_or("");
    let valid = match tree.kind(node) {
        Kind::Null => return None,
        Kind::Int => match tree.as_i64(node) {
            Some(v) => v >= 0,
            None => !text.starts_with('-'),
        },
        Kind::Str => is_valid_retry_after_example(text),
        Kind::Float | Kind::Bool => false,
        Kind::Map => return Some("(an object)".to_string()),
        Kind::Seq => return Some("(a list)".to_string()),
    };
    (!valid).then(|| format!("`{}`", shorten(text)))
}

fn shorten(text: &str) -> String {
    if text.chars().count() > 40 {
        let s: String = text.chars().take(40).collect();
        format!("{s}...")
    } else {
        text.to_string()
    }
}

/// `Some(reason)` when the schema fits neither form.
fn schema_problem(schema: &At) -> Option<String> {
    let schema = resolve_local(schema)?;
    if kind(&schema) != Some(Kind::Map) {
        return None;
    }
    for comb in ["oneOf", "anyOf"] {
        if let Some(list) = child(&schema, comb) {
            let branches = items(&list);
            if !branches.is_empty() && !branches.iter().any(|b| fits(b, 1)) {
                return Some(format!("no `{comb}` branch fits either form"));
            }
        }
    }
    if let Some(list) = child(&schema, "allOf") {
        if items(&list).iter().any(|b| !fits(b, 1)) {
            return Some("an `allOf` part fits neither form".to_string());
        }
    }
    own_problem(&schema)
}

/// Whether a (sub)schema fits delay-seconds or HTTP-date.
fn fits(schema: &At, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return true;
    }
    let Some(schema) = resolve_local(schema) else {
        return true;
    };
    if kind(&schema) != Some(Kind::Map) {
        return true;
    }
    for comb in ["oneOf", "anyOf"] {
        if let Some(list) = child(&schema, comb) {
            let branches = items(&list);
            if !branches.is_empty() && !branches.iter().any(|b| fits(b, depth + 1)) {
                return false;
            }
        }
    }
    if let Some(list) = child(&schema, "allOf") {
        if items(&list).iter().any(|b| !fits(b, depth + 1)) {
            return false;
        }
    }
    own_problem(&schema).is_none()
}

/// The schema's own `type`/`format`/`minimum`, ignoring combinators.
fn own_problem(schema: &At) -> Option<String> {
    let format = child(schema, "format").and_then(|f| f.scalar().map(str::to_string));
    let date_format = format
        .as_deref()
        .filter(|f| *f == "date-time" || *f == "date");
    let Some(type_at) = child(schema, "type") else {
        return date_format.map(|f| format!("`format: {f}` is RFC 3339, not an HTTP-date"));
    };
    let types: Vec<String> = match kind(&type_at) {
        Some(Kind::Seq) => items(&type_at)
            .iter()
            .filter_map(|t| t.scalar().map(str::to_string))
            .collect(),
        _ => type_at.scalar().map(str::to_string).into_iter().collect(),
    };
    let minimum = child(schema, "minimum").and_then(|m| m.tree().and_then(|t| t.as_f64(m.node)));
    let negative_min = minimum.is_some_and(|m| m < 0.0);
    let integer_fits = types.iter().any(|t| t == "integer") && !negative_min;
    let string_fits = types.iter().any(|t| t == "string") && date_format.is_none();
    if integer_fits || string_fits {
        return None;
    }
    if types.iter().any(|t| t == "string") {
        if let Some(f) = date_format {
            return Some(format!("`format: {f}` is RFC 3339, not an HTTP-date"));
        }
    }
    if types.iter().any(|t| t == "integer") && negative_min {
        return Some(format!(
            "`minimum: {}` allows a negative delay",
            child(schema, "minimum")
                .and_then(|m| m.scalar().map(str::to_string))
                .unwrap_or_default()
        ));
    }
    let shown = if types.len() == 1 {
        format!("`type: {}`", types[0])
    } else {
        format!("`type: [{}]`", types.join(", "))
    };
    Some(format!("{shown} is neither an integer nor a string"))
}

/// Follows `$ref`s within the same file; `None` when a target is in another file,
/// missing, or the chain is too long.
fn resolve_local(at: &At) -> Option<At> {
    let mut cur = at.clone();
    for _ in 0..MAX_DEPTH {
        let tree = cur.tree()?;
        if tree.kind(cur.node) != Kind::Map {
            return Some(cur);
        }
        let Some(r) = tree.get(cur.node, "$ref") else {
            return Some(cur);
        };
        let target = parse_ref(tree.scalar(r)?);
        if target.remote || !target.file.is_empty() || target.plain_name_fragment {
            return None;
        }
        let node = if target.tokens.is_empty() {
            tree.root()?
        } else {
            tree.lookup(&target.tokens)?
        };
        cur = At::new(&cur.doc, node);
    }
    None
}

fn child(at: &At, key: &str) -> Option<At> {
    let tree = at.tree()?;
    tree.get(at.node, key).map(|n| At::new(&at.doc, n))
}

fn kind(at: &At) -> Option<Kind> {
    at.tree().map(|t| t.kind(at.node))
}

fn items(at: &At) -> Vec<At> {
    at.tree()
        .map(|t| {
            t.items(at.node)
                .iter()
                .map(|&n| At::new(&at.doc, n))
                .collect()
        })
        .unwrap_or_default()
}

fn entries(at: &At) -> Vec<At> {
    at.tree()
        .map(|t| {
            t.entries(at.node)
                .into_iter()
                .map(|(_, v)| At::new(&at.doc, v))
                .collect()
        })
        .unwrap_or_default()
}
