//! RL314 version-dependent-default: a platform default that decides a finding depends
//! on the platform version, and `.retrylint.yaml` `platforms:` does not name it. The
//! message states both readings (Istio up to 1.23 retries a 503 by default; 1.24 to
//! 1.26 only with `EXCLUDE_UNSAFE_503_FROM_DEFAULT_RETRY=false`; 1.27 and later never:
//! `retry-configs.md` §2.2). Naming the version turns it into the findings of that
//! reading.

use crate::diagnostic::catalog;
use crate::diagnostic::{Diagnostic, RuleMeta};
use crate::source::refs::At;

/// Rule metadata ([`catalog::VERSION_DEPENDENT_DEFAULT`]).
pub const META: RuleMeta = catalog::VERSION_DEPENDENT_DEFAULT;

/// The finding at `at` with `message` (both readings), a short `label` and `help`
/// (the `platforms:` entry to add).
pub fn diagnostic(at: &At, message: String, label: &str, help: String) -> Diagnostic {
    Diagnostic::new(&META, message, at.location(), label).with_help(help)
}
