//! The API read from the server's own code (`fixtures/server/petclinic`, a trimmed
//! spring-petclinic-microservices: the api-gateway's default `Retry` filter on POST
//! in front of `lb://customers-service` and `lb://visits-service`, whose Spring
//! controllers are the only description of their API). `check .` judges the POSTs
//! the gateway retries as it would a spec's, at the handler's annotation; a spec
//! serving the same service wins over the code.

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/server/petclinic")
}

fn run(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .current_dir(dir)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn findings(dir: &Path) -> (i32, Vec<serde_json::Value>) {
    let (code, out) = run(dir, &["check", "--format", "json", "."]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    (
        code,
        v["diagnostics"].as_array().expect("diagnostics").clone(),
    )
}

fn operations(d: &serde_json::Value) -> Vec<String> {
    let mut ops: Vec<String> = d["operations"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| o.as_str().map(str::to_string))
        .collect();
    if ops.is_empty() {
        ops.extend(d["operation"].as_str().map(str::to_string));
    }
    ops.sort();
    ops
}

#[test]
fn the_gateway_retries_of_posts_read_from_controllers_are_rl201() {
    let (code, diags) = findings(&fixture());
    assert_eq!(code, 1);
    let rl201: Vec<&serde_json::Value> = diags.iter().filter(|d| d["code"] == "RL201").collect();
    assert_eq!(rl201.len(), 1, "{rl201:#?}");
    // The visits POST requires `Idempotency-Key`: protected, so not RL201.
    assert_eq!(
        operations(rl201[0]),
        ["POST /owners", "POST /owners/{ownerId}/pets"]
    );
    assert_eq!(
        rl201[0]["path"],
        "api-gateway/src/main/resources/application.yml"
    );
    let text = serde_json::to_string(rl201[0]).unwrap();
    // Labelled at the handlers' annotations, and saying where the operations come from.
    assert!(text.contains("OwnerResource.java"), "{text}");
    assert!(text.contains("PetResource.java"), "{text}");
    assert!(
        text.contains(
            "operation `POST /owners` read from `OwnerResource.java:22`; no OpenAPI document describes it"
        ),
        "{text}"
    );
    // Nothing about a GET: the filter retries POST only.
    for d in &diags {
        assert!(
            operations(d).iter().all(|o| !o.starts_with("GET ")),
            "{d:#?}"
        );
    }
    // The code declares no responses: no spec-documentation finding on it.
    assert!(
        diags
            .iter()
            .all(|d| !d["code"].as_str().unwrap().starts_with("RL5")),
        "{diags:#?}"
    );
    // Routes to services with no code in the fixture stay unbound.
    let unbound = diags.iter().filter(|d| d["code"] == "RL016").count();
    assert_eq!(unbound, 2);
}

#[test]
fn readiness_lists_the_operations_read_from_code() {
    let (_, out) = run(&fixture(), &["readiness", "."]);
    for op in [
        "POST /owners ",
        "GET /owners/{ownerId} ",
        "PUT /owners/{ownerId} ",
        "GET /petTypes ",
        "POST /owners/*/pets/{petId}/visits ",
    ] {
        assert!(out.contains(op), "{op} missing:\n{out}");
    }
    assert!(out.contains("(9 operations)"), "{out}");
}

#[test]
fn a_spec_serving_the_service_wins_over_its_code() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), tmp.path());
    std::fs::write(
        tmp.path().join("customers-service/openapi.yaml"),
        "openapi: 3.0.3\ninfo: {title: customers, version: '1'}\nservers: [{url: 'http://customers-service'}]\npaths:\n  /owners/{ownerId}/visits:\n    post:\n      responses: {'201': {description: created}}\n",
    )
    .unwrap();
    let (_, diags) = findings(tmp.path());
    let rl201: Vec<&serde_json::Value> = diags.iter().filter(|d| d["code"] == "RL201").collect();
    assert_eq!(rl201.len(), 1, "{rl201:#?}");
    assert_eq!(operations(rl201[0]), ["POST /owners/{ownerId}/visits"]);
    let text = serde_json::to_string(rl201[0]).unwrap();
    assert!(!text.contains("OwnerResource.java"), "{text}");
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// `fixtures/server/go-frontend` (after microservices-demo's frontend): an Istio
/// VirtualService retrying host `frontend` on `5xx`, and gorilla/mux routes in
/// `src/frontend` (a `go.mod` folder: the service is named after it).
#[test]
fn a_mesh_route_binds_to_go_routes_by_the_module_folder() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/server/go-frontend");
    let (code, diags) = findings(&dir);
    assert_eq!(code, 1);
    let rl201: Vec<&serde_json::Value> = diags.iter().filter(|d| d["code"] == "RL201").collect();
    assert_eq!(rl201.len(), 1, "{diags:#?}");
    assert_eq!(operations(rl201[0]), ["POST /cart", "POST /cart/checkout"]);
    let text = serde_json::to_string(rl201[0]).unwrap();
    assert!(text.contains("read from `main.go:14`"), "{text}");
    // The route with no method (every method) is not an operation.
    assert!(!text.contains("_healthz"), "{text}");
    assert!(diags.iter().all(|d| d["code"] != "RL016"), "{diags:#?}");
}

