//! Phase timings for profiling: with `RETRYLINT_TIMINGS=1` in the environment, each
//! pipeline phase prints `retrylint: timing <phase> <ms> ms` to standard error;
//! `RETRYLINT_TIMINGS=2` adds the details (each rule, and each document's model,
//! RL008 and `$ref` scan, named by its path). Off by default (one cached
//! environment look-up per phase, nothing printed).

use std::sync::OnceLock;
use std::time::Instant;

fn level() -> u8 {
    static LEVEL: OnceLock<u8> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        std::env::var("RETRYLINT_TIMINGS")
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    })
}

/// Runs `f`; with `RETRYLINT_TIMINGS=1` or more, prints how long it took (wall, ms)
/// under `phase`.
pub fn phase<T>(phase: &str, f: impl FnOnce() -> T) -> T {
    timed(1, phase, f)
}

/// As [`phase`], for the details printed only with `RETRYLINT_TIMINGS=2`.
pub fn detail<T>(phase: impl std::fmt::Display, f: impl FnOnce() -> T) -> T {
    timed(2, phase, f)
}

fn timed<T>(at: u8, phase: impl std::fmt::Display, f: impl FnOnce() -> T) -> T {
    if level() < at {
        return f();
    }
    let start = Instant::now();
    let out = f();
    crate::write::errln(format_args!(
        "retrylint: timing {phase} {:.1} ms",
        start.elapsed().as_secs_f64() * 1000.0
    ));
    out
}
