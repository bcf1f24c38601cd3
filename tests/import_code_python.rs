//! Retries in Python code (`retry-in-code.md` §1.1): urllib3 `Retry` with requests
//! `HTTPAdapter`/`mount`, tenacity, backoff and aiohttp-retry, each with a trigger
//! fixture (the default or the setting that retries a POST without a key) and a
//! clean one, checked end to end as a user runs `retrylint check`; and the handed
//! corpus files (`fixtures/code/corpus/`, rows in its `SOURCES.tsv`), each against
//! what its row says retrylint should notice.

mod common;

use common::{codes, findings, has};

use std::path::PathBuf;

fn dir(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Runs `retrylint check .` in a fixture: (exit code, stdout).
fn check(rel: &str) -> (i32, String) {
    let (code, stdout, stderr) = common::retrylint_in(&dir(rel), &["check", "."]);
    assert!(code == 0 || code == 1, "exit {code}; stderr: {stderr}");
    (code, stdout)
}

#[test]
fn urllib3_trigger() {
    let (code, out) = check("fixtures/code/python/urllib3-trigger");
    assert_eq!(code, 1);
    let got = findings(&out);
    // allowed_methods=None: POST retried on read errors and the forcelist.
    assert!(has(&got, "RL201 client.py:8:63"), "{got:#?}");
    assert!(has(&got, "RL305 client.py:8:11"), "{got:#?}");
    // The plain adapter (max_retries=2) keeps urllib3's method filter: its POST is
    // retried on connect errors only, which never reach the server.
    assert!(!got
        .iter()
        .any(|g| g.starts_with("RL201") && g.contains(":13:")));
    insta::assert_snapshot!("urllib3_trigger", out);
}

#[test]
fn urllib3_clean() {
    let (_, out) = check("fixtures/code/python/urllib3-clean");
    let got = findings(&out);
    for c in ["RL201", "RL305", "RL019", "RL017", "RL016"] {
        assert!(!codes(&got).contains(&c), "{c} in {got:#?}");
    }
    insta::assert_snapshot!("urllib3_clean", out);
}

#[test]
fn tenacity_trigger() {
    let (code, out) = check("fixtures/code/python/tenacity-trigger");
    assert_eq!(code, 1);
    let got = findings(&out);
    // The key is made inside the retried function: a new one per attempt.
    assert!(has(&got, "RL208 client.py:11:15"), "{got:#?}");
    // Bare @retry: every exception, forever, POST included.
    assert!(has(&got, "RL201 client.py:19:2"), "{got:#?}");
    assert!(has(&got, "RL303 client.py:19:2"), "{got:#?}");
    // wait_exponential has no jitter.
    assert!(has(&got, "RL305 client.py:9:41"), "{got:#?}");
    insta::assert_snapshot!("tenacity_trigger", out);
}

#[test]
fn tenacity_clean() {
    let (_, out) = check("fixtures/code/python/tenacity-clean");
    let got = findings(&out);
    for c in ["RL201", "RL208", "RL305", "RL301", "RL303", "RL019"] {
        assert!(!codes(&got).contains(&c), "{c} in {got:#?}");
    }
    insta::assert_snapshot!("tenacity_clean", out);
}

#[test]
fn backoff_trigger() {
    let (code, out) = check("fixtures/code/python/backoff-trigger");
    assert_eq!(code, 1);
    let got = findings(&out);
    assert!(has(&got, "RL201 client.py:9:37"), "{got:#?}");
    assert!(has(&got, "RL208 client.py:12:34"), "{got:#?}");
    // jitter=None switches the default full jitter off.
    assert!(has(&got, "RL305 client.py:9:95"), "{got:#?}");
    // A callable setting is not known statically.
    assert!(has(&got, "RL019 client.py:16:79"), "{got:#?}");
    insta::assert_snapshot!("backoff_trigger", out);
}

#[test]
fn backoff_clean() {
    let (_, out) = check("fixtures/code/python/backoff-clean");
    let got = findings(&out);
    for c in ["RL201", "RL208", "RL305", "RL301", "RL019"] {
        assert!(!codes(&got).contains(&c), "{c} in {got:#?}");
    }
    insta::assert_snapshot!("backoff_clean", out);
}

#[test]
fn aiohttp_trigger() {
    let (code, out) = check("fixtures/code/python/aiohttp-trigger");
    assert_eq!(code, 1);
    let got = findings(&out);
    // ExponentialRetry's default methods include POST; every 5xx is retried.
    assert!(has(&got, "RL201 client.py:7:15"), "{got:#?}");
    insta::assert_snapshot!("aiohttp_trigger", out);
}

#[test]
fn aiohttp_clean() {
    let (_, out) = check("fixtures/code/python/aiohttp-clean");
    let got = findings(&out);
    for c in ["RL201", "RL019"] {
        assert!(!codes(&got).contains(&c), "{c} in {got:#?}");
    }
    insta::assert_snapshot!("aiohttp_clean", out);
}

/// Runs `retrylint check .` on a corpus file and its companion spec folder
/// (`spec_dir`, with its `.retrylint.yaml`), copied into a fresh temporary folder:
/// a named file brings its whole project, and this repository is not the file's.
fn corpus(spec_dir: Option<&str>, file: &str) -> (String, Vec<String>) {
    let tmp = std::env::temp_dir().join(format!(
        "retrylint-py-{}-{}",
        file.replace(['/', '.'], "_"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    if let Some(d) = spec_dir {
        let mut stack = vec![dir(d)];
        while let Some(from) = stack.pop() {
            for e in std::fs::read_dir(&from).unwrap() {
                let e = e.unwrap();
                let path = e.path();
                let rel = path.strip_prefix(dir(d)).unwrap();
                if path.is_dir() {
                    std::fs::create_dir_all(tmp.join(rel)).unwrap();
                    stack.push(path);
                } else {
                    std::fs::copy(&path, tmp.join(rel)).unwrap();
                }
            }
        }
    }
    std::fs::copy(dir("fixtures/code/corpus").join(file), tmp.join(file)).unwrap();
    let (code, stdout, stderr) = common::retrylint_in(&tmp, &["check", "."]);
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(code == 0 || code == 1, "exit {code}; stderr: {stderr}");
    let mut got = findings(&stdout);
    got.dedup();
    (stdout, got)
}

/// Qiskit `PostForcelistRetry`: the subclass overrides `is_retry`, so POST is
/// retried (on the forcelist); no jitter; Retry-After still honoured; the counts
/// come from parameters (RL019, urllib3's default assumed).
#[test]
fn corpus_qiskit() {
    let (_, got) = corpus(
        Some("fixtures/code/python/corpus-specs/qiskit"),
        "python--Qiskit-qiskit-ibm-provider--session.py",
    );
    let f = "python--Qiskit-qiskit-ibm-provider--session.py";
    for want in [
        format!("RL019 {f}:113:9"),
        format!("RL201 {f}:193:30"),
        format!("RL305 {f}:189:17"),
        format!("RL019 {f}:190:19"),
    ] {
        assert!(got.contains(&want), "{want} not in {got:#?}");
    }
    // Retry-After is honoured (the base class): never RL306.
    assert!(!codes(&got).contains(&"RL306"), "{got:#?}");
    insta::assert_snapshot!("corpus_qiskit", got.join("\n"));
}

/// de-replicated-log: the 1.x per-call aiohttp-retry POST retried on every status
/// but 200/429 (4xx and 201 too), no backoff, no Retry-After; `Retry(total=timeout)`
/// is RL017 (and its value, a parameter, RL019).
#[test]
fn corpus_de_replicated_log() {
    let (_, got) = corpus(
        Some("fixtures/code/python/corpus-specs/de-replicated-log"),
        "python--ironiksk-de-replicated-log--utils.py",
    );
    let f = "python--ironiksk-de-replicated-log--utils.py";
    for want in [
        format!("RL201 {f}:15:93"),
        format!("RL308 {f}:15:93"),
        format!("RL303 {f}:15:70"),
        format!("RL305 {f}:15:20"),
        format!("RL017 {f}:51:27"),
        format!("RL019 {f}:51:27"),
    ] {
        assert!(got.contains(&want), "{want} not in {got:#?}");
    }
    insta::assert_snapshot!("corpus_de_replicated_log", got.join("\n"));
}

/// Agent-Driver: `@retry(wait=wait_random_exponential(...), stop=stop_after_attempt(3))`
/// around an SDK call: no retry= (every exception), full jitter, 3 attempts, no
/// deadline; no HTTP call of a spec is visible, so it binds to nothing (RL016).
#[test]
fn corpus_agent_driver() {
    let (out, got) = corpus(None, "python--USC-GVL-Agent-Driver--chat_utils.py");
    assert_eq!(
        got,
        ["RL016 python--USC-GVL-Agent-Driver--chat_utils.py:9:5"]
    );
    insta::assert_snapshot!("corpus_agent_driver", out);
}

/// meltano: `backoff.on_exception(self.backoff_wait_generator, (...), max_tries=
/// self.backoff_max_tries, jitter=self.backoff_jitter)` with the methods' return
/// values read from the same file; the custom `RetriableAPIError` makes the
/// exception tuple "may retry anything" (RL019). Bound to a GraphQL POST by
/// `.retrylint.yaml` (`clients: [decorator]`).
#[test]
fn corpus_meltano() {
    let (_, got) = corpus(
        Some("fixtures/code/python/corpus-specs/meltano"),
        "python--meltano-sdk--rest.py",
    );
    let f = "python--meltano-sdk--rest.py";
    for want in [
        // RetriableAPIError is defined elsewhere: may retry anything, POST included.
        format!("RL019 {f}:395:13"),
        format!("RL201 {f}:395:13"),
        // Retry-After ignored; no max_time (at `return 5` of backoff_max_tries).
        format!("RL306 {f}:395:13"),
        format!("RL301 {f}:393:33"),
    ] {
        assert!(got.contains(&want), "{want} not in {got:#?}");
    }
    // random_jitter is jitter.
    assert!(!codes(&got).contains(&"RL305"), "{got:#?}");
    // max_tries, the wait generator and the jitter resolve through the methods.
    assert_eq!(
        got.iter().filter(|g| g.starts_with("RL019")).count(),
        1,
        "{got:#?}"
    );
    insta::assert_snapshot!("corpus_meltano", got.join("\n"));
}

/// slack-sdk and openai are bespoke SDK loops: nothing is recognised wrongly.
#[test]
fn corpus_bespoke_sdk_loops() {
    for file in [
        "python--slackapi-python-slack-sdk--builtin_handlers.py",
        "python--openai-openai-python--_base_client.py",
    ] {
        let (_, got) = corpus(None, file);
        assert!(got.is_empty(), "{file}: {got:#?}");
    }
}

/// A Stainless-generated SDK constructor (`OpenAI(max_retries=4)`): the SDK retries
/// every method on 408/409/429/5xx and connection errors; bound by
/// `services[].clients` since its calls are SDK methods, not HTTP verbs.
#[test]
fn stainless_sdk_constructor() {
    let (code, out) = check("fixtures/code/python/stainless-trigger");
    assert_eq!(code, 1);
    let got = findings(&out);
    assert!(has(&got, "RL201 client.py:4:10"), "{got:#?}");
    assert!(has(&got, "RL308 client.py:4:10"), "{got:#?}");
    assert!(!codes(&got).contains(&"RL305"), "the SDK jitters: {got:#?}");
    insta::assert_snapshot!("stainless_trigger", out);
}

/// `check` over a copy of a shared case in `fixtures/cases/` (the folder is its
/// own project root), as the library runs it.
fn case_outcome(case: &str) -> retrylint::check::CheckOutcome {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/cases")
        .join(case);
    retrylint::check::run(&retrylint::check::CheckOptions {
        paths: vec![dir.clone()],
        cwd: Some(dir.clone()),
        root: Some(dir),
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

/// Case 96 (`fixtures/cases/96-tenacity-decorator-in-variable`): a tenacity
/// decorator kept in a module-level variable (`api_retry = retry(...)`) and used
/// as `@api_retry`, in the same file and imported from `app/retry_config.py`:
/// cancel and refund are retried 3 x (one layer each), RL201 on both. The direct
/// `@retry(...)` (any exception) around `raise_for_status()` retries every 4xx:
/// RL308 for `POST /v1/orders`.
#[test]
fn case96_tenacity_decorator_in_a_variable() {
    let o = case_outcome("96-tenacity-decorator-in-variable");
    for op in ["POST /v1/orders/{id}/cancel", "POST /v1/orders/{id}/refund"] {
        assert_eq!(
            for_op(&o, "RL201", op).len(),
            1,
            "{op}: {:#?}",
            o.diagnostics
        );
        assert!(for_op(&o, "RL311", op).is_empty(), "{op}: one layer");
        assert!(for_op(&o, "RL308", op).is_empty(), "{op}");
    }
    let rl308 = for_op(&o, "RL308", "POST /v1/orders");
    assert_eq!(rl308.len(), 1, "{:#?}", o.diagnostics);
    assert!(rl308[0].message.contains("`4xx`"), "{}", rl308[0].message);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/cases/96-tenacity-decorator-in-variable");
    let (_, out, _) = common::retrylint_in(&dir, &["readiness", "--root", ".", "."]);
    for (op, n) in [
        ("POST /v1/orders/{id}/cancel ", "3 x"),
        ("POST /v1/orders/{id}/refund ", "3 x"),
        ("POST /v1/orders ", "5 x"),
    ] {
        let row = out.lines().find(|l| l.starts_with(op)).expect("a row");
        assert!(row.contains(n), "{row}");
    }
}

/// Case 97 (`fixtures/cases/97-plain-session-credited-to-retry-session`):
/// `self.session = Session()` in `MailOverRest` is a plain session; its POST is
/// not credited to the urllib3 `Retry` session of `app/sources/gebieden.py`
/// (same last name `session`), so that Retry stays unbound (RL016) and no
/// operation of the service's own spec is retried. With `allowed_methods`
/// listing POST (the variant file) it is the same: no RL201.
#[test]
fn case97_plain_session_is_not_a_retry_session_of_another_file() {
    let o = case_outcome("97-plain-session-credited-to-retry-session");
    let codes: Vec<&str> = o.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["RL016"], "{:#?}", o.diagnostics);
    assert!(o.diagnostics[0]
        .primary
        .location
        .file
        .display
        .ends_with("gebieden.py"));

    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/cases/97-plain-session-credited-to-retry-session");
    let dir = std::env::temp_dir().join(format!("retrylint-case97-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["app/api", "app/sources", "app/email"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    for f in [
        "app/api/public_openapi.yaml",
        "app/email/rest_email_endpoint.py",
    ] {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    std::fs::copy(
        src.join("app/sources/gebieden_variant_post_allowed.py.txt"),
        dir.join("app/sources/gebieden.py"),
    )
    .unwrap();
    let o = retrylint::check::run(&retrylint::check::CheckOptions {
        paths: vec![dir.clone()],
        cwd: Some(dir.clone()),
        root: Some(dir.clone()),
        ..Default::default()
    });
    let _ = std::fs::remove_dir_all(&dir);
    let codes: Vec<&str> = o.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["RL016"], "{:#?}", o.diagnostics);
}

/// Case 98 (`fixtures/cases/98-urllib3-mount-prefix`): a urllib3 `Retry` mounted
/// on `https://` only does not serve the spec's `http://localhost:8181` server
/// (requests picks the adapter by prefix, and its default `http://` adapter
/// retries nothing): no findings, exit 0, readiness "not retried". With the
/// server on `https://` the Retry applies (RL301, RL303, RL305, RL307).
#[test]
fn case98_urllib3_mount_prefix_limits_the_servers() {
    let o = case_outcome("98-urllib3-mount-prefix");
    assert!(o.diagnostics.is_empty(), "{:#?}", o.diagnostics);
    let src =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/cases/98-urllib3-mount-prefix");
    let (code, out, err) = common::retrylint_in(&src, &["readiness", "--root", ".", "."]);
    assert_eq!(code, 0, "{err}");
    let row = out
        .lines()
        .find(|l| l.starts_with("GET /api/v1/organizations/"))
        .expect("a row");
    assert!(row.contains("not retried"), "{row}");

    let dir = std::env::temp_dir().join(format!("retrylint-case98-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src/clients")).unwrap();
    let f = "src/clients/service_client.py";
    std::fs::copy(src.join(f), dir.join(f)).unwrap();
    let spec = std::fs::read_to_string(src.join("openapi.yaml"))
        .unwrap()
        .replace("http://localhost", "https://localhost");
    std::fs::write(dir.join("openapi.yaml"), spec).unwrap();
    let o = retrylint::check::run(&retrylint::check::CheckOptions {
        paths: vec![dir.clone()],
        cwd: Some(dir.clone()),
        root: Some(dir.clone()),
        ..Default::default()
    });
    let _ = std::fs::remove_dir_all(&dir);
    let mut codes: Vec<&str> = o.diagnostics.iter().map(|d| d.code).collect();
    codes.sort();
    assert_eq!(
        codes,
        ["RL301", "RL303", "RL305", "RL307"],
        "{:#?}",
        o.diagnostics
    );
}

/// Service identity from Docker Compose: two specs without `servers`, each in the
/// `build` context of a Compose service (`orders`; `payments` with `hostname:
/// payments-api`). The client's call to `http://payments-api:8080/payments` binds to
/// the payments spec by that hostname, though the run holds two specs: RL201 for
/// `POST /payments`, nothing on `POST /orders`, no RL016.
#[test]
fn compose_service_names_bind_a_call_to_the_spec_built_there() {
    let (code, out, _) = common::retrylint_in(
        &dir("fixtures/code/python/compose-identity"),
        &["check", "--format", "json", "."],
    );
    assert_eq!(code, 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let found: Vec<(String, String)> = v["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or("").to_string(),
                d["operations"].to_string(),
            )
        })
        .collect();
    assert!(
        found
            .iter()
            .any(|(c, ops)| c == "RL201" && ops.contains("POST /payments")),
        "{found:?}"
    );
    assert!(!found.iter().any(|(c, _)| c == "RL016"), "{found:?}");
    assert!(
        !found.iter().any(|(_, ops)| ops.contains("/orders")),
        "{found:?}"
    );
}

/// Issue 42: the urllib3 version the project pins chooses the defaults. With
/// `urllib3==1.26.18` in `requirements.txt` a Retry-After is waited whatever it says
/// (1.26 has no `retry_after_max`); without a pin, 2.x caps it at 6 h.
#[test]
fn urllib3_pinned_below_2_waits_any_retry_after() {
    let pinned = dir("fixtures/code/python/urllib3-pinned-1.26");
    let (code, out, err) = common::retrylint_in(&pinned, &["layers", "GET /orders", "."]);
    assert_eq!(code, 0, "{err}");
    let max = out
        .lines()
        .find(|l| l.trim_start().starts_with("retry_after.max"))
        .unwrap_or_default();
    assert!(max.trim_end().ends_with('-'), "{out}");
    assert!(
        out.contains("urllib3 1.26.18 (pinned in requirements.txt): no retry_after_max"),
        "{out}"
    );
    // The same client with no pin: urllib3 2.x's cap.
    let tmp = tempfile::tempdir().unwrap();
    for f in ["openapi.yaml", "client.py"] {
        std::fs::copy(pinned.join(f), tmp.path().join(f)).unwrap();
    }
    let (_, out, _) = common::retrylint_in(tmp.path(), &["layers", "GET /orders", "."]);
    let max = out
        .lines()
        .find(|l| l.trim_start().starts_with("retry_after.max"))
        .unwrap_or_default();
    assert!(max.contains("6h"), "{out}");
}

/// Literals no value can be read from (issue 43): NaN and infinite floats
/// (`float('nan')`, `1e400`, `math.inf`) in urllib3 `Retry` and tenacity are one
/// RL017 each saying "out of range", and are read as nothing: no first delay, cap,
/// multiplier or count (not the library default), and no RL302 or RL019 about them.
#[test]
fn trigger_values_out_of_range_are_rl017_not_defaults() {
    let (code, out) = check("fixtures/code/python/trigger-values-out-of-range");
    assert_eq!(code, 1, "{out}");
    let got = findings(&out);
    for want in [
        "RL017 client.py:14:41", // backoff_factor=float('nan')
        "RL017 client.py:14:67", // backoff_max=1e400
        "RL017 client.py:23:32", // stop_after_attempt(math.inf)
        "RL017 client.py:23:76", // wait_exponential(multiplier=1e400)
    ] {
        assert!(has(&got, want), "{want} missing: {got:#?}");
    }
    assert_eq!(
        out.matches("is out of range: not a finite number").count(),
        4,
        "{out}"
    );
    for absent in ["RL302", "RL019"] {
        assert!(!codes(&got).contains(&absent), "{absent} in {got:#?}");
    }
    let (_, imported, _) = common::retrylint_in(
        &dir("fixtures/code/python/trigger-values-out-of-range"),
        &["import", "client.py"],
    );
    for absent in ["base:", "inf", "NaN", "attempts: 11"] {
        assert!(!imported.contains(absent), "{absent}:\n{imported}");
    }
    insta::assert_snapshot!(out);
}

/// One client calling the same operation from several places (the same literal
/// URL twice, a concatenation, `s.request("POST", ...)`, an f-string twice): each
/// call binds to the operation like the first, and is labelled on its findings.
/// The second call used to be RL209 ("no operation there matches this call") with
/// help to add an operation the spec already has.
#[test]
fn urllib3_second_call_of_an_operation_binds_like_the_first() {
    let rel = "fixtures/code/python/urllib3-second-call";
    let (code, out) = check(rel);
    assert_eq!(code, 1);
    let got = findings(&out);
    assert!(!codes(&got).contains(&"RL209"), "{got:#?}");
    assert!(!codes(&got).contains(&"RL016"), "{got:#?}");
    assert!(has(&got, "RL201 client.py:7:63"), "{got:#?}");
    assert_eq!(
        common::called_here(&dir(rel), "RL201", "POST /charges"),
        [
            "client.py:15",
            "client.py:19",
            "client.py:23",
            "client.py:27"
        ]
    );
    assert_eq!(
        common::called_here(&dir(rel), "RL201", "POST /charges/{id}/capture"),
        ["client.py:31", "client.py:35"]
    );
    insta::assert_snapshot!("urllib3_second_call", out);
}
