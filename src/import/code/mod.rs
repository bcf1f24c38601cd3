//! Retries written in application code (`retry-in-code.md`; `layers.md`): urllib3
//! and requests, tenacity, backoff, aiohttp-retry (Python); axios-retry, got, ky,
//! ofetch, Octokit (JavaScript, TypeScript); Spring Retry, Resilience4j
//! annotations, Feign (Java); Polly and Microsoft.Extensions.Http.Resilience (C#);
//! go-retryablehttp and resty (Go); reqwest-retry and backon (Rust).
//!
//! Code becomes client layers in the same model as the config importers:
//! 1. [`language`] (in `source`, since the loader needs it too): which files are source code, and a cheap text pre-check so only
//!    files that mention a retry library are parsed;
//! 2. [`parse`]: tree-sitter, bounded in size and time (a file that does not parse
//!    is skipped with a note, never RL001: source code is not a spec);
//! 3. one extractor per language ([`python`], [`javascript`], [`java`], [`csharp`],
//!    [`go`], [`rust`]) reads the retry clients and the HTTP calls of a file into a
//!    [`model::CodeFacts`], with library defaults named and non-literal values
//!    marked (RL019);
//! 4. [`link`]: calls in other files join the client they are made through (by the
//!    name it is stored under);
//! 5. [`lower`]: each client becomes a client-layer [`ConfigObject`] whose routes
//!    are its calls; [`crate::import::bind`] then binds it like any config.

pub mod call_labels;
pub mod csharp;
pub mod go;
pub mod java;
pub mod javascript;
pub mod link;
pub mod lower;
pub mod model;
pub mod parse;
pub mod python;
pub mod rl019_unresolved_setting;
pub mod rl208_idempotency_key_regenerated;
pub mod rust;

pub use crate::source::language::{self, Language};

use super::{ConfigObject, ImportContext, Imported};
use crate::source::boundary::ReadBoundary;
use crate::source::loader::Loaded;
use model::CodeFacts;
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

/// One parsed source file, as an extractor sees it.
pub struct CodeFile<'a> {
    /// The loaded file (path, display name, text).
    pub doc: &'a Arc<Loaded>,
    /// Its text.
    pub text: &'a str,
    /// Its language.
    pub language: Language,
    /// Its syntax tree.
    pub tree: &'a tree_sitter::Tree,
    /// The run's read boundary: every other file an extractor opens (a property
    /// file, a sibling, a `go.mod`) must pass it.
    pub boundary: &'a ReadBoundary,
}

impl CodeFile<'_> {
    /// The file's path (to find a `go.mod`, a `package.json` beside it).
    pub fn path(&self) -> &Path {
        &self.doc.file.path
    }

    /// The text of `node`.
    pub fn text_of(&self, node: tree_sitter::Node<'_>) -> &str {
        parse::node_text(node, self.text)
    }
}

/// Runs the extractor of `file`'s language.
pub fn extract(file: &CodeFile<'_>) -> CodeFacts {
    match file.language {
        Language::Python => python::extract(file),
        Language::JavaScript | Language::TypeScript | Language::Tsx => javascript::extract(file),
        Language::Java => java::extract(file),
        Language::CSharp => csharp::extract(file),
        Language::Go => go::extract(file),
        Language::Rust => rust::extract(file),
    }
}

/// Parses and extracts one file; `None` (with a note) when it was skipped.
fn read_file(
    doc: &Arc<Loaded>,
    language: Language,
    boundary: &ReadBoundary,
) -> Result<CodeFacts, String> {
    let text: &str = &doc.file.text;
    match parse::parse(language, text) {
        parse::Parsed::Tree(tree) => {
            // Comments inside calls would shift the arguments an extractor reads:
            // parse again with them blanked (offsets kept).
            if let Some(blanked) = parse::blank_inner_comments(&tree, text) {
                if let parse::Parsed::Tree(tree) = parse::parse(language, &blanked) {
                    return Ok(extract(&CodeFile {
                        doc,
                        text: &blanked,
                        language,
                        tree: &tree,
                        boundary,
                    }));
                }
            }
            Ok(extract(&CodeFile {
                doc,
                text,
                language,
                tree: &tree,
                boundary,
            }))
        }
        parse::Parsed::Skipped(why) => Err(format!("{}: skipped: {why}", doc.file.display)),
    }
}

/// `names` without those that hold another of them (`client` and `client100`
/// leave `client`): a file holds one of the names exactly when it holds one of
/// these, and the fewer and shorter the patterns, the faster every file is scanned
/// (a handful of names makes a small automaton).
fn shortest_names(names: BTreeSet<String>) -> Vec<String> {
    let mut by_length: Vec<String> = names.into_iter().collect();
    by_length.sort_by_key(String::len);
    let mut kept: Vec<String> = Vec::new();
    for name in by_length {
        if !kept.iter().any(|k| name.contains(k.as_str())) {
            kept.push(name);
        }
    }
    kept
}

/// What the code stage read.
#[derive(Debug, Default)]
pub struct CodeImported {
    /// Config objects and findings, as every importer gives them.
    pub imported: Imported,
    /// Files skipped or read partly, with why (for `--verbose`).
    pub notes: Vec<String>,
    /// Resilience4j instances (names) whose settings a client in code took and
    /// that client has calls: the code client is that instance's layer, so the
    /// config object of the same instance is not a second one (nor unbound).
    pub instances_used: Vec<String>,
}

