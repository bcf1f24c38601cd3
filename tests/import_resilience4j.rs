//! Resilience4j in Spring files: what the importer reads from the handed corpus
//! files and from small fixtures (properties syntax, profiles, placeholders,
//! inheritance, RL017 triggers and clean files), as summaries; and case 13 of
//! `retry-configs` checked end to end as a user runs it, compared with the case
//! README's expectations.

mod common;

use retrylint::config::Platforms;
use retrylint::import::proto::ProtoIndex;
use retrylint::import::{spring, summary, ImportContext};
use retrylint::source::loader::{Limits, Workspace};
use std::path::{Path, PathBuf};

fn dir(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The import summary of one fixture, then its findings as `line:col CODE message`.
fn render(rel: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ws = Workspace::new(root.to_path_buf(), Limits::default());
    let doc = ws.load(&root.join(rel));
    let platforms = Platforms::default();
    let protos = ProtoIndex::empty();
    let imported = spring::import(
        &doc,
        &ImportContext {
            platforms: &platforms,
            protos: &protos,
        },
    );

    summary::render_imported(&imported, false)
}

/// The `file:line:col` headers of the human output, in order.
fn positions(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| {
            let start = l.find("╭─[")? + "╭─[".len();
            let end = l[start..].find(']')? + start;
            Some(l[start..end].to_string())
        })
        .collect()
}

/// The `CODE file:line:col` of each finding: its code line, then its first header.
fn findings(stdout: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut code: Option<String> = None;
    for l in stdout.lines() {
        let t = l.trim();
        if t.len() > 5 && t.starts_with("RL") && t[2..5].bytes().all(|b| b.is_ascii_digit()) {
            code = Some(t[..5].to_string());
        } else if let (Some(c), Some(start)) = (&code, l.find("╭─[")) {
            let rest = &l[start + "╭─[".len()..];
            if let Some(end) = rest.find(']') {
                out.push(format!("{c} {}", &rest[..end]));
            }
            code = None;
        }
    }
    out
}

