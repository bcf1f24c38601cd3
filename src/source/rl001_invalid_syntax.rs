//! RL001 invalid-syntax: a file that must be read is not valid YAML/JSON (or cannot
//! be read at all). Reported by the loading stage from a [`LoadError`].

use crate::diagnostic::catalog;
use crate::diagnostic::RuleMeta;
use crate::diagnostic::{Diagnostic, Location};
use crate::source::loader::{LoadError, Loaded};

/// Rule metadata ([`catalog::INVALID_SYNTAX`]).
pub const META: RuleMeta = catalog::INVALID_SYNTAX;

/// The finding for a file that has no tree; `None` when it loaded.
pub fn diagnostic(loaded: &Loaded) -> Option<Diagnostic> {
    let error = loaded.tree.as_ref().err()?;
    Some(from_error(loaded, error))
}

/// The finding for one load error of `loaded`'s file.
pub fn from_error(loaded: &Loaded, error: &LoadError) -> Diagnostic {
    let file = loaded.file.clone();
    let at = |offset: usize| {
        let len = file.text.len();
        let start = offset.min(len);
        let mut end = (start + 1).min(len);
        while !file.text.is_char_boundary(end) {
            end += 1;
        }
        Location {
            file: file.clone(),
            span: start..end,
            pointer: String::new(),
        }
    };
    let name = file.display.clone();
    match error {
        LoadError::Syntax(e) => Diagnostic::new(
            &META,
            format!(
                "`{name}` is not valid YAML or JSON: {}.",
                e.message.trim_end_matches('.')
            ),
            at(e.offset),
            "syntax error",
        )
        .with_help("Fix the syntax at the marked position."),
        LoadError::Binary => {
            let text = expected_text(&name);
            Diagnostic::new(
                &META,
                format!("`{name}` is a binary file, not {text}."),
                at(0),
                "binary content",
            )
            .with_help(format!("Replace it with the {text} it should hold, or leave it out of the run (`exclude` in `.retrylint.yaml`)."))
        }
        LoadError::Encrypted => Diagnostic::new(
            &META,
            format!("`{name}` is encrypted by git-crypt, so its content cannot be read."),
            at(0),
            "encrypted content",
        )
        .with_help("Unlock the repository (`git-crypt unlock`) before linting it; a walked encrypted file is skipped."),
        LoadError::NotUtf8(offset) => Diagnostic::new(
            &META,
            format!("`{name}` is not valid UTF-8 text."),
            at(*offset),
            "first invalid byte",
        )
        .with_help("Save the file as UTF-8."),
        LoadError::Io(message) => Diagnostic::new(
            &META,
            format!("`{name}` could not be read: {message}."),
            at(0),
            "unreadable file",
        )
        .with_help("Check that the file exists and is readable."),
        LoadError::OutsideRoot => Diagnostic::new(
            &META,
            format!("`{name}` lies outside the project root, so it is not read."),
            at(0),
            "outside the project root",
        )
        .with_help("Name the real file (not a link to it) inside the project, pass `--root` covering it, or move it into the project, if it is meant to be read."),
        LoadError::TooLarge { size, limit } => Diagnostic::new(
            &META,
            format!("`{name}` is {size} bytes, larger than the limit of {limit} bytes."),
            at(0),
            "file too large",
        )
        .with_help("Raise the limit with `--max-file-size BYTES` if the file is meant to be read."),
    }
}

/// The finding for a path that could not be walked (unreadable directory, broken
/// link, symlink loop).
pub fn walk_problem(
    ws: &crate::source::loader::Workspace,
    path: &std::path::Path,
    message: &str,
) -> Diagnostic {
    // The absolute path, as a loaded file's: reports make it root-relative (SARIF's
    // `%SRCROOT%` URIs), which a path as walked (`./api/locked`) cannot be.
    let absolute = std::fs::canonicalize(path).unwrap_or_else(|_| ws.cwd().join(path));
    let file = std::sync::Arc::new(crate::source::SourceFile::new(
        absolute,
        ws.display_path(path),
        "",
    ));
    Diagnostic::new(
        &META,
        format!("`{}` could not be read: {message}.", file.display),
        Location {
            file,
            span: 0..0,
            pointer: String::new(),
        },
        "unreadable",
    )
    .with_help(
        "Check that the path exists and is readable; leave it out with `.gitignore` or \
         `.ignore` if it is not meant to be linted.",
    )
}

/// The finding for a syntax error that a located reader of a non-YAML format (nginx,
/// HAProxy) met in `loaded`'s file: `format` names the syntax ("nginx
/// configuration"), `message` what is wrong, `offset` the byte where it is.
pub fn in_format(loaded: &Loaded, format: &str, message: &str, offset: usize) -> Diagnostic {
    let file = loaded.file.clone();
    let len = file.text.len();
    let start = offset.min(len);
    let mut end = (start + 1).min(len);
    while !file.text.is_char_boundary(end) {
        end += 1;
    }
    let name = file.display.clone();
    Diagnostic::new(
        &META,
        format!(
            "`{name}` is not valid {format}: {}.",
            message.trim_end_matches('.')
        ),
        Location {
            file,
            span: start..end,
            pointer: String::new(),
        },
        "syntax error",
    )
    .with_help("Fix the syntax at the marked position.")
}

/// The text a file of this name should hold, for RL001's binary-file message: a
/// `nginx.conf` full of NUL bytes is no "YAML or JSON" (the importers read each
/// format by its name).
fn expected_text(name: &str) -> &'static str {
    let file = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let ext = file
        .rsplit_once('.')
        .map_or("", |(_, e)| e)
        .to_ascii_lowercase();
    match ext.as_str() {
        "toml" => "TOML text",
        "properties" => "Java properties text",
        "conf" | "cfg" => "config text",
        "proto" => "Protocol Buffers text",
        "yaml" | "yml" | "json" => "YAML or JSON text",
        _ if file == "config" || file == "credentials" => "config text",
        _ if crate::source::language::Language::of_path(std::path::Path::new(file)).is_some() => {
            "source code text"
        }
        _ => "YAML or JSON text",
    }
}

#[cfg(test)]
mod tests {
    use super::expected_text;

    #[test]
    fn a_binary_file_is_told_the_text_its_name_asks_for() {
        assert_eq!(expected_text("deploy/nginx.conf"), "config text");
        assert_eq!(expected_text("haproxy.cfg"), "config text");
        assert_eq!(expected_text("traefik.toml"), "TOML text");
        assert_eq!(
            expected_text("src/main/resources/application.properties"),
            "Java properties text"
        );
        assert_eq!(expected_text(".aws/config"), "config text");
        assert_eq!(expected_text("api/openapi.yaml"), "YAML or JSON text");
        assert_eq!(expected_text("services/client.py"), "source code text");
    }
}
