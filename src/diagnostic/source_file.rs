//! One file's text and identity, and byte offset to line and column: the
//! [`SourceFile`] every [`super::Location`] points into.
//!
//! The text has a leading UTF-8 BOM stripped, so byte offset 0 is the first
//! character a user sees. Columns count Unicode scalar values (a tab counts one);
//! CRLF, LF and a lone CR each end one line.
//!
//! A file read from disk can let its text go once its document is checked
//! ([`SourceFile::released`]): a run over a whole repository then keeps, per file
//! with findings, only the line and column of each offset a finding names, not the
//! text. A report that needs the text again (the human excerpts) reads the file back
//! ([`SourceFile::contents`]), checked against the length and hash taken before.

use std::hash::BuildHasher;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

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
    /// The text was read from `path` on disk, so it can be read back after release.
    reloadable: bool,
    /// Set when the text was let go: what is left of it.
    released: Option<Released>,
}

/// What a released file keeps of its text.
#[derive(Debug)]
struct Released {
    /// Length of the text in bytes.
    len: usize,
    /// Hash of the text ([`text_hash`]), to know a file read back is the same.
    hash: u64,
    /// Line and column of each offset findings name, sorted by offset.
    positions: Vec<(usize, LineCol)>,
}

/// The hash a released file keeps of its text (foldhash, fixed seed: same process).
fn text_hash(text: &str) -> u64 {
    foldhash::fast::FixedState::with_seed(0x7265_7472_796c_696e).hash_one(text)
}

/// What reports show in place of an excerpt when [`SourceFile::contents`] is `None`:
/// the position is kept, the text to show is not.
pub const NO_EXCERPT: &str = "(the file changed after it was checked: no excerpt)";

/// Released files read back lately ([`SourceFile::contents`]), most recent last: a
/// report walks findings file by file, so a few cover it without holding every text.
/// Each entry is the file's path, length and hash, and the text read back (`None`
/// when the file changed or could not be read, so that it is not read again per
/// finding).
static READ_BACK: Mutex<Vec<ReadBack>> = Mutex::new(Vec::new());
const READ_BACK_KEPT: usize = 4;

