//! `--format sarif`: SARIF 2.1.0 for GitHub code scanning.
//!
//! Plain serde (`serde_json::json!`) rather than the `serde-sarif` crate: the
//! architecture keeps machine formats as plain serde, we need a small subset of the
//! schema, and `serde-sarif` brings a builder macro crate and the whole generated
//! schema for it. The official validator (`scripts/validate-sarif.sh`) checks the output.
//!
//! Every registry rule is listed in `tool.driver.rules` (so `ruleIndex` is the rule's
//! position in the registry) with its document from `rules/` as `help`. Result URIs
//! are relative to the project root under `uriBaseId: "%SRCROOT%"`; regions use
//! Unicode code point columns (end exclusive, as SARIF wants); `partialFingerprints`
//! hash rule, file and JSON Pointer, never line numbers.

use super::{fingerprints, root_relative};
use crate::diagnostic::{Diagnostic, Location, Severity};
use crate::rules::{docs, REGISTRY};
use serde_json::{json, Value};
use std::path::Path;

/// The SARIF schema URL.
pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The `partialFingerprints` key.
pub const FINGERPRINT_KEY: &str = "retrylintFinding/v1";

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

fn region(loc: &Location) -> Value {
    let start = loc.file.line_col(loc.span.start);
    let end = loc.file.line_col(loc.span.end);
    json!({
        "startLine": start.line,
        "startColumn": start.column,
        "endLine": end.line,
        "endColumn": end.column,
    })
}

fn physical(loc: &Location, root: &Path) -> Value {
    json!({
        "artifactLocation": {"uri": root_relative(loc, root), "uriBaseId": "%SRCROOT%"},
        "region": region(loc),
    })
}

fn rule_descriptor(meta: &crate::rules::RuleMeta) -> Value {
    let doc = docs::doc(meta.code);
    let full = doc
        .and_then(|d| d.what_it_does())
        .unwrap_or_else(|| meta.summary.to_string());
    let mut rule = json!({
        "id": meta.code,
        "name": meta.name,
        "shortDescription": {"text": sentence(meta.summary)},
        "fullDescription": {"text": full},
        "defaultConfiguration": {"level": level(meta.severity)},
        "properties": {"tags": [meta.question.as_str()]},
    });
    if let Some(d) = doc {
        rule["help"] = json!({"text": d.body, "markdown": d.body});
        rule["helpUri"] = json!(d.url());
    } else {
        rule["help"] = json!({"text": sentence(meta.summary)});
    }
    rule
}

/// Capitalised, ending with a period (SARIF wants messages as sentences).
fn sentence(s: &str) -> String {
    let mut out: String = s
        .chars()
        .take(1)
        .flat_map(char::to_uppercase)
        .chain(s.chars().skip(1))
        .collect();
    if !out.ends_with('.') {
        out.push('.');
    }
    out
}

/// The SARIF log as a JSON value.
pub fn log(diags: &[Diagnostic], root: &Path) -> Value {
    let rules: Vec<Value> = REGISTRY.iter().map(|r| rule_descriptor(r.meta)).collect();
    let prints = fingerprints(diags, root);
    let results: Vec<Value> = diags
        .iter()
        .zip(prints)
        .map(|(d, print)| {
            let mut text = sentence(&d.message);
            if let Some(h) = &d.help {
                text.push_str(&format!(" Help: {}", sentence(h)));
            }
            let mut result = json!({
                "ruleId": d.code,
                "level": level(d.severity),
                "message": {"text": text},
                "locations": [{"physicalLocation": physical(&d.primary.location, root)}],
                "partialFingerprints": {FINGERPRINT_KEY: print},
            });
            if let Some(i) = REGISTRY.iter().position(|r| r.meta.code == d.code) {
                result["ruleIndex"] = json!(i);
            }
            if !d.primary.message.is_empty() {
                result["locations"][0]["message"] = json!({"text": d.primary.message});
            }
            if let Some(op) = &d.operation {
                result["properties"] = json!({"operation": op});
            }
            if !d.labels.is_empty() {
                result["relatedLocations"] = d
                    .labels
                    .iter()
                    .enumerate()
                    .map(|(i, l)| {
                        json!({
                            "id": i + 1,
                            "physicalLocation": physical(&l.location, root),
                            "message": {"text": l.message},
                        })
                    })
                    .collect();
            }
            result
        })
        .collect();
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "retrylint",
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/retrylint/retrylint",
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

/// Renders the SARIF log (pretty-printed, trailing newline).
pub fn render(diags: &[Diagnostic], root: &Path) -> String {
    let mut s = serde_json::to_string_pretty(&log(diags, root)).expect("serialisable");
    s.push('\n');
    s
}
