//! Human output: annotated source excerpts rendered by miette. Labels in another
//! file (a policy and the spec it governs) are rendered as notes below the finding
//! ("☞ see FILE"), each with its own excerpt, so one finding shows both places.
//!
//! Plain mode (no colour, no hyperlinks, fixed width 100) is used when the output is
//! not a terminal, under `NO_COLOR`, or with `--color never`; snapshots use it.

use super::controls;
use crate::diagnostic::{Diagnostic, Label, Severity};
use crate::source::{LineCol, SourceFile};
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

mod crop;

/// Most labels shown for one finding (its primary label included); the rest are
/// counted in an "and N more" note (`--format json` lists them all).
pub const MAX_LABELS: usize = 20;

/// A source that hands miette only the lines around a span, found with the file's
/// line index: rendering stays cheap on a 50 MB spec with many findings. Lines longer
/// than [`crop::MAX_SHOWN_LINE`] are shown only through the windows of [`crop`].
#[derive(Debug)]
struct Windowed {
    file: Arc<SourceFile>,
    /// What miette is shown of the file: its text with control characters masked
    /// ([`controls::mask`], same byte length), or the text itself when it has none.
    text: Arc<str>,
    /// The file's name as shown, controls escaped.
    name: String,
    windows: Vec<crop::Window>,
    /// For a file whose text is gone ([`Part::gone`]): where the one label shown
    /// really is; `text` is then [`GONE`] and the label spans it.
    pinned: Option<LineCol>,
}

/// What stands for an excerpt when a released file changed after its check.
const GONE: &str = crate::source::NO_EXCERPT;

impl Windowed {
    /// A source for labels already shortened with [`crop::fit`]; `text` is the file's
    /// text as [`Masked`] gives it.
    fn new(file: Arc<SourceFile>, text: Arc<str>, spans: &[std::ops::Range<usize>]) -> Windowed {
        let mut windows = crop::windows(&file, spans);
        for w in &mut windows {
            controls::mask(&mut w.bytes);
        }
        let name = controls::escape(&file.display).into_owned();
        Windowed {
            file,
            text,
            name,
            windows,
            pinned: None,
        }
    }

    /// A source for a file whose text is gone: [`GONE`], numbered as the line `at`.
    fn gone(file: Arc<SourceFile>, at: LineCol) -> Windowed {
        let name = controls::escape(&file.display).into_owned();
        Windowed {
            file,
            text: Arc::from(GONE),
            name,
            windows: Vec::new(),
            pinned: Some(at),
        }
    }
}

/// The masked text of the files a render used last, most recent last: findings come
/// file by file, so a few texts serve the whole render without holding every file's
/// (a repository's worth, when its texts were released after the check).
#[derive(Default)]
struct Masked(Vec<(std::path::PathBuf, Arc<str>)>);

/// Masked texts [`Masked`] keeps.
const MASKED_KEPT: usize = 4;

impl Masked {
    fn text(&mut self, file: &SourceFile) -> Arc<str> {
        if let Some(i) = self.0.iter().position(|(p, _)| *p == file.path) {
            let hit = self.0.remove(i);
            self.0.push(hit);
        } else {
            let text = match controls::masked(&file.text) {
                Some(m) => Arc::from(m),
                None => file.text.clone(),
            };
            if self.0.len() >= MASKED_KEPT {
                self.0.remove(0);
            }
            self.0.push((file.path.clone(), text));
        }
        self.0.last().expect("just pushed").1.clone()
    }
}

