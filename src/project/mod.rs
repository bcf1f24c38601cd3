//! The project a run reads: its root, which files to read (discovery), loading them
//! once each, and sorting what was loaded into OpenAPI documents, retry policies and
//! skipped files, with the input findings met on the way (RL001, RL002, RL014).
//! Called once per run, from the top ([`crate::check::analyze`]); the model, the
//! join and the rules see only what [`load`] returns.

pub mod discover;
pub mod nested;
pub mod size;

use crate::config::PathFilter;
use crate::diagnostic::Diagnostic;
use crate::openapi::model::Document;
use crate::policy::rl005_invalid_policy;
use crate::source::loader::{Limits, LoadError, Loaded, Workspace};
use crate::source::refs::normalize;
use crate::source::tree::{Kind, Tree};
use crate::source::{rl001_invalid_syntax, rl002_duplicate_key, rl014_multiple_documents};
use discover::{discover, opens_as_openapi, Candidate, NameKind};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The project root for a path given on the command line: `--root`, else the nearest
/// enclosing git work tree, else the path itself (a file's directory).
pub fn project_root(given: &Path, root_override: Option<&Path>) -> PathBuf {
    if let Some(r) = root_override {
        return std::fs::canonicalize(r).unwrap_or_else(|_| r.to_path_buf());
    }
    crate::source::boundary::work_tree_or(&start_folder(given))
}

/// The folder a run over `given` starts from: `given` itself (resolved) for a
/// folder, else the folder it stands in. For a name that is a symbolic link, the
/// folder the name stands in, never where the link leads: a link to `/etc/passwd`
/// named `application.yml` must not make `/etc` the project (it was walked).
fn start_folder(given: &Path) -> PathBuf {
    let is_link = std::fs::symlink_metadata(given).is_ok_and(|m| m.file_type().is_symlink());
    let abs = std::fs::canonicalize(given).unwrap_or_else(|_| given.to_path_buf());
    if abs.is_dir() && !is_link {
        return abs;
    }
    if is_link {
        let parent = given
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        if let Ok(folder) = std::fs::canonicalize(parent) {
            return folder;
        }
    }
    abs.parent().map(Path::to_path_buf).unwrap_or_default()
}

/// The root of the project whose answer a run over `given` reports (`check::answer`):
/// `--root`, else, walking up from `given`, the first folder that is a git work tree
/// or holds a `.retrylint.yaml` (a service of a monorepo with a configuration of its
/// own is a project of its own). When that configuration lists `projects:` globs, the
/// deepest folder between `given` and it that matches one is the root instead (a
/// monorepo that names its services' folders, or a folder of test inputs). With
/// neither, the path itself (a file's folder). A named file brings the related files
/// of this project, never of the folders above it.
pub fn answer_root(given: &Path, root_override: Option<&Path>) -> PathBuf {
    if root_override.is_some() {
        return project_root(given, root_override);
    }
    answer_root_from(&start_folder(given))
}

/// [`answer_root`] from the folder `start`, taken as it is (not resolved: the read
/// boundary asks it of where a name stands, not of where a link leads).
fn answer_root_from(start: &Path) -> PathBuf {
    let start = start.to_path_buf();
    for dir in start.ancestors() {
        let config = dir.join(crate::config::FILE_NAME);
        if config.is_file() {
            // A configuration that links out of its project is not read here either.
            let projects = Some(&config)
                .filter(|c| crate::config::may_read_found(c))
                .and_then(|c| crate::config::load_from(Some(c), dir, dir).ok())
                .and_then(|c| c.projects);
            let member = projects.and_then(|globs| {
                start
                    .ancestors()
                    .take_while(|a| *a != dir)
                    .find(|a| a.strip_prefix(dir).is_ok_and(|rel| globs.is_match(rel)))
                    .map(Path::to_path_buf)
            });
            return member.unwrap_or_else(|| dir.to_path_buf());
        }
        if dir.join(".git").exists() {
            return dir.to_path_buf();
        }
    }
    start
}

/// The read boundary of a run over `paths` (after a named `.retrylint.yaml` became
/// its project) and the `--policy` files: the project roots are, for each path, the
/// root that bounds its documents' `$ref`s ([`project_root`]: `--root`, else the
/// nearest git work tree, else the path itself) and the root of the project whose
/// answer it reports ([`answer_root`]: also a folder holding `.retrylint.yaml`); the
/// named files are the paths and policies given. See [`crate::source::boundary`].
pub fn read_boundary(
    paths: &[PathBuf],
    policies: &[PathBuf],
    root: Option<&Path>,
) -> crate::source::boundary::ReadBoundary {
    let given: Vec<PathBuf> = if paths.is_empty() && policies.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths.iter().chain(policies).cloned().collect()
    };
    // A named path's roots are found from where its name stands, lexically: a named
    // link (a file, or a folder such as `deploy -> /etc`) is judged by the project
    // around its name, so one leading out of that project is not read, as a walked
    // one is not (a pull request may turn `api/openapi.yaml` into a link to
    // `~/.netrc`, and a CI step names that path). `--root` covering the target
    // admits it.
    let folder = |p: &PathBuf| -> PathBuf {
        let f = match p.parent() {
            _ if p.is_dir() => p.clone(),
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        normalize(&std::path::absolute(&f).unwrap_or(f))
    };
    let roots: Vec<PathBuf> = match root {
        Some(r) => vec![project_root(r, Some(r))],
        None => given
            .iter()
            .map(folder)
            .flat_map(|f| {
                [
                    crate::source::boundary::work_tree_or(&f),
                    answer_root_from(&f),
                ]
            })
            .collect(),
    };
    crate::source::boundary::ReadBoundary::new(&roots)
}

