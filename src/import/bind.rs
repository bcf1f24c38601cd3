//! Binding imported route tables to OpenAPI operations (`layers.md` "Binding a config
//! to operations"): which API (`.retrylint.yaml` `services:`, a host equal to a spec
//! server's host, or the only spec of the run), which operations (each route's
//! matches with its rewrite inverted, first match wins), and the synthetic policy
//! file each bound source becomes for the join.

use super::{rl016_unbound_config, rl209_route_may_resend_write, ConfigObject, OriginNote};
use crate::config::ServiceBinding;
use crate::diagnostic::Diagnostic;
use crate::openapi::model::{Document, Operation};
use crate::policy::model::{ImportedFrom, OperationEntry, PolicyFile, Spanned, Variant};
use crate::policy::selector::Selector;
use crate::source::refs::normalize;
use crate::source::tree::Kind;
use crate::source::SourceFile;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// What binding produced.
#[derive(Debug, Default)]
pub struct Bound {
    /// One synthetic policy per (config file, layer, platform, document): an entry
    /// `METHOD /path` per bound operation, holding the settings of the first route
    /// that may match it.
    pub policies: Vec<PolicyFile>,
    /// The platform-default notes of the routes that bound something.
    pub notes: Vec<OriginNote>,
    /// RL016 for objects that bind to nothing, and RL314 of a `services[].mesh`
    /// entry whose Istio default depends on the version.
    pub diagnostics: Vec<Diagnostic>,
    /// Per object (same order as the input): the operations it bound, each with its
    /// document, so that findings about the object itself (RL017, RL314) can name them.
    pub operations: Vec<Vec<(Arc<SourceFile>, String)>>,
    /// The retrying routes of objects that bound no operation (RL016): a request to
    /// an operation of the run may still pass one of them under a host retrylint
    /// could not tie to a spec, so `readiness` says "unknown" rather than "not
    /// retried" where one's match would carry it.
    pub unbound_routes: Vec<UnboundRoute>,
}

/// A retrying route (or call of a retry client) of a config object that bound no
/// operation, with what it matches.
#[derive(Debug, Clone)]
pub struct UnboundRoute {
    /// The object's layer.
    pub layer: crate::policy::model::Layer,
    /// `Istio VirtualService ledger`: the platform, kind and name of its object
    /// (one text shared by the routes of an object: a VirtualService of 100,000
    /// routes had a copy each, issue 43).
    pub source: Arc<str>,
    /// The route's node.
    pub at: crate::source::refs::At,
    /// What it matches (empty: every request).
    pub matches: Vec<super::route::RequestMatch>,
}

impl UnboundRoute {
    /// True when a request `method` to the spec path `template` may take this route
    /// (the host left aside: it is what could not be tied to a spec).
    pub fn may_carry(&self, method: &str, template: &str) -> bool {
        self.matches.is_empty()
            || self
                .matches
                .iter()
                .any(|m| m.may_match(method, template, "", None))
    }
}

/// A spec server as the proxy sees it: its host (lower case, no port) and the path
/// of its URL (the prefix before the spec's paths).
#[derive(Debug, Clone)]
struct Server {
    host: String,
    path: String,
    /// The absolute URL as written (lower case, no trailing `/`), when it has a
    /// literal scheme: what a client's mount prefix is compared with.
    url: Option<String>,
}

/// True when a client serving only URLs under `prefixes` (a requests adapter's
/// mount prefixes; empty: every URL) may reach an operation of a document with
/// `servers`: some server's URL starts with a prefix, or a prefix lies below a
/// server's URL; a server with no literal scheme (relative, a variable) may be
/// anything, and so may a document with no servers.
fn prefixes_reach(prefixes: &[Spanned<String>], servers: &[Server]) -> bool {
    if prefixes.is_empty() || servers.is_empty() {
        return true;
    }
    servers.iter().any(|srv| match &srv.url {
        None => true,
        Some(url) => {
            let url = format!("{url}/");
            prefixes.iter().any(|p| {
                let p = p.value.to_ascii_lowercase();
                url.starts_with(&p) || p.starts_with(&url)
            })
        }
    })
}

/// The servers of a document: OpenAPI 3 `servers[].url`, Swagger 2 `host` +
/// `basePath`. Relative URLs have no host.
fn servers(doc: &Document) -> Vec<Server> {
    let Ok(tree) = &doc.doc.tree else {
        return Vec::new();
    };
    let Some(root) = tree.root() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(list) = tree
        .get(root, "servers")
        .filter(|&n| tree.kind(n) == Kind::Seq)
    {
        for &item in tree.items(list) {
            if let Some(url) = tree.get(item, "url").and_then(|u| tree.as_str(u)) {
                out.push(parse_url(url));
            }
        }
    }
    // Swagger 2.0: `host` and `basePath` are one server, either alone as a relative
    // or host-only URL would be (`basePath: /api/v1` with no `host` is the server
    // `/api/v1`; `basePath: /` is no prefix).
    let host = tree.get(root, "host").and_then(|h| tree.as_str(h));
    let base = tree.get(root, "basePath").and_then(|b| tree.as_str(b));
    if host.is_some() || base.is_some() {
        out.push(Server {
            host: host.map_or(String::new(), |h| strip_port(h).to_ascii_lowercase()),
            path: base.unwrap_or("").trim_end_matches('/').to_string(),
            url: None,
        });
    }
    out
}

/// [`servers`] of `doc`, with each name the repository gives its service
/// (`identities`, [`super::identity`]) as one more host, with the path of its first
/// server.
fn servers_known_as(doc: &Document, identities: &[String]) -> Vec<Server> {
    let mut list = servers(doc);
    let path = list.first().map(|s| s.path.clone()).unwrap_or_default();
    for name in identities {
        if !list.iter().any(|s| s.host == *name) {
            list.push(Server {
                host: name.clone(),
                path: path.clone(),
                url: None,
            });
        }
    }
    list
}

/// What binding keeps of a document it does not hold ([`Unheld`]): what RL016 says
/// of the run's specs.
#[derive(Debug, Clone)]
pub struct DocumentSummary {
    /// The document's path as reports show it.
    pub display: String,
    /// Its server hosts and the names the repository gives its service, as binding
    /// compares them with a config's names.
    pub hosts: Vec<String>,
}

/// The documents of a run that [`bind`] does not hold, with the places (walk order)
/// of those it does: a document no object may bind ([`MayBind`]) is checked alone
/// as it loads, and its tree is released.
#[derive(Debug, Default)]
pub struct Unheld {
    /// The place of each held document (same order as `documents`); only read when
    /// [`Unheld::others`] is not empty.
    pub held_places: Vec<usize>,
    /// The documents not held, each with its place.
    pub others: Vec<(usize, DocumentSummary)>,
}

/// One spec of the run as RL016 names it.
struct Listed<'a> {
    display: &'a str,
    hosts: Vec<&'a str>,
}

impl Unheld {
    /// Every spec of the run in walk order: the held `documents` (with their
    /// `servers`) and the others.
    fn listed<'a>(
        &'a self,
        documents: &'a [Document],
        servers: &'a [Vec<Server>],
    ) -> Vec<Listed<'a>> {
        let held = documents.iter().zip(servers).map(|(d, list)| Listed {
            display: &d.doc.file.display,
            hosts: list.iter().map(|s| s.host.as_str()).collect(),
        });
        if self.others.is_empty() {
            return held.collect();
        }
        let others = self.others.iter().map(|(place, o)| {
            (
                *place,
                Listed {
                    display: &o.display,
                    hosts: o.hosts.iter().map(String::as_str).collect(),
                },
            )
        });
        // Documents read from server code or protos come after the walked ones.
        let mut all: Vec<(usize, Listed<'a>)> = self
            .held_places
            .iter()
            .copied()
            .chain(std::iter::repeat(usize::MAX))
            .zip(held)
            .chain(others)
            .collect();
        all.sort_by_key(|(place, _)| *place);
        all.into_iter().map(|(_, l)| l).collect()
    }
}

/// Which documents some object of a run may bind to, asked of each document alone
/// as it loads: a host or service name ([`bind`] step 2), an operationId or tag
/// (2b) or an RPC (2c) of it named by an object. The `services:` of
/// `.retrylint.yaml` and the run's only spec (steps 1 and 3) are the caller's to
/// keep: with either, every document is held.
pub struct MayBind<'a> {
    objects: &'a [ConfigObject],
    /// Objects by the first label of each name (lower case, no port): a name that
    /// names a host has the host's first label.
    by_label: std::collections::HashMap<String, Vec<usize>>,
    /// Objects with a `*.` name, compared with every host.
    wildcards: Vec<usize>,
    /// Objects whose routes name operations (2b) or that are gRPC configs (2c).
    by_operation: Vec<usize>,
}

