//! `retrylint diff`: the two sides (two trees, or the working tree and a git revision
//! extracted with `git archive` into a temporary folder), the report, the exit code.

use super::{
    configured_options, fail, fail_threshold, load_config, use_color, with_config_file,
    write_report, EXIT_ERROR,
};
use crate::check::CheckOptions;
use crate::cli::{DiffArgs, DiffFormat};
use crate::diff::facts::{root_of, Naming};
use crate::diff::SideInput;
use crate::report::human::HumanOptions;
use crate::write::{self, Target};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The sides to compare; `_revision` keeps the extracted revision alive until the
/// diff is done (dropping it deletes the folder).
struct Sides {
    base: (Vec<PathBuf>, Naming, String),
    head: (Vec<PathBuf>, Naming, String),
    _revision: Option<tempfile::TempDir>,
}

/// `retrylint diff`: 0 nothing fails, 1 a regression (unless `--allow-regressions`)
/// or a new finding at the `--fail-on-new` level, 2 a usage error or a file of HEAD
/// that could not be read.
pub fn run(args: &DiffArgs) -> u8 {
    let sides = match &args.base {
        Some(rev) => revision_sides(rev, &args.paths),
        None => tree_sides(&args.paths),
    };
    let sides = match sides {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    // Each side reads its own `.retrylint.yaml`: BASE's `services:` bind BASE's
    // configs to BASE's specs (a copy of a project diffed against itself changes
    // nothing). `--config` names HEAD's; BASE of a revision reads the same path in
    // the revision when it is there.
    let config = match load_config(args.config.as_deref(), &sides.head.0) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let base_explicit = match (&args.config, &sides._revision) {
        (Some(given), Some(_)) => revision_path(given, &sides.base.1.root),
        (given, _) => given.clone(),
    };
    let base_config = match load_config(base_explicit.as_deref(), &sides.base.0) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let options = |config: &crate::config::Config,
                   paths: &[PathBuf],
                   naming: &Naming,
                   cwd: Option<PathBuf>| CheckOptions {
        cwd,
        ..configured_options(config, paths, &[], Some(&naming.root))
    };
    // A revision's files are shown relative to its folder (`REF:path` in the report).
    let base_cwd = sides._revision.as_ref().map(|_| sides.base.1.root.clone());
    let base = SideInput {
        options: options(&base_config, &sides.base.0, &sides.base.1, base_cwd),
        naming: sides.base.1.clone(),
        label: sides.base.2.clone(),
    };
    let head = SideInput {
        options: options(&config, &sides.head.0, &sides.head.1, None),
        naming: sides.head.1.clone(),
        label: sides.head.2.clone(),
    };
    let diff = crate::diff::run(base, head);
    let threshold = fail_threshold(args.fail_on_new, &config);
    let regressions_fail = !args.allow_regressions && !diff.changes.regressions.is_empty();
    let new_fail = threshold.is_some_and(|t| diff.new_findings.iter().any(|d| d.severity >= t));
    let fails = regressions_fail || new_fail;
    let to_terminal = Target::of(args.output.as_deref()).is_terminal();
    let text = match args.format {
        DiffFormat::Human => crate::diff::render::human(
            &diff,
            HumanOptions {
                color: use_color(args.color, to_terminal),
                width: 100,
            },
        ),
        DiffFormat::Json => crate::diff::render::json(&diff),
        DiffFormat::Markdown => crate::diff::render::markdown(&diff, fails),
        DiffFormat::Github => {
            let workspace = std::env::var_os("GITHUB_WORKSPACE");
            let base = crate::report::github::base(workspace.as_deref(), &diff.head_naming.root);
            crate::diff::render::github(&diff, &base, !args.allow_regressions)
        }
        DiffFormat::Sarif => {
            let sarif = crate::report::sarif::emit(
                &diff.new_findings,
                &diff.head_naming.root,
                &Default::default(),
            );
            for note in &sarif.omitted {
                write::errln(format_args!("retrylint: SARIF output: {note}"));
            }
            sarif.text
        }
    };
    let inputs = with_config_file(diff.inputs.clone(), &config);
    if let Err(code) = write_report(args.output.as_deref(), &text, &inputs, "report") {
        return code;
    }
    if diff.base_unreadable {
        write::errln(format_args!(
            "retrylint: note: a file of {} could not be read or parsed; its findings count as \
             fixed and its operations as removed",
            diff.base_label
        ));
    }
    if diff.head_unreadable {
        write::errln(format_args!(
            "retrylint: a file of {} could not be read or parsed (RL001 above)",
            diff.head_label
        ));
        return EXIT_ERROR;
    }
    u8::from(fails)
}

/// The file of the revision extracted under `tree` at the place `given` (a path of
/// the working tree) has in the repository; `None` when the revision has no such
/// file (BASE then searches for its own configuration).
fn revision_path(given: &Path, tree: &Path) -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    let top = git(&cwd, &["rev-parse", "--show-toplevel"]).ok()?;
    let top = std::fs::canonicalize(top).ok()?;
    let abs = std::fs::canonicalize(cwd.join(given)).ok()?;
    let there = tree.join(abs.strip_prefix(&top).ok()?);
    there.is_file().then_some(there)
}

