//! Retries in Java code (`retry-in-code.md` §1.3): Spring Retry and Spring
//! Framework 7 `@Retryable`, Resilience4j `@Retry` (settings from the Spring
//! config), an OpenFeign `Retryer` bean, and the calls they bind through
//! (`RestTemplate`, `WebClient`, Feign / `@HttpExchange` / Retrofit interfaces, a
//! wrapper named by its verb). Each fixture is checked as a user runs it: a
//! snapshot of the human output, and the code and `file:line:col` of every finding.

mod common;

use common::{findings_sorted as findings, has};

use std::path::PathBuf;

fn dir(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// `retrylint check .` in `fixtures/code/java/<name>`: (exit code, stdout).
fn check(name: &str) -> (i32, String) {
    let (code, stdout, stderr) =
        common::retrylint_in(&dir(&format!("fixtures/code/java/{name}")), &["check", "."]);
    assert!(code == 0 || code == 1, "exit {code}; stderr: {stderr}");
    (code, stdout)
}

#[test]
fn spring_retry_defaults_retry_a_post() {
    let (code, out) = check("spring-retry");
    assert_eq!(code, 1);
    let got = findings(&out);
    let f = "src/main/java/com/example/orders/OrderService.java";
    // The bare `@Retryable`: every exception, 3 attempts, 1 s fixed.
    for want in ["RL201", "RL305", "RL301", "RL306", "RL308"] {
        assert!(has(&got, &format!("{want} {f}:18:5")), "{want}: {got:#?}");
    }
    // `maxAttemptsExpression` is a placeholder: RL019, assumed 3 attempts.
    assert!(has(&got, &format!("RL019 {f}:24:37")), "{got:#?}");
    // The GET retried with an exponential backoff and no jitter.
    assert!(has(&got, &format!("RL305 {f}:25:23")), "{got:#?}");
    assert!(out.contains("`retryFor` = {}: every exception is"));
    insta::assert_snapshot!("spring_retry", out);
}

#[test]
fn placeholders_resolve_from_the_modules_application_yml() {
    let (code, out) = check("spring-retry-properties");
    assert_eq!(code, 1);
    let got = findings(&out);
    let f = "src/main/java/com/example/registry/IssuerClient.java";
    // maxAttempts and delay come from application.yml: no RL019 for them.
    assert_eq!(
        got.iter()
            .filter(|g| g.starts_with("RL019"))
            .collect::<Vec<_>>(),
        [&format!("RL019 {f}:16:42")],
        "only maxDelay is in no property file"
    );
    // Wherever the note's line wraps.
    let words = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("`service.retry.maxAttempts` = 5 in src/main/"),
        "{out}"
    );
    assert!(has(&got, &format!("RL201 {f}:13:24")), "{got:#?}");
    insta::assert_snapshot!("spring_retry_properties", out);
}

#[test]
fn spring_retry_with_a_key_sent_on_every_attempt_is_clean() {
    let (_, out) = check("spring-retry-clean");
    let got = findings(&out);
    assert!(!got.iter().any(|g| g.starts_with("RL201")), "{got:#?}");
    assert!(
        !got.iter().any(|g| g.starts_with("RL305")),
        "random = true: {got:#?}"
    );
    assert!(!got.iter().any(|g| g.starts_with("RL208")), "{got:#?}");
    insta::assert_snapshot!("spring_retry_clean", out);
}

#[test]
fn a_key_generated_inside_the_retried_method_is_rl208() {
    let (code, out) = check("key-regenerated");
    assert_eq!(code, 1);
    let got = findings(&out);
    assert!(has(&got, "RL208 src/OrderService.java:22:40"), "{got:#?}");
    assert!(!got.iter().any(|g| g.starts_with("RL201")), "{got:#?}");
    insta::assert_snapshot!("key_regenerated", out);
}