impl<'a> MayBind<'a> {
    /// The index of `objects`.
    pub fn new(objects: &'a [ConfigObject]) -> MayBind<'a> {
        let mut by_label: std::collections::HashMap<String, Vec<usize>> = Default::default();
        let mut wildcards = Vec::new();
        let mut by_operation = Vec::new();
        for (i, o) in objects.iter().enumerate() {
            if names_operations_only(o) || o.grpc() {
                by_operation.push(i);
            }
            for n in &o.names {
                let name = strip_port(n.value.trim()).to_ascii_lowercase();
                if name.starts_with("*.") {
                    wildcards.push(i);
                } else if let Some(label) = name.split('.').next() {
                    by_label.entry(label.to_string()).or_default().push(i);
                }
            }
        }
        wildcards.dedup();
        MayBind {
            objects,
            by_label,
            wildcards,
            by_operation,
        }
    }

    /// `None` when some object may bind to `doc`, known by `identities` too; else
    /// what binding keeps of it.
    pub fn summary_if_unbound(
        &self,
        doc: &Document,
        identities: &[String],
    ) -> Option<DocumentSummary> {
        let servers = servers_known_as(doc, identities);
        for srv in servers.iter().filter(|s| !s.host.is_empty()) {
            let label = srv.host.split('.').next().unwrap_or("");
            let named = self
                .by_label
                .get(label)
                .into_iter()
                .flatten()
                .chain(&self.wildcards)
                .any(|&i| {
                    self.objects[i]
                        .names
                        .iter()
                        .any(|n| names_host(&n.value, &srv.host))
                });
            if named {
                return None;
            }
        }
        let named_operation = self.by_operation.iter().any(|&i| {
            let o = &self.objects[i];
            let by_name = names_operations_only(o);
            doc.operations.iter().any(|op| {
                (o.grpc() && names_rpc_of(o, op))
                    || (by_name
                        && o.routes.iter().any(|r| {
                            r.matches.iter().any(|m| {
                                m.path.names_operation(op.operation_id.as_deref(), &op.tags)
                                    == Some(true)
                            })
                        }))
            })
        });
        if named_operation {
            return None;
        }
        Some(DocumentSummary {
            display: doc.doc.file.display.clone(),
            hosts: servers.into_iter().map(|s| s.host).collect(),
        })
    }
}

fn strip_port(host: &str) -> &str {
    host.rsplit_once(':')
        .filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit()))
        .map_or(host, |(h, _)| h)
}

