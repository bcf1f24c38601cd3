//! gRPC service config (gRFC A6; `grpc/service_config/service_config.proto`):
//! `methodConfig[]` entries with their `retryPolicy`, `hedgingPolicy`, `timeout` and
//! `waitForReady`, and the top-level `retryThrottling` (`retry-configs.md` §6, §12
//! row gRPC; `layers.md` "Binding" 4).
//!
//! Read standalone (a JSON or YAML file whose top level has `methodConfig`), as the
//! choice list of a DNS TXT record (gRFC A2: `[{"serviceConfig": {...}}]`), or inside
//! a client config under a `serviceConfig` / `service_config` / `defaultServiceConfig`
//! / `default_service_config` key (any spelling with `-` or `_`, at most four levels
//! deep) holding the service config as a mapping or as a JSON string (then every
//! value is located at that string).
//!
//! Mapping (one [`ConfigObject`] per service config, layer client, `grpc: true`):
//! - one [`Route`] per `name` entry, most specific first (method, then service, then
//!   the default `{}`), as gRPC picks the most specific entry;
//! - `retryPolicy` turns the retry on (`retry` at it); `maxAttempts` counts TRIES and
//!   is capped at 5 (`attempts` = min(maxAttempts, 5)); `retryableStatusCodes` (names
//!   in any case, or integers) give the gRPC signals; `initialBackoff` / `maxBackoff` /
//!   `backoffMultiplier` the backoff, with A6's ±20 % jitter
//!   (`Jitter::Proportional(0.2)`, since grpc/proposal PR #452; older implementations
//!   draw from [0, x]); attempts share the call deadline (`attempt_timeout:
//!   remaining`), `perAttemptRecvTimeout` when written; `timeout` is the `deadline`;
//!   `hedgingPolicy` is `hedging` (copies capped at 5); `retryThrottling` a token
//!   `budget` on every route; `waitForReady` is noted;
//! - numbers as the proto3 JSON mapping reads them (`int`, `float`): a JSON
//!   number or a string holding one, for every integer and float field alike
//!   (`"maxAttempts": "3"`, `"backoffMultiplier": "2"`; `"NaN"`, `"Infinity"` for a
//!   float), and out of range however written (`docs/platforms/grpc.md`);
//! - a `maxAttempts` that is missing keeps the retry on (Google's GAPIC clients read
//!   such files and retry until the `timeout`; gRPC itself rejects the policy), with
//!   `attempts` unset; the RL017 finding gives both readings.
//!
//! Findings (RL017): `maxAttempts` missing, above 5 (capped) or below 2; a retry
//! policy without status codes (it retries nothing); an unknown status code; a
//! `hedgingPolicy` beside a `retryPolicy`; a duration that is not a proto3 JSON
//! Duration (`"1.5s"`); a missing backoff value; unknown keys (did you mean, gRPC
//! reads camelCase only); a duplicate name; an invalid `retryThrottling`.
//!
//! Binding ([`super::bind`]): each name binds to the operations of a spec through the
//! `google.api.http` rules of its RPC in the run's `.proto` files
//! ([`super::proto::ProtoIndex`]), as the native gRPC request `POST
//! /{package.Service}/{Method}` (a service-wide name: the prefix
//! `/{package.Service}/`), by the operationId protoc-gen-openapiv2 writes
//! (`Service_Method`, the service's short name; the fully qualified
//! `package.Service_Method` too) or its tag (the short service name, for a
//! service-wide name; with several specs, to each spec holding one of its RPCs), and
//! through `.retrylint.yaml` `services[].grpc` (the spec is then the service's HTTP
//! face: its service-wide entry covers every operation of it). An RPC is judged by
//! its own semantics ([`operation_semantics`]): a declared effect, else its
//! `idempotency_level`, else the AIP method kind of its name ([`rpc_effect`]), else
//! the HTTP method; its AIP-155 `request_id` field is its idempotency key.

use super::keys;
use super::proto::{IdempotencyLevel, ProtoIndex};
use super::rl017_ineffective_setting;
use super::route::{full_match_regex, PathMatch, RequestMatch};
use super::{ConfigObject, ImportContext, Imported, OriginNote, Platform, Route};
use crate::diagnostic::Diagnostic;
use crate::openapi::model::Operation;
use crate::policy::duration::Millis;
use crate::policy::model::{
    AttemptTimeout, BackoffSettings, Effect, Hedging, Jitter, JitterFactor, Layer, RetryBudget,
    Settings, Signal, Spanned,
};
use crate::retry::GrpcCode;
use crate::source::loader::Loaded;
use crate::source::refs::At;
use crate::source::strict::suggest;
use crate::source::tree::{Kind, NodeId, Tree, TreeBuilder};
use std::sync::Arc;

/// gRPC's cap on `maxAttempts` (retry and hedging): larger values are treated as 5
/// without a validation error (A6; changeable by channel arguments).
pub const MAX_ATTEMPTS_CAP: i64 = rl017_ineffective_setting::GRPC_MAX_ATTEMPTS_CAP;

/// A6's jitter factor since grpc/proposal PR #452 (Aug 2024): each delay is drawn
/// from [0.8 b, 1.2 b].
pub const JITTER_FACTOR: f64 = 0.2;

/// Top-level keys of a service config (`ServiceConfig` in service_config.proto, JSON
/// names).
pub const SERVICE_CONFIG_KEYS: &[&str] = &[
    "loadBalancingPolicy",
    "loadBalancingConfig",
    "methodConfig",
    "retryThrottling",
    "healthCheckConfig",
];

/// Keys of a `methodConfig` entry (`MethodConfig`).
pub const METHOD_CONFIG_KEYS: &[&str] = &[
    "name",
    "waitForReady",
    "timeout",
    "maxRequestMessageBytes",
    "maxResponseMessageBytes",
    "retryPolicy",
    "hedgingPolicy",
];

/// Keys of a `name` entry (`MethodConfig.Name`).
pub const NAME_KEYS: &[&str] = &["service", "method"];

/// Keys of a `retryPolicy` (`MethodConfig.RetryPolicy`).
pub const RETRY_POLICY_KEYS: &[&str] = &[
    "maxAttempts",
    "initialBackoff",
    "maxBackoff",
    "backoffMultiplier",
    "retryableStatusCodes",
    "perAttemptRecvTimeout",
];

/// Keys of a `hedgingPolicy` (`MethodConfig.HedgingPolicy`).
pub const HEDGING_POLICY_KEYS: &[&str] = &["maxAttempts", "hedgingDelay", "nonFatalStatusCodes"];

/// Keys of `retryThrottling` (`ServiceConfig.RetryThrottlingPolicy`).
pub const RETRY_THROTTLING_KEYS: &[&str] = &["maxTokens", "tokenRatio"];

/// The gRPC status codes by name (`doc/statuscodes.md`), with their numbers.
pub const STATUS_CODES: &[(&str, i64)] = &[
    ("OK", 0),
    ("CANCELLED", 1),
    ("UNKNOWN", 2),
    ("INVALID_ARGUMENT", 3),
    ("DEADLINE_EXCEEDED", 4),
    ("NOT_FOUND", 5),
    ("ALREADY_EXISTS", 6),
    ("PERMISSION_DENIED", 7),
    ("RESOURCE_EXHAUSTED", 8),
    ("FAILED_PRECONDITION", 9),
    ("ABORTED", 10),
    ("OUT_OF_RANGE", 11),
    ("UNIMPLEMENTED", 12),
    ("INTERNAL", 13),
    ("UNAVAILABLE", 14),
    ("DATA_LOSS", 15),
    ("UNAUTHENTICATED", 16),
];

/// Keys of a client config that hold a service config (compared without `-`/`_`,
/// case-insensitively).
const WRAPPER_KEYS: &[&str] = &["serviceconfig", "defaultserviceconfig"];

/// Where a service config sits in a file.
enum Found {
    /// A mapping of the file's own tree.
    Node(NodeId),
    /// A JSON string (the node holding it): parsed on its own, located at the string.
    Text(NodeId),
}

fn normalized_key(k: &str) -> String {
    k.chars()
        .filter(|c| *c != '_' && *c != '-')
        .collect::<String>()
        .to_ascii_lowercase()
}

fn is_service_config_map(tree: &Tree, n: NodeId) -> bool {
    tree.kind(n) == Kind::Map
        && tree
            .get(n, "methodConfig")
            .is_some_and(|m| tree.kind(m) == Kind::Seq)
}

fn holds_service_config_text(tree: &Tree, n: NodeId) -> bool {
    tree.as_str(n).is_some_and(|s| {
        s.contains("methodConfig")
            && serde_json::from_str::<serde_json::Value>(s)
                .ok()
                .is_some_and(|v| v.get("methodConfig").is_some_and(|m| m.is_array()))
    })
}

/// The service configs in `tree`: the root itself (a top-level `methodConfig`
/// list), the `serviceConfig` of each gRFC A2 choice of a root list, or the values of
/// wrapper keys (`serviceConfig`, `defaultServiceConfig`, any spelling) at most four
/// levels deep.
fn find(tree: &Tree) -> Vec<Found> {
    let Some(root) = tree.root() else {
        return Vec::new();
    };
    if is_service_config_map(tree, root) {
        return vec![Found::Node(root)];
    }
    let mut out = Vec::new();
    walk(tree, root, 0, &mut out);
    out
}

