//! `retrylint init SPEC...`: writes a starter retry policy for the operations of the
//! specs ([`crate::report::starter_policy`]): what the specs and the retry configs
//! bound to them answer, every open question as `todo`. The specs and configs are
//! read as `retrylint check SPEC` reads them (the configs of the spec's project, the
//! `services:` of `.retrylint.yaml`), written policies aside: the starter is a new
//! policy, not a merge with an old one.

use super::{fail, load_config, EXIT_ERROR};
use crate::check::{analyze, CheckOptions};
use crate::cli::{InitArgs, InitLayer};
use crate::policy::model::Layer;
use crate::report::starter_policy::{render, StarterOptions};
use crate::source::loader::{Limits, Workspace};
use crate::write;
use std::path::{Path, PathBuf};

/// The file name written beside the spec when no `-o` is given (one `check` finds
/// when it walks the folder: docs/policy-format.md "Recognising a policy file").
pub const DEFAULT_NAME: &str = "retry-policy.yaml";

/// `retrylint init`: 0 when the policy was written, 2 for a usage error, an existing
/// output file, or a spec that could not be read.
pub fn run(args: &InitArgs) -> u8 {
    if let Err(code) = super::check_root(args.root.as_deref()) {
        return code;
    }
    let layer = match args.layer {
        InitLayer::Client => Layer::Client,
        InitLayer::Gateway => Layer::Gateway,
        InitLayer::Mesh => Layer::Mesh,
    };
    let mut named: Vec<PathBuf> = Vec::new();
    for s in &args.specs {
        match std::fs::canonicalize(s) {
            Ok(p) => named.push(p),
            Err(e) => return fail(format!("cannot read {}: {e}", s.display())),
        }
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    // The file to write; `None` for standard output (`-o -`).
    let output: Option<PathBuf> = match args.output.as_deref() {
        None => Some(spec_folder(&named[0]).join(DEFAULT_NAME)),
        given => write::Target::of(given).file().map(|o| cwd.join(o)),
    };
    if let Some(out) = &output {
        if out.exists() {
            return fail(format!(
                "{} already exists; init never overwrites a file (choose another with -o FILE, or -o - for standard output)",
                shown(out, &cwd)
            ));
        }
    }
    let config = match load_config(None, &args.specs) {
        Ok(c) => c,
        Err(code) => return code,
    };
    // The retry configs bound to the specs are looked for in `--root`, else the folder
    // of the `.retrylint.yaml` that applies (the project it configures), else the
    // first spec's folder (not the whole git work tree: a monorepo's walk would cost
    // seconds for a starter file). Only the named specs' operations are written.
    let scope = args
        .root
        .clone()
        .or_else(|| {
            config
                .path
                .as_deref()
                .and_then(Path::parent)
                .map(Path::to_path_buf)
        })
        .unwrap_or_else(|| spec_folder(&named[0]));
    let mut paths = vec![scope];
    paths.extend(named.iter().cloned());
    let analyzed = analyze(&CheckOptions {
        paths,
        root: args.root.clone(),
        cwd: Some(cwd.clone()),
        services: config.services.clone(),
        platforms: config.platforms.clone(),
        explicit_policies_only: true,
        related: true,
        ..CheckOptions::default()
    });
    let within = |p: &Path| named.iter().any(|n| p == n || p.starts_with(n));
    // A spec that does not parse gives no operations: say so rather than write a
    // policy that silently leaves them out.
    let unreadable: Vec<String> = analyzed
        .diagnostics
        .iter()
        .filter(|d| d.code == "RL001" && within(&d.primary.location.file.path))
        .map(|d| format!("{}: {}", d.primary.location.position(), d.message))
        .collect();
    if !unreadable.is_empty() {
        for u in &unreadable {
            write::errln(u);
        }
        return fail("a spec could not be read; nothing was written");
    }
    let documents: Vec<usize> = analyzed
        .documents
        .iter()
        .enumerate()
        .filter(|(_, d)| within(&d.doc.file.path))
        .map(|(i, _)| i)
        .collect();
    if documents.is_empty() {
        let names: Vec<String> = args.specs.iter().map(|s| s.display().to_string()).collect();
        return fail(format!(
            "no OpenAPI document in {}; nothing was written",
            names.join(", ")
        ));
    }
    // `spec:` is relative to the folder the policy is written to.
    let base = output
        .as_deref()
        .and_then(Path::parent)
        .map_or_else(|| cwd.clone(), Path::to_path_buf);
    let beside = Workspace::new(base, Limits::default());
    let spec: Vec<String> = documents
        .iter()
        .map(|&d| beside.display_path(&analyzed.documents[d].doc.file.path))
        .collect();
    let mut text = format!(
        "# A starter {} retry policy for {}, written by `retrylint init`.\n\
         # Filled in: what the spec and its retry configs answer. Every readiness question\n\
         # they do not answer is `todo`: `retrylint check` reports each as RL018\n\
         # (unanswered-question) until you replace it, and reads it as unanswered, never\n\
         # as a safe value. docs/policy-format.md describes every key.\n",
        layer.as_str(),
        spec.join(", ")
    );
    text.push_str(&render(
        &analyzed.documents,
        &analyzed.analysis,
        &StarterOptions {
            layer,
            documents: &documents,
            spec: &spec,
        },
    ));
    let Some(out) = output else {
        write::out(&text);
        return 0;
    };
    // Whole or not at all, and never over a file, even one that appeared since the
    // check above.
    match write::create_file(&out, |f| f.write_all(text.as_bytes())) {
        Ok(()) => {
            let todos = text
                .lines()
                .filter(|l| {
                    l.split('#')
                        .next()
                        .is_some_and(|v| v.trim_end().ends_with(": todo"))
                })
                .count();
            write::errln(format_args!(
                "retrylint: wrote {} ({todos} open question{}: `retrylint check` reports each as RL018)",
                shown(&out, &cwd),
                if todos == 1 { "" } else { "s" }
            ));
            0
        }
        Err(e) if e.already_exists() => fail(format!(
            "{} already exists; init never overwrites a file",
            shown(&out, &cwd)
        )),
        Err(e) => {
            write::errln(format_args!(
                "retrylint: cannot write {}: {}",
                shown(&out, &cwd),
                write::reason(&e.error)
            ));
            EXIT_ERROR
        }
    }
}

/// The folder of a spec (the spec itself when it is a folder).
fn spec_folder(spec: &Path) -> PathBuf {
    if spec.is_dir() {
        spec.to_path_buf()
    } else {
        spec.parent().map(Path::to_path_buf).unwrap_or_default()
    }
}

/// A path as the user sees it (relative to the current directory when inside it).
fn shown(p: &Path, cwd: &Path) -> String {
    Workspace::new(cwd.to_path_buf(), Limits::default()).display_path(p)
}
