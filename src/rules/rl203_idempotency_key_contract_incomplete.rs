//! RL203 idempotency-key-contract-incomplete: the `idempotency_key` of a
//! non-idempotent operation leaves out `retention`, `scope`, `on_payload_mismatch` or
//! `on_concurrent`, or states `ignore` for either of the last two (the draft has the
//! server answer 422 and 409).
//!
//! A key header the spec requires travels with every request, so a layer that
//! retries relying on it alone (no policy declares it: [`Protection::SpecKey`]) has
//! no stated contract at all: one finding at the spec's header parameter, naming
//! the layers that rely on it. A key's contract is the declaring policy's; layers
//! that inherit a key from an outer layer are not checked again.
//!
//! Findings: the missing items of one effective key are listed in one finding at the
//! most specific `idempotency_key` mapping (nothing else sets an absent value); each
//! `ignore` is its own finding at the value that states it. Operations sharing a node
//! (a `defaults` key) share the finding, with a label each.

use super::grouping::{
    distinct, join_and, label_operations, layer_phrase, layers, operation_list, ByNode,
};
use super::{Context, RuleMeta};
use crate::analysis::Protection;
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::policy::model::{Concurrent, Layer, PayloadMismatch};

/// Rule metadata ([`catalog::IDEMPOTENCY_KEY_CONTRACT_INCOMPLETE`]).
pub const META: RuleMeta = catalog::IDEMPOTENCY_KEY_CONTRACT_INCOMPLETE;

/// Which ignored item a finding is about.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ignored {
    PayloadMismatch,
    Concurrent,
}

/// Checks every operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut missing: ByNode<'_, (Layer, Vec<&'static str>)> = ByNode::new();
    let mut ignored: ByNode<'_, (Layer, Ignored)> = ByNode::new();
    let mut spec_only: ByNode<'_, (Layer, String)> = ByNode::new();
    for (jo, op, eff) in layers(ctx) {
        if !eff.is_non_idempotent() {
            continue;
        }
        // A policy's `idempotency_key` mapping without a `header` (or with a
        // misspelled one) is that key's contract: checked below, not reported as absent.
        let stated = jo.layers.iter().any(|l| l.idempotency_key.at.is_some());
        // Repeats that may follow processing: retries on such a signal, or hedged copies.
        let hedged = eff.hedging.as_ref().is_some_and(|h| h.value.sends_copies());
        let repeats = (eff.is_retried() && !eff.unsafe_signals().is_empty()) || hedged;
        if !stated && repeats {
            if let Some(Protection::SpecKey(param)) = jo.protection(eff.layer, op) {
                spec_only.add(&param.at, op, (eff.layer, param.name.clone()));
            }
        }
        let key = &eff.idempotency_key;
        let Some(key_at) = &key.at else { continue };
        // A key a client in code sends (a header set on the call) states no contract:
        // retention and conflict handling are the server's, read from the spec.
        if crate::source::language::Language::of_path(&key_at.doc.file.path).is_some() {
            continue;
        }
        let mut absent = Vec::new();
        for (name, is_absent) in [
            ("retention", key.retention.is_none()),
            ("scope", key.scope.is_none()),
            ("on_payload_mismatch", key.on_payload_mismatch.is_none()),
            ("on_concurrent", key.on_concurrent.is_none()),
        ] {
            if is_absent && !eff.is_misspelled(&format!("idempotency_key.{name}")) {
                absent.push(name);
            }
        }
        if !absent.is_empty() {
            missing.add(key_at, op, (eff.layer, absent));
        }
        if let Some(f) = &key.on_payload_mismatch {
            if let (PayloadMismatch::Ignore, Some(at)) = (f.value, &f.at) {
                ignored.add(at, op, (eff.layer, Ignored::PayloadMismatch));
            }
        }
        if let Some(f) = &key.on_concurrent {
            if let (Concurrent::Ignore, Some(at)) = (f.value, &f.at) {
                ignored.add(at, op, (eff.layer, Ignored::Concurrent));
            }
        }
    }
    let mut out = Vec::new();
    for g in spec_only.into_groups() {
        let ops = g.operations();
        let (_, header) = g.first();
        let layers = distinct(g.hits.iter().map(|(_, (l, _))| l.as_str().to_string()));
        let d = Diagnostic::new(
            &META,
            format!(
                "{} {} retried{} relying on the `{header}` header the spec requires, but no policy states its contract (`retention`, `scope`, `on_payload_mismatch`, `on_concurrent`)",
                operation_list(&ops),
                if ops.len() == 1 { "is" } else { "are" },
                if layers.len() == 1 {
                    format!(" by the {} layer", layers[0])
                } else {
                    format!(" by the {} layers", join_and(&layers))
                }
            ),
            g.at.location(),
            "key required here, contract unstated",
        )
        .with_help(format!(
            "declare the key in the client policy as the server documents it: `idempotency_key: {{header: {header}, retention: 24h, scope: per-client, on_payload_mismatch: reject, on_concurrent: reject}}`"
        ));
        out.push(label_operations(d, &ops, |_| {
            "non-idempotent operation".into()
        }));
    }
    for g in missing.into_groups() {
        let ops = g.operations();
        let (layer, _) = g.first();
        let items = distinct(
            g.hits
                .iter()
                .flat_map(|(_, (_, absent))| absent.iter().copied()),
        );
        let list = join_and(&items.iter().map(|i| format!("`{i}`")).collect::<Vec<_>>());
        let d = Diagnostic::new(
            &META,
            format!(
                "the `idempotency_key` contract of {}{} does not state {list}",
                operation_list(&ops),
                layer_phrase(*layer)
            ),
            g.at.location(),
            "incomplete key contract",
        )
        .with_help(format!(
            "state {list} as the server documents them (e.g. `retention: 24h`, `scope: per-client`, `on_payload_mismatch: reject`, `on_concurrent: reject`)"
        ));
        out.push(label_operations(d, &ops, |_| {
            "non-idempotent operation".into()
        }));
    }
    for g in ignored.into_groups() {
        let ops = g.operations();
        let (layer, what) = *g.first();
        let (key, consequence, help) = match what {
            Ignored::PayloadMismatch => (
                "on_payload_mismatch",
                "a reused key with another payload is processed anyway",
                "have the server reject a reused key with another payload (422 per the draft) and state `on_payload_mismatch: reject`",
            ),
            Ignored::Concurrent => (
                "on_concurrent",
                "a retry sent while the first attempt runs is processed a second time",
                "have the server reject (409 per the draft) or hold a concurrent request with the same key and state `on_concurrent: reject` or `wait`",
            ),
        };
        let d = Diagnostic::new(
            &META,
            format!(
                "the `idempotency_key` of {}{} states `{key}: ignore`: {consequence}",
                operation_list(&ops),
                layer_phrase(layer)
            ),
            g.at.location(),
            format!("`{key}: ignore`"),
        )
        .with_help(help);
        out.push(label_operations(d, &ops, |_| {
            "non-idempotent operation".into()
        }));
    }
    out
}
