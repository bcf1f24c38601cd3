//! Importers of the retry configurations that run: Istio, Envoy, Gateway API,
//! Linkerd, NGINX, HAProxy, Traefik and Kong (and, later, client configs and code),
//! each read into the same policy model as a layer with its origin (file and node of
//! every value); `layers.md` is the design, `retry-configs.md` the facts.
//!
//! The stage runs in four steps, top to bottom:
//! 1. [`recognize`]: is this loaded file a retry config, and of which format
//!    (by content: `apiVersion` + `kind`, Envoy's `static_resources`, Kong's
//!    `_format_version`; by name for nginx, HAProxy and Traefik TOML);
//! 2. [`import_all`]: one importer per format ([`istio`], [`envoy`], ...) reads the
//!    file into [`ConfigObject`]s: route tables whose routes carry v1 policy
//!    [`Settings`] (every value with the node that set it, or, for a platform
//!    default, the node that would have) and [`OriginNote`]s naming each default;
//! 3. [`server`]: with a config to bind, the routes declared in the code of services
//!    that no OpenAPI document describes become documents of the run;
//! 4. [`bind::bind`]: routes meet the OpenAPI operations they may match (hosts,
//!    paths, methods, rewrites, first match), and each bound file becomes a
//!    synthetic [`PolicyFile`] the join reads like a written policy; a config that
//!    binds nothing is RL016.
//!
//! Importers sit beside [`crate::openapi`] and [`crate::policy`], below the join: they
//! may use `diagnostic`, `source`, `retry`, `openapi`, `policy` and `config`, and
//! nothing above.

pub mod aspire;
pub mod aws;
pub mod bind;
pub mod code;
pub mod cycles;
pub mod duplicates;
pub mod duration;
pub mod envoy;
pub mod envoy_retry_on;
pub mod gateway_api;
pub mod grouped;
pub mod grpc;
pub mod haproxy;
pub mod identity;
pub mod istio;
pub mod keys;
pub mod kong;
pub mod linkerd;
pub mod named_hosts;
pub mod nginx;
pub mod proto;
pub mod recognize;
pub mod rl016_unbound_config;
pub mod rl017_ineffective_setting;
pub mod rl209_route_may_resend_write;
pub mod rl314_version_dependent_default;
pub mod route;
pub mod server;
pub mod spring;
pub mod stream;
pub mod summary;
pub mod traefik;

pub use recognize::{recognize, Format};
pub use route::{PathMatch, RequestMatch, Rewrite};

use crate::config::Platforms;
use crate::diagnostic::Diagnostic;
use crate::policy::model::{Layer, Settings, Spanned};
use crate::source::loader::Loaded;
use crate::source::refs::At;
use std::path::PathBuf;
use std::sync::Arc;

pub use crate::policy::platform::Platform;

/// What an importer may consult besides the file: the platform versions and
/// implementation choices of `.retrylint.yaml` `platforms:`.
#[derive(Debug, Clone, Copy)]
pub struct ImportContext<'a> {
    /// `platforms:` (empty when the configuration names none).
    pub platforms: &'a Platforms,
    /// The RPCs of the run's `.proto` files (empty when it has none): how gRPC
    /// method configs bind to HTTP operations.
    pub protos: &'a proto::ProtoIndex,
}

/// A note on a value no file wrote: the platform default that applies at `at` (the
/// node that would have set it), named with its source. Shown with every finding
/// located at that node, so a user can see why retrylint believes a route retries.
#[derive(Debug, Clone)]
pub struct OriginNote {
    /// The node that would have set the value (a route, a `retries` block).
    pub at: At,
    /// The note: "no `retries:` here, so Istio's default applies: 2 retries on ...
    /// (retry-configs.md §2.2)". Shared by every note with the same words
    /// ([`note_text`]).
    pub text: Arc<str>,
}

