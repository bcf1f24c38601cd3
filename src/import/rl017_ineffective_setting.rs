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

/// gRPC's cap on `maxAttempts` (gRFC A6: values above are treated as 5), which
/// `import::grpc` reads by and this rule's fix writes.
pub const GRPC_MAX_ATTEMPTS_CAP: i64 = 5;

/// The primary label of the finding on a gRPC `maxAttempts` above the cap (the one
/// finding of this rule that has a fix).
pub const CAPPED_LABEL: &str = "capped at 5";

/// The fix: a gRPC `maxAttempts` above 5 written as 5 (safe: gRPC already caps it, so
/// no request changes).
pub const FIX: crate::fix::RuleFix = crate::fix::RuleFix {
    safety: crate::fix::Safety::Safe,
    changes: "writes a gRPC `maxAttempts` above 5 (retry or hedging) as 5, the value gRPC already runs; other ineffective settings have no fix",
    apply: fix,
};

/// `maxAttempts: 5` for a gRPC `maxAttempts` above the cap; no fix for the other
/// findings of the rule.
pub fn fix(d: &Diagnostic, texts: &dyn crate::fix::Texts) -> Option<crate::fix::Fix> {
    if d.primary.message != CAPPED_LABEL {
        return None;
    }
    let path = &d.primary.location.file.path;
    let parsed = crate::fix::text::read_at(texts, path, d.primary.location.span.start)?;
    let t = parsed.tree.as_ref()?;
    let node = parsed.at_pointer(&d.primary.location.pointer)?;
    let key = t.key_of(node).and_then(|k| t.as_str(k))?;
    let cap = GRPC_MAX_ATTEMPTS_CAP;
    let written = &parsed.file.text[t.span(node)];
    if key != "maxAttempts" || written.parse::<i64>().ok()? <= cap {
        return None;
    }
    Some(crate::fix::Fix::one(
        format!("Write `maxAttempts: {cap}`, the value gRPC runs"),
        crate::fix::Safety::Safe,
        path,
        (t.span(node), cap.to_string()),
    ))
}
