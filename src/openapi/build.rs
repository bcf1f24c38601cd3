//! Builds the endpoint [`Document`] from a located tree, following `$ref`s through the
//! [`Resolver`], and the whole-file input checks (RL002, RL003, RL004, RL011, RL014) over the
//! root file and every file reached through `$ref`s.
//!
//! Model elements point at their definitions (the resolved node), never at the line
//! that refers to them. Every `$ref` the model follows and cannot resolve is RL003 or
//! RL004 at the `$ref` value node (underlined at its `$ref` key).

use crate::diagnostic::Diagnostic;
use crate::openapi::literal::in_literal_value;
use crate::openapi::model::{
    Document, Header, Operation, Parameter, Response, SpecVersion, StatusKey,
};
use crate::openapi::{
    rl007_unsupported_document, rl009_duplicate_parameter, rl011_ref_siblings_ignored,
    rl012_invalid_status_key,
};
use crate::source::loader::Loaded;
use crate::source::pointer::parse_ref;
use crate::source::refs::{normalize, At, RefProblem, Resolver};
use crate::source::tree::{Kind, NodeId, Tree};
use crate::source::{
    rl001_invalid_syntax, rl002_duplicate_key, rl003_unresolved_ref, rl004_ref_cycle,
    rl014_multiple_documents,
};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// True when the file's root mapping has an `openapi` or `swagger` key.
pub fn is_openapi(tree: &Tree) -> bool {
    tree.root().is_some_and(|r| {
        tree.kind(r) == Kind::Map
            && (tree.get(r, "openapi").is_some() || tree.get(r, "swagger").is_some())
    })
}

/// The finding for a `$ref` that does not lead to a value: RL004 for a cycle, else
/// RL003.
pub fn ref_problem_diagnostic(problem: &RefProblem) -> Diagnostic {
    rl004_ref_cycle::diagnostic(problem)
        .or_else(|| rl003_unresolved_ref::diagnostic(problem))
        .expect("every ref problem maps to RL003 or RL004")
}

/// Reads the version: `Ok(None)` when the file is not an OpenAPI document, `Err`
/// (RL007) when the version is unsupported.
fn version_of(
    doc: &Arc<Loaded>,
    tree: &Tree,
    root: NodeId,
) -> Result<Option<SpecVersion>, Box<Diagnostic>> {
    if let Some(v) = tree.get(root, "openapi") {
        let text = tree.scalar(v).unwrap_or("").trim();
        let minor = |prefix: &str| {
            text == prefix
                || text
                    .strip_prefix(prefix)
                    .and_then(|r| r.strip_prefix('.'))
                    .is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        };
        return if minor("3.0") {
            Ok(Some(SpecVersion::OpenApi30))
        } else if minor("3.1") {
            Ok(Some(SpecVersion::OpenApi31))
        } else {
            Err(Box::new(rl007_unsupported_document::unsupported_version(
                &At::new(doc, v),
                "openapi",
                text,
            )))
        };
    }
    if let Some(v) = tree.get(root, "swagger") {
        let text = tree.scalar(v).unwrap_or("").trim();
        return if text == "2.0" {
            Ok(Some(SpecVersion::Swagger2))
        } else {
            Err(Box::new(rl007_unsupported_document::unsupported_version(
                &At::new(doc, v),
                "swagger",
                text,
            )))
        };
    }
    Ok(None)
}

/// Builds the model of one OpenAPI document. Returns `None` (and no findings) for a
/// file that has no tree or is not an OpenAPI document; `None` with RL007 for an
/// unsupported version. The findings are those the model meets: RL003/RL004 for refs
/// it follows, RL007 (3.0 webhooks), RL009, RL012.
pub fn build_document(
    resolver: &Resolver,
    doc: &Arc<Loaded>,
) -> (Option<Document>, Vec<Diagnostic>) {
    let Ok(tree) = &doc.tree else {
        return (None, Vec::new());
    };
    let Some(root) = tree.root().filter(|&r| tree.kind(r) == Kind::Map) else {
        return (None, Vec::new());
    };
    let version = match version_of(doc, tree, root) {
        Ok(Some(v)) => v,
        Ok(None) => return (None, Vec::new()),
        Err(d) => return (None, vec![*d]),
    };
    if version == SpecVersion::OpenApi31 {
        // Schema Objects are JSON Schema 2020-12: refs may name a `$id` or `$anchor`.
        resolver.enable_schema_ids(doc);
    }
    let mut b = Builder {
        resolver,
        version,
        diags: Vec::new(),
    };
    let root_at = At::new(doc, root);
    let operations = match child(&root_at, "paths") {
        Some(paths) => b.operations(&paths, false),
        None => Vec::new(),
    };
    let mut webhooks = Vec::new();
    if let Some(w) = child(&root_at, "webhooks") {
        match version {
            SpecVersion::OpenApi30 => b.diags.push(rl007_unsupported_document::webhooks_in_30(&w)),
            SpecVersion::OpenApi31 => webhooks = b.operations(&w, true),
            SpecVersion::Swagger2 => {}
        }
    }
    let document = Document {
        doc: doc.clone(),
        version,
        operations,
        webhooks,
        x_retry: child(&root_at, "x-retry"),
        structure_check: None,
        server_code: None,
        path_matching: Default::default(),
    };
    (Some(document), b.diags)
}

