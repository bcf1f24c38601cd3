//! RL501 rate-limit-without-retry-after: a documented 429 response (explicit, or
//! through `4XX` when there is no explicit 429) declares no `Retry-After` header.
//! One finding per response definition: a component shared through `$ref` gives one
//! finding at the component with a label per operation that uses it.

use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::rules::retry_after_header::missing_retry_after;
use crate::rules::{Context, RuleMeta};

/// Rule metadata ([`catalog::RATE_LIMIT_WITHOUT_RETRY_AFTER`]).
pub const META: RuleMeta = catalog::RATE_LIMIT_WITHOUT_RETRY_AFTER;

/// Checks every operation of every document.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    missing_retry_after(
        ctx,
        &META,
        429,
        "Declare a `Retry-After` header (delay-seconds or HTTP-date) on the 429 response so clients know when to retry.",
    )
}

/// The fix ([`crate::rules::retry_after_header::fix`]).
pub const FIX: crate::rules::RuleFix = crate::rules::retry_after_header::FIX;
