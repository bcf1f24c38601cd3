//! RL011 ref-siblings-ignored: keys beside a `$ref` in a 2.0 or 3.0 document are
//! ignored; in 3.1 only `summary` and `description` may stand beside it.

use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::diagnostic::RuleMeta;
use crate::openapi::model::SpecVersion;
use crate::source::loader::Loaded;
use crate::source::refs::At;
use crate::source::tree::Kind;
use std::sync::Arc;

/// Rule metadata ([`catalog::REF_SIBLINGS_IGNORED`]).
pub const META: RuleMeta = catalog::REF_SIBLINGS_IGNORED;

/// Scans one file's arena (aliases not expanded): one finding per ignored sibling
/// key of every ref object.
pub fn check_file(doc: &Arc<Loaded>, version: SpecVersion) -> Vec<Diagnostic> {
    let Ok(tree) = &doc.tree else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for id in tree.all_nodes() {
        if tree.kind(id) != Kind::Map {
            continue;
        }
        let raw = tree.raw_entries(id);
        let has_ref = raw
            .iter()
            .any(|&(k, v)| tree.scalar(k) == Some("$ref") && tree.kind(v) == Kind::Str);
        if !has_ref || raw.len() < 2 || crate::openapi::literal::in_literal_value(tree, id) {
            continue;
        }
        // In 3.1 a Schema Object is JSON Schema 2020-12, where keys beside `$ref`
        // apply; only Reference Objects are limited to `summary`/`description`.
        if version == SpecVersion::OpenApi31 && in_schema(tree, id) {
            continue;
        }
        for &(k, _) in raw {
            let key = tree.scalar(k).unwrap_or("");
            if key == "$ref" {
                continue;
            }
            if version == SpecVersion::OpenApi31 && matches!(key, "summary" | "description") {
                continue;
            }
            let (message, help) = if version == SpecVersion::OpenApi31 {
                (
                    format!("The key `{key}` beside a `$ref` is ignored; OpenAPI 3.1 allows only `summary` and `description` there."),
                    "Move the key into the referenced definition, or drop it.",
                )
            } else {
                (
                    format!("The key `{key}` beside a `$ref` is ignored in this OpenAPI version."),
                    "Move the key into the referenced definition, or wrap both in `allOf`.",
                )
            };
            out.push(
                Diagnostic::new(
                    &META,
                    message,
                    At::new(doc, k).value_location(),
                    "ignored key",
                )
                .with_help(help),
            );
        }
    }
    out
}

/// Keys under which a value is a (JSON Schema) Schema Object.
const SCHEMA_KEYS: &[&str] = &[
    "schema",
    "schemas",
    "properties",
    "items",
    "prefixItems",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "additionalProperties",
    "patternProperties",
    "$defs",
    "definitions",
    "contains",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentSchema",
];

/// True when the node sits inside a Schema Object (some ancestor is the value of a
/// schema keyword such as `schema`, `properties` or `allOf`).
fn in_schema(tree: &crate::source::tree::Tree, id: crate::source::tree::NodeId) -> bool {
    let mut cur = Some(id);
    let mut guard = 0;
    while let Some(node) = cur {
        if let Some(key) = tree.key_of(node).and_then(|k| tree.scalar(k)) {
            if SCHEMA_KEYS.contains(&key) {
                return true;
            }
        }
        cur = tree.parent(node);
        guard += 1;
        if guard > 10_000 {
            break;
        }
    }
    false
}
