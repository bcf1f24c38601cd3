//! RL004 ref-cycle: a chain of `$ref`s that never reaches a value. One finding per
//! cycle, at the member that comes first (file, then offset), naming every member.

use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::diagnostic::RuleMeta;
use crate::source::refs::{At, RefProblem};

/// Rule metadata ([`catalog::REF_CYCLE`]).
pub const META: RuleMeta = catalog::REF_CYCLE;

/// The finding for a cycle (`None` for other problems). The members are rotated to
/// start at the first one in source order, so the same cycle reached from anywhere
/// gives the identical finding.
pub fn diagnostic(problem: &RefProblem) -> Option<Diagnostic> {
    let RefProblem::Cycle { members } = problem else {
        return None;
    };
    if members.is_empty() {
        return None;
    }
    let order = |a: &At| {
        let span = a.location().span.start;
        (a.doc.file.display.clone(), a.doc.file.path.clone(), span)
    };
    let start = (0..members.len())
        .min_by_key(|&i| order(&members[i]))
        .unwrap_or(0);
    let rotated: Vec<&At> = members[start..].iter().chain(&members[..start]).collect();
    let names: Vec<String> = rotated
        .iter()
        .map(|a| format!("`{}`", a.scalar().unwrap_or("")))
        .collect();
    let message = if rotated.len() == 1 {
        format!(
            "The `$ref` {} refers to itself and never reaches a value.",
            names[0]
        )
    } else {
        format!(
            "The `$ref`s {} form a cycle that never reaches a value.",
            names.join(" -> ")
        )
    };
    let mut d = Diagnostic::new(&META, message, rotated[0].location(), "start of the cycle")
        .with_help("Point one of the `$ref`s at an actual definition.");
    for member in &rotated[1..] {
        d = d.with_label(member.location(), "part of the cycle");
    }
    Some(d)
}
