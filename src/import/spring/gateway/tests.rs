//! Unit tests of the Spring Cloud Gateway importer over the fixtures in
//! `fixtures/import/spring/` (the real corpus files and small hand-written ones).

use super::*;
use crate::import::summary;
use crate::source::loader::{Limits, Workspace};
use std::path::Path;

fn render(name: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ws = Workspace::new(root.to_path_buf(), Limits::default());
    let doc = ws.load(&root.join("fixtures/import/spring").join(name));
    let variants = source::variants(&doc).expect("readable");
    let documents = source::documents(&doc).expect("readable");
    let imported = import(&variants, &documents);

    summary::render_imported(&imported, false)
}

#[test]
fn corpus_retrytests_bare_retry_is_all_defaults() {
    let text = render(
        "spring-cloud-gateway--spring-cloud-spring-cloud-gateway--application-retrytests.yml",
    );
    // The dotted key `gateway.server.webflux:` is expanded; three routes.
    assert!(text.contains("route `retry_test` @8:11"), "{text}");
    assert!(text.contains("route `retry_post_once_test`"), "{text}");
    // Bare `- Retry`: 4 tries on 5xx and transport, GET only, at the filter item.
    assert!(text.contains("attempts 4 @13:15"), "{text}");
    assert!(
        text.contains(
            "retry_on [5xx@13:15, connect-failure@13:15, reset@13:15, timeout@13:15] @13:15"
        ),
        "{text}"
    );
    // Q23: the written `methods` holds the signals; the filter turns the retry on.
    assert!(text.contains("@31:17"), "{text}");
    assert!(text.contains("retry true @29:15"), "{text}");
    // Q24: POST on `retry_test` is not retried at all.
    assert!(text.contains("retry false @13:15"), "{text}");
    // PrefixPath=/httpbin from default-filters applies to every route.
    assert!(text.contains("AddPrefix(\"/httpbin\")"), "{text}");
    // The Host pattern names the API (Q1).
    assert!(text.contains("*.retrypostonceconfig.org@18:15"), "{text}");
    assert!(!text.contains("RL017"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn corpus_edge_service_default_filter_with_backoff() {
    let text = render("spring-cloud-gateway--springcloudnative-edge-service--application.yml");
    // The default Retry applies to both routes: retries 3 written, backoff 50ms..500ms x2.
    assert!(text.contains("attempts 4 @38:13"), "{text}");
    assert!(text.contains("base=50ms@43:15"), "{text}");
    assert!(text.contains("cap=500ms@44:15"), "{text}");
    // httpclient.response-timeout is each try's timeout.
    assert!(text.contains("attempt_timeout 5s @49:9"), "{text}");
    // `${CATALOG_SERVICE_URL:http://localhost:9001}/books` names its default host.
    assert!(text.contains("localhost@56:11"), "{text}");
    assert!(!text.contains("RL017"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn shortcut_fields_in_order() {
    let text = render("scg-shortcut.yml");
    // Retry=3,INTERNAL_SERVER_ERROR,GET,10ms,50ms,2,false,0.5,100ms
    assert!(text.contains("attempts 4 @"), "{text}");
    assert!(text.contains("500@"), "{text}");
    assert!(text.contains("base=10ms@"), "{text}");
    assert!(text.contains("cap=50ms@"), "{text}");
    assert!(text.contains("multiplier=2@"), "{text}");
    assert!(
        text.contains("jitter=proportional(0.5)@") || text.contains("jitter={proportional: 0.5}@"),
        "{text}"
    );
    assert!(text.contains("deadline 100ms @"), "{text}");
    // StripPrefix=1 behind /orders/**: the backend sees the rest.
    assert!(
        text.contains("Prefix { from: \"/orders\", to: \"\" }"),
        "{text}"
    );
    // Retry=1,SERVICE_UNAVAILABLE,POST: POST retried twice in total, GET not at all.
    assert!(text.contains("attempts 2 @"), "{text}");
    assert!(text.contains("methods [POST]"), "{text}");
    // RewritePath=/red/?(?<segment>.*), /$\{segment}
    assert!(
        text.contains("Prefix { from: \"/red\", to: \"/\" }"),
        "{text}"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn trigger_typos_and_rejected_values() {
    let text = render("scg-trigger-typos.yml");
    assert!(text.contains("RL017 unknown argument `retires`"), "{text}");
    assert!(
        text.contains("RL017 unknown filter `retry`: did you mean `Retry`?"),
        "{text}"
    );
    assert!(
        text.contains("RL017 `retries: 0` of the `Retry` filter is out of range"),
        "{text}"
    );
    assert!(
        text.contains("RL017 `jitter` of the `Retry` filter has no `backoff`"),
        "{text}"
    );
    // `statuses` does not replace the default series (scg#1536).
    assert!(text.contains("502@"), "{text}");
    assert!(text.contains("5xx@"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn clean_get_only_with_backoff_jitter_and_timeout() {
    let text = render("scg-clean-get-only.yml");
    // `series: []` removes the 5xx series: only 503 and connect failures.
    assert!(!text.contains("5xx"), "{text}");
    assert!(text.contains("503@"), "{text}");
    assert!(text.contains("connect-failure@"), "{text}");
    assert!(!text.contains("reset@"), "{text}");
    assert!(text.contains("attempts 3 @"), "{text}");
    assert!(text.contains("deadline 3s @"), "{text}");
    assert!(!text.contains("RL017"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn default_and_route_filters_nest_and_profiles_are_read() {
    let text = render("scg-default-and-route.yml");
    // The route's Retry (4, POST) and the default one (2, GET) both run: POST takes
    // the route's 5 tries, GET the default's 3.
    assert!(text.contains("attempts 5 @"), "{text}");
    assert!(text.contains("attempts 3 @"), "{text}");
    // metadata.response-timeout (ms) beats the http client's 2 s.
    assert!(text.contains("attempt_timeout 500ms @"), "{text}");
    assert!(text.contains("attempt_timeout 2s @"), "{text}");
    // Default PrefixPath=/v1 runs before the route's StripPrefix=1, which strips it.
    assert!(
        text.contains("Chain([AddPrefix(\"/v1\"), StripSegments(1)])"),
        "{text}"
    );
    // The prod profile's route is named with its profile.
    assert!(text.contains("`prod_route (profile prod)`"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn webmvc_fields_and_placeholders() {
    let text = render("scg-webmvc.yml");
    // `${RETRIES}` has no default: RL017, and SCG's default 3 is read (4 tries).
    assert!(
        text.contains("RL017 `retries` of the `Retry` filter is `${RETRIES}`"),
        "{text}"
    );
    assert!(text.contains("attempts 4 @14:19"), "{text}");
    // `${MVC_RETRIES:2}` takes its default.
    assert!(text.contains("attempts 3 @22:21"), "{text}");
    // WebMVC's filter has no `statuses`: RL017, and 502 is not a signal.
    assert!(text.contains("RL017 unknown argument `statuses`"), "{text}");
    assert!(!text.contains("502"), "{text}");
    insta::assert_snapshot!(text);
}

/// Values Spring cannot bind (issue 43): `retries` and `backoff.factor` beyond a
/// Java `int`, durations beyond a Java `long` of milliseconds. One RL017 each
/// saying "out of range"; the route does not load, so no retry is read from it
/// (not a huge count, not a 1e23 ms back-off).
#[test]
fn trigger_out_of_range_is_rl017_not_a_value() {
    let text = render("trigger-scg-out-of-range.yml");
    assert_eq!(text.matches(" RL017 `").count(), 5, "{text}");
    assert_eq!(text.matches("is out of range").count(), 5, "{text}");
    for absent in ["attempts", "backoff base", "is not", "99999999999999999999"] {
        assert!(
            !text.split(" RL017").next().unwrap_or("").contains(absent),
            "{absent}: {text}"
        );
    }
    insta::assert_snapshot!(text);
}