#[test]
fn spring_framework_7_counts_retries_and_reads_jitter_and_timeout() {
    let (code, out) = check("framework7");
    assert_eq!(code, 1);
    let got = findings(&out);
    assert!(has(&got, "RL201 src/PaymentService.java:16:5"), "{got:#?}");
    // The refund: connect failures only, jitter 1 s of 2 s, a 10 s timeout.
    assert!(
        !got.iter()
            .any(|g| g.contains(":22:") && !g.starts_with("RL101") && !g.starts_with("RL401")),
        "{got:#?}"
    );
    insta::assert_snapshot!("framework7", out);
}

#[test]
fn resilience4j_takes_the_instance_from_the_spring_config_or_the_defaults() {
    let (code, out) = check("resilience4j");
    assert_eq!(code, 1);
    let got = findings(&out);
    // `payments`: the instance's settings, with their origins in application.yml.
    assert!(
        has(&got, "RL201 src/main/resources/application.yml:7:9"),
        "{got:#?}"
    );
    // The instance is the code client's layer, not a second unbound one.
    assert!(!got.iter().any(|g| g.starts_with("RL016")), "{got:#?}");
    // `capture`: no instance, the library defaults (every exception).
    assert!(
        has(
            &got,
            "RL201 src/main/java/com/example/pay/PaymentService.java:19:5"
        ),
        "{got:#?}"
    );
    insta::assert_snapshot!("resilience4j", out);
}

#[test]
fn a_feign_retryer_bean_retries_every_feign_clients_post() {
    let (code, out) = check("feign");
    assert_eq!(code, 1);
    let got = findings(&out);
    assert!(has(&got, "RL201 src/FeignConfig.java:14:16"), "{got:#?}");
    assert!(has(&got, "RL305 src/FeignConfig.java:14:16"), "{got:#?}");
    assert!(
        out.contains("`POST /api/orders`"),
        "class-level prefix joined"
    );
    insta::assert_snapshot!("feign", out);
}

#[test]
fn a_feign_post_with_a_key_header_is_clean_and_never_retry_retries_nothing() {
    let (_, out) = check("feign-clean");
    let got = findings(&out);
    assert!(!got.iter().any(|g| g.starts_with("RL201")), "{got:#?}");
    assert!(!got.iter().any(|g| g.starts_with("RL306")), "{got:#?}");
    insta::assert_snapshot!("feign_clean", out);
    let (code, out) = check("feign-never");
    assert_eq!(code, 0, "{out}");
    assert!(findings(&out).is_empty(), "{out}");
}

#[test]
fn a_retried_wrapper_binds_its_callers_posts() {
    let (code, out) = check("wrapper");
    assert_eq!(code, 1);
    let got = findings(&out);
    assert!(
        has(&got, "RL201 src/RetryingTemplate.java:13:24"),
        "{got:#?}"
    );
    assert!(out.contains("`POST /credentials`"), "{out}");
    // The caller's call names the path: it binds to `POST /credentials` (no RL209
    // "no operation there matches this call") and is the call labelled, not the
    // wrapper's own call of a URL it is handed.
    assert!(!got.iter().any(|g| g.starts_with("RL209")), "{got:#?}");
    assert_eq!(
        common::called_here(
            &dir("fixtures/code/java/wrapper"),
            "RL201",
            "POST /credentials"
        ),
        ["src/CredentialService.java:13"]
    );
    insta::assert_snapshot!("wrapper", out);
}

#[test]
fn http_exchange_and_retrofit_interfaces_bind_exactly() {
    let (code, out) = check("http-interfaces");
    assert_eq!(code, 1);
    let got = findings(&out);
    assert!(has(&got, "RL201 src/ShopService.java:15:5"), "{got:#?}");
    assert!(
        out.contains("`POST /api/carts` and `POST /orders/{id}/cancel`"),
        "{out}"
    );
    insta::assert_snapshot!("http_interfaces", out);
}

