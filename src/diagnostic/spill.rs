//! Findings set aside in a temporary file while a run goes on ([`Spill`]), so that a
//! run over a whole repository holds, while it loads, only the documents in flight
//! and not every finding made so far (about 2 KB each: messages, help, pointers).
//!
//! Each document's findings are written as one run of bytes ([`Run`]) and read back,
//! in the order the caller keeps, once every document is done and its tree is gone.
//! The places of a finding keep their [`SourceFile`] (a released one is small), held
//! in memory beside the run; only the strings go to disk.
//!
//! The file is an unnamed temporary file (`tempfile::tempfile`: deleted by the OS
//! when the process ends, whatever way it ends). When it cannot be made or written,
//! findings stay in memory: spilling saves memory, it never loses a finding.

use super::{Diagnostic, Label, Location, Severity, SourceFile};
use std::io::Write;
use std::sync::{Arc, Mutex};

/// Where findings are set aside: one temporary file shared by the threads of a run.
#[derive(Debug, Default)]
pub struct Spill {
    file: Mutex<SpillFile>,
}

#[derive(Debug, Default)]
struct SpillFile {
    /// Made on the first run with findings.
    file: Option<std::fs::File>,
    /// Bytes written so far: where the next run goes.
    end: u64,
    /// Cleared for good when the file cannot be made or a write fails (what was
    /// written before stays readable; later runs stay in memory).
    failed: bool,
}

/// One document's findings, as [`Spill::put`] set them aside.
#[derive(Debug)]
pub enum Run {
    /// Bytes `at..at + len` of the spill file, with the files its places point into.
    OnDisk {
        /// Offset in the spill file.
        at: u64,
        /// Length in bytes.
        len: usize,
        /// The files the encoded places index into.
        files: Vec<Arc<SourceFile>>,
        /// The rule codes and names the encoded findings index into.
        names: Vec<&'static str>,
    },
    /// Kept in memory (no finding, or the spill file failed).
    InMemory(Vec<Diagnostic>),
}

impl Spill {
    /// A spill that makes its file on the first [`Spill::put`] with findings.
    pub fn new() -> Spill {
        Spill::default()
    }

    /// Sets `diags` aside: encoded into the spill file, or kept as they are when
    /// there are none or the file fails.
    pub fn put(&self, diags: Vec<Diagnostic>) -> Run {
        if diags.is_empty() {
            return Run::InMemory(diags);
        }
        let mut encoder = Encoder::default();
        encoder.diagnostics(&diags);
        let mut spill = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if spill.file.is_none() && !spill.failed {
            spill.file = tempfile::tempfile().ok();
            spill.failed = spill.file.is_none();
        }
        let at = spill.end;
        let failed = spill.failed;
        let written = match &mut spill.file {
            Some(f) if !failed => f.write_all(&encoder.bytes).is_ok(),
            _ => false,
        };
        if !written {
            // After a short write the end of the file is not known: nothing more
            // goes to it, and this run stays in memory.
            spill.failed = true;
            return Run::InMemory(diags);
        }
        spill.end += encoder.bytes.len() as u64;
        Run::OnDisk {
            at,
            len: encoder.bytes.len(),
            files: encoder.files,
            names: encoder.names,
        }
    }

    /// The findings of `run`, appended to `out` in the order they were put.
    ///
    /// Errors: the spill file could not be read back (an I/O error on a file only this
    /// process holds); the message says so, and the caller reports the run as not
    /// linted rather than silently short.
    pub fn take(&self, run: Run, out: &mut Vec<Diagnostic>) -> Result<(), String> {
        let (at, len, files, names) = match run {
            Run::InMemory(diags) => {
                out.extend(diags);
                return Ok(());
            }
            Run::OnDisk {
                at,
                len,
                files,
                names,
            } => (at, len, files, names),
        };
        let mut bytes = vec![0u8; len];
        {
            let spill = self.file.lock().unwrap_or_else(|e| e.into_inner());
            let Some(f) = &spill.file else {
                return Err("the temporary file of set-aside findings is gone".into());
            };
            read_at(f, &mut bytes, at).map_err(|e| {
                format!("cannot read back set-aside findings from a temporary file: {e}")
            })?;
        }
        let mut decoder = Decoder {
            bytes: &bytes,
            files: &files,
            names: &names,
        };
        decoder
            .diagnostics(out)
            .ok_or_else(|| "set-aside findings read back damaged from a temporary file".into())
    }
}

#[cfg(unix)]
fn read_at(f: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(f, buf, at)
}

