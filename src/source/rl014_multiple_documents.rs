//! RL014 multiple-documents: a spec or policy file holds more than one YAML document.
//! The first document is read; the finding points at the second `---`. Empty
//! documents, `...` end markers and a trailing `---` are no documents (see
//! [`crate::source::tree::Tree::parse`]). Files that are streams by design
//! (Kubernetes manifests) are read with `Tree::parse_stream` and never get this.
//!
//! A file named on the command line or named like a spec (`openapi.*`) whose first
//! document is not OpenAPI but a later one is (a generator's header document) is read
//! on that later document, and the finding ([`later_openapi_document`]) points at
//! its `---`.

use crate::diagnostic::catalog;
use crate::diagnostic::RuleMeta;
use crate::diagnostic::{Diagnostic, Location};
use crate::source::loader::Loaded;
use std::sync::Arc;

/// Rule metadata ([`catalog::MULTIPLE_DOCUMENTS`]).
pub const META: RuleMeta = catalog::MULTIPLE_DOCUMENTS;

/// What kind of file holds the stream, for the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// An OpenAPI document given or found (or a file it reaches through `$ref`).
    OpenApi,
    /// A retry-policy file.
    Policy,
}

/// The finding for a file whose tree has later documents; `None` for one document
/// (or no tree).
pub fn check_file(doc: &Arc<Loaded>, role: Role) -> Option<Diagnostic> {
    let tree = doc.tree.as_ref().ok()?;
    let later = tree.later_documents();
    let second = later.first()?;
    let what = match role {
        Role::OpenApi => "an OpenAPI description is one document",
        Role::Policy => "a retry policy is one document",
    };
    let count = later.len() + 1;
    let at = |span: &std::ops::Range<usize>| Location {
        file: doc.file.clone(),
        span: span.clone(),
        pointer: String::new(),
    };
    let mut d = Diagnostic::new(
        &META,
        format!(
            "`{}` holds {count} YAML documents, but {what}: the first was read and the other {} ignored.",
            doc.file.display,
            if count == 2 { "one is" } else { "ones are" }
        ),
        at(second),
        "second document",
    )
    .with_help(
        "Keep one document per file: move the others to files of their own, or delete them.",
    );
    for span in later.iter().skip(1).take(9) {
        d = d.with_label(at(span), "another document");
    }
    Some(d)
}

/// `second`, `third`, ... for the 0-based index of a document in its stream.
pub fn ordinal(index: usize) -> String {
    const WORDS: [&str; 9] = [
        "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
    ];
    WORDS
        .get(index)
        .map_or_else(|| format!("{}th", index + 1), |w| (*w).to_string())
}

/// The finding for a stream read on a later document: `doc` is the file as first
/// loaded (its tree holds the first document and where the later ones start),
/// `index` the 0-based index among its non-empty documents of the OpenAPI document
/// read. `None` when `index` is not a later document of `doc`.
pub fn later_openapi_document(doc: &Loaded, index: usize) -> Option<Diagnostic> {
    let tree = doc.tree.as_ref().ok()?;
    let later = tree.later_documents();
    let span = later.get(index.checked_sub(1)?)?.clone();
    let count = later.len() + 1;
    let nth = ordinal(index);
    Some(
        Diagnostic::new(
            &META,
            format!(
                "`{}` holds {count} YAML documents and its first is not an OpenAPI description \
                 (no top-level `openapi` or `swagger`): the {nth} document, the first that is, \
                 was read and the other {} ignored.",
                doc.file.display,
                if count == 2 { "one is" } else { "ones are" }
            ),
            Location {
                file: doc.file.clone(),
                span,
                pointer: String::new(),
            },
            format!("OpenAPI description ({nth} document)"),
        )
        .with_help(
            "An OpenAPI description is one document: move the others to files of their own, or delete them.",
        ),
    )
}
