//! RL201 unprotected-retry: a non-idempotent operation is retried on a signal after
//! which the request may have been processed (one the signal table of
//! `retry::signals` does not mark never processed, that can fire on the operation,
//! in a layer whose `methods` filter does not leave the method out:
//! `EffectivePolicy::unsafe_signals`) and nothing protects the repeat in that layer
//! (no idempotency key reaches it, and, on the client, no status endpoint consulted
//! with `on_unknown_result: check-status`). A key travels with the request: one the
//! spec requires, or one a layer declares, protects that layer and every layer
//! inside it ([`crate::analysis::JoinedOperation::protection`]). A gateway or mesh
//! that resends a non-idempotent request is reported here, once (not also as RL402).
//!
//! Strict on purpose: a 429 or 503 usually means "not processed", but only the
//! endpoint's contract can promise it.
//!
//! Operations retried by one `defaults` value share one finding, with a label each.

use super::grouping::{layer_phrase, retried_layers, Collector, Hit};
use super::{Context, RuleMeta};
use crate::analysis::Source;
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;

/// Rule metadata ([`catalog::UNPROTECTED_RETRY`]).
pub const META: RuleMeta = catalog::UNPROTECTED_RETRY;

/// Checks every retried operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut out = Collector::new();
    for (jo, op, eff) in retried_layers(ctx) {
        // A misspelled key header (`idempotency_key.haeder`, `idempotency_kye`) is
        // reported once as the unknown key, not again here.
        if !eff.is_non_idempotent()
            || jo.protection(eff.layer, op).is_some()
            || (eff.key_header().is_none() && eff.is_misspelled("idempotency_key.header"))
        {
            continue;
        }
        let signals = eff.unsafe_signals();
        if signals.is_empty() {
            continue;
        }
        let Some(retry_on) = &eff.retry_on else {
            continue;
        };
        let list = signals
            .iter()
            .map(|s| format!("`{}`", s.value))
            .collect::<Vec<_>>()
            .join(", ");
        // The most specific node that sets the offending value: the `retry_on` list,
        // unless `retry: true` is set more specifically.
        let retry_more_specific = eff.retry.source < retry_on.source && eff.retry.at.is_some();
        let (primary, primary_label) = if retry_more_specific {
            (&eff.retry.at, "retry turned on here")
        } else {
            (&retry_on.at, "retried on possibly processed attempts")
        };
        let Some(primary) = primary else { continue };
        let mut hit = Hit::new(
            &META,
            primary,
            primary_label,
            format!(
                "{{ops}} {{is}} non-idempotent and retried{} on {list} without an idempotency key or a status check",
                layer_phrase(eff.layer)
            ),
            if eff.layer.is_client() {
                "add an `idempotency_key` contract (a header the server de-duplicates on), or a `status_endpoint` with `on_unknown_result: check-status`, or restrict `retry_on` to `connect-failure` and `refused-stream`"
            } else {
                "have the client send an idempotency key (an `idempotency_key` contract in the client policy, or a required key header in the spec) that this layer re-sends, or limit this layer's retry conditions to failures where the request was never processed (connection failure, refused stream): a gateway or mesh cannot check a status"
            },
            op,
        )
        .op_label("non-idempotent operation");
        if retry_more_specific {
            hit = hit.label_at(retry_on.at.as_ref(), "retry signals");
        } else if let (Some(list), Some(on)) = (&retry_on.at, &eff.retry.at) {
            // The signals sit at a methods filter that admits the method (Spring Cloud
            // Gateway's `methods: GET,POST`, case README Q23): the node that turns the
            // retry on is labelled too.
            let at_methods = eff
                .methods
                .as_ref()
                .and_then(|m| m.at.as_ref())
                .is_some_and(|m| m.same_node(list));
            if at_methods && !on.same_node(list) {
                hit = hit.label_at(Some(on), "retry turned on here");
            }
        }
        // A methods filter read from another file that admits the method (the
        // ingress-nginx controller ConfigMap's `retry-non-idempotent: "true"`, case
        // 58) is what lets the method through: the finding names it.
        if let Some(m_at) = eff.methods.as_ref().and_then(|m| m.at.as_ref()) {
            if m_at.location().file.path != primary.location().file.path {
                hit = hit.label_at(Some(m_at), format!("lets `{}` be re-sent", eff.method));
            }
        }
        if eff.effect.source != Source::BuiltIn {
            hit = hit.label_at(
                eff.effect.at.as_ref(),
                if eff.effect.source == Source::Inferred {
                    "non-idempotent by the RPC's own semantics"
                } else {
                    "declared non-idempotent"
                },
            );
        }
        out.push(hit);
    }
    out.finish(&META)
}

