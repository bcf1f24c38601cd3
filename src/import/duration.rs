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
        let number: f64 = s[start..i].parse().ok()?;
        let unit_start = i;
        while i < bytes.len() && !(bytes[i].is_ascii_digit() || bytes[i] == b'.') {
            i += 1;
        }
        let factor = match &s[unit_start..i] {
            "h" => 3_600_000.0,
            "m" => 60_000.0,
            "s" => 1000.0,
            "ms" => 1.0,
            "us" | "µs" => 0.001,
            "ns" => 0.000_001,
            _ => return None,
        };
        total += number * factor;
        parts += 1;
    }
    (parts > 0).then_some(total)
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
        return (n.is_finite() && n >= 0.0).then_some(n * bare_unit_ms);
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
