//! RL208 idempotency-key-regenerated: the idempotency key is generated inside the
//! retried call (`uuid4()` in the function a tenacity decorator retries, a
//! `crypto.randomUUID()` in the request builder an interceptor re-runs), so every
//! attempt carries a new key and the server sees each retry as a new request: the
//! key protects nothing (`rules-catalog.md`; `retry-in-code.md` §3.3; the
//! Idempotency-Key draft: a key identifies one intended request across its retries).

use crate::diagnostic::catalog;
use crate::diagnostic::{Diagnostic, RuleMeta};
use crate::source::refs::At;

/// Rule metadata ([`catalog::IDEMPOTENCY_KEY_REGENERATED`]).
pub const META: RuleMeta = catalog::IDEMPOTENCY_KEY_REGENERATED;

/// The finding at the key's generation `at`, with `message` and a `label`.
pub fn diagnostic(at: &At, message: String, label: &str) -> Diagnostic {
    Diagnostic::new(&META, message, at.location(), label).with_help(
        "generate the key once, before the retried call, and pass it in, so every \
         attempt sends the same key",
    )
}
