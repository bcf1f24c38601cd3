//! `check --fix`, `--unsafe-fixes` and `--diff` over every fixture whose findings a
//! rule can fix: after the fixes, each fixed finding is gone, no finding appears
//! that was not there (by code, file and JSON Pointer: spans move when text is
//! inserted), and a second `--fix` changes nothing. The `--diff` of each such
//! fixture is an insta snapshot (formatting and comments survive).

mod common;

use retrylint::check::fix::{fix, FixMode};
use retrylint::check::{run, CheckOptions};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every fixture folder of `fixtures/rules/<rule>/<case>`, `fixtures/fix/<rule>/<case>`
/// and `fixtures/import/<platform>/<case>` (the importers' end-to-end projects).
fn fixture_dirs() -> Vec<PathBuf> {
    common::fixture_dirs(&["fixtures/rules", "fixtures/fix", "fixtures/import"])
}

fn options(dir: &Path) -> CheckOptions {
    common::fixture_options(dir)
}

/// A finding as (code, file relative to `dir`, JSON Pointer).
type Key = (String, String, String);

fn key(dir: &Path, d: &retrylint::diagnostic::Diagnostic) -> Key {
    let real = std::fs::canonicalize(&d.primary.location.file.path)
        .unwrap_or_else(|_| d.primary.location.file.path.clone());
    let dir = std::fs::canonicalize(dir).unwrap();
    let file = real
        .strip_prefix(&dir)
        .map_or_else(|_| real.display().to_string(), |p| p.display().to_string());
    (d.code.to_string(), file, d.primary.location.pointer.clone())
}

fn findings(dir: &Path) -> BTreeSet<Key> {
    run(&options(dir))
        .diagnostics
        .iter()
        .map(|d| key(dir, d))
        .collect()
}

fn disk(p: &Path) -> Option<Arc<str>> {
    std::fs::read_to_string(p).ok().map(Arc::from)
}

/// The findings of `dir` that their rule can fix (either class).
fn fixable(dir: &Path) -> BTreeSet<Key> {
    run(&options(dir))
        .diagnostics
        .iter()
        .filter(|d| retrylint::rules::fix_of(d, &disk).is_some())
        .map(|d| key(dir, d))
        .collect()
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Every file under `dir` with its bytes.
fn texts_of(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| (e.path().to_path_buf(), std::fs::read(e.path()).unwrap()))
        .collect()
}

fn snapshot_name(dir: &Path) -> String {
    let case = dir.file_name().unwrap().to_string_lossy();
    let rule = dir.parent().unwrap().file_name().unwrap().to_string_lossy();
    let code = rule.split('-').next().unwrap_or(&rule).to_string();
    format!("{code}__{case}")
}