/// What a run reads: the command line's paths and the settings that choose files.
#[derive(Debug, Clone)]
pub struct Selection<'a> {
    /// Files or directories (empty with no policies: the current directory).
    pub paths: &'a [PathBuf],
    /// Retry-policy files given explicitly (`--policy`).
    pub policies: &'a [PathBuf],
    /// Project root override (`--root`).
    pub root: Option<&'a Path>,
    /// Directory that display paths are relative to.
    pub cwd: PathBuf,
    /// Resource limits.
    pub limits: Limits,
    /// Read only the policies given explicitly, not those found by walking.
    pub explicit_policies_only: bool,
    /// `include`/`exclude` of the configuration (`--policy` files always pass).
    pub filter: Option<&'a PathFilter>,
    /// For file arguments, also read the related files a full run would (the
    /// documents a named policy governs, the policies governing a named document).
    pub related: bool,
    /// Canonical paths of the documents `.retrylint.yaml` `services:` binds retry
    /// configs to: a named file reaching one brings the project's configs too.
    pub bound_specs: &'a [PathBuf],
    /// Texts read instead of the files on disk (an editor's unsaved buffers).
    pub overlay: Option<std::sync::Arc<crate::source::loader::Overlay>>,
    /// A named retry config reads every document of its project as context (what
    /// RL016 says of an object that binds nothing names the project's specs); else
    /// only the documents it names and their binding component.
    pub every_document: bool,
    /// The run answers for one project: a folder below a walked folder that is a
    /// project of its own ([`nested`]) is left out of the walk and listed in
    /// [`Staged::nested_projects`], for the caller to check on its own (`check`).
    pub split_projects: bool,
}

/// The hook of [`Staged::documents`].
#[derive(Clone, Copy)]
pub struct Stream<'a>(pub &'a StreamHook<'a>);

impl std::fmt::Debug for Stream<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Stream(..)")
    }
}

/// Checks one OpenAPI document (`(workspace, document, its project root)`) on its
/// own: `Some(findings)` before suppressions when nothing of it depends on another
/// file, after which its tree is released; `None` keeps it for the whole-run path.
pub type StreamHook<'a> =
    dyn Fn(&Workspace, &Arc<Loaded>, &Path) -> Option<Vec<Diagnostic>> + Sync + 'a;

/// The documents checked one by one while loading ([`Staged::documents`]). Only a
/// run with no policy file streams; with retry configs, the hook keeps for the
/// whole run each document a config may bind to (its caller knows the configs
/// before the documents load, [`load`]).
#[derive(Debug, Default)]
pub struct Streamed {
    /// Canonical paths of the documents checked (their trees released).
    pub paths: Vec<PathBuf>,
    /// Their findings, before suppressions, in load order: set aside in `spill` as
    /// each document is done, so that loading holds only the documents in flight.
    pub runs: Vec<crate::diagnostic::spill::Run>,
    /// Where [`Streamed::runs`] are kept.
    pub spill: crate::diagnostic::spill::Spill,
    /// For each of [`Streamed::paths`]: the project root bounding its `$ref`s and
    /// its place among the candidates (to take it back, [`Inputs::unstream_referenced`]).
    places: Vec<(PathBuf, usize)>,
}

impl Streamed {
    /// Each streamed document's canonical path with its place (walk order among the
    /// candidates, as [`Inputs::document_places`]).
    pub fn places(&self) -> impl Iterator<Item = (&PathBuf, usize)> {
        self.paths
            .iter()
            .zip(&self.places)
            .map(|(path, (_, place))| (path, *place))
    }

    /// The findings of every streamed document, in load order. Errors: the findings
    /// set aside could not be read back (the message says why).
    pub fn take_diagnostics(&mut self) -> Result<Vec<Diagnostic>, String> {
        let mut out = Vec::new();
        for run in std::mem::take(&mut self.runs) {
            self.spill.take(run, &mut out)?;
        }
        Ok(out)
    }
}

/// What [`Staged::documents`] found: every file loaded, sorted by role.
#[derive(Debug)]
pub struct Inputs {
    /// The loaded files, each once by canonical path (and `$ref` targets, as the
    /// model reaches them).
    pub ws: Workspace,
    /// OpenAPI documents, each with the project root that bounds its `$ref`s.
    pub documents: Vec<(Arc<Loaded>, PathBuf)>,
    /// Retry-policy files that parsed.
    pub policies: Vec<Arc<Loaded>>,
    /// Retry configs of the platforms retrylint imports (`crate::import`), each with
    /// its recognised format.
    pub configs: Vec<(Arc<Loaded>, crate::import::Format)>,
    /// `.proto` files, read for binding gRPC configs (`crate::import::proto`).
    pub protos: Vec<Arc<Loaded>>,
    /// Source files whose text mentions no retry library: read only when they call
    /// a client of another file by name (`crate::import::code`).
    pub sources_rest: Vec<(PathBuf, crate::import::code::Language)>,
    /// The paths of [`Inputs::sources_rest`] whose bytes, read by the pre-check,
    /// hold no server-route marker ([`crate::import::server::may_declare_routes`]):
    /// the server-code stage need not open them again.
    pub without_routes: HashSet<PathBuf>,
    /// Canonical paths of the files read only because a named file relates to them
    /// (a pre-commit run on one config reads its project's specs and other configs):
    /// findings about those files themselves (RL016) are not the run's business.
    pub related_only: HashSet<PathBuf>,
    /// YAML/JSON files skipped as neither document nor policy (display paths).
    pub skipped: Vec<String>,
    /// Findings met while walking and loading: RL001, and RL002/RL014 on policies.
    pub diagnostics: Vec<Diagnostic>,
    /// The documents checked while loading, not in [`Inputs::documents`].
    pub streamed: Streamed,
    /// The place among the candidates of each of [`Inputs::documents`] (ascending).
    document_places: Vec<usize>,
    skipped_paths: HashSet<PathBuf>,
    /// Streams read on a later document: canonical path -> index of that document.
    streams_read: HashMap<PathBuf, usize>,
    /// The configuration's `include`/`exclude` (what a `spec:` it leaves out says).
    filter: Option<PathFilter>,
}

/// The first stage of a run's files ([`load`]): every file found, and loaded the
/// files that say what the run binds (policies, retry configs, `.proto` files,
/// source files that mention a retry library, and any YAML/JSON file that does not
/// open as an OpenAPI document); the OpenAPI documents are loaded by
/// [`Staged::documents`], once the caller knows whether anything binds to them.
#[derive(Debug)]
pub struct Staged {
    /// The loaded files, each once by canonical path.
    pub ws: Workspace,
    /// Retry-policy files that parsed.
    pub policies: Vec<Arc<Loaded>>,
    /// Retry configs of the platforms retrylint imports (`crate::import`), each with
    /// its recognised format, in the order they were found.
    pub configs: Vec<(Arc<Loaded>, crate::import::Format)>,
    /// `.proto` files, read for binding gRPC configs (`crate::import::proto`).
    pub protos: Vec<Arc<Loaded>>,
    /// Source files whose text mentions no retry library: read only when they call
    /// a client of another file by name (`crate::import::code`).
    pub sources_rest: Vec<(PathBuf, crate::import::code::Language)>,
    /// The paths of [`Staged::sources_rest`] whose bytes hold no server-route
    /// marker (see [`Inputs::without_routes`]).
    pub without_routes: HashSet<PathBuf>,
    /// True when the run may check documents one by one (no policy file, nothing
    /// read only as related); the caller adds what it learns from the configs.
    pub may_stream: bool,
    /// With [`Selection::split_projects`]: the folders below a walked folder that are
    /// projects of their own and were left out (canonical, outermost, sorted).
    pub nested_projects: Vec<PathBuf>,
    related_only: HashSet<PathBuf>,
    paths: Vec<PathBuf>,
    root: Option<PathBuf>,
    explicit_policies_only: bool,
    /// Every file to read, first names in walk order, then the later names of a file
    /// listed already ([`other_names_last`]).
    candidates: Vec<Candidate>,
    /// How many of `candidates` are first names.
    first_names: usize,
    /// The places in `candidates` of the files left for [`Staged::documents`].
    later: Vec<usize>,
    /// The findings of the walk (RL001 on what it could not read).
    walk_diags: Vec<Diagnostic>,
    sorter: Sorter,
    filter: Option<PathFilter>,
}