fn parse_url(url: &str) -> Server {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let absolute = url
        .split_once("://")
        .filter(|(scheme, _)| {
            !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        })
        .map(|_| url.trim_end_matches('/').to_ascii_lowercase());
    if url.starts_with('/') || !url.contains("://") && !url.starts_with("//") {
        return Server {
            url: None,
            host: String::new(),
            path: if url.starts_with('/') {
                url.trim_end_matches('/').to_string()
            } else {
                String::new()
            },
        };
    }
    let rest = rest.trim_start_matches("//");
    let (authority, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    Server {
        url: absolute,
        host: strip_port(authority).to_ascii_lowercase(),
        path: if path.is_empty() {
            String::new()
        } else {
            format!("/{}", path.trim_end_matches('/'))
        },
    }
}

/// True when a config name (a host, a Kubernetes service, a cluster) names `host`:
/// equal (case-insensitively), a `*.` wildcard covering it, or the same Kubernetes
/// service written short and long (`payments` and `payments.prod.svc.cluster.local`).
fn names_host(name: &str, host: &str) -> bool {
    let name = strip_port(name.trim()).to_ascii_lowercase();
    if name.is_empty() || host.is_empty() {
        return false;
    }
    if name == host {
        return true;
    }
    if let Some(suffix) = name.strip_prefix("*.") {
        return host.ends_with(&format!(".{suffix}"));
    }
    let short = |s: &str| s.split('.').next().unwrap_or("").to_string();
    let kube = |s: &str| !s.contains('.') || s.contains(".svc");
    kube(&name) && kube(host) && short(&name) == short(host)
}

/// Binds `objects` to the operations of `documents` (see the module docs); the
/// `services` of `.retrylint.yaml` come first.
///
/// `identities` holds, per document (same order; shorter: none), the service names
/// the repository gives it ([`super::identity`]): each counts as a server host of
/// that document, with the path of its first server.
///
/// `unheld` names the documents of the run that binding does not hold (checked
/// alone as they loaded, since no object could bind to them, [`MayBind`]): they
/// count among the run's specs (one spec, or several) and RL016 names them.
pub fn bind(
    objects: &[ConfigObject],
    documents: &[Document],
    unheld: &Unheld,
    services: &[ServiceBinding],
    identities: &[Vec<String>],
    ctx: &super::ImportContext<'_>,
) -> Bound {
    let mut out = Bound {
        operations: vec![Vec::new(); objects.len()],
        ..Bound::default()
    };
    let doc_servers: Vec<Vec<Server>> = documents
        .iter()
        .enumerate()
        .map(|(d, doc)| servers_known_as(doc, identities.get(d).map_or(&[], Vec::as_slice)))
        .collect();
    // How many specs the run holds, those checked alone included.
    let specs_in_run = documents.len() + unheld.others.len();
    // What RL016 names of the run's specs, built at the first object that binds
    // nothing.
    let listed: std::cell::OnceCell<Vec<Listed<'_>>> = std::cell::OnceCell::new();
    let listed = || listed.get_or_init(|| unheld.listed(documents, &doc_servers));
    let canonical_specs: Vec<(usize, PathBuf)> = services
        .iter()
        .enumerate()
        .map(|(i, s)| {
            (
                i,
                std::fs::canonicalize(&s.spec).unwrap_or_else(|_| normalize(&s.spec)),
            )
        })
        .collect();

    // Documents by server host, and by the first label of Kubernetes-style hosts.
    let mut host_index: std::collections::HashMap<String, Vec<usize>> = Default::default();
    let mut short_index: std::collections::HashMap<String, Vec<usize>> = Default::default();
    for (d, list) in doc_servers.iter().enumerate() {
        for srv in list.iter().filter(|srv| !srv.host.is_empty()) {
            host_index.entry(srv.host.clone()).or_default().push(d);
            let short = srv.host.split('.').next().unwrap_or("").to_string();
            short_index.entry(short).or_default().push(d);
        }
    }
    // Which documents each object binds to, with the base path the proxy sees.
    let mut bindings: Vec<Vec<(usize, String)>> = Vec::with_capacity(objects.len());
    let mut by_host: Vec<bool> = Vec::with_capacity(objects.len());
    // (object, document) -> the gRPC services a `services[].grpc` entry binds there:
    // that spec is the service's HTTP face, so its service-wide entry covers every
    // operation of it.
    let mut grpc_named: std::collections::HashMap<(usize, usize), Vec<String>> = Default::default();
    // Objects a `services[].clients` entry names: the client serves that whole spec.
    let mut by_client: Vec<bool> = Vec::with_capacity(objects.len());
    // Per object: the `services[].spec` (as written) of an entry that names it but
    // that the run does not hold (missing, or left out by `include`/`exclude`).
    let mut service_unread: Vec<Option<&str>> = Vec::with_capacity(objects.len());
    for (oi, o) in objects.iter().enumerate() {
        service_unread.push(None);
        let mut found: Vec<(usize, String)> = Vec::new();
        by_client.push(services.iter().any(|s| {
            s.clients
                .iter()
                .any(|c| o.names.iter().any(|n| n.value == *c))
        }));
        // 1. `.retrylint.yaml` `services:` naming one of the object's names.
        for (i, spec_path) in &canonical_specs {
            let s = &services[*i];
            // Hosts and services name proxies; `clients` (Resilience4j instances, AWS
            // profiles) and `grpc` (gRPC services) name client configs exactly.
            let named = o.names.iter().any(|n| {
                s.names.iter().any(|sn| {
                    names_host(&n.value, &sn.to_ascii_lowercase())
                        || n.value.eq_ignore_ascii_case(sn)
                }) || s.clients.iter().chain(&s.grpc).any(|c| n.value == *c)
            });
            if !named {
                continue;
            }
            if service_unread[oi].is_none()
                && !documents.iter().any(|d| d.doc.file.path == *spec_path)
            {
                service_unread[oi] = Some(&s.spec_text);
            }
            for (d, doc) in documents.iter().enumerate() {
                if doc.doc.file.path == *spec_path {
                    if o.grpc() {
                        grpc_named.entry((oi, d)).or_default().extend(
                            o.names
                                .iter()
                                .filter(|n| s.grpc.contains(&n.value))
                                .map(|n| n.value.clone()),
                        );
                    }
                    let base = s
                        .base_path
                        .clone()
                        .unwrap_or_else(|| default_base(o, &doc_servers[d]));
                    found.push((d, base));
                }
            }
        }
        let mut host_evidence = false;
        // 2. A name equal to a server host of a spec (looked up by host and by
        // Kubernetes short name; a wildcard name is compared with every host).
        if found.is_empty() {
            let mut candidates: Vec<usize> = Vec::new();
            for n in &o.names {
                let name = strip_port(n.value.trim()).to_ascii_lowercase();
                if name.starts_with("*.") {
                    candidates.extend(0..documents.len());
                    break;
                }
                candidates.extend(host_index.get(&name).into_iter().flatten());
                let short = name.split('.').next().unwrap_or("");
                candidates.extend(short_index.get(short).into_iter().flatten());
            }
            candidates.sort_unstable();
            candidates.dedup();
            for d in candidates {
                if let Some(server) = doc_servers[d]
                    .iter()
                    .find(|srv| o.names.iter().any(|n| names_host(&n.value, &srv.host)))
                {
                    found.push((d, server.path.clone()));
                    host_evidence = true;
                }
            }
        }
        // 2b. A client config whose routes name operations (a Resilience4j instance
        // named like an operationId or a tag) binds to the specs holding one.
        if found.is_empty() && names_operations_only(o) {
            for (d, doc) in documents.iter().enumerate() {
                let named = doc.operations.iter().any(|op| {
                    o.routes.iter().any(|r| {
                        r.matches.iter().any(|m| {
                            m.path.names_operation(op.operation_id.as_deref(), &op.tags)
                                == Some(true)
                        })
                    })
                });
                if named {
                    found.push((d, String::new()));
                }
            }
        }
        // 2c. A gRPC service config names RPCs, not hosts: with several specs it
        // binds to each spec that holds one of its RPCs (`layers.md` "Binding" 4).
        if found.is_empty() && o.grpc() && specs_in_run > 1 {
            for (d, doc) in documents.iter().enumerate() {
                if doc.operations.iter().any(|op| names_rpc_of(o, op)) {
                    found.push((d, String::new()));
                }
            }
        }
        bindings.push(found);
        by_host.push(host_evidence);
    }
    // 3. The run holds exactly one spec: an object with no binding takes it, unless
    // its names are hosts and another object of its file bound by host (then it
    // serves another API: case README Q1).
    // Per object: the host it names that kept it from the lone spec (RL016 names it).
    let mut lone_skipped: Vec<Option<String>> = vec![None; objects.len()];
    // Per object kept for that reason by the spec's paths: the hosts whose routes list
    // them (empty otherwise).
    let mut lone_served_by: Vec<Vec<String>> = vec![Vec::new(); objects.len()];
    // The objects that took the lone spec in this step.
    let mut took_lone: Vec<usize> = Vec::new();
    if specs_in_run == 1 && documents.len() == 1 {
        for (i, o) in objects.iter().enumerate() {
            if !bindings[i].is_empty() {
                continue;
            }
            // A client in code that no call was seen through may serve another API
            // (a tenacity decorator around an SDK call): it binds by its calls, a
            // host, or `services[].clients`, never by being alone with one spec.
            if o.platform.is_code() && o.routes.iter().all(|r| r.matches.is_empty()) {
                continue;
            }
            // AWS profiles are alternatives a client picks, not layers.
            if !super::aws::takes_the_only_spec(i, objects, |j| !bindings[j].is_empty()) {
                continue;
            }
            let sibling_bound_by_host = objects.iter().enumerate().any(|(j, other)| {
                j != i
                    && by_host[j]
                    && other.at.doc.file.path.as_os_str() == o.at.doc.file.path.as_os_str()
            });
            // A wildcard of a real domain (`*.example.org`, a Spring Cloud Gateway
            // `Host=**.example.org`) names another API as much as a host does.
            let has_real_hosts = o.names.iter().any(|n| {
                let v = n.value.as_str();
                match v.strip_prefix("*.") {
                    Some(suffix) => suffix.contains('.') && !suffix.ends_with(".local"),
                    None => v.contains('.') && !v.starts_with('*'),
                }
            });
            if sibling_bound_by_host && has_real_hosts {
                continue;
            }
            // Exact binding: a route or client that names a host explicitly reaches
            // that host; being alone with one spec does not make it this API's.
            if let Some(other) = names_another_host(o, &doc_servers[0]) {
                lone_skipped[i] = Some(other);
                continue;
            }
            let base = doc_servers[0]
                .first()
                .map(|s| s.path.clone())
                .unwrap_or_default();
            // A route table usually sees the spec's paths as written; the server's
            // path prefix only when some route mentions it.
            let base = if base.is_empty() || mentions_prefix(o, &base) {
                base
            } else {
                String::new()
            };
            bindings[i].push((0, base));
            took_lone.push(i);
        }
        lone_spec_served_by_its_paths(
            objects,
            &documents[0],
            &doc_servers[0],
            &took_lone,
            &mut bindings,
            &mut lone_skipped,
            &mut lone_served_by,
        );
    }

    // A client in code mounted on URL prefixes (`session.mount("https://", ...)`)
    // serves no document whose servers are all elsewhere (`http://...`): requests
    // sends those through its default adapter, which retries nothing. Nothing to
    // bind then, and nothing unbound to report either (case 98).
    let mut outside_prefixes: Vec<bool> = vec![false; objects.len()];
    for (i, o) in objects.iter().enumerate() {
        if o.url_prefixes.is_empty() || bindings[i].is_empty() {
            continue;
        }
        bindings[i].retain(|(d, _)| prefixes_reach(&o.url_prefixes, &doc_servers[*d]));
        outside_prefixes[i] = bindings[i].is_empty();
    }

    // Entries: for each bound (object, document), each operation takes the first
    // route that may match it. Objects of one file, layer and platform share a
    // synthetic policy per document; the first object that matches an operation wins.
    // (config file, layer depth, platform, document) -> (first object, hits as
    // (object, route, operation)).
    // Retry clients in code are alternatives (each call goes through one of them):
    // an operation takes the entry of the first client that calls it, so two
    // services' clients of one API never count as layers that multiply. A call that
    // goes through two clients (a decorator around a call of a retrying session)
    // makes both stack, each its own layer.
    let stacked = stacked_code_clients(objects);
    let variants = overlay_copies(objects, variants_of(objects, &stacked_callers(objects)));
    // Operations a retrying client in code calls by path: a call whose URL is
    // unknown, or one that is not retried, takes only the others.
    let mut called_by_path: std::collections::HashSet<(usize, usize)> = Default::default();
    let mut vague_taken: std::collections::HashSet<(usize, usize)> = Default::default();
    type Key = PolicyKey;
    // Hits of calls whose URL is unknown, as (key, object, route, operation).
    let mut vague: Vec<(Key, usize, usize, usize)> = Vec::new();
    let mut grouped: BTreeMap<Key, Hits> = BTreeMap::new();
    let mut path_cache: std::collections::HashMap<(usize, String), Vec<Vec<String>>> =
        std::collections::HashMap::new();
    // Per object and route: true when the route took an operation (RL209 judges the
    // others).
    let mut route_bound: Vec<Vec<bool>> = objects
        .iter()
        .map(|o| vec![false; o.routes.len()])
        .collect();
    let route_hosts: Vec<Vec<Option<String>>> = objects.iter().map(call_hosts).collect();
    // Per (object, document, operation) of a client in code: its other retried calls
    // of the operation by path, beside the one its entry takes (labelled like it).
    let mut also_calls: std::collections::HashMap<(usize, usize, usize), Vec<usize>> =
        Default::default();
    // Each document's operations as shown (`METHOD /path`), formatted once: not
    // once per route that takes them (100,000 times for 5,000 routes).
    let mut shown: Vec<Option<Vec<String>>> = vec![None; documents.len()];
    for (i, o) in objects.iter().enumerate() {
        // The table's path expressions are compiled while it is bound, one table at a
        // time ([`super::route::PathRegex`]).
        let _release = ReleaseCompiled(o);
        if bindings[i].is_empty() {
            if retries_or_hedges(o) && !outside_prefixes[i] {
                out.diagnostics.push(match &lone_skipped[i] {
                    Some(host) => names_other_host(
                        o,
                        host,
                        &documents[0],
                        &doc_servers[0],
                        &lone_served_by[i],
                    ),
                    None => match service_unread[i] {
                        Some(spec) => unbound_service_unread(o, spec),
                        None => unbound(o, listed()),
                    },
                });
            }
            continue;
        }
        let mut any = false;
        for (d, base) in &bindings[i] {
            // The paths the proxy may see for each operation, without a rewrite: the
            // same for every object bound to this document and base path.
            let matching = documents[*d].path_matching;
            let seen = path_cache.entry((*d, base.clone())).or_insert_with(|| {
                documents[*d]
                    .operations
                    .iter()
                    .map(|op| {
                        let mut paths = super::route::proxy_paths(&op.path, base, None);
                        if matching.trailing_slash_optional {
                            paths.extend(slash_toggled(&paths));
                        }
                        paths
                    })
                    .collect()
            });
            let reaches = |m: &super::RequestMatch, method: &str, paths: &[String]| {
                if matching.any_case {
                    m.methods
                        .as_ref()
                        .is_none_or(|ms| ms.iter().any(|x| x.eq_ignore_ascii_case(method)))
                        && paths.iter().any(|p| m.path.matches_any_case(p))
                } else {
                    m.may_match_paths(method, paths)
                }
            };
            // Calls of a client in code that this document's host does not serve.
            let placed: Vec<bool> = route_hosts[i]
                .iter()
                .map(|h| {
                    !by_host[i]
                        || !o.platform.is_code()
                        || reaches_host(o, h.as_deref(), &doc_servers[*d])
                })
                .collect();
            // One synthetic policy per key; the key depends on the object and the
            // document only, so it is built and looked up once for all their hits
            // (built per hit, its map look-up was 40% of binding 5,000 routes).
            let key = key_of(o, i, *d, &variants[i], stacked[i]);
            let mut hits_here: Vec<(usize, usize, usize)> = Vec::new();
            for (k, op) in documents[*d].operations.iter().enumerate() {
                let method = op.method.to_ascii_uppercase();
                // A client named in `services[].clients` whose routes name operations
                // (a Resilience4j instance matched by operationId or tag) serves every
                // operation of the spec it is bound to.
                let named_services = grpc_named.get(&(i, *d));
                let takes = |ri: usize, r: &super::Route| {
                    placed[ri]
                        && (r.matches.is_empty()
                            || named_services.is_some_and(|svcs| {
                                super::grpc::service_wide(r)
                                    .is_some_and(|svc| svcs.iter().any(|x| x == svc))
                            })
                            || r.matches.iter().any(|m| {
                                let method_ok = m.methods.as_ref().is_none_or(|ms| {
                                    ms.iter().any(|x| x.eq_ignore_ascii_case(&method))
                                });
                                match (
                                    m.path.names_operation(op.operation_id.as_deref(), &op.tags),
                                    &r.rewrite,
                                ) {
                                    (Some(named), _) => named && method_ok,
                                    (None, None) => reaches(m, &method, &seen[k]),
                                    (None, Some(rw)) => {
                                        m.may_match(&method, &op.path, base, Some(rw))
                                    }
                                }
                            }))
                };
                let hit = if by_client[i] && names_operations_only(o) {
                    Some(0)
                } else if o.platform.is_code() {
                    // A client in code: its calls are alternatives, the first retried
                    // call by path is the one judged (the worst), else the first.
                    let mut taking = o
                        .routes
                        .iter()
                        .enumerate()
                        .filter(|(ri, r)| takes(*ri, r))
                        .map(|(ri, _)| ri)
                        .peekable();
                    let first = taking.peek().copied();
                    taking.find(|&ri| retried_by_path(&o.routes[ri])).or(first)
                } else {
                    o.routes.iter().enumerate().position(|(ri, r)| takes(ri, r))
                };
                if let Some(r) = hit {
                    any = true;
                    if by_client[i] && names_operations_only(o) {
                        // The client serves the whole spec: every route of it.
                        route_bound[i].iter_mut().for_each(|b| *b = true);
                    } else {
                        route_bound[i][r] = true;
                        if o.platform.is_code() {
                            // Every call of a client in code reaches the operations its
                            // URL matches: a second call of the same operation (two
                            // `s.post(".../charges")`) is bound like the first, not
                            // left to RL209 as a call no operation matches; each other
                            // retried call by path is labelled on its findings too.
                            // (A proxy's later route that an earlier one shadows sees
                            // no request.)
                            for (ri, other) in o.routes.iter().enumerate() {
                                if ri != r && takes(ri, other) {
                                    route_bound[i][ri] = true;
                                    if retried_by_path(other) {
                                        also_calls.entry((i, *d, k)).or_default().push(ri);
                                    }
                                }
                            }
                        }
                    }
                    let names = shown[*d].get_or_insert_with(|| {
                        documents[*d]
                            .operations
                            .iter()
                            .map(|op| op.display())
                            .collect()
                    });
                    out.operations[i].push((documents[*d].doc.file.clone(), names[k].clone()));
                    if o.platform.is_code() && !stacked[i] {
                        // A call whose URL is unknown may reach any operation, and a
                        // call that is not retried is the safe alternative: either
                        // takes an operation only when no retrying client calls it
                        // by its path (the worst alternative is the one judged).
                        if !retried_by_path(&o.routes[r]) {
                            vague.push((key.clone(), i, r, k));
                            continue;
                        }
                        called_by_path.insert((*d, k));
                    }
                    hits_here.push((i, r, k));
                }
            }
            if !hits_here.is_empty() {
                let entry = grouped.entry(key).or_insert((i, Vec::new()));
                for (i, r, k) in hits_here {
                    if !entry.1.iter().any(|(_, _, kk)| *kk == k) {
                        entry.1.push((i, r, k));
                    }
                }
            }
        }
        if !any && retries_or_hedges(o) {
            // Routes that name operations (an operationId, a tag) found none: the
            // reason is the name, not the paths.
            if names_operations_only(o) {
                out.diagnostics.push(unbound(o, listed()));
            } else {
                let specs: Vec<&Document> =
                    bindings[i].iter().map(|(d, _)| &documents[*d]).collect();
                out.diagnostics.push(unmatched(o, &specs, &bindings[i]));
            }
        }
    }
    for (key, i, r, k) in vague {
        if !called_by_path.contains(&(key.3, k)) && vague_taken.insert((key.3, k)) {
            let entry = grouped.entry(key).or_insert((i, Vec::new()));
            if !entry.1.iter().any(|(_, _, kk)| *kk == k) {
                entry.1.push((i, r, k));
            }
        }
    }
    profile_fallback(&mut grouped);
    for ((_, _, _, d, _, variant), (first, hits)) in grouped {
        let head = &objects[first];
        let mut used_routes: Vec<(usize, usize)> = Vec::new();
        let operations: Vec<OperationEntry> = hits
            .iter()
            .map(|&(i, r, k)| {
                if !used_routes.contains(&(i, r)) {
                    used_routes.push((i, r));
                }
                let op = &documents[d].operations[k];
                let route = &objects[i].routes[r];
                let mut entry = entry_for(op, route);
                scope_by_method(&mut entry, &objects[i].method_scoped, &op.method);
                if objects[i].grpc() {
                    // The RPC's own semantics: its effect and AIP-155 key.
                    super::grpc::operation_semantics(&mut entry.settings, route, op, ctx.protos);
                } else if documents[d]
                    .doc
                    .file
                    .path
                    .extension()
                    .is_some_and(|e| e == "proto")
                {
                    // An RPC read as an operation from its `.proto` alone: the same,
                    // whatever platform retries it.
                    super::grpc::semantics_of(&mut entry.settings, "", &op.at, op, ctx.protos);
                }
                entry
            })
            .collect();
        for (i, r) in used_routes {
            out.notes.extend(objects[i].routes[r].notes.iter().cloned());
        }
        let also_called: Vec<(String, crate::source::refs::At)> = hits
            .iter()
            .zip(&operations)
            .flat_map(|(&(i, _, k), entry)| {
                also_calls
                    .get(&(i, d, k))
                    .into_iter()
                    .flatten()
                    .map(move |&ri| (entry.text.clone(), objects[i].routes[ri].at.clone()))
            })
            .collect();
        out.policies.push(PolicyFile {
            doc: head.at.doc.clone(),
            at: head.at.clone(),
            version: None,
            spec: Vec::new(),
            layer: Some(Spanned {
                value: head.layer,
                at: head.at.clone(),
            }),
            defaults: None,
            operations,
            ignore: Vec::new(),
            imported: Some(ImportedFrom {
                source: {
                    let mut names: Vec<&str> = Vec::new();
                    for &(i, _, _) in &hits {
                        if !names.contains(&objects[i].name.as_str()) {
                            names.push(&objects[i].name);
                        }
                    }
                    // Name up to three objects: the one that governs a given
                    // operation is then usually in view (`layers` shows this label).
                    const SHOWN: usize = 3;
                    let more = match names.len() {
                        n if n > SHOWN => format!(" (and {} more)", n - SHOWN),
                        _ => String::new(),
                    };
                    let shown = if names.is_empty() {
                        head.name.clone()
                    } else {
                        names[..names.len().min(SHOWN)].join(", ")
                    };
                    format!(
                        "{} {} {shown}{more}",
                        head.platform.display_name(),
                        head.kind,
                    )
                },
                platform: head.platform,
                governs: vec![documents[d].doc.file.path.clone()],
                grpc: head.grpc(),
                variant,
                also_called,
            }),
        });
    }
    // RL209: routes that bound nothing and may resend a write; the help says how
    // to bind the object, or what the spec it serves lacks.
    let how_to_bind = |i: usize, r: usize| -> String {
        if by_host[i]
            && objects[i].platform.is_code()
            && route_hosts[i][r].is_none()
            && !reaches_host(&objects[i], None, &[])
        {
            return "its URL names no host retrylint can read (built at run time, data), so it may reach any service: no operation of this run is bound to it".to_string();
        }
        if let Some((d, _)) = bindings[i].first() {
            return format!(
                "it serves `{}`, but no operation there matches this {}: add the operations it carries to that spec{}, so that each is judged (RL201 then replaces this finding)",
                documents[*d].doc.file.display,
                if objects[i].platform.is_code() { "call" } else { "route" },
                if objects[i].platform.is_code() {
                    ""
                } else {
                    " (or, if the proxy sees a prefix the spec does not write, a `base_path` in its `.retrylint.yaml` `services:` entry)"
                }
            );
        }
        let (field, name) = binding_name(&objects[i]);
        let spec = listed()
            .first()
            .map_or("path/to/openapi.yaml", |d| d.display);
        format!(
            "bind the spec of the API it serves in `.retrylint.yaml`, so that each operation it reaches is judged (RL201 then replaces this finding):\n  services:\n    - spec: {spec}\n      {field}: [{name}]"
        )
    };
    for (i, o) in objects.iter().enumerate() {
        if !bindings[i].is_empty() {
            continue;
        }
        // A client config that names no call (a Resilience4j instance, an AWS
        // profile, a gRPC service config, a pipeline no HTTP call was seen through)
        // says nothing of which requests it carries; a client in code counts by the
        // calls it was seen making, a proxy or mesh route by its match.
        let judged = |r: &super::Route| {
            if o.platform.is_code() {
                !r.matches.is_empty()
            } else {
                o.layer != crate::policy::model::Layer::Client
            }
        };
        let mut source: Option<Arc<str>> = None;
        for route in o
            .routes
            .iter()
            .filter(|r| r.settings.retry.as_ref().is_some_and(|s| s.value) && judged(r))
        {
            let source = source.get_or_insert_with(|| {
                format!("{} {} {}", o.platform.display_name(), o.kind, o.name).into()
            });
            out.unbound_routes.push(UnboundRoute {
                layer: o.layer,
                source: source.clone(),
                at: route.at.clone(),
                matches: route.matches.clone(),
            });
        }
    }
    rl209_route_may_resend_write::findings(
        objects,
        &route_bound,
        &how_to_bind,
        &mut out.diagnostics,
    );
    mesh_services(&mut out, documents, services, &canonical_specs, ctx);
    // Inline `x-linkerd-*` extensions: bound to the operation that carries them.
    let ext = super::linkerd::openapi_ext::read(documents, &out.policies);
    out.policies.extend(ext.policies);
    out.notes.extend(ext.notes);
    out.diagnostics.extend(ext.diagnostics);
    out
}

/// `services[].mesh: istio` with no Istio route table bound to the spec: the service
/// still runs behind an Istio sidecar, so Istio's implicit default retry policy
/// applies to every operation (`layers.md` "Binding a config to operations" 1),
/// located at the entry's `mesh` node.
/// Drops the compiled path expressions of a route table when it goes out of scope.
struct ReleaseCompiled<'a>(&'a ConfigObject);

