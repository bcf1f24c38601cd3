//! The API read from the server's own code when no OpenAPI document describes it
//! (issue 41): route declarations become operations of the run, so the retry
//! configs in front of a service (a gateway's `Retry` filter, a mesh route) bind to
//! them by host and the operation rules (RL201 and the rest) judge them as they
//! judge a spec's.
//!
//! 1. every source file of the run whose text may declare routes (a cheap text
//!    check per framework) is parsed with the project's tree-sitter grammars;
//! 2. a reader per framework ([`spring`]) gives its [`ServerRoute`]s: method, path
//!    template in `{name}` syntax, the declaration's span, required key headers;
//! 3. each file's routes belong to a service ([`service`]: Spring's
//!    `spring.application.name`, else the folder of the module) and become one
//!    [`document`] served at `http://<service>`, so `lb://<service>` and
//!    `http://<service>` routes bind by host as they do for a spec's `servers`;
//! 4. a service that a written document already serves (a `servers` host, Swagger
//!    `host`) is not read: the spec wins.
//!
//! What is not read is listed on the docs page `docs/languages/server-routes.md`.

pub mod aspnet;
pub mod document;
pub mod express;
pub mod fastapi;
pub mod go_http;
pub mod proto_api;
pub mod route;
pub mod service;
pub mod spring;
pub mod syntax;

pub use route::ServerRoute;

use crate::diagnostic::Diagnostic;
use crate::import::code::{parse, CodeFile, Language};
use crate::openapi::model::{Document, PathMatching};
use crate::source::loader::{Loaded, Workspace};
use crate::source::refs::Resolver;
use rayon::prelude::*;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Text a source file of `language` must hold to be parsed for routes.
fn markers(language: Language) -> &'static [&'static str] {
    match language {
        Language::Java => spring::MARKERS,
        Language::Go => go_http::MARKERS,
        Language::CSharp => aspnet::MARKERS,
        Language::Python => fastapi::MARKERS,
        Language::JavaScript | Language::TypeScript | Language::Tsx => express::MARKERS,
        _ => &[],
    }
}

/// Whether a source file of `language` whose bytes are `bytes` may declare routes:
/// it holds one of its framework's markers. The pre-check asks this of the bytes
/// it reads anyway, so [`documents`] opens only the files that pass. Text in a wide
/// encoding (UTF-16, UTF-32) is decoded before it is read: it may.
pub fn may_declare_routes(language: Language, bytes: &[u8]) -> bool {
    let markers = markers(language);
    !markers.is_empty()
        && (crate::source::encoding::WideEncoding::detect(bytes).is_some()
            || markers
                .iter()
                .any(|m| memchr::memmem::find(bytes, m.as_bytes()).is_some()))
}

/// The routes of one parsed file, by its language's framework readers.
fn routes(file: &CodeFile<'_>) -> Vec<ServerRoute> {
    match file.language {
        Language::Java => spring::routes(file),
        Language::Go => go_http::routes(file),
        Language::CSharp => aspnet::routes(file),
        Language::Python => fastapi::routes(file),
        Language::JavaScript | Language::TypeScript | Language::Tsx => express::routes(file),
        _ => Vec::new(),
    }
}

/// How the framework of a `language` file matches request paths to its routes.
/// ASP.NET Core routing compares literal segments case-insensitively and takes
/// `/path/` for `/path` (docs "Routing in ASP.NET Core", route templates: "text
/// matching is case-insensitive"; dotnet/aspnetcore#4220 on the trailing slash).
/// The other readers' frameworks match as written: Spring 6 no longer matches a
/// trailing slash, gorilla/mux and Go's `ServeMux` are case-sensitive and tell
/// `/x/` from `/x`, FastAPI answers `/x/` with a redirect; Express would be
/// lenient but the same reader reads Fastify, which is not.
fn path_matching(language: Language) -> PathMatching {
    match language {
        Language::CSharp => PathMatching {
            any_case: true,
            trailing_slash_optional: true,
        },
        _ => PathMatching::default(),
    }
}