/// Discovers the files of a run, and loads (in parallel; each file once) and sorts
/// those that say what the run binds: the first stage ([`Staged`]).
pub fn load(sel: &Selection<'_>) -> Staged {
    let paths: Vec<PathBuf> = if sel.paths.is_empty() && sel.policies.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        sel.paths.to_vec()
    };
    let paths = if sel.related {
        named_configs_to_projects(paths, sel.root)
    } else {
        paths
    };
    let boundary = Arc::new(read_boundary(&paths, sel.policies, sel.root));
    let ws = Workspace::new(sel.cwd.clone(), sel.limits)
        .with_overlay(sel.overlay.clone())
        .with_boundary(boundary.clone());
    let (mut candidates, walk_problems, nested_projects) = crate::timing::phase("discover", || {
        if sel.split_projects {
            let w = discover::discover_project(&paths, sel.policies);
            (w.candidates, w.problems, w.nested)
        } else {
            let (candidates, problems) = discover(&paths, sel.policies);
            (candidates, problems, Vec::new())
        }
    });
    let mut related_only: HashSet<PathBuf> = HashSet::new();
    if sel.related {
        let given: HashSet<PathBuf> = candidates.iter().map(|c| c.path.clone()).collect();
        candidates = crate::timing::phase("named files and related", || {
            discover::with_related(
                candidates,
                &ws,
                sel.root,
                sel.bound_specs,
                &paths,
                sel.every_document,
            )
        });
        related_only = candidates
            .iter()
            .filter(|c| !given.contains(&c.path))
            .map(|c| std::fs::canonicalize(&c.path).unwrap_or_else(|_| c.path.clone()))
            .collect();
    }
    if let Some(filter) = &sel.filter {
        // `--policy` files are read whatever the filter says.
        candidates.retain(|c| {
            (c.explicit && c.kind == NameKind::Policy && sel.policies.contains(&c.path))
                || filter.allows(&c.path)
        });
    }
    // The one read boundary: a walked link (to a file, or into a linked folder named
    // by a related file) whose real path leaves the project is not read at all; the
    // boundary lists it as left out.
    // A path named on the command line and refused is a file the run was asked to
    // read and could not: RL001 (exit 2), not a silent skip.
    let mut refused_named: Vec<Diagnostic> = Vec::new();
    candidates.retain(|c| {
        let admitted = boundary.admits(&c.path);
        if !admitted && c.explicit {
            refused_named.extend(rl001_invalid_syntax::diagnostic(&ws.load(&c.path)));
        }
        admitted
    });
    // The documents named explicitly that the walk left out (git-ignored, hidden,
    // outside the walked folder): read as a `$ref` target is, within the boundary
    // and the configuration's filter.
    let named = crate::timing::phase("named specs", || named_specs(&candidates, &ws, sel, &paths));
    for c in named {
        // One outside every walked folder is read as a named file's related files
        // are (`check deploy/x.retry-policy.yaml` reads its spec so).
        if sel.related && !paths.iter().any(|p| p.is_dir() && c.path.starts_with(p)) {
            related_only.insert(std::fs::canonicalize(&c.path).unwrap_or_else(|_| c.path.clone()));
        }
        let at = candidates.partition_point(|d| d.path < c.path);
        candidates.insert(at, c);
    }
    let mut diags: Vec<Diagnostic> = walk_problems
        .iter()
        .map(|p| rl001_invalid_syntax::walk_problem(&ws, &p.path, &p.message))
        .collect();
    diags.append(&mut refused_named);

    // Source files are loaded only when their text mentions a retry library (the
    // cheap pre-check of `crate::import::code`); the others are kept by path, for
    // calls made through a client of another file.
    let (sources, candidates): (Vec<Candidate>, Vec<Candidate>) = candidates
        .into_iter()
        .partition(|c| matches!(c.kind, NameKind::Source(_)));
    let checked: Vec<(Candidate, bool, bool)> =
        crate::timing::phase("load/source pre-check", || {
            sources
                .into_par_iter()
                .map(|c| {
                    let NameKind::Source(language) = c.kind else {
                        return (c, false, true);
                    };
                    let (hit, routes) = pre_check(&ws, &c, language, sel.overlay.is_some());
                    (c, hit, routes)
                })
                .collect()
        });
    let mut sources_rest: Vec<(PathBuf, crate::import::code::Language)> = Vec::new();
    let mut without_routes: HashSet<PathBuf> = HashSet::new();
    let mut candidates = candidates;
    for (c, hit, routes) in checked {
        match c.kind {
            // A named source file is read as the whole run reads it (one answer
            // however asked): without a retry library it only calls other clients.
            NameKind::Source(_) if hit => candidates.push(c),
            NameKind::Source(language) => {
                if !routes {
                    without_routes.insert(c.path.clone());
                }
                sources_rest.push((c.path, language));
            }
            _ => {}
        }
    }
    // Streaming needs a run with no policy file and no file read only as related;
    // whether a retry config binds to something is the caller's to say, from the
    // configs this stage reads ([`Staged::documents`]).
    let may_stream = related_only.is_empty()
        && sel.policies.is_empty()
        && !candidates.iter().any(|c| c.kind == NameKind::Policy);
    // One file under several names (links read as different kinds): its first name
    // loads it, the others after, from the cache, so the name it is shown by does
    // not depend on which thread came first.
    let (first, other_names) = other_names_last(candidates);
    let first_names = first.len();
    // The OpenAPI documents wait for the second stage: a file named like a spec (the
    // sorting never reads one as a config), or one whose first lines open an OpenAPI
    // document ([`opens_as_openapi`]). Under several names (rare), or with an
    // editor's buffers, every file is read here.
    let wait = sel.overlay.is_none() && other_names.is_empty();
    let waits: Vec<bool> = first
        .par_iter()
        .map(|c| {
            wait && match c.kind {
                NameKind::SpecLike => true,
                NameKind::Other | NameKind::Unlisted => opens_as_openapi(&c.path),
                _ => false,
            }
        })
        .collect();
    let candidates: Vec<Candidate> = first.into_iter().chain(other_names).collect();
    let now: Vec<usize> = (0..first_names).filter(|&i| !waits[i]).collect();
    let got: Vec<(usize, Arc<Loaded>)> = crate::timing::phase("load/bindings", || {
        let mut got: Vec<(usize, Arc<Loaded>)> = now
            .par_iter()
            .map(|&i| (i, ws.load(&candidates[i].path)))
            .collect();
        got.extend((first_names..candidates.len()).map(|i| (i, ws.load(&candidates[i].path))));
        got
    });
    let mut later: Vec<usize> = (0..first_names).filter(|&i| waits[i]).collect();
    let mut sorter = Sorter::default();
    let at = Sorting {
        paths: &paths,
        root: sel.root,
        explicit_policies_only: sel.explicit_policies_only,
        ws: &ws,
    };
    for (i, doc) in &got {
        // An OpenAPI document found here waits for the second stage with the others
        // (its tree stays in the workspace's cache until then).
        if streamable(doc, candidates[*i].kind) {
            later.push(*i);
        } else {
            sorter.sort(*i, &candidates[*i], doc, &at);
        }
    }
    drop(got);
    later.sort_unstable();
    let root = sel.root.map(Path::to_path_buf);
    Staged {
        policies: std::mem::take(&mut sorter.policies),
        configs: std::mem::take(&mut sorter.configs),
        protos: std::mem::take(&mut sorter.protos),
        sources_rest,
        without_routes,
        may_stream,
        nested_projects,
        related_only,
        paths,
        root,
        explicit_policies_only: sel.explicit_policies_only,
        candidates,
        first_names,
        later,
        walk_diags: diags,
        sorter,
        filter: sel.filter.cloned(),
        ws,
    }
}