type ReadBack = (PathBuf, usize, u64, Option<Arc<SourceFile>>);

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
            reloadable: false,
            released: None,
        }
    }

    /// [`SourceFile::new`] for text just read from `path` on disk (whole, as bytes of
    /// valid UTF-8): such a file may be [`SourceFile::released`] and read back.
    pub fn read_from_disk(path: PathBuf, display: String, text: &str) -> SourceFile {
        SourceFile {
            reloadable: true,
            ..SourceFile::new(path, display, text)
        }
    }

    /// This file without its text, keeping the line and column of each of `offsets`
    /// (byte offsets, clamped as [`SourceFile::line_col`] does); `None` when the text
    /// did not come from disk (an editor buffer, a test), so it cannot be read back.
    /// [`SourceFile::line_col`] of a kept offset costs a look-up; any other offset,
    /// and [`SourceFile::contents`], read the file again.
    pub fn released(&self, offsets: impl IntoIterator<Item = usize>) -> Option<SourceFile> {
        if !self.reloadable || self.released.is_some() {
            return None;
        }
        let mut positions: Vec<(usize, LineCol)> =
            offsets.into_iter().map(|o| (o, self.line_col(o))).collect();
        positions.sort_unstable_by_key(|(o, _)| *o);
        positions.dedup_by_key(|(o, _)| *o);
        Some(SourceFile {
            path: self.path.clone(),
            display: self.display.clone(),
            text: Arc::from(""),
            line_starts: OnceLock::new(),
            char_blocks: OnceLock::new(),
            reloadable: true,
            released: Some(Released {
                len: self.text.len(),
                hash: text_hash(&self.text),
                positions,
            }),
        })
    }

    /// True when the text was let go ([`SourceFile::released`]): `text` is then empty.
    pub fn is_released(&self) -> bool {
        self.released.is_some()
    }

    /// The file with its text: itself, or for a released file the file read back from
    /// disk (the last few are kept). `None` when a released file changed since its
    /// check (another length or hash) or can no longer be read: its text is gone, and
    /// only the kept positions ([`SourceFile::line_col`] of a finding's offsets) are
    /// still right. Reports then show the position without an excerpt.
    pub fn contents(self: &Arc<Self>) -> Option<Arc<SourceFile>> {
        match &self.released {
            None => Some(self.clone()),
            Some(r) => self.read_back(r),
        }
    }

    /// The released text read back, matched on path, length and hash.
    fn read_back(&self, r: &Released) -> Option<Arc<SourceFile>> {
        let mut kept = READ_BACK.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = kept
            .iter()
            .position(|(path, len, hash, _)| *path == self.path && *len == r.len && *hash == r.hash)
        {
            let hit = kept.remove(i);
            let file = hit.3.clone();
            kept.push(hit);
            return file;
        }
        // Only a regular file of the old size (BOM aside) is read: one replaced by a
        // FIFO would block, `/dev/zero` would never end.
        let plausible = std::fs::metadata(&self.path)
            .is_ok_and(|m| m.is_file() && (m.len() == r.len as u64 || m.len() == r.len as u64 + 3));
        let file = plausible
            .then(|| std::fs::read(&self.path).ok())
            .flatten()
            .and_then(|b| String::from_utf8(b).ok())
            .map(|t| match t.strip_prefix('\u{feff}') {
                Some(rest) => rest.to_string(),
                None => t,
            })
            .filter(|t| t.len() == r.len && text_hash(t) == r.hash)
            .map(|text| {
                Arc::new(SourceFile::read_from_disk(
                    self.path.clone(),
                    self.display.clone(),
                    &text,
                ))
            });
        if kept.len() >= READ_BACK_KEPT {
            kept.remove(0);
        }
        kept.push((self.path.clone(), r.len, r.hash, file.clone()));
        file
    }

    /// The released text read back, or (the file changed) spaces of the old length:
    /// offsets stay valid and line look-ups answer, never with another file's text.
    fn read_back_or_blank(&self, r: &Released) -> Arc<SourceFile> {
        self.read_back(r).unwrap_or_else(|| {
            Arc::new(SourceFile::new(
                self.path.clone(),
                self.display.clone(),
                &" ".repeat(r.len),
            ))
        })
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
            // memchr finds the line breaks a word at a time (this index is built for
            // every file with a finding).
            for i in memchr::memchr2_iter(b'\n', b'\r', bytes) {
                if bytes[i] == b'\n' || bytes.get(i + 1) != Some(&b'\n') {
                    starts.push((i + 1) as u32);
                }
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
        if let Some(r) = &self.released {
            return self.read_back_or_blank(r).line_count();
        }
        self.line_starts().len()
    }

    /// Byte offset where 0-based line `line0` starts (clamped to the text end).
    pub fn line_start(&self, line0: usize) -> usize {
        if let Some(r) = &self.released {
            return self.read_back_or_blank(r).line_start(line0);
        }
        self.line_starts()
            .get(line0)
            .map_or(self.text.len(), |&s| s as usize)
    }

    /// Converts a byte offset (clamped to the text, moved back to a char boundary)
    /// into a 1-based line and column. Computed only when rendering.
    pub fn line_col(&self, offset: usize) -> LineCol {
        if let Some(r) = &self.released {
            return match r.positions.binary_search_by_key(&offset, |(o, _)| *o) {
                Ok(i) => r.positions[i].1,
                Err(_) => self.read_back_or_blank(r).line_col(offset),
            };
        }
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
    fn a_released_file_keeps_positions_and_reads_its_text_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spec.yaml");
        let text = "\u{feff}openapi: 3.0.3\npaths:\n  /é:\n    get: {}\n";
        std::fs::write(&path, text).unwrap();
        let file = SourceFile::read_from_disk(path.clone(), "spec.yaml".into(), text);
        let released = std::sync::Arc::new(file.released([5, 24, 31]).unwrap());
        assert!(released.is_released() && released.text.is_empty());
        // Kept offsets answer from the table, others from the text read back.
        for offset in [5, 24, 31, 0, 17, 40] {
            assert_eq!(
                released.line_col(offset),
                file.line_col(offset),
                "offset {offset}"
            );
        }
        assert_eq!(released.contents().expect("unchanged").text, file.text);
        assert_eq!(released.line_count(), file.line_count());
        // Not from disk: never released.
        let buffer = SourceFile::new(path.clone(), "spec.yaml".into(), text);
        assert!(buffer.released([5]).is_none());
        // Changed on disk since (same length, other bytes): no text, kept positions intact.
        let other = dir.path().join("other.yaml");
        std::fs::write(&other, "a: 1\n").unwrap();
        let file = SourceFile::read_from_disk(other.clone(), "other.yaml".into(), "a: 1\n");
        let released = std::sync::Arc::new(file.released([3]).unwrap());
        std::fs::write(&other, "b: 2\n").unwrap();
        assert!(released.contents().is_none());
        assert_eq!(released.line_col(3), file.line_col(3));
        // Other offsets still answer, from blank text of the old length.
        assert_eq!(released.line_count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_released_file_replaced_by_a_fifo_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spec.yaml");
        std::fs::write(&path, "a: 1\n").unwrap();
        let file = SourceFile::read_from_disk(path.clone(), "spec.yaml".into(), "a: 1\n");
        let released = std::sync::Arc::new(file.released([3]).unwrap());
        std::fs::remove_file(&path).unwrap();
        let made = std::process::Command::new("mkfifo").arg(&path).status();
        if !made.is_ok_and(|s| s.success()) {
            return; // no mkfifo here: nothing to check
        }
        // Opening the FIFO to read would block forever.
        assert!(released.contents().is_none());
        assert_eq!(released.line_col(3), file.line_col(3));
    }

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