/// Everything about one OpenAPI document that does not need a policy: the model and
/// its findings, the whole-file ref check, RL002 and RL011 over the root file and
/// every file reached through `$ref`s; de-duplicated (see [`dedup_findings`]).
/// Spec rules (RL5xx) run later, over the joined model.
pub fn lint_document(
    resolver: &Resolver,
    doc: &Arc<Loaded>,
) -> (Option<Document>, Vec<Diagnostic>) {
    let (document, diags, _) = lint_document_beside(resolver, doc, |_| ());
    (document, diags)
}

/// [`lint_document`], running `beside` over the built model on another core while
/// this one scans the refs (the pipeline runs RL008's typed read there, the costly
/// part of a big 3.0 document). `beside`'s result is `None` when there is no model.
pub fn lint_document_beside<T: Send>(
    resolver: &Resolver,
    doc: &Arc<Loaded>,
    beside: impl FnOnce(&Document) -> T + Send,
) -> (Option<Document>, Vec<Diagnostic>, Option<T>) {
    let name = &doc.file.display;
    let (document, mut diags) = crate::timing::detail(format_args!("model/build {name}"), || {
        build_document(resolver, doc)
    });
    let mut extra = None;
    match &document {
        Some(d) => {
            let (value, (files, ref_diags)) = rayon::join(
                || beside(d),
                || {
                    crate::timing::detail(format_args!("model/refs {name}"), || {
                        scan_refs(resolver, doc)
                    })
                },
            );
            extra = Some(value);
            diags.extend(ref_diags);
            for file in files {
                diags.extend(rl002_duplicate_key::check_file(&file));
                diags.extend(rl011_ref_siblings_ignored::check_file(&file, d.version));
                diags.extend(rl014_multiple_documents::check_file(
                    &file,
                    rl014_multiple_documents::Role::OpenApi,
                ));
            }
        }
        None => diags.extend(rl002_duplicate_key::check_file(doc)),
    }
    dedup_findings(&mut diags);
    (document, diags, extra)
}

