//! One file's text and identity, and byte offset to line and column: the
//! [`SourceFile`] every [`super::Location`] points into.
//!
//! The text has a leading UTF-8 BOM stripped, so byte offset 0 is the first
//! character a user sees. Columns count Unicode scalar values (a tab counts one);
//! CRLF, LF and a lone CR each end one line.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// One file's text and identity.
///
/// `path` is the canonical path used as identity (for `$ref` resolution and
/// de-duplication); `display` is the path as shown to users (relative to the current
/// directory where possible, `/`-separated).
#[derive(Debug)]
pub struct SourceFile {
    /// Canonical absolute path (identity of the file).
    pub path: PathBuf,
    /// The path as rendered in diagnostics (`/`-separated).
    pub display: String,
    /// The text, without a leading BOM.
    pub text: Arc<str>,
    line_starts: OnceLock<Vec<u32>>,
    /// Characters before each 4 KiB block, for columns on very long lines (minified
    /// JSON is often one line): built on first need.
    char_blocks: OnceLock<Vec<u32>>,
}

/// Lines longer than this count their columns through [`SourceFile::char_blocks`].
const LONG_LINE: usize = 64 * 1024;
const BLOCK_SHIFT: u32 = 12;

/// A 1-based line and column (column counted in Unicode scalar values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct LineCol {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column, counted in Unicode scalar values.
    pub column: u32,
}

impl SourceFile {
    /// Builds a source file from already-decoded text; strips one leading BOM.
    pub fn new(path: PathBuf, display: String, text: &str) -> SourceFile {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        SourceFile {
            path,
            display,
            text: Arc::from(text),
            line_starts: OnceLock::new(),
            char_blocks: OnceLock::new(),
        }
    }

    /// The file's path as shown to users.
    pub fn display_path(&self) -> &str {
        &self.display
    }

    /// The file's canonical path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn line_starts(&self) -> &[u32] {
        self.line_starts.get_or_init(|| {
            let bytes = self.text.as_bytes();
            let mut starts = vec![0u32];
            let mut i = 0;
            while i < bytes.len() {
                match bytes[i] {
                    b'\n' => starts.push((i + 1) as u32),
                    b'\r' if bytes.get(i + 1) != Some(&b'\n') => starts.push((i + 1) as u32),
                    _ => {}
                }
                i += 1;
            }
            starts
        })
    }

    /// Characters (Unicode scalar values) before byte `offset`, a char boundary: the
    /// bytes that do not continue a UTF-8 sequence, counted per 4 KiB block once.
    fn chars_before(&self, offset: usize) -> usize {
        let bytes = self.text.as_bytes();
        let starts = |b: &[u8]| b.iter().filter(|&&c| (c as i8) >= -0x40).count();
        let blocks = self.char_blocks.get_or_init(|| {
            let mut out = vec![0u32];
            let mut total = 0u32;
            for block in bytes.chunks(1 << BLOCK_SHIFT) {
                total += starts(block) as u32;
                out.push(total);
            }
            out
        });
        let block = offset >> BLOCK_SHIFT;
        blocks[block] as usize + starts(&bytes[block << BLOCK_SHIFT..offset])
    }

    /// Number of lines (a final line without a line break counts).
    pub fn line_count(&self) -> usize {
        self.line_starts().len()
    }

    /// Byte offset where 0-based line `line0` starts (clamped to the text end).
    pub fn line_start(&self, line0: usize) -> usize {
        self.line_starts()
            .get(line0)
            .map_or(self.text.len(), |&s| s as usize)
    }

    /// Converts a byte offset (clamped to the text, moved back to a char boundary)
    /// into a 1-based line and column. Computed only when rendering.
    pub fn line_col(&self, offset: usize) -> LineCol {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let starts = self.line_starts();
        let line_idx = match starts.binary_search(&(offset as u32)) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let line_start = starts[line_idx] as usize;
        // A CR that belongs to a CRLF pair is not a column of its own.
        let column = if offset - line_start > LONG_LINE {
            self.chars_before(offset) - self.chars_before(line_start) + 1
        } else {
            self.text[line_start..offset].chars().count() + 1
        };
        LineCol {
            line: line_idx as u32 + 1,
            column: column as u32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SourceFile;
    use std::path::PathBuf;

    #[test]
    fn columns_on_very_long_lines_count_characters() {
        let mut text = String::from("first line\n");
        for i in 0..40_000 {
            text.push_str(if i % 3 == 0 { "é€😀" } else { "ab" });
        }
        text.push_str("\nlast");
        let file = SourceFile::new(PathBuf::from("x.json"), "x.json".into(), &text);
        let line_start = 11;
        for offset in [11, 12, 4096, 70_001, 100_000, 123_456, text.len() - 5] {
            let mut o = offset;
            while !text.is_char_boundary(o) {
                o -= 1;
            }
            let expected = text[line_start..o].chars().count() as u32 + 1;
            let got = file.line_col(offset);
            assert_eq!((got.line, got.column), (2, expected), "offset {offset}");
        }
        assert_eq!(file.line_col(text.len()).line, 3);
    }
}
