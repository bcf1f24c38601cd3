//! What a run over named files or a folder below the project root must read besides
//! them, so that it finds what the whole project's run finds for them
//! (`crate::check::answer` then keeps the part of that answer that concerns them).
//! The project is [`crate::project::answer_root`]'s: the nearest git work tree or
//! folder holding a `.retrylint.yaml` (or a `projects:` folder it names).

use super::{is_openapi, name_kind, spec_paths, Candidate, NameKind, ProjectIndex};
use crate::source::loader::Workspace;
use crate::source::refs::normalize;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};

/// The retry configs, clients and `.proto` files walked under a named folder, by
/// project root: the retry configs among them, asked about as named ones are.
type WalkedConfigs = BTreeMap<PathBuf, Vec<Candidate>>;

/// Adds the files related to the files asked about among `candidates` (those named,
/// and those walked under a named folder), as the whole project's run reads them:
/// - a policy: the OpenAPI documents it governs (its `spec:` paths, relative to it;
///   without `spec:`, the documents in its folder and below);
/// - an OpenAPI document: the policies under the project root that govern it (one
///   whose `spec:` names it, wherever it is, or one without `spec:` in its folder or
///   a parent), from a [`ProjectIndex`] built once per root; the other documents that
///   reach a file its `$ref`s reach (a finding on a shared component is one finding
///   over every document using it); the retry configs whose text names one of its
///   server hosts or operationIds ([`binding_needles`]; binding itself then decides,
///   as in the whole run), with every document they name
///   ([`binding_needles_in_text`]), related in turn: the binding component. The
///   whole project when that cannot be told from text: `.retrylint.yaml`
///   `services:` binds configs to it (`bound_specs`), it is the only document of its
///   project, a gRPC service config (`methodConfig`) or a client in code names it;
/// - a file asked about that is not a policy (a `$ref` fragment such as a shared
///   `responses.yaml`, a document whose components others use): the documents whose
///   `$ref` closure includes it;
/// - a named retry config: the documents it names, related as a named document is,
///   the project's only document, and every document of the project as context
///   (RL016 names the project's specs for an object that binds nothing); a named
///   client in code or `.proto`: the whole project (the clients whose calls it
///   binds, the RPCs its HTTP rules map); walked under a named folder, the whole
///   project when the project has a `.retrylint.yaml` of its own, else the
///   documents `services:` names, the documents its retry configs name (as for a
///   named config) and the only document of the project (a folder of a repository
///   without one is judged with what it names, not with every spec of the
///   repository).
///
/// Repeated until nothing new is found.
pub fn with_related(
    candidates: Vec<Candidate>,
    ws: &Workspace,
    root: Option<&Path>,
    bound_specs: &[PathBuf],
    named: &[PathBuf],
    every_document: bool,
) -> Vec<Candidate> {
    // Named folders (canonical) with their project roots.
    let folders: Vec<(PathBuf, PathBuf)> = named
        .iter()
        .filter(|p| p.is_dir())
        .map(|p| {
            let folder = canonical(ws, p);
            let root = crate::project::answer_root(&folder, root);
            (folder, root)
        })
        .collect();
    let mut related = Related {
        seen: candidates.iter().map(|c| canonical(ws, &c.path)).collect(),
        queue: VecDeque::new(),
        out: Vec::new(),
        indexes: HashMap::new(),
        expanded: HashSet::new(),
        needles: HashMap::new(),
        asked: HashSet::new(),
        roots: HashMap::new(),
        context: HashSet::new(),
        every_document,
        identities: crate::import::identity::Identities::new(),
        ws,
        root,
        bound_specs,
    };
    // Named files, and the YAML/JSON files walked under a named folder below its
    // project root (a folder that is a project root is read whole by its walk).
    let below_root = |c: &Candidate| {
        !folders.is_empty() && {
            let abs = canonical(ws, &c.path);
            folders
                .iter()
                .any(|(folder, root)| abs.starts_with(folder) && folder != root)
        }
    };
    related.queue = candidates
        .iter()
        .filter(|c| {
            c.explicit
                || matches!(
                    c.kind,
                    NameKind::Policy | NameKind::SpecLike | NameKind::Other
                ) && below_root(c)
        })
        .cloned()
        .collect();
    related.asked = related
        .queue
        .iter()
        .map(|c| canonical(ws, &c.path))
        .collect();
    // Retry configs, clients and `.proto` files walked under a named folder, by
    // project root; with each the text configs (`nginx.conf`, `haproxy.cfg`), which
    // bring the documents they name as a named config does, and the `.proto` files,
    // which bring the whole project as a named one does. The YAML/JSON configs join
    // when visited.
    let mut config_roots: WalkedConfigs = BTreeMap::new();
    for c in candidates.iter().filter(|c| {
        !c.explicit
            && matches!(
                c.kind,
                NameKind::TextConfig | NameKind::Proto | NameKind::Source(_)
            )
            && below_root(c)
    }) {
        let Some(dir) = standing(ws, &c.path).parent().map(Path::to_path_buf) else {
            continue;
        };
        let walked = config_roots
            .entry(crate::project::answer_root(&dir, root))
            .or_default();
        if matches!(c.kind, NameKind::TextConfig | NameKind::Proto) {
            walked.push(c.clone());
        }
    }
    related.out = candidates;
    let mut config_roots_done: HashSet<PathBuf> = HashSet::new();
    // Named files other than policies (possible `$ref` targets), by project root.
    let mut fragments: HashMap<PathBuf, Vec<PathBuf>> = HashMap::new();
    loop {
        // The YAML/JSON files queued are parsed on every core before they are
        // visited one by one (a folder of 500 specs parsed one after another
        // cost half a second). Never a source file: one in the workspace's cache
        // counts as holding retries (`Workspace::read_if`).
        {
            use rayon::prelude::*;
            let ws = related.ws;
            let queued: Vec<&Candidate> = related
                .queue
                .iter()
                .filter(|c| {
                    matches!(
                        c.kind,
                        NameKind::Policy
                            | NameKind::SpecLike
                            | NameKind::Other
                            | NameKind::Unlisted
                    ) && c.path.is_file()
                })
                .collect();
            if queued.len() > 1 {
                queued.par_iter().for_each(|c| {
                    ws.load(&c.path);
                });
            }
        }
        while let Some(c) = related.queue.pop_front() {
            related.visit(&c, &mut fragments, &mut config_roots);
        }
        for (bound, configs) in std::mem::take(&mut config_roots) {
            if config_roots_done.insert(bound.clone()) {
                related.walked_configs_of(&bound, &configs);
            }
        }
        related.bring_configs_naming_documents();
        if !related.queue.is_empty() {
            continue;
        }
        if fragments.is_empty() {
            break;
        }
        for (bound, targets) in std::mem::take(&mut fragments) {
            let found = crate::timing::detail("documents reaching named files", || {
                related.index(&bound).documents_referring(&targets, ws)
            });
            for d in found {
                // Its operations reach a file asked about: as for a document asked
                // about, the documents sharing its `$ref` targets come too.
                related.asked.insert(canonical(ws, &d.path));
                related.add(d.path, d.kind);
            }
        }
    }
    related.keep_more_than_one_document();
    // In the order of their real paths, as the walk of the whole project meets them:
    // the index names files by canonical path, a named file is spelled as given, and
    // which of two copies of a route table binds follows this order.
    let mut out: Vec<(PathBuf, Candidate)> = related
        .out
        .into_iter()
        .map(|c| (canonical(ws, &c.path), c))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out.into_iter().map(|(_, c)| c).collect()
}

