//! RL012 invalid-status-key: a response key that is not a status code, an upper-case
//! range (`4XX`) or `default`. A lower-case range is still read as its range.

use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::diagnostic::RuleMeta;
use crate::source::refs::At;

/// Rule metadata ([`catalog::INVALID_STATUS_KEY`]).
pub const META: RuleMeta = catalog::INVALID_STATUS_KEY;

/// The finding for the response key `key` (its key node); `range` when it is still
/// read as a range (lower-case `5xx`).
pub fn diagnostic(key: &At, text: &str, range: Option<u8>, operation: &str) -> Diagnostic {
    let (message, help) = match range {
        Some(d) => (
            format!("The response key `{text}` must be written `{d}XX`; it is read as that range."),
            format!("Write the range as `{d}XX`."),
        ),
        None => (
            format!("The response key `{text}` is not a status code, a range such as `4XX`, or `default`."),
            "Use a three-digit status code, an upper-case range or `default`.".to_string(),
        ),
    };
    Diagnostic::new(&META, message, key.value_location(), "invalid status key")
        .with_help(help)
        .with_operation(operation)
}