fn walk(tree: &Tree, n: NodeId, depth: usize, out: &mut Vec<Found>) {
    if depth > 4 {
        return;
    }
    match tree.kind(n) {
        Kind::Map => {
            for &(k, v) in tree.raw_entries(n) {
                let Some(key) = tree.scalar(k) else { continue };
                if WRAPPER_KEYS.contains(&normalized_key(key).as_str()) {
                    if is_service_config_map(tree, v) {
                        out.push(Found::Node(v));
                        continue;
                    }
                    if holds_service_config_text(tree, v) {
                        out.push(Found::Text(v));
                        continue;
                    }
                }
                walk(tree, v, depth + 1, out);
            }
        }
        Kind::Seq => {
            for &i in tree.items(n) {
                walk(tree, i, depth + 1, out);
            }
        }
        _ => {}
    }
}

/// True when the file holds a gRPC service config (see the module docs): what
/// [`super::recognize()`] asks. An OpenAPI document or a Kubernetes manifest never
/// does (they are recognised before, and hold no top-level `methodConfig`).
pub fn looks_like(tree: &Tree) -> bool {
    let Some(root) = tree.root() else {
        return false;
    };
    if tree.kind(root) == Kind::Map
        && ["openapi", "swagger", "apiVersion"]
            .iter()
            .any(|k| tree.get(root, k).is_some())
    {
        return false;
    }
    !find(tree).is_empty()
}

/// Reads every service config of one file. Never panics.
pub fn import(doc: &Arc<Loaded>, ctx: &ImportContext<'_>) -> Imported {
    let mut out = Imported::default();
    let Ok(tree) = &doc.tree else {
        return out;
    };
    for found in find(tree) {
        match found {
            Found::Node(n) => {
                let (obj, diags) = service_config(doc, n, ctx.protos);
                out.diagnostics.extend(diags);
                out.objects.extend(obj);
            }
            Found::Text(n) => {
                let Some(sub) = embedded(doc, tree, n) else {
                    continue;
                };
                let Some(root) = sub.tree.as_ref().ok().and_then(|t| t.root()) else {
                    continue;
                };
                let (obj, diags) = service_config(&sub, root, ctx.protos);
                out.diagnostics.extend(diags);
                out.objects.extend(obj);
            }
        }
    }
    out
}

/// A service config written as a JSON string at `node`: parsed with serde_json and
/// rebuilt as a tree over the same file whose every node spans the string, so that
/// findings point at it.
fn embedded(doc: &Arc<Loaded>, tree: &Tree, node: NodeId) -> Option<Arc<Loaded>> {
    let text = tree.as_str(node)?;
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let span = tree.span(node);
    let file_text: Arc<str> = doc.file.text.clone();
    let mut b = TreeBuilder::new(&file_text);
    build(&mut b, &value, span.clone());
    let built = b.finish(file_text.clone());
    Some(Arc::new(Loaded::new(doc.file.clone(), Ok(built))))
}

fn build(b: &mut TreeBuilder<'_>, v: &serde_json::Value, span: std::ops::Range<usize>) {
    use serde_json::Value as V;
    match v {
        V::Object(map) => {
            b.open_map(span.start);
            for (k, v) in map {
                b.scalar(span.clone(), Some(k.clone()), Kind::Str);
                build(b, v, span.clone());
            }
            b.close(span.end);
        }
        V::Array(items) => {
            b.open_seq(span.start);
            for i in items {
                build(b, i, span.clone());
            }
            b.close(span.end);
        }
        V::String(s) => {
            b.scalar(span, Some(s.clone()), Kind::Str);
        }
        V::Number(n) => {
            let kind = if n.is_i64() || n.is_u64() {
                Kind::Int
            } else {
                Kind::Float
            };
            b.scalar(span, Some(n.to_string()), kind);
        }
        V::Bool(x) => {
            b.scalar(span, Some(x.to_string()), Kind::Bool);
        }
        V::Null => {
            b.scalar(span, Some(String::new()), Kind::Null);
        }
    }
}

/// A name entry: `{service, method}` with its node. The texts are borrowed from
/// the file's tree: a service config can name 100,000 methods, and the copies (and
/// those of the look-up of names met) were a tenth of its peak (issue 43).
struct Name<'t> {
    at: At,
    service: &'t str,
    method: &'t str,
    service_at: Option<At>,
}

impl Name<'_> {
    fn specificity(&self) -> u8 {
        match (self.service.is_empty(), self.method.is_empty()) {
            (false, false) => 2,
            (false, true) => 1,
            _ => 0,
        }
    }

    fn label(&self) -> String {
        match self.specificity() {
            2 => format!("{}/{}", self.service, self.method),
            1 => format!("{}/*", self.service),
            _ => "(default)".to_string(),
        }
    }
}

/// One service config (the mapping `root`) into one object.
fn service_config(
    doc: &Arc<Loaded>,
    root: NodeId,
    protos: &ProtoIndex,
) -> (Option<ConfigObject>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let Ok(tree) = &doc.tree else {
        return (None, diags);
    };
    let at = |n: NodeId| At::new(doc, n);
    diags.extend(unknown(
        doc,
        tree,
        root,
        SERVICE_CONFIG_KEYS,
        "the gRPC service config",
    ));
    let budget = tree
        .get(root, "retryThrottling")
        .and_then(|n| throttling(doc, tree, n, &mut diags));

    let mut routes: Vec<(u8, Route)> = Vec::new();
    // Names met so far, (service, method) → where first named: a look-up per name,
    // not a scan (100,000 names took 28 s: case 84).
    let mut seen: std::collections::HashMap<(&str, &str), At> = Default::default();
    // The first reason gRPC rejects the whole service config for (see [`Rejected`]).
    let mut rejected: Rejected = None;
    let mut names: Vec<Spanned<String>> = Vec::new();
    // The services in `names`, so that adding one is a look-up too.
    let mut named_services: std::collections::HashSet<&str> = Default::default();
    let Some(list) = tree.get(root, "methodConfig") else {
        return (None, diags);
    };
    for &item in tree.items(list) {
        if tree.kind(item) != Kind::Map {
            continue;
        }
        diags.extend(unknown(
            doc,
            tree,
            item,
            METHOD_CONFIG_KEYS,
            "a gRPC `methodConfig` entry",
        ));
        let (settings, notes) =
            method_settings(doc, tree, item, budget.as_ref(), &mut diags, &mut rejected);
        let mut item_names: Vec<Name> = Vec::new();
        if let Some(list) = tree.get(item, "name") {
            for &n in tree.items(list) {
                if tree.kind(n) != Kind::Map {
                    continue;
                }
                diags.extend(unknown(doc, tree, n, NAME_KEYS, "a gRPC method name"));
                let service_node = tree.get(n, "service");
                let service = service_node
                    .and_then(|s| tree.scalar(s))
                    .unwrap_or("")
                    .trim();
                let method = tree
                    .get(n, "method")
                    .and_then(|m| tree.scalar(m))
                    .unwrap_or("")
                    .trim();
                if service.is_empty() && !method.is_empty() {
                    diags.push(rl017_ineffective_setting::diagnostic(
                        &at(n),
                        format!("gRPC method name `{method}` has no `service`"),
                        "method without service",
                        "A6: a name with an empty `service` must have an empty `method` (it is then the default for every method); gRPC rejects the service config. Write the fully qualified service (`package.Service`).".to_string(),
                    ));
                    continue;
                }
                item_names.push(Name {
                    at: at(n),
                    service,
                    method,
                    service_at: service_node.map(at),
                });
            }
        }
        if item_names.is_empty() {
            if settings.retry.as_ref().is_some_and(|r| r.value) || settings.hedging.is_some() {
                diags.push(rl017_ineffective_setting::diagnostic(
                    &at(item),
                    "gRPC `methodConfig` entry with no `name` applies to no method".to_string(),
                    "no name",
                    "gRPC skips a method config without names, so its retry policy does nothing; add `\"name\": [{\"service\": \"package.Service\"}]` (or `[{}]` for every method).".to_string(),
                ));
            }
            continue;
        }
        for name in item_names {
            if let Some(first) = seen.get(&(name.service, name.method)) {
                diags.push(
                    rl017_ineffective_setting::diagnostic(
                        &name.at,
                        format!("duplicate gRPC method name `{}`", name.label()),
                        "duplicate name",
                        "A6: each name must be unique across the service config; gRPC rejects a service config that repeats one, so nothing in it is retried (retrylint reads it so). Keep one entry.".to_string(),
                    )
                    .with_label(first.location(), "first named here"),
                );
                rejected.get_or_insert((name.at.clone(), "a method name repeats".to_string()));
                continue;
            }
            seen.insert((name.service, name.method), name.at.clone());
            if let Some(sat) = &name.service_at {
                if !name.service.is_empty() && named_services.insert(name.service) {
                    names.push(Spanned {
                        value: name.service.to_string(),
                        at: sat.clone(),
                    });
                }
            }
            let spec = name.specificity();
            routes.push((
                spec,
                Route {
                    at: name.at.clone(),
                    name: Some(name.label()),
                    matches: matches_for(&name, protos),
                    rewrite: None,
                    settings: settings.clone(),
                    notes: notes.clone(),
                },
            ));
        }
    }
    if let Some((why_at, why)) = &rejected {
        for (_, route) in &mut routes {
            reject(route, why_at, why);
        }
    }
    // Most specific first: gRPC applies the entry that names the method, else the
    // service's, else the default.
    routes.sort_by_key(|r| std::cmp::Reverse(r.0));
    let obj_name = names
        .first()
        .map(|n| n.value.clone())
        .unwrap_or_else(|| doc.file.display.clone());
    let obj = ConfigObject {
        method_scoped: Vec::new(),
        variant: None,
        url_prefixes: Vec::new(),
        platform: Platform::Grpc,
        kind: "service config".to_string(),
        name: obj_name,
        at: at(root),
        layer: Layer::Client,
        names,
        routes: routes.into_iter().map(|(_, r)| r).collect(),
    };
    (Some(obj), diags)
}

