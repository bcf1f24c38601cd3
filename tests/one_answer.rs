//! One answer however a run is asked (issue 36, `src/check/answer.rs`): for every
//! fixture project copied into a git repository of its own, and every file F in it,
//! `retrylint check F` reports exactly the findings of `retrylint check R` (R the
//! root of F's project, `project::answer_root`) that
//! concern F (a label in F, or an operation F declares or reaches), and exits 2 only
//! when that part of the answer holds an RL001. The same for every folder below the
//! root. `../shared/cases/` folders are checked too when they are beside the project.

#![allow(clippy::disallowed_macros)] // output for the reader (clippy.toml)

use retrylint::check::{answer, answer_scope, run, run_full, CheckOptions};
use retrylint::diagnostic::Diagnostic;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A temporary git repository holding a copy of one fixture project; removed on drop.
struct Repo {
    dir: PathBuf,
}

impl Drop for Repo {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Copies a tree, leaving out symbolic links (a link leaving the project is a case
/// of its own) and anything that is neither file nor folder.
fn copy_into(from: &Path, to: &Path) {
    let Ok(meta) = std::fs::symlink_metadata(from) else {
        return;
    };
    if meta.is_dir() {
        std::fs::create_dir_all(to).expect("mkdir");
        for e in std::fs::read_dir(from).expect("read_dir") {
            let e = e.expect("entry");
            copy_into(&e.path(), &to.join(e.file_name()));
        }
    } else if meta.is_file() {
        std::fs::copy(from, to).expect("copy");
    }
}

fn repo_of(project: &Path) -> Repo {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "retrylint-one-answer-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("mkdir");
    let dir = std::fs::canonicalize(&dir).expect("canonical");
    copy_into(project, &dir);
    let status = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&dir)
        .status()
        .expect("git runs");
    assert!(status.success(), "git init failed");
    Repo { dir }
}

/// Every file and folder of the tree, relative to it, `.git` left out.
fn entries_of(dir: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut files = Vec::new();
    let mut folders = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let mut list: Vec<_> = std::fs::read_dir(&d)
            .expect("read_dir")
            .map(|e| e.expect("entry").path())
            .collect();
        list.sort();
        for p in list {
            if p.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            let rel = p.strip_prefix(dir).expect("inside").to_path_buf();
            if p.is_dir() {
                folders.push(rel);
                stack.push(p);
            } else {
                files.push(rel);
            }
        }
    }
    (files, folders)
}

/// What a finding says (message and help, the notes on platform defaults included),
/// with every place it points at.
fn key(d: &Diagnostic) -> String {
    let at = |l: &retrylint::diagnostic::Label| {
        let loc = &l.location;
        let lc = loc.file.line_col(loc.span.start);
        format!("{}:{}:{}", loc.file.display, lc.line, lc.column)
    };
    let labels: BTreeSet<String> = d.labels.iter().map(at).collect();
    format!(
        "{} {} {} | {:?} | {} | help: {}",
        d.code,
        at(&d.primary),
        d.message,
        labels,
        d.operations.join(", "),
        d.help.as_deref().unwrap_or("")
    )
}

fn options(repo: &Repo, paths: Vec<PathBuf>) -> CheckOptions {
    // As `retrylint check` builds them: `.retrylint.yaml` of the project read.
    let config = retrylint::config::load_from(None, &repo.dir, &repo.dir).expect("config");
    CheckOptions {
        paths,
        cwd: Some(repo.dir.clone()),
        related: true,
        services: config.services.clone(),
        platforms: config.platforms.clone(),
        thresholds: config.thresholds,
        rule_levels: config.rules.clone(),
        filter: config.filter.clone(),
        // As `retrylint check` runs: a folder below with a `.retrylint.yaml` of its
        // own is a project of its own, left out of this one.
        split_projects: true,
        ..CheckOptions::default()
    }
}