/// The text of an [`OriginNote`], shared with every earlier note of this thread that
/// has the same words ([`crate::diagnostic::shared_str`]). An importer writes the
/// same few notes on every route of a file (nginx's "no backoff, no jitter" on each
/// of 20,000 `location`s), and a copy per route was a tenth of the memory of a large
/// text config (issue 43: memory per byte of nginx.conf).
pub fn note_text(text: impl AsRef<str>) -> Arc<str> {
    crate::diagnostic::shared_str(text.as_ref())
}

/// One route of a route table: which requests it may match and what it does to them.
#[derive(Debug, Clone)]
pub struct Route {
    /// The route node (an `http[]` item, an Envoy route, a `location` block).
    pub at: At,
    /// A name for messages (`route "payments"`, `location /`), when the file gives one.
    pub name: Option<String>,
    /// Request matches, OR'ed; empty: every request reaching the table.
    pub matches: Vec<RequestMatch>,
    /// The path rewrite applied before the request reaches the backend (the spec
    /// describes the backend, so matching inverts it).
    pub rewrite: Option<Rewrite>,
    /// The retry settings of this route, v1 policy settings with origins:
    /// `retry` (true when the route retries; false when it is explicitly off),
    /// `attempts` (total tries), `retry_on`, `methods`, `backoff`, `attempt_timeout`,
    /// `deadline`, `retry_after`, `budget`, `hedging`. Unset keys keep the v1
    /// meaning; an importer sets every value the platform defines, defaults
    /// included, with their [`OriginNote`]s.
    pub settings: Settings,
    /// Notes on the platform defaults in `settings`.
    pub notes: Vec<OriginNote>,
}

/// A route table: one config object whose routes are tried in order (first match
/// wins, or the platform's precedence already applied by the importer).
#[derive(Debug, Clone)]
pub struct ConfigObject {
    /// The platform.
    pub platform: Platform,
    /// The object kind as the platform names it (`VirtualService`, `route
    /// configuration`, `server`, `backend`).
    pub kind: String,
    /// The object name (`metadata.name`, a virtual host name, a backend name).
    pub name: String,
    /// The object node (where RL016 points when there is no host node).
    pub at: At,
    /// Where its requests are retried: client, gateway or mesh.
    pub layer: Layer,
    /// The names that say which API it serves (hosts, Kubernetes services, Envoy
    /// domains and clusters, upstreams), each with its node; empty: any (bound only
    /// when the run holds one spec or `.retrylint.yaml` binds it).
    pub names: Vec<Spanned<String>>,
    /// The routes, in the order the platform tries them.
    pub routes: Vec<Route>,
    /// For a client in code: the URL prefixes it serves, each with its node (a
    /// urllib3 `Retry` in an adapter mounted with `session.mount("https://", ...)`
    /// retries only requests whose URL starts with `https://`; requests picks the
    /// adapter by the longest matching prefix). Empty: every URL.
    pub url_prefixes: Vec<Spanned<String>>,
    /// For a client in code: signals of its `retry_on` it retries for some methods
    /// only, as (signals, upper-case methods): axios-retry's default retries 5xx
    /// and 429 on GET, HEAD, OPTIONS, PUT, DELETE only. An operation with another
    /// method is retried on the rest. Empty for every other platform.
    pub method_scoped: Vec<(Vec<crate::policy::model::Signal>, Vec<String>)>,
    /// Set by an importer whose objects are alternatives for the same requests (a
    /// Spring profile, an Istio entry path): `layers.md` "Variants and entry paths".
    /// Retry clients in code are made variants by [`bind`] (it knows which calls go
    /// through two clients and stack instead).
    pub variant: Option<crate::policy::model::Variant>,
}

impl ConfigObject {
    /// True when the bound operations are called as gRPC (a gRPC service config), so
    /// gRPC status signals can fire on them.
    pub fn grpc(&self) -> bool {
        self.platform == Platform::Grpc
    }

