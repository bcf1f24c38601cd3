//! The Spring example service (`fixtures/examples/spring`): a checkout service whose
//! `application.yml` decorates its calls to the orders API with Resilience4j retries
//! named after the operations they call, and a `prod` profile. `check` run from its
//! folder shows real findings: the retried `POST /orders` carries no idempotency
//! key, and the profile's leftover `maxRetryAttempts` does nothing.

use std::process::Command;

fn check_example(args: &[&str]) -> (i32, String) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/examples/spring");
    let out = Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .current_dir(dir)
        .args(["check", "--color", "never"])
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn the_retried_post_without_a_key_is_the_finding() {
    let (code, human) = check_example(&["."]);
    assert_eq!(code, 1, "{human}");
    // RL201 at the instance's `retry-exceptions` (5xx and I/O errors after sending).
    assert!(
        human.contains("RL201") && human.contains("src/main/resources/application.yml:23:7"),
        "{human}"
    );
    assert!(
        human.contains("`POST /orders` is non-idempotent"),
        "{human}"
    );
    // The prod profile is checked as its own variant and says so.
    assert!(human.contains("under the Spring profile `prod`"), "{human}");
    assert!(
        human.contains("`maxRetryAttempts` in Resilience4j retry `getOrder`"),
        "{human}"
    );
    // The two variants of one client are alternatives, not two layers.
    assert!(!human.contains("RL311"), "{human}");
    // Exponential backoff with ±50 % randomized wait: no jitter finding.
    assert!(!human.contains("RL305"), "{human}");
    insta::assert_snapshot!("example_spring_check", human);
}