/// `fixtures/server/eshop-ordering` (after dotnet/eShop's Ordering API): a mesh
/// retrying host `ordering-api` on `5xx`; minimal APIs in the folder of
/// `Ordering.API.csproj`. `POST /api/orders` requires `x-requestid` (the handler
/// de-duplicates on it): protected by that key, so RL203 (state its contract), not
/// RL201; `POST /api/webhooks` has no key: RL201.
#[test]
fn a_request_id_the_handler_requires_is_the_key() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/server/eshop-ordering");
    let (code, diags) = findings(&dir);
    assert_eq!(code, 1);
    let of = |code: &str| -> Vec<String> {
        diags
            .iter()
            .filter(|d| d["code"] == code)
            .flat_map(operations)
            .collect()
    };
    assert_eq!(of("RL201"), ["POST /api/webhooks"]);
    assert_eq!(of("RL203"), ["POST /api/orders"]);
    assert!(of("RL206").is_empty(), "{diags:#?}");
    let rl203 = diags.iter().find(|d| d["code"] == "RL203").unwrap();
    assert_eq!(rl203["path"], "ordering-api/Apis/OrdersApi.cs");
}

/// An Aspire app in a temporary folder: the AppHost names `Orders.Api` as
/// `orders-api` and `Payments.Api` as `payments-api`; the app-wide factory defaults
/// retry every client. Each call reaches the service its own URL names: the orders
/// client's `POST /api/Orders/` reaches `POST /api/orders` (ASP.NET Core routing:
/// any case, trailing slash optional), and not the payments service's `POST
/// /api/orders` (the same path, another host); a POST to a URL held in data binds
/// nothing (RL209 at it); a class that builds its own `HttpClient` is no evidence.
#[test]
fn aspire_names_place_each_call_at_the_service_its_url_names() {
    let tmp = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let p = tmp.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write(
        "AppHost/AppHost.csproj",
        "<Project Sdk=\"Microsoft.NET.Sdk\" />\n",
    );
    write(
        "AppHost/Program.cs",
        "var b = DistributedApplication.CreateBuilder(args);\nb.AddProject<Projects.Orders_Api>(\"orders-api\");\nb.AddProject<Projects.Payments_Api>(\"payments-api\");\n",
    );
    for (project, group) in [("Orders.Api", "api/orders"), ("Payments.Api", "api/orders")] {
        write(
            &format!("{project}/{project}.csproj"),
            "<Project Sdk=\"Microsoft.NET.Sdk.Web\" />\n",
        );
        write(
            &format!("{project}/Api.cs"),
            &format!("public static class Api {{\n  public static void Map(IEndpointRouteBuilder app) {{\n    var api = app.MapGroup(\"{group}\");\n    api.MapPost(\"/\", Create);\n  }}\n}}\n"),
        );
    }
    write(
        "Defaults/Defaults.csproj",
        "<Project Sdk=\"Microsoft.NET.Sdk\" />\n",
    );
    write(
        "Defaults/Extensions.cs",
        "public static class Extensions {\n  public static void Add(IServiceCollection s) {\n    s.ConfigureHttpClientDefaults(http => { http.AddStandardResilienceHandler(); });\n  }\n}\n",
    );
    write(
        "Web/Web.csproj",
        "<Project Sdk=\"Microsoft.NET.Sdk.Web\" />\n",
    );
    write(
        "Web/Setup.cs",
        "public static class Setup {\n  public static void Add(IServiceCollection s) {\n    s.AddHttpClient<OrdersClient>(o => o.BaseAddress = new(\"https+http://orders-api\"));\n    s.AddHttpClient<PaymentsClient>(o => o.BaseAddress = new(\"https+http://payments-api\"));\n  }\n}\n",
    );
    // The defaults bind to the payments service too, through this GET.
    write(
        "Web/PaymentsClient.cs",
        "public class PaymentsClient(HttpClient http) {\n  public Task List() => http.GetAsync(\"/api/orders\");\n}\n",
    );
    write(
        "Web/OrdersClient.cs",
        "public class OrdersClient(HttpClient http) {\n  public Task Create() => http.PostAsJsonAsync(\"/api/Orders/\", new {});\n}\n",
    );
    write(
        "Web/Sender.cs",
        "public class Sender(IHttpClientFactory f) {\n  public Task Send(string url) {\n    var client = f.CreateClient();\n    var request = new HttpRequestMessage(HttpMethod.Post, url);\n    return client.SendAsync(request);\n  }\n}\n",
    );
    write(
        "Mobile/Mobile.csproj",
        "<Project Sdk=\"Microsoft.NET.Sdk\" />\n",
    );
    write(
        "Mobile/Provider.cs",
        "public class Provider(HttpMessageHandler h) {\n  private readonly Lazy<HttpClient> _c = new(() => new HttpClient(h));\n  public Task Post(string uri) { var c = _c.Value; return c.PostAsync(uri, null); }\n}\n",
    );
    let (code, diags) = findings(tmp.path());
    assert_eq!(code, 1, "{diags:#?}");
    let rl201: Vec<&serde_json::Value> = diags.iter().filter(|d| d["code"] == "RL201").collect();
    assert_eq!(rl201.len(), 1, "{diags:#?}");
    assert_eq!(operations(rl201[0]), ["POST /api/orders"]);
    let text = serde_json::to_string(rl201[0]).unwrap();
    assert!(text.contains("Orders.Api/Api.cs"), "{text}");
    assert!(!text.contains("Payments.Api"), "{text}");
    assert!(!text.contains("Mobile/"), "{text}");
    let rl209: Vec<String> = diags
        .iter()
        .filter(|d| d["code"] == "RL209")
        .map(|d| format!("{}:{}", d["path"].as_str().unwrap(), d["line"]))
        .collect();
    assert_eq!(rl209, ["Web/Sender.cs:5"], "{diags:#?}");
}

