//! RL306 retry-after-not-honored: a retried operation's `retry_on` covers 429 or 503
//! but `retry_after.honor` is not true (absent or false). Error for 429, warning for
//! 503; the metadata carries the error.
//!
//! A status class counts: `4xx` retries 429 (an error) and `5xx` retries 503 (a
//! warning), exactly as the retry engine reads `retry_on`. With `honor: false`
//! written, the finding points at it (one finding, error when 429 is covered, else a
//! warning) and labels the covering `retry_on` entries; with `honor` absent, each
//! covering `retry_on` entry is its own finding.

use super::grouping::{layer_phrase, retried_layers, Collector, Hit};
use super::{Context, RuleMeta};
use crate::diagnostic::catalog;
use crate::diagnostic::{Diagnostic, Severity};
use crate::policy::model::Signal;

/// Rule metadata ([`catalog::RETRY_AFTER_NOT_HONORED`]).
pub const META: RuleMeta = catalog::RETRY_AFTER_NOT_HONORED;

const HELP: &str = "set `retry_after: { honor: true, max: ..., on_invalid: backoff }` so retries wait at least what the server asks";

fn severity(code: u16) -> Severity {
    if code == 429 {
        Severity::Error
    } else {
        Severity::Warning
    }
}

fn what(signal: Signal, code: u16) -> String {
    match signal {
        Signal::Status(_) => format!("`{code}`"),
        s => format!("`{s}` (which covers {code})"),
    }
}

/// Checks every retried operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut out = Collector::new();
    for (_, op, eff) in retried_layers(ctx) {
        if eff.retry_after.honor.as_ref().is_some_and(|h| h.value)
            || (eff.retry_after.honor.is_none() && eff.is_misspelled("retry_after.honor"))
        {
            continue;
        }
        // A status answer means the request was processed: a layer whose `methods`
        // filter leaves the method out never retries it on 429 or 503 (nginx POST).
        if !eff.retries_method_after_send() {
            continue;
        }
        let Some(retry_on) = &eff.retry_on else {
            continue;
        };
        // (code, the first retry_on entry covering it)
        let covered: Vec<(u16, &_)> = [429u16, 503]
            .into_iter()
            .filter_map(|code| {
                retry_on
                    .value
                    .iter()
                    .find(|s| s.value.covers_status(code))
                    .map(|s| (code, s))
            })
            .collect();
        if covered.is_empty() {
            continue;
        }
        let layer = layer_phrase(eff.layer);
        let honor_false = eff.retry_after.honor.as_ref().and_then(|h| h.at.as_ref());
        if let Some(at) = honor_false {
            let list = covered
                .iter()
                .map(|(c, s)| what(s.value, *c))
                .collect::<Vec<_>>()
                .join(" and ");
            let sev = covered
                .iter()
                .map(|(c, _)| severity(*c))
                .max()
                .unwrap_or(Severity::Warning);
            let mut hit = Hit::new(
                &META,
                at,
                "`Retry-After` ignored",
                format!("{{ops}} {{is}} retried{layer} on {list} with `retry_after.honor: false`"),
                HELP,
                op,
            )
            .severity(sev)
            .op_label("retried operation");
            for (c, s) in &covered {
                hit = hit.label_at(Some(&s.at), format!("retries {c}"));
            }
            out.push(hit);
        } else {
            for (c, s) in covered {
                out.push(
                    Hit::new(
                        &META,
                        &s.at,
                        format!("{c} retried without `Retry-After`"),
                        format!(
                            "{{ops}} {{is}} retried{layer} on {} without honouring `Retry-After`",
                            what(s.value, c)
                        ),
                        HELP,
                        op,
                    )
                    .severity(severity(c))
                    .op_label("retried operation"),
                );
            }
        }
    }
    out.finish(&META)
}

/// The fix: honour `Retry-After`, bounded (safe: it changes when a retry is sent,
/// never whether).
pub const FIX: super::RuleFix = super::RuleFix {
    safety: crate::fix::Safety::Safe,
    changes: "in a policy, sets `retry_after.honor: true`, with `max` (the `deadline`) and `on_invalid: backoff` where they are missing (only where a `deadline` is written); on an Envoy route, adds `rate_limited_retry_back_off` reading `Retry-After` as `SECONDS` (Envoy does not read the HTTP-date form) with `max_interval` the route `timeout`",
    apply: fix,
};

