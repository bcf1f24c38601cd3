//! The machinery behind `tests/architecture.rs`: read a `src/` tree with `syn`, collect
//! every reference from one module to another, and judge them against a layer table.
//!
//! It reads files, never compiles them, so it runs the same on the crate's own `src/`
//! and on the small trees under `fixtures/architecture/`.

use proc_macro2::{Spacing, TokenStream, TokenTree};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use syn::ext::IdentExt;
use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};

/// The layer table: `(layer name, modules)`, bottom layer first.
pub type Layers = [(&'static str, &'static [&'static str])];

/// One module file of the tree, with what it refers to.
pub struct ModuleFile {
    /// Path for messages, always starting with `src/` and using `/`.
    pub display: String,
    /// Module path under the crate root: `src/a/b.rs` and `src/a/b/mod.rs` are `["a", "b"]`.
    pub module: Vec<String>,
    /// Every `crate::` / `super::` / `self::` reference, resolved from the crate root.
    pub refs: Vec<Reference>,
    /// Constructs that would let a reference escape the judgement, with their line
    /// ([`escape_hatches`]).
    pub escapes: Vec<(usize, String)>,
}

/// A reference from a file to a path of the crate, resolved from the crate root.
pub struct Reference {
    pub line: usize,
    /// `crate::rules::rl001_invalid_syntax::check` is `["rules", "rl001_invalid_syntax", "check"]`.
    pub path: Vec<String>,
}

/// The crate as read from disk.
pub struct Crate {
    /// Every module file except the exempt `lib.rs` (crate root) and `main.rs` (binary).
    pub files: Vec<ModuleFile>,
    /// Top-level modules found on disk (a `.rs` file or a folder directly under `src/`),
    /// each with the path shown in messages.
    pub top_level: BTreeMap<String, String>,
    /// Names `lib.rs` re-exports at the crate root (`pub use project::discover;`),
    /// each with the top-level module it comes from: `crate::discover::…` is judged
    /// as `crate::project::discover::…`.
    pub root_aliases: BTreeMap<String, String>,
    /// `lib.rs` items other than `mod` declarations and `pub use` re-exports of
    /// modules: code at the crate root would escape the layering.
    pub root_problems: Vec<String>,
}

/// A reference from a module to a module later in the layer order.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Violation {
    pub file: String,
    pub line: usize,
    pub from: String,
    pub from_layer: &'static str,
    /// The referenced path as `crate::…`.
    pub target: String,
    pub to: String,
    pub to_layer: &'static str,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: {} ({}) refers to {} ({}), which is above it",
            self.file, self.line, self.from, self.from_layer, self.target, self.to_layer
        )
    }
}

/// Reads every `.rs` file under `src` (sorted, so that messages come in a stable order).
pub fn read_crate(src: &Path) -> Crate {
    let mut paths = Vec::new();
    collect_rs_files(src, &mut paths);
    paths.sort();

    let mut files = Vec::new();
    let (root_aliases, root_problems) = read_root(&src.join("lib.rs"));
    for path in paths {
        let rel = path.strip_prefix(src).expect("under src");
        let parts: Vec<String> = rel
            .iter()
            .map(|c| c.to_str().expect("UTF-8 file name").to_string())
            .collect();
        let display = format!("src/{}", parts.join("/"));
        // The crate root declares the modules and keeps compatibility re-exports, and
        // the binary is the top of everything: neither is judged.
        if parts.len() == 1 && (parts[0] == "lib.rs" || parts[0] == "main.rs") {
            continue;
        }
        let module = module_path(&parts);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {display}: {e}"));
        let ast = syn::parse_file(&text)
            .unwrap_or_else(|e| panic!("{display} does not parse with syn: {e}"));
        let mut refs = Vec::new();
        let mut escapes = Vec::new();
        // A whole file under `#![cfg(test)]` is test code.
        if !is_test_only(&ast.attrs) {
            let mut collector = Collector {
                module: module.clone(),
                refs: &mut refs,
                escapes: &mut escapes,
            };
            collector.visit_file(&ast);
        }
        files.push(ModuleFile {
            display,
            module,
            refs,
            escapes,
        });
    }

    let mut top_level = BTreeMap::new();
    for entry in std::fs::read_dir(src).unwrap_or_else(|e| panic!("cannot list src/: {e}")) {
        let path = entry.expect("directory entry").path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if path.is_dir() {
            let mut inner = Vec::new();
            collect_rs_files(&path, &mut inner);
            if !inner.is_empty() {
                top_level
                    .entry(name.clone())
                    .or_insert_with(|| format!("src/{name}/"));
            }
        } else if let Some(stem) = name.strip_suffix(".rs") {
            if stem != "lib" && stem != "main" {
                // The file wins over the folder in messages: it is the module's root.
                top_level.insert(stem.to_string(), format!("src/{name}"));
            }
        }
    }
    Crate {
        files,
        top_level,
        root_aliases,
        root_problems,
    }
}

