//! `retrylint check -`: rendered manifests from standard input (`helm template . |
//! retrylint check -`, `kustomize build | retrylint check -`).
//!
//! The stream is read once, at most `--max-file-size` bytes (a longer one is exit
//! 2, as a file over the limit is), split by [`crate::source::rendered`] into the
//! templates Helm names, and handed to the run as an overlay: texts for paths
//! under the current folder, which the run's `Workspace` reads instead of the disk
//! after the one read boundary admitted the path (and with the same size limit).
//! The current folder is checked with them, so the objects bind to its specs.

use crate::source::loader::Overlay;
use crate::source::rendered;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a `-` among the paths turns into.
#[derive(Debug)]
pub struct Rendered {
    /// The run's paths: the current folder, the other paths given, and one path
    /// per rendered file (relative to the current folder).
    pub paths: Vec<PathBuf>,
    /// The rendered files' texts, by absolute path.
    pub overlay: Arc<Overlay>,
    /// How many files the stream held.
    pub files: usize,
}

/// True when `paths` names standard input (`-`).
pub fn asks_for_stdin(paths: &[PathBuf]) -> bool {
    paths.iter().any(|p| p.as_os_str() == "-")
}

/// Reads standard input (at most `max_bytes`) and splits it. `Err` is the one-line
/// reason the run cannot lint (too large, not UTF-8, unreadable).
pub fn read(paths: &[PathBuf], cwd: &Path, max_bytes: u64) -> Result<Rendered, String> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read standard input: {e}"))?;
    if bytes.len() as u64 > max_bytes {
        return Err(format!(
            "standard input is larger than --max-file-size ({max_bytes} bytes); raise the limit or check fewer manifests at a time"
        ));
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| "standard input is not UTF-8 text (expected a YAML stream)".to_string())?;
    Ok(from_text(paths, cwd, &text))
}

/// [`read`] of a text already read.
pub fn from_text(paths: &[PathBuf], cwd: &Path, text: &str) -> Rendered {
    let files = rendered::split(text);
    let mut out: Vec<PathBuf> = vec![PathBuf::from(".")];
    out.extend(
        paths
            .iter()
            .filter(|p| p.as_os_str() != "-" && p.as_os_str() != ".")
            .cloned(),
    );
    let mut overlay = Overlay::new();
    for f in &files {
        let rel = on_disk(cwd, &f.name);
        let text: Arc<str> = Arc::from(f.text.as_str());
        // The workspace keys a file by its real path when it exists (a template of
        // the chart in this folder), else by its absolute path.
        let abs = cwd.join(&rel);
        if let Ok(real) = std::fs::canonicalize(&abs) {
            overlay.insert(real, text.clone());
        }
        overlay.insert(abs, text);
        out.push(rel);
    }
    Rendered {
        paths: out,
        overlay: Arc::new(overlay),
        files: files.len(),
    }
}

/// The path a rendered file is reported at: Helm names a template
/// `<chart name>/templates/x.yaml`; run in the chart's folder (`helm template .`),
/// that is `templates/x.yaml` here, so the chart-name segment is dropped when the
/// file exists without it and not with it (subcharts: `charts/sub/templates/..`).
fn on_disk(cwd: &Path, name: &str) -> PathBuf {
    let as_written = PathBuf::from(name);
    if cwd.join(&as_written).is_file() {
        return as_written;
    }
    match name.split_once('/') {
        Some((_, rest)) if cwd.join(rest).is_file() => PathBuf::from(rest),
        _ => as_written,
    }
}

/// True when the skipped file `display` (a path relative to the current folder, as
/// the run lists it) is a Helm template of a chart: a YAML file under a
/// `templates` folder whose text holds `{{ }}`. Only such names are opened, so a
/// run that skipped many files stays cheap.
pub fn is_helm_template(display: &str) -> bool {
    let path = Path::new(display);
    let yaml = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"));
    let in_templates = path
        .parent()
        .is_some_and(|p| p.components().any(|c| c.as_os_str() == "templates"));
    yaml && in_templates && is_template(display)
}

/// True when the skipped file `display` holds `{{ }}` (a template of any tool),
/// reading at most 1 MiB of it (the walk already admitted it; never a device).
pub fn is_template(display: &str) -> bool {
    crate::source::loader::read_regular_file(Path::new(display), 1 << 20)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .is_some_and(|t| t.contains("{{") && t.contains("}}"))
}