/// Holds the property for one project; returns the number of runs compared.
fn holds_for(project: &Path) -> usize {
    let repo = repo_of(project);
    // The answer of each project root met (a folder with a `.retrylint.yaml` of its
    // own is a project of its own: `project::answer_root`).
    let mut answers: std::collections::HashMap<PathBuf, _> = std::collections::HashMap::new();
    let (files, folders) = entries_of(&repo.dir);
    let mut compared = 0;
    for asked in files.iter().chain(&folders) {
        let root = retrylint::project::answer_root(&repo.dir.join(asked), None);
        let (whole, whole_diagnostics) = answers
            .entry(root.clone())
            .or_insert_with(|| run_full(&options(&repo, vec![root.clone()])));
        let named = options(&repo, vec![repo.dir.join(asked)]);
        let Some(scope) = answer_scope(&named) else {
            // A folder that is a project root of its own: its answer is the whole run.
            continue;
        };
        let mut expected = whole_diagnostics.clone();
        let mut suppressed = Vec::new();
        answer::restrict(
            &scope,
            &whole.documents,
            &whole.analysis,
            &mut expected,
            &mut suppressed,
        );
        let got = run(&named);
        // A folder holding retry configs in a project without a `.retrylint.yaml` is
        // judged with what it names (`project::discover::with_related`), not with
        // every spec of the repository: only named files are held to the whole run.
        let declared = repo.dir.join(".retrylint.yaml").is_file();
        if repo.dir.join(asked).is_dir() && got.configs > 0 && !declared {
            continue;
        }
        let want: Vec<String> = expected.iter().map(key).collect();
        let have: Vec<String> = got.diagnostics.iter().map(key).collect();
        let missing: Vec<&String> = want.iter().filter(|k| !have.contains(k)).collect();
        let extra: Vec<&String> = have.iter().filter(|k| !want.contains(k)).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{}: `check {}` differs from `check .` restricted to it\nmissing: {missing:#?}\nextra: {extra:#?}",
            project.display(),
            asked.display()
        );
        let rl001 = expected.iter().any(|d| d.code == "RL001");
        assert_eq!(
            got.could_not_lint,
            rl001,
            "{}: `check {}` exit 2 must follow its own answer",
            project.display(),
            asked.display()
        );
        compared += 1;
    }
    compared
}

/// The fixture projects that are checked as a whole elsewhere in the suite.
fn fixture_projects() -> Vec<PathBuf> {
    let fixtures = manifest().join("fixtures");
    let mut out = Vec::new();
    for group in ["examples", "named-files", "composition", "cases"] {
        let Ok(list) = std::fs::read_dir(fixtures.join(group)) else {
            continue;
        };
        let mut list: Vec<PathBuf> = list
            .map(|e| e.expect("entry").path())
            .filter(|p| p.is_dir())
            .collect();
        list.sort();
        out.extend(list);
    }
    out
}

#[test]
fn every_file_and_folder_of_every_fixture_project_gets_its_part_of_the_whole_answer() {
    let projects = fixture_projects();
    assert!(projects.len() >= 10, "fixture projects: {projects:?}");
    let mut compared = 0;
    for p in &projects {
        compared += holds_for(p);
    }
    assert!(compared > 100, "only {compared} runs compared");
}

/// The same over `../shared/cases/` folders, when the shared folder is beside the
/// project (CI has it; a fresh clone need not).
#[test]
fn every_shared_case_folder_gets_its_part_of_the_whole_answer() {
    let cases = manifest().join("../shared/cases");
    let Ok(list) = std::fs::read_dir(&cases) else {
        eprintln!("../shared/cases is not beside the project: nothing to check");
        return;
    };
    let mut list: Vec<PathBuf> = list
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        // Links leaving the root are case 80's own test; generated inputs are big.
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            !name.starts_with("80-") && !p.join("gen.py").exists()
        })
        .collect();
    list.sort();
    for p in &list {
        holds_for(p);
    }
}

