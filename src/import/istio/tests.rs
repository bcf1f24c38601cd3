//! Snapshot tests of what the Istio importer reads from the corpus files and the
//! trigger/clean fixtures in `fixtures/import/istio/`.

use super::super::{import_all, recognize, summary, ImportContext, Imported};
use crate::config::{IstioPlatform, Platforms};
use crate::policy::model::{RetryBudget, RetryOnEntry};
use crate::source::loader::{Limits, Workspace};
use std::fmt::Write;
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Imports the named fixtures together (one run) with `platforms`.
fn run(names: &[&str], platforms: &Platforms) -> Imported {
    let ws = Workspace::new(dir(), Limits::default());
    let files: Vec<_> = names
        .iter()
        .map(|n| {
            let doc = ws.load(&dir().join("fixtures/import/istio").join(n));
            let format = recognize(&doc).unwrap_or_else(|| panic!("{n} not recognised"));
            (doc, format)
        })
        .collect();
    import_all(
        &files,
        &ImportContext {
            platforms,
            protos: &crate::import::proto::ProtoIndex::empty(),
        },
    )
}

fn render(imported: &Imported) -> String {
    let mut out = summary::render(&imported.objects);
    for d in &imported.diagnostics {
        let lc = d
            .primary
            .location
            .file
            .line_col(d.primary.location.span.start);
        let _ = writeln!(
            out,
            "{} {}:{}:{} {}\n  help: {}",
            d.code,
            d.primary.location.file.display,
            lc.line,
            lc.column,
            d.message,
            d.help.as_deref().unwrap_or("-")
        );
    }
    out
}

fn unversioned() -> Platforms {
    Platforms::default()
}

fn version(minor: u32, exclude_unsafe_503: Option<bool>) -> Platforms {
    Platforms {
        istio: Some(IstioPlatform {
            version: Some((1, minor)),
            exclude_unsafe_503,
        }),
        gateway_api_implementation: None,
    }
}

const CASE_01: &str = "istio--OpenLiberty-guide-microprofile-istio-retry-fallback--traffic.yaml";
const CASE_02: &str =
    "istio--redhat-scholars-istio-tutorial--virtual-service-recommendation-v2_retry.yml";
const NO_RETRIES: &str =
    "istio-virtualservice--redhat-scholars-istio-tutorial--virtual-service-no-retries.yml";
const TIMEOUT: &str =
    "istio-virtualservice--redhat-scholars-istio-tutorial--virtual-service-recommendation-timeout.yml";
const OPERATOR: &str = "istio-meshconfig--istio-istio--base.yaml";

fn signals(imported: &Imported, object: usize, route: usize) -> Vec<RetryOnEntry> {
    imported.objects[object].routes[route]
        .settings
        .retry_on
        .as_ref()
        .map(|r| r.value.iter().map(|s| s.value).collect())
        .unwrap_or_default()
}

#[test]
fn case_01_retry_5xx_on_a_gateway() {
    let got = run(&[CASE_01], &unversioned());
    assert_eq!(got.objects.len(), 2);
    let inv = &got.objects[1];
    assert_eq!(inv.layer.as_str(), "gateway");
    let s = &inv.routes[0].settings;
    assert_eq!(s.attempts.as_ref().map(|a| a.value), Some(4));
    assert!(signals(&got, 1, 0).contains(&RetryOnEntry::Reset));
    assert!(s.deadline.is_none());
    // `retryOn` is written: no version-dependent default decides anything there.
    assert!(!got
        .diagnostics
        .iter()
        .any(|d| d.code == "RL314" && d.primary.location.span.start > 300));
    insta::assert_snapshot!("case_01", render(&got));
}

#[test]
fn case_02_default_conditions_without_a_version_are_rl314() {
    let got = run(&[CASE_02], &unversioned());
    assert_eq!(got.objects[0].layer.as_str(), "mesh");
    assert!(!signals(&got, 0, 0).contains(&RetryOnEntry::Status(503)));
    let rl314: Vec<_> = got
        .diagnostics
        .iter()
        .filter(|d| d.code == "RL314")
        .collect();
    assert_eq!(rl314.len(), 1);
    let lc = rl314[0]
        .primary
        .location
        .file
        .line_col(rl314[0].primary.location.span.start);
    assert_eq!((lc.line, lc.column), (13, 5));
    assert!(rl314[0]
        .help
        .as_deref()
        .unwrap_or("")
        .contains("platforms: {istio: {version: \"1.23\"}}"));
    insta::assert_snapshot!("case_02", render(&got));
}

#[test]
fn case_02_version_decides_503() {
    for (platforms, with_503) in [
        (version(23, None), true),
        (version(25, None), false),
        (version(25, Some(false)), true),
        (version(25, Some(true)), false),
        (version(27, Some(false)), false),
    ] {
        let got = run(&[CASE_02], &platforms);
        assert!(got.diagnostics.iter().all(|d| d.code != "RL314"));
        assert_eq!(
            signals(&got, 0, 0).contains(&RetryOnEntry::Status(503)),
            with_503,
            "{:?}",
            platforms.istio
        );
    }
}

