//! Hostile input: every case ends with a clear finding or a bounded result (never a
//! panic, a hang or unbounded memory), and the other files of the same run are still
//! linted. Inputs are generated at test time into a fresh temporary folder. Slow
//! cases run under a generous hang guard (120 s); no test asserts a speed.
//!
//! The large generated inputs are `#[ignore]`d and run by `.ci/run` with
//! `cargo test --release -- --ignored`.

use retrylint::check::{run, CheckOptions, CheckOutcome};
use retrylint::source::loader::Limits;
use retrylint::source::tree::{Tree, MAX_NESTING};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const HANG: Duration = Duration::from_secs(120);

/// A fresh, empty folder under the system temp dir, unique per test and process.
fn tempdir(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "retrylint-hostile-{}-{}-{name}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A valid spec with exactly one error finding: RL501 for GET /orders' 429.
const VALID: &str = "openapi: 3.0.3
info: {title: valid, version: '1'}
paths:
  /orders:
    get:
      responses:
        '200': {description: ok}
        '429': {description: slow down}
";

fn write_valid(dir: &Path) -> PathBuf {
    let p = dir.join("valid.openapi.yaml");
    std::fs::write(&p, VALID).unwrap();
    p
}

/// Runs `f` on another thread; fails the test if it takes longer than [`HANG`].
fn guarded<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || {
            let _ = tx.send(f());
        })
        .unwrap();
    match rx.recv_timeout(HANG) {
        Ok(v) => v,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("{what}: hung (> {HANG:?})"),
        Err(e) => panic!("{what}: the check panicked ({e})"),
    }
}

/// The binary's outcome: exit code, JSON diagnostics, stderr.
struct Run {
    code: i32,
    diags: Vec<Value>,
    stderr: String,
}

impl Run {
    fn codes(&self) -> Vec<String> {
        self.diags
            .iter()
            .map(|d| d["code"].as_str().unwrap_or("").to_string())
            .collect()
    }

    fn with_code(&self, code: &str) -> Vec<&Value> {
        self.diags.iter().filter(|d| d["code"] == code).collect()
    }

    /// The valid spec of the run was still linted: its RL501 is there.
    fn assert_valid_linted(&self) {
        assert!(
            self.diags.iter().any(|d| d["code"] == "RL501"
                && d["path"]
                    .as_str()
                    .unwrap_or("")
                    .ends_with("valid.openapi.yaml")),
            "the valid spec was not linted: {:#?}",
            self.diags
        );
    }
}

/// Runs `retrylint check --format json ARGS` in `cwd` under the hang guard.
fn cli(cwd: &Path, args: &[&str]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .arg("check")
        .arg("--format")
        .arg("json")
        // RL501 (the valid spec's finding) is a warning: make it count for the exit code.
        .arg("--fail-on")
        .arg("warning")
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn retrylint");
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
    let err = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > HANG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("retrylint check {args:?} hung (> {HANG:?})");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = out.join().unwrap();
    let stderr = err.join().unwrap();
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
    let code = status.code().expect("exited normally, not by a signal");
    let json: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("JSON output ({e}): {stdout}\nstderr: {stderr}"));
    assert_eq!(json["version"], 1);
    let diags = json["diagnostics"].as_array().cloned().unwrap_or_default();
    Run {
        code,
        diags,
        stderr,
    }
}

fn lib_check(dir: &Path, paths: Vec<PathBuf>, limits: Limits) -> CheckOutcome {
    let dir = dir.to_path_buf();
    guarded("check::run", move || {
        run(&CheckOptions {
            paths,
            cwd: Some(dir.clone()),
            root: Some(dir),
            limits,
            ..CheckOptions::default()
        })
    })
}

