//! Runs over named files (as pre-commit makes them, from the repository root) see
//! what a full run sees: a policy anywhere under the project root that governs a
//! named document (case 41), the documents that reach a named `$ref` fragment, and
//! the whole project for a named `.retrylint.yaml`. Each layout is copied into a
//! temporary git repository, whose work tree is the project root.

mod common;

use retrylint::check::{run, CheckOptions, CheckOutcome};
use retrylint::diagnostic::{Diagnostic, Label, Severity};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// A temporary git repository holding copies of fixture files and folders; removed
/// on drop.
struct Repo {
    dir: PathBuf,
}

impl Drop for Repo {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn copy_into(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).expect("mkdir");
        for e in std::fs::read_dir(from).expect("read_dir") {
            let e = e.expect("entry");
            copy_into(&e.path(), &to.join(e.file_name()));
        }
    } else {
        std::fs::copy(from, to).expect("copy");
    }
}

/// A git repository whose root holds the contents of each fixture folder, or each
/// fixture file, of `parts` (relative to `fixtures/`).
fn repo_of(parts: &[&str]) -> Repo {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "retrylint-named-files-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("mkdir");
    let dir = std::fs::canonicalize(&dir).expect("canonical");
    for part in parts {
        let from = fixtures().join(part);
        if from.is_dir() {
            copy_into(&from, &dir);
        } else {
            copy_into(&from, &dir.join(from.file_name().expect("name")));
        }
    }
    let status = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&dir)
        .status()
        .expect("git runs");
    assert!(status.success(), "git init failed");
    Repo { dir }
}

/// `retrylint check PATHS...` run from the repository root (as pre-commit runs it).
fn check(repo: &Repo, paths: &[&str]) -> CheckOutcome {
    run(&CheckOptions {
        paths: paths.iter().map(|p| repo.dir.join(p)).collect(),
        cwd: Some(repo.dir.clone()),
        related: true,
        ..CheckOptions::default()
    })
}

/// True when the run read `rel` (a path in the repository) from disk: a document
/// read as context is not counted in the summary, but it is read.
fn was_read(repo: &Repo, outcome: &CheckOutcome, rel: &str) -> bool {
    outcome.reads.contains_key(&repo.dir.join(rel))
}

fn at(label: &Label) -> String {
    let l = &label.location;
    let lc = l.file.line_col(l.span.start);
    format!("{}:{}:{}", l.file.display, lc.line, lc.column)
}

/// One entry per finding and label (the primary one included):
/// `(code, primary position, label position)`. A finding grouped over operations of
/// several documents splits into the labels of each, so a run over some of them can
/// be compared with the full run.
fn entries(diagnostics: &[Diagnostic]) -> BTreeSet<(String, String, String)> {
    diagnostics
        .iter()
        .flat_map(|d| {
            let primary = at(&d.primary);
            std::iter::once(&d.primary)
                .chain(&d.labels)
                .map(move |l| (d.code.to_string(), primary.clone(), at(l)))
        })
        .collect()
}

fn codes(outcome: &CheckOutcome) -> Vec<(&str, String, Vec<String>)> {
    outcome
        .diagnostics
        .iter()
        .map(|d| {
            let l = &d.primary.location;
            (d.code, l.file.display.clone(), d.operations.clone())
        })
        .collect()
}

#[test]
fn case_41_policy_outside_the_folder_chain_is_found_from_the_named_spec() {
    let repo = repo_of(&["cases/41-policy-outside-folder-chain"]);
    let named = check(&repo, &["api/openapi.yaml"]);
    assert_eq!(named.policies, 1, "the mesh policy in deploy/istio is read");
    let rl201: Vec<_> = named
        .diagnostics
        .iter()
        .filter(|d| d.code == "RL201")
        .collect();
    assert_eq!(rl201.len(), 1, "{:#?}", codes(&named));
    assert_eq!(rl201[0].operations, ["POST /refunds"]);
    assert_eq!(
        rl201[0].primary.location.file.display,
        "deploy/istio/mesh.retry-policy.yaml"
    );
    let full = check(&repo, &["."]);
    assert_eq!(entries(&named.diagnostics), entries(&full.diagnostics));
}

