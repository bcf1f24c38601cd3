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