/// The service of a service-wide route (`package.Service/*`), `None` for a method's
/// route or the default one.
pub fn service_wide(route: &Route) -> Option<&str> {
    route.name.as_deref()?.strip_suffix("/*")
}

/// The short name of a fully qualified service (`google.pubsub.v1.Publisher` ->
/// `Publisher`).
pub fn short_service(service: &str) -> &str {
    service.rsplit('.').next().unwrap_or(service)
}

/// The request matches of a name: its RPCs' `google.api.http` rules, the native
/// gRPC path, and the operationIds (or tag) protoc-gen-openapiv2 writes.
fn matches_for(name: &Name, protos: &ProtoIndex) -> Vec<RequestMatch> {
    let post = || Some(vec!["POST".to_string()]);
    let mut out = Vec::new();
    match name.specificity() {
        2 => {
            if let Some(rpc) = protos.rpc(name.service, name.method) {
                for rule in &rpc.http {
                    out.extend(http_rule_match(&rule.method, &rule.template));
                }
            }
            out.push(RequestMatch {
                path: PathMatch::Exact(format!("/{}/{}", name.service, name.method)),
                methods: post(),
                partial: false,
            });
            out.push(RequestMatch::path(PathMatch::OperationId(format!(
                "{}_{}",
                short_service(name.service),
                name.method
            ))));
            if short_service(name.service) != name.service {
                out.push(RequestMatch::path(PathMatch::OperationId(format!(
                    "{}_{}",
                    name.service, name.method
                ))));
            }
        }
        1 => {
            for rpc in protos.service(name.service) {
                for rule in &rpc.http {
                    out.extend(http_rule_match(&rule.method, &rule.template));
                }
            }
            out.push(RequestMatch {
                path: PathMatch::Prefix(format!("/{}/", name.service)),
                methods: post(),
                partial: false,
            });
            out.push(RequestMatch::path(PathMatch::OperationId(format!(
                "{}_*",
                short_service(name.service)
            ))));
            out.push(RequestMatch::path(PathMatch::Tag(
                short_service(name.service).to_string(),
            )));
        }
        // The default entry matches every RPC of the channel.
        _ => {}
    }
    // Exactly as long as its matches: one route per name, and the two or three
    // pushed here left room for four (the allocator does not shrink a block by
    // less than half, so a shrink in place would keep it).
    let mut exact = Vec::with_capacity(out.len());
    exact.append(&mut out);
    exact
}

/// A `google.api.http` rule as a request match: the HTTP method and the path
/// template as a full-match regex (`{field}` and `*` one segment, `{field=a/*}` and
/// `**` any number of segments, since an OpenAPI path generated from it names the
/// variable once: `/v1/{name}:publish`).
fn http_rule_match(method: &str, template: &str) -> Option<RequestMatch> {
    let regex = full_match_regex(&template_regex(template)).ok()?;
    Some(RequestMatch {
        path: PathMatch::Regex(regex),
        methods: Some(vec![method.to_ascii_uppercase()]),
        partial: false,
    })
}

/// The operations a `google.api.http` rule declares, as the request match a gRPC
/// method config binds with ([`http_rule_match`]; `None` when its template does not
/// compile). So a `.proto` named alone answers for the operations its RPCs' rules
/// map to (`docs/commands/check.md`, "One answer"), whichever document describes
/// them.
pub fn http_rule_request_match(rule: &super::proto::HttpRule) -> Option<RequestMatch> {
    http_rule_match(&rule.method, &rule.template)
}

/// The regex of a `google.api.http` path template (`GHTTP` template syntax), over
/// the paths of an OpenAPI document generated from it: `*` is one segment, `**` the
/// rest; a variable `{field}` is one segment; a variable with a pattern
/// (`{name=projects/*/topics/*}`) is either that pattern (generators that expand it:
/// `/v1/projects/{project}/topics/{topic}`) or one segment (protoc-gen-openapiv2
/// names it once: `/v1/{name}`).
pub fn template_regex(template: &str) -> String {
    let mut out = String::new();
    let mut rest = template;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('{') {
            let end = after.find('}').unwrap_or(after.len());
            let var = &after[..end];
            match var.split_once('=').map(|(_, p)| p) {
                Some(p) if p.contains('/') || p.contains('*') => {
                    out.push_str(&format!("(?:{}|[^/]+)", segments_regex(p)));
                }
                _ => out.push_str("[^/]+"),
            }
            rest = after.get(end + 1..).unwrap_or("");
        } else {
            let next = rest.find('{').unwrap_or(rest.len());
            out.push_str(&segments_regex(&rest[..next]));
            rest = &rest[next..];
        }
    }
    out
}

/// Literal text with `*` (one segment) and `**` (the rest) wildcards as a regex.
fn segments_regex(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("**") {
            out.push_str(".+");
            rest = after;
        } else if let Some(after) = rest.strip_prefix('*') {
            out.push_str("[^/]+");
            rest = after;
        } else {
            let next = rest.find('*').unwrap_or(rest.len());
            out.push_str(&regex::escape(&rest[..next]));
            rest = &rest[next..];
        }
    }
    out
}

/// The settings one `methodConfig` entry gives each of its names, and the notes on
/// the defaults in them.
/// Where and why gRPC rejects a service config, first reason only: a `retryPolicy`
/// whose `initialBackoff`, `maxBackoff` or `backoffMultiplier` is missing, not a
/// proto3 JSON duration (`"100ms"`) or not above 0 (gRFC A6 "Validation of
/// retryPolicy"; grpc-go `service_config.go` `convertRetryPolicy()` returns
/// "invalid retry policy" and the whole config is rejected; grpc-java
/// `ManagedChannelServiceConfig` `checkNotNull(maxBackoff, "maxBackoff cannot be
/// empty")`), or a method name that repeats (grpc-go "duplicate method name";
/// grpc-java `createManagedChannelServiceConfig_failsOnDuplicateService`). The
/// channel then runs without this config, so nothing in it retries (RL017 names each
/// reason). A missing `maxAttempts` is not counted here: GAPIC clients read that
/// file and retry (the two readings of its RL017).
type Rejected = Option<(At, String)>;

/// Turns `route`'s retries and hedging off: gRPC rejected the service config
/// holding it (`why`, at `why_at`).
fn reject(route: &mut Route, why_at: &At, why: &str) {
    let was_on =
        route.settings.retry.as_ref().is_some_and(|r| r.value) || route.settings.hedging.is_some();
    if was_on {
        route.settings.retry = Some(Spanned {
            value: false,
            at: why_at.clone(),
        });
        route.settings.hedging = None;
        route.notes.push(OriginNote {
            at: why_at.clone(),
            text: crate::import::note_text(format!("gRPC rejects this service config ({why}; RL017), so the channel does not use it and nothing here is retried (gRFC A6 \"Validation of retryPolicy\"; grpc-go `service_config.go`, grpc-java `ManagedChannelServiceConfig`)")),
        });
    }
}

