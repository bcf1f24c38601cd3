//! Human output: annotated source excerpts rendered by miette. Labels in another
//! file (a policy and the spec it governs) are rendered as related notes with their
//! own excerpt, so one finding shows both places.
//!
//! Plain mode (no colour, no hyperlinks, fixed width 100) is used when the output is
//! not a terminal, under `NO_COLOR`, or with `--color never`; snapshots use it.

use crate::diagnostic::{Diagnostic, Label, Severity};
use crate::source::SourceFile;
use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents,
    SourceCode, SourceSpan, SpanContents,
};
use std::fmt;
use std::sync::Arc;

/// Rendering options.
#[derive(Debug, Clone, Copy)]
pub struct HumanOptions {
    /// ANSI colours and Unicode art.
    pub color: bool,
    /// Terminal width in columns.
    pub width: usize,
}

impl Default for HumanOptions {
    fn default() -> Self {
        HumanOptions {
            color: false,
            width: 100,
        }
    }
}

/// Longest line shown whole in a snippet, in bytes; longer lines are clipped.
const MAX_SHOWN_LINE: usize = 400;

/// A source that hands miette only the lines around a span, found with the file's
/// line index: rendering stays cheap on a 50 MB spec with many findings.
#[derive(Debug)]
struct Windowed(Arc<SourceFile>);

impl SourceCode for Windowed {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let file = &self.0;
        let text = file.text.as_bytes();
        let start = span.offset();
        let end = start + span.len();
        if end > text.len() {
            return Err(MietteError::OutOfBounds);
        }
        let first_line = file.line_col(start).line as usize - 1;
        let last_line = file.line_col(end.saturating_sub(1).max(start)).line as usize - 1;
        // A very long line (minified JSON: one 50 MB line) is clipped to a few
        // hundred bytes around the span, so the report stays small.
        let line_from = file.line_start(first_line);
        let line_to = file.line_start(first_line + 1);
        if first_line == last_line && line_to - line_from > MAX_SHOWN_LINE {
            let mut from = start.saturating_sub(MAX_SHOWN_LINE / 2).max(line_from);
            while !file.text.is_char_boundary(from) {
                from -= 1;
            }
            let mut to = (end + MAX_SHOWN_LINE / 2).min(line_to).max(end);
            while to > end && matches!(text[to - 1], b'\n' | b'\r') {
                to -= 1;
            }
            while !file.text.is_char_boundary(to) {
                to += 1;
            }
            let data = &text[from..to];
            let column = file.line_col(from).column as usize - 1;
            return Ok(Box::new(MietteSpanContents::new_named(
                file.display.clone(),
                data,
                SourceSpan::new(from.into(), data.len()),
                first_line,
                column,
                1,
            )));
        }
        // Without context (how miette asks for the header's `file:line:col`), the
        // contents start at the span itself, so the header shows its real column.
        if before == 0 && after == 0 {
            let data = &text[start..end];
            return Ok(Box::new(MietteSpanContents::new_named(
                file.display.clone(),
                data,
                *span,
                first_line,
                file.line_col(start).column as usize - 1,
                last_line - first_line + 1,
            )));
        }
        let from_line = first_line.saturating_sub(before);
        let to_line = (last_line + after + 1).min(file.line_count());
        let from = file.line_start(from_line);
        let mut to = file.line_start(to_line);
        // Drop the final line break so miette does not show an empty line.
        while to > from && matches!(text[to - 1], b'\n' | b'\r') && to > end {
            to -= 1;
        }
        let data = &text[from..to.max(end)];
        Ok(Box::new(MietteSpanContents::new_named(
            file.display.clone(),
            data,
            SourceSpan::new(from.into(), data.len()),
            from_line,
            0,
            to_line - from_line,
        )))
    }
}

#[derive(Debug)]
struct Rendered {
    message: String,
    code: Option<String>,
    severity: miette::Severity,
    help: Option<String>,
    source: Windowed,
    labels: Vec<LabeledSpan>,
    related: Vec<Rendered>,
}

impl fmt::Display for Rendered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Rendered {}

impl miette::Diagnostic for Rendered {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.code
            .as_ref()
            .map(|c| Box::new(c.as_str()) as Box<dyn fmt::Display>)
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h.as_str()) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.source)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().cloned()))
    }
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn miette::Diagnostic> + 'a>> {
        if self.related.is_empty() {
            return None;
        }
        Some(Box::new(
            self.related.iter().map(|r| r as &dyn miette::Diagnostic),
        ))
    }
}

fn miette_severity(s: Severity) -> miette::Severity {
    match s {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
        Severity::Info => miette::Severity::Advice,
    }
}

fn labeled(label: &Label, primary: bool) -> LabeledSpan {
    let span = &label.location.span;
    let text = (!label.message.is_empty()).then(|| label.message.clone());
    LabeledSpan::new_with_span(text, SourceSpan::new(span.start.into(), span.len()))
        .tap_primary(primary)
}

trait TapPrimary {
    fn tap_primary(self, primary: bool) -> Self;
}

impl TapPrimary for LabeledSpan {
    fn tap_primary(self, primary: bool) -> Self {
        if primary {
            LabeledSpan::new_primary_with_span(self.label().map(str::to_string), *self.inner())
        } else {
            self
        }
    }
}

fn to_rendered(d: &Diagnostic) -> Rendered {
    let file = d.primary.location.file.clone();
    let mut labels = vec![labeled(&d.primary, true)];
    let mut related: Vec<Rendered> = Vec::new();
    for l in &d.labels {
        if Arc::ptr_eq(&l.location.file, &file) || l.location.file.path == file.path {
            labels.push(labeled(l, false));
        } else if let Some(r) = related
            .iter_mut()
            .find(|r| r.source.0.path == l.location.file.path)
        {
            r.labels.push(labeled(l, false));
        } else {
            related.push(Rendered {
                message: format!("see {}", l.location.file.display),
                code: None,
                severity: miette::Severity::Advice,
                help: None,
                source: Windowed(l.location.file.clone()),
                labels: vec![labeled(l, false)],
                related: Vec::new(),
            });
        }
    }
    Rendered {
        message: d.message.clone(),
        code: Some(format!("{} {}", d.code, d.name)),
        severity: miette_severity(d.severity),
        help: d.help.clone(),
        source: Windowed(file),
        labels,
        related,
    }
}

/// Renders every diagnostic, in order, followed by nothing else (the caller prints
/// the summary line).
pub fn render(diags: &[Diagnostic], options: HumanOptions) -> String {
    let theme = if options.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(options.width)
        .with_links(false)
        .with_context_lines(1);
    let mut out = String::new();
    for d in diags {
        let r = to_rendered(d);
        if handler.render_report(&mut out, &r).is_err() {
            out.push_str(&format!(
                "{}: {} {}: {}\n",
                d.primary.location.file.display, d.code, d.name, d.message
            ));
        }
        out.push('\n');
    }
    out
}
