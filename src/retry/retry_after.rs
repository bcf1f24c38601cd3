//! The one Retry-After parser of the tool (RFC 9110 §10.2.3).
//!
//! `Retry-After = HTTP-date / delay-seconds`, `delay-seconds = 1*DIGIT`;
//! surrounding whitespace is ignored. HTTP-date (RFC 9110 §5.6.7) is the
//! IMF-fixdate or one of the two obsolete forms, RFC 850 and asctime.
//!
//! IMF-fixdate and asctime are parsed by the `httpdate` crate. Its RFC 850 parser
//! maps a two-digit year below 70 to 20xx and the rest to 19xx, which is not
//! RFC 9110 §5.6.7 ("a timestamp that appears to be more than 50 years in the
//! future" is "the most recent year in the past that had the same last two
//! digits"): `70` read in 2025 must be 2070, not 1970. So the RFC 850 form is
//! parsed here, its year resolved against the given clock, and the result
//! re-checked by `httpdate` as an IMF-fixdate (ranges and the day name).
//!
//! A leap second (`23:59:60`, which the HTTP-date grammar allows: RFC 9110 §5.6.7
//! gives `time-of-day` the range `00:00:00 - 23:59:60`) is rejected by
//! `httpdate`; it is read here as
//! `23:59:59` plus one second, i.e. the first instant of the next day (Unix time
//! has no leap seconds). Second `60` at any other time of day is invalid.
//!
//! Known limitation inherited from `httpdate`: dates before 1970 or after 9999
//! are rejected as invalid, and the day name must match the date.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

/// A parsed Retry-After value (RFC 9110 §10.2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryAfter {
    /// `delay-seconds`: seconds to wait. Digit strings beyond `u64::MAX`
    /// saturate to `u64::MAX` (still a valid value; it exceeds any deadline).
    DelaySeconds(u64),
    /// An HTTP-date, as milliseconds since the Unix epoch (UTC).
    HttpDate(i64),
}

/// Why a Retry-After value is invalid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryAfterError {
    /// The value is empty (or only whitespace).
    Empty,
    /// The value is neither `1*DIGIT` nor an HTTP-date (e.g. `-5`, `1.5`, `1m0s`,
    /// `2015-10-21T07:28:00Z`).
    Malformed,
}

impl fmt::Display for RetryAfterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RetryAfterError::Empty => f.write_str("Retry-After value is empty"),
            RetryAfterError::Malformed => f.write_str(
                "Retry-After value is neither delay-seconds (digits) nor an HTTP-date (RFC 9110 section 10.2.3)",
            ),
        }
    }
}

impl std::error::Error for RetryAfterError {}

impl RetryAfter {
    /// The wait this value asks for, in ms, relative to `now_epoch_ms`
    /// (milliseconds since the Unix epoch; the one clock of the tool).
    ///
    /// Delay-seconds give `seconds * 1000` (always finite, even when saturated);
    /// an HTTP-date gives `date - now`, and a date in the past means 0
    /// (domain.md Retry-After table). A non-finite `now_epoch_ms` with an
    /// HTTP-date gives NaN, which the decision functions treat as invalid.
    pub fn delay_ms(&self, now_epoch_ms: f64) -> f64 {
        match *self {
            RetryAfter::DelaySeconds(s) => s as f64 * 1000.0,
            RetryAfter::HttpDate(at) => {
                if !now_epoch_ms.is_finite() {
                    return f64::NAN;
                }
                let d = at as f64 - now_epoch_ms;
                if d > 0.0 {
                    d
                } else {
                    0.0
                }
            }
        }
    }
}

/// Parses a raw Retry-After header value, resolving an RFC 850 two-digit year
/// against the system clock. Prefer [`parse_retry_after_at`] wherever a "now" is
/// already known (the decision functions, tests): the result is then
/// reproducible. The clock only matters for the RFC 850 form.
pub fn parse_retry_after(value: &str) -> Result<RetryAfter, RetryAfterError> {
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as f64)
        .unwrap_or(0.0);
    parse_retry_after_at(value, now_ms)
}

