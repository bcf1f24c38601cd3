//! Which files to read: walk the given paths (honouring `.gitignore`, `.ignore` and
//! hidden-file rules, like ripgrep) and classify each YAML/JSON file by name.
//! Content-based recognition (a top-level `openapi` or `swagger` key) happens after
//! loading; a file that is neither is skipped without a finding.

mod global_gitignore;
mod project_index;
mod related;

pub use project_index::ProjectIndex;
pub use related::{ref_closure, with_related};

use crate::source::loader::Loaded;
use crate::source::tree::Kind;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// What a file's name says it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NameKind {
    /// `retry-policy.yaml`, `*.retry-policy.yml`, or given with `--policy`.
    Policy,
    /// `openapi.*`, `swagger.*`, `*.openapi.*`: must parse (RL001 otherwise).
    SpecLike,
    /// Any other `.yaml`/`.yml`/`.json`: an OpenAPI document only if its content says so.
    Other,
    /// A regular file named on the command line whose name is neither YAML nor JSON
    /// (`api-spec`, `spec.txt`): an OpenAPI document if its content says so, else
    /// skipped (listed by `--verbose`); RL001 only when it cannot be read or declares
    /// `openapi:`/`swagger:` but does not parse.
    Unlisted,
    /// A proxy configuration that is not YAML or JSON, by name: `*.conf`, `*.cfg`,
    /// `*.toml` (nginx, HAProxy, Traefik), `*.properties` (Spring), `config` (AWS
    /// shared config, also in a hidden `.aws/` folder): a retry config if its text
    /// says so
    /// (`crate::import::recognize`), else skipped without a finding.
    TextConfig,
    /// A Protocol Buffers file (`*.proto`): read for binding gRPC method configs to
    /// HTTP operations (`crate::import::proto`); never a finding of its own except
    /// RL001.
    Proto,
    /// Application source code (`.py`, `.ts`, `.java`, `.cs`, `.go`, `.rs`, ...):
    /// read for retry clients (`crate::import::code`) when its text mentions a
    /// retry library; never a finding of its own (no RL001: code is not a spec).
    Source(crate::import::code::Language),
}

/// A file found by discovery.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The path as given or found.
    pub path: PathBuf,
    /// What its name says.
    pub kind: NameKind,
    /// Named on the command line (always read, even if ignored by `.gitignore`).
    pub explicit: bool,
}

/// A problem found while walking (unreadable directory, symlink loop).
#[derive(Debug, Clone)]
pub struct WalkProblem {
    /// The path involved.
    pub path: PathBuf,
    /// What went wrong.
    pub message: String,
}

/// Classifies a file name by its bytes, so a name that is not valid UTF-8
/// (`orders-\xff.yaml`) is classified like any other (every marker looked for is
/// ASCII). `None` for files that are not YAML or JSON.
pub fn name_kind(path: &Path) -> Option<NameKind> {
    let name = path.file_name()?.as_encoded_bytes().to_ascii_lowercase();
    // Bytes that are not UTF-8 become U+FFFD: never part of a marker.
    let name = String::from_utf8_lossy(&name);
    let name: &str = &name;
    let ext = name.rsplit('.').next()?;
    // `config` without an extension: an AWS shared config when its text says so.
    if matches!(ext, "conf" | "cfg" | "toml" | "properties") || name == "config" {
        return Some(NameKind::TextConfig);
    }
    if ext == "proto" {
        return Some(NameKind::Proto);
    }
    if let Some(language) = crate::import::code::Language::of_path(Path::new(name)) {
        return Some(NameKind::Source(language));
    }
    if !matches!(ext, "yaml" | "yml" | "json") {
        return None;
    }
    if matches!(name, "retry-policy.yaml" | "retry-policy.yml")
        || name.ends_with(".retry-policy.yaml")
        || name.ends_with(".retry-policy.yml")
    {
        return Some(NameKind::Policy);
    }
    let stem_parts: Vec<&str> = name.split('.').collect();
    if stem_parts[0] == "openapi"
        || stem_parts[0] == "swagger"
        || stem_parts[..stem_parts.len() - 1].contains(&"openapi")
    {
        return Some(NameKind::SpecLike);
    }
    Some(NameKind::Other)
}