/// The OpenAPI documents the run's files name explicitly that discovery did not
/// list: the `spec:` targets of its policies and, under a walked folder, the
/// `services:` specs of `.retrylint.yaml` (`sel.bound_specs`). The walk's ignore
/// rules decide what it discovers, not what an explicit reference reads (a
/// generated `build/openapi.yaml` that `.gitignore` lists, a `.well-known/` one):
/// such a file is read as a `$ref` target is, if the read boundary admits it and
/// the configuration's `include`/`exclude` keeps it (a `spec:` it leaves out is
/// RL005, [`spec_targets_not_openapi`]). Each is spelled as the walk of its folder
/// would spell it. The policies are loaded here, as the first stage loads them.
fn named_specs(
    candidates: &[Candidate],
    ws: &Workspace,
    sel: &Selection<'_>,
    paths: &[PathBuf],
) -> Vec<Candidate> {
    let policies: Vec<&Candidate> = candidates
        .iter()
        .filter(|c| c.kind == NameKind::Policy && (c.explicit || !sel.explicit_policies_only))
        .collect();
    let folders: Vec<(&PathBuf, PathBuf)> = paths
        .iter()
        .filter(|p| p.is_dir())
        .filter_map(|p| Some((p, std::fs::canonicalize(p).ok()?)))
        .collect();
    let mut targets: Vec<PathBuf> = policies
        .par_iter()
        .flat_map_iter(|c| {
            let doc = ws.load(&c.path);
            let dir = doc.file.path.parent().map(Path::to_path_buf);
            discover::spec_paths(&doc)
                .into_iter()
                .filter_map(move |s| Some(normalize(&dir.as_ref()?.join(s))))
        })
        .collect();
    targets.extend(
        sel.bound_specs
            .iter()
            .filter(|s| folders.iter().any(|(_, real)| s.starts_with(real)))
            .cloned(),
    );
    if targets.is_empty() {
        return Vec::new();
    }
    let real = |p: &Path| std::fs::canonicalize(p).ok();
    let mut targets: Vec<PathBuf> = targets
        .into_iter()
        .filter(|t| std::fs::metadata(t).is_ok_and(|m| m.is_file()))
        .filter_map(|t| real(&t))
        .collect();
    targets.sort();
    targets.dedup();
    // Listed already: only a candidate of the same file name can be one of them.
    let names: HashSet<&std::ffi::OsStr> = targets.iter().filter_map(|t| t.file_name()).collect();
    let listed: HashSet<PathBuf> = candidates
        .iter()
        .filter(|c| c.path.file_name().is_some_and(|n| names.contains(n)))
        .filter_map(|c| real(&c.path))
        .collect();
    targets
        .into_iter()
        .filter(|t| !listed.contains(t))
        .filter(|t| ws.boundary().admits(t))
        .filter(|t| sel.filter.is_none_or(|f| f.allows(t)))
        .map(|t| {
            // As the walk of the folder holding it spells it (`./build/openapi.yaml`).
            let path = folders
                .iter()
                .find_map(|(given, real)| Some(given.join(t.strip_prefix(real).ok()?)))
                .unwrap_or(t);
            let kind = discover::name_kind(&path).unwrap_or(NameKind::SpecLike);
            Candidate {
                path,
                kind,
                explicit: false,
            }
        })
        .collect()
}

/// The pre-check of one source file, on the bytes read once: whether it mentions
/// a retry library (then it is loaded from those bytes and parsed for clients),
/// and whether it may declare server routes (the server-code stage opens only
/// those). Never `fs::read`: a named link to `/dev/zero` or a FIFO would not end.
/// A named file that cannot be read is loaded with the others, so it is reported
/// (RL001) as any named file is. A file not read, or one an editor's buffer
/// replaces (`overlay`), may declare routes.
fn pre_check(
    ws: &Workspace,
    c: &Candidate,
    language: crate::import::code::Language,
    overlay: bool,
) -> (bool, bool) {
    let mut routes = true;
    let hit = ws.read_if(&c.path, |b| {
        routes = overlay || crate::import::server::may_declare_routes(language, b);
        language.may_hold_retries(b)
    });
    match hit {
        Ok(hit) => (hit, routes),
        Err(_) => (c.explicit, true),
    }
}