    /// The object with every vector of it and its routes cut to its length.
    fn trimmed(mut self) -> ConfigObject {
        self.names.shrink_to_fit();
        self.routes.shrink_to_fit();
        for r in &mut self.routes {
            r.matches.shrink_to_fit();
            r.notes.shrink_to_fit();
        }
        self
    }

    /// Drops the compiled path expressions of its routes (they compile again when
    /// next matched: [`route::PathRegex`]).
    pub fn release_compiled(&self) {
        for m in self.routes.iter().flat_map(|r| &r.matches) {
            if let PathMatch::Regex(re) = &m.path {
                re.release();
            }
        }
    }
}

/// What one importer read from one file.
#[derive(Debug, Clone, Default)]
pub struct Imported {
    /// Route tables found.
    pub objects: Vec<ConfigObject>,
    /// Findings about the file itself: RL017 (unknown or ineffective settings),
    /// RL314 (a version-dependent default), RL001 (a syntax error in a located reader).
    pub diagnostics: Vec<Diagnostic>,
    /// Source files skipped or read partly, with why (listed by `--verbose`; source
    /// code that does not parse is never RL001).
    pub skipped: Vec<String>,
}

/// Reads every recognised config file of a run with its format's importer.
/// Kubernetes streams are read together (object by object, `List`s flattened), so
/// references between objects resolve across files (a `BackendTrafficPolicy` and the
/// `HTTPRoute` it targets; a mesh config and the `VirtualService`s it gives a
/// default). Never panics on bad input: what cannot be read is a finding in
/// [`Imported::diagnostics`], and the other files are still read.
pub fn import_all(files: &[(Arc<Loaded>, Format)], ctx: &ImportContext<'_>) -> Imported {
    let unbounded = crate::source::boundary::ReadBoundary::unbounded();
    import_all_with_sources(files, &[], &|_| None, &unbounded, ctx)
}

/// [`import_all`], and the source files of the run that did not pass the code
/// pre-check (`more`, loaded with `load` only when they call a client by name:
/// [`code::import_all`]). `boundary`: the run's read boundary, which every file a
/// code reader opens beside its source file (Spring property files, Go siblings and
/// `go.mod`) must pass.
pub fn import_all_with_sources(
    files: &[(Arc<Loaded>, Format)],
    more: &[(std::path::PathBuf, code::Language)],
    load: &(dyn Fn(&std::path::Path) -> Option<Arc<Loaded>> + Sync),
    boundary: &crate::source::boundary::ReadBoundary,
    ctx: &ImportContext<'_>,
) -> Imported {
    use rayon::prelude::*;
    // Each file on its own core (issue 40: the import read files one after another);
    // the results are joined in file order, so the output does not depend on which
    // finished first. Kubernetes streams are only split here and read together below.
    let per_file: Vec<(Imported, Vec<Arc<Loaded>>)> = files
        .par_iter()
        .map(|(doc, format)| {
            let mut out = Imported::default();
            let mut kube_docs = Vec::new();
            out.diagnostics.extend(crate::timing::detail(
                format_args!("import/duplicates {}", doc.file.display),
                || duplicates::check(doc, *format),
            ));
            match format {
                Format::Kubernetes | Format::IstioMeshConfig => match stream::documents(doc) {
                    Ok(docs) => {
                        let effect = match format {
                            Format::Kubernetes => duplicates::KUBERNETES,
                            _ => duplicates::OTHER,
                        };
                        out.diagnostics
                            .extend(duplicates::in_documents(&docs, effect));
                        kube_docs.extend(docs)
                    }
                    Err(d) => out.diagnostics.push(*d),
                },
                Format::Envoy => out.extend(envoy::import(doc, ctx)),
                Format::Kong => out.extend(kong::import(doc, ctx)),
                Format::TraefikYaml | Format::TraefikToml => out.extend(traefik::import(doc, ctx)),
                Format::Nginx => out.extend(nginx::import(doc, ctx)),
                Format::Haproxy => out.extend(haproxy::import(doc, ctx)),
                Format::GrpcServiceConfig => out.extend(grpc::import(doc, ctx)),
                Format::Spring => out.extend(spring::import(doc, ctx)),
                Format::AwsConfig => out.extend(aws::import(doc, ctx)),
                // Read together below: calls in one file use clients of another.
                Format::Code(_) => {}
            }
            (out, kube_docs)
        })
        .collect();
    let mut out = Imported::default();
    let mut kube_docs = Vec::new();
    for (imported, docs) in per_file {
        out.extend(imported);
        kube_docs.extend(docs);
    }
    if !kube_docs.is_empty() {
        let objects = stream::kube_objects(&kube_docs);
        // The readers of Kubernetes objects are independent of one another: each on
        // a core of its own (reading 5,000 routes one reader after the other kept
        // one core idle), joined in this order.
        let ((istio, gateway), (linkerd, ingress)) = rayon::join(
            || {
                rayon::join(
                    || istio::import_with_mesh_files(&objects, &kube_docs, ctx),
                    || gateway_api::import(&objects, ctx),
                )
            },
            || {
                rayon::join(
                    || linkerd::import(&objects, ctx),
                    || nginx::import_ingress(&objects, ctx),
                )
            },
        );
        out.extend(istio);
        out.extend(gateway);
        out.extend(linkerd);
        out.extend(ingress);
    }
    let sources: Vec<(Arc<Loaded>, code::Language)> = files
        .iter()
        .filter_map(|(doc, format)| match format {
            Format::Code(language) => Some((doc.clone(), *language)),
            _ => None,
        })
        .collect();
    if !sources.is_empty() {
        let code = code::import_all(&sources, more, load, boundary, &out.objects, ctx);
        // A Resilience4j instance that a `@Retry(name)` in code took its settings
        // from is that code client's layer (bound by its calls), not a second one.
        out.objects.retain(|o| {
            o.platform != Platform::Resilience4j
                || !o
                    .names
                    .iter()
                    .any(|n| code.instances_used.contains(&n.value))
        });
        out.extend(code.imported);
        out.skipped.extend(code.notes);
    }
    out
}

