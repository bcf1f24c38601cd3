//! RL402 blind-resend: `on_unknown_result: resend` on a non-idempotent operation. A
//! resend after an unknown outcome is a second command; with an idempotency key,
//! `replay-key` is the safe form.
//!
//! Client layers only: a gateway or mesh can do nothing but resend, and its resend of
//! a non-idempotent request without a key is reported once, as RL201 (layers.md
//! "Unknown results on proxies").

use super::grouping::{
    label_operations, layer_phrase, layers, operation_list, with_label_once, ByNode,
};
use super::{Context, RuleMeta};
use crate::analysis::Source;
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::policy::model::{Layer, UnknownResult};
use crate::source::refs::At;

/// Rule metadata ([`catalog::BLIND_RESEND`]).
pub const META: RuleMeta = catalog::BLIND_RESEND;

struct Hit {
    layer: Layer,
    keyed: bool,
    declared: Option<At>,
}

/// Checks every operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut groups = ByNode::new();
    for (jo, op, eff) in layers(ctx) {
        // A layer that does not turn retries on (`retry: false`), or whose `methods`
        // filter leaves the method out, never resends it once sent: its
        // `on_unknown_result` cannot apply.
        if !eff.layer.is_client()
            || !eff.retry.value
            || !eff.is_non_idempotent()
            || !eff.retries_method_after_send()
        {
            continue;
        }
        let Some(u) = &eff.on_unknown_result else {
            continue;
        };
        if u.value != UnknownResult::Resend {
            continue;
        }
        let Some(at) = &u.at else { continue };
        let declared = (eff.effect.source != Source::BuiltIn)
            .then(|| eff.effect.at.clone())
            .flatten();
        groups.add(
            at,
            op,
            Hit {
                layer: eff.layer,
                keyed: jo.key_reaches(eff.layer, op),
                declared,
            },
        );
    }
    groups
        .into_groups()
        .into_iter()
        .map(|g| {
            let ops = g.operations();
            let first = g.first();
            let keyed = g.hits.iter().all(|(_, h)| h.keyed);
            let mut d = Diagnostic::new(
                &META,
                format!(
                    "{} {} non-idempotent but resent{} after an unknown result: the first attempt may already have taken effect",
                    operation_list(&ops),
                    if ops.len() == 1 { "is" } else { "are" },
                    layer_phrase(first.layer)
                ),
                g.at.location(),
                "blind resend",
            );
            for (_, h) in &g.hits {
                if let Some(at) = &h.declared {
                    d = with_label_once(d, at.location(), "declared non-idempotent");
                }
            }
            let d = d.with_help(if keyed {
                "use `on_unknown_result: replay-key` to repeat with the same idempotency key"
            } else {
                "use `check-status` (with a `status_endpoint`), `reconcile` or `fail`, or add an `idempotency_key` and use `replay-key`"
            });
            label_operations(d, &ops, |_| "non-idempotent operation".into())
        })
        .collect()
}

/// The fix: `replay-key` for `resend` where an idempotency key is declared (safe:
/// the resend carries the key, so the server can answer it from its record).
pub const FIX: super::RuleFix = super::RuleFix {
    safety: crate::fix::Safety::Safe,
    changes: "replaces `on_unknown_result: resend` by `replay-key` where the entry or `defaults` declares an `idempotency_key`",
    apply: fix,
};

/// `on_unknown_result: resend` -> `replay-key` when the policy entry holding it, or
/// the policy's `defaults`, declares an `idempotency_key`.
pub fn fix(d: &Diagnostic, texts: &dyn crate::fix::Texts) -> Option<crate::fix::Fix> {
    use crate::fix::text::{self, Role};
    use crate::source::tree::Kind;
    let path = &d.primary.location.file.path;
    let parsed = text::read(texts, path)?;
    let t = parsed.tree.as_ref()?;
    if parsed.role() != Role::Policy {
        return None;
    }
    let node = parsed.at_pointer(&d.primary.location.pointer)?;
    let map = if t.kind(node) == Kind::Map {
        node
    } else {
        t.parent(node)?
    };
    let value = t.get(map, "on_unknown_result")?;
    if t.as_str(value) != Some("resend") {
        return None;
    }
    let root = t.root()?;
    let declared = t.get(map, "idempotency_key").is_some()
        || t.get(root, "defaults")
            .and_then(|d| t.get(d, "idempotency_key"))
            .is_some();
    declared.then(|| {
        crate::fix::Fix::one(
            "Replace `resend` by `replay-key` (an idempotency key is declared)",
            crate::fix::Safety::Safe,
            path,
            (t.span(value), "replay-key".to_string()),
        )
    })
}