/// The state of [`with_related`].
struct Related<'a> {
    /// Canonical paths of every file in `out`.
    seen: HashSet<PathBuf>,
    /// Files still to relate.
    queue: VecDeque<Candidate>,
    /// Every file of the run so far.
    out: Vec<Candidate>,
    /// One index per project root.
    indexes: HashMap<PathBuf, ProjectIndex>,
    /// Project roots read whole: their files need no further look-up.
    expanded: HashSet<PathBuf>,
    /// By project root, what the configs that may bind to the documents visited
    /// must name ([`binding_needles`]), scanned for once the queue is empty.
    needles: HashMap<PathBuf, Vec<Vec<u8>>>,
    /// Canonical paths of the files asked about (named, or walked under a named
    /// folder): another document may reach one of them through `$ref`.
    asked: HashSet<PathBuf>,
    /// [`crate::project::answer_root`] by folder (it may read a `.retrylint.yaml`).
    roots: HashMap<PathBuf, PathBuf>,
    /// Canonical paths of the files read only as context ([`Related::add_context`]):
    /// in the run, never related further unless added again as related.
    context: HashSet<PathBuf>,
    /// A named retry config reads every document of its project as context.
    every_document: bool,
    /// The names the repository gives each document's service, one finder for the
    /// whole search (it lists each folder once).
    identities: crate::import::identity::Identities,
    ws: &'a Workspace,
    root: Option<&'a Path>,
    bound_specs: &'a [PathBuf],
}

