//! RL008 invalid-openapi-structure: a 3.0 document that the typed OpenAPI 3.0 model
//! (`openapiv3`) rejects; the message is the model's, the position that of the
//! nearest node of the path where deserialisation failed.
//!
//! Whether the model accepts a document is learnt piece by piece, in parallel: each
//! root field, path item and component entry read with its `openapiv3` type, straight
//! from the JSON text (a JSON file without repeated keys) or through a serde reader
//! over the tree (`sections`, `tree_de`); no value is built. In front of that serde
//! reading, a direct walk over the tree (`fast`) accepts the pieces it is certain the
//! model accepts, without serde's buffering; it declines anything else to the serde
//! reading, so it changes no result. A rejected document is explained:
//! - under [`EXACT_MAX_BYTES`] (1 MiB), the exact way: the located tree converted to a
//!   `serde_json::Value` (merge keys applied, YAML integer keys as strings, integers
//!   beyond 64 bits as floats or, failing that, their text) and read whole through
//!   `serde_path_to_error` for the path and message;
//! - at or over it, from its first failing piece alone, converted the same way (the
//!   same pointer and message when one piece fails; a whole conversion would cost
//!   tens of times the file's size).
//!
//! The typed read recurses per nesting level, so it runs on the deep-stack pool
//! ([`crate::deep_stack`]); `openapiv3` is vendored with a patch that keeps a failing
//! nested schema from being read 2^depth times (`vendor/openapiv3/VENDORED.md`). No
//! other rule reads the typed model. Bounds, so that it is never slow:
//! - only root documents smaller than [`MAX_BYTES`] (64 MiB) are checked;
//! - documents nested deeper than [`MAX_DEPTH`] (128) levels are not checked;
//! - the conversion stops (and the document is not checked) when aliases would expand
//!   it beyond a value budget or past [`MAX_DEPTH`] nesting levels (alias bombs).

use crate::diagnostic::catalog;
use crate::diagnostic::Diagnostic;
use crate::openapi::model::{Document, SpecVersion};
use crate::rules::{Context, RuleMeta};
use crate::source::pointer::escape;
use crate::source::refs::At;
use crate::source::tree::{Kind, NodeId, Tree};
use rayon::prelude::*;
use serde_json::{Map, Number, Value};

mod fast;
mod piece;
mod sections;
mod tree_de;

/// Rule metadata ([`catalog::INVALID_OPENAPI_STRUCTURE`]).
pub const META: RuleMeta = catalog::INVALID_OPENAPI_STRUCTURE;

/// Rejected documents smaller than this (bytes) are converted whole for the exact
/// error path and message; bigger ones are explained from their first failing piece
/// ([`sections::first_failure`]).
pub const EXACT_MAX_BYTES: usize = 1024 * 1024;
/// Documents of this size (bytes) or more are not checked by RL008.
pub const MAX_BYTES: usize = 64 * 1024 * 1024;
/// Deepest nesting RL008 reads (levels, as written or through aliases): deeper
/// documents are not checked. `serde_json` itself refuses JSON nested deeper than
/// 128, and the typed model's error path through nested schemas grows with the cube
/// of the depth (a bad leaf 240 levels down took 14 s).
pub const MAX_DEPTH: usize = 128;

/// Checks every OpenAPI 3.0 document of the run (in parallel).
pub fn check(ctx: &Context<'_>) -> Vec<Diagnostic> {
    ctx.documents
        .par_iter()
        .filter_map(|d| match &d.structure_check {
            Some(done) => done.clone(),
            None => check_document(d),
        })
        .collect()
}

/// The finding for one document, if the typed model rejects it (run on the
/// deep-stack pool, [`crate::deep_stack`], as the typed read recurses per level).
pub fn check_document(doc: &Document) -> Option<Diagnostic> {
    crate::deep_stack::run(|| check_on_this_thread(doc))
}

