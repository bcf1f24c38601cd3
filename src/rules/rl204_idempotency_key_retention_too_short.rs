//! RL204 idempotency-key-retention-too-short: a non-idempotent operation's
//! `idempotency_key.retention` is shorter than its `deadline`, so a retry can outlive
//! its key and be processed as new. Equal values are fine.
//!
//! The finding points at the more specific of the two values (the retention when
//! both come from the same level) and labels the other.

use super::grouping::{
    distinct, join_and, label_operations, layer_phrase, layers, operation_list, with_label_once,
    written, ByNode,
};
use super::{Context, RuleMeta};
use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::policy::duration::format_millis;
use crate::policy::model::Layer;
use crate::source::refs::At;

/// Rule metadata ([`catalog::IDEMPOTENCY_KEY_RETENTION_TOO_SHORT`]).
pub const META: RuleMeta = catalog::IDEMPOTENCY_KEY_RETENTION_TOO_SHORT;

struct Hit {
    layer: Layer,
    retention: String,
    deadline: String,
    retention_at: At,
    deadline_at: At,
    primary_is_retention: bool,
}

/// Checks every operation in every layer.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    let mut groups = ByNode::new();
    for (_, op, eff) in layers(ctx) {
        if !eff.is_non_idempotent() {
            continue;
        }
        let (Some(retention), Some(deadline)) = (&eff.idempotency_key.retention, &eff.deadline)
        else {
            continue;
        };
        if retention.value >= deadline.value {
            continue;
        }
        let (Some(retention_at), Some(deadline_at)) = (&retention.at, &deadline.at) else {
            continue;
        };
        let primary_is_retention = retention.source <= deadline.source;
        let hit = Hit {
            layer: eff.layer,
            retention: written(Some(retention_at), || format_millis(retention.value)),
            deadline: written(Some(deadline_at), || format_millis(deadline.value)),
            retention_at: retention_at.clone(),
            deadline_at: deadline_at.clone(),
            primary_is_retention,
        };
        let primary = if primary_is_retention {
            retention_at
        } else {
            deadline_at
        };
        groups.add(primary, op, hit);
    }
    groups
        .into_groups()
        .into_iter()
        .map(|g| {
            let ops = g.operations();
            let first = g.first();
            let mut d = if first.primary_is_retention {
                let deadlines = distinct(g.hits.iter().map(|(_, h)| format!("`{}`", h.deadline)));
                Diagnostic::new(
                    &META,
                    format!(
                        "idempotency keys of {}{} are kept `{}`, less than the `deadline` of {}: a late retry can arrive after its key is gone",
                        operation_list(&ops),
                        layer_phrase(first.layer),
                        first.retention,
                        join_and(&deadlines)
                    ),
                    g.at.location(),
                    "retention shorter than the deadline",
                )
            } else {
                let retentions = distinct(g.hits.iter().map(|(_, h)| format!("`{}`", h.retention)));
                Diagnostic::new(
                    &META,
                    format!(
                        "the `deadline` `{}` of {}{} is longer than its idempotency-key retention {}: a late retry can arrive after its key is gone",
                        first.deadline,
                        operation_list(&ops),
                        layer_phrase(first.layer),
                        join_and(&retentions)
                    ),
                    g.at.location(),
                    "deadline longer than the key retention",
                )
            };
            for (_, h) in &g.hits {
                d = if h.primary_is_retention {
                    with_label_once(d, h.deadline_at.location(), format!("deadline `{}`", h.deadline))
                } else {
                    with_label_once(d, h.retention_at.location(), format!("keys kept `{}`", h.retention))
                };
            }
            let d = d.with_help(
                "keep keys on the server at least as long as the `deadline` (in practice much longer), or shorten the `deadline`",
            );
            label_operations(d, &ops, |_| "non-idempotent operation".into())
        })
        .collect()
}
