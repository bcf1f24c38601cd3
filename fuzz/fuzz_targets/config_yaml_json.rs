//! A retry config in YAML or JSON (Istio, Envoy, Gateway API, Linkerd, ingress-nginx, Kong,
//! Spring, gRPC service config), recognised by content as in a real run: the first byte
//! picks the file name.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retrylint_fuzz::{check_files, pick, text};

const NAMES: &[&str] = &[
    "deploy/vs.yaml",
    "envoy.json",
    "grpc_service_config.json",
    "kong.yaml",
    "src/main/resources/application.yml",
    "deploy/httproute.yml",
];

fuzz_target!(|data: &[u8]| {
    let Some((name, rest)) = pick(data, NAMES) else {
        return;
    };
    if let Some(text) = text(rest) {
        check_files(&[(name, text)]);
    }
});
