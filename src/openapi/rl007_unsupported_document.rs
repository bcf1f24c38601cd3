//! RL007 unsupported-document: an OpenAPI version other than 2.0, 3.0.x, 3.1.x, or a
//! 3.1-only feature (webhooks) in a 3.0 document.

use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::diagnostic::RuleMeta;
use crate::source::refs::At;

/// Rule metadata ([`catalog::UNSUPPORTED_DOCUMENT`]).
pub const META: RuleMeta = catalog::UNSUPPORTED_DOCUMENT;

/// An unsupported version; `at` is the version value node.
pub fn unsupported_version(at: &At, key: &str, version: &str) -> Diagnostic {
    Diagnostic::new(
        &META,
        format!("`{key}: {version}` is not a supported version (2.0, 3.0.x and 3.1.x are)."),
        at.location(),
        "unsupported version",
    )
    .with_help("Convert the document to OpenAPI 3.1, 3.0 or Swagger 2.0.")
}

/// `webhooks` in a 3.0 document; `at` is the `webhooks` value node.
pub fn webhooks_in_30(at: &At) -> Diagnostic {
    Diagnostic::new(
        &META,
        "`webhooks` exist only in OpenAPI 3.1, but this document is 3.0.",
        at.location(),
        "3.1-only feature",
    )
    .with_help("Declare `openapi: 3.1.0` or remove `webhooks`.")
}