#[test]
fn alias_bomb_and_merge_key_bomb_are_bounded() {
    let dir = tempdir("bomb");
    write_valid(&dir);
    // Billion laughs: nine levels, each aliasing the previous nine times.
    let mut text = String::from("openapi: 3.0.3\ninfo: {title: bomb, version: '1'}\nx-lol:\n  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for w in names.windows(2) {
        text.push_str(&format!(
            "  {}: &{} [{}]\n",
            w[1],
            w[1],
            vec![format!("*{}", w[0]); 9].join(", ")
        ));
    }
    // `<<` merge bomb: every level merges the previous one nine times (9^30 paths
    // if merges were followed naively).
    text.push_str("x-merge:\n  m0: &m0 {description: base}\n");
    for i in 1..=30 {
        text.push_str(&format!(
            "  m{i}: &m{i} {{<<: [{}]}}\n",
            vec![format!("*m{}", i - 1); 9].join(", ")
        ));
    }
    text.push_str("paths:\n  /bomb:\n    parameters: *i\n    get:\n      responses:\n        '200':\n          <<: *m30\n          headers: {X-Missing: {<<: *m30}}\n");
    std::fs::write(dir.join("bomb.openapi.yaml"), text).unwrap();
    let r = cli(&dir, &["."]);
    assert!(!r.codes().contains(&"RL001".to_string()), "{:#?}", r.diags);
    r.assert_valid_linted();
    assert_eq!(r.code, 1);
}

#[test]
fn merge_key_bomb_lookup_is_linear() {
    // Regression: `Tree::get` and `Tree::entries` followed every merge path.
    let mut text = String::from("m0: &m0 {a: 1}\n");
    for i in 1..=30 {
        text.push_str(&format!(
            "m{i}: &m{i} {{<<: [{}]}}\n",
            vec![format!("*m{}", i - 1); 9].join(", ")
        ));
    }
    text.push_str("top: {<<: *m30, b: 2}\n");
    let t = guarded("merge bomb", move || {
        let t = Tree::parse(Arc::from(text.as_str())).unwrap();
        let top = t.get(t.root().unwrap(), "top").unwrap();
        assert!(t.get(top, "missing").is_none());
        assert!(t.get(top, "a").is_some());
        assert_eq!(t.entries(top).len(), 2);
        t.len()
    });
    assert!(t < 1000);
}

fn deep_case(name: &str, text: String) {
    let dir = tempdir(name);
    write_valid(&dir);
    let file = format!("deep-{name}.openapi.yaml");
    std::fs::write(dir.join(&file), text).unwrap();
    let r = cli(&dir, &["."]);
    let rl001 = r.with_code("RL001");
    assert_eq!(rl001.len(), 1, "{:#?}", r.diags);
    assert!(rl001[0]["path"].as_str().unwrap().ends_with(&file));
    let msg = rl001[0]["message"].as_str().unwrap();
    assert!(msg.contains(&MAX_NESTING.to_string()), "{msg}");
    r.assert_valid_linted();
    assert_eq!(r.code, 2);
}

#[test]
fn nesting_100k_block_style() {
    deep_case("block", format!("{}x\n", "- ".repeat(100_000)));
}

#[test]
fn nesting_100k_block_mappings() {
    // Block mappings nested by indentation (2,000 levels: 4 MB of indentation).
    let mut text = String::new();
    for i in 0..2000 {
        text.push_str(&" ".repeat(i));
        text.push_str("a:\n");
    }
    deep_case("blockmap", text);
}

#[test]
fn nesting_100k_flow_style() {
    deep_case("flow", "[".repeat(100_000) + &"]".repeat(100_000));
}

#[test]
fn nesting_100k_json() {
    deep_case(
        "json",
        "{\"a\":".repeat(100_000) + "1" + &"}".repeat(100_000),
    );
}

#[test]
fn nesting_at_the_limit_parses_and_drops_flat() {
    // 255 levels is accepted; building and dropping the tree never recurses (the
    // tree is flat vectors), so a small stack suffices.
    let text = "[".repeat(MAX_NESTING) + &"]".repeat(MAX_NESTING);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let t = Tree::parse(Arc::from(text.as_str())).expect("255 levels parse");
            let n = t.len();
            drop(t);
            let _ = tx.send(n);
        })
        .unwrap();
    assert_eq!(rx.recv_timeout(HANG).expect("no overflow"), MAX_NESTING);
    let deeper = "[".repeat(MAX_NESTING + 1) + &"]".repeat(MAX_NESTING + 1);
    let e = Tree::parse(Arc::from(deeper.as_str())).unwrap_err();
    assert!(e.message.contains("255"), "{e:?}");
}

