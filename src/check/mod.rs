//! The `check` pipeline as a library call: the project ([`crate::project::load`]:
//! discover, load) -> model -> join -> rules -> suppressions -> sorted diagnostics.
//! No printing here.

pub mod answer;
pub mod fix;

use crate::analysis;
use crate::diagnostic::{sort_and_dedup, Diagnostic};
use crate::openapi::model::Document;
use crate::policy;
use crate::project;
use crate::rules::{self, Context, Thresholds};
use crate::source::loader::{Limits, Loaded, Workspace};
use crate::source::refs::Resolver;
use crate::suppress;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use crate::project::project_root;

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
    /// The run answers for one project: folders below a walked folder that are
    /// projects of their own are left out and listed in
    /// [`CheckOutcome::nested_projects`] (`project::nested`), for `check` to run each
    /// on its own.
    pub split_projects: bool,
    /// A baseline's view (`--baseline`): grouped findings split into what the baseline
    /// records and what is new, so the new part names only new operations.
    pub split: Option<crate::rules::grouping::Split>,
    /// `.retrylint.yaml` `services:`: which spec each imported retry config serves.
    pub services: Vec<crate::config::ServiceBinding>,
    /// `.retrylint.yaml` `platforms:`: versions that decide platform defaults.
    pub platforms: crate::config::Platforms,
    /// Texts that replace files on disk, by canonical path (`retrylint lsp`: the
    /// editor's unsaved buffers, so an edited policy changes its spec's findings).
    pub overlay: Option<std::sync::Arc<crate::source::loader::Overlay>>,
}

/// What a check found.
#[derive(Debug)]
pub struct CheckOutcome {
    /// Findings, sorted by file, position, code; de-duplicated.
    pub diagnostics: Vec<Diagnostic>,
    /// OpenAPI documents linted, those read from server code included.
    pub documents: usize,
    /// Of `documents`, the APIs read from server code where no spec describes the
    /// service (`import::server`): counted apart in the summary line.
    pub from_code: usize,
    /// Policy files read.
    pub policies: usize,
    /// Retry config files read by the importers.
    pub configs: usize,
    /// YAML/JSON files skipped as neither (display paths).
    pub skipped: Vec<String>,
    /// Paths not read because their real path leaves the project root (display
    /// paths, sorted; see [`crate::source::boundary`]).
    pub left_out: Vec<String>,
    /// True when some file could not be read or parsed (exit code 2).
    pub could_not_lint: bool,
    /// Findings hidden by suppressions, with the reason (`--show-suppressed`).
    pub suppressed: Vec<suppress::Suppressed>,
    /// Canonical paths of the files the run read as input (see [`Analyzed::inputs`]).
    pub inputs: Vec<PathBuf>,
    /// How many times the run read each file from disk and parsed it (see
    /// [`Analyzed::reads`]).
    pub reads: std::collections::BTreeMap<PathBuf, usize>,
    /// Of `documents`, those checked alone as they loaded and released (nothing of
    /// the run binds to them): what keeps memory to the documents in flight.
    pub streamed: usize,
    /// With [`CheckOptions::split_projects`]: the folders left out of the walk as
    /// projects of their own (canonical, outermost, sorted).
    pub nested_projects: Vec<PathBuf>,
}

/// The root that machine formats (SARIF, GitLab, baselines) make paths relative to:
/// the project root of the first path given (or of the current directory).
pub fn report_root(options: &CheckOptions) -> PathBuf {
    let (_, first) = cwd_and_first_path(options);
    project_root(&first, options.root.as_deref())
}

