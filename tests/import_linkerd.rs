//! End to end over the Linkerd cases of `fixtures/cases/retry-configs/` (copies of
//! the shared acceptance cases 06 and 07): `retrylint check` on each folder, human
//! output, as a snapshot, with the findings the case README expects asserted.

mod common;

use std::path::PathBuf;

fn case(name: &str) -> (i32, String) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/cases/retry-configs");
    let (code, out, err) = common::retrylint_in(&dir, &["check", name]);
    (code, format!("exit {code}\n{out}{err}"))
}

#[test]
fn case06_linkerd_annotations() {
    let (code, out) = case("06-linkerd-annotations");
    assert_eq!(code, 1, "{out}");
    for needle in [
        "RL201",
        "route.yaml:8:5",
        "RL306",
        "RL016",
        "route.yaml:44:13",
    ] {
        assert!(out.contains(needle), "{needle} missing:\n{out}");
    }
    for absent in [
        "RL301", "RL309", "RL312", "RL303", "RL305", "RL401", "RL402", "RL001", "RL014",
    ] {
        assert!(!out.contains(absent), "{absent} fired:\n{out}");
    }
    insta::assert_snapshot!(out);
}

#[test]
fn case07_linkerd_serviceprofile() {
    let (code, out) = case("07-linkerd-serviceprofile");
    assert_eq!(code, 1, "{out}");
    for needle in [
        "RL308",
        "service-profile.yaml:25:7",
        "service-profile.yaml:37:7",
        "RL306",
    ] {
        assert!(out.contains(needle), "{needle} missing:\n{out}");
    }
    for absent in ["RL201", "RL101", "RL401", "RL402", "RL016", "RL103"] {
        assert!(!out.contains(absent), "{absent} fired:\n{out}");
    }
    insta::assert_snapshot!(out);
}