#[test]
fn binary_file_named_yaml() {
    let dir = tempdir("binary");
    write_valid(&dir);
    let mut bytes = b"openapi: 3.0.3\n".to_vec();
    bytes.extend((0u8..=255).cycle().take(4096));
    std::fs::write(dir.join("blob.yaml"), &bytes).unwrap();
    std::fs::write(dir.join("blob.openapi.yaml"), &bytes).unwrap();
    // Given explicitly: always read, RL001.
    let r = cli(&dir, &["blob.yaml", "valid.openapi.yaml"]);
    let rl001 = r.with_code("RL001");
    assert_eq!(rl001.len(), 1, "{:#?}", r.diags);
    assert!(rl001[0]["message"].as_str().unwrap().contains("binary"));
    r.assert_valid_linted();
    assert_eq!(r.code, 2);
    // Found by the walk: both are RL001 too, as when named (one answer however
    // it is asked): a corrupted spec must not pass a walk quietly.
    let r = cli(&dir, &["."]);
    let mut paths: Vec<String> = r
        .with_code("RL001")
        .iter()
        .map(|d| {
            d["path"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .next()
                .unwrap()
                .to_owned()
        })
        .collect();
    paths.sort();
    assert_eq!(paths, ["blob.openapi.yaml", "blob.yaml"], "{:#?}", r.diags);
    r.assert_valid_linted();
    assert_eq!(r.code, 2);
}

#[test]
fn git_crypt_file_is_skipped_when_walked_and_rl001_when_named() {
    let dir = tempdir("git-crypt");
    write_valid(&dir);
    // git-crypt's header, then ciphertext: a locked checkout of a repository that
    // keeps its secrets encrypted by design.
    let mut bytes = b"\0GITCRYPT\0".to_vec();
    bytes.extend((0u8..=255).cycle().take(512));
    std::fs::write(dir.join("secrets.yaml"), &bytes).unwrap();
    let r = cli(&dir, &["."]);
    assert!(r.with_code("RL001").is_empty(), "{:#?}", r.diags);
    r.assert_valid_linted();
    assert_eq!(r.code, 1);
    let r = cli(&dir, &["secrets.yaml", "valid.openapi.yaml"]);
    let rl001 = r.with_code("RL001");
    assert_eq!(rl001.len(), 1, "{:#?}", r.diags);
    assert!(rl001[0]["message"].as_str().unwrap().contains("git-crypt"));
    assert_eq!(r.code, 2);
}

#[test]
fn invalid_utf8_named_yaml() {
    let dir = tempdir("utf8");
    write_valid(&dir);
    std::fs::write(
        dir.join("latin1.openapi.yaml"),
        b"openapi: 3.0.3\ninfo: {title: caf\xe9, version: '1'}\n",
    )
    .unwrap();
    let r = cli(&dir, &["."]);
    let rl001 = r.with_code("RL001");
    assert_eq!(rl001.len(), 1, "{:#?}", r.diags);
    assert!(rl001[0]["message"].as_str().unwrap().contains("UTF-8"));
    assert_eq!(
        (rl001[0]["line"].as_u64(), rl001[0]["column"].as_u64()),
        (Some(2), Some(18))
    );
    r.assert_valid_linted();
    assert_eq!(r.code, 2);
}

/// UTF-16 and UTF-32 files (YAML 1.2 §5.2; PowerShell 5's `>` writes UTF-16LE) are
/// decoded and linted like UTF-8 ones, found by the walk under any name, with the
/// same positions; binary content that starts like UTF-16 is still binary.
#[test]
fn utf16_and_utf32_files_are_linted() {
    let dir = tempdir("wide");
    write_valid(&dir);
    let le16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(VALID.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let be16: Vec<u8> = VALID.encode_utf16().flat_map(u16::to_be_bytes).collect();
    let le32: Vec<u8> = VALID
        .chars()
        .flat_map(|c| (c as u32).to_le_bytes())
        .collect();
    std::fs::write(dir.join("powershell.yaml"), le16).unwrap();
    std::fs::write(dir.join("be.openapi.yaml"), be16).unwrap();
    std::fs::write(dir.join("wide32.yml"), le32).unwrap();
    // Starts like UTF-16LE ('o', NUL), then an unpaired surrogate: binary.
    std::fs::write(dir.join("odd.openapi.yaml"), b"o\0\x00\xd8x\0").unwrap();
    let r = cli(&dir, &["."]);
    r.assert_valid_linted();
    let at = |name: &str| {
        r.with_code("RL501")
            .iter()
            .filter(|d| d["path"].as_str().unwrap_or("").ends_with(name))
            .map(|d| (d["line"].as_u64(), d["column"].as_u64()))
            .collect::<Vec<_>>()
    };
    let expected = at("valid.openapi.yaml");
    assert_eq!(expected.len(), 1, "{:#?}", r.diags);
    for name in ["powershell.yaml", "be.openapi.yaml", "wide32.yml"] {
        assert_eq!(at(name), expected, "{name}: {:#?}", r.diags);
    }
    let rl001 = r.with_code("RL001");
    assert_eq!(rl001.len(), 1, "{:#?}", r.diags);
    assert!(rl001[0]["path"]
        .as_str()
        .unwrap()
        .ends_with("odd.openapi.yaml"));
    assert!(rl001[0]["message"].as_str().unwrap().contains("binary"));
    // Pre-commit on a shared fragment alone re-checks the UTF-16 spec that `$ref`s it
    // (the look-up searched the spec's raw bytes for the fragment's name).
    let dir = tempdir("wide-ref");
    std::fs::write(
        dir.join("responses.yaml"),
        "SlowDown: {description: slow down}\n",
    )
    .unwrap();
    let spec = VALID.replace(
        "'429': {description: slow down}",
        "'429': {$ref: 'responses.yaml#/SlowDown'}",
    );
    let wide: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(spec.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    std::fs::write(dir.join("shop.yaml"), wide).unwrap();
    let r = cli(&dir, &["responses.yaml"]);
    assert_eq!(r.with_code("RL501").len(), 1, "{:#?}", r.diags);
}

#[test]
fn empty_openapi_yaml_is_skipped_not_fatal() {
    let dir = tempdir("empty");
    write_valid(&dir);
    std::fs::write(dir.join("openapi.yaml"), "").unwrap();
    let r = cli(&dir, &["openapi.yaml", "valid.openapi.yaml"]);
    assert_eq!(r.codes(), vec!["RL501".to_string()], "{:#?}", r.diags);
    assert_eq!(r.code, 1);
}

#[cfg(unix)]
#[test]
fn unreadable_paths_are_rl001_exit_2() {
    let dir = tempdir("unreadable");
    write_valid(&dir);
    std::os::unix::fs::symlink(dir.join("nowhere.yaml"), dir.join("dangling.yaml")).unwrap();
    let r = cli(
        &dir,
        &[
            "dangling.yaml",
            "missing.openapi.yaml",
            "valid.openapi.yaml",
        ],
    );
    let rl001 = r.with_code("RL001");
    assert_eq!(rl001.len(), 2, "{:#?}", r.diags);
    for d in rl001 {
        assert!(
            d["message"].as_str().unwrap().contains("could not be read"),
            "{d}"
        );
    }
    r.assert_valid_linted();
    assert_eq!(r.code, 2);
}

#[cfg(unix)]
#[test]
fn fifo_and_device_are_never_read() {
    // Regression: a FIFO given explicitly blocked forever in `read`, and a symlink to
    // `/dev/zero` named `openapi.yaml` read without end.
    let dir = tempdir("fifo");
    write_valid(&dir);
    let fifo = dir.join("openapi.yaml");
    let ok = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.openapi.yaml")).unwrap();
    // Source files and a baseline named on the command line are never read either
    // (a pre-check read them whole: `client.py` grew to 11 GB).
    // (`/dev/urandom`: two links to one device are one file, reported once.)
    std::os::unix::fs::symlink("/dev/urandom", dir.join("client.py")).unwrap();
    let mut args = vec!["zero.openapi.yaml", "valid.openapi.yaml", "client.py"];
    if ok {
        args.push("openapi.yaml");
        let go = dir.join("pipe.go");
        if Command::new("mkfifo")
            .arg(&go)
            .status()
            .is_ok_and(|s| s.success())
        {
            args.push("pipe.go");
        }
    }
    let r = cli(&dir, &args);
    let rl001 = r.with_code("RL001");
    assert_eq!(rl001.len(), args.len() - 1, "{:#?}", r.diags);
    for d in rl001 {
        let message = d["message"].as_str().unwrap();
        // A FIFO in the project is not a regular file; a named link to a device
        // leaves the project (its real path is under `/dev`) and is refused before
        // that (the read boundary).
        let linked = ["zero.openapi.yaml", "client.py"].contains(&d["path"].as_str().unwrap());
        let why = if linked {
            "outside the project root"
        } else {
            "not a regular file"
        };
        assert!(message.contains(why), "{d}");
    }
    r.assert_valid_linted();
    assert_eq!(r.code, 2);
}

#[test]
fn directory_named_openapi_yaml_is_walked() {
    let dir = tempdir("dirname");
    let sub = dir.join("openapi.yaml");
    std::fs::create_dir_all(&sub).unwrap();
    write_valid(&sub);
    let r = cli(&dir, &["openapi.yaml"]);
    r.assert_valid_linted();
    assert_eq!(r.code, 1);
}

/// The walk follows a symbolic link to a file (monorepos link shared specs into each
/// service's folder): it is linted once under the link's name, a second link to the
/// same file adds nothing, and a dangling link named like a spec is RL001. The
/// linked file lies inside the project root (`api`, the path given: no git here,
/// in a hidden folder the walk skips); a link whose real path leaves the root
/// (`/dev/zero`) is left out unread unless named (`tests/read_boundary.rs`).
#[cfg(unix)]
#[test]
fn file_symlinks_are_followed_once() {
    let dir = tempdir("filelinks");
    std::fs::create_dir_all(dir.join("api/.shared")).unwrap();
    std::fs::create_dir_all(dir.join("specs")).unwrap();
    std::fs::write(dir.join("api/.shared/valid.openapi.yaml"), VALID).unwrap();
    std::fs::write(dir.join("specs/valid.openapi.yaml"), VALID).unwrap();
    let link =
        |target: &str, name: &str| std::os::unix::fs::symlink(target, dir.join(name)).unwrap();
    link(".shared/valid.openapi.yaml", "api/valid.openapi.yaml");
    link("valid.openapi.yaml", "api/current.openapi.yaml");
    link("missing.yaml", "api/dangling.openapi.yaml");
    link("nowhere.yaml", "api/notes.yaml");
    // A link to a folder is not followed, whatever its name.
    link("../specs", "api/v1.openapi.yaml");
    // A link to a device named like a spec leaves the project: never read.
    link("/dev/zero", "api/zero.openapi.yaml");
    let r = cli(&dir, &["api"]);
    // Linted once, under the first link's name (the two links name one file).
    let rl501 = r.with_code("RL501");
    assert_eq!(rl501.len(), 1, "{:#?}", r.diags);
    assert_eq!(
        rl501[0]["path"], "api/current.openapi.yaml",
        "{:#?}",
        r.diags
    );
    let rl001: Vec<_> = r
        .with_code("RL001")
        .iter()
        .map(|d| d["path"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(rl001, ["api/dangling.openapi.yaml"], "{:#?}", r.diags);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("1 path(s) outside the project root left out"),
        "{}",
        r.stderr
    );
    // Named, with a spec beside it, the device link is RL001 (and still not read).
    let r = cli(&dir, &["api/zero.openapi.yaml", "specs/valid.openapi.yaml"]);
    r.assert_valid_linted();
    assert_eq!(r.code, 2);
}

#[cfg(unix)]
#[test]
fn directory_symlink_loops_terminate() {
    let dir = tempdir("loop");
    write_valid(&dir);
    std::fs::create_dir_all(dir.join("a/b")).unwrap();
    std::os::unix::fs::symlink("..", dir.join("a/b/up")).unwrap();
    std::os::unix::fs::symlink(dir.join("a"), dir.join("a/b/abs")).unwrap();
    std::os::unix::fs::symlink("self", dir.join("self")).unwrap();
    std::os::unix::fs::symlink("l2", dir.join("l1")).unwrap();
    std::os::unix::fs::symlink("l1", dir.join("l2")).unwrap();
    let r = cli(&dir, &["."]);
    r.assert_valid_linted();
    assert_eq!(r.code, 1, "{:#?}", r.diags);
    // A loop given explicitly is walked once too.
    let r = cli(&dir, &["a/b/up", "valid.openapi.yaml"]);
    r.assert_valid_linted();
}

#[test]
#[ignore = "large: run with --release -- --ignored"]
fn ten_thousand_files() {
    let dir = tempdir("many");
    for i in 0..10_000 {
        let sub = dir.join(format!("d{}", i / 100));
        std::fs::create_dir_all(&sub).unwrap();
        let text = VALID.replace("/orders", &format!("/orders{i}"));
        std::fs::write(sub.join(format!("s{i}.openapi.yaml")), text).unwrap();
    }
    let r = cli(&dir, &["."]);
    assert_eq!(r.with_code("RL501").len(), 10_000);
    assert_eq!(r.code, 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn refs_outside_the_root_and_remote_are_refused_unread() {
    let dir = tempdir("escape");
    let proj = dir.join("proj");
    std::fs::create_dir_all(proj.join("sub")).unwrap();
    write_valid(&proj);
    // Outside the root, and not valid YAML: reading it would give RL001.
    std::fs::create_dir_all(dir.join("outside")).unwrap();
    std::fs::write(dir.join("outside/secret.yaml"), "r: [unclosed\n").unwrap();
    std::os::unix::fs::symlink(dir.join("outside"), proj.join("sub/link")).unwrap();
    let refs = [
        "/etc/passwd",
        "file:///etc/passwd#/root",
        "../../../../../../../../etc/passwd",
        "../outside/secret.yaml#/r",
        "sub/../../outside/secret.yaml#/r",
        "sub/link/secret.yaml#/r",
        "sub%2F..%2F..%2Foutside%2Fsecret.yaml#/r",
        "https://example.invalid/shared.yaml#/Resp",
        "http://169.254.169.254/latest/meta-data#/x",
    ];
    let mut text = String::from("openapi: 3.0.3\ninfo: {title: escape, version: '1'}\npaths:\n");
    for (i, r) in refs.iter().enumerate() {
        text.push_str(&format!(
            "  /p{i}:\n    get:\n      responses:\n        '200':\n          $ref: '{r}'\n"
        ));
    }
    std::fs::write(proj.join("escape.openapi.yaml"), text).unwrap();
    let r = cli(&dir, &["--root", "proj", "proj"]);
    assert!(
        r.with_code("RL001").is_empty(),
        "a file outside the root was read: {:#?}",
        r.diags
    );
    let rl003 = r.with_code("RL003");
    assert_eq!(rl003.len(), refs.len(), "{:#?}", r.diags);
    for (d, want) in rl003.iter().zip(refs) {
        let msg = d["message"].as_str().unwrap();
        assert!(msg.contains(want), "{msg} / {want}");
        let remote = want.starts_with("http");
        let expected = if remote {
            "never fetched"
        } else {
            "leaves the project root"
        };
        assert!(msg.contains(expected), "{msg}");
    }
    r.assert_valid_linted();
    assert_eq!(r.code, 1);
}

fn ref_chain(dir: &Path, n: usize) {
    let c = dir.join("c");
    std::fs::create_dir_all(&c).unwrap();
    let spec = "openapi: 3.0.3\ninfo: {title: chain, version: '1'}\npaths:\n  /chain:\n    get:\n      responses:\n        '429':\n          $ref: 'c/f1.yaml#/r'\n";
    std::fs::write(dir.join("chain.openapi.yaml"), spec).unwrap();
    for i in 1..n {
        std::fs::write(
            c.join(format!("f{i}.yaml")),
            format!("r:\n  $ref: 'f{}.yaml#/r'\n", i + 1),
        )
        .unwrap();
    }
    std::fs::write(
        c.join(format!("f{n}.yaml")),
        "r:\n  description: end of the chain\n",
    )
    .unwrap();
}

#[test]
fn ref_chain_across_1000_files_resolves() {
    let dir = tempdir("chain");
    write_valid(&dir);
    ref_chain(&dir, 1000);
    let o = lib_check(&dir, vec![dir.clone()], Limits::default());
    let codes: Vec<_> = o.diagnostics.iter().map(|d| d.code).collect();
    assert!(!codes.contains(&"RL003"), "{codes:?}");
    let rl501: Vec<_> = o.diagnostics.iter().filter(|d| d.code == "RL501").collect();
    assert_eq!(rl501.len(), 2, "{codes:?}");
    // The chain's 429 is reported at its definition, the last file of the chain.
    assert!(rl501
        .iter()
        .any(|d| d.primary.location.file.display.ends_with("f1000.yaml")));
    assert!(!o.could_not_lint);
}

#[test]
fn ref_chain_beyond_the_hop_limit_is_rl003() {
    let dir = tempdir("chain-limit");
    write_valid(&dir);
    ref_chain(&dir, 1000);
    let limits = Limits {
        max_ref_hops: 100,
        ..Limits::default()
    };
    let o = lib_check(&dir, vec![dir.clone()], limits);
    let too_long: Vec<_> = o
        .diagnostics
        .iter()
        .filter(|d| d.code == "RL003" && d.message.contains("too long"))
        .collect();
    assert!(
        !too_long.is_empty(),
        "{:#?}",
        o.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>()
    );
    assert!(o.diagnostics.iter().any(|d| d.code == "RL501"
        && d.primary
            .location
            .file
            .display
            .ends_with("valid.openapi.yaml")));
}

#[test]
fn file_size_limit_is_rl001() {
    let dir = tempdir("size");
    write_valid(&dir);
    std::fs::write(dir.join("big.openapi.yaml"), VALID.repeat(10)).unwrap();
    let r = cli(
        &dir,
        &[
            "--max-file-size",
            "1000",
            "big.openapi.yaml",
            "valid.openapi.yaml",
        ],
    );
    let rl001 = r.with_code("RL001");
    assert_eq!(rl001.len(), 1, "{:#?}", r.diags);
    assert!(rl001[0]["message"]
        .as_str()
        .unwrap()
        .contains("larger than the limit"));
    r.assert_valid_linted();
    assert_eq!(r.code, 2);
}

#[test]
#[ignore = "large: run with --release -- --ignored"]
fn generated_50_mb_spec() {
    let dir = tempdir("huge");
    write_valid(&dir);
    let mut text = String::from("{\"openapi\": \"3.0.3\", \"info\": {\"title\": \"huge\", \"version\": \"1\"}, \"paths\": {");
    let mut i = 0;
    while text.len() < 50 * 1024 * 1024 {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&format!(
            "\"/r{i}\": {{\"post\": {{\"parameters\": [{{\"name\": \"Idempotency-Key\", \"in\": \"header\", \"required\": true, \"schema\": {{\"type\": \"string\"}}}}], \"responses\": {{\"201\": {{\"description\": \"created\"}}, \"429\": {{\"description\": \"slow\", \"headers\": {{\"Retry-After\": {{\"schema\": {{\"type\": \"integer\"}}}}}}}}, \"503\": {{\"description\": \"later\"}}}}}}}}"
        ));
        i += 1;
    }
    text.push_str("}}");
    std::fs::write(dir.join("huge.openapi.json"), &text).unwrap();
    drop(text);
    let r = cli(&dir, &["."]);
    assert!(r.with_code("RL001").is_empty(), "{}", r.stderr);
    r.assert_valid_linted();
    assert_eq!(r.code, 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn minified_json_error_snippet_is_clipped() {
    // Regression: the human report printed the whole line of a minified spec (a
    // 50 MB line for a 50 MB file) around a syntax error.
    let dir = tempdir("minified");
    let mut text = String::from("{\"openapi\":\"3.0.3\",\"paths\":{");
    for i in 0..50_000 {
        text.push_str(&format!("\"/p{i}\":{{}},"));
    }
    text.push_str("\"/é\": {\"a\": [1,,2]}}}");
    std::fs::write(dir.join("mini.openapi.json"), &text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_retrylint"))
        .args(["check", "--color", "never", "mini.openapi.json"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("RL001"), "{shown}");
    assert!(shown.contains("[1,,2]"), "{shown}");
    assert!(shown.len() < 8_000, "{} bytes of output", shown.len());
}

#[test]
fn columns_on_a_long_line_match_a_plain_count() {
    // Regression: every column on a minified 47 MB spec counted the characters from
    // the line start (quadratic over many findings); now checkpointed. Same answer.
    let mut text = String::from("{");
    for i in 0..20_000 {
        text.push_str(&format!("\"k{i}é\": \"ü{i}\", "));
    }
    text.push_str("\"end\": 1}\n");
    let file = retrylint::source::SourceFile::new(PathBuf::from("x.json"), "x.json".into(), &text);
    for offset in [0, 5, 4097, 100_000, text.len() / 2, text.len() - 3] {
        let mut o = offset;
        while !text.is_char_boundary(o) {
            o -= 1;
        }
        let lc = file.line_col(o);
        assert_eq!(lc.line, 1);
        assert_eq!(
            lc.column as usize,
            text[..o].chars().count() + 1,
            "offset {o}"
        );
    }
}

/// A 3.0 spec whose one schema nests `depth` levels of `items` (JSON), with an
/// invalid `maxLength` at the leaf when `bad`.
fn deep_schema_spec(depth: usize, bad: bool) -> String {
    let mut schema = if bad {
        r#"{"type": "string", "maxLength": "x"}"#.to_string()
    } else {
        r#"{"type": "string"}"#.to_string()
    };
    for _ in 0..depth {
        schema = format!(r#"{{"type": "array", "items": {schema}}}"#);
    }
    format!(
        r#"{{"openapi": "3.0.3", "info": {{"title": "deep", "version": "1"}}, "paths": {{}}, "components": {{"schemas": {{"A": {schema}}}}}}}"#
    )
}

#[test]
fn deeply_nested_schemas_neither_overflow_nor_explode() {
    // The typed read (RL008) recurses per level and once overflowed rayon's 2 MiB
    // worker stacks (abort, no output), and a bad leaf made `openapiv3` read the
    // failing path twice per level (2^depth). 120 levels: checked, found. 250 levels
    // (just under the parser's 255): deeper than RL008's 128, not checked, no crash.
    let dir = tempdir("deep-schema");
    write_valid(&dir);
    std::fs::write(dir.join("deep.openapi.json"), deep_schema_spec(120, false)).unwrap();
    std::fs::write(
        dir.join("deep-bad.openapi.json"),
        deep_schema_spec(120, true),
    )
    .unwrap();
    std::fs::write(
        dir.join("deeper-bad.openapi.json"),
        deep_schema_spec(250, true),
    )
    .unwrap();
    let run = cli(&dir, &["."]);
    run.assert_valid_linted();
    let rl008 = run.with_code("RL008");
    assert_eq!(rl008.len(), 1, "{:?}", run.diags);
    assert!(rl008[0]["path"]
        .as_str()
        .unwrap()
        .ends_with("deep-bad.openapi.json"));
    assert_eq!(rl008[0]["pointer"], "/components/schemas/A");
    assert!(
        rl008[0]["message"]
            .as_str()
            .unwrap()
            .contains("expected usize"),
        "{}",
        rl008[0]["message"]
    );
}

/// A small run checks on the main thread (no thread started), but on a stack of the
/// deep-stack pool's size, not the main thread's: with the shell's stack limit at
/// 1 MiB, a schema nested 250 levels deep still gives its finding, no overflow.
#[cfg(unix)]
#[test]
fn a_small_run_keeps_a_deep_stack_under_a_low_stack_limit() {
    let dir = tempdir("deep-low-limit");
    std::fs::write(
        dir.join("deeper-bad.openapi.json"),
        deep_schema_spec(250, true),
    )
    .unwrap();
    std::fs::write(
        dir.join("deep-bad.openapi.json"),
        deep_schema_spec(120, true),
    )
    .unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -s 1024 && exec \"$0\" check --format json .")
        .arg(env!("CARGO_BIN_EXE_retrylint"))
        .current_dir(&dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rl008: Vec<&str> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "RL008")
        .map(|d| d["path"].as_str().unwrap())
        .collect();
    assert_eq!(rl008, ["deep-bad.openapi.json"], "{stderr}");
}