fn check_on_this_thread(doc: &Document) -> Option<Diagnostic> {
    if doc.version != SpecVersion::OpenApi30 || doc.doc.file.text.len() >= MAX_BYTES {
        return None;
    }
    let tree = doc.doc.tree.as_ref().ok()?;
    let root = tree.root()?;
    if nesting_depth(tree) > MAX_DEPTH {
        // Not checked: `serde_json` refuses such text anyway, and the typed model's
        // error path through deep schemas grows with the cube of the depth.
        return None;
    }
    let budget = (tree.len() * 4).max(1_000_000);
    if fast_accepts(tree, root, budget) {
        return None;
    }
    let exact = doc.doc.file.text.len() < EXACT_MAX_BYTES;
    let (tokens, mut message) = rejection(tree, root, budget, exact)?;
    let (node, depth) = (0..=tokens.len())
        .rev()
        .find_map(|n| tree.lookup(&tokens[..n]).map(|node| (node, n)))?;
    let pointer: String = tokens[..depth]
        .iter()
        .map(|t| format!("/{}", escape(t)))
        .collect();
    let at = At::new(&doc.doc, node);
    // An Operation written as a `$ref` (one file per operation, as DigitalOcean does)
    // is outside the 3.0 schema, but retrylint follows it like every bundler: say so
    // instead of a bare "missing field".
    let is_operation_ref = tokens.len() == 3
        && tokens[0] == "paths"
        && tree.kind(node) == crate::source::tree::Kind::Map
        && tree.get(node, "$ref").is_some();
    if is_operation_ref {
        message = "an Operation Object may not be a `$ref` in OpenAPI 3.0 (retrylint and bundlers follow it; strict 3.0 tools do not)".to_string();
    }
    let place = if pointer.is_empty() {
        "at the document root".to_string()
    } else {
        format!("at `{pointer}`")
    };
    Some(
        Diagnostic::new(
            &META,
            format!(
                "The OpenAPI 3.0 model rejects this document {place}: {}.",
                message.trim_end_matches('.')
            ),
            at.location(),
            "rejected by the OpenAPI 3.0 model",
        )
        .with_help("Fix the structure so that code generators and validators read the document as retrylint does."),
    )
}

/// The deepest nesting of the tree as written (aliases not expanded): one pass over
/// the nodes, each one level below its parent (parents are created first).
fn nesting_depth(tree: &Tree) -> usize {
    let mut depth: Vec<u16> = Vec::with_capacity(tree.len());
    let mut deepest = 0;
    for node in tree.all_nodes() {
        let d = match tree.parent(node) {
            Some(p) if (p.0 as usize) < depth.len() => depth[p.0 as usize].saturating_add(1),
            // An aliased node's parent is its last user, created after it: counted
            // from here, as the conversion and the tree reader bound the depth
            // through aliases themselves.
            Some(_) | None => 0,
        };
        deepest = deepest.max(d);
        depth.push(d);
    }
    usize::from(deepest)
}

/// The fast path: a JSON file without repeated keys reads into the typed model
/// straight from its text exactly as from the converted value (same numbers, same
/// strings, no merge keys); any other tree reads the same way through
/// the tree reader. Both read it in pieces, in parallel ([`sections`]). Only a
/// rejection needs the value, for the error's path and message, so only a `false`
/// here leads to the conversion.
fn fast_accepts(tree: &Tree, root: NodeId, budget: usize) -> bool {
    fast_source(tree, budget).is_some_and(|source| sections::accepts(tree, root, source))
}

/// How the pieces of this tree are read. Aliases can expand a small file into a
/// huge document (alias bombs): a tree with aliases is read under one node budget
/// for all its pieces, which a bomb exhausts (the document then goes to the
/// budgeted conversion, which gives up too: not checked).
fn fast_source(tree: &Tree, budget: usize) -> Option<sections::Source> {
    if tree.is_json() && tree.duplicates().is_empty() {
        Some(sections::Source::JsonText)
    } else {
        Some(sections::Source::Tree {
            budget,
            max_depth: MAX_DEPTH,
            shared: tree.has_aliases(),
        })
    }
}

