//! One read boundary for every read (issue 43, hostile input): a path whose real
//! path leaves the project root is never opened, whoever asks for it, even when it
//! was named on the command line. A project is built at test time in a fresh temporary
//! folder, with a canary string in each file outside the root, reached by every kind
//! of read: walked links to files of every reader (a Spring `application.yml`, an
//! nginx config, an Istio `VirtualService`, an OpenAPI document, a Go sibling), a
//! linked folder, `$ref`s, a policy's `spec:`, an nginx `include`, a Spring property
//! file above the root, `.retrylint.yaml` paths (a `services:` spec, the file itself
//! as a link). `check` runs in every `--format`; no canary may reach standard output
//! or standard error, and `--verbose` lists what was left out. A named link leading
//! out of the project around its name is refused too; with `--root` covering its
//! target it is read (the control that shows the canaries would be seen).
#![cfg(unix)]

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh, empty folder under the system temp dir, unique per test and process.
fn tempdir(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "retrylint-boundary-{}-{}-{name}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Canonical: the paths the tool prints are compared with it.
    std::fs::canonicalize(&dir).unwrap()
}

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn link(dir: &Path, rel: &str, target: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    symlink(target, p).unwrap();
}

/// Every canary of [`hostile_project`]: each in one file outside the root only.
const CANARIES: &[&str] = &[
    "CANARY_WALK_APPLICATION",
    "CANARY_WALK_PASSWORD",
    "CANARY_WALK_PROPERTY",
    "CANARY_WALK_NGINX",
    "CANARY_WALK_VIRTUALSERVICE",
    "CANARY_WALK_OPENAPI",
    "CANARY_LINKED_FOLDER",
    "CANARY_REF_TARGET",
    "CANARY_POLICY_SPEC",
    "CANARY_NGINX_INCLUDE",
    "CANARY_SPRING_ABOVE",
    "48213977",
    "CANARY_GO_SIBLING",
    "CANARY_GO_MOD",
    "CANARY_SERVICES_SPEC",
    "CANARY_CONFIG_LINK",
];

