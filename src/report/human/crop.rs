//! Excerpts of long lines: what miette may be handed.
//!
//! miette lays out every label of a line in one row of underlines, padding each with
//! `format!("{:width$}")`; since Rust 1.87 a width above `u16::MAX` panics ("Formatting
//! argument out of range"), so two labels 65,536 columns apart on one minified line
//! abort the run (exit 101). It also prints a source line whole. So a line longer than
//! [`MAX_SHOWN_LINE`] bytes is never given to miette: each label on it is shortened to
//! at most [`MAX_LABEL`] bytes, and miette sees only a window of [`CONTEXT`] bytes
//! around the labels, with `…` where the line goes on. Windows of labels far apart stay
//! apart, so each gets its own excerpt and header.

use crate::source::SourceFile;
use std::ops::Range;

/// Longest line shown whole, in bytes (without its line break).
pub const MAX_SHOWN_LINE: usize = 400;
/// Bytes of context kept on each side of the labels of a long line.
pub const CONTEXT: usize = 60;
/// Longest underline on a long line, in bytes.
pub const MAX_LABEL: usize = 80;

/// A cropped piece of one long line, as miette sees it: the bytes `from..from +
/// bytes.len()` of the file, with the first and last character or two replaced by `…`
/// (and spaces) where the line goes on. Same length as the original bytes, so offsets
/// and spans stay those of the file.
#[derive(Debug, Clone)]
pub struct Window {
    /// Byte offset of the first byte shown.
    pub from: usize,
    /// The bytes shown (valid UTF-8).
    pub bytes: Box<[u8]>,
    /// 0-based line.
    pub line0: usize,
    /// 0-based column (characters) of `from`.
    pub column0: usize,
}

impl Window {
    /// One past the last byte offset shown.
    pub fn to(&self) -> usize {
        self.from + self.bytes.len()
    }
}

/// 0-based line of a byte offset.
pub fn line_of(file: &SourceFile, offset: usize) -> usize {
    file.line_col(offset).line as usize - 1
}

/// Byte offset where line `line0`'s text ends (before its line break).
pub fn content_end(file: &SourceFile, line0: usize) -> usize {
    let text = file.text.as_bytes();
    let from = file.line_start(line0);
    let mut to = file.line_start(line0 + 1);
    while to > from && matches!(text[to - 1], b'\n' | b'\r') {
        to -= 1;
    }
    to
}

/// Whether line `line0` is longer than [`MAX_SHOWN_LINE`] bytes.
pub fn is_long(file: &SourceFile, line0: usize) -> bool {
    content_end(file, line0) - file.line_start(line0) > MAX_SHOWN_LINE
}

fn floor_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// The span to underline for `span`: unchanged when it lies on short lines; at most
/// [`MAX_LABEL`] bytes of its first line when that line is long; cut before the first
/// long line when it starts on a short one.
pub fn fit(file: &SourceFile, span: Range<usize>) -> Range<usize> {
    let text = &*file.text;
    let start = floor_boundary(text, span.start);
    let end = span.end.clamp(start, text.len());
    let first = line_of(file, start);
    let last = line_of(file, end.saturating_sub(1).max(start));
    if is_long(file, first) {
        let line_end = content_end(file, first);
        let mut to = floor_boundary(text, end.min(line_end).min(start + MAX_LABEL));
        if to == start && end > start && start < line_end {
            to = ceil_boundary(text, start + 1);
        }
        return start..to.max(start);
    }
    for line in first + 1..=last {
        if is_long(file, line) {
            return start..content_end(file, line - 1).max(start);
        }
    }
    start..end
}