/// The exact reading: the whole document converted to a value and read through
/// `serde_path_to_error`, then [`refine`]d. `None` when it reads after all or the
/// conversion runs over its budget.
fn whole_document_error(tree: &Tree, root: NodeId, budget: usize) -> Option<(Vec<String>, String)> {
    let value = to_json(tree, root, &mut Converter { budget, depth: 0 })?;
    let err = serde_path_to_error::deserialize::<_, openapiv3::OpenAPI>(&value).err()?;
    let mut tokens: Vec<String> = Vec::new();
    push_path(&mut tokens, err.path());
    let mut message = err.inner().to_string();
    refine(&value, &mut tokens, &mut message);
    Some((tokens, message))
}

/// Why the typed model rejects the document: (pointer tokens, message). `exact`:
/// from the whole document ([`whole_document_error`]); else from the first failing
/// piece alone (bounded memory for big documents: converting one whole costs tens of
/// times its size, as serde buffers it again inside). `None`: it reads after all, or
/// a conversion ran over its budget.
fn rejection(
    tree: &Tree,
    root: NodeId,
    budget: usize,
    exact: bool,
) -> Option<(Vec<String>, String)> {
    if !exact {
        if let Some(found) = first_failing_piece(tree, root, budget) {
            return Some(found);
        }
        // Not shaped for pieces (a required field missing): the whole reading.
    }
    whole_document_error(tree, root, budget)
}

fn first_failing_piece(tree: &Tree, root: NodeId, budget: usize) -> Option<(Vec<String>, String)> {
    let source = fast_source(tree, budget)?;
    let to_value = |node| to_json(tree, node, &mut Converter { budget, depth: 0 });
    let (mut tokens, mut message) = sections::first_failure(tree, root, source, to_value)?;
    if let Some(value) = piece_value(tree, &tokens) {
        refine(&value, &mut tokens, &mut message);
    }
    Some((tokens, message))
}

/// For [`refine`] on a big document: the value of the node at `tokens` alone, nested
/// under the same keys (so pointers from the root still find it).
fn piece_value(tree: &Tree, tokens: &[String]) -> Option<Value> {
    let node = tree.lookup(tokens).filter(|_| !tokens.is_empty())?;
    let mut value = to_json(
        tree,
        node,
        &mut Converter {
            budget: tree.len() * 4,
            depth: 0,
        },
    )?;
    for token in tokens.iter().rev() {
        let mut map = Map::new();
        map.insert(token.clone(), value);
        value = Value::Object(map);
    }
    Some(value)
}

pub(super) fn push_path(tokens: &mut Vec<String>, path: &serde_path_to_error::Path) {
    for seg in path.iter() {
        match seg {
            serde_path_to_error::Segment::Seq { index } => tokens.push(index.to_string()),
            serde_path_to_error::Segment::Map { key } => tokens.push(key.clone()),
            serde_path_to_error::Segment::Enum { .. } => {}
            serde_path_to_error::Segment::Unknown => break,
        }
    }
}

/// `openapiv3` reads `paths` and the status entries of `responses` through flattened
/// maps, where the error path stops. Re-reads each entry of such a map with its own
/// type to find the entry (and the place inside it) that fails.
fn refine(value: &Value, tokens: &mut Vec<String>, message: &mut String) {
    for _ in 0..8 {
        let pointer: String = tokens.iter().map(|t| format!("/{}", escape(t))).collect();
        let Some(Value::Object(map)) = value.pointer(&pointer) else {
            return;
        };
        let is_paths = tokens.len() == 1 && tokens[0] == "paths";
        let is_responses = tokens.last().is_some_and(|t| t == "responses");
        if !is_paths && !is_responses {
            return;
        }
        let failing = map
            .iter()
            .filter(|(k, v)| !k.starts_with("x-") && v.get("$ref").is_none())
            .find_map(|(k, v)| {
                let err = if is_paths {
                    serde_path_to_error::deserialize::<_, openapiv3::PathItem>(v).err()
                } else {
                    serde_path_to_error::deserialize::<_, openapiv3::Response>(v).err()
                }?;
                Some((k.clone(), err))
            });
        let Some((key, err)) = failing else {
            return;
        };
        tokens.push(key);
        push_path(tokens, err.path());
        *message = err.inner().to_string();
    }
}