/// `fixtures/server/grpc-proto`: a gRPC service config retrying every method of a
/// service that only a `.proto` describes (no OpenAPI document, no
/// `google.api.http` rule). The service's RPCs are its operations (issue 41):
/// `AddItem` (a write by its AIP method kind) is RL201 at the retryable status
/// codes; `GetCart` (a read) and `EmptyCart` (`idempotency_level = IDEMPOTENT`)
/// are not; `PlaceOrder` carries an AIP-155 `request_id`, so its key is judged
/// (RL203), not missing.
#[test]
fn a_grpc_service_described_only_by_its_proto_is_an_api() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/server/grpc-proto");
    let (code, diags) = findings(&dir);
    assert_eq!(code, 1);
    let of = |code: &str| -> Vec<String> {
        diags
            .iter()
            .filter(|d| d["code"] == code)
            .flat_map(operations)
            .collect()
    };
    assert_eq!(of("RL201"), ["POST /shop.cart.v1.CartService/AddItem"]);
    assert_eq!(of("RL203"), ["POST /shop.cart.v1.CartService/PlaceOrder"]);
    for d in &diags {
        let ops = operations(d);
        assert!(
            ops.iter()
                .all(|o| !o.ends_with("/GetCart") && !o.ends_with("/EmptyCart")),
            "{d:#?}"
        );
    }
    let rl201 = diags.iter().find(|d| d["code"] == "RL201").unwrap();
    let text = serde_json::to_string(rl201).unwrap();
    assert!(text.contains("protos/cart.proto"), "{text}");
    assert!(
        text.contains(
            "operation `POST /shop.cart.v1.CartService/AddItem` read from `cart.proto:9`"
        ),
        "{text}"
    );
    let (_, human) = run(&dir, &["check", "."]);
    insta::assert_snapshot!(human);
}