/// Drops repeated findings (same rule, file and span; the first one kept), then
/// sorts them with [`crate::diagnostic::sort_and_dedup`].
pub fn dedup_findings(diags: &mut Vec<Diagnostic>) {
    let mut seen: HashSet<(&'static str, PathBuf, usize, usize)> = HashSet::new();
    diags.retain(|d| {
        let l = &d.primary.location;
        seen.insert((d.code, l.file.path.clone(), l.span.start, l.span.end))
    });
    crate::diagnostic::sort_and_dedup(diags);
}

/// The root file and every file reached from it through local or relative-file
/// `$ref`s (each once, root first).
pub fn reached_files(resolver: &Resolver, doc: &Arc<Loaded>) -> Vec<Arc<Loaded>> {
    scan_refs(resolver, doc).0
}

/// Checks every `$ref` string in the root file and in every file reached from it
/// (each file once): RL003 when the target is missing, cannot be read or leaves the
/// root (`http(s)` refs are not reported here, unless a 3.1 relative ref became one
/// through an enclosing `$id`), RL004 for ref-only cycles (one
/// finding per cycle). Scans the arena, never the alias-expanded tree.
pub fn check_all_refs(resolver: &Resolver, doc: &Arc<Loaded>) -> Vec<Diagnostic> {
    scan_refs(resolver, doc).1
}

fn scan_refs(resolver: &Resolver, doc: &Arc<Loaded>) -> (Vec<Arc<Loaded>>, Vec<Diagnostic>) {
    let mut files = vec![doc.clone()];
    let mut seen: HashSet<PathBuf> = HashSet::from([doc.file.path.clone()]);
    let mut diags = Vec::new();
    let mut i = 0;
    while i < files.len() {
        let file = files[i].clone();
        i += 1;
        let Ok(tree) = &file.tree else {
            continue;
        };
        for id in tree.all_nodes() {
            if tree.kind(id) != Kind::Map {
                continue;
            }
            let Some(ref_node) = tree
                .raw_entries(id)
                .iter()
                .rev()
                .find(|&&(k, v)| tree.scalar(k) == Some("$ref") && tree.kind(v) == Kind::Str)
                .map(|&(_, v)| v)
            else {
                continue;
            };
            if in_literal_value(tree, id) {
                continue;
            }
            let ref_at = At::new(&file, ref_node);
            match resolver.target(&ref_at) {
                Ok(target) => {
                    // Most refs stay in their file: no path is hashed or copied for
                    // those.
                    if !Arc::ptr_eq(&target.doc, &file) && !seen.contains(&target.doc.file.path) {
                        seen.insert(target.doc.file.path.clone());
                        files.push(target.doc.clone());
                    }
                    if let Err(p @ RefProblem::Cycle { .. }) = resolver.deref(&At::new(&file, id)) {
                        diags.push(ref_problem_diagnostic(&p));
                    }
                }
                // A remote ref is reported where the model needs it; a relative ref
                // that an enclosing `$id` made remote was meant for this document.
                Err(RefProblem::Remote { unknown_id, .. })
                    if !unknown_id.as_ref().is_some_and(|u| u.relative) => {}
                Err(p @ RefProblem::BadFile { .. }) => {
                    diags.push(ref_problem_diagnostic(&p));
                    if let Some(target) = target_file(resolver, &ref_at) {
                        if seen.insert(target.file.path.clone()) {
                            diags.extend(rl001_invalid_syntax::diagnostic(&target));
                        }
                    }
                }
                Err(p) => diags.push(ref_problem_diagnostic(&p)),
            }
        }
    }
    (files, diags)
}

/// The loaded file a relative-file `$ref` names (already cached by the resolver).
fn target_file(resolver: &Resolver, ref_at: &At) -> Option<Arc<Loaded>> {
    let target = parse_ref(ref_at.scalar()?);
    if target.file.is_empty() || target.remote {
        return None;
    }
    let base = ref_at.doc.file.path.parent().unwrap_or(Path::new(""));
    let path = normalize(&base.join(&target.file));
    Some(resolver.workspace().load(&path))
}

fn child(at: &At, key: &str) -> Option<At> {
    let tree = at.tree()?;
    tree.get(at.node, key).map(|n| At::new(&at.doc, n))
}

fn entries(at: &At) -> Vec<(At, At)> {
    let Some(tree) = at.tree() else {
        return Vec::new();
    };
    tree.entries(at.node)
        .into_iter()
        .map(|(k, v)| (At::new(&at.doc, k), At::new(&at.doc, v)))
        .collect()
}

fn kind(at: &At) -> Option<Kind> {
    at.tree().map(|t| t.kind(at.node))
}

/// Reads a response key: `(status, lower-case range)`.
pub fn parse_status(text: &str) -> StatusKey {
    let b = text.as_bytes();
    if text == "default" {
        return StatusKey::Default;
    }
    if b.len() == 3 && (b'1'..=b'5').contains(&b[0]) {
        if b.iter().all(u8::is_ascii_digit) {
            return StatusKey::Code(text.parse().unwrap_or(0));
        }
        if b[1..].iter().all(|&c| c == b'X' || c == b'x') {
            return StatusKey::Range(b[0] - b'0');
        }
    }
    StatusKey::Invalid
}

struct Builder<'r, 'w> {
    resolver: &'r Resolver<'w>,
    version: SpecVersion,
    diags: Vec<Diagnostic>,
}

impl Builder<'_, '_> {
    fn deref(&mut self, at: &At) -> Option<At> {
        match self.resolver.deref(at) {
            Ok(a) => Some(a),
            Err(p) => {
                self.diags.push(ref_problem_diagnostic(&p));
                None
            }
        }
    }

    fn operations(&mut self, container: &At, webhooks: bool) -> Vec<Operation> {
        let mut out = Vec::new();
        if kind(container) != Some(Kind::Map) {
            return out;
        }
        for (k, v) in entries(container) {
            let path = k.scalar().unwrap_or("").to_string();
            if path.starts_with("x-") && !webhooks {
                continue;
            }
            let Some(item) = self.deref(&v) else {
                continue;
            };
            if kind(&item) != Some(Kind::Map) {
                continue;
            }
            let path_params = self.params(child(&item, "parameters"));
            for (mk, mv) in entries(&item) {
                let method = mk.scalar().unwrap_or("");
                if !METHODS.contains(&method)
                    || (self.version == SpecVersion::Swagger2 && method == "trace")
                {
                    continue;
                }
                // The specification has no `$ref` on an Operation Object, but real
                // multi-file specs (DigitalOcean: one file per operation) write one and
                // every bundler follows it: read the operation where it is defined.
                let Some(mv) = self.deref(&mv) else {
                    continue;
                };
                if kind(&mv) != Some(Kind::Map) {
                    continue;
                }
                let op_params = self.params(child(&mv, "parameters"));
                let mut params: Vec<Parameter> = path_params
                    .iter()
                    .filter(|p| {
                        !op_params
                            .iter()
                            .any(|o| rl009_duplicate_parameter::same_parameter(o, p))
                    })
                    .cloned()
                    .collect();
                params.extend(op_params);
                let mut op = Operation {
                    method: method.to_string(),
                    path: path.clone(),
                    operation_id: child(&mv, "operationId")
                        .and_then(|a| a.scalar().map(str::to_string)),
                    tags: child(&mv, "tags")
                        .and_then(|t| {
                            let tree = t.tree()?;
                            Some(
                                tree.items(t.node)
                                    .iter()
                                    .filter_map(|&i| tree.scalar(i).map(str::to_string))
                                    .collect(),
                            )
                        })
                        .unwrap_or_default(),
                    at: mv.clone(),
                    key: mk.clone(),
                    params,
                    responses: Vec::new(),
                    x_retry: child(&mv, "x-retry"),
                };
                op.responses = self.responses(&mv, &op.display());
                self.diags
                    .extend(rl009_duplicate_parameter::check_operation(&op));
                out.push(op);
            }
        }
        out
    }

    fn params(&mut self, list: Option<At>) -> Vec<Parameter> {
        let mut out = Vec::new();
        let Some(list) = list else {
            return out;
        };
        let Some(tree) = list.tree() else {
            return out;
        };
        for &item in tree.items(list.node) {
            let listed_at = At::new(&list.doc, item);
            let Some(at) = self.deref(&listed_at) else {
                continue;
            };
            let text = |k: &str| child(&at, k).and_then(|a| a.scalar().map(str::to_string));
            let (Some(name), Some(location)) = (text("name"), text("in")) else {
                continue;
            };
            let required = child(&at, "required")
                .and_then(|a| a.tree().and_then(|t| t.as_bool(a.node)))
                .unwrap_or(false);
            out.push(Parameter {
                name,
                location,
                required,
                at,
                listed_at,
                handler_key: false,
            });
        }
        out
    }

    fn responses(&mut self, op: &At, display: &str) -> Vec<Response> {
        let mut out = Vec::new();
        let Some(map) = child(op, "responses") else {
            return out;
        };
        if kind(&map) != Some(Kind::Map) {
            return out;
        }
        for (k, v) in entries(&map) {
            let key_text = k.scalar().unwrap_or("").to_string();
            if key_text.starts_with("x-") {
                continue;
            }
            let status = parse_status(&key_text);
            match status {
                StatusKey::Invalid => self.diags.push(rl012_invalid_status_key::diagnostic(
                    &k, &key_text, None, display,
                )),
                StatusKey::Range(d) if key_text != format!("{d}XX") => self.diags.push(
                    rl012_invalid_status_key::diagnostic(&k, &key_text, Some(d), display),
                ),
                _ => {}
            }
            let Some(at) = self.deref(&v) else {
                continue;
            };
            if kind(&at) != Some(Kind::Map) {
                continue;
            }
            let headers = self.headers(&at);
            let has_links = self.version != SpecVersion::Swagger2
                && child(&at, "links")
                    .is_some_and(|l| l.tree().is_some_and(|t| !t.entries(l.node).is_empty()));
            out.push(Response {
                key_text,
                status,
                key: k,
                at,
                headers,
                has_links,
            });
        }
        out
    }

    fn headers(&mut self, resp: &At) -> Vec<Header> {
        let mut out = Vec::new();
        let Some(map) = child(resp, "headers") else {
            return out;
        };
        if kind(&map) != Some(Kind::Map) {
            return out;
        }
        for (k, v) in entries(&map) {
            let name = k.scalar().unwrap_or("").to_string();
            let Some(at) = self.deref(&v) else {
                continue;
            };
            let schema = if self.version == SpecVersion::Swagger2 {
                Some(at.clone())
            } else {
                let direct = child(&at, "schema").or_else(|| {
                    let content = child(&at, "content")?;
                    let (_, media) = entries(&content).into_iter().next()?;
                    child(&media, "schema")
                });
                match direct {
                    Some(s) => self.deref(&s),
                    None => None,
                }
            };
            out.push(Header {
                name,
                key: k,
                at,
                schema,
            });
        }
        out
    }
}
