//! RL011 ref-siblings-ignored: keys beside a `$ref` in a 2.0 or 3.0 document are
//! ignored; in 3.1 only `summary` and `description` may stand beside it.

use crate::diagnostic::{Diagnostic, Severity};
use crate::openapi::model::SpecVersion;
use crate::rules::{Question, RuleMeta};
use crate::source::loader::Loaded;
use crate::source::refs::At;
use crate::source::tree::Kind;
use std::sync::Arc;

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    code: "RL011",
    name: "ref-siblings-ignored",
    severity: Severity::Warning,
    question: Question::Input,
    summary: "keys beside a `$ref` that the document's OpenAPI version ignores",
};

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
        if !has_ref || raw.len() < 2 || crate::openapi::build::in_literal_value(tree, id) {
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
