//! Issue 41's real repositories, as trimmed copies under `fixtures/repos/` (files
//! unchanged, provenance in each `SOURCE.md`), checked as `retrylint check .` would
//! check them from inside the folder: the verdicts the issue states, the exact set
//! of error and warning findings, and an insta snapshot of the human output.
//! One `#[test]` per repository, each in its own section.

use retrylint::check::{run, CheckOptions, CheckOutcome};
use retrylint::report::human::{render, HumanOptions};
use std::path::PathBuf;

/// `retrylint check .` run inside `fixtures/repos/<name>`.
fn check_repo(name: &str) -> CheckOutcome {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/repos")
        .join(name);
    run(&CheckOptions {
        paths: vec![dir.clone()],
        cwd: Some(dir.clone()),
        root: Some(dir),
        ..CheckOptions::default()
    })
}

/// `(code, "file:line")` of every error and warning, sorted.
fn errors_and_warnings(o: &CheckOutcome) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = o
        .diagnostics
        .iter()
        .filter(|d| matches!(d.severity.as_str(), "error" | "warning"))
        .map(|d| {
            let loc = &d.primary.location;
            let line = loc.file.line_col(loc.span.start).line;
            (d.code.to_string(), format!("{}:{line}", loc.file.display))
        })
        .collect();
    out.sort();
    out
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = list
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    out.sort();
    out
}

/// The operations of the finding `code` (exactly one such finding).
fn operations_of(o: &CheckOutcome, code: &str) -> Vec<String> {
    let found: Vec<_> = o.diagnostics.iter().filter(|d| d.code == code).collect();
    assert_eq!(found.len(), 1, "one {code}: {found:?}");
    let mut ops = found[0].operations.clone();
    ops.sort();
    ops
}

fn human(o: &CheckOutcome) -> String {
    render(&o.diagnostics, HumanOptions::default())
}

// ---------------------------------------------------------------------------
// spring-petclinic-microservices (9a76b4e)

/// No service keeps an OpenAPI document: the operations of customers, visits, vets
/// and genai are read from their Spring MVC controllers, and the api-gateway's
/// default `Retry` filter (`methods: POST`, `statuses: SERVICE_UNAVAILABLE`, plus
/// SCG's default 5xx series and IO exceptions) binds through `lb://` names: RL201
/// for each of the four POSTs it reaches, at the filter's `methods`. The vets route
/// reaches only `GET /vets`, which the filter does not retry: no RL209 for it.
#[test]
fn spring_petclinic_microservices() {
    let o = check_repo("spring-petclinic-microservices");
    let gateway = "spring-petclinic-api-gateway/src/main/resources/application.yml";
    assert_eq!(
        errors_and_warnings(&o),
        pairs(&[
            ("RL201", &format!("{gateway}:19")),
            ("RL305", &format!("{gateway}:15")),
            ("RL306", &format!("{gateway}:18")),
        ])
    );
    assert_eq!(
        operations_of(&o, "RL201"),
        [
            "POST /chatclient",
            "POST /owners",
            "POST /owners/*/pets/{petId}/visits",
            "POST /owners/{ownerId}/pets",
        ]
    );
    // Each POST is labelled at its own handler and says where it was read.
    let rl201 = o.diagnostics.iter().find(|d| d.code == "RL201").unwrap();
    for source in [
        "OwnerResource.java:57",
        "PetResource.java:54",
        "VisitResource.java:56",
        "PetclinicChatClient.java:57",
    ] {
        let help = rl201.help.as_deref().unwrap_or_default();
        assert!(
            help.contains(&format!("read from `{source}`")),
            "{source}: {help}"
        );
    }
    for absent in ["RL016", "RL209", "RL301"] {
        assert!(!o.diagnostics.iter().any(|d| d.code == absent), "{absent}");
    }
    insta::assert_snapshot!("spring_petclinic_microservices", human(&o));
}

// ---------------------------------------------------------------------------
// Istio Bookinfo (the files of shared case 78)

/// Swagger 2.0 `basePath: /api/v1` is the path the VirtualService `bookinfo` routes
/// under: RL201 and RL306 at its `retries` for `POST /products/{id}/reviews`. The
/// egress VirtualService for `www.googleapis.com` binds nothing (RL016 info only).
#[test]
fn istio_bookinfo() {
    let o = check_repo("istio-bookinfo");
    assert_eq!(
        errors_and_warnings(&o),
        pairs(&[
            ("RL201", "bookinfo-gateway.yaml:14"),
            ("RL306", "bookinfo-gateway.yaml:14"),
        ])
    );
    assert_eq!(operations_of(&o, "RL201"), ["POST /products/{id}/reviews"]);
    let from_egress: Vec<&str> = o
        .diagnostics
        .iter()
        .filter(|d| d.primary.location.file.display == "egress-googleapis.yaml")
        .map(|d| d.code)
        .collect();
    assert_eq!(from_egress, ["RL016"]);
    insta::assert_snapshot!("istio_bookinfo", human(&o));
}

