//! Writes a generated repository for `scripts/bench.sh`: SPECS OpenAPI documents
//! under `api/` (each served at `svcN.example.com`, 20 operations) and OBJECTS Istio
//! `VirtualService`s and Gateway API `HTTPRoute`s under `deploy/` (50 per file, 3
//! routes each, every one bound to a spec by host), the shape of a monorepo's
//! platform configs.
//!
//! `cargo run --release --example gen_config_repo -- DIR [SPECS] [OBJECTS]`
//! (defaults 100 and 5000)

#![allow(clippy::disallowed_macros)] // output for the reader (clippy.toml)

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

fn spec(i: usize) -> String {
    let mut s = format!(
        "openapi: 3.0.3\ninfo: {{title: Service {i}, version: '1'}}\nservers:\n  - url: https://svc{i}.example.com\npaths:\n"
    );
    for r in 0..5 {
        let _ = write!(
            s,
            "  /r{r}:\n    get:\n      operationId: list{r}\n      responses:\n        '200': {{description: ok}}\n    post:\n      operationId: create{r}\n      responses:\n        '201': {{description: created}}\n  /r{r}/{{id}}:\n    get:\n      operationId: get{r}\n      parameters:\n        - {{name: id, in: path, required: true, schema: {{type: string}}}}\n      responses:\n        '200': {{description: ok}}\n    delete:\n      operationId: delete{r}\n      parameters:\n        - {{name: id, in: path, required: true, schema: {{type: string}}}}\n      responses:\n        '204': {{description: gone}}\n"
        );
    }
    s
}

fn virtual_service(n: usize, specs: usize) -> String {
    let host = n % specs;
    format!(
        "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata:\n  name: vs-{n}\nspec:\n  hosts: [svc{host}.example.com]\n  http:\n    - match:\n        - method: {{exact: POST}}\n      retries: {{attempts: 0}}\n      route: [{{destination: {{host: svc{host}}}}}]\n    - match:\n        - uri: {{prefix: /r{r}}}\n      retries: {{attempts: 3, perTryTimeout: 2s, retryOn: 5xx}}\n      timeout: 10s\n      route: [{{destination: {{host: svc{host}}}}}]\n    - route: [{{destination: {{host: svc{host}}}}}]\n",
        r = n % 5
    )
}

fn http_route(n: usize, specs: usize) -> String {
    let host = n % specs;
    format!(
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: route-{n}\nspec:\n  hostnames: [svc{host}.example.com]\n  rules:\n    - matches:\n        - path: {{type: PathPrefix, value: /r{r}}}\n      retry: {{codes: [503], attempts: 2, backoff: 100ms}}\n      timeouts: {{request: 5s, backendRequest: 1s}}\n    - matches:\n        - path: {{type: Exact, value: /r{r}}}\n          method: GET\n    - backendRefs: [{{name: svc{host}, port: 80}}]\n",
        r = n % 5
    )
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next().map(PathBuf::from) else {
        eprintln!("usage: gen_config_repo DIR [SPECS] [OBJECTS]");
        return ExitCode::from(2);
    };
    let specs: usize = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(100)
        .max(1);
    let objects: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(5000);
    let write = |path: PathBuf, text: String| -> std::io::Result<()> {
        std::fs::create_dir_all(path.parent().expect("a parent"))?;
        std::fs::write(path, text)
    };
    for i in 0..specs {
        if let Err(e) = write(dir.join(format!("api/svc{i}/openapi.yaml")), spec(i)) {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    }
    let per_file = 50;
    for f in 0..objects.div_ceil(per_file) {
        let mut text = String::new();
        for k in 0..per_file.min(objects - f * per_file) {
            let n = f * per_file + k;
            text.push_str("---\n");
            text.push_str(&if n % 2 == 0 {
                virtual_service(n, specs)
            } else {
                http_route(n, specs)
            });
        }
        if let Err(e) = write(dir.join(format!("deploy/routes-{f}.yaml")), text) {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    }
    println!(
        "{specs} specs, {objects} route objects in {}",
        dir.display()
    );
    ExitCode::SUCCESS
}
