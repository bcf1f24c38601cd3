//! RL502 unavailable-without-retry-after: a documented 503 response (explicit, or
//! through `5XX` when there is no explicit 503) declares no `Retry-After` header.
//! One finding per response definition, like RL501.

use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::rules::retry_after_header::missing_retry_after;
use crate::rules::{Context, RuleMeta};

/// Rule metadata ([`catalog::UNAVAILABLE_WITHOUT_RETRY_AFTER`]).
pub const META: RuleMeta = catalog::UNAVAILABLE_WITHOUT_RETRY_AFTER;

/// Checks every operation of every document.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    missing_retry_after(
        ctx,
        &META,
        503,
        "Declare a `Retry-After` header (delay-seconds or HTTP-date) on the 503 response so clients know when the service expects to be back.",
    )
}

/// The fix ([`crate::rules::retry_after_header::fix`]).
pub const FIX: crate::rules::RuleFix = crate::rules::retry_after_header::FIX;