/// The handed corpus file (SOURCES.tsv: `@Retryable` on `postForEntity` and the
/// PUT/DELETE/GET wrappers for `ResourceAccessException`, SpEL placeholders for
/// `maxAttempts` and `delay`, fixed delay, no jitter, no Retry-After, no timeout),
/// with a companion spec of the registry's entity API.
#[test]
fn corpus_sunbird_retry_rest_template() {
    // In a temporary copy: a named file brings its whole project, and this
    // repository is not the file's.
    let tmp = std::env::temp_dir().join(format!("retrylint-java-sunbird-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let names = [
        "java--Sunbird-RC-sunbird-rc-core--RetryRestTemplate.java",
        "java--Sunbird-RC-sunbird-rc-core--RetryRestTemplate.openapi.yaml",
    ];
    for n in names {
        std::fs::copy(dir("fixtures/code/corpus").join(n), tmp.join(n)).unwrap();
    }
    let (code, out, stderr) = common::retrylint_in(&tmp, &["check", names[0], names[1]]);
    let _ = std::fs::remove_dir_all(&tmp);
    assert_eq!(code, 1, "{stderr}");
    let got = findings(&out);
    let f = "java--Sunbird-RC-sunbird-rc-core--RetryRestTemplate.java";
    // The POST wrapper, retried on ResourceAccessException (read timeouts after send).
    assert!(has(&got, &format!("RL201 {f}:22:24")), "{got:#?}");
    // Six methods, each with two SpEL placeholders.
    assert_eq!(got.iter().filter(|g| g.starts_with("RL019")).count(), 12);
    assert!(has(&got, &format!("RL019 {f}:22:163")), "{got:#?}");
    assert!(has(&got, &format!("RL019 {f}:23:50")), "{got:#?}");
    // Fixed delay, no jitter; no deadline.
    assert!(has(&got, &format!("RL305 {f}:23:23")), "{got:#?}");
    assert!(got.iter().any(|g| g.starts_with("RL301")), "{got:#?}");
    // PUT, GET and DELETE are idempotent: no RL201 for them.
    assert_eq!(got.iter().filter(|g| g.starts_with("RL201")).count(), 1);
    insta::assert_snapshot!("corpus_sunbird", out);
}

#[test]
fn a_feign_builder_retryer_applies_to_its_target_interface() {
    let (code, out) = check("feign-builder");
    assert_eq!(code, 1);
    let got = findings(&out);
    assert!(has(&got, "RL201 src/Clients.java:10:26"), "{got:#?}");
    assert!(
        out.contains("`POST /api/orders` and `GET /api/orders/{id}`"),
        "{out}"
    );
    insta::assert_snapshot!("feign_builder", out);
}

/// Half-typed code, deep nesting, constant cycles and long concatenations never
/// panic and end quickly: what cannot be read is assumed (RL019) or left out.
#[test]
fn hostile_java_never_panics() {
    let dir = std::env::temp_dir().join(format!("retrylint-java-hostile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("api")).unwrap();
    std::fs::write(
        dir.join("api/openapi.yaml"),
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /x:\n    post:\n      responses:\n        '200': {description: ok}\n",
    )
    .unwrap();
    let deep = format!("{}1{}", "(".repeat(5000), ")".repeat(5000));
    let concat = vec!["\"/x\""; 20000].join(" + ");
    let text = format!(
        "import org.springframework.retry.annotation.Retryable;\n\
         class A {{\n static final int C = D;\n static final int D = C;\n\
         @Retryable(maxAttempts = {deep}) void a() {{ restTemplate.postForObject({concat}, null, String.class); }}\n\
         @Retryable(maxAttempts = C, backoff = @Backoff(delay = ) void b() {{ restTemplate.postForObject(\n\
         @Retryable(value = {{ , }}, maxAttemptsExpression = \"#{{${{\") void c() {{ webClient.post().uri(\n"
    );
    std::fs::write(dir.join("A.java"), text).unwrap();
    let (code, out, stderr) = common::retrylint_in(&dir, &["check", "."]);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(code == 0 || code == 1, "exit {code}: {stderr}\n{out}");
}
