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
//!
//! A small run needs no second thread: [`run_on_this_thread`] gives the current
//! thread a stack of the same size and makes it a one-thread pool, so no thread is
//! started (each started thread cost a small run about a tenth of its time: its
//! stack, its allocator heap, the idle worker's spinning, and the cross-CPU TLB
//! flushes at exit).

use std::cell::Cell;
use std::sync::OnceLock;

/// Stack of each thread of the pool (bytes).
pub const STACK_BYTES: usize = 256 * 1024 * 1024;

/// The most threads the pool starts, whether asked by `--jobs` or `RAYON_NUM_THREADS`:
/// each reserves a [`STACK_BYTES`] stack, and a huge count spent minutes starting
/// threads that a 2-to-128-core machine cannot use.
pub const MAX_THREADS: usize = 1024;

/// Threads of the pool: set by [`set_threads`] (`--jobs`), else `RAYON_NUM_THREADS`
/// (at most the available cores), else the available cores. Not rayon's `current_num_threads`: asked from outside
/// any pool, that starts rayon's global pool (two more threads for nothing).
static THREADS: OnceLock<usize> = OnceLock::new();

/// Sets the pool's threads (at least 1); only before the pool is first used.
pub fn set_threads(n: usize) {
    let _ = THREADS.set(n.clamp(1, MAX_THREADS));
}

fn threads() -> usize {
    *THREADS.get_or_init(|| {
        threads_from_env(std::env::var("RAYON_NUM_THREADS").ok().as_deref(), cores())
    })
}

/// The pool's threads for a `RAYON_NUM_THREADS` value: a positive count, at most the
/// `cores` (as `--jobs` is capped: more threads than cores gain nothing and each
/// reserves a deep stack); unset, empty, 0 or not a number: the `cores`.
fn threads_from_env(value: Option<&str>, cores: usize) -> usize {
    value
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .map_or(cores, |n| n.min(cores).min(MAX_THREADS))
}

/// The cores this process may run on (at least 1).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
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

thread_local! {
    /// Set while this thread runs [`run_on_this_thread`]'s work on its deep stack.
    static ON_DEEP_STACK: Cell<bool> = const { Cell::new(false) };
}

/// Runs `work` on the deep-stack pool (inline when already there or inside
/// [`run_on_this_thread`], or on this thread if the pool could not be started).
pub fn run<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    if ON_DEEP_STACK.with(Cell::get) {
        return work();
    }
    match pool() {
        Some(p) => p.install(work),
        None => work(),
    }
}

/// Runs `work` on the current thread, on a fresh stack of [`STACK_BYTES`], as the
/// only worker of a one-thread pool: its parallel steps and every [`run`] inside it
/// run here, and no thread is started. For a run too small to gain from a second
/// core (`retrylint check` decides, from the size of its input). Falls back to
/// [`run`] when this thread already belongs to a pool.
pub fn run_on_this_thread<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    stacker::grow(STACK_BYTES, || {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .use_current_thread()
            .build();
        match pool {
            Ok(pool) => {
                ON_DEEP_STACK.with(|on| on.set(true));
                let out = pool.install(work);
                ON_DEEP_STACK.with(|on| on.set(false));
                out
            }
            Err(_) => run(work),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::threads_from_env;

    #[test]
    fn rayon_num_threads_is_capped_at_the_cores() {
        assert_eq!(threads_from_env(None, 4), 4);
        assert_eq!(threads_from_env(Some("2"), 4), 2);
        assert_eq!(threads_from_env(Some("100000"), 4), 4);
        assert_eq!(threads_from_env(Some("0"), 4), 4);
        assert_eq!(threads_from_env(Some("many"), 4), 4);
        assert_eq!(threads_from_env(Some("4096"), 2048), super::MAX_THREADS);
    }
}