/// The Bookinfo files as Istio 1.6.4 ships them: the spec names no host, and three
/// VirtualServices route to three hosts. The `bookinfo` one lists the spec's paths
/// (`prefix: /api/v1/products`) and routes to `productpage`; the `httpbin` one takes
/// every path to `httpbin` and the egress one serves `www.googleapis.com`: neither is
/// the Bookinfo API (RL016 info each, no finding on its operations). The `bookinfo`
/// route has no `retries:` and no `timeout:`: Istio's default retries without a
/// deadline (RL301) and its 503 reading depends on the version (RL314).
#[test]
fn istio_bookinfo_upstream() {
    let o = check_repo("istio-bookinfo-upstream");
    let vs = "samples/bookinfo/networking/bookinfo-gateway.yaml";
    assert_eq!(
        errors_and_warnings(&o),
        pairs(&[
            ("RL301", &format!("{vs}:26")),
            ("RL314", &format!("{vs}:26"))
        ])
    );
    for other in [
        "samples/httpbin/httpbin-gateway.yaml",
        "samples/bookinfo/networking/egress-rule-google-apis.yaml",
    ] {
        let codes: Vec<&str> = o
            .diagnostics
            .iter()
            .filter(|d| d.primary.location.file.display == other)
            .map(|d| d.code)
            .collect();
        assert_eq!(codes, ["RL016"], "{other}");
    }
    let httpbin = o
        .diagnostics
        .iter()
        .find(|d| d.primary.location.file.display == "samples/httpbin/httpbin-gateway.yaml")
        .unwrap();
    assert!(
        httpbin.message.contains("go to `productpage`"),
        "{}",
        httpbin.message
    );
    assert!(!o
        .diagnostics
        .iter()
        .any(|d| d.code == "RL201" || d.code == "RL311"));
    insta::assert_snapshot!("istio_bookinfo_upstream", human(&o));
}

/// The summary line counts the APIs read from server code apart from OpenAPI
/// documents: petclinic keeps no spec in git, so it checks none.
#[test]
fn the_summary_counts_apis_read_from_server_code_apart() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/repos/spring-petclinic-microservices");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .args(["check", ".", "--color", "never"])
        .current_dir(&dir)
        .output()
        .expect("retrylint runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().unwrap_or_default();
    assert!(
        last.contains("(0 OpenAPI documents checked, 5 APIs read from server code, 0 policy files, 1 retry config)"),
        "{last}"
    );
}

// ---------------------------------------------------------------------------
// Helpers of the eShop and microservices-demo tests: the built binary, as users
// run it, and its JSON output.

mod common;

fn repo_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/repos")
        .join(name)
}

/// `retrylint check --format json .` in `dir`: (exit code, diagnostics).
fn check_json(dir: &std::path::Path) -> (i32, Vec<serde_json::Value>) {
    let (code, out, err) = common::retrylint_in(dir, &["check", "--format", "json", "."]);
    let v: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    (
        code,
        v["diagnostics"].as_array().expect("diagnostics").clone(),
    )
}

/// `(code, "path:line")` of every finding at warning or error level, sorted.
fn json_errors_and_warnings(diags: &[serde_json::Value]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = diags
        .iter()
        .filter(|d| d["severity"] == "error" || d["severity"] == "warning")
        .map(|d| {
            (
                d["code"].as_str().unwrap_or_default().to_string(),
                format!("{}:{}", d["path"].as_str().unwrap_or_default(), d["line"]),
            )
        })
        .collect();
    out.sort();
    out
}