fn method_settings(
    doc: &Arc<Loaded>,
    tree: &Tree,
    item: NodeId,
    budget: Option<&Spanned<RetryBudget>>,
    diags: &mut Vec<Diagnostic>,
    rejected: &mut Rejected,
) -> (Settings, Vec<OriginNote>) {
    let at = |n: NodeId| At::new(doc, n);
    let mut s = Settings::empty(at(item));
    let mut notes = Vec::new();
    if let Some(t) = tree.get(item, "timeout") {
        match duration(doc, tree, t, "timeout", false, diags) {
            Some(ms) => {
                s.deadline = Some(Spanned {
                    value: ms,
                    at: at(t),
                });
            }
            // Reported at the value (RL017) and read as nothing: not blamed again
            // as a missing deadline (RL301).
            None => s.refuse("deadline", at(t)),
        }
    }
    if let Some(w) = tree.get(item, "waitForReady") {
        if tree.as_bool(w) == Some(true) {
            notes.push(OriginNote {
                at: at(w),
                text: crate::import::note_text("`waitForReady`: the call waits for the channel to become ready instead of failing fast with UNAVAILABLE on a transient connection failure; the wait counts against the `timeout` (service_config.proto)"),
            });
        }
    }
    let retry = tree.get(item, "retryPolicy");
    let hedge = tree.get(item, "hedgingPolicy");
    if let (Some(_), Some(h)) = (retry, hedge) {
        diags.push(
            rl017_ineffective_setting::diagnostic(
                &at(h),
                "gRPC `hedgingPolicy` beside a `retryPolicy` in one method config".to_string(),
                "both policies",
                "A6: a method config has a retry policy or a hedging policy, never both; gRPC rejects the service config. retrylint checks both as written; keep one.".to_string(),
            ),
        );
    }
    match retry {
        Some(r) if tree.kind(r) == Kind::Map => {
            if let Some(why) = retry_policy(doc, tree, r, &mut s, &mut notes, diags) {
                rejected.get_or_insert((at(r), why));
            }
        }
        Some(r) => {
            diags.push(rl017_ineffective_setting::diagnostic(
                &at(r),
                "gRPC `retryPolicy` is not an object".to_string(),
                "not an object",
                "gRPC rejects the service config; write `\"retryPolicy\": {\"maxAttempts\": 3, ...}`.".to_string(),
            ));
        }
        None => {
            s.retry = Some(Spanned {
                value: false,
                at: at(item),
            });
        }
    }
    if let Some(h) = hedge.filter(|&h| tree.kind(h) == Kind::Map) {
        if let Some(why) = hedging_policy(doc, tree, h, &mut s, diags) {
            rejected.get_or_insert((at(h), why));
        }
    }
    if s.retry.as_ref().is_some_and(|r| r.value) || s.hedging.is_some() {
        if s.deadline.is_none() && !s.misspelled.iter().any(|m| m.intended == "deadline") {
            let node = retry.or(hedge).unwrap_or(item);
            notes.push(OriginNote {
                at: at(node),
                text: crate::import::note_text("no `timeout` in this method config, so the call has no deadline unless the application sets one (service_config.proto `MethodConfig.timeout`; retry-configs.md §6.1)"),
            });
        }
        if let Some(b) = budget {
            s.budget = Some(Box::new(b.clone()));
        }
    }
    (s, notes)
}

/// Reads one `retryPolicy` into `s`; returns why gRPC rejects it when its back-off
/// is missing or invalid (see [`Rejected`]).
fn retry_policy(
    doc: &Arc<Loaded>,
    tree: &Tree,
    r: NodeId,
    s: &mut Settings,
    notes: &mut Vec<OriginNote>,
    diags: &mut Vec<Diagnostic>,
) -> Option<String> {
    let mut rejected: Option<String> = None;
    let at = |n: NodeId| At::new(doc, n);
    diags.extend(unknown(
        doc,
        tree,
        r,
        RETRY_POLICY_KEYS,
        "a gRPC `retryPolicy`",
    ));
    let mut on = true;
    match tree.get(r, "maxAttempts") {
        None => {
            if !misspelled(tree, r, "maxAttempts", RETRY_POLICY_KEYS) {
                diags.push(rl017_ineffective_setting::diagnostic(
                &at(r),
                "gRPC `retryPolicy` without `maxAttempts`".to_string(),
                "no maxAttempts",
                "two readings: gRPC itself rejects this retry policy (A6: `maxAttempts` is required and above 1), so a gRPC channel would not retry; Google's GAPIC client generators read the file and retry until the method's `timeout`, with no attempt limit. retrylint checks the GAPIC reading (the retries that may happen) with no attempt bound; write `\"maxAttempts\": 3` (total tries, at most 5) to state it.".to_string(),
            ));
            }
            // Reported here once, not again as "no `attempts`" (RL302).
            s.refuse("attempts", at(r));
        }
        // Beyond the field's type: `uint32 max_attempts` (service_config.proto
        // `RetryPolicy`); grpc-java and gRPC core read it as an int. The service
        // config is rejected, so no count is read (not the cap of 5).
        Some(m) if uint32_out_of_range(tree, m) => {
            diags.push(max_attempts_out_of_range(doc, tree, m, ""));
            rejected.get_or_insert(format!(
                "`maxAttempts: {}` is out of range",
                tree.scalar(m).unwrap_or("")
            ));
            on = false;
        }
        Some(m) => match int(tree, m) {
            Some(n) if n > MAX_ATTEMPTS_CAP => {
                diags.push(rl017_ineffective_setting::diagnostic(
                    &at(m),
                    format!("gRPC `maxAttempts: {}` is capped at {MAX_ATTEMPTS_CAP}", written(tree, m)),
                    rl017_ineffective_setting::CAPPED_LABEL,
                    format!("A6: values above {MAX_ATTEMPTS_CAP} are treated as {MAX_ATTEMPTS_CAP} without an error (the cap is a channel setting), so this policy makes at most {MAX_ATTEMPTS_CAP} tries; write the number that runs."),
                ));
                s.attempts = Some(Spanned {
                    value: MAX_ATTEMPTS_CAP,
                    at: at(m),
                });
            }
            Some(n) if n >= 2 => {
                s.attempts = Some(Spanned {
                    value: n,
                    at: at(m),
                });
            }
            other => {
                diags.push(rl017_ineffective_setting::diagnostic(
                    &at(m),
                    match other {
                        Some(_) => format!("gRPC `maxAttempts: {}` is below 2", written(tree, m)),
                        None => "gRPC `maxAttempts` is not an integer".to_string(),
                    },
                    "invalid maxAttempts",
                    "A6: `maxAttempts` counts every try including the first and must be above 1; gRPC rejects the service config, so nothing is retried. Remove the `retryPolicy` to turn retries off, or write `\"maxAttempts\": 3`.".to_string(),
                ));
                on = false;
            }
        },
    }
    // Status codes.
    let codes_node = tree.get(r, "retryableStatusCodes");
    let mut signals: Vec<Spanned<Signal>> = Vec::new();
    let mut other_codes: Vec<String> = Vec::new();
    if let Some(c) = codes_node {
        for &item in tree.items(c) {
            match status_code(tree, item) {
                Ok(code) => match grpc_signal(code) {
                    Some(g) => {
                        if !signals.iter().any(|x| x.value == Signal::Grpc(g)) {
                            signals.push(Spanned {
                                value: Signal::Grpc(g),
                                at: at(item),
                            });
                        }
                    }
                    None => other_codes.push(code_name(code).to_string()),
                },
                // grpc-go (`codes.Code` JSON) and grpc-java (`Status.Code.valueOf`)
                // fail to parse the whole service config on an unknown name: it
                // is rejected, not read as the other codes (issue 42).
                Err(written) => {
                    diags.push(bad_code(&at(item), &written));
                    rejected.get_or_insert(format!("`{written}` is not a gRPC status code"));
                }
            }
        }
    }
    if signals.is_empty() && other_codes.is_empty() {
        if codes_node.is_some() || !misspelled(tree, r, "retryableStatusCodes", RETRY_POLICY_KEYS) {
            diags.push(rl017_ineffective_setting::diagnostic(
            &at(codes_node.unwrap_or(r)),
            "gRPC `retryPolicy` without `retryableStatusCodes` retries nothing".to_string(),
            "no status codes",
            "A6: `retryableStatusCodes` is required and must not be empty; gRPC rejects the policy, and a client that accepts it retries on no status. List the codes to retry, e.g. `[\"UNAVAILABLE\"]`.".to_string(),
        ));
        }
        on = false;
    }
    if !other_codes.is_empty() {
        notes.push(OriginNote {
            at: at(codes_node.unwrap_or(r)),
            text: crate::import::note_text(format!(
                "gRPC also retries on {}: a definite answer of the server, which retrylint does not model as a retry signal (its signals are the seven statuses after which a request may be retried: cancelled, unknown, deadline-exceeded, resource-exhausted, aborted, internal, unavailable)",
                other_codes.join(", ")
            )),
        });
    }
    s.retry = Some(Spanned {
        value: on && !signals.is_empty(),
        at: at(r),
    });
    if !signals.is_empty() {
        s.retry_on = Some(Spanned {
            value: signals,
            at: at(codes_node.unwrap_or(r)),
        });
    }
    // Backoff.
    let mut backoff = BackoffSettings {
        at: at(r),
        base: None,
        cap: None,
        multiplier: None,
        jitter: JitterFactor::new(JITTER_FACTOR).map(|f| Spanned {
            value: Jitter::Proportional(f),
            at: at(r),
        }),
    };
    for (key, slot) in [("initialBackoff", 0), ("maxBackoff", 1)] {
        match tree.get(r, key) {
            Some(n) => {
                if let Some(ms) = duration(doc, tree, n, key, true, diags) {
                    let v = Some(Spanned {
                        value: ms,
                        at: at(n),
                    });
                    if slot == 0 {
                        backoff.base = v;
                    } else {
                        backoff.cap = v;
                    }
                } else {
                    rejected.get_or_insert(format!("`{key}` is not a duration gRPC accepts"));
                }
            }
            None => {
                rejected.get_or_insert(format!("the `retryPolicy` has no `{key}`"));
                if !misspelled(tree, r, key, RETRY_POLICY_KEYS) {
                    diags.push(missing(&at(r), key));
                }
            }
        }
    }
    match tree.get(r, "backoffMultiplier") {
        // Beyond the field's type: `float backoff_multiplier` (service_config.proto
        // `RetryPolicy`), so a number above f32::MAX (`1e39`) or one that overflows
        // even an f64 (`1e309`) is out of range; gRPC rejects the service config.
        Some(n) if multiplier_out_of_range(tree, n) => {
            let written = tree.scalar(n).unwrap_or("");
            rejected.get_or_insert(format!("`backoffMultiplier: {written}` is out of range"));
            diags.push(rl017_ineffective_setting::diagnostic(
                &at(n),
                format!("gRPC `backoffMultiplier: {written}` is out of range: at most {:e} (`float backoff_multiplier` in service_config.proto)", f32::MAX),
                "out of range",
                "gRPC rejects the service config, so retrylint reads no multiplier from it; write a number such as `2`.".to_string(),
            ))
        }
        // A JSON number or, as proto3 JSON reads a `float`, a string holding one
        // (`"2"`), as `maxAttempts` takes `"3"`.
        Some(n) => match float(tree, n).filter(|m| m.is_finite() && *m > 0.0) {
            Some(m) => {
                backoff.multiplier = Some(Spanned {
                    value: m,
                    at: at(n),
                })
            }
            None => {
                rejected.get_or_insert("`backoffMultiplier` is not a number above 0".to_string());
                diags.push(rl017_ineffective_setting::diagnostic(
                    &at(n),
                    "gRPC `backoffMultiplier` is not a number above 0".to_string(),
                    "invalid multiplier",
                    "A6: `backoffMultiplier` is required and must be above 0; gRPC rejects the service config. Write a number such as `2`.".to_string(),
                ))
            }
        },
        None => {
            rejected.get_or_insert("the `retryPolicy` has no `backoffMultiplier`".to_string());
            if !misspelled(tree, r, "backoffMultiplier", RETRY_POLICY_KEYS) {
                diags.push(missing(&at(r), "backoffMultiplier"));
            }
        }
    }
    s.backoff = Some(backoff);
    s.attempt_timeout = Some(Spanned {
        value: AttemptTimeout::Remaining,
        at: at(r),
    });
    if let Some(p) = tree.get(r, "perAttemptRecvTimeout") {
        if let Some(ms) = duration(doc, tree, p, "perAttemptRecvTimeout", true, diags) {
            s.attempt_timeout = Some(Spanned {
                value: AttemptTimeout::Fixed(ms),
                at: at(p),
            });
        }
    }
    notes.push(OriginNote {
        at: at(r),
        text: crate::import::note_text("gRPC retry defaults (A6; retry-configs.md §6.1): each delay is drawn from ±20 % around min(initialBackoff × backoffMultiplier^(n−1), maxBackoff) (since grpc/proposal PR #452, Aug 2024; earlier implementations: full jitter, [0, x]); every attempt shares the call's `timeout`; Retry-After is not read"),
    });
    rejected
}

