//! The gRPC example of README "gRPC service config" (`fixtures/examples/grpc`): a
//! library service's proto with `google.api.http` rules, its service config retrying
//! every RPC, and the OpenAPI document protoc-gen-openapiv2 generates from the proto
//! (operationIds `Library_<Method>`). `check` shows real findings: the Create without
//! a `request_id` and the custom method are retried on statuses after which the
//! request may have been processed (RL201); the read bound to `POST …:get` is not,
//! nor the Create whose request carries a `request_id`.

mod common;

use std::path::PathBuf;

#[test]
fn check_the_grpc_example() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/examples/grpc");
    let (code, out, err) = common::retrylint_in(&dir, &["check", "."]);
    assert_eq!(code, 1, "{out}{err}");
    // The RL201 finding: from its code to the next finding.
    let start = out.find("RL201").expect("RL201 fires");
    let rest = &out[start..];
    let text = &rest[..rest[5..].find("\nRL").map_or(rest.len(), |i| i + 5)];
    assert!(
        text.contains("POST /v1/{parent}/books"),
        "CreateBook: {out}"
    );
    assert!(text.contains("POST /v1/{name}:move"), "MoveBook: {out}");
    // GetBook is a read (AIP-131) although bound to POST; CreateShelf sends its
    // AIP-155 request_id (read from library.proto), the key RL203 asks a contract for.
    assert!(!text.contains("POST /v1/{name}:get"), "GetBook: {out}");
    assert!(!text.contains("POST /v1/shelves"), "CreateShelf: {out}");
    assert!(out.contains("library.proto:65:10"), "request_id: {out}");
    insta::assert_snapshot!(format!("exit {code}\n{out}{err}"));
}
