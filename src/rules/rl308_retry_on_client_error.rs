//! RL308 retry-on-client-error: a retried operation's `retry_on` holds a 4xx status
//! that means "fix the request". Error for 400, 401 and 403; warning for any other
//! 4xx; never for the transient 408 (Request Timeout), 425 (Too Early), 429 (Too Many
//! Requests), nor for 409 on an operation that sends an idempotency key (the draft's
//! "a request with this key is still in progress").
//!
//! A `4xx` class is the error case: it includes 400, 401 and 403. Each offending
//! `retry_on` entry is its own finding, at that entry.

use super::grouping::{layer_phrase, retried_layers, Collector, Hit};
use super::{Context, RuleMeta};
use crate::diagnostic::catalog;
use crate::diagnostic::{Diagnostic, Severity};
use crate::policy::model::Signal;

/// Rule metadata ([`catalog::RETRY_ON_CLIENT_ERROR`]).
pub const META: RuleMeta = catalog::RETRY_ON_CLIENT_ERROR;

/// 4xx codes that can change on their own (409 only with an idempotency key).
const TRANSIENT: [u16; 3] = [408, 425, 429];

/// Checks every retried operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut out = Collector::new();
    for (_, op, eff) in retried_layers(ctx) {
        let Some(retry_on) = &eff.retry_on else {
            continue;
        };
        let layer = layer_phrase(eff.layer);
        for s in &retry_on.value {
            let (severity, what, label, help) = match s.value {
                Signal::Class(4) => (
                    Severity::Error,
                    "`4xx`, which includes 400, 401 and 403".to_string(),
                    "client errors retried".to_string(),
                    "replace `4xx` with the transient codes you mean (`408`, `425`, `429`)".to_string(),
                ),
                Signal::Status(c @ (400 | 401 | 403)) => (
                    Severity::Error,
                    format!("`{c}`, a client error that repeats until the request is fixed"),
                    format!("{c} retried"),
                    format!(
                        "remove `{c}` from `retry_on` and surface the error (refresh credentials once, outside the retry loop)"
                    ),
                ),
                Signal::Status(c) if (400..500).contains(&c) => {
                    if TRANSIENT.contains(&c) || (c == 409 && eff.key_header().is_some()) {
                        continue;
                    }
                    let help = if c == 409 {
                        "remove `409` from `retry_on`, or send an `idempotency_key` (409 then means \"still in progress\")".to_string()
                    } else {
                        format!("remove `{c}` from `retry_on` and surface the error")
                    };
                    (
                        Severity::Warning,
                        format!("`{c}`, a client error that usually repeats until the request is fixed"),
                        format!("{c} retried"),
                        help,
                    )
                }
                _ => continue,
            };
            out.push(
                Hit::new(
                    &META,
                    &s.at,
                    label,
                    format!("{{ops}} {{is}} retried{layer} on {what}"),
                    help,
                    op,
                )
                .severity(severity)
                .op_label("retried operation"),
            );
        }
    }
    out.finish(&META)
}
