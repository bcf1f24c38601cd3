//! Snapshot tests of the HAProxy importer on the fixtures.

use super::*;
use crate::config::Platforms;
use crate::import::summary;
use crate::source::SourceFile;

fn import_fixture(path: &str) -> String {
    let full = format!(
        "{}/fixtures/import/haproxy/{path}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&full).expect("fixture");
    let file = Arc::new(SourceFile::new(full.into(), path.to_string(), &text));
    let doc = Arc::new(Loaded::new(
        file,
        Err(crate::source::loader::LoadError::Binary),
    ));
    let platforms = Platforms::default();
    let imported = import(
        &doc,
        &ImportContext {
            platforms: &platforms,
            protos: &crate::import::proto::ProtoIndex::empty(),
        },
    );

    summary::render_imported(&imported, false)
}

#[test]
fn corpus_content_switching_sample() {
    insta::assert_snapshot!(import_fixture(
        "haproxy--haproxy-haproxy--content-sw-sample.cfg"
    ));
}

#[test]
fn trigger_all_retryable_errors() {
    insta::assert_snapshot!(import_fixture("trigger-all-retryable-errors/haproxy.cfg"));
}

#[test]
fn clean_disable_l7_retry_for_post() {
    insta::assert_snapshot!(import_fixture("clean-disable-l7-retry/haproxy.cfg"));
}

#[test]
fn syntax_error_is_rl001() {
    insta::assert_snapshot!(import_fixture("syntax-error/haproxy.cfg"));
}

#[test]
fn times_and_signals() {
    assert_eq!(time("5s"), Some(5000.0));
    assert_eq!(time("100"), Some(100.0));
    assert_eq!(time("x"), None);
    assert_eq!(time("2147483647"), Some(2_147_483_647.0));
    assert_eq!(time("25d"), None);
    assert_eq!(time("99999999999999999999999h"), None);
    assert_eq!(signals("junk-response"), Some(vec![Signal::Reset]));
    assert_eq!(signals("0rtt-rejected"), Some(vec![Signal::RefusedStream]));
    assert_eq!(signals("599"), None);
}

proptest::proptest! {
    #[test]
    fn import_never_panics(s in "(frontend f|backend b|listen l|defaults|use_backend b|default_backend b| if | unless |\\{|\\}|!|\\|\\||path_beg /a|hdr\\(host\\) h|method POST|METH_GET|acl a|retries 2|retry-on|conn-failure|503|none|mode http|mode tcp|timeout connect 5s|timeout server 1s|http-request disable-l7-retry|option redispatch|\\n|\"|#){0,60}") {
        let file = Arc::new(SourceFile::new("haproxy.cfg".into(), "haproxy.cfg".into(), &s));
        let doc = Arc::new(Loaded::new(file, Err(crate::source::loader::LoadError::Binary)));
        let platforms = Platforms::default();
        let _ = import(&doc, &ImportContext { platforms: &platforms , protos: &crate::import::proto::ProtoIndex::empty(),});
    }
}