/// Parses a raw Retry-After header value (RFC 9110 §10.2.3).
///
/// Accepts, after trimming surrounding ASCII whitespace: `1*DIGIT` delay-seconds
/// (any length; saturating), IMF-fixdate (`Wed, 21 Oct 2015 07:28:00 GMT`), the
/// obsolete RFC 850 form (`Wednesday, 21-Oct-15 07:28:00 GMT`) whose two-digit
/// year is resolved per RFC 9110 §5.6.7 against the year of `now_epoch_ms`
/// (a year more than 50 years in the future belongs to the previous century;
/// compared by calendar year), and the asctime form (`Wed Oct 21 07:28:00 2015`),
/// each also with a leap second `23:59:60` (read as the next day's `00:00:00`).
/// Everything else is invalid: `-5`, `1.5`, `1m0s`, `2015-10-21T07:28:00Z`, empty.
/// Never panics.
pub fn parse_retry_after_at(value: &str, now_epoch_ms: f64) -> Result<RetryAfter, RetryAfterError> {
    let v = value.trim_matches(|c: char| c.is_ascii_whitespace());
    if v.is_empty() {
        return Err(RetryAfterError::Empty);
    }
    if v.bytes().all(|b| b.is_ascii_digit()) {
        let secs = v.bytes().fold(0u64, |acc, b| {
            acc.saturating_mul(10).saturating_add(u64::from(b - b'0'))
        });
        return Ok(RetryAfter::DelaySeconds(secs));
    }
    let (text, leap_ms) = match without_leap_second(v) {
        Some(t) => (t, 1000),
        None => (v.to_string(), 0),
    };
    let time = if let Some(imf) = rfc850_to_imf(&text, now_epoch_ms) {
        httpdate::parse_http_date(&imf)
    } else {
        httpdate::parse_http_date(&text)
    }
    .map_err(|_| RetryAfterError::Malformed)?;
    let ms = time
        .duration_since(UNIX_EPOCH)
        .map_err(|_| RetryAfterError::Malformed)?
        .as_millis();
    let ms = i64::try_from(ms).map_err(|_| RetryAfterError::Malformed)?;
    Ok(RetryAfter::HttpDate(ms + leap_ms))
}

/// The date text with a leap second `23:59:60` written as `23:59:59` (the caller
/// adds the second back), or `None` when the text holds no leap second. The time
/// of day is the one `HH:MM:SS` token of all three HTTP-date forms, delimited by
/// spaces.
fn without_leap_second(v: &str) -> Option<String> {
    let at = v.find(" 23:59:60")?;
    let end = at + " 23:59:60".len();
    // The token must end there (a space follows in all three forms).
    if v.as_bytes().get(end) != Some(&b' ') {
        return None;
    }
    Some(format!("{} 23:59:59{}", &v[..at], &v[end..]))
}

/// Converts a raw Retry-After header value (e.g. from `--retry-after VALUE`) into
/// the `retry_after_ms` input of the reference decision function
/// ([`DecisionInput`](super::DecisionInput)), in ms.
///
/// A valid value gives [`RetryAfter::delay_ms`] relative to `now_epoch_ms`
/// (epoch ms, the one clock; a past date gives 0); an invalid value gives NaN,
/// so that the decision stops with `invalid-retry-after` at its step 6 (after
/// the earlier checks, in the documented order). A huge delay-seconds value
/// stays finite and leads to `deadline-exhausted`, never an overflow.
pub fn retry_after_input_ms(value: &str, now_epoch_ms: f64) -> f64 {
    match parse_retry_after_at(value, now_epoch_ms) {
        Ok(ra) => ra.delay_ms(now_epoch_ms),
        Err(_) => f64::NAN,
    }
}

/// Whether a documented Retry-After example is one of the value forms of
/// domain.md's table (delay-seconds or an HTTP-date), for RL503
/// invalid-retry-after-schema. `-5`, `1m0s`, `1.5`, `2015-10-21T07:28:00Z` and
/// the empty string are not.
pub fn is_valid_retry_after_example(value: &str) -> bool {
    parse_retry_after(value).is_ok()
}

const LONG_DAYS: [(&str, &str); 7] = [
    ("Monday", "Mon"),
    ("Tuesday", "Tue"),
    ("Wednesday", "Wed"),
    ("Thursday", "Thu"),
    ("Friday", "Fri"),
    ("Saturday", "Sat"),
    ("Sunday", "Sun"),
];

