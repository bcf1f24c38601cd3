//! `retrylint check -`: rendered manifests on standard input (`helm template . |
//! retrylint check -`, `kustomize build | retrylint check -`), over
//! `fixtures/rendered/` (a chart whose Ingress and controller ConfigMap, rendered,
//! re-send a POST of `api/openapi.yaml`; `helm-template.out` and
//! `kustomize-build.out` are what those commands print for it).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn chart() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/rendered/chart")
}

/// Runs the binary in `dir` with `input` on standard input: (exit code, stdout, stderr).
fn run_with_stdin(dir: &Path, args: &[&str], input: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("GITHUB_WORKSPACE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // The binary may stop reading early (input over the limit): a closed pipe is fine.
    let _ = child.stdin.take().expect("stdin").write_all(input);
    let out = child.wait_with_output().expect("the binary ends");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn rendered(name: &str) -> Vec<u8> {
    std::fs::read(chart().join("..").join(name)).expect("a rendered fixture")
}

/// `(code, path, line)` of every finding of the JSON report.
fn findings(out: &str) -> Vec<(String, String, u64)> {
    let v: serde_json::Value = serde_json::from_str(out).expect("a JSON report");
    v["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or_default().to_string(),
                d["path"].as_str().unwrap_or_default().to_string(),
                d["line"].as_u64().unwrap_or_default(),
            )
        })
        .collect()
}

/// Helm's output: each finding names the template (`# Source: nidd/templates/x.yaml`,
/// the chart folder's `templates/x.yaml`) and its line in the rendered document;
/// the objects bind to the folder's spec; the ConfigMap of another template is
/// labelled on RL201.
#[test]
fn helm_template_output_maps_findings_to_the_templates() {
    let (code, out, err) = run_with_stdin(
        &chart(),
        &["check", "--format", "json", "-"],
        &rendered("helm-template.out"),
    );
    assert_eq!(code, 1, "{out}{err}");
    let f = findings(&out);
    assert!(
        f.contains(&("RL201".to_string(), "templates/ingress.yaml".to_string(), 6)),
        "{f:?}"
    );
    assert!(!err.contains("Helm template"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let rl201 = v["diagnostics"]
        .as_array()
        .and_then(|a| a.iter().find(|d| d["code"] == "RL201"))
        .expect("RL201");
    assert_eq!(
        rl201["operations"],
        serde_json::json!(["POST /3gpp-nidd/v1/deliveries"])
    );
    assert!(
        rl201["labels"].as_array().is_some_and(|l| l
            .iter()
            .any(|l| l["path"] == "templates/configmap.yaml" && l["line"] == 7)),
        "{rl201}"
    );
}

/// `kustomize build` writes no `# Source:`: findings name `(stdin).yaml` at the
/// stream's own line.
#[test]
fn kustomize_build_output_points_at_stdin_lines() {
    let input = rendered("kustomize-build.out");
    let (code, out, err) = run_with_stdin(&chart(), &["check", "--format", "json", "-"], &input);
    assert_eq!(code, 1, "{out}{err}");
    let text = String::from_utf8(input).expect("utf-8");
    let line = text
        .lines()
        .position(|l| l.contains("proxy-next-upstream:"))
        .expect("the annotation") as u64
        + 1;
    let f = findings(&out);
    assert!(
        f.contains(&("RL201".to_string(), "(stdin).yaml".to_string(), line)),
        "{f:?}"
    );
}

/// `--max-file-size` applies to standard input: over it, exit 2 and one line.
/// Invalid YAML is RL001 (exit 2); nothing on standard input reads nothing.
#[test]
fn stdin_is_bounded_and_bad_input_does_not_panic() {
    let (code, out, err) = run_with_stdin(
        &chart(),
        &["check", "--max-file-size", "64", "-"],
        &rendered("helm-template.out"),
    );
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("--max-file-size"), "{err}");
    let (code, out, err) = run_with_stdin(&chart(), &["check", "-"], b"kind: [\n");
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.contains("RL001"), "{out}");
    let (code, out, err) = run_with_stdin(&chart(), &["check", "-"], b"\xff\xfe");
    assert_eq!(code, 2, "{out}{err}");
    let (code, out, err) = run_with_stdin(&chart(), &["check", "-"], b"");
    assert_eq!(code, 0, "{out}{err}");
    // A `# Source:` that climbs out of the folder names no file outside it.
    let (code, out, err) = run_with_stdin(
        &chart(),
        &["check", "--format", "json", "-"],
        b"# Source: ../../../outside.yaml\nkind: ConfigMap\n",
    );
    assert!(code == 0 || code == 1, "{out}{err}");
    assert!(!out.contains("outside.yaml"), "{out}");
}

/// The chart's templates themselves are skipped, with one note saying how to read
/// them.
#[test]
fn a_walk_over_helm_templates_says_to_render_them() {
    let (code, out, err) = run_with_stdin(&chart(), &["check", "."], b"");
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(err.matches("Helm templates not read").count(), 1, "{err}");
    assert!(err.contains("helm template . | retrylint check -"), "{err}");
}