/// `diff BASE HEAD`: two folders or two files, each its own root.
fn tree_sides(paths: &[PathBuf]) -> Result<Sides, String> {
    let [base, head] = paths else {
        return Err(format!(
            "diff compares BASE and HEAD (two folders or two files) or, with --base REF, \
             the working tree with a git revision; got {} path(s)",
            paths.len()
        ));
    };
    for (name, p) in [("BASE", base), ("HEAD", head)] {
        if !p.exists() {
            return Err(format!("{name} {} does not exist", p.display()));
        }
    }
    let side = |p: &PathBuf| {
        (
            vec![p.clone()],
            Naming {
                root: root_of(p),
                revision: None,
            },
            p.display().to_string(),
        )
    };
    Ok(Sides {
        base: side(base),
        head: side(head),
        _revision: None,
    })
}

/// Runs git in `dir`; its standard output, or an error with its standard error.
fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

/// `git archive COMMIT | tar -x -C dir`.
fn extract(top: &Path, commit: &str, dir: &Path) -> Result<(), String> {
    let mut archive = Command::new("git")
        .arg("-C")
        .arg(top)
        .args(["archive", "--format=tar", commit])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run git archive: {e}"))?;
    let stdout = archive.stdout.take().ok_or("git archive has no output")?;
    let tar = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(dir)
        .stdin(stdout)
        .output()
        .map_err(|e| format!("cannot run tar: {e}"))?;
    let archived = archive
        .wait_with_output()
        .map_err(|e| format!("git archive: {e}"))?;
    if !archived.status.success() {
        return Err(format!(
            "git archive {commit}: {}",
            String::from_utf8_lossy(&archived.stderr).trim()
        ));
    }
    if !tar.status.success() {
        return Err(format!(
            "tar could not extract {commit}: {}",
            String::from_utf8_lossy(&tar.stderr).trim()
        ));
    }
    Ok(())
}

/// `diff --base REF [PATHS]`: the working tree's PATHS against the same paths of REF,
/// extracted into a temporary folder (deleted when the diff is done).
fn revision_sides(rev: &str, paths: &[PathBuf]) -> Result<Sides, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("no current directory: {e}"))?;
    let head_paths: Vec<PathBuf> = if paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths.to_vec()
    };
    for p in &head_paths {
        if !p.exists() {
            return Err(format!("{} does not exist", p.display()));
        }
    }
    let top = git(&cwd, &["rev-parse", "--show-toplevel"])
        .map_err(|e| format!("--base needs a git repository: {e}"))?;
    let top = std::fs::canonicalize(&top).map_err(|e| format!("{top}: {e}"))?;
    let commit = git(
        &top,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )
    .ok()
    .filter(|c| !c.is_empty())
    .ok_or_else(|| {
        format!(
            "--base {rev}: no such revision in the repository {} (a branch, tag or commit; \
             in a shallow CI checkout fetch it first, e.g. `git fetch origin main`)",
            top.display()
        )
    })?;
    let dir = tempfile::Builder::new()
        .prefix("retrylint-diff-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary folder: {e}"))?;
    let root = std::fs::canonicalize(dir.path()).map_err(|e| e.to_string())?;
    let tree = root.join("tree");
    std::fs::create_dir(&tree).map_err(|e| format!("{}: {e}", tree.display()))?;
    extract(&top, &commit, &tree)?;
    let mut base_paths = Vec::new();
    for p in &head_paths {
        let abs = std::fs::canonicalize(p).map_err(|e| format!("{}: {e}", p.display()))?;
        let rel = abs.strip_prefix(&top).map_err(|_| {
            format!(
                "{} is outside the git repository {}",
                p.display(),
                top.display()
            )
        })?;
        let there = tree.join(rel);
        if there.exists() {
            base_paths.push(there);
        } else if abs.is_dir() {
            // A folder new since REF: its BASE is empty.
            std::fs::create_dir_all(&there).map_err(|e| format!("{}: {e}", there.display()))?;
            base_paths.push(there);
        }
    }
    if base_paths.is_empty() {
        // Only files new since REF: BASE is an empty folder outside the revision.
        let empty = root.join("empty");
        std::fs::create_dir(&empty).map_err(|e| format!("{}: {e}", empty.display()))?;
        base_paths.push(empty);
    }
    Ok(Sides {
        base: (
            base_paths,
            Naming {
                root: tree,
                revision: Some(rev.to_string()),
            },
            rev.to_string(),
        ),
        head: (
            head_paths,
            Naming {
                root: top,
                revision: None,
            },
            "the working tree".to_string(),
        ),
        _revision: Some(dir),
    })
}
