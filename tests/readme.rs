//! Every command that README.md and the documentation site's pages (`docs/**/*.md`)
//! claim to run does run, from a fresh clone, with the exit code and output they show;
//! README stays a landing page; every page of `docs/` is in the site's table of
//! contents (`docs/SUMMARY.md`) and every entry there is a page.
//!
//! What counts as a claim (the convention is stated in README's "Documentation"
//! section):
//! - a fenced block marked `sh`: every line is a command, run from the repository
//!   root (`\` continues a line). `cargo run --release -- ARGS` and `retrylint ARGS`
//!   run this build's binary; `cargo test` is this suite and is skipped. A trailing
//!   `# exit N` gives the expected exit code (default 0). `scripts/...` lines (minutes
//!   long, run by `.ci/run`) are only checked to name an executable script.
//! - a transcript: a `$ retrylint ARGS` line in any fenced block, followed by the
//!   output it shows (up to the next `$ ` line or the end of the block). The
//!   command runs as above and its standard output, then its standard error, must
//!   equal the lines shown (trailing white space ignored). `# exit N` works here too.
//!
//! Blocks marked anything else (`yaml`, `text`, no marker without `$ `) are examples
//! of files or syntax and are not run.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fenced block: its info string, the 1-based line of its opening fence, its lines.
struct Block {
    info: String,
    line: usize,
    lines: Vec<String>,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        let fence = line.trim_start().starts_with("```");
        match (&mut open, fence) {
            (None, true) => {
                open = Some(Block {
                    info: line.trim_start().trim_start_matches('`').trim().to_string(),
                    line: i + 1,
                    lines: Vec::new(),
                })
            }
            (Some(_), true) => out.push(open.take().unwrap()),
            (Some(b), false) => b.lines.push(line.to_string()),
            (None, false) => {}
        }
    }
    out
}

/// One command a document claims to run.
#[derive(Debug)]
struct Claim {
    /// `README.md:15`, for the failure message.
    at: String,
    args: Vec<String>,
    exit: i32,
    /// The standard output shown under a transcript line.
    output: Option<String>,
}

/// Splits `# exit N` (and any comment after N) off a command line.
fn expected_exit(command: &str) -> (String, i32) {
    match command.rsplit_once("# exit ") {
        Some((cmd, rest)) => {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            let code = digits.parse().expect("`# exit N` takes a number");
            (cmd.trim().to_string(), code)
        }
        None => (command.trim().to_string(), 0),
    }
}

