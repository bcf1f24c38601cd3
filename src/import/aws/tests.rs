//! Snapshot tests of what the AWS shared config importer reads from
//! `fixtures/import/aws/`, and of its recognition.

use super::{import, recognizes};
use crate::config::Platforms;
use crate::import::{summary, ImportContext};
use crate::source::loader::{Limits, Loaded, Workspace};
use crate::source::SourceFile;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn render(imported: &crate::import::Imported) -> String {
    summary::render_imported(imported, false)
}

fn with_ctx<T>(f: impl FnOnce(&ImportContext<'_>) -> T) -> T {
    let platforms = Platforms::default();
    let protos = Default::default();
    f(&ImportContext {
        platforms: &platforms,
        protos: &protos,
    })
}

fn fixture(rel: &str) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let ws = Workspace::new(root.clone(), Limits::default());
    let doc = ws.load(&root.join("fixtures/import/aws").join(rel));
    with_ctx(|ctx| render(&import(&doc, ctx)))
}

fn text(t: &str) -> String {
    let doc = Arc::new(Loaded::new(
        Arc::new(SourceFile::new("config".into(), "config".into(), t)),
        Err(crate::source::loader::LoadError::Binary),
    ));
    with_ctx(|ctx| render(&import(&doc, ctx)))
}

#[test]
fn standard_and_adaptive_profiles() {
    let out = fixture("one-spec/config");
    // `max_attempts` counts tries; standard mode: full jitter 1 s .. 20 s, quota.
    assert!(out.contains("attempts 5 @6:1"), "{out}");
    assert!(out.contains("attempts 3"), "{out}");
    assert!(out.contains("full"), "{out}");
    assert!(out.contains("rate-limits requests on the client"), "{out}");
    // `sso-session` and `services` sections are no profiles.
    assert!(!out.contains("my-sso"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn crlf_inline_comments_and_legacy() {
    let out = fixture("clients/.aws/config");
    assert!(out.contains("attempts 4 @7:1"), "{out}");
    assert!(out.contains("legacy"), "{out}");
    assert!(!out.contains("RL0"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn invalid_values_are_rl017_at_the_value() {
    let out = fixture("invalid/config");
    assert!(out.contains("2:1 RL017 `retry_mode = fast`"), "{out}");
    assert!(out.contains("3:1 RL017 `max_attempts = 0`"), "{out}");
    assert!(
        out.contains("6:1 RL017 `max_attempts` in section `[dev]`"),
        "{out}"
    );
    assert!(out.contains("9:1 RL017 unknown key `max_attempt`"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn a_syntax_error_is_rl001_at_its_line() {
    let out = fixture("syntax/config");
    assert!(out.starts_with("3:1 RL001 "), "{out}");
}

#[test]
fn one_try_turns_retries_off() {
    let out = fixture("clean/config");
    assert!(out.contains("retry false"), "{out}");
    assert!(!out.contains("retry_on"), "{out}");
}

#[test]
fn profile_default_and_repeated_sections() {
    let out = text("[profile default]\nmax_attempts = 2\n[profile x]\nretry_mode = standard\n[profile x]\nmax_attempts = 7\n[default]\nmax_attempts = 9\n");
    // `[profile default]` and `[default]` are one profile; a later key wins.
    assert_eq!(out.matches("AWS SDK profile `default`").count(), 1, "{out}");
    assert!(out.contains("attempts 9 @8:1"), "{out}");
    assert!(out.contains("attempts 7 @6:1"), "{out}");
}

#[test]
fn a_profile_without_retry_keys_is_not_read() {
    assert_eq!(text("[default]\nregion = us-east-1\n"), "");
    assert_eq!(text(""), "");
}

#[test]
fn recognition_by_name_and_text() {
    let aws = "[default]\nregion = us-east-1\nmax_attempts = 3\n";
    assert!(recognizes(Path::new("config"), aws));
    assert!(recognizes(Path::new("home/.aws/config"), aws));
    assert!(recognizes(
        Path::new("ops/config"),
        "[profile ci]\nretry_mode=adaptive\n"
    ));
    // Never `.git/config`, never another name, never without a retry key.
    assert!(!recognizes(Path::new("repo/.git/config"), aws));
    assert!(!recognizes(Path::new("config.ini"), aws));
    assert!(!recognizes(
        Path::new("config"),
        "[default]\nregion = us-east-1\n"
    ));
    let git = "[core]\n\trepositoryformatversion = 0\n[remote \"origin\"]\n\turl = x\n";
    assert!(!recognizes(Path::new("config"), git));
}

/// Values the SDKs refuse (issue 43): one RL017 each, "out of range" for a whole
/// number below 1 or beyond 64 bits, and nothing read from them: no count (not the
/// mode's default of 3 tries), no mode (not `standard`'s conditions and back-off).
#[test]
fn trigger_out_of_range_is_rl017_not_a_default() {
    let out = fixture("trigger-out-of-range/config");
    assert_eq!(out.matches(" RL017 `").count(), 4, "{out}");
    assert_eq!(out.matches("is out of range: 1 to").count(), 3, "{out}");
    for absent in ["attempts 3", "attempts 5", "reads the mode's default"] {
        assert!(!out.contains(absent), "{absent}: {out}");
    }
    // `fast` is no mode: nothing a mode decides is read.
    let fast = out.split("profile `fast`").nth(1).unwrap_or("");
    for absent in ["backoff", "retry_on", "budget"] {
        assert!(
            !fast.split("RL017").next().unwrap_or("").contains(absent),
            "{absent}: {out}"
        );
    }
    assert!(out.contains("attempts 4"), "{out}");
    insta::assert_snapshot!(out);
}
