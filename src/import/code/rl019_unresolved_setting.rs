//! RL019 unresolved-setting: a retry setting written in code whose value cannot be
//! known statically: an environment variable, a function parameter, another
//! module's value, a Spring placeholder, a lambda. retrylint never guesses such a
//! value: the finding names the setting, the expression and what was assumed
//! instead (the library default, or "may retry anything" for a custom predicate)
//! (`rules-catalog.md`; `retry-in-code.md` §3.3).

use crate::diagnostic::catalog;
use crate::diagnostic::{Diagnostic, RuleMeta};
use crate::source::refs::At;

/// Rule metadata ([`catalog::UNRESOLVED_SETTING`]).
pub const META: RuleMeta = catalog::UNRESOLVED_SETTING;

/// The finding for `setting` of a `platform` client at `at`, written as `expr`,
/// with what was `assumed`.
pub fn diagnostic(at: &At, platform: &str, setting: &str, expr: &str, assumed: &str) -> Diagnostic {
    Diagnostic::new(
        &META,
        format!(
            "{platform}: {setting} is `{}`, not known statically; assumed {assumed}",
            short(expr)
        ),
        at.location(),
        "not a literal",
    )
    .with_help(
        "write the value as a literal or a constant of the same file, or name it in a \
         retry policy; retrylint judges the layer with the assumption above",
    )
}

/// A finding with the extractor's own message.
pub fn raw(at: &At, message: String, label: &str) -> Diagnostic {
    Diagnostic::new(&META, message, at.location(), label)
}

/// An expression shortened for a message (first line, at most 60 characters).
fn short(expr: &str) -> String {
    let line = expr.lines().next().unwrap_or("").trim();
    if line.chars().count() > 60 || expr.lines().nth(1).is_some() {
        format!("{}…", line.chars().take(60).collect::<String>())
    } else {
        line.to_string()
    }
}
