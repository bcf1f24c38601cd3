//! What one side of a diff says about each operation: the retry contract of the spec
//! (key header, key errors, Retry-After), the status endpoint, and each layer's
//! settings, each with where it is written. Read from the joined model and the
//! readiness matrix of that side, so a diff sees what `check` and `readiness` see.

use crate::analysis::{EffectivePolicy, Field};
use crate::check::Analyzed;
use crate::diagnostic::Location;
use crate::openapi::model::{Document, Operation, StatusKey};
use crate::readiness::Matrix;
use crate::source::refs::At;
use crate::source::SourceFile;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// A place in a file, ready to print.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Pos {
    /// The path as shown (relative to the current directory; `REF:path` for a git
    /// revision's file).
    pub file: String,
    /// The path relative to the side's root, `/`-separated (SARIF, GitHub).
    pub path: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column (Unicode scalar values).
    pub column: u32,
    /// The text of that line (for the annotated human output).
    #[serde(skip)]
    pub excerpt: String,
}

/// How a side names its files: relative to `root`, and shown with `prefix` (`REF:`)
/// when it is a materialised git revision.
#[derive(Debug, Clone)]
pub struct Naming {
    /// The side's root (canonical).
    pub root: PathBuf,
    /// `Some("HEAD~1")`: files are shown as `HEAD~1:openapi.yaml`.
    pub revision: Option<String>,
}

impl Naming {
    /// The file's path relative to the root, `/`-separated (its display path when
    /// outside the root).
    pub fn relative(&self, file: &SourceFile) -> String {
        crate::report::root_relative_file(file, &self.root)
    }

    /// The file as shown to a reader.
    pub fn shown(&self, file: &SourceFile) -> String {
        match &self.revision {
            Some(rev) => format!("{rev}:{}", self.relative(file)),
            None => file.display.clone(),
        }
    }

    /// A location as a [`Pos`].
    pub fn pos(&self, loc: &Location) -> Pos {
        let lc = loc.file.line_col(loc.span.start);
        let excerpt = loc
            .file
            .text
            .lines()
            .nth(lc.line.saturating_sub(1) as usize)
            .unwrap_or_default()
            .to_string();
        Pos {
            file: self.shown(&loc.file),
            path: self.relative(&loc.file),
            line: lc.line,
            column: lc.column,
            excerpt,
        }
    }

    fn at(&self, at: &At) -> Pos {
        self.pos(&at.location())
    }

    fn field<T>(&self, f: &Field<T>) -> Option<Pos> {
        f.at.as_ref().map(|a| self.at(a))
    }
}

/// The idempotency-key header the spec declares.
#[derive(Debug, Clone)]
pub struct KeyFacts {
    /// Header name as written.
    pub header: String,
    /// `required: true`.
    pub required: bool,
    /// The parameter (its definition, through a `$ref`).
    pub pos: Pos,
    /// Where the operation lists it (the `$ref` itself, for a shared parameter).
    pub listed: Pos,
}

/// The client's status endpoint (`status_endpoint`).
#[derive(Debug, Clone)]
pub struct StatusFacts {
    /// The selector as written.
    pub selector: String,
    /// The `status_endpoint` value.
    pub pos: Pos,
    /// The operation it resolves to (`GET /orders/{id}`), if any.
    pub target: Option<String>,
    /// The target documents a 2xx response (it can report an outcome).
    pub reports: bool,
    /// The target operation, when it resolves.
    pub target_pos: Option<Pos>,
}

/// One layer's settings (durations in ms).
#[derive(Debug, Clone)]
pub struct LayerFacts {
    /// `client`, `gateway` or `mesh`.
    pub layer: String,
    /// Retried by this layer.
    pub retried: bool,
    /// The effective effect is non-idempotent.
    pub non_idempotent: bool,
    /// Where the layer's `retry` (else `retry_on`, else its policy file) is written.
    pub pos: Option<Pos>,
    /// `retry_on`, as written.
    pub retry_on: Vec<String>,
    /// Where `retry_on` is written.
    pub retry_on_pos: Option<Pos>,
    /// Total attempts.
    pub attempts: Option<i64>,
    /// Where `attempts` is written.
    pub attempts_pos: Option<Pos>,
    /// Jitter (`full`, `none`, ...), absent when unset.
    pub jitter: Option<String>,
    /// Where the jitter is written.
    pub jitter_pos: Option<Pos>,
    /// Deadline, ms.
    pub deadline_ms: Option<f64>,
    /// Where the deadline is written.
    pub deadline_pos: Option<Pos>,
}

