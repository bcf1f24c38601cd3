//! `--format sarif`: SARIF 2.1.0 for GitHub code scanning.
//!
//! Plain serde (`serde_json::json!`) rather than the `serde-sarif` crate: the
//! architecture keeps machine formats as plain serde, we need a small subset of the
//! schema, and `serde-sarif` brings a builder macro crate and the whole generated
//! schema for it. The official validator (`scripts/validate-sarif.sh`) checks the output.
//!
//! Every registry rule is listed in `tool.driver.rules` (so `ruleIndex` is the rule's
//! position in the registry) with its document from `rules/` as `help`. Result URIs
//! are relative to the project root under `uriBaseId: "%SRCROOT%"`, percent-encoded
//! as RFC 3986 URI references (a file outside the root gets an absolute `file:` URI);
//! regions use Unicode code point columns (end exclusive, as SARIF wants);
//! `partialFingerprints` hash rule, file and JSON Pointer, never line numbers.
//!
//! The log stays within GitHub code scanning's upload limits ([`Limits`]): when a run
//! would exceed one, the most severe results are kept (then the first in output
//! order), a result lists at most the allowed related locations and says how many
//! more there are, and what was left out is said in
//! `invocations[0].toolExecutionNotifications` (the run itself still succeeded).

pub use super::sarif_limits::Limits;

use super::sarif_limits::{gzip_len, keep_order};
use super::{plural, sentence};
use crate::diagnostic::{Diagnostic, Location, Severity};
use crate::rules::{docs, REGISTRY};
use percent_encoding::{percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde::Serialize;
use serde_json::{json, Value};
use std::path::{Component, Path};

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

/// Bytes kept as they are in a URI path segment: RFC 3986 `unreserved`
/// (`ALPHA / DIGIT / "-" / "." / "_" / "~"`); every other byte is percent-encoded.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

fn os_bytes(s: &std::ffi::OsStr) -> std::borrow::Cow<'_, [u8]> {
    #[cfg(unix)]
    {
        std::borrow::Cow::Borrowed(std::os::unix::ffi::OsStrExt::as_bytes(s))
    }
    #[cfg(not(unix))]
    {
        match s.to_string_lossy() {
            std::borrow::Cow::Borrowed(t) => std::borrow::Cow::Borrowed(t.as_bytes()),
            std::borrow::Cow::Owned(t) => std::borrow::Cow::Owned(t.into_bytes()),
        }
    }
}

/// `path`'s components as a percent-encoded, `/`-separated URI path (RFC 3986 §3.3):
/// `team apis/orders #2.yaml` -> `team%20apis/orders%20%232.yaml`. Names that are
/// not UTF-8 are encoded byte by byte.
pub fn uri_path(path: &Path) -> String {
    let mut segments = Vec::new();
    for c in path.components() {
        match c {
            Component::Normal(name) => {
                segments.push(percent_encode(&os_bytes(name), SEGMENT).to_string());
            }
            Component::ParentDir => segments.push("..".to_string()),
            Component::CurDir => {}
            // A Windows drive (`C:`) stays as it is, as in `file:///C:/...`.
            Component::Prefix(p) => {
                segments.push(p.as_os_str().to_string_lossy().replace('\\', "/"));
            }
            Component::RootDir => {}
        }
    }
    segments.join("/")
}

/// A SARIF `artifactLocation`: the root-relative URI reference under
/// `uriBaseId: "%SRCROOT%"`, or an absolute `file:` URI for a file outside the root.
pub fn artifact_location(file: &Path, root: &Path) -> Value {
    match file.strip_prefix(root) {
        Ok(rel) => json!({"uri": uri_path(rel), "uriBaseId": "%SRCROOT%"}),
        Err(_) => json!({"uri": format!("file:///{}", uri_path(file))}),
    }
}

fn physical(loc: &Location, root: &Path) -> Value {
    json!({
        "artifactLocation": artifact_location(&loc.file.path, root),
        "region": region(loc),
    })
}

fn rule_descriptor(meta: &crate::rules::RuleMeta, max_tags: usize) -> Value {
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
        "properties": {"tags": tags(meta).into_iter().take(max_tags).collect::<Vec<_>>()},
    });
    if let Some(d) = doc {
        rule["help"] = json!({"text": d.body, "markdown": d.body});
        rule["helpUri"] = json!(d.url());
    } else {
        rule["help"] = json!({"text": sentence(meta.summary)});
    }
    rule
}

