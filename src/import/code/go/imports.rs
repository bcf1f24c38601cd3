//! The imports of a Go file: the local names of `time`, `net/http`,
//! go-retryablehttp and resty (aliases honoured), every imported package's name
//! (so `config.MaxRetries_` on a package is "another package's value"), and the
//! resty major version from the import path (`github.com/go-resty/resty/v2`,
//! `resty.dev/v3`) with the exact version from the nearest `go.mod` above the
//! file, when there is one.

use crate::import::code::CodeFile;
use std::collections::HashSet;
use std::path::Path;

/// How many directories above a file are searched for its `go.mod`.
const MAX_GO_MOD_LEVELS: usize = 64;

/// A resty major version and, when `go.mod` says it, the exact version.
#[derive(Debug, Clone, PartialEq)]
pub struct RestyVersion {
    /// 1, 2 or 3.
    pub major: u8,
    /// The `require` version (`v2.16.5`), when a `go.mod` above the file names it.
    pub exact: Option<String>,
}

impl RestyVersion {
    /// "resty v2.16.5" or "resty v2" when `go.mod` was not found.
    pub fn label(&self) -> String {
        match &self.exact {
            Some(v) => format!("resty {v}"),
            None => format!("resty v{}", self.major),
        }
    }
}

/// The imports of one file.
#[derive(Debug, Default)]
pub struct Imports {
    /// Local names of `time`.
    time: Vec<String>,
    /// Local names of `net/http`.
    http: Vec<String>,
    /// Local names of `github.com/hashicorp/go-retryablehttp`.
    retryablehttp: Vec<String>,
    /// The exact go-retryablehttp version from `go.mod`, when found.
    pub retryablehttp_version: Option<String>,
    /// Local names of resty.
    resty: Vec<String>,
    /// resty's version, when imported.
    pub resty_version: Option<RestyVersion>,
    /// Every imported package's local name.
    packages: HashSet<String>,
}

impl Imports {
    /// Reads the import specs of `file` (top-level declarations only) and, when
    /// a retry library is imported, the nearest `go.mod` above the file.
    pub fn read(file: &CodeFile<'_>) -> Imports {
        let mut out = Imports::of_tree(file.text, file.tree.root_node());
        if out.resty_version.is_some() || !out.retryablehttp.is_empty() {
            if let Some(go_mod) = find_go_mod(file.path(), file.boundary) {
                out.read_go_mod(&go_mod);
            }
        }
        out
    }

    /// The import specs of a parsed file (`text`, its tree's `root`), without
    /// reading `go.mod`.
    pub fn of_tree(text: &str, root: tree_sitter::Node<'_>) -> Imports {
        let text_of = |n: tree_sitter::Node<'_>| crate::import::code::parse::node_text(n, text);
        let mut out = Imports::default();
        let mut stack: Vec<tree_sitter::Node<'_>> = Vec::new();
        let mut c = root.walk();
        for top in root.named_children(&mut c) {
            if top.kind() == "import_declaration" {
                stack.push(top);
            }
        }
        while let Some(node) = stack.pop() {
            if node.kind() != "import_spec" {
                let mut c = node.walk();
                stack.extend(node.named_children(&mut c));
                continue;
            }
            let Some(path) = node
                .child_by_field_name("path")
                .and_then(|p| super::literal::string_value(text_of(p)))
            else {
                continue;
            };
            let alias = node
                .child_by_field_name("name")
                .map(|n| text_of(n).to_string());
            out.add(&path, alias);
        }
        out
    }

    fn add(&mut self, path: &str, alias: Option<String>) {
        if alias.as_deref().is_some_and(|a| a == "_" || a == ".") {
            return;
        }
        let name = alias.unwrap_or_else(|| default_name(path));
        self.packages.insert(name.clone());
        match path {
            "time" => self.time.push(name),
            "net/http" => self.http.push(name),
            "github.com/hashicorp/go-retryablehttp" => self.retryablehttp.push(name),
            _ => {
                if let Some(major) = resty_major(path) {
                    self.resty.push(name);
                    self.resty_version = Some(RestyVersion { major, exact: None });
                }
            }
        }
    }

    fn read_go_mod(&mut self, text: &str) {
        for line in text.lines() {
            let line = line.trim().trim_start_matches("require").trim();
            let mut words = line.split_whitespace();
            let (Some(module), Some(version)) = (words.next(), words.next()) else {
                continue;
            };
            if module == "github.com/hashicorp/go-retryablehttp" {
                self.retryablehttp_version = Some(version.to_string());
            }
            if let (Some(major), Some(v)) = (resty_major(module), self.resty_version.as_mut()) {
                if major == v.major {
                    v.exact = Some(version.to_string());
                }
            }
        }
    }

