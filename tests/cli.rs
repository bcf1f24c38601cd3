//! The binary as users run it: exit codes, `plan` and `simulate`.

mod common;

/// `retrylint ARGS` run in the repository.
fn retrylint(args: &[&str]) -> (i32, String, String) {
    common::retrylint_in(std::path::Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

#[test]
fn plan_worked_example_prints_the_documented_line() {
    let (code, out, _) = retrylint(&[
        "plan",
        "--method",
        "POST",
        "--status",
        "503",
        "--attempt",
        "2",
        "--now-ms",
        "1000",
        "--deadline-ms",
        "3000",
        "--random-unit",
        "0.5",
        "--idempotency-key",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    assert_eq!(out, "{\"retry\":true,\"delayMs\":200,\"backoffMs\":400}\n");
}

#[test]
fn plan_without_protection_refuses_a_blind_post() {
    let (code, out, _) = retrylint(&[
        "plan",
        "--method",
        "POST",
        "--transport-error",
        "--attempt",
        "0",
        "--now-ms",
        "0",
        "--deadline-ms",
        "3000",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    assert_eq!(
        out.trim(),
        "{\"retry\":false,\"reason\":\"unknown-result\"}"
    );
}

#[test]
fn plan_policy_mode_uses_the_effective_policy() {
    let policy = "fixtures/simulate/full.retry-policy.yaml";
    // A 503 with Retry-After 2 s: the wait is at least 2 s, jitter on top.
    let (code, out, err) = retrylint(&[
        "plan",
        "--policy",
        policy,
        "--operation",
        "GET /reports",
        "--signal",
        "503",
        "--attempt",
        "0",
        "--retry-after",
        "2",
        "--format",
        "json",
        "--seed",
        "7",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["retry"], true);
    let delay = v["delayMs"].as_f64().unwrap();
    assert!((2000.0..=2100.0).contains(&delay), "{delay}");
    // The deadline stops the loop.
    let (_, out, _) = retrylint(&[
        "plan",
        "--policy",
        policy,
        "--operation",
        "getReport",
        "--signal",
        "503",
        "--attempt",
        "1",
        "--elapsed",
        "30s",
        "--format",
        "json",
    ]);
    assert_eq!(
        out.trim(),
        "{\"retry\":false,\"reason\":\"deadline-exhausted\"}"
    );
    // Unknown operation is a usage error.
    let (code, _, err) = retrylint(&[
        "plan",
        "--policy",
        policy,
        "--operation",
        "nope",
        "--signal",
        "503",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("matches no operation"), "{err}");
}

fn peak(jitter: &str) -> (u64, serde_json::Value) {
    let policy = format!("fixtures/simulate/{jitter}.retry-policy.yaml");
    let (code, out, err) = retrylint(&[
        "simulate",
        "--policy",
        &policy,
        "--operation",
        "getReport",
        "--clients",
        "1000",
        "--outage",
        "2s",
        "--seed",
        "42",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    (v["retry_peak"].as_u64().unwrap(), v)
}

#[test]
fn simulate_full_jitter_cuts_the_retry_peak_at_least_five_times() {
    let (none, report) = peak("none");
    let (full, _) = peak("full");
    assert_eq!(
        none, 1000,
        "without jitter every retry of one attempt lands together"
    );
    assert!(none >= 5 * full, "none {none} vs full {full}");
    assert_eq!(report["clients"], 1000);
    // Deterministic for a seed.
    assert_eq!(peak("full").1, peak("full").1);
}

#[test]
fn check_exit_codes() {
    let (code, _, _) = retrylint(&["check", "fixtures/cases/01-numeric-status-keys.yaml"]);
    assert_eq!(code, 0);
    let (code, out, _) = retrylint(&["check", "fixtures/examples/shop"]);
    assert_eq!(code, 1);
    assert!(out.contains("RL201 unprotected-retry"), "{out}");
    let (code, _, _) = retrylint(&["check", "fixtures/examples/shop", "--fail-on", "never"]);
    assert_eq!(code, 0);
    let (code, _, _) = retrylint(&["check", "does/not/exist.yaml"]);
    assert_eq!(code, 2);
    let (code, _, _) = retrylint(&["check", "--format", "nope"]);
    assert_eq!(code, 2);
}

/// `--root` naming no folder is a usage error of every subcommand that takes it: a
/// mistyped root left every file "outside the project root" and passed with nothing
/// checked (exit 0, SARIF with no result), and a file as the root left out the
/// policy beside it.
#[test]
fn a_root_that_is_no_folder_is_a_usage_error() {
    let spec = "fixtures/examples/shop/openapi.yaml";
    let shop = "fixtures/examples/shop";
    for (root, why) in [
        ("fixtures/does-not-exist", "does not exist"),
        (spec, "is not a folder"),
    ] {
        let commands: [&[&str]; 8] = [
            &["check", shop],
            &["check", shop, "--format", "sarif"],
            &["readiness", shop],
            &["import", "fixtures/examples/shop/shop.retry-policy.yaml"],
            &["init", spec, "-o", "-"],
            &["layers", "POST /orders", shop],
            &["report", shop, "-o", "-"],
            &["probe", shop, "--operation", "POST /orders", "--", "true"],
        ];
        for command in commands {
            let mut args = command.to_vec();
            args.splice(1..1, ["--root", root]);
            let (code, out, err) = retrylint(&args);
            assert_eq!(code, 2, "{args:?}: {out}{err}");
            assert!(out.is_empty(), "{args:?}: {out}");
            assert_eq!(
                err,
                format!("retrylint: project root `{root}` (--root) {why}\n"),
                "{args:?}"
            );
        }
    }
    // A root that is a folder is used as before.
    let (code, out, _) = retrylint(&["check", "--root", shop, shop]);
    assert_eq!(code, 1);
    assert!(out.contains("RL201 unprotected-retry"), "{out}");
}

#[test]
fn plan_accepts_a_negative_attempt_and_reports_it() {
    let (code, out, _) = retrylint(&[
        "plan",
        "--method",
        "GET",
        "--status",
        "503",
        "--attempt",
        "-1",
        "--now-ms",
        "0",
        "--deadline-ms",
        "100",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    assert_eq!(
        out.trim(),
        "{\"retry\":false,\"reason\":\"invalid-attempt\"}"
    );
}

#[test]
fn files_named_on_the_command_line_are_read_whatever_their_name() {
    // A spec without a YAML/JSON extension is linted by its content.
    let (code, out, _) = retrylint(&["check", "--format", "json", "fixtures/unlisted/api-spec"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("\"RL501\""), "{out}");
    // A text file that is no spec is skipped (and listed by --verbose), not an error.
    let (code, out, _) = retrylint(&[
        "check",
        "--verbose",
        "fixtures/unlisted/api-spec",
        "fixtures/unlisted/notes.txt",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("skipped fixtures/unlisted/notes.txt: neither an OpenAPI document"),
        "{out}"
    );
    // A machine format keeps standard output to itself: --verbose lists the skipped
    // files on standard error, as it lists the paths left out.
    let (code, out, err) = retrylint(&[
        "check",
        "--verbose",
        "--format",
        "json",
        "fixtures/unlisted/api-spec",
        "fixtures/unlisted/notes.txt",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("skipped"), "{out}");
    assert!(
        err.contains("skipped fixtures/unlisted/notes.txt: neither an OpenAPI document"),
        "{err}"
    );
    // Asked with --verbose, the warning of an empty run does not ask for --verbose.
    let (code, _, err) = retrylint(&["check", "--verbose", "fixtures/unlisted/notes.txt"]);
    assert_eq!(code, 0);
    assert!(err.contains("nothing was checked"), "{err}");
    assert!(!err.contains("run with --verbose"), "{err}");
    // A broken file that declares itself a spec is RL001, exit 2.
    let (code, out, _) = retrylint(&["check", "fixtures/unlisted/broken-spec.txt"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("RL001"), "{out}");
}

#[cfg(unix)]
#[test]
fn devices_named_on_the_command_line_are_rl001() {
    for device in ["/dev/null", "/dev/zero"] {
        let (code, out, _) = retrylint(&["check", device]);
        assert_eq!(code, 2, "{device}: {out}");
        assert!(out.contains("not a regular file"), "{device}: {out}");
    }
}

/// `retrylint ARGS` run in `dir` (relative to the repository).
fn retrylint_in(dir: &str, args: &[&str]) -> (i32, String, String) {
    common::retrylint_in(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir),
        args,
    )
}

#[test]
fn plan_without_required_inputs_names_the_missing_flags() {
    // Was: exit 0 with `stop: invalid-attempt`.
    let (code, out, err) = retrylint(&["plan", "--method", "GET", "--status", "503"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.is_empty(), "{out}");
    for flag in ["--attempt", "--now-ms", "--deadline-ms"] {
        assert!(err.contains(flag), "{flag} not named: {err}");
    }
    assert!(!err.contains("\n  --method"), "given, not missing: {err}");
    // Neither a status nor a transport error.
    let (code, _, err) = retrylint(&[
        "plan",
        "--method",
        "GET",
        "--attempt",
        "0",
        "--now-ms",
        "0",
        "--deadline-ms",
        "100",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--status"), "{err}");
    // Policy mode needs a signal.
    let (code, _, err) = retrylint(&[
        "plan",
        "--policy",
        "fixtures/simulate/full.retry-policy.yaml",
        "--operation",
        "getReport",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--signal"), "{err}");
    // --help says which inputs are required.
    let (_, help, _) = retrylint(&["plan", "--help"]);
    assert!(
        help.contains("Required without --input or --policy"),
        "{help}"
    );
}

#[test]
fn plan_answers_not_retried_for_retry_false() {
    let (code, out, err) = retrylint_in(
        "fixtures/plan/sibling",
        &[
            "plan",
            "--policy",
            "catalog.retry-policy.yaml",
            "--operation",
            "createDeployment",
            "--signal",
            "503",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), r#"{"retry":false,"reason":"not-retried"}"#);
}

#[test]
fn plan_and_simulate_resolve_among_the_governed_documents_only() {
    // `old/catalog.yaml` beside the policy also has `GET /catalog`; the policy's
    // `spec:` names `api/catalog.yaml` only.
    let (code, out, err) = retrylint_in(
        "fixtures/plan/sibling",
        &[
            "simulate",
            "--policy",
            "catalog.retry-policy.yaml",
            "--operation",
            "GET /catalog",
            "--clients",
            "10",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("GET /catalog (client layer), 10 clients"),
        "{out}"
    );
    let (code, out, err) = retrylint(&[
        "plan",
        "--policy",
        "fixtures/plan/sibling/catalog.retry-policy.yaml",
        "--operation",
        "GET /catalog",
        "--signal",
        "503",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(r#""retry":true"#), "{out}");
}

/// `--policy` naming a folder says so, not that the file does not exist (a user
/// who passed `deploy` for `deploy/x.retry-policy.yaml` looked for a missing file).
#[test]
fn a_policy_that_is_a_folder_is_named_as_one() {
    for (command, extra) in [
        ("simulate", &[][..]),
        ("plan", &["--signal", "timeout"][..]),
    ] {
        let run = |policy: &str| {
            let mut args = vec![command, "--policy", policy, "--operation", "getReport"];
            args.extend_from_slice(extra);
            retrylint(&args)
        };
        let (code, _, err) = run("fixtures/simulate");
        assert_eq!(code, 2, "{command}: {err}");
        assert!(
            err.contains("`fixtures/simulate` is a directory, not a policy file"),
            "{command}: {err}"
        );
        let (code, _, err) = run("fixtures/simulate/nothere.retry-policy.yaml");
        assert_eq!(code, 2, "{command}: {err}");
        assert!(err.contains("does not exist"), "{command}: {err}");
    }
}

/// A status outside 100-599 is no HTTP status (RFC 9110 §15): refused as a usage
/// error, not planned for.
#[test]
fn plan_refuses_a_status_outside_the_http_classes() {
    let plan = |status: &str| {
        retrylint(&[
            "plan",
            "--method",
            "GET",
            "--status",
            status,
            "--attempt",
            "0",
            "--now-ms",
            "0",
            "--deadline-ms",
            "10000",
        ])
    };
    for status in ["999", "42", "600"] {
        let (code, _, err) = plan(status);
        assert_eq!(code, 2, "{status}: {err}");
        assert!(
            err.contains(&format!("invalid value '{status}' for '--status")),
            "{status}: {err}"
        );
    }
    let (code, out, err) = plan("503");
    assert_eq!(code, 0, "{err}");
    assert!(!out.is_empty());
}

/// `check --diff` refused by an unreadable file names it, with its position, as
/// `check` would: "a file could not be read" alone left the user to guess which.
#[test]
fn diff_refused_by_an_unreadable_file_names_it() {
    let (code, out, err) = retrylint(&["check", "--diff", "fixtures/no-such-spec.yaml"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("retrylint: fixtures/no-such-spec.yaml:1:1: `fixtures/no-such-spec.yaml` could not be read"),
        "{err}"
    );
}

#[test]
fn an_ambiguous_selector_names_the_files() {
    for command in [
        &[
            "simulate",
            "--policy",
            "catalog.retry-policy.yaml",
            "--operation",
            "GET /catalog",
        ][..],
        &[
            "plan",
            "--policy",
            "catalog.retry-policy.yaml",
            "--operation",
            "GET /catalog",
            "--signal",
            "503",
        ][..],
    ] {
        let (code, out, err) = retrylint_in("fixtures/plan/two-catalogs", command);
        assert_eq!(code, 2, "{out}");
        assert!(
            err.contains("`GET /catalog` matches 2 operations (GET /catalog in `a/catalog.yaml`, GET /catalog in `b/catalog.yaml`)"),
            "{err}"
        );
    }
}

#[test]
fn unknown_selectors_get_a_did_you_mean_in_plan_and_simulate() {
    let cases = [
        ("CreateDeployment", "createDeployment"),
        ("POST /transfer", "POST /transfers"),
        ("GET /reports", "GET /reports/"),
        ("GET /catalog/", "GET /catalog"),
    ];
    for (given, meant) in cases {
        let (code, _, err) = retrylint_in(
            "fixtures/plan/sibling",
            &[
                "simulate",
                "--policy",
                "catalog.retry-policy.yaml",
                "--operation",
                given,
            ],
        );
        assert_eq!(code, 2);
        assert!(
            err.contains(&format!("did you mean `{meant}`?")),
            "{given}: {err}"
        );
        assert!(err.contains("(`api/catalog.yaml`)"), "{err}");
        let (code, _, err) = retrylint_in(
            "fixtures/plan/sibling",
            &[
                "plan",
                "--policy",
                "catalog.retry-policy.yaml",
                "--operation",
                given,
                "--signal",
                "503",
            ],
        );
        assert_eq!(code, 2);
        assert!(
            err.contains(&format!("did you mean `{meant}`?")),
            "{given}: {err}"
        );
    }
    let (_, _, err) = retrylint_in(
        "fixtures/plan/sibling",
        &[
            "simulate",
            "--policy",
            "catalog.retry-policy.yaml",
            "--operation",
            "deleteEverything",
        ],
    );
    assert!(!err.contains("did you mean"), "{err}");
}

/// `(code, message, help)` of every finding of `check --format json PATH`.
fn json_findings(path: &str) -> Vec<(String, String, String)> {
    let (_, out, err) = retrylint(&["check", path, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
    v["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap_or_default().to_string();
            (s("code"), s("message"), s("help"))
        })
        .collect()
}

#[test]
fn rl006_says_did_you_mean() {
    let found = json_findings("fixtures/policy/did-you-mean");
    let rl006: Vec<(&str, &str)> = found
        .iter()
        .filter(|(c, _, _)| c == "RL006")
        .map(|(_, m, h)| (m.as_str(), h.as_str()))
        .collect();
    let expect = [
        ("CreateDeployment", Some("createDeployment")),
        ("POST /transfer", Some("POST /transfers")),
        ("GET /reports", Some("GET /reports/")),
        ("GET /catalog/", Some("GET /catalog")),
        ("deleteEverything", None),
    ];
    assert_eq!(rl006.len(), expect.len(), "{found:?}");
    for ((message, help), (selector, meant)) in rl006.iter().zip(expect) {
        assert!(
            message.starts_with(&format!("selector `{selector}` matches no operation")),
            "{message}"
        );
        match meant {
            Some(m) => assert!(help.starts_with(&format!("did you mean `{m}`?")), "{help}"),
            None => assert!(!help.contains("did you mean"), "{help}"),
        }
    }
}

#[test]
fn a_misspelled_key_is_reported_once_not_on_every_operation() {
    let found = json_findings("fixtures/policy/typo-cascade");
    let codes: Vec<&str> = found.iter().map(|(c, _, _)| c.as_str()).collect();
    // One RL005 per typo (9), with its "did you mean".
    let typos: Vec<&str> = found
        .iter()
        .filter(|(c, _, _)| c == "RL005")
        .map(|(_, m, _)| m.as_str())
        .collect();
    assert_eq!(typos.len(), 9, "{found:?}");
    for (_, m, h) in found.iter().filter(|(c, _, _)| c == "RL005") {
        assert!(m.starts_with("unknown key"), "{m}");
        assert!(h.starts_with("did you mean"), "{h}");
    }
    // Nothing that only follows from the misspelled keys being missing: attempts
    // (RL302), deadline (RL301), backoff.jitter (RL305), retry_after (RL306),
    // retry_after.on_invalid (RL307), on_unknown_result (RL401), the key header
    // (RL201), on_concurrent (RL203), effect (RL101).
    for code in [
        "RL101", "RL201", "RL203", "RL301", "RL302", "RL305", "RL306", "RL307", "RL401",
    ] {
        assert!(!codes.contains(&code), "{code} cascaded: {found:?}");
    }
    // A finding that does not follow from a typo stays: two layers retry (RL311).
    assert!(codes.contains(&"RL311"), "{found:?}");
    assert_eq!(codes.len(), 10, "{found:?}");
}

/// RL005 messages and the codes of every finding of the fixture directory `path`.
fn rl005_and_codes(path: &str) -> (Vec<String>, Vec<String>) {
    let found = json_findings(path);
    let rl005 = found
        .iter()
        .filter(|(c, _, _)| c == "RL005")
        .map(|(_, m, _)| m.clone())
        .collect();
    (rl005, found.into_iter().map(|(c, _, _)| c).collect())
}

#[test]
fn a_rejected_value_is_reported_once_not_as_a_missing_key() {
    // `attempts: 3.0`, `deadline: 5S`: one RL005 each, no "retried without
    // `attempts`" (RL302) or "without a `deadline`" (RL301).
    let (rl005, codes) = rl005_and_codes("fixtures/policy/value-cascade");
    assert_eq!(rl005.len(), 2, "{rl005:?}");
    assert!(
        rl005[0].starts_with("`attempts` must be an integer"),
        "{rl005:?}"
    );
    assert!(
        rl005[1].starts_with("`deadline` `5S` is not a valid duration"),
        "{rl005:?}"
    );
    for code in ["RL301", "RL302"] {
        assert!(
            !codes.contains(&code.to_string()),
            "{code} cascaded: {codes:?}"
        );
    }
    // Findings that do not follow from the bad values stay.
    assert!(codes.contains(&"RL201".to_string()), "{codes:?}");
}

#[test]
fn a_retry_on_of_only_rejected_signals_is_not_also_empty() {
    // `retry_on: ["5xx "]`: one RL005 (the signal), not also "`retry_on` is empty".
    let (rl005, codes) = rl005_and_codes("fixtures/policy/value-cascade-signal");
    assert_eq!(rl005, ["unknown signal `5xx ` in `retry_on`"], "{codes:?}");
    assert_eq!(codes, ["RL005"]);
}

#[test]
fn a_truly_absent_key_is_still_reported() {
    // The same policy without `attempts` and `deadline`: RL301 and RL302 stay.
    let (rl005, codes) = rl005_and_codes("fixtures/policy/value-cascade-absent");
    assert!(rl005.is_empty(), "{rl005:?}");
    for code in ["RL301", "RL302"] {
        assert!(
            codes.contains(&code.to_string()),
            "{code} missing: {codes:?}"
        );
    }
}

#[test]
fn plan_rejects_a_random_unit_outside_the_unit_interval() {
    let args = |u: &str| {
        [
            "plan",
            "--method",
            "GET",
            "--status",
            "503",
            "--attempt",
            "0",
            "--now-ms",
            "0",
            "--deadline-ms",
            "10000",
            "--random-unit",
        ]
        .into_iter()
        .map(str::to_string)
        .chain([u.to_string()])
        .collect::<Vec<_>>()
    };
    for bad in ["1.5", "-0.1", "NaN", "inf", "x"] {
        let a = args(bad);
        let (code, out, err) = retrylint(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(code, 2, "{bad}: {out}{err}");
        assert!(err.contains("--random-unit"), "{bad}: {err}");
        assert!(out.is_empty(), "{bad}: {out}");
    }
    // Both ends of [0, 1] are in the domain (docs/domain.md): full jitter at 1.
    for (good, delay) in [("0", "0"), ("1", "100")] {
        let a = args(good);
        let (code, out, err) = retrylint(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!((code, err.as_str()), (0, ""), "{good}");
        assert_eq!(
            out.trim(),
            format!("retry after {delay} ms (backoff bound 100 ms)")
        );
    }
}

#[test]
fn plan_says_a_lowercase_method_is_another_method() {
    let run = |m: &str| {
        retrylint(&[
            "plan",
            "--method",
            m,
            "--status",
            "503",
            "--attempt",
            "0",
            "--now-ms",
            "0",
            "--deadline-ms",
            "10000",
        ])
    };
    // Case-sensitive (RFC 9110 §9.1): `get` is not `GET`, decided as it is, and said.
    let (code, out, err) = run("get");
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), "stop: unknown-result");
    assert!(
        err.contains("`get` is not a registered method token")
            && err.contains("RFC 9110 §9.1")
            && err.contains("did you mean `GET`?"),
        "{err}"
    );
    // A standard token, or an extension token with no standard spelling: no note.
    for m in ["GET", "POST", "PROPFIND", "frobnicate"] {
        let (code, _, err) = run(m);
        assert_eq!((code, err.as_str()), (0, ""), "{m}");
    }
}

#[test]
fn plan_accepts_a_leap_second() {
    // 23:59:60 is read as the next day's 00:00:00 (Unix time has no leap seconds):
    // 1 s after now (23:59:59).
    let (code, out, err) = retrylint(&[
        "plan",
        "--method",
        "GET",
        "--status",
        "503",
        "--attempt",
        "0",
        "--now-ms",
        "1483228799000",
        "--deadline-ms",
        "1483228900000",
        "--retry-after",
        "Sat, 31 Dec 2016 23:59:60 GMT",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.trim(),
        r#"{"retry":true,"delayMs":1000,"backoffMs":100}"#
    );
}

#[test]
fn plan_reads_a_spec_outside_the_policy_folder() {
    // Was: "matches no operation" (only the policy's own folder was read).
    let (code, out, err) = retrylint(&[
        "plan",
        "--policy",
        "fixtures/plan/outside/policies/catalog.retry-policy.yaml",
        "--operation",
        "listCatalog",
        "--signal",
        "503",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(r#""retry":true"#), "{out}");
}

#[test]
fn plan_attempts_counts_tries_and_max_attempts_counts_retries() {
    let base = [
        "plan",
        "--method",
        "GET",
        "--status",
        "503",
        "--now-ms",
        "0",
        "--deadline-ms",
        "60000",
        "--format",
        "json",
    ];
    for attempt in ["0", "1", "2", "3"] {
        let with = |flag: &str, n: &str| {
            let mut args: Vec<&str> = base.to_vec();
            args.extend(["--attempt", attempt, flag, n]);
            let (code, out, err) = retrylint(&args);
            assert_eq!(code, 0, "{err}");
            out
        };
        assert_eq!(
            with("--attempts", "3"),
            with("--max-attempts", "2"),
            "attempt {attempt}"
        );
    }
    // Three tries: retries 0 and 1 happen, retry 2 would be the fourth try.
    let mut third: Vec<&str> = base.to_vec();
    third.extend(["--attempt", "2", "--attempts", "3"]);
    let (_, out, _) = retrylint(&third);
    assert_eq!(out.trim(), r#"{"retry":false,"reason":"max-attempts"}"#);
    // Both spellings at once is a usage error.
    let mut both: Vec<&str> = base.to_vec();
    both.extend(["--attempt", "0", "--attempts", "3", "--max-attempts", "2"]);
    let (code, _, err) = retrylint(&both);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--max-attempts"), "{err}");
    // --help says which one counts what.
    let (_, help, _) = retrylint(&["plan", "--help"]);
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains("Maximum retries, not counting the first try"),
        "{help}"
    );
    assert!(
        help.contains("`--attempts 3` is `--max-attempts 2`"),
        "{help}"
    );
}

fn plan_methods(operation: &str, signal: &str, attempt: &str) -> serde_json::Value {
    let (code, out, err) = retrylint(&[
        "plan",
        "--policy",
        "fixtures/plan/methods/gateway.retry-policy.yaml",
        "--layer",
        "gateway",
        "--operation",
        operation,
        "--signal",
        signal,
        "--attempt",
        attempt,
        "--format",
        "json",
        "--seed",
        "3",
    ]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn plan_policy_mode_applies_the_methods_filter_and_proportional_jitter() {
    // POST is left out of `methods`: not repeated once sent...
    for signal in ["timeout", "503"] {
        let v = plan_methods("POST /orders", signal, "0");
        assert_eq!(v["reason"], "not-retried", "{signal}: {v}");
    }
    // ...but repeated when it was never sent.
    for signal in ["connect-failure", "reset-before-request"] {
        let v = plan_methods("POST /orders", signal, "0");
        assert_eq!(v["retry"], true, "{signal}: {v}");
    }
    // GET is retried after sending, its delay within ±50% of the backoff (attempt 2:
    // 400 ms -> [200, 600]).
    for signal in ["timeout", "503"] {
        let v = plan_methods("GET /orders", signal, "2");
        assert_eq!(v["backoffMs"], 400, "{v}");
        let delay = v["delayMs"].as_f64().unwrap();
        assert!((200.0..=600.0).contains(&delay), "{delay}");
    }
    // A gRPC status is accepted as a signal (not covered by this `retry_on`).
    assert_eq!(
        plan_methods("GET /orders", "unavailable", "0")["reason"],
        "not-transient"
    );
}

#[test]
fn simulate_runs_a_proportional_jitter_policy() {
    let (code, out, err) = retrylint(&[
        "simulate",
        "--policy",
        "fixtures/plan/methods/gateway.retry-policy.yaml",
        "--layer",
        "gateway",
        "--operation",
        "GET /orders",
        "--clients",
        "200",
        "--outage",
        "1s",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    // The first retries are spread over [50, 150] ms: no lockstep bucket of 200.
    let first: Vec<u64> = v["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["start_ms"].as_u64().unwrap() < 150 && b["retries"].as_u64().unwrap() > 0)
        .map(|b| b["retries"].as_u64().unwrap())
        .collect();
    assert!(first.len() >= 2, "{out}");
    assert!(first.iter().all(|&n| n < 200), "{first:?}");
}

#[test]
fn a_rejected_jitter_is_reported_once_not_as_missing_jitter() {
    // `jitter: {proportinal: 0.5}` and `{proportional: 0}`: one RL005 each, no RL305.
    let (rl005, codes) = rl005_and_codes("fixtures/policy/jitter-cascade");
    assert_eq!(rl005.len(), 2, "{codes:?}");
    assert!(
        rl005[0].starts_with("unknown key `proportinal`"),
        "{rl005:?}"
    );
    assert!(rl005[1].contains("is out of range"), "{rl005:?}");
    assert!(!codes.contains(&"RL305".to_string()), "{codes:?}");
}

/// `simulate` over the three-layer example (client -> gateway -> mesh), with `ARGS`.
fn simulate_layers(args: &[&str]) -> (i32, String, String) {
    simulate_layers_in("fixtures/examples/layers", args)
}

/// `simulate` over the three policies of `dir`, with `ARGS`.
fn simulate_layers_in(dir: &str, args: &[&str]) -> (i32, String, String) {
    let (client, gateway, mesh) = (
        format!("{dir}/client.retry-policy.yaml"),
        format!("{dir}/gateway.retry-policy.yaml"),
        format!("{dir}/mesh.retry-policy.yaml"),
    );
    let mut all = vec![
        "simulate", "--policy", &client, "--policy", &gateway, "--policy", &mesh,
    ];
    all.extend_from_slice(args);
    retrylint(&all)
}

#[test]
fn simulate_runs_the_chain_of_layers_nested() {
    let common = ["--operation", "getPayment", "--seed", "42"];
    // 503s that take 100 ms, a 1 s outage: the README figures.
    let (code, out, err) =
        simulate_layers(&[&common[..], &["--outage", "1s", "--attempt-ms", "100"]].concat());
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("simulate_layers_status", out);
    // A hanging upstream: every layer waits for its attempt timeout.
    let (code, out, err) =
        simulate_layers(&[&common[..], &["--outage", "5s", "--failure", "timeout"]].concat());
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("simulate_layers_timeout", out);
    // One layer alone: today's single-layer report.
    let (code, out, err) =
        simulate_layers(&[&common[..], &["--outage", "1s", "--layer", "mesh"]].concat());
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("simulate_layers_mesh_alone", out);
}

#[test]
fn a_gateway_budget_cuts_the_upstream_load_of_a_long_outage() {
    // The README's figures: the same chain and outage with and without the
    // gateway's 20 % budget (60 s, 503s after 100 ms).
    let args = [
        "--operation",
        "getPayment",
        "--outage",
        "60s",
        "--attempt-ms",
        "100",
        "--seed",
        "42",
    ];
    let (code, plain, err) = simulate_layers(&args);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("simulate_layers_long_outage", plain);
    let (code, budget, err) = simulate_layers_in("fixtures/examples/layers-budget", &args);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("simulate_layers_budget_long_outage", budget);
    assert!(
        plain.contains("upstream attempts  18000 (18.00 per client)"),
        "{plain}"
    );
    assert!(
        !plain.contains("under load"),
        "no budget, no budget bound: {plain}"
    );
    assert!(
        budget.contains("attempts by layer  client 3000, gateway 3700, mesh 11100"),
        "{budget}"
    );
    assert!(
        budget.contains("10.8 under load with the budgets (RL311)"),
        "{budget}"
    );
    assert!(
        budget.contains("budget refused     gateway 2300"),
        "{budget}"
    );
    // The JSON carries the same figures.
    let json = [&args[..], &["--format", "json"]].concat();
    let (_, out, _) = simulate_layers_in("fixtures/examples/layers-budget", &json);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["chain"]["budget_bound"].as_f64(), Some(10.8));
    assert_eq!(v["chain"]["amplification_bound"]["attempts"], 18);
    assert_eq!(v["chain"]["layers"][1]["budget_refused"], 2300);
    assert_eq!(
        v["chain"]["layers"][0].get("budget_refused"),
        None,
        "0 is left out"
    );
    let (_, out, _) = simulate_layers(&json);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["chain"].get("budget_bound"), None);
}

#[test]
fn simulate_measures_amplification_within_the_rl311_bound() {
    for operation in ["getPayment", "createPayment"] {
        for failure in [&["--attempt-ms", "50"][..], &["--failure", "timeout"][..]] {
            let args = [
                &[
                    "--operation",
                    operation,
                    "--outage",
                    "3s",
                    "--format",
                    "json",
                ][..],
                failure,
            ]
            .concat();
            let (code, out, err) = simulate_layers(&args);
            assert_eq!(code, 0, "{err}");
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            let bound = &v["chain"]["amplification_bound"];
            assert_eq!(bound["attempts"], 18, "client 3 x gateway 2 x mesh 3");
            assert_eq!(bound["exact"], true);
            let layers: Vec<&str> = v["chain"]["layers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l["layer"].as_str().unwrap())
                .collect();
            assert_eq!(layers, ["client", "gateway", "mesh"]);
            let measured = v["amplification"].as_f64().unwrap();
            assert!((1.0..=18.0).contains(&measured), "{operation}: {measured}");
            assert_eq!(
                v["total_attempts"], v["chain"]["layers"][2]["attempts"],
                "the upstream receives the mesh's attempts"
            );
        }
    }
}

#[test]
fn simulate_layer_alone_is_the_single_layer_run_and_flags_are_checked() {
    // `--layer client` over the three policies == the client policy alone.
    let alone = retrylint(&[
        "simulate",
        "--policy",
        "fixtures/examples/layers/client.retry-policy.yaml",
        "--operation",
        "getPayment",
        "--format",
        "json",
    ]);
    let picked = simulate_layers(&[
        "--operation",
        "getPayment",
        "--layer",
        "client",
        "--format",
        "json",
    ]);
    assert_eq!(alone.0, 0, "{}", alone.2);
    assert_eq!(alone, picked);
    assert!(!alone.1.contains("\"chain\""), "{}", alone.1);
    // --attempt-ms is the duration of a 503; a hanging upstream has none.
    let (code, _, err) = simulate_layers(&[
        "--operation",
        "getPayment",
        "--failure",
        "timeout",
        "--attempt-ms",
        "100",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--attempt-ms"), "{err}");
    let (code, _, err) = simulate_layers(&["--operation", "getPayment", "--layer", "edge"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown layer `edge`"), "{err}");
}

/// A huge `hedging.attempts` (or `attempts`) must not make `simulate` run for
/// minutes and eat gigabytes: it refuses with exit 2 and says what to lower.
#[test]
fn simulate_refuses_a_run_too_large_instead_of_hanging() {
    let start = std::time::Instant::now();
    let (code, _out, err) = retrylint(&[
        "simulate",
        "--policy",
        "fixtures/simulate/huge-hedging.retry-policy.yaml",
        "--operation",
        "getReport",
        "--failure",
        "timeout",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("hedging.attempts"), "{err}");
    assert!(
        !err.contains("TooManyAttempts"),
        "Display, not Debug: {err}"
    );
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
}

#[test]
fn jobs_outside_one_to_1024_is_refused_with_exit_2() {
    for bad in ["0", "1025", "100000", "many"] {
        let (code, _, err) = retrylint(&["check", "fixtures/examples/shop", "--jobs", bad]);
        assert_eq!(code, 2, "--jobs {bad}");
        assert!(err.contains("--jobs"), "--jobs {bad}: {err}");
    }
    let (code, _, err) = retrylint(&["check", "fixtures/examples/shop", "--jobs", "1024"]);
    assert_eq!(code, 1, "the shop has findings");
    // More threads than cores gain nothing and cost each its start: capped, said.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert_eq!(
        err.trim(),
        format!(
            "retrylint: note: --jobs 1024 is more than the {cores} core(s) here; using {cores}"
        )
    );
    let (code, _, err) = retrylint(&["check", "fixtures/examples/shop", "--jobs", "1"]);
    assert_eq!(code, 1);
    assert!(!err.contains("--jobs"), "{err}");
}

/// The walk honours ignore files as git does: the project's `.gitignore`, the
/// global excludes file that `core.excludesFile` names (any case of the key), and
/// git's default global one (`$XDG_CONFIG_HOME/git/ignore`). Without any of them
/// every spec is linted. (retrylint decides itself whether a global file can apply,
/// to skip the `ignore` crate's costly look-up when none can: both ways must agree.)
#[test]
fn the_walk_honours_project_and_global_gitignores() {
    let base = std::env::temp_dir().join(format!("retrylint-cli-gitignore-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let home = base.join("home");
    let xdg = base.join("xdg");
    let project = base.join("project");
    for d in ["a", "b", "c"] {
        std::fs::create_dir_all(project.join(d)).unwrap();
        std::fs::write(
            project.join(d).join("openapi.yaml"),
            "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /x:\n    get:\n      responses:\n        '429': {description: slow down}\n",
        )
        .unwrap();
    }
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(xdg.join("git")).unwrap();
    let linted = |setup: &dyn Fn()| -> Vec<String> {
        let _ = std::fs::remove_file(home.join(".gitconfig"));
        let _ = std::fs::remove_file(xdg.join("git/ignore"));
        let _ = std::fs::remove_file(project.join(".gitignore"));
        setup();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_retrylint"))
            .args(["check", ".", "--format", "json"])
            .current_dir(&project)
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", &xdg)
            .env_remove("GIT_CONFIG_GLOBAL")
            .env("GIT_CONFIG_SYSTEM", base.join("no-system-gitconfig"))
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut paths: Vec<String> = v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["path"].as_str().unwrap().to_string())
            .collect();
        paths.sort();
        paths.dedup();
        paths
    };
    let all = ["a/openapi.yaml", "b/openapi.yaml", "c/openapi.yaml"];
    // A git configuration that names no excludes file changes nothing.
    let none = linted(&|| std::fs::write(home.join(".gitconfig"), "[user]\n\tname = A\n").unwrap());
    assert_eq!(none, all);
    let project_ignore = linted(&|| std::fs::write(project.join(".gitignore"), "a/\n").unwrap());
    assert_eq!(project_ignore, ["b/openapi.yaml", "c/openapi.yaml"]);
    let global = linted(&|| {
        std::fs::write(base.join("global-ignore"), "b/\n").unwrap();
        std::fs::write(
            home.join(".gitconfig"),
            format!(
                "[core]\n\tExcludesFile = {}\n",
                base.join("global-ignore").display()
            ),
        )
        .unwrap();
    });
    assert_eq!(global, ["a/openapi.yaml", "c/openapi.yaml"]);
    let default_file = linted(&|| std::fs::write(xdg.join("git/ignore"), "c/\n").unwrap());
    assert_eq!(default_file, ["a/openapi.yaml", "b/openapi.yaml"]);
    let _ = std::fs::remove_dir_all(&base);
}

/// A run that finds nothing to check (an empty folder, a folder of other files)
/// exits 0, as documented, but says so on standard error, so a CI step pointed at
/// the wrong folder does not pass unnoticed; a run that checked something does not.
#[test]
fn a_run_that_finds_nothing_to_check_says_so() {
    let dir = std::env::temp_dir().join(format!("retrylint-cli-nothing-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("empty")).unwrap();
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    std::fs::write(dir.join("docs/notes.yaml"), "title: not a spec\n").unwrap();
    for folder in ["empty", "docs"] {
        for format in ["human", "json", "sarif"] {
            let (code, _, err) = common::retrylint_in(&dir, &["check", folder, "--format", format]);
            assert_eq!(code, 0, "{folder} {format}: {err}");
            assert!(
                err.contains("nothing was checked"),
                "{folder} {format}: {err}"
            );
        }
    }
    let (code, _, err) = retrylint(&["check", "fixtures/examples/shop"]);
    assert_eq!(code, 1);
    assert!(!err.contains("nothing was checked"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--write-baseline -` is refused (exit 2): standard output carries the report, and a
/// file named `-` is what it used to write.
#[test]
fn write_baseline_to_standard_output_is_refused() {
    let (code, out, err) = retrylint(&["check", "fixtures/examples/shop", "--write-baseline", "-"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--write-baseline"), "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(!std::path::Path::new("-").exists());
}

/// `check --statistics` counts, per rule and severity, exactly the findings the
/// JSON report lists, most first, and keeps the exit code of the run without it.
/// The shop example has a rule (RL306) with findings of two severities.
#[test]
fn statistics_count_the_findings_of_the_report_per_rule() {
    let dir = "fixtures/examples/shop";
    let (code, json, _) = retrylint(&["check", dir, "--format", "json"]);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let mut expected: std::collections::BTreeMap<(String, String), u64> = Default::default();
    for d in report["diagnostics"].as_array().unwrap() {
        let key = (
            d["code"].as_str().unwrap().to_owned(),
            d["severity"].as_str().unwrap().to_owned(),
        );
        *expected.entry(key).or_default() += 1;
    }
    let codes: std::collections::BTreeSet<&String> = expected.keys().map(|(c, _)| c).collect();
    assert!(
        codes.len() < expected.len(),
        "a rule with two severities: {expected:?}"
    );
    let (stats_code, stats, _) = retrylint(&["check", dir, "--statistics", "--format", "json"]);
    assert_eq!(stats_code, code);
    let stats: Vec<serde_json::Value> = serde_json::from_str(&stats).unwrap();
    let counted: std::collections::BTreeMap<(String, String), u64> = stats
        .iter()
        .map(|s| {
            (
                (
                    s["code"].as_str().unwrap().to_owned(),
                    s["severity"].as_str().unwrap().to_owned(),
                ),
                s["count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(counted.len(), stats.len(), "one row per rule and severity");
    assert_eq!(counted, expected);
    let counts: Vec<u64> = stats.iter().map(|s| s["count"].as_u64().unwrap()).collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]), "{counts:?}");
    // The human table: one line per row, then the usual summary line.
    let (human_code, human, _) = retrylint(&["check", dir, "--statistics"]);
    assert_eq!(human_code, code);
    let lines: Vec<&str> = human.lines().collect();
    assert_eq!(lines.len(), expected.len() + 2, "{human}");
    assert!(
        lines[0].trim_start().starts_with(&counts[0].to_string()),
        "{human}"
    );
    assert!(
        lines.last().unwrap().contains("OpenAPI document"),
        "{human}"
    );
    // Formats made for each finding refuse it before reading anything.
    let (code, _, err) = retrylint(&["check", dir, "--statistics", "--format", "sarif"]);
    assert_eq!(code, 2);
    assert!(err.contains("--statistics works with"), "{err}");
    // --show-suppressed still lists what suppressions hid: before the summary, or on
    // standard error beside JSON (it was dropped).
    let used = "fixtures/rules/RL010-unused-suppression/clean-used-spec";
    let (_, out, _) = retrylint(&["check", used, "--statistics", "--show-suppressed"]);
    assert!(out.contains("suppressed RL501"), "{out}");
    let (_, out, err) = retrylint(&[
        "check",
        used,
        "--statistics",
        "--show-suppressed",
        "--format",
        "json",
    ]);
    assert!(err.contains("suppressed RL"), "{err}");
    assert!(!out.contains("suppressed RL"), "{out}");
    // --diff prints fixes, not findings: the two are refused together.
    let (code, out, err) = retrylint(&["check", dir, "--statistics", "--diff"]);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("cannot be used with"), "{err}");
}
