//! RL015 equivalent-paths: two templated paths of one document differ only in the
//! names of their path parameters (`/carts/{id}/checkout`, `/carts/{cartId}/checkout`).
//! OpenAPI 3.x (Paths Object) forbids them as identical; a request matches both, and a
//! policy selector binds to one of them arbitrarily. One finding per path that repeats
//! an earlier one (in document order), at that path, labelling the earlier ones; its
//! operations are that path's (the ones to move), so a baseline that records it still
//! reports a path added later. A trailing slash makes a different path.

use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::openapi::model::Document;
use crate::rules::{Context, RuleMeta};
use crate::source::refs::At;
use crate::source::tree::{Kind, NodeId};
use std::collections::HashMap;

/// Rule metadata ([`catalog::EQUIVALENT_PATHS`]).
pub const META: RuleMeta = catalog::EQUIVALENT_PATHS;

/// The path with every template expression (`{name}`) emptied to `{}`; `None` when
/// it has no template (two equal plain paths are a repeated key, RL002's).
pub fn shape(path: &str) -> Option<String> {
    let mut out = String::with_capacity(path.len());
    let mut templated = false;
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        out.push_str(&rest[..=open]);
        out.push('}');
        templated = true;
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    templated.then_some(out)
}

/// Checks the `paths` keys of every document.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    ctx.documents.iter().flat_map(check_document).collect()
}

fn check_document(document: &Document) -> Vec<Diagnostic> {
    let Ok(tree) = &document.doc.tree else {
        return Vec::new();
    };
    let Some(paths) = tree.root().and_then(|r| tree.get(r, "paths")) else {
        return Vec::new();
    };
    if tree.kind(paths) != Kind::Map {
        return Vec::new();
    }
    // Path keys by shape, in document order.
    let mut groups: Vec<Vec<(NodeId, &str)>> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (k, _) in tree.entries(paths) {
        let Some(path) = tree.scalar(k) else { continue };
        if path.starts_with("x-") {
            continue;
        }
        let Some(shape) = shape(path) else { continue };
        let i = *index.entry(shape).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[i].push((k, path));
    }
    groups
        .iter()
        .filter(|g| g.len() > 1)
        .flat_map(|g| (1..g.len()).map(move |i| diagnostic(document, &g[..i], g[i])))
        .collect()
}

/// The finding for `repeat`, a path equivalent to each of `earlier`.
fn diagnostic(
    document: &Document,
    earlier: &[(NodeId, &str)],
    repeat: (NodeId, &str),
) -> Diagnostic {
    let at = |id: NodeId| At::new(&document.doc, id).value_location();
    let names: Vec<String> = earlier.iter().map(|(_, p)| format!("`{p}`")).collect();
    let listed = match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.join(""),
    };
    let (id, path) = repeat;
    let mut d = Diagnostic::new(
        &META,
        format!(
            "The path `{path}` differs from {listed} only in the names of its path parameters, which OpenAPI forbids: a request matches each, and a policy selector binds to one of them arbitrarily."
        ),
        at(id),
        "equivalent path",
    )
    .with_help("Keep one of these path templates, with one parameter name, and move the operations of the others under it.");
    for &(earlier_id, _) in earlier {
        d = d.with_label(at(earlier_id), "equivalent earlier path");
    }
    let operations = document
        .operations
        .iter()
        .filter(|op| op.path == path)
        .map(|op| (Some(op.key.doc.file.clone()), op.display()));
    d.with_operations_in(operations)
}