/// Reads the crate root: `mod` declarations and `pub use module::item;` re-exports
/// (recorded as aliases) are all it may hold. A missing `lib.rs` (a fixture without
/// one) holds nothing.
fn read_root(lib: &Path) -> (BTreeMap<String, String>, Vec<String>) {
    let mut aliases = BTreeMap::new();
    let mut problems = Vec::new();
    let Ok(text) = std::fs::read_to_string(lib) else {
        return (aliases, problems);
    };
    let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("src/lib.rs does not parse: {e}"));
    for item in &ast.items {
        let line = item_line(item);
        match item {
            syn::Item::Mod(m) if m.content.is_none() => {
                if m.attrs.iter().any(|a| a.path().is_ident("path")) {
                    problems.push(format!("src/lib.rs:{line}: `#[path]` on a module: the checker reads modules where their names say"));
                }
            }
            syn::Item::Use(u) => {
                let mut leaves = Vec::new();
                use_leaves(&u.tree, &mut Vec::new(), &mut leaves);
                for (path, name) in leaves {
                    match path.first().map(String::as_str) {
                        Some(first) if first != "crate" && first != "self" && first != "super" && path.len() >= 2 => {
                            aliases.insert(name, first.to_string());
                        }
                        _ => problems.push(format!(
                            "src/lib.rs:{line}: `use {}` at the crate root: re-export an item of a module (`pub use module::item;`)",
                            path.join("::")
                        )),
                    }
                }
            }
            _ => problems.push(format!(
                "src/lib.rs:{line}: code at the crate root escapes the layering: put it in a module of the table"
            )),
        }
    }
    (aliases, problems)
}

/// The leaves of a `use` tree: the full path and the name it binds.
fn use_leaves(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.unraw().to_string());
            use_leaves(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let mut path = prefix.clone();
            path.push(n.ident.unraw().to_string());
            out.push((path, n.ident.unraw().to_string()));
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            path.push(r.ident.unraw().to_string());
            out.push((path, r.rename.unraw().to_string()));
        }
        syn::UseTree::Glob(_) => out.push((prefix.clone(), "*".to_string())),
        syn::UseTree::Group(g) => {
            for item in &g.items {
                use_leaves(item, prefix, out);
            }
        }
    }
}

/// The line of an item's keyword (0 for kinds the crate root never holds).
fn item_line(item: &syn::Item) -> usize {
    use syn::Item;
    let span = match item {
        Item::Mod(i) => i.mod_token.span,
        Item::Use(i) => i.use_token.span,
        Item::Fn(i) => i.sig.fn_token.span,
        Item::Macro(i) => i.mac.bang_token.span,
        Item::Const(i) => i.const_token.span,
        Item::Static(i) => i.static_token.span,
        Item::Struct(i) => i.struct_token.span,
        Item::Enum(i) => i.enum_token.span,
        Item::Impl(i) => i.impl_token.span,
        Item::ExternCrate(i) => i.crate_token.span,
        Item::Type(i) => i.type_token.span,
        Item::Trait(i) => i.trait_token.span,
        _ => return 0,
    };
    span.start().line
}

