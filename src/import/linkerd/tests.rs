//! Snapshot tests of what the Linkerd importer reads from `fixtures/import/linkerd/`.

use crate::config::Platforms;
use crate::import::gateway_api::tests::render_fixture;

fn ld(rel: &str) -> String {
    render_fixture(
        &format!("linkerd/{rel}"),
        &Platforms::default(),
        super::import,
    )
}

#[test]
fn schlep_annotations() {
    let out = ld("linkerd-httproute--olix0r-schlep--route.yaml");
    assert!(out.contains("layer=mesh"), "{out}");
    assert!(out.contains("attempts 3"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn ship_krew_service_profile() {
    let out = ld("linkerd-serviceprofile--SunSince90-ship-krew--08_service_profile.yaml");
    assert!(!out.contains("    attempts"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn annotation_triggers() {
    insta::assert_snapshot!(ld("trigger-annotations.yaml"));
}

#[test]
fn annotation_clean() {
    let out = ld("clean-annotations.yaml");
    assert!(!out.contains("RL017"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn service_profile_triggers() {
    insta::assert_snapshot!(ld("trigger-serviceprofile.yaml"));
}

#[test]
fn service_profile_clean() {
    let out = ld("clean-serviceprofile.yaml");
    assert!(!out.contains("RL017"), "{out}");
    insta::assert_snapshot!(out);
}

#[test]
fn http_conditions_follow_the_policy_controller() {
    use super::annotations::{grpc_conditions, http_conditions};
    use crate::policy::model::Signal;
    assert_eq!(http_conditions("5xx"), Some(vec![Signal::Class(5)]));
    assert_eq!(http_conditions("5XX,429").map(|v| v.len()), Some(2));
    assert_eq!(http_conditions("500-502").map(|v| v.len()), Some(3));
    assert_eq!(http_conditions("5xx, 429"), None);
    assert_eq!(http_conditions("600"), None);
    assert_eq!(http_conditions("504-500"), None);
    assert_eq!(grpc_conditions("internal").map(|v| v.len()), Some(1));
    assert_eq!(grpc_conditions("bogus"), None);
}

#[test]
fn deeply_nested_conditions_do_not_exhaust_the_stack() {
    use crate::import::stream;
    use crate::source::loader::{Limits, Workspace};
    let mut cond = String::from("{method: GET}");
    for _ in 0..500 {
        cond = format!("{{all: [{cond}]}}");
    }
    let text = format!(
        "apiVersion: linkerd.io/v1alpha2\nkind: ServiceProfile\nmetadata: {{name: a.b.svc.cluster.local}}\nspec:\n  routes:\n  - name: deep\n    condition: {cond}\n    isRetryable: true\n"
    );
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let ws = Workspace::new(root.clone(), Limits::default());
    let doc = ws.load_text(&root.join("deep.yaml"), &text);
    let Ok(docs) = stream::documents(&doc) else {
        return; // the YAML reader refused the depth itself: also fine
    };
    let objects = stream::kube_objects(&docs);
    let imported = super::service_profile::import(&objects);
    assert_eq!(imported.objects.len(), 1);
    let route = &imported.objects[0].routes[0];
    assert!(
        route.matches.iter().all(|m| m.partial),
        "{:?}",
        route.matches
    );
}

#[test]
fn a_budget_out_of_range_is_quoted_as_written() {
    let out = ld("trigger-budget-out-of-range.yaml");
    assert!(
        out.contains("`retryRatio: 1e400` is outside 0..1000"),
        "{out}"
    );
    assert!(!out.contains("inf"), "{out}");
    assert!(
        out.contains("`minRetriesPerSecond: -3` is not a whole number from 0 to 4294967295"),
        "{out}"
    );
    insta::assert_snapshot!(out);
}

/// Annotation values Linkerd refuses (issue 43): one RL017 each, "out of range"
/// for a number beyond its type (limit: u16, durations: u64 ms), and nothing read
/// from them: no attempt count (not the default 1 retry), no per-try timeout (not
/// "what is left of the request timeout"), no deadline.
#[test]
fn annotations_out_of_range_are_findings_not_defaults() {
    let out = ld("trigger-annotations-out-of-range.yaml");
    assert_eq!(out.matches(" RL017 `").count(), 10, "{out}");
    assert_eq!(out.matches("` is out of range: 0 to").count(), 7, "{out}");
    // Linkerd's syntax, not Go's: `1d` is read; `1.5ms` and `300us` are none.
    assert!(!out.contains("request: 1d`"), "{out}");
    assert!(
        out.contains("`retry.linkerd.io/timeout: 1.5ms` is not a duration Linkerd reads"),
        "{out}"
    );
    assert!(
        out.contains("`retry.linkerd.io/timeout: 300us` is not a duration Linkerd reads"),
        "{out}"
    );
    // `orders` and `carts` carry only refused durations; `users` a valid deadline
    // and a 0s per-try timeout (no per-try timeout, no finding).
    let refused = out.split("Linkerd Service `users`").next().unwrap_or("");
    for absent in ["attempts", "remaining", "deadline"] {
        assert!(!refused.contains(absent), "{absent}: {out}");
    }
    assert!(!out.contains("default of 1 applies"), "{out}");
    assert!(!out.contains("`retry.linkerd.io/timeout: 0s`"), "{out}");
    insta::assert_snapshot!(out);
}

/// ServiceProfile values Linkerd cannot use (issue 43): a route `timeout` beyond
/// Go's range or negative is RL017 "out of range" and no deadline; a `retryRatio`
/// that is no number refuses the budget (not the default 0.2).
#[test]
fn service_profile_out_of_range_is_a_finding_not_a_default() {
    let out = ld("trigger-serviceprofile-out-of-range.yaml");
    assert_eq!(out.matches("RL017").count(), 3, "{out}");
    assert_eq!(out.matches("is out of range").count(), 2, "{out}");
    assert!(out.contains("`retryRatio: lots` is not a number"), "{out}");
    assert!(!out.contains("deadline"), "{out}");
    let carts = out.split("ServiceProfile `carts").nth(1).unwrap_or("");
    assert!(!carts.contains("ratio: 0.2"), "{out}");
    insta::assert_snapshot!(out);
}