#[test]
fn attempts_zero_is_no_retry_and_the_empty_document_is_skipped() {
    let got = run(&[NO_RETRIES], &unversioned());
    assert_eq!(got.objects.len(), 3);
    for o in &got.objects {
        assert_eq!(
            o.routes[0].settings.retry.as_ref().map(|r| r.value),
            Some(false)
        );
    }
    assert!(got.diagnostics.is_empty(), "{}", render(&got));
    insta::assert_snapshot!("no_retries", render(&got));
}

#[test]
fn no_retries_block_gets_the_implicit_default() {
    let got = run(&[TIMEOUT], &version(22, None));
    let s = &got.objects[0].routes[0].settings;
    assert_eq!(s.attempts.as_ref().map(|a| a.value), Some(3));
    assert_eq!(s.deadline.as_ref().map(|d| d.value), Some(1000.0));
    assert!(signals(&got, 0, 0).contains(&RetryOnEntry::Status(503)));
    insta::assert_snapshot!("implicit_default_timeout_1_22", render(&got));
}

#[test]
fn istio_operator_empty_mesh_default_disables_the_implicit_default() {
    let got = run(&[TIMEOUT, OPERATOR], &unversioned());
    let s = &got.objects[0].routes[0].settings;
    assert_eq!(s.retry.as_ref().map(|r| r.value), Some(false));
    assert!(got.diagnostics.is_empty(), "{}", render(&got));
    insta::assert_snapshot!("operator_disables_default", render(&got));
}

#[test]
fn bare_mesh_config_replaces_the_default() {
    let got = run(
        &["trigger-mesh-default-vs.yaml", "mesh-config.yaml"],
        &unversioned(),
    );
    let s = &got.objects[0].routes[0].settings;
    assert_eq!(s.attempts.as_ref().map(|a| a.value), Some(4));
    assert!(signals(&got, 0, 0).contains(&RetryOnEntry::Reset));
    insta::assert_snapshot!("mesh_default_file", render(&got));
}

#[test]
fn config_map_mesh_key_replaces_the_default() {
    let got = run(
        &["trigger-mesh-default-vs.yaml", "istio-configmap.yaml"],
        &unversioned(),
    );
    let s = &got.objects[0].routes[0].settings;
    assert_eq!(s.attempts.as_ref().map(|a| a.value), Some(2));
    assert!(got
        .diagnostics
        .iter()
        .any(|d| d.code == "RL017" && d.help.as_deref().unwrap_or("").contains("perTryTimeout")));
    insta::assert_snapshot!("mesh_default_config_map", render(&got));
}

#[test]
fn implicit_default_trigger() {
    let got = run(&["trigger-implicit-default.yaml"], &unversioned());
    let o = &got.objects[0];
    assert_eq!(o.layer.as_str(), "mesh", "`mesh` among the gateways");
    assert_eq!(
        o.routes.len(),
        3,
        "rewrite split per match, then the catch-all"
    );
    assert_eq!(
        got.diagnostics.iter().filter(|d| d.code == "RL314").count(),
        2
    );
    insta::assert_snapshot!("implicit_default_trigger", render(&got));
}

#[test]
fn clean_post_not_retried() {
    let got = run(&["clean-post-not-retried.yaml"], &unversioned());
    assert!(got.diagnostics.is_empty(), "{}", render(&got));
    let routes = &got.objects[0].routes;
    assert_eq!(
        routes[0].settings.retry.as_ref().map(|r| r.value),
        Some(false)
    );
    assert_eq!(
        signals(&got, 0, 1),
        vec![RetryOnEntry::ConnectFailure, RetryOnEntry::RefusedStream]
    );
    insta::assert_snapshot!("clean_post_not_retried", render(&got));
}

#[test]
fn rl017_trigger() {
    let got = run(&["trigger-rl017.yaml"], &unversioned());
    let rl017: Vec<_> = got
        .diagnostics
        .iter()
        .filter(|d| d.code == "RL017")
        .collect();
    assert!(rl017.iter().any(|d| d
        .help
        .as_deref()
        .unwrap_or("")
        .contains("did you mean `attempts`")));
    assert!(rl017.iter().any(|d| d.message.contains("spaces")));
    assert!(rl017.iter().any(|d| d.message.contains("server-error")));
    assert!(rl017.iter().any(|d| d.message.contains("case-sensitively")));
    assert!(rl017
        .iter()
        .any(|d| d.message.contains("`perTryTimeout` with 0 retries")));
    // `5xx, reset` is still read with the tokens trimmed, as the translator does.
    assert!(signals(&got, 0, 1).contains(&RetryOnEntry::Reset));
    insta::assert_snapshot!("rl017_trigger", render(&got));
}