/// Walks `paths` (files or directories) and returns the YAML/JSON candidates, sorted
/// and de-duplicated, plus walk problems. Explicit files are kept whatever their
/// extension's ignore status; explicit files with other names are read for their
/// content ([`NameKind::Unlisted`]).
pub fn discover(paths: &[PathBuf], policies: &[PathBuf]) -> (Vec<Candidate>, Vec<WalkProblem>) {
    let walked = walk(paths, policies, false);
    (walked.candidates, walked.problems)
}

/// What [`discover_project`] found.
#[derive(Debug, Default)]
pub struct ProjectWalk {
    /// As [`discover`] returns them, without the files of nested projects.
    pub candidates: Vec<Candidate>,
    /// As [`discover`] returns them.
    pub problems: Vec<WalkProblem>,
    /// The folders below a walked folder that are projects of their own and were
    /// left out ([`super::nested`]), outermost only, sorted.
    pub nested: Vec<PathBuf>,
}

/// [`discover`] for a run that answers for one project: a folder below a walked
/// folder that is a project of its own (it holds a `.retrylint.yaml` or a `.git`:
/// [`super::nested`]) is not walked but listed in [`ProjectWalk::nested`].
pub fn discover_project(paths: &[PathBuf], policies: &[PathBuf]) -> ProjectWalk {
    let walked = walk(paths, policies, true);
    ProjectWalk {
        candidates: walked.candidates,
        problems: walked.problems,
        nested: super::nested::outermost(walked.nested),
    }
}

/// What [`walk`] found.
struct Walked {
    /// As [`discover`] returns them.
    candidates: Vec<Candidate>,
    /// As [`discover`] returns them.
    problems: Vec<WalkProblem>,
    /// Every symbolic link to a file met by the walk, whatever its name, also those
    /// dropped from `candidates` because their target is listed under another name.
    links: HashSet<PathBuf>,
    /// The nested project roots left out (a splitting walk), canonical.
    nested: Vec<PathBuf>,
}

/// [`discover`], also returning the links it met; with `split`, folders below a
/// walked folder that are projects of their own are left out and listed.
fn walk(paths: &[PathBuf], policies: &[PathBuf], split: bool) -> Walked {
    let nested_found = std::sync::Arc::new(std::sync::Mutex::new(Vec::<PathBuf>::new()));
    let mut found = Found::default();
    for p in policies {
        found.candidates.push(Candidate {
            path: p.clone(),
            kind: NameKind::Policy,
            explicit: true,
        });
    }
    for root in paths {
        if !root.is_dir() {
            // Files are read as given. A path that does not exist or is not a regular
            // file (a device, a FIFO) must give RL001 whatever its name, so it counts
            // as spec-like; any other file with a foreign name is read for its content.
            let regular = std::fs::metadata(root).is_ok_and(|m| m.is_file());
            let kind = match name_kind(root) {
                Some(kind) => kind,
                None if regular => NameKind::Unlisted,
                None => NameKind::SpecLike,
            };
            found.candidates.push(Candidate {
                path: root.clone(),
                kind,
                explicit: true,
            });
            continue;
        }
        let mut builder = ignore::WalkBuilder::new(root);
        builder
            .require_git(false)
            // The same walk either way; without it `ignore` reads git's
            // configuration on every walk (see `global_gitignore`).
            .git_global(global_gitignore::may_apply())
            .follow_links(false);
        if split {
            let canonical_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.clone());
            let (walk_root, found) = (root.clone(), nested_found.clone());
            builder.filter_entry(move |e| {
                if e.depth() == 0 || !e.file_type().is_some_and(|t| t.is_dir()) {
                    return true;
                }
                let dir = e
                    .path()
                    .strip_prefix(&walk_root)
                    .map_or_else(|_| e.path().to_path_buf(), |rel| canonical_root.join(rel));
                if super::nested::is_project_root(&dir) {
                    found
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push(dir);
                    return false;
                }
                true
            });
        }
        // On a pool of several threads (a large run), the folders are read on as
        // many threads: most of a walk is waiting on the file system, one call per
        // folder and ignore file. The order is restored by the sort below.
        let threads = match rayon::current_thread_index() {
            Some(_) => rayon::current_num_threads(),
            None => 1,
        };
        if threads > 1 {
            let shared = std::sync::Mutex::new(Found::default());
            builder.threads(threads).build_parallel().run(|| {
                let shared = &shared;
                Box::new(move |entry| {
                    let mut one = Found::default();
                    one.visit(root, entry);
                    shared
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .extend(one);
                    ignore::WalkState::Continue
                })
            });
            found.extend(
                shared
                    .into_inner()
                    .unwrap_or_else(std::sync::PoisonError::into_inner),
            );
        } else {
            for entry in builder.build() {
                found.visit(root, entry);
            }
        }
    }
    let Found {
        candidates: mut out,
        mut problems,
        links,
        all_links,
    } = found;
    problems.sort_by(|a, b| (&a.path, &a.message).cmp(&(&b.path, &b.message)));
    merge_names_of_one_file(&mut out, paths, policies);
    out.sort_by(|a, b| a.path.cmp(&b.path));
    // A file given both as `--policy` and found by the walk stays a policy.
    out.dedup_by(|later, earlier| {
        if later.path == earlier.path {
            if later.kind == NameKind::Policy {
                earlier.kind = NameKind::Policy;
            }
            earlier.explicit |= later.explicit;
            true
        } else {
            false
        }
    });
    drop_links_to_listed_files(&mut out, &links);
    let nested = std::mem::take(
        &mut *nested_found
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    Walked {
        candidates: out,
        problems,
        links: all_links,
        nested,
    }
}

