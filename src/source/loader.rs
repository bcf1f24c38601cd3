//! Reading files into located trees, once each: a thread-safe cache keyed by
//! canonical path, shared by discovery and `$ref` resolution.

use super::boundary::ReadBoundary;
use super::tree::{SyntaxError, Tree};
use super::SourceFile;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Resource limits for one run. Each can be raised on the command line.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest file read, in bytes (default 256 MiB; `--max-file-size`).
    pub max_file_bytes: u64,
    /// Longest chain of `$ref` hops followed before giving up (default 10,000).
    pub max_ref_hops: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_file_bytes: 256 * 1024 * 1024,
            max_ref_hops: 10_000,
        }
    }
}

/// The bytes of the regular file at `path` (links followed), at most `limit` of them.
/// Errors: the OS's, "not a regular file" for a FIFO, a device (a link to
/// `/dev/zero`) or a folder, whose reading could block forever or never end, and
/// "larger than LIMIT bytes". For the readers outside [`Workspace`] (pre-checks,
/// baselines).
pub fn read_regular_file(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    read_regular_file_into(path, limit, &mut bytes)?;
    Ok(bytes)
}

/// As [`read_regular_file`], into `bytes` (cleared first), whose allocation is
/// reused: a scan of many files (the `$ref` look-up of a pre-commit run) then
/// allocates and zeroes no fresh memory per file. On error `bytes` holds nothing
/// useful.
pub fn read_regular_file_into(path: &Path, limit: u64, bytes: &mut Vec<u8>) -> std::io::Result<()> {
    use std::io::{Error, ErrorKind, Read};
    bytes.clear();
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(Error::new(ErrorKind::InvalidInput, "not a regular file"));
    }
    let too_large = || Error::new(ErrorKind::InvalidData, format!("larger than {limit} bytes"));
    if meta.len() > limit {
        return Err(too_large());
    }
    // The size read above, and one byte to see the end: `take` hides the file's size
    // from `read_to_end`, which would otherwise grow the buffer by doubling.
    bytes.reserve(
        usize::try_from(meta.len())
            .unwrap_or(usize::MAX)
            .saturating_add(1),
    );
    std::fs::File::open(path)?
        .take(limit.saturating_add(1))
        .read_to_end(bytes)?;
    // It may have grown since: the read stops one byte past the limit.
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(())
}

/// Why a file has no tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// The file could not be read (message from the OS).
    Io(String),
    /// The file holds a NUL byte and is not UTF-16 or UTF-32 text
    /// ([`super::encoding`]): not YAML or JSON text.
    Binary,
    /// A file encrypted by git-crypt (its bytes begin with `\0GITCRYPT\0`): text
    /// that cannot be read until the repository is unlocked. Walked, it is skipped
    /// (a locked checkout keeps its secrets so by design); named, it is RL001.
    Encrypted,
    /// The bytes are not UTF-8; offset of the first invalid byte.
    NotUtf8(usize),
    /// Larger than [`Limits::max_file_bytes`].
    TooLarge {
        /// The file's size in bytes.
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// Not valid YAML/JSON.
    Syntax(SyntaxError),
    /// Its real path lies outside the run's project roots and it was not named on
    /// the command line ([`super::boundary`]): never opened.
    OutsideRoot,
}

/// The first bytes of a file that git-crypt encrypted (its `GITCRYPT` magic).
const GIT_CRYPT_HEADER: &[u8] = b"\0GITCRYPT\0";

/// A file as loaded: its source and either its tree or why there is none.
#[derive(Debug)]
pub struct Loaded {
    /// The text and identity.
    pub file: Arc<SourceFile>,
    /// The located tree, or why there is none.
    pub tree: Result<Tree, LoadError>,
    /// For a YAML stream of several documents: each document as a loaded file of
    /// its own ([`Loaded::stream`]), kept from the one parse that read them all.
    stream: Mutex<Option<Vec<Arc<Loaded>>>>,
}

