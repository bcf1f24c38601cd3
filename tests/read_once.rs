//! One pass (issue 40): a run reads and parses each input file once. Retry configs,
//! policies, `.proto` files and retry code are read first, the OpenAPI documents
//! after, once the run knows whether anything binds to them; nothing is read again,
//! whether the documents stream (nothing binds) or are held whole.

use retrylint::check::{run, run_full, CheckOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn options(path: &Path) -> CheckOptions {
    CheckOptions {
        paths: vec![path.to_path_buf()],
        cwd: Some(repo()),
        ..CheckOptions::default()
    }
}

/// The files read more than once, shown relative to the repository.
fn read_again(reads: &BTreeMap<PathBuf, usize>) -> Vec<String> {
    let root = std::fs::canonicalize(repo()).unwrap();
    reads
        .iter()
        .filter(|(_, n)| **n != 1)
        .map(|(p, n)| format!("{} x{n}", p.strip_prefix(&root).unwrap_or(p).display()))
        .collect()
}

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Specs (one named like a spec, one not), a component two of them share through
/// `$ref`, retry configs of several platforms, a `.proto`, a gRPC service config,
/// retry code, and code without a retry library.
fn mixed_repository(dir: &Path) {
    let spec = |title: &str, path: &str| {
        format!(
            "openapi: 3.0.3\ninfo: {{title: {title}, version: '1'}}\nservers: [{{url: 'http://reviews.shop.svc'}}]\npaths:\n  {path}:\n    get:\n      operationId: get{title}\n      responses:\n        '503': {{$ref: '../common/errors.yaml#/components/responses/Unavailable'}}\n        '200': {{description: ok}}\n"
        )
    };
    write(dir, "api/openapi.yaml", &spec("Reviews", "/reviews"));
    write(dir, "api/orders-api.yaml", &spec("Orders", "/orders"));
    write(
        dir,
        "common/errors.yaml",
        "components:\n  responses:\n    Unavailable: {description: try later}\n",
    );
    write(
        dir,
        "deploy/virtualservice.yaml",
        "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: reviews}\nspec:\n  hosts: [reviews.shop.svc]\n  http:\n  - route: [{destination: {host: reviews.shop.svc}}]\n    retries: {attempts: 5, retryOn: '5xx,reset'}\n",
    );
    write(
        dir,
        "deploy/httproute.yaml",
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: orders}\nspec:\n  hostnames: [orders.shop.example]\n  rules:\n  - matches: [{path: {type: PathPrefix, value: /orders}}]\n    retry: {attempts: 3, codes: [503]}\n    backendRefs: [{name: orders, port: 80}]\n",
    );
    write(
        dir,
        "deploy/envoy.yaml",
        "static_resources:\n  listeners: []\n  clusters: []\nroute_config:\n  virtual_hosts:\n  - name: shop\n    domains: ['*']\n    routes:\n    - match: {prefix: /reviews}\n      route: {cluster: reviews, retry_policy: {retry_on: 5xx, num_retries: 4}}\n",
    );
    write(
        dir,
        "deploy/nginx.conf",
        "http {\n  server {\n    location /orders {\n      proxy_pass http://orders;\n      proxy_next_upstream error timeout http_503 non_idempotent;\n    }\n  }\n}\n",
    );
    write(
        dir,
        "proto/greeter.proto",
        "syntax = \"proto3\";\npackage shop;\nservice Greeter {\n  rpc Hello (Req) returns (Req);\n}\nmessage Req { string name = 1; }\n",
    );
    write(
        dir,
        "deploy/service-config.json",
        "{\"methodConfig\": [{\"name\": [{\"service\": \"shop.Greeter\"}], \"retryPolicy\": {\"maxAttempts\": 4, \"initialBackoff\": \"0.1s\", \"maxBackoff\": \"1s\", \"backoffMultiplier\": 2, \"retryableStatusCodes\": [\"UNAVAILABLE\"]}}]}\n",
    );
    write(
        dir,
        "client/reviews.py",
        "import requests\nfrom urllib3.util.retry import Retry\nfrom requests.adapters import HTTPAdapter\n\ns = requests.Session()\ns.mount('http://', HTTPAdapter(max_retries=Retry(total=5, status_forcelist=[503], allowed_methods=None)))\n\ndef reviews():\n    return s.get('http://reviews.shop.svc/reviews')\n",
    );
    write(dir, "client/util.py", "def plain():\n    return 1\n");
    write(dir, "docs/notes.yaml", "title: notes\nitems: [1, 2]\n");
}