impl Imported {
    /// Appends what another importer read.
    /// Each object's vectors are cut to their length first: they live until
    /// binding is done, and an importer's growth slack (a vector of two routes with
    /// room for four) was up to a third of the memory of a large text config
    /// (issue 43).
    pub fn extend(&mut self, other: Imported) {
        self.objects
            .extend(other.objects.into_iter().map(ConfigObject::trimmed));
        self.diagnostics.extend(other.diagnostics);
        self.skipped.extend(other.skipped);
    }
}

/// `diagnostics` without the RL314 findings located inside an object that binds to
/// nothing (one with an RL016 in `unbound`): a version-dependent default decides
/// findings about operations, and such an object has none; its RL016 is the finding
/// there (case README 01: the unbound `system-virtual-service` gets no RL314).
pub fn drop_version_findings_of_unbound(
    diagnostics: Vec<Diagnostic>,
    objects: &[ConfigObject],
    unbound: &[Diagnostic],
) -> Vec<Diagnostic> {
    let index = ObjectIndex::new(objects);
    let dropped: std::collections::HashSet<usize> = unbound
        .iter()
        .filter(|d| d.code == rl016_unbound_config::META.code)
        .filter_map(|d| index.owner(objects, d))
        .collect();
    if dropped.is_empty() {
        return diagnostics;
    }
    diagnostics
        .into_iter()
        .filter(|d| {
            d.code != rl314_version_dependent_default::META.code
                || !index
                    .owner(objects, d)
                    .is_some_and(|o| dropped.contains(&o))
        })
        .collect()
}

/// The objects of each file, so that the object holding a finding is found among
/// the few of its file rather than all of a large run: per file, the object spans
/// sorted by start with the largest end so far, so a look-up is a binary search
/// plus the objects that may still hold the position (a file of 10 000 AWS profiles
/// or Envoy virtual hosts is not scanned once per finding).
struct ObjectIndex<'a> {
    by_file: std::collections::HashMap<&'a std::ffi::OsStr, FileObjects>,
}

