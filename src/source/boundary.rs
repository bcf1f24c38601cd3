//! The read boundary: the one place that decides whether a run may open a path.
//!
//! A path may be read when its real path (every symbolic link resolved) lies inside
//! one of the run's project roots. A path named on the command line is no exception:
//! its roots are found from where its name stands (`project::read_boundary`), so a
//! named link leading out of the project is refused like a walked one (RL001 for the
//! named path; `--root` covering the target admits it). Every reader of a run asks here first: the
//! directory walk and the loading of what it found, named files, `$ref` targets, a
//! policy's `spec:`, `.retrylint.yaml` `services:` specs, the Spring property files
//! of `${...}` placeholders, the Go files beside a Go file and its `go.mod`. A path
//! refused is never opened; it is remembered ([`ReadBoundary::left_out`]) so the run
//! can say what it left out (`--verbose` lists each, the summary counts them).
//!
//! Why: a project under review (a pull request in CI) may hold a link such as
//! `application.yml -> ~/.netrc`; reading its target would print lines of it in
//! excerpts and values in messages.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// What the boundary says of one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Its real path lies inside a project root (or no boundary is in force).
    Inside,
    /// Its real path (given here) lies outside every project root: not read.
    Outside(PathBuf),
    /// It does not exist (or a link dangles): reading it fails on its own, with no
    /// content to show, so the boundary does not refuse it.
    Missing,
}

impl Verdict {
    /// Whether the path may be opened.
    pub fn may_read(&self) -> bool {
        !matches!(self, Verdict::Outside(_))
    }
}

/// Whether `real` (a canonical path) lies inside `root` (a canonical folder): the
/// test every verdict and the `$ref` resolver's own root check use.
pub fn inside(root: &Path, real: &Path) -> bool {
    real.starts_with(root)
}

/// The nearest folder at or above `dir` that is a git work tree (holds `.git`, a
/// folder or a worktree's file), else `dir` itself: the project root a path names
/// when nothing overrides it.
pub fn work_tree_or(dir: &Path) -> PathBuf {
    dir.ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(dir)
        .to_path_buf()
}

/// The paths one run may read. Cheap to share (`Arc`); thread-safe.
#[derive(Debug, Default)]
pub struct ReadBoundary {
    /// Canonical project roots; empty: no boundary (every path may be read).
    roots: Vec<PathBuf>,
    /// Paths refused, as met (made absolute, not resolved): each name once.
    left_out: Mutex<BTreeSet<PathBuf>>,
    /// [`ReadBoundary::real_path`]'s answers, by path as asked.
    real_paths: Mutex<HashMap<PathBuf, Option<PathBuf>>>,
}

impl ReadBoundary {
    /// No boundary: every path may be read (tests, documentation examples, and
    /// readers that are given their one file).
    pub fn unbounded() -> ReadBoundary {
        ReadBoundary::default()
    }

