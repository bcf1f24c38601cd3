//! Snapshot tests of the nginx and ingress-nginx importers on the fixtures.

use super::*;
use crate::config::Platforms;
use crate::import::summary;
use crate::source::SourceFile;

fn load(path: &str) -> Arc<Loaded> {
    let full = format!("{}/fixtures/import/{path}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&full).expect("fixture");
    let file = Arc::new(SourceFile::new(
        full.clone().into(),
        path.to_string(),
        &text,
    ));
    let tree = crate::source::tree::Tree::parse(file.text.clone())
        .map_err(crate::source::loader::LoadError::Syntax);
    Arc::new(Loaded::new(file, tree))
}

fn render(imported: &Imported) -> String {
    summary::render_imported(imported, false)
}

fn nginx(path: &str) -> String {
    let platforms = Platforms::default();
    let ctx = ImportContext {
        platforms: &platforms,
        protos: &crate::import::proto::ProtoIndex::empty(),
    };
    render(&import(&load(path), &ctx))
}

fn ingress(path: &str) -> String {
    let platforms = Platforms::default();
    let ctx = ImportContext {
        platforms: &platforms,
        protos: &crate::import::proto::ProtoIndex::empty(),
    };
    let doc = load(path);
    let docs = crate::import::stream::documents(&doc).expect("stream");
    let objects = crate::import::stream::kube_objects(&docs);
    render(&import_ingress(&objects, &ctx))
}

#[test]
fn corpus_rinha() {
    insta::assert_snapshot!(nginx(
        "nginx/nginx--zanfranceschi-rinha-de-backend-2024-q1--henr1q-fastapi-nginx.conf"
    ));
}

#[test]
fn trigger_non_idempotent() {
    insta::assert_snapshot!(nginx("nginx/trigger-non-idempotent/nginx.conf"));
}

#[test]
fn clean_single_server() {
    insta::assert_snapshot!(nginx("nginx/clean-single-server/nginx.conf"));
}

#[test]
fn locations_in_nginx_order() {
    insta::assert_snapshot!(nginx("nginx/locations/nginx.conf"));
}

#[test]
fn syntax_error_is_rl001() {
    insta::assert_snapshot!(nginx("nginx/syntax-error/nginx.conf"));
}

#[test]
fn corpus_ingress() {
    insta::assert_snapshot!(ingress(
        "ingress-nginx/ingress-nginx--flackdl-cwwed--ingress.yml"
    ));
}

#[test]
fn ingress_with_controller_configmap() {
    insta::assert_snapshot!(ingress(
        "ingress-nginx/trigger-retry-non-idempotent/ingress.yaml"
    ));
}

#[test]
fn upstream_defined_in_another_file() {
    insta::assert_snapshot!(nginx("nginx/upstream-elsewhere/site.conf"));
}

fn import_text(text: &str) -> Imported {
    let platforms = Platforms::default();
    let file = Arc::new(SourceFile::new(
        "nginx.conf".into(),
        "nginx.conf".into(),
        text,
    ));
    let doc = Arc::new(Loaded::new(
        file,
        Err(crate::source::loader::LoadError::Binary),
    ));
    import(
        &doc,
        &ImportContext {
            platforms: &platforms,
            protos: &crate::import::proto::ProtoIndex::empty(),
        },
    )
}

proptest::proptest! {
    #[test]
    fn import_never_panics(s in "(http|server|location|upstream|proxy_pass|proxy_next_upstream|proxy_next_upstream_tries|server_name| |=|~|\\^~|~\\*|/a|http://u/x|\\$v|error|off|non_idempotent|http_503|0|2|1s|\\{|\\}|;|\\n|\"|#){0,60}") {
        let _ = import_text(&s);
    }
}
