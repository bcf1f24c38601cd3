//! RL305 missing-jitter: a retried operation's backoff has no jitter (`jitter: none`,
//! or no `jitter` at all), so clients that failed together retry together.
//!
//! Only retried operations are reported (`retry: false` never is). The finding points
//! at `jitter: none` when it is written, else at the `backoff` mapping that lacks
//! `jitter`, else (no `backoff` at all) at the node that turns retrying on.

use super::grouping::{layer_phrase, retried_layers, Collector, Hit};
use super::{Context, RuleMeta};
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::fix::text::{self, Role};
use crate::fix::{Fix, Safety, Texts};
use crate::policy::model::Jitter;
use crate::source::tree::Kind;

/// Rule metadata ([`catalog::MISSING_JITTER`]).
pub const META: RuleMeta = catalog::MISSING_JITTER;

const HELP: &str =
    "set `backoff.jitter: full` (or `equal`, `decorrelated`) so clients spread their retries";

/// Checks every retried operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut out = Collector::new();
    for (_, op, eff) in retried_layers(ctx) {
        let layer = layer_phrase(eff.layer);
        let hit = match &eff.backoff.jitter {
            Some(j) if j.value != Jitter::None => continue,
            None if eff.is_misspelled("backoff.jitter") => continue,
            Some(j) => {
                let Some(at) = &j.at else { continue };
                Hit::new(
                    &META,
                    at,
                    "no jitter",
                    format!(
                        "{{ops}} {{is}} retried{layer} with `jitter: none`: clients that failed together retry together"
                    ),
                    HELP,
                    op,
                )
            }
            None => {
                let (at, label) = match (&eff.backoff.at, eff.retry_origin()) {
                    (Some(at), _) => (at, "backoff without `jitter`"),
                    (None, Some(at)) => (at, "retry turned on here"),
                    (None, None) => continue,
                };
                Hit::new(
                    &META,
                    at,
                    label,
                    format!(
                        "{{ops}} {{is}} retried{layer} without backoff `jitter`: clients that failed together retry together"
                    ),
                    HELP,
                    op,
                )
            }
        };
        out.push(hit.op_label("retried operation"));
    }
    out.finish(&META)
}

/// The fix: `jitter: full` in the policy's backoff (safe: it spreads the waits,
/// never changes which requests are sent).
pub const FIX: super::RuleFix = super::RuleFix {
    safety: Safety::Safe,
    changes: "sets `jitter: full` in the policy's `backoff` (replacing `jitter: none`); in a Resilience4j retry instance, `enableRandomizedWait: true` (with the default `waitDuration: 500ms` where no wait is written, as Resilience4j builds the wait only there)",
    apply: fix,
};

/// `jitter: full` at the finding: `jitter: none` replaced, or `jitter` added to the
/// `backoff` mapping that lacks it. Policy files only (an imported config's backoff
/// is spelled by its platform).
pub fn fix(d: &Diagnostic, texts: &dyn Texts) -> Option<Fix> {
    let path = &d.primary.location.file.path;
    let parsed = text::read_at(texts, path, d.primary.location.span.start)?;
    if parsed.role() != Role::Policy {
        return resilience4j(d, &parsed);
    }
    let t = parsed.tree.as_ref()?;
    let pointer = d.primary.location.pointer.as_str();
    let node = parsed.at_pointer(pointer)?;
    let full = serde_json::json!("full");
    const SET: &str = "Set `jitter: full` in the backoff";
    const ADD: &str = "Add `jitter: full` to the backoff";
    let (title, edit) = if t.kind(node) != Kind::Map {
        // `jitter: none`: the value itself.
        let key = t.key_of(node).and_then(|k| t.as_str(k).map(str::to_string));
        (key.as_deref() == Some("jitter")).then(|| (SET, (t.span(node), "full".to_string())))?
    } else if pointer.rsplit('/').next() == Some("backoff") {
        match t.get(node, "jitter") {
            Some(j) => (SET, (t.span(j), "full".to_string())),
            None => (ADD, text::insert_entry(&parsed, node, "jitter", &full)?),
        }
    } else {
        return None;
    };
    Some(Fix::one(title, Safety::Safe, path, edit))
}

/// A Resilience4j retry instance (or config) at the finding: `enableRandomizedWait:
/// true` (`enable-randomized-wait` where its keys are kebab-case), proportional
/// jitter of factor 0.5.
fn resilience4j(d: &Diagnostic, parsed: &text::Parsed) -> Option<Fix> {
    let t = parsed.tree.as_ref()?;
    let node = parsed.at_location(&d.primary.location)?;
    // The finding underlines the instance's name: its mapping is the key's value.
    let node = if t.kind(node) == Kind::Map {
        node
    } else {
        let parent = t.parent(node)?;
        t.raw_entries(parent)
            .iter()
            .find(|&&(k, _)| k == node)
            .map(|&(_, v)| v)?
    };
    if t.kind(node) != Kind::Map {
        return None;
    }
    let keys: Vec<&str> = t
        .raw_entries(node)
        .iter()
        .filter_map(|&(k, _)| t.as_str(k))
        .collect();
    let known = [
        "maxAttempts",
        "max-attempts",
        "waitDuration",
        "wait-duration",
        "retryExceptions",
        "retry-exceptions",
        "baseConfig",
        "base-config",
    ];
    if !keys.iter().any(|k| known.contains(k)) {
        return None;
    }
    let kebab = keys.iter().any(|k| k.contains('-'));
    let key = if kebab {
        "enable-randomized-wait"
    } else {
        "enableRandomizedWait"
    };
    if let Some(v) = t.get(node, key) {
        return Some(Fix::one(
            format!("Set `{key}: true`"),
            Safety::Safe,
            &d.primary.location.file.path,
            (t.span(v), "true".to_string()),
        ));
    }
    // Resilience4j builds the wait only where `waitDuration` is written
    // (`configureRetryIntervalFunction`): without one at any level, the flag is
    // inert (RL017) unless the default wait is written beside it.
    let wait = if kebab {
        "wait-duration"
    } else {
        "waitDuration"
    };
    let has = |k: &str| keys.contains(&k);
    let mut entries = vec![(key, serde_json::Value::Bool(true))];
    if !has("waitDuration") && !has("wait-duration") {
        if has("baseConfig") || has("base-config") {
            return None;
        }
        entries.push((wait, serde_json::Value::String("500ms".into())));
    }
    let edit = text::insert_entries(parsed, node, &entries)?;
    Some(Fix::one(
        format!("Add `{key}: true` (jitter of factor 0.5)"),
        Safety::Safe,
        &d.primary.location.file.path,
        edit,
    ))
}
