//! The thread pool that models documents and runs RL008: rayon's default worker
//! stacks (2 MiB) are too small for `openapiv3`'s serde reading, which recurses with
//! every nesting level at several KiB of stack per level (about 9 KiB in a release
//! build, several times that in a debug build). A schema nested 242 levels deep
//! overflowed them and aborted the whole run.
//!
//! Its threads have [`STACK_BYTES`] of stack: reserved address space, touched only as
//! deep as a document nests. It has `--jobs` threads ([`set_threads`]), else one per
//! core. Work is handed to it once, from outside any worker (`retrylint check` runs
//! whole on it, so its parallel steps split on the pool's own threads instead of
//! waking a pool and waiting for it at each step, most of a small run's time; the
//! model phase of [`crate::check::analyze`] for library callers); inside it, [`run`]
//! runs inline. A
//! worker of another pool that waits on it keeps stealing its own pool's jobs, which
//! can nest on that worker's small stack: hence one hand-over, not one per document.

use std::sync::OnceLock;

/// Stack of each thread of the pool (bytes).
pub const STACK_BYTES: usize = 256 * 1024 * 1024;

/// Threads of the pool: set by [`set_threads`] (`--jobs`), else `RAYON_NUM_THREADS`,
/// else the available cores. Not rayon's `current_num_threads`: asked from outside
/// any pool, that starts rayon's global pool (two more threads for nothing).
static THREADS: OnceLock<usize> = OnceLock::new();

/// Sets the pool's threads (at least 1); only before the pool is first used.
pub fn set_threads(n: usize) {
    let _ = THREADS.set(n.max(1));
}

fn threads() -> usize {
    *THREADS.get_or_init(|| {
        std::env::var("RAYON_NUM_THREADS")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|&n| n > 0)
            .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
            .unwrap_or(1)
    })
}

fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads())
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