#[cfg(not(unix))]
fn read_at(f: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = f;
    f.seek(SeekFrom::Start(at))?;
    f.read_exact(buf)?;
    f.seek(SeekFrom::End(0))?;
    Ok(())
}

/// Little-endian, length-prefixed encoding; files and `&'static str`s by index into
/// tables kept beside the run.
#[derive(Default)]
struct Encoder {
    bytes: Vec<u8>,
    files: Vec<Arc<SourceFile>>,
    names: Vec<&'static str>,
}

impl Encoder {
    fn u64(&mut self, v: u64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: usize) {
        self.bytes.extend_from_slice(&(v as u32).to_le_bytes());
    }
    fn str(&mut self, s: &str) {
        self.u32(s.len());
        self.bytes.extend_from_slice(s.as_bytes());
    }
    fn opt_str(&mut self, s: Option<&str>) {
        match s {
            None => self.bytes.push(0),
            Some(s) => {
                self.bytes.push(1);
                self.str(s);
            }
        }
    }
    fn name(&mut self, s: &'static str) {
        let i = match self.names.iter().position(|n| std::ptr::eq(*n, s)) {
            Some(i) => i,
            None => {
                self.names.push(s);
                self.names.len() - 1
            }
        };
        self.u32(i);
    }
    fn file(&mut self, f: &Arc<SourceFile>) {
        let i = match self.files.iter().position(|g| Arc::ptr_eq(g, f)) {
            Some(i) => i,
            None => {
                self.files.push(f.clone());
                self.files.len() - 1
            }
        };
        self.u32(i);
    }
    fn label(&mut self, l: &Label) {
        self.file(&l.location.file);
        self.u64(l.location.span.start as u64);
        self.u64(l.location.span.end as u64);
        self.str(&l.location.pointer);
        self.str(&l.message);
    }
    fn diagnostics(&mut self, diags: &[Diagnostic]) {
        self.u32(diags.len());
        for d in diags {
            self.name(d.code);
            self.name(d.name);
            self.bytes.push(d.severity as u8);
            self.str(&d.message);
            self.label(&d.primary);
            self.u32(d.labels.len());
            for l in &d.labels {
                self.label(l);
            }
            self.opt_str(d.help.as_deref());
            self.opt_str(d.operation.as_deref());
            self.u32(d.operations.len());
            for op in &d.operations {
                self.str(op);
            }
            self.u32(d.operation_documents.len());
            for doc in &d.operation_documents {
                match doc {
                    None => self.bytes.push(0),
                    Some(f) => {
                        self.bytes.push(1);
                        self.file(f);
                    }
                }
            }
        }
    }
}

/// Reads what [`Encoder`] wrote; `None` on bytes it did not write.
struct Decoder<'a> {
    bytes: &'a [u8],
    files: &'a [Arc<SourceFile>],
    names: &'a [&'static str],
}

