//! Snapshot tests of what the Traefik importer reads from `fixtures/import/traefik/`.

use super::*;
use crate::config::Platforms;
use crate::import::summary;
use crate::source::loader::{Limits, Workspace};
use std::path::Path;

fn load(name: &str) -> (Arc<Loaded>, TraefikRead) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ws = Workspace::new(root.to_path_buf(), Limits::default());
    let doc = ws.load(&root.join("fixtures/import/traefik").join(name));
    let platforms = Platforms::default();
    let ctx = ImportContext {
        platforms: &platforms,
        protos: &crate::import::proto::ProtoIndex::empty(),
    };
    let read = read(&doc, &ctx);
    (doc, read)
}

/// The summary of the objects, then each finding as `line:col CODE message`.
fn render(name: &str) -> String {
    let (_, read) = load(name);
    let mut out = summary::render_imported(&read.imported, false);
    if read.skipped_template {
        out.push_str("skipped: template\n");
    }
    out
}

#[test]
fn corpus_backoff_toml() {
    let text = render("backoff.toml");
    // The retry table's header is where the middleware's findings point.
    assert!(text.contains("retry true @27:1"), "{text}");
    assert!(text.contains("attempts 4 @28:3"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn corpus_simple_toml_with_placeholders() {
    let text = render("simple.toml");
    assert!(text.contains("attempts 3"), "{text}");
    assert!(!text.contains("backoff"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn trigger_status_post() {
    let text = render("trigger-status-post.yaml");
    assert!(!text.contains("methods ["), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn clean_status_idempotent() {
    let text = render("clean-status-idempotent.yaml");
    assert!(
        text.contains("methods [GET, HEAD, PUT, DELETE, OPTIONS, TRACE]"),
        "{text}"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn trigger_typos() {
    let text = render("trigger-typos.toml");
    assert!(
        text.contains("RL017 unknown key `initalInterval`"),
        "{text}"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn invalid_toml_is_rl001_with_position() {
    let (_, read) = load("invalid.toml");
    assert_eq!(read.imported.diagnostics.len(), 1);
    let d = &read.imported.diagnostics[0];
    assert_eq!(d.code, "RL001");
    assert!(d.message.contains("not valid TOML"), "{}", d.message);
    assert!(!read.skipped_template);
}

#[test]
fn a_template_that_breaks_the_syntax_is_skipped() {
    let (_, read) = load("e2e-template/traefik.toml");
    assert!(read.skipped_template);
    assert!(read.imported.diagnostics.is_empty());
    assert!(read.imported.objects.is_empty());
}
