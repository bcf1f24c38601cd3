//! The conditions of `proxy_next_upstream` (nginx and ingress-nginx alike) mapped onto
//! retrylint signals (`retry-configs.md` §8.1, §12; nginx `ngx_http_upstream_next`):
//!
//! | condition | signals |
//! |---|---|
//! | `error` | `connect-failure`, `reset` (an error while connecting, sending or reading the header) |
//! | `timeout` | `timeout` (connect, send, or reading the response header) |
//! | `invalid_header` | `reset` (Q16: an empty or invalid response after the request was sent: the outcome is unknown, as after a reset; HAProxy's `junk-response` maps the same way) |
//! | `http_500` ... `http_429` | that status |
//! | `non_idempotent` | no signal: lifts the methods filter |
//! | `off` | no retry at all |
//! | `denied` | no signal (NGINX Plus: the server denied the connection) |
//!
//! Without `non_idempotent`, nginx never passes POST, LOCK or PATCH on once it was
//! sent (`u->request_sent` adds `FT_NON_IDEMPOTENT`, nginx >= 1.9.13): that is the v1
//! `methods` filter [`SENT_METHODS`].

use super::super::rl017_ineffective_setting;
use crate::diagnostic::Diagnostic;
use crate::policy::model::{Signal, Spanned};
use crate::source::refs::At;
use crate::source::strict::suggest;

/// Every condition nginx accepts in `proxy_next_upstream`.
pub const KNOWN: &[&str] = &[
    "error",
    "timeout",
    "invalid_header",
    "http_500",
    "http_502",
    "http_503",
    "http_504",
    "http_403",
    "http_404",
    "http_429",
    "non_idempotent",
    "off",
    "denied",
];

/// The methods nginx passes to the next server after the request was sent, without
/// `non_idempotent`: every v1 method token but POST and PATCH (LOCK is no v1 token).
pub const SENT_METHODS: &[&str] = &["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"];

/// What a `proxy_next_upstream` value says.
#[derive(Debug, Clone, Default)]
pub struct Conditions {
    /// The signals, each at the token that names it (first occurrence kept).
    pub signals: Vec<Spanned<Signal>>,
    /// The `non_idempotent` token, when present.
    pub non_idempotent: Option<At>,
    /// The `off` token, when present.
    pub off: Option<At>,
    /// RL017 for tokens nginx does not know (nginx refuses to start with them).
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads the condition tokens, each with its node; `what` names the setting in
/// messages (`proxy_next_upstream`, the ingress-nginx annotation).
pub fn read(tokens: &[(String, At)], what: &str) -> Conditions {
    let mut out = Conditions::default();
    let push = |out: &mut Conditions, s: Signal, at: &At| {
        if !out.signals.iter().any(|x| x.value == s) {
            out.signals.push(Spanned {
                value: s,
                at: at.clone(),
            });
        }
    };
    for (text, at) in tokens {
        match text.as_str() {
            "error" => {
                push(&mut out, Signal::ConnectFailure, at);
                push(&mut out, Signal::Reset, at);
            }
            "timeout" => push(&mut out, Signal::Timeout, at),
            "invalid_header" => push(&mut out, Signal::Reset, at),
            "non_idempotent" => out.non_idempotent = Some(at.clone()),
            "off" => out.off = Some(at.clone()),
            "denied" => {}
            t => match t.strip_prefix("http_").and_then(|c| c.parse::<u16>().ok()) {
                Some(code @ (500 | 502 | 503 | 504 | 403 | 404 | 429)) => {
                    push(&mut out, Signal::Status(code), at)
                }
                _ => {
                    let help = match suggest(t, KNOWN) {
                        Some(s) => format!("did you mean `{s}`? nginx refuses an unknown condition (\"invalid value\"), so this configuration does not load as written."),
                        None => format!("nginx knows only {}.", KNOWN.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")),
                    };
                    out.diagnostics.push(rl017_ineffective_setting::diagnostic(
                        at,
                        format!("unknown condition `{t}` in {what}"),
                        "unknown condition",
                        help,
                    ));
                }
            },
        }
    }
    out
}

/// The methods filter at `at`: [`SENT_METHODS`], each item at `at`.
pub fn methods_filter(at: &At) -> Spanned<Vec<Spanned<String>>> {
    Spanned {
        value: SENT_METHODS
            .iter()
            .map(|m| Spanned {
                value: (*m).to_string(),
                at: at.clone(),
            })
            .collect(),
        at: at.clone(),
    }
}

/// The methods nginx passes on with `non_idempotent`: every method, the
/// non-idempotent ones ([`SENT_METHODS`] and POST, LOCK, PATCH, and QUERY) included,
/// each at `at` (what turned `non_idempotent` on, so a finding can name it).
pub fn all_methods(at: &At) -> Spanned<Vec<Spanned<String>>> {
    let mut all = methods_filter(at);
    for m in ["POST", "PATCH", "LOCK", "QUERY"] {
        all.value.push(Spanned {
            value: m.to_string(),
            at: at.clone(),
        });
    }
    all
}

/// The longest time nginx reads, in ms: `ngx_parse_time` refuses a total above
/// `NGX_MAX_INT_T_VALUE` (2^63 - 1 on 64-bit builds) with "invalid value".
pub const NGINX_MAX_TIME_MS: f64 = i64::MAX as f64;

/// An nginx time (`75s`, `1m30s`, `500ms`, `1h`, `2d`, `1w`; a bare number is
/// seconds) in ms; `None` when it is not one or is longer than
/// [`NGINX_MAX_TIME_MS`], which nginx refuses (never read as a huge time).
pub fn nginx_time(text: &str) -> Option<f64> {
    nginx_time_unbounded(text).filter(|ms| *ms <= NGINX_MAX_TIME_MS)
}

/// [`nginx_time`] without its bound: `Some` for any time nginx's syntax reads,
/// however long, so an out-of-range time is told apart from a malformed one.
pub fn nginx_time_unbounded(text: &str) -> Option<f64> {
    let s = text.trim();
    if s.is_empty() {
        return None;
    }
    if let Ok(n) = s.parse::<u64>() {
        return Some(n as f64 * 1000.0);
    }
    let bytes = s.as_bytes();
    let (mut i, mut total) = (0, 0.0);
    while i < bytes.len() {
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        let n: f64 = s[start..i].parse().ok()?;
        let u = i;
        while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
            i += 1;
        }
        let factor = match &s[u..i] {
            "ms" => 1.0,
            "s" => 1000.0,
            "m" => 60_000.0,
            "h" => 3_600_000.0,
            "d" => 86_400_000.0,
            "w" => 604_800_000.0,
            "M" => 2_592_000_000.0,
            "y" => 31_536_000_000.0,
            _ => return None,
        };
        total += n * factor;
        while i < bytes.len() && bytes[i] == b' ' {
            i += 1;
        }
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times() {
        assert_eq!(nginx_time("75s"), Some(75_000.0));
        assert_eq!(nginx_time("60"), Some(60_000.0));
        assert_eq!(nginx_time("1m30s"), Some(90_000.0));
        assert_eq!(nginx_time("500ms"), Some(500.0));
        assert_eq!(nginx_time("5x"), None);
        assert_eq!(nginx_time("s"), None);
    }
}
