//! One lint of the editor's workspace, as `check` would run it over the root folder:
//! `.retrylint.yaml` (read from its buffer when open), suppressions, the baseline,
//! and the open buffers in place of the files on disk.

use crate::check::{run_full, Analyzed, CheckOptions};
use crate::config::{Config, ConfigError};
use crate::diagnostic::Diagnostic;
use crate::source::loader::{Limits, Overlay, Workspace};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a lint found: the findings `check` would print and the model they came
/// from (hover, completion and go to definition read it).
#[derive(Debug)]
pub struct Snapshot {
    /// Findings after suppressions, rule levels and the baseline, sorted.
    pub diagnostics: Vec<Diagnostic>,
    /// The documents and the join.
    pub analyzed: Analyzed,
}

/// Lints the folder `root` with `overlay` in place of the files on disk. The
/// baseline is `baseline` (the client's `initializationOptions.baseline`, relative
/// to `root`), else the configuration's `baseline:`. A configuration or baseline that
/// cannot be read becomes a finding on that file and the run goes on with defaults.
pub fn lint(root: &Path, overlay: Arc<Overlay>, baseline: Option<&Path>) -> Snapshot {
    let (config, mut extra) = config(root, &overlay);
    let options = CheckOptions {
        paths: vec![root.to_path_buf()],
        cwd: Some(root.to_path_buf()),
        limits: Limits::default(),
        thresholds: config.thresholds,
        rule_levels: config.rules.clone(),
        filter: config.filter.clone(),
        services: config.services.clone(),
        platforms: config.platforms.clone(),
        overlay: Some(overlay.clone()),
        // A folder below that is a project of its own is linted as that project
        // (below), as `check .` does.
        split_projects: true,
        ..CheckOptions::default()
    };
    let baseline_path = baseline.map(|b| root.join(b)).or(config.baseline.clone());
    let baseline = baseline_path
        .as_deref()
        .and_then(|p| match crate::baseline::read(p) {
            Ok(b) => Some(b),
            Err(e) => {
                crate::write::errln(format_args!("retrylint lsp: cannot use the baseline {e}"));
                None
            }
        });
    // Baselines record paths relative to the project root, as `check` does.
    let project = crate::check::report_root(&options);
    let options = CheckOptions {
        split: baseline
            .as_ref()
            .map(|b| crate::baseline::split(b, &project)),
        ..options
    };
    let (analyzed, mut diagnostics) = run_full(&options);
    if let Some(b) = &baseline {
        diagnostics = crate::baseline::filter(diagnostics, b, &project).new;
    }
    diagnostics.append(&mut extra);
    // Each nested project with its own configuration and baseline; its model is not
    // kept (hover and completion read the workspace's own).
    if !analyzed.nested_projects.is_empty() {
        for nested in &analyzed.nested_projects {
            diagnostics.extend(lint(nested, overlay.clone(), None).diagnostics);
        }
        crate::diagnostic::sort_and_dedup(&mut diagnostics);
    }
    Snapshot {
        diagnostics,
        analyzed,
    }
}

/// The configuration found from `root` (its buffer when open), and its problems as
/// findings when it is invalid (the lint then uses the defaults).
fn config(root: &Path, overlay: &Arc<Overlay>) -> (Config, Vec<Diagnostic>) {
    let Some(path) = crate::config::discover(root) else {
        return (Config::default(), Vec::new());
    };
    let ws =
        Workspace::new(root.to_path_buf(), Limits::default()).with_overlay(Some(overlay.clone()));
    let doc = ws.load(&path);
    match crate::config::parse(&doc, &path) {
        Ok(c) => (c, Vec::new()),
        Err(ConfigError::Invalid(diags)) => (Config::default(), diags),
        Err(ConfigError::Io(e)) => {
            crate::write::errln(format_args!("retrylint lsp: {e}"));
            (Config::default(), Vec::new())
        }
    }
}

/// The folder the server lints: the client's root, else the current directory.
pub fn root_of(params: &lsp_types::InitializeParams) -> PathBuf {
    let folder = params
        .workspace_folders
        .as_ref()
        .and_then(|f| f.first())
        .map(|f| f.uri.clone());
    #[allow(deprecated)]
    let uri = folder.or_else(|| params.root_uri.clone());
    uri.as_ref()
        .and_then(super::uri::to_path)
        .or_else(|| std::env::current_dir().ok())
        .map(|p| super::uri::canonical(&p))
        .unwrap_or_default()
}
