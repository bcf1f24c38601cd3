//! RL301 missing-deadline: a retried operation has no `deadline`, so nothing bounds
//! the whole operation (every attempt and every wait).
//!
//! The finding points at the node that turns the retry on; operations retried by one
//! `defaults` value share one finding, with a label each.

use super::grouping::{retried_layers, Collector, Hit};
use super::{Context, RuleMeta};
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;

/// Rule metadata ([`catalog::MISSING_DEADLINE`]).
pub const META: RuleMeta = catalog::MISSING_DEADLINE;

/// Checks every retried operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut out = Collector::new();
    for (_, op, eff) in retried_layers(ctx) {
        if eff.deadline.is_some() || eff.is_misspelled("deadline") {
            continue;
        }
        let help = "set a `deadline` for the whole operation (every attempt and wait), e.g. `deadline: 3s`";
        // A config that switched its deadline off itself (Envoy `timeout: 0s`): the
        // finding points there, with the node that turns the retry on as a label.
        let hit = match &eff.deadline_off {
            Some(off) => Hit::retried_without(&META, eff, op, "a `deadline`", help).map(|h| {
                let origin = eff.retry_origin().cloned();
                h.primary_at(off, "deadline switched off here")
                    .label_at(origin.as_ref(), "retry turned on here")
            }),
            None => Hit::retried_without(&META, eff, op, "a `deadline`", help),
        };
        out.extend(hit);
    }
    out.finish(&META)
}

/// The fix: the deadline the policy already implies (safe: no attempt it allows is
/// cut short).
pub const FIX: super::RuleFix = super::RuleFix {
    safety: crate::fix::Safety::Safe,
    changes: "adds `deadline:` = `attempts` x `attempt_timeout` + every backoff wait (the worst case the entry already allows), where both are written",
    apply: fix,
};

/// `deadline: D` in the policy entry of the finding, where D is the worst case the
/// entry already allows (RL309's sum): `attempts x attempt_timeout + sum over
/// retries n of min(cap, base x multiplier^n)`, each read from the entry or
/// `defaults`. No fix without a fixed `attempt_timeout` and `attempts`.
pub fn fix(d: &Diagnostic, texts: &dyn crate::fix::Texts) -> Option<crate::fix::Fix> {
    use crate::fix::text::{self, Role};
    use crate::policy::duration::{format_millis, parse_duration};
    let path = &d.primary.location.file.path;
    let parsed = text::read(texts, path)?;
    let t = parsed.tree.as_ref()?;
    if parsed.role() != Role::Policy {
        return None;
    }
    let entry = text::policy_entry(&parsed, &d.primary.location.pointer)?;
    if t.get(entry, "deadline").is_some() {
        return None;
    }
    let get = |key: &str| text::inherited(&parsed, entry, key);
    let attempts = get("attempts").and_then(|n| t.as_i64(n))?;
    let attempts = u32::try_from(attempts).ok().filter(|&a| a >= 1)?;
    let timeout = parse_duration(get("attempt_timeout").and_then(|n| t.as_str(n))?).ok()?;
    let backoff = get("backoff");
    let in_backoff = |key: &str| backoff.and_then(|b| t.get(b, key));
    let duration = |key: &str| in_backoff(key).and_then(|n| parse_duration(t.as_str(n)?).ok());
    let base = duration("base").unwrap_or(0.0);
    let cap = duration("cap").unwrap_or(f64::INFINITY);
    let multiplier = in_backoff("multiplier")
        .and_then(|n| t.as_f64(n))
        .unwrap_or(2.0);
    let waits = crate::retry::total_backoff_ms(base, cap, multiplier, attempts - 1);
    let total = f64::from(attempts) * timeout + waits;
    if !total.is_finite() || total <= 0.0 {
        return None;
    }
    let deadline = format_millis(total.ceil());
    let edit = text::insert_entry(
        &parsed,
        entry,
        "deadline",
        &serde_json::Value::String(deadline.clone()),
    )?;
    Some(crate::fix::Fix::one(
        format!("Add `deadline: {deadline}` (attempts x attempt timeout + backoff waits)"),
        crate::fix::Safety::Safe,
        path,
        edit,
    ))
}
