//! RL313 inner-layer-outlives-outer: an inner layer (gateway or mesh, inside the
//! client) can keep retrying longer than an outer layer waits for it. Its worst case
//! (its attempts x its attempt time + its backoff upper bounds, capped by its
//! deadline; [`crate::retry::layer_worst_case_ms`]) is longer than the outer layer's
//! fixed `attempt_timeout` or `deadline`, whichever is shorter. The outer layer then
//! gives up (and retries, sending more load into a chain that is still retrying)
//! while the inner one still works on an answer nobody waits for
//! (`layers.md` "Composition across layers").
//!
//! An inner layer with `attempt_timeout: remaining` and no `deadline` is unbounded
//! and outlives any bound. Only a retried or hedged inner layer counts, and only an
//! outer layer with a bound; when several outer layers are outlived, the one that
//! gives up first is named. The finding points at the inner layer's `attempts`
//! (its `retry: true` when absent), labelled at the outer layer's bound.

use super::grouping::{Collector, Hit};
use super::{Context, RuleMeta};
use crate::analysis::composition::shape;
use crate::analysis::EffectivePolicy;
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::policy::duration::format_millis;
use crate::policy::model::AttemptTimeout;
use crate::retry::layer_worst_case_ms;
use crate::source::refs::At;

/// Rule metadata ([`catalog::INNER_LAYER_OUTLIVES_OUTER`]).
pub const META: RuleMeta = catalog::INNER_LAYER_OUTLIVES_OUTER;

/// An outer layer's bound on one of its attempts: the shorter of its fixed
/// `attempt_timeout` and its `deadline`, with the node and the key's name.
fn outer_bound(eff: &EffectivePolicy) -> Option<(f64, Option<&At>, &'static str)> {
    let timeout = match eff.attempt_timeout.value {
        AttemptTimeout::Fixed(ms) => Some((ms, eff.attempt_timeout.at.as_ref(), "attempt_timeout")),
        AttemptTimeout::Remaining => None,
    };
    let deadline = eff
        .deadline
        .as_ref()
        .map(|d| (d.value, d.at.as_ref(), "deadline"));
    match (timeout, deadline) {
        (Some(t), Some(d)) => Some(if t.0 <= d.0 { t } else { d }),
        (t, d) => t.or(d),
    }
}

/// Checks every operation with two or more layers.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut out = Collector::new();
    for jo in &ctx.analysis.operations {
        if jo.layers.len() < 2 {
            continue;
        }
        let op = jo.resolve(ctx.documents);
        for (j, inner) in jo.layers.iter().enumerate().skip(1) {
            let s = shape(inner);
            if !s.multiplies() {
                continue;
            }
            let worst = layer_worst_case_ms(&s, None);
            // The outer layer that gives up first among those the inner outlives.
            let outlived = jo.layers[..j]
                .iter()
                .filter(|o| o.layer != inner.layer)
                .filter_map(|o| outer_bound(o).map(|b| (o, b)))
                .filter(|(_, (bound, _, _))| worst.is_none_or(|w| w > *bound))
                .min_by(|a, b| a.1 .0.total_cmp(&b.1 .0));
            let Some((outer, (bound, bound_at, key))) = outlived else {
                continue;
            };
            let primary = inner
                .attempts
                .as_ref()
                .and_then(|a| a.at.as_ref())
                .or(inner.retry_origin())
                .or(inner.hedging.as_ref().and_then(|h| h.at.as_ref()));
            let Some(primary) = primary else { continue };
            let how_long = match worst {
                Some(w) => format!("for up to {}", format_millis(w)),
                None => {
                    "without bound (`attempt_timeout: remaining` and no `deadline`)".to_string()
                }
            };
            let gives_up = if outer.is_retried() {
                "gives up and retries"
            } else {
                "gives up"
            };
            let key_name = if key == "deadline" {
                "deadline"
            } else {
                "attempt timeout"
            };
            let hit = Hit::new(
                &META,
                primary,
                match worst {
                    Some(w) => format!("{} retries for up to {}", inner.layer.as_str(), format_millis(w)),
                    None => format!("{} retries without bound", inner.layer.as_str()),
                },
                format!(
                    "the {inner_l} layer may retry {{ops}} {how_long}, longer than the {outer_l} layer's {key_name} ({b}): the {outer_l} {gives_up} while the {inner_l} still retries, and its answer is thrown away",
                    inner_l = inner.layer.as_str(),
                    outer_l = outer.layer.as_str(),
                    b = format_millis(bound),
                ),
                format!(
                    "give the {} layer a `deadline` (or fewer `attempts`) within the {} layer's {key_name}, or retry in one layer only",
                    inner.layer.as_str(),
                    outer.layer.as_str()
                ),
                op,
            )
            .label_at(bound_at, format!("{} {key_name}", outer.layer.as_str()))
            .op_label("retried by several layers");
            out.push(hit);
        }
    }
    out.finish(&META)
}

