//! Cost in proportion to the input (issue 43, cases 83, 84, 85 and 87): generated
//! inputs of moderate size, each checked for the output it must give, so that a fix
//! of the cost cannot change the answer. No test measures time or memory
//! (`scripts/scaling.sh` does, at 1x, 4x and 16x).

mod common;

use common::retrylint_in;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A fresh folder under the system temp dir, unique per test and process.
fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("retrylint-scaling-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The diagnostics of `check --format json .` in `dir`, and the exit code.
fn check_json(dir: &Path) -> (i32, Vec<Value>) {
    let (code, stdout, stderr) = retrylint_in(dir, &["check", "--format", "json", "."]);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    (
        code,
        v["diagnostics"].as_array().cloned().unwrap_or_default(),
    )
}

fn codes(diags: &[Value]) -> Vec<&str> {
    diags.iter().filter_map(|d| d["code"].as_str()).collect()
}

fn count(diags: &[Value], code: &str) -> usize {
    codes(diags).iter().filter(|c| **c == code).count()
}

/// Case 83's shape: `servers` servers of 20 regex locations, every location matching
/// `POST /api/pay` (`pa.`) and one of them `GET /api/items/{id}` (`items/1`).
fn nginx_conf(servers: usize) -> String {
    let mut s = String::from(
        "events {}\nhttp {\n  upstream backend { server 10.0.0.1:80; server 10.0.0.2:80; }\n",
    );
    for i in 0..servers {
        s.push_str("  server {\n    listen 80;\n    server_name orders;\n");
        for j in 0..20 {
            s.push_str(&format!(
                "    location ~ ^/api/(items/{}|pa.)$ {{ proxy_pass http://backend; proxy_next_upstream error timeout http_502 non_idempotent; proxy_next_upstream_tries {}; proxy_next_upstream_timeout 10s; }}\n",
                i * 20 + j,
                j % 5 + 1
            ));
        }
        s.push_str("  }\n");
    }
    s.push_str("}\n");
    s
}

const ORDERS_SPEC: &str = r#"openapi: 3.0.3
info: {title: t, version: "1"}
servers: [{url: "http://orders"}]
paths:
  /api/pay:
    post:
      operationId: pay
      responses:
        "200": {description: ok}
  /api/items/{id}:
    get:
      operationId: getItem
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        "200": {description: ok}
"#;

/// Every regex location is read and bound as nginx chooses (case 83, 5,000 regex
/// locations): the first location of each server takes `POST /api/pay` (one try: no
/// retry), `items/1` takes `GET /api/items/{id}`, and each other location that
/// retries (16 of 20 per server: `proxy_next_upstream_tries 1` retries nothing) is
/// an RL209, as the regex engine of `regex::Regex` would match them.
#[test]
fn nginx_regex_locations_bind_as_nginx_matches_them() {
    let dir = temp("nginx");
    let servers = 250;
    std::fs::write(dir.join("nginx.conf"), nginx_conf(servers)).unwrap();
    std::fs::write(dir.join("openapi.yaml"), ORDERS_SPEC).unwrap();
    let (code, diags) = check_json(&dir);
    assert_eq!(code, 0, "warnings only");
    assert_eq!(count(&diags, "RL209"), 16 * servers - 1);
    // The location `items/1` (line 8) retries `GET /api/items/{id}`: no jitter, and
    // nginx's 60 s read timeout above the 10 s `proxy_next_upstream_timeout`.
    for rule in ["RL305", "RL309"] {
        let found: Vec<&Value> = diags.iter().filter(|d| d["code"] == rule).collect();
        assert_eq!(found.len(), 1, "{rule}: {found:?}");
        assert_eq!(found[0]["path"], "nginx.conf", "{rule}");
        assert_eq!(found[0]["line"], 8, "{rule}");
    }
    assert_eq!(diags.len(), 16 * servers + 1);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A gRPC service config naming 20,000 methods, one of them twice (case 84): one
/// RL017 at the repeated name with a label at the first; gRPC rejects the whole
/// config for the repeat, so it retries nothing and leaves nothing unbound.
#[test]
fn grpc_many_names_one_duplicate() {
    let dir = temp("grpc");
    let n = 20_000;
    let mut names: Vec<Value> = (0..n)
        .map(|i| serde_json::json!({"service": format!("a.S{i}"), "method": "M"}))
        .collect();
    names.push(serde_json::json!({"service": "a.S7", "method": "M"}));
    let config = serde_json::json!({"methodConfig": [{"name": names, "retryPolicy": {
        "maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s",
        "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]});
    std::fs::write(dir.join("service_config.json"), config.to_string()).unwrap();
    std::fs::write(
        dir.join("openapi.yaml"),
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /x:\n    get:\n      responses:\n        '200': {description: ok}\n",
    )
    .unwrap();
    let (_, diags) = check_json(&dir);
    let dup: Vec<&Value> = diags
        .iter()
        .filter(|d| {
            d["code"] == "RL017"
                && d["message"]
                    .as_str()
                    .is_some_and(|m| m.starts_with("duplicate gRPC method name"))
        })
        .collect();
    assert_eq!(dup.len(), 1, "{dup:?}");
    assert_eq!(dup[0]["message"], "duplicate gRPC method name `a.S7/M`");
    let labels = dup[0]["labels"].as_array().expect("labels");
    assert!(
        labels.iter().any(|l| l["message"] == "first named here"),
        "{labels:?}"
    );
    // gRPC rejects a service config that names a method twice (case 92): nothing in it
    // retries, so no route is left unbound to report (no RL016).
    assert_eq!(count(&diags, "RL016"), 0, "{:?}", codes(&diags));
    let _ = std::fs::remove_dir_all(&dir);
}

/// One frontend routing to 5,000 backends (case 87), the spec served by the name
/// of backend `b7`: `POST /api/p7` takes the rule `use_backend b7` (the frontend's
/// routes in rule order, each with its backend's settings: 4 tries as `retries 3`
/// in `defaults` says), and the single RL209 lists every other rule, from `b0` to
/// the last.
#[test]
fn haproxy_many_backends_route_in_rule_order() {
    let dir = temp("haproxy");
    let n = 5_000;
    let mut s = String::from(
        "defaults\n  mode http\n  retries 3\n  retry-on all-retryable-errors\nfrontend f\n  bind :80\n",
    );
    for i in 0..n {
        s.push_str(&format!("  use_backend b{i} if {{ path_beg /api/p{i} }}\n"));
    }
    for i in 0..n {
        s.push_str(&format!(
            "backend b{i}\n  option redispatch\n  server s{i} orders:80\n  server t{i} orders2:80\n"
        ));
    }
    std::fs::write(dir.join("haproxy.cfg"), s).unwrap();
    std::fs::write(
        dir.join("openapi.yaml"),
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\nservers: [{url: 'http://b7'}]\npaths:\n  /api/p7:\n    post:\n      responses:\n        '200': {description: ok}\n",
    )
    .unwrap();
    let (code, stdout, stderr) =
        retrylint_in(&dir, &["layers", "POST /api/p7", "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let layers = v["operations"][0]["layers"].as_array().expect("layers");
    assert_eq!(layers.len(), 1, "{layers:?}");
    assert_eq!(layers[0]["source"], "HAProxy frontend f");
    assert_eq!(layers[0]["attempts"], 4);
    let (_, diags) = check_json(&dir);
    let rl209: Vec<&Value> = diags.iter().filter(|d| d["code"] == "RL209").collect();
    assert_eq!(rl209.len(), 1, "{:?}", codes(&diags));
    let message = rl209[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("the HAProxy frontend `f` routes `use_backend b0`, `use_backend b1`,")
    );
    assert!(
        message.contains("`use_backend b6`, `use_backend b8`,"),
        "{message}"
    );
    assert!(!message.contains("`use_backend b7`"));
    assert!(message.contains(&format!("and `use_backend b{}` retry on", n - 1)));
    for rule in ["RL201", "RL305"] {
        assert!(
            diags
                .iter()
                .any(|d| d["code"] == rule && d["operation"] == "POST /api/p7"),
            "{rule}: {:?}",
            codes(&diags)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `report --format html` over 2,000 retried POST operations (case 85): a matrix row
/// and a layer stack per operation, and the findings `check` reports, each once.
#[test]
fn html_report_many_operations() {
    let dir = temp("html");
    let n = 2_000;
    let mut spec = String::from("openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths:\n");
    for i in 0..n {
        spec.push_str(&format!(
            "  /a{i}:\n    post:\n      responses:\n        \"200\": {{description: ok}}\n        \"429\": {{description: slow}}\n"
        ));
    }
    std::fs::write(dir.join("openapi.yaml"), spec).unwrap();
    std::fs::write(
        dir.join("x.retry-policy.yaml"),
        "version: 1\nspec: openapi.yaml\ndefaults: {retry: true, attempts: 4, retry_on: [5xx, 429]}\n",
    )
    .unwrap();
    let (_, diags) = check_json(&dir);
    assert!(diags.len() >= n, "{}", diags.len());
    let (code, _, stderr) =
        retrylint_in(&dir, &["report", ".", "--format", "html", "-o", "r.html"]);
    assert_eq!(code, 1, "{stderr}");
    let page = std::fs::read_to_string(dir.join("r.html")).unwrap();
    // Every operation is not ready (each has findings), in document order.
    assert_eq!(page.matches("<tr class=\"not-ready\"").count(), n);
    assert_eq!(page.matches("class=\"operation\"").count(), n);
    assert!(page.contains(&format!("<h2>Findings ({})</h2>", diags.len())));
    assert_eq!(page.matches("<div class=\"finding\"").count(), diags.len());
    let first = page.find("<code>POST /a0</code>").expect("first row");
    let last = page
        .find(&format!("<code>POST /a{}</code>", n - 1))
        .expect("last row");
    assert!(first < last);
    let _ = std::fs::remove_dir_all(&dir);
}
