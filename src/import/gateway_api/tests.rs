//! Snapshot tests of what the Gateway API and Envoy Gateway importers read from the
//! fixtures in `fixtures/import/gateway_api/`.

use crate::config::{IstioPlatform, Platforms};
use crate::import::stream;
use crate::import::{summary, ImportContext, Imported};
use crate::source::loader::{Limits, Workspace};
use std::path::PathBuf;

/// Reads `fixtures/import/<rel>` with `importer` and renders the objects and the
/// findings (code, line:col, message) as text.
pub(crate) fn render_fixture(
    rel: &str,
    platforms: &Platforms,
    importer: fn(&[stream::KubeObject], &ImportContext<'_>) -> Imported,
) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let ws = Workspace::new(root.clone(), Limits::default());
    let doc = ws.load(&root.join("fixtures/import").join(rel));
    let docs = stream::documents(&doc).expect("fixture parses");
    let objects = stream::kube_objects(&docs);
    let ctx = ImportContext {
        platforms,
        protos: &crate::import::proto::ProtoIndex::empty(),
    };
    let imported = importer(&objects, &ctx);

    summary::render_imported(&imported, false)
}

fn gw(rel: &str, implementation: Option<&str>) -> String {
    let platforms = Platforms {
        gateway_api_implementation: implementation.map(str::to_string),
        ..Platforms::default()
    };
    render_fixture(&format!("gateway_api/{rel}"), &platforms, super::import)
}

#[test]
fn conformance_retry_with_timeouts_unnamed_implementation() {
    insta::assert_snapshot!(gw(
        "gateway-httproute--kubernetes-sigs-gateway-api--httproute-retry-with-timeouts.yaml",
        None
    ));
}

#[test]
fn conformance_retry_with_timeouts_per_implementation() {
    for imp in ["istio", "envoy-gateway", "cilium", "gep"] {
        insta::assert_snapshot!(
            format!("retry_with_timeouts_{imp}"),
            gw(
                "gateway-httproute--kubernetes-sigs-gateway-api--httproute-retry-with-timeouts.yaml",
                Some(imp)
            )
        );
    }
}

#[test]
fn conformance_retry_codes() {
    insta::assert_snapshot!(gw(
        "gateway-httproute--kubernetes-sigs-gateway-api--httproute-retry.yaml",
        Some("envoy-gateway")
    ));
}

#[test]
fn envoy_gateway_btp_binds_its_route() {
    let out = gw("envoy-gateway-btp--envoyproxy-gateway--retry.yaml", None);
    assert!(
        out.contains("Envoy Gateway HTTPRoute `retry-route`"),
        "{out}"
    );
    assert!(!out.contains("RL314"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn precedence_rewrite_and_typos() {
    let out = gw("trigger-precedence-rewrite-typo.yaml", None);
    // Exact before the longer prefix before the shorter prefix.
    let exact = out
        .find("Exact(\"/v1/payments/refunds\")")
        .expect("exact route");
    let long = out
        .find("SegmentPrefix(\"/v1/payments\")")
        .expect("long prefix");
    let short = out.find("SegmentPrefix(\"/v1\")").expect("short prefix");
    assert!(exact < long && long < short, "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn btp_on_a_gateway() {
    insta::assert_snapshot!(gw("trigger-btp-gateway-target.yaml", None));
}

#[test]
fn a_route_without_retry_imports_nothing() {
    assert_eq!(gw("clean-no-retry.yaml", None), "");
    assert_eq!(gw("clean-no-retry.yaml", Some("envoy-gateway")), "");
}

#[test]
fn istio_gives_a_route_without_retry_its_implicit_default() {
    let platforms = Platforms {
        gateway_api_implementation: Some("istio".into()),
        istio: Some(IstioPlatform {
            version: Some((1, 22)),
            exclude_unsafe_503: None,
        }),
    };
    let out = render_fixture("gateway_api/clean-no-retry.yaml", &platforms, super::import);
    assert!(out.contains("attempts 3"), "{out}");
    assert!(out.contains("503@"), "{out}");
    assert!(!out.contains("RL314"), "{out}");
}

/// Values the Gateway API rejects (issue 43): one RL017 at each, saying "out of
/// range" for a number too large, and no default read in their place.
#[test]
fn out_of_range_values_are_findings_not_defaults() {
    let out = gw("trigger-out-of-range.yaml", None);
    assert_eq!(out.matches("RL017").count(), 7, "{out}");
    for shape in ["1.5s", "1us", "1h1m1s1ms1s"] {
        assert!(
            out.contains(&format!("`backoff: {shape}` is not a Gateway API duration")),
            "{shape}: {out}"
        );
    }
    assert!(
        out.contains("`backoff: 99999999999999999999999h` is out of range"),
        "{out}"
    );
    assert!(
        out.contains("`attempts: 99999999999999999999` is out of range"),
        "{out}"
    );
    // Only the valid `backoff: 100ms` and `backoff: 1m30s` are read.
    assert_eq!(out.matches("backoff ").count(), 2, "{out}");
    assert!(!out.contains("25ms"), "{out}");
    insta::assert_snapshot!(out);
}

/// An Envoy Gateway BackendTrafficPolicy's `numRetries` beyond an int32 and a
/// `baseInterval` beyond GEP-2257: RL017 each, no default count or back-off.
#[test]
fn btp_out_of_range_values_are_findings_not_defaults() {
    let out = gw("trigger-btp-out-of-range.yaml", None);
    assert_eq!(out.matches("RL017").count(), 2, "{out}");
    assert!(
        out.contains("`numRetries: 4294967296` is out of range"),
        "{out}"
    );
    assert!(
        out.contains("`baseInterval: 999999999999h` is out of range"),
        "{out}"
    );
    assert!(!out.contains("attempts 3"), "{out}");
    assert!(!out.contains("backoff "), "{out}");
    insta::assert_snapshot!(out);
}

/// GEP-2257's duration shape (`^([0-9]{1,5}(h|m|s|ms)){1,4}$`, digit counts apart).
#[test]
fn gep_2257_shape_is_whole_numbers_of_four_units_at_most_four_parts() {
    for good in ["100ms", "1h", "1m30s", "1h2m3s4ms", "0s", "100000ms"] {
        assert!(super::gep_2257_shaped(good), "{good}");
    }
    for bad in [
        "",
        "1",
        "1.5s",
        "1us",
        "-1s",
        "1h1m1s1ms1s",
        "s",
        "1d",
        " 1s",
        "1S",
    ] {
        assert!(!super::gep_2257_shaped(bad), "{bad}");
    }
}

/// A `timeouts.request` the Gateway API rejects (`1d`, `-5s`): one RL017 at each,
/// no deadline read (not the implementation's default), and the refused request
/// timeout is kept as refused so that RL301 does not blame the route again.
#[test]
fn refused_request_timeout_is_not_a_missing_deadline() {
    let out = gw("trigger-request-timeout-out-of-range.yaml", None);
    assert_eq!(out.matches("RL017").count(), 2, "{out}");
    assert!(out.contains("`request: 1d`"), "{out}");
    assert!(out.contains("`request: -5s`"), "{out}");
    assert!(!out.contains("    deadline "), "{out}");
    insta::assert_snapshot!(out);
}
