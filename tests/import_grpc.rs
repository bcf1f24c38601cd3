//! End to end: `retrylint check` on the gRPC case of `retry-configs` (case 12, a
//! service config retrying one RPC, with the OpenAPI document generated from its
//! proto) and on the hedging trigger/clean fixtures of `fixtures/import/grpc/`.

use std::path::PathBuf;

mod common;

fn check(dir: &str) -> (i32, String) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(dir);
    let (code, out, err) = common::retrylint_in(&root, &["check", "."]);
    (code, format!("exit {code}\n{out}{err}"))
}

/// Case README 12: RL201 at `retryableStatusCodes` (10:21), RL401 and RL101 at
/// `retryPolicy` (5:6), all on `POST /lock_service.LockService/client_init` (a custom
/// method, so non-idempotent), and nothing else.
#[test]
fn case_12_grpc_client_init() {
    let (code, out) = check("fixtures/cases/retry-configs/12-grpc-client-init");
    assert_eq!(code, 1, "{out}");
    for (code, at) in [
        ("RL201", "service_config.json:10:21"),
        ("RL401", "service_config.json:5:6"),
        ("RL101", "service_config.json:5:6"),
    ] {
        let start = out
            .find(code)
            .unwrap_or_else(|| panic!("{code} missing:\n{out}"));
        let rest = &out[start..];
        let block = &rest[..rest[5..].find("\nRL").map_or(rest.len(), |i| i + 5)];
        assert!(block.contains(at), "{code} at {at}:\n{out}");
    }
    assert!(
        out.contains("unavailable") && out.contains("deadline-exceeded"),
        "{out}"
    );
    for absent in [
        "RL301",
        "RL305",
        "RL306",
        "RL307",
        "RL309",
        "RL310",
        "RL303",
        "RL017",
        "RL207",
        "RL402",
        "RL016",
        "lock_acquire",
        "lock_release",
        "file_append",
        "client_close",
    ] {
        assert!(!out.contains(absent), "{absent} appears:\n{out}");
    }
    assert!(out.contains("0 policy files, 1 retry config"), "{out}");
    insta::assert_snapshot!(out);
}

/// Hedging a non-idempotent RPC (`CreateOrder`, POST) without a key: RL207 at the
/// `hedgingPolicy`.
#[test]
fn trigger_hedging_a_create_is_rl207() {
    let (code, out) = check("fixtures/import/grpc/e2e-hedging-trigger");
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("RL207"), "{out}");
    assert!(out.contains("service_config.json:6:7"), "{out}");
    insta::assert_snapshot!(out);
}

/// Hedging a read (`GetOrder`, GET) is fine.
#[test]
fn clean_hedging_a_get() {
    let (_, out) = check("fixtures/import/grpc/e2e-hedging-clean");
    assert!(!out.contains("RL207"), "{out}");
    assert!(!out.contains("RL016"), "{out}");
    insta::assert_snapshot!(out);
}

/// Two specs: the service config binds only to the one holding its RPCs (by
/// operationId), with no RL016. `GetOrder`, a read bound to POST, is judged by its
/// own semantics; the spec's declared `effect` wins over the RPC's name without an
/// RL103 (an inferred effect is no declaration). `CreateOrder` is RL201.
#[test]
fn two_specs_bind_by_rpc_and_declared_effect_wins() {
    let (code, out) = check("fixtures/import/grpc/e2e-two-specs");
    assert_eq!(code, 1, "{out}");
    let start = out.find("RL201").expect("RL201");
    let rl201 = &out[start..];
    assert!(
        rl201.contains("POST /v1/orders` is non-idempotent"),
        "{out}"
    );
    for absent in ["RL103", "RL016", "/v1/orders/{id}:get", "/payments"] {
        assert!(!out.contains(absent), "{absent} appears:\n{out}");
    }
    assert!(out.contains("2 OpenAPI documents checked"), "{out}");
    insta::assert_snapshot!(out);
}

/// Binding through the `google.api.http` rules of the run's `.proto` (the spec has
/// no operationIds): `GetTopic` bound to `POST …:get` is a read (AIP-131), not
/// RL201; `CreateTopic` bound to PUT is a Create (AIP-133, before the HTTP verb), so
/// RL201; `Publish` has an AIP-155 `request_id`, its key (RL203: no stated contract).
#[test]
fn proto_rules_bind_and_judge_each_rpc() {
    let (code, out) = check("fixtures/import/grpc/e2e-proto-binding");
    assert_eq!(code, 1, "{out}");
    let start = out.find("RL201").expect("RL201");
    let rest = &out[start..];
    let rl201 = &rest[..rest[5..].find("\nRL").map_or(rest.len(), |i| i + 5)];
    assert!(
        rl201.contains("`PUT /v1/{name}` is non-idempotent"),
        "{out}"
    );
    assert!(
        rl201.contains("non-idempotent by the RPC's own semantics"),
        "{out}"
    );
    assert!(
        !rl201.contains(":get") && !rl201.contains(":publish"),
        "{out}"
    );
    assert!(out.contains("topics.proto:43:10"), "request_id key: {out}");
    for absent in ["RL016", "RL103", "RL202"] {
        assert!(!out.contains(absent), "{absent} appears:\n{out}");
    }
    insta::assert_snapshot!(out);
}

/// `services[].grpc` names the service whose REST face a spec is (no operationIds,
/// native paths or protos): its service-wide entry covers every operation of that
/// spec, and only of that spec.
#[test]
fn services_grpc_binds_a_service_wide_entry() {
    let (code, out) = check("fixtures/import/grpc/e2e-services-grpc");
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("`POST /orders` is non-idempotent and retried on `unavailable`"),
        "{out}"
    );
    for absent in ["/payments", "RL016", "GET /orders"] {
        assert!(!out.contains(absent), "{absent} appears:\n{out}");
    }
    insta::assert_snapshot!(out);
}
