//! The proto index on real `.proto` files (googleapis, grpc-gateway; see
//! `fixtures/import/proto/SOURCES.tsv`) and on written ones.

use super::*;
use crate::source::loader::LoadError;
use crate::source::SourceFile;

fn loaded(display: &str, text: &str) -> Arc<Loaded> {
    Arc::new(Loaded::new(
        Arc::new(SourceFile::new(display.into(), display.to_string(), text)), // What the loader leaves for a `.proto`: it is no YAML.
        Err(LoadError::Syntax(crate::source::tree::SyntaxError {
            message: "not YAML".into(),
            offset: 0,
        })),
    ))
}

fn fixture(path: &str) -> Arc<Loaded> {
    let full = format!(
        "{}/fixtures/import/proto/{path}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&full).expect("fixture");
    loaded(path, &text)
}

fn render(index: &ProtoIndex, diagnostics: &[Diagnostic]) -> String {
    let mut s = index.render();
    for d in diagnostics {
        let loc = &d.primary.location;
        let lc = loc.file.line_col(loc.span.start);
        s.push_str(&format!(
            "{} {}:{}:{} {}\n",
            d.code, loc.file.display, lc.line, lc.column, d.message
        ));
    }
    s
}

fn build(files: &[&str]) -> (ProtoIndex, Vec<Diagnostic>) {
    let docs: Vec<Arc<Loaded>> = files.iter().map(|f| fixture(f)).collect();
    ProtoIndex::build(&docs)
}

#[test]
fn googleapis_pubsub() {
    let (index, diags) = build(&["pubsub.proto"]);
    assert!(diags.is_empty(), "{diags:?}");
    let publish = index
        .rpc("google.pubsub.v1.Publisher", "Publish")
        .expect("Publish");
    assert_eq!(publish.http.len(), 1);
    assert_eq!(publish.http[0].method, "POST");
    assert_eq!(
        publish.http[0].template,
        "/v1/{topic=projects/*/topics/*}:publish"
    );
    assert_eq!(index.service("google.pubsub.v1.Subscriber").count(), 16);
    insta::assert_snapshot!(render(&index, &diags));
}

#[test]
fn googleapis_batch_request_ids() {
    let (index, diags) = build(&["batch.proto"]);
    assert!(diags.is_empty(), "{diags:?}");
    let create = index
        .rpc("google.cloud.batch.v1.BatchService", "CreateJob")
        .unwrap();
    assert!(create.request_id.is_some());
    let get = index
        .rpc("google.cloud.batch.v1.BatchService", "GetJob")
        .unwrap();
    assert!(get.request_id.is_none());
    insta::assert_snapshot!(render(&index, &diags));
}

#[test]
fn grpc_gateway_examples_across_files() {
    // a_bit_of_everything.proto takes requests from sub/message.proto (another
    // package), custom kinds and additional bindings.
    let (index, diags) = build(&[
        "echo_service.proto",
        "a_bit_of_everything.proto",
        "sub_message.proto",
    ]);
    assert!(diags.is_empty(), "{diags:?}");
    let echo = index
        .rpc(
            "grpc.gateway.examples.internal.proto.examplepb.EchoService",
            "Echo",
        )
        .unwrap();
    assert_eq!(echo.http.len(), 7, "the rule and 6 additional bindings");
    let exists = index
        .rpc(
            "grpc.gateway.examples.internal.proto.examplepb.ABitOfEverythingService",
            "Exists",
        )
        .unwrap();
    assert_eq!(exists.http[0].method, "HEAD");
    insta::assert_snapshot!(render(&index, &diags));
}

#[test]
fn request_message_in_another_file() {
    let (index, diags) = build(&[
        "orders/orders_service.proto",
        "orders/orders_messages.proto",
    ]);
    assert!(diags.is_empty(), "{diags:?}");
    let create = index
        .rpc("example.orders.v1.Orders", "CreateOrder")
        .unwrap();
    let at = create
        .request_id
        .as_ref()
        .expect("request_id in the other file");
    assert_eq!(at.doc.file.display, "orders/orders_messages.proto");
    let lc = at.doc.file.line_col(at.location().span.start);
    assert_eq!((lc.line, lc.column), (14, 12));
    // `int64 request_id` is no AIP-155 key.
    let cancel = index
        .rpc("example.orders.v1.Orders", "CancelOrder")
        .unwrap();
    assert!(cancel.request_id.is_none());
    assert_eq!(
        cancel.idempotency_level.as_ref().map(|l| l.value),
        Some(IdempotencyLevel::Idempotent)
    );
    // Columns count characters: a comment with `û` stands before the option.
    let get = index.rpc("example.orders.v1.Orders", "GetOrder").unwrap();
    let level = get.idempotency_level.as_ref().unwrap();
    let lc = level.at.doc.file.line_col(level.at.location().span.start);
    assert_eq!((lc.line, lc.column), (20, 57));
    // `IDEMPOTENCY_UNKNOWN` says nothing.
    let ping = index.rpc("example.orders.v1.Orders", "Ping").unwrap();
    assert!(ping.idempotency_level.is_none());
    assert!(ping.request_id.is_some(), "nested message, same file");
    insta::assert_snapshot!(render(&index, &diags));
}

#[test]
fn lookups_by_service_and_method() {
    let (built, _) = build(&[
        "orders/orders_service.proto",
        "orders/orders_messages.proto",
    ]);
    let index = ProtoIndex::from_rpcs(built.rpcs.clone());
    let methods: Vec<&str> = index
        .service("example.orders.v1.Orders")
        .map(|r| r.method.as_str())
        .collect();
    assert_eq!(
        methods,
        [
            "CreateOrder",
            "GetOrder",
            "CancelOrder",
            "StreamOrders",
            "Ping"
        ]
    );
    assert!(index.rpc("example.orders.v1.Orders", "GetOrder").is_some());
    // Fully qualified names only; methods are case-sensitive.
    assert!(index.rpc("Orders", "GetOrder").is_none());
    assert!(index.rpc("example.orders.v1.Orders", "getorder").is_none());
    assert_eq!(index.service("example.orders.v1.Nope").count(), 0);
    // An RPC pushed after the first look-up is still found.
    let mut index = index;
    let mut late = index.rpcs[0].clone();
    late.method = "Late".into();
    index.rpcs.push(late);
    assert!(index.rpc("example.orders.v1.Orders", "Late").is_some());
    assert_eq!(index.service("example.orders.v1.Orders").count(), 6);
    assert!(ProtoIndex::empty().rpc("a.B", "C").is_none());
}

#[test]
fn without_the_messages_file_no_request_id() {
    let (index, _) = build(&["orders/orders_service.proto"]);
    let create = index
        .rpc("example.orders.v1.Orders", "CreateOrder")
        .unwrap();
    assert!(create.request_id.is_none());
}

#[test]
fn syntax_errors_are_rl001_with_position_and_other_files_are_read() {
    let broken = loaded(
        "broken.proto",
        "syntax = \"proto3\";\npackage a;\nservice S {\n  rpc M(Req) returns (Res) {\n    option (google.api.http) = { get: \"/x\" };\n  }\n  rpc N(Req) returns Res;\n}\n",
    );
    let eof = loaded(
        "eof.proto",
        "syntax = \"proto3\";\nservice S {\n  rpc M(Req) returns (Res);\n",
    );
    let bad_http = loaded(
        "bad_http.proto",
        "syntax = \"proto3\";\npackage b;\nservice T {\n  rpc M(Req) returns (Res) {\n    option (google.api.http) = { get \"/x\" };\n  }\n}\n",
    );
    let good = fixture("orders/orders_service.proto");
    let (index, diags) = ProtoIndex::build(&[broken, eof, bad_http, good]);
    // The broken files give RL001; the malformed rule leaves its RPC without a rule;
    // the good file is read.
    assert_eq!(diags.len(), 3, "{diags:?}");
    assert!(diags.iter().all(|d| d.code == "RL001"));
    assert!(index
        .rpc("example.orders.v1.Orders", "CreateOrder")
        .is_some());
    assert!(index.rpc("b.T", "M").is_some_and(|r| r.http.is_empty()));
    insta::assert_snapshot!(render(&index, &diags));
}

#[test]
fn editions_files_are_read_with_positions() {
    let text = "// An editions file.\nedition = \"2023\";\npackage e;\nimport \"google/api/annotations.proto\";\nmessage R { string request_id = 1 [features.field_presence = IMPLICIT]; int32 n = 2; }\nservice S {\n  rpc M(R) returns (R) { option (google.api.http) = { post: \"/v1/m\" }; }\n}\n";
    let (index, diags) = ProtoIndex::build(&[loaded("e.proto", text)]);
    assert!(diags.is_empty(), "{diags:?}");
    let m = index.rpc("e.S", "M").expect("read");
    let lc = m.at.doc.file.line_col(m.at.location().span.start);
    assert_eq!((lc.line, lc.column), (7, 7));
    assert!(m.request_id.is_some());
    // An error after the statement is located in the original text.
    let broken = "edition=\"2023\";\nservice S {\n  rpc M(R) returns R;\n}\n";
    let (_, diags) = ProtoIndex::build(&[loaded("b.proto", broken)]);
    let loc = &diags[0].primary.location;
    let lc = loc.file.line_col(loc.span.start);
    assert_eq!((diags[0].code, lc.line, lc.column), ("RL001", 3, 20));
    // `default` (editions allow it, proto3 does not): left out, no false RL001.
    let defaults = "edition = \"2023\";\nmessage R { int32 n = 1 [default = 3]; }\n";
    let (_, diags) = ProtoIndex::build(&[loaded("d.proto", defaults)]);
    assert!(diags.is_empty(), "{diags:?}");
}

#[test]
fn unreadable_file_is_rl001() {
    let doc = Arc::new(Loaded::new(
        Arc::new(SourceFile::new("x.proto".into(), "x.proto".into(), "")),
        Err(LoadError::NotUtf8(0)),
    ));
    let (index, diags) = ProtoIndex::build(&[doc]);
    assert!(index.is_empty());
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].code, "RL001");
}