    /// A boundary of the folders `roots` (canonicalised here).
    pub fn new(roots: &[PathBuf]) -> ReadBoundary {
        let real = |p: &PathBuf| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone());
        let mut roots: Vec<PathBuf> = roots.iter().map(real).collect();
        roots.sort();
        roots.dedup();
        ReadBoundary {
            roots,
            ..ReadBoundary::default()
        }
    }

    /// Whether a boundary is in force (some project root is set).
    pub fn is_bounded(&self) -> bool {
        !self.roots.is_empty()
    }

    /// The canonical project roots (empty when unbounded).
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// What the boundary says of `path` (relative paths are taken from the
    /// process's current folder, as `open` takes them). Records nothing.
    pub fn verdict(&self, path: &Path) -> Verdict {
        if self.roots.is_empty() {
            return Verdict::Inside;
        }
        let Some(real) = self.real_path(path) else {
            return Verdict::Missing;
        };
        if self.roots.iter().any(|r| inside(r, &real)) {
            Verdict::Inside
        } else {
            Verdict::Outside(real)
        }
    }

    /// `path` with every symbolic link resolved (`std::fs::canonicalize`), `None`
    /// when it does not exist; remembered for the run, so each path is resolved once.
    /// A `$ref` to another file was resolved three times (the resolver, the cache
    /// key, this boundary), each a `readlink` per folder of the path: a spec of 1,700
    /// files (DigitalOcean's) spent 1.8 s of its 2.8 s in a million failed
    /// `readlink` calls. The file system is taken not to change under a run.
    pub fn real_path(&self, path: &Path) -> Option<PathBuf> {
        let known = || {
            self.real_paths
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        if let Some(hit) = known().get(path) {
            return hit.clone();
        }
        // Resolved outside the lock: another thread may resolve the same path
        // meanwhile, to the same answer.
        let real = self.resolve(path);
        known().insert(path.to_path_buf(), real.clone());
        real
    }

    /// [`ReadBoundary::real_path`] before it is remembered. A path that is no link
    /// is its folder's real path (remembered) joined with its name: one `lstat`
    /// where `realpath` spent a `getcwd` and a `readlink` per folder of the path, for
    /// every file of the walk (a run over 10,000 source files made 137,000 failed
    /// `readlink` calls). A link, or a path ending in `..`, is resolved whole.
    fn resolve(&self, path: &Path) -> Option<PathBuf> {
        if let (Some(dir), Some(name)) = (path.parent(), path.file_name()) {
            match std::fs::symlink_metadata(path) {
                // Missing or unreadable: `canonicalize` fails the same way.
                Err(_) => return None,
                Ok(meta) if !meta.file_type().is_symlink() => {
                    let dir = if dir.as_os_str().is_empty() {
                        Path::new(".")
                    } else {
                        dir
                    };
                    return self.real_path(dir).map(|d| d.join(name));
                }
                Ok(_) => {}
            }
        }
        std::fs::canonicalize(path).ok()
    }

    /// Whether `path` may be opened; a path refused is remembered as left out.
    pub fn admits(&self, path: &Path) -> bool {
        match self.verdict(path) {
            Verdict::Outside(_) => {
                let shown = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
                self.left_out
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .insert(normalize(&shown));
                false
            }
            _ => true,
        }
    }

    /// The paths refused so far (absolute, `.` and `..` folded), sorted.
    pub fn left_out(&self) -> Vec<PathBuf> {
        self.left_out
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .cloned()
            .collect()
    }
}

/// Lexically normalises `a/b/../c` to `a/c`: `.` dropped and each `..` folded into
/// the name before it, with no file-system access (`source::refs` re-exports it as
/// `refs::normalize`).
pub fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_link_out_of_the_root_is_refused() {
        let dir = std::env::temp_dir().join(format!("rl-boundary-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("proj/sub")).unwrap();
        std::fs::create_dir_all(dir.join("secret")).unwrap();
        std::fs::write(dir.join("secret/s.yaml"), "a: 1\n").unwrap();
        std::fs::write(dir.join("proj/in.yaml"), "a: 1\n").unwrap();
        std::os::unix::fs::symlink("../secret/s.yaml", dir.join("proj/out.yaml")).unwrap();
        std::os::unix::fs::symlink("../../secret", dir.join("proj/sub/linked")).unwrap();
        std::os::unix::fs::symlink("in.yaml", dir.join("proj/again.yaml")).unwrap();
        let b = ReadBoundary::new(&[dir.join("proj")]);
        assert!(b.is_bounded());
        assert!(b.admits(&dir.join("proj/in.yaml")));
        assert!(b.admits(&dir.join("proj/again.yaml")));
        assert!(b.admits(&dir.join("proj/missing.yaml")));
        assert!(!b.admits(&dir.join("proj/out.yaml")));
        assert!(!b.admits(&dir.join("proj/sub/linked/s.yaml")));
        assert!(!b.admits(&dir.join("proj/../secret/s.yaml")));
        // Each name refused once, `..` folded.
        assert!(!b.admits(&dir.join("proj/out.yaml")));
        assert_eq!(
            b.left_out(),
            vec![
                dir.join("proj/out.yaml"),
                dir.join("proj/sub/linked/s.yaml"),
                dir.join("secret/s.yaml"),
            ]
        );
        // A root covering the target (`--root`) admits the link.
        let wide = ReadBoundary::new(std::slice::from_ref(&dir));
        assert_eq!(wide.verdict(&dir.join("proj/out.yaml")), Verdict::Inside);
        assert!(wide.left_out().is_empty());
        assert!(ReadBoundary::unbounded().admits(&dir.join("secret/s.yaml")));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