impl Decoder<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        if self.bytes.len() < n {
            return None;
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Some(head)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u32(&mut self) -> Option<usize> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?) as usize)
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn str(&mut self) -> Option<String> {
        let n = self.u32()?;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }
    fn opt_str(&mut self) -> Option<Option<String>> {
        match self.u8()? {
            0 => Some(None),
            _ => Some(Some(self.str()?)),
        }
    }
    fn name(&mut self) -> Option<&'static str> {
        self.names.get(self.u32()?).copied()
    }
    fn file(&mut self) -> Option<Arc<SourceFile>> {
        self.files.get(self.u32()?).cloned()
    }
    fn label(&mut self) -> Option<Label> {
        let file = self.file()?;
        let start = self.u64()? as usize;
        let end = self.u64()? as usize;
        let pointer = self.str()?;
        let message = self.str()?;
        Some(Label {
            location: Location {
                file,
                span: start..end,
                pointer,
            },
            message,
        })
    }
    fn severity(&mut self) -> Option<Severity> {
        let b = self.u8()?;
        [Severity::Info, Severity::Warning, Severity::Error]
            .into_iter()
            .find(|s| *s as u8 == b)
    }
    fn diagnostics(&mut self, out: &mut Vec<Diagnostic>) -> Option<()> {
        let count = self.u32()?;
        out.reserve(count);
        for _ in 0..count {
            let code = self.name()?;
            let name = self.name()?;
            let severity = self.severity()?;
            let message = self.str()?;
            let primary = self.label()?;
            let labels = (0..self.u32()?)
                .map(|_| self.label())
                .collect::<Option<Vec<_>>>()?;
            let help = self.opt_str()?.map(super::shared_text);
            let operation = self.opt_str()?;
            let operations = (0..self.u32()?)
                .map(|_| self.str())
                .collect::<Option<Vec<_>>>()?;
            let operation_documents = (0..self.u32()?)
                .map(|_| match self.u8()? {
                    0 => Some(None),
                    _ => Some(Some(self.file()?)),
                })
                .collect::<Option<Vec<_>>>()?;
            // Built field by field, not through the constructors: the text was
            // already put in house style when the finding was made.
            out.push(Diagnostic {
                code,
                name,
                severity,
                message,
                primary,
                labels,
                help,
                operation,
                operations,
                operation_documents,
            });
        }
        self.bytes.is_empty().then_some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::catalog;

    fn finding(file: &Arc<SourceFile>, other: &Arc<SourceFile>, n: usize) -> Diagnostic {
        let at = |f: &Arc<SourceFile>, s: std::ops::Range<usize>, p: &str| Location {
            file: f.clone(),
            span: s,
            pointer: p.to_string(),
        };
        let mut d = Diagnostic::new(
            &catalog::INVALID_OPENAPI_STRUCTURE,
            format!("finding {n} with `é` and a long message"),
            at(file, n..n + 3, "/paths/~1orders/post"),
            "here",
        )
        .with_label(at(other, 1..2, ""), "and there")
        .with_operations_in([
            (Some(file.clone()), "POST /orders".to_string()),
            (None, "GET /orders".to_string()),
        ]);
        if n.is_multiple_of(2) {
            d = d.with_help("do this");
        }
        d.severity = [Severity::Info, Severity::Warning, Severity::Error][n % 3];
        d
    }

    fn same(a: &Diagnostic, b: &Diagnostic) -> bool {
        let loc = |x: &Location, y: &Location| {
            Arc::ptr_eq(&x.file, &y.file) && x.span == y.span && x.pointer == y.pointer
        };
        let label = |x: &Label, y: &Label| loc(&x.location, &y.location) && x.message == y.message;
        std::ptr::eq(a.code, b.code)
            && std::ptr::eq(a.name, b.name)
            && a.severity == b.severity
            && a.message == b.message
            && label(&a.primary, &b.primary)
            && a.labels.len() == b.labels.len()
            && a.labels.iter().zip(&b.labels).all(|(x, y)| label(x, y))
            && a.help == b.help
            && a.operation == b.operation
            && a.operations == b.operations
            && a.operation_documents.len() == b.operation_documents.len()
            && a.operation_documents
                .iter()
                .zip(&b.operation_documents)
                .all(|(x, y)| match (x, y) {
                    (None, None) => true,
                    (Some(x), Some(y)) => Arc::ptr_eq(x, y),
                    _ => false,
                })
    }

    #[test]
    fn findings_set_aside_come_back_whole_and_in_order() {
        let file = Arc::new(SourceFile::new("/a.yaml".into(), "a.yaml".into(), "x\n"));
        let other = Arc::new(SourceFile::new("/b.yaml".into(), "b.yaml".into(), "y\n"));
        let spill = Spill::new();
        let first: Vec<Diagnostic> = (0..5).map(|n| finding(&file, &other, n)).collect();
        let second: Vec<Diagnostic> = (5..7).map(|n| finding(&other, &file, n)).collect();
        let runs = [
            spill.put(first.clone()),
            spill.put(Vec::new()),
            spill.put(second.clone()),
        ];
        assert!(matches!(runs[0], Run::OnDisk { .. }));
        let mut back = Vec::new();
        for run in runs {
            spill.take(run, &mut back).unwrap();
        }
        let expected: Vec<&Diagnostic> = first.iter().chain(&second).collect();
        assert_eq!(back.len(), expected.len());
        for (got, want) in back.iter().zip(expected) {
            assert!(same(got, want), "{got:?}\n!=\n{want:?}");
        }
    }

    #[test]
    fn damaged_bytes_are_an_error_not_a_short_list() {
        let file = Arc::new(SourceFile::new("/a.yaml".into(), "a.yaml".into(), "x\n"));
        let mut encoder = Encoder::default();
        encoder.diagnostics(&[finding(&file, &file, 1)]);
        let cut = &encoder.bytes[..encoder.bytes.len() - 3];
        let mut decoder = Decoder {
            bytes: cut,
            files: &encoder.files,
            names: &encoder.names,
        };
        assert!(decoder.diagnostics(&mut Vec::new()).is_none());
    }
}
