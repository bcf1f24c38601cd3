//! The one diagnostic type every stage produces and every report format renders,
//! with what it points at ([`SourceFile`]) and which rule it belongs to
//! ([`catalog`]). The bottom of the pipeline: it depends on no other module.
//!
//! Locations are byte spans into a [`SourceFile`]; line and column are computed only
//! by the report emitters.

pub mod catalog;
pub mod rule;
pub mod source_file;
pub mod spill;

pub use rule::{Question, RuleMeta};
pub use source_file::{LineCol, SourceFile};
use std::ops::Range;
use std::sync::Arc;

/// How serious a finding is. Ordered: `Info < Warning < Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; never fails a run by default.
    Info,
    /// Likely a problem.
    Warning,
    /// A retry that can duplicate an effect, or input that cannot be read as meant.
    Error,
}

impl Severity {
    /// The lower-case name used in output and configuration.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A place in a file: byte span plus the JSON Pointer of the node it underlines
/// (empty when the place is not a node, e.g. a syntax error).
#[derive(Debug, Clone)]
pub struct Location {
    /// The file.
    pub file: Arc<SourceFile>,
    /// Byte span, end exclusive.
    pub span: Range<usize>,
    /// JSON Pointer (RFC 6901) of the node, `""` for the document or no node.
    pub pointer: String,
}

impl Location {
    /// `path:line:column` of the start (1-based, the column in Unicode scalar values), as a
    /// one-line message names a place.
    pub fn position(&self) -> String {
        let at = self.file.line_col(self.span.start);
        format!("{}:{}:{}", self.file.display, at.line, at.column)
    }
}

/// A secondary place with a short noun-phrase message ("retried here").
#[derive(Debug, Clone)]
pub struct Label {
    /// Where.
    pub location: Location,
    /// What is there.
    pub message: String,
}

/// Re-points every place of `diags` in `file` at `file` without its text
/// ([`SourceFile::released`]), keeping the line and column of each span's start and
/// end, so the text goes with the document's tree. Unchanged when `file` cannot be
/// read back (not from disk) or no finding is in it.
pub fn release_text(diags: &mut [Diagnostic], file: &Arc<SourceFile>) {
    let here = |f: &Arc<SourceFile>| Arc::ptr_eq(f, file);
    let mut offsets = Vec::new();
    for d in diags.iter() {
        for loc in std::iter::once(&d.primary.location).chain(d.labels.iter().map(|l| &l.location))
        {
            if here(&loc.file) {
                offsets.extend([loc.span.start, loc.span.end]);
            }
        }
    }
    if offsets.is_empty() {
        return;
    }
    let Some(released) = file.released(offsets) else {
        return;
    };
    let released = Arc::new(released);
    for d in diags.iter_mut() {
        let places = std::iter::once(&mut d.primary.location)
            .chain(d.labels.iter_mut().map(|l| &mut l.location));
        for loc in places {
            if here(&loc.file) {
                loc.file = released.clone();
            }
        }
        for f in d.operation_documents.iter_mut().flatten() {
            if here(f) {
                *f = released.clone();
            }
        }
    }
}

/// One finding.
#[derive(Debug, Clone)]
pub struct Diagnostic {
    /// Rule code, e.g. `RL201`.
    pub code: &'static str,
    /// Rule name, e.g. `unprotected-retry`.
    pub name: &'static str,
    /// Effective severity (the rule's default unless configured).
    pub severity: Severity,
    /// One sentence saying what is wrong, identifiers in backticks.
    pub message: String,
    /// The primary location and its label text.
    pub primary: Label,
    /// Other locations, possibly in other files.
    pub labels: Vec<Label>,
    /// What to do, imperative. Shared by the findings with the same words
    /// ([`shared_text`]).
    pub help: Option<Arc<str>>,
    /// The operation the finding is about (`METHOD /path`) when it concerns exactly
    /// one; the JSON format's `operation` field.
    pub operation: Option<String>,
    /// Every operation the finding concerns (`METHOD /path`), in order, each once per
    /// document: a finding at a shared `defaults` value lists every operation it
    /// covers, and two specs' `POST /orders` are two entries. Used by suppressions,
    /// the readiness matrix and baselines.
    pub operations: Vec<String>,
    /// The OpenAPI document of each of [`Diagnostic::operations`] (same length, same
    /// order); `None` where the rule did not say ([`Diagnostic::with_operations`]).
    pub operation_documents: Vec<Option<Arc<SourceFile>>>,
}

impl Diagnostic {
    /// A finding of `rule` at `location`.
    pub fn new(
        rule: &RuleMeta,
        message: impl Into<String>,
        location: Location,
        label: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            code: rule.code,
            name: rule.name,
            severity: rule.severity,
            message: house_style(message.into()),
            primary: Label {
                location,
                message: label.into(),
            },
            labels: Vec::new(),
            help: None,
            operation: None,
            operations: Vec::new(),
            operation_documents: Vec::new(),
        }
    }