/// The fix in a policy file: a `methods` filter that leaves out the methods of the
/// unprotected operations (unsafe: those requests are no longer retried once sent).
pub const FIX: super::RuleFix = super::RuleFix {
    safety: crate::fix::Safety::Unsafe,
    changes: "in a policy, a `methods` filter that leaves out the unprotected operations' methods (the idempotent methods that remain, or the written list without them); in an Istio `retryOn` or Envoy `retry_on`, only the conditions that prove the request was never processed (`connect-failure,refused-stream,reset-before-request` when none is written), removing the per-try timeout and the status-code and header lists they leave inert; in NGINX, `non_idempotent` removed from `proxy_next_upstream`; in a Spring Cloud Gateway `Retry` filter, `methods` without them (when an idempotent method remains)",
    apply: fix,
};

/// The methods a new `methods` filter lists: the idempotent ones (RFC 9110 9.2.2).
const IDEMPOTENT: [&str; 5] = ["GET", "HEAD", "OPTIONS", "PUT", "DELETE"];

/// In the policy entry of the finding: `methods: [...]` without the methods of the
/// finding's operations, added (the idempotent methods less those) or, where
/// `methods` is written, with those items removed (a flow list rewritten in flow
/// style, a block list losing their lines). No fix when nothing would be left.
pub fn fix(d: &Diagnostic, texts: &dyn crate::fix::Texts) -> Option<crate::fix::Fix> {
    use crate::fix::text::{self, Role};
    use crate::source::tree::Kind;
    use serde_json::Value;
    let path = &d.primary.location.file.path;
    if let Some(fix) = nginx_non_idempotent(d, texts) {
        return Some(fix);
    }
    let parsed = text::read_at(texts, path, d.primary.location.span.start)?;
    let t = parsed.tree.as_ref()?;
    if parsed.role() != Role::Policy {
        return proxy_retry_on(d, &parsed).or_else(|| gateway_filter_methods(d, &parsed));
    }
    let unprotected: Vec<String> = d
        .operations
        .iter()
        .filter_map(|op| op.split_whitespace().next())
        .map(str::to_ascii_uppercase)
        .collect();
    if unprotected.is_empty() {
        return None;
    }
    let entry = text::policy_entry(&parsed, &d.primary.location.pointer)?;
    let title = format!(
        "Retry only other methods once a request was sent (leave out {})",
        unprotected.join(", ")
    );
    let one = |edit| {
        Some(crate::fix::Fix::one(
            title.clone(),
            crate::fix::Safety::Unsafe,
            path,
            edit,
        ))
    };
    let Some(methods) = t.get(entry, "methods") else {
        let keep: Vec<Value> = IDEMPOTENT
            .iter()
            .filter(|m| !unprotected.iter().any(|u| u == *m))
            .map(|m| Value::String((*m).to_string()))
            .collect();
        return one(text::insert_entry(
            &parsed,
            entry,
            "methods",
            &Value::Array(keep),
        )?);
    };
    if t.kind(methods) != Kind::Seq {
        return None;
    }
    let items = t.items(methods);
    let out = |&n: &crate::source::tree::NodeId| {
        t.as_str(n)
            .is_some_and(|m| unprotected.iter().any(|u| u.eq_ignore_ascii_case(m)))
    };
    let kept: Vec<_> = items.iter().filter(|n| !out(n)).collect();
    if kept.len() == items.len() || kept.is_empty() {
        return None;
    }
    let source = &*parsed.file.text;
    let span = t.span(methods);
    if source[span.start..].starts_with('[') {
        let list: Vec<&str> = kept.iter().map(|&&n| &source[t.span(n)]).collect();
        return one((span, format!("[{}]", list.join(", "))));
    }
    // A block list: each removed item's whole line goes.
    let mut edits = Vec::new();
    for &n in items.iter().filter(|n| out(n)) {
        let s = t.span(n);
        let start = source[..s.start].rfind('\n').map_or(0, |i| i + 1);
        let end = source[s.end..]
            .find('\n')
            .map_or(source.len(), |i| s.end + i + 1);
        if !source[start..s.start].trim_start().starts_with('-') {
            return None;
        }
        edits.push(crate::fix::Edit {
            path: path.clone(),
            span: start..end,
            text: String::new(),
        });
    }
    crate::fix::Fix::new(title, crate::fix::Safety::Unsafe, edits)
}

