//! RL008 invalid-openapi-structure: a 3.0 document that the typed OpenAPI 3.0 model
//! (`openapiv3`) rejects; the message is the model's, the position that of the
//! nearest node of the path where deserialisation failed.
//!
//! The located tree is converted to a `serde_json::Value` (merge keys applied, YAML
//! integer keys as strings, integers beyond 64 bits as floats or, failing that, their
//! text) and deserialised through `serde_path_to_error`. No other rule reads the
//! typed model. A JSON file without repeated keys is first read straight from its
//! text (no conversion; the same result), and converted only when rejected. Bounds,
//! so that it is never slow:
//! - only root documents smaller than [`MAX_BYTES`] (20 MB) are checked;
//! - the conversion stops (and the document is not checked) when aliases would expand
//!   it beyond a value budget or past [`MAX_DEPTH`] nesting levels (alias bombs).

use crate::diagnostic::{Diagnostic, Severity};
use crate::openapi::model::{Document, SpecVersion};
use crate::rules::{Context, Question, RuleMeta};
use crate::source::pointer::escape;
use crate::source::refs::At;
use crate::source::tree::{Kind, NodeId, Tree};
use rayon::prelude::*;
use serde_json::{Map, Number, Value};

mod tree_de;

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    code: "RL008",
    name: "invalid-openapi-structure",
    severity: Severity::Warning,
    question: Question::Input,
    summary: "a 3.0 document that the typed OpenAPI 3.0 model rejects",
};

/// Documents of this size or more are not checked by RL008.
pub const MAX_BYTES: usize = 20 * 1024 * 1024;
/// Deepest nesting converted.
pub const MAX_DEPTH: usize = 300;

/// Checks every OpenAPI 3.0 document of the run (in parallel).
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    ctx.documents
        .par_iter()
        .filter_map(|d| match &d.structure_check {
            Some(done) => done.clone(),
            None => check_document(d),
        })
        .collect()
}

/// The finding for one document, if the typed model rejects it.
pub fn check_document(doc: &Document) -> Option<Diagnostic> {
    if doc.version != SpecVersion::OpenApi30 || doc.doc.file.text.len() >= MAX_BYTES {
        return None;
    }
    let tree = doc.doc.tree.as_ref().ok()?;
    let root = tree.root()?;
    // Fast path: a JSON file without repeated keys reads into the typed model straight
    // from its text exactly as from the converted value (same numbers, same strings,
    // no merge keys). Only a rejection needs the value, for the error's path and
    // message, so only then is the conversion below done.
    // Any other tree without aliases is read by the typed model straight from the
    // tree, the same way.
    let budget = (tree.len() * 4).max(1_000_000);
    let accepted = if tree.is_json() && tree.duplicates().is_empty() {
        serde_json::from_str::<openapiv3::OpenAPI>(tree.text()).is_ok()
    } else if tree.has_aliases() {
        // Aliases can expand a small file into a huge document (alias bombs): only
        // the budgeted conversion below reads such a tree.
        false
    } else {
        let limits = tree_de::Limits::new(budget, MAX_DEPTH);
        <openapiv3::OpenAPI as serde::Deserialize>::deserialize(tree_de::NodeDe::new(
            tree, root, &limits,
        ))
        .is_ok()
    };
    if accepted {
        return None;
    }
    let value = to_json(tree, root, &mut Converter { budget, depth: 0 })?;
    let err = match serde_path_to_error::deserialize::<_, openapiv3::OpenAPI>(&value) {
        Ok(_) => return None,
        Err(e) => e,
    };
    let mut tokens: Vec<String> = Vec::new();
    push_path(&mut tokens, err.path());
    let mut message = err.inner().to_string();
    refine(&value, &mut tokens, &mut message);
    let (node, depth) = (0..=tokens.len())
        .rev()
        .find_map(|n| tree.lookup(&tokens[..n]).map(|node| (node, n)))?;
    let pointer: String = tokens[..depth]
        .iter()
        .map(|t| format!("/{}", escape(t)))
        .collect();
    let at = At::new(&doc.doc, node);
    // An Operation written as a `$ref` (one file per operation, as DigitalOcean does)
    // is outside the 3.0 schema, but retrylint follows it like every bundler: say so
    // instead of a bare "missing field".
    let is_operation_ref = tokens.len() == 3
        && tokens[0] == "paths"
        && tree.kind(node) == crate::source::tree::Kind::Map
        && tree.get(node, "$ref").is_some();
    if is_operation_ref {
        message = "an Operation Object may not be a `$ref` in OpenAPI 3.0 (retrylint and bundlers follow it; strict 3.0 tools do not)".to_string();
    }
    let place = if pointer.is_empty() {
        "at the document root".to_string()
    } else {
        format!("at `{pointer}`")
    };
    Some(
        Diagnostic::new(
            &META,
            format!(
                "The OpenAPI 3.0 model rejects this document {place}: {}.",
                message.trim_end_matches('.')
            ),
            at.location(),
            "rejected by the OpenAPI 3.0 model",
        )
        .with_help("Fix the structure so that code generators and validators read the document as retrylint does."),
    )
}

