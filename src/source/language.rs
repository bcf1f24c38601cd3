//! The source languages retrylint reads retries from, recognised by file extension,
//! each with its tree-sitter grammar (read by `crate::import::code`; the loader
//! uses it to leave source files unparsed as YAML), behind a cargo feature (`lang-python`,
//! `lang-javascript`, `lang-java`, `lang-csharp`, `lang-go`, `lang-rust`).

use std::path::Path;

/// A language whose source files may hold retry clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Language {
    /// `.py`, `.pyi`.
    Python,
    /// `.js`, `.mjs`, `.cjs`, `.jsx`.
    JavaScript,
    /// `.ts`, `.mts`, `.cts`.
    TypeScript,
    /// `.tsx`.
    Tsx,
    /// `.java`.
    Java,
    /// `.cs`.
    CSharp,
    /// `.go`.
    Go,
    /// `.rs`.
    Rust,
}

impl Language {
    /// The language of a file, by extension (`None` for other files; a `.d.ts`
    /// declaration file holds no code).
    pub fn of_path(path: &Path) -> Option<Language> {
        let name = path.file_name()?.to_str()?.to_ascii_lowercase();
        if name.ends_with(".d.ts") {
            return None;
        }
        let ext = name.rsplit_once('.')?.1;
        Some(match ext {
            "py" | "pyi" => Language::Python,
            "js" | "mjs" | "cjs" | "jsx" => Language::JavaScript,
            "ts" | "mts" | "cts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "java" => Language::Java,
            "cs" => Language::CSharp,
            "go" => Language::Go,
            "rs" => Language::Rust,
            _ => return None,
        })
    }

    /// The name in messages (`Python`, `TypeScript`).
    pub fn name(self) -> &'static str {
        match self {
            Language::Python => "Python",
            Language::JavaScript => "JavaScript",
            Language::TypeScript => "TypeScript",
            Language::Tsx => "TSX",
            Language::Java => "Java",
            Language::CSharp => "C#",
            Language::Go => "Go",
            Language::Rust => "Rust",
        }
    }

    /// The cargo feature that carries this language's grammar.
    pub fn feature(self) -> &'static str {
        match self {
            Language::Python => "lang-python",
            Language::JavaScript | Language::TypeScript | Language::Tsx => "lang-javascript",
            Language::Java => "lang-java",
            Language::CSharp => "lang-csharp",
            Language::Go => "lang-go",
            Language::Rust => "lang-rust",
        }
    }

    /// The tree-sitter grammar; `None` when this build leaves the language's feature
    /// out (the file is then skipped with a note).
    pub fn grammar(self) -> Option<tree_sitter::Language> {
        match self {
            #[cfg(feature = "lang-python")]
            Language::Python => Some(tree_sitter_python::LANGUAGE.into()),
            #[cfg(feature = "lang-javascript")]
            Language::JavaScript => Some(tree_sitter_javascript::LANGUAGE.into()),
            #[cfg(feature = "lang-javascript")]
            Language::TypeScript => Some(tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()),
            #[cfg(feature = "lang-javascript")]
            Language::Tsx => Some(tree_sitter_typescript::LANGUAGE_TSX.into()),
            #[cfg(feature = "lang-java")]
            Language::Java => Some(tree_sitter_java::LANGUAGE.into()),
            #[cfg(feature = "lang-csharp")]
            Language::CSharp => Some(tree_sitter_c_sharp::LANGUAGE.into()),
            #[cfg(feature = "lang-go")]
            Language::Go => Some(tree_sitter_go::LANGUAGE.into()),
            #[cfg(feature = "lang-rust")]
            Language::Rust => Some(tree_sitter_rust::LANGUAGE.into()),
            #[allow(unreachable_patterns)] // every arm above is on in the default build
            _ => None,
        }
    }

    /// Text that a file holding a retry client (or a declarative HTTP client a retry
    /// binds through) contains, so the other files are never parsed: the cheap
    /// pre-check of a repository scan. Matched case-insensitively as ASCII.
    pub fn markers(self) -> &'static [&'static str] {
        // "retr" covers retry/Retry/Retryer/Retryable/retryablehttp/SetRetryCount/
        // WaitAndRetry/reqwest_retry; the rest are retries without the word.
        const COMMON: &[&str] = &["retr", "backoff"];
        match self {
            Language::Python => &["retr", "backoff", "stamina"],
            Language::JavaScript | Language::TypeScript | Language::Tsx => COMMON,
            Language::Java => &[
                "retr",
                "backoff",
                "feignclient",
                "httpexchange",
                "retrofit2",
            ],
            Language::CSharp => &["retr", "backoff", "resilience", "refit"],
            Language::Go => COMMON,
            Language::Rust => &["retr", "backoff", "backon"],
        }
    }

    /// True when `text` may hold a retry client ([`Language::markers`]).
    pub fn may_hold_retries(self, text: &[u8]) -> bool {
        contains_any_ignore_ascii_case(text, self.markers())
    }
}

/// True when `text` contains one of `needles` (lower-case ASCII), ignoring ASCII
/// case; a scan per needle over the bytes, no allocation.
pub fn contains_any_ignore_ascii_case(text: &[u8], needles: &[&str]) -> bool {
    needles.iter().any(|n| {
        let n = n.as_bytes();
        let Some(&first) = n.first() else {
            return true;
        };
        let upper = first.to_ascii_uppercase();
        let mut i = 0;
        while let Some(off) = memchr::memchr2(first, upper, &text[i..]) {
            let at = i + off;
            if text.len() - at >= n.len() && text[at..at + n.len()].eq_ignore_ascii_case(n) {
                return true;
            }
            i = at + 1;
        }
        false
    })
}

/// Folders that hold other people's code (dependencies, build output, virtual
/// environments): a retry library's own source is not a client of the user's API.
pub const VENDORED_DIRS: &[&str] = &[
    "node_modules",
    "vendor",
    "third_party",
    "site-packages",
    ".venv",
    "venv",
    "target",
    "dist",
    "build",
    "bin",
    "obj",
    "__pycache__",
];

/// True when `path` lies under one of [`VENDORED_DIRS`].
pub fn is_vendored(path: &Path) -> bool {
    path.components().any(|c| {
        c.as_os_str()
            .to_str()
            .is_some_and(|s| VENDORED_DIRS.contains(&s))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_by_extension() {
        assert_eq!(
            Language::of_path(Path::new("a/b.py")),
            Some(Language::Python)
        );
        assert_eq!(Language::of_path(Path::new("x.TSX")), Some(Language::Tsx));
        assert_eq!(Language::of_path(Path::new("types.d.ts")), None);
        assert_eq!(Language::of_path(Path::new("go.mod")), None);
        assert_eq!(Language::of_path(Path::new("Makefile")), None);
    }

    #[test]
    fn markers_ignore_case_and_need_the_whole_word() {
        assert!(Language::Go.may_hold_retries(b"c.SetRetryCount(3)"));
        assert!(Language::CSharp.may_hold_retries(b"AddStandardResilienceHandler()"));
        assert!(!Language::Go.may_hold_retries(b"package main\nfunc main() { re }"));
        assert!(!Language::Python.may_hold_retries(b"ret"));
    }

    #[test]
    fn vendored_paths() {
        assert!(is_vendored(Path::new(
            "web/node_modules/axios-retry/index.js"
        )));
        assert!(!is_vendored(Path::new("src/vendors.py")));
    }
}