/// Everything a diff compares about one operation.
#[derive(Debug, Clone)]
pub struct OpFacts {
    /// Its OpenAPI document relative to the side's root.
    pub document: String,
    /// `POST /orders`, with the path's name when the operation has several
    /// (`POST /orders [profile `prod`]`, `layers.md` "Variants and entry paths").
    pub display: String,
    /// The variants on this path (callers, profiles, entry paths), its files
    /// relative to the side's root: the paths of one operation pair with the same
    /// path on the other side first.
    pub variant: Option<String>,
    /// `operationId`.
    pub operation_id: Option<String>,
    /// Upper-case method.
    pub method: String,
    /// Path template with parameter names replaced by `{}` (`/orders/{}`).
    pub shape: String,
    /// The method key.
    pub pos: Pos,
    /// The idempotency-key header, if declared.
    pub key: Option<KeyFacts>,
    /// Other header parameters (name, position): a renamed key is looked for here.
    pub headers: Vec<(String, Pos)>,
    /// Explicit 409 and 422 responses (key errors), with their keys.
    pub key_errors: Vec<(u16, Pos)>,
    /// 429 and 503 responses declaring `Retry-After`, with the header's key.
    pub retry_after: Vec<(u16, Pos)>,
    /// The response for each of 429 and 503, if documented.
    pub throttle_responses: Vec<(u16, Pos)>,
    /// `safe`, `idempotent` or `non-idempotent` (readiness Q1).
    pub effect: String,
    /// Where a layer declares the effect (else none: from the method).
    pub effect_pos: Option<Pos>,
    /// The client's status endpoint.
    pub status: Option<StatusFacts>,
    /// Every layer that applies.
    pub layers: Vec<LayerFacts>,
    /// Product of attempts across the retrying layers.
    pub amplification: i64,
    /// Readiness verdict.
    pub verdict: String,
    /// Readiness answers missing (`Q2`...).
    pub missing: Vec<String>,
    /// Codes of the findings on it (readiness `findings`).
    pub findings: Vec<String>,
}

/// `/orders/{orderId}` -> `/orders/{}`: parameter names do not change an operation.
pub fn path_shape(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut in_param = false;
    for c in path.chars() {
        match c {
            '{' if !in_param => {
                in_param = true;
                out.push('{');
            }
            '}' if in_param => {
                in_param = false;
                out.push('}');
            }
            _ if in_param => {}
            _ => out.push(c),
        }
    }
    out
}

fn layer_facts(p: &EffectivePolicy, naming: &Naming, analyzed: &Analyzed) -> LayerFacts {
    let file_pos = p
        .policy
        .and_then(|i| analyzed.analysis.policies.get(i))
        .map(|pf| {
            naming.pos(&Location {
                file: pf.doc.file.clone(),
                span: 0..0,
                pointer: String::new(),
            })
        });
    let retry_on_pos = p.retry_on.as_ref().and_then(|f| naming.field(f));
    LayerFacts {
        layer: p.layer.as_str().to_string(),
        retried: p.is_retried(),
        non_idempotent: p.is_non_idempotent(),
        pos: naming
            .field(&p.retry)
            .or_else(|| retry_on_pos.clone())
            .or(file_pos),
        retry_on: p
            .retry_on
            .as_ref()
            .map(|r| r.value.iter().map(|s| s.value.to_string()).collect())
            .unwrap_or_default(),
        retry_on_pos,
        attempts: p.attempts.as_ref().map(|a| a.value),
        attempts_pos: p.attempts.as_ref().and_then(|f| naming.field(f)),
        jitter: p.backoff.jitter.as_ref().map(|j| {
            serde_json::to_value(j.value)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_else(|| format!("{:?}", j.value).to_ascii_lowercase())
        }),
        jitter_pos: p.backoff.jitter.as_ref().and_then(|f| naming.field(f)),
        deadline_ms: p.deadline.as_ref().map(|d| d.value),
        deadline_pos: p.deadline.as_ref().and_then(|f| naming.field(f)),
    }
}

fn reports_outcome(op: &Operation) -> bool {
    op.responses.iter().any(|r| match r.status {
        StatusKey::Code(c) => (200..300).contains(&c),
        StatusKey::Range(r) => r == 2,
        _ => false,
    })
}