/// The folder output paths are relative to, and the first path given made absolute
/// against it (the folder itself when no path is given).
fn cwd_and_first_path(options: &CheckOptions) -> (PathBuf, PathBuf) {
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
    (cwd, first)
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
    /// Paths not read because their real path leaves the project root (display
    /// paths, sorted; see [`crate::source::boundary`]).
    pub left_out: Vec<String>,
    /// Number of policy files read.
    pub policies: usize,
    /// Number of retry config files that bound to some operation or were reported.
    pub configs: usize,
    /// Notes on platform defaults, shown with every finding at their node.
    pub notes: Vec<crate::import::OriginNote>,
    /// Findings hidden by suppressions (set by [`run_full`]).
    pub suppressed: Vec<suppress::Suppressed>,
    /// Some file could not be read or parsed (set by [`run_full`] before rule levels
    /// apply, so turning RL001 off never hides it from the exit code).
    pub could_not_lint: bool,
    /// Canonical paths of the files read as input: documents, policies, `$ref`
    /// targets, files reported as unreadable; not the files skipped as neither
    /// document nor policy. A report must never be written over one of them.
    pub inputs: Vec<PathBuf>,
    /// OpenAPI documents checked one by one as they loaded ([`run`] only): counted
    /// here, not in [`Analyzed::documents`]; their findings are in the run's.
    pub streamed_documents: usize,
    /// A run asked about named files or folders ([`run_full`]): for each operation of
    /// `analysis.operations`, whether the asked files declare or reach it
    /// ([`answer::asked`]); the views (`readiness`, `report`) show those
    /// rows only. `None`: the whole project was asked, every row is shown.
    pub asked_operations: Option<Vec<bool>>,
    /// A run asked about named files or folders: how many of its documents (held or
    /// streamed) the asked files name, hold, reach or are reached by
    /// ([`answer::Asked::documents`]), and how many of those were read from server
    /// code. The summary counts these as checked; the rest were read as context.
    /// `None`: the whole project was asked.
    pub asked_documents: Option<(usize, usize)>,
    /// Canonical paths of the documents checked one by one as they loaded.
    pub streamed_paths: Vec<PathBuf>,
    /// How many times the run read each file (canonical path) from disk and parsed
    /// it: once each, since one pass reads what binds before the documents
    /// (`tests/read_once.rs`); a streamed document that a `$ref` of another reaches
    /// is read twice (released after its check, read again as the `$ref` target), and
    /// so is the one spec of a run whose other document candidates were none, when
    /// a retry config may bind it as the run's only spec.
    pub reads: std::collections::BTreeMap<PathBuf, usize>,
    /// The retrying routes of configs that bound no operation
    /// ([`crate::import::bind::UnboundRoute`]): `readiness` says "unknown" for an
    /// operation no layer retries when one of them may carry it.
    pub unbound_routes: Vec<crate::import::bind::UnboundRoute>,
    /// With [`CheckOptions::split_projects`]: the folders left out of the walk as
    /// projects of their own (canonical, outermost, sorted).
    pub nested_projects: Vec<PathBuf>,
}

/// Runs the whole pipeline. A run with no policy file checks each OpenAPI document
/// that no retry config may bind to as soon as it is loaded and keeps only its
/// findings, so memory follows the documents in flight, not the repository; its
/// output is the same as [`run_full`]'s, whose [`Analyzed`] holds every document.
pub fn run(options: &CheckOptions) -> CheckOutcome {
    let (analyzed, diagnostics) = run_with(options, true);
    let Analyzed {
        documents,
        analysis,
        skipped,
        left_out,
        policies,
        configs,
        suppressed,
        could_not_lint,
        inputs,
        reads,
        nested_projects,
        ..
    } = analyzed;
    let streamed = analyzed.streamed_documents;
    // A run asked about named files counts the documents their answer is about.
    let (count, from_code) = analyzed.asked_documents.unwrap_or_else(|| {
        (
            documents.len() + streamed,
            documents.iter().filter(|d| d.server_code.is_some()).count(),
        )
    });
    // Freeing every tree of a big run takes a while (0.16 s for 2,639 specs) and
    // nothing waits for it: free them beside the report, or let the exit do it. A
    // few documents are freed here: starting a thread costs more (pre-commit).
    if documents.len() > 8 {
        std::thread::spawn(move || drop((documents, analysis)));
    } else {
        drop((documents, analysis));
    }
    CheckOutcome {
        diagnostics,
        documents: count,
        from_code,
        policies,
        configs,
        skipped,
        left_out,
        could_not_lint,
        suppressed,
        inputs,
        reads,
        streamed,
        nested_projects,
    }
}

