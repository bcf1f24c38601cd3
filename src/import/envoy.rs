//! Envoy: route and virtual-host `retry_policy`, route `timeout`, cluster `retry_budget`/`max_retries`, hedging; in a bootstrap, route configuration, listener or config dump, YAML or proto3 JSON (`retry-configs.md` §3).

use super::{ImportContext, Imported};
use crate::source::loader::Loaded;
use std::sync::Arc;

/// Reads one file of this platform.
pub fn import(doc: &Arc<Loaded>, ctx: &ImportContext<'_>) -> Imported {
    let _ = (doc, ctx);
    Imported::default()
}
