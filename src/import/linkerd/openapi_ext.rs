//! `x-linkerd-retryable` and `x-linkerd-timeout` on OpenAPI operations: the vendor
//! extensions `linkerd profile --open-api` reads into the `ServiceProfile` route it
//! writes for each operation (`retry-configs.md` §5.2 notes; LD-OA: linkerd2
//! `pkg/profiles/openapi.go` `MkRouteSpec`, linkerd/linkerd2 PR #4051).
//!
//! What Linkerd does with them, and so what retrylint reads (a `mesh` layer, platform
//! Linkerd, bound to the operation that carries them, located at the extension):
//! - `x-linkerd-retryable` is read with go-openapi's `GetBool`: only a boolean counts
//!   (the YAML 1.1 spellings `yes`/`on` included, as `sigs.k8s.io/yaml` reads them);
//!   a quoted `"true"` or a number is ignored, and the route is not retryable (RL017).
//!   `true` is the route's `isRetryable: true`: the proxy retries its failures with
//!   no per-request limit, within the service's retry budget (the destination
//!   controller's default: ratio 0.2, at least 10 retries/s, ttl 10 s), whatever
//!   the method: a retried POST without a key is RL201, as for a `ServiceProfile`.
//! - Failures: `linkerd profile --open-api` writes one response class per declared
//!   status, `isFailure: status >= 500`, and the proxy counts any other 5xx as a
//!   failure too, so every 5xx is retried (`retry_on: [5xx]`).
//! - `x-linkerd-timeout` is read with `GetString` (a number is ignored, RL017) and
//!   becomes the route `timeout`, which covers all tries: the v1 `deadline`. A
//!   string that is no Go duration fails `linkerd`'s ServiceProfile validation
//!   (`pkg/profiles/profiles.go` `Validate`): RL017, and no deadline is read.
//! - Linkerd reads them on operations only: on a path item or at the root they do
//!   nothing (RL017).
//! - A document that a Linkerd `ServiceProfile` of the run already governs is not
//!   read for them: the profile is what the proxy runs (generated from these
//!   extensions, or written by hand over them).
//!
//! Decisions as for `ServiceProfile` routes (case README Q12 to Q14): no `attempts`
//! (RL302 reports the missing per-request bound), no backoff, no deadline without
//! `x-linkerd-timeout`.

use crate::diagnostic::Diagnostic;
use crate::import::gateway_api::build::{note, sp};
use crate::import::{duration, rl017_ineffective_setting, OriginNote, Platform};
use crate::openapi::model::{Document, Operation};
use crate::policy::model::{
    ImportedFrom, Layer, OperationEntry, PolicyFile, RetryBudget, Settings, Signal,
};
use crate::policy::selector::Selector;
use crate::source::refs::At;
use crate::source::tree::{Kind, NodeId, Tree};
use std::collections::HashSet;

/// The extension that marks an operation retryable.
pub const RETRYABLE: &str = "x-linkerd-retryable";
/// The extension that sets an operation's route timeout.
pub const TIMEOUT: &str = "x-linkerd-timeout";

const SOURCE: &str = "linkerd2 pkg/profiles/openapi.go; retry-configs.md §5.2";