/// The pipeline, returning the analysed model beside the sorted findings that
/// survive suppressions (the readiness matrix needs both).
pub fn run_full(options: &CheckOptions) -> (Analyzed, Vec<Diagnostic>) {
    run_with(options, false)
}

/// [`run_full`], streaming documents when `stream` (see [`run`]).
fn run_with(options: &CheckOptions, stream: bool) -> (Analyzed, Vec<Diagnostic>) {
    let mut analyzed = analyze_answering(options, stream);
    let mut diagnostics = std::mem::take(&mut analyzed.diagnostics);
    let ctx = Context {
        documents: &analyzed.documents,
        analysis: &analyzed.analysis,
        thresholds: &options.thresholds,
    };
    diagnostics.extend(crate::timing::phase("rules", || {
        rules::run_checks_split(&ctx, options.split.as_ref())
    }));
    // A finding on a retry client in code also shows the call it retries.
    let mut diagnostics = crate::import::code::call_labels::label_call_sites(
        diagnostics,
        &analyzed.analysis.policies,
    );
    crate::timing::phase("sort", || sort_and_dedup(&mut diagnostics));
    let mut applied = crate::timing::phase("suppress", || {
        let suppressions = suppress::collect(&analyzed.documents, &analyzed.analysis);
        suppress::apply(diagnostics, &suppressions)
    });
    // Named files or a folder below the root: the part of the project's answer that
    // concerns them (`answer`). An RL001 there decides the exit code even when rule
    // levels turn RL001 off.
    let scope = answer_scope(options);
    let mut unreadable: Vec<Diagnostic> = applied
        .diagnostics
        .iter()
        .filter(|d| d.code == rules::rl001_invalid_syntax::META.code)
        .cloned()
        .collect();
    if let Some(scope) = &scope {
        answer::restrict(
            scope,
            &analyzed.documents,
            &analyzed.analysis,
            &mut unreadable,
            &mut Vec::new(),
        );
    }
    analyzed.could_not_lint |= !unreadable.is_empty();
    let mut diagnostics = options.rule_levels.apply(applied.diagnostics);
    sort_and_dedup(&mut diagnostics);
    // Notes go to the first finding at their node among all the run's findings, as
    // in the whole project's run, before the part asked about is kept.
    attach_notes(&mut diagnostics, &analyzed.notes);
    if let Some(scope) = &scope {
        let asked = answer::asked(scope, &analyzed.documents, &analyzed.analysis);
        let held = analyzed.documents.iter().zip(&asked.documents);
        let from_code = held
            .clone()
            .filter(|(d, &a)| a && d.server_code.is_some())
            .count();
        let count = held.filter(|(_, &a)| a).count()
            + analyzed
                .streamed_paths
                .iter()
                .filter(|p| scope.contains(p))
                .count();
        analyzed.asked_documents = Some((count, from_code));
        analyzed.asked_operations = Some(asked.operations);
        answer::restrict(
            scope,
            &analyzed.documents,
            &analyzed.analysis,
            &mut diagnostics,
            &mut applied.suppressed,
        );
    }
    crate::import::server::note_read_operations(&mut diagnostics, &analyzed.documents);
    analyzed.suppressed = applied
        .suppressed
        .into_iter()
        .filter(|s| !options.rule_levels.is_off(s.diagnostic.code))
        .collect();
    (analyzed, diagnostics)
}

/// The files a run over named files or folders is asked about (see [`answer`]);
/// `None` for a run over the whole project, or one that does not read related files.
pub fn answer_scope(options: &CheckOptions) -> Option<answer::Scope> {
    if !options.related {
        return None;
    }
    let (cwd, first) = cwd_and_first_path(options);
    let root = project::answer_root(&first, options.root.as_deref());
    answer::Scope::of(&options.paths, &options.policies, &cwd, &root)
}