    /// Adds a secondary label.
    pub fn with_label(mut self, location: Location, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            location,
            message: message.into(),
        });
        self
    }

    /// Sets the help text.
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(shared_text(house_style(help.into())));
        self
    }

    /// Sets the one operation (`METHOD /path`) the finding is about.
    pub fn with_operation(self, operation: impl Into<String>) -> Diagnostic {
        self.with_operations([operation.into()])
    }

    /// Sets the operations (`METHOD /path`) the finding concerns, in no particular
    /// document (repeats dropped); [`Diagnostic::operation`] is set when there is
    /// exactly one.
    pub fn with_operations(self, operations: impl IntoIterator<Item = String>) -> Diagnostic {
        self.with_operations_in(operations.into_iter().map(|op| (None, op)))
    }

    /// Sets the operations the finding concerns, each with its OpenAPI document
    /// (repeats of the same document and `METHOD /path` dropped; the same name in two
    /// documents is two operations); [`Diagnostic::operation`] is set when there is
    /// exactly one.
    pub fn with_operations_in(
        mut self,
        operations: impl IntoIterator<Item = (Option<Arc<SourceFile>>, String)>,
    ) -> Diagnostic {
        self.operations.clear();
        self.operation_documents.clear();
        // A set beside the list: thousands of operations can share one finding. Its
        // keys borrow from the list (a copy of each name and path was most of the
        // cost of labelling 5,000 bound routes).
        let listed: Vec<(Option<Arc<SourceFile>>, String)> = operations.into_iter().collect();
        let kept: Vec<bool> = {
            let mut seen = std::collections::HashSet::with_capacity_and_hasher(
                listed.len(),
                foldhash::fast::RandomState::default(),
            );
            listed
                .iter()
                .map(|(doc, op)| seen.insert((doc.as_ref().map(|d| d.path.as_path()), op.as_str())))
                .collect()
        };
        for ((doc, op), kept) in listed.into_iter().zip(kept) {
            if kept {
                self.operations.push(op);
                self.operation_documents.push(doc);
            }
        }
        self.operation = match self.operations.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        };
        self
    }

    /// The operations as shown to a reader: `METHOD /path`, or `file#METHOD /path`
    /// (the document's display path) where two operations of the finding share a
    /// name, so two specs' `POST /orders` never read as one.
    pub fn operations_shown(&self) -> Vec<String> {
        let mut names: std::collections::HashMap<&str, usize, foldhash::fast::RandomState> =
            std::collections::HashMap::default();
        for op in &self.operations {
            *names.entry(op.as_str()).or_insert(0usize) += 1;
        }
        self.operations
            .iter()
            .zip(&self.operation_documents)
            .map(|(op, doc)| match doc {
                Some(doc) if names[op.as_str()] > 1 => format!("{}#{op}", doc.display),
                _ => op.clone(),
            })
            .collect()
    }

    /// Sort key: file, offset, code, message (deterministic output); borrowed, so a
    /// sort of 100,000 findings copies no string.
    pub fn sort_key(&self) -> (&str, usize, &'static str, &str) {
        (
            &self.primary.location.file.display,
            self.primary.location.span.start,
            self.code,
            &self.message,
        )
    }
}

/// `text`, shared with every earlier text of this thread with the same words. A
/// rule gives the same help on every route or operation it finds (RL209's "it
/// serves `openapi.yaml`, but no operation there matches this route: ..." on each
/// of 100,000 routes of one VirtualService), and a copy per finding was an eighth
/// of the peak memory of such a run (issue 43). The set is per thread (a finding is
/// made on one) and starts over past [`SHARED_TEXTS_KEPT`] texts, so texts that
/// differ on every finding cannot grow it without bound.
pub fn shared_text(text: String) -> Arc<str> {
    shared_str(&text)
}

/// [`shared_text`] for a borrowed text: copied only when no earlier text of this
/// thread has the same words (also the notes an importer writes on every route,
/// `import::note_text`).
pub fn shared_str(text: &str) -> Arc<str> {
    use std::cell::RefCell;
    use std::collections::HashSet;
    thread_local! {
        static TEXTS: RefCell<HashSet<Arc<str>>> = RefCell::new(HashSet::new());
    }
    TEXTS.with(|texts| {
        let mut texts = texts.borrow_mut();
        if let Some(shared) = texts.get(text) {
            return shared.clone();
        }
        if texts.len() >= SHARED_TEXTS_KEPT {
            texts.clear();
        }
        let shared: Arc<str> = Arc::from(text);
        texts.insert(shared.clone());
        shared
    })
}

/// How many distinct texts [`shared_text`] keeps per thread.
pub const SHARED_TEXTS_KEPT: usize = 4096;

/// One house style for messages and help, whichever rule wrote them (rustc's):
/// a lower-case first word (unless it is an acronym or an identifier) and no final
/// period.
fn house_style(text: String) -> String {
    let text = text.trim().trim_end_matches('.').to_string();
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) if first.is_uppercase() && second.is_lowercase() => {
            first.to_lowercase().chain(text.chars().skip(1)).collect()
        }
        _ => text,
    }
}

/// Sorts diagnostics by file, position and code and drops exact repeats (the same
/// finding reached through two root documents). Findings about different operations
/// are never repeats, even when their messages agree ("shared by 2 operations"): a
/// baseline splits one node's finding into recorded and new operations.
pub fn sort_and_dedup(diags: &mut Vec<Diagnostic>) {
    diags.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    diags.dedup_by(|a, b| {
        a.code == b.code
            && a.message == b.message
            && a.primary.location.file.path == b.primary.location.file.path
            && a.primary.location.span == b.primary.location.span
            && a.operations == b.operations
            && a.operation_documents
                .iter()
                .map(|d| d.as_ref().map(|d| &d.path))
                .eq(b
                    .operation_documents
                    .iter()
                    .map(|d| d.as_ref().map(|d| &d.path)))
    });
}
