//! RL307 unbounded-retry-after: a retried operation honours `Retry-After`
//! (`retry_after.honor: true`) but leaves the wait open-ended or its failure mode
//! unstated: no `retry_after.max`, a `max` longer than the `deadline`, or no
//! `retry_after.on_invalid`.
//!
//! Only operations whose `retry_on` holds an HTTP status or class are considered: a
//! `Retry-After` header arrives on a response, so a policy that retries transport
//! signals only never waits for one. Missing keys are one finding at the `honor: true`
//! node (that turns the unbounded wait on); a `max` beyond the deadline is its own
//! finding at `max`, with a label at the `deadline`.

use super::grouping::{layer_phrase, retried_layers, Collector, Hit};
use super::{Context, RuleMeta};
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::policy::duration::format_millis;
use crate::policy::model::Signal;

/// Rule metadata ([`catalog::UNBOUNDED_RETRY_AFTER`]).
pub const META: RuleMeta = catalog::UNBOUNDED_RETRY_AFTER;

/// Checks every retried operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut out = Collector::new();
    for (_, op, eff) in retried_layers(ctx) {
        let ra = &eff.retry_after;
        let Some(honor) = ra.honor.as_ref().filter(|h| h.value) else {
            continue;
        };
        let retries_responses = eff.retry_on.as_ref().is_some_and(|r| {
            r.value
                .iter()
                .any(|s| matches!(s.value, Signal::Status(_) | Signal::Class(_)))
        });
        if !retries_responses {
            continue;
        }
        let layer = layer_phrase(eff.layer);
        let no_max = ra.max.is_none() && !eff.is_misspelled("retry_after.max");
        let no_on_invalid = ra.on_invalid.is_none() && !eff.is_misspelled("retry_after.on_invalid");
        let mut missing = Vec::new();
        if no_max {
            missing.push("`retry_after.max`");
        }
        if no_on_invalid {
            missing.push("`retry_after.on_invalid`");
        }
        if let (false, Some(at)) = (missing.is_empty(), &honor.at) {
            let (why, help) = match (no_max, no_on_invalid) {
                (true, true) => (
                    "a huge or malformed value is waited for or handled by chance",
                    "add `max` (at most the `deadline`) and `on_invalid: backoff` or `stop` to `retry_after`",
                ),
                (true, false) => (
                    "a huge value is waited for however long it is",
                    "add `retry_after.max` (at most the `deadline`): a larger value then means giving up",
                ),
                _ => (
                    "what a malformed value does is left to chance",
                    "add `retry_after.on_invalid: backoff` (ignore the header) or `stop`",
                ),
            };
            out.push(
                Hit::new(
                    &META,
                    at,
                    "`Retry-After` honoured here",
                    format!(
                        "{{ops}} {{is}} retried{layer} honouring `Retry-After` without {}: {why}",
                        missing.join(" or ")
                    ),
                    help,
                    op,
                )
                .op_label("retried operation"),
            );
        }
        if let (Some(max), Some(deadline)) = (&ra.max, &eff.deadline) {
            if max.value > deadline.value {
                if let Some(at) = &max.at {
                    out.push(
                        Hit::new(
                            &META,
                            at,
                            "longer than the deadline",
                            format!(
                                "`retry_after.max` ({}) exceeds the `deadline` ({}) of {{ops}}{layer}: a wait that long can never end in a retry",
                                format_millis(max.value),
                                format_millis(deadline.value)
                            ),
                            format!(
                                "lower `retry_after.max` to at most the `deadline` ({})",
                                format_millis(deadline.value)
                            ),
                            op,
                        )
                        .label_at(deadline.at.as_ref(), "deadline")
                        .op_label("retried operation"),
                    );
                }
            }
        }
    }
    out.finish(&META)
}

/// The fix: a bounded, stated `Retry-After` wait (safe: it shortens a wait, never
/// adds a request).
pub const FIX: super::RuleFix = super::RuleFix {
    safety: crate::fix::Safety::Safe,
    changes: "adds `retry_after.max` (the `deadline`) and `on_invalid: backoff` where missing; a `max` beyond the `deadline` becomes the `deadline`",
    apply: fix,
};

/// A `max` longer than the deadline becomes the deadline; otherwise the missing
/// `max` (the deadline) and `on_invalid: backoff` join `retry_after`.
pub fn fix(d: &Diagnostic, texts: &dyn crate::fix::Texts) -> Option<crate::fix::Fix> {
    use crate::fix::text::{self, Role};
    use crate::source::tree::Kind;
    let path = &d.primary.location.file.path;
    let parsed = text::read(texts, path)?;
    let t = parsed.tree.as_ref()?;
    if parsed.role() != Role::Policy {
        return None;
    }
    let pointer = d.primary.location.pointer.as_str();
    let entry = text::policy_entry(&parsed, pointer)?;
    let node = parsed.at_pointer(pointer)?;
    let deadline = text::inherited(&parsed, entry, "deadline").and_then(|n| t.as_str(n));
    let key = t.key_of(node).and_then(|k| t.as_str(k));
    let edit = if key == Some("max") {
        (t.span(node), deadline?.to_string())
    } else {
        let ra = t
            .get(entry, "retry_after")
            .filter(|&m| t.kind(m) == Kind::Map)?;
        let missing = text::bounded_retry_after(&parsed, entry, Some(ra), false);
        text::insert_entries(&parsed, ra, &missing)?
    };
    Some(crate::fix::Fix::one(
        "Bound the `Retry-After` wait by the deadline",
        crate::fix::Safety::Safe,
        path,
        edit,
    ))
}