/// The operations the findings of `code` name, sorted, once each.
fn json_operations_of(diags: &[serde_json::Value], code: &str) -> Vec<String> {
    let mut out: Vec<String> = diags
        .iter()
        .filter(|d| d["code"] == code)
        .flat_map(|d| {
            d["operations"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|o| o.as_str().map(str::to_string))
                .collect::<Vec<_>>()
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

// ---------------------------------------------------------------------------
// dotnet/eShop (5624ad5)
// ---------------------------------------------------------------------------

/// eShop: the operations come from the minimal APIs (no OpenAPI document in the
/// copy); `ConfigureHttpClientDefaults(... AddStandardResilienceHandler())` retries
/// every factory client; the Aspire AppHost names `ordering-api` and
/// `webhooks-api`, which the typed clients' `https+http://` base addresses reach.
#[test]
fn eshop() {
    let dir = repo_dir("eshop");
    let (code, diags) = check_json(&dir);
    assert_eq!(code, 1, "{diags:#?}");
    let defaults = "src/eShop.ServiceDefaults/Extensions.cs:25";
    assert_eq!(
        json_errors_and_warnings(&diags),
        pairs(&[
            // `POST /api/webhooks`: the WebhookClient's factory client, no key.
            ("RL201", defaults),
            // `POST /api/orders` requires `x-requestid`: a key whose contract no
            // policy states (not RL201, not RL206).
            ("RL203", "src/Ordering.API/Apis/OrdersApi.cs:119"),
            // The webhook sender POSTs to subscriber URLs: its host is data.
            ("RL209", "src/Webhooks.API/Services/WebhooksSender.cs:32"),
            ("RL307", defaults),
            ("RL309", defaults),
            ("RL401", defaults),
        ])
    );
    assert_eq!(json_operations_of(&diags, "RL201"), ["POST /api/webhooks"]);
    assert_eq!(json_operations_of(&diags, "RL203"), ["POST /api/orders"]);
    assert!(json_operations_of(&diags, "RL206").is_empty(), "{diags:#?}");
    // The operations are read from the minimal APIs, and say so.
    let rl201 = diags.iter().find(|d| d["code"] == "RL201").unwrap();
    let text = serde_json::to_string(rl201).unwrap();
    assert!(text.contains("read from `WebHooksApi.cs:35`"), "{text}");
    assert!(
        text.contains("src/WebhookClient/Services/WebHooksClient.cs"),
        "{text}"
    );
    // No finding is evidenced by a test project's client or by the MAUI app's
    // `new HttpClient(...)`, and nothing stays unbound.
    let all = serde_json::to_string(&diags).unwrap();
    assert!(!all.contains("tests/"), "{all}");
    assert!(!all.contains("src/ClientApp/"), "{all}");
    assert!(diags.iter().all(|d| d["code"] != "RL016"), "{diags:#?}");

    let (code, out, _) = common::retrylint_in(&dir, &["check", "."]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("real_repos_eshop_check", out);
}

// ---------------------------------------------------------------------------
// GoogleCloudPlatform/microservices-demo (34ffea9)
// ---------------------------------------------------------------------------

/// microservices-demo: the frontend's gorilla/mux routes are the API; the
/// ingress-gateway VirtualService and the mesh VirtualService both reach host
/// `frontend` with Istio's default retries (no `retries:`), which since 1.24 retry
/// only failures where the request was never sent. Two entry paths, not a stack.
#[test]
fn microservices_demo() {
    let dir = repo_dir("microservices-demo");
    let (code, diags) = check_json(&dir);
    assert_eq!(code, 1, "{diags:#?}");
    assert_eq!(
        json_errors_and_warnings(&diags),
        pairs(&[
            // No `timeout:` on either route: Istio disables Envoy's route timeout.
            ("RL301", "istio-manifests/frontend-gateway.yaml:40"),
            ("RL301", "istio-manifests/frontend.yaml:23"),
            // Istio's default conditions depend on the version (503 up to 1.23):
            // one finding per file.
            ("RL314", "istio-manifests/frontend-gateway.yaml:40"),
            ("RL314", "istio-manifests/frontend.yaml:23"),
        ])
    );
    // Both VirtualServices bind the frontend's operations (read from main.go).
    let rl301: Vec<&serde_json::Value> = diags.iter().filter(|d| d["code"] == "RL301").collect();
    for d in &rl301 {
        let text = serde_json::to_string(d).unwrap();
        assert!(text.contains("POST /cart/checkout"), "{text}");
        assert!(text.contains("read from `main.go:157`"), "{text}");
    }
    assert!(json_operations_of(&diags, "RL201").is_empty(), "{diags:#?}");
    assert!(diags.iter().all(|d| d["code"] != "RL311"), "{diags:#?}");
    assert!(diags.iter().all(|d| d["code"] != "RL016"), "{diags:#?}");
    // Each entry path is judged on its own.
    let (code, out, _) = common::retrylint_in(&dir, &["readiness", "."]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("POST /cart/checkout [entry path: ingress gateway `frontend-gateway`]"),
        "{out}"
    );
    assert!(
        out.contains("POST /cart/checkout [entry path: mesh]"),
        "{out}"
    );

    let (code, out, _) = common::retrylint_in(&dir, &["check", "."]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("real_repos_microservices_demo_check", out);
}