impl Staged {
    /// How many files the second stage loads as OpenAPI documents (at most: one
    /// may turn out to be none).
    pub fn document_candidates(&self) -> usize {
        self.later.len()
    }

    /// The second stage: loads the OpenAPI documents (in parallel; each file once)
    /// and sorts them with the rest. With `stream` (and [`Staged::may_stream`]),
    /// each document is checked by the hook as it loads and, when the hook says it
    /// stands alone, only its findings stay ([`Streamed`]); files of
    /// [`BIG_FILE_BYTES`] or more then go one at a time.
    pub fn documents(self, stream: Option<Stream<'_>>) -> Inputs {
        let Staged {
            ws,
            policies,
            configs,
            protos,
            sources_rest,
            without_routes,
            may_stream,
            nested_projects: _,
            related_only,
            paths,
            root,
            explicit_policies_only,
            candidates,
            first_names,
            later,
            walk_diags,
            mut sorter,
            filter,
        } = self;
        let stream = stream.filter(|_| may_stream);
        let root = root.as_deref();
        // A document checked as it is loaded leaves only its findings.
        let spill = crate::diagnostic::spill::Spill::new();
        let load_one = |c: &Candidate| -> Got {
            let doc = ws.load(&c.path);
            if let Some(hook) = stream {
                if streamable(&doc, c.kind) {
                    let project = project_root(&root_arg(&paths, &c.path), root);
                    if let Some(found) = (hook.0)(&ws, &doc, &project) {
                        let path = doc.file.path.clone();
                        drop(doc);
                        ws.release(&path);
                        return Got::Streamed(path, project, spill.put(found));
                    }
                }
            }
            Got::Loaded(doc)
        };
        let (firsts, others): (Vec<usize>, Vec<usize>) =
            later.iter().partition(|&&i| i < first_names);
        let first_candidates: Vec<Candidate> =
            firsts.iter().map(|&i| candidates[i].clone()).collect();
        let got: Vec<Got> = crate::timing::phase("load", || {
            let all = || match stream {
                Some(_) => load_big_one_at_a_time(&first_candidates, &load_one),
                None => first_candidates.par_iter().map(load_one).collect(),
            };
            // The check of a document recurses per nesting level: on the deep-stack pool.
            let mut got: Vec<Got> = match stream {
                Some(_) => crate::deep_stack::run(all),
                None => all(),
            };
            got.extend(others.iter().map(|&i| load_one(&candidates[i])));
            got
        });
        let mut streamed = Streamed {
            spill,
            ..Streamed::default()
        };
        let at = Sorting {
            paths: &paths,
            root,
            explicit_policies_only,
            ws: &ws,
        };
        for (i, g) in firsts.into_iter().chain(others).zip(got) {
            match g {
                Got::Loaded(doc) => sorter.sort(i, &candidates[i], &doc, &at),
                Got::Streamed(path, project, found) => {
                    streamed.paths.push(path);
                    streamed.runs.push(found);
                    streamed.places.push((project, i));
                }
            }
        }
        let Sorter {
            mut documents,
            policies: late_policies,
            configs: late_configs,
            protos: late_protos,
            mut skipped,
            mut skipped_paths,
            streams_read,
            diags: mut sorted_diags,
        } = sorter;
        // The sorting reads a file named like a spec, or opening as one, only as a
        // document: every policy, config and `.proto` came in the first stage.
        debug_assert!(
            late_policies.is_empty() && late_configs.is_empty() && late_protos.is_empty()
        );
        // In walk order, as one stage would have them.
        documents.sort_by_key(|(i, _, _)| *i);
        skipped.sort_by_key(|(i, _)| *i);
        sorted_diags.sort_by_key(|(i, _)| *i);
        // A file skipped under one name and read under another (a link named like a
        // policy) is an input.
        for doc in documents
            .iter()
            .map(|(_, d, _)| d)
            .chain(&policies)
            .chain(configs.iter().map(|(d, _)| d))
        {
            skipped_paths.remove(&doc.file.path);
        }
        let mut diags = walk_diags;
        diags.extend(sorted_diags.into_iter().map(|(_, d)| d));
        for doc in &policies {
            diags.extend(rl002_duplicate_key::check_file(doc));
            diags.extend(rl014_multiple_documents::check_file(
                doc,
                rl014_multiple_documents::Role::Policy,
            ));
        }
        let document_places = documents.iter().map(|(i, _, _)| *i).collect();
        Inputs {
            ws,
            documents: documents.into_iter().map(|(_, d, r)| (d, r)).collect(),
            policies,
            configs,
            protos,
            sources_rest,
            without_routes,
            related_only,
            skipped: skipped.into_iter().map(|(_, s)| s).collect(),
            diagnostics: diags,
            streamed,
            document_places,
            skipped_paths,
            streams_read,
            filter,
        }
    }
}

/// What the sorting of loaded files needs of the run.
struct Sorting<'a> {
    paths: &'a [PathBuf],
    root: Option<&'a Path>,
    explicit_policies_only: bool,
    ws: &'a Workspace,
}

/// Loaded files sorted by role, each kept with its place among the candidates (so
/// the two stages give what one pass in walk order gives).
#[derive(Debug, Default)]
struct Sorter {
    documents: Vec<(usize, Arc<Loaded>, PathBuf)>,
    policies: Vec<Arc<Loaded>>,
    configs: Vec<(Arc<Loaded>, crate::import::Format)>,
    protos: Vec<Arc<Loaded>>,
    skipped: Vec<(usize, String)>,
    skipped_paths: HashSet<PathBuf>,
    streams_read: HashMap<PathBuf, usize>,
    diags: Vec<(usize, Diagnostic)>,
}

impl Sorter {
    fn skip(&mut self, i: usize, doc: &Loaded) {
        // `--verbose` says why when the reason is not "neither" (the
        // `PATH: skipped: WHY` form the code reader's notes use).
        let listed = match doc.tree {
            Err(LoadError::Encrypted) => format!(
                "{}: skipped: encrypted by git-crypt (unlock the repository to lint it)",
                doc.file.display
            ),
            _ => doc.file.display.clone(),
        };
        self.skipped.push((i, listed));
        self.skipped_paths.insert(doc.file.path.clone());
    }

