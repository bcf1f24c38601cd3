//! Backoff budget arithmetic shared by the decision functions and the lint rules
//! (RL309 attempt-timeout-exceeds-budget, RL310 deadline-precludes-retry).
//!
//! All values are milliseconds as `f64`. Source: domain.md "(2) Delay" and
//! policy-format.md `backoff` (delay before retry n, 0-based,
//! = min(cap, base * multiplier^n)).

/// The backoff bound before retry `n` (0-based), in ms:
/// `min(cap_ms, base_ms * multiplier^n)`.
///
/// Overflow-safe: `multiplier^n` may overflow to infinity and is then capped by
/// `cap_ms`; `base_ms == 0` gives 0 even when `multiplier^n` is infinite (no
/// `0 * inf = NaN`). A NaN input gives NaN (it is never silently replaced by the cap).
/// Source: domain.md step 8 of the reference decision function; policy-format.md
/// `backoff.multiplier`.
pub fn backoff_bound_ms(base_ms: f64, cap_ms: f64, multiplier: f64, n: u32) -> f64 {
    bound_ms(base_ms, cap_ms, multiplier, f64::from(n))
}

/// [`backoff_bound_ms`] with the exponent as `f64` (the reference function's
/// attempt index is an `f64` that has already been checked to be a non-negative
/// integer).
pub(crate) fn bound_ms(base_ms: f64, cap_ms: f64, multiplier: f64, n: f64) -> f64 {
    if base_ms.is_nan() || cap_ms.is_nan() || multiplier.is_nan() || n.is_nan() {
        return f64::NAN;
    }
    if base_ms == 0.0 {
        return 0.0;
    }
    let raw = base_ms * multiplier.powf(n);
    if raw.is_nan() {
        // e.g. a negative base times an infinite power; only reachable with
        // inputs the decision functions reject before calling this.
        return f64::NAN;
    }
    if raw > cap_ms {
        cap_ms
    } else {
        raw
    }
}

/// The sum of the backoff bounds before retries `0..retries`, in ms:
/// `sum over n in 0..retries of min(cap_ms, base_ms * multiplier^n)`.
///
/// This is the worst-case total wait of a policy with `attempts = retries + 1`
/// (RL309). Runs in O(number of retries until the cap is reached): once a bound
/// equals the cap, the remaining terms are added as `cap_ms * remaining`.
/// Source: rules-catalog.md RL309; policy-format.md `backoff`.
pub fn total_backoff_ms(base_ms: f64, cap_ms: f64, multiplier: f64, retries: u32) -> f64 {
    let mut total = 0.0;
    for n in 0..retries {
        let b = backoff_bound_ms(base_ms, cap_ms, multiplier, n);
        if b.is_nan() {
            return f64::NAN;
        }
        // Non-decreasing for multiplier >= 1: once at the cap, stay there.
        if b == cap_ms && multiplier >= 1.0 {
            return total + cap_ms * f64::from(retries - n);
        }
        total += b;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bound_grows_and_caps() {
        assert_eq!(backoff_bound_ms(100.0, 2000.0, 2.0, 0), 100.0);
        assert_eq!(backoff_bound_ms(100.0, 2000.0, 2.0, 2), 400.0);
        assert_eq!(backoff_bound_ms(100.0, 2000.0, 2.0, 5), 2000.0);
        assert_eq!(backoff_bound_ms(100.0, 2000.0, 1.5, 1), 150.0);
    }

    #[test]
    fn bound_overflow_is_capped_and_zero_base_is_zero() {
        assert_eq!(backoff_bound_ms(100.0, 2000.0, 2.0, u32::MAX), 2000.0);
        assert_eq!(backoff_bound_ms(0.0, 2000.0, 2.0, u32::MAX), 0.0);
        assert_eq!(bound_ms(0.0, 2000.0, 2.0, 1e300), 0.0);
        assert!(backoff_bound_ms(f64::NAN, 2000.0, 2.0, 1).is_nan());
    }

    #[test]
    fn total_sums_and_short_circuits() {
        // 100 + 200 + 400
        assert_eq!(total_backoff_ms(100.0, 2000.0, 2.0, 3), 700.0);
        assert_eq!(total_backoff_ms(100.0, 2000.0, 2.0, 0), 0.0);
        // 100+200+400+800+1600 + 2000*5
        assert_eq!(total_backoff_ms(100.0, 2000.0, 2.0, 10), 13_100.0);
        // huge retry counts are fast and finite
        let t = total_backoff_ms(100.0, 2000.0, 2.0, u32::MAX);
        assert!(t.is_finite() && t > 8.0e12);
    }
}