/// Rewrites an RFC 850 date (`Sunday, 06-Nov-94 08:49:37 GMT`) as an IMF-fixdate
/// with the two-digit year resolved per RFC 9110 §5.6.7. `None` when the text is
/// not in the RFC 850 shape (then it is left to `httpdate` as-is).
fn rfc850_to_imf(v: &str, now_epoch_ms: f64) -> Option<String> {
    let (day_name, rest) = v.split_once(", ")?;
    let short = LONG_DAYS.iter().find(|(l, _)| *l == day_name)?.1;
    // rest: "06-Nov-94 08:49:37 GMT"
    let b = rest.as_bytes();
    if !rest.is_ascii()
        || b.len() != 22
        || b[2] != b'-'
        || b[6] != b'-'
        || b[9] != b' '
        || &b[18..] != b" GMT"
    {
        return None;
    }
    if !(b[7].is_ascii_digit() && b[8].is_ascii_digit()) {
        return None;
    }
    let yy = i64::from(b[7] - b'0') * 10 + i64::from(b[8] - b'0');
    let year = resolve_two_digit_year(yy, year_of_epoch_ms(now_epoch_ms));
    let dd = &rest[0..2];
    let mon = &rest[3..6];
    let time = &rest[10..18];
    Some(format!("{short}, {dd} {mon} {year:04} {time} GMT"))
}

/// The largest year ending in `yy` that is not more than 50 years after
/// `now_year` (RFC 9110 §5.6.7).
fn resolve_two_digit_year(yy: i64, now_year: i64) -> i64 {
    let limit = now_year + 50;
    limit - (limit - yy).rem_euclid(100)
}