/// One file's objects: `(start, end, object index)` sorted by start, and for each
/// position the largest `end` up to it.
#[derive(Default)]
struct FileObjects {
    spans: Vec<(usize, usize, usize)>,
    max_end: Vec<usize>,
}

impl<'a> ObjectIndex<'a> {
    fn new(objects: &'a [ConfigObject]) -> ObjectIndex<'a> {
        let mut by_file: std::collections::HashMap<&std::ffi::OsStr, FileObjects> =
            std::collections::HashMap::new();
        for (i, o) in objects.iter().enumerate() {
            let Some(tree) = o.at.tree() else { continue };
            let span = tree.span(o.at.node);
            by_file
                .entry(o.at.doc.file.path.as_os_str())
                .or_default()
                .spans
                .push((span.start, span.end, i));
        }
        for f in by_file.values_mut() {
            f.spans.sort_unstable();
            let mut max = 0;
            f.max_end = f
                .spans
                .iter()
                .map(|&(_, end, _)| {
                    max = max.max(end);
                    max
                })
                .collect();
        }
        ObjectIndex { by_file }
    }

    /// The first object (in `objects` order) whose node holds the finding's primary
    /// location.
    fn owner(&self, _objects: &[ConfigObject], d: &Diagnostic) -> Option<usize> {
        let f = self.by_file.get(d.primary.location.file.path.as_os_str())?;
        let at = d.primary.location.span.start;
        let mut best: Option<usize> = None;
        let mut j = f.spans.partition_point(|&(start, _, _)| start <= at);
        while j > 0 {
            j -= 1;
            if f.max_end[j] <= at {
                break; // no object starting here or earlier reaches `at`
            }
            let (_, end, i) = f.spans[j];
            if at < end && best.is_none_or(|b| i < b) {
                best = Some(i);
            }
        }
        best
    }
}

/// Whether a baseline records an RL314 at a location (the finding's primary) about
/// an operation (`METHOD /path`) of a document.
pub type RecordedAt<'a> =
    dyn Fn(&crate::diagnostic::Location, &crate::source::SourceFile, &str) -> bool + 'a;

/// One RL314 per distinct reading and file: the findings of a version-dependent
/// default with the same message in one file (each route without `retries:` of one
/// platform says the same) are one finding at the first route, labelling every other
/// route of the file and naming every operation they bind. Why: a file of 42
/// VirtualServices gave 42 identical warnings for one missing `platforms:` entry,
/// which one edit settles (issue 42). Not across files: a run over one file must be
/// able to give the finding the whole run gives for it (issue 36).
/// Other findings pass unchanged, in order; the merged one takes the first's place.
///
/// Under a baseline (`recorded`: whether it records an RL314 at a location about an
/// operation of a document), the routes whose operations it records at the group's
/// first route and the others are two findings, so the one that survives the
/// baseline names only the new operations (as the rules' grouped findings do).
pub fn group_version_findings(
    diagnostics: Vec<Diagnostic>,
    recorded: Option<&RecordedAt<'_>>,
) -> Vec<Diagnostic> {
    let code = rl314_version_dependent_default::META.code;
    // Grouped per file: a finding that merged every file of the repository could not
    // be given to a run over one of them without reading them all (one answer
    // however asked, issue 36).
    let groups = version_groups(&diagnostics);
    let mut slots: Vec<Option<Diagnostic>> = diagnostics.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(slots.len());
    for group in groups {
        let first_is_rl314 = slots[group[0]].as_ref().is_some_and(|d| d.code == code);
        // Under a baseline even one route is split: its recorded operations and new ones.
        if !first_is_rl314 || (group.len() == 1 && recorded.is_none()) {
            out.extend(group.iter().filter_map(|&i| slots[i].take()));
            continue;
        }
        let mut members: Vec<Diagnostic> = group.iter().filter_map(|&i| slots[i].take()).collect();
        members.sort_by(|a, b| {
            let (la, lb) = (&a.primary.location, &b.primary.location);
            (&la.file.path, la.span.start).cmp(&(&lb.file.path, lb.span.start))
        });
        let Some(recorded) = recorded else {
            out.push(merge_routes(members));
            continue;
        };
        // Split each route's operations: those recorded at the group's first route,
        // and the new ones (a route binding both is in both findings).
        let first = members[0].primary.location.clone();
        let (mut known, mut new): (Vec<Diagnostic>, Vec<Diagnostic>) = (Vec::new(), Vec::new());
        for d in members {
            let is_known: Vec<bool> = (0..d.operations.len())
                .map(|i| {
                    d.operation_documents
                        .get(i)
                        .and_then(Option::as_ref)
                        .is_some_and(|doc| recorded(&first, doc, &d.operations[i]))
                })
                .collect();
            if is_known.iter().all(|&k| k) {
                known.push(d);
            } else if !is_known.iter().any(|&k| k) {
                new.push(d);
            } else {
                let part = |keep: bool| {
                    let mut p = d.clone();
                    let pairs = d
                        .operations
                        .iter()
                        .zip(&d.operation_documents)
                        .zip(&is_known);
                    (p.operations, p.operation_documents) = pairs
                        .filter(|(_, &k)| k == keep)
                        .map(|((op, doc), _)| (op.clone(), doc.clone()))
                        .unzip();
                    p
                };
                known.push(part(true));
                new.push(part(false));
            }
        }
        // The recorded part stays where the baseline recorded it, at the group's
        // first route, even when that route's own operations are all new.
        if known.first().is_some_and(|k| {
            k.primary.location.span != first.span || k.primary.location.file.path != first.file.path
        }) {
            if let Some(head) = new.first() {
                let mut anchor = head.clone();
                anchor.operations.clear();
                anchor.operation_documents.clear();
                anchor.operation = None;
                known.insert(0, anchor);
            }
        }
        out.extend(
            [known, new]
                .into_iter()
                .filter(|g| !g.is_empty())
                .map(merge_routes),
        );
    }
    out
}

/// The indices of `diagnostics` grouped by (file, message) for RL314 and in one
/// group for every other finding, the groups in the order their keys first appear.
/// The keys are borrowed from the findings: a config of 100,000 routes has a finding
/// or two each, and a key text per finding was a peak holder (issue 43).
fn version_groups(diagnostics: &[Diagnostic]) -> Vec<Vec<usize>> {
    let code = rl314_version_dependent_default::META.code;
    let mut index: std::collections::HashMap<Option<(&std::path::Path, &str)>, usize> =
        std::collections::HashMap::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, d) in diagnostics.iter().enumerate() {
        // Not RL314: one group of their own.
        let key =
            (d.code == code).then(|| (d.primary.location.file.path.as_path(), d.message.as_str()));
        let g = *index.entry(key).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(i);
    }
    groups
}