/// A repository of four specs and two route files: `routes-ab.yaml` routes hosts
/// `a` and `b` (two VirtualServices, one of them retrying `POST`s), `routes-cd.yaml`
/// routes `c` and `d`; a source file names no host.
fn four_specs_two_route_files(dir: &Path) {
    for name in ["a", "b", "c", "d"] {
        std::fs::create_dir_all(dir.join("api").join(name)).expect("mkdir");
        std::fs::write(
            dir.join("api").join(name).join("openapi.yaml"),
            format!(
                "openapi: 3.0.3\ninfo: {{title: {name}, version: '1'}}\nservers:\n  - url: https://{name}.example.com\npaths:\n  /orders:\n    post:\n      operationId: create_{name}\n      responses:\n        '201': {{description: created}}\n"
            ),
        )
        .expect("write spec");
    }
    let vs = |name: &str, retry_on: &str| {
        format!("apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata:\n  name: {name}\nspec:\n  hosts: [{name}.example.com]\n  http:\n    - route: [{{destination: {{host: {name}}}}}]\n      retries: {{attempts: 3, perTryTimeout: 2s, retryOn: \"{retry_on}\"}}\n      timeout: 10s\n")
    };
    std::fs::create_dir_all(dir.join("deploy")).expect("mkdir");
    std::fs::write(
        dir.join("deploy/routes-ab.yaml"),
        format!("{}---\n{}", vs("a", "5xx"), vs("b", "connect-failure")),
    )
    .expect("write routes");
    std::fs::write(
        dir.join("deploy/routes-cd.yaml"),
        format!("{}---\n{}", vs("c", "5xx"), vs("d", "5xx")),
    )
    .expect("write routes");
    std::fs::create_dir_all(dir.join("src")).expect("mkdir");
    std::fs::write(dir.join("src/app.py"), "import requests\n\ndef ping():\n    return requests.get('https://status.example.org/ping')\n").expect("write source");
}

/// A named spec is judged with its binding component and nothing else (issue 36:
/// pre-commit reads what the named file can reach): `check api/a/openapi.yaml`
/// reads the route file naming `a` and the other spec that file names (`b`), never
/// the route file of `c` and `d`, their specs, or the source file; and a named
/// route file reads the specs it names. Each answer is the whole run's part for it.
#[test]
fn a_named_file_reads_its_binding_component_only() {
    let tmp = tempfile::tempdir().expect("tempdir");
    four_specs_two_route_files(tmp.path());
    assert!(holds_for(tmp.path()) > 0);
    let repo = repo_of(tmp.path());
    let _ = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo.dir)
        .status();
    let read = |named: &str| -> BTreeSet<String> {
        run(&options(&repo, vec![repo.dir.join(named)]))
            .inputs
            .iter()
            .filter_map(|p| p.strip_prefix(&repo.dir).ok())
            .map(|p| p.display().to_string())
            .collect()
    };
    let spec = read("api/a/openapi.yaml");
    for wanted in [
        "api/a/openapi.yaml",
        "api/b/openapi.yaml",
        "deploy/routes-ab.yaml",
    ] {
        assert!(spec.contains(wanted), "{wanted} not read: {spec:?}");
    }
    for unrelated in [
        "api/c/openapi.yaml",
        "api/d/openapi.yaml",
        "deploy/routes-cd.yaml",
        "src/app.py",
    ] {
        assert!(!spec.contains(unrelated), "{unrelated} read: {spec:?}");
    }
    let config = read("deploy/routes-cd.yaml");
    for wanted in [
        "api/c/openapi.yaml",
        "api/d/openapi.yaml",
        "deploy/routes-cd.yaml",
    ] {
        assert!(config.contains(wanted), "{wanted} not read: {config:?}");
    }
    assert!(!config.contains("deploy/routes-ab.yaml"), "{config:?}");
}

/// Binding gives a config that names no host to the run's only spec. A named spec
/// whose component holds no other document of a project of two is still judged in a
/// run of more than one spec, as the whole project is: an nginx server with no
/// `server_name` beside the one naming `a` must not bind to `a` in `check a`.
#[test]
fn a_named_spec_alone_in_its_component_is_not_the_only_spec_of_the_run() {
    let tmp = tempfile::tempdir().expect("tempdir");
    for name in ["a", "b"] {
        std::fs::create_dir_all(tmp.path().join("api").join(name)).expect("mkdir");
        std::fs::write(
            tmp.path().join("api").join(name).join("openapi.yaml"),
            format!(
                "openapi: 3.0.3\ninfo: {{title: {name}, version: '1'}}\nservers:\n  - url: https://{name}.example.com\npaths:\n  /orders:\n    post:\n      operationId: create_{name}\n      responses:\n        '201': {{description: created}}\n"
            ),
        )
        .expect("write spec");
    }
    std::fs::create_dir_all(tmp.path().join("deploy")).expect("mkdir");
    std::fs::write(
        tmp.path().join("deploy/nginx.conf"),
        "http {\n  upstream pool { server 10.0.0.1; server 10.0.0.2; }\n  server {\n    server_name a.example.com;\n    location / { proxy_pass http://pool; }\n  }\n  server {\n    listen 8080;\n    location /orders { proxy_pass http://pool; proxy_next_upstream error timeout http_502 non_idempotent; }\n  }\n}\n",
    )
    .expect("write nginx.conf");
    assert!(holds_for(tmp.path()) > 0);
    let repo = repo_of(tmp.path());
    let named = run(&options(&repo, vec![repo.dir.join("api/a/openapi.yaml")]));
    // Both documents are read (b/ as context: the run has two specs), and the
    // summary counts the one asked about.
    let b = repo.dir.join("api/b/openapi.yaml");
    assert!(named.inputs.contains(&b), "{:?}", named.inputs);
    assert_eq!(named.documents, 1, "{:?}", named.inputs);
}

