//! Round 3b of the handed cases (issue 43: hostile input), one test each for the
//! cases whose expected result no other test names: 80 (links out of the root), 82
//! (a named config reports its own findings) and 86 (standard output that cannot be
//! written). Cases 81 (`tests/cases.rs`), 83, 84, 85 and 87 (`tests/scaling.rs`) have
//! theirs. The inputs are copies in `fixtures/cases/` or, for the links of case 80,
//! built at test time.

#![allow(clippy::disallowed_macros)] // output for the reader (clippy.toml)
use std::path::{Path, PathBuf};

mod common;

fn case(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/cases")
        .join(name)
}

/// Case 80: `proj/application.yml -> ../secret/dotenv` and `proj/nginx.conf ->
/// ../secret/nginx-secret.conf` are not read by a walk of `proj` (no canary in any
/// format), `--verbose` names both as left out, and the spec's own findings remain.
#[cfg(unix)]
#[test]
fn case80_symlinks_leaving_the_root_are_not_read() {
    use std::os::unix::fs::symlink;
    let dir = std::env::temp_dir().join(format!("retrylint-case80-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (proj, secret) = (dir.join("proj"), dir.join("secret"));
    std::fs::create_dir_all(&proj).unwrap();
    std::fs::create_dir_all(&secret).unwrap();
    std::fs::write(
        secret.join("dotenv"),
        "SECRET_TOKEN=SECRET_CANARY_ENV\nDB_PASSWORD: \"SECRET_CANARY_PW\nresilience4j.retry.instances.pay.maxAttempts=SECRET_CANARY_PROP\n",
    )
    .unwrap();
    std::fs::write(
        secret.join("nginx-secret.conf"),
        "events {}\nhttp {\n upstream b { server 1.1.1.1; server 2.2.2.2; }\n server {\n  server_name orders;\n  location /api/pay { proxy_pass http://b; proxy_next_upstream error timeout non_idempotent; add_header X-Secret SECRET_CANARY_NGX; }\n }\n}\n",
    )
    .unwrap();
    std::fs::write(
        proj.join("openapi.yaml"),
        "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\nservers: [{url: \"http://orders\"}]\npaths:\n  /api/pay:\n    post:\n      operationId: pay\n      responses:\n        \"200\": {description: ok}\n",
    )
    .unwrap();
    symlink("../secret/dotenv", proj.join("application.yml")).unwrap();
    symlink("../secret/nginx-secret.conf", proj.join("nginx.conf")).unwrap();
    for format in ["human", "json", "sarif", "github", "gitlab", "junit"] {
        let (code, out, err) = common::retrylint_in(&dir, &["check", "proj", "--format", format]);
        assert!(code == 0 || code == 1, "{format}: exit {code}\n{err}");
        assert!(
            !format!("{out}{err}").contains("SECRET_CANARY"),
            "{format}:\n{out}{err}"
        );
    }
    let (_, out, err) = common::retrylint_in(&dir, &["check", "proj", "--verbose"]);
    let both = format!("{out}{err}");
    for name in ["application.yml", "nginx.conf"] {
        assert!(
            both.lines()
                .any(|l| l.contains("left out") && l.contains(name)),
            "{name}:\n{both}"
        );
    }
    assert!(
        both.contains("2 paths outside the project root left out"),
        "{both}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Case 82: naming `deploy/vs.yaml` reports the findings of that config (bound to
/// `api/openapi.yaml`, the spec of its host), none of `other/` (another host's spec
/// and an unrelated policy), as a full run reports them for that file.
#[test]
fn case82_a_named_config_reports_its_own_findings() {
    let (code, out, err) = common::retrylint_in(
        &case("82-named-config-scope"),
        &["check", "deploy/vs.yaml", "--root", ".", "--format", "json"],
    );
    assert_eq!(code, 1, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).expect("JSON report");
    let got: Vec<(String, String, u64, u64)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or("").to_string(),
                d["path"].as_str().unwrap_or("").to_string(),
                d["line"].as_u64().unwrap_or(0),
                d["column"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let want: Vec<(String, String, u64, u64)> = [
        ("RL101", 10, 5),
        ("RL301", 10, 5),
        ("RL201", 10, 47),
        ("RL306", 10, 47),
    ]
    .into_iter()
    .map(|(c, l, k)| (c.to_string(), "deploy/vs.yaml".to_string(), l, k))
    .collect();
    assert_eq!(got, want);
}

/// Case 86: each command of the case with standard output on a full disk is exit 2
/// with one line, never a panic; `report -o -` writes standard output, no file `-`.
#[test]
fn case86_a_full_standard_output_is_exit_2_with_one_line() {
    let full = Path::new("/dev/full");
    if !full.exists() {
        eprintln!("no /dev/full here: nothing checked");
        return;
    }
    let dir = case("86-stdout-write-error");
    let runs: &[&[&str]] = &[
        &["import", "vs.yaml"],
        &["rules"],
        &["rules", "--json"],
        &["rules", "--markdown"],
        &["rule", "RL201"],
        &["schema"],
        &["completions", "bash"],
        &["layers", "POST /api/pay", "."],
        &["init", "openapi.yaml", "-o", "-"],
        &[
            "plan",
            "--method",
            "POST",
            "--status",
            "503",
            "--attempt",
            "0",
            "--now-ms",
            "0",
            "--deadline-ms",
            "10000",
        ],
        &["report", ".", "--format", "html", "-o", "-"],
    ];
    for args in runs {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_retrylint"))
            .args(*args)
            .current_dir(&dir)
            .env("NO_COLOR", "1")
            .stdout(std::fs::OpenOptions::new().write(true).open(full).unwrap())
            .output()
            .expect("the binary runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(
            err.lines()
                .filter(|l| l.contains("standard output"))
                .collect::<Vec<_>>(),
            ["retrylint: cannot write to standard output: No space left on device"],
            "{args:?}: {err}"
        );
    }
    assert!(
        !dir.join("-").exists(),
        "`report -o -` wrote a file named `-`"
    );
}
