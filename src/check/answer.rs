//! One answer however a run is asked (`docs/commands/check.md`, "One answer however
//! it is asked"): for a project root R, the findings of `retrylint check R` are the
//! answer. A run that names files or folders F (pre-commit, `check FILE`, an editor
//! buffer, a folder below the root) reports exactly the part of that answer that
//! concerns F:
//!
//! - every finding with a label (primary or related) in F;
//! - every finding on an operation that F declares (a document in F, or a `.proto`
//!   in F whose `google.api.http` rules map to it) or reaches: the
//!   operations a policy, retry config or client in code in F governs or binds to,
//!   and those of the documents whose `$ref`s reach a file in F (a shared fragment),
//!   whose every finding is F's (a `$ref` that F's change broke is reported there).
//!
//! The exit code follows the same answer: an RL001 counts only when it is in F or in
//! a file whose operations F reaches, never for an unreadable file elsewhere in the
//! project. Loading decides what the run reads (the files F reaches and the files
//! that bind to them: [`crate::project::load`]); this module decides what it says.

use crate::analysis::Analysis;
use crate::diagnostic::Diagnostic;
use crate::openapi::model::Document;
use crate::source::loader::{Limits, Workspace};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The files a run was asked about: named files, and the trees of named folders
/// below the project root. Paths are canonical.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    files: HashSet<PathBuf>,
    folders: Vec<PathBuf>,
    /// The project root: a named file is read here only inside it (the read boundary).
    root: PathBuf,
}

impl Scope {
    /// The scope of `paths` (and `--policy` files), relative to `cwd`, in the project
    /// whose root is `root`; `None` when the run is asked about the whole project (no
    /// path, a folder at or above the root, or a named `.retrylint.yaml`), so every
    /// finding is its answer.
    pub fn of(paths: &[PathBuf], policies: &[PathBuf], cwd: &Path, root: &Path) -> Option<Scope> {
        let mut scope = Scope {
            root: std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf()),
            ..Scope::default()
        };
        let given: Vec<&PathBuf> = if paths.is_empty() && policies.is_empty() {
            Vec::new()
        } else {
            paths.iter().chain(policies).collect()
        };
        let dot = PathBuf::from(".");
        let given = if given.is_empty() { vec![&dot] } else { given };
        for p in given {
            // A named `.retrylint.yaml` stands for its whole project.
            if p.file_name().is_some_and(|n| n == crate::config::FILE_NAME) {
                return None;
            }
            let joined = cwd.join(p);
            let abs = std::fs::canonicalize(&joined).unwrap_or(joined);
            if abs.is_dir() {
                if root.starts_with(&abs) {
                    return None;
                }
                scope.folders.push(abs);
            } else {
                scope.files.insert(abs);
            }
        }
        Some(scope)
    }

    /// A workspace reading within the project root only, as every read of the run
    /// (`source::boundary`): the files read again to tell what the answer holds.
    fn workspace(&self) -> Workspace {
        Workspace::new(PathBuf::new(), Limits::default()).with_boundary(std::sync::Arc::new(
            crate::source::boundary::ReadBoundary::new(std::slice::from_ref(&self.root)),
        ))
    }

    /// True when `path` (canonical) is a named file or lies in a named folder.
    pub fn contains(&self, path: &Path) -> bool {
        self.files.contains(path) || self.folders.iter().any(|f| path.starts_with(f))
    }
}

/// The operations a scope declares or reaches, by document path and `METHOD /path`.
struct Reached<'a> {
    scope: &'a Scope,
    operations: HashSet<(PathBuf, String)>,
    /// Documents holding a reached operation (an RL001 there is the scope's too).
    documents: HashSet<PathBuf>,
    /// Documents whose `$ref`s reach a file asked about: every finding located in
    /// one is the scope's (a shared fragment changed alone re-checks the documents
    /// using it, the `$ref` it broke there included).
    reaching: HashSet<PathBuf>,
}

