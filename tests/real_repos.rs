//! Issue 41's real repositories, as trimmed unchanged copies under
//! `fixtures/repos/` (each with its `SOURCE.md`: repository, commit, files kept):
//! `retrylint check .` in each, with nothing written by hand, gives the verdicts the
//! issue states. One `#[test]` per repository, each in its own section.
//!
//! Each test asserts the exact set of findings at warning and error level as
//! `(code, file:line)`, the operations the key findings name, the absence of the
//! findings the issue excludes, and snapshots the human output.

use std::path::{Path, PathBuf};

mod common;

fn repo(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/repos")
        .join(name)
}

/// `retrylint check --format json .` in `dir`: (exit code, diagnostics).
fn check_json(dir: &Path) -> (i32, Vec<serde_json::Value>) {
    let (code, out, err) = common::retrylint_in(dir, &["check", "--format", "json", "."]);
    let v: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    (
        code,
        v["diagnostics"].as_array().expect("diagnostics").clone(),
    )
}

/// `(code, "path:line")` of every finding at warning or error level, sorted.
fn serious(diags: &[serde_json::Value]) -> Vec<(String, String)> {
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

/// The operations the findings of `code` name, sorted.
fn operations_of(diags: &[serde_json::Value], code: &str) -> Vec<String> {
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

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = list
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    out.sort();
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
    let dir = repo("eshop");
    let (code, diags) = check_json(&dir);
    assert_eq!(code, 1, "{diags:#?}");
    let defaults = "src/eShop.ServiceDefaults/Extensions.cs:25";
    assert_eq!(
        serious(&diags),
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
    assert_eq!(operations_of(&diags, "RL201"), ["POST /api/webhooks"]);
    assert_eq!(operations_of(&diags, "RL203"), ["POST /api/orders"]);
    assert!(operations_of(&diags, "RL206").is_empty(), "{diags:#?}");
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
    let dir = repo("microservices-demo");
    let (code, diags) = check_json(&dir);
    assert_eq!(code, 1, "{diags:#?}");
    assert_eq!(
        serious(&diags),
        pairs(&[
            // No `timeout:` on either route: Istio disables Envoy's route timeout.
            ("RL301", "istio-manifests/frontend-gateway.yaml:40"),
            ("RL301", "istio-manifests/frontend.yaml:23"),
            // Istio's default conditions depend on the version (503 up to 1.23).
            ("RL314", "istio-manifests/frontend-gateway.yaml:40"),
        ])
    );
    // Both VirtualServices bind the frontend's operations (read from main.go).
    let rl301: Vec<&serde_json::Value> = diags.iter().filter(|d| d["code"] == "RL301").collect();
    for d in &rl301 {
        let text = serde_json::to_string(d).unwrap();
        assert!(text.contains("POST /cart/checkout"), "{text}");
        assert!(text.contains("read from `main.go:157`"), "{text}");
    }
    assert!(operations_of(&diags, "RL201").is_empty(), "{diags:#?}");
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