#[test]
fn empty_and_odd_files_never_panic() {
    for text in [
        "",
        "syntax = \"proto3\";",
        "service S { rpc M(A) returns (B) { option (google.api.http) = {}; } }",
        "service S { rpc M(A) returns (B) { option (google.api.http) = { additional_bindings { additional_bindings { get: \"/a\" } } }; } }",
        "service S { rpc M(A) returns (B) { option (google.api.http) = { custom { kind: \"X\" } }; } }",
        "service S { rpc M(A) returns (B) { option (google.api.http) = { get: 1 }; } }",
        "service S { rpc M(A) returns (B) { option (google.api.http).get = 3; } }",
        "service S { rpc M(A) returns (B) { option (google.api.http) = { [x.y]: 1 get: \"/a\" }; } }",
        "message M { string request_id = 1; } service S { rpc M(M) returns (M); }",
        "syntax = \"proto3\";\r\nservice S {\r\n\trpc M(A) returns (B) { option idempotency_level = IDEMPOTENT; }\r\n}\r\n",
        "\u{feff}syntax = \"proto2\"; service S { rpc M(A) returns (B); }",
    ] {
        let _ = ProtoIndex::build(&[loaded("t.proto", text)]);
    }
    let (index, _) = ProtoIndex::build(&[loaded(
        "t.proto",
        "service S { rpc M(A) returns (B) { option (google.api.http) = { additional_bindings { additional_bindings { get: \"/a\" } } }; } }",
    )]);
    // Only one level of additional_bindings.
    assert!(index.rpc("S", "M").is_some_and(|r| r.http.is_empty()));
}

#[test]
fn protobuf_scoping() {
    let m: HashMap<&str, u8> = [("a.b.X", 1), ("a.X", 2), ("X", 3), ("a.b.Y.Z", 4)]
        .into_iter()
        .collect();
    assert_eq!(resolve(&m, "a.b", "X"), Some(&1));
    assert_eq!(resolve(&m, "a.c", "X"), Some(&2));
    assert_eq!(resolve(&m, "q", "X"), Some(&3));
    assert_eq!(resolve(&m, "a.b", ".X"), Some(&3));
    assert_eq!(resolve(&m, "a.b.c", "Y.Z"), Some(&4));
    assert_eq!(resolve(&m, "a.b", "google.protobuf.Empty"), None);
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn any_text_never_panics(s in "[ -~\\n{}()\\[\\]<>;:=\"'/*#.é]{0,200}") {
            let text = format!("syntax = \"proto3\"; service S {{ rpc M(A) returns (B) {{ option (google.api.http) = {s}; }} }}");
            let _ = ProtoIndex::build(&[loaded("p.proto", &text)]);
            let _ = ProtoIndex::build(&[loaded("q.proto", &s)]);
        }
    }
}
