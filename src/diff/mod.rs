//! `retrylint diff`: what got worse between two versions of a project. Both sides go
//! through the whole `check` pipeline (each under its own `.retrylint.yaml`); the diff then
//! compares each operation's retry contract ([`compare`]) and the findings, by the
//! identity baselines use ([`crate::baseline`]): a finding of HEAD that BASE's
//! findings do not account for is new, one of BASE that HEAD's do not is fixed.

pub mod compare;
pub mod facts;
pub mod render;

use crate::check::CheckOptions;
use crate::diagnostic::Diagnostic;
use facts::Naming;

/// The JSON format version of `diff --format json`.
pub const VERSION: u32 = 1;

/// One side to compare.
#[derive(Debug, Clone)]
pub struct SideInput {
    /// What to check (its `root` must be set: findings and files are keyed relative
    /// to it).
    pub options: CheckOptions,
    /// How its files are named.
    pub naming: Naming,
    /// How the reader calls it: the path given, or the git revision.
    pub label: String,
}

/// The result of a diff.
#[derive(Debug)]
pub struct Diff {
    /// BASE as the reader calls it.
    pub base_label: String,
    /// HEAD as the reader calls it.
    pub head_label: String,
    /// Contract regressions and improvements.
    pub changes: compare::Changes,
    /// Findings of HEAD that BASE did not have (sorted as `check` sorts).
    pub new_findings: Vec<Diagnostic>,
    /// Findings of BASE that HEAD no longer has.
    pub fixed_findings: Vec<Diagnostic>,
    /// How BASE's files are named (for fixed findings).
    pub base_naming: Naming,
    /// How HEAD's files are named.
    pub head_naming: Naming,
    /// A file of BASE could not be read or parsed.
    pub base_unreadable: bool,
    /// A file of HEAD could not be read or parsed.
    pub head_unreadable: bool,
    /// Operations compared (HEAD).
    pub operations: usize,
    /// Canonical paths of HEAD's input files (a report must not replace one).
    pub inputs: Vec<std::path::PathBuf>,
}

/// Runs both sides and compares them.
pub fn run(base: SideInput, head: SideInput) -> Diff {
    let base_root = base.naming.root.clone();
    let head_root = head.naming.root.clone();
    let (base_analyzed, base_diags) = crate::check::run_full(&base.options);
    let base_matrix = crate::readiness::matrix(&base_analyzed, &base_diags);
    let base_facts = facts::of(&base_analyzed, &base_matrix, &base.naming);
    // HEAD's grouped findings are split by BASE's, as under `--baseline`, so a new
    // finding names only the operations new to it.
    let recorded = crate::baseline::of(&base_diags, &base_root);
    let head_options = CheckOptions {
        split: Some(crate::baseline::split(&recorded, &head_root)),
        ..head.options
    };
    let (head_analyzed, head_diags) = crate::check::run_full(&head_options);
    let head_matrix = crate::readiness::matrix(&head_analyzed, &head_diags);
    let head_facts = facts::of(&head_analyzed, &head_matrix, &head.naming);
    let changes = compare::compare(&base_facts, &head_facts);
    let head_recorded = crate::baseline::of(&head_diags, &head_root);
    let fixed_findings = crate::baseline::filter(base_diags, &head_recorded, &base_root).new;
    let new_findings = crate::baseline::filter(head_diags, &recorded, &head_root).new;
    Diff {
        base_label: base.label,
        head_label: head.label,
        changes,
        new_findings,
        fixed_findings,
        base_naming: base.naming,
        head_naming: head.naming,
        base_unreadable: base_analyzed.could_not_lint,
        head_unreadable: head_analyzed.could_not_lint,
        operations: head_facts.len(),
        inputs: head_analyzed.inputs.clone(),
    }
}