fn hedging_policy(
    doc: &Arc<Loaded>,
    tree: &Tree,
    h: NodeId,
    s: &mut Settings,
    diags: &mut Vec<Diagnostic>,
) -> Option<String> {
    let at = |n: NodeId| At::new(doc, n);
    // Why gRPC rejects the service config for this policy, when it does.
    let mut rejected: Option<String> = None;
    diags.extend(unknown(
        doc,
        tree,
        h,
        HEDGING_POLICY_KEYS,
        "a gRPC `hedgingPolicy`",
    ));
    let attempts = match tree.get(h, "maxAttempts") {
        None => {
            diags.push(rl017_ineffective_setting::diagnostic(
                &at(h),
                "gRPC `hedgingPolicy` without `maxAttempts`".to_string(),
                "no maxAttempts",
                "A6: `maxAttempts` is required and above 1; gRPC rejects the service config, so no copy is sent. Write `\"maxAttempts\": 2` or more (at most 5).".to_string(),
            ));
            return Some("the `hedgingPolicy` has no `maxAttempts`".to_string());
        }
        // `uint32 max_attempts` in service_config.proto `HedgingPolicy`.
        Some(m) if uint32_out_of_range(tree, m) => {
            diags.push(max_attempts_out_of_range(doc, tree, m, "hedging "));
            return Some(format!(
                "hedging `maxAttempts: {}` is out of range",
                tree.scalar(m).unwrap_or("")
            ));
        }
        Some(m) => match int(tree, m) {
            Some(n) if n > MAX_ATTEMPTS_CAP => {
                diags.push(rl017_ineffective_setting::diagnostic(
                    &at(m),
                    format!("gRPC hedging `maxAttempts: {}` is capped at {MAX_ATTEMPTS_CAP}", written(tree, m)),
                    rl017_ineffective_setting::CAPPED_LABEL,
                    format!("A6: values above {MAX_ATTEMPTS_CAP} are treated as {MAX_ATTEMPTS_CAP}; at most {MAX_ATTEMPTS_CAP} copies are sent."),
                ));
                MAX_ATTEMPTS_CAP
            }
            Some(n) if n >= 2 => n,
            _ => {
                diags.push(rl017_ineffective_setting::diagnostic(
                    &at(m),
                    "gRPC hedging `maxAttempts` is not an integer above 1".to_string(),
                    "invalid maxAttempts",
                    "A6: `maxAttempts` counts every copy including the first and must be above 1; gRPC rejects the service config.".to_string(),
                ));
                return Some("hedging `maxAttempts` is not an integer above 1".to_string());
            }
        },
    };
    let delay = match tree.get(h, "hedgingDelay") {
        Some(d) => duration(doc, tree, d, "hedgingDelay", false, diags).unwrap_or(0.0),
        None => 0.0,
    };
    if let Some(c) = tree.get(h, "nonFatalStatusCodes") {
        for &item in tree.items(c) {
            if let Err(written) = status_code(tree, item) {
                diags.push(bad_code(&at(item), &written));
                rejected.get_or_insert(format!("`{written}` is not a gRPC status code"));
            }
        }
    }
    s.hedging = Some(Spanned {
        value: Hedging {
            attempts: attempts as u64,
            delay_ms: delay,
        },
        at: at(h),
    });
    rejected
}

fn throttling(
    doc: &Arc<Loaded>,
    tree: &Tree,
    n: NodeId,
    diags: &mut Vec<Diagnostic>,
) -> Option<Spanned<RetryBudget>> {
    let at = |x: NodeId| At::new(doc, x);
    diags.extend(unknown(
        doc,
        tree,
        n,
        RETRY_THROTTLING_KEYS,
        "gRPC `retryThrottling`",
    ));
    // Numbers, or strings holding them (proto3 JSON), as every other field.
    let tokens = tree.get(n, "maxTokens").and_then(|x| float(tree, x));
    let ratio = tree.get(n, "tokenRatio").and_then(|x| float(tree, x));
    match (tokens, ratio) {
        (Some(t), Some(r)) if t > 0.0 && t <= 1000.0 && r.is_finite() && r > 0.0 => Some(Spanned {
            value: RetryBudget::Tokens {
                tokens: t,
                token_ratio: r,
            },
            at: at(n),
        }),
        _ => {
            diags.push(rl017_ineffective_setting::diagnostic(
                &at(n),
                "gRPC `retryThrottling` needs `maxTokens` in (0, 1000] and `tokenRatio` above 0".to_string(),
                "invalid throttling",
                "A6: both fields are required; gRPC rejects the service config otherwise, so no retry budget applies. Write e.g. `{\"maxTokens\": 10, \"tokenRatio\": 0.1}`.".to_string(),
            ));
            None
        }
    }
}

