//! Spring files: Resilience4j retries and Spring Cloud Gateway `Retry` filters (`retry-configs.md` §7).
//!
//! Scaffold: recognised and read in issue 15; this stub reads nothing yet.

use super::{ImportContext, Imported};
use crate::source::loader::Loaded;
use std::sync::Arc;

/// Reads one Spring file. Never panics.
pub fn import(_doc: &Arc<Loaded>, _ctx: &ImportContext<'_>) -> Imported {
    Imported::default()
}
