//! The join: for each operation, its effective retry settings per layer, each field
//! remembering where it came from (file and pointer).

/// The joined model of one run (placeholder; filled by the policy work).
#[derive(Debug, Default)]
pub struct Analysis {}
/// Placeholder.
pub fn join(
    _documents: &[crate::openapi::model::Document],
    _policies: &[crate::policy::PolicyFile],
) -> (Analysis, Vec<crate::diagnostic::Diagnostic>) {
    (Analysis::default(), Vec::new())
}
