//! The Spring Cloud Gateway example (`fixtures/examples/spring-gateway`): an edge
//! gateway whose default `Retry` retries GETs carefully (503 and I/O errors, backoff
//! with jitter, a 5 s budget) and whose orders route adds a `Retry` with `methods:
//! GET,POST`. `check` run from its folder shows the real findings: the POST is
//! retried after it may have been processed, with no key, no backoff and no deadline.

use std::process::Command;

fn check_example() -> (i32, String) {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/examples/spring-gateway"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .current_dir(dir)
        .args(["check", "--color", "never", "."])
        .env("NO_COLOR", "1")
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn the_route_retry_that_admits_post_is_the_finding() {
    let (code, human) = check_example();
    assert_eq!(code, 1, "{human}");
    // RL201 at the route's `methods: GET,POST`, labelled at its Retry filter (Q23).
    assert!(
        human.contains("RL201") && human.contains("src/main/resources/application.yml:38:21"),
        "{human}"
    );
    assert!(
        human.contains("`POST /orders` is non-idempotent"),
        "{human}"
    );
    // The default filter's 503 is reported where it is written.
    assert!(
        human.contains("src/main/resources/application.yml:21:17"),
        "{human}"
    );
    // StripPrefix=1 behind /api/orders/**: the spec's /orders paths are bound.
    assert!(human.contains("`GET /orders/{id}`"), "{human}");
    assert!(!human.contains("RL016"), "{human}");
    insta::assert_snapshot!("example_spring_gateway_check", human);
}