impl Drop for ReleaseCompiled<'_> {
    fn drop(&mut self) {
        self.0.release_compiled();
    }
}

fn mesh_services(
    out: &mut Bound,
    documents: &[Document],
    services: &[ServiceBinding],
    canonical_specs: &[(usize, PathBuf)],
    ctx: &super::ImportContext<'_>,
) {
    for (i, spec_path) in canonical_specs {
        let s = &services[*i];
        let (Some(mesh), Some(at)) = (&s.mesh, &s.mesh_at) else {
            continue;
        };
        if !mesh.eq_ignore_ascii_case("istio") {
            continue;
        }
        for doc in documents
            .iter()
            .filter(|doc| doc.doc.file.path == *spec_path)
        {
            let covered = out.policies.iter().any(|p| {
                p.layer
                    .as_ref()
                    .is_some_and(|l| l.value == crate::policy::model::Layer::Mesh)
                    && p.imported.as_ref().is_some_and(|imp| {
                        imp.source
                            .starts_with(super::Platform::Istio.display_name())
                            && imp.governs.contains(&doc.doc.file.path)
                    })
            });
            if covered {
                continue;
            }
            let (settings, notes, rl314) = super::istio::implicit_default_settings(at, ctx);
            let operations: Vec<OperationEntry> = doc
                .operations
                .iter()
                .map(|op| {
                    let text = op.display();
                    OperationEntry {
                        selector: Selector::parse(&text).ok(),
                        text,
                        at: at.clone(),
                        settings: settings.clone(),
                    }
                })
                .collect();
            if let Some(d314) = rl314 {
                out.diagnostics.push(
                    d314.with_operations_in(
                        doc.operations
                            .iter()
                            .map(|op| (Some(doc.doc.file.clone()), op.display())),
                    ),
                );
            }
            out.notes.extend(notes);
            out.policies.push(PolicyFile {
                doc: at.doc.clone(),
                at: at.clone(),
                version: None,
                spec: Vec::new(),
                layer: Some(Spanned {
                    value: crate::policy::model::Layer::Mesh,
                    at: at.clone(),
                }),
                defaults: None,
                operations,
                ignore: Vec::new(),
                imported: Some(ImportedFrom {
                    source: format!(
                        "Istio default for `{}` (services[].mesh: istio)",
                        s.spec_text
                    ),
                    platform: crate::policy::platform::Platform::Istio,
                    governs: vec![doc.doc.file.path.clone()],
                    grpc: false,
                    variant: None,
                    also_called: Vec::new(),
                }),
            });
        }
    }
}

