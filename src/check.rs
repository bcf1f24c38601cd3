//! The `check` pipeline as a library call: discover -> load -> model -> join ->
//! rules -> sorted diagnostics. No printing here.

use crate::analysis;
use crate::diagnostic::{sort_and_dedup, Diagnostic};
use crate::discover::{discover, Candidate, NameKind};
use crate::openapi::model::Document;
use crate::policy;
use crate::rules::{self, Context, Thresholds};
use crate::source::loader::{Limits, LoadError, Loaded, Workspace};
use crate::source::refs::Resolver;
use crate::source::tree::{Kind, Tree};
use crate::suppress;
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What to check.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// Files or directories (empty: the current directory).
    pub paths: Vec<PathBuf>,
    /// Retry-policy files given explicitly.
    pub policies: Vec<PathBuf>,
    /// Project root override (bounds `$ref`s).
    pub root: Option<PathBuf>,
    /// Resource limits.
    pub limits: Limits,
    /// Thresholds for the budget rules.
    pub thresholds: Thresholds,
    /// Directory that output paths are relative to (default: the current directory).
    pub cwd: Option<PathBuf>,
    /// Read only the policies given explicitly, not those found by walking (used by
    /// `plan --policy` and `simulate`, which look at one policy).
    pub explicit_policies_only: bool,
    /// Rule levels from the configuration and `--select`/`--ignore` (applied to the
    /// findings after the rules and suppressions).
    pub rule_levels: crate::config::RuleLevels,
    /// `include`/`exclude` of the configuration (applied to every file found).
    pub filter: Option<crate::config::PathFilter>,
    /// For file arguments, also read the related files a full run would: the OpenAPI
    /// documents a given policy governs and the policies governing a given document
    /// (so a pre-commit run over some files finds what a full run finds for them).
    pub related: bool,
    /// A baseline's view (`--baseline`): grouped findings split into what the baseline
    /// records and what is new, so the new part names only new operations.
    pub split: Option<crate::rules::grouping::Split>,
}

/// What a check found.
#[derive(Debug)]
pub struct CheckOutcome {
    /// Findings, sorted by file, position, code; de-duplicated.
    pub diagnostics: Vec<Diagnostic>,
    /// OpenAPI documents linted.
    pub documents: usize,
    /// Policy files read.
    pub policies: usize,
    /// YAML/JSON files skipped as neither (display paths).
    pub skipped: Vec<String>,
    /// True when some file could not be read or parsed (exit code 2).
    pub could_not_lint: bool,
    /// Findings hidden by suppressions, with the reason (`--show-suppressed`).
    pub suppressed: Vec<suppress::Suppressed>,
    /// Canonical paths of the files the run read as input (see [`Analyzed::inputs`]).
    pub inputs: Vec<PathBuf>,
}

/// The project root for a path given on the command line: `--root`, else the nearest
/// enclosing git work tree, else the path itself (a file's directory).
pub fn project_root(given: &Path, root_override: Option<&Path>) -> PathBuf {
    if let Some(r) = root_override {
        return std::fs::canonicalize(r).unwrap_or_else(|_| r.to_path_buf());
    }
    let abs = std::fs::canonicalize(given).unwrap_or_else(|_| given.to_path_buf());
    let start = if abs.is_dir() {
        abs.clone()
    } else {
        abs.parent().map(Path::to_path_buf).unwrap_or_default()
    };
    let mut cur = Some(start.as_path());
    while let Some(dir) = cur {
        if dir.join(".git").exists() {
            return dir.to_path_buf();
        }
        cur = dir.parent();
    }
    start
}

