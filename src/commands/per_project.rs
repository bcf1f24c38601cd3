//! A run naming files of several projects (a pre-commit run over the files staged in
//! two services of a monorepo, each with its own `.retrylint.yaml`) answers for each
//! project as a run naming only its files does, and reports the union: the answer
//! for a file does not depend on which other files were named beside it
//! (`docs/commands/check.md`, "One answer however it is asked").

use crate::check::CheckOutcome;
use std::path::{Path, PathBuf};

/// The paths given, grouped by the project whose answer each asks for
/// ([`crate::project::answer_root`]), groups in the order their first path was
/// given and paths in their given order. One group when every path is of one
/// project (the common case, and always with `--root`).
pub fn group_by_project(paths: &[PathBuf], root: Option<&Path>) -> Vec<Vec<PathBuf>> {
    let mut groups: Vec<(PathBuf, Vec<PathBuf>)> = Vec::new();
    for path in paths {
        let project = crate::project::answer_root(path, root);
        match groups.iter_mut().find(|(p, _)| *p == project) {
            Some((_, group)) => group.push(path.clone()),
            None => groups.push((project, vec![path.clone()])),
        }
    }
    groups.into_iter().map(|(_, group)| group).collect()
}

/// The outcomes of the runs of several projects as one run's: the findings of each
/// (sorted and de-duplicated together), the counts added, the lists joined.
pub fn merge(outcomes: Vec<CheckOutcome>) -> CheckOutcome {
    let mut merged = CheckOutcome {
        diagnostics: Vec::new(),
        documents: 0,
        from_code: 0,
        policies: 0,
        configs: 0,
        skipped: Vec::new(),
        left_out: Vec::new(),
        could_not_lint: false,
        suppressed: Vec::new(),
        inputs: Vec::new(),
        reads: Default::default(),
        streamed: 0,
        nested_projects: Vec::new(),
    };
    for o in outcomes {
        merged.diagnostics.extend(o.diagnostics);
        merged.documents += o.documents;
        merged.from_code += o.from_code;
        merged.policies += o.policies;
        merged.configs += o.configs;
        merged.skipped.extend(o.skipped);
        merged.left_out.extend(o.left_out);
        merged.could_not_lint |= o.could_not_lint;
        merged.suppressed.extend(o.suppressed);
        merged.inputs.extend(o.inputs);
        for (path, reads) in o.reads {
            *merged.reads.entry(path).or_default() += reads;
        }
        merged.streamed += o.streamed;
        merged.nested_projects.extend(o.nested_projects);
    }
    crate::diagnostic::sort_and_dedup(&mut merged.diagnostics);
    for list in [&mut merged.skipped, &mut merged.left_out] {
        list.sort();
        list.dedup();
    }
    merged.inputs.sort();
    merged.inputs.dedup();
    merged
}
