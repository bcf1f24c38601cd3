//! End to end: `.proto` files in a run. They are read for binding gRPC configs, so a
//! run of protos alone is clean (exit 0, no finding, no "nothing to check" error),
//! and a syntax error is RL001 at its line and column (exit 2) while the other files
//! are still read.

mod common;

use std::path::PathBuf;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/import/proto")
}

#[test]
fn a_folder_of_protos_alone_is_clean() {
    let (code, stdout, stderr) = common::retrylint_in(&fixtures(), &["check", "orders"]);
    assert_eq!(code, 0, "stdout: {stdout}\nstderr: {stderr}");
    assert!(!stdout.contains("RL0"), "{stdout}");
    assert!(stderr.is_empty(), "{stderr}");
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn a_syntax_error_is_rl001_with_its_position() {
    let (code, stdout, stderr) = common::retrylint_in(&fixtures(), &["check", "syntax-error"]);
    assert_eq!(code, 2, "stdout: {stdout}\nstderr: {stderr}");
    assert!(stdout.contains("RL001"), "{stdout}");
    assert!(stdout.contains("broken.proto:7:31"), "{stdout}");
    assert!(!stdout.contains("orders_messages.proto"), "{stdout}");
    insta::assert_snapshot!(format!("exit {code}\n{stdout}"));
}

#[test]
fn a_named_proto_alone_is_clean() {
    // Outside any git work tree, the project of a named file is its folder.
    let dir = std::env::temp_dir().join(format!("retrylint-proto-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for f in [
        "orders/orders_service.proto",
        "orders/orders_messages.proto",
    ] {
        let from = fixtures().join(f);
        std::fs::copy(&from, dir.join(from.file_name().unwrap())).unwrap();
    }
    let (code, stdout, stderr) = common::retrylint_in(&dir, &["check", "orders_service.proto"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 0, "stdout: {stdout}\nstderr: {stderr}");
    assert!(!stdout.contains("RL0"), "{stdout}");
}

#[test]
fn import_of_a_proto_alone_says_what_a_proto_is() {
    let (code, stdout, stderr) =
        common::retrylint_in(&fixtures(), &["import", "orders/orders_service.proto"]);
    assert_eq!(code, 1, "stdout: {stdout}\nstderr: {stderr}");
    assert!(
        stderr.contains("a `.proto` binds gRPC configs to operations"),
        "{stderr}"
    );
}
