//! RL017 ineffective-setting: a retry setting that silently does nothing or is not
//! what it says: an unknown or misspelled key inside a retry block (with "did you
//! mean"), a key the platform ignores (Resilience4j 2.x `maxRetryAttempts`), a value
//! the platform caps (gRPC `maxAttempts` above 5), a required value missing, or a
//! route that can never match. Real files carry typos that switch a retry setting off
//! without any error from the platform (`rules-catalog.md`, `layers.md`).

use crate::diagnostic::catalog;
use crate::diagnostic::{Diagnostic, RuleMeta};
use crate::source::refs::At;

/// Rule metadata ([`catalog::INEFFECTIVE_SETTING`]).
pub const META: RuleMeta = catalog::INEFFECTIVE_SETTING;

/// The finding at `at` with `message`, a short `label` and `help`.
pub fn diagnostic(at: &At, message: String, label: &str, help: String) -> Diagnostic {
    Diagnostic::new(&META, message, at.location(), label).with_help(help)
}
