//! Constants of the other files of a file's package: a retry setting written as
//! an identifier (`SetRetryCount(maxRetries)`) whose `const`/`var` lives in
//! another `.go` file of the same directory and package, with a literal value
//! (`const maxRetries = 3`, `var retryWait = 500 * time.Millisecond`). Read once
//! per file that needs it, bounded: at most [`MAX_SIBLINGS`] files, each under
//! the source-size limit, `_test.go` files skipped.

use super::eval::{self, Consts, Val};
use super::imports::Imports;
use crate::import::code::language::Language;
use crate::import::code::parse::{self, node_text, Parsed};
use std::collections::HashMap;
use std::path::Path;

/// The most sibling files read.
pub const MAX_SIBLINGS: usize = 64;

/// Folded package-level values of the sibling files: name -> (value, file name).
#[derive(Debug, Default)]
pub struct Siblings {
    values: HashMap<String, (Val, String)>,
}

impl Siblings {
    /// Reads the files beside `path` that declare `package` (only those `boundary`
    /// admits: a sibling may be a link out of the project).
    pub fn load(
        path: &Path,
        package: &str,
        boundary: &crate::source::boundary::ReadBoundary,
    ) -> Siblings {
        let mut out = Siblings::default();
        let (Some(dir), Some(own)) = (path.parent(), path.file_name()) else {
            return out;
        };
        let Ok(entries) = std::fs::read_dir(dir) else {
            return out;
        };
        let mut files: Vec<std::path::PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.file_name().is_some_and(|n| {
                    let n = n.to_string_lossy();
                    n.ends_with(".go")
                        && !n.ends_with("_test.go")
                        && Some(n.as_ref()) != own.to_str()
                })
            })
            .collect();
        files.sort();
        let mut twice: Vec<String> = Vec::new();
        for f in files.into_iter().take(MAX_SIBLINGS) {
            if !boundary.admits(&f) {
                continue;
            }
            // Regular files only (a link to a device or a FIFO would never end).
            let Ok(bytes) =
                crate::source::loader::read_regular_file(&f, parse::MAX_SOURCE_BYTES as u64)
            else {
                continue;
            };
            let Ok(text) = String::from_utf8(bytes) else {
                continue;
            };
            let Parsed::Tree(tree) = parse::parse(Language::Go, &text) else {
                continue;
            };
            let root = tree.root_node();
            if package_of(&text, root).as_deref() != Some(package) {
                continue;
            }
            let imports = Imports::of_tree(&text, root);
            // Only top-level declarations are package values.
            let consts = Consts::collect_top(&text, root);
            let name = f
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            for (k, node) in &consts.by_name {
                let v = eval::eval(&text, &imports, &consts, *node);
                if matches!(v, Val::Unknown(_)) {
                    continue;
                }
                if out.values.insert(k.clone(), (v, name.clone())).is_some() {
                    twice.push(k.clone());
                }
            }
        }
        for k in twice {
            out.values.remove(&k);
        }
        out
    }

    /// The value of `name` and the file it is declared in.
    pub fn get(&self, name: &str) -> Option<&(Val, String)> {
        self.values.get(name)
    }
}

/// The `package` name of a parsed file.
pub fn package_of(text: &str, root: tree_sitter::Node<'_>) -> Option<String> {
    let mut c = root.walk();
    let clause = root
        .named_children(&mut c)
        .find(|n| n.kind() == "package_clause")?;
    let name = clause.named_child(0)?;
    Some(node_text(name, text).to_string())
}