/// Discover, load, model and join: everything but the rules.
pub fn analyze(options: &CheckOptions) -> Analyzed {
    analyze_answering(options, false)
}

/// Models one document with its own resolver (its memo and look-up caches behind no
/// lock another worker waits on); RL008's typed read of a 3.0 document runs on
/// another core beside its ref scan.
fn model_document(resolver: &Resolver, doc: &Arc<Loaded>) -> (Option<Document>, Vec<Diagnostic>) {
    let name = &doc.file.display;
    let (document, diags, structure) = crate::openapi::lint_document_beside(resolver, doc, |d| {
        crate::timing::detail(format_args!("model/rl008 {name}"), || {
            rules::rl008_invalid_openapi_structure::check_document(d)
        })
    });
    let document = document.map(|mut d| {
        d.structure_check = structure;
        d
    });
    (document, diags)
}

/// The whole check of one document in a run with no policies or configs, before
/// suppressions: its model, join and rules. `None` (check it with the whole run)
/// when a `$ref` of it names another file (what it finds there is shared with the
/// other documents reading that file, and grouped with theirs) or it holds
/// suppressions (one covers findings by operation name, in any document).
fn check_alone(
    ws: &Workspace,
    doc: &Arc<Loaded>,
    root: &Path,
    thresholds: &Thresholds,
    gate: Option<&BindGate<'_>>,
) -> Option<Vec<Diagnostic>> {
    let resolver = Resolver::new(ws, root);
    let (document, mut diags) = model_document(&resolver, doc);
    // A file that builds no document (an unsupported `openapi` version) is no
    // document the run counts: the whole-run path reports it as it always does.
    if resolver.reached_other_files() || document.is_none() {
        return None;
    }
    let documents: Vec<Document> = document.into_iter().collect();
    // Inline `x-linkerd-*` extensions are a mesh layer the binding step reads from
    // the document (with its notes): such a document takes the whole-run path.
    let ext = crate::import::linkerd::openapi_ext::read(&documents, &[]);
    if !ext.policies.is_empty() || !ext.notes.is_empty() || !ext.diagnostics.is_empty() {
        return None;
    }
    // A document some retry config may bind to is checked with the whole run.
    let summary = match (gate, documents.first()) {
        (Some(gate), Some(document)) => Some(gate.summary_if_unbound(ws, document)?),
        _ => None,
    };
    let (analysis, d) = analysis::join(&documents, &[]);
    if !suppress::collect(&documents, &analysis).is_empty() {
        return None;
    }
    diags.extend(d);
    let ctx = Context {
        documents: &documents,
        analysis: &analysis,
        thresholds,
    };
    diags.extend(rules::run_checks_split(&ctx, None));
    // Only the findings stay: their places keep line and column, not the text.
    crate::diagnostic::release_text(&mut diags, &doc.file);
    if let (Some(gate), Some(summary)) = (gate, summary) {
        gate.keep(doc.file.path.clone(), summary);
    }
    Some(diags)
}

/// What a run with retry configs asks of each document as it loads: may an object
/// bind to it? One that none may bind is checked alone and released, as in a run
/// with nothing to bind; binding keeps only its summary (what RL016 names).
struct BindGate<'a> {
    may_bind: crate::import::bind::MayBind<'a>,
    /// The names the repository gives each document's service (one finder for the
    /// run: it lists each folder once).
    identities: &'a std::sync::Mutex<crate::import::identity::Identities>,
    /// The summaries of the documents checked alone, by canonical path.
    kept:
        std::sync::Mutex<std::collections::HashMap<PathBuf, crate::import::bind::DocumentSummary>>,
}

