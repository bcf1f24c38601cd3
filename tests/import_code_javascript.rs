//! Retries in JavaScript and TypeScript code (`src/import/code/javascript`):
//! axios-retry, got, ky, ofetch and Octokit plugin-retry, each with a trigger
//! fixture (a default or a setup that retries a `POST` without a key) and a clean
//! one, and the handed corpus files (`fixtures/code/corpus/typescript--*.ts`) run
//! as a user runs them, with companion specs, against what their `SOURCES.tsv`
//! row says retrylint should notice. Human output is snapshotted; codes and
//! `file:line:col` are asserted explicitly.

mod common;

use common::{codes, findings_sorted as findings, has};

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `retrylint check .` in `dir`: (exit code, stdout).
fn check(dir: &Path) -> (i32, String) {
    let (code, stdout, stderr) = common::retrylint_in(dir, &["check", "."]);
    assert!(code == 0 || code == 1, "exit {code}; stderr: {stderr}");
    (code, stdout)
}

/// A fixture of `fixtures/code/javascript/`.
fn fixture(name: &str) -> (i32, String, Vec<String>) {
    let (code, out) = check(&root().join("fixtures/code/javascript").join(name));
    let f = findings(&out);
    (code, out, f)
}

/// A corpus case: the companion files of `fixtures/code/javascript/corpus/CASE`
/// (spec, `.retrylint.yaml`) with the handed `files` of `fixtures/code/corpus/`,
/// copied into a fresh directory so that other languages' corpus files stay out.
fn corpus(case: &str, files: &[&str]) -> (i32, String, Vec<String>) {
    let dir =
        std::env::temp_dir().join(format!("retrylint-js-corpus-{case}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("api")).unwrap();
    let companion = root().join("fixtures/code/javascript/corpus").join(case);
    for rel in ["api/openapi.yaml", ".retrylint.yaml"] {
        if companion.join(rel).exists() {
            std::fs::copy(companion.join(rel), dir.join(rel)).unwrap();
        }
    }
    for f in files {
        std::fs::copy(root().join("fixtures/code/corpus").join(f), dir.join(f)).unwrap();
    }
    let (code, out) = check(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    let f = findings(&out);
    (code, out, f)
}

#[test]
fn axios_retry_default_retries_a_post_on_network_errors() {
    let (code, out, f) = fixture("axios-retry-trigger");
    assert_eq!(code, 1);
    assert!(has(&f, "RL201 orders.ts:6:1"), "{f:?}");
    assert!(has(&f, "RL305 orders.ts:6:1"), "{f:?}");
    // Retry-After needs a response, and axios-retry retries a POST on network
    // errors only (case 94): no RL307.
    assert!(!codes(&f).contains(&"RL307"), "{f:?}");
    assert!(out.contains("network errors for every method"), "{out}");
    insta::assert_snapshot!("axios_retry_trigger", out);
}

#[test]
fn axios_retry_clean_post_carries_a_key() {
    let (_, out, f) = fixture("axios-retry-clean");
    assert!(!codes(&f).contains(&"RL201"), "{f:?}");
    assert!(
        !codes(&f).contains(&"RL305"),
        "exponentialDelay has jitter: {f:?}"
    );
    insta::assert_snapshot!("axios_retry_clean", out);
}

#[test]
fn got_extend_with_post_in_methods_links_across_files() {
    let (code, out, f) = fixture("got-trigger");
    assert_eq!(code, 1);
    assert!(has(&f, "RL201 request.ts:9:5"), "{f:?}");
    insta::assert_snapshot!("got_trigger", out);
}

#[test]
fn got_post_with_limit_only_retries_nothing() {
    let (_, out, f) = fixture("got-clean");
    assert_eq!(f, vec!["RL017 orders.ts:7:5".to_string()]);
    assert!(
        out.contains("retry configured but ineffective for POST"),
        "{out}"
    );
    insta::assert_snapshot!("got_clean", out);
}

#[test]
fn ky_methods_with_post() {
    let (code, out, f) = fixture("ky-trigger");
    assert_eq!(code, 1);
    assert!(has(&f, "RL201 api.ts:5:48"), "{f:?}");
    insta::assert_snapshot!("ky_trigger", out);
}

#[test]
fn ky_number_keeps_the_default_methods() {
    let (_, out, f) = fixture("ky-clean");
    assert!(!codes(&f).contains(&"RL201"), "{f:?}");
    assert!(!codes(&f).contains(&"RL301"), "POST is not retried: {f:?}");
    insta::assert_snapshot!("ky_clean", out);
}

#[test]
fn ofetch_number_applies_to_every_method() {
    let (code, out, f) = fixture("ofetch-trigger");
    assert_eq!(code, 1);
    assert!(has(&f, "RL201 api.ts:4:13"), "{f:?}");
    assert!(has(&f, "RL306 api.ts:4:13"), "{f:?}");
    insta::assert_snapshot!("ofetch_trigger", out);
}

#[test]
fn ofetch_default_does_not_retry_post() {
    let (_, out, f) = fixture("ofetch-clean");
    assert!(!codes(&f).contains(&"RL201"), "{f:?}");
    assert!(!out.contains("`POST /orders` is retried"), "{out}");
    insta::assert_snapshot!("ofetch_clean", out);
}

#[test]
fn octokit_plugin_retry_retries_post() {
    let (code, out, f) = fixture("octokit-trigger");
    assert_eq!(code, 1);
    assert!(has(&f, "RL201 issues.ts:5:17"), "{f:?}");
    assert!(has(&f, "RL305 issues.ts:5:17"), "{f:?}");
    assert!(has(&f, "RL306 issues.ts:5:17"), "{f:?}");
    insta::assert_snapshot!("octokit_trigger", out);
}

#[test]
fn octokit_retry_disabled_is_clean() {
    let (code, out, f) = fixture("octokit-clean");
    assert_eq!(code, 0, "{out}");
    assert!(f.is_empty(), "{f:?}");
}

// --- The handed corpus files (SOURCES.tsv rows) ---

/// request.ts: `retry.methods` adds POST (limit 2, 5xx statuses, ECONNRESET/EPIPE);
/// createBin.ts: `request.post(process.env.CREATE_BIN_URL!)` through it, across
/// files, with an unknown URL (any POST of the spec); the request timeout comes
/// from the environment (RL019).
#[test]
fn corpus_bin_client_discord() {
    let (code, out, f) = corpus(
        "bin",
        &[
            "typescript--readthedocs-fr-bin-client-discord--request.ts",
            "typescript--readthedocs-fr-bin-client-discord--createBin.ts",
        ],
    );
    assert_eq!(code, 1);
    assert!(
        has(
            &f,
            "RL201 typescript--readthedocs-fr-bin-client-discord--request.ts:11:3"
        ),
        "{f:?}"
    );
    assert!(
        has(
            &f,
            "RL019 typescript--readthedocs-fr-bin-client-discord--request.ts:6:22"
        ),
        "{f:?}"
    );
    insta::assert_snapshot!("corpus_bin_client_discord", out);
}

/// Dashlane: `got.post(url, {retry: {limit: 3}})` retries nothing (RL017), and no
/// retried POST is reported.
#[test]
fn corpus_dashlane_negative_case() {
    let (_, out, f) = corpus(
        "dashlane",
        &["typescript--Dashlane-dashlane-cli--gotImplementation.ts"],
    );
    assert_eq!(
        f,
        vec!["RL017 typescript--Dashlane-dashlane-cli--gotImplementation.ts:12:9".to_string()]
    );
    assert!(out.contains("retry configured but ineffective for POST"));
    insta::assert_snapshot!("corpus_dashlane", out);
}

/// arora-api: global axiosRetry, network errors or 429 on any method (the
/// webhook POST), a custom delay with `^` (XOR): 60 s, 240 s, 60 s, no jitter,
/// Retry-After ignored, no deadline.
#[test]
fn corpus_arora_api_axios() {
    let (code, out, f) = corpus("arora", &["typescript--guidojw-arora-api--axios.ts"]);
    assert_eq!(code, 1);
    let file = "typescript--guidojw-arora-api--axios.ts";
    for want in [
        format!("RL017 {file}:6:54"),
        format!("RL201 {file}:5:19"),
        format!("RL305 {file}:6:15"),
        format!("RL306 {file}:6:15"),
        format!("RL301 {file}:4:1"),
    ] {
        assert!(has(&f, &want), "{want} in {f:?}");
    }
    assert!(out.contains("60 s, 240 s, 60 s"), "{out}");
    insta::assert_snapshot!("corpus_arora_api", out);
}

/// github-script: `getOctokit(token, opts, retry, ...)` with retries and exempt
/// codes from action inputs (RL019 twice), every method retried (RL201 on the
/// POST), no jitter, no Retry-After.
#[test]
fn corpus_github_script() {
    let (code, out, f) = corpus(
        "github-script",
        &["typescript--actions-github-script--main.ts"],
    );
    assert_eq!(code, 1);
    let file = "typescript--actions-github-script--main.ts";
    for want in [
        format!("RL019 {file}:46:12"),
        format!("RL019 {file}:47:14"),
        format!("RL201 {file}:46:12"),
        format!("RL305 {file}:56:18"),
    ] {
        assert!(has(&f, &want), "{want} in {f:?}");
    }
    assert!(out.contains("core.getInput('retries')"), "{out}");
    insta::assert_snapshot!("corpus_github_script", out);
}

/// Without a spec or a binding, the corpus clients are RL016 (unbound) and their
/// own findings stay (RL017 XOR, RL019 inputs).
#[test]
fn corpus_files_alone_are_unbound() {
    let dir = std::env::temp_dir().join(format!("retrylint-js-alone-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for f in [
        "typescript--guidojw-arora-api--axios.ts",
        "typescript--actions-github-script--main.ts",
    ] {
        std::fs::copy(root().join("fixtures/code/corpus").join(f), dir.join(f)).unwrap();
    }
    let (_, out) = check(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    let f = findings(&out);
    assert!(
        has(&f, "RL016 typescript--guidojw-arora-api--axios.ts:4:12"),
        "{f:?}"
    );
    assert!(
        has(&f, "RL016 typescript--actions-github-script--main.ts:56:9"),
        "{f:?}"
    );
    assert!(
        has(&f, "RL017 typescript--guidojw-arora-api--axios.ts:6:54"),
        "{f:?}"
    );
}

/// `retries: Infinity` retries forever (RL201, RL303), never a negative attempt
/// count (RL302); a comment between arguments is skipped, so `retries: 0` on the
/// commented call retries nothing.
#[test]
fn infinity_and_comments_between_arguments() {
    let (code, out) = check(&root().join("fixtures/code/javascript/hostile"));
    assert_eq!(code, 1, "{out}");
    let got = findings(&out);
    assert!(has(&got, "RL201 src/forever.ts:6:1"), "{got:#?}");
    assert!(codes(&got).contains(&"RL303"), "{got:#?}");
    assert!(!codes(&got).contains(&"RL302"), "{got:#?}");
    assert!(!got.iter().any(|g| g.contains("commented.ts")), "{got:#?}");
}

/// `check` over a copy of a shared case in `fixtures/cases/` (the folder is its
/// own project root), as the library runs it.
fn case_outcome(dir: &Path) -> retrylint::check::CheckOutcome {
    retrylint::check::run(&retrylint::check::CheckOptions {
        paths: vec![dir.to_path_buf()],
        cwd: Some(dir.to_path_buf()),
        root: Some(dir.to_path_buf()),
        ..Default::default()
    })
}

/// The findings of `code` for the operation `op` (`POST /x`).
fn for_op<'a>(
    o: &'a retrylint::check::CheckOutcome,
    code: &str,
    op: &str,
) -> Vec<&'a retrylint::diagnostic::Diagnostic> {
    o.diagnostics
        .iter()
        .filter(|d| d.code == code && d.operations.iter().any(|x| x == op))
        .collect()
}

/// Case 94 (`fixtures/cases/94-axios-retry-post-network-errors`): axios-retry's
/// default condition retries network errors on every method, so the POST call
/// site (a path with a trailing slash, as the spec writes it) is retried 4 x on
/// `connect-failure` and `reset` only: RL201 (no key) naming `reset` and no
/// status, RL401, and no RL307 for it (Retry-After needs a response); the PUT
/// keeps 5xx and 429 (RL307).
#[test]
fn case94_axios_retry_post_on_network_errors() {
    let dir = root().join("fixtures/cases/94-axios-retry-post-network-errors");
    let o = case_outcome(&dir);
    let post = "POST /signals/v1/public/signals/";
    let put = "PUT /signals/v1/public/feedback/forms/{token}";
    let rl201 = for_op(&o, "RL201", post);
    assert_eq!(rl201.len(), 1, "{:#?}", o.diagnostics);
    let m = &rl201[0].message;
    assert!(m.contains("`reset`"), "{m}");
    assert!(!m.contains("5xx") && !m.contains("429"), "{m}");
    assert_eq!(for_op(&o, "RL401", post).len(), 1);
    assert!(for_op(&o, "RL307", post).is_empty());
    assert_eq!(for_op(&o, "RL307", put).len(), 1);
    assert!(for_op(&o, "RL201", put).is_empty());
    // readiness: the POST is retried 4 x, not "not retried".
    let (code, out, err) = common::retrylint_in(&dir, &["readiness", "--root", ".", "."]);
    assert!(code == 0 || code == 1, "{err}");
    let row = out
        .lines()
        .find(|l| l.starts_with(post))
        .expect("a POST row");
    assert!(row.contains("4 x") && !row.contains("not-retried"), "{row}");
}

/// Case 94 narrowed: `retryCondition: axiosRetry.isNetworkError`, the call made
/// with `instance.request({ method: 'post', ... })`, and a PATCH: every
/// non-idempotent call site is retried on network errors (RL201).
#[test]
fn case94_variants_request_config_and_patch() {
    let src = root().join("fixtures/cases/94-axios-retry-post-network-errors");
    let dir = std::env::temp_dir().join(format!("retrylint-case94-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let spec = std::fs::read_to_string(src.join("openapi.yaml"))
        .unwrap()
        .replace("    put:", "    patch:");
    std::fs::write(dir.join("openapi.yaml"), spec).unwrap();
    std::fs::write(
        dir.join("src/api-client.ts"),
        "import axios from 'axios'\nimport axiosRetry from 'axios-retry'\n\n\
         const instance = axios.create({ baseURL: 'https://api.example.org' })\n\
         axiosRetry(instance, { retries: 3, retryCondition: axiosRetry.isNetworkError })\n\n\
         export async function createSignal(text: string) {\n\
         \x20 return instance.request({ method: 'post', url: '/signals/v1/public/signals/', data: { text } })\n}\n\n\
         export async function updateFeedback(token: string, body: object) {\n\
         \x20 return instance.patch(`/signals/v1/public/feedback/forms/${token}`, body)\n}\n",
    )
    .unwrap();
    let o = case_outcome(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    for op in [
        "POST /signals/v1/public/signals/",
        "PATCH /signals/v1/public/feedback/forms/{token}",
    ] {
        let rl201 = for_op(&o, "RL201", op);
        assert_eq!(rl201.len(), 1, "{op}: {:#?}", o.diagnostics);
        assert!(rl201[0].message.contains("`reset`"), "{}", rl201[0].message);
        assert!(for_op(&o, "RL307", op).is_empty(), "{op}");
    }
}

/// Case 95 (`fixtures/cases/95-client-from-factory-function`): `makeHttp(base)`
/// returns the axios instance it configured with axiosRetry; the calls made on
/// `const axios = makeHttp(base)` in another file bind to that client: the GET
/// and the POST retried 4 x, RL201 for the POST (network errors), no RL016.
#[test]
fn case95_client_from_factory_function() {
    let dir = root().join("fixtures/cases/95-client-from-factory-function");
    let o = case_outcome(&dir);
    assert!(
        !o.diagnostics.iter().any(|d| d.code == "RL016"),
        "{:#?}",
        o.diagnostics
    );
    let post = "POST /signals/v1/public/qa/sessions/{session_id}/submit/";
    let get = "GET /signals/v1/public/qa/sessions/{session_id}";
    assert_eq!(for_op(&o, "RL201", post).len(), 1, "{:#?}", o.diagnostics);
    assert_eq!(for_op(&o, "RL307", get).len(), 1, "{:#?}", o.diagnostics);
    let (_, out, _) = common::retrylint_in(&dir, &["readiness", "--root", ".", "."]);
    for op in [get, post] {
        let row = out.lines().find(|l| l.starts_with(op)).expect("a row");
        assert!(row.contains("4 x"), "{row}");
    }
}

/// Case 95 narrowed: an exported arrow factory and its callers in the same file,
/// with the local named `http`, and a call on the factory's result directly.
#[test]
fn case95_arrow_factory_in_the_same_file() {
    let src = root().join("fixtures/cases/95-client-from-factory-function");
    let dir = std::env::temp_dir().join(format!("retrylint-case95-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::copy(src.join("openapi.yaml"), dir.join("openapi.yaml")).unwrap();
    std::fs::write(
        dir.join("src/api.ts"),
        "import axios from 'axios'\nimport axiosRetry from 'axios-retry'\n\n\
         export const axiosInstance = (baseUrl: string) => {\n\
         \x20 const instance = axios.create({ baseURL: baseUrl })\n\
         \x20 axiosRetry(instance)\n\
         \x20 return instance\n}\n\n\
         export async function readSession(base: string, id: string) {\n\
         \x20 return axiosInstance(base).get(`/signals/v1/public/qa/sessions/${id}`)\n}\n\n\
         export async function submitSession(base: string, id: string) {\n\
         \x20 const http = axiosInstance(base)\n\
         \x20 await http.post(`/signals/v1/public/qa/sessions/${id}/submit/`)\n}\n",
    )
    .unwrap();
    let o = case_outcome(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    let post = "POST /signals/v1/public/qa/sessions/{session_id}/submit/";
    let get = "GET /signals/v1/public/qa/sessions/{session_id}";
    assert_eq!(for_op(&o, "RL201", post).len(), 1, "{:#?}", o.diagnostics);
    assert_eq!(for_op(&o, "RL307", get).len(), 1, "{:#?}", o.diagnostics);
}

/// Case 94, blanket binding: no call of the client is found and
/// `.retrylint.yaml` binds it with `clients: [instance]`: the POST is retried on
/// network errors only (RL201 naming `reset`, no 5xx or 429, no RL307), the PUT
/// on 5xx and 429 too (RL307).
#[test]
fn case94_blanket_binding_scopes_signals_by_method() {
    let src = root().join("fixtures/cases/94-axios-retry-post-network-errors");
    let dir = std::env::temp_dir().join(format!("retrylint-case94b-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::copy(src.join("openapi.yaml"), dir.join("openapi.yaml")).unwrap();
    std::fs::write(
        dir.join("src/api-client.ts"),
        "import axios from 'axios'\nimport axiosRetry from 'axios-retry'\n\n\
         export const instance = axios.create({ baseURL: 'https://api.example.org' })\n\
         axiosRetry(instance)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join(".retrylint.yaml"),
        "services:\n  - spec: openapi.yaml\n    clients: [instance]\n",
    )
    .unwrap();
    // `.retrylint.yaml` is read by the command, so run it as a user does.
    let (code, out, err) =
        common::retrylint_in(&dir, &["check", "--root", ".", "--format", "json", "."]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let messages = |code: &str, op: &str| -> Vec<String> {
        v["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .filter(|d| d["code"] == code && d["message"].as_str().is_some_and(|m| m.contains(op)))
            .map(|d| d["message"].as_str().unwrap_or("").to_string())
            .collect()
    };
    let post = "`POST /signals/v1/public/signals/`";
    let put = "`PUT /signals/v1/public/feedback/forms/{token}`";
    let rl201 = messages("RL201", post);
    assert_eq!(rl201.len(), 1, "{out}");
    let m = &rl201[0];
    assert!(
        m.contains("`reset`") && !m.contains("5xx") && !m.contains("429"),
        "{m}"
    );
    assert!(messages("RL307", post).is_empty(), "{out}");
    assert_eq!(messages("RL307", put).len(), 1, "{out}");
}

/// Issue 42: `retryCondition: () => true` is a known condition (every error, every
/// method: RL201 for the POST), not an unknown one (no RL019 about it); a timeout
/// written `parseInt(process.env.T) || 5000` is read as its literal fallback (with
/// `shouldResetTimeout` unset it spans every attempt: a 5 s deadline, so no RL301),
/// and RL019 says what was assumed.
#[test]
fn axios_retry_constant_condition_and_literal_timeout_fallback() {
    let dir = root().join("fixtures/code/javascript/axios-retry-constant-condition");
    let (code, out) = check(&dir);
    assert_eq!(code, 1);
    assert!(out.contains("RL201 unprotected-retry"), "{out}");
    assert!(!out.contains("RL301"), "{out}");
    assert!(!out.contains("what is retried is `() => true`"), "{out}");
    assert!(
        out.contains("assumed its literal fallback, 5000 ms"),
        "{out}"
    );
    let (_, layers, _) = common::retrylint_in(&dir, &["layers", "POST /orders", "."]);
    assert!(layers.contains("deadline                   5s"), "{layers}");
}

/// Two calls of one operation through one axios-retry client: the second binds
/// like the first (it was RL209, "no operation there matches this call").
#[test]
fn axios_retry_second_call_of_an_operation_binds_like_the_first() {
    let (code, out, f) = fixture("axios-retry-second-call");
    assert_eq!(code, 1);
    assert!(!codes(&f).contains(&"RL209"), "{f:?}");
    assert!(has(&f, "RL201 charges.ts:5:50"), "{f:?}");
    assert_eq!(
        common::called_here(
            &root().join("fixtures/code/javascript/axios-retry-second-call"),
            "RL201",
            "POST /charges"
        ),
        ["charges.ts:7", "charges.ts:8"]
    );
    insta::assert_snapshot!("axios_retry_second_call", out);
}

/// A `retryCondition` arrow calling a helper imported from axios-retry
/// (`(err) => isNetworkOrIdempotentRequestError(err)`): the helper's call is no
/// `axiosRetry(err)`, so its argument is no client (it was an RL016, "`err` binds
/// to no operation"). The client itself is judged as with the helper named bare.
#[test]
fn axios_retry_condition_arrow_parameter_is_no_client() {
    let (code, out, f) = fixture("axios-retry-condition-arrow");
    assert_eq!(code, 1);
    assert!(!codes(&f).contains(&"RL016"), "{f:?}");
    assert!(!out.contains("`err`"), "{out}");
    assert!(codes(&f).contains(&"RL201"), "{f:?}");
    insta::assert_snapshot!("axios_retry_condition_arrow", out);
}