impl SourceCode for Windowed {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let file = &self.file;
        let text = self.text.as_bytes();
        let start = span.offset();
        let end = start + span.len();
        if end > text.len() {
            return Err(MietteError::OutOfBounds);
        }
        if let Some(at) = self.pinned {
            // The header (no context asked) shows the kept column; the excerpt line
            // is numbered as the kept line.
            let column = if before == 0 && after == 0 {
                at.column as usize - 1
            } else {
                0
            };
            return Ok(Box::new(MietteSpanContents::new_named(
                self.name.clone(),
                text,
                SourceSpan::new(0.into(), text.len()),
                at.line as usize - 1,
                column,
                1,
            )));
        }
        let first_line = crop::line_of(file, start);
        let last_line = crop::line_of(file, end.saturating_sub(1).max(start));
        // Without context (how miette asks for the header's `file:line:col`), the
        // contents start at the span itself, so the header shows its real column.
        if before == 0 && after == 0 {
            let data = &text[start..end];
            return Ok(Box::new(MietteSpanContents::new_named(
                self.name.clone(),
                data,
                *span,
                first_line,
                file.line_col(start).column as usize - 1,
                last_line - first_line + 1,
            )));
        }
        // A span on a long line: its window, never the line.
        if let Some(w) = self
            .windows
            .iter()
            .find(|w| w.line0 == first_line && w.from <= start && end <= w.to())
        {
            return Ok(Box::new(MietteSpanContents::new_named(
                self.name.clone(),
                &w.bytes,
                SourceSpan::new(w.from.into(), w.bytes.len()),
                w.line0,
                w.column0,
                1,
            )));
        }
        // Anything else touching a long line (miette merging two labels' excerpts
        // across one) is refused: miette then shows the excerpts apart.
        if (first_line..=last_line).any(|l| crop::is_long(file, l)) {
            return Err(MietteError::OutOfBounds);
        }
        // Context lines that are long are left out.
        let mut from_line = first_line.saturating_sub(before);
        while from_line < first_line && crop::is_long(file, from_line) {
            from_line += 1;
        }
        let mut to_line = (last_line + after + 1).min(file.line_count());
        while to_line > last_line + 1 && crop::is_long(file, to_line - 1) {
            to_line -= 1;
        }
        let from = file.line_start(from_line);
        let mut to = file.line_start(to_line);
        // Drop the final line break so miette does not show an empty line.
        while to > from && matches!(text[to - 1], b'\n' | b'\r') && to > end {
            to -= 1;
        }
        let data = &text[from..to.max(end)];
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
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
}

fn miette_severity(s: Severity) -> miette::Severity {
    match s {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
        Severity::Info => miette::Severity::Advice,
    }
}

/// One file's labels of a finding, before rendering: fitted spans, texts, primary.
struct Part {
    file: Arc<SourceFile>,
    labels: Vec<(std::ops::Range<usize>, Option<String>, bool)>,
    /// The file's text is gone (released, then changed on disk): only its first
    /// label is shown, at its kept position, over [`GONE`].
    gone: Option<LineCol>,
}

impl Part {
    /// The part of `label`'s file, holding `label`.
    fn new(label: &Label, primary: bool) -> Part {
        let at = &label.location;
        let mut part = match at.file.contents() {
            Some(file) => Part {
                file,
                labels: Vec::new(),
                gone: None,
            },
            None => Part {
                file: at.file.clone(),
                labels: Vec::new(),
                gone: Some(at.file.line_col(at.span.start)),
            },
        };
        part.push(label, primary);
        part
    }

    fn push(&mut self, label: &Label, primary: bool) {
        let text =
            (!label.message.is_empty()).then(|| controls::escape(&label.message).into_owned());
        let span = match self.gone {
            // Other labels of a gone file have no text to be shown against.
            Some(_) if !self.labels.is_empty() => return,
            Some(_) => 0..GONE.len(),
            None => crop::fit(&self.file, label.location.span.clone()),
        };
        self.labels.push((span, text, primary));
    }

    fn into_rendered(
        self,
        message: String,
        masked: &mut Masked,
    ) -> (Windowed, Vec<LabeledSpan>, String) {
        let spans: Vec<_> = self.labels.iter().map(|(s, _, _)| s.clone()).collect();
        let labels = self
            .labels
            .into_iter()
            .map(|(span, text, primary)| {
                let span = SourceSpan::new(span.start.into(), span.len());
                if primary {
                    LabeledSpan::new_primary_with_span(text, span)
                } else {
                    LabeledSpan::new_with_span(text, span)
                }
            })
            .collect();
        let source = match self.gone {
            Some(at) => Windowed::gone(self.file, at),
            None => {
                let text = masked.text(&self.file);
                Windowed::new(self.file, text, &spans)
            }
        };
        (source, labels, message)
    }
}