struct Converter {
    budget: usize,
    depth: usize,
}

/// Converts a node; `None` when the budget or depth is exhausted.
fn to_json(tree: &Tree, node: NodeId, c: &mut Converter) -> Option<Value> {
    c.budget = c.budget.checked_sub(1)?;
    let text = tree.scalar(node).unwrap_or("");
    Some(match tree.kind(node) {
        Kind::Null => Value::Null,
        Kind::Bool => Value::Bool(tree.as_bool(node).unwrap_or(false)),
        Kind::Int => match tree.as_i64(node) {
            Some(v) => Value::from(v),
            None => text
                .trim_start_matches('+')
                .parse::<u64>()
                .ok()
                .map(Value::from)
                .or_else(|| {
                    tree.as_f64(node)
                        .and_then(Number::from_f64)
                        .map(Value::Number)
                })
                .unwrap_or_else(|| Value::String(text.to_string())),
        },
        Kind::Float => tree
            .as_f64(node)
            .and_then(Number::from_f64)
            .map(Value::Number)
            .unwrap_or_else(|| Value::String(text.to_string())),
        Kind::Str => Value::String(text.to_string()),
        Kind::Seq => {
            c.depth += 1;
            if c.depth > MAX_DEPTH {
                return None;
            }
            let mut out = Vec::new();
            for &item in tree.items(node) {
                out.push(to_json(tree, item, c)?);
            }
            c.depth -= 1;
            Value::Array(out)
        }
        Kind::Map => {
            c.depth += 1;
            if c.depth > MAX_DEPTH {
                return None;
            }
            let mut out = Map::new();
            for (k, v) in tree.entries(node) {
                let Some(key) = tree.scalar(k) else {
                    continue;
                };
                let value = to_json(tree, v, c)?;
                out.insert(key.to_string(), value);
            }
            c.depth -= 1;
            Value::Object(out)
        }
    })
}

#[cfg(test)]
mod tests {
    //! The piecewise fast path must never accept what the whole-document read (the
    //! converted value through `openapiv3::OpenAPI`) rejects, and should agree with
    //! it everywhere but in the shapes it deliberately leaves to the slow path.
    use super::*;
    use std::sync::Arc;

    /// The whole document as the exact reading sees it (its budget: an alias bomb
    /// gives `None`).
    fn value(tree: &Tree) -> Option<Value> {
        let mut bounded = Converter {
            budget: (tree.len() * 4).max(1_000_000),
            depth: 0,
        };
        to_json(tree, tree.root()?, &mut bounded)
    }

    /// The exact verdict: the whole document, converted, read by the typed model.
    fn whole(tree: &Tree) -> Option<bool> {
        Some(serde_json::from_value::<openapiv3::OpenAPI>(value(tree)?).is_ok())
    }

    fn pieces(tree: &Tree) -> bool {
        fast_accepts(tree, tree.root().expect("root"), 1_000_000)
    }

    fn parse(text: &str) -> Tree {
        Tree::parse(Arc::from(text)).expect("parses")
    }

    /// The same document as JSON text, so the JSON fast path reads it too.
    fn as_json(tree: &Tree) -> Tree {
        let value = value(tree).expect("converts");
        parse(&serde_json::to_string_pretty(&value).expect("json"))
    }

    const HEAD: &str = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\n";