impl Loaded {
    /// A loaded file of `file`'s text with `tree` (or why there is none).
    pub fn new(file: Arc<SourceFile>, tree: Result<Tree, LoadError>) -> Loaded {
        Loaded {
            file,
            tree,
            stream: Mutex::new(None),
        }
    }

    /// The documents of its YAML stream (more than one), each a loaded file with
    /// the same text and its own tree, when the parse that read this file kept
    /// them ([`Tree::parse_keeping_stream`]); `None` otherwise (the caller parses
    /// the stream).
    pub fn stream(&self) -> Option<Vec<Arc<Loaded>>> {
        self.stream
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Lets go of the documents of its stream: a file the run reads as no retry
    /// config (a manifest of Deployments) keeps only its first document's tree.
    pub fn forget_stream(&self) {
        self.stream
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
    }
}

/// Texts that replace files on disk for one run, by canonical path: the unsaved
/// buffers of an editor (`retrylint lsp`). A file in it is read from here, never
/// from disk, whoever asks for it (discovery, `$ref` resolution, importers).
pub type Overlay = HashMap<PathBuf, Arc<str>>;

/// All files of one run: loaded lazily, once, from any thread.
#[derive(Debug)]
pub struct Workspace {
    cwd: PathBuf,
    limits: Limits,
    overlay: Option<Arc<Overlay>>,
    /// Which paths may be opened at all (unbounded unless set).
    boundary: Arc<ReadBoundary>,
    cache: Mutex<HashMap<PathBuf, Arc<Loaded>>>,
    /// Canonical paths loaded as `$ref` targets ([`Workspace::load_referenced`]).
    referenced: Mutex<std::collections::HashSet<PathBuf>>,
    /// Canonical paths loaded, then released from the cache ([`Workspace::release`]).
    released: Mutex<std::collections::HashSet<PathBuf>>,
    /// How many times each file was read from disk (or the overlay) and parsed
    /// ([`Workspace::read_counts`]).
    reads: Mutex<HashMap<PathBuf, usize>>,
}

impl Workspace {
    /// A workspace rendering paths relative to `cwd`.
    pub fn new(cwd: PathBuf, limits: Limits) -> Workspace {
        Workspace {
            cwd,
            limits,
            overlay: None,
            boundary: Arc::new(ReadBoundary::unbounded()),
            cache: Mutex::new(HashMap::new()),
            referenced: Mutex::new(std::collections::HashSet::new()),
            released: Mutex::new(std::collections::HashSet::new()),
            reads: Mutex::new(HashMap::new()),
        }
    }

    /// This workspace reading the files of `overlay` from there instead of disk.
    pub fn with_overlay(mut self, overlay: Option<Arc<Overlay>>) -> Workspace {
        self.overlay = overlay;
        self
    }

    /// This workspace opening only the paths `boundary` admits: every other
    /// [`Workspace::load`] gives [`LoadError::OutsideRoot`] without opening the file.
    pub fn with_boundary(mut self, boundary: Arc<ReadBoundary>) -> Workspace {
        self.boundary = boundary;
        self
    }

    /// The read boundary in force (unbounded unless [`Workspace::with_boundary`]).
    pub fn boundary(&self) -> &Arc<ReadBoundary> {
        &self.boundary
    }

    /// [`Workspace::load`] of a file the read boundary admits; `None` (nothing
    /// opened) for one outside it. For files a run reads only if they are there
    /// (a Spring application name, a Compose file beside a spec).
    pub fn admitted(&self, path: &Path) -> Option<Arc<Loaded>> {
        self.boundary.admits(path).then(|| self.load(path))
    }

    /// The limits in force.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The directory output paths are relative to.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// How a path is shown: relative to the current directory when below it,
    /// `/`-separated, with `.` and `..` components removed where the path lets them
    /// go ([`lexical_normal`]; files are still opened by the path as given).
    pub fn display_path(&self, path: &Path) -> String {
        let shown = lexical_normal(&relative_to(path, &self.cwd));
        let s = shown.to_string_lossy().replace('\\', "/");
        if s.is_empty() {
            ".".to_string()
        } else {
            s
        }
    }