    /// Sorts one loaded file (the candidate at place `i`): an OpenAPI document, a
    /// policy, a retry config, a `.proto`, a finding (RL001, RL014), or skipped.
    /// Only a retry config keeps the documents of its stream.
    fn sort(&mut self, i: usize, cand: &Candidate, doc: &Arc<Loaded>, at: &Sorting<'_>) {
        let configs = self.configs.len();
        self.sort_one(i, cand, doc, at);
        if self.configs.len() == configs {
            doc.forget_stream();
        }
    }

    fn sort_one(&mut self, i: usize, cand: &Candidate, doc: &Arc<Loaded>, at: &Sorting<'_>) {
        let root_arg = root_arg(at.paths, &cand.path);
        // Source code that mentions a retry library: read by `crate::import::code`;
        // one that cannot be read as text is skipped (code is not a spec: no RL001).
        if let NameKind::Source(language) = cand.kind {
            match &doc.tree {
                Err(LoadError::Syntax(_)) => self
                    .configs
                    .push((doc.clone(), crate::import::Format::Code(language))),
                // A source file named on the command line that cannot be read (missing,
                // unreadable, not UTF-8, binary, too large) is reported: its retries
                // would go unchecked. Found by the walk, it is skipped (listed by
                // `--verbose`).
                Err(e) if cand.explicit => {
                    self.diags
                        .push((i, rl001_invalid_syntax::from_error(doc, e)));
                }
                _ => {
                    self.skip(i, doc);
                }
            }
            return;
        }
        // A `.proto` is read by the proto index (its errors are found there).
        if cand.kind == NameKind::Proto {
            self.protos.push(doc.clone());
            return;
        }
        // nginx, HAProxy and Traefik TOML are read by name and text; a YAML parse
        // error says nothing about them.
        if cand.kind == NameKind::TextConfig {
            let unreadable = matches!(
                doc.tree,
                Err(LoadError::Io(_)
                    | LoadError::NotUtf8(_)
                    | LoadError::Binary
                    | LoadError::Encrypted
                    | LoadError::TooLarge { .. })
            );
            let encrypted = matches!(doc.tree, Err(LoadError::Encrypted));
            let config_name = cand.path.file_name().is_some_and(|n| {
                let n = n.to_string_lossy().to_ascii_lowercase();
                n.starts_with("nginx")
                    || n.starts_with("haproxy")
                    || n.starts_with("traefik")
                    || ((n.starts_with("application") || n.starts_with("bootstrap"))
                        && n.ends_with(".properties"))
                    // The AWS shared config.
                    || (n == "config"
                        && cand
                            .path
                            .parent()
                            .and_then(|p| p.file_name())
                            .is_some_and(|d| d == ".aws"))
            });
            match crate::import::recognize(doc) {
                // A Traefik TOML template that is not TOML yet: skipped, listed by
                // `--verbose` ("render it first").
                Some(crate::import::Format::TraefikToml)
                    if crate::import::traefik::is_broken_template(doc) =>
                {
                    self.skip(i, doc);
                }
                Some(format) if !unreadable => self.configs.push((doc.clone(), format)),
                // A file that cannot be read as text (not UTF-8, binary, unreadable)
                // named on the command line or named like a proxy config is
                // reported, never skipped: its retries would go unchecked.
                // One over `--max-file-size` was never read, so its text could not
                // say what it is: reported too, whatever its name.
                _ if unreadable
                    && (cand.explicit
                        || (config_name && !encrypted)
                        || matches!(doc.tree, Err(LoadError::TooLarge { .. }))) =>
                {
                    if let Err(e) = &doc.tree {
                        self.diags
                            .push((i, rl001_invalid_syntax::from_error(doc, e)));
                    }
                }
                _ => {
                    self.skip(i, doc);
                }
            }
            return;
        }
        match (&doc.tree, cand.kind) {
            (Err(e), kind) => {
                let reported = match kind {
                    // A foreign-named file (a README given with `*`) is no spec unless
                    // it says so; one that cannot be read at all is still reported.
                    NameKind::Unlisted => {
                        matches!(e, LoadError::Io(_) | LoadError::TooLarge { .. })
                            || declares_openapi(&doc.file.text)
                    }
                    // An unreadable `.yaml`/`.json` may be a spec or a config
                    // (`application.yml`, a gRPC service config): reported, never
                    // silently skipped.
                    // One over `--max-file-size` is never read, so its content
                    // cannot say what it is: reported (RL001, "larger than the
                    // limit"), as `docs/limits.md` says, never skipped as "neither".
                    // A binary one (NUL bytes, not UTF-16/32 text) is reported as a
                    // named one is: a corrupted spec must not pass the walk quietly.
                    // One encrypted by git-crypt is skipped: a locked checkout holds
                    // its secrets so by design.
                    NameKind::Other => {
                        cand.explicit
                            || matches!(
                                e,
                                LoadError::Io(_) | LoadError::TooLarge { .. } | LoadError::Binary
                            )
                            || declares_openapi(&doc.file.text)
                            || crate::import::recognize::looks_like_config_text(&doc.file.text)
                    }
                    NameKind::Policy | NameKind::SpecLike => {
                        cand.explicit || !matches!(e, LoadError::Encrypted)
                    }
                    NameKind::TextConfig | NameKind::Proto | NameKind::Source(_) => false,
                };
                if reported {
                    self.diags
                        .push((i, rl001_invalid_syntax::from_error(doc, e)));
                } else {
                    self.skip(i, doc);
                }
            }
            (Ok(_), NameKind::Policy) if at.explicit_policies_only && !cand.explicit => {}
            (Ok(_), NameKind::Policy) => self.policies.push(doc.clone()),
            (Ok(_), _) if has_top_level_key(doc, &["openapi", "swagger"]) => {
                self.documents
                    .push((i, doc.clone(), project_root(&root_arg, at.root)));
            }
            // A retry config of a platform retrylint imports (Kubernetes manifests,
            // Envoy, Kong, Traefik): read by the importers, never "skipped".
            (Ok(_), kind)
                if kind != NameKind::SpecLike && crate::import::recognize(doc).is_some() =>
            {
                if let Some(format) = crate::import::recognize(doc) {
                    self.configs.push((doc.clone(), format));
                }
            }
            // A stream whose first document is not OpenAPI but a later one is: a file
            // named on the command line or like a spec is read on that document (with
            // RL014); a walked file of another name is a stream by design (Kubernetes
            // manifests) and is skipped below.
            (Ok(_), kind) if cand.explicit || kind == NameKind::SpecLike => {
                match later_openapi_document(doc) {
                    Some((index, tree)) => {
                        self.diags.extend(
                            (rl014_multiple_documents::later_openapi_document(doc, index))
                                .into_iter()
                                .map(|d| (i, d)),
                        );
                        self.streams_read.insert(doc.file.path.clone(), index);
                        self.documents.push((
                            i,
                            at.ws.substitute(doc, tree),
                            project_root(&root_arg, at.root),
                        ));
                    }
                    None => {
                        self.skip(i, doc);
                    }
                }
            }
            (Ok(_), _) => {
                self.skip(i, doc);
            }
        }
    }
}

