//! RL604 `observed-key-missing-or-changed`: one check of the probe's judge (see [`super::judge`]).

use super::{finding, Expectations, ProbeFinding};
use crate::diagnostic::catalog::OBSERVED_KEY_MISSING_OR_CHANGED;
use crate::probe::journal::{Attempt, Journal};

/// RL604: the declared key is missing or sent under another name, or the key value
/// changed between attempts.
pub(super) fn check(
    j: &Journal,
    attempts: &[&Attempt],
    exp: &Expectations,
    out: &mut Vec<ProbeFinding>,
) {
    if !exp.non_idempotent {
        return;
    }
    // A missing key matters once the write is sent again: a single attempt (the
    // refused-connection control, a first success) is not judged.
    if let Some(declared) = exp.key_header.as_ref().filter(|_| attempts.len() > 1) {
        if let Some(a) = attempts.iter().find(|a| match &a.key {
            None => true,
            Some((name, _)) => !name.eq_ignore_ascii_case(declared),
        }) {
            let observed = match &a.key {
                None => "no key header".to_string(),
                Some((name, _)) => format!("the key sent as `{name}`"),
            };
            out.push(finding(
                &OBSERVED_KEY_MISSING_OR_CHANGED,
                j,
                Some(a),
                format!(
                    "attempt {} carries {observed}; the operation declares `{declared}`",
                    a.index + 1
                ),
                format!("`{declared}` on every attempt"),
                observed,
            ));
            return;
        }
    }
    let mut first: Option<(&Attempt, &str)> = None;
    for a in attempts {
        let Some((_, value)) = &a.key else { continue };
        match first {
            None => first = Some((a, value)),
            Some((f, v)) if v != value => {
                out.push(finding(
                    &OBSERVED_KEY_MISSING_OR_CHANGED,
                    j,
                    Some(a),
                    format!(
                        "the idempotency key changed between attempt {} and attempt {}",
                        f.index + 1,
                        a.index + 1
                    ),
                    format!("`{v}` on every attempt"),
                    format!("`{value}`"),
                ));
                return;
            }
            Some(_) => {}
        }
    }
}
