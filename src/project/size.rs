//! Whether a run is small enough to check on one thread: a second core gains nothing
//! on a spec and its policy, and starting its thread costs a small run about a
//! tenth of its time (README "Performance"). Decided before the run from the size of
//! what it may read, with a walk that stops at the first bound, so the estimate of a
//! large repository costs no more than that of a small one.

use std::path::{Path, PathBuf};

/// At most this many files and folders for a small run.
pub const SMALL_RUN_ENTRIES: usize = 64;

/// At most this many bytes of files for a small run.
pub const SMALL_RUN_BYTES: u64 = 1024 * 1024;

/// True when everything a run over `paths` (the current folder when empty) and the
/// `policies` named with `--policy` may read is small: at most
/// [`SMALL_RUN_ENTRIES`] entries and [`SMALL_RUN_BYTES`] under the folders it walks.
/// A folder argument counts as its tree; a file argument as the tree of its project
/// root (`root`, else its git work tree), which a named file's related files are
/// found in. Hidden entries are skipped as the walk skips them; ignored ones count,
/// so the estimate errs only towards "not small" (several threads, as any run).
pub fn is_small(paths: &[PathBuf], policies: &[PathBuf], root: Option<&Path>) -> bool {
    let mut budget = Budget {
        entries: SMALL_RUN_ENTRIES,
        bytes: SMALL_RUN_BYTES,
    };
    let default = [PathBuf::from(".")];
    let paths = if paths.is_empty() && policies.is_empty() {
        &default[..]
    } else {
        paths
    };
    let mut trees: Vec<PathBuf> = Vec::new();
    for p in paths.iter().chain(policies) {
        let tree = if p.is_dir() {
            p.clone()
        } else {
            super::project_root(p, root)
        };
        if !trees.contains(&tree) {
            trees.push(tree);
        }
    }
    trees.iter().all(|t| budget.take_tree(t))
}

/// What is left of the bounds.
struct Budget {
    entries: usize,
    bytes: u64,
}

impl Budget {
    /// Counts `dir`'s tree against the budget; false as soon as it is spent.
    fn take_tree(&mut self, dir: &Path) -> bool {
        let mut stack = vec![dir.to_path_buf()];
        while let Some(dir) = stack.pop() {
            // An unreadable folder is the run's to report; it adds nothing here.
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                if entry.file_name().as_encoded_bytes().starts_with(b".") {
                    continue;
                }
                if self.entries == 0 {
                    return false;
                }
                self.entries -= 1;
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                if kind.is_dir() {
                    stack.push(entry.path());
                } else if kind.is_file() {
                    let len = entry.metadata().map_or(0, |m| m.len());
                    if len > self.bytes {
                        return false;
                    }
                    self.bytes -= len;
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("retrylint-size-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_spec_and_its_policy_are_small() {
        let dir = scratch("small");
        std::fs::write(dir.join("openapi.yaml"), "openapi: 3.0.3\n").unwrap();
        std::fs::write(dir.join("shop.retry-policy.yaml"), "version: 1\n").unwrap();
        // Hidden entries are not walked, so they do not count.
        std::fs::create_dir_all(dir.join(".git/objects")).unwrap();
        for i in 0..100 {
            std::fs::write(dir.join(format!(".git/objects/{i}")), "x").unwrap();
        }
        assert!(is_small(std::slice::from_ref(&dir), &[], None));
        // A named file counts as its project root's tree (here, `root`).
        assert!(is_small(&[dir.join("openapi.yaml")], &[], Some(&dir)));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn many_files_or_many_bytes_are_not_small() {
        let many = scratch("many");
        std::fs::create_dir_all(many.join("api/v1")).unwrap();
        for i in 0..SMALL_RUN_ENTRIES {
            std::fs::write(many.join(format!("api/v1/{i}.yaml")), "{}").unwrap();
        }
        assert!(!is_small(std::slice::from_ref(&many), &[], None));
        // Named, a file of that project brings its project's tree.
        assert!(!is_small(&[many.join("api/v1/0.yaml")], &[], Some(&many)));

        let big = scratch("big");
        let half = vec![b' '; (SMALL_RUN_BYTES / 2 + 1) as usize];
        std::fs::write(big.join("a.json"), &half).unwrap();
        assert!(is_small(std::slice::from_ref(&big), &[], None));
        std::fs::write(big.join("b.json"), &half).unwrap();
        assert!(!is_small(std::slice::from_ref(&big), &[], None));
        let _ = std::fs::remove_dir_all(&many);
        let _ = std::fs::remove_dir_all(&big);
    }
}