fn collect_rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            collect_rs_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `a/b.rs` → `a::b`, `a/mod.rs` → `a`, `a/b/c.rs` → `a::b::c`.
fn module_path(parts: &[String]) -> Vec<String> {
    let mut module: Vec<String> = parts.to_vec();
    let last = module.pop().expect("a file name");
    let stem = last.strip_suffix(".rs").expect("a .rs file");
    if stem != "mod" {
        module.push(stem.to_string());
    }
    module
}

/// Where each top-level module sits in the flattened table: its index and layer name.
fn order(layers: &Layers) -> BTreeMap<&'static str, (usize, &'static str)> {
    let mut rank = BTreeMap::new();
    for (layer, modules) in layers {
        for module in *modules {
            let next = rank.len();
            rank.entry(*module).or_insert((next, *layer));
        }
    }
    rank
}

/// Problems with the table itself: a module listed twice makes the order ambiguous.
pub fn table_problems(layers: &Layers) -> Vec<String> {
    let mut seen = BTreeMap::new();
    let mut problems = Vec::new();
    for (layer, modules) in layers {
        for module in *modules {
            if let Some(first) = seen.insert(*module, *layer) {
                problems.push(format!(
                    "LAYERS: {module} is listed twice (in {first} and in {layer})"
                ));
            }
        }
    }
    problems
}

/// Every reference from a module to a module later in the flattened table.
///
/// References from or to a top-level module that is not in the table are not judged
/// here: [`unlisted_modules`] reports that module instead.
pub fn upward_references(krate: &Crate, layers: &Layers) -> Vec<Violation> {
    let rank = order(layers);
    let mut found = BTreeSet::new();
    for file in &krate.files {
        let Some(from) = file.module.first().map(String::as_str) else {
            continue;
        };
        let Some(&(from_rank, from_layer)) = rank.get(from) else {
            continue;
        };
        for r in &file.refs {
            // `crate::something` that is not a module (an item of the crate root) or a
            // module outside the table: nothing to compare with.
            let Some(to) = r.path.first() else { continue };
            let to = krate.root_aliases.get(to).unwrap_or(to);
            let Some(&(to_rank, to_layer)) = rank.get(to.as_str()) else {
                continue;
            };
            if to_rank > from_rank {
                found.insert(Violation {
                    file: file.display.clone(),
                    line: r.line,
                    from: from.to_string(),
                    from_layer,
                    target: format!("crate::{}", r.path.join("::")),
                    to: to.clone(),
                    to_layer,
                });
            }
        }
    }
    found.into_iter().collect()
}

/// Top-level modules on disk that the table does not place, so that no new module
/// escapes the layering.
pub fn unlisted_modules(krate: &Crate, layers: &Layers) -> Vec<String> {
    let rank = order(layers);
    krate
        .top_level
        .iter()
        .filter(|(name, _)| !rank.contains_key(name.as_str()))
        .map(|(name, shown)| {
            format!("{shown}: top-level module {name} is not in LAYERS; give it a layer")
        })
        .collect()
}