#[test]
fn case_13_resilience4j_client() {
    let (code, stdout, stderr) = common::retrylint_in(
        &dir("fixtures/cases/retry-configs/13-resilience4j-client"),
        &["check", "."],
    );
    assert_eq!(code, 1, "findings expected; stderr: {stderr}");
    let mut got = findings(&stdout);
    got.sort();
    let mut want: Vec<String> = [
        "RL017 application.yml:22:7",
        "RL201 application.yml:24:7",
        "RL401 application.yml:21:5",
        "RL301 application.yml:21:5",
        "RL305 application.yml:21:5",
        "RL306 application.yml:25:11",
        "RL101 application.yml:21:5",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    want.sort();
    assert_eq!(got, want, "{stdout}");
    // RL201 only for POST /orders, on 5xx, reset and timeout.
    assert!(
        stdout
            .contains("`POST /orders` is non-idempotent and retried on `5xx`, `reset`, `timeout`"),
        "{stdout}"
    );
    for absent in [
        "RL303", "RL309", "RL310", "RL402", "RL016", "RL005", "RL001",
    ] {
        assert!(!stdout.contains(absent), "{absent} fired:\n{stdout}");
    }
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn properties_file_gives_the_same_findings_at_its_own_lines() {
    let (code, stdout, stderr) = common::retrylint_in(
        &dir("fixtures/import/spring/e2e-properties"),
        &["check", "."],
    );
    assert_eq!(code, 1, "findings expected; stderr: {stderr}");
    let got = findings(&stdout);
    // `maxRetryAttempts` is ignored (RL017 at its last segment), the default config
    // turns the retry on at `default`, the list at `retryExceptions`, the 5xx class at
    // its item's value.
    for want in [
        "RL017 application.properties:4:36",
        "RL201 application.properties:6:36",
        "RL101 application.properties:4:28",
        "RL306 application.properties:6:55",
    ] {
        assert!(
            got.iter().any(|g| g == want),
            "{want} missing: {got:?}\n{stdout}"
        );
    }
    assert_eq!(got.len(), 7, "{stdout}");
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn corpus_spring_cloud2_demo_client() {
    let text = render("fixtures/import/spring/resilience4j-spring--resilience4j-resilience4j-spring-cloud2-demo--client.yml");
    assert!(text.contains("attempts 3 @21:5"), "{text}");
    assert!(text.contains("base=100ms@23:7"), "{text}");
    assert!(text.contains("jitter=none@21:5"), "{text}");
    assert!(text.contains("22:7 RL017"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn corpus_spring_boot2_demo_instances_inherit_default() {
    let text = render(
        "fixtures/import/spring/resilience4j--resilience4j-resilience4j-spring-boot2-demo--application.yml",
    );
    // Two instances, both `baseConfig: default`: maxAttempts 3 and 100 ms from it;
    // TimeoutException is a timeout, BusinessException maps to nothing.
    assert!(text.contains("retry instance `backendA`"), "{text}");
    assert!(text.contains("retry instance `backendB`"), "{text}");
    assert!(text.contains("attempts 3 @67:13"), "{text}");
    assert!(!text.contains("RL017"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn corpus_eazybytes_exponential_without_cap() {
    let text = render(
        "fixtures/import/spring/resilience4j-spring--eazybytes-microservices--application.yml",
    );
    // maxRetryAttempts 3 ignored: default 3 tries; 500 ms ×2, no cap, no jitter.
    assert!(text.contains("RL017 `maxRetryAttempts`"), "{text}");
    assert!(text.contains("multiplier=2@"), "{text}");
    assert!(text.contains("cap=-"), "{text}");
    assert!(text.contains("grows without a cap"), "{text}");
    assert!(text.contains("retry_on [timeout@"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn trigger_unknown_keys() {
    let text = render("fixtures/import/spring/trigger-unknown-keys.yml");
    assert!(
        text.contains("5:9 RL017 unknown key `max-attempt`"),
        "{text}"
    );
    assert!(
        text.contains("6:9 RL017 unknown key `waitDurration`"),
        "{text}"
    );
    assert!(text.contains("8:9 RL017 `maxRetryAttempts`"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn clean_keys_in_kebab_case() {
    let text = render("fixtures/import/spring/clean-keys.yml");
    assert!(!text.contains("RL017"), "{text}");
    assert!(text.contains("attempts 2 @5:9"), "{text}");
    assert!(
        text.contains("jitter=proportional(0.25)@11:9") || text.contains("jitter=proportional"),
        "{text}"
    );
    assert!(text.contains("cap=2s@9:9"), "{text}");
    assert!(text.contains("retry_on [connect-failure@13:13]"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn trigger_ineffective_backoff_and_missing_base_config() {
    let text = render("fixtures/import/spring/trigger-ineffective-backoff.yml");
    assert!(
        text.contains(
            "7:7 RL017 `enableExponentialBackoff` of Resilience4j retry `backendA` has no effect"
        ),
        "{text}"
    );
    assert!(
        text.contains("8:7 RL017 `exponentialMaxWaitDuration`"),
        "{text}"
    );
    assert!(text.contains("10:7 RL017 `baseConfig: shared`"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn trigger_invalid_values() {
    let text = render("fixtures/import/spring/trigger-invalid-values.yml");
    assert!(text.contains("3:5 RL017 `maxAttempts: 0`"), "{text}");
    assert!(text.contains("4:5 RL017 `waitDuration: 1.5s`"), "{text}");
    assert!(
        text.contains("8:5 RL017 `randomizedWaitFactor: 1.5`"),
        "{text}"
    );
    // Beyond what Java holds: an `int` of attempts, a `Duration` of seconds.
    assert!(
        text.contains("11:5 RL017 `maxAttempts: 4294967296`"),
        "{text}"
    );
    assert!(
        text.contains("12:5 RL017 `waitDuration: 99999999999999999999999h`"),
        "{text}"
    );
    insta::assert_snapshot!(text);
}

/// A `maxAttempts` Resilience4j cannot bind (issue 43): beyond a Java `int` or
/// below 1. One RL017 each saying "out of range" (not "is not an integer"), and no
/// count imported: not the default 3, not a wrapped or clamped number.
#[test]
fn trigger_max_attempts_out_of_range() {
    let text = render("fixtures/import/spring/trigger-max-attempts-out-of-range.yml");
    assert_eq!(text.matches(" RL017 ").count(), 4, "{text}");
    assert_eq!(
        text.matches("is out of range: 1 to 2147483647").count(),
        4,
        "{text}"
    );
    assert!(
        text.contains("7:5 RL017 `maxAttempts: 4294967296` is out of range"),
        "{text}"
    );
    assert!(!text.contains("is not an integer"), "{text}");
    assert!(!text.contains("attempts "), "{text}");
    insta::assert_snapshot!(text);
}

/// A multiplier Resilience4j cannot run (issue 43): `.nan` and `.inf` are not
/// numbers, `-2` and `0` are below 1. One RL017 each, and no multiplier imported:
/// not the written value, not the default 1.5.
#[test]
fn trigger_multiplier_out_of_range() {
    let text = render("fixtures/import/spring/trigger-multiplier-out-of-range.yml");
    assert_eq!(text.matches("RL017").count(), 4, "{text}");
    assert!(
        text.contains("9:5 RL017 `exponentialBackoffMultiplier: .nan`"),
        "{text}"
    );
    assert!(
        text.contains("13:5 RL017 `exponentialBackoffMultiplier: .inf`"),
        "{text}"
    );
    assert!(
        text.contains("17:5 RL017 `exponentialBackoffMultiplier: -2` is out of range"),
        "{text}"
    );
    assert!(
        text.contains("21:5 RL017 `exponentialBackoffMultiplier: 0` is out of range"),
        "{text}"
    );
    assert!(!text.contains("multiplier=1.5"), "{text}");
    assert!(!text.contains("multiplier=-2"), "{text}");
    assert!(!text.contains("multiplier=0"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn placeholders_take_their_default_or_stay_unknown() {
    let text = render("fixtures/import/spring/placeholders.yml");
    assert!(text.contains("attempts 4 @5:9"), "{text}");
    assert!(
        text.contains("6:9 RL017 `waitDuration: ${RETRY_WAIT}` depends on the environment"),
        "{text}"
    );
    assert!(
        text.contains("8:9 RL017 `maxAttempts: ${RETRY_ATTEMPTS}` depends on the environment"),
        "{text}"
    );
    assert!(text.contains("base=250ms@9:9"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn inheritance_follows_resilience4j() {
    let text = render("fixtures/import/spring/inheritance.yml");
    insta::assert_snapshot!(text);
}

#[test]
fn profiles_are_variants_of_their_own() {
    let text = render("fixtures/import/spring/profiles.yml");
    // The base and the `prod` profile (which sets resilience4j.retry); `dev` does
    // not touch it, so it binds what the base binds.
    assert!(text.contains("retry instance `createOrder`"), "{text}");
    assert!(
        text.contains("retry instance (profile `prod`) `createOrder`"),
        "{text}"
    );
    assert!(!text.contains("profile `dev`"), "{text}");
    assert!(text.contains("attempts 4 @15:7"), "{text}");
    assert!(
        text.contains("retry_on [connect-failure@17:11, reset@17:11, timeout@17:11] @16:7"),
        "{text}"
    );
    assert!(
        text.contains("(profile `prod`) `createOrder` @14:5"),
        "{text}"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn positions_helper_reads_headers() {
    assert_eq!(
        positions("  ╭─[a.yml:1:2]\n"),
        vec!["a.yml:1:2".to_string()]
    );
}

#[test]
fn clients_entry_binds_an_instance_to_every_operation() {
    let (code, stdout, stderr) =
        common::retrylint_in(&dir("fixtures/import/spring/e2e-clients"), &["check", "."]);
    assert_eq!(code, 1, "findings expected; stderr: {stderr}");
    // `ordersClient` names no operation; `.retrylint.yaml` lists it in `clients:`,
    // so it retries both operations of the spec.
    assert!(
        stdout.contains("`POST /orders` and `GET /orders/{id}` are retried without a `deadline`"),
        "{stdout}"
    );
    // TimeoutException may come after the order was placed: RL201 at the list.
    assert!(
        findings(&stdout).contains(&"RL201 application.yml:5:3".to_string()),
        "{stdout}"
    );
    assert!(!stdout.contains("RL016"), "{stdout}");
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn instance_naming_no_operation_is_unbound_with_the_clients_entry_to_add() {
    let (code, stdout, stderr) = common::retrylint_in(
        &dir("fixtures/import/spring/e2e-unbound-instance"),
        &["check", "."],
    );
    assert_eq!(code, 0, "only an info; stderr: {stderr}");
    assert_eq!(
        findings(&stdout),
        vec!["RL016 application.yml:4:7".to_string()],
        "{stdout}"
    );
    assert!(stdout.contains("clients: [inventoryClient]"), "{stdout}");
    let flat = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("has the operationId or tag `inventoryClient`"),
        "{stdout}"
    );
}

#[test]
fn instance_named_like_a_tag_binds_the_tagged_operations() {
    let (code, stdout, stderr) =
        common::retrylint_in(&dir("fixtures/import/spring/e2e-tag"), &["check", "."]);
    assert_eq!(code, 1, "findings expected; stderr: {stderr}");
    // The `orders` tag holds GET and POST /orders, not /health; the comma-separated
    // `retry-exceptions` of the properties file binds as a list.
    assert!(
        stdout.contains("`GET /orders` and `POST /orders` are retried without a `deadline`"),
        "{stdout}"
    );
    assert!(!stdout.contains("/health"), "{stdout}");
    assert!(
        stdout.contains("`POST /orders` is non-idempotent and retried on `503`"),
        "{stdout}"
    );
}

/// An alias bomb in a key retrylint does not read (a 9^6 expansion) never hides the
/// retry settings beside it: only `spring.*` and `resilience4j.*` are built.
#[test]
fn an_alias_bomb_elsewhere_does_not_hide_the_retry() {
    let (code, stdout, stderr) = common::retrylint_in(
        &dir("fixtures/import/spring/e2e-alias-bomb"),
        &["check", "."],
    );
    assert_eq!(code, 1, "findings expected; stderr: {stderr}");
    assert!(
        findings(&stdout).contains(&"RL201 application.yml:12:9".to_string()),
        "{stdout}"
    );
}

/// Refused values are quoted as written (issue 43): `randomizedWaitFactor:
/// 1.0000000000000001` (the double 1, outside [0, 1)) and
/// `exponentialBackoffMultiplier: 1e0` (1, not above 1) are RL017 with the text
/// of the file, never the number re-formatted (`1`).
#[test]
fn trigger_values_quoted_as_written() {
    let text = render("fixtures/import/spring/trigger-values-as-written.yml");
    assert_eq!(text.matches(" RL017 ").count(), 2, "{text}");
    assert!(
        text.contains("`randomizedWaitFactor: 1.0000000000000001` is not a factor in [0, 1)"),
        "{text}"
    );
    assert!(
        text.contains("`exponentialBackoffMultiplier: 1e0` is not a multiplier above 1"),
        "{text}"
    );
    insta::assert_snapshot!(text);
}