/// The fix: bound the inner layer by the outer layer's bound (unsafe: it changes
/// when the inner layer's attempts end).
pub const FIX: super::RuleFix = super::RuleFix {
    safety: crate::fix::Safety::Unsafe,
    changes: "bounds the inner layer by the outer layer's bound: its policy entry's `deadline` (an entry without a fixed `attempt_timeout`), or the route `timeout` of an Istio `VirtualService` or Envoy route (set, or lowered to the bound)",
    apply: fix,
};

/// The outer layer's bound named by the finding's label (its `attempt_timeout` or
/// `deadline` node), in ms, read through `texts`.
fn labelled_bound(d: &Diagnostic, texts: &dyn crate::fix::Texts) -> Option<f64> {
    let label = d.labels.iter().find(|l| {
        let p = &l.location.pointer;
        p.ends_with("/attempt_timeout") || p.ends_with("/deadline")
    })?;
    let parsed =
        crate::fix::text::read_at(texts, &label.location.file.path, label.location.span.start)?;
    let t = parsed.tree.as_ref()?;
    let node = parsed.at_pointer(&label.location.pointer)?;
    crate::policy::duration::parse_duration(t.as_str(node)?).ok()
}

/// A duration as protobuf JSON and Kubernetes both read it: seconds, `s` suffixed
/// (`0.5s`, `3s`).
fn seconds(ms: f64) -> String {
    let s = format!("{:.3}", ms / 1000.0);
    format!("{}s", s.trim_end_matches('0').trim_end_matches('.'))
}

/// The inner layer bounded by the outer bound: in a policy, the entry's `deadline`;
/// in an Istio `VirtualService` route or an Envoy route, its `timeout` (the retries
/// map's parent). A bound already at or below the outer one is left (no fix).
pub fn fix(d: &Diagnostic, texts: &dyn crate::fix::Texts) -> Option<crate::fix::Fix> {
    use crate::fix::text::{self, Role};
    use crate::source::tree::Kind;
    let bound = labelled_bound(d, texts)?;
    let path = &d.primary.location.file.path;
    let parsed = text::read_at(texts, path, d.primary.location.span.start)?;
    let t = parsed.tree.as_ref()?;
    let pointer = d.primary.location.pointer.as_str();
    let (map, key, value) = if parsed.role() == Role::Policy {
        let entry = text::policy_entry(&parsed, pointer)?;
        // Only an entry unbounded per attempt: a deadline below fixed attempt
        // timeouts would preclude its attempts (RL309), one at or below its first
        // backoff its retries (RL310); those want fewer attempts, a choice left to
        // the author.
        let fixed = text::inherited(&parsed, entry, "attempt_timeout")
            .and_then(|n| t.as_str(n))
            .is_some_and(|v| v != "remaining");
        let base = text::inherited(&parsed, entry, "backoff")
            .and_then(|b| t.get(b, "base"))
            .and_then(|n| crate::policy::duration::parse_duration(t.as_str(n)?).ok());
        if fixed || base.is_some_and(|b| b >= bound) {
            return None;
        }
        let value = crate::policy::duration::format_millis(bound);
        (entry, "deadline", value)
    } else {
        let node = parsed.at_pointer(pointer)?;
        let retries = if t.kind(node) == Kind::Map {
            node
        } else {
            t.parent(node)?
        };
        let name = t.key_of(retries).and_then(|k| t.as_str(k))?;
        if !matches!(name, "retries" | "retry_policy" | "retryPolicy") {
            return None;
        }
        (t.parent(retries)?, "timeout", seconds(bound))
    };
    let edit = match t.get(map, key) {
        Some(existing) => {
            let now = crate::policy::duration::parse_duration(t.as_str(existing)?).ok()?;
            if now > 0.0 && now <= bound {
                return None;
            }
            let written = &parsed.file.text[t.span(existing)];
            let quote = written
                .chars()
                .next()
                .filter(|c| matches!(c, '"' | '\''))
                .map(String::from)
                .unwrap_or_default();
            (t.span(existing), format!("{quote}{value}{quote}"))
        }
        None => text::insert_entry(&parsed, map, key, &serde_json::Value::String(value.clone()))?,
    };
    Some(crate::fix::Fix::one(
        format!("Bound this layer by the outer layer's bound (`{key}: {value}`)"),
        crate::fix::Safety::Unsafe,
        path,
        edit,
    ))
}