    /// (name, document after the `openapi`/`info` head (or whole when it starts with
    /// `openapi`), accepted by the typed model).
    const CASES: &[(&str, &str, bool)] = &[
        ("minimal", "paths: {}", true),
        ("paths with extensions and foreign keys",
         "paths:\n  x-a: [1, {b: null}]\n  weird: 5\n  /a: {get: {responses: {'200': {description: ok}}}}", true),
        ("path item by $ref", "paths: {/a: {$ref: '#/x'}}", true),
        ("components null", "paths: {}\ncomponents: null", true),
        ("every component section",
         "paths: {}\ncomponents:\n  x-c: {any: [thing]}\n  unknownSection: 5\n  schemas: {A: {type: object, properties: {b: {$ref: '#/components/schemas/A'}}}, B: {$ref: '#/x'}}\n  responses: {R: {description: d}}\n  parameters: {P: {name: p, in: query, schema: {type: string}}}\n  examples: {E: {value: {deep: [1, 2]}}}\n  requestBodies: {Q: {content: {application/json: {}}}}\n  headers: {H: {schema: {type: string}}}\n  securitySchemes: {S: {type: http, scheme: bearer}}\n  links: {L: {operationId: op}}\n  callbacks: {C: {'{$url}': {post: {responses: {'200': {description: ok}}}}}}", true),
        ("root extras",
         "paths: {}\nservers: [{url: /}]\nsecurity: [{S: []}]\ntags: [{name: a}]\nexternalDocs: {url: 'https://x'}\nx-root: [1, 2]\nunknownRoot: {a: 1}", true),
        ("security null", "paths: {}\nsecurity: null", true),
        ("openapi as a number", "openapi: 3.0\ninfo: {title: t, version: '1'}\npaths: {}", false),
        ("info without title", "openapi: 3.0.3\ninfo: {version: '1'}\npaths: {}", false),
        ("no info", "openapi: 3.0.3\npaths: {}", false),
        ("no paths", "components: {}", false),
        ("paths a list", "paths: []", false),
        ("components a list", "paths: {}\ncomponents: []", false),
        ("schemas null", "paths: {}\ncomponents: {schemas: null}", false),
        ("operation without responses", "paths: {/a: {get: {summary: s}}}", false),
        ("path parameter without in", "paths: {/a: {parameters: [{name: p}]}}", false),
        ("schema type a number", "paths: {}\ncomponents: {schemas: {A: {type: 5}}}", false),
        ("security scheme of no known type", "paths: {}\ncomponents: {securitySchemes: {S: {type: bogus}}}", false),
        ("tags a map", "paths: {}\ntags: {a: 1}", false),
        ("server without url", "paths: {}\nservers: [{}]", false),
        ("externalDocs a number", "paths: {}\nexternalDocs: 5", false),
        ("example a number", "paths: {}\ncomponents: {examples: {E: 5}}", false),
        ("parameter without in", "paths: {}\ncomponents: {parameters: {P: {name: p}}}", false),
        ("request body content a number", "paths: {}\ncomponents: {requestBodies: {Q: {content: 5}}}", false),
        ("response without description", "paths: {}\ncomponents: {responses: {R: {content: {}}}}", false),
        ("header a list", "paths: {}\ncomponents: {headers: {H: []}}", false),
        ("link a string", "paths: {}\ncomponents: {links: {L: nope}}", false),
        ("callback a list", "paths: {}\ncomponents: {callbacks: {C: [1]}}", false),
    ];

    fn doc(body: &str) -> String {
        if body.starts_with("openapi") {
            body.to_string()
        } else {
            format!("{HEAD}{body}\n")
        }
    }

    #[test]
    fn pieces_agree_with_the_whole_document() {
        for (name, body, expected) in CASES {
            let yaml = parse(&doc(body));
            assert_eq!(whole(&yaml), Some(*expected), "{name}: the case itself");
            assert_eq!(
                pieces(&yaml),
                *expected,
                "{name}: YAML through the tree reader"
            );
            let json = as_json(&yaml);
            assert!(json.is_json(), "{name}");
            assert_eq!(pieces(&json), *expected, "{name}: JSON text");
        }
    }

    #[test]
    fn big_documents_are_explained_as_the_whole_reading_explains_them() {
        // Every rejected case has one failing piece: explained from that piece alone
        // (the way for documents over EXACT_MAX_BYTES), the pointer and the message
        // are those of the whole-document reading.
        let mut explained = 0;
        for (name, body, accepted) in CASES {
            if *accepted {
                continue;
            }
            let yaml = parse(&doc(body));
            for tree in [as_json(&yaml), yaml] {
                let root = tree.root().expect("root");
                let exact = rejection(&tree, root, 1_000_000, true);
                let piecewise = rejection(&tree, root, 1_000_000, false);
                assert!(exact.is_some(), "{name}");
                assert_eq!(piecewise, exact, "{name}");
                explained += 1;
            }
        }
        assert!(explained > 30, "{explained}");
        // Deep inside a path item's responses, as `refine` finds it in the whole reading.
        let tree = parse(&doc(
            "paths:\n  /a:\n    get:\n      responses:\n        '200': {description: ok}\n        '404': {content: {}}",
        ));
        let root = tree.root().expect("root");
        let piecewise = rejection(&tree, root, 1_000_000, false).expect("rejected");
        assert_eq!(
            piecewise,
            rejection(&tree, root, 1_000_000, true).expect("rejected")
        );
        assert_eq!(piecewise.0, ["paths", "/a", "get", "responses", "404"]);
    }