/// Merges the candidates that reach one file through several spellings of its path
/// (`openapi.yaml`, `./openapi.yaml`, an absolute path, `../shop/openapi.yaml`, or a
/// folder and a file in it), so that file is one input: read once, counted once,
/// its operations once. The spelling kept is the first on the command line
/// (`--policy` files first, then `paths` in order), whatever the walk's order; a
/// `--policy` file stays a policy, and a file named on the command line stays
/// explicit. Symbolic links are left to [`drop_links_to_listed_files`], which keeps
/// a link whose name says another reader.
fn merge_names_of_one_file(out: &mut Vec<Candidate>, paths: &[PathBuf], policies: &[PathBuf]) {
    // One walk meets each file once (links aside): only several paths can repeat one.
    if out.len() < 2 || paths.len() + policies.len() < 2 {
        return;
    }
    // Where a candidate comes from on the command line: lower is earlier.
    let rank = |c: &Candidate| -> usize {
        if c.kind == NameKind::Policy && c.explicit && policies.contains(&c.path) {
            return 0;
        }
        paths
            .iter()
            .position(|p| c.path == *p || c.path.starts_with(p))
            .map_or(usize::MAX, |i| i + 1)
    };
    let mut keyed: Vec<(usize, Option<PathBuf>, Candidate)> = std::mem::take(out)
        .into_iter()
        .map(|c| {
            let link = std::fs::symlink_metadata(&c.path).is_ok_and(|m| m.file_type().is_symlink());
            // A path that does not resolve (missing, unreadable) is kept as given: its
            // load reports it.
            let real = (!link)
                .then(|| std::fs::canonicalize(&c.path).ok())
                .flatten();
            (rank(&c), real, c)
        })
        .collect();
    // Stable: within one command-line path, the walk's own order (sorted later).
    keyed.sort_by(|a, b| (a.0, &a.2.path).cmp(&(b.0, &b.2.path)));
    let mut first: std::collections::HashMap<PathBuf, usize> = std::collections::HashMap::new();
    for (_, real, c) in keyed {
        let Some(real) = real else {
            out.push(c);
            continue;
        };
        match first.get(&real) {
            Some(&i) => {
                let earlier = &mut out[i];
                if c.kind == NameKind::Policy {
                    earlier.kind = NameKind::Policy;
                }
                earlier.explicit |= c.explicit;
            }
            None => {
                first.insert(real, out.len());
                out.push(c);
            }
        }
    }
}