    /// The canonical paths of every file loaded so far (documents, policies, `$ref`
    /// targets, and files read then skipped), in no particular order.
    pub fn loaded_paths(&self) -> Vec<PathBuf> {
        let mut paths: std::collections::HashSet<PathBuf> = self
            .cache
            .lock()
            .expect("cache lock")
            .keys()
            .cloned()
            .collect();
        paths.extend(self.released.lock().expect("released lock").iter().cloned());
        paths.into_iter().collect()
    }

    /// Drops the cached tree of the file at canonical `path` (a document whose whole
    /// check is done), so a directory run holds only the trees in flight; the path
    /// still counts as loaded ([`Workspace::loaded_paths`]). A later [`Workspace::load`]
    /// reads the file again.
    pub fn release(&self, path: &Path) {
        if self
            .cache
            .lock()
            .expect("cache lock")
            .remove(path)
            .is_some()
        {
            self.released
                .lock()
                .expect("released lock")
                .insert(path.to_path_buf());
        }
    }

    /// Counts the file at `path` as read and loaded ([`Workspace::loaded_paths`],
    /// [`Workspace::read_counts`]) without holding its text: a stage that would load
    /// it only to find what its pre-check already saw in its bytes (no server route)
    /// leaves the run's inputs as if it had. A file loaded already is left as it is.
    pub fn note_read(&self, path: &Path) {
        let canonical = self.cache_key(path);
        if self.is_cached(&canonical) {
            return;
        }
        if self
            .released
            .lock()
            .expect("released lock")
            .insert(canonical.clone())
        {
            self.count_read(&canonical);
        }
    }

    /// Whether the file at canonical `path` was loaded as a `$ref` target.
    pub fn is_referenced(&self, path: &Path) -> bool {
        self.referenced
            .lock()
            .expect("referenced lock")
            .contains(path)
    }

    /// [`Workspace::load`] for a `$ref` target at canonical `path`, remembered as such.
    pub fn load_referenced(&self, path: &Path) -> Arc<Loaded> {
        self.referenced
            .lock()
            .expect("referenced lock")
            .insert(path.to_path_buf());
        self.load(path)
    }

    /// The key `path` is cached under: its real path (the run's memo), or its
    /// absolute path when it does not exist.
    fn cache_key(&self, path: &Path) -> PathBuf {
        self.boundary
            .real_path(path)
            .unwrap_or_else(|| absolute(&self.cwd, path))
    }

    /// True when the file at canonical `path` is loaded already.
    fn is_cached(&self, canonical: &Path) -> bool {
        self.cache
            .lock()
            .expect("cache lock")
            .contains_key(canonical)
    }

    /// Loads (or returns the cached) file at `path`. Never panics: every failure is a
    /// [`LoadError`].
    pub fn load(&self, path: &Path) -> Arc<Loaded> {
        let canonical = self.cache_key(path);
        if let Some(hit) = self.cache.lock().expect("cache lock").get(&canonical) {
            return hit.clone();
        }
        // The one boundary: a path whose real path leaves the project is not opened
        // (nor taken from the overlay); the boundary remembers it as left out.
        let loaded = Arc::new(if self.boundary.admits(path) {
            self.read(&canonical, path)
        } else {
            self.outside(&canonical, path)
        });
        self.cache
            .lock()
            .expect("cache lock")
            .entry(canonical)
            .or_insert(loaded)
            .clone()
    }

    /// How many times each file (by canonical path) was read from disk or the
    /// overlay and parsed (loaded) in this workspace, a file [`Workspace::read_if`]
    /// kept included; a pre-check that did not keep the file is a scan of its bytes,
    /// not a load, and is not counted. A run loads each input once
    /// (`tests/read_once.rs`); a file released and loaded again counts twice.
    pub fn read_counts(&self) -> HashMap<PathBuf, usize> {
        self.reads.lock().expect("reads lock").clone()
    }