impl Related<'_> {
    fn add(&mut self, path: PathBuf, kind: NameKind) {
        let abs = canonical(self.ws, &path);
        let c = Candidate {
            path,
            kind,
            explicit: false,
        };
        if self.seen.insert(abs.clone()) {
            self.out.push(c.clone());
            self.queue.push_back(c);
        } else if self.context.remove(&abs) {
            // Read so far only as context, now related: relate it too.
            self.queue.push_back(c);
        }
    }

    /// Binding gives a config that names no host to the run's only spec (`bind`,
    /// step 3). A project of several documents whose named files' component holds
    /// one is not such a run: another document of the project comes as context, so
    /// that nothing binds to the one read because the others were left out.
    fn keep_more_than_one_document(&mut self) {
        let ws = self.ws;
        let bounds: Vec<PathBuf> = self
            .indexes
            .keys()
            .filter(|b| !self.expanded.contains(*b))
            .cloned()
            .collect();
        for bound in bounds {
            let in_run = self
                .out
                .iter()
                .filter(|c| standing(self.ws, &c.path).starts_with(&bound))
                .filter(|c| {
                    matches!(
                        c.kind,
                        NameKind::SpecLike | NameKind::Other | NameKind::Unlisted
                    ) && c.path.is_file()
                        && is_openapi(&ws.load(&c.path))
                })
                .count();
            if in_run != 1 {
                continue;
            }
            let documents = self
                .index(&bound)
                .documents(ws, binding_needles_in_text)
                .to_vec();
            let other = documents.into_iter().find(|d| {
                !self.seen.contains(&canonical(self.ws, &d.path)) && is_openapi(&ws.load(&d.path))
            });
            if let Some(d) = other {
                self.add_context(d.path, d.kind);
            }
        }
    }

    /// Adds a retry config that names a document of the run without relating it as
    /// a file walked under a named folder would be (its documents come through
    /// [`ProjectIndex::documents_named_by`]).
    fn add_context(&mut self, path: PathBuf, kind: NameKind) {
        let abs = canonical(self.ws, &path);
        if self.seen.insert(abs.clone()) {
            self.context.insert(abs);
            self.out.push(Candidate {
                path,
                kind,
                explicit: false,
            });
        }
    }

    fn answer_root(&mut self, file: &Path) -> PathBuf {
        let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
        let root = self.root;
        self.roots
            .entry(dir)
            .or_insert_with_key(|dir| crate::project::answer_root(dir, root))
            .clone()
    }

    fn index(&mut self, bound: &Path) -> &ProjectIndex {
        self.indexes
            .entry(bound.to_path_buf())
            .or_insert_with_key(|bound| {
                crate::timing::detail("project index", || ProjectIndex::build(bound))
            })
    }

    /// Reads the whole project under `bound` (once): every document, policy, retry
    /// config, client and `.proto` of it, as `retrylint check ROOT` does.
    fn expand(&mut self, bound: &Path) {
        if !self.expanded.insert(bound.to_path_buf()) {
            return;
        }
        // The project alone: a folder below it that is a project of its own is not
        // its files (`check ROOT` leaves it out too).
        let found = super::discover_project(&[bound.to_path_buf()], &[]).candidates;
        for f in found {
            let take = match f.kind {
                NameKind::Policy | NameKind::Proto | NameKind::Source(_) => true,
                _ => {
                    let other = self.ws.load(&f.path);
                    is_openapi(&other) || crate::import::recognize(&other).is_some()
                }
            };
            if take {
                self.add(f.path, f.kind);
            }
        }
        // The `services:` specs the walk left out (git-ignored, hidden) are read as
        // `check ROOT` reads them (`crate::project::load`); a walked policy brings
        // its `spec:` when visited.
        self.add_bound_specs(bound);
    }

    /// The `services:` specs of `.retrylint.yaml` under `bound` that exist, read as
    /// documents whether or not the walk lists them (git-ignored, hidden).
    fn add_bound_specs(&mut self, bound: &Path) {
        let specs: Vec<PathBuf> = self
            .bound_specs
            .iter()
            .filter(|s| s.starts_with(bound) && s.is_file())
            .cloned()
            .collect();
        for spec in specs {
            self.add(spec, NameKind::SpecLike);
        }
    }

    /// The documents the retry configs walked under a named folder of project
    /// `bound` bind to (see [`with_related`]).
    fn walked_configs_of(&mut self, bound: &Path, configs: &[Candidate]) {
        // A `.proto` maps RPCs that gRPC configs anywhere in the project name, as
        // when it is named (`check protos/` answers what `check protos/x.proto` does).
        let proto = configs.iter().any(|c| c.kind == NameKind::Proto);
        if proto || bound.join(crate::config::FILE_NAME).is_file() {
            self.expand(bound);
            return;
        }
        self.add_bound_specs(bound);
        // The retry configs walked under the folder are asked about as a named
        // config is: the documents they name come (`check deploy/istio` answers the
        // VirtualService's findings on them, as `check deploy/istio/vs.yaml` does).
        let configs: Vec<Candidate> = configs
            .iter()
            .filter(|c| c.kind != NameKind::Proto)
            .cloned()
            .collect();
        if !configs.is_empty() {
            self.named_configs(&configs, bound);
            return;
        }
        let ws = self.ws;
        if let Some(only) = self.index(bound).only_document(ws) {
            self.add(only, NameKind::SpecLike);
        }
    }

    fn visit(
        &mut self,
        c: &Candidate,
        fragments: &mut HashMap<PathBuf, Vec<PathBuf>>,
        config_roots: &mut WalkedConfigs,
    ) {
        if !c.path.is_file() {
            return;
        }
        let ws = self.ws;
        // The project of a name is where the name stands, not where a link leads.
        let here = standing(self.ws, &c.path);
        let dir = here.parent().map(Path::to_path_buf).unwrap_or_default();
        let bound = self.answer_root(&here);
        if self.expanded.contains(&bound) {
            // Everything of the project is read already. Not even loaded here: a
            // source file loaded now would skip the run's pre-check (a file in the
            // cache counts as holding retries) and be parsed as a retry client.
            return;
        }
        let doc = ws.load(&c.path);
        let abs = canonical(self.ws, &c.path);
        if c.kind == NameKind::Policy {
            let specs = spec_paths(&doc);
            if specs.is_empty() {
                // Its folder's documents of its own project (not of a nested one).
                let found = super::discover_project(std::slice::from_ref(&dir), &[]).candidates;
                for f in found.into_iter().filter(|f| f.kind != NameKind::Policy) {
                    self.add(f.path, f.kind);
                }
            } else {
                for s in specs {
                    let p = normalize(&dir.join(s));
                    if p.is_file() {
                        let kind = name_kind(&p).unwrap_or(NameKind::SpecLike);
                        self.add(p, kind);
                    }
                }
            }
            return;
        }
        let openapi = is_openapi(&doc);
        let recognized = !openapi && crate::import::recognize(&doc).is_some();
        let config_like =
            c.kind == NameKind::Proto || matches!(c.kind, NameKind::Source(_)) || recognized;
        if config_like {
            if c.explicit && recognized {
                self.named_config(c, &bound);
            } else if c.explicit {
                // A client in code or a `.proto`: its calls and RPCs link across the
                // project's files.
                self.expand(&bound);
            } else {
                let walked = config_roots.entry(bound).or_default();
                // A retry config walked under a named folder (asked about), not one
                // brought because it names a document asked about.
                if recognized && self.asked.contains(&abs) {
                    walked.push(c.clone());
                }
            }
            return;
        }
        if self.asked.contains(&abs) {
            // Any file asked about may be reached through `$ref` (a fragment, or a
            // document whose components other documents use).
            fragments
                .entry(bound.clone())
                .or_default()
                .push(abs.clone());
        }
        if !openapi {
            return;
        }
        // `services:` binds by name across specs, and the only document of a
        // project takes every config that binds nowhere else: read the project.
        let services_here = self.bound_specs.iter().any(|s| s.starts_with(&bound));
        if services_here || self.index(&bound).is_the_only_document(&abs, ws) {
            self.expand(&bound);
            return;
        }
        for p in self.index(&bound).policies_governing(&abs, ws) {
            self.add(p, NameKind::Policy);
        }
        // The documents sharing a file its `$ref`s reach: a finding on the shared
        // component is one finding over them all. Only for a document asked about
        // (a document read as related is reported only where it touches one).
        let closure = if self.asked.contains(&abs) {
            ref_closure(&doc, ws)
        } else {
            Vec::new()
        };
        if !closure.is_empty() {
            let found = crate::timing::detail("documents sharing a $ref target", || {
                self.index(&bound).documents_referring(&closure, ws)
            });
            for d in found {
                self.add(d.path, d.kind);
            }
        }
        // Otherwise a config or client binds to it only by naming it: its hosts,
        // operationIds, or RPCs. When one does (one scan for every document visited,
        // once the queue is empty), the whole project is read.
        // The names the repository gives its service (Compose, Spring
        // `spring.application.name`) bind like hosts (`import::identity`).
        let mut needles = binding_needles(&doc);
        for name in self.identities.of(&abs, &|p| self.ws.admitted(p)) {
            host_needles(&name.to_ascii_lowercase(), &mut needles);
        }
        self.needles.entry(bound).or_default().extend(needles);
    }

    /// Brings the configs and clients that name a document visited since the last
    /// call (one scan of each project for all their needles; see
    /// [`Related::bring_configs_mentioning`]).
    fn bring_configs_naming_documents(&mut self) {
        let ws = self.ws;
        for (bound, mut needles) in std::mem::take(&mut self.needles) {
            if self.expanded.contains(&bound) {
                continue;
            }
            needles.sort();
            needles.dedup();
            self.bring_configs_mentioning(&bound, &needles, ws);
        }
    }

    fn bring_configs_mentioning(&mut self, bound: &Path, needles: &[Vec<u8>], ws: &Workspace) {
        let mut hits = crate::timing::detail("configs naming documents", || {
            self.index(bound).configs_mentioning(needles, ws)
        });
        // Only a file the run sorts as a retry config binds: one that is a document
        // although its first lines do not say so (`components:` before `openapi:`,
        // a JSON object whose `swagger` key comes last), or a YAML fragment of a
        // spec that names a host, is none. Left in, a folder of freely named specs
        // brought every spec and fragment naming a common operationId, then every
        // spec those named (a run over one 5 kB spec read and modelled 16).
        {
            use rayon::prelude::*;
            hits.configs = std::mem::take(&mut hits.configs)
                .into_par_iter()
                .filter(|c| {
                    let doc = ws.load(&c.path);
                    !(c.kind == NameKind::Other && is_openapi(&doc))
                        && crate::import::recognize(&doc).is_some()
                })
                .collect();
        }
        // A client in code links its calls across the project's files, and a gRPC
        // service config names RPCs that may bind to any document: the whole
        // project, for an exact answer at the cost of a whole run.
        // An Aspire AppHost names the services it runs in C# (`AddProject`): their
        // names bind like hosts, and only the whole run reads them.
        let whole = hits.code
            || (!hits.configs.is_empty() && self.binds_anywhere(bound, &hits.configs))
            || self.index(bound).sources_mention(
                crate::import::code::Language::CSharp,
                crate::import::aspire::MARKER.as_bytes(),
                ws,
            );
        if whole {
            self.expand(bound);
            return;
        }
        let hits = hits.configs;
        if hits.is_empty() {
            return;
        }
        // Binding depends on every document a config binds to (the first route
        // that may match an operation; a finding at a route groups the operations of
        // every document it serves, and what composes on each of them): the configs
        // naming the documents visited come with the documents they name, which are
        // related in turn (their policies, the configs naming them) until nothing
        // new turns up: the binding component of the files asked about.
        let paths: Vec<PathBuf> = hits.iter().map(|c| c.path.clone()).collect();
        let mut named = crate::timing::detail("documents named by configs", || {
            self.index(bound)
                .documents_named_by(&paths, ws, binding_needles_in_text)
        });
        named.extend(self.documents_named_by_identity(bound, &paths));
        for c in hits {
            self.add_context(c.path, c.kind);
        }
        for d in named {
            self.add(d.path, d.kind);
        }
    }

    /// The documents of `bound`'s project that the configs at `configs` name by a
    /// service identity (`import::identity`: a Compose service building from the
    /// document's folder, the `spring.application.name` above it), which binding
    /// counts as a server host and the document's text need not spell.
    fn documents_named_by_identity(&mut self, bound: &Path, configs: &[PathBuf]) -> Vec<Candidate> {
        let ws = self.ws;
        let documents = self
            .index(bound)
            .documents(ws, binding_needles_in_text)
            .to_vec();
        let named: Vec<(Candidate, Vec<Vec<u8>>)> =
            crate::timing::detail("identities of documents", || {
                documents
                    .into_iter()
                    .filter_map(|d| {
                        let mut needles = Vec::new();
                        for name in self
                            .identities
                            .of(&canonical(self.ws, &d.path), &|p| ws.admitted(p))
                        {
                            host_needles(&name.to_ascii_lowercase(), &mut needles);
                        }
                        (!needles.is_empty()).then_some((d, needles))
                    })
                    .collect()
            });
        if named.is_empty() {
            return Vec::new();
        }
        self.index(bound).documents_named_in(configs, ws, &named)
    }

    /// True when the project must be read whole for `configs`: `.retrylint.yaml`
    /// `services:` binds configs by name across specs, and a gRPC service config
    /// (`methodConfig`) binds by RPC names, through any document's paths or a
    /// `.proto`'s HTTP rules.
    fn binds_anywhere(&self, bound: &Path, configs: &[Candidate]) -> bool {
        if self.bound_specs.iter().any(|s| s.starts_with(bound)) {
            return true;
        }
        let ws = self.ws;
        configs.iter().any(|c| {
            ws.load(&c.path)
                .file
                .text
                .to_ascii_lowercase()
                .contains("methodconfig")
        })
    }

    /// A retry config named on the command line: the documents it may bind to
    /// (related as if named: their policies, and the configs whose layers stack with
    /// it on their operations), and the only document of the project, which takes
    /// a config that binds nowhere else.
    fn named_config(&mut self, c: &Candidate, bound: &Path) {
        self.named_configs(std::slice::from_ref(c), bound);
    }

    /// [`Related::named_config`] for several configs of one project at once (those
    /// walked under a named folder): one scan of their texts.
    fn named_configs(&mut self, configs: &[Candidate], bound: &Path) {
        if self.binds_anywhere(bound, configs) {
            self.expand(bound);
            return;
        }
        let ws = self.ws;
        let paths: Vec<PathBuf> = configs.iter().map(|c| c.path.clone()).collect();
        let mut named = self
            .index(bound)
            .documents_named_by(&paths, ws, binding_needles_in_text);
        named.extend(self.documents_named_by_identity(bound, &paths));
        for d in named {
            self.add(d.path, d.kind);
        }
        if let Some(only) = self.index(bound).only_document(ws) {
            self.add(only, NameKind::SpecLike);
        }
        // What RL016 says of an object that binds nothing names the project's specs
        // and their hosts: when the caller found one, every document comes, as
        // context (`check` runs again with `every_document`).
        if self.every_document {
            let all = self
                .index(bound)
                .documents(ws, binding_needles_in_text)
                .to_vec();
            for d in all {
                self.add_context(d.path, d.kind);
            }
        }
    }
}