/// Which objects form one layer: the Kubernetes resources of one platform are one
/// control plane's configuration (Istio merges the VirtualServices of a host; Gateway
/// API, Envoy Gateway, Linkerd and ingress-nginx objects program one proxy fleet), so
/// they are one layer whatever file holds them; a file-configured proxy (Envoy,
/// NGINX, HAProxy, Traefik, Kong) is one layer per file, since two files are
/// usually two proxies in sequence (`layers.md` "Layer identity and order").
fn source_key(o: &ConfigObject) -> std::ffi::OsString {
    use super::Platform as P;
    match o.platform {
        P::Istio | P::GatewayApi | P::EnvoyGateway | P::Linkerd | P::IngressNginx => {
            std::ffi::OsString::new()
        }
        // Client configs are read by the program that ships them: one layer per file.
        P::Envoy
        | P::Nginx
        | P::Haproxy
        | P::Traefik
        | P::Kong
        | P::Grpc
        | P::Resilience4j
        | P::SpringCloudGateway
        | P::AwsSdk => o.at.doc.file.path.as_os_str().to_owned(),
        // A client built in code: one layer per file that builds it.
        _ => o.at.doc.file.path.as_os_str().to_owned(),
    }
}

/// Which synthetic policy a hit goes to: (layer source, layer depth, platform,
/// document, the object for a caller in code, the variant).
type PolicyKey = (
    std::ffi::OsString,
    u8,
    super::Platform,
    usize,
    Option<usize>,
    Option<Variant>,
);

/// The hits of one synthetic policy: its first object, and (object, route,
/// operation) per operation.
type Hits = (usize, Vec<(usize, usize, usize)>);

/// The group of the retry clients in code: every caller of an API is an
/// alternative to the others (`layers.md` item 6).
pub const CLIENT_GROUP: &str = "client";

/// The label of a Spring application's base variant (no profile active).
pub const DEFAULT_PROFILE: &str = "default profile";

/// The variant each object is, if any: the importer's (a Spring profile, an Istio
/// entry path), else, for a retry client in code, ``client `FILE` `` (with the
/// client's name when its file holds several; the clients of a file that one call
/// goes through together share one variant, so they stack on its path).
fn variants_of(objects: &[ConfigObject], stacked: &[Option<String>]) -> Vec<Option<Variant>> {
    let mut per_file: std::collections::HashMap<&std::path::Path, usize> = Default::default();
    for (o, _) in objects
        .iter()
        .zip(stacked)
        .filter(|(o, s)| o.platform.is_code() && s.is_none())
    {
        *per_file.entry(o.at.doc.file.path.as_path()).or_default() += 1;
    }
    objects
        .iter()
        .zip(stacked)
        .map(|(o, s)| {
            if o.variant.is_some() || !o.platform.is_code() {
                return o.variant.clone();
            }
            let file = &o.at.doc.file.display;
            let label = if let Some(call) = s {
                // Clients one call goes through together (a decorator around a call
                // of a retrying session) are one caller, named by the call's file:
                // one variant, stacked layers.
                format!("client `{call}` (calls through several clients)")
            } else if per_file.get(o.at.doc.file.path.as_path()).copied() > Some(1) {
                format!("client `{file}` ({} {})", o.kind, o.name)
            } else {
                format!("client `{file}`")
            };
            Some(Variant {
                group: CLIENT_GROUP.to_string(),
                label,
            })
        })
        .collect()
}