    fn count_read(&self, canonical: &Path) {
        *self
            .reads
            .lock()
            .expect("reads lock")
            .entry(canonical.to_path_buf())
            .or_default() += 1;
    }

    /// Reads the regular file at `path` (at most the size limit) and asks `wanted`
    /// of its bytes: when it says yes, the file is loaded from those bytes, as
    /// [`Workspace::load`] would load it, without reading it again. For the
    /// pre-checks by text (source files that mention a retry library). The caller
    /// has asked the read boundary. Errors: those of [`read_regular_file`].
    pub fn read_if(
        &self,
        path: &Path,
        wanted: impl FnOnce(&[u8]) -> bool,
    ) -> std::io::Result<bool> {
        let canonical = self.cache_key(path);
        if self.is_cached(&canonical) {
            return Ok(true);
        }
        let bytes = read_regular_file(path, self.limits.max_file_bytes)?;
        if !wanted(&bytes) {
            return Ok(false);
        }
        self.count_read(&canonical);
        // An editor's buffer replaces the file: `load` reads that.
        if self
            .overlay
            .as_ref()
            .is_some_and(|o| o.contains_key(&canonical))
        {
            return Ok(true);
        }
        let loaded = Arc::new(self.decoded(&canonical, self.shown(&canonical, path), bytes));
        self.cache
            .lock()
            .expect("cache lock")
            .entry(canonical)
            .or_insert(loaded);
        Ok(true)
    }

    /// Loads text that did not come from disk (tests, documentation examples).
    pub fn load_text(&self, path: &Path, text: &str) -> Arc<Loaded> {
        let canonical = absolute(&self.cwd, path);
        let display = self.display_path(&canonical);
        let file = Arc::new(SourceFile::new(canonical.clone(), display, text));
        let tree = Tree::parse(file.text.clone()).map_err(LoadError::Syntax);
        let loaded = Arc::new(Loaded::new(file, tree));
        self.cache
            .lock()
            .expect("cache lock")
            .insert(canonical, loaded.clone());
        loaded
    }

    /// Replaces the cached tree of `doc` (a file this workspace loaded) by `tree`,
    /// another document of the same text (from [`Tree::parse_stream`]), so `$ref`s
    /// into the file read that document too. Returns the new entry.
    pub fn substitute(&self, doc: &Loaded, tree: Tree) -> Arc<Loaded> {
        let loaded = Arc::new(Loaded::new(doc.file.clone(), Ok(tree)));
        self.cache
            .lock()
            .expect("cache lock")
            .insert(doc.file.path.clone(), loaded.clone());
        loaded
    }

    /// The entry of a path the boundary refused: no text, [`LoadError::OutsideRoot`].
    fn outside(&self, canonical: &Path, given: &Path) -> Loaded {
        let display = self.display_path(given);
        let display = display
            .strip_prefix("./")
            .map(str::to_string)
            .unwrap_or(display);
        Loaded::new(
            Arc::new(SourceFile::new(canonical.to_path_buf(), display, "")),
            Err(LoadError::OutsideRoot),
        )
    }

    /// How a file opened by the name `given` is shown.
    fn shown(&self, canonical: &Path, given: &Path) -> String {
        let display = self.display_path(if given.is_absolute() {
            canonical
        } else {
            given
        });
        display
            .strip_prefix("./")
            .map(str::to_string)
            .unwrap_or(display)
    }