/// What a retry config or client that binds to `doc` must spell out
/// (`crate::import::bind`): each server host (also the wildcard of its parent
/// domain, `*.example.com`, and the first label of a Kubernetes service host, which
/// a short service name names), each operationId (a
/// Resilience4j instance named after the operation), and `methodConfig` (a gRPC
/// service config, which names RPCs, not hosts). Lower case.
fn binding_needles(doc: &crate::source::loader::Loaded) -> Vec<Vec<u8>> {
    let Ok(tree) = &doc.tree else {
        return Vec::new();
    };
    let Some(root) = tree.root() else {
        return Vec::new();
    };
    let mut hosts: Vec<String> = Vec::new();
    if let Some(list) = tree.get(root, "servers") {
        if tree.kind(list) == crate::source::tree::Kind::Seq {
            for &item in tree.items(list) {
                if let Some(url) = tree.get(item, "url").and_then(|u| tree.as_str(u)) {
                    hosts.extend(url_host(url));
                }
            }
        }
    }
    if let Some(host) = tree.get(root, "host").and_then(|h| tree.as_str(h)) {
        hosts.extend(url_host(&format!("//{host}")));
    }
    let mut out: Vec<Vec<u8>> = Vec::new();
    for host in hosts {
        host_needles(&host, &mut out);
    }
    if let Some(paths) = tree.get(root, "paths") {
        for (_, item) in tree.entries(paths) {
            if tree.kind(item) != crate::source::tree::Kind::Map {
                continue;
            }
            for (_, op) in tree.entries(item) {
                if tree.kind(op) != crate::source::tree::Kind::Map {
                    continue;
                }
                if let Some(id) = tree.get(op, "operationId").and_then(|i| tree.as_str(i)) {
                    operation_id_needle(id, &mut out);
                }
            }
        }
    }
    // A gRPC service config binds by the RPCs it names, through the spec's paths or
    // a `.proto`'s HTTP rules: any of them may bind to any document.
    out.push(b"methodconfig".to_vec());
    out.sort();
    out.dedup();
    out
}