/// The root that machine formats (SARIF, GitLab, baselines) make paths relative to:
/// the project root of the first path given (or of the current directory).
pub fn report_root(options: &CheckOptions) -> PathBuf {
    let cwd = options
        .cwd
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    let first = options
        .paths
        .first()
        .or(options.policies.first())
        .map_or_else(|| cwd.clone(), |p| cwd.join(p));
    project_root(&first, options.root.as_deref())
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
/// or a stream whose OpenAPI document is a later one. A missing file is RL005 from
/// the join; a file that is an OpenAPI description but not part of this run (not
/// named, filtered out) gets nothing.
fn spec_targets_not_openapi(
    policy: &crate::policy::model::PolicyFile,
    documents: &[Document],
    ws: &Workspace,
    streams_read: &HashMap<PathBuf, usize>,
) -> Vec<Diagnostic> {
    let dir = policy.doc.file.path.parent().unwrap_or(Path::new(""));
    let mut out = Vec::new();
    for s in &policy.spec {
        let joined = crate::source::refs::normalize(&dir.join(&s.value));
        if !joined.is_file() {
            continue;
        }
        let canonical = std::fs::canonicalize(&joined).unwrap_or_else(|_| joined.clone());
        let why = if let Some(&index) = streams_read.get(&canonical) {
            format!(
                "whose first YAML document is not an OpenAPI description: the OpenAPI description is the {} document of the stream",
                rules::rl014_multiple_documents::ordinal(index)
            )
        } else if documents
            .iter()
            .any(|d| d.doc.file.path == joined || d.doc.file.path == canonical)
        {
            continue;
        } else {
            let doc = ws.load(&joined);
            match &doc.tree {
                Err(e) => {
                    let rl001 = rules::rl001_invalid_syntax::from_error(&doc, e);
                    let why = format!("which could not be read: {}", rl001.message);
                    out.push(rl001);
                    why
                }
                Ok(_) if has_top_level_key(&doc, &["openapi", "swagger"]) => continue,
                Ok(_) => match later_openapi_document(&doc) {
                    Some((index, _)) => format!(
                        "whose first YAML document is not an OpenAPI description: the OpenAPI description is the {} document of the stream",
                        rules::rl014_multiple_documents::ordinal(index)
                    ),
                    None => "which is not an OpenAPI description (its first YAML document has no top-level `openapi` or `swagger`)".to_string(),
                },
            }
        };
        out.push(
            Diagnostic::new(
                &rules::rl005_invalid_policy::META,
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
/// project reports, so it stands for its whole project: it is replaced by the
/// project root, which is walked as `retrylint check ROOT` would walk it.
fn named_configs_to_projects(paths: Vec<PathBuf>, root: Option<&Path>) -> Vec<PathBuf> {
    paths
        .into_iter()
        .map(|p| {
            if p.file_name().is_some_and(|n| n == crate::config::FILE_NAME) && p.is_file() {
                project_root(&p, root)
            } else {
                p
            }
        })
        .collect()
}

/// Everything up to the rules: the documents, the joined model and the findings
/// made while loading and joining.
#[derive(Debug)]
pub struct Analyzed {
    /// The OpenAPI documents linted.
    pub documents: Vec<Document>,
    /// The join of policies and operations.
    pub analysis: analysis::Analysis,
    /// Findings from loading, modelling and joining (not yet sorted).
    pub diagnostics: Vec<Diagnostic>,
    /// YAML/JSON files skipped as neither document nor policy.
    pub skipped: Vec<String>,
    /// Number of policy files read.
    pub policies: usize,
    /// Findings hidden by suppressions (set by [`run_full`]).
    pub suppressed: Vec<suppress::Suppressed>,
    /// Some file could not be read or parsed (set by [`run_full`] before rule levels
    /// apply, so turning RL001 off never hides it from the exit code).
    pub could_not_lint: bool,
    /// Canonical paths of the files read as input: documents, policies, `$ref`
    /// targets, files reported as unreadable; not the files skipped as neither
    /// document nor policy. A report must never be written over one of them.
    pub inputs: Vec<PathBuf>,
}

/// Runs the whole pipeline.
pub fn run(options: &CheckOptions) -> CheckOutcome {
    let (analyzed, diagnostics) = run_full(options);
    let Analyzed {
        documents,
        analysis,
        skipped,
        policies,
        suppressed,
        could_not_lint,
        inputs,
        ..
    } = analyzed;
    let count = documents.len();
    // Freeing every tree of a big run takes a while (0.16 s for 2,639 specs) and
    // nothing waits for it: free them beside the report, or let the exit do it.
    std::thread::spawn(move || drop((documents, analysis)));
    CheckOutcome {
        diagnostics,
        documents: count,
        policies,
        skipped,
        could_not_lint,
        suppressed,
        inputs,
    }
}

/// The pipeline, returning the analysed model beside the sorted findings that
/// survive suppressions (the readiness matrix needs both).
pub fn run_full(options: &CheckOptions) -> (Analyzed, Vec<Diagnostic>) {
    let mut analyzed = analyze(options);
    let mut diagnostics = std::mem::take(&mut analyzed.diagnostics);
    let ctx = Context {
        documents: &analyzed.documents,
        analysis: &analyzed.analysis,
        thresholds: &options.thresholds,
    };
    diagnostics.extend(crate::timing::phase("rules", || {
        rules::run_checks_split(&ctx, options.split.as_ref())
    }));
    crate::timing::phase("sort", || sort_and_dedup(&mut diagnostics));
    let applied = crate::timing::phase("suppress", || {
        let suppressions = suppress::collect(&analyzed.documents, &analyzed.analysis);
        suppress::apply(diagnostics, &suppressions)
    });
    analyzed.could_not_lint = applied
        .diagnostics
        .iter()
        .any(|d| d.code == rules::rl001_invalid_syntax::META.code);
    let mut diagnostics = options.rule_levels.apply(applied.diagnostics);
    sort_and_dedup(&mut diagnostics);
    analyzed.suppressed = applied
        .suppressed
        .into_iter()
        .filter(|s| !options.rule_levels.is_off(s.diagnostic.code))
        .collect();
    (analyzed, diagnostics)
}

/// Discover, load, model and join: everything but the rules.
pub fn analyze(options: &CheckOptions) -> Analyzed {
    let cwd = options
        .cwd
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    let paths: Vec<PathBuf> = if options.paths.is_empty() && options.policies.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        options.paths.clone()
    };
    let paths = if options.related {
        named_configs_to_projects(paths, options.root.as_deref())
    } else {
        paths
    };
    let ws = Workspace::new(cwd.clone(), options.limits);
    let (mut candidates, walk_problems) =
        crate::timing::phase("discover", || discover(&paths, &options.policies));
    if options.related {
        candidates = crate::timing::phase("named files and related", || {
            crate::discover::with_related(candidates, &ws, options.root.as_deref())
        });
    }
    if let Some(filter) = &options.filter {
        // `--policy` files are read whatever the filter says.
        candidates.retain(|c| {
            (c.explicit && c.kind == NameKind::Policy && options.policies.contains(&c.path))
                || filter.allows(&c.path)
        });
    }
    let mut diags: Vec<Diagnostic> = walk_problems
        .iter()
        .map(|p| rules::rl001_invalid_syntax::walk_problem(&ws, &p.path, &p.message))
        .collect();

    // Load every candidate in parallel; the workspace caches by canonical path.
    let loaded: Vec<(Candidate, Arc<Loaded>)> = crate::timing::phase("load", || {
        candidates
            .par_iter()
            .map(|c| (c.clone(), ws.load(&c.path)))
            .collect()
    });

    let mut documents_in: Vec<(Arc<Loaded>, PathBuf)> = Vec::new();
    let mut policy_files: Vec<Arc<Loaded>> = Vec::new();
    let mut skipped = Vec::new();
    // Streams read on a later document: canonical path -> index of that document.
    let mut streams_read: HashMap<PathBuf, usize> = HashMap::new();
    let mut skipped_paths = std::collections::HashSet::new();
    for (cand, doc) in &loaded {
        let root_arg = paths
            .iter()
            .find(|p| cand.path.starts_with(p))
            .cloned()
            .unwrap_or_else(|| cand.path.clone());
        match (&doc.tree, cand.kind) {
            (Err(e), kind) => {
                let reported = match kind {
                    // A foreign-named file (a README given with `*`) is no spec unless
                    // it says so; one that cannot be read at all is still reported.
                    NameKind::Unlisted => {
                        matches!(e, LoadError::Io(_)) || declares_openapi(&doc.file.text)
                    }
                    NameKind::Other => cand.explicit || declares_openapi(&doc.file.text),
                    NameKind::Policy | NameKind::SpecLike => true,
                };
                if reported {
                    diags.push(rules::rl001_invalid_syntax::from_error(doc, e));
                } else {
                    skipped.push(doc.file.display.clone());
                    skipped_paths.insert(doc.file.path.clone());
                }
            }
            (Ok(_), NameKind::Policy) if options.explicit_policies_only && !cand.explicit => {}
            (Ok(_), NameKind::Policy) => policy_files.push(doc.clone()),
            (Ok(_), _) if has_top_level_key(doc, &["openapi", "swagger"]) => {
                documents_in.push((
                    doc.clone(),
                    project_root(&root_arg, options.root.as_deref()),
                ));
            }
            // A stream whose first document is not OpenAPI but a later one is: a file
            // named on the command line or like a spec is read on that document (with
            // RL014); a walked file of another name is a stream by design (Kubernetes
            // manifests) and is skipped below.
            (Ok(_), kind) if cand.explicit || kind == NameKind::SpecLike => {
                match later_openapi_document(doc) {
                    Some((index, tree)) => {
                        diags.extend(rules::rl014_multiple_documents::later_openapi_document(
                            doc, index,
                        ));
                        streams_read.insert(doc.file.path.clone(), index);
                        documents_in.push((
                            ws.substitute(doc, tree),
                            project_root(&root_arg, options.root.as_deref()),
                        ));
                    }
                    None => {
                        skipped.push(doc.file.display.clone());
                        skipped_paths.insert(doc.file.path.clone());
                    }
                }
            }
            (Ok(_), _) => {
                skipped.push(doc.file.display.clone());
                skipped_paths.insert(doc.file.path.clone());
            }
        }
    }
    for doc in &policy_files {
        diags.extend(rules::rl002_duplicate_key::check_file(doc));
        diags.extend(rules::rl014_multiple_documents::check_file(
            doc,
            rules::rl014_multiple_documents::Role::Policy,
        ));
    }

    // Model: documents built in parallel, each with its own resolver (its memo and
    // look-up caches behind no lock another worker waits on); files reached by `$ref`
    // are still loaded once, by the shared workspace.
    let built: Vec<(Option<Document>, Vec<Diagnostic>)> = crate::timing::phase("model", || {
        // On the deep-stack pool: RL008's typed read recurses per nesting level.
        crate::deep_stack::run(|| {
            documents_in
                .par_iter()
                .map(|(doc, root)| {
                    let resolver = Resolver::new(&ws, root);
                    crate::openapi::build::lint_document(&resolver, doc)
                })
                .collect()
        })
    });
    let mut documents = Vec::new();
    for (doc, d) in built {
        diags.extend(d);
        documents.extend(doc);
    }

    // Policies and the join.
    let mut policies = Vec::new();
    for p in &policy_files {
        let (policy, d) = policy::load_policy(p);
        diags.extend(d);
        policies.extend(policy);
    }
    let (analysis, d) = crate::timing::phase("join", || analysis::join(&documents, &policies));
    diags.extend(d);
    for p in &policies {
        diags.extend(spec_targets_not_openapi(p, &documents, &ws, &streams_read));
    }
    // A skipped file is no input (an earlier report), unless a `$ref` reached it.
    let inputs = ws
        .loaded_paths()
        .into_iter()
        .filter(|p| !skipped_paths.contains(p) || ws.is_referenced(p))
        .collect();
    Analyzed {
        documents,
        analysis,
        diagnostics: diags,
        skipped,
        policies: policies.len(),
        suppressed: Vec::new(),
        could_not_lint: false,
        inputs,
    }
}