/// What a walk has found so far (in walk order; sorted by [`walk`]).
#[derive(Default)]
struct Found {
    candidates: Vec<Candidate>,
    problems: Vec<WalkProblem>,
    /// Walked symbolic links to listed names (see `drop_links_to_listed_files`).
    links: HashSet<PathBuf>,
    /// Every walked symbolic link to a file ([`Walked::links`]).
    all_links: HashSet<PathBuf>,
}

impl Found {
    fn extend(&mut self, other: Found) {
        self.candidates.extend(other.candidates);
        self.problems.extend(other.problems);
        self.links.extend(other.links);
        self.all_links.extend(other.all_links);
    }

    /// Takes one entry of the walk of `root`.
    fn visit(&mut self, root: &Path, entry: Result<ignore::DirEntry, ignore::Error>) {
        let e = match entry {
            Ok(e) => e,
            Err(err) => {
                self.problems.push(match error_path(&err) {
                    Some((path, message)) => WalkProblem { path, message },
                    None => WalkProblem {
                        path: root.to_path_buf(),
                        message: err.to_string(),
                    },
                });
                return;
            }
        };
        if e.file_type().is_some_and(|t| t.is_dir()) {
            // The walk skips hidden folders; an AWS shared config in `.aws/` is still
            // read (never `.git/config`), and, like the walk, without following
            // symbolic links.
            let dot_aws = e.path().join(".aws");
            let aws = dot_aws.join("config");
            let real = |p: &Path, dir: bool| {
                std::fs::symlink_metadata(p)
                    .is_ok_and(|m| if dir { m.is_dir() } else { m.is_file() })
            };
            if real(&dot_aws, true) && real(&aws, false) {
                self.candidates.push(Candidate {
                    path: aws,
                    kind: NameKind::TextConfig,
                    explicit: false,
                });
            }
            return;
        }
        let linked = e.file_type().is_some_and(|t| t.is_symlink());
        if !e.file_type().is_some_and(|t| t.is_file()) && !linked {
            return;
        }
        // A symbolic link is followed when it names a file (a file cannot make a
        // loop); one to a folder is not (loops, and the same tree twice).
        let target = linked.then(|| std::fs::metadata(e.path()));
        // Any link to a file, whatever its name (a `spec:` may name one): for the
        // project index's look-ups.
        if let Some(Ok(m)) = &target {
            if m.is_file() {
                self.all_links.insert(e.path().to_path_buf());
            }
        }
        let Some(kind) = name_kind(e.path()) else {
            return;
        };
        if let Some(target) = target {
            // A dangling link (or one to a device) named like a spec or a policy is
            // kept, so its load reports it (RL001); any other is not ours to judge.
            match target {
                Ok(m) if m.is_file() => {}
                Ok(m) if m.is_dir() => return,
                _ if matches!(kind, NameKind::SpecLike | NameKind::Policy) => {}
                _ => return,
            }
            self.links.insert(e.path().to_path_buf());
        }
        // Dependencies and build output hold library code (urllib3's own `Retry`),
        // not clients of the user's API.
        if matches!(kind, NameKind::Source(_))
            && crate::import::code::language::is_vendored(
                e.path().strip_prefix(root).unwrap_or(e.path()),
            )
        {
            return;
        }
        self.candidates.push(Candidate {
            path: e.path().to_path_buf(),
            kind,
            explicit: false,
        });
    }
}

/// The path a walk error is about (an unreadable folder deep in the walk) and the
/// error without it, when it names one: the finding then points at that folder, not
/// at the walked root.
fn error_path(err: &ignore::Error) -> Option<(PathBuf, String)> {
    match err {
        ignore::Error::WithPath { path, err } => Some((path.clone(), err.to_string())),
        ignore::Error::Loop { child, .. } => Some((child.clone(), err.to_string())),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Partial(errs) => errs.iter().find_map(error_path),
        _ => None,
    }
}

