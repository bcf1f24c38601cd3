//! Kong declarative configuration (`_format_version`): services, routes, `retries`, timeouts in ms (`retry-configs.md` §9.3).

use super::{ImportContext, Imported};
use crate::source::loader::Loaded;
use std::sync::Arc;

/// Reads one file of this platform.
pub fn import(doc: &Arc<Loaded>, ctx: &ImportContext<'_>) -> Imported {
    let _ = (doc, ctx);
    Imported::default()
}