/// The windows of a file for the (already [`fit`]) spans lying on its long lines:
/// sorted, disjoint, each with its `…` marks.
pub fn windows(file: &SourceFile, spans: &[Range<usize>]) -> Vec<Window> {
    let text = &*file.text;
    let mut on_long: Vec<(usize, Range<usize>)> = spans
        .iter()
        .filter_map(|s| {
            let line = line_of(file, s.start);
            is_long(file, line).then(|| (line, s.clone()))
        })
        .collect();
    on_long.sort_by_key(|(line, s)| (*line, s.start, s.end));
    // Ranges to show, per line, merged where they touch or nearly so.
    let mut ranges: Vec<(usize, Range<usize>)> = Vec::new();
    for (line, s) in on_long {
        let line_start = file.line_start(line);
        let line_end = content_end(file, line);
        let from = floor_boundary(text, s.start.saturating_sub(CONTEXT).max(line_start));
        let to = ceil_boundary(text, (s.end + CONTEXT).min(line_end)).max(s.end);
        match ranges.last_mut() {
            Some((l, r)) if *l == line && from <= r.end + 8 => r.end = r.end.max(to),
            _ => ranges.push((line, from..to)),
        }
    }
    ranges
        .into_iter()
        .map(|(line, r)| {
            let line_start = file.line_start(line);
            let line_end = content_end(file, line);
            let mut to = r.end;
            // The line break goes along when the window reaches the line end, so a
            // label at the end of the line is drawn as miette draws it elsewhere.
            let rest = &text.as_bytes()[to..];
            if to == line_end {
                if rest.starts_with(b"\r\n") {
                    to += 2;
                } else if rest.starts_with(b"\n") {
                    to += 1;
                }
            }
            let mut bytes = text.as_bytes()[r.start..to].to_vec();
            if r.start > line_start {
                // `…` over the first characters: at least 3 bytes, whole characters.
                let k = ceil_boundary(text, r.start + 3) - r.start;
                bytes[..k].fill(b' ');
                bytes[..3].copy_from_slice("…".as_bytes());
            }
            if r.end < line_end {
                let j = floor_boundary(text, r.end - 3) - r.start;
                let n = r.end - r.start;
                bytes[j..n].fill(b' ');
                bytes[n - 3..n].copy_from_slice("…".as_bytes());
            }
            Window {
                from: r.start,
                bytes: bytes.into_boxed_slice(),
                line0: line,
                column0: file.line_col(r.start).column as usize - 1,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn file(text: &str) -> SourceFile {
        SourceFile::new(PathBuf::from("x.json"), "x.json".into(), text)
    }

    #[test]
    fn short_lines_are_left_alone() {
        let f = file("a: 1\nb: 2\n");
        assert_eq!(fit(&f, 0..9), 0..9);
        assert!(windows(&f, std::slice::from_ref(&(0..1))).is_empty());
    }

    #[test]
    fn a_long_line_is_cropped_with_marks() {
        let text = format!(
            "{{\"a\": \"{}\", \"é\": 1, \"b\": \"{}\"}}\n",
            "x".repeat(500),
            "y".repeat(500)
        );
        let f = file(&text);
        let at = text.find("\"é\"").unwrap();
        let span = fit(&f, at..text.len());
        assert!(span.len() <= MAX_LABEL);
        let w = windows(&f, std::slice::from_ref(&span));
        assert_eq!(w.len(), 1);
        let shown = std::str::from_utf8(&w[0].bytes).unwrap();
        assert!(shown.starts_with('…') && shown.ends_with('…'), "{shown}");
        assert!(shown.contains("\"é\": 1"), "{shown}");
        assert!(w[0].from <= span.start && span.end <= w[0].to());
        assert_eq!(w[0].bytes.len(), w[0].to() - w[0].from);
    }

    #[test]
    fn labels_far_apart_get_their_own_windows() {
        let text = format!("[1,{},2]", " ".repeat(70_000));
        let f = file(&text);
        let w = windows(&f, &[1..2, text.len() - 2..text.len() - 1]);
        assert_eq!(w.len(), 2);
        assert!(w.iter().all(|w| w.bytes.len() < 2 * CONTEXT + MAX_LABEL));
    }
}