/// Overlay copies of one Kubernetes object (`layers.md` item 6: `kustomize/overlays/*`,
/// `release/`): objects of one control-plane platform with the same kind and name
/// in different files are never applied together (a cluster holds one object of a
/// kind and name per namespace), so each is a variant of its own, ``overlay
/// `release/vs.yaml` ``, judged on its own and never hiding the other (before, the
/// first file's routes took every operation and the copy was dropped: `import` of it
/// said "nothing imported"). An object that already is a variant (an Istio entry
/// path) keeps its group and gets the copy in its label, so the copies of one entry
/// path are alternatives too.
fn overlay_copies(
    objects: &[ConfigObject],
    mut variants: Vec<Option<Variant>>,
) -> Vec<Option<Variant>> {
    use super::Platform as P;
    let mut files: std::collections::HashMap<(P, &str, &str), Vec<&std::path::Path>> =
        Default::default();
    for o in objects.iter().filter(|o| {
        matches!(
            o.platform,
            P::Istio | P::GatewayApi | P::EnvoyGateway | P::Linkerd | P::IngressNginx
        )
    }) {
        let list = files
            .entry((o.platform, o.kind.as_str(), o.name.as_str()))
            .or_default();
        let path = o.at.doc.file.path.as_path();
        if !list.contains(&path) {
            list.push(path);
        }
    }
    for (o, v) in objects.iter().zip(variants.iter_mut()) {
        let copies = files
            .get(&(o.platform, o.kind.as_str(), o.name.as_str()))
            .map_or(0, Vec::len);
        if copies < 2 {
            continue;
        }
        let copy = format!("overlay `{}`", o.at.doc.file.display);
        *v = Some(match v.take() {
            Some(mut variant) => {
                variant.label = format!("{} ({copy})", variant.label);
                variant
            }
            None => Variant {
                group: format!(
                    "overlays of {} {} {}",
                    o.platform.display_name(),
                    o.kind,
                    o.name
                ),
                label: copy,
            },
        });
    }
    variants
}

/// The synthetic policy an object's hits go to: per layer source (see
/// [`source_key`]), depth, platform and document, and per variant; a retry client
/// in code that is a variant is a policy of its own (two clients of one file are two
/// callers), and the profiles of one Spring application share the keys of their
/// group, whatever file holds them.
fn key_of(
    o: &ConfigObject,
    i: usize,
    d: usize,
    variant: &Option<Variant>,
    stacked: bool,
) -> PolicyKey {
    let own = (o.platform.is_code() && !stacked).then_some(i);
    let source = match variant {
        Some(v) if is_spring(o.platform) => v.group.clone().into(),
        _ => source_key(o),
    };
    (source, o.layer.depth(), o.platform, d, own, variant.clone())
}

/// Platforms read from Spring property files, whose profiles are variants.
fn is_spring(p: super::Platform) -> bool {
    matches!(
        p,
        super::Platform::Resilience4j | super::Platform::SpringCloudGateway
    )
}

/// A Spring profile merges over the application's base documents: an operation the
/// profile's own tables do not match takes the base table that matches it (first
/// match), so each profile variant is the whole application under that profile.
fn profile_fallback(grouped: &mut BTreeMap<PolicyKey, Hits>) {
    let bases: Vec<_> = grouped
        .iter()
        .filter(|(k, _)| is_spring(k.2) && k.5.as_ref().is_some_and(|v| v.label == DEFAULT_PROFILE))
        .map(|(k, (_, hits))| (k.clone(), hits.clone()))
        .collect();
    for (base, base_hits) in bases {
        for (k, (_, hits)) in grouped.iter_mut() {
            let same_group = (&k.0, k.1, k.2, k.3, k.4)
                == (&base.0, base.1, base.2, base.3, base.4)
                && k.5.as_ref().map(|v| &v.group) == base.5.as_ref().map(|v| &v.group);
            if !same_group || *k == base {
                continue;
            }
            for &hit in &base_hits {
                if !hits.iter().any(|(_, _, kk)| *kk == hit.2) {
                    hits.push(hit);
                }
            }
        }
    }
}

/// For each object: true when it is a retry client in code one of whose calls is
/// also a call of another client in code (the call goes through both: they stack
/// as layers).
fn stacked_code_clients(objects: &[ConfigObject]) -> Vec<bool> {
    stacked_callers(objects)
        .iter()
        .map(Option::is_some)
        .collect()
}

/// For each retry client in code that stacks with another on a call: the file of the
/// first such call (in file and position order), which names the caller they form
/// together, wherever each client is built.
fn stacked_at(
    objects: &[ConfigObject],
    by_call: &std::collections::HashMap<Call, Vec<usize>>,
) -> Vec<Option<String>> {
    let mut shared: Vec<(&Call, &Vec<usize>)> =
        by_call.iter().filter(|(_, u)| u.len() > 1).collect();
    shared.sort_by(|a, b| a.0.cmp(b.0));
    let mut out: Vec<Option<String>> = vec![None; objects.len()];
    for ((path, _, _), users) in shared {
        let file = users
            .iter()
            .flat_map(|&i| objects[i].routes.iter())
            .map(|r| &r.at.doc.file)
            .find(|f| &f.path == path)
            .map_or_else(|| path.display().to_string(), |f| f.display.clone());
        for &i in users {
            out[i].get_or_insert_with(|| file.clone());
        }
    }
    out
}

/// A call in code: its file and span.
type Call = (std::path::PathBuf, usize, usize);

/// [`stacked_at`] of every object.
fn stacked_callers(objects: &[ConfigObject]) -> Vec<Option<String>> {
    let mut by_call: std::collections::HashMap<Call, Vec<usize>> = std::collections::HashMap::new();
    for (i, o) in objects
        .iter()
        .enumerate()
        .filter(|(_, o)| o.platform.is_code())
    {
        for r in o.routes.iter().filter(|r| !r.matches.is_empty()) {
            let loc = r.at.location();
            let users = by_call
                .entry((loc.file.path.clone(), loc.span.start, loc.span.end))
                .or_default();
            if !users.contains(&i) {
                users.push(i);
            }
        }
    }
    stacked_at(objects, &by_call)
}

/// True when every route of `o` names operations (operationId, tag) rather than
/// paths, and it has some.
/// Per route of a client in code: the host its call names (the object's name
/// recorded at the call, `lower::lower`), `None` for a call of no known host and for
/// every route of other configs.
fn call_hosts(o: &ConfigObject) -> Vec<Option<String>> {
    if !o.platform.is_code() {
        return vec![None; o.routes.len()];
    }
    o.routes
        .iter()
        .map(|r| {
            let at = r.at.location();
            o.names
                .iter()
                .find(|n| {
                    let l = n.at.location();
                    l.span == at.span && l.file.path == at.file.path
                })
                .map(|n| n.value.to_ascii_lowercase())
        })
        .collect()
}

/// True when a call naming `host` may reach a document served at `servers`, for a
/// client in code bound by host (exact binding: a call reaches the service its URL names,
/// whatever other hosts the client's other calls name). A call of no known host
/// reaches the documents its client is bound to, unless the client is the
/// factory-wide default of every `HttpClient` (`HttpClient:*`,
/// `ConfigureHttpClientDefaults`): that stands for many clients, and a call through
/// one with a URL of no known host (a webhook sender's subscriber URL, data) may
/// reach any service, so it is placed nowhere (RL209 judges it).
fn reaches_host(o: &ConfigObject, host: Option<&str>, servers: &[Server]) -> bool {
    match host {
        Some(h) => servers.iter().any(|s| names_host(h, &s.host)),
        None => !o.names.iter().any(|n| n.value.ends_with('*')),
    }
}

/// Each path with its trailing `/` toggled (`/x` -> `/x/`, `/x/` -> `/x`; the root
/// stays): the paths a server that ignores a trailing slash also answers.
fn slash_toggled(paths: &[String]) -> Vec<String> {
    paths
        .iter()
        .filter(|p| p.len() > 1)
        .map(|p| match p.strip_suffix('/') {
            Some(bare) => bare.to_string(),
            None => format!("{p}/"),
        })
        .collect()
}

fn names_operations_only(o: &ConfigObject) -> bool {
    !o.routes.is_empty()
        && o.routes.iter().all(|r| {
            !r.matches.is_empty()
                && r.matches
                    .iter()
                    .all(|m| m.path.names_operation(None, &[]).is_some())
        })
}

/// The prefix the proxy sees before a spec's paths when `services:` does not give a
/// `base_path`: the path of the server whose host the object names, else the first
/// server's path when some route mentions it, else none.
fn default_base(o: &ConfigObject, servers: &[Server]) -> String {
    if let Some(srv) = servers
        .iter()
        .find(|srv| o.names.iter().any(|n| names_host(&n.value, &srv.host)))
    {
        return srv.path.clone();
    }
    match servers.first() {
        Some(srv) if !srv.path.is_empty() && mentions_prefix(o, &srv.path) => srv.path.clone(),
        _ => String::new(),
    }
}