/// True when `n` is a whole number (a JSON number or a string of digits, proto3
/// JSON) above `u32::MAX`, however many digits: beyond a `uint32` field.
fn uint32_out_of_range(tree: &Tree, n: NodeId) -> bool {
    if let Some(v) = int(tree, n) {
        return v > i64::from(u32::MAX);
    }
    let text = tree.scalar(n).unwrap_or("").trim();
    let digits = text.strip_prefix('+').unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// RL017 at a `maxAttempts` beyond its `uint32` (`what`: "" or "hedging "): gRPC
/// rejects the service config, and no count is read from it (not the cap of 5).
fn max_attempts_out_of_range(doc: &Arc<Loaded>, tree: &Tree, m: NodeId, what: &str) -> Diagnostic {
    let written = tree.scalar(m).unwrap_or("");
    rl017_ineffective_setting::diagnostic(
        &At::new(doc, m),
        format!("gRPC {what}`maxAttempts: {written}` is out of range: at most {} (`uint32 max_attempts` in service_config.proto)", u32::MAX),
        "out of range",
        format!("gRPC rejects the service config, so retrylint reads no count from it (not the cap of {MAX_ATTEMPTS_CAP}); write the number of tries, the first included, e.g. `\"maxAttempts\": 3` (at most {MAX_ATTEMPTS_CAP} run)."),
    )
}

/// True when the number at `n` (a JSON number, or a string holding one as proto3
/// JSON allows) is above a `float`'s largest (`f32::MAX`), an overflowing literal
/// (`1e309`) and `"Infinity"` included; `NaN`, `-1` and `0` are not out of range
/// but below A6's "above 0".
fn multiplier_out_of_range(tree: &Tree, n: NodeId) -> bool {
    let text = tree.scalar(n).unwrap_or("").trim();
    // proto3 JSON's `"Infinity"` for a float: beyond every finite `float` too.
    if text == "Infinity" && tree.kind(n) == Kind::Str {
        return true;
    }
    let number = text.strip_prefix('+').unwrap_or(text);
    let numeric = number.bytes().next().is_some_and(|b| b.is_ascii_digit())
        && number
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    numeric && number.parse::<f64>().is_ok_and(|m| m > f64::from(f32::MAX))
}

/// A value as written, for a message: the source text (`1e1`, `3`), never the
/// number read from it re-formatted.
fn written(tree: &Tree, n: NodeId) -> &str {
    tree.scalar(n).unwrap_or("").trim()
}

/// An integer as the proto3 JSON mapping reads one for an integer field: a JSON
/// number or a string holding one (`3`, `"3"`), exponent notation included
/// (`3e0`, `"3e0"`) when the value is whole.
fn int(tree: &Tree, n: NodeId) -> Option<i64> {
    tree.as_i64(n)
        .or_else(|| tree.as_str(n).and_then(|s| s.trim().parse().ok()))
        .or_else(|| {
            float(tree, n)
                .filter(|f| f.fract() == 0.0 && f.abs() < 1e15)
                .map(|f| f as i64)
        })
}

/// A number as the proto3 JSON mapping reads one for a `float` or `double` field:
/// a JSON number, or a string holding a JSON number (`"2"`, `"1.5"`, `"1e1"`) or
/// one of `"NaN"`, `"Infinity"`, `"-Infinity"` (no other spelling of those:
/// `"inf"` is not a number). The same for a YAML client config's quoted values.
fn float(tree: &Tree, n: NodeId) -> Option<f64> {
    if let Some(v) = tree.as_f64(n) {
        return Some(v);
    }
    let text = tree.as_str(n)?.trim();
    match text {
        "NaN" => return Some(f64::NAN),
        "Infinity" => return Some(f64::INFINITY),
        "-Infinity" => return Some(f64::NEG_INFINITY),
        _ => {}
    }
    let json_number = text.bytes().any(|b| b.is_ascii_digit())
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    json_number.then(|| text.parse::<f64>().ok()).flatten()
}

/// A proto3 JSON Duration (`"1.5s"`, `"0.100s"`: seconds with up to nine decimals
/// and an `s`), in ms; RL017 and `None` when it is not one (or not above 0 when
/// `positive`).
fn duration(
    doc: &Arc<Loaded>,
    tree: &Tree,
    n: NodeId,
    key: &str,
    positive: bool,
    diags: &mut Vec<Diagnostic>,
) -> Option<Millis> {
    let text = tree.as_str(n);
    let parsed = text.and_then(parse_duration);
    match parsed {
        // Beyond the proto3 Duration range: gRPC rejects the service config, so
        // the value is read as nothing (never as a huge duration). Judged on the
        // whole seconds as written: `315576000000.999999999s` is still a Duration
        // (nanos below 1e9), though its ms round up past the limit as a float.
        Some(_) if text.is_some_and(beyond_duration_range) => {
            let written = tree.scalar(n).unwrap_or("").to_string();
            diags.push(rl017_ineffective_setting::diagnostic(
                &At::new(doc, n),
                format!("gRPC `{key}: {written}` is out of range: at most 315,576,000,000 s (a proto3 `google.protobuf.Duration`)"),
                "out of range",
                "gRPC rejects the service config, so retrylint reads no value from it; write a duration of at most 315576000000s (about 10,000 years).".to_string(),
            ));
            None
        }
        Some(ms) if !positive || ms > 0.0 => Some(ms),
        _ => {
            let written = tree.scalar(n).unwrap_or("").to_string();
            diags.push(rl017_ineffective_setting::diagnostic(
                &At::new(doc, n),
                format!("gRPC `{key}` `{written}` is not a valid duration"),
                "invalid duration",
                format!("gRPC reads durations as proto3 JSON strings of seconds with an `s` (`\"1.5s\"`, `\"0.100s\"`){}; it rejects the service config otherwise.", if positive { ", above 0" } else { "" }),
            ));
            None
        }
    }
}

/// True when the whole seconds of the proto3 JSON Duration `text` (already parsed
/// by [`parse_duration`]) are beyond `google.protobuf.Duration`'s 315,576,000,000.
fn beyond_duration_range(text: &str) -> bool {
    let s = text.trim().strip_suffix('s').unwrap_or(text);
    let whole = s.split('.').next().unwrap_or("").trim_start_matches('0');
    whole.len() > 12
        || whole
            .parse::<u64>()
            .is_ok_and(|secs| secs > crate::import::envoy::proto::MAX_DURATION_SECONDS as u64)
}

/// Parses a proto3 JSON Duration (`"1.5s"`), in ms.
pub fn parse_duration(text: &str) -> Option<Millis> {
    let s = text.trim().strip_suffix('s')?;
    let (int_part, frac) = s.split_once('.').unwrap_or((s, ""));
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if int_part.is_empty() || !digits(int_part) || !digits(frac) || frac.len() > 9 {
        return None;
    }
    if s.ends_with('.') {
        return None;
    }
    // Rounded once from the digits: `"1.000000001s"` is 1000.000001 ms, shown as
    // written, not 1000.0000010000001.
    super::duration::decimal_ms(s, 1000, 0).filter(|ms| ms.is_finite())
}

/// A status code item: its number, or `Err` with what was written.
fn status_code(tree: &Tree, n: NodeId) -> Result<i64, String> {
    if let Some(i) = tree.as_i64(n) {
        return if (0..=16).contains(&i) {
            Ok(i)
        } else {
            Err(i.to_string())
        };
    }
    let written = tree.scalar(n).unwrap_or("").to_string();
    let upper = written.trim().to_ascii_uppercase();
    STATUS_CODES
        .iter()
        .find(|(name, _)| *name == upper)
        .map(|(_, c)| *c)
        .ok_or(written)
}

fn code_name(code: i64) -> &'static str {
    STATUS_CODES
        .iter()
        .find(|(_, c)| *c == code)
        .map_or("?", |(n, _)| n)
}

fn grpc_signal(code: i64) -> Option<GrpcCode> {
    Some(match code {
        1 => GrpcCode::Cancelled,
        2 => GrpcCode::Unknown,
        4 => GrpcCode::DeadlineExceeded,
        8 => GrpcCode::ResourceExhausted,
        10 => GrpcCode::Aborted,
        13 => GrpcCode::Internal,
        14 => GrpcCode::Unavailable,
        _ => return None,
    })
}

fn bad_code(at: &At, written: &str) -> Diagnostic {
    let lower: Vec<String> = STATUS_CODES
        .iter()
        .map(|(n, _)| n.to_ascii_lowercase())
        .collect();
    let names: Vec<&str> = lower.iter().map(String::as_str).collect();
    let help = match suggest(written, &names).map(str::to_ascii_uppercase) {
        Some(s) => format!("did you mean `{s}`? gRPC rejects a service config naming an unknown status code."),
        None => "gRPC rejects a service config naming an unknown status code; write a name from gRPC's status codes (`UNAVAILABLE`) or its number (0..16).".to_string(),
    };
    rl017_ineffective_setting::diagnostic(
        at,
        format!("`{written}` is not a gRPC status code"),
        "unknown status code",
        help,
    )
}

/// True when `map` holds an unknown key whose "did you mean" is `key` (reported as
/// that unknown key, so not again as `key` missing).
fn misspelled(tree: &Tree, map: NodeId, key: &str, known: &[&str]) -> bool {
    tree.raw_entries(map).iter().any(|&(k, _)| {
        tree.scalar(k)
            .is_some_and(|name| !known.contains(&name) && suggest(name, known) == Some(key))
    })
}

fn missing(at: &At, key: &str) -> Diagnostic {
    rl017_ineffective_setting::diagnostic(
        at,
        format!("gRPC `retryPolicy` without `{key}`"),
        "missing value",
        format!("A6: `{key}` is required in a retry policy; gRPC rejects the service config without it, so nothing in it is retried (retrylint reads it so). Write it, e.g. `\"{key}\": \"1s\"`."),
    )
}

/// RL017 for unknown keys of `map`; gRPC reads the JSON (camelCase) names only, so a
/// snake_case spelling of a known key is unknown too.
fn unknown(
    doc: &Arc<Loaded>,
    tree: &Tree,
    map: NodeId,
    known: &[&str],
    block: &str,
) -> Vec<Diagnostic> {
    if tree.kind(map) != Kind::Map {
        return Vec::new();
    }
    keys::unknown_keys(doc, map, known, block)
}