/// What Envoy and Istio retry on when a route must never resend a processed
/// request: failures that prove it was never sent (retry-configs.md §3.2).
const NEVER_PROCESSED: &str = "connect-failure,refused-stream,reset-before-request";

/// An Istio `retryOn` or Envoy `retry_on` string at the finding, narrowed to its
/// conditions that prove the request was never processed
/// ([`crate::retry::RetryOnEntry::never_processed`]), or to [`NEVER_PROCESSED`] when
/// it has none; its quoting kept.
fn proxy_retry_on(d: &Diagnostic, parsed: &crate::fix::text::Parsed) -> Option<crate::fix::Fix> {
    let t = parsed.tree.as_ref()?;
    let node = parsed.at_pointer(&d.primary.location.pointer)?;
    let key = t.key_of(node).and_then(|k| t.as_str(k))?;
    if !matches!(key, "retryOn" | "retry_on") {
        return None;
    }
    let value = t.as_str(node)?;
    let tokens: Vec<&str> = value.split(',').map(str::trim).collect();
    let kept: Vec<&str> = tokens
        .iter()
        .copied()
        .filter(|tok| {
            crate::import::envoy_retry_on::signals(tok)
                .is_some_and(|s| !s.is_empty() && s.iter().all(|e| e.never_processed()))
        })
        .collect();
    let narrowed = if kept.is_empty() {
        NEVER_PROCESSED.to_string()
    } else {
        kept.join(",")
    };
    if narrowed == value {
        return None;
    }
    let span = t.span(node);
    let written = &parsed.file.text[span.clone()];
    let quote = written
        .chars()
        .next()
        .filter(|c| matches!(c, '"' | '\''))
        .map(String::from)
        .unwrap_or_default();
    let path = &d.primary.location.file.path;
    let mut edits = vec![crate::fix::Edit {
        path: path.clone(),
        span,
        text: format!("{quote}{narrowed}{quote}"),
    }];
    // Settings the narrowed conditions leave inert go with them (RL017, RL312):
    // the status codes and headers lists, and a per-try timeout that would end an
    // attempt no condition retries.
    let map = t.parent(node)?;
    let dropped = |token: &str| tokens.contains(&token) && !kept.contains(&token);
    let mut inert: Vec<&str> = Vec::new();
    if dropped("retriable-status-codes") {
        inert.extend(["retriable_status_codes", "retriableStatusCodes"]);
    }
    if dropped("retriable-headers") {
        inert.extend(["retriable_headers", "retriableHeaders"]);
    }
    inert.extend(["per_try_timeout", "perTryTimeout"]);
    for key in inert {
        if t.get(map, key).is_none() {
            continue;
        }
        let (span, text) = crate::fix::text::remove_entry(parsed, map, key)?;
        edits.push(crate::fix::Edit {
            path: path.clone(),
            span,
            text,
        });
    }
    crate::fix::Fix::new(
        format!("Retry only on failures before the request was sent (`{key}: {narrowed}`)"),
        crate::fix::Safety::Unsafe,
        edits,
    )
}

