//! RL501 rate-limit-without-retry-after: a documented 429 response (explicit, or
//! through `4XX` when there is no explicit 429) declares no `Retry-After` header.
//! One finding per response definition: a component shared through `$ref` gives one
//! finding at the component with a label per operation that uses it.

use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::retry_after_header::missing_retry_after;
use crate::rules::{Context, Question, RuleMeta};

/// Rule metadata.
pub const META: RuleMeta = RuleMeta {
    code: "RL501",
    name: "rate-limit-without-retry-after",
    severity: Severity::Warning,
    question: Question::ServerContract,
    summary: "a documented 429 response declares no `Retry-After` header",
};

/// Checks every operation of every document.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    missing_retry_after(
        ctx,
        &META,
        429,
        "Declare a `Retry-After` header (delay-seconds or HTTP-date) on the 429 response so clients know when to retry.",
    )
}
