//! Durations as platforms write them, in ms ([`Millis`]): Go and Istio durations
//! (`1h`, `1m30s`, `250ms`, `1.5s`), proto3-JSON Durations (`"0.100s"`), GEP-2257
//! (`1h2m3s4ms`), and bare numbers in a unit the caller names (ingress-nginx
//! seconds, Kong and Spring milliseconds, Traefik seconds).

use crate::policy::duration::Millis;

/// A Go-style duration: one or more `<number><unit>` parts with units `h`, `m`, `s`,
/// `ms`, `us`/`µs`, `ns` (`1m30s`, `0.100s`, `250ms`). `None` for anything else,
/// including a bare number (its unit is the platform's; see [`bare_or_unit`]).
pub fn parse_go(text: &str) -> Option<Millis> {
    let s = text.trim();
    if s.is_empty() {
        return None;
    }
    if s == "0" {
        return Some(0.0);
    }
    let bytes = s.as_bytes();
    let mut i = 0;
    let mut total = 0.0;
    let mut parts = 0;
    while i < bytes.len() {
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
            i += 1;
        }
        if start == i {
            return None;
        }
        let number = &s[start..i];
        let unit_start = i;
        while i < bytes.len() && !(bytes[i].is_ascii_digit() || bytes[i] == b'.') {
            i += 1;
        }
        // ms per unit, as `mult / 10^div_exp`.
        let (mult, div_exp) = match &s[unit_start..i] {
            "h" => (3_600_000, 0),
            "m" => (60_000, 0),
            "s" => (1000, 0),
            "ms" => (1, 0),
            "us" | "µs" => (1, 3),
            "ns" => (1, 6),
            _ => return None,
        };
        total += decimal_ms(number, mult, div_exp)?;
        parts += 1;
    }
    (parts > 0).then_some(total)
}

/// Powers of ten exact in an `f64` (10^0 to 10^22).
const EXACT_POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The decimal `number` (`digits`, `digits.digits`, `.digits` or `digits.`) of a
/// unit worth `mult / 10^div_exp` ms, in ms, rounded once: the digits read as one
/// integer over a power of ten, so `1.000000001` s is the `f64` nearest 1000.000001
/// ms (printed `1000.000001ms`), not the `1000.0000010000001` that `1.000000001 *
/// 1000.0` gives. When those integers are not exact in an `f64` (more than 2^53, or
/// more than 22 decimals in all) the float product is used, as before. `None` for
/// anything else. The one place a platform's decimal duration becomes ms
/// ([`parse_go`], [`bare_or_unit`], gRPC's proto3 JSON Durations), so a value is
/// shown as written rather than with a float's noise.
pub fn decimal_ms(number: &str, mult: u64, div_exp: usize) -> Option<Millis> {
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty()) || !digits(whole) || !digits(fraction) {
        return None;
    }
    let exp = fraction.len() + div_exp;
    if whole.len() + fraction.len() <= 19 && exp < EXACT_POW10.len() {
        let mut n: u128 = 0;
        for d in whole.bytes().chain(fraction.bytes()) {
            n = n * 10 + u128::from(d - b'0');
        }
        let numerator = n * u128::from(mult);
        if numerator <= 1 << 53 {
            // Both exact, so the one division rounds correctly.
            return Some(numerator as f64 / EXACT_POW10[exp]);
        }
    }
    let value: f64 = number.parse().ok()?;
    Some(value * (mult as f64 / EXACT_POW10.get(div_exp).copied().unwrap_or(1.0)))
}

/// [`parse_go`] in whole nanoseconds, exactly (no float rounding), as Go's
/// `time.ParseDuration` reads it: each part's fraction is cut at the nanosecond (Go
/// drops the digits beyond), `0` alone is zero. `None` for anything `parse_go`
/// refuses. A total beyond `u128` saturates at `u128::MAX`, far beyond every
/// platform's range: callers compare the result with their own bound (Go's is
/// `i64::MAX` ns), so it is refused there, never wrapped.
pub fn parse_go_nanos(text: &str) -> Option<u128> {
    let s = text.trim();
    if s == "0" {
        return Some(0);
    }
    let bytes = s.as_bytes();
    let mut i = 0;
    let mut total: u128 = 0;
    let mut parts = 0;
    while i < bytes.len() {
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
            i += 1;
        }
        let number = &s[start..i];
        let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
        if (whole.is_empty() && fraction.is_empty()) || fraction.contains('.') {
            return None;
        }
        let unit_start = i;
        while i < bytes.len() && !(bytes[i].is_ascii_digit() || bytes[i] == b'.') {
            i += 1;
        }
        let per: u128 = match &s[unit_start..i] {
            "h" => 3_600_000_000_000,
            "m" => 60_000_000_000,
            "s" => 1_000_000_000,
            "ms" => 1_000_000,
            "us" | "µs" => 1_000,
            "ns" => 1,
            _ => return None,
        };
        let mut value: u128 = 0;
        for d in whole.bytes() {
            value = value
                .saturating_mul(10)
                .saturating_add(u128::from(d - b'0'));
        }
        value = value.saturating_mul(per);
        // The fraction: digits times the unit over 10^digits, cut at the nanosecond;
        // digits past the 24th cannot change a whole nanosecond of any unit here.
        let mut scale: u128 = 1;
        let mut numerator: u128 = 0;
        for d in fraction.bytes().take(24) {
            numerator = numerator * 10 + u128::from(d - b'0');
            scale *= 10;
        }
        // Below 10^24 x 3.6 x 10^12: no overflow.
        value = value.saturating_add(numerator * per / scale);
        total = total.saturating_add(value);
        parts += 1;
    }
    (parts > 0).then_some(total)
}