impl Inputs {
    /// Takes back into [`Inputs::documents`] the streamed documents that a document
    /// of the whole-run path reads through a `$ref` (the workspace loaded them as
    /// `$ref` targets, so they are in its cache): their findings alone are dropped,
    /// and they are modelled and checked with the documents that read them, as a
    /// run without streaming would. Returns their places in [`Inputs::documents`],
    /// ascending. Which files a `$ref` reaches is known only once the document
    /// holding it is read, and a streamed document is released as soon as it is
    /// checked: knowing it before streaming would mean holding every document.
    pub fn unstream_referenced(&mut self) -> Vec<usize> {
        let ws = &self.ws;
        let referenced: Vec<PathBuf> = self
            .streamed
            .paths
            .iter()
            .filter(|p| ws.is_referenced(p))
            .cloned()
            .collect();
        self.unstream_where(|p| referenced.contains(p))
    }

    /// Takes back into [`Inputs::documents`] the streamed documents whose canonical
    /// path satisfies `take` (read again; their findings alone are dropped). Returns
    /// their places in [`Inputs::documents`], ascending.
    pub fn unstream_where(&mut self, take: impl Fn(&PathBuf) -> bool) -> Vec<usize> {
        let taken: Vec<usize> = (0..self.streamed.paths.len())
            .filter(|&k| take(&self.streamed.paths[k]))
            .collect();
        if taken.is_empty() {
            return Vec::new();
        }
        let mut taken_places: HashSet<usize> = HashSet::new();
        for &k in taken.iter().rev() {
            let path = self.streamed.paths.remove(k);
            // Its findings alone are not the run's: dropped unread.
            drop(self.streamed.runs.remove(k));
            let (root, place) = self.streamed.places.remove(k);
            let doc = self.ws.load(&path);
            let at = self.document_places.partition_point(|&p| p < place);
            self.document_places.insert(at, place);
            self.documents.insert(at, (doc, root));
            taken_places.insert(place);
        }
        self.document_places
            .iter()
            .enumerate()
            .filter(|(_, p)| taken_places.contains(p))
            .map(|(i, _)| i)
            .collect()
    }

    /// The place (walk order among the candidates) of each of
    /// [`Inputs::documents`], same order.
    pub fn document_places(&self) -> &[usize] {
        &self.document_places
    }

    /// Canonical paths of the files read as input: documents, policies, `$ref`
    /// targets, files reported as unreadable; not the files skipped as neither
    /// document nor policy (unless a `$ref` reached one).
    pub fn read_paths(&self) -> Vec<PathBuf> {
        self.ws
            .loaded_paths()
            .into_iter()
            .filter(|p| !self.skipped_paths.contains(p) || self.ws.is_referenced(p))
            .collect()
    }

    /// RL005 for the `spec:` paths of `policy` that are no OpenAPI description of
    /// the run (see [`spec_targets_not_openapi`]).
    pub fn spec_targets_not_openapi(
        &self,
        policy: &crate::policy::model::PolicyFile,
        documents: &[Document],
    ) -> Vec<Diagnostic> {
        spec_targets_not_openapi(
            policy,
            documents,
            &self.ws,
            &self.streams_read,
            self.filter.as_ref(),
        )
    }
}

/// Files of this size (bytes) or more are streamed one at a time
/// ([`load_big_one_at_a_time`]).
pub const BIG_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// `load_one` over every candidate, in order, in parallel, except that files of
/// [`BIG_FILE_BYTES`] or more go one after another on one lane beside the rest: two
/// documents of tens of MB in flight at once would double the peak memory of a
/// streamed run (a 47 MB spec's tree and model take about 0.3 GB), while the other
/// core still works through the smaller files.
fn load_big_one_at_a_time<T: Send>(
    candidates: &[Candidate],
    load_one: &(impl Fn(&Candidate) -> T + Sync),
) -> Vec<T> {
    let (big, small): (Vec<usize>, Vec<usize>) = (0..candidates.len()).partition(|&i| {
        std::fs::metadata(&candidates[i].path).is_ok_and(|m| m.len() >= BIG_FILE_BYTES)
    });
    let (big, small) = rayon::join(
        || {
            big.iter()
                .map(|&i| (i, load_one(&candidates[i])))
                .collect::<Vec<_>>()
        },
        || {
            small
                .par_iter()
                .map(|&i| (i, load_one(&candidates[i])))
                .collect::<Vec<_>>()
        },
    );
    let mut all: Vec<(usize, T)> = big.into_iter().chain(small).collect();
    all.sort_unstable_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, got)| got).collect()
}

/// `candidates` split into the first name of each file and the later names of a file
/// listed already (a symbolic link kept because its name says another reader:
/// `discover::reader_of`), in order. Only links are resolved.
fn other_names_last(candidates: Vec<Candidate>) -> (Vec<Candidate>, Vec<Candidate>) {
    let links: Vec<bool> = candidates
        .iter()
        .map(|c| std::fs::symlink_metadata(&c.path).is_ok_and(|m| m.file_type().is_symlink()))
        .collect();
    if !links.contains(&true) {
        return (candidates, Vec::new());
    }
    let real = |c: &Candidate| std::fs::canonicalize(&c.path).unwrap_or_else(|_| c.path.clone());
    let mut seen: HashSet<PathBuf> = candidates
        .iter()
        .zip(&links)
        .filter(|(_, link)| !**link)
        .map(|(c, _)| real(c))
        .collect();
    let (mut first, mut later) = (Vec::new(), Vec::new());
    for (c, link) in candidates.into_iter().zip(links) {
        if !link || seen.insert(real(&c)) {
            first.push(c);
        } else {
            later.push(c);
        }
    }
    (first, later)
}

/// A loaded file, or the findings of a document checked as it was loaded.
enum Got {
    Loaded(Arc<Loaded>),
    /// Its canonical path, project root and findings.
    Streamed(PathBuf, PathBuf, crate::diagnostic::spill::Run),
}