    fn read(&self, canonical: &Path, given: &Path) -> Loaded {
        let display = self.shown(canonical, given);
        self.count_read(canonical);
        let empty =
            |display: String| Arc::new(SourceFile::new(canonical.to_path_buf(), display, ""));
        if let Some(text) = self.overlay.as_ref().and_then(|o| o.get(canonical)) {
            if text.len() as u64 > self.limits.max_file_bytes {
                return Loaded::new(
                    empty(display),
                    Err(LoadError::TooLarge {
                        size: text.len() as u64,
                        limit: self.limits.max_file_bytes,
                    }),
                );
            }
            return parsed(canonical, display, text, false);
        }
        let meta = match std::fs::metadata(canonical) {
            Ok(m) => m,
            Err(e) => return Loaded::new(empty(display), Err(LoadError::Io(e.to_string()))),
        };
        // A FIFO, a device (`/dev/zero`, `/dev/stdin`) or a directory is never read:
        // reading it could block forever or never end.
        if !meta.is_file() {
            return Loaded::new(
                empty(display),
                Err(LoadError::Io("not a regular file".to_string())),
            );
        }
        let size = meta.len();
        if size > self.limits.max_file_bytes {
            return Loaded::new(
                empty(display),
                Err(LoadError::TooLarge {
                    size,
                    limit: self.limits.max_file_bytes,
                }),
            );
        }
        // Read at most one byte past the limit, so a file that grows while it is read
        // still cannot exhaust memory.
        let mut bytes = Vec::with_capacity(size as usize);
        let read = std::fs::File::open(canonical).and_then(|f| {
            use std::io::Read;
            f.take(self.limits.max_file_bytes.saturating_add(1))
                .read_to_end(&mut bytes)
        });
        if let Err(e) = read {
            return Loaded::new(empty(display), Err(LoadError::Io(e.to_string())));
        }
        if bytes.len() as u64 > self.limits.max_file_bytes {
            return Loaded::new(
                empty(display),
                Err(LoadError::TooLarge {
                    size: bytes.len() as u64,
                    limit: self.limits.max_file_bytes,
                }),
            );
        }
        self.decoded(canonical, display, bytes)
    }

    /// A file's bytes, read within the limits, made a [`Loaded`]: decoded and parsed.
    fn decoded(&self, canonical: &Path, display: String, bytes: Vec<u8>) -> Loaded {
        let empty =
            |display: String| Arc::new(SourceFile::new(canonical.to_path_buf(), display, ""));
        // UTF-16 and UTF-32 text (YAML 1.2 §5.2) is decoded and read like any file;
        // its decoded text is kept in memory (a read-back from disk would be the
        // undecoded bytes). Recognised from its first four bytes: no extra scan.
        if let Some((text, _)) = super::encoding::decode_wide(&bytes) {
            return parsed(canonical, display, &text, false);
        }
        if bytes.starts_with(GIT_CRYPT_HEADER) {
            return Loaded::new(empty(display), Err(LoadError::Encrypted));
        }
        if bytes.contains(&0) {
            return Loaded::new(empty(display), Err(LoadError::Binary));
        }
        let text = match std::str::from_utf8(&bytes) {
            Ok(t) => t,
            Err(e) => {
                let valid = std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or("");
                let file = Arc::new(SourceFile::new(canonical.to_path_buf(), display, valid));
                let offset = file.text.len();
                return Loaded::new(file, Err(LoadError::NotUtf8(offset)));
            }
        };
        parsed(canonical, display, text, true)
    }
}

/// A file's text made a [`Loaded`]: parsed as YAML/JSON unless another reader owns it.
/// `from_disk`: the text is the file's on disk (so it may be released and read back).
fn parsed(canonical: &Path, display: String, text: &str, from_disk: bool) -> Loaded {
    let file = Arc::new(if from_disk {
        SourceFile::read_from_disk(canonical.to_path_buf(), display, text)
    } else {
        SourceFile::new(canonical.to_path_buf(), display, text)
    });
    // A `.proto` has its own reader (`crate::import::proto`): parsing it as YAML
    // too would cost as much as reading it.
    let tree = if is_proto(canonical) {
        Err(LoadError::Syntax(SyntaxError {
            message: "a Protocol Buffers file is not YAML or JSON".to_string(),
            offset: 0,
        }))
    } else if super::language::Language::of_path(canonical).is_some() {
        // Source code is read by tree-sitter (`crate::import::code`).
        Err(LoadError::Syntax(SyntaxError {
            message: "source code is not YAML or JSON".to_string(),
            offset: 0,
        }))
    } else {
        match Tree::parse_keeping_stream(file.text.clone()) {
            Err(e) => Err(LoadError::Syntax(e)),
            Ok((first, later)) => {
                let loaded = Loaded::new(file.clone(), Ok(first));
                if !later.is_empty() {
                    // The documents of a stream, from the same parse: an importer
                    // reads them without parsing the file again.
                    *loaded.stream.lock().expect("fresh lock") = Some(
                        later
                            .into_iter()
                            .map(|tree| Arc::new(Loaded::new(file.clone(), Ok(tree))))
                            .collect(),
                    );
                }
                return loaded;
            }
        }
    };
    Loaded::new(file, tree)
}

/// Whether `path` names a Protocol Buffers file (`*.proto`, any case).
fn is_proto(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("proto"))
}

