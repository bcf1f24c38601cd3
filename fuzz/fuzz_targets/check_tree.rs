//! The whole `check` over a random small tree: the input is split at NUL bytes into up to
//! four files, each named by its first byte from the names every importer reads (so a
//! config, a policy, code and a `$ref` target meet in one run).
#![no_main]

use libfuzzer_sys::fuzz_target;
use retrylint_fuzz::{check_files_in, pick, text};

const NAMES: &[&str] = &[
    "openapi.yaml",
    "common.yaml",
    "orders.retry-policy.yaml",
    ".retrylint.yaml",
    "deploy/vs.yaml",
    "envoy.json",
    "grpc_service_config.json",
    "nginx.conf",
    "haproxy.cfg",
    "traefik.toml",
    "application.properties",
    "api.proto",
    "client.py",
    "client.ts",
    "Client.java",
    "client.go",
];

fuzz_target!(|data: &[u8]| {
    let mut files: Vec<(&str, &str)> = Vec::new();
    for chunk in data.split(|&b| b == 0).take(4) {
        let Some((name, rest)) = pick(chunk, NAMES) else {
            continue;
        };
        let Some(text) = text(rest) else {
            return;
        };
        if files.iter().all(|(n, _)| n != name) {
            files.push((name, text));
        }
    }
    if !files.is_empty() {
        check_files_in(NAMES, &files);
    }
});
