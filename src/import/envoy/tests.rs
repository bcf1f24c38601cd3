//! Snapshot tests of what the Envoy importer reads from the fixtures in
//! `fixtures/import/envoy/` (real corpus files copied byte for byte, and small files
//! for features the corpus lacks).

use super::import;
use crate::config::Platforms;
use crate::import::{summary, ImportContext, Imported};
use crate::source::loader::{Limits, Workspace};
use std::path::PathBuf;

fn read(name: &str) -> Imported {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/import/envoy");
    let ws = Workspace::new(dir.clone(), Limits::default());
    let doc = ws.load(&dir.join(name));
    assert!(doc.tree.is_ok(), "{name} parses");
    assert_eq!(
        crate::import::recognize(&doc),
        Some(crate::import::Format::Envoy),
        "{name} is recognised as Envoy"
    );
    let platforms = Platforms::default();
    import(
        &doc,
        &ImportContext {
            platforms: &platforms,
            protos: &crate::import::proto::ProtoIndex::empty(),
        },
    )
}

fn render(imported: &Imported) -> String {
    summary::render_imported(imported, false)
}

#[test]
fn kuma_outbound_listener() {
    let got = read("envoy-listener--kumahq-kuma--http.listeners.golden.yaml");
    assert_eq!(got.objects.len(), 1);
    let o = &got.objects[0];
    assert_eq!(
        o.layer,
        crate::policy::model::Layer::Mesh,
        "a loopback outbound listener is a sidecar"
    );
    let r = &o.routes[0];
    assert_eq!(r.settings.attempts.as_ref().map(|a| a.value), Some(2));
    assert!(
        r.settings.deadline.is_none(),
        "`timeout: 0s` switches the deadline off"
    );
    assert!(r
        .notes
        .iter()
        .any(|n| n.text.starts_with(super::policy::DEADLINE_OFF)));
    assert!(
        r.settings.retry_after.is_none(),
        "reset headers other than Retry-After (Q7)"
    );
    assert!(r.settings.methods.is_none(), "the gate lists every method");
    insta::assert_snapshot!(render(&got));
}

#[test]
fn envoy_gateway_route_list() {
    let got = read("envoy-routes--envoyproxy-gateway--retry.routes.yaml");
    assert_eq!(got.objects.len(), 2);
    assert!(got
        .objects
        .iter()
        .all(|o| o.layer == crate::policy::model::Layer::Gateway));
    assert!(
        got.diagnostics
            .iter()
            .any(|d| d.code == "RL017" && d.message.contains("never matches")),
        "the third route is shadowed by the second"
    );
    insta::assert_snapshot!(render(&got));
}

#[test]
fn snake_case_bootstrap_with_budget_gate_and_hedge() {
    let got = read("bootstrap-budget.yaml");
    insta::assert_snapshot!(render(&got));
    let routes = &got.objects[0].routes;
    // payments-get, payments-write split by the gate (PUT/DELETE, then the rest),
    // payments-shadowed, health.
    assert_eq!(routes.len(), 5);
    assert_eq!(
        routes[0].settings.attempts.as_ref().map(|a| a.value),
        Some(4)
    );
    assert_eq!(
        routes[1].matches[0].methods.as_deref(),
        Some(&["PUT".to_string(), "DELETE".to_string()][..])
    );
    assert_eq!(
        routes[2].settings.retry.as_ref().map(|r| r.value),
        Some(false)
    );
    assert!(routes[1].settings.hedging.is_some());
    assert!(matches!(
        routes[1].settings.budget.as_ref().map(|b| &b.value),
        Some(crate::retry::RetryBudget::Ratio { ratio, .. }) if (*ratio - 0.25).abs() < 1e-9
    ));
    assert!(got
        .diagnostics
        .iter()
        .any(|d| d.message.contains("retryOnn")));
}

#[test]
fn clean_connect_failure_only() {
    let got = read("clean-connect-failure.yaml");
    assert!(got.diagnostics.is_empty(), "{:?}", got.diagnostics);
    insta::assert_snapshot!(render(&got));
}

#[test]
fn json_config_dump() {
    let got = read("config-dump.json");
    assert_eq!(got.objects.len(), 1);
    let r = &got.objects[0].routes[0];
    assert_eq!(r.settings.attempts.as_ref().map(|a| a.value), Some(3));
    assert_eq!(
        r.settings
            .retry_after
            .as_ref()
            .and_then(|ra| ra.honor.as_ref())
            .map(|h| h.value),
        Some(true)
    );
    assert!(got.objects[0].routes[1].matches[0].partial);
    assert!(got
        .diagnostics
        .iter()
        .any(|d| d.message.contains("bogus-token")));
    insta::assert_snapshot!(render(&got));
}

#[test]
fn malformed_input_never_panics() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let ws = Workspace::new(dir.clone(), Limits::default());
    let platforms = Platforms::default();
    let ctx = ImportContext {
        platforms: &platforms,
        protos: &crate::import::proto::ProtoIndex::empty(),
    };
    for (i, text) in [
        "virtual_hosts: 3\n",
        "virtual_hosts: [{routes: [{match: {safe_regex: {regex: '('}}, route: {retry_policy: {retry_on: 5xx, num_retries: -4, per_try_timeout: nope, retry_back_off: {base_interval: 1s, max_interval: 0.5s}}}}]}]\n",
        "static_resources: {listeners: [{filter_chains: [{filters: [{name: envoy.filters.network.http_connection_manager, typed_config: {route_config: []}}]}]}], clusters: 7}\n",
        "configs: [{'@type': x.RoutesConfigDump, dynamic_route_configs: [{route_config: null}]}]\n",
        "virtual_hosts: [{routes: [{route: {retry_policy: {}}}, {route: {retry_policy: {retry_on: retriable-headers}}}]}]\n",
    ]
    .iter()
    .enumerate()
    {
        let doc = ws.load_text(&dir.join(format!("bad-{i}.yaml")), text);
        let got = import(&doc, &ctx);
        for o in &got.objects {
            for r in &o.routes {
                let retries = r.settings.retry.as_ref().is_some_and(|v| v.value);
                let empty = r.settings.retry_on.as_ref().is_none_or(|v| v.value.is_empty());
                assert!(!(retries && empty), "retry: true with no signal in case {i}");
            }
        }
    }
}

