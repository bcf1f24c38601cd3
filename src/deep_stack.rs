//! The thread pool that models documents and runs RL008: rayon's default worker
//! stacks (2 MiB) are too small for `openapiv3`'s serde reading, which recurses with
//! every nesting level at several KiB of stack per level (about 9 KiB in a release
//! build, several times that in a debug build). A schema nested 242 levels deep
//! overflowed them and aborted the whole run.
//!
//! Its threads have [`STACK_BYTES`] of stack: reserved address space, touched only as
//! deep as a document nests. It has as many threads as the pool it is first used
//! from (so `--jobs` holds). Work is handed to it once, from outside any worker (the
//! model phase of [`crate::check::analyze`]); inside it, [`run`] runs inline. A
//! worker of another pool that waits on it keeps stealing its own pool's jobs, which
//! can nest on that worker's small stack: hence one hand-over, not one per document.

use std::sync::OnceLock;

/// Stack of each thread of the pool (bytes).
pub const STACK_BYTES: usize = 256 * 1024 * 1024;

fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(rayon::current_num_threads())
            .stack_size(STACK_BYTES)
            .thread_name(|i| format!("retrylint-deep-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// Runs `work` on the deep-stack pool (inline when already there, or on this thread
/// if the pool could not be started).
pub fn run<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    match pool() {
        Some(p) => p.install(work),
        None => work(),
    }
}