/// A rule's `properties.tags`: the readiness question it serves.
fn tags(meta: &crate::rules::RuleMeta) -> Vec<&'static str> {
    vec![meta.question.as_str()]
}

/// A rendered SARIF log and what it left out.
#[derive(Debug, Clone)]
pub struct Sarif {
    /// The log, pretty-printed, with a trailing newline.
    pub text: String,
    /// What was left out to stay within the limits, one sentence each (the same
    /// sentences as the run's `toolExecutionNotifications`); empty when all fit.
    pub omitted: Vec<String>,
}

/// Renders the SARIF log within GitHub's limits (pretty-printed, trailing newline).
pub fn render(diags: &[Diagnostic], root: &Path) -> String {
    emit(diags, root, &Limits::GITHUB).text
}

#[derive(Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    tool: Value,
    invocations: [Value; 1],
    column_kind: &'static str,
    results: Vec<&'a Value>,
}

/// `3 errors, 1 warning, 0 infos` for the findings at `indices`.
fn tally(diags: &[Diagnostic], indices: impl IntoIterator<Item = usize>) -> String {
    let c = super::Counts::of_iter(indices.into_iter().map(|i| &diags[i]));
    format!(
        "{}, {}, {}",
        plural(c.errors, "error"),
        plural(c.warnings, "warning"),
        plural(c.infos, "info")
    )
}

/// The result's `message.text`: the message, a note when related locations were left
/// out, and the help.
fn message_text(d: &Diagnostic, max_related: usize) -> String {
    let mut text = sentence(&d.message);
    let total = d.labels.len();
    if total > max_related {
        let more = total - max_related;
        if d.operations.len() == total {
            let (ops, verb) = if more == 1 {
                ("operation", "shares")
            } else {
                ("operations", "share")
            };
            text.push_str(&format!(
                " {max_related} of the {total} operations are listed as related locations; \
                 {more} more {ops} {verb} this finding (`--format json` lists all {total})."
            ));
        } else {
            text.push_str(&format!(
                " {max_related} of {total} related locations are listed (`--format json` \
                 lists all {total})."
            ));
        }
    }
    if let Some(h) = &d.help {
        text.push_str(" Help: ");
        text.push_str(&sentence(h));
    }
    text
}