/// The effect an RPC has by its own semantics (`layers.md` "Binding" 4): its
/// `idempotency_level` option (`NO_SIDE_EFFECTS` safe, `IDEMPOTENT` idempotent), else
/// the AIP method kind of its name (`Get*`/`List*` safe, AIP-131/132; `Update*`/
/// `Delete*` idempotent, AIP-134/135; `Create*` and custom methods non-idempotent,
/// AIP-133/136), with the node that says so (the proto option, or `name_at`).
pub fn rpc_effect(
    protos: &ProtoIndex,
    service: &str,
    method: &str,
    name_at: &At,
) -> Spanned<Effect> {
    if let Some(level) = protos
        .rpc(service, method)
        .and_then(|r| r.idempotency_level.as_ref())
    {
        return Spanned {
            value: match level.value {
                IdempotencyLevel::NoSideEffects => Effect::Safe,
                IdempotencyLevel::Idempotent => Effect::Idempotent,
            },
            at: level.at.clone(),
        };
    }
    Spanned {
        value: aip_effect(method),
        at: name_at.clone(),
    }
}

/// The effect of an AIP method kind from the method's name.
pub fn aip_effect(method: &str) -> Effect {
    let kind = |prefix: &str| {
        method
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.chars().next().is_some_and(|c| c.is_ascii_uppercase()))
    };
    if kind("Get") || kind("List") || kind("BatchGet") {
        Effect::Safe
    } else if kind("Update") || kind("Delete") {
        Effect::Idempotent
    } else {
        Effect::NonIdempotent
    }
}

/// Gives the settings of a gRPC route bound to `op` what the RPC behind `op` says
/// of itself (`layers.md` "Binding" 4): its effect ([`rpc_effect`], kept only where
/// it differs from the HTTP method's, as an inferred effect below any declared one)
/// and its AIP-155 `request_id` field as an idempotency key carried in the request.
pub fn operation_semantics(
    settings: &mut Settings,
    route: &Route,
    op: &Operation,
    protos: &ProtoIndex,
) {
    semantics_of(
        settings,
        route.name.as_deref().unwrap_or(""),
        &route.at,
        op,
        protos,
    );
}

/// [`operation_semantics`] for a route of any platform bound to an operation that
/// a `.proto` alone describes (`POST /package.Service/Method`, read by
/// `import::server::proto_api`): a mesh or gateway route retrying a `GetCart`
/// retries a read, whatever layer it is. `route_name` is a gRPC config's
/// `service/method` name, or empty (the RPC is then known by the native path).
pub fn semantics_of(
    settings: &mut Settings,
    route_name: &str,
    route_at: &At,
    op: &Operation,
    protos: &ProtoIndex,
) {
    let Some((service, method)) = rpc_of_operation(route_name, op, protos) else {
        return;
    };
    let effect = rpc_effect(protos, &service, &method, route_at);
    if effect.value != Effect::from_openapi_method(&op.method) {
        settings.inferred_effect = Some(effect);
    }
    if let Some(field) = protos
        .rpc(&service, &method)
        .and_then(|r| r.request_id.as_ref())
    {
        settings.idempotency_key = Some(Box::new(crate::policy::model::KeySettings {
            at: field.clone(),
            header: Some(Spanned {
                value: "request_id".to_string(),
                at: field.clone(),
            }),
            retention: None,
            scope: None,
            on_payload_mismatch: None,
            on_concurrent: None,
            in_request: true,
        }));
    }
}