/// Constructs that would hide a reference from [`upward_references`]: a path to the
/// crate root itself (`use crate as c;`, `use crate::*;`, `super::*` up to the root),
/// `extern crate self`, a path from the crate root built by a macro variable
/// (`crate::$m`), `#[macro_export]` (a macro at the crate root), `#[path]` modules,
/// `include!`, an inherent `impl` on another top-level module's type (its methods
/// are called without a path), a reference to `crate::X` where `X` is neither a
/// module nor a re-export of `lib.rs`, and code at the crate root.
pub fn escape_hatches(krate: &Crate) -> Vec<String> {
    let mut found = krate.root_problems.clone();
    for file in &krate.files {
        for (line, message) in &file.escapes {
            found.push(format!("{}:{line}: {message}", file.display));
        }
        for r in &file.refs {
            let Some(first) = r.path.first() else {
                continue;
            };
            if !krate.top_level.contains_key(first) && !krate.root_aliases.contains_key(first) {
                found.push(format!(
                    "{}:{}: crate::{} names no module of src/ and no re-export of lib.rs",
                    file.display,
                    r.line,
                    r.path.join("::")
                ));
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// Table entries with no module on disk (a renamed or removed module left behind).
pub fn missing_modules(krate: &Crate, layers: &Layers) -> Vec<String> {
    let mut missing = Vec::new();
    for (layer, modules) in layers {
        for module in *modules {
            if !krate.top_level.contains_key(*module) {
                missing.push(format!(
                    "LAYERS: {module} ({layer}) has no module in src/ (no src/{module}.rs or src/{module}/)"
                ));
            }
        }
    }
    missing
}

/// Cycles among file modules: each file a node, an edge for each reference from one
/// file to another, except between a module and its own ancestor or descendant
/// (`rules` and `rules::rl201` may refer to each other). Each cycle is a strongly
/// connected component of two or more modules, its members sorted, as `a::b` paths.
pub fn file_cycles(krate: &Crate) -> Vec<Vec<String>> {
    let nodes: Vec<&Vec<String>> = krate.files.iter().map(|f| &f.module).collect();
    let index: BTreeMap<&Vec<String>, usize> =
        nodes.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    let mut edges = vec![BTreeSet::new(); nodes.len()];
    for (from, file) in krate.files.iter().enumerate() {
        for r in &file.refs {
            // The file module that holds the referenced path: its longest prefix that
            // is a module file. None: an item of the crate root.
            let Some(to) = (1..=r.path.len())
                .rev()
                .find_map(|n| index.get(&r.path[..n].to_vec()).copied())
            else {
                continue;
            };
            let (a, b) = (&file.module, nodes[to]);
            if a.starts_with(b) || b.starts_with(a) {
                continue;
            }
            edges[from].insert(to);
        }
    }
    let edges: Vec<Vec<usize>> = edges.into_iter().map(|s| s.into_iter().collect()).collect();
    let mut cycles: Vec<Vec<String>> = tarjan(&edges)
        .into_iter()
        .filter(|scc| scc.len() > 1)
        .map(|scc| {
            let mut names: Vec<String> = scc.iter().map(|&i| nodes[i].join("::")).collect();
            names.sort();
            names
        })
        .collect();
    cycles.sort();
    cycles
}

/// Tarjan's strongly connected components (recursive: a crate has a few hundred files).
fn tarjan(edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        edges: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn connect(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in &s.edges[v] {
            match s.index[w] {
                None => {
                    connect(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut scc = Vec::new();
            loop {
                let w = s.stack.pop().expect("v is on the stack");
                s.on_stack[w] = false;
                scc.push(w);
                if w == v {
                    break;
                }
            }
            s.out.push(scc);
        }
    }
    let n = edges.len();
    let mut s = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            connect(&mut s, v);
        }
    }
    s.out
}

/// Whether attributes make an item test-only: `#[cfg(test)]`, or `#[cfg(all(test, …))]`.
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .filter_map(|a| a.parse_args::<syn::Meta>().ok())
        .any(|m| requires_test(&m))
}

fn requires_test(meta: &syn::Meta) -> bool {
    match meta {
        syn::Meta::Path(p) => p.is_ident("test"),
        syn::Meta::List(l) if l.path.is_ident("all") => l
            .parse_args_with(Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated)
            .is_ok_and(|args| args.iter().any(requires_test)),
        _ => false,
    }
}

/// Resolves a path as written in `module` to a path from the crate root; `None` for
/// a path that does not start with `crate`, `self` or `super` (a child module, a
/// local name, or another crate) or one that climbs above the crate root.
fn resolve(module: &[String], segments: &[String]) -> Option<Vec<String>> {
    let first = segments.first()?;
    if first == "crate" {
        return Some(segments[1..].to_vec());
    }
    if first != "self" && first != "super" {
        return None;
    }
    let mut base = module.to_vec();
    let mut rest = segments;
    if rest[0] == "self" {
        rest = &rest[1..];
    }
    while rest.first().is_some_and(|s| s == "super") {
        base.pop()?;
        rest = &rest[1..];
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// Walks one file. `module` follows inline `mod x { … }` blocks so that `super` and
/// `self` resolve where they are written.
struct Collector<'a> {
    module: Vec<String>,
    refs: &'a mut Vec<Reference>,
    escapes: &'a mut Vec<(usize, String)>,
}

impl Collector<'_> {
    fn record(&mut self, segments: &[String], line: usize) {
        if let Some(path) = resolve(&self.module, segments) {
            if path.is_empty() {
                // `use crate as c;`, `use crate::*;`, `super::*` up to the root: later
                // paths through that name cannot be judged.
                self.escapes.push((
                    line,
                    format!(
                        "`{}` names the crate root: name the module instead",
                        segments.join("::")
                    ),
                ));
            } else {
                self.refs.push(Reference { line, path });
            }
        }
    }

    fn escape(&mut self, line: usize, message: &str) {
        self.escapes.push((line, message.to_string()));
    }

    /// Paths written as strings in attributes: `"crate::a::b"`, `"super::x"`.
    fn string_paths(&mut self, stream: TokenStream) {
        for token in stream {
            match token {
                TokenTree::Group(g) => self.string_paths(g.stream()),
                TokenTree::Literal(lit) => {
                    if let Ok(syn::Lit::Str(s)) = syn::parse_str::<syn::Lit>(&lit.to_string()) {
                        self.string_path(&s.value(), lit.span().start().line);
                    }
                }
                _ => {}
            }
        }
    }

    /// One string that may be a path (`"crate::a::b"`): recorded when it is one.
    fn string_path(&mut self, value: &str, line: usize) {
        let segments: Vec<String> = value.split("::").map(|p| p.trim().to_string()).collect();
        let is_path = segments.len() > 1
            && segments.iter().all(|p| {
                matches!(p.as_str(), "crate" | "super" | "self")
                    || syn::parse_str::<syn::Ident>(p).is_ok()
            });
        if is_path {
            self.record(&segments, line);
        }
    }

    /// `use a::{b, c::d as e, f::*, self}`: one reference per leaf, at the leaf's line.
    fn use_tree(&mut self, tree: &syn::UseTree, prefix: &mut Vec<String>) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.unraw().to_string());
                self.use_tree(&p.tree, prefix);
                prefix.pop();
            }
            syn::UseTree::Name(n) => self.use_leaf(prefix, &n.ident),
            syn::UseTree::Rename(r) => self.use_leaf(prefix, &r.ident),
            syn::UseTree::Glob(g) => {
                let line = g.star_token.spans[0].start().line;
                let segments = prefix.clone();
                self.record(&segments, line);
            }
            syn::UseTree::Group(g) => {
                for item in &g.items {
                    self.use_tree(item, prefix);
                }
            }
        }
    }

    fn use_leaf(&mut self, prefix: &[String], ident: &syn::Ident) {
        let mut segments = prefix.to_vec();
        // `use crate::a::{self}` names `crate::a` itself.
        if ident != "self" || segments.is_empty() {
            segments.push(ident.unraw().to_string());
        }
        self.record(&segments, ident.span().start().line);
    }

    /// Paths inside macro arguments (`format!("{}", crate::x::y())`): syn leaves them as
    /// tokens, so look for `crate`, `super` or `self` followed by `::` and identifiers.
    fn tokens(&mut self, stream: TokenStream) {
        let tokens: Vec<TokenTree> = stream.into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            match &tokens[i] {
                TokenTree::Group(g) => {
                    // A group's contents are their own sequence of tokens.
                    self.tokens(g.stream());
                    i += 1;
                }
                // `$crate` in a macro definition is `$` then `crate`: found here too.
                TokenTree::Ident(id)
                    if (id == "crate" || id == "super" || id == "self")
                        && !follows_path_separator(&tokens, i) =>
                {
                    let line = id.span().start().line;
                    let mut segments = vec![id.to_string()];
                    let mut j = i + 1;
                    while let Some(next) = path_step(&tokens, j) {
                        segments.push(next);
                        j += 3;
                    }
                    if is_macro_variable_after(&tokens, j) {
                        self.escape(
                            line,
                            "a macro builds a path with a variable (`crate::$name`): write the module's name",
                        );
                    }
                    if segments.len() > 1 {
                        self.record(&segments, line);
                    }
                    i = j;
                }
                _ => i += 1,
            }
        }
    }
}

