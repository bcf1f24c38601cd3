//! AWS SDK shared config (`retry-configs.md` §10).
//!
//! Scaffold: recognised and read in issue 15; this stub reads nothing yet.

use super::{ImportContext, Imported};
use crate::source::loader::Loaded;
use std::sync::Arc;

/// Reads one AWS shared config file. Never panics.
pub fn import(_doc: &Arc<Loaded>, _ctx: &ImportContext<'_>) -> Imported {
    Imported::default()
}
