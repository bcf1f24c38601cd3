//! `fixtures/examples/code`: an application repository with a spec in `api/` and
//! retry clients in three languages under `services/` (the README's "Retries in
//! code" example). The Python client retries the payment capture on every method
//! without a key (RL201), the Go client waits 5 ns between retries (RL017), and
//! the TypeScript client retries `POST /orders` with one key per order: no RL201,
//! and no contract finding about a key the code sends (RL203 is the spec's).

#![allow(clippy::disallowed_macros)] // output for the reader (clippy.toml)

mod common;

use common::findings;

use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/examples/code")
}

#[test]
fn example_code() {
    let (code, out, err) = common::retrylint_in(&root(), &["check", "."]);
    assert_eq!(code, 1, "{err}");
    let got = findings(&out);
    assert!(
        got.contains(&"RL201 services/billing/payments.py:7:63".to_string()),
        "{got:#?}"
    );
    assert!(
        got.contains(&"RL017 services/ledger/client.go:12:19".to_string()),
        "{got:#?}"
    );
    assert!(
        !out.contains("RL201 unprotected-retry\n\n  × `POST /orders`"),
        "{out}"
    );
    assert!(!got.iter().any(|g| g.starts_with("RL203")), "{got:#?}");
    // The call each client finding is about is labelled.
    assert!(out.contains("POST /payments is called here"), "{out}");
    insta::assert_snapshot!("example_code", out);
}

#[test]
fn example_code_import_and_layers() {
    let (code, out, err) = common::retrylint_in(
        &root(),
        &["import", "--root", ".", "services/billing/payments.py"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("POST /payments:"), "{out}");
    assert!(out.contains("attempts: 4"), "{out}");
    let (code, out, err) = common::retrylint_in(&root(), &["layers", "POST /orders"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("client layer: got"), "{out}");
    assert!(out.contains("services/web/orders.ts"), "{out}");
}

/// Pre-commit on one changed client file: the project's spec binds it, the other
/// clients' own findings are not reported (they were not changed), and the exit
/// code is the named file's.
#[test]
fn example_code_one_changed_file() {
    let tmp = std::env::temp_dir().join(format!("retrylint-example-code-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let mut stack = vec![root()];
    while let Some(from) = stack.pop() {
        for e in std::fs::read_dir(&from).unwrap() {
            let path = e.unwrap().path();
            let to = tmp.join(path.strip_prefix(root()).unwrap());
            if path.is_dir() {
                stack.push(path);
            } else {
                std::fs::create_dir_all(to.parent().unwrap()).unwrap();
                std::fs::copy(&path, &to).unwrap();
            }
        }
    }
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&tmp)
        .status();
    if !git.is_ok_and(|s| s.success()) {
        eprintln!("git is not available: skipped");
        let _ = std::fs::remove_dir_all(&tmp);
        return;
    }
    let (code, out, err) = common::retrylint_in(&tmp, &["check", "services/ledger/client.go"]);
    let _ = std::fs::remove_dir_all(&tmp);
    assert_eq!(code, 1, "{err}");
    let got = findings(&out);
    assert!(
        got.contains(&"RL017 services/ledger/client.go:12:19".to_string()),
        "{got:#?}"
    );
    assert!(
        got.iter().all(|g| g.contains("services/ledger/client.go")),
        "only the named file's clients: {got:#?}"
    );
}