impl<'a> Reached<'a> {
    fn of(scope: &'a Scope, documents: &[Document], analysis: &Analysis) -> Reached<'a> {
        let mut operations = HashSet::new();
        let mut reached_documents = HashSet::new();
        // A file asked about that other documents `$ref` (a shared `responses.yaml`,
        // a document whose components others use) reaches every operation of the
        // documents whose `$ref`s reach it.
        let policies: HashSet<&Path> = analysis
            .policies
            .iter()
            .map(|p| p.doc.file.path.as_path())
            .collect();
        let fragments: Vec<&PathBuf> = scope
            .files
            .iter()
            .filter(|f| !policies.contains(f.as_path()))
            .collect();
        let reaching: HashSet<&Path> = if fragments.is_empty() {
            HashSet::new()
        } else {
            let ws = scope.workspace();
            documents
                .iter()
                // A document asked about answers for all its findings already: its
                // closure (DigitalOcean's spec reaches 1,700 files, each parsed
                // again here) cannot add to the answer.
                .filter(|d| !scope.contains(&d.doc.file.path))
                .filter(|d| {
                    crate::project::discover::ref_closure(&d.doc, &ws)
                        .iter()
                        .any(|p| fragments.contains(&p))
                })
                .map(|d| d.doc.file.path.as_path())
                .collect()
        };
        let declared_by_protos = http_rules_in(scope);
        for joined in &analysis.operations {
            let Some(doc) = documents.get(joined.document) else {
                continue;
            };
            let Some(op) = doc.operations.get(joined.operation) else {
                continue;
            };
            let path = &doc.doc.file.path;
            let declared_by_proto = declared_by_protos
                .iter()
                .any(|m| m.may_match(&op.method, &op.path, "", None));
            let governed_from_scope = joined.layers.iter().any(|layer| {
                layer
                    .policy
                    .and_then(|i| analysis.policies.get(i))
                    .is_some_and(|p| scope.contains(&p.doc.file.path))
            });
            if governed_from_scope
                || declared_by_proto
                || scope.contains(path)
                || reaching.contains(path.as_path())
            {
                operations.insert((path.clone(), op.display()));
                reached_documents.insert(path.clone());
            }
        }
        Reached {
            scope,
            operations,
            documents: reached_documents,
            reaching: reaching.into_iter().map(Path::to_path_buf).collect(),
        }
    }

    /// True when the finding is part of the scope's answer.
    fn concerns(&self, d: &Diagnostic) -> bool {
        let labelled = std::iter::once(&d.primary)
            .chain(&d.labels)
            .any(|l| self.scope.contains(&l.location.file.path));
        if labelled || self.reaching.contains(&d.primary.location.file.path) {
            return true;
        }
        if d.code == crate::source::rl001_invalid_syntax::META.code {
            return self.documents.contains(&d.primary.location.file.path);
        }
        d.operations.iter().enumerate().any(|(i, op)| {
            match d.operation_documents.get(i).and_then(Option::as_ref) {
                Some(doc) => {
                    self.scope.contains(&doc.path)
                        || self.operations.contains(&(doc.path.clone(), op.clone()))
                }
                // A rule that did not say which document: the name decides.
                None => self.operations.iter().any(|(_, name)| name == op),
            }
        })
    }
}

/// The `google.api.http` rules of the `.proto` files asked about, each compiled once
/// as the request match a gRPC config binds with: the HTTP operations such a file
/// declares (a gateway or a generated swagger serves them), so its answer holds every
/// finding on them, from whatever layer. Read again here (a few small files), only
/// inside the project root as every read of the run; a file that does not parse
/// declares nothing.
fn http_rules_in(scope: &Scope) -> Vec<crate::import::RequestMatch> {
    let is_proto = |f: &Path| {
        f.starts_with(&scope.root)
            && crate::project::discover::name_kind(f)
                == Some(crate::project::discover::NameKind::Proto)
    };
    // Named, or walked under a named folder (the walk of the run: `.gitignore`d
    // files are none).
    let mut protos: Vec<PathBuf> = scope
        .files
        .iter()
        .filter(|f| is_proto(f))
        .cloned()
        .collect();
    if !scope.folders.is_empty() {
        let walked = crate::project::discover::discover_project(&scope.folders, &[]).candidates;
        protos.extend(
            walked
                .into_iter()
                .filter(|c| c.kind == crate::project::discover::NameKind::Proto)
                .map(|c| c.path)
                .filter(|p| is_proto(&std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()))),
        );
    }
    if protos.is_empty() {
        return Vec::new();
    }
    let ws = scope.workspace();
    let loaded: Vec<_> = protos.into_iter().map(|p| ws.load(&p)).collect();
    let (index, _) = crate::import::proto::ProtoIndex::build(&loaded);
    index
        .rpcs
        .iter()
        .flat_map(|rpc| &rpc.http)
        .filter_map(crate::import::grpc::http_rule_request_match)
        .collect()
}

/// What a run over named files or folders is asked about, for the views and the
/// summary: see [`asked`].
#[derive(Debug, Clone, Default)]
pub struct Asked {
    /// For each operation of `analysis.operations`, whether the scope declares or
    /// reaches it: the rows `readiness`, `report` and the other views show.
    pub operations: Vec<bool>,
    /// For each document held by the run, whether the scope names it, holds it in a
    /// named folder, reaches one of its operations, or is reached by its `$ref`s:
    /// the documents the summary counts as checked. The others were read as
    /// context (to bind a config, to know which documents reach a fragment).
    pub documents: Vec<bool>,
}

/// What `scope` asks about among the run's documents and operations ([`Asked`]).
pub fn asked(scope: &Scope, documents: &[Document], analysis: &Analysis) -> Asked {
    let reached = Reached::of(scope, documents, analysis);
    let asked_documents = documents
        .iter()
        .map(|d| {
            let path = &d.doc.file.path;
            scope.contains(path)
                || reached.documents.contains(path)
                || reached.reaching.contains(path)
        })
        .collect();
    Asked {
        operations: asked_operations(&reached, documents, analysis),
        documents: asked_documents,
    }
}

/// For each operation of `analysis.operations`, whether `reached` holds it.
fn asked_operations(
    reached: &Reached<'_>,
    documents: &[Document],
    analysis: &Analysis,
) -> Vec<bool> {
    analysis
        .operations
        .iter()
        .map(|j| {
            documents
                .get(j.document)
                .and_then(|d| Some((d, d.operations.get(j.operation)?)))
                .is_some_and(|(d, op)| {
                    reached
                        .operations
                        .contains(&(d.doc.file.path.clone(), op.display()))
                })
        })
        .collect()
}

/// Keeps the findings (and the suppressed findings) that concern `scope`.
pub fn restrict(
    scope: &Scope,
    documents: &[Document],
    analysis: &Analysis,
    diagnostics: &mut Vec<Diagnostic>,
    suppressed: &mut Vec<crate::suppress::Suppressed>,
) {
    let reached = Reached::of(scope, documents, analysis);
    diagnostics.retain(|d| reached.concerns(d));
    suppressed.retain(|s| reached.concerns(&s.diagnostic));
}