fn mentions_prefix(o: &ConfigObject, base: &str) -> bool {
    o.routes.iter().any(|r| {
        r.matches.iter().any(|m| match &m.path {
            super::PathMatch::Exact(p)
            | super::PathMatch::Prefix(p)
            | super::PathMatch::SegmentPrefix(p)
            | super::PathMatch::Template(p) => p.starts_with(base),
            super::PathMatch::Regex(re) => re.as_str().contains(base),
            super::PathMatch::Any | super::PathMatch::OperationId(_) | super::PathMatch::Tag(_) => {
                false
            }
        })
    })
}

/// True when a route of the gRPC object `o` names `op` itself (its native path, an
/// operationId or tag protoc-gen-openapiv2 writes, a `google.api.http` rule), not as
/// the default entry that matches everything.
fn names_rpc_of(o: &ConfigObject, op: &Operation) -> bool {
    let method = op.method.to_ascii_uppercase();
    o.routes.iter().any(|r| {
        let id_names_it = |m: &super::RequestMatch| {
            matches!(m.path, super::PathMatch::OperationId(_))
                && m.path.names_operation(op.operation_id.as_deref(), &op.tags) == Some(true)
        };
        r.matches.iter().any(|m| {
            let method_ok = m
                .methods
                .as_ref()
                .is_none_or(|ms| ms.iter().any(|x| x.eq_ignore_ascii_case(&method)));
            match m.path.names_operation(op.operation_id.as_deref(), &op.tags) {
                Some(named) => named && method_ok,
                // An HTTP rule's path is weaker evidence than a name: another API
                // may have the same shape (`/v1/{name}:get`); an operationId that
                // names another RPC outweighs it.
                None if matches!(m.path, super::PathMatch::Regex(_)) => {
                    (op.operation_id.is_none() || r.matches.iter().any(id_names_it))
                        && m.may_match(&method, &op.path, "", None)
                }
                None => m.may_match(&method, &op.path, "", None),
            }
        })
    })
}

/// True when some route of `o` retries or hedges: an object that does neither and
/// binds nothing needs no finding.
fn retries_or_hedges(o: &ConfigObject) -> bool {
    o.routes.iter().any(|r| {
        r.settings.retry.as_ref().is_some_and(|v| v.value)
            || r.settings
                .hedging
                .as_ref()
                .is_some_and(|h| h.value.sends_copies())
    })
}

/// Drops from `entry`'s `retry_on` the signals `scoped` limits to methods other
/// than `method` (a signal listed by several groups stays when one of them holds
/// `method`); an entry left with no signal does not retry.
fn scope_by_method(
    entry: &mut OperationEntry,
    scoped: &[(Vec<crate::policy::model::Signal>, Vec<String>)],
    method: &str,
) {
    if scoped.is_empty() {
        return;
    }
    let Some(on) = entry.settings.retry_on.as_mut() else {
        return;
    };
    let left_out = |s: &crate::policy::model::Signal| {
        let mut groups = scoped.iter().filter(|(g, _)| g.contains(s)).peekable();
        groups.peek().is_some()
            && !groups.any(|(_, ms)| ms.iter().any(|m| m.eq_ignore_ascii_case(method)))
    };
    let before = on.value.len();
    on.value.retain(|s| !left_out(&s.value));
    if before > 0 && on.value.is_empty() {
        if let Some(r) = entry.settings.retry.as_mut() {
            r.value = false;
        }
    }
}

/// A call of a client in code that is retried and names its path (not a URL
/// unknown until run time): it calls the operations it matches, where a call that
/// is not retried, or whose URL is unknown, is only an alternative.
fn retried_by_path(route: &super::Route) -> bool {
    route.settings.retry.as_ref().is_some_and(|v| v.value)
        && !route
            .matches
            .iter()
            .all(|m| matches!(m.path, super::PathMatch::Any))
}

fn entry_for(op: &Operation, route: &super::Route) -> OperationEntry {
    let text = format!("{} {}", op.method.to_ascii_uppercase(), op.path);
    OperationEntry {
        selector: Selector::parse(&text).ok(),
        text,
        at: route.at.clone(),
        settings: route.settings.clone(),
    }
}

/// RL016 for an object bound to specs whose routes match none of their operations:
/// the API is right but the paths (or methods) are not, usually a prefix the proxy
/// sees before the spec's paths.
fn unmatched(o: &ConfigObject, specs: &[&Document], bases: &[(usize, String)]) -> Diagnostic {
    let at = o.names.first().map_or(&o.at, |n| &n.at);
    let what = format!("{} {} `{}`", o.platform.display_name(), o.kind, o.name);
    let shown: Vec<String> = specs
        .iter()
        .map(|d| format!("`{}`", d.doc.file.display))
        .collect();
    let base = bases
        .iter()
        .find(|(_, b)| !b.is_empty())
        .map(|(_, b)| format!(" (seen behind the base path `{b}`)"))
        .unwrap_or_default();
    let why = format!(
        "it serves {}, but none of its routes matches an operation there{base}",
        shown.join(", ")
    );
    let spec = specs
        .first()
        .map_or("path/to/openapi.yaml".to_string(), |d| {
            d.doc.file.display.clone()
        });
    let help = format!(
        "compare its route matches (paths, methods, rewrites) with the spec's paths; if the proxy sees a prefix the spec does not write, give it in `.retrylint.yaml`:\n  services:\n    - spec: {spec}\n      base_path: /prefix\nor exclude the file with `exclude:` if these routes serve another API"
    );
    rl016_unbound_config::diagnostic(at, &what, &why, help)
}

/// The host `o` names explicitly that keeps it from the run's only spec, with
/// `servers` that spec's: when the spec has hosts, a named host that is none of
/// them (step 2 would have bound it otherwise); when it has none, for a proxy route
/// whose hosts are all outside any cluster, the first (`www.googleapis.com` is not
/// the service a spec without a host describes). `None`: the fallback applies.
fn names_another_host(o: &ConfigObject, servers: &[Server]) -> Option<String> {
    let named = super::named_hosts::named_hosts(o);
    let first = named.first()?;
    let spec_hosts: Vec<&str> = servers
        .iter()
        .map(|s| s.host.as_str())
        .filter(|h| !h.is_empty())
        .collect();
    if !spec_hosts.is_empty() {
        // A bare service name (`lb://orders`, a Kubernetes short name) reaches a
        // server host whose first label it is (`orders.example.com`): the same
        // service by its discovery name and its public one.
        let same_service = |name: &str, host: &str| {
            let name = strip_port(name.trim()).to_ascii_lowercase();
            names_host(&name, host)
                || !name.contains('.') && host.split('.').next() == Some(name.as_str())
        };
        let reaches = named
            .iter()
            .any(|n| spec_hosts.iter().any(|h| same_service(&n.value, h)));
        return (!reaches).then(|| first.value.clone());
    }
    // A spec with no host: a proxy route for an address outside the cluster (an
    // egress VirtualService for `www.googleapis.com`) serves a third party, not the
    // service the spec describes; a client in code calling a public domain may well
    // be calling that API (specs often leave `servers` out), so it keeps the fallback.
    (!o.platform.is_code()
        && named
            .iter()
            .all(|n| super::named_hosts::is_external(strip_port(&n.value))))
    .then(|| first.value.clone())
}

/// The lone spec names no host, and the objects that took it route to two or more
/// services of the cluster (the Istio Bookinfo tree: the `bookinfo` VirtualService to
/// `productpage`, the `httpbin` one to `httpbin`): one API is served by one service,
/// so the spec is the API of the hosts whose routes list its paths (a match other
/// than every path that reaches one of its operations: `prefix: /api/v1/products`
/// under `basePath: /api/v1`). An object that names only other hosts, each reached
/// by a route that takes every path, is kept from the spec (RL016 names the host).
/// Without such evidence, or with one host only, the fallback stands; objects that
/// name no host (Envoy clusters, NGINX upstreams) keep it too.
fn lone_spec_served_by_its_paths(
    objects: &[ConfigObject],
    doc: &Document,
    servers: &[Server],
    took_lone: &[usize],
    bindings: &mut [Vec<(usize, String)>],
    lone_skipped: &mut [Option<String>],
    served_by: &mut [Vec<String>],
) {
    if servers.iter().any(|s| !s.host.is_empty()) {
        return;
    }
    let hosts_of = |i: usize| -> Vec<String> {
        super::named_hosts::named_hosts(&objects[i])
            .iter()
            .map(|n| strip_port(n.value.trim()).to_ascii_lowercase())
            .collect()
    };
    let mut all_hosts: Vec<String> = took_lone.iter().flat_map(|&i| hosts_of(i)).collect();
    all_hosts.sort();
    all_hosts.dedup();
    if all_hosts.len() < 2 {
        return;
    }
    let lists_its_paths = |i: usize| -> bool {
        let base = bindings[i].first().map(|(_, b)| b.as_str()).unwrap_or("");
        objects[i].routes.iter().any(|r| {
            r.matches.iter().any(|m| {
                !matches!(m.path, super::PathMatch::Any)
                    && doc.operations.iter().any(|op| {
                        m.may_match(
                            &op.method.to_ascii_uppercase(),
                            &op.path,
                            base,
                            r.rewrite.as_ref(),
                        )
                    })
            })
        })
    };
    let mut serving: Vec<String> = took_lone
        .iter()
        .filter(|&&i| lists_its_paths(i))
        .flat_map(|&i| hosts_of(i))
        .collect();
    serving.sort();
    serving.dedup();
    if serving.is_empty() {
        return;
    }
    for &i in took_lone {
        let hosts = hosts_of(i);
        if let Some(first) = hosts.first() {
            if !hosts.iter().any(|h| serving.contains(h)) {
                bindings[i].clear();
                lone_skipped[i] = Some(first.clone());
                served_by[i] = serving.clone();
            }
        }
    }
}