/// `::name` at `j`: the name (a raw `r#name` read as `name`).
fn path_step(tokens: &[TokenTree], j: usize) -> Option<String> {
    match (tokens.get(j)?, tokens.get(j + 1)?, tokens.get(j + 2)?) {
        (TokenTree::Punct(a), TokenTree::Punct(b), TokenTree::Ident(name))
            if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':' =>
        {
            Some(name.unraw().to_string())
        }
        _ => None,
    }
}

/// `::$` at `j`: a path continued by a macro variable.
fn is_macro_variable_after(tokens: &[TokenTree], j: usize) -> bool {
    matches!(
        (tokens.get(j), tokens.get(j + 1), tokens.get(j + 2)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)), Some(TokenTree::Punct(d)))
            if a.as_char() == ':' && b.as_char() == ':' && d.as_char() == '$'
    )
}

/// Whether the token at `i` comes right after `::` (so it is not the start of a path).
fn follows_path_separator(tokens: &[TokenTree], i: usize) -> bool {
    i >= 2
        && matches!(&tokens[i - 1], TokenTree::Punct(p) if p.as_char() == ':')
        && matches!(&tokens[i - 2], TokenTree::Punct(p) if p.as_char() == ':')
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    use syn::Item;
    match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::ExternCrate(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::ForeignMod(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::TraitAlias(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

fn impl_item_attrs(item: &syn::ImplItem) -> &[syn::Attribute] {
    match item {
        syn::ImplItem::Const(i) => &i.attrs,
        syn::ImplItem::Fn(i) => &i.attrs,
        syn::ImplItem::Type(i) => &i.attrs,
        syn::ImplItem::Macro(i) => &i.attrs,
        _ => &[],
    }
}

fn trait_item_attrs(item: &syn::TraitItem) -> &[syn::Attribute] {
    match item {
        syn::TraitItem::Const(i) => &i.attrs,
        syn::TraitItem::Fn(i) => &i.attrs,
        syn::TraitItem::Type(i) => &i.attrs,
        syn::TraitItem::Macro(i) => &i.attrs,
        _ => &[],
    }
}

// Items, members, statements, fields, variants and match arms under `#[cfg(test)]`
// are skipped: unit tests may drive the whole crate, and they are not part of the
// module graph that ships.
impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !is_test_only(item_attrs(item)) {
            visit::visit_item(self, item);
        }
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        if !is_test_only(impl_item_attrs(item)) {
            visit::visit_impl_item(self, item);
        }
    }

    fn visit_trait_item(&mut self, item: &'ast syn::TraitItem) {
        if !is_test_only(trait_item_attrs(item)) {
            visit::visit_trait_item(self, item);
        }
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        if !is_test_only(&local.attrs) {
            visit::visit_local(self, local);
        }
    }

    fn visit_stmt_macro(&mut self, stmt: &'ast syn::StmtMacro) {
        if !is_test_only(&stmt.attrs) {
            visit::visit_stmt_macro(self, stmt);
        }
    }

    fn visit_field(&mut self, field: &'ast syn::Field) {
        if !is_test_only(&field.attrs) {
            visit::visit_field(self, field);
        }
    }

    fn visit_variant(&mut self, variant: &'ast syn::Variant) {
        if !is_test_only(&variant.attrs) {
            visit::visit_variant(self, variant);
        }
    }

    fn visit_arm(&mut self, arm: &'ast syn::Arm) {
        if !is_test_only(&arm.attrs) {
            visit::visit_arm(self, arm);
        }
    }

    /// Doc comments (`///` links) are not references. Other attributes may hold paths
    /// (`#[serde(with = "crate::a::b")]`, clap's `value_parser = crate::…`): their
    /// tokens and the paths written in their string literals count.
    fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
        if attr.path().is_ident("doc") {
            return;
        }
        if attr.path().is_ident("macro_export") {
            let line = attr.pound_token.span.start().line;
            self.escape(
                line,
                "`#[macro_export]` puts a macro at the crate root, where no layer judges its uses",
            );
        }
        if attr.path().is_ident("path") {
            let line = attr.pound_token.span.start().line;
            self.escape(
                line,
                "`#[path]` on a module: the checker reads modules where their names say",
            );
        }
        match &attr.meta {
            syn::Meta::List(list) => {
                self.string_paths(list.tokens.clone());
                self.tokens(list.tokens.clone());
            }
            syn::Meta::NameValue(nv) => {
                if let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) = &nv.value
                {
                    self.string_path(&s.value(), s.span().start().line);
                } else {
                    self.visit_expr(&nv.value);
                }
            }
            syn::Meta::Path(_) => {}
        }
    }

    /// `pub(super)` / `pub(in crate::a)` limit who may see an item; they use nothing.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    /// An inline `mod x { … }` moves `super` and `self` one level down; `mod x;` is
    /// another file, read on its own.
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        for attr in &item.attrs {
            self.visit_attribute(attr);
        }
        if let Some((_, items)) = &item.content {
            self.module.push(item.ident.to_string());
            for item in items {
                self.visit_item(item);
            }
            self.module.pop();
        }
    }

    fn visit_item_extern_crate(&mut self, item: &'ast syn::ItemExternCrate) {
        if item.ident == "self" {
            self.escape(
                item.ident.span().start().line,
                "`extern crate self` names the crate root: name the module instead",
            );
        }
    }

    /// An inherent `impl` on another top-level module's type adds methods to it, which
    /// its users then call without a path: keep a type's methods in its own module.
    fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
        if item.trait_.is_none() {
            if let syn::Type::Path(tp) = &*item.self_ty {
                let segments: Vec<String> = tp
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.unraw().to_string())
                    .collect();
                let owner = resolve(&self.module, &segments).and_then(|p| p.first().cloned());
                if owner.is_some_and(|o| Some(&o) != self.module.first()) {
                    self.escape(
                        item.impl_token.span.start().line,
                        "an inherent `impl` on another module's type: its methods are called without a path",
                    );
                }
            }
        }
        visit::visit_item_impl(self, item);
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        if item.leading_colon.is_none() {
            self.use_tree(&item.tree, &mut Vec::new());
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() {
            if let Some(first) = path.segments.first() {
                let segments: Vec<String> = path
                    .segments
                    .iter()
                    .map(|s| s.ident.unraw().to_string())
                    .collect();
                self.record(&segments, first.ident.span().start().line);
            }
        }
        // Generic arguments hold paths of their own: `crate::a::X<crate::b::Y>`.
        visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // `include!(concat!(env!("OUT_DIR"), …))` brings in build-script output, data
        // rather than a module of `src/`.
        let generated = mac.tokens.to_string().contains("OUT_DIR");
        if mac.path.is_ident("include") && !generated {
            let line = mac.bang_token.span.start().line;
            self.escape(line, "`include!` brings in code the checker does not read");
        }
        visit::visit_macro(self, mac);
        self.tokens(mac.tokens.clone());
    }
}