impl BindGate<'_> {
    /// `None` when some object may bind to `document`; else what binding keeps of it.
    fn summary_if_unbound(
        &self,
        ws: &Workspace,
        document: &Document,
    ) -> Option<crate::import::bind::DocumentSummary> {
        let identities = self
            .identities
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .of(&document.doc.file.path, &|p| ws.admitted(p));
        self.may_bind.summary_if_unbound(document, &identities)
    }

    fn keep(&self, path: PathBuf, summary: crate::import::bind::DocumentSummary) {
        self.kept
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(path, summary);
    }

    fn take(&self, path: &Path) -> Option<crate::import::bind::DocumentSummary> {
        self.kept
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(path)
    }
}

/// [`analyze_with`] for a run over named files: first with the binding component of
/// the named files only; again with every document of the project when an object of
/// a named retry config binds nothing, since what RL016 then says names the
/// project's specs (`project::discover::related`). The second run is the exception
/// (a route to a host no spec serves): a named config of routes that bind is read
/// once.
fn analyze_answering(options: &CheckOptions, stream: bool) -> Analyzed {
    let first = analyze_with(options, stream, false);
    if !options.related || !unbound_in_named_file(options, &first.diagnostics) {
        return first;
    }
    drop(first);
    analyze_with(options, stream, true)
}

/// True when an RL016 (an object that binds nothing) is located in a file named on
/// the command line.
fn unbound_in_named_file(options: &CheckOptions, diagnostics: &[Diagnostic]) -> bool {
    let unbound: Vec<&Path> = diagnostics
        .iter()
        .filter(|d| d.code == crate::import::rl016_unbound_config::META.code)
        .map(|d| d.primary.location.file.path.as_path())
        .collect();
    if unbound.is_empty() {
        return false;
    }
    let (cwd, _) = cwd_and_first_path(options);
    options.paths.iter().any(|p| {
        let named = std::fs::canonicalize(cwd.join(p)).unwrap_or_else(|_| cwd.join(p));
        unbound.iter().any(|u| *u == named)
    })
}

