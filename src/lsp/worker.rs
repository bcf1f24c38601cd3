//! The lint worker: a thread that debounces lint requests (the newest wins), lints
//! off the main loop so the editor's other requests are answered meanwhile, and
//! never takes the server down (a panic becomes a message).

use super::lint::{lint, Snapshot};
use crate::source::loader::Overlay;
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A lint asked for: the buffers as they are now.
#[derive(Debug)]
pub struct Job {
    /// Increases with every request; a result answers the newest job it saw.
    pub generation: u64,
    /// Open buffers by canonical path.
    pub overlay: Arc<Overlay>,
    /// Version of each open buffer, by canonical path.
    pub versions: HashMap<PathBuf, i32>,
    /// How long to wait for a newer request first (typing: 250 ms; open, save: 0).
    pub delay: Duration,
}

/// What the worker sends back.
#[derive(Debug)]
pub struct Done {
    /// The job's generation.
    pub generation: u64,
    /// The job's buffer versions.
    pub versions: HashMap<PathBuf, i32>,
    /// The findings and model, or why the lint failed.
    pub snapshot: Result<Arc<Snapshot>, String>,
    /// How long the lint took (reported in the log).
    pub elapsed: Duration,
}

/// Starts the worker linting `root`; it ends when the job channel closes.
pub fn spawn(root: PathBuf, baseline: Option<PathBuf>, jobs: Receiver<Job>, done: Sender<Done>) {
    std::thread::Builder::new()
        .name("retrylint-lsp-lint".into())
        .spawn(move || {
            while let Ok(mut job) = jobs.recv() {
                // Debounce: a newer request replaces this one and restarts its wait.
                let mut due = Instant::now() + job.delay;
                loop {
                    let wait = due.saturating_duration_since(Instant::now());
                    match jobs.recv_timeout(wait) {
                        Ok(newer) => {
                            due = Instant::now() + newer.delay;
                            job = newer;
                        }
                        Err(RecvTimeoutError::Timeout) => break,
                        Err(RecvTimeoutError::Disconnected) => return,
                    }
                }
                let started = Instant::now();
                let overlay = job.overlay.clone();
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    lint(&root, overlay, baseline.as_deref())
                }));
                let snapshot = result.map(Arc::new).map_err(|p| {
                    p.downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_else(|| "the lint panicked".into())
                });
                let sent = done.send(Done {
                    generation: job.generation,
                    versions: job.versions,
                    snapshot,
                    elapsed: started.elapsed(),
                });
                if sent.is_err() {
                    return;
                }
            }
        })
        .expect("spawn the lint worker");
}
