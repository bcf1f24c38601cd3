//! `check --fix` and `check --diff`: the rules' fixes applied to the files of a run.
//!
//! A pass runs the check, asks each finding's rule for its fix
//! ([`crate::rules::fix_of`]), keeps the fixes of the classes asked for, takes those
//! whose edits do not overlap one already taken ([`Batch`]) and applies them to each
//! file's text. `--fix` writes the files and runs again, until a pass takes nothing
//! or [`MAX_PASSES`] passes have run (ruff iterates the same way); `--diff` makes one
//! pass and writes nothing.
//!
//! Nothing is written when the run has an RL001 (a file that could not be read or
//! parsed: its findings are not all known), a fix is dropped whose file would no
//! longer parse, and only files the run read as input whose real path lies inside a
//! project root are edited (a file named on the command line that links out of the
//! project is read, never written), at their real path (never written through a
//! symbolic link), through
//! [`crate::write::replace_file`] (atomic, the file keeps its permissions).

use super::{run, CheckOptions};
use crate::diagnostic::Diagnostic;
use crate::fix::{apply, Batch, Safety};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The most passes `--fix` makes (each pass re-checks the files it changed).
pub const MAX_PASSES: usize = 10;

/// What to do with the fixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FixMode {
    /// Apply unsafe fixes too (`--unsafe-fixes`).
    pub unsafe_fixes: bool,
    /// Write the files (`--fix`); `false`: compute the changes only (`--diff`).
    pub write: bool,
}

/// One file a fix changed.
#[derive(Debug, Clone)]
pub struct Changed {
    /// The path shown (as the findings name it, else the real path).
    pub display: String,
    /// Its text before the first pass.
    pub before: String,
    /// Its text after the last pass.
    pub after: String,
}

/// What `--fix` or `--diff` did.
#[derive(Debug, Default)]
pub struct FixOutcome {
    /// Files changed (or that would be), by real path.
    pub changed: BTreeMap<PathBuf, Changed>,
    /// Fixes applied (or that would be), over every pass.
    pub applied: usize,
    /// Fixes of a class not asked for (unsafe ones without `--unsafe-fixes`), in the
    /// last pass.
    pub unsafe_left: usize,
    /// True when nothing was done because the run had an RL001.
    pub refused: bool,
    /// When refused: each RL001 as `path:line:column: message`, for the user to
    /// see which file stopped the fix.
    pub unreadable: Vec<String>,
    /// Files that could not be written (the error names the file).
    pub errors: Vec<crate::write::FileError>,
    /// Passes run.
    pub passes: usize,
}

/// Applies the fixes of the findings of `options`' run, as `mode` says.
pub fn fix(options: &CheckOptions, mode: FixMode) -> FixOutcome {
    let mut out = FixOutcome::default();
    let passes = if mode.write { MAX_PASSES } else { 1 };
    for _ in 0..passes {
        let outcome = run(options);
        out.passes += 1;
        let unreadable = outcome
            .diagnostics
            .iter()
            .any(|d| d.code == crate::rules::rl001_invalid_syntax::META.code);
        if unreadable || outcome.could_not_lint {
            out.refused = out.passes == 1;
            if out.refused {
                out.unreadable = outcome
                    .diagnostics
                    .iter()
                    .filter(|d| d.code == crate::rules::rl001_invalid_syntax::META.code)
                    .map(|d| format!("{}: {}", d.primary.location.position(), d.message))
                    .collect();
            }
            break;
        }
        // Files the run read, inside a project root: a file named on the command
        // line may be a link out of the project, whose target is never written.
        let boundary = crate::project::read_boundary(
            &options.paths,
            &options.policies,
            options.root.as_deref(),
        );
        // A run asked about named files or folders (pre-commit on the staged files, an
        // editor) writes only those, as ruff does: a fix elsewhere (the policy of a
        // named spec) is shown by `--diff` of that file, never written behind the
        // user's back.
        let scope = super::answer_scope(options);
        let inputs: HashSet<PathBuf> = outcome
            .inputs
            .iter()
            .filter(|p| {
                !boundary.is_bounded()
                    || boundary
                        .roots()
                        .iter()
                        .any(|r| crate::source::boundary::inside(r, p))
            })
            .filter(|p| scope.as_ref().is_none_or(|s| s.contains(p)))
            .cloned()
            .collect();
        let pass = one_pass(&outcome.diagnostics, &inputs, mode);
        out.unsafe_left = pass.unsafe_left;
        if pass.edits.is_empty() {
            break;
        }
        let mut wrote = false;
        for (real, (display, before, after, taken)) in pass.edits {
            if mode.write {
                if let Err(e) = crate::write::replace_file(&real, |w| w.write_all(after.as_bytes()))
                {
                    out.errors.push(e);
                    continue;
                }
                wrote = true;
            }
            out.applied += taken;
            out.changed
                .entry(real)
                .and_modify(|c| c.after.clone_from(&after))
                .or_insert(Changed {
                    display,
                    before,
                    after,
                });
        }
        if !wrote {
            break;
        }
    }
    out
}

