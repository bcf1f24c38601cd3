//! A file reached by several named paths (`X ./X`, `X $(pwd)/X`, `. X`,
//! `X ./X ../shop/X`) is one input: read once, counted once, its operations once, in
//! every command. And a YAML/JSON file over `--max-file-size`, which the walk would
//! classify by its content, is RL001 "larger than the limit" (exit 2), never skipped
//! as "neither an OpenAPI document ...".

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// A temporary folder, removed on drop.
struct Temp(PathBuf);

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp(name: &str) -> Temp {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "retrylint-one-file-{}-{}-{}",
        name,
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("mkdir");
    Temp(std::fs::canonicalize(&dir).expect("canonical"))
}

/// A copy of `fixtures/examples/shop` in `<temp>/shop`.
fn shop() -> (Temp, PathBuf) {
    let t = temp("shop");
    let dir = t.0.join("shop");
    std::fs::create_dir_all(&dir).expect("mkdir");
    for name in ["openapi.yaml", "shop.retry-policy.yaml"] {
        std::fs::copy(fixtures().join("examples/shop").join(name), dir.join(name)).expect("copy");
    }
    (t, dir)
}

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run retrylint")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The readiness summary line's operation count: "(N operations)".
fn operations(o: &Output) -> usize {
    let text = stdout(o);
    let at = text
        .find(" operations)")
        .unwrap_or_else(|| panic!("no operation count in: {text}"));
    let digits: String = text[..at]
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    digits.parse().expect("a count")
}

#[test]
fn readiness_counts_a_file_named_twice_once() {
    let (_t, dir) = shop();
    let once = run(&dir, &["readiness", "openapi.yaml"]);
    let n = operations(&once);
    assert_eq!(n, 7, "{}", stdout(&once));
    let abs = dir.join("openapi.yaml");
    let abs = abs.to_str().expect("utf-8 temp path");
    for args in [
        &["readiness", ".", "openapi.yaml"][..],
        &["readiness", "openapi.yaml", "./openapi.yaml"],
        &["readiness", "openapi.yaml", abs],
        &["readiness", "openapi.yaml", "../shop/openapi.yaml"],
    ] {
        let o = run(&dir, args);
        assert_eq!(operations(&o), n, "{args:?}: {}", stdout(&o));
        // Each row once, under the name it is known by alone.
        assert_eq!(
            stdout(&o).matches("GET /orders").count(),
            stdout(&once).matches("GET /orders").count(),
            "{args:?}: {}",
            stdout(&o)
        );
        assert_eq!(o.status.code(), once.status.code(), "{args:?}");
    }
}

#[test]
fn layers_shows_an_operation_of_a_file_named_twice_once() {
    let (_t, dir) = shop();
    let once = run(&dir, &["layers", "listOrders", "openapi.yaml"]);
    let twice = run(
        &dir,
        &["layers", "listOrders", "openapi.yaml", "./openapi.yaml"],
    );
    assert!(
        stdout(&once).contains("listOrders") || stdout(&once).contains("/orders"),
        "{}",
        stdout(&once)
    );
    assert_eq!(stdout(&twice), stdout(&once));
    assert_eq!(twice.status.code(), once.status.code());
}

#[test]
fn check_counts_a_file_named_three_ways_as_one_document() {
    let (_t, dir) = shop();
    let o = run(
        &dir,
        &[
            "check",
            "openapi.yaml",
            "./openapi.yaml",
            "../shop/openapi.yaml",
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let all = format!("{}{}", stdout(&o), err);
    assert!(
        all.contains("1 OpenAPI document"),
        "expected one document checked: {all}"
    );
    assert!(!all.contains("3 OpenAPI documents"), "{all}");
    let once = run(&dir, &["check", "openapi.yaml"]);
    assert_eq!(stdout(&o), stdout(&once));
    assert_eq!(o.status.code(), once.status.code());
}

#[test]
fn oversized_retry_configs_are_rl001_not_skipped() {
    let t = temp("size");
    std::fs::copy(
        fixtures().join("cases/retry-configs/01-istio-retry-5xx/virtual-service.yaml"),
        t.0.join("vs.yaml"),
    )
    .expect("copy");
    std::fs::copy(
        fixtures().join("cases/90-envoy-retriable-headers/envoy.yaml"),
        t.0.join("envoy.yaml"),
    )
    .expect("copy");
    for name in ["vs.yaml", "envoy.yaml"] {
        let size = std::fs::metadata(t.0.join(name)).expect("size").len();
        assert!(size > 200, "{name} must be over the limit used below");
    }
    let o = run(
        &t.0,
        &[
            "check",
            ".",
            "--max-file-size",
            "200",
            "-v",
            "--format",
            "json",
        ],
    );
    let out = stdout(&o);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
    assert!(!err.contains("neither an OpenAPI document"), "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).expect("json");
    let rl001: Vec<String> = json["diagnostics"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .filter(|d| d["code"] == "RL001")
        .map(|d| d.to_string())
        .collect();
    assert_eq!(rl001.len(), 2, "{out}");
    for name in ["vs.yaml", "envoy.yaml"] {
        assert!(
            rl001
                .iter()
                .any(|d| d.contains(name) && d.contains("larger than the limit")),
            "{name}: no RL001 larger than the limit: {out}"
        );
    }
}