#[test]
fn every_fix_removes_its_finding_adds_none_and_a_second_fix_changes_nothing() {
    let mut fixed_cases = 0;
    let mut failures = Vec::new();
    for dir in fixture_dirs() {
        let fixable = fixable(&dir);
        if fixable.is_empty() {
            continue;
        }
        fixed_cases += 1;
        let before = findings(&dir);
        let temp = tempfile::tempdir().unwrap();
        copy_dir(&dir, temp.path());
        let work = temp.path();
        let mode = FixMode {
            unsafe_fixes: true,
            write: true,
        };
        let first = fix(&options(work), mode);
        let name = snapshot_name(&dir);
        if first.changed.is_empty() {
            failures.push(format!(
                "{name}: fixable findings {fixable:?} but no file changed"
            ));
            continue;
        }
        let after = findings(work);
        for f in &fixable {
            if after.contains(f) {
                failures.push(format!("{name}: {f:?} is still there after --fix"));
            }
        }
        for a in &after {
            if !before.contains(a) {
                failures.push(format!("{name}: {a:?} is new after --fix"));
            }
        }
        let second = fix(&options(work), mode);
        if !second.changed.is_empty() {
            failures.push(format!(
                "{name}: a second --fix changed {:?}",
                second.changed.keys().collect::<Vec<_>>()
            ));
        }
    }
    assert!(fixed_cases >= 10, "only {fixed_cases} fixtures have a fix");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_diff_of_every_fixable_fixture() {
    for dir in fixture_dirs() {
        if fixable(&dir).is_empty() {
            continue;
        }
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(repo().join("tests/snapshots/fix"));
        settings.set_prepend_module_to_snapshot(false);
        let files = texts_of(&dir);
        let (code, stdout, _) =
            common::retrylint_in(&dir, &["check", "--diff", "--unsafe-fixes", "."]);
        assert_eq!(
            code,
            1,
            "{}: --diff exits 1 when it would change a file",
            dir.display()
        );
        settings.bind(|| insta::assert_snapshot!(snapshot_name(&dir), stdout));
        assert_eq!(texts_of(&dir), files, "--diff wrote nothing");
    }
}

#[test]
fn every_fix_fixture_triggers_a_fix_or_has_none_to_make() {
    let mut seen = 0;
    for dir in fixture_dirs() {
        if !dir.starts_with(repo().join("fixtures/fix")) {
            continue;
        }
        seen += 1;
        let case = dir.file_name().unwrap().to_string_lossy().to_string();
        let (code, stdout, _) =
            common::retrylint_in(&dir, &["check", "--diff", "--unsafe-fixes", "."]);
        if case.starts_with("clean-") {
            assert!(fixable(&dir).is_empty(), "{}", dir.display());
            assert_eq!((code, stdout.as_str()), (0, ""), "{}", dir.display());
        } else {
            assert!(!fixable(&dir).is_empty(), "{}", dir.display());
            assert_eq!(code, 1, "{}", dir.display());
        }
    }
    assert!(seen >= 4, "the fix fixtures are there");
}

#[test]
fn diff_writes_nothing_and_fix_exits_as_check_on_what_remains() {
    let src = repo().join("fixtures/rules/RL305-missing-jitter/trigger-jitter-none");
    let temp = tempfile::tempdir().unwrap();
    copy_dir(&src, temp.path());
    let policy = temp.path().join("retry-policy.yaml");
    let original = std::fs::read_to_string(&policy).unwrap();
    let (code, out, err) = common::retrylint_in(temp.path(), &["check", "--diff", "."]);
    assert_eq!(code, 1, "{err}");
    assert!(
        out.contains("+    backoff: { base: 100ms, cap: 1s, jitter: full }"),
        "{out}"
    );
    assert_eq!(std::fs::read_to_string(&policy).unwrap(), original);
    // RL305 is a warning: with the default --fail-on error, what remains passes.
    let (code, _, err) = common::retrylint_in(temp.path(), &["check", "--fix", "."]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("applied 1 fix(es) to 1 file(s)"), "{err}");
    assert_ne!(std::fs::read_to_string(&policy).unwrap(), original);
    let (code, out, _) = common::retrylint_in(temp.path(), &["check", "--diff", "."]);
    assert_eq!((code, out.as_str()), (0, ""), "nothing left to fix");
}

#[test]
fn nothing_is_written_when_a_file_could_not_be_read() {
    let src = repo().join("fixtures/rules/RL305-missing-jitter/trigger-jitter-none");
    let temp = tempfile::tempdir().unwrap();
    copy_dir(&src, temp.path());
    std::fs::write(
        temp.path().join("broken.yaml"),
        "openapi: 3.0.3\npaths: [\n",
    )
    .unwrap();
    let policy = temp.path().join("retry-policy.yaml");
    let original = std::fs::read_to_string(&policy).unwrap();
    let (code, _, err) = common::retrylint_in(temp.path(), &["check", "--fix", "."]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no file was fixed"), "{err}");
    assert_eq!(std::fs::read_to_string(&policy).unwrap(), original);
    let (code, out, _) = common::retrylint_in(temp.path(), &["check", "--diff", "."]);
    assert_eq!((code, out.as_str()), (2, ""));
}

#[cfg(unix)]
#[test]
fn a_fixed_file_keeps_its_permissions_and_a_link_out_of_the_project_is_not_written() {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let src = repo().join("fixtures/rules/RL305-missing-jitter/trigger-jitter-none");
    let outside = tempfile::tempdir().unwrap();
    let temp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(temp.path().join(".git")).unwrap();
    copy_dir(&src, temp.path());
    let policy = temp.path().join("retry-policy.yaml");
    std::fs::set_permissions(&policy, std::fs::Permissions::from_mode(0o640)).unwrap();
    // A second policy that is a link to a file outside the project.
    let away = outside.path().join("away.yaml");
    std::fs::copy(&policy, &away).unwrap();
    std::fs::write(
        &away,
        std::fs::read_to_string(&policy)
            .unwrap()
            .replace("GET /orders", "HEAD /orders"),
    )
    .unwrap();
    let away_text = std::fs::read_to_string(&away).unwrap();
    symlink(&away, temp.path().join("linked.retry-policy.yaml")).unwrap();
    let (_, _, err) = common::retrylint_in(temp.path(), &["check", "--fix", "."]);
    // Named on the command line, a link out of the project is not read (RL001,
    // "outside the project root": the read boundary) and never written through.
    let alone = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(alone.path().join(".git")).unwrap();
    let target = outside.path().join("openapi.yaml");
    std::fs::copy(
        repo().join("fixtures/rules/RL501-rate-limit-without-retry-after/trigger-explicit-429-no-headers-map/openapi.yaml"),
        &target,
    )
    .unwrap();
    let target_text = std::fs::read_to_string(&target).unwrap();
    symlink(&target, alone.path().join("openapi.yaml")).unwrap();
    let (_, out, _) =
        common::retrylint_in(alone.path(), &["check", "--format", "json", "openapi.yaml"]);
    assert!(out.contains("outside the project root"), "{out}");
    let (code, _, _) = common::retrylint_in(alone.path(), &["check", "--fix", "openapi.yaml"]);
    assert_eq!(code, 2);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), target_text);
    let mode = std::fs::metadata(&policy).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640, "{err}");
    assert!(std::fs::read_to_string(&policy)
        .unwrap()
        .contains("jitter: full"));
    assert_eq!(std::fs::read_to_string(&away).unwrap(), away_text);
}