/// The binary's arguments for a command line, or `None` for lines this suite skips.
fn binary_args(command: &str, at: &str) -> Option<Vec<String>> {
    let words = shlex::split(command).unwrap_or_else(|| panic!("{at}: unbalanced quotes"));
    let rest = match words.as_slice() {
        [cargo, test, ..] if cargo == "cargo" && test == "test" => return None,
        [cargo, run, release, dashes, rest @ ..]
            if cargo == "cargo" && run == "run" && release == "--release" && dashes == "--" =>
        {
            rest
        }
        [tool, rest @ ..] if tool == "retrylint" => rest,
        // The project's own scripts (benchmarks, corpus runs) take minutes and fetch
        // packages: they are checked to exist and be executable, and run by .ci/run.
        [script, ..] if script.starts_with("scripts/") => {
            let path = repo().join(script);
            assert!(
                is_executable(&path),
                "{at}: `{script}` is not an executable file"
            );
            return None;
        }
        _ => panic!("{at}: `{command}` is in a runnable block but is not a retrylint command"),
    };
    Some(rest.to_vec())
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

fn claims(doc: &Path) -> Vec<Claim> {
    let text = std::fs::read_to_string(doc).expect("document reads");
    let name = doc
        .strip_prefix(repo())
        .unwrap_or(doc)
        .display()
        .to_string();
    let mut out = Vec::new();
    for block in blocks(&text) {
        if block.info == "sh" {
            let mut joined = String::new();
            for (i, line) in block.lines.iter().enumerate() {
                let at = format!("{name}:{}", block.line + 1 + i);
                if let Some(cont) = line.strip_suffix('\\') {
                    joined.push_str(cont);
                    continue;
                }
                joined.push_str(line);
                let (command, exit) = expected_exit(&std::mem::take(&mut joined));
                if command.is_empty() || command.starts_with('#') {
                    continue;
                }
                if let Some(args) = binary_args(&command, &at) {
                    out.push(Claim {
                        at,
                        args,
                        exit,
                        output: None,
                    });
                }
            }
            continue;
        }
        let mut i = 0;
        while i < block.lines.len() {
            let Some(command) = block.lines[i].strip_prefix("$ retrylint ") else {
                i += 1;
                continue;
            };
            let at = format!("{name}:{}", block.line + 1 + i);
            let (command, exit) = expected_exit(&format!("retrylint {command}"));
            let args = binary_args(&command, &at).expect("a retrylint command");
            let shown: Vec<&str> = block.lines[i + 1..]
                .iter()
                .take_while(|l| !l.starts_with("$ "))
                .map(|l| l.trim_end())
                .collect();
            i += 1 + shown.len();
            out.push(Claim {
                at,
                args,
                exit,
                output: Some(shown.join("\n")),
            });
        }
    }
    out
}

/// README.md, then every Markdown page under `docs/` (folders included), sorted.
fn documents() -> Vec<PathBuf> {
    let mut docs = vec![repo().join("README.md")];
    docs.extend(pages(&repo().join("docs")));
    docs
}

/// Every `.md` file under `dir`, at any depth, sorted.
fn pages(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_runnable_command_in_the_docs_runs_as_shown() {
    let mut failures = Vec::new();
    let mut count = 0;
    for doc in documents() {
        for claim in claims(&doc) {
            count += 1;
            let out = Command::new(env!("CARGO_BIN_EXE_retrylint"))
                .args(&claim.args)
                .current_dir(repo())
                .env("NO_COLOR", "1")
                .env_remove("GITHUB_WORKSPACE")
                .output()
                .expect("binary runs");
            let code = out.status.code().unwrap_or(-1);
            if code != claim.exit {
                failures.push(format!(
                    "{}: `retrylint {}` exited {code}, the docs say {}\n{}",
                    claim.at,
                    claim.args.join(" "),
                    claim.exit,
                    String::from_utf8_lossy(&out.stderr)
                ));
                continue;
            }
            if let Some(shown) = &claim.output {
                // What a terminal shows: standard output, then standard error.
                let got = format!(
                    "{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
                let got: Vec<&str> = got.lines().map(str::trim_end).collect();
                let got = got.join("\n");
                if got.trim_end() != shown.trim_end() {
                    failures.push(format!(
                        "{}: the output of `retrylint {}` differs from the docs.\n--- shown\n{shown}\n--- actual\n{got}",
                        claim.at,
                        claim.args.join(" ")
                    ));
                }
            }
        }
    }
    assert!(
        count >= 5,
        "found only {count} runnable commands: is the convention still used?"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn claims_are_parsed_from_sh_blocks_and_transcripts() {
    let dir = std::env::temp_dir().join(format!("retrylint-readme-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let doc = dir.join("doc.md");
    std::fs::write(
        &doc,
        "```sh\ncargo run --release -- check a \\\n  b   # exit 1: a comment\ncargo test\n```\n\
         ```yaml\nretrylint: not run\n```\n\
         ```\n$ retrylint rules --json   # exit 0\nline one\n$ retrylint rule RL201\n```\n",
    )
    .unwrap();
    let got = claims(&doc);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(got[0].args, ["check", "a", "b"]);
    assert_eq!(got[0].exit, 1);
    assert_eq!(got[1].args, ["rules", "--json"]);
    assert_eq!(got[1].output.as_deref(), Some("line one"));
    assert_eq!(got[2].output.as_deref(), Some(""));
}

/// README is the landing page (what it is, a finding, install, the two commands, the
/// inputs, where to read on); the manual is the site under `docs/`.
#[test]
fn readme_is_a_landing_page() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines (at most 250): move sections to a page under docs/"
    );
    // The two commands .ci/run and the Quick start share.
    for command in [
        "cargo run --release -- check fixtures/examples/shop   # exit 1",
        "cargo test",
    ] {
        assert!(
            readme.lines().any(|l| l == command),
            "README's Quick start lost `{command}`"
        );
    }
}

/// README's count of rules is the number of rule pages (one page per rule) of the
/// six groups `check` reports; the observed-behaviour rules of `retrylint probe`
/// (RL6xx) are a group of their own, never reported by `check`.
#[test]
fn readme_counts_the_rules_there_are() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let pages = std::fs::read_dir(repo().join("rules"))
        .unwrap()
        .filter(|e| {
            let name = e.as_ref().unwrap().file_name();
            let name = name.to_string_lossy();
            name.starts_with("RL") && !name.starts_with("RL6") && name.ends_with(".md")
        })
        .count();
    let claim = format!("{pages} rules in six groups");
    assert!(
        readme.contains(&claim),
        "README must say `{claim}` (rules/ holds {pages} rule pages)"
    );
}

/// The chapters of `docs/SUMMARY.md` (paths as the assembled site has them: `docs/…`
/// for pages of `docs/`, `rules/…` added by scripts/docs_assemble.py).
fn summary_chapters() -> Vec<String> {
    let summary = std::fs::read_to_string(repo().join("docs/SUMMARY.md")).unwrap();
    let link = regex_lite::Regex::new(r"\]\(([^)]+\.md)\)").unwrap();
    link.captures_iter(&summary)
        .map(|c| c[1].to_string())
        .collect()
}

#[test]
fn every_page_is_in_the_site_and_every_chapter_is_a_page() {
    let chapters = summary_chapters();
    let mut failures = Vec::new();
    for chapter in &chapters {
        let Some(rel) = chapter.strip_prefix("docs/") else {
            failures.push(format!("docs/SUMMARY.md: `{chapter}` is not under docs/"));
            continue;
        };
        if !repo().join("docs").join(rel).is_file() {
            failures.push(format!("docs/SUMMARY.md: `{chapter}` has no page"));
        }
    }
    for page in pages(&repo().join("docs")) {
        let rel = page
            .strip_prefix(repo())
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel != "docs/SUMMARY.md" && !chapters.contains(&rel) {
            failures.push(format!("{rel} is in no chapter of docs/SUMMARY.md"));
        }
    }
    assert!(chapters.len() >= 20, "only {} chapters", chapters.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The configuration page names every key `.retrylint.yaml` reads (the key lists the
/// strict reader of `src/config.rs` accepts), as `key:` in one of its YAML examples.
#[test]
fn the_configuration_page_names_every_key() {
    use retrylint::config;
    let page = std::fs::read_to_string(repo().join("docs/configuration.md")).unwrap();
    let yaml: String = blocks(&page)
        .into_iter()
        .filter(|b| b.info == "yaml")
        .flat_map(|b| b.lines)
        .collect::<Vec<_>>()
        .join("\n");
    let mut missing = Vec::new();
    for key in config::TOP_KEYS
        .iter()
        .chain(config::SERVICE_KEYS)
        .chain(config::PLATFORM_KEYS)
        .chain(config::ISTIO_KEYS)
        .chain(config::GATEWAY_API_KEYS)
        .chain(config::THRESHOLD_KEYS)
    {
        let spelled = regex_lite::Regex::new(&format!(r"(^|[\s{{,-]){key}:")).unwrap();
        if !spelled.is_match(&yaml) {
            missing.push(*key);
        }
    }
    assert!(
        missing.is_empty(),
        "docs/configuration.md's examples lack the keys {missing:?}"
    );
}
