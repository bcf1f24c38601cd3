//! Byte offsets (how retrylint locates everything) to and from LSP positions: a
//! 0-based line and a column in UTF-16 code units, as the protocol requires.

use crate::diagnostic::SourceFile;
use lsp_types::{Position, Range};

/// The LSP position of byte `offset` of `file` (clamped to the text, moved back to a
/// char boundary).
pub fn position(file: &SourceFile, offset: usize) -> Position {
    let text = &*file.text;
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let at = file.line_col(offset);
    let start = file.line_start(at.line as usize - 1).min(offset);
    // Columns count scalar values; a scalar above U+FFFF (4 UTF-8 bytes) is two
    // UTF-16 units. Counting lead bytes keeps long minified lines cheap.
    let astral = text.as_bytes()[start..offset]
        .iter()
        .filter(|&&b| b >= 0xF0)
        .count() as u32;
    Position::new(at.line - 1, at.column - 1 + astral)
}

/// The LSP range of the byte span `start..end` of `file`.
pub fn range(file: &SourceFile, span: &std::ops::Range<usize>) -> Range {
    Range::new(position(file, span.start), position(file, span.end))
}

/// The byte offset of LSP position `pos` in `text` (clamped to its line's end and
/// to the text: an editor may ask past either).
pub fn offset(text: &str, pos: Position) -> usize {
    let mut line_start = 0;
    for _ in 0..pos.line {
        match text[line_start..].find('\n') {
            Some(i) => line_start += i + 1,
            None => return text.len(),
        }
    }
    let mut units = 0u32;
    for (i, c) in text[line_start..].char_indices() {
        if units >= pos.character || c == '\n' || c == '\r' {
            return line_start + i;
        }
        units += c.len_utf16() as u32;
    }
    text.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn file(text: &str) -> SourceFile {
        SourceFile::new(PathBuf::from("/x.yaml"), "x.yaml".into(), text)
    }

    #[test]
    fn columns_count_utf16_units_after_non_ascii_text() {
        // `é` is 2 bytes and 1 unit, `😀` 4 bytes and 2 units.
        let text = "a: b\nné😀: RL\n";
        let f = file(text);
        let at = text.find("RL").unwrap();
        assert_eq!(position(&f, at), Position::new(1, 6));
        assert_eq!(offset(text, Position::new(1, 6)), at);
    }

    #[test]
    fn crlf_lines_and_positions_past_the_end_are_clamped() {
        let text = "a: 1\r\nbb: 2";
        let f = file(text);
        assert_eq!(position(&f, text.find("bb").unwrap()), Position::new(1, 0));
        assert_eq!(offset(text, Position::new(0, 99)), 4);
        assert_eq!(offset(text, Position::new(9, 0)), text.len());
    }
}
