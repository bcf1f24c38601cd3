//! RL201 unprotected-retry: a non-idempotent operation is retried on a signal after
//! which the request may have been processed (anything but `connect-failure` and
//! `refused-stream`) and nothing protects the repeat (no idempotency key, no status
//! endpoint consulted with `on_unknown_result: check-status`).
//!
//! Strict on purpose: a 429 or 503 usually means "not processed", but only the
//! endpoint's contract can promise it.

use super::{Context, Question, RuleMeta};
use crate::analysis::Source;
use crate::diagnostic::{Diagnostic, Severity};

/// RL201.
pub const META: RuleMeta = RuleMeta {
    code: "RL201",
    name: "unprotected-retry",
    severity: Severity::Error,
    question: Question::Safety,
    summary: "a non-idempotent operation is retried after a possibly processed attempt without protection",
};

/// Checks every operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for jo in &ctx.analysis.operations {
        let op = jo.resolve(ctx.documents);
        for eff in &jo.layers {
            if !eff.is_non_idempotent() || !eff.is_retried() || eff.is_protected() {
                continue;
            }
            let signals = eff.unsafe_signals();
            if signals.is_empty() {
                continue;
            }
            let Some(retry_on) = &eff.retry_on else {
                continue;
            };
            let list = signals
                .iter()
                .map(|s| format!("`{}`", s.value))
                .collect::<Vec<_>>()
                .join(", ");
            let layer = match eff.layer {
                crate::policy::model::Layer::Client => String::new(),
                l => format!(" by the {} layer", l.as_str()),
            };
            // The most specific node that sets the offending value: the `retry_on`
            // list, unless `retry: true` is set more specifically.
            let retry_more_specific = eff.retry.source < retry_on.source && eff.retry.at.is_some();
            let (primary, primary_label) = if retry_more_specific {
                (eff.retry.at.clone(), "retry turned on here")
            } else {
                (
                    retry_on.at.clone(),
                    "retried on possibly processed attempts",
                )
            };
            let Some(primary) = primary else { continue };
            let mut d = Diagnostic::new(
                &META,
                format!(
                    "`{}` is non-idempotent and retried{layer} on {list} without an idempotency key or a status check",
                    op.display()
                ),
                primary.location(),
                primary_label,
            )
            .with_label(op.key.location(), "non-idempotent operation");
            if retry_more_specific {
                if let Some(at) = &retry_on.at {
                    d = d.with_label(at.location(), "retry signals");
                }
            }
            if eff.effect.source != Source::BuiltIn {
                if let Some(at) = &eff.effect.at {
                    d = d.with_label(at.location(), "declared non-idempotent");
                }
            }
            out.push(
                d.with_help(
                    "add an `idempotency_key` contract (a header the server de-duplicates on), or a `status_endpoint` with `on_unknown_result: check-status`, or restrict `retry_on` to `connect-failure` and `refused-stream`",
                )
                .with_operation(op.display()),
            );
        }
    }
    out
}