/// The proleptic Gregorian year (UTC) of an epoch-ms instant; 1970 for a
/// non-finite input.
fn year_of_epoch_ms(ms: f64) -> i64 {
    if !ms.is_finite() {
        return 1970;
    }
    // Clamped to about ±2.7 million years so the arithmetic below cannot overflow on
    // an absurd "now" (found by the retry_after fuzz target).
    let days = ((ms / 86_400_000.0).floor() as i64).clamp(-1_000_000_000, 1_000_000_000);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    yoe + era * 400 + i64::from(m <= 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2025-06-01T00:00:00Z
    const NOW_2025: f64 = 1_748_736_000_000.0;
    /// 2015-10-21T07:28:00Z
    const OCT_21_2015: i64 = 1_445_412_480_000;

    #[test]
    fn rfc850_date_with_an_absurd_now_does_not_overflow() {
        // Regression: fuzz crash `crash-9e6d0b91…` (an RFC 850 date parsed at a "now"
        // near f64::MAX overflowed the year arithmetic).
        for now in [f64::MAX, -f64::MAX, 1e300, -1e300] {
            let _ = parse_retry_after_at("Sunday, 06-Nov-94 08:49:35 GMT", now);
        }
        assert_eq!(year_of_epoch_ms(f64::MAX), year_of_epoch_ms(1e300));
    }

    #[test]
    fn calendar_year() {
        assert_eq!(year_of_epoch_ms(0.0), 1970);
        assert_eq!(year_of_epoch_ms(NOW_2025), 2025);
        assert_eq!(year_of_epoch_ms(OCT_21_2015 as f64), 2015);
        assert_eq!(year_of_epoch_ms(-1.0), 1969);
    }

    #[test]
    fn two_digit_year_window() {
        assert_eq!(resolve_two_digit_year(15, 2025), 2015);
        assert_eq!(resolve_two_digit_year(70, 2025), 2070); // httpdate says 1970
        assert_eq!(resolve_two_digit_year(75, 2025), 2075); // exactly 50 years
        assert_eq!(resolve_two_digit_year(76, 2025), 1976); // more than 50 years
        assert_eq!(resolve_two_digit_year(0, 2099), 2100);
    }

    #[test]
    fn domain_table() {
        let p = |v: &str| parse_retry_after_at(v, NOW_2025);
        assert_eq!(p("120"), Ok(RetryAfter::DelaySeconds(120)));
        assert_eq!(p("0"), Ok(RetryAfter::DelaySeconds(0)));
        assert_eq!(p(" 30 "), Ok(RetryAfter::DelaySeconds(30)));
        assert_eq!(p("9999999999"), Ok(RetryAfter::DelaySeconds(9_999_999_999)));
        assert_eq!(
            p("Wed, 21 Oct 2015 07:28:00 GMT"),
            Ok(RetryAfter::HttpDate(OCT_21_2015))
        );
        assert_eq!(
            p("Wednesday, 21-Oct-15 07:28:00 GMT"),
            Ok(RetryAfter::HttpDate(OCT_21_2015))
        );
        assert_eq!(
            p("Wed Oct 21 07:28:00 2015"),
            Ok(RetryAfter::HttpDate(OCT_21_2015))
        );
        for bad in ["-5", "1.5", "1m0s", "2015-10-21T07:28:00Z"] {
            assert_eq!(p(bad), Err(RetryAfterError::Malformed), "{bad}");
        }
        assert_eq!(p(""), Err(RetryAfterError::Empty));
        assert_eq!(p("   "), Err(RetryAfterError::Empty));
    }

    #[test]
    fn rfc850_year_follows_rfc9110_not_fixed_pivot() {
        // 2070-10-21 is a Tuesday; 45 years after 2025, so it stays in 2070.
        let r = parse_retry_after_at("Tuesday, 21-Oct-70 07:28:00 GMT", NOW_2025).unwrap();
        let RetryAfter::HttpDate(ms) = r else {
            panic!("not a date: {r:?}")
        };
        assert_eq!(year_of_epoch_ms(ms as f64), 2070);
        // httpdate alone reads it as 1970 (and rejects it: wrong day name).
        assert!(httpdate::parse_http_date("Tuesday, 21-Oct-70 07:28:00 GMT").is_err());
        // Wrong day name for the resolved year is rejected.
        assert!(parse_retry_after_at("Monday, 21-Oct-15 07:28:00 GMT", NOW_2025).is_err());
    }

    #[test]
    fn leap_second_is_the_next_day_start() {
        // 2016-12-31T23:59:60Z, the last leap second; Unix time reads it as
        // 2017-01-01T00:00:00Z.
        const NEW_YEAR_2017: i64 = 1_483_228_800_000;
        let p = |v: &str| parse_retry_after_at(v, NOW_2025);
        assert_eq!(
            p("Sat, 31 Dec 2016 23:59:60 GMT"),
            Ok(RetryAfter::HttpDate(NEW_YEAR_2017))
        );
        assert_eq!(
            p("Saturday, 31-Dec-16 23:59:60 GMT"),
            Ok(RetryAfter::HttpDate(NEW_YEAR_2017))
        );
        assert_eq!(
            p("Sat Dec 31 23:59:60 2016"),
            Ok(RetryAfter::HttpDate(NEW_YEAR_2017))
        );
        assert_eq!(
            p("Sat, 31 Dec 2016 23:59:59 GMT"),
            Ok(RetryAfter::HttpDate(NEW_YEAR_2017 - 1000))
        );
        // Second 60 is a leap second only at 23:59; elsewhere it is out of range.
        for bad in [
            "Sat, 31 Dec 2016 12:00:60 GMT",
            "Sat, 31 Dec 2016 23:59:61 GMT",
            "Sat, 31 Dec 2016 23:59:60GMT",
        ] {
            assert_eq!(p(bad), Err(RetryAfterError::Malformed), "{bad}");
        }
    }

    #[test]
    fn huge_digit_strings_saturate() {
        let long = "9".repeat(10_000);
        assert_eq!(
            parse_retry_after_at(&long, NOW_2025),
            Ok(RetryAfter::DelaySeconds(u64::MAX))
        );
        let d = RetryAfter::DelaySeconds(u64::MAX).delay_ms(NOW_2025);
        assert!(d.is_finite() && d > 1e22);
    }

    #[test]
    fn delay_relative_to_now() {
        assert_eq!(RetryAfter::DelaySeconds(120).delay_ms(NOW_2025), 120_000.0);
        // past date means 0
        assert_eq!(RetryAfter::HttpDate(OCT_21_2015).delay_ms(NOW_2025), 0.0);
        assert_eq!(
            RetryAfter::HttpDate(OCT_21_2015).delay_ms(OCT_21_2015 as f64 - 1500.0),
            1500.0
        );
        assert!(RetryAfter::HttpDate(OCT_21_2015)
            .delay_ms(f64::NAN)
            .is_nan());
    }

    #[test]
    fn decision_input_conversion() {
        assert_eq!(retry_after_input_ms(" 2 ", NOW_2025), 2000.0);
        assert_eq!(
            retry_after_input_ms("Wed, 21 Oct 2015 07:28:00 GMT", NOW_2025),
            0.0
        );
        assert!(retry_after_input_ms("1.5", NOW_2025).is_nan());
        assert!(retry_after_input_ms("", NOW_2025).is_nan());
    }

    #[test]
    fn example_validity() {
        assert!(is_valid_retry_after_example("120"));
        assert!(is_valid_retry_after_example(
            "Wed, 21 Oct 2015 07:28:00 GMT"
        ));
        assert!(!is_valid_retry_after_example("-5"));
        assert!(!is_valid_retry_after_example("2015-10-21T07:28:00Z"));
        assert!(!is_valid_retry_after_example(""));
    }
}
