//! RL306 retry-after-not-honored: a retried operation's `retry_on` covers 429 or 503
//! but `retry_after.honor` is not true (absent or false). Error for 429, warning for
//! 503; the metadata carries the error.
//!
//! A status class counts: `4xx` retries 429 (an error) and `5xx` retries 503 (a
//! warning), exactly as the retry engine reads `retry_on`. With `honor: false`
//! written, the finding points at it (one finding, error when 429 is covered, else a
//! warning) and labels the covering `retry_on` entries; with `honor` absent, each
//! covering `retry_on` entry is its own finding.

use super::grouping::{layer_phrase, retried_layers, Collector, Hit};
use super::{Context, RuleMeta};
use crate::diagnostic::catalog;
use crate::diagnostic::{Diagnostic, Severity};
use crate::policy::model::Signal;

/// Rule metadata ([`catalog::RETRY_AFTER_NOT_HONORED`]).
pub const META: RuleMeta = catalog::RETRY_AFTER_NOT_HONORED;

const HELP: &str = "set `retry_after: { honor: true, max: ..., on_invalid: backoff }` so retries wait at least what the server asks";

fn severity(code: u16) -> Severity {
    if code == 429 {
        Severity::Error
    } else {
        Severity::Warning
    }
}

fn what(signal: Signal, code: u16) -> String {
    match signal {
        Signal::Status(_) => format!("`{code}`"),
        s => format!("`{s}` (which covers {code})"),
    }
}

/// Checks every retried operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut out = Collector::new();
    for (_, op, eff) in retried_layers(ctx) {
        if eff.retry_after.honor.as_ref().is_some_and(|h| h.value)
            || (eff.retry_after.honor.is_none() && eff.is_misspelled("retry_after.honor"))
        {
            continue;
        }
        // A status answer means the request was processed: a layer whose `methods`
        // filter leaves the method out never retries it on 429 or 503 (nginx POST).
        if !eff.retries_method_after_send() {
            continue;
        }
        let Some(retry_on) = &eff.retry_on else {
            continue;
        };
        // (code, the first retry_on entry covering it)
        let covered: Vec<(u16, &_)> = [429u16, 503]
            .into_iter()
            .filter_map(|code| {
                retry_on
                    .value
                    .iter()
                    .find(|s| s.value.covers_status(code))
                    .map(|s| (code, s))
            })
            .collect();
        if covered.is_empty() {
            continue;
        }
        let layer = layer_phrase(eff.layer);
        let honor_false = eff.retry_after.honor.as_ref().and_then(|h| h.at.as_ref());
        if let Some(at) = honor_false {
            let list = covered
                .iter()
                .map(|(c, s)| what(s.value, *c))
                .collect::<Vec<_>>()
                .join(" and ");
            let sev = covered
                .iter()
                .map(|(c, _)| severity(*c))
                .max()
                .unwrap_or(Severity::Warning);
            let mut hit = Hit::new(
                &META,
                at,
                "`Retry-After` ignored",
                format!("{{ops}} {{is}} retried{layer} on {list} with `retry_after.honor: false`"),
                HELP,
                op,
            )
            .severity(sev)
            .op_label("retried operation");
            for (c, s) in &covered {
                hit = hit.label_at(Some(&s.at), format!("retries {c}"));
            }
            out.push(hit);
        } else {
            for (c, s) in covered {
                out.push(
                    Hit::new(
                        &META,
                        &s.at,
                        format!("{c} retried without `Retry-After`"),
                        format!(
                            "{{ops}} {{is}} retried{layer} on {} without honouring `Retry-After`",
                            what(s.value, c)
                        ),
                        HELP,
                        op,
                    )
                    .severity(severity(c))
                    .op_label("retried operation"),
                );
            }
        }
    }
    out.finish(&META)
}
