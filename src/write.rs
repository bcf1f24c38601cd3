//! Every write of the tool: standard output, standard error, and the files named on
//! the command line (`-o FILE`, `--write-baseline FILE`), none of which panics.
//!
//! `print!` panics when standard output cannot be written (a full disk under
//! `retrylint import x > policy.yaml`), so nothing in `src/` uses it (`clippy.toml`
//! forbids the print macros). Here a failure is kept instead:
//! - **Standard output** ([`out`], [`outln`], [`stdout_with`]): the first failure is
//!   remembered and later writes are skipped; [`finish`], called by the binary last,
//!   turns it into exit 2 and one line (`retrylint: cannot write to standard output:
//!   No space left on device`). A closed pipe (`retrylint rules | head -1`) ends
//!   quietly: the exit code stays the run's own, nothing is said.
//! - **Standard error** ([`err`], [`errln`]): a failure is ignored, as there is
//!   nowhere left to say it.
//! - **Files** ([`replace_file`], [`create_file`]): written whole or not at all (a
//!   temporary file in the same folder, renamed over the path once every byte is
//!   written); the error names the file ([`FileError`]).
//!
//! [`Target`] says where an `-o` flag sends output: `-` is standard output for every
//! command.

use std::fmt::Display;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Exit code of a run whose standard output could not be written (2, as "could not
/// lint": the answer did not reach its reader).
pub const EXIT_CANNOT_WRITE: u8 = 2;

/// Standard output's first failure, reported by [`finish`].
static STDOUT_FAILURE: OnceLock<io::Error> = OnceLock::new();

/// Writes `text` to standard output (`print!` without the panic).
pub fn out(text: impl Display) {
    stdout_with(|w| write!(w, "{text}"));
}

/// Writes `text` and a newline to standard output (`println!` without the panic).
pub fn outln(text: impl Display) {
    stdout_with(|w| writeln!(w, "{text}"));
}

/// Writes `text` to standard error; a failure is ignored (`eprint!` without the
/// panic).
pub fn err(text: impl Display) {
    let _ = write!(io::stderr().lock(), "{text}");
}

/// Writes `text` and a newline to standard error; a failure is ignored (`eprintln!`
/// without the panic).
pub fn errln(text: impl Display) {
    let _ = writeln!(io::stderr().lock(), "{text}");
}

/// Runs `write` on locked standard output and flushes it (a report streamed as it is
/// serialised, an LSP frame). Returns false when standard output has failed, now or
/// before (`write` is then not run again): the failure is kept for [`finish`].
pub fn stdout_with(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> bool {
    if stdout_failed() {
        return false;
    }
    let mut lock = io::stdout().lock();
    match write(&mut lock).and_then(|()| lock.flush()) {
        Ok(()) => true,
        Err(e) => {
            let _ = STDOUT_FAILURE.set(e);
            false
        }
    }
}

/// True once a write to standard output has failed (a full disk, a closed pipe).
pub fn stdout_failed() -> bool {
    STDOUT_FAILURE.get().is_some()
}

/// True when standard output's failure is a closed pipe: the reader stopped reading,
/// which is no error of the run.
pub fn stdout_closed() -> bool {
    STDOUT_FAILURE
        .get()
        .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
}

/// The exit code of a run that returned `code`, once standard output is flushed:
/// `code`, or [`EXIT_CANNOT_WRITE`] with one line on standard error when standard
/// output failed (`retrylint: cannot write to standard output: No space left on
/// device`). A closed pipe keeps `code` and says nothing.
pub fn finish(code: u8) -> u8 {
    stdout_with(|_| Ok(()));
    match STDOUT_FAILURE.get() {
        None => code,
        Some(e) if e.kind() == io::ErrorKind::BrokenPipe => code,
        Some(e) => {
            errln(format_args!(
                "retrylint: cannot write to standard output: {}",
                reason(e)
            ));
            EXIT_CANNOT_WRITE
        }
    }
}

/// An I/O error as a person reads it: the operating system's sentence without its
/// number (`No space left on device`, not `... (os error 28)`).
pub fn reason(e: &io::Error) -> String {
    let text = e.to_string();
    match e.raw_os_error() {
        Some(n) => text
            .strip_suffix(&format!(" (os error {n})"))
            .map_or_else(|| text.clone(), str::to_string),
        None => text,
    }
}

/// Where a command's output goes: standard output (no `-o`, or `-o -`) or a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target<'a> {
    /// Standard output.
    Stdout,
    /// The file named (written with [`replace_file`]).
    File(&'a Path),
}

impl<'a> Target<'a> {
    /// The target of an `-o FILE` flag: none, or `-`, is standard output.
    pub fn of(flag: Option<&'a Path>) -> Target<'a> {
        match flag {
            Some(path) if path.as_os_str() != "-" => Target::File(path),
            _ => Target::Stdout,
        }
    }

    /// The file named, if any.
    pub fn file(self) -> Option<&'a Path> {
        match self {
            Target::Stdout => None,
            Target::File(path) => Some(path),
        }
    }

    /// True when the output goes to a terminal (colour, width).
    pub fn is_terminal(self) -> bool {
        self == Target::Stdout && io::stdout().is_terminal()
    }

    /// Writes through `write` to the target: standard output ([`stdout_with`], whose
    /// failure [`finish`] reports) or the file ([`replace_file`], whose failure is
    /// returned).
    pub fn write(
        self,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), FileError> {
        match self {
            Target::Stdout => {
                stdout_with(write);
                Ok(())
            }
            Target::File(path) => replace_file(path, write),
        }
    }
}

/// A file that could not be written: its path and the error.
#[derive(Debug)]
pub struct FileError {
    /// The path as given.
    pub path: PathBuf,
    /// What failed.
    pub error: io::Error,
}

impl FileError {
    fn at(path: &Path) -> impl Fn(io::Error) -> FileError + '_ {
        move |error| FileError {
            path: path.to_path_buf(),
            error,
        }
    }

    /// True when [`create_file`] found the file already there.
    pub fn already_exists(&self) -> bool {
        self.error.kind() == io::ErrorKind::AlreadyExists
    }
}

impl Display for FileError {
    /// `reports/x.sarif: No space left on device`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), reason(&self.error))
    }
}