/// RL016 for an object kept from the run's only spec because it names another host;
/// `served_by`: the hosts whose routes list the spec's paths, when that was the reason
/// ([`lone_spec_served_by_its_paths`]).
fn names_other_host(
    o: &ConfigObject,
    host: &str,
    doc: &Document,
    servers: &[Server],
    served_by: &[String],
) -> Diagnostic {
    let named = super::named_hosts::named_hosts(o);
    let at = named
        .iter()
        .find(|n| n.value == host)
        .map_or_else(|| o.names.first().map_or(&o.at, |n| &n.at), |n| &n.at);
    let what = format!("{} {} `{}`", o.platform.display_name(), o.kind, o.name);
    let mut hosts: Vec<String> = servers
        .iter()
        .filter(|s| !s.host.is_empty())
        .map(|s| format!("`{}`", s.host))
        .collect();
    hosts.dedup();
    let spec = &doc.doc.file.display;
    let why = format!(
        "it names the host `{host}`, and the only spec of the run, `{spec}`, {}: being the only spec is no reason to bind a route or client that names another host",
        if !served_by.is_empty() {
            let routed: Vec<String> = served_by.iter().map(|h| format!("`{h}`")).collect();
            format!(
                "names no host, and the routes that list its paths go to {}, so it is the API of that service",
                at_most_five(routed).join(", ")
            )
        } else if hosts.is_empty() {
            "names no host, and an address outside the cluster is not the service it describes".to_string()
        } else {
            format!("serves {}", at_most_five(hosts).join(", "))
        }
    );
    let (field, name) = binding_name(o);
    let help = format!(
        "if `{host}` does serve this API, bind it in `.retrylint.yaml`:\n  services:\n    - spec: {spec}\n      {field}: [{name}]\nor exclude the file with `exclude:` if it serves another API"
    );
    rl016_unbound_config::diagnostic(at, &what, &why, help)
}

/// RL016 for `o`, which a `.retrylint.yaml` `services:` entry binds to `spec` (as
/// written) that the run does not hold: said so, never "bind it in `services:`".
fn unbound_service_unread(o: &ConfigObject, spec: &str) -> Diagnostic {
    let at = o.names.first().map_or(&o.at, |n| &n.at);
    let what = format!("{} {} `{}`", o.platform.display_name(), o.kind, o.name);
    let why = format!(
        "`.retrylint.yaml` `services:` binds it to `{spec}`, which is no OpenAPI document of the run (the file is missing, is no OpenAPI document, or `include`/`exclude` leaves it out)"
    );
    let help = "point `services[].spec` at the spec, relative to `.retrylint.yaml`, and keep it out of `exclude:`".to_string();
    rl016_unbound_config::diagnostic(at, &what, &why, help)
}

/// The first five of a list for a message, then `and N more` (a project of 300 specs
/// made a 14 kB RL016 listing every host).
fn at_most_five(mut items: Vec<String>) -> Vec<String> {
    const SHOWN: usize = 5;
    if items.len() > SHOWN {
        let more = items.len() - SHOWN;
        items.truncate(SHOWN);
        items.push(format!("and {more} more"));
    }
    items
}

/// RL016 for `o`, which binds to no operation of the run's specs `documents`
/// (walk order, as [`Unheld::listed`] gives them).
fn unbound(o: &ConfigObject, documents: &[Listed<'_>]) -> Diagnostic {
    let at = o.names.first().map_or(&o.at, |n| &n.at);
    let what = format!("{} {} `{}`", o.platform.display_name(), o.kind, o.name);
    let names: Vec<String> = o.names.iter().map(|n| n.value.clone()).collect();
    let why = if documents.is_empty() {
        "the run holds no OpenAPI document".to_string()
    } else if o.platform == super::Platform::AwsSdk && o.name == "default" {
        "an AWS profile names no host, and the run holds more than one spec".to_string()
    } else if o.platform == super::Platform::AwsSdk {
        format!("a client uses profile `{}` only when it selects it (`AWS_PROFILE`, a profile option in code), so without `services[].clients` only the `default` profile binds", o.name)
    } else if o.platform == super::Platform::Resilience4j && names_operations_only(o) {
        format!(
            "no operation of the run has the operationId or tag `{}`, and no `services[].clients` entry names it",
            o.name
        )
    } else if o.platform.is_code() {
        let calls = o.routes.iter().filter(|r| !r.matches.is_empty()).count();
        if calls == 0 {
            "no HTTP call made through it was found (the calls may be inside an SDK, or made through a variable retrylint cannot follow)".to_string()
        } else {
            format!("none of the {calls} call(s) made through it names a host of a spec's server, and the run holds more than one spec")
        }
    } else if names.is_empty() {
        "it names no host or service, and the run holds more than one spec".to_string()
    } else {
        let mut hosts: Vec<String> = documents
            .iter()
            .flat_map(|d| &d.hosts)
            .filter(|h| !h.is_empty())
            .map(|h| format!("`{h}`"))
            .collect();
        hosts.dedup();
        let hosts = at_most_five(hosts);
        format!(
            "none of its names ({}) is the host of a spec's server{}",
            names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", "),
            if hosts.is_empty() {
                String::new()
            } else {
                format!(" ({})", hosts.join(", "))
            }
        )
    };
    let candidates: Vec<String> = at_most_five(
        documents
            .iter()
            .map(|d| format!("`{}`", d.display))
            .collect(),
    );
    let spec = documents
        .first()
        .map_or("path/to/openapi.yaml".to_string(), |d| {
            d.display.to_string()
        });
    if o.grpc() {
        let name = names.first().cloned().unwrap_or_else(|| o.name.clone());
        let why = if documents.is_empty() {
            why
        } else {
            format!(
                "no operation of the specs is one of its RPCs (no `google.api.http` rule in the run's `.proto` files, no native path `POST /{name}/Method`, no operationId `{}_Method`), and the run holds more than one spec",
                super::grpc::short_service(&name)
            )
        };
        let help = format!(
            "its retries are real, but retrylint cannot tell which operations they repeat. Add the service's `.proto` files to the run, or bind it in `.retrylint.yaml`:\n  services:\n    - spec: {spec}\n      grpc: [{name}]\nor exclude the file with `exclude:` if it serves no API here"
        );
        return rl016_unbound_config::diagnostic(at, &what, &why, help);
    }
    let (field, name) = binding_name(o);
    let help = format!(
        "its retries are real, but retrylint cannot tell which operations they repeat. {}Bind it in `.retrylint.yaml`:\n  services:\n    - spec: {spec}\n      {field}: [{name}]\nor exclude the file with `exclude:` if it serves no API here",
        if candidates.is_empty() { String::new() } else { format!("Candidate specs: {}. ", candidates.join(", ")) }
    );
    rl016_unbound_config::diagnostic(at, &what, &why, help)
}

/// The `.retrylint.yaml` `services:` field that binds `o` and the name to write in
/// it: `names` with its first name (quoted when YAML needs it), `clients` for a
/// client config or a client in code.
fn binding_name(o: &ConfigObject) -> (&'static str, String) {
    let name = o
        .names
        .first()
        .map_or_else(|| o.name.clone(), |n| n.value.clone());
    // A YAML flow sequence cannot hold a plain `*.example.org` (an alias).
    let name = if name.starts_with('*') || name.contains([':', ',', '[', ']', '{', '}', '#']) {
        format!("\"{name}\"")
    } else {
        name
    };
    // Client configs (a Resilience4j instance, an AWS profile) are bound by `clients`.
    let field = match o.platform {
        super::Platform::Resilience4j | super::Platform::AwsSdk => "clients",
        p if p.is_code() => "clients",
        _ => "names",
    };
    (field, name)
}