/// One finding of RL314 findings with one message (sorted by position): the first,
/// labelling the others' routes and naming their operations too.
fn merge_routes(mut members: Vec<Diagnostic>) -> Diagnostic {
    let rest = members.split_off(1);
    let mut merged = members.pop().expect("a group has a first member");
    {
        let more = rest.len();
        if more == 0 {
            return merged;
        }
        merged.message = format!(
            "{} ({more} more route{} with the same default {} labelled)",
            merged.message,
            if more == 1 { "" } else { "s" },
            if more == 1 { "is" } else { "are" },
        );
        // The operations named so far, by (operation, document): thousands of routes
        // may share one default, each naming the same operations. Keys borrow from
        // the members (a copy of each name and path per route was most of a merge).
        let first: Vec<(String, Option<PathBuf>)> = merged
            .operations
            .iter()
            .enumerate()
            .map(|(i, op)| (op.clone(), document_path(&merged.operation_documents, i)))
            .collect();
        // foldhash: SipHash over each path's components was a third of a merge.
        let mut known: std::collections::HashSet<
            (&str, Option<&std::path::Path>),
            foldhash::fast::RandomState,
        > = first
            .iter()
            .map(|(op, path)| (op.as_str(), path.as_deref()))
            .collect();
        merged.labels.reserve(more);
        for d in &rest {
            merged.labels.push(crate::diagnostic::Label {
                location: d.primary.location.clone(),
                message: format!("also: {}", d.primary.message),
            });
            for (i, op) in d.operations.iter().enumerate() {
                let document = d.operation_documents.get(i).cloned().flatten();
                let path = d
                    .operation_documents
                    .get(i)
                    .and_then(|f| f.as_deref())
                    .map(|f| f.path.as_path());
                if known.insert((op.as_str(), path)) {
                    merged.operations.push(op.clone());
                    merged.operation_documents.push(document);
                }
            }
        }
    }
    // One operation in all: the finding names it (as a rule's grouped finding does).
    merged.operation = match merged.operations.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    };
    merged
}

