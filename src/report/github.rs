//! `--format github`: GitHub Actions workflow commands, one line per finding:
//! `::error file=F,line=L,col=C,endLine=L,endColumn=C,title=RL201 unprotected-retry::message`.
//! Info findings are `notice`s. Escaping follows the Actions runner: in the message
//! `%`, `\r` and `\n`; in properties also `:` and `,`.
//!
//! GitHub resolves `file=` against the repository checkout (`GITHUB_WORKSPACE`),
//! whatever the step's `working-directory`, so paths are relative to that (see
//! [`base`]), never to the current directory.

use super::{controls, root_relative};
use crate::diagnostic::{Diagnostic, Severity};
use std::path::{Path, PathBuf};

/// The directory `file=` paths are relative to: `GITHUB_WORKSPACE` (the value of the
/// environment variable, canonicalised) when set and not empty, else the project root.
pub fn base(github_workspace: Option<&std::ffi::OsStr>, project_root: &Path) -> PathBuf {
    match github_workspace {
        Some(w) if !w.is_empty() => std::fs::canonicalize(w).unwrap_or_else(|_| PathBuf::from(w)),
        _ => project_root.to_path_buf(),
    }
}

/// Escapes the message part of a workflow command (other control characters too, as
/// [`controls::escape`] writes them: the log is shown on terminals and web pages).
pub fn escape_data(s: &str) -> String {
    let s = s
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    controls::escape(&s).into_owned()
}

/// Escapes a property value of a workflow command.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Renders one workflow command per diagnostic, paths relative to `base` (see
/// [`base`]; a file outside it keeps its display path).
pub fn render(diags: &[Diagnostic], base: &Path) -> String {
    let mut out = String::new();
    for d in diags {
        let command = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let loc = &d.primary.location;
        let start = loc.file.line_col(loc.span.start);
        let end = loc.file.line_col(loc.span.end);
        let mut message = d.message.clone();
        if let Some(help) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(help);
        }
        out.push_str(&format!(
            "::{command} file={},line={},col={},endLine={},endColumn={},title={}::{}\n",
            escape_property(&root_relative(loc, base)),
            start.line,
            start.column,
            end.line,
            end.column,
            escape_property(&format!("{} {}", d.code, d.name)),
            escape_data(&message),
        ));
    }
    out
}
