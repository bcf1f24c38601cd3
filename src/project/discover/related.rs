//! What a run over named files or a folder below the project root must read besides
//! them, so that it finds what the whole project's run finds for them
//! (`crate::check::answer` then keeps the part of that answer that concerns them).
//! The project is [`crate::project::answer_root`]'s: the nearest git work tree or
//! folder holding a `.retrylint.yaml` (or a `projects:` folder it names).

use super::{discover, is_openapi, name_kind, spec_paths, Candidate, NameKind, ProjectIndex};
use crate::source::loader::Workspace;
use crate::source::refs::normalize;
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};

/// Adds the files related to the files asked about among `candidates` (those named,
/// and those walked under a named folder), as the whole project's run reads them:
/// - a policy: the OpenAPI documents it governs (its `spec:` paths, relative to it;
///   without `spec:`, the documents in its folder and below);
/// - an OpenAPI document: the policies under the project root that govern it (one
///   whose `spec:` names it, wherever it is, or one without `spec:` in its folder or
///   a parent), from a [`ProjectIndex`] built once per root; the other documents that
///   reach a file its `$ref`s reach (a finding on a shared component is one finding
///   over every document using it); and the whole project when a retry config or
///   client there may bind to it: `.retrylint.yaml` `services:` binds configs to it
///   (`bound_specs`), it is the only document of its project, or a config's or
///   source file's text names one of its server hosts or operationIds
///   ([`binding_needles`]; binding itself then decides, as in the whole run);
/// - a file asked about that is not a policy (a `$ref` fragment such as a shared
///   `responses.yaml`, a document whose components others use): the documents whose
///   `$ref` closure includes it;
/// - a named retry config, client in code or `.proto`: the whole project (its
///   documents, the configs whose layers stack with it, the clients whose calls it
///   binds); walked under a named folder, the whole project when the project has a
///   `.retrylint.yaml` of its own, else the documents `services:` names and the only
///   document of the project (a folder of a repository without one is judged with
///   what it names, not with every spec of the repository).
///
/// Repeated until nothing new is found.
pub fn with_related(
    candidates: Vec<Candidate>,
    ws: &Workspace,
    root: Option<&Path>,
    bound_specs: &[PathBuf],
    named: &[PathBuf],
) -> Vec<Candidate> {
    // Named folders (canonical) with their project roots.
    let folders: Vec<(PathBuf, PathBuf)> = named
        .iter()
        .filter(|p| p.is_dir())
        .map(|p| {
            let folder = canonical(p);
            let root = crate::project::answer_root(&folder, root);
            (folder, root)
        })
        .collect();
    let mut related = Related {
        seen: candidates.iter().map(|c| canonical(&c.path)).collect(),
        queue: VecDeque::new(),
        out: Vec::new(),
        indexes: HashMap::new(),
        expanded: HashSet::new(),
        needles: HashMap::new(),
        asked: HashSet::new(),
        roots: HashMap::new(),
        ws,
        root,
        bound_specs,
    };
    // Named files, and the YAML/JSON files walked under a named folder below its
    // project root (a folder that is a project root is read whole by its walk).
    let below_root = |c: &Candidate| {
        !folders.is_empty() && {
            let abs = canonical(&c.path);
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
    related.asked = related.queue.iter().map(|c| canonical(&c.path)).collect();
    // Retry configs, clients and `.proto` files walked under a named folder.
    let mut config_roots: Vec<PathBuf> = candidates
        .iter()
        .filter(|c| {
            !c.explicit
                && matches!(
                    c.kind,
                    NameKind::TextConfig | NameKind::Proto | NameKind::Source(_)
                )
                && below_root(c)
        })
        .filter_map(|c| standing(&c.path).parent().map(Path::to_path_buf))
        .collect::<std::collections::BTreeSet<PathBuf>>()
        .into_iter()
        .map(|dir| crate::project::answer_root(&dir, root))
        .collect();
    related.out = candidates;
    let mut config_roots_done: HashSet<PathBuf> = HashSet::new();
    // Named files other than policies (possible `$ref` targets), by project root.
    let mut fragments: HashMap<PathBuf, Vec<PathBuf>> = HashMap::new();
    loop {
        while let Some(c) = related.queue.pop_front() {
            related.visit(&c, &mut fragments, &mut config_roots);
        }
        for bound in std::mem::take(&mut config_roots) {
            if config_roots_done.insert(bound.clone()) {
                related.walked_configs_of(&bound);
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
                related.asked.insert(canonical(&d.path));
                related.add(d.path, d.kind);
            }
        }
    }
    let mut out = related.out;
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
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
    ws: &'a Workspace,
    root: Option<&'a Path>,
    bound_specs: &'a [PathBuf],
}

impl Related<'_> {
    fn add(&mut self, path: PathBuf, kind: NameKind) {
        if self.seen.insert(canonical(&path)) {
            let c = Candidate {
                path,
                kind,
                explicit: false,
            };
            self.out.push(c.clone());
            self.queue.push_back(c);
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
        let (found, _) = discover(&[bound.to_path_buf()], &[]);
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
    }

    /// The documents the retry configs walked under a named folder of project
    /// `bound` bind to (see [`with_related`]).
    fn walked_configs_of(&mut self, bound: &Path) {
        if bound.join(crate::config::FILE_NAME).is_file() {
            self.expand(bound);
            return;
        }
        let specs: Vec<PathBuf> = self
            .bound_specs
            .iter()
            .filter(|s| s.starts_with(bound) && s.is_file())
            .cloned()
            .collect();
        for spec in specs {
            self.add(spec, NameKind::SpecLike);
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
        config_roots: &mut Vec<PathBuf>,
    ) {
        if !c.path.is_file() {
            return;
        }
        let ws = self.ws;
        let doc = ws.load(&c.path);
        let abs = canonical(&c.path);
        // The project of a name is where the name stands, not where a link leads.
        let here = standing(&c.path);
        let dir = here.parent().map(Path::to_path_buf).unwrap_or_default();
        let bound = self.answer_root(&here);
        if self.expanded.contains(&bound) {
            // Everything of the project is read already.
            return;
        }
        if c.kind == NameKind::Policy {
            let specs = spec_paths(&doc);
            if specs.is_empty() {
                let (found, _) = discover(std::slice::from_ref(&dir), &[]);
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
            if c.explicit {
                self.expand(&bound);
            } else {
                config_roots.push(bound);
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
        self.needles
            .entry(bound)
            .or_default()
            .extend(binding_needles(&doc));
    }

    /// Reads the whole project of the documents visited since the last call when a
    /// config or client there names one of them (one scan of each project for all
    /// their needles).
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
        // Binding depends on every spec (the first route that may match an
        // operation, findings grouped per node across the specs a route serves), so
        // a config that names the document brings the whole project: the answer is
        // exact, at the cost of a whole run where configs name the document.
        if !self.index(bound).configs_mentioning(needles, ws).is_empty() {
            self.expand(bound);
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
        let (first, parent) = host.split_once('.').unwrap_or((host.as_str(), ""));
        let kubernetes =
            parent.is_empty() || parent.ends_with(".local") || parent.starts_with("svc");
        if kubernetes && first.len() > 1 {
            out.push(first.as_bytes().to_vec());
        }
        out.push(host.as_bytes().to_vec());
        // `*.example.com` (Istio, Envoy) and `**.example.com` (Spring Cloud
        // Gateway) cover `api.example.com`; both hold `*.example.com`.
        if parent.contains('.') {
            out.push(format!("*.{parent}").into_bytes());
        }
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
                    if id.len() > 2 {
                        out.push(id.to_ascii_lowercase().into_bytes());
                    }
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
    let start = canonical(&doc.file.path);
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

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| normalize(p))
}

/// Where a name stands: its folder resolved, its last component kept. A link named
/// in a project belongs to that project wherever it leads (a link to `/etc/passwd`
/// named `application.yml` made `/etc` a project to walk).
fn standing(p: &Path) -> PathBuf {
    match (p.parent(), p.file_name()) {
        (Some(dir), Some(name)) => {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            canonical(dir).join(name)
        }
        _ => canonical(p),
    }
}