/// Writes `path` (its folders made) whole or not at all: into a temporary file beside
/// it, renamed over `path` once every byte is written, so a full disk or an error
/// half-way leaves the old file (a baseline, a report) as it was, never a truncated
/// one. An existing file keeps its permissions; a new one gets those `File::create`
/// gives (0666 less the umask). Written in place instead (truncated, as
/// `File::create` does): a symbolic link (`/dev/stdout`, whose target may be the
/// very file a shell redirected stdout to; any other link, written through), a path
/// that is not a regular file (a FIFO, a device), a file with other hard links, and
/// a file in a folder where no temporary file can be made.
pub fn replace_file(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), FileError> {
    let named = FileError::at(path);
    let existing = std::fs::symlink_metadata(path).ok();
    let replaceable = !existing
        .as_ref()
        .is_some_and(|m| !m.is_file() || shared_inode(m));
    let temp = if replaceable {
        match temp_beside(path) {
            Ok(temp) => Some(temp),
            // A read-only folder may still hold a writable file.
            Err(e) if existing.is_some() && e.kind() == io::ErrorKind::PermissionDenied => None,
            Err(e) => return Err(named(e)),
        }
    } else {
        None
    };
    let Some(mut temp) = temp else {
        let mut file = std::fs::File::create(path).map_err(&named)?;
        let mut out = io::BufWriter::new(&mut file);
        write(&mut out).map_err(&named)?;
        return out.flush().map_err(named);
    };
    if let Some(m) = &existing {
        // Exactly the old mode (the umask would narrow a 0666 file).
        temp.as_file()
            .set_permissions(m.permissions())
            .map_err(&named)?;
    }
    fill(&mut temp, write).map_err(&named)?;
    temp.persist(path).map_err(|e| named(e.error))?;
    Ok(())
}

/// Writes a new file at `path` (its folders made), whole or not at all as
/// [`replace_file`] does, and never over a file already there, even one that
/// appeared while it was written ([`FileError::already_exists`]).
pub fn create_file(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), FileError> {
    let named = FileError::at(path);
    if std::fs::symlink_metadata(path).is_ok() {
        return Err(named(io::ErrorKind::AlreadyExists.into()));
    }
    let mut temp = temp_beside(path).map_err(&named)?;
    fill(&mut temp, write).map_err(&named)?;
    temp.persist_noclobber(path).map_err(|e| named(e.error))?;
    Ok(())
}