/// What a config must spell out to bind to a server `host` (lower case): the host,
/// the wildcard of its parent domain, and the first label of a Kubernetes service
/// host.
fn host_needles(host: &str, out: &mut Vec<Vec<u8>>) {
    let (first, parent) = host.split_once('.').unwrap_or((host, ""));
    let kubernetes = parent.is_empty() || parent.ends_with(".local") || parent.starts_with("svc");
    if kubernetes && first.len() > 1 {
        out.push(first.as_bytes().to_vec());
    }
    out.push(host.as_bytes().to_vec());
    // `*.example.com` (Istio, Envoy) and `**.example.com` (Spring Cloud
    // Gateway) cover `api.example.com`, and `*.shop.io` covers `api.eu.shop.io`:
    // the wildcard of every domain above the host (each holds `*.` and the domain).
    let mut above = parent;
    while !above.is_empty() {
        out.push(format!("*.{above}").into_bytes());
        above = above.split_once('.').map_or("", |(_, rest)| rest);
    }
}

/// An operationId as a config names it (a Resilience4j instance named after the
/// operation): lower case, at least three characters.
fn operation_id_needle(id: &str, out: &mut Vec<Vec<u8>>) {
    if id.len() > 2 {
        out.push(id.to_ascii_lowercase().into_bytes());
    }
}