/// The handed cases and the real retry configs of `../shared` (skipped when absent):
/// every fix applies, the re-check has no finding the first check did not have (by
/// code, file and pointer), and a second `--fix` changes nothing.
#[test]
fn the_shared_cases_and_real_configs_fix_cleanly() {
    let shared = repo().join("../shared");
    let mut tried = 0;
    for top in ["cases", "corpus/retry-configs"] {
        let from = shared.join(top);
        if !from.is_dir() {
            continue;
        }
        tried += 1;
        let temp = tempfile::tempdir().unwrap();
        let work = temp.path().join("project");
        copy_dir(&from, &work);
        std::fs::create_dir_all(work.join(".git")).unwrap();
        let before = findings(&work);
        let mode = FixMode {
            unsafe_fixes: true,
            write: true,
        };
        let first = fix(&options(&work), mode);
        let after = findings(&work);
        let new: Vec<_> = after.difference(&before).collect();
        assert!(new.is_empty(), "{top}: new after --fix: {new:?}");
        let second = fix(&options(&work), mode);
        assert!(
            second.changed.is_empty(),
            "{top}: a second --fix changed {:?}",
            second.changed.keys().collect::<Vec<_>>()
        );
        retrylint::write::errln(format_args!(
            "{top}: {} fix(es) in {} file(s), {} pass(es); {} finding(s) before, {} after",
            first.applied,
            first.changed.len(),
            first.passes,
            before.len(),
            after.len()
        ));
    }
    if tried == 0 {
        retrylint::write::errln("../shared is absent: skipped");
    }
}

#[test]
fn a_fixed_file_keeps_its_bom_and_crlf_line_ends() {
    let src = repo().join("fixtures/fix/RL305-missing-jitter/trigger-bom-crlf");
    let temp = tempfile::tempdir().unwrap();
    copy_dir(&src, temp.path());
    let (_, _, err) = common::retrylint_in(temp.path(), &["check", "--fix", "."]);
    let fixed = std::fs::read_to_string(temp.path().join("retry-policy.yaml")).unwrap();
    assert!(fixed.starts_with('\u{feff}'), "{err}");
    assert!(
        fixed.contains("      cap: 1s\r\n      jitter: full\r\n"),
        "{fixed:?}"
    );
    assert_eq!(fixed.matches('\n').count(), fixed.matches("\r\n").count());
}

/// A run over named files (pre-commit on the staged files) writes only those files,
/// as ruff does: the policy of a named spec is not edited behind the user's back;
/// naming the policy fixes it.
#[test]
fn fix_over_named_files_writes_only_those_files() {
    let src = repo().join("fixtures/rules/RL305-missing-jitter/trigger-jitter-none");
    let temp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(temp.path().join(".git")).unwrap();
    copy_dir(&src, temp.path());
    let before = texts_of(temp.path());
    let (_, _, err) = common::retrylint_in(temp.path(), &["check", "--fix", "openapi.yaml"]);
    assert_eq!(texts_of(temp.path()), before, "{err}");
    let (_, _, err) = common::retrylint_in(temp.path(), &["check", "--fix", "retry-policy.yaml"]);
    assert_ne!(texts_of(temp.path()), before, "{err}");
    assert!(
        std::fs::read_to_string(temp.path().join("retry-policy.yaml"))
            .unwrap()
            .contains("jitter: full")
    );
}
