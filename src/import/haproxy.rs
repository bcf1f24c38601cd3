//! HAProxy `retries`, `retry-on`, `option redispatch` and `timeout` lines per backend, with frontend `use_backend` ACL routing (`retry-configs.md` §9.1).

use super::{ImportContext, Imported};
use crate::source::loader::Loaded;
use std::sync::Arc;

/// Reads one file of this platform.
pub fn import(doc: &Arc<Loaded>, ctx: &ImportContext<'_>) -> Imported {
    let _ = (doc, ctx);
    Imported::default()
}