/// [`binding_needles`] read from a document's text without parsing it, for every
/// document of a project at once (which documents a config may bind to): the host
/// of every absolute URL in the text and of every `host:` value, and every
/// `operationId:` value. More than the parsed document gives (a contact's URL is
/// no server), never less for a document written plainly (a host spelled with YAML
/// escapes or an operationId in a block scalar is not read).
pub(super) fn binding_needles_in_text(text: &[u8]) -> Vec<Vec<u8>> {
    use regex::bytes::Regex;
    use std::sync::LazyLock;
    static URL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?i)[a-z][a-z0-9+.\-]*://([^/?#"'\s,{}\[\]()\\<>]*)"#).expect("valid")
    });
    static HOST: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"["']?\bhost["']?[ \t]*:[ \t]*["']?([^"'\s,{}\[\]#]+)"#).expect("valid")
    });
    static OPERATION_ID: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"["']?\boperationId["']?[ \t]*:[ \t]*["']?([^"'\s,{}\[\]#]+)"#).expect("valid")
    });
    let mut out: Vec<Vec<u8>> = Vec::new();
    let authorities = URL
        .captures_iter(text)
        .chain(HOST.captures_iter(text))
        .filter_map(|c| c.get(1))
        .filter_map(|m| std::str::from_utf8(m.as_bytes()).ok());
    for authority in authorities {
        if let Some(host) = url_host(&format!("//{authority}")) {
            host_needles(&host, &mut out);
        }
    }
    for id in OPERATION_ID
        .captures_iter(text)
        .filter_map(|c| c.get(1))
        .filter_map(|m| std::str::from_utf8(m.as_bytes()).ok())
    {
        operation_id_needle(id, &mut out);
    }
    out.sort();
    out.dedup();
    out
}