/// The retry clients in code of `fixtures/code/<language>/<project>`: a client binds
/// by the names the repository gives a service too (Compose services, Spring
/// `spring.application.name`), which a named spec's run must look for.
#[test]
fn every_file_of_every_code_fixture_project_gets_its_part_of_the_whole_answer() {
    let mut projects: Vec<PathBuf> = Vec::new();
    for language in std::fs::read_dir(manifest().join("fixtures/code")).expect("fixtures/code") {
        let language = language.expect("entry").path();
        if !language.is_dir() {
            continue;
        }
        for p in std::fs::read_dir(&language).expect("language folder") {
            let p = p.expect("entry").path();
            if p.is_dir() {
                projects.push(p);
            }
        }
    }
    projects.sort();
    let compared: usize = projects.iter().map(|p| holds_for(p)).sum();
    assert!(compared > 100, "{compared} runs compared");
}

/// Writes `files` (path, text) under a new temporary folder.
fn project_of(files: &[(&str, &str)]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    for (path, text) in files {
        let at = tmp.path().join(path);
        std::fs::create_dir_all(at.parent().expect("parent")).expect("mkdir");
        std::fs::write(at, text).expect("write");
    }
    tmp
}

/// What a newcomer found a named spec's run left out (stop 48): a wildcard two
/// domains above the spec's host, a host written with a YAML escape, and notes on
/// platform defaults given to the first finding at a node among findings the
/// named file was not asked about.
#[test]
fn wildcards_above_the_parent_escaped_hosts_and_notes_give_the_same_answer() {
    const POST_503: &str =
        "paths:\n  /pay:\n    post:\n      responses:\n        '503': {description: busy}\n";
    let spec = |url: &str| {
        format!("openapi: 3.0.3\ninfo: {{title: t, version: '1'}}\nservers:\n  - url: {url}\n{POST_503}")
    };
    let wildcard = project_of(&[
        ("api/openapi.yaml", &spec("https://api.eu.shop.io")),
        ("other/openapi.yaml", &spec("https://other.io")),
        (
            "deploy/vs.yaml",
            "apiVersion: networking.istio.io/v1beta1\nkind: VirtualService\nmetadata: {name: vs}\nspec:\n  hosts: [\"*.shop.io\"]\n  http:\n  - route: [{destination: {host: x}}]\n    retries: {attempts: 3, perTryTimeout: 2s, retryOn: \"5xx,reset\"}\n",
        ),
    ]);
    let escaped = project_of(&[
        ("api/a/openapi.yaml", &spec("http://orders")),
        ("api/b/openapi.yaml", &spec("http://billing")),
        (
            "deploy/vs.yaml",
            "apiVersion: networking.istio.io/v1beta1\nkind: VirtualService\nmetadata: {name: vs}\nspec:\n  hosts: [\"ord\\x65rs\"]\n  http:\n  - route: [{destination: {host: x}}]\n    retries: {attempts: 3, perTryTimeout: 2s, retryOn: \"5xx,reset\"}\n",
        ),
    ]);
    let notes = project_of(&[
        ("api/a/openapi.yaml", &spec("https://a.example.com")),
        ("api/b/openapi.yaml", &spec("https://b.example.com")),
        (
            "deploy/vs.yaml",
            "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: vs-a}\nspec: {hosts: [a.example.com], http: [{route: [{destination: {host: a}}]}]}\n---\napiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: vs-b}\nspec: {hosts: [b.example.com], http: [{route: [{destination: {host: b}}]}]}\n",
        ),
    ]);
    for project in [&wildcard, &escaped, &notes] {
        assert!(holds_for(project.path()) > 0);
    }
}
