//! Shared by RL501 (429) and RL502 (503): a documented response for a status
//! (explicit, or through its `NXX` range when there is no explicit code; `default`
//! never counts) that declares no `Retry-After` header (names compare
//! case-insensitively; a missing `headers` map counts as none).

use crate::diagnostic::Diagnostic;
use crate::openapi::model::StatusKey;
use crate::rules::grouping::{group_responses, whose, with_users};
use crate::rules::{Context, RuleMeta};

/// One finding per response definition for `code` without `Retry-After`.
pub fn missing_retry_after(
    ctx: &Context<'_>,
    meta: &'static RuleMeta,
    code: u16,
    help: &str,
) -> Vec<Diagnostic> {
    group_responses(ctx, |op| {
        op.response_for(code)
            .filter(|r| r.header("Retry-After").is_none())
    })
    .into_iter()
    .map(|g| {
        let ops = g.operations();
        let what = match g.first().status {
            StatusKey::Range(d) => format!("The `{d}XX` response, which covers {code},"),
            _ => format!("The {code} response"),
        };
        let message = format!("{what} {} declares no `Retry-After` header.", whose(&ops));
        let d = Diagnostic::new(
            meta,
            message,
            g.at.location(),
            format!("{code} without `Retry-After`"),
        )
        .with_help(help);
        with_users(d, &g.at, &ops)
    })
    .collect()
}