/// The RPC an operation is, for a route of a gRPC service config: the route's own
/// method when it names one, else the method of the operation's native path
/// (`/{service}/{Method}`), operationId (`Service_Method`) or `google.api.http` rule.
pub fn rpc_of_operation(
    route_name: &str,
    op: &Operation,
    protos: &ProtoIndex,
) -> Option<(String, String)> {
    let Some((service, method)) = route_name.split_once('/') else {
        // The default entry: any RPC, known by its native path or operationId.
        if let Some((s, m)) = op
            .path
            .strip_prefix('/')
            .and_then(|p| p.split_once('/'))
            .filter(|(s, m)| s.contains('.') && !m.is_empty() && !m.contains('/'))
        {
            return Some((s.to_string(), m.to_string()));
        }
        let id = op.operation_id.as_deref()?;
        let (short, m) = id.split_once('_')?;
        // Only an RPC the run's protos know: `get_users` is no `Service_Method`.
        return protos
            .rpcs
            .iter()
            .find(|r| short_service(&r.service) == short && r.method == m)
            .map(|r| (r.service.clone(), m.to_string()));
    };
    if method != "*" {
        return Some((service.to_string(), method.to_string()));
    }
    if let Some(m) = op
        .path
        .strip_prefix(&format!("/{service}/"))
        .filter(|m| !m.contains('/'))
    {
        return Some((service.to_string(), m.to_string()));
    }
    if let Some(id) = &op.operation_id {
        for prefix in [short_service(service), service] {
            if let Some(m) = id.strip_prefix(&format!("{prefix}_")) {
                return Some((service.to_string(), m.to_string()));
            }
        }
    }
    let verb = op.method.to_ascii_uppercase();
    protos.service(service).find_map(|rpc| {
        rpc.http
            .iter()
            .any(|rule| {
                rule.method.eq_ignore_ascii_case(&verb)
                    && full_match_regex(&template_regex(&rule.template)).is_ok_and(|re| {
                        super::route::proxy_paths(&op.path, "", None)
                            .iter()
                            .any(|p| re.is_match(p))
                    })
            })
            .then(|| (service.to_string(), rpc.method.clone()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_proto3_json() {
        assert_eq!(parse_duration("1.5s"), Some(1500.0));
        assert_eq!(parse_duration("0.100s"), Some(100.0));
        assert_eq!(parse_duration("2s"), Some(2000.0));
        assert_eq!(parse_duration("100ms"), None);
        assert_eq!(parse_duration("1"), None);
        assert_eq!(parse_duration("1.s"), None);
        assert_eq!(parse_duration("-1s"), None);
    }

    #[test]
    fn templates_become_regexes() {
        let re =
            full_match_regex(&template_regex("/v1/{name=projects/*/topics/*}:publish")).unwrap();
        assert!(re.is_match("/v1/projects/p/topics/t:publish"));
        assert!(re.is_match("/v1/1:publish"));
        assert!(!re.is_match("/v1/1:get"));
        // Another resource of the same shape is not this pattern.
        assert!(!re.is_match("/v1/orders/1:publish"));
        let re = full_match_regex(&template_regex("/v1/{name=**}")).unwrap();
        assert!(re.is_match("/v1/a/b/c"));
        let re = full_match_regex(&template_regex("/v1/{parent}/topics")).unwrap();
        assert!(re.is_match("/v1/x/topics"));
        assert!(!re.is_match("/v1/x/y/topics"));
    }

    #[test]
    fn never_an_openapi_document_or_a_manifest() {
        let yes = |t: &str| looks_like(&Tree::parse(std::sync::Arc::from(t)).unwrap());
        assert!(yes("methodConfig: [{name: [{}]}]"));
        assert!(yes(
            "app:\n  grpc:\n    service-config:\n      methodConfig: []"
        ));
        assert!(!yes("openapi: 3.0.3\nmethodConfig: []"));
        assert!(!yes(
            "apiVersion: v1\nkind: ConfigMap\ndata:\n  serviceConfig:\n    methodConfig: []"
        ));
        assert!(!yes("methodConfig: {name: x}"));
        assert!(!yes("serviceConfig: 'not json'"));
        assert!(!yes("paths: {}"));
    }

    #[test]
    fn aip_kinds() {
        assert_eq!(aip_effect("GetTopic"), Effect::Safe);
        assert_eq!(aip_effect("ListTopics"), Effect::Safe);
        assert_eq!(aip_effect("UpdateTopic"), Effect::Idempotent);
        assert_eq!(aip_effect("DeleteTopic"), Effect::Idempotent);
        assert_eq!(aip_effect("CreateTopic"), Effect::NonIdempotent);
        assert_eq!(aip_effect("Publish"), Effect::NonIdempotent);
        assert_eq!(aip_effect("Getaway"), Effect::NonIdempotent);
        assert_eq!(aip_effect("client_init"), Effect::NonIdempotent);
    }
}

#[cfg(test)]
mod corpus_tests {
    use super::*;
    use crate::config::Platforms;
    use crate::import::summary;
    use crate::source::loader::{Limits, Workspace};
    use std::path::Path;

    fn render(name: &str) -> String {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let ws = Workspace::new(root.to_path_buf(), Limits::default());
        let doc = ws.load(&root.join("fixtures/import/grpc").join(name));
        assert_eq!(
            crate::import::recognize(&doc),
            Some(crate::import::Format::GrpcServiceConfig),
            "{name} is recognised"
        );
        let platforms = Platforms::default();
        let protos = ProtoIndex::default();
        let imported = import(
            &doc,
            &ImportContext {
                platforms: &platforms,
                protos: &protos,
            },
        );

        summary::render_imported(&imported, true)
    }

    #[test]
    fn corpus_lock_manager_client_init() {
        let text = render(
            "grpc-service-config--sean-comerford-Distributed-Lock-Manager--service_config.json",
        );
        assert!(text.contains("retry true @5:6"), "{text}");
        assert!(text.contains("attempts 5 @6:22"), "{text}");
        assert!(
            text.contains("retry_on [unavailable@10:46, deadline-exceeded@10:60] @10:21"),
            "{text}"
        );
        assert!(text.contains("deadline 2s @4:6"), "{text}");
        assert!(!text.contains("RL017"), "{text}");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn corpus_pubsub_per_method_policies() {
        let text = render("grpc--googleapis-googleapis--pubsub_grpc_service_config.json");
        assert!(
            text.contains("route google.pubsub.v1.Publisher/Publish"),
            "{text}"
        );
        assert!(!text.contains("RL017"), "{text}");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn corpus_grpc_java_retrying() {
        let text = render("grpc--grpc-grpc-java--retrying_service_config.json");
        assert!(text.contains("attempts 5"), "{text}");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn corpus_grpc_java_hedging_with_throttling() {
        let text = render("grpc--grpc-grpc-java--hedging_service_config.json");
        assert!(
            text.contains("hedging Hedging { attempts: 3, delay_ms: 1000.0 }"),
            "{text}"
        );
        assert!(
            text.contains("budget Tokens { tokens: 10.0, token_ratio: 0.1 }"),
            "{text}"
        );
        insta::assert_snapshot!(text);
    }

    #[test]
    fn corpus_stock_market_service_wide_and_typo() {
        let text = render(
            "grpc-service-config--Leandro-Lucena-gRCP-stock-market-client--service_config.json",
        );
        assert!(text.contains("route stock_market.StockPrice/*"), "{text}");
        assert!(
            text.contains("RL017 unknown key `loadBalacingConfig`"),
            "{text}"
        );
        assert!(
            text.contains("did you mean `loadBalancingConfig`?"),
            "{text}"
        );
        insta::assert_snapshot!(text);
    }

    #[test]
    fn corpus_bigtableadmin_cap_and_no_retry_entries() {
        let text = render(
            "grpc-service-config--googleapis-googleapis--bigtableadmin_grpc_service_config.json",
        );
        assert!(
            text.contains("RL017 gRPC `maxAttempts: 100` is capped at 5"),
            "{text}"
        );
        assert!(text.contains("retry false"), "{text}");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn trigger_max_attempts_missing_gives_both_readings() {
        let text = render("trigger-max-attempts-missing.json");
        assert!(
            text.contains("RL017 gRPC `retryPolicy` without `maxAttempts`"),
            "{text}"
        );
        assert!(text.contains("GAPIC"), "{text}");
        assert!(text.contains("retry true"), "{text}");
        assert!(!text.contains("attempts "), "{text}");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn trigger_max_attempts_out_of_range() {
        let text = render("trigger-max-attempts-range.json");
        assert!(text.contains("capped at 5"), "{text}");
        assert!(text.contains("`maxAttempts: 1` is below 2"), "{text}");
        insta::assert_snapshot!(text);
    }

    /// Values beyond their proto type (issue 43): `maxAttempts` above a `uint32`,
    /// a Duration above 315,576,000,000 s, `backoffMultiplier` above a `float`. One
    /// RL017 each saying "out of range"; gRPC rejects the service config, so no
    /// count is read (not the cap of 5) nor a multiplier, and nothing is retried.
    /// (A JSON file holds no comment, so the case is told here.)
    #[test]
    fn trigger_values_out_of_range() {
        let text = render("trigger-values-out-of-range.json");
        assert_eq!(text.matches(" RL017 gRPC").count(), 6, "{text}");
        assert_eq!(
            text.matches("is out of range: at most").count(),
            6,
            "{text}"
        );
        for absent in [
            "capped at",
            "attempts 5",
            "not a number above 0",
            "retry true",
        ] {
            assert!(!text.contains(absent), "{absent}: {text}");
        }
        insta::assert_snapshot!(text);
    }

    #[test]
    fn trigger_no_status_codes() {
        let text = render("trigger-no-status-codes.json");
        assert!(
            text.contains("without `retryableStatusCodes` retries nothing"),
            "{text}"
        );
        assert!(text.contains("retry false"), "{text}");
        assert!(!text.contains("retry_on"), "{text}");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn trigger_hedging_beside_retry() {
        let text = render("trigger-hedging-beside-retry.json");
        assert!(
            text.contains("`hedgingPolicy` beside a `retryPolicy`"),
            "{text}"
        );
        insta::assert_snapshot!(text);
    }

    #[test]
    fn trigger_invalid_durations() {
        let text = render("trigger-invalid-durations.json");
        assert!(
            text.contains("`timeout` `5` is not a valid duration"),
            "{text}"
        );
        assert!(
            text.contains("`initialBackoff` `100ms` is not a valid duration"),
            "{text}"
        );
        assert!(
            text.contains("`maxBackoff` `0s` is not a valid duration"),
            "{text}"
        );
        insta::assert_snapshot!(text);
    }

    #[test]
    fn trigger_unknown_keys_and_codes() {
        let text = render("trigger-unknown-keys.json");
        for k in [
            "timeOut",
            "max_backoff",
            "retryableStatusCode",
            "retry_policy",
            "maxToken",
        ] {
            assert!(text.contains(&format!("unknown key `{k}`")), "{k}: {text}");
        }
        assert!(
            text.contains("`UNAVAILBLE` is not a gRPC status code"),
            "{text}"
        );
        assert!(text.contains("did you mean `UNAVAILABLE`?"), "{text}");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn trigger_duplicate_names_and_order() {
        let text = render("trigger-duplicate-names.json");
        assert!(
            text.contains("duplicate gRPC method name `shop.v1.Orders/GetOrder`"),
            "{text}"
        );
        // Most specific first: the method, the service, the default.
        let m = text.find("route shop.v1.Orders/GetOrder").unwrap();
        let s = text.find("route shop.v1.Orders/*").unwrap();
        let d = text.find("route (default)").unwrap();
        assert!(m < s && s < d, "{text}");
        insta::assert_snapshot!(text);
    }

    /// Numbers given as strings (issue 43): the proto3 JSON mapping reads a string
    /// holding a number for an integer field (`"maxAttempts": "3"`, `"4e0"`) and
    /// for a float one (`"backoffMultiplier": "2"`, `"1.5e0"`), so both are read
    /// alike, never one refused while the other is taken. Also `retryThrottling`.
    /// (A JSON file holds no comment, so the case is told here.)
    #[test]
    fn clean_numbers_as_strings() {
        let text = render("clean-numbers-as-strings.json");
        assert!(!text.contains("RL017"), "{text}");
        assert!(text.contains("attempts 3 @7:9"), "{text}");
        assert!(text.contains("attempts 4 @18:9"), "{text}");
        assert!(text.contains("multiplier=2@10:9"), "{text}");
        assert!(text.contains("multiplier=1.5@21:9"), "{text}");
        assert!(
            text.contains("budget Tokens { tokens: 10.0, token_ratio: 0.1 }"),
            "{text}"
        );
        insta::assert_snapshot!(text);
    }

    /// The same proto3 JSON reading for values out of range given as strings:
    /// `"maxAttempts": "4294967296"` (above a `uint32`), `"backoffMultiplier":
    /// "1e39"` or `"Infinity"` (above a `float`) are RL017 "out of range", as their
    /// unquoted forms; `"two"` is no number and `"NaN"` is not above 0 (A6), so
    /// each says "not a number above 0". gRPC rejects the service config: nothing
    /// is retried. (A JSON file holds no comment, so the case is told here.)
    #[test]
    fn trigger_values_out_of_range_as_strings() {
        let text = render("trigger-values-out-of-range-as-strings.json");
        assert_eq!(text.matches(" RL017 gRPC").count(), 5, "{text}");
        assert!(
            text.contains("`maxAttempts: 4294967296` is out of range: at most 4294967295"),
            "{text}"
        );
        assert!(
            text.contains("`backoffMultiplier: 1e39` is out of range: at most"),
            "{text}"
        );
        assert!(
            text.contains("`backoffMultiplier: Infinity` is out of range: at most"),
            "{text}"
        );
        assert_eq!(text.matches("is not a number above 0").count(), 2, "{text}");
        for absent in ["capped at", "retry true"] {
            assert!(!text.contains(absent), "{absent}: {text}");
        }
        // No multiplier read from any of them.
        assert_eq!(text.matches("multiplier=-").count(), 4, "{text}");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn clean_valid_config() {
        let text = render("clean-valid.json");
        assert!(!text.contains("RL017"), "{text}");
        assert!(text.contains("retry_on [unavailable@"), "{text}");
        assert!(text.contains("resource-exhausted@"), "{text}");
        assert!(text.contains("NOT_FOUND"), "{text}");
        assert!(text.contains("waitForReady"), "{text}");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn client_config_mapping_and_json_string() {
        let text = render("client-config.yaml");
        assert!(text.contains("route shop.v1.Orders/GetOrder"), "{text}");
        assert!(text.contains("route shop.v1.Payments/*"), "{text}");
        assert!(!text.contains("RL017"), "{text}");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn dns_txt_choices() {
        let text = render("dns-txt-choices.json");
        assert!(text.contains("route shop.v1.Orders/*"), "{text}");
        insta::assert_snapshot!(text);
    }
}