/// One pass's result: per real path, the display path, the text before and after,
/// and the number of fixes taken in it.
struct Pass {
    edits: BTreeMap<PathBuf, (String, String, String, usize)>,
    unsafe_left: usize,
}

/// The fixes of `diagnostics` of the classes `mode` asks for, not overlapping,
/// applied to the current texts of their files (files outside `inputs`, and files
/// whose fixed text would not parse, left out).
fn one_pass(diagnostics: &[Diagnostic], inputs: &HashSet<PathBuf>, mode: FixMode) -> Pass {
    let real = |p: &Path| std::fs::canonicalize(p).ok().filter(|r| inputs.contains(r));
    let texts = |p: &Path| -> Option<Arc<str>> {
        let r = real(p)?;
        std::fs::read_to_string(r).ok().map(Arc::from)
    };
    let mut batch = Batch::default();
    let mut shown: BTreeMap<PathBuf, String> = BTreeMap::new();
    let mut per_fix_files: Vec<Vec<PathBuf>> = Vec::new();
    let mut unsafe_left = 0;
    for d in diagnostics {
        let Some(mut fix) = crate::rules::fix_of(d, &texts) else {
            continue;
        };
        if fix.safety == Safety::Unsafe && !mode.unsafe_fixes {
            unsafe_left += 1;
            continue;
        }
        // Every edit at its file's real path, which the run read.
        let Some(paths) = fix
            .edits
            .iter()
            .map(|e| real(&e.path))
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        for (e, r) in fix.edits.iter_mut().zip(&paths) {
            shown
                .entry(r.clone())
                .or_insert_with(|| shown_as(d, &e.path));
            e.path = r.clone();
        }
        let before = batch.titles.len();
        if batch.take(&fix) && batch.titles.len() > before {
            per_fix_files.push(paths);
        }
    }
    let mut edits = BTreeMap::new();
    for (path, file_edits) in batch.edits {
        let Ok(before) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Some(after) = apply_to_file(&before, file_edits) else {
            continue;
        };
        if after == before || !parses(&path, &after) {
            continue;
        }
        let taken = per_fix_files
            .iter()
            .filter(|files| files.first() == Some(&path))
            .count();
        let display = shown
            .remove(&path)
            .unwrap_or_else(|| path.display().to_string());
        edits.insert(path, (display, before, after, taken));
    }
    Pass { edits, unsafe_left }
}

/// `edits` applied to a file's text as read from disk: their spans count from after
/// a leading BOM (as every span does, [`crate::diagnostic::SourceFile`]), which stays;
/// in a file whose lines end in CRLF the lines they add do too.
fn apply_to_file(raw: &str, mut edits: Vec<(std::ops::Range<usize>, String)>) -> Option<String> {
    let (bom, body) = match raw.strip_prefix('\u{feff}') {
        Some(body) => ("\u{feff}", body),
        None => ("", raw),
    };
    if body.contains("\r\n") {
        for (_, text) in &mut edits {
            *text = text.replace("\r\n", "\n").replace('\n', "\r\n");
        }
    }
    Some(format!("{bom}{}", apply(body, &edits)?))
}

/// How the run shows `path`: as a place of finding `d` names it (its primary
/// location or a label), else relative to the current folder.
fn shown_as(d: &Diagnostic, path: &Path) -> String {
    std::iter::once(&d.primary.location)
        .chain(d.labels.iter().map(|l| &l.location))
        .find(|l| l.file.path == path)
        .map(|l| l.file.display.clone())
        .unwrap_or_else(|| {
            let here = std::env::current_dir().ok();
            here.as_deref()
                .and_then(|h| path.strip_prefix(h).ok())
                .unwrap_or(path)
                .display()
                .to_string()
        })
}

/// True when the fixed `text` of a YAML/JSON file `path` still parses (a fix never
/// leaves a file the next check could not read); other files are not parsed here.
fn parses(path: &Path, text: &str) -> bool {
    let yaml_or_json = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "yaml" | "yml" | "json"));
    !yaml_or_json || crate::source::tree::Tree::parse(Arc::from(text)).is_ok()
}