/// The longest Go `time.Duration`, in ms: 2^63 - 1 ns, about 292 years
/// (`2562047h47m16.854775807s`). Go's `time.ParseDuration` rejects anything longer
/// ("invalid duration"), so a platform that reads durations with it (Istio, Linkerd,
/// Traefik) rejects such a value rather than reading a huge one.
pub const GO_MAX_MS: Millis = i64::MAX as f64 / 1e6;

/// The message part naming [`GO_MAX_MS`] as Go writes it.
pub const GO_MAX_TEXT: &str = "2562047h47m16.854775807s, about 292 years";

/// [`parse_go`] as Go's `time.ParseDuration` reads it: `None` also for a duration
/// longer than [`GO_MAX_MS`], which Go rejects ("invalid duration"). For the
/// platforms whose controllers parse durations in Go (Linkerd, Gateway API
/// implementations, Traefik), so an overflowing value is never read as a huge one.
pub fn parse_go_bounded(text: &str) -> Option<Millis> {
    parse_go(text).filter(|ms| fits_go(*ms))
}

/// True when `ms` fits a Go `time.Duration` ([`GO_MAX_MS`]).
pub fn fits_go(ms: Millis) -> bool {
    ms.is_finite() && ms <= GO_MAX_MS
}

/// A duration that is either Go-style (`5s`) or a bare number in `bare_unit_ms`
/// milliseconds per unit (1000.0 for seconds, 1.0 for ms).
pub fn bare_or_unit(text: &str, bare_unit_ms: f64) -> Option<Millis> {
    let s = text.trim();
    if let Ok(n) = s.parse::<f64>() {
        if !(n.is_finite() && n >= 0.0) {
            return None;
        }
        // Plain decimals in a whole number of ms per unit: rounded once, as
        // [`decimal_ms`] says (`1.1` s is 1100 ms, not 1100.0000000000002).
        let whole_unit = bare_unit_ms >= 1.0 && bare_unit_ms.fract() == 0.0;
        let plain = decimal_ms(s, bare_unit_ms as u64, 0).filter(|_| whole_unit);
        return Some(plain.unwrap_or(n * bare_unit_ms));
    }
    parse_go(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations() {
        assert_eq!(parse_go("1m30s"), Some(90_000.0));
        assert_eq!(parse_go("0.100s"), Some(100.0));
        assert_eq!(parse_go("250ms"), Some(250.0));
        assert_eq!(parse_go("1.000s"), Some(1000.0));
        assert_eq!(parse_go("5"), None);
        assert_eq!(parse_go("5x"), None);
        assert_eq!(bare_or_unit("5", 1000.0), Some(5000.0));
        assert_eq!(bare_or_unit("500ms", 1000.0), Some(500.0));
    }

    /// A decimal duration is rounded once (issue 43: `1.000000001s` was shown as
    /// `1000.0000010000001ms`): the nearest `f64` to the value as written.
    #[test]
    fn decimals_without_float_noise() {
        assert_eq!(parse_go("1.000000001s"), Some(1000.000001));
        assert_eq!(
            format!("{}", parse_go("1.000000001s").unwrap()),
            "1000.000001"
        );
        assert_eq!(parse_go("1.1s"), Some(1100.0));
        assert_eq!(parse_go("0.3s"), Some(300.0));
        assert_eq!(parse_go("1.5us"), Some(0.0015));
        assert_eq!(parse_go("2.5ns"), Some(0.0000025));
        assert_eq!(parse_go("1m30.5s"), Some(90_500.0));
        assert_eq!(parse_go(".5s"), Some(500.0));
        assert_eq!(parse_go("5.s"), Some(5000.0));
        assert_eq!(parse_go("1.2.3s"), None);
        assert_eq!(parse_go(".s"), None);
        assert_eq!(bare_or_unit("1.1", 1000.0), Some(1100.0));
        assert_eq!(bare_or_unit("0.25", 1.0), Some(0.25));
        // Beyond 2^53 or 22 decimals: the float product, as before.
        assert_eq!(
            parse_go("99999999999999999999999h"),
            Some(99999999999999999999999.0 * 3_600_000.0)
        );
        assert_eq!(
            decimal_ms("1.0000000000000000000000001", 1000, 0),
            Some(1000.0)
        );
        assert_eq!(decimal_ms("", 1, 0), None);
        assert_eq!(decimal_ms("1e3", 1, 0), None);
    }

    #[test]
    fn go_range() {
        assert!(fits_go(parse_go("2562047h").unwrap()));
        assert!(!fits_go(parse_go("2562048h").unwrap()));
        assert!(!fits_go(parse_go("99999999999999999999999h").unwrap()));
        assert!(fits_go(0.0));
        assert_eq!(parse_go_bounded("99999999999999999999999h"), None);
        assert_eq!(parse_go_bounded("2s"), Some(2000.0));
    }

    #[test]
    fn go_nanos_exact() {
        assert_eq!(parse_go_nanos("1.1s"), Some(1_100_000_000));
        assert_eq!(parse_go_nanos("1m30s"), Some(90_000_000_000));
        assert_eq!(parse_go_nanos("0.5ns"), Some(0));
        assert_eq!(parse_go_nanos("1.5ms"), Some(1_500_000));
        assert_eq!(parse_go_nanos(".5s"), Some(500_000_000));
        assert_eq!(parse_go_nanos("0.0000000019s"), Some(1));
        assert_eq!(parse_go_nanos("0"), Some(0));
        for bad in ["", "5", "100ps", "1..2s", ".s", "1.2.3s", "-1s"] {
            assert_eq!(parse_go_nanos(bad), None, "{bad}");
        }
        // Beyond u128: saturated, never wrapped.
        assert_eq!(
            parse_go_nanos(&format!("{}h", "9".repeat(40))),
            Some(u128::MAX)
        );
    }
}