/// Reads the retry clients of `files` (source files that passed the pre-check),
/// links calls across them and across `more` (other source files of the run,
/// loaded with `load` only when they mention a client's name), and lowers every
/// client to a config object. `configs` are the objects the config importers read
/// (a Resilience4j `@Retry(name)` takes its settings from its instance there).
/// Never panics on bad input; files are read in parallel.
pub fn import_all(
    files: &[(Arc<Loaded>, Language)],
    more: &[(std::path::PathBuf, Language)],
    load: &(dyn Fn(&Path) -> Option<Arc<Loaded>> + Sync),
    boundary: &ReadBoundary,
    configs: &[ConfigObject],
    _ctx: &ImportContext<'_>,
) -> CodeImported {
    let mut out = CodeImported::default();
    // A file reached twice (named, and found again by the walk of its project as
    // `./path`) is read once.
    let mut seen = std::collections::HashSet::new();
    let files: Vec<(Arc<Loaded>, Language)> = files
        .iter()
        .filter(|(doc, _)| seen.insert(doc.file.path.clone()))
        .cloned()
        .collect();
    let files = &files[..];
    let read: Vec<Result<CodeFacts, String>> = crate::timing::phase("import/code read", || {
        files
            .par_iter()
            .map(|(doc, language)| read_file(doc, *language, boundary))
            .collect()
    });
    let mut docs: Vec<Arc<Loaded>> = Vec::new();
    let mut facts: Vec<CodeFacts> = Vec::new();
    for ((doc, _), r) in files.iter().zip(read) {
        match r {
            Ok(f) => {
                docs.push(doc.clone());
                facts.push(f);
            }
            Err(note) => out.notes.push(note),
        }
    }
    // Files that mention no retry library but call through a client by name.
    let names: BTreeSet<String> = facts
        .iter()
        .flat_map(|f| &f.clients)
        .flat_map(|c| &c.names)
        // A factory `makeHttp()` is called with arguments: look for its name.
        .map(|(n, _)| {
            link::last_segment(n)
                .trim_end_matches("()")
                .to_ascii_lowercase()
        })
        .filter(|n| n.len() >= 3)
        .collect();
    // One automaton for every name: a scan per file, not per name.
    let names = shortest_names(names);
    let finder = (!names.is_empty())
        .then(|| {
            aho_corasick::AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(&names)
                .ok()
        })
        .flatten();
    if let Some(finder) = finder {
        let extra: Vec<(Arc<Loaded>, CodeFacts)> =
            crate::timing::phase("import/code calls", || {
                // One buffer per worker: the bytes of a file that names no
                // client (most of them) are dropped at once.
                more.par_iter()
                    .map_init(Vec::new, |bytes, (path, language)| {
                        if !boundary.admits(path) {
                            return None;
                        }
                        crate::source::loader::read_regular_file_into(
                            path,
                            parse::MAX_SOURCE_BYTES as u64,
                            bytes,
                        )
                        .ok()?;
                        if !finder.is_match(&bytes[..]) {
                            return None;
                        }
                        let doc = load(path)?;
                        let mut f = read_file(&doc, *language, boundary).ok()?;
                        // Only its calls matter: its clients were not pre-checked as such.
                        f.clients.clear();
                        (!f.calls.is_empty() || !f.base_urls.is_empty()).then_some((doc, f))
                    })
                    .flatten()
                    .collect()
            });
        for (doc, f) in extra {
            docs.push(doc);
            facts.push(f);
        }
    }
    for f in &mut facts {
        out.notes.append(&mut f.notes);
    }
    link::apply_base_urls(&mut facts);
    let linked = link::link(&facts);
    // Each file's located tree, over the spans its clients and calls use.
    let mut spans: Vec<BTreeSet<(usize, usize)>> = vec![BTreeSet::new(); facts.len()];
    for (fi, f) in facts.iter().enumerate() {
        for (ci, c) in f.clients.iter().enumerate() {
            lower::client_spans(c, &mut spans[fi]);
            for (g, call) in &linked[fi][ci] {
                lower::call_span(call, &mut spans[*g]);
            }
        }
    }
    let located: Vec<lower::Located> = docs
        .iter()
        .zip(&spans)
        .map(|(doc, s)| lower::Located::new(doc, s))
        .collect();
    for (fi, f) in facts.iter().enumerate() {
        for (ci, c) in f.clients.iter().enumerate() {
            let calls: Vec<(&lower::Located, &model::CallSite)> = linked[fi][ci]
                .iter()
                .map(|(g, call)| (&located[*g], call))
                .collect();
            let instance = c.instance.as_ref().and_then(|(name, _)| {
                configs.iter().find(|o| {
                    o.platform == super::Platform::Resilience4j
                        && o.names.iter().any(|n| n.value == *name)
                })
            });
            if let (Some(o), Some((name, _))) = (instance, &c.instance) {
                if !(c.calls.is_empty() && calls.is_empty()) {
                    debug_assert!(o.platform == super::Platform::Resilience4j);
                    out.instances_used.push(name.clone());
                }
            }
            let lowered = lower::lower(
                c,
                &located[fi],
                &calls,
                instance.and_then(|o| o.routes.first()),
            );
            out.imported.objects.push(lowered.object);
            out.imported.diagnostics.extend(lowered.diagnostics);
        }
    }
    out
}