/// Drops each followed link in `links` whose target is a file already listed, through
/// its own path or another link, *as the same reader* ([`reader_of`]), so no file is
/// checked twice as one thing. A link whose name says another reader is kept: each
/// name is read as the kind its name says (`retry-policy.yaml -> shared/orders.yaml`
/// is a policy even when `shared/orders.yaml` is walked too), whichever name the
/// walk meets first.
fn drop_links_to_listed_files(out: &mut Vec<Candidate>, links: &HashSet<PathBuf>) {
    if links.is_empty() {
        return;
    }
    let key = |c: &Candidate| {
        (
            std::fs::canonicalize(&c.path).unwrap_or_else(|_| c.path.clone()),
            reader_of(c.kind),
        )
    };
    let mut seen: HashSet<(PathBuf, NameKind)> = out
        .iter()
        .filter(|c| !links.contains(&c.path))
        .map(key)
        .collect();
    out.retain(|c| !links.contains(&c.path) || seen.insert(key(c)));
}

/// The reader a name sends its file to: YAML/JSON names that are recognised by
/// content (`openapi.yaml`, `orders.yaml`, a file named on the command line) are one
/// reader, so one file under two such names is one document, never two; a policy, a
/// text config, a `.proto` and each language of source code are readers of their own.
pub fn reader_of(kind: NameKind) -> NameKind {
    match kind {
        NameKind::SpecLike | NameKind::Other | NameKind::Unlisted => NameKind::Other,
        other => other,
    }
}

/// The top-level `spec:` paths of a policy file (empty when it has none or does not
/// parse).
pub(crate) fn spec_paths(doc: &Loaded) -> Vec<String> {
    let Ok(tree) = &doc.tree else {
        return Vec::new();
    };
    let Some(root) = tree.root() else {
        return Vec::new();
    };
    if tree.kind(root) != Kind::Map {
        return Vec::new();
    }
    let Some(spec) = tree.get(root, "spec") else {
        return Vec::new();
    };
    match tree.kind(spec) {
        Kind::Seq => tree
            .items(spec)
            .iter()
            .filter_map(|i| tree.as_str(*i).map(str::to_string))
            .collect(),
        _ => tree.as_str(spec).map(str::to_string).into_iter().collect(),
    }
}

fn is_openapi(doc: &Loaded) -> bool {
    let Ok(tree) = &doc.tree else { return false };
    tree.root().is_some_and(|r| {
        tree.kind(r) == Kind::Map
            && (tree.get(r, "openapi").is_some() || tree.get(r, "swagger").is_some())
    })
}

/// How much of a file [`opens_as_openapi`] looks at.
pub(crate) const HEAD_BYTES: usize = 1024;

/// Whether the file at `path` surely opens as an OpenAPI document, from its first
/// [`HEAD_BYTES`] (see [`head_opens_as_openapi`]). Such a file is never sorted as a
/// retry config (the sorting takes a top-level `openapi`/`swagger` for a document
/// first, and a file that does not parse is no config either), so it can wait for
/// the second stage of [`crate::project::load`]. Anything else (unreadable, not a regular file, a
/// first key elsewhere) says no, and the file is read in the first stage.
pub(crate) fn opens_as_openapi(path: &Path) -> bool {
    use std::io::Read;
    // Never open a FIFO or a device: opening one may block.
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut head = Vec::with_capacity(HEAD_BYTES);
    std::fs::File::open(path)
        .and_then(|f| f.take(HEAD_BYTES as u64).read_to_end(&mut head))
        .is_ok()
        && head_opens_as_openapi(&head)
}