    /// RL008's findings for one file, through the whole pipeline.
    fn rl008_of(name: &str, text: &str) -> Vec<Diagnostic> {
        let dir =
            std::env::temp_dir().join(format!("retrylint-rl008-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let outcome = crate::check::run(&crate::check::CheckOptions {
            paths: vec![path],
            root: Some(dir.clone()),
            cwd: Some(dir.clone()),
            ..Default::default()
        });
        let _ = std::fs::remove_dir_all(&dir);
        outcome
            .diagnostics
            .into_iter()
            .filter(|d| d.code == META.code)
            .collect()
    }

    #[test]
    fn merged_aliases_and_depth_limits() {
        // An aliased node's parent is its last user, created after it: the depth
        // pass once took that for "too deep" and left such documents unchecked.
        let merged = rl008_of(
            "merged.openapi.yaml",
            "openapi: 3.0.3\ninfo: {title: t, version: '1'}\nx-ok: &ok {summary: s}\npaths:\n  /a:\n    <<: *ok\n    get: 5\n",
        );
        assert_eq!(merged.len(), 1, "{merged:?}");
        assert_eq!(merged[0].primary.location.pointer, "/paths/~1a/get");
        // Deeper than MAX_DEPTH: not checked (documented), whatever is wrong in it.
        let mut schema = "{\"type\": \"string\", \"maxLength\": \"x\"}".to_string();
        for _ in 0..MAX_DEPTH {
            schema = format!("{{\"type\": \"array\", \"items\": {schema}}}");
        }
        let deep = format!(
            "{{\"openapi\": \"3.0.3\", \"info\": {{\"title\": \"t\", \"version\": \"1\"}}, \"paths\": {{}}, \"components\": {{\"schemas\": {{\"A\": {schema}}}}}}}"
        );
        assert!(rl008_of("deep.openapi.json", &deep).is_empty());
    }

    #[test]
    fn unsure_shapes_go_to_the_slow_path() {
        // A non-string key under `paths`: left to the exact reading.
        let yaml = parse(&doc("paths: {200: {}}"));
        assert!(!pieces(&yaml));
        assert_eq!(whole(&yaml), Some(true));
    }

    #[test]
    fn never_more_lenient_on_any_fixture() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let (mut checked, mut differ) = (0, Vec::new());
        for entry in walkdir::WalkDir::new(&root).into_iter().flatten() {
            let path = entry.path();
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if !entry.file_type().is_file() || !matches!(ext, "yaml" | "yml" | "json") {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(path) else {
                continue;
            };
            let Ok(tree) = Tree::parse(Arc::from(text.as_str())) else {
                continue;
            };
            let Some(r) = tree.root().filter(|&r| tree.kind(r) == Kind::Map) else {
                continue;
            };
            let is_30 = tree
                .get(r, "openapi")
                .and_then(|v| tree.as_str(v))
                .is_some_and(|v| v.starts_with("3.0"));
            if !is_30 {
                continue;
            }
            let Some(exact) = whole(&tree) else { continue };
            let fast = pieces(&tree);
            assert!(
                !fast || exact,
                "{}: the fast path accepts what the model rejects",
                path.display()
            );
            if fast != exact {
                differ.push(path.display().to_string());
            }
            checked += 1;
        }
        assert!(checked > 100, "only {checked} fixtures read");
        assert!(
            differ.is_empty(),
            "the fast path sent these to the slow path: {differ:?}"
        );
    }
}