fn note(message: String, source: Windowed, labels: Vec<LabeledSpan>) -> Rendered {
    Rendered {
        message,
        code: None,
        severity: miette::Severity::Advice,
        help: None,
        source,
        labels,
        related: Vec::new(),
    }
}

fn to_rendered(d: &Diagnostic, masked: &mut Masked) -> Rendered {
    // Excerpts need the text: a file released after its check is read back.
    let mut main = Part::new(&d.primary, true);
    let file = main.file.clone();
    let mut others: Vec<Part> = Vec::new();
    let shown = d.labels.len().min(MAX_LABELS - 1);
    for l in &d.labels[..shown] {
        if Arc::ptr_eq(&l.location.file, &file) || l.location.file.path == file.path {
            main.push(l, false);
        } else if let Some(p) = others
            .iter_mut()
            .find(|p| p.file.path == l.location.file.path)
        {
            p.push(l, false);
        } else {
            others.push(Part::new(l, false));
        }
    }
    let mut related: Vec<Rendered> = others
        .into_iter()
        .map(|p| {
            let message = format!("see {}", controls::escape(&p.file.display));
            let (source, labels, message) = p.into_rendered(message, masked);
            note(message, source, labels)
        })
        .collect();
    let hidden = d.labels.len() - shown;
    if hidden > 0 {
        let what = if d.operations.len() > 1 {
            "operations"
        } else {
            "places"
        };
        related.push(note(
            format!("and {hidden} more {what} (`--format json` lists every one)"),
            // No labels: the note shows no excerpt, so no text is needed.
            Windowed::new(file.clone(), Arc::from(""), &[]),
            Vec::new(),
        ));
    }
    let message = controls::escape(&d.message).into_owned();
    let (source, labels, message) = main.into_rendered(message, masked);
    Rendered {
        message,
        code: Some(format!("{} {}", d.code, d.name)),
        severity: miette_severity(d.severity),
        help: d.help.as_deref().map(|h| controls::escape(h).into_owned()),
        source,
        labels,
        related,
    }
}

/// Renders every diagnostic, in order, followed by nothing else (the caller prints
/// the summary line).
pub fn render(diags: &[Diagnostic], options: HumanOptions) -> String {
    let mut out = String::new();
    let written: std::io::Result<()> = render_each(diags, options, |text| {
        out.push_str(text);
        Ok(())
    });
    // Pushing to a string cannot fail.
    debug_assert!(written.is_ok());
    out
}

/// [`render`], handing each finding's text to `emit` as soon as it is rendered, so a
/// report is written while it is made: the report of 50,000 findings is 70 MB of
/// text, which a whole rendered string added to the peak memory of the run (issue
/// 43). Stops at the first error of `emit`.
pub fn render_each(
    diags: &[Diagnostic],
    options: HumanOptions,
    mut emit: impl FnMut(&str) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let theme = if options.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(options.width)
        .with_links(false)
        .with_context_lines(1)
        // Lines wrap at spaces only: a header name (`Idempotency-Key`), a file path
        // or an operation is never split (at a hyphen, a slash, or the width), so it
        // can be searched for and copied whole; a word longer than the width runs
        // past it. This also skips Unicode line breaking, a third of the
        // instructions of a small run's report.
        .with_word_separator(textwrap::WordSeparator::AsciiSpace)
        .with_word_splitter(textwrap::WordSplitter::NoHyphenation)
        .with_break_words(false);
    let mut out = String::new();
    let mut masked = Masked::default();
    for d in diags {
        out.clear();
        let mut r = to_rendered(d, &mut masked);
        // Notes are rendered as reports of their own ("☞ see FILE" and its excerpt):
        // miette heads a related diagnostic with its severity ("Advice: "), which
        // says nothing here.
        let notes = std::mem::take(&mut r.related);
        let mut failed = handler.render_report(&mut out, &r).is_err();
        for note in &notes {
            out.push('\n');
            failed |= handler.render_report(&mut out, note).is_err();
        }
        if failed {
            out.push_str(&format!(
                "{}: {} {}: {}\n",
                controls::escape(&d.primary.location.file.display),
                d.code,
                d.name,
                controls::escape(&d.message)
            ));
        }
        out.push('\n');
        emit(&out)?;
    }
    Ok(())
}