/// The documents read from the server code among `sources` (every source file of
/// the run, each once), for services no document of `specs` serves, by a server
/// host or by a name the repository gives a spec (`spec_names`: its Spring
/// application, Compose service or Aspire project name). `root` bounds
/// nothing here (no `$ref` in a built document) but the model's resolver needs
/// one. `without_routes`: files the pre-check read and found no marker in
/// ([`may_declare_routes`]), counted as read but not opened again. Files are read
/// in parallel; a file that does not parse is skipped. Never panics on bad input.
pub fn documents(
    sources: &[(PathBuf, Language)],
    without_routes: &HashSet<PathBuf>,
    ws: &Workspace,
    root: &Path,
    specs: &[Document],
    spec_names: &[String],
) -> Vec<Document> {
    let mut served = service::served_hosts(specs);
    served.extend(spec_names.iter().cloned());
    let boundary = ws.boundary();
    let mut seen = BTreeSet::new();
    let sources: Vec<&(PathBuf, Language)> = sources
        .iter()
        .filter(|(p, l)| !markers(*l).is_empty() && seen.insert(p.clone()))
        .collect();
    let read: Vec<(Arc<Loaded>, String, Vec<ServerRoute>, Language)> = sources
        .par_iter()
        .filter_map(|(path, language)| {
            if !boundary.admits(path) {
                return None;
            }
            if without_routes.contains(path) {
                ws.note_read(path);
                return None;
            }
            let doc = ws.load(path);
            let text: &str = &doc.file.text;
            if !markers(*language).iter().any(|m| text.contains(m)) {
                return None;
            }
            let parse::Parsed::Tree(tree) = parse::parse(*language, text) else {
                return None;
            };
            let found = routes(&CodeFile {
                doc: &doc,
                text,
                language: *language,
                tree: &tree,
                boundary,
            });
            if found.is_empty() {
                return None;
            }
            let name = service::name(&doc.file.path, *language, boundary);
            Some((doc, name, found, *language))
        })
        .collect();
    let resolver = Resolver::new(ws, root);
    let mut out: Vec<Document> = read
        .into_iter()
        .filter(|(_, name, _, _)| !service::is_served(name, &served))
        .filter_map(|(doc, name, found, language)| {
            let mut d = document::document(&resolver, &doc, &name, &found)?;
            d.path_matching = path_matching(language);
            Some(d)
        })
        .collect();
    out.sort_by(|a, b| a.doc.file.path.cmp(&b.doc.file.path));
    out
}

/// Findings on operations read from server code: those of the spec rules about
/// documented responses (RL5xx: a 409 or a `Retry-After` the spec should declare)
/// are dropped, since code declares no responses; every other finding that
/// concerns such an operation says where it was read ("operation read from
/// `OwnerResource.java:42`; no OpenAPI document describes it"), once per
/// operation, as a note in its help.
pub fn note_read_operations(diagnostics: &mut Vec<Diagnostic>, documents: &[Document]) {
    // One declaration may hold several operations (gorilla/mux
    // `.Methods(http.MethodGet, http.MethodHead)`): named together.
    let mut by_node: HashMap<(&Path, usize, usize), (String, Vec<String>)> = HashMap::new();
    for d in documents.iter().filter(|d| d.server_code.is_some()) {
        for op in &d.operations {
            let loc = op.at.location();
            let file = &op.at.doc.file;
            let name = file.path.file_name().map_or_else(
                || file.display.clone(),
                |n| n.to_string_lossy().into_owned(),
            );
            let line = file.text[..loc.span.start.min(file.text.len())]
                .bytes()
                .filter(|&b| b == b'\n')
                .count()
                + 1;
            let entry = by_node
                .entry((file.path.as_path(), loc.span.start, loc.span.end))
                .or_insert_with(|| (format!("{name}:{line}"), Vec::new()));
            entry.1.push(format!("`{}`", op.display()));
        }
    }
    let by_node: HashMap<(&Path, usize, usize), String> = by_node
        .into_iter()
        .map(|(k, (at, ops))| {
            let (text, them) = match ops.as_slice() {
                [one] => (format!("operation {one}"), "it"),
                [rest @ .., last] => (format!("operations {} and {last}", rest.join(", ")), "them"),
                [] => (String::new(), "it"),
            };
            (
                k,
                format!("{text} read from `{at}`; no OpenAPI document describes {them}"),
            )
        })
        .collect();
    if by_node.is_empty() {
        return;
    }
    let read_files: BTreeSet<&Path> = documents
        .iter()
        .filter(|d| d.server_code.is_some())
        .map(|d| d.doc.file.path.as_path())
        .collect();
    diagnostics.retain(|d| {
        !(d.code.starts_with("RL5") && read_files.contains(d.primary.location.file.path.as_path()))
    });
    for d in diagnostics.iter_mut() {
        let mut added: Vec<&str> = Vec::new();
        for l in std::iter::once(&d.primary).chain(&d.labels) {
            let key = (
                l.location.file.path.as_path(),
                l.location.span.start,
                l.location.span.end,
            );
            if let Some(text) = by_node.get(&key) {
                if !added.contains(&text.as_str()) {
                    added.push(text);
                }
            }
        }
        if added.is_empty() {
            continue;
        }
        let mut help = d.help.take().map(|h| h.to_string()).unwrap_or_default();
        for text in added {
            if !help.is_empty() {
                help.push('\n');
            }
            help.push_str("note: ");
            help.push_str(text);
        }
        d.help = Some(crate::diagnostic::shared_text(help));
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Parses a small source text and reads its routes, for the readers' tests.
    use super::*;
    use crate::source::loader::Limits;

    /// The routes of `src` read as a file `name` of `language`.
    pub fn routes_of(language: Language, name: &str, src: &str) -> Vec<ServerRoute> {
        let ws = Workspace::new(PathBuf::from("/"), Limits::default());
        let doc = ws.load_text(&Path::new("/t").join(name), src);
        let parse::Parsed::Tree(tree) = parse::parse(language, src) else {
            panic!("parses");
        };
        routes(&CodeFile {
            doc: &doc,
            text: src,
            language,
            tree: &tree,
            boundary: &crate::source::boundary::ReadBoundary::unbounded(),
        })
    }
}
