//! Folders below a walked folder that are projects of their own (a monorepo's
//! services): a folder holding a `.retrylint.yaml`, or a git work tree (`.git`, a
//! folder or a submodule's file). [`crate::project::answer_root`] gives a file in one
//! of them that folder's answer, so a walk that splits (`check` of a folder: see
//! `docs/commands/check.md`, "One answer however it is asked") leaves each such folder
//! out of its own project and lists it, to be checked as a project of its own with
//! its own configuration. Without this, `check .` at a monorepo's root judged every
//! service with the root's configuration and bound configs across services, and said
//! otherwise than `check FILE` for the same file.
//!
//! Folders named only by `projects:` globs are not split off: with `**` (this
//! repository's own `fixtures/**`) every subfolder would be a project and a fixture's
//! `api/` and `deploy/` would never bind. Name such folders on the command line
//! (`check services/*`) to check each as its own project.

use std::path::{Path, PathBuf};

/// True when `dir`, a folder strictly below a walk's root, is a project of its own:
/// it holds a `.retrylint.yaml` or is a git work tree.
pub fn is_project_root(dir: &Path) -> bool {
    dir.join(crate::config::FILE_NAME).is_file() || dir.join(".git").exists()
}

/// The nested project roots a splitting walk left out, sorted, those inside another
/// one left out (each is split again by its own run).
pub fn outermost(mut roots: Vec<PathBuf>) -> Vec<PathBuf> {
    roots.sort();
    roots.dedup();
    let mut out: Vec<PathBuf> = Vec::new();
    for r in roots {
        if !out.last().is_some_and(|o| r.starts_with(o)) {
            out.push(r);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_outermost_roots_are_kept() {
        let roots = vec![
            PathBuf::from("/m/b"),
            PathBuf::from("/m/a/inner"),
            PathBuf::from("/m/a"),
            PathBuf::from("/m/ab"),
            PathBuf::from("/m/a"),
        ];
        assert_eq!(
            outermost(roots),
            vec![
                PathBuf::from("/m/a"),
                PathBuf::from("/m/ab"),
                PathBuf::from("/m/b")
            ]
        );
    }
}
