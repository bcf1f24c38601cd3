//! Retries in Go code (`retry-in-code.md` §1.5): go-retryablehttp and resty
//! clients read from the fixtures under `fixtures/code/go/` and from the handed
//! corpus files in `fixtures/code/corpus/`, checked end to end as a user runs
//! `retrylint check`: the human output as a snapshot, plus the codes and
//! `file:line:col` of every finding.

mod common;

use common::{codes, findings_sorted as findings, has};

use std::path::PathBuf;

fn dir(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// `retrylint check .` in a fixture directory.
fn check(rel: &str) -> (i32, String) {
    let (code, stdout, stderr) = common::retrylint_in(&dir(rel), &["check", "."]);
    assert!(code == 0 || code == 1, "exit {code}; stderr: {stderr}");
    (code, stdout)
}

/// A copy of the fixture `rel` in a fresh temporary directory, with the handed
/// corpus files `(name in fixtures/code/corpus, path in the copy)` placed where
/// their repository has them: `retrylint check .` there sees only this case.
fn corpus_case(rel: &str, files: &[(&str, &str)]) -> PathBuf {
    let tmp = std::env::temp_dir().join(format!(
        "retrylint-go-{}-{}",
        rel.rsplit('/').next().unwrap_or(rel),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&tmp);
    // The fixture: api/openapi.yaml and an optional .retrylint.yaml.
    let src = dir(rel);
    for f in ["api/openapi.yaml", ".retrylint.yaml"] {
        let from = src.join(f);
        if from.is_file() {
            let to = tmp.join(f);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(&from, &to).unwrap();
        }
    }
    for (name, path) in files {
        let to = tmp.join(path);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(dir("fixtures/code/corpus").join(name), &to).unwrap();
    }
    tmp
}

/// `retrylint check .` in a [`corpus_case`] copy, which is removed afterwards.
fn check_corpus(rel: &str, files: &[(&str, &str)]) -> (i32, String) {
    let tmp = corpus_case(rel, files);
    let (code, stdout, stderr) = common::retrylint_in(&tmp, &["check", "."]);
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(code == 0 || code == 1, "exit {code}; stderr: {stderr}");
    (code, stdout)
}

// go-retryablehttp

#[test]
fn retryablehttp_default_retries_a_post() {
    let (code, stdout) = check("fixtures/code/go/retryablehttp-trigger");
    assert_eq!(code, 1);
    let got = findings(&stdout);
    // `NewClient()`: DefaultRetryPolicy has no method check, DefaultBackoff no
    // jitter and an uncapped Retry-After.
    for want in [
        "RL201 client.go:13:12",
        "RL305 client.go:13:12",
        "RL307 client.go:13:12",
        "RL303 client.go:14:20",
        // The struct literal: a count of another package, a bare 5 (ns), and
        // LinearJitterBackoff, which ignores Retry-After.
        "RL019 client.go:26:16",
        "RL017 client.go:27:16",
        "RL306 client.go:29:16",
    ] {
        assert!(has(&got, want), "missing {want} in {got:?}");
    }
    assert!(stdout.contains("`RetryWaitMin: 5` is 5 ns, not 5 s"));
    assert!(stdout.contains("go-retryablehttp has no method check"));
    assert!(stdout.contains("go-retryablehttp counts retries: RetryMax = 5 is 6 attempts"));
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn retryablehttp_post_with_a_key_is_not_rl201() {
    let (code, stdout) = check("fixtures/code/go/retryablehttp-clean");
    let got = findings(&stdout);
    assert!(!codes(&got).contains(&"RL201"), "{got:?}");
    assert!(
        !codes(&got).contains(&"RL016"),
        "the client links through `api`: {got:?}"
    );
    // The key header set on `req` is seen (its contract is judged instead).
    assert!(
        !codes(&got).contains(&"RL203"),
        "a key the code sends states no contract: {got:?}"
    );
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn retryablehttp_package_helpers_use_the_default_client() {
    let (code, stdout) = check("fixtures/code/go/retryablehttp-package");
    assert_eq!(code, 1);
    let got = findings(&stdout);
    for want in [
        "RL201 ping.go:6:12",
        "RL305 ping.go:6:12",
        "RL307 ping.go:6:12",
    ] {
        assert!(has(&got, want), "missing {want} in {got:?}");
    }
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

// resty

#[test]
fn resty_v2_retries_a_post_across_files_and_bare_ints_are_nanoseconds() {
    let (code, stdout) = check("fixtures/code/go/resty-v2-trigger");
    assert_eq!(code, 1);
    let got = findings(&stdout);
    for want in [
        "RL201 utils/http.go:12:16",
        "RL301 utils/http.go:13:17",
        "RL017 utils/http.go:14:20",
    ] {
        assert!(has(&got, want), "missing {want} in {got:?}");
    }
    // The version comes from go.mod.
    assert!(stdout.contains("resty v2.16.5"), "{stdout}");
    assert!(stdout.contains("go-resty/resty"));
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn resty_v2_post_with_a_key_is_not_rl201() {
    let (code, stdout) = check("fixtures/code/go/resty-v2-clean");
    let got = findings(&stdout);
    assert!(!codes(&got).contains(&"RL201"), "{got:?}");
    assert!(!codes(&got).contains(&"RL017"), "{got:?}");
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn resty_constants_of_another_file_of_the_package_are_read() {
    let (code, stdout) = check("fixtures/code/go/resty-package-const");
    assert_eq!(code, 1);
    let got = findings(&stdout);
    // `maxRetries` and `retryWait` live in settings.go: read, no RL019; a value of
    // another package stays RL019.
    assert_eq!(
        got.iter()
            .filter(|g| g.starts_with("RL019"))
            .collect::<Vec<_>>(),
        vec!["RL019 client.go:8:22"]
    );
    assert!(has(&got, "RL201 client.go:5:14"), "{got:?}");
    assert!(stdout.contains("`maxRetries` is declared in settings.go (same package)"));
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn resty_v3_sends_a_post_once() {
    let (code, stdout) = check("fixtures/code/go/resty-v3-clean");
    let got = findings(&stdout);
    // Only the GET is retried: no finding names the POST.
    assert!(!stdout.contains("POST /orders"), "{stdout}");
    assert!(!codes(&got).contains(&"RL201"), "{got:?}");
    assert!(has(&got, "RL307 orders.go:11:14"), "{got:?}");
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn resty_v3_allow_non_idempotent_retries_a_post() {
    let (code, stdout) = check("fixtures/code/go/resty-v3-trigger");
    assert_eq!(code, 1);
    let got = findings(&stdout);
    // The condition literal is read: err != nil || 409, on top of the defaults.
    assert!(has(&got, "RL201 orders.go:16:22"), "{got:?}");
    assert!(has(&got, "RL308 orders.go:16:22"), "{got:?}");
    assert!(stdout.contains("resty v3.0.0-beta.3"), "{stdout}");
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

// The handed corpus files (fixtures/code/corpus/SOURCES.tsv).

#[test]
fn corpus_hengnao_resty_global_client_posts_from_another_file() {
    let (code, stdout) = check_corpus(
        "fixtures/code/go/corpus-hengnao",
        &[
            ("go--Penryn-HengNao-Agent--resty.go", "biz/utils/resty.go"),
            (
                "go--Penryn-HengNao-Agent--get_relevant_highlights.go",
                "biz/service/get_relevant_highlights.go",
            ),
        ],
    );
    assert_eq!(code, 1);
    let got = findings(&stdout);
    let f = "biz/utils/resty.go";
    // SetRetryWaitTime(5) / SetRetryMaxWaitTime(10) are ns; v2 retries the POST
    // of get_relevant_highlights.go (URL from config: any operation) on
    // transport errors; SetTimeout(120 s) is per attempt, no deadline.
    for want in [
        format!("RL017 {f}:14:20"),
        format!("RL017 {f}:15:23"),
        format!("RL201 {f}:11:16"),
        format!("RL301 {f}:13:17"),
    ] {
        assert!(has(&got, &want), "missing {want} in {got:?}");
    }
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn corpus_gitlab_custom_check_retry_retries_post_on_429_and_5xx() {
    let (code, stdout) = check_corpus(
        "fixtures/code/go/corpus-gitlab",
        &[("go--xanzy-go-gitlab--gitlab.go", "gitlab.go")],
    );
    assert_eq!(code, 1);
    let got = findings(&stdout);
    let f = "gitlab.go";
    // retryHTTPCheck is read: 429 and >= 500, no network errors, every method;
    // retryHTTPBackoff has jitter and reads RateLimit-Reset, not Retry-After.
    for want in [
        format!("RL201 {f}:343:17"),
        format!("RL306 {f}:343:17"),
        format!("RL301 {f}:348:17"),
    ] {
        assert!(has(&got, &want), "missing {want} in {got:?}");
    }
    assert!(
        !codes(&got).contains(&"RL305"),
        "the backoff has jitter: {got:?}"
    );
    assert!(stdout.contains("retried on `5xx`, `429`"), "{stdout}");
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn corpus_absmartly_values_of_another_file_are_rl019() {
    let (code, stdout) = check_corpus(
        "fixtures/code/go/corpus-absmartly",
        &[(
            "go--absmartly-go-sdk--DefaultHttpClient.go",
            "sdk/DefaultHttpClient.go",
        )],
    );
    let got = findings(&stdout);
    let f = "sdk/DefaultHttpClient.go";
    for want in [
        format!("RL019 {f}:34:30"),
        format!("RL019 {f}:35:33"),
        format!("RL019 {f}:37:34"),
        // The custom condition may retry anything, and the client serves
        // Get/Put/Post alike.
        format!("RL201 {f}:37:34"),
    ] {
        assert!(has(&got, &want), "missing {want} in {got:?}");
    }
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn half_typed_and_deeply_nested_go_does_not_panic() {
    let tmp = std::env::temp_dir().join(format!("retrylint-go-hostile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(tmp.join("api")).unwrap();
    std::fs::write(
        tmp.join("api/openapi.yaml"),
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n",
    )
    .unwrap();
    let deep = format!(
        "package x\nimport \"github.com/go-resty/resty/v2\"\nvar c = resty.New().SetRetryCount({}1{})\nvar d = resty.New().SetRetryWaitTime({}\nfunc f() {{ c.R().Post(",
        "(".repeat(5000),
        ")".repeat(5000),
        "1 + ".repeat(5000)
    );
    std::fs::write(tmp.join("x.go"), deep).unwrap();
    let (code, _stdout, stderr) = common::retrylint_in(&tmp, &["check", "."]);
    assert!(code == 0 || code == 1, "exit {code}; stderr: {stderr}");
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Constants Go rejects (issue 43): `RetryMax` beyond an `int` and `RetryWaitMax`
/// beyond a `time.Duration` are one RL017 each saying "out of range", and are read
/// as nothing: no count (not the default 4 retries, no RL019 "not known
/// statically"), no base or jitter computed from them, no RL302 or RL305.
#[test]
fn retryablehttp_out_of_range_constants_are_rl017_not_defaults() {
    let (_, out) = check("fixtures/code/go/retryablehttp-trigger-out-of-range");
    let got = findings(&out);
    for want in ["RL017 client.go:21:15", "RL017 client.go:23:19"] {
        assert!(has(&got, want), "{want} missing: {got:#?}");
    }
    assert_eq!(out.matches("is out of range: at most").count(), 2, "{out}");
    for absent in ["RL019", "RL302", "RL305"] {
        assert!(!codes(&got).contains(&absent), "{absent} in {got:#?}");
    }
    insta::assert_snapshot!(out);
}

/// Two calls of one operation through one go-retryablehttp client: the second
/// binds like the first (it was RL209, "no operation there matches this call").
#[test]
fn retryablehttp_second_call_of_an_operation_binds_like_the_first() {
    let rel = "fixtures/code/go/retryablehttp-second-call";
    let (code, out) = check(rel);
    assert_eq!(code, 1);
    let got = findings(&out);
    assert!(!codes(&got).contains(&"RL209"), "{got:#?}");
    assert!(has(&got, "RL201 client.go:8:9"), "{got:#?}");
    assert_eq!(
        common::called_here(&dir(rel), "RL201", "POST /charges"),
        ["client.go:10", "client.go:11"]
    );
    insta::assert_snapshot!("retryablehttp_second_call", out);
}