/// One result; `ruleIndex` is the rule's registry position (re-set when not every
/// rule is listed).
fn result(d: &Diagnostic, fingerprint: &str, root: &Path, limits: &Limits) -> Value {
    let mut result = json!({
        "ruleId": d.code,
        "level": level(d.severity),
        "message": {"text": message_text(d, limits.related_locations_per_result)},
        "locations": [{"physicalLocation": physical(&d.primary.location, root)}],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
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
    if !d.labels.is_empty() && limits.related_locations_per_result > 0 {
        result["relatedLocations"] = d
            .labels
            .iter()
            .take(limits.related_locations_per_result)
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
}

/// Which findings a run holds: those in keep order (most severe first) that fit the
/// results-per-run and rules-per-run limits, and those left out for each.
struct Selection {
    /// Indices into the diagnostics, most severe first.
    kept: Vec<usize>,
    /// Left out for the results-per-run limit.
    over_results: Vec<usize>,
    /// Left out because their rule could not be listed (rules-per-run limit).
    over_rules: Vec<usize>,
}

fn select(diags: &[Diagnostic], rule_of: &[Option<usize>], limits: &Limits) -> Selection {
    let list_all = REGISTRY.len() <= limits.rules_per_run;
    let mut listed = std::collections::BTreeSet::new();
    let mut s = Selection {
        kept: Vec::new(),
        over_results: Vec::new(),
        over_rules: Vec::new(),
    };
    for i in keep_order(diags) {
        if s.kept.len() >= limits.results_per_run {
            s.over_results.push(i);
            continue;
        }
        match rule_of[i] {
            Some(r) if !list_all && !listed.contains(&r) => {
                if listed.len() >= limits.rules_per_run {
                    s.over_rules.push(i);
                    continue;
                }
                listed.insert(r);
            }
            _ => {}
        }
        s.kept.push(i);
    }
    s
}

/// The SARIF log of `diags` within `limits`: paths relative to `root`.
pub fn emit(diags: &[Diagnostic], root: &Path, limits: &Limits) -> Sarif {
    // Fingerprints over the whole list, so leaving findings out never changes those kept.
    let prints = super::fingerprints(diags, root);
    let rule_of: Vec<Option<usize>> = diags
        .iter()
        .map(|d| REGISTRY.iter().position(|r| r.meta.code == d.code))
        .collect();
    let descriptors: Vec<Value> = REGISTRY
        .iter()
        .map(|r| rule_descriptor(r.meta, limits.tags_per_rule))
        .collect();
    let list_all = REGISTRY.len() <= limits.rules_per_run;
    let selection = select(diags, &rule_of, limits);
    let mut results: Vec<Option<Value>> = vec![None; diags.len()];
    for &i in &selection.kept {
        results[i] = Some(result(&diags[i], &prints[i], root, limits));
    }

    // Notes that do not depend on how many results the size limit leaves.
    let mut fixed_notes = Vec::new();
    let cut_tags = REGISTRY
        .iter()
        .filter(|r| tags(r.meta).len() > limits.tags_per_rule)
        .count();
    if cut_tags > 0 {
        fixed_notes.push(format!(
            "{} only the first {} tags (GitHub code scanning accepts at most {} per rule).",
            if cut_tags == 1 {
                "1 rule lists".to_string()
            } else {
                format!("{cut_tags} rules list")
            },
            limits.tags_per_rule,
            limits.tags_per_rule
        ));
    }
    if !selection.over_results.is_empty() {
        fixed_notes.push(format!(
            "Left out {} of {} results ({}) to stay within GitHub code scanning's limit of {} \
             results per run; the most severe were kept (`--format json` lists them all).",
            selection.over_results.len(),
            diags.len(),
            tally(diags, selection.over_results.iter().copied()),
            limits.results_per_run
        ));
    }
    if !selection.over_rules.is_empty() {
        fixed_notes.push(format!(
            "Left out {} ({}) whose rules could not be listed within GitHub code scanning's \
             limit of {} rules per run (`--format json` lists them all).",
            plural(selection.over_rules.len(), "result"),
            tally(diags, selection.over_rules.iter().copied()),
            limits.rules_per_run
        ));
    }

    // Drop the last kept (least severe) results until the gzipped log fits.
    let mut keep = selection.kept.len();
    // The gzipped size of the log without results (rules and notes), once measured.
    let mut empty_size: Option<u64> = None;
    loop {
        let notes = notes_for(diags, &selection, keep, &fixed_notes, limits);
        let text = assemble(
            &results,
            &selection.kept[..keep],
            &rule_of,
            &descriptors,
            list_all,
            &notes,
        );
        let size = gzip_len(text.as_bytes());
        if size <= limits.gzip_bytes || keep == 0 {
            return Sarif {
                text,
                omitted: notes,
            };
        }
        // The size is close to linear in the number of results: a fixed part (rules,
        // notes) plus about the same per result. Aim just under the limit.
        let fixed = *empty_size.get_or_insert_with(|| {
            let notes = notes_for(diags, &selection, 0, &fixed_notes, limits);
            let empty = assemble(&results, &[], &rule_of, &descriptors, list_all, &notes);
            gzip_len(empty.as_bytes())
        });
        let room = limits.gzip_bytes.saturating_sub(fixed) as f64;
        let per_result = size.saturating_sub(fixed).max(1) as f64 / keep as f64;
        let estimate = (room / per_result * 0.99) as usize;
        keep = estimate.min(keep - 1);
    }
}

/// The notes for a run that keeps the first `keep` of the selected results.
fn notes_for(
    diags: &[Diagnostic],
    selection: &Selection,
    keep: usize,
    fixed_notes: &[String],
    limits: &Limits,
) -> Vec<String> {
    let mut notes = fixed_notes.to_vec();
    let truncated = selection.kept[..keep]
        .iter()
        .filter(|&&i| diags[i].labels.len() > limits.related_locations_per_result)
        .count();
    if truncated > 0 {
        let (who, whose) = if truncated == 1 {
            ("1 result keeps".to_string(), "its message says")
        } else {
            (format!("{truncated} results keep"), "each message says")
        };
        notes.push(format!(
            "{who} only {} related locations (GitHub code scanning's limit per result); \
             {whose} how many more there are.",
            limits.related_locations_per_result
        ));
    }
    let over_size = &selection.kept[keep..];
    if !over_size.is_empty() {
        notes.push(format!(
            "Left out {} ({}), the least severe, so the file stays within GitHub code \
             scanning's upload limit of {} bytes gzipped (`--format json` lists them all).",
            plural(over_size.len(), "result"),
            tally(diags, over_size.iter().copied()),
            limits.gzip_bytes
        ));
    }
    notes
}

/// Serialises one log holding the results at `kept` (in output order).
fn assemble(
    results: &[Option<Value>],
    kept: &[usize],
    rule_of: &[Option<usize>],
    descriptors: &[Value],
    list_all: bool,
    notes: &[String],
) -> String {
    let mut in_order = kept.to_vec();
    in_order.sort_unstable();
    // Registry index -> index in the listed rules.
    let listed: Vec<usize> = if list_all {
        (0..descriptors.len()).collect()
    } else {
        let used: std::collections::BTreeSet<usize> =
            in_order.iter().filter_map(|&i| rule_of[i]).collect();
        used.into_iter().collect()
    };
    let mut with_index: Vec<Value> = Vec::new();
    let mut refs: Vec<&Value> = Vec::with_capacity(in_order.len());
    // ruleIndex differs from the registry position only when not every rule is listed;
    // then the (few) kept results are copied with their own index.
    if list_all {
        for &i in &in_order {
            if let Some(v) = &results[i] {
                refs.push(v);
            }
        }
    } else {
        for &i in &in_order {
            if let Some(v) = &results[i] {
                let mut v = v.clone();
                if let Some(pos) = rule_of[i].and_then(|r| listed.iter().position(|&l| l == r)) {
                    v["ruleIndex"] = json!(pos);
                }
                with_index.push(v);
            }
        }
        refs = with_index.iter().collect();
    }
    let mut invocation = json!({"executionSuccessful": true});
    if !notes.is_empty() {
        invocation["toolExecutionNotifications"] = notes
            .iter()
            .map(|n| json!({"level": "warning", "message": {"text": n}}))
            .collect();
    }
    let log = Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: [Run {
            tool: json!({"driver": {
                "name": "retrylint",
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/retrylint/retrylint",
                "rules": listed.iter().map(|&r| &descriptors[r]).collect::<Vec<_>>(),
            }}),
            invocations: [invocation],
            column_kind: "unicodeCodePoints",
            results: refs,
        }],
    };
    let mut s = serde_json::to_string_pretty(&log).expect("serialisable");
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Diagnostic;
    use crate::source::SourceFile;
    use std::path::PathBuf;
    use std::sync::Arc;

    fn meta(code: &str) -> &'static crate::rules::RuleMeta {
        REGISTRY.iter().find(|r| r.meta.code == code).unwrap().meta
    }

    fn file() -> Arc<SourceFile> {
        let text = "openapi: 3.0.3\n".repeat(40);
        Arc::new(SourceFile::new(
            PathBuf::from("/project/api/openapi.yaml"),
            "api/openapi.yaml".to_string(),
            &text,
        ))
    }

    fn at(file: &Arc<SourceFile>, line: usize) -> Location {
        let start = (line - 1) * 15;
        Location {
            file: file.clone(),
            span: start..start + 7,
            pointer: format!("/line{line}"),
        }
    }

    /// Findings in output order with the given severities (`e`, `w`, `i`).
    fn findings(severities: &str) -> Vec<Diagnostic> {
        let f = file();
        severities
            .chars()
            .enumerate()
            .map(|(n, s)| {
                let code = match s {
                    'e' => "RL201",
                    'w' => "RL501",
                    _ => "RL504",
                };
                Diagnostic::new(meta(code), format!("finding {n}"), at(&f, n + 1), "here")
                    .with_help("fix it")
            })
            .collect()
    }

    fn parse(s: &Sarif) -> Value {
        serde_json::from_str(&s.text).unwrap()
    }

    fn messages(v: &Value) -> Vec<String> {
        v["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["message"]["text"].as_str().unwrap().to_string())
            .collect()
    }

    fn notifications(v: &Value) -> Vec<String> {
        v["runs"][0]["invocations"][0]["toolExecutionNotifications"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|n| n["message"]["text"].as_str().unwrap().to_string())
                    .collect()
            })
            .unwrap_or_default()
    }

    fn root() -> PathBuf {
        PathBuf::from("/project")
    }

    #[test]
    fn within_the_limits_nothing_is_left_out() {
        let diags = findings("iewie");
        let s = emit(&diags, &root(), &Limits::GITHUB);
        assert!(s.omitted.is_empty());
        let v = parse(&s);
        assert_eq!(messages(&v).len(), 5);
        assert_eq!(v["runs"][0]["invocations"][0]["executionSuccessful"], true);
        assert!(notifications(&v).is_empty());
    }

    #[test]
    fn over_the_result_limit_the_most_severe_are_kept_in_output_order() {
        let diags = findings("iewiei");
        let limits = Limits {
            results_per_run: 3,
            ..Limits::GITHUB
        };
        let s = emit(&diags, &root(), &limits);
        let v = parse(&s);
        // Errors 1 and 4, then the warning 2; kept in output order.
        assert_eq!(
            messages(&v)
                .iter()
                .map(|m| m.split('.').next().unwrap().to_string())
                .collect::<Vec<_>>(),
            ["Finding 1", "Finding 2", "Finding 4"]
        );
        assert_eq!(v["runs"][0]["invocations"][0]["executionSuccessful"], true);
        assert_eq!(s.omitted.len(), 1, "{:?}", s.omitted);
        assert!(
            s.omitted[0].starts_with("Left out 3 of 6 results (0 errors, 0 warnings, 3 infos)"),
            "{}",
            s.omitted[0]
        );
        assert_eq!(notifications(&v), s.omitted);
        // Fingerprints do not depend on what was left out.
        let all = parse(&emit(&diags, &root(), &Limits::GITHUB));
        let print = |v: &Value, i: usize| {
            v["runs"][0]["results"][i]["partialFingerprints"][FINGERPRINT_KEY].clone()
        };
        assert_eq!(print(&v, 0), print(&all, 1));
        assert_eq!(print(&v, 2), print(&all, 4));
    }

    #[test]
    fn equal_severities_keep_the_first_in_output_order() {
        let diags = findings("wwww");
        let limits = Limits {
            results_per_run: 2,
            ..Limits::GITHUB
        };
        let v = parse(&emit(&diags, &root(), &limits));
        let m = messages(&v);
        assert!(m[0].starts_with("Finding 0.") && m[1].starts_with("Finding 1."));
    }

    #[test]
    fn related_locations_are_cut_and_the_message_says_how_many_more() {
        let f = file();
        let mut d = Diagnostic::new(meta("RL501"), "shared", at(&f, 1), "here");
        let ops: Vec<String> = (0..5).map(|i| format!("GET /items{i}")).collect();
        for (i, op) in ops.iter().enumerate() {
            d = d.with_label(at(&f, i + 2), format!("used by `{op}`"));
        }
        let d = d.with_operations(ops).with_help("declare it");
        let limits = Limits {
            related_locations_per_result: 2,
            ..Limits::GITHUB
        };
        let s = emit(std::slice::from_ref(&d), &root(), &limits);
        let v = parse(&s);
        let r = &v["runs"][0]["results"][0];
        let related = r["relatedLocations"].as_array().unwrap();
        assert_eq!(related.len(), 2);
        assert_eq!(related[1]["id"], 2);
        assert_eq!(related[1]["message"]["text"], "used by `GET /items1`");
        assert_eq!(
            r["message"]["text"],
            "Shared. 2 of the 5 operations are listed as related locations; 3 more operations \
             share this finding (`--format json` lists all 5). Help: Declare it."
        );
        assert_eq!(
            s.omitted,
            [
                "1 result keeps only 2 related locations (GitHub code scanning's limit per \
              result); its message says how many more there are."
            ]
        );
        let four = Limits {
            related_locations_per_result: 4,
            ..Limits::GITHUB
        };
        let v = parse(&emit(std::slice::from_ref(&d), &root(), &four));
        assert!(v["runs"][0]["results"][0]["message"]["text"]
            .as_str()
            .unwrap()
            .contains("; 1 more operation shares this finding"));
        // Labels that are not one per operation are counted as locations.
        let d2 = Diagnostic::new(meta("RL501"), "other", at(&f, 1), "here")
            .with_label(at(&f, 2), "a")
            .with_label(at(&f, 3), "b")
            .with_label(at(&f, 4), "c");
        let v = parse(&emit(&[d2], &root(), &limits));
        assert_eq!(
            v["runs"][0]["results"][0]["message"]["text"],
            "Other. 2 of 3 related locations are listed (`--format json` lists all 3)."
        );
    }

    #[test]
    fn over_the_rule_limit_only_the_rules_of_kept_results_are_listed() {
        let diags = findings("iwe");
        let limits = Limits {
            rules_per_run: 2,
            ..Limits::GITHUB
        };
        let s = emit(&diags, &root(), &limits);
        let v = parse(&s);
        let rules = v["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
        assert_eq!(rules.len(), 2);
        let results = v["runs"][0]["results"].as_array().unwrap();
        assert_eq!(results.len(), 2);
        for r in results {
            let i = r["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(rules[i]["id"], r["ruleId"]);
        }
        assert!(results.iter().all(|r| r["ruleId"] != "RL504"));
        assert!(
            s.omitted[0].starts_with("Left out 1 result (0 errors, 0 warnings, 1 info)"),
            "{:?}",
            s.omitted
        );
    }

    #[test]
    fn tags_are_cut_to_the_limit() {
        let limits = Limits {
            tags_per_rule: 0,
            ..Limits::GITHUB
        };
        let s = emit(&[], &root(), &limits);
        let v = parse(&s);
        let rules = v["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
        assert!(rules
            .iter()
            .all(|r| r["properties"]["tags"].as_array().unwrap().is_empty()));
        assert_eq!(
            s.omitted,
            [format!(
                "{} rules list only the first 0 tags (GitHub code scanning accepts at most 0 per rule).",
                REGISTRY.len()
            )]
        );
    }

    #[test]
    fn over_the_gzip_limit_the_least_severe_are_dropped_until_it_fits() {
        // Messages that do not compress away.
        let f = file();
        let diags: Vec<Diagnostic> = (0..300)
            .map(|n| {
                let code = ["RL504", "RL501", "RL201"][n % 3];
                let noise: String = (0..40)
                    .map(|k| format!("{:x}", crate::report::fnv1a64(&[n as u8, k], n as u64)))
                    .collect();
                Diagnostic::new(meta(code), format!("finding {n} {noise}"), at(&f, 1), "x")
            })
            .collect();
        let full = emit(&diags, &root(), &Limits::GITHUB);
        let full_size = gzip_len(full.text.as_bytes());
        let empty_size = gzip_len(emit(&[], &root(), &Limits::GITHUB).text.as_bytes());
        // Room for about three quarters of the results.
        let limits = Limits {
            gzip_bytes: empty_size + (full_size - empty_size) * 3 / 4,
            ..Limits::GITHUB
        };
        let s = emit(&diags, &root(), &limits);
        assert!(gzip_len(s.text.as_bytes()) <= limits.gzip_bytes);
        let v = parse(&s);
        let results = v["runs"][0]["results"].as_array().unwrap();
        assert!(
            results.len() < 300 && results.len() > 200,
            "{}",
            results.len()
        );
        // Every error and warning is kept; only infos went.
        let count = |level: &str| results.iter().filter(|r| r["level"] == level).count();
        assert_eq!((count("error"), count("warning")), (100, 100));
        assert_eq!(s.omitted.len(), 1);
        assert!(
            s.omitted[0].contains("infos), the least severe, so the file stays within"),
            "{}",
            s.omitted[0]
        );
        assert_eq!(notifications(&v), s.omitted);
    }

    #[test]
    fn uris_are_percent_encoded_rfc3986_references() {
        assert_eq!(
            uri_path(Path::new("26-sarif-uri/team apis/orders #2 50% ü.yaml")),
            "26-sarif-uri/team%20apis/orders%20%232%2050%25%20%C3%BC.yaml"
        );
        assert_eq!(
            uri_path(Path::new("a-b_c.d~e/f?g[h]:i@j+k")),
            "a-b_c.d~e/f%3Fg%5Bh%5D%3Ai%40j%2Bk"
        );
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let raw = std::ffi::OsStr::from_bytes(b"x\xff.yaml");
            assert_eq!(uri_path(Path::new(raw)), "x%FF.yaml");
        }
        assert_eq!(
            artifact_location(Path::new("/project/a b/c.yaml"), Path::new("/project")),
            json!({"uri": "a%20b/c.yaml", "uriBaseId": "%SRCROOT%"})
        );
        #[cfg(unix)]
        assert_eq!(
            artifact_location(Path::new("/elsewhere/c #1.yaml"), Path::new("/project")),
            json!({"uri": "file:///elsewhere/c%20%231.yaml"})
        );
    }
}