/// `T/secret/` (outside) holds the canaries; `T/proj/` (no git: the path given is
/// the root) reaches each of them; `T/` itself (above the root) holds a Spring
/// property file and a `go.mod`; `T/linkedconf/.retrylint.yaml` is a link out.
fn hostile_project() -> PathBuf {
    let t = tempdir("project");
    // Outside the root.
    write(
        &t,
        "secret/dotenv",
        "SECRET_TOKEN=CANARY_WALK_APPLICATION\nDB_PASSWORD: \"CANARY_WALK_PASSWORD\nresilience4j.retry.instances.pay.maxAttempts=CANARY_WALK_PROPERTY\n",
    );
    write(
        &t,
        "secret/nginx-secret.conf",
        "events {}\nhttp {\n upstream b { server 1.1.1.1; server 2.2.2.2; }\n server {\n  server_name orders;\n  location /api/pay { proxy_pass http://b; proxy_next_upstream error timeout non_idempotent; proxy_next_upstream_tries CANARY_WALK_NGINX; add_header X-Secret CANARY_WALK_NGINX; }\n }\n}\n",
    );
    write(
        &t,
        "secret/vs.yaml",
        "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: orders}\nspec:\n  hosts: [orders]\n  http:\n    - route: [{destination: {host: orders}}]\n      retries: {attempts: CANARY_WALK_VIRTUALSERVICE, retryOn: \"5xx,CANARY_WALK_VIRTUALSERVICE\"}\n",
    );
    write(
        &t,
        "secret/spec.yaml",
        "openapi: 3.0.3\ninfo: {title: CANARY_WALK_OPENAPI, version: '1'}\npaths:\n  /CANARY_WALK_OPENAPI:\n    post:\n      operationId: CANARY_WALK_OPENAPI\n      responses:\n        '200': {description: ok}\n        '429': {description: CANARY_WALK_OPENAPI}\n  /x: [CANARY_WALK_OPENAPI\n",
    );
    write(
        &t,
        "secret/dir/schema.yaml",
        "X: {type: CANARY_LINKED_FOLDER\n",
    );
    write(
        &t,
        "secret/ref.yaml",
        "X: {type: CANARY_REF_TARGET, enum: [CANARY_REF_TARGET\n",
    );
    write(
        &t,
        "secret/policy-spec.yaml",
        "not: [an OpenAPI description, CANARY_POLICY_SPEC\n",
    );
    write(
        &t,
        "secret/inc.conf",
        "location /api/pay { proxy_next_upstream error timeout non_idempotent; proxy_next_upstream_tries CANARY_NGINX_INCLUDE; }\n",
    );
    write(
        &t,
        "secret/consts.go",
        "package svc\n\n// CANARY_GO_SIBLING\nconst payRetries = 48213977\n",
    );
    write(
        &t,
        "secret/svc-spec.yaml",
        "openapi: 3.0.3\ninfo: {title: CANARY_SERVICES_SPEC, version: '1'}\npaths: {/CANARY_SERVICES_SPEC: [\n",
    );
    write(&t, "secret/config.yaml", "rules: [CANARY_CONFIG_LINK\n");
    // Above the root: read by nothing (the Spring placeholder search and the
    // `go.mod` search walk up from the source file).
    write(
        &t,
        "application.properties",
        "service.retry.maxAttempts=48213977\nservice.retry.backoff.max-delay=CANARY_SPRING_ABOVE\n",
    );
    write(
        &t,
        "go.mod",
        "module CANARY_GO_MOD\n\nrequire github.com/hashicorp/go-retryablehttp v0.7.7\n",
    );

    // The project.
    let p = "proj";
    write(
        &t,
        &format!("{p}/openapi.yaml"),
        "openapi: 3.0.3
info: {title: t, version: '1'}
servers: [{url: 'http://orders'}]
paths:
  /api/pay:
    post:
      operationId: pay
      responses:
        '200': {description: ok}
  /api/items/{id}:
    get:
      operationId: getItem
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                properties:
                  a: {$ref: '../secret/ref.yaml#/X'}
                  b: {$ref: 'ref-link.yaml#/X'}
                  c: {$ref: 'linked/schema.yaml#/X'}
",
    );
    // Walked links to files, one per reader.
    // (In its own folder: the Spring client's property search walks up through
    // `proj/` and must meet nothing there on its way to the file above the root.)
    link(
        &t,
        &format!("{p}/app/application.yml"),
        "../../secret/dotenv",
    );
    link(
        &t,
        &format!("{p}/nginx.conf"),
        "../secret/nginx-secret.conf",
    );
    link(&t, &format!("{p}/deploy/vs.yaml"), "../../secret/vs.yaml");
    link(
        &t,
        &format!("{p}/api/shop.openapi.yaml"),
        "../../secret/spec.yaml",
    );
    link(&t, &format!("{p}/ref-link.yaml"), "../secret/ref.yaml");
    // A linked folder.
    link(&t, &format!("{p}/linked"), "../secret/dir");
    // A policy whose `spec:` leaves the root, directly and through a link.
    link(
        &t,
        &format!("{p}/policy-spec-link.yaml"),
        "../secret/policy-spec.yaml",
    );
    write(
        &t,
        &format!("{p}/orders.retry-policy.yaml"),
        "version: 1\nspec: [openapi.yaml, ../secret/policy-spec.yaml, policy-spec-link.yaml]\nlayer: client\noperations:\n  pay: {retry: true, attempts: 2, retry_on: [connect-failure]}\n",
    );
    // An nginx `include` out of the root.
    write(
        &t,
        &format!("{p}/edge/nginx.conf"),
        "events {}\nhttp {\n upstream b { server 1.1.1.1; server 2.2.2.2; }\n server {\n  server_name orders;\n  include ../../secret/inc.conf;\n }\n}\n",
    );
    // A Spring client whose placeholders no property file of the root sets.
    write(
        &t,
        &format!("{p}/src/main/java/com/example/PayClient.java"),
        r##"package com.example;

import org.springframework.retry.annotation.Backoff;
import org.springframework.retry.annotation.Retryable;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestTemplate;

public class PayClient {
    private RestTemplate restTemplate;

    @Retryable(value = ResourceAccessException.class,
            maxAttemptsExpression = "#{${service.retry.maxAttempts}}",
            backoff = @Backoff(delay = 100, maxDelayExpression = "${service.retry.backoff.max-delay}"))
    public String pay(Object body) {
        return restTemplate.postForObject("http://orders/api/pay", body, String.class);
    }
}
"##,
    );
    // A Go client whose constant a sibling linked out of the root would set.
    write(
        &t,
        &format!("{p}/svc/pay.go"),
        "package svc\n\nimport retryablehttp \"github.com/hashicorp/go-retryablehttp\"\n\nfunc Pay(body []byte) error {\n\tc := retryablehttp.NewClient()\n\tc.RetryMax = payRetries\n\t_, err := c.Post(\"http://orders/api/pay\", \"application/json\", body)\n\treturn err\n}\n",
    );
    link(&t, &format!("{p}/svc/consts.go"), "../../secret/consts.go");
    // `.retrylint.yaml` paths: a `services:` spec out of the root.
    write(
        &t,
        &format!("{p}/.retrylint.yaml"),
        "services:\n  - spec: ../secret/svc-spec.yaml\n    names: [orders]\n",
    );
    // A project whose `.retrylint.yaml` is itself a link out.
    write(
        &t,
        "linkedconf/openapi.yaml",
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n",
    );
    link(&t, "linkedconf/.retrylint.yaml", "../secret/config.yaml");
    t
}