/// What the extensions of a run's specs amount to.
#[derive(Debug, Default)]
pub struct Extensions {
    /// One synthetic mesh policy per document whose operations carry the extensions
    /// (an entry per such operation).
    pub policies: Vec<PolicyFile>,
    /// The notes on Linkerd's defaults at the extensions.
    pub notes: Vec<OriginNote>,
    /// RL017 for values Linkerd ignores or rejects, and for extensions outside an
    /// operation.
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads the extensions of `documents`; a document that one of the `bound` policies
/// imported from a Linkerd `ServiceProfile` governs is skipped.
pub fn read(documents: &[Document], bound: &[PolicyFile]) -> Extensions {
    let mut out = Extensions::default();
    for doc in documents {
        let path = &doc.doc.file.path;
        let covered = bound.iter().any(|p| {
            p.imported.as_ref().is_some_and(|imp| {
                imp.source.starts_with(&format!(
                    "{} ServiceProfile",
                    Platform::Linkerd.display_name()
                )) && imp.governs.contains(path)
            })
        });
        if covered {
            continue;
        }
        if let Ok(tree) = &doc.doc.tree {
            if let Some(root) = tree.root() {
                out.diagnostics.extend(misplaced(
                    &At::new(&doc.doc, root),
                    tree,
                    root,
                    "the document root",
                ));
            }
        }
        let mut items: HashSet<(std::path::PathBuf, NodeId)> = HashSet::new();
        let mut entries: Vec<OperationEntry> = Vec::new();
        for op in &doc.operations {
            let Some(tree) = op.at.tree() else { continue };
            if let Some(item) = tree.parent(op.at.node) {
                if items.insert((op.at.doc.file.path.clone(), item)) {
                    out.diagnostics.extend(
                        misplaced(&At::new(&op.at.doc, item), tree, item, "a path item")
                            .into_iter()
                            .map(|d| {
                                d.with_operations_in([(
                                    Some(doc.doc.file.clone()),
                                    op.path.clone(),
                                )])
                            }),
                    );
                }
            }
            let mut diags = Vec::new();
            if let Some((entry, notes)) = operation(op, tree, &mut diags) {
                entries.push(entry);
                out.notes.extend(notes);
            }
            out.diagnostics.extend(
                diags
                    .into_iter()
                    .map(|d| d.with_operations_in([(Some(doc.doc.file.clone()), op.display())])),
            );
        }
        let Some(first) = entries.first().map(|e| e.at.clone()) else {
            continue;
        };
        out.policies.push(PolicyFile {
            doc: doc.doc.clone(),
            at: first.clone(),
            version: None,
            spec: Vec::new(),
            layer: Some(sp(Layer::Mesh, &first)),
            defaults: None,
            operations: entries,
            ignore: Vec::new(),
            imported: Some(ImportedFrom {
                source: format!(
                    "{} OpenAPI extensions ({RETRYABLE}, {TIMEOUT}) of {}",
                    Platform::Linkerd.display_name(),
                    doc.doc.file.display
                ),
                platform: Platform::Linkerd,
                governs: vec![path.clone()],
                grpc: false,
                also_called: Vec::new(),
                variant: None,
            }),
        });
    }
    out
}

/// RL017 for the extensions written on a mapping that is no operation.
fn misplaced(at_map: &At, tree: &Tree, map: NodeId, what: &str) -> Vec<Diagnostic> {
    if tree.kind(map) != Kind::Map {
        return Vec::new();
    }
    [RETRYABLE, TIMEOUT]
        .into_iter()
        .filter_map(|ext| {
            let (k, _) = tree.get_entry(map, ext)?;
            Some(rl017_ineffective_setting::diagnostic(
                &At::new(&at_map.doc, k),
                format!("`{ext}` on {what} does nothing: `linkerd profile --open-api` reads it only on operations"),
                "not on an operation",
                format!("move `{ext}` into each operation (`get:`, `post:`, ...) it should apply to"),
            ))
        })
        .collect()
}

/// A YAML 1.1 boolean as `sigs.k8s.io/yaml` reads a plain scalar (`yes`, `on`,
/// `true`, ...), or a core-schema boolean.
fn yaml11_bool(tree: &Tree, n: NodeId) -> Option<bool> {
    if let Some(b) = tree.as_bool(n) {
        return Some(b);
    }
    if !tree.is_plain(n) || tree.is_json() {
        return None;
    }
    match tree.scalar(n)? {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => Some(true),
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => Some(false),
        _ => None,
    }
}

/// The entry and notes of one operation carrying an extension; `None` without one.
fn operation(
    op: &Operation,
    tree: &Tree,
    diags: &mut Vec<Diagnostic>,
) -> Option<(OperationEntry, Vec<OriginNote>)> {
    if tree.kind(op.at.node) != Kind::Map {
        return None;
    }
    let retryable = tree.get(op.at.node, RETRYABLE);
    let timeout = tree.get(op.at.node, TIMEOUT);
    let first = retryable.or(timeout)?;
    let doc = &op.at.doc;
    let at = |n| At::new(doc, n);
    let entry_at = at(first);
    let mut s = Settings::empty(entry_at.clone());
    let mut notes = Vec::new();
    // The value as written (quotes included), for messages.
    let text = |n: NodeId| {
        tree.text()
            .get(tree.span(n))
            .or_else(|| tree.scalar(n))
            .unwrap_or("")
            .to_string()
    };

    let retry = match retryable {
        None => false,
        Some(n) => match yaml11_bool(tree, n) {
            Some(b) => b,
            None => {
                diags.push(rl017_ineffective_setting::diagnostic(
                    &at(n),
                    format!("`{RETRYABLE}: {}` is not a boolean, so Linkerd does not make this route retryable", text(n)),
                    "not a boolean",
                    format!("`linkerd profile --open-api` reads only a boolean here (go-openapi `GetBool`); write `{RETRYABLE}: true` without quotes, or remove it"),
                ));
                false
            }
        },
    };
    let retry_at = at(retryable.unwrap_or(first));
    s.retry = Some(sp(retry, &retry_at));
    if retry {
        s.retry_on = Some(sp(vec![sp(Signal::Class(5), &retry_at)], &retry_at));
        s.budget = Some(Box::new(sp(
            RetryBudget::Ratio {
                ratio: 0.2,
                min_per_second: Some(10.0),
                min_concurrent: None,
                window_ms: Some(10_000.0),
            },
            &retry_at,
        )));
        notes.push(note(&retry_at, format!("`{RETRYABLE}: true` becomes the route's `isRetryable: true` in the ServiceProfile `linkerd profile --open-api` writes: the Linkerd proxy retries every 5xx of this operation (a response class `isFailure: status >= 500` per declared status, and 5xx by default), whatever its method, with no per-request limit, bounded only by the retry budget the destination controller adds (ratio 0.2, at least 10 retries/s, ttl 10 s); no backoff is documented; a request that hits the route timeout is not retried ({SOURCE})")));
    }
    if let Some(n) = timeout {
        let value = text(n);
        if !matches!(tree.kind(n), Kind::Str) {
            diags.push(rl017_ineffective_setting::diagnostic(
                &at(n),
                format!("`{TIMEOUT}: {value}` is not a string, so Linkerd ignores it and the route has no timeout"),
                "not a duration string",
                format!("`linkerd profile --open-api` reads only a string here (go-openapi `GetString`); write a Go duration with its unit, `{TIMEOUT}: {value}s`"),
            ));
        } else {
            match duration::parse_go_bounded(&value) {
                Some(ms) if ms > 0.0 => s.deadline = Some(sp(ms, &at(n))),
                Some(_) => {}
                None => diags.push(rl017_ineffective_setting::diagnostic(
                    &at(n),
                    format!("`{TIMEOUT}: {value}` is not a Go duration, so the ServiceProfile written from it fails Linkerd's validation"),
                    "invalid duration",
                    "write a duration with its unit, such as `500ms` or `2s` (Go `time.ParseDuration`, as linkerd2 `pkg/profiles/profiles.go` `Validate` checks it); retrylint reads no timeout".into(),
                )),
            }
        }
    }
    if retry && s.deadline.is_none() {
        notes.push(note(&retry_at, format!("no valid `{TIMEOUT}`: the ServiceProfile route has no timeout, and the destination controller sets none, so no deadline (retry-configs.md §5.2)")));
    }
    let text = op.display();
    Some((
        OperationEntry {
            selector: Selector::parse(&text).ok(),
            text,
            at: entry_at,
            settings: s,
        },
        notes,
    ))
}