/// The path of the document of a finding's `i`th operation (`None`: not known).
fn document_path(
    documents: &[Option<Arc<crate::source::SourceFile>>],
    i: usize,
) -> Option<PathBuf> {
    documents
        .get(i)
        .and_then(|f| f.as_ref().map(|f| f.path.clone()))
}

/// Names the operations an object bound on the findings located inside it that name
/// none yet (RL314 "for these operations", RL017 on a retry block), so a reader sees
/// which operations a version-dependent default or an ignored setting concerns.
pub fn label_bound_operations(
    diagnostics: Vec<Diagnostic>,
    objects: &[ConfigObject],
    operations: &[Vec<(Arc<crate::source::SourceFile>, String)>],
) -> Vec<Diagnostic> {
    let index = ObjectIndex::new(objects);
    diagnostics
        .into_iter()
        .map(|d| {
            if !d.operations.is_empty() {
                return d;
            }
            let owner = index.owner(objects, &d);
            match owner
                .and_then(|i| operations.get(i))
                .filter(|ops| !ops.is_empty())
            {
                Some(ops) => {
                    d.with_operations_in(ops.iter().map(|(f, op)| (Some(f.clone()), op.clone())))
                }
                None => d,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_with_the_same_words_share_one_text() {
        let a = note_text(format!("no `{}` here", "retries"));
        let b = note_text("no `retries` here");
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &note_text("no `timeout` here")));
        assert_eq!(&*a, "no `retries` here");
    }

    #[test]
    fn imported_objects_keep_no_growth_slack() {
        let doc = Arc::new(Loaded::new(
            Arc::new(crate::source::SourceFile::new(
                "nginx.conf".into(),
                "nginx.conf".into(),
                "events {}\n",
            )),
            Err(crate::source::loader::LoadError::Binary),
        ));
        let at = At::new(&doc, crate::source::tree::NodeId(0));
        let route = Route {
            at: at.clone(),
            name: None,
            matches: Vec::with_capacity(8),
            rewrite: None,
            settings: Settings::empty(at.clone()),
            notes: Vec::with_capacity(8),
        };
        let mut routes = Vec::with_capacity(16);
        routes.push(route);
        let object = ConfigObject {
            platform: Platform::Nginx,
            kind: "server".into(),
            name: "orders".into(),
            at,
            layer: Layer::Gateway,
            names: Vec::with_capacity(8),
            routes,
            url_prefixes: Vec::new(),
            method_scoped: Vec::new(),
            variant: None,
        };
        let mut all = Imported::default();
        all.extend(Imported {
            objects: vec![object],
            ..Imported::default()
        });
        let o = &all.objects[0];
        assert_eq!((o.routes.capacity(), o.names.capacity()), (1, 0));
        assert_eq!(o.routes[0].matches.capacity(), 0);
        assert_eq!(o.routes[0].notes.capacity(), 0);
    }
}