fn status_facts(
    client: Option<&EffectivePolicy>,
    documents: &[Document],
    naming: &Naming,
) -> Option<StatusFacts> {
    let p = client?;
    let field = p.status_endpoint.as_ref()?;
    let pos = naming.field(field)?;
    let selector = field
        .at
        .as_ref()
        .and_then(|a| a.scalar())
        .unwrap_or_default()
        .to_string();
    let target = p
        .status_operation
        .as_ref()
        .and_then(|r| documents.get(r.document)?.operations.get(r.operation));
    Some(StatusFacts {
        selector,
        pos,
        target: target.map(Operation::display),
        reports: target.is_some_and(reports_outcome),
        target_pos: target.map(|t| naming.at(&t.key)),
    })
}

/// The facts of every operation of one side (in document order).
pub fn of(analyzed: &Analyzed, matrix: &Matrix, naming: &Naming) -> Vec<OpFacts> {
    let documents = &analyzed.documents;
    analyzed
        .analysis
        .operations
        .iter()
        .zip(&matrix.operations)
        .map(|(j, row)| {
            let op = j.resolve(documents);
            let document = naming.relative(&documents[j.document].doc.file);
            let key = row.idempotency_key.as_ref().and_then(|k| {
                let p = op.header_param(&k.header)?;
                Some(KeyFacts {
                    header: p.name.clone(),
                    required: p.required,
                    pos: naming.at(&p.at),
                    listed: naming.at(&p.listed_at),
                })
            });
            let headers = op
                .params
                .iter()
                .filter(|p| p.location == "header")
                .map(|p| (p.name.clone(), naming.at(&p.at)))
                .collect();
            let key_errors = op
                .responses
                .iter()
                .filter_map(|r| match r.status {
                    StatusKey::Code(c @ (409 | 422)) => Some((c, naming.at(&r.key))),
                    _ => None,
                })
                .collect();
            let mut retry_after = Vec::new();
            let mut throttle_responses = Vec::new();
            for code in [429, 503] {
                if let Some(r) = op.response_for(code) {
                    throttle_responses.push((code, naming.at(&r.key)));
                    if let Some(h) = r.header("Retry-After") {
                        retry_after.push((code, naming.at(&h.key)));
                    }
                }
            }
            let effect_pos = j
                .layers
                .iter()
                .find_map(|p| p.effect.at.as_ref().map(|a| naming.at(a)));
            // Every variant on the path, named or not (an operation whose one caller
            // is `b.py` pairs with the path of `b.py` on a side with two), with files
            // as placed in the side: names show them from where the run started.
            let labels: Vec<&str> = j
                .layers
                .iter()
                .filter_map(|l| {
                    let p = analyzed.analysis.policies.get(l.policy?)?;
                    Some(p.imported.as_ref()?.variant.as_ref()?.label.as_str())
                })
                .collect();
            let variant = (!labels.is_empty()).then(|| {
                let v = labels.join(", ");
                let shown = &documents[j.document].doc.file.display;
                let prefix = shown.strip_suffix(document.as_str()).unwrap_or("");
                if prefix.is_empty() {
                    v
                } else {
                    v.replace(&format!("`{prefix}"), "`")
                }
            });
            OpFacts {
                document,
                display: match &row.variant {
                    Some(v) => format!("{} [{v}]", op.display()),
                    None => op.display(),
                },
                variant,
                operation_id: op.operation_id.clone(),
                method: op.method.to_ascii_uppercase(),
                shape: path_shape(&op.path),
                pos: naming.at(&op.key),
                key,
                headers,
                key_errors,
                retry_after,
                throttle_responses,
                effect: row.effect.clone(),
                effect_pos,
                status: status_facts(
                    j.layer(crate::policy::model::Layer::Client),
                    documents,
                    naming,
                ),
                layers: j
                    .layers
                    .iter()
                    .map(|p| layer_facts(p, naming, analyzed))
                    .collect(),
                amplification: row.amplification,
                verdict: row.verdict.clone(),
                missing: row.missing.clone(),
                findings: row.findings.clone(),
            }
        })
        .collect()
}

/// A side's root: the folder itself, or the folder holding a file (canonical).
pub fn root_of(path: &Path) -> PathBuf {
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if abs.is_dir() {
        abs
    } else {
        abs.parent().map(Path::to_path_buf).unwrap_or(abs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_names_do_not_change_the_shape() {
        assert_eq!(path_shape("/orders/{orderId}"), path_shape("/orders/{id}"));
        assert_eq!(path_shape("/a/{x}/b/{y}"), "/a/{}/b/{}");
        assert_ne!(path_shape("/orders/{id}"), path_shape("/orders/{id}/items"));
    }
}
