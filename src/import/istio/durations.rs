//! Istio's rules for a duration field of a VirtualService (`timeout`,
//! `retries.perTryTimeout`, `retries.backoff`): Go duration syntax, within Go's range,
//! and what Istio's validation accepts: at least 1 ms and a whole number of
//! milliseconds (istio/istio `pkg/config/validation/agent/validation.go`,
//! `ValidateDuration`: "duration must be greater than 1ms", "only durations to ms
//! precision are supported"; called for `http.Timeout` and `retries.PerTryTimeout`).
//! Checked on whole nanoseconds ([`duration::parse_go_nanos`]), so `1.1s` is whole
//! milliseconds and `1.5ms` or `0.5ns` is not, whatever a float would round to.

use super::super::duration;
use crate::policy::duration::Millis;

/// Why Istio refuses a duration text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// Not a Go duration (`5`, `100ps`, `1.2.3s`).
    Syntax,
    /// Longer than a Go `time.Duration` ([`duration::GO_MAX_MS`]).
    TooLong,
    /// Under 1 ms but not written as zero (`0.5ns`, `100us`).
    UnderOneMs,
    /// Not a whole number of milliseconds (`1.5ms`).
    NotWholeMs,
    /// Negative (`-1s`): Go reads it, and `ValidateDuration` refuses it as under
    /// 1ms ("duration must be greater than 1ms").
    Negative,
}

/// The duration in ms as Istio reads it (0 for a zero duration, which each caller
/// judges for its field), or why Istio's validation refuses it.
pub fn read(text: &str) -> Result<Millis, Refused> {
    // Go's `time.ParseDuration` takes a sign: `-1s` is a duration, below 1ms
    // (`-0s` is zero).
    if let Some(magnitude) = text.trim().strip_prefix('-') {
        return match duration::parse_go_nanos(magnitude).ok_or(Refused::Syntax)? {
            0 if !magnitude.bytes().any(|b| (b'1'..=b'9').contains(&b)) => Ok(0.0),
            _ => Err(Refused::Negative),
        };
    }
    let ns = duration::parse_go_nanos(text).ok_or(Refused::Syntax)?;
    if ns > i64::MAX as u128 {
        return Err(Refused::TooLong);
    }
    match ns {
        // Written as zero (`0s`): the caller's meaning of zero. A fraction of a
        // nanosecond (`0.5ns`) is cut to zero by Go, and refused as under 1ms.
        0 if !text.bytes().any(|b| (b'1'..=b'9').contains(&b)) => Ok(0.0),
        0 => Err(Refused::UnderOneMs),
        1..=999_999 => Err(Refused::UnderOneMs),
        _ if ns % 1_000_000 != 0 => Err(Refused::NotWholeMs),
        // Whole milliseconds below 2^63 ns: exact in an f64 up to 2^53 ms.
        _ => Ok((ns / 1_000_000) as Millis),
    }
}

impl Refused {
    /// What is wrong, for the finding's message (after "`key: text` ...").
    pub fn what(self) -> String {
        match self {
            Refused::Syntax => "is not a duration".into(),
            // A Go `time.Duration` is an int64 of nanoseconds (about 292 years).
            Refused::TooLong => format!(
                "is out of range: at most {} (Go's `time.Duration`, an int64 of nanoseconds)",
                duration::GO_MAX_TEXT
            ),
            Refused::UnderOneMs => "is below 1ms, the shortest duration Istio accepts".into(),
            Refused::NotWholeMs => "is not a whole number of milliseconds".into(),
            Refused::Negative => "is out of range: at least 1ms (Istio's `ValidateDuration`: \"duration must be greater than 1ms\")".into(),
        }
    }

    /// The finding's short label.
    pub fn label(self) -> &'static str {
        match self {
            Refused::Syntax => "invalid duration",
            Refused::TooLong | Refused::Negative => "out of range",
            Refused::UnderOneMs | Refused::NotWholeMs => "below Istio's precision",
        }
    }

    /// Why Istio refuses it, for the finding's help.
    pub fn why(self) -> &'static str {
        match self {
            Refused::Syntax => "Istio's validation rejects this value (units h, m, s, ms, us, ns)",
            Refused::TooLong => "Istio rejects this value (Go's duration parser overflows)",
            Refused::UnderOneMs => {
                "Istio's validation rejects a duration under 1ms (ValidateDuration: \"duration must be greater than 1ms\")"
            }
            Refused::NotWholeMs => {
                "Istio's validation rejects a duration that is not whole milliseconds (ValidateDuration: \"only durations to ms precision are supported\")"
            }
            Refused::Negative => "Istio's validation rejects a negative duration",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn istio_accepts_whole_milliseconds_from_1ms() {
        assert_eq!(read("1ms"), Ok(1.0));
        assert_eq!(read("1.1s"), Ok(1100.0));
        assert_eq!(read("1000000ns"), Ok(1.0));
        assert_eq!(read("0s"), Ok(0.0));
        assert_eq!(read("2562047h"), Ok(2562047.0 * 3_600_000.0));
        assert_eq!(read("0.5ns"), Err(Refused::UnderOneMs));
        assert_eq!(read("999us"), Err(Refused::UnderOneMs));
        assert_eq!(read("1.5ms"), Err(Refused::NotWholeMs));
        assert_eq!(read("1000001ns"), Err(Refused::NotWholeMs));
        assert_eq!(read("100ps"), Err(Refused::Syntax));
        assert_eq!(read("-1s"), Err(Refused::Negative));
        assert_eq!(read("-0.5ns"), Err(Refused::Negative));
        assert_eq!(read("-0s"), Ok(0.0));
        assert_eq!(read("-x"), Err(Refused::Syntax));
        assert_eq!(read("--1s"), Err(Refused::Syntax));
        assert_eq!(read("2562048h"), Err(Refused::TooLong));
        assert_eq!(read("99999999999999999999999h"), Err(Refused::TooLong));
        assert_eq!(read(&format!("{}h", "9".repeat(60))), Err(Refused::TooLong));
    }
}