fn push_path(tokens: &mut Vec<String>, path: &serde_path_to_error::Path) {
    for seg in path.iter() {
        match seg {
            serde_path_to_error::Segment::Seq { index } => tokens.push(index.to_string()),
            serde_path_to_error::Segment::Map { key } => tokens.push(key.clone()),
            serde_path_to_error::Segment::Enum { .. } => {}
            serde_path_to_error::Segment::Unknown => break,
        }
    }
}

/// `openapiv3` reads `paths` and the status entries of `responses` through flattened
/// maps, where the error path stops. Re-reads each entry of such a map with its own
/// type to find the entry (and the place inside it) that fails.
fn refine(value: &Value, tokens: &mut Vec<String>, message: &mut String) {
    for _ in 0..8 {
        let pointer: String = tokens.iter().map(|t| format!("/{}", escape(t))).collect();
        let Some(Value::Object(map)) = value.pointer(&pointer) else {
            return;
        };
        let is_paths = tokens.len() == 1 && tokens[0] == "paths";
        let is_responses = tokens.last().is_some_and(|t| t == "responses");
        if !is_paths && !is_responses {
            return;
        }
        let failing = map
            .iter()
            .filter(|(k, v)| !k.starts_with("x-") && v.get("$ref").is_none())
            .find_map(|(k, v)| {
                let err = if is_paths {
                    serde_path_to_error::deserialize::<_, openapiv3::PathItem>(v).err()
                } else {
                    serde_path_to_error::deserialize::<_, openapiv3::Response>(v).err()
                }?;
                Some((k.clone(), err))
            });
        let Some((key, err)) = failing else {
            return;
        };
        tokens.push(key);
        push_path(tokens, err.path());
        *message = err.inner().to_string();
    }
}

struct Converter {
    budget: usize,
    depth: usize,
}

/// Converts a node; `None` when the budget or depth is exhausted.
fn to_json(tree: &Tree, node: NodeId, c: &mut Converter) -> Option<Value> {
    c.budget = c.budget.checked_sub(1)?;
    let text = tree.scalar(node).unwrap_or("");
    Some(match tree.kind(node) {
        Kind::Null => Value::Null,
        Kind::Bool => Value::Bool(tree.as_bool(node).unwrap_or(false)),
        Kind::Int => match tree.as_i64(node) {
            Some(v) => Value::from(v),
            None => text
                .trim_start_matches('+')
                .parse::<u64>()
                .ok()
                .map(Value::from)
                .or_else(|| {
                    tree.as_f64(node)
                        .and_then(Number::from_f64)
                        .map(Value::Number)
                })
                .unwrap_or_else(|| Value::String(text.to_string())),
        },
        Kind::Float => tree
            .as_f64(node)
            .and_then(Number::from_f64)
            .map(Value::Number)
            .unwrap_or_else(|| Value::String(text.to_string())),
        Kind::Str => Value::String(text.to_string()),
        Kind::Seq => {
            c.depth += 1;
            if c.depth > MAX_DEPTH {
                return None;
            }
            let mut out = Vec::new();
            for &item in tree.items(node) {
                out.push(to_json(tree, item, c)?);
            }
            c.depth -= 1;
            Value::Array(out)
        }
        Kind::Map => {
            c.depth += 1;
            if c.depth > MAX_DEPTH {
                return None;
            }
            let mut out = Map::new();
            for (k, v) in tree.entries(node) {
                let Some(key) = tree.scalar(k) else {
                    continue;
                };
                let value = to_json(tree, v, c)?;
                out.insert(key.to_string(), value);
            }
            c.depth -= 1;
            Value::Object(out)
        }
    })
}
