//! RL016 unbound-config: a retry config, or one object of it, binds to no operation of
//! any spec in the run. Its retries are real, but retrylint cannot say which
//! operations they repeat, so the finding lists the candidate specs and the
//! `.retrylint.yaml` `services:` entry that binds it (`layers.md` "Binding a config
//! to operations"). Never a silent skip.

use crate::diagnostic::catalog;
use crate::diagnostic::{Diagnostic, RuleMeta};
use crate::source::refs::At;

/// Rule metadata ([`catalog::UNBOUND_CONFIG`]).
pub const META: RuleMeta = catalog::UNBOUND_CONFIG;

/// The finding at `at` (the object's host or service node, else the object):
/// `what` names the object (`VirtualService system-virtual-service`), `why` says why
/// it did not bind, `help` gives the entry to add.
pub fn diagnostic(at: &At, what: &str, why: &str, help: String) -> Diagnostic {
    Diagnostic::new(
        &META,
        format!("the {what} binds to no operation: {why}"),
        at.location(),
        "bound to nothing",
    )
    .with_help(help)
}