/// A temporary file in `path`'s folder (made if missing), with the mode a new file
/// gets from `File::create`.
fn temp_beside(path: &Path) -> io::Result<tempfile::NamedTempFile> {
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)?;
    let mut builder = tempfile::Builder::new();
    builder.prefix(".retrylint-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(parent)
}

/// Runs `write` into the temporary file, buffered, and flushes it.
fn fill(
    temp: &mut tempfile::NamedTempFile,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let mut out = io::BufWriter::new(temp.as_file_mut());
    write(&mut out)?;
    out.flush()
}

/// A file with more than one hard link: replacing it would split the links.
fn shared_inode(meta: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        meta.nlink() > 1
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_that_fails_half_way_leaves_the_old_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("reports/baseline.json");
        replace_file(&path, |out| out.write_all(b"old, whole")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old, whole");
        // A full disk half-way: the error names the file, the old text stays.
        let err = replace_file(&path, |out| {
            out.write_all(b"new, ha")?;
            Err(io::Error::from_raw_os_error(28))
        })
        .unwrap_err()
        .to_string();
        assert!(
            err.ends_with("baseline.json: No space left on device"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old, whole");
        // No temporary file is left beside it.
        let left: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["baseline.json"]);
        replace_file(&path, |out| out.write_all(b"new, whole")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new, whole");
        #[cfg(unix)]
        {
            use std::os::unix::fs::{symlink, PermissionsExt};
            // An existing file keeps its mode, private or not.
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
            replace_file(&path, |out| out.write_all(b"private")).unwrap();
            let kept = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(kept, 0o600);
            // A symbolic link is written through, never replaced (`/dev/stdout`).
            let link = dir.path().join("link.json");
            symlink(&path, &link).unwrap();
            replace_file(&link, |out| out.write_all(b"through")).unwrap();
            assert!(std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink());
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "through");
            // A file with another hard link keeps it.
            let hard = dir.path().join("hard.json");
            std::fs::hard_link(&path, &hard).unwrap();
            replace_file(&path, |out| out.write_all(b"both")).unwrap();
            assert_eq!(std::fs::read_to_string(&hard).unwrap(), "both");
            std::fs::remove_file(&hard).unwrap();
            std::fs::remove_file(&link).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode();
            std::fs::remove_file(&path).unwrap();
            replace_file(&path, |out| out.write_all(b"new")).unwrap();
            let created = dir.path().join("created.json");
            std::fs::File::create(&created).unwrap();
            assert_eq!(mode(&path), mode(&created), "the mode File::create gives");
        }
    }

    #[test]
    fn a_new_file_is_never_written_over_an_old_one_nor_left_half_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("policies/retry-policy.yaml");
        create_file(&path, |out| out.write_all(b"first")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "first");
        let again = create_file(&path, |out| out.write_all(b"second")).unwrap_err();
        assert!(again.already_exists(), "{again}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "first");
        // A failure half-way leaves nothing, not even the temporary file.
        let other = dir.path().join("policies/other.yaml");
        let failed = create_file(&other, |out| {
            out.write_all(b"half")?;
            Err(io::Error::from_raw_os_error(28))
        })
        .unwrap_err();
        assert!(!failed.already_exists());
        let left: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["retry-policy.yaml"]);
    }

    #[test]
    fn dash_is_standard_output_and_a_path_is_a_file() {
        assert_eq!(Target::of(None), Target::Stdout);
        assert_eq!(Target::of(Some(Path::new("-"))), Target::Stdout);
        let file = Path::new("report.html");
        assert_eq!(Target::of(Some(file)), Target::File(file));
        assert_eq!(
            Target::of(Some(Path::new("./-"))).file(),
            Some(Path::new("./-"))
        );
    }

    #[test]
    fn an_os_error_reads_without_its_number() {
        assert_eq!(
            reason(&io::Error::from_raw_os_error(28)),
            "No space left on device"
        );
        let custom = io::Error::other("disk full");
        assert_eq!(reason(&custom), "disk full");
    }
}
