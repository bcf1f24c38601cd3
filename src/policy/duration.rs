//! Durations in policy files: a number and a unit, or several such parts in
//! decreasing unit order (`1m30s`). Units: `ms`, `s`, `m`, `h`, `d`. No sign; a bare
//! number is an error (`100` is ms in one ecosystem, s in another).
//!
//! The result is in **milliseconds, as `f64`** ([`Millis`]): `1.5s` is `1500.0`,
//! `250ms` is `250.0`.

use std::fmt;

/// A duration in milliseconds.
pub type Millis = f64;

/// Why a duration text is not a duration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DurationError {
    /// Empty text.
    Empty,
    /// A number without a unit (`100`).
    MissingUnit,
    /// A leading `+` or `-`.
    Signed,
    /// A unit that is not `ms`, `s`, `m`, `h` or `d`.
    UnknownUnit(String),
    /// Units out of decreasing order or repeated (`30s1m`, `1s1s`).
    UnitOrder,
    /// Anything else (`1.2.3s`, `s`, `1 s`).
    Malformed,
    /// Longer than [`MAX_MILLIS`] (`100000000000000000000000h`): refused, never
    /// saturated or read as infinity.
    TooLong,
}

/// The longest duration a policy holds, in ms: 315,576,000,000 s (10,000 years,
/// `3652500d`), the range of a protobuf `Duration` and the widest duration type of
/// the platforms retrylint reads (Go's `time.Duration` ends at about 292 years), so
/// every value `retrylint import` writes reads back.
pub const MAX_MILLIS: Millis = 315_576_000_000_000.0;

impl fmt::Display for DurationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DurationError::Empty => write!(f, "an empty duration"),
            DurationError::MissingUnit => {
                write!(f, "a duration needs a unit (`ms`, `s`, `m`, `h` or `d`)")
            }
            DurationError::Signed => write!(f, "a duration takes no sign"),
            DurationError::UnknownUnit(u) => {
                write!(f, "unknown unit `{u}` (use `ms`, `s`, `m`, `h` or `d`)")
            }
            DurationError::UnitOrder => write!(
                f,
                "the parts of a compound duration must use decreasing units, each once"
            ),
            DurationError::Malformed => write!(f, "not a duration such as `250ms` or `1m30s`"),
            DurationError::TooLong => write!(
                f,
                "longer than 10,000 years (`3652500d`, the longest duration a policy holds)"
            ),
        }
    }
}

fn unit_ms(unit: &str) -> Option<(u8, f64)> {
    // (rank for ordering: larger unit = larger rank, milliseconds per unit)
    Some(match unit {
        "ms" => (0, 1.0),
        "s" => (1, 1_000.0),
        "m" => (2, 60_000.0),
        "h" => (3, 3_600_000.0),
        "d" => (4, 86_400_000.0),
        _ => return None,
    })
}

/// Parses a duration such as `250ms`, `1.5s`, `1m30s` or `0s` into milliseconds.
pub fn parse_duration(text: &str) -> Result<Millis, DurationError> {
    if text.is_empty() {
        return Err(DurationError::Empty);
    }
    if text.starts_with(['+', '-']) {
        return Err(DurationError::Signed);
    }
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut total = 0.0;
    let mut last_rank: Option<u8> = None;
    while i < bytes.len() {
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
            i += 1;
        }
        let number = &text[start..i];
        if number.is_empty() {
            return Err(DurationError::Malformed);
        }
        if number.starts_with('.') || number.ends_with('.') || number.matches('.').count() > 1 {
            return Err(DurationError::Malformed);
        }
        let value: f64 = number.parse().map_err(|_| DurationError::Malformed)?;
        let ustart = i;
        while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
            i += 1;
        }
        let unit = &text[ustart..i];
        if unit.is_empty() {
            return Err(if i == bytes.len() {
                DurationError::MissingUnit
            } else {
                DurationError::Malformed
            });
        }
        let Some((rank, per)) = unit_ms(unit) else {
            return Err(DurationError::UnknownUnit(unit.to_string()));
        };
        if last_rank.is_some_and(|r| rank >= r) {
            return Err(DurationError::UnitOrder);
        }
        last_rank = Some(rank);
        total += value * per;
    }
    // An overflowing part is infinite; anything past the bound is refused whole.
    if !total.is_finite() || total > MAX_MILLIS {
        return Err(DurationError::TooLong);
    }
    Ok(total)
}

/// Renders milliseconds back as a short duration (`1500` -> `1.5s`), for messages.
pub fn format_millis(ms: Millis) -> String {
    if ms >= 1000.0 {
        let s = format!("{:.3}", ms / 1000.0);
        let s = s.trim_end_matches('0').trim_end_matches('.');
        format!("{s}s")
    } else if ms.fract() == 0.0 {
        format!("{ms}ms")
    } else {
        // At most six decimals (1 ns), so a float's noise (`5 ns` read as
        // 0.0000049999999999999996) is not printed.
        let s = format!("{ms:.6}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        let s = if s == "0" { "0.000001" } else { s };
        format!("{s}ms")
    }
}