#[test]
fn each_file_of_a_mixed_repository_is_read_once() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(tmp.path()).unwrap();
    mixed_repository(&dir);
    let outcome = run(&options(&dir));
    assert!(outcome.configs >= 4, "configs read: {}", outcome.configs);
    // The two specs, and the `.proto` service the gRPC config retries, which no
    // document describes (an API of its own).
    assert_eq!(outcome.documents, 3);
    assert_eq!(outcome.from_code, 1);
    let names = |reads: &BTreeMap<PathBuf, usize>| -> Vec<String> {
        reads
            .keys()
            .map(|p| p.strip_prefix(&dir).unwrap().display().to_string())
            .collect()
    };
    // Everything was read: the specs, the shared component, each config, the proto
    // and the retry code (the plain module is read by its pre-check only).
    for file in [
        "api/openapi.yaml",
        "api/orders-api.yaml",
        "common/errors.yaml",
        "deploy/virtualservice.yaml",
        "deploy/httproute.yaml",
        "deploy/envoy.yaml",
        "deploy/nginx.conf",
        "deploy/service-config.json",
        "proto/greeter.proto",
        "client/reviews.py",
        "client/util.py",
        "docs/notes.yaml",
    ] {
        assert!(
            names(&outcome.reads).iter().any(|n| n == file),
            "{file} not read: {:?}",
            names(&outcome.reads)
        );
    }
    let again: Vec<String> = outcome
        .reads
        .iter()
        .filter(|(_, n)| **n != 1)
        .map(|(p, n)| format!("{} x{n}", p.display()))
        .collect();
    assert!(again.is_empty(), "read more than once: {again:?}");
    let (analyzed, _) = run_full(&options(&dir));
    assert_eq!(analyzed.reads, outcome.reads);
}

#[test]
fn specs_that_stream_are_read_once_too() {
    // No config: the documents stream (checked and released one by one), and the
    // component both reach through `$ref` is read once.
    let tmp = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(tmp.path()).unwrap();
    mixed_repository(&dir);
    for gone in ["deploy", "proto", "client"] {
        std::fs::remove_dir_all(dir.join(gone)).unwrap();
    }
    write(
        &dir,
        "alone/openapi.yaml",
        "openapi: 3.0.3\ninfo: {title: alone, version: '1'}\npaths:\n  /a:\n    post:\n      responses: {'200': {description: ok}}\n",
    );
    let outcome = run(&options(&dir));
    assert_eq!(outcome.configs, 0);
    assert_eq!(outcome.documents, 3);
    assert_eq!(outcome.reads.len(), 5, "{:?}", outcome.reads);
    assert!(
        outcome.reads.values().all(|n| *n == 1),
        "{:?}",
        outcome.reads
    );
}

#[test]
fn every_example_and_import_fixture_is_read_once() {
    let mut folders: Vec<PathBuf> = Vec::new();
    for parent in ["fixtures/examples", "fixtures/import", "fixtures/repos"] {
        let mut found: Vec<PathBuf> = std::fs::read_dir(repo().join(parent))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        found.sort();
        folders.extend(found);
    }
    assert!(folders.len() > 20);
    let mut failures = Vec::new();
    for folder in &folders {
        let outcome = run(&options(folder));
        let again = read_again(&outcome.reads);
        if !again.is_empty() {
            failures.push(format!("{}: {again:?}", folder.display()));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