    /// True when `name` is the local name of `time`.
    pub fn is_time(&self, name: &str) -> bool {
        self.time.iter().any(|n| n == name)
    }

    /// True when `name` is the local name of `net/http`.
    pub fn is_http(&self, name: &str) -> bool {
        self.http.iter().any(|n| n == name)
    }

    /// True when `name` is the local name of go-retryablehttp.
    pub fn is_retryablehttp(&self, name: &str) -> bool {
        self.retryablehttp.iter().any(|n| n == name)
    }

    /// True when `name` is the local name of resty.
    pub fn is_resty(&self, name: &str) -> bool {
        self.resty.iter().any(|n| n == name)
    }

    /// True when `name` is an imported package.
    pub fn is_package(&self, name: &str) -> bool {
        self.packages.contains(name)
    }

    /// "go-retryablehttp v0.7.7" (from `go.mod`), or the source the defaults were
    /// read from, "go-retryablehttp@fd004584", when `go.mod` was not found.
    pub fn retryablehttp_label(&self) -> String {
        match &self.retryablehttp_version {
            Some(v) => format!("go-retryablehttp {v}"),
            None => "go-retryablehttp@fd004584".to_string(),
        }
    }
}

/// resty's major version from an import or module path.
fn resty_major(path: &str) -> Option<u8> {
    match path {
        "github.com/go-resty/resty/v2" => Some(2),
        "resty.dev/v3" | "github.com/go-resty/resty/v3" => Some(3),
        "gopkg.in/resty.v1" | "github.com/go-resty/resty" => Some(1),
        _ => None,
    }
}

/// The package name a path is imported under without an alias: its last segment
/// without a `/vN` major suffix, a `.vN` gopkg suffix or a `go-` prefix.
fn default_name(path: &str) -> String {
    let mut segs: Vec<&str> = path.split('/').collect();
    if segs.len() > 1
        && segs.last().is_some_and(|s| {
            s.len() > 1 && s.starts_with('v') && s[1..].bytes().all(|b| b.is_ascii_digit())
        })
    {
        segs.pop();
    }
    let last = segs.last().copied().unwrap_or(path);
    let last = last.split(".v").next().unwrap_or(last);
    let last = last.strip_prefix("go-").unwrap_or(last);
    if path == "resty.dev/v3" {
        return "resty".to_string();
    }
    last.to_string()
}

/// The text of the nearest `go.mod` in the file's directory or above it (at most
/// [`MAX_GO_MOD_LEVELS`] levels, by iterating ancestors); one `boundary` refuses
/// (above the project root, a link out of it) ends the search unread.
fn find_go_mod(file: &Path, boundary: &crate::source::boundary::ReadBoundary) -> Option<String> {
    let dir = file.parent()?;
    let abs = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    for d in abs.ancestors().take(MAX_GO_MOD_LEVELS) {
        let candidate = d.join("go.mod");
        if candidate.is_file() {
            if !boundary.admits(&candidate) {
                return None;
            }
            let bytes = crate::source::loader::read_regular_file(&candidate, 1 << 20).ok()?;
            return String::from_utf8(bytes).ok();
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_names() {
        assert_eq!(default_name("github.com/go-resty/resty/v2"), "resty");
        assert_eq!(default_name("resty.dev/v3"), "resty");
        assert_eq!(default_name("gopkg.in/resty.v1"), "resty");
        assert_eq!(
            default_name("github.com/hashicorp/go-retryablehttp"),
            "retryablehttp"
        );
        assert_eq!(default_name("net/http"), "http");
    }

    #[test]
    fn go_mod_versions() {
        let mut i = Imports::default();
        i.add("github.com/go-resty/resty/v2", None);
        i.add("github.com/hashicorp/go-retryablehttp", None);
        i.read_go_mod(
            "module x\n\nrequire (\n\tgithub.com/go-resty/resty/v2 v2.16.5\n\tgithub.com/hashicorp/go-retryablehttp v0.7.7 // indirect\n)\n",
        );
        assert_eq!(i.resty_version.as_ref().unwrap().label(), "resty v2.16.5");
        assert_eq!(i.retryablehttp_label(), "go-retryablehttp v0.7.7");
    }
}