#[test]
fn destination_rule_max_retries_is_a_concurrency_budget() {
    let got = run(&["destination-rule-budget.yaml"], &unversioned());
    let b = got.objects[0].routes[0]
        .settings
        .budget
        .as_ref()
        .map(|b| b.value);
    assert!(matches!(
        b,
        Some(RetryBudget::Concurrency {
            max_concurrent_retries: 5
        })
    ));
    insta::assert_snapshot!("destination_rule_budget", render(&got));
}

#[test]
fn implicit_default_settings_for_a_service_without_routes() {
    let ws = Workspace::new(dir(), Limits::default());
    let doc = ws.load(&dir().join("fixtures/import/istio").join(TIMEOUT));
    let tree = doc.tree.as_ref().expect("tree");
    let at = crate::source::refs::At::new(&doc, tree.root().expect("root"));
    let platforms = unversioned();
    let (s, notes, rl314) = super::implicit_default_settings(
        &at,
        &ImportContext {
            platforms: &platforms,
            protos: &crate::import::proto::ProtoIndex::empty(),
        },
    );
    assert_eq!(s.attempts.as_ref().map(|a| a.value), Some(3));
    assert!(rl314.is_some());
    assert!(notes
        .iter()
        .any(|n| n.text.contains("Istio's default retry policy")));
    let platforms = version(28, None);
    let (_, _, rl314) = super::implicit_default_settings(
        &at,
        &ImportContext {
            platforms: &platforms,
            protos: &crate::import::proto::ProtoIndex::empty(),
        },
    );
    assert!(rl314.is_none());
}

#[test]
fn bad_input_never_panics() {
    let ws = Workspace::new(dir(), Limits::default());
    for text in [
        "apiVersion: networking.istio.io/v1\nkind: VirtualService\nspec: 3\n",
        "apiVersion: networking.istio.io/v1\nkind: VirtualService\nspec:\n  http: 7\n",
        "apiVersion: networking.istio.io/v1\nkind: VirtualService\nspec:\n  http:\n  - 3\n  - retries: [1]\n  - retries: {attempts: x, retryOn: [a]}\n    match: [{uri: {regex: '('}}, 4]\n    timeout: soon\n",
        "apiVersion: networking.istio.io/v9\nkind: VirtualService\nspec: {}\n",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio}\ndata:\n  mesh: 'defaultHttpRetryPolicy: [\'\n",
        "apiVersion: networking.istio.io/v1\nkind: DestinationRule\nspec: {host: a, trafficPolicy: {connectionPool: {http: {maxRetries: -1}}}}\n",
    ] {
        let doc = ws.load_text(&dir().join("bad.yaml"), text);
        let format = recognize(&doc).unwrap_or(super::super::Format::Kubernetes);
        let platforms = unversioned();
        let got = import_all(&[(doc, format)], &ImportContext { platforms: &platforms , protos: &crate::import::proto::ProtoIndex::empty(),});
        let _ = render(&got);
    }
}

#[test]
fn attempts_out_of_range_is_one_finding() {
    let got = run(&["trigger-attempts-out-of-range.yaml"], &unversioned());
    let out = render(&got);
    assert_eq!(got.diagnostics.len(), 1, "{out}");
    assert!(
        out.contains("is out of range: at most 2147483647 retries"),
        "{out}"
    );
    assert!(!out.contains("with 0 retries"), "{out}");
    // Read as no count (issue 43), not as an absent `attempts` (retries off).
    for absent in ["is absent", "retry false", "attempts 1"] {
        assert!(!out.contains(absent), "{absent}: {out}");
    }
    assert!(out.contains("so no retry count is read from it"), "{out}");
    insta::assert_snapshot!("attempts_out_of_range", out);
}

/// A quoted `attempts: "3"` is a string where Istio wants an int32: one RL017
/// saying it is not a number (the type is wrong), not "out of range".
#[test]
fn quoted_attempts_is_not_a_number() {
    let got = run(&["trigger-attempts-quoted.yaml"], &unversioned());
    let out = render(&got);
    assert_eq!(got.diagnostics.len(), 1, "{out}");
    assert!(
        out.contains("`attempts: 3` is not a number of retries"),
        "{out}"
    );
    assert!(!out.contains("out of range"), "{out}");
    insta::assert_snapshot!(out);
}

/// Durations beyond Go's range (issue 43): one RL017 each saying "out of range",
/// and nothing read from them: no deadline, no per-try timeout (not "what is left
/// of the route timeout"), no back-off (not Envoy's default 25ms base).
#[test]
fn durations_out_of_range_are_findings_not_defaults() {
    let got = run(&["trigger-durations-out-of-range.yaml"], &unversioned());
    let out = render(&got);
    assert_eq!(got.diagnostics.len(), 3, "{out}");
    assert_eq!(out.matches("is out of range: at most").count(), 3, "{out}");
    for absent in ["25ms", "remaining", "beyond the range"] {
        assert!(!out.contains(absent), "{absent}: {out}");
    }
    insta::assert_snapshot!(out);
}