/// Values Envoy refuses (issue 43): one RL017 each, "out of range" for a number
/// beyond its proto type, and nothing read from them (no attempts, no deadline, no
/// per-try timeout, no back-off base or cap: not Envoy's defaults).
#[test]
fn trigger_out_of_range() {
    let got = read("trigger-out-of-range.yaml");
    let text = render(&got);
    assert_eq!(text.matches("RL017").count(), 6, "{text}");
    // Four RL017 and the import note on the refused `num_retries`, in the same words.
    assert_eq!(text.matches("is out of range").count(), 5, "{text}");
    assert!(!text.contains("unsigned 32-bit"), "{text}");
    for absent in ["attempts 5", "deadline 15s", "attempt_timeout", "base 25ms"] {
        assert!(!text.contains(absent), "{absent}: {text}");
    }
    insta::assert_snapshot!(text);
}

/// `base_interval: 0s` (Envoy's `gt {}`) and a `max_interval` below the base: one
/// RL017 each, and neither is read (no 1 ms base, no cap below the base for RL304).
#[test]
fn trigger_back_off_out_of_range() {
    let got = read("trigger-back-off-out-of-range.yaml");
    let text = render(&got);
    assert_eq!(text.matches("RL017").count(), 2, "{text}");
    assert!(
        text.contains("`base_interval: 0s` is out of range"),
        "{text}"
    );
    for absent in ["base 1ms", "base 25ms", "cap 1s", "cap 250ms"] {
        assert!(!text.contains(absent), "{absent}: {text}");
    }
    insta::assert_snapshot!(text);
}

#[test]
fn num_retries_outside_uint32_is_reported() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let ws = Workspace::new(dir.clone(), Limits::default());
    let platforms = Platforms::default();
    let ctx = ImportContext {
        platforms: &platforms,
        protos: &crate::import::proto::ProtoIndex::empty(),
    };
    let messages = |text: &str| -> Vec<String> {
        let doc = ws.load_text(&dir.join("routes.yaml"), text);
        import(&doc, &ctx)
            .diagnostics
            .iter()
            .map(|d| d.message.clone())
            .filter(|m| m.contains("num_retries"))
            .collect()
    };
    let route = |n: &str| {
        format!("virtual_hosts: [{{name: a, domains: ['*'], routes: [{{match: {{prefix: /}}, route: {{cluster: a, retry_policy: {{retry_on: 5xx, num_retries: {n}}}}}}}]}}]\n")
    };
    for bad in ["-4", "4294967296", "lots"] {
        assert_eq!(messages(&route(bad)).len(), 1, "num_retries: {bad}");
    }
    for good in ["0", "3", "'4294967295'"] {
        assert!(messages(&route(good)).is_empty(), "num_retries: {good}");
    }
}

/// Conditions Envoy evaluates at run time (cases 90 and 93 of `../shared/cases/`):
/// a `:status` matcher is evaluated; what retrylint cannot evaluate reads as
/// retrying, with RL019 saying what was assumed, never as "no retry".
#[test]
fn retry_conditions_evaluated_or_assumed_retrying() {
    use crate::retry::RetryOnEntry as E;
    let got = read("retry-conditions-evaluated.yaml");
    let routes = &got.objects[0].routes;
    let route = |name: &str| {
        routes
            .iter()
            .find(|r| r.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("route {name}"))
    };
    let on = |name: &str| -> (Option<bool>, Vec<E>) {
        let s = &route(name).settings;
        (
            s.retry.as_ref().map(|r| r.value),
            s.retry_on
                .as_ref()
                .map(|r| r.value.iter().map(|x| x.value).collect())
                .unwrap_or_default(),
        )
    };
    // `exact_match: "503"` and a `4` prefix (every 4xx).
    assert_eq!(
        on("status-exact"),
        (Some(true), vec![E::Status(503), E::Class(4)])
    );
    // Another header: assumed every 5xx.
    assert_eq!(on("other-header"), (Some(true), vec![E::Class(5)]));
    // HTTP/3 with a TCP fallback: a reset after sending is retried.
    assert_eq!(on("h3"), (Some(true), vec![E::Reset]));
    // No HTTP/3 on the cluster: nothing retried.
    assert_eq!(on("no-h3").0, Some(false));
    // A cluster not in the file: assumed HTTP/3 with a fallback.
    assert_eq!(on("elsewhere"), (Some(true), vec![E::Reset]));
    let rl019: Vec<&str> = got
        .diagnostics
        .iter()
        .filter(|d| d.code == "RL019")
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(rl019.len(), 2, "{rl019:#?}");
    assert!(
        rl019
            .iter()
            .any(|m| m.contains("`x-upstream-retry`") && m.contains("every 5xx")),
        "{rl019:#?}"
    );
    assert!(
        rl019
            .iter()
            .any(|m| m.contains("http3-post-connect-failure")
                && m.contains("not defined in this file")),
        "{rl019:#?}"
    );
    assert!(
        got.diagnostics.iter().all(|d| d.code != "RL017"),
        "{:#?}",
        got.diagnostics
    );
}