#[test]
fn case_41_through_the_binary_as_pre_commit_runs_it() {
    let repo = repo_of(&["cases/41-policy-outside-folder-chain"]);
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_retrylint"))
            .args(["check", "--format", "json"])
            .args(args)
            .current_dir(&repo.dir)
            .output()
            .expect("runs");
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        let found: Vec<(String, String, String)> = json["diagnostics"]
            .as_array()
            .expect("list")
            .iter()
            .map(|d| {
                (
                    d["code"].as_str().unwrap_or("").to_string(),
                    d["path"].as_str().unwrap_or("").to_string(),
                    d["operation"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect();
        (out.status.code(), found)
    };
    let (status, named) = run(&["api/openapi.yaml"]);
    assert_eq!(status, Some(1));
    assert!(named.contains(&(
        "RL201".to_string(),
        "deploy/istio/mesh.retry-policy.yaml".to_string(),
        "POST /refunds".to_string()
    )));
    assert_eq!(run(&["."]), (Some(1), named));
}

/// A named spec's governing policies are parsed only when their text may name it
/// (or they sit above it), so the ways a `spec:` can name a file without its file
/// name must still be found: through a symbolic link, and through a YAML escape.
/// Each named run finds what the full run finds; a policy naming another spec
/// adds nothing.
#[cfg(unix)]
#[test]
fn policies_naming_the_spec_through_a_link_or_an_escape_are_found() {
    let repo = repo_of(&["cases/41-policy-outside-folder-chain"]);
    let policy = std::fs::read_to_string(
        fixtures().join("cases/41-policy-outside-folder-chain/deploy/istio/mesh.retry-policy.yaml"),
    )
    .expect("policy");
    std::os::unix::fs::symlink("openapi.yaml", repo.dir.join("api/current.yaml")).expect("link");
    // One layer each: two policies of one layer for one document are RL005.
    let write = |path: &str, spec: &str, layer: &str| {
        let text = policy
            .replace("spec: ../../api/openapi.yaml", spec)
            .replace("layer: mesh", layer);
        assert_ne!(text, policy);
        std::fs::create_dir_all(repo.dir.join(path).parent().expect("dir")).expect("mkdir");
        std::fs::write(repo.dir.join(path), text).expect("write");
    };
    std::fs::remove_file(repo.dir.join("deploy/istio/mesh.retry-policy.yaml")).expect("rm");
    write(
        "deploy/link/gateway.retry-policy.yaml",
        "spec: ../../api/current.yaml",
        "layer: gateway",
    );
    write(
        "deploy/escape/mesh.retry-policy.yaml",
        "spec: \"../../api/open\\x61pi.yaml\"",
        "layer: mesh",
    );
    write(
        "deploy/other/mesh.retry-policy.yaml",
        "spec: ../../api/other.yaml",
        "layer: mesh",
    );
    std::fs::copy(
        repo.dir.join("api/openapi.yaml"),
        repo.dir.join("api/other.yaml"),
    )
    .expect("copy");
    let named = check(&repo, &["api/openapi.yaml"]);
    let governing: BTreeSet<String> = named
        .diagnostics
        .iter()
        .filter(|d| d.code == "RL201" && d.operations == ["POST /refunds"])
        .map(|d| d.primary.location.file.display.clone())
        .collect();
    assert_eq!(
        governing,
        BTreeSet::from([
            "deploy/escape/mesh.retry-policy.yaml".to_string(),
            "deploy/link/gateway.retry-policy.yaml".to_string(),
        ]),
        "{:#?}",
        codes(&named)
    );
    let full = entries(&check(&repo, &["."]).diagnostics);
    let named = entries(&named.diagnostics);
    let missed: Vec<_> = full
        .iter()
        .filter(|(_, _, label)| label.starts_with("api/openapi.yaml:"))
        .filter(|e| !named.contains(*e))
        .collect();
    assert!(missed.is_empty(), "missed: {missed:#?}");
}

#[test]
fn a_named_ref_fragment_rechecks_the_documents_that_reach_it() {
    let repo = repo_of(&["named-files/ref-fragment"]);
    // Reached directly by api/ and through shared/components.yaml by billing/.
    let named = check(&repo, &["shared/responses.yaml"]);
    assert_eq!(named.documents, 2, "api/ and billing/, not unrelated/");
    let rl501: Vec<_> = codes(&named)
        .into_iter()
        .filter(|(code, ..)| *code == "RL501")
        .collect();
    assert_eq!(
        rl501,
        [(
            "RL501",
            "shared/responses.yaml".to_string(),
            vec!["GET /orders".to_string(), "GET /invoices".to_string()]
        )]
    );
    // Only billing/ reaches components.yaml, but the RL501 it reaches there is one
    // finding over every document sharing responses.yaml (api/ too): the whole run's.
    let named = check(&repo, &["shared/components.yaml"]);
    // The summary counts the document asked about (billing/ reaches the fragment);
    // api/ was read as context, for the finding it shares.
    assert_eq!(named.documents, 1);
    assert!(was_read(&repo, &named, "api/openapi.yaml"));
    assert_eq!(
        codes(&named),
        [(
            "RL501",
            "shared/responses.yaml".to_string(),
            vec!["GET /orders".to_string(), "GET /invoices".to_string()]
        )]
    );
}

#[test]
fn a_named_document_rechecks_the_documents_that_use_its_components() {
    let repo = repo_of(&["named-files/ref-fragment"]);
    // api/openapi.yaml uses catalog/openapi.yaml's `Busy` response: the RL502 in
    // catalog/ is about `GET /orders` of api/.
    // api/ reaches catalog/, so api/'s findings concern it, among them the RL501 on
    // shared/responses.yaml that api/ shares with billing/: all three are read.
    let named = check(&repo, &["catalog/openapi.yaml"]);
    // Asked about: catalog/ and api/, which reaches it; billing/ read as context.
    assert_eq!(named.documents, 2, "catalog/ and api/");
    assert!(was_read(&repo, &named, "billing/openapi.yaml"));
    assert!(
        codes(&named).contains(&(
            "RL502",
            "catalog/openapi.yaml".to_string(),
            vec!["GET /orders".to_string()]
        )),
        "{:#?}",
        codes(&named)
    );
}

#[test]
fn a_named_configuration_rechecks_the_whole_project() {
    let repo = repo_of(&["named-files/ref-fragment"]);
    let full = check(&repo, &["."]);
    let named = check(&repo, &[".retrylint.yaml"]);
    assert_eq!(full.documents, 4);
    assert_eq!(named.documents, full.documents);
    assert_eq!(codes(&named), codes(&full));
    // From a subfolder's file list too: the configuration stands for its project.
    let named = check(&repo, &["api/openapi.yaml", ".retrylint.yaml"]);
    assert_eq!(named.documents, 4);
}

#[test]
fn a_named_service_configuration_rechecks_its_service_not_the_repository() {
    // A monorepo whose service keeps a `.retrylint.yaml` of its own: naming it (a
    // pre-commit run after editing it) re-checks that service, as `check services/shop`
    // does, not every spec of the git work tree around it.
    let repo = repo_of(&["named-files/ref-fragment"]);
    copy_into(
        &fixtures().join("examples/shop"),
        &repo.dir.join("services/shop"),
    );
    std::fs::write(repo.dir.join("services/shop/.retrylint.yaml"), "{}\n").expect("write");
    let service = check(&repo, &["services/shop"]);
    let named = check(&repo, &["services/shop/.retrylint.yaml"]);
    assert_eq!(service.documents, 1, "the shop's own spec");
    assert_eq!(named.documents, service.documents);
    assert_eq!(codes(&named), codes(&service));
    assert!(!codes(&named).is_empty(), "the shop example has findings");
}

#[test]
fn a_projects_star_names_one_folder_not_every_folder_below() {
    // `projects: ["services/*"]` (the example of docs/configuration.md): the project
    // of a file in `services/orders/api/` is `services/orders`, where its clients
    // are. `*` crossed `/`, so `services/orders/api` was a project alone and the
    // named spec passed with no finding.
    let repo = repo_of(&[]);
    copy_into(
        &fixtures().join("examples/code"),
        &repo.dir.join("services/orders"),
    );
    let _ = std::fs::remove_file(repo.dir.join("services/orders/.retrylint.yaml"));
    let spec = "services/orders/api/openapi.yaml";
    let config = repo.dir.join(".retrylint.yaml");
    std::fs::write(&config, "projects: [\"services/orders\"]\n").expect("write");
    let exact = check(&repo, &[spec]);
    std::fs::write(&config, "projects: [\"services/*\"]\n").expect("write");
    let star = check(&repo, &[spec]);
    assert!(
        exact.diagnostics.iter().any(|d| d.code == "RL201"),
        "{:#?}",
        codes(&exact)
    );
    assert_eq!(codes(&star), codes(&exact));
    assert_eq!(
        star.configs, exact.configs,
        "the service's clients are read"
    );
}

#[test]
fn files_of_two_projects_named_together_give_each_project_s_answer() {
    // A pre-commit run over the files staged in two services of a monorepo, each
    // with its own `.retrylint.yaml`: the union of what naming each alone gives,
    // whichever files are committed together (it lost 8 findings and made 3).
    let repo = repo_of(&[]);
    copy_into(
        &fixtures().join("examples/code"),
        &repo.dir.join("services/orders"),
    );
    copy_into(
        &fixtures().join("examples/platform"),
        &repo.dir.join("services/payments"),
    );
    let orders = "services/orders/api/openapi.yaml";
    let payments = "services/payments/api/openapi.yaml";
    let run = |paths: &[&str]| {
        let mut args = vec!["check"];
        args.extend(paths);
        let (code, out, err) = common::retrylint_in(&repo.dir, &args);
        (code, common::findings_sorted(&out), err)
    };
    let (_, alone_orders, _) = run(&[orders]);
    let (_, alone_payments, _) = run(&[payments]);
    let (code, together, err) = run(&[orders, payments]);
    assert!(!alone_orders.is_empty() && !alone_payments.is_empty());
    let mut union: Vec<String> = alone_orders.into_iter().chain(alone_payments).collect();
    union.sort();
    assert_eq!(together, union, "{err}");
    assert_eq!(code, 1);
}

#[test]
fn spec_names_are_read_by_content_and_unrelated_yaml_is_skipped() {
    let repo = repo_of(&["named-files/odd-names"]);
    let named = check(
        &repo,
        &[
            "api.yaml",
            "spec3.yaml",
            "petstore.json",
            "OpenAPI.yaml",
            "docker-compose.yml",
        ],
    );
    assert_eq!(named.documents, 4);
    assert_eq!(named.skipped, ["docker-compose.yml"]);
    assert!(!named.could_not_lint);
    let only_unrelated = check(&repo, &["docker-compose.yml"]);
    assert_eq!(only_unrelated.documents, 0);
    assert!(only_unrelated.diagnostics.is_empty());
}

/// In a folder of specs named freely (vendor specs kept side by side), a spec whose
/// `openapi` key comes late, a Swagger JSON whose `swagger` key comes last and a YAML
/// fragment that names the named spec's operationIds are no retry configs: they do
/// not bring themselves, nor the specs and policies they name (each spec of such a
/// folder cost the run of the whole folder). The VirtualService that binds still
/// comes, and one other document as context (so that the run is not taken for one
/// whose only spec takes every config).
#[test]
fn specs_and_fragments_naming_a_named_spec_are_not_taken_for_configs() {
    let repo = repo_of(&["named-files/freely-named-specs"]);
    let full = check(&repo, &["."]);
    assert_eq!(full.documents, 3);
    let named = check(&repo, &["orders-api.yaml"]);
    assert_eq!(
        named.documents, 1,
        "orders-api.yaml, the document asked about"
    );
    assert_eq!(named.policies, 0);
    assert!(
        named
            .diagnostics
            .iter()
            .any(|d| d.primary.location.file.display == "mesh.yaml"),
        "the VirtualService's findings: {:#?}",
        codes(&named)
    );
}

/// A spec that writes no server is bound by the name the repository gives its
/// service (here the Compose service building its folder): a run over another spec
/// or over the VirtualService that binds both still reports the findings the route
/// has on it, which its text alone would not have brought.
#[test]
fn a_document_bound_by_its_service_identity_comes_with_the_config() {
    let repo = repo_of(&["named-files/identity-bound"]);
    let full = check(&repo, &["."]);
    assert!(
        full.diagnostics
            .iter()
            .any(|d| d.operations.iter().any(|o| o == "POST /purchases")),
        "the full run binds the VirtualService to orders-v2/spec.yaml: {:#?}",
        codes(&full)
    );
    for named in ["orders/api.yaml", "mesh.yaml"] {
        let run = check(&repo, &[named]);
        assert_eq!(codes(&run), codes(&full), "{named}");
    }
}

/// A `.proto` whose RPCs carry `google.api.http` rules declares those HTTP
/// operations (`docs/commands/check.md`, "One answer"): named alone, it answers for every
/// finding on them, here the gRPC service config's RL201 on the operations a
/// generated swagger describes, as well as its own RL203. A proto without the rule
/// for an operation does not take that operation's findings.
#[test]
fn a_named_proto_answers_for_the_operations_its_http_rules_declare() {
    let repo = repo_of(&["examples/grpc"]);
    let full = check(&repo, &["."]);
    assert!(
        full.diagnostics.iter().any(|d| d.code == "RL201"),
        "{:#?}",
        codes(&full)
    );
    let named = check(&repo, &["library.proto"]);
    assert_eq!(codes(&named), codes(&full));
    // A folder holding the proto is asked about as the proto is.
    std::fs::create_dir(repo.dir.join("protos")).expect("mkdir");
    std::fs::rename(
        repo.dir.join("library.proto"),
        repo.dir.join("protos/library.proto"),
    )
    .expect("move");
    let full_moved = check(&repo, &["."]);
    for asked in ["protos", "protos/library.proto"] {
        assert_eq!(
            codes(&check(&repo, &[asked])),
            codes(&full_moved),
            "{asked}"
        );
    }
    std::fs::rename(
        repo.dir.join("protos/library.proto"),
        repo.dir.join("library.proto"),
    )
    .expect("move back");
    // Without the rule of `MoveBook`, the proto no longer declares its operation:
    // the findings naming only that operation are not its answer.
    let proto = repo.dir.join("library.proto");
    let text = std::fs::read_to_string(&proto).expect("read");
    let rule = "post: \"/v1/{name=shelves/*/books/*}:move\"";
    assert!(text.contains(rule), "the fixture maps MoveBook");
    std::fs::write(&proto, text.replace(rule, "post: \"/v2/elsewhere\"")).expect("write");
    let without = check(&repo, &["library.proto"]);
    assert!(
        without
            .diagnostics
            .iter()
            .all(|d| d.operations.iter().any(|o| o != "POST /v1/{name}:move")),
        "{:#?}",
        codes(&without)
    );
    assert!(without.diagnostics.iter().any(|d| d.code == "RL201"));
}

/// A folder below the root that holds only retry configs is asked about as its
/// files are: `check deploy/istio` reports the VirtualService's findings on the
/// operations it binds (and exits 1), as `check deploy/istio/vs.yaml` does, in a
/// repository with no `.retrylint.yaml`. A named folder once brought only the
/// project's only document, so its configs bound nothing: RL016 and exit 0. Text
/// configs (`nginx.conf`) are walked by another path and answer the same.
#[test]
fn a_named_folder_of_configs_answers_as_its_files_do() {
    let repo = repo_of(&["named-files/folder-of-configs"]);
    for (folder, file) in [
        ("deploy/istio", "deploy/istio/vs.yaml"),
        ("deploy/envoy", "deploy/envoy/envoy.yaml"),
        ("deploy/nginx", "deploy/nginx/nginx.conf"),
    ] {
        let by_file = check(&repo, &[file]);
        assert!(
            by_file
                .diagnostics
                .iter()
                .any(|d| d.code.starts_with("RL2") || d.code.starts_with("RL3")),
            "{file}: {:#?}",
            codes(&by_file)
        );
        assert!(
            !by_file.diagnostics.iter().any(|d| d.code == "RL016"),
            "{file} binds: {:#?}",
            codes(&by_file)
        );
        let by_folder = check(&repo, &[folder]);
        assert_eq!(codes(&by_folder), codes(&by_file), "{folder}");
    }
    let istio = check(&repo, &["deploy/istio"]);
    assert!(istio
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error));
}

/// Every file of each layout, named alone, gives the findings the full run gives
/// for it: nothing the full run does not report, and every label the full run puts
/// in that file.
#[test]
fn each_named_file_run_agrees_with_the_full_run() {
    let layouts: &[&[&str]] = &[
        &["cases/41-policy-outside-folder-chain"],
        &["named-files/ref-fragment"],
        &["named-files/odd-names"],
        &["named-files/freely-named-specs"],
        &["named-files/identity-bound"],
        &["named-files/folder-of-configs"],
        &["named-files/spec-in-ignored-folder"],
        &["named-files/spec-in-hidden-folder"],
        &["examples/grpc"],
        &[
            "cases/05-relative-external-refs.yaml",
            "cases/05-relative-external-refs",
        ],
        &[
            "cases/20-post-retry-no-idempotency.yaml",
            "cases/20-post-retry-no-idempotency.retry-policy.yaml",
        ],
    ];
    for parts in layouts {
        let repo = repo_of(parts);
        let full = entries(&check(&repo, &["."]).diagnostics);
        assert!(!full.is_empty(), "{parts:?}: the layout has findings");
        let mut files = Vec::new();
        list_files(&repo.dir, &repo.dir, &mut files);
        assert!(files.len() >= 2, "{parts:?}");
        for file in &files {
            let named = entries(&check(&repo, &[file]).diagnostics);
            let extra: Vec<_> = named.difference(&full).collect();
            assert!(
                extra.is_empty(),
                "{parts:?} {file}: not in the full run: {extra:#?}"
            );
            let missed: Vec<_> = full
                .iter()
                .filter(|(_, _, label)| label.starts_with(&format!("{file}:")))
                .filter(|e| !named.contains(*e))
                .collect();
            assert!(missed.is_empty(), "{parts:?} {file}: missed: {missed:#?}");
        }
    }
}

/// The files of a repository (relative, `/`-separated), `.git` left out.
fn list_files(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.file_name().is_some_and(|n| n == ".git") {
            continue;
        }
        if p.is_dir() {
            list_files(root, &p, out);
        } else {
            let rel = p.strip_prefix(root).expect("inside");
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

#[test]
fn the_hook_matches_files_by_type() {
    let text = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".pre-commit-hooks.yaml"),
    )
    .expect("hook file");
    let hooks: serde_json::Value = serde_yaml::from_str(&text).expect("yaml");
    let hook = &hooks[0];
    assert_eq!(hook["id"], "retrylint");
    assert!(
        hook.get("files").is_none(),
        "a name pattern skips specs with other names"
    );
    let types: Vec<&str> = hook["types_or"]
        .as_array()
        .expect("types_or")
        .iter()
        .filter_map(|t| t.as_str())
        .collect();
    // `text`: nginx and HAProxy configs and AWS `config` files have no tag of
    // their own (a commit changing only `nginx.conf` never ran the hook).
    for t in ["text", "yaml", "json"] {
        assert!(types.contains(&t), "{t} missing from {types:?}");
    }
}

/// `retrylint check --format json ARGS` in `repo` (its `.retrylint.yaml` read, as a
/// user's run reads it): the exit code and each finding as
/// `code path:line:col operations`, sorted.
fn json_findings(repo: &Repo, args: &[&str]) -> (i32, Vec<String>) {
    let mut all = vec!["check", "--format", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = common::retrylint_in(&repo.dir, &all);
    let json: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let mut found: Vec<String> = json["diagnostics"]
        .as_array()
        .expect("list")
        .iter()
        .map(|d| {
            format!(
                "{} {}:{}:{} {}",
                d["code"].as_str().unwrap_or(""),
                d["path"].as_str().unwrap_or(""),
                d["line"],
                d["column"],
                d["operations"]
            )
        })
        .collect();
    found.sort();
    (code, found)
}

/// A spec that a policy's `spec:` names is read by `check .` even where the walk
/// does not look (a git-ignored `build/`, a hidden `.well-known/`): explicit
/// references are read as `$ref` targets are. `check .`, `check POLICY` and
/// `check SPEC` give one answer: RL201 for the retried `POST /snapshots`, exit 1.
#[test]
fn a_spec_named_by_a_policy_in_an_ignored_or_hidden_folder_is_read() {
    for (layout, spec) in [
        ("named-files/spec-in-ignored-folder", "build/openapi.yaml"),
        (
            "named-files/spec-in-hidden-folder",
            ".well-known/openapi.yaml",
        ),
    ] {
        let repo = repo_of(&[layout]);
        let (code, whole) = json_findings(&repo, &["."]);
        assert_eq!(code, 1, "{layout}: {whole:#?}");
        assert!(
            whole
                .iter()
                .any(|f| f.starts_with("RL201 deploy/client.retry-policy.yaml:")
                    && f.ends_with("[\"POST /snapshots\"]")),
            "{layout}: {whole:#?}"
        );
        assert!(
            whole
                .iter()
                .any(|f| f.starts_with(&format!("RL502 {spec}:"))),
            "{layout}: the spec's own findings: {whole:#?}"
        );
        for named in ["deploy/client.retry-policy.yaml", spec, "deploy"] {
            assert_eq!(
                json_findings(&repo, &[named]),
                (code, whole.clone()),
                "{layout}: `check {named}`"
            );
        }
        let full = check(&repo, &["."]);
        assert_eq!(full.documents, 1, "{layout}");
    }
    let repo = repo_of(&["named-files/spec-in-ignored-folder"]);
    let (code, human, _) = common::retrylint_in(&repo.dir, &["check", "."]);
    assert_eq!(code, 1);
    insta::assert_snapshot!("spec_in_ignored_folder_check", human);
}

/// `.retrylint.yaml` `services:` naming a git-ignored spec: it is read, so the
/// VirtualService of host `pay` binds to it (RL201 for `POST /charges`), never
/// RL016 "the run holds no OpenAPI document"; `check deploy/vs.yaml` and `check
/// build/openapi.yaml` answer the same.
#[test]
fn a_service_spec_in_an_ignored_folder_is_read() {
    let repo = repo_of(&["named-files/service-spec-ignored"]);
    let (code, whole) = json_findings(&repo, &["."]);
    assert_eq!(code, 1, "{whole:#?}");
    assert!(
        whole
            .iter()
            .any(|f| f.starts_with("RL201 deploy/vs.yaml:") && f.ends_with("[\"POST /charges\"]")),
        "{whole:#?}"
    );
    assert!(!whole.iter().any(|f| f.starts_with("RL016")), "{whole:#?}");
    for named in ["deploy/vs.yaml", "build/openapi.yaml", "deploy"] {
        assert_eq!(
            json_findings(&repo, &[named]),
            (code, whole.clone()),
            "`check {named}`"
        );
    }
    let (_, human, _) = common::retrylint_in(&repo.dir, &["check", "."]);
    insta::assert_snapshot!("service_spec_ignored_check", human);
}

/// A spec named by a policy that `.retrylint.yaml` `exclude:`s is not read, and the
/// run says so: RL005 at the policy's `spec`, never a silent pass; `check POLICY`
/// answers the same.
#[test]
fn a_spec_named_by_a_policy_and_excluded_by_the_configuration_is_said() {
    let repo = repo_of(&["named-files/spec-excluded"]);
    let (code, whole) = json_findings(&repo, &["."]);
    assert_eq!(code, 1, "{whole:#?}");
    assert_eq!(
        whole,
        ["RL005 deploy/client.retry-policy.yaml:4:7 []"],
        "{whole:#?}"
    );
    assert_eq!(
        json_findings(&repo, &["deploy/client.retry-policy.yaml"]),
        (code, whole)
    );
    let (_, human, _) = common::retrylint_in(&repo.dir, &["check", "."]);
    assert!(
        human.contains("`spec` names `../build/openapi.yaml`, which `.retrylint.yaml` leaves out"),
        "{human}"
    );
    assert!(human.contains("0 OpenAPI documents checked"), "{human}");
}

/// `.retrylint.yaml` `services:` naming a spec its own `exclude:` leaves out: the
/// spec is not read, and the RL016 of the VirtualService it binds says why instead
/// of "the run holds no OpenAPI document" (and of asking for the binding it has).
#[test]
fn a_service_spec_excluded_by_the_configuration_is_said() {
    let repo = repo_of(&["named-files/service-spec-excluded"]);
    let (code, whole) = json_findings(&repo, &["."]);
    assert!(
        whole
            .iter()
            .any(|f| f.starts_with("RL016 deploy/vs.yaml:5:11")),
        "{whole:#?}"
    );
    assert_eq!(json_findings(&repo, &["deploy/vs.yaml"]), (code, whole));
    let (_, human, _) = common::retrylint_in(&repo.dir, &["check", "."]);
    assert!(
        human.contains("`services:` binds it")
            && human.contains("to `build/openapi.yaml`, which is no OpenAPI document of the run"),
        "{human}"
    );
    assert!(!human.contains("holds no OpenAPI document"), "{human}");
}
