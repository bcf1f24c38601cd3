//! Placeholder until the policy model lands.
use crate::diagnostic::Diagnostic;
use crate::source::loader::Loaded;
use std::sync::Arc;
/// Placeholder.
pub struct PolicyFile;
/// Placeholder.
pub fn load_policy(_doc: &Arc<Loaded>) -> (Option<PolicyFile>, Vec<Diagnostic>) {
    (None, Vec::new())
}
