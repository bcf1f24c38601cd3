//! gRPC service configs (gRFC A6; `retry-configs.md` §6).
//!
//! Scaffold: recognised and read in issue 15; this stub reads nothing yet.

use super::{ImportContext, Imported};
use crate::source::loader::Loaded;
use std::sync::Arc;

/// Reads one gRPC service config. Never panics.
pub fn import(_doc: &Arc<Loaded>, _ctx: &ImportContext<'_>) -> Imported {
    Imported::default()
}
