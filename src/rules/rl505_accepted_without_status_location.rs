//! RL505 accepted-without-status-location: a 202 response declares no `Location`
//! or `Operation-Location` header and no link, so the client cannot learn the
//! outcome. One finding per response definition (a shared component gives one
//! finding with a label per operation).

use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::openapi::model::{Response, StatusKey};
use crate::rules::grouping::{group_responses, whose, with_users};
use crate::rules::{Context, RuleMeta};

/// Rule metadata ([`catalog::ACCEPTED_WITHOUT_STATUS_LOCATION`]).
pub const META: RuleMeta = catalog::ACCEPTED_WITHOUT_STATUS_LOCATION;

fn points_somewhere(resp: &Response) -> bool {
    resp.has_links
        || resp.header("Location").is_some()
        || resp.header("Operation-Location").is_some()
}

/// Checks every explicit 202 response of every operation.
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    group_responses(ctx, |op| {
        op.responses
            .iter()
            .rev()
            .find(|r| r.status == StatusKey::Code(202))
            .filter(|r| !points_somewhere(r))
    })
    .into_iter()
    .map(|g| {
        let ops = g.operations();
        let d = Diagnostic::new(
            &META,
            format!(
                "The 202 response {} declares no `Location` or `Operation-Location` header and no link.",
                whose(&ops)
            ),
            g.at.location(),
            "202 without a status location",
        )
        .with_help("Declare a `Location` header (or `Operation-Location`, or a link) that points to a status resource for the accepted work.");
        with_users(d, &g.at, &ops)
    })
    .collect()
}