/// The same `.proto` behind an Istio route that `services:` binds to it: the mesh
/// retries every RPC, and only the write without a key is RL201 (the RPC's own
/// semantics count whatever layer retries it: `GetCart` is a read).
#[test]
fn a_mesh_route_bound_to_a_proto_api_judges_each_rpc_by_its_semantics() {
    let tmp = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/server/grpc-proto");
    std::fs::create_dir_all(tmp.path().join("protos")).unwrap();
    std::fs::copy(
        src.join("protos/cart.proto"),
        tmp.path().join("protos/cart.proto"),
    )
    .unwrap();
    std::fs::write(
        tmp.path().join(".retrylint.yaml"),
        "services:\n  - spec: protos/cart.proto\n    names: [cartservice]\n",
    )
    .unwrap();
    std::fs::write(
        tmp.path().join("vs.yaml"),
        "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: cart}\nspec:\n  hosts: [cartservice]\n  http:\n    - route: [{destination: {host: cartservice}}]\n      retries: {attempts: 3, retryOn: '5xx,unavailable'}\n",
    )
    .unwrap();
    let (_, diags) = findings(tmp.path());
    let rl201: Vec<String> = diags
        .iter()
        .filter(|d| d["code"] == "RL201")
        .flat_map(operations)
        .collect();
    assert_eq!(rl201, ["POST /shop.cart.v1.CartService/AddItem"]);
}

/// A spec that writes no server but lives in the service's module (its
/// `spring.application.name` is `customers-service`, the name the gateway's
/// `lb://customers-service` uses) describes that service: its code is not read as
/// a second description of it (eShop's `Catalog.API.json` beside `CatalogApi.cs`
/// listed every catalog operation twice).
#[test]
fn a_spec_named_by_the_services_identity_wins_over_its_code() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), tmp.path());
    std::fs::write(
        tmp.path().join("customers-service/openapi.yaml"),
        "openapi: 3.0.3\ninfo: {title: customers, version: '1'}\npaths:\n  /owners:\n    post:\n      responses: {'201': {description: created}}\n",
    )
    .unwrap();
    let (_, out) = run(tmp.path(), &["readiness", ".", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let files: Vec<&str> = v["operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["file"].as_str().unwrap())
        .collect();
    assert!(
        files.contains(&"customers-service/openapi.yaml"),
        "{files:?}"
    );
    assert!(
        files
            .iter()
            .all(|f| !f.ends_with("OwnerResource.java") && !f.ends_with("PetResource.java")),
        "{files:?}"
    );
}

/// A `.proto` copied beside its client describes the same service as the
/// server's: one API, not two.
#[test]
fn a_proto_copied_beside_its_client_is_one_api() {
    let tmp = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/server/grpc-proto");
    copy_dir(&src, tmp.path());
    std::fs::create_dir_all(tmp.path().join("app/protos")).unwrap();
    std::fs::copy(
        src.join("protos/cart.proto"),
        tmp.path().join("app/protos/cart.proto"),
    )
    .unwrap();
    let (_, out) = run(tmp.path(), &["check", "."]);
    assert!(
        out.lines()
            .last()
            .unwrap_or_default()
            .contains("1 API read from server code"),
        "{out}"
    );
    let (_, diags) = findings(tmp.path());
    let rl201: Vec<String> = diags
        .iter()
        .filter(|d| d["code"] == "RL201")
        .flat_map(operations)
        .collect();
    assert_eq!(rl201, ["POST /shop.cart.v1.CartService/AddItem"]);
}
