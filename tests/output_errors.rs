//! Every subcommand when its standard output cannot be written (issue 43): a full
//! disk (`/dev/full`) is exit 2 with one line naming standard output and the OS
//! error; a closed pipe ends quietly with the run's own exit code. Never a panic
//! (exit 101). The subcommands are read from the clap definition, so a new one
//! fails [`every_subcommand_is_run`] until it has a run here.

#![allow(clippy::disallowed_macros)] // output for the reader (clippy.toml)

use clap::CommandFactory;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Frames of an LSP session that initializes, shuts down and exits: the server
/// writes its answers to standard output.
fn lsp_session() -> Vec<u8> {
    let messages = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}"#,
        r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#,
        r#"{"jsonrpc":"2.0","method":"exit"}"#,
    ];
    messages
        .iter()
        .map(|m| format!("Content-Length: {}\r\n\r\n{m}", m.len()))
        .collect::<String>()
        .into_bytes()
}

/// A run of each subcommand (its name first) that writes to standard output, and
/// the standard input it reads.
fn runs() -> Vec<(Vec<&'static str>, Vec<u8>)> {
    let shop = "fixtures/examples/shop";
    let plain = |args: &[&'static str]| (args.to_vec(), Vec::new());
    vec![
        plain(&["check", shop]),
        plain(&["check", shop, "--format", "json"]),
        plain(&["check", shop, "--format", "sarif", "-o", "-"]),
        plain(&["rules"]),
        plain(&["rules", "--json"]),
        plain(&["rules", "--markdown"]),
        plain(&["readiness", shop]),
        plain(&["rule", "RL201"]),
        plain(&[
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
        ]),
        plain(&[
            "simulate",
            "--policy",
            "fixtures/examples/shop/shop.retry-policy.yaml",
            "--operation",
            "POST /orders",
            "--clients",
            "10",
        ]),
        plain(&[
            "import",
            "fixtures/examples/platform/deploy/envoy/envoy.yaml",
        ]),
        plain(&["init", "fixtures/examples/shop/openapi.yaml", "-o", "-"]),
        plain(&["layers", "POST /orders", shop]),
        plain(&["report", shop, "-o", "-"]),
        plain(&["diff", shop, shop]),
        plain(&["schema"]),
        (vec!["lsp"], lsp_session()),
        plain(&["completions", "bash"]),
        // A client from Python's standard library: one POST, answered 400, not retried.
        plain(&[
            "probe",
            "--operation",
            "POST /orders",
            "--scenario",
            "client-error",
            "--",
            "python3",
            "-c",
            "import os, urllib.request as r\ntry: r.urlopen(os.environ['RETRYLINT_BASE_URL'] + '/orders', data=b'{}')\nexcept Exception: pass",
        ]),
        plain(&["help"]),
        plain(&["--help"]),
        plain(&["--version"]),
    ]
}

/// Runs `retrylint ARGS` in the repository with `stdout`, feeding `input`.
fn run(args: &[&str], input: &[u8], stdout: impl Into<Stdio>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().unwrap();
    // A command that reads no input may be gone before this is written.
    let _ = stdin.write_all(input);
    drop(stdin);
    child.wait_with_output().unwrap()
}

#[test]
fn every_subcommand_is_run() {
    let runs = runs();
    let cli = retrylint::cli::Cli::command();
    for sub in cli.get_subcommands() {
        let name = sub.get_name();
        assert!(
            runs.iter().any(|(args, _)| args[0] == name),
            "`retrylint {name}` has no run in tests/output_errors.rs"
        );
    }
}

#[test]
fn a_full_disk_is_exit_2_with_one_line_never_a_panic() {
    if !Path::new("/dev/full").exists() {
        eprintln!("no /dev/full here: nothing checked");
        return;
    }
    for (args, input) in runs() {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = run(&args, &input, full);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        let said: Vec<&str> = err
            .lines()
            .filter(|l| l.contains("standard output"))
            .collect();
        assert_eq!(
            said,
            ["retrylint: cannot write to standard output: No space left on device"],
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_closed_pipe_ends_quietly_with_the_runs_own_exit_code() {
    for (args, input) in runs() {
        let (reader, writer) = std::io::pipe().unwrap();
        // No reader: the first write fails with EPIPE.
        drop(reader);
        let out = run(&args, &input, writer);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!err.contains("standard output"), "{args:?}: {err}");
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            let sigpipe = 13;
            if out.status.signal() == Some(sigpipe) {
                continue;
            }
        }
        let code = out.status.code();
        assert!(matches!(code, Some(0 | 1)), "{args:?}: {code:?} {err}");
    }
}

/// The exit code a closed pipe keeps is the run's: the shop has findings (1), its
/// rule list none (0).
#[test]
fn a_closed_pipe_keeps_the_findings_exit_code() {
    for (args, expected) in [
        (&["check", "fixtures/examples/shop"][..], 1),
        (&["rules"][..], 0),
    ] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = run(args, b"", writer);
        assert_eq!(out.status.code(), Some(expected), "{args:?}");
        assert!(out.stderr.is_empty(), "{args:?}");
    }
}

/// `-o FILE` on a full disk names the file, and leaves no temporary file.
#[test]
fn an_output_file_that_cannot_be_written_is_exit_2_naming_it() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    // A device is written in place (not replaced by a renamed temporary file).
    let out = run(
        &["check", "fixtures/examples/shop", "-o", "/dev/full"],
        b"",
        Stdio::null(),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(
        err.trim(),
        "retrylint: cannot write the report: /dev/full: No space left on device"
    );
}

/// `-o -` is standard output for every command that has `-o` (`report` wrote a file
/// named `-`).
#[test]
fn dash_is_standard_output_for_every_o_flag() {
    let dir = tempfile::tempdir().unwrap();
    let shop = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/examples/shop");
    let shop = shop.to_str().unwrap();
    let spec = format!("{shop}/openapi.yaml");
    for args in [
        vec!["check", shop, "-o", "-"],
        vec!["readiness", shop, "-o", "-"],
        vec!["report", shop, "-o", "-"],
        vec!["diff", shop, shop, "-o", "-"],
        vec!["init", &spec, "-o", "-"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_retrylint"))
            .args(&args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(!out.stdout.is_empty(), "{args:?}");
        assert!(!dir.path().join("-").exists(), "{args:?} wrote a file `-`");
    }
    let cli = retrylint::cli::Cli::command();
    let with_o: Vec<&str> = cli
        .get_subcommands()
        .filter(|s| s.get_arguments().any(|a| a.get_short() == Some('o')))
        .map(|s| s.get_name())
        .collect();
    assert_eq!(with_o, ["check", "readiness", "init", "report", "diff"]);
}
