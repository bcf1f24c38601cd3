//! Retry clients in code as layers: clients that call the same operation from
//! different services are alternatives (variants: each judged on its own, never
//! multiplied with each other), while a
//! decorator around a call made through a retrying session stacks on it (two
//! layers, RL311, attempts multiply).

mod common;

use std::path::PathBuf;

fn dir(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn codes(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| {
            l.len() > 5 && l.starts_with("RL") && l[2..5].bytes().all(|b| b.is_ascii_digit())
        })
        .map(|l| l[..5].to_string())
        .collect()
}

#[test]
fn clients_of_two_services_are_variants_not_layers() {
    let root = dir("fixtures/code/layers/alternatives");
    let (code, out, err) = common::retrylint_in(&root, &["check", "."]);
    assert_eq!(code, 1, "{err}");
    let got = codes(&out);
    assert!(!got.contains(&"RL311".to_string()), "{out}");
    // Each caller is judged: an RL201 at each client, not only the first one found.
    assert_eq!(got.iter().filter(|c| *c == "RL201").count(), 2, "{out}");
    assert!(out.contains("svc_a/client.py:6:51"), "{out}");
    assert!(out.contains("svc_b/client.ts:3:16"), "{out}");
    let (code, out, err) = common::retrylint_in(&root, &["layers", "POST /orders"]);
    assert_eq!(code, 0, "{err}");
    // One path per caller, each with its one client layer.
    assert!(
        out.contains("path 1 of 2: client `svc_a/client.py`"),
        "{out}"
    );
    assert!(
        out.contains("path 2 of 2: client `svc_b/client.ts`"),
        "{out}"
    );
    assert!(out.contains("1. client layer"), "{out}");
    assert!(!out.contains("2. client layer"), "{out}");
}

#[test]
fn a_decorator_around_a_retrying_session_stacks_on_it() {
    let root = dir("fixtures/code/layers/stacked");
    let (code, out, err) = common::retrylint_in(&root, &["check", "."]);
    assert_eq!(code, 1, "{err}");
    assert!(codes(&out).contains(&"RL311".to_string()), "{out}");
    let (_, out, err) = common::retrylint_in(&root, &["layers", "POST /orders"]);
    assert!(out.contains("urllib3"), "{out}{err}");
    assert!(out.contains("tenacity"), "{out}");
    assert!(out.contains("3 x 3 = 9"), "{out}");
}