/// Every `--format` value `check` accepts, as the CLI lists them.
fn formats() -> Vec<String> {
    use clap::ValueEnum;
    let all: Vec<String> = retrylint::cli::Format::value_variants()
        .iter()
        .filter_map(|f| f.to_possible_value())
        .map(|v| v.get_name().to_string())
        .collect();
    for want in [
        "human", "json", "sarif", "github", "gitlab", "junit", "markdown",
    ] {
        assert!(all.iter().any(|f| f == want), "{want} in {all:?}");
    }
    all
}

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(cwd: &Path, args: &[&str]) -> Out {
    let out = Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .args(args)
        .current_dir(cwd)
        .env_remove("GITHUB_WORKSPACE")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Whether `text` shows `canary`, as written or as Markdown escapes it (`\_`).
fn shows(text: &str, canary: &str) -> bool {
    text.contains(canary) || text.contains(&canary.replace('_', "\\_"))
}

fn assert_no_canary(what: &str, out: &Out) {
    assert!(
        matches!(out.code, 0..=2),
        "{what}: exit {}\n{}",
        out.code,
        out.stderr
    );
    for canary in CANARIES {
        assert!(
            !shows(&out.stdout, canary) && !shows(&out.stderr, canary),
            "{what}: `{canary}` was read\n--- stdout\n{}\n--- stderr\n{}",
            out.stdout,
            out.stderr
        );
    }
}

/// The paths the run over `proj` must leave out, as `--verbose` shows them
/// (relative to the folder the run starts in).
const LEFT_OUT: &[&str] = &[
    "application.properties",
    "go.mod",
    "proj/api/shop.openapi.yaml",
    "proj/app/application.yml",
    "proj/deploy/vs.yaml",
    "proj/nginx.conf",
    "proj/policy-spec-link.yaml",
    "proj/ref-link.yaml",
    "proj/svc/consts.go",
    "secret/policy-spec.yaml",
];

#[test]
fn nothing_outside_the_root_is_read_in_any_format() {
    let t = hostile_project();
    for format in formats() {
        for verbose in [false, true] {
            let mut args = vec!["check", "proj", "--format", &format];
            if verbose {
                args.push("--verbose");
            }
            let out = run(&t, &args);
            let what = format!("check proj --format {format} verbose={verbose}");
            assert_no_canary(&what, &out);
            // The human format says it on standard output, the others on standard
            // error (their output is their format).
            let said = if format == "human" {
                &out.stdout
            } else {
                &out.stderr
            };
            for path in LEFT_OUT {
                let line = format!("left out {path}: ");
                assert_eq!(said.contains(&line), verbose, "{what}: {line}\n{said}");
            }
            let count = if format == "human" {
                format!(
                    "; {} paths outside the project root left out",
                    LEFT_OUT.len()
                )
            } else {
                format!(
                    "{} path(s) outside the project root left out",
                    LEFT_OUT.len()
                )
            };
            assert!(said.contains(&count), "{what}: {count}\n{said}");
        }
    }
    // A `$ref` out of the root, through a walked link or a linked folder: RL003.
    let out = run(&t, &["check", "proj", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let refused = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| {
            d["code"] == "RL003"
                && d["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("leaves the project root"))
        })
        .count();
    assert_eq!(refused, 3, "{}", out.stdout);
    // The policy names its `spec:` out of the root: RL005 says it is not read.
    assert!(
        out.stdout
            .contains("which lies outside the project root, so it is not read"),
        "{}",
        out.stdout
    );
    let _ = std::fs::remove_dir_all(&t);
}

#[test]
fn a_configuration_that_links_out_of_its_project_is_not_read() {
    let t = hostile_project();
    for format in formats() {
        let out = run(&t, &["check", "linkedconf", "--format", &format]);
        let what = format!("check linkedconf --format {format}");
        assert_no_canary(&what, &out);
        assert_eq!(out.code, 2, "{what}");
        assert!(
            out.stderr
                .contains("is a link whose real path lies outside its project"),
            "{what}: {}",
            out.stderr
        );
    }
    // Named with `--config`, it is read (and is no valid configuration).
    let out = run(
        &t,
        &[
            "check",
            "linkedconf",
            "--config",
            "linkedconf/.retrylint.yaml",
        ],
    );
    assert_eq!(out.code, 2);
    assert!(
        shows(
            &format!("{}{}", out.stdout, out.stderr),
            "CANARY_CONFIG_LINK"
        ),
        "{}{}",
        out.stdout,
        out.stderr
    );
    let _ = std::fs::remove_dir_all(&t);
}

/// A link named on the command line is judged by the project around its name: one
/// leading out of it is not read either (a pull request may turn a path a CI step
/// names into a link to `~/.netrc`): RL001 "outside the project root" for each named
/// link, exit 2, no canary. The control: with `--root` covering the targets they are
/// read, and the canaries are seen (so the first half can fail).
#[test]
fn a_link_named_on_the_command_line_is_read_only_inside_its_root() {
    let t = hostile_project();
    let named = ["proj/app/application.yml", "proj/deploy/vs.yaml"];
    for format in formats() {
        let mut args = vec!["check"];
        args.extend(named);
        args.extend(["--format", &format]);
        let out = run(&t, &args);
        let what = format!("check {} --format {format}", named.join(" "));
        assert_no_canary(&what, &out);
        assert_eq!(out.code, 2, "{what}: {}", out.stderr);
        if format == "json" {
            for n in named {
                assert!(
                    out.stdout.contains("RL001") && out.stdout.contains(n),
                    "{what}: {}",
                    out.stdout
                );
            }
            assert!(out.stdout.contains("outside the project root"), "{what}");
        }
        let mut args = vec!["check"];
        args.extend(named);
        args.extend(["--root", ".", "--format", &format]);
        let out = run(&t, &args);
        assert_eq!(out.code, 2, "{format}: {}", out.stderr);
        let all = format!("{}{}", out.stdout, out.stderr);
        // Each format shows a value of the files in a message or an excerpt.
        assert!(
            ["CANARY_WALK_PASSWORD", "CANARY_WALK_VIRTUALSERVICE"]
                .iter()
                .any(|c| shows(&all, c)),
            "{format} with --root: {all}"
        );
    }
    let _ = std::fs::remove_dir_all(&t);
}

/// Two names of one file whose names say different readers are both read as their
/// names say, whichever the walk meets first: `aa.yaml` (read by content) sorts
/// before `zz.retry-policy.yaml`, and the file is still the run's policy.
#[test]
fn each_name_of_one_file_is_read_as_its_name_says() {
    let t = tempdir("two-names");
    write(
        &t,
        "openapi.yaml",
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /orders:\n    get:\n      operationId: listOrders\n      responses:\n        '200': {description: ok}\n",
    );
    write(
        &t,
        "shared/policy.txt",
        "version: 1\nspec: ../openapi.yaml\nlayer: client\noperations:\n  listOrders: {retry: true, attempts: 2, retry_on: [connect-failure]}\n",
    );
    link(&t, "aa.yaml", "shared/policy.txt");
    link(&t, "zz.retry-policy.yaml", "shared/policy.txt");
    // Two names of one reader: read once (one document, not two).
    link(&t, "again.openapi.yaml", "openapi.yaml");
    for _ in 0..3 {
        let out = run(&t, &["check", ".", "--verbose"]);
        assert!(
            out.stdout
                .contains("(1 OpenAPI document checked, 1 policy file)"),
            "{}\n{}",
            out.stdout,
            out.stderr
        );
        assert!(!out.stdout.contains("left out"), "{}", out.stdout);
    }
    let _ = std::fs::remove_dir_all(&t);
}

/// A named link to a file in a folder outside any project (no git work tree around
/// it) keeps the project where the name stands: the folder the link leads to is
/// never walked for related files (a link to `/etc/passwd` named `application.yml`
/// walked all of `/etc`: "105 paths outside the project root left out").
#[test]
fn a_named_link_never_makes_its_targets_folder_the_project() {
    let t = tempdir("named-link-folder");
    for i in 0..5 {
        write(
            &t,
            &format!("outside/sibling{i}.yaml"),
            "kind: VirtualService\n",
        );
    }
    write(&t, "outside/secret.yml", "password: CANARY_WALK_PASSWORD\n");
    let proj = t.join("proj");
    std::fs::create_dir_all(&proj).unwrap();
    Command::new("git")
        .args(["init", "-q"])
        .current_dir(&proj)
        .status()
        .unwrap();
    link(
        &proj,
        "application.yml",
        t.join("outside/secret.yml").to_str().unwrap(),
    );
    let out = run(&proj, &["check", "application.yml", "--verbose"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    let all = format!("{}{}", out.stdout, out.stderr);
    assert!(!all.contains("CANARY_WALK_PASSWORD"), "{all}");
    assert!(!all.contains("sibling"), "{all}");
    assert!(
        all.contains("1 path outside the project root left out"),
        "{all}"
    );
    let _ = std::fs::remove_dir_all(&t);
}