fn absolute(cwd: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    }
}

/// `path` relative to `base` (`../x/y` when they share an ancestor other than the
/// file-system root), else `path` unchanged. Purely lexical.
/// `path` without `.` components and with each `..` folded into the name before it
/// (`deploy/client/../../api/x.yaml` is `api/x.yaml`); leading `..`s stay. Lexical
/// only, for display: through a symbolic link `a/..` need not be where `a` lives.
pub fn lexical_normal(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                // `/..` is `/`.
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            other => out.push(other),
        }
    }
    out.iter().map(|c| c.as_os_str()).collect()
}

fn relative_to(path: &Path, base: &Path) -> PathBuf {
    if let Ok(rest) = path.strip_prefix(base) {
        return rest.to_path_buf();
    }
    if !path.is_absolute() || !base.is_absolute() {
        return path.to_path_buf();
    }
    let p: Vec<_> = path.components().collect();
    let b: Vec<_> = base.components().collect();
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    // Sharing only the root (`/`) is no real relation: keep the absolute path.
    if common <= 1 {
        return path.to_path_buf();
    }
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c.as_os_str());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn read_regular_file_never_reads_a_device_and_stops_at_the_limit() {
        let e = read_regular_file(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert_eq!(e.to_string(), "not a regular file");
        let path = std::env::temp_dir().join(format!("rl-regular-{}", std::process::id()));
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(read_regular_file(&path, 10).unwrap(), b"0123456789");
        let e = read_regular_file(&path, 9).unwrap_err();
        assert_eq!(e.to_string(), "larger than 9 bytes");
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn display_paths_are_normalised_lexically() {
        use super::lexical_normal;
        use std::path::Path;
        let n = |p: &str| lexical_normal(Path::new(p)).to_string_lossy().into_owned();
        assert_eq!(
            n("deploy/client/../../api/openapi.yaml"),
            "api/openapi.yaml"
        );
        assert_eq!(n("./a/./b/../c.yaml"), "a/c.yaml");
        assert_eq!(n("../shared/x/../y.yaml"), "../shared/y.yaml");
        assert_eq!(n("a/../../b"), "../b");
        assert_eq!(n("/x/../../y"), "/y");
    }

    use super::relative_to;
    use std::path::{Path, PathBuf};

    #[test]
    fn relative_paths() {
        let r = |p: &str, b: &str| relative_to(Path::new(p), Path::new(b));
        assert_eq!(
            r("/repo/main/a.yaml", "/repo/main"),
            PathBuf::from("a.yaml")
        );
        assert_eq!(
            r("/repo/shared/x/a.yaml", "/repo/main"),
            PathBuf::from("../shared/x/a.yaml")
        );
        assert_eq!(r("/etc/passwd", "/repo/main"), PathBuf::from("/etc/passwd"));
    }
}