/// The host of a server URL, lower case, without port or user information; `None`
/// for a relative URL or a templated host (`{region}.example.com` is no name).
fn url_host(url: &str) -> Option<String> {
    let rest = url
        .split_once("://")
        .map(|(_, r)| r)
        .or_else(|| url.strip_prefix("//"))?;
    let authority = rest.split('/').next().unwrap_or("");
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = authority
        .rsplit_once(':')
        .filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit()))
        .map_or(authority, |(h, _)| h);
    (!host.is_empty() && !host.contains('{')).then(|| host.to_ascii_lowercase())
}

/// Every file a document's `$ref`s reach, directly or through other files
/// (canonical paths; the document itself left out).
pub fn ref_closure(doc: &crate::source::loader::Loaded, ws: &Workspace) -> Vec<PathBuf> {
    let start = canonical(ws, &doc.file.path);
    let mut reached: HashSet<PathBuf> = HashSet::from([start.clone()]);
    let mut frontier = super::project_index::external_refs(doc);
    let mut out = Vec::new();
    while let Some(p) = frontier.pop() {
        if !reached.insert(p.clone()) || !p.is_file() {
            continue;
        }
        frontier.extend(super::project_index::external_refs(&ws.load(&p)));
        out.push(p);
    }
    out.sort();
    out
}