/// The command-line path a candidate was found under (itself when named).
fn root_arg(paths: &[PathBuf], candidate: &Path) -> PathBuf {
    paths
        .iter()
        .find(|p| candidate.starts_with(p))
        .cloned()
        .unwrap_or_else(|| candidate.to_path_buf())
}

/// Whether the sorting below takes `doc` for an OpenAPI document on its first
/// YAML document (the only ones streamed).
fn streamable(doc: &Loaded, kind: NameKind) -> bool {
    doc.tree.is_ok()
        && !matches!(
            kind,
            NameKind::Policy | NameKind::Proto | NameKind::TextConfig | NameKind::Source(_)
        )
        && has_top_level_key(doc, &["openapi", "swagger"])
}

fn has_top_level_key(doc: &Loaded, keys: &[&str]) -> bool {
    let Ok(tree) = &doc.tree else { return false };
    let Some(root) = tree.root() else {
        return false;
    };
    tree.kind(root) == Kind::Map && keys.iter().any(|k| tree.get(root, k).is_some())
}

/// True when text that failed to parse still declares itself an OpenAPI document: a
/// line starting with `openapi:` or `swagger:`, or a JSON `"openapi"`/`"swagger"` key
/// near the start. Such a file is reported (RL001) instead of skipped, whatever its
/// name, so a broken spec never passes CI silently.
fn declares_openapi(text: &str) -> bool {
    let mut end = text.len().min(64 * 1024);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    head.lines().any(|l| {
        let l = l.trim_end();
        ["openapi:", "swagger:", "openapi :", "swagger :"]
            .iter()
            .any(|p| l.starts_with(p))
    }) || head.contains("\"openapi\"")
        || head.contains("\"swagger\"")
}

/// For a file whose first YAML document is not an OpenAPI description: the first
/// later document of its stream that is (its 0-based index among the non-empty
/// documents, and its tree). `None` for one document, or when none is.
fn later_openapi_document(doc: &Loaded) -> Option<(usize, Tree)> {
    let tree = doc.tree.as_ref().ok()?;
    if tree.later_documents().is_empty() {
        return None;
    }
    Tree::parse_stream(doc.file.text.clone())
        .ok()?
        .into_iter()
        .enumerate()
        .skip(1)
        .find(|(_, t)| {
            t.root().is_some_and(|r| {
                t.kind(r) == Kind::Map
                    && (t.get(r, "openapi").is_some() || t.get(r, "swagger").is_some())
            })
        })
}

/// RL005 for each `spec:` path of `policy` that names an existing file which is not
/// read as an OpenAPI description: unreadable or not parsable (the error itself is
/// RL001 on the file), its first document without a top-level `openapi`/`swagger`,
/// or a stream whose OpenAPI document is a later one, or left out by the
/// configuration's `include`/`exclude` (never read, so the policy governs nothing
/// there: said, not silently passed). A missing file is RL005 from the join.
fn spec_targets_not_openapi(
    policy: &crate::policy::model::PolicyFile,
    documents: &[Document],
    ws: &Workspace,
    streams_read: &HashMap<PathBuf, usize>,
    filter: Option<&PathFilter>,
) -> Vec<Diagnostic> {
    let dir = policy.doc.file.path.parent().unwrap_or(Path::new(""));
    let mut out = Vec::new();
    for s in &policy.spec {
        let joined = normalize(&dir.join(&s.value));
        if !joined.is_file() {
            continue;
        }
        let canonical = std::fs::canonicalize(&joined).unwrap_or_else(|_| joined.clone());
        let why = if !ws.boundary().admits(&joined) {
            // Never opened: what it holds is no business of this run.
            "which lies outside the project root, so it is not read".to_string()
        } else if let Some(&index) = streams_read.get(&canonical) {
            format!(
                "whose first YAML document is not an OpenAPI description: the OpenAPI description is the {} document of the stream",
                rl014_multiple_documents::ordinal(index)
            )
        } else if documents
            .iter()
            .any(|d| d.doc.file.path == joined || d.doc.file.path == canonical)
        {
            continue;
        } else if filter.is_some_and(|f| !f.allows(&joined)) {
            // Never opened either: the configuration leaves it out, so the policy
            // governs nothing there; said, never a silent pass.
            out.push(
                Diagnostic::new(
                    &rl005_invalid_policy::META,
                    format!(
                        "`spec` names `{}`, which `{}` leaves out (`include`/`exclude`), so it is not read and this policy governs nothing there",
                        s.value,
                        crate::config::FILE_NAME
                    ),
                    s.at.value_location(),
                    "excluded by the configuration",
                )
                .with_help(format!(
                    "stop excluding the spec in `{}`, or remove it from this policy's `spec`",
                    crate::config::FILE_NAME
                )),
            );
            continue;
        } else {
            let doc = ws.load(&joined);
            match &doc.tree {
                Err(e) => {
                    let rl001 = rl001_invalid_syntax::from_error(&doc, e);
                    let why = format!("which could not be read: {}", rl001.message);
                    out.push(rl001);
                    why
                }
                Ok(_) if has_top_level_key(&doc, &["openapi", "swagger"]) => continue,
                Ok(_) => match later_openapi_document(&doc) {
                    Some((index, _)) => format!(
                        "whose first YAML document is not an OpenAPI description: the OpenAPI description is the {} document of the stream",
                        rl014_multiple_documents::ordinal(index)
                    ),
                    None => "which is not an OpenAPI description (its first YAML document has no top-level `openapi` or `swagger`)".to_string(),
                },
            }
        };
        out.push(
            Diagnostic::new(
                &rl005_invalid_policy::META,
                format!("`spec` names `{}`, {why}", s.value),
                s.at.value_location(),
                "not one OpenAPI description",
            )
            .with_help("point `spec` at a file that is one OpenAPI description (a top-level `openapi` or `swagger` key), relative to the policy file"),
        );
    }
    out
}

/// A named configuration file (`.retrylint.yaml`) changes what every file of its
/// project reports, so it stands for its whole project: it is replaced by the root
/// of the project it configures ([`answer_root`]: its own folder, or `--root`),
/// which is walked as `retrylint check ROOT` would walk it. Not the git work tree
/// around it: a service's own configuration in a monorepo configures that service.
fn named_configs_to_projects(paths: Vec<PathBuf>, root: Option<&Path>) -> Vec<PathBuf> {
    paths
        .into_iter()
        .map(|p| {
            if p.file_name().is_some_and(|n| n == crate::config::FILE_NAME) && p.is_file() {
                answer_root(&p, root)
            } else {
                p
            }
        })
        .collect()
}