/// An NGINX `proxy_next_upstream` directive at the finding without its
/// `non_idempotent` flag (NGINX then never passes a sent POST, PATCH or LOCK to the
/// next server). Read as text: the directive runs from the finding to its `;`.
fn nginx_non_idempotent(d: &Diagnostic, texts: &dyn crate::fix::Texts) -> Option<crate::fix::Fix> {
    const DIRECTIVES: [&str; 2] = ["proxy_next_upstream", "grpc_next_upstream"];
    let path = &d.primary.location.file.path;
    let text = texts.text(path)?;
    // Spans count from after a BOM, as the file's text is read.
    let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let start = d.primary.location.span.start;
    let rest = body.get(start..)?;
    if !DIRECTIVES.iter().any(|name| {
        rest.strip_prefix(name)
            .is_some_and(|after| after.starts_with(char::is_whitespace))
    }) {
        return None;
    }
    let directive = &rest[..rest.find(';')?];
    let mut at = 0;
    for word in directive.split_whitespace() {
        let offset = directive[at..].find(word)? + at;
        at = offset + word.len();
        if word != "non_idempotent" {
            continue;
        }
        // The flag and the white space before it.
        let from = directive[..offset].trim_end().len();
        return Some(crate::fix::Fix::one(
            "Remove `non_idempotent`: NGINX then never resends a sent non-idempotent request",
            crate::fix::Safety::Unsafe,
            path,
            (start + from..start + at, String::new()),
        ));
    }
    None
}

/// A Spring Cloud Gateway `Retry` filter's `args.methods` at the finding without the
/// unprotected operations' methods: the idempotent rest of a comma list or flow
/// list. No fix when nothing idempotent is left (`methods: GET` would then retry
/// requests the filter never retried).
fn gateway_filter_methods(
    d: &Diagnostic,
    parsed: &crate::fix::text::Parsed,
) -> Option<crate::fix::Fix> {
    use crate::source::tree::Kind;
    let t = parsed.tree.as_ref()?;
    let node = parsed.at_pointer(&d.primary.location.pointer)?;
    let args = t.parent(node)?;
    let in_args = t.key_of(args).and_then(|k| t.as_str(k)) == Some("args");
    if t.key_of(node).and_then(|k| t.as_str(k)) != Some("methods") || !in_args {
        return None;
    }
    let unprotected: Vec<String> = d
        .operations
        .iter()
        .filter_map(|op| op.split_whitespace().next())
        .map(str::to_ascii_uppercase)
        .collect();
    let keep = |m: &str| {
        let m = m.trim().to_ascii_uppercase();
        IDEMPOTENT.contains(&m.as_str()) && !unprotected.contains(&m)
    };
    let source = &*parsed.file.text;
    let span = t.span(node);
    let replacement = match t.kind(node) {
        Kind::Seq if source[span.start..].starts_with('[') => {
            let kept: Vec<&str> = t
                .items(node)
                .iter()
                .filter_map(|&n| t.as_str(n))
                .filter(|m| keep(m))
                .collect();
            if kept.is_empty() {
                return None;
            }
            format!("[{}]", kept.join(", "))
        }
        Kind::Seq => return None,
        _ => {
            let value = t.as_str(node)?;
            let kept: Vec<&str> = value
                .split(',')
                .map(str::trim)
                .filter(|m| keep(m))
                .collect();
            if kept.is_empty() {
                return None;
            }
            kept.join(",")
        }
    };
    Some(crate::fix::Fix::one(
        format!("Retry only `{replacement}` in this gateway filter"),
        crate::fix::Safety::Unsafe,
        &d.primary.location.file.path,
        (span, replacement),
    ))
}