/// `retry_after: { honor: true, max: <deadline>, on_invalid: backoff }` in the policy
/// entry of the finding: `honor: false` turned true and the missing keys added.
pub fn fix(d: &Diagnostic, texts: &dyn crate::fix::Texts) -> Option<crate::fix::Fix> {
    use crate::fix::text::{self, Role};
    use crate::source::tree::Kind;
    let path = &d.primary.location.file.path;
    let parsed = text::read_at(texts, path, d.primary.location.span.start)?;
    let t = parsed.tree.as_ref()?;
    if parsed.role() != Role::Policy {
        return envoy(d, &parsed);
    }
    let entry = text::policy_entry(&parsed, &d.primary.location.pointer)?;
    // Without a deadline there is no bound to cap the wait at (RL301 first).
    text::inherited(&parsed, entry, "deadline")?;
    let mut edits = Vec::new();
    let mut edit = |(span, text): text::Edit| {
        edits.push(crate::fix::Edit {
            path: path.clone(),
            span,
            text,
        });
    };
    match t.get(entry, "retry_after") {
        Some(ra) if t.kind(ra) == Kind::Map => {
            if let Some(honor) = t.get(ra, "honor") {
                if t.as_bool(honor) != Some(true) {
                    edit((t.span(honor), "true".to_string()));
                }
            }
            let missing = text::bounded_retry_after(&parsed, entry, Some(ra), true);
            if !missing.is_empty() {
                edit(text::insert_entries(&parsed, ra, &missing)?);
            }
        }
        Some(_) => return None,
        None => {
            let value: serde_json::Map<String, serde_json::Value> =
                text::bounded_retry_after(&parsed, entry, None, true)
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect();
            edit(text::insert_entry(
                &parsed,
                entry,
                "retry_after",
                &serde_json::Value::Object(value),
            )?);
        }
    }
    crate::fix::Fix::new(
        "Honour `Retry-After`, capped at the deadline",
        crate::fix::Safety::Safe,
        edits,
    )
}

/// Envoy's default route timeout, in ms (route_components.proto `RouteAction.timeout`).
const ENVOY_ROUTE_TIMEOUT_MS: f64 = 15_000.0;

/// On an Envoy route whose `retry_policy` has no `rate_limited_retry_back_off`: one
/// that reads `Retry-After` as `SECONDS`, capped at the route `timeout` (15 s when
/// absent; no fix when the timeout is off). Spelled as the file spells its keys
/// (`retry_policy` or `retryPolicy`).
fn envoy(d: &Diagnostic, parsed: &crate::fix::text::Parsed) -> Option<crate::fix::Fix> {
    use crate::source::tree::Kind;
    use serde_json::json;
    let t = parsed.tree.as_ref()?;
    let node = parsed.at_pointer(&d.primary.location.pointer)?;
    let policy = if t.kind(node) == Kind::Map {
        node
    } else {
        t.parent(node)?
    };
    let camel = match t.key_of(policy).and_then(|k| t.as_str(k))? {
        "retry_policy" => false,
        "retryPolicy" => true,
        _ => return None,
    };
    let key =
        |snake: &'static str, camel_case: &'static str| if camel { camel_case } else { snake };
    if t.get(policy, "rate_limited_retry_back_off").is_some()
        || t.get(policy, "rateLimitedRetryBackOff").is_some()
    {
        return None;
    }
    let route = t.parent(policy)?;
    let timeout = match t.get(route, "timeout") {
        Some(n) => crate::policy::duration::parse_duration(t.as_str(n)?).ok()?,
        None => ENVOY_ROUTE_TIMEOUT_MS,
    };
    if timeout <= 0.0 {
        return None;
    }
    let seconds = format!("{:.3}", timeout / 1000.0);
    let max = format!("{}s", seconds.trim_end_matches('0').trim_end_matches('.'));
    let mut header = serde_json::Map::new();
    header.insert("name".into(), json!("Retry-After"));
    header.insert("format".into(), json!("SECONDS"));
    let mut back_off = serde_json::Map::new();
    back_off.insert(
        key("reset_headers", "resetHeaders").into(),
        json!([serde_json::Value::Object(header)]),
    );
    back_off.insert(key("max_interval", "maxInterval").into(), json!(max));
    let edit = crate::fix::text::insert_entry(
        parsed,
        policy,
        key("rate_limited_retry_back_off", "rateLimitedRetryBackOff"),
        &serde_json::Value::Object(back_off),
    )?;
    Some(crate::fix::Fix::one(
        "Wait what `Retry-After` says, in seconds (Envoy does not read its HTTP-date form)",
        crate::fix::Safety::Safe,
        &d.primary.location.file.path,
        edit,
    ))
}