/// [`analyze`], checking documents as they load when `stream` and the run allows it
/// (no baseline split, no `services:`, no policy file): each document no imported
/// route or client may bind to ([`BindGate`]; with retry code or `.proto` files, none
/// is). One pass: the files that say what binds are read first ([`project::load`]),
/// then the documents ([`project::Staged::documents`]).
fn analyze_with(options: &CheckOptions, stream: bool, every_document: bool) -> Analyzed {
    let stream = stream && options.split.is_none() && options.services.is_empty();
    let cwd = options
        .cwd
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    let bound_specs: Vec<PathBuf> = options
        .services
        .iter()
        .map(|s| std::fs::canonicalize(&s.spec).unwrap_or_else(|_| s.spec.clone()))
        .collect();
    // First stage: policies, retry configs, `.proto` files and retry code.
    let staged = project::load(&project::Selection {
        bound_specs: &bound_specs,
        paths: &options.paths,
        policies: &options.policies,
        root: options.root.as_deref(),
        cwd,
        limits: options.limits,
        explicit_policies_only: options.explicit_policies_only,
        filter: options.filter.as_ref(),
        related: options.related,
        overlay: options.overlay.clone(),
        every_document,
        split_projects: options.split_projects,
    });
    let nested_projects = staged.nested_projects.clone();
    // The `.proto` files of the run, read once, for binding gRPC configs.
    let (protos, proto_diags) = crate::timing::phase("import/protos", || {
        crate::import::proto::ProtoIndex::build(&staged.protos)
    });
    let ctx = crate::import::ImportContext {
        platforms: &options.platforms,
        protos: &protos,
    };
    let imported = crate::timing::phase("import/read", || {
        crate::import::import_all_with_sources(
            &staged.configs,
            &staged.sources_rest,
            &|p| Some(staged.ws.load(p)),
            staged.ws.boundary(),
            &ctx,
        )
    });
    // With retry configs, a document some object may bind to is held whole; every
    // other document is checked as it loads and released, as in a run with nothing
    // to bind. Server code and `.proto` files describe APIs beside the documents
    // (which ones depends on every document): with either, every document is held.
    let to_bind = !imported.objects.is_empty();
    // The run's only spec binds every object that names no other host: it is held.
    let stream = stream
        && (!to_bind
            || (staged.document_candidates() > 1
                && staged.protos.is_empty()
                && staged.sources_rest.is_empty()
                && !staged
                    .configs
                    .iter()
                    .any(|(_, f)| matches!(f, crate::import::Format::Code(_)))));
    // The names the repository gives each document's service (its Spring application
    // name, Compose service, Aspire project), read only when there is something to
    // bind: one finder for the run, asked while documents load and after.
    let identities = to_bind.then(|| {
        std::sync::Mutex::new(crate::timing::phase("import/identities", || {
            identities_finder(&staged)
        }))
    });
    let gate = identities.as_ref().map(|identities| BindGate {
        may_bind: crate::import::bind::MayBind::new(&imported.objects),
        identities,
        kept: Default::default(),
    });
    let hook = |ws: &Workspace, doc: &Arc<Loaded>, root: &Path| {
        check_alone(ws, doc, root, &options.thresholds, gate.as_ref())
    };
    let mut inputs = staged.documents(if stream {
        Some(project::Stream(&hook))
    } else {
        None
    });
    let mut diags = std::mem::take(&mut inputs.diagnostics);

    // Model: documents built in parallel, each with its own resolver (its memo and
    // look-up caches behind no lock another worker waits on); files reached by `$ref`
    // are still loaded once, by the shared workspace. RL008's typed read of a 3.0
    // document runs on another core beside its ref scan.
    let model_all = |ws: &Workspace, documents: &[(Arc<Loaded>, PathBuf)]| {
        // On the deep-stack pool: RL008's typed read recurses per nesting level.
        crate::deep_stack::run(|| {
            documents
                .par_iter()
                .map(|(doc, root)| model_document(&Resolver::new(ws, root), doc))
                .collect::<Vec<_>>()
        })
    };
    let mut built: Vec<(Option<Document>, Vec<Diagnostic>)> =
        crate::timing::phase("model", || model_all(&inputs.ws, &inputs.documents));
    // A document of the whole-run path that reads a streamed one through a `$ref`
    // shares nodes with it: that one is taken back and checked with the whole run.
    let taken = inputs.unstream_referenced();
    let model_taken = |inputs: &project::Inputs, built: &mut Vec<_>, taken: Vec<usize>| {
        let again: Vec<(Arc<Loaded>, PathBuf)> =
            taken.iter().map(|&i| inputs.documents[i].clone()).collect();
        for (&i, one) in taken.iter().zip(model_all(&inputs.ws, &again)) {
            built.insert(i, one);
        }
    };
    if !taken.is_empty() {
        model_taken(&inputs, &mut built, taken);
    }
    // The run's only spec binds every object that names no other host: when the
    // others turned out to be no specs, the one checked alone is taken back.
    if let Some(gate) = &gate {
        let kept = gate
            .kept
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .keys()
            .cloned()
            .collect::<Vec<PathBuf>>();
        if kept.len() == 1 && built.iter().all(|(doc, _)| doc.is_none()) {
            let taken = inputs.unstream_where(|path| *path == kept[0]);
            model_taken(&inputs, &mut built, taken);
        }
    }
    // What binding keeps of the documents checked alone, with the places of all.
    let unheld = match &gate {
        None => crate::import::bind::Unheld::default(),
        Some(gate) => crate::import::bind::Unheld {
            held_places: inputs
                .document_places()
                .iter()
                .zip(&built)
                .filter(|(_, (doc, _))| doc.is_some())
                .map(|(&place, _)| place)
                .collect(),
            others: inputs
                .streamed
                .places()
                .filter_map(|(path, place)| Some((place, gate.take(path)?)))
                .collect(),
        },
    };
    drop(gate);
    let mut streamed = std::mem::take(&mut inputs.streamed);
    // Every tree of a streamed document is gone by now: its findings come back.
    let lost = match streamed.take_diagnostics() {
        Ok(found) => {
            diags.extend(found);
            false
        }
        Err(e) => {
            crate::write::errln(format_args!("retrylint: {e}; the run is not complete"));
            true
        }
    };
    let mut documents = Vec::new();
    for (doc, d) in built {
        diags.extend(d);
        documents.extend(doc);
    }

    // Policies, imported retry configs bound to operations, and the join.
    let mut policies = Vec::new();
    for p in &inputs.policies {
        let (policy, d) = policy::load_policy(p);
        diags.extend(d);
        policies.extend(policy);
    }
    let written = policies.len();
    diags.extend(proto_diags);
    let imported = crate::timing::phase("import", || {
        // The service names the repository gives each document (its Spring
        // application name, Compose service, Aspire project), read only when there is
        // something to bind.
        let load = |p: &std::path::Path| inputs.ws.admitted(p);
        let mut finder = identities.map(|m| {
            m.into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        });
        // With something to bind, the services no document describes are read
        // from their server code (issue 41).
        if let Some(finder) = finder.as_mut() {
            let sources: Vec<(PathBuf, crate::import::code::Language)> = inputs
                .configs
                .iter()
                .filter_map(|(doc, format)| match format {
                    crate::import::Format::Code(language) => {
                        Some((doc.file.path.clone(), *language))
                    }
                    _ => None,
                })
                .chain(inputs.sources_rest.iter().cloned())
                .collect();
            // A service a written spec describes, by a server host or by the name
            // the repository gives it, is not read from its code.
            let spec_names: Vec<String> = crate::timing::phase("import/identities", || {
                documents
                    .iter()
                    .flat_map(|d| finder.of(&d.doc.file.path, &load))
                    .collect()
            });
            let read = crate::timing::phase("import/server", || {
                crate::import::server::documents(
                    &sources,
                    &inputs.without_routes,
                    &inputs.ws,
                    &report_root(options),
                    &documents,
                    &spec_names,
                )
            });
            // The same by the names the repository gives the code's own service
            // (an Aspire project name shared with the spec of its folder).
            let read: Vec<Document> = read
                .into_iter()
                .filter(|d| {
                    !finder
                        .of(&d.doc.file.path, &load)
                        .iter()
                        .any(|n| spec_names.contains(n))
                })
                .collect();
            documents.extend(read);
            // A gRPC service no document describes is an API by itself.
            let from_protos = crate::timing::phase("import/proto-apis", || {
                let root = report_root(options);
                crate::import::server::proto_api::documents(
                    &protos,
                    &Resolver::new(&inputs.ws, &root),
                    &documents,
                )
            });
            documents.extend(from_protos);
        }
        let bound = crate::timing::phase("import/bind", || {
            let identities: Vec<Vec<String>> = match finder.as_mut() {
                None => Vec::new(),
                Some(finder) => crate::timing::phase("import/identities", || {
                    documents
                        .iter()
                        .map(|d| finder.of(&d.doc.file.path, &load))
                        .collect()
                }),
            };
            crate::import::bind::bind(
                &imported.objects,
                &documents,
                &unheld,
                &options.services,
                &identities,
                &ctx,
            )
        });
        let own = crate::import::drop_version_findings_of_unbound(
            imported.diagnostics,
            &imported.objects,
            &bound.diagnostics,
        );
        // What of this concerns the files asked about is decided once, after the
        // rules (`answer`): a config read only because a named file relates to it
        // keeps its findings on the operations that file reaches.
        let recorded = options.split.as_ref().map(|split| {
            move |at: &crate::diagnostic::Location, doc: &crate::source::SourceFile, op: &str| {
                split.0.is_known(
                    crate::import::rl314_version_dependent_default::META.code,
                    at,
                    doc,
                    op,
                )
            }
        });
        diags.extend(crate::import::group_version_findings(
            crate::import::label_bound_operations(own, &imported.objects, &bound.operations),
            recorded
                .as_ref()
                .map(|f| f as &crate::import::RecordedAt<'_>),
        ));
        diags.extend(bound.diagnostics);
        let mut files: Vec<&std::path::Path> = imported
            .objects
            .iter()
            .map(|o| o.at.doc.file.path.as_path())
            .collect();
        files.sort();
        files.dedup();
        let count = files.len();
        policies.extend(bound.policies);
        (count, bound.notes, imported.skipped, bound.unbound_routes)
    });
    let (configs, notes, code_skipped, unbound_routes) = imported;
    let (analysis, d) = crate::timing::phase("join", || analysis::join(&documents, &policies));
    diags.extend(d);
    for p in &policies {
        diags.extend(inputs.spec_targets_not_openapi(p, &documents));
    }
    Analyzed {
        documents,
        analysis,
        diagnostics: diags,
        skipped: std::mem::take(&mut inputs.skipped)
            .into_iter()
            .chain(code_skipped)
            .collect(),
        left_out: inputs
            .ws
            .boundary()
            .left_out()
            .iter()
            .map(|p| inputs.ws.display_path(p))
            .collect(),
        policies: written,
        configs,
        notes,
        suppressed: Vec::new(),
        could_not_lint: lost,
        inputs: inputs.read_paths(),
        streamed_documents: streamed.paths.len(),
        streamed_paths: std::mem::take(&mut streamed.paths),
        asked_operations: None,
        asked_documents: None,
        reads: inputs.ws.read_counts().into_iter().collect(),
        unbound_routes,
        nested_projects,
    }
}

/// The finder of the names the repository gives each document's service, knowing
/// the Aspire projects that the run's AppHost sources name.
fn identities_finder(staged: &project::Staged) -> crate::import::identity::Identities {
    let apphosts: Vec<_> = staged
        .configs
        .iter()
        .filter_map(|(doc, format)| match format {
            crate::import::Format::Code(l) => Some((doc.file.path.clone(), *l)),
            _ => None,
        })
        .chain(staged.sources_rest.iter().cloned())
        .filter(|(_, l)| *l == crate::import::code::Language::CSharp)
        .filter_map(|(p, _)| staged.ws.admitted(&p))
        .filter(|d| d.file.text.contains(crate::import::aspire::MARKER))
        .collect();
    let aspire =
        crate::import::aspire::project_names(apphosts.iter().map(|d| d.file.text.as_ref()));
    crate::import::identity::Identities::new().with_aspire(aspire)
}

/// Appends each platform-default note to the help of the first finding (in report
/// order) located at its node, so a finding about a value no file wrote says which
/// default applies, once per node rather than on every finding there.
fn attach_notes(diagnostics: &mut [Diagnostic], notes: &[crate::import::OriginNote]) {
    if notes.is_empty() {
        return;
    }
    let located: Vec<(crate::diagnostic::Location, &str)> =
        notes.iter().map(|n| (n.at.location(), &*n.text)).collect();
    // Notes by node, each given out once: thousands of routes and findings meet here.
    let mut by_node: std::collections::HashMap<(&std::path::Path, usize, usize), Vec<&str>> =
        std::collections::HashMap::new();
    for (loc, text) in &located {
        let texts = by_node
            .entry((loc.file.path.as_path(), loc.span.start, loc.span.end))
            .or_default();
        if !texts.contains(text) {
            texts.push(text);
        }
    }
    for d in diagnostics.iter_mut() {
        let key = (
            d.primary.location.file.path.as_path(),
            d.primary.location.span.start,
            d.primary.location.span.end,
        );
        let added: Vec<&str> = by_node.remove(&key).unwrap_or_default();
        if added.is_empty() {
            continue;
        }
        let mut help = d.help.take().map(|h| h.to_string()).unwrap_or_default();
        for text in added {
            if !help.is_empty() {
                help.push('\n');
            }
            help.push_str("note: ");
            help.push_str(text);
        }
        d.help = Some(crate::diagnostic::shared_text(help));
    }
}