/// `p` with every link resolved (the run's memo: [`ReadBoundary::real_path`]), or
/// normalized when it does not exist.
///
/// [`ReadBoundary::real_path`]: crate::source::boundary::ReadBoundary::real_path
fn canonical(ws: &Workspace, p: &Path) -> PathBuf {
    ws.boundary().real_path(p).unwrap_or_else(|| normalize(p))
}

/// Where a name stands: its folder resolved, its last component kept. A link named
/// in a project belongs to that project wherever it leads (a link to `/etc/passwd`
/// named `application.yml` made `/etc` a project to walk).
fn standing(ws: &Workspace, p: &Path) -> PathBuf {
    match (p.parent(), p.file_name()) {
        (Some(dir), Some(name)) => {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            canonical(ws, dir).join(name)
        }
        _ => canonical(ws, p),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::loader::{Limits, Workspace};

    /// The names read from a document's text hold every name its parsed tree gives
    /// (but `methodconfig`, which every document has and which the run handles by
    /// reading the whole project): the text index never leaves out a document a
    /// config binds to.
    #[test]
    fn names_read_from_text_hold_the_parsed_names() {
        let specs = [
            "openapi: 3.0.3\ninfo: {title: a, version: '1'}\nservers:\n  - url: https://Orders.Example.com:8443/v1\n  - url: 'http://payments'\npaths:\n  /orders:\n    post:\n      operationId: createOrder\n      responses: {'201': {description: ok}}\n",
            r#"{"openapi": "3.1.0", "info": {"title": "b", "version": "1"}, "servers": [{"url": "https://api.ledger.svc.cluster.local/"}], "paths": {"/x": {"get": {"operationId": "listX", "responses": {"200": {"description": "ok"}}}}}}"#,
            "swagger: '2.0'\ninfo: {title: c, version: '1'}\nhost: \"legacy.example.org\"\npaths:\n  /y:\n    get:\n      operationId: \"getY\"\n      responses: {'200': {description: ok}}\n",
        ];
        let ws = Workspace::new(std::env::temp_dir(), Limits::default());
        for (i, text) in specs.iter().enumerate() {
            let doc = ws.load_text(Path::new(&format!("spec-{i}.yaml")), text);
            let from_text = binding_needles_in_text(text.as_bytes());
            let missing: Vec<String> = binding_needles(&doc)
                .into_iter()
                .filter(|n| n != b"methodconfig" && !from_text.contains(n))
                .map(|n| String::from_utf8_lossy(&n).into_owned())
                .collect();
            assert!(
                missing.is_empty(),
                "spec {i}: {missing:?} not read from its text"
            );
        }
        let first = binding_needles_in_text(specs[0].as_bytes());
        for wanted in [
            "orders.example.com",
            "*.example.com",
            "payments",
            "createorder",
        ] {
            assert!(first.contains(&wanted.as_bytes().to_vec()), "{wanted}");
        }
    }
}