/// Whether `head`, the start of a UTF-8 file, opens its first document with a
/// top-level `openapi` or `swagger` key: in JSON the first key of the top-level
/// object; in YAML the first line that is not blank, a comment, a directive or one
/// `---` starts at column 0 with `openapi:` or `swagger:` and a space or its end.
/// Sound, not complete: a `false` only means the file is read earlier.
pub(crate) fn head_opens_as_openapi(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let key = |rest: &[u8]| {
        ["openapi", "swagger"].iter().any(|k| {
            rest.strip_prefix(k.as_bytes())
                .and_then(|r| r.strip_prefix(b":"))
                .is_some_and(|r| r.is_empty() || matches!(r[0], b' ' | b'\t' | b'\r' | b'\n'))
        })
    };
    let trimmed = head.trim_ascii_start();
    if let Some(object) = trimmed.strip_prefix(b"{") {
        let object = object.trim_ascii_start();
        return ["\"openapi\"", "\"swagger\""].iter().any(|k| {
            object
                .strip_prefix(k.as_bytes())
                .is_some_and(|r| r.trim_ascii_start().starts_with(b":"))
        });
    }
    let mut markers = 0;
    for line in head.split(|&b| b == b'\n') {
        let text = line.trim_ascii_end();
        if text.is_empty() || text.starts_with(b"#") || text.starts_with(b"%") {
            continue;
        }
        if text == b"---" && markers == 0 {
            markers += 1;
            continue;
        }
        return key(line);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_walk_error_points_at_the_folder_it_names() {
        let denied = || {
            Box::new(ignore::Error::Io(std::io::Error::from(
                std::io::ErrorKind::PermissionDenied,
            )))
        };
        let deep = ignore::Error::WithDepth {
            depth: 2,
            err: Box::new(ignore::Error::WithPath {
                path: PathBuf::from("./api/locked"),
                err: denied(),
            }),
        };
        let (path, message) = error_path(&deep).expect("a path");
        assert_eq!(path, PathBuf::from("./api/locked"));
        assert!(message.contains("permission denied"), "{message}");
        assert!(!message.contains("api/locked"), "{message}");
        assert_eq!(error_path(&denied()), None);
    }

    #[test]
    fn classifies_names() {
        let k = |s: &str| name_kind(Path::new(s));
        assert_eq!(k("retry-policy.yaml"), Some(NameKind::Policy));
        assert_eq!(k("a/shop.retry-policy.yml"), Some(NameKind::Policy));
        assert_eq!(k("openapi.json"), Some(NameKind::SpecLike));
        assert_eq!(k("swagger.yaml"), Some(NameKind::SpecLike));
        assert_eq!(k("shop.openapi.yaml"), Some(NameKind::SpecLike));
        assert_eq!(k("docker-compose.yml"), Some(NameKind::Other));
        assert_eq!(k("README.md"), None);
        assert_eq!(k("nginx.conf"), Some(NameKind::TextConfig));
        assert_eq!(k("traefik.toml"), Some(NameKind::TextConfig));
        assert_eq!(k("config"), Some(NameKind::TextConfig));
        assert_eq!(k("config.yaml"), Some(NameKind::Other));
        assert_eq!(k("api/v1/pubsub.proto"), Some(NameKind::Proto));
        assert_eq!(k("PUBSUB.PROTO"), Some(NameKind::Proto));
    }

    #[cfg(unix)]
    #[test]
    fn classifies_names_that_are_not_utf8() {
        use std::os::unix::ffi::OsStrExt;
        let k = |b: &[u8]| name_kind(Path::new(std::ffi::OsStr::from_bytes(b)));
        assert_eq!(k(b"orders-\xff.yaml"), Some(NameKind::Other));
        assert_eq!(k(b"\xfe.openapi.json"), Some(NameKind::SpecLike));
        assert_eq!(k(b"a\xff.retry-policy.yml"), Some(NameKind::Policy));
        assert_eq!(k(b"\xff.md"), None);
    }

    /// The walk on one thread and on a pool of several agree entry for entry: links
    /// (to a file, twice to one file, dangling, to a folder), an AWS shared config in
    /// a hidden `.aws/`, a `.gitignore`, vendored source, many folders.
    #[cfg(unix)]
    #[test]
    fn the_parallel_walk_finds_what_the_sequential_one_does() {
        let dir = std::env::temp_dir().join(format!("retrylint-walk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for d in [
            "api/v1",
            "api/v2",
            "deploy/.aws",
            "node_modules/x",
            "ignored",
        ] {
            std::fs::create_dir_all(dir.join(d)).unwrap();
        }
        for i in 0..40 {
            let sub = dir.join(format!("svc/{i}"));
            std::fs::create_dir_all(&sub).unwrap();
            std::fs::write(sub.join("openapi.yaml"), "openapi: 3.0.3\n").unwrap();
            std::fs::write(sub.join("client.py"), "import urllib3\n").unwrap();
        }
        for (file, text) in [
            ("api/v1/openapi.yaml", "openapi: 3.0.3\n"),
            ("api/v2/shop.retry-policy.yaml", "version: 1\n"),
            ("deploy/.aws/config", "[default]\n"),
            ("node_modules/x/client.js", "axiosRetry()\n"),
            ("ignored/openapi.yaml", "openapi: 3.0.3\n"),
            (".gitignore", "ignored/\n"),
        ] {
            std::fs::write(dir.join(file), text).unwrap();
        }
        let link =
            |target: &str, name: &str| std::os::unix::fs::symlink(target, dir.join(name)).unwrap();
        link("../v1/openapi.yaml", "api/v2/openapi.yaml");
        link("openapi.yaml", "api/v1/current.yaml");
        link("missing.yaml", "api/v1/dangling.openapi.yaml");
        link("../v1", "api/v2/v1.openapi.yaml");
        let seen = |w: Walked| {
            let mut links: Vec<PathBuf> = w.links.into_iter().collect();
            links.sort();
            (
                w.candidates
                    .iter()
                    .map(|c| (c.path.clone(), c.kind, c.explicit))
                    .collect::<Vec<_>>(),
                w.problems
                    .iter()
                    .map(|p| p.path.clone())
                    .collect::<Vec<_>>(),
                links,
            )
        };
        let roots = [dir.clone()];
        let alone = seen(walk(&roots, &[], false));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let shared = seen(pool.install(|| walk(&roots, &[], false)));
        assert_eq!(alone, shared);
        let names: Vec<String> = alone
            .0
            .iter()
            .map(|(p, _, _)| p.strip_prefix(&dir).unwrap().display().to_string())
            .collect();
        for want in [
            "api/v1/openapi.yaml",
            "api/v1/dangling.openapi.yaml",
            "deploy/.aws/config",
            "svc/39/client.py",
        ] {
            assert!(names.contains(&want.to_string()), "{want}: {names:?}");
        }
        // Both links to a listed file are dropped: it is read once, by its own name.
        for never in [
            "api/v1/current.yaml",
            "api/v2/openapi.yaml",
            "api/v2/v1.openapi.yaml",
            "ignored/openapi.yaml",
            "node_modules/x/client.js",
        ] {
            assert!(!names.contains(&never.to_string()), "{never}: {names:?}");
        }
        assert_eq!(alone.2.len(), 2, "links to files: {:?}", alone.2);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[cfg(test)]
mod head_tests {
    use super::head_opens_as_openapi as opens;

    #[test]
    fn a_head_opening_an_openapi_document_waits_for_the_second_stage() {
        assert!(opens(b"openapi: 3.0.3\ninfo:\n"));
        assert!(opens(
            b"\xEF\xBB\xBF# comment\n\n%YAML 1.2\n---\nswagger: '2.0'\n"
        ));
        assert!(opens(b"openapi:\n  3.1.0"));
        assert!(opens(b"  {\n  \"openapi\" : \"3.0.0\", \"paths\": {}}"));
        assert!(opens(b"{\"swagger\":\"2.0\"}"));
    }

    #[test]
    fn anything_else_is_read_in_the_first_stage() {
        // A config, a key that is not first, an indented or quoted key, a scalar.
        assert!(!opens(
            b"apiVersion: networking.istio.io/v1\nkind: VirtualService\n"
        ));
        assert!(!opens(b"info:\n  title: x\nopenapi: 3.0.0\n"));
        assert!(!opens(b"  openapi: 3.0.0\n"));
        assert!(!opens(b"\"openapi\": 3.0.0\n"));
        assert!(!opens(b"openapi:3.0.0\n"));
        assert!(!opens(b"{\"info\": {}, \"openapi\": \"3.0.0\"}"));
        assert!(!opens(b"[{\"openapi\": \"3.0.0\"}]"));
        // A second `---`: the first document may be empty.
        assert!(!opens(b"---\n---\nopenapi: 3.0.0\n"));
        assert!(!opens(b""));
        assert!(!opens(b"\xFF\xFEo\0p\0"));
    }
}
