//! One Traefik `retry` middleware (`http.middlewares.<name>.retry`) as v1 settings
//! (`retry-configs.md` §9.2, §1 facts 3, 7, 8, 10; Traefik
//! `pkg/middlewares/retry/retry.go` and `pkg/config/dynamic/middlewares.go`
//! `type Retry`, v3.7):
//!
//! - `attempts` counts every try, the first included (`attempts: 1` = no retry), so it
//!   is v1 `attempts` as written; 0, negative or absent: Traefik rejects the
//!   middleware ("incorrect (or empty) value for attempt") and every router using it.
//! - Network errors are retried only while nothing was written to the backend (a
//!   failed dial, or a reused connection that fails before the request headers are
//!   written): `connect-failure` and `reset-before-request`, never processed, any
//!   method; `disableRetryOnNetworkError: true` turns them off (it requires
//!   `status`).
//! - `status` (v3.7) ranges (`"500-599"`, `"502"`) are retried after the response,
//!   but only for methods other than POST, PATCH and LOCK unless
//!   `retryNonIdempotentMethod: true`: the v1 `methods` filter.
//! - `initialInterval` (a Go duration, or bare seconds): cenkalti exponential backoff
//!   with multiplier 2^(1/(attempts-1)), so the last wait stays below 2 x
//!   `initialInterval`, and randomization factor 0.5 (v1 `jitter: {proportional:
//!   0.5}`); absent or 0: immediate retries (no backoff).
//! - `timeout` (v3.7): how long the middleware keeps retrying, from the first try
//!   (v1 `deadline`). No per-try timeout; Retry-After is never read.

use super::{get_ci, is_true};
use crate::diagnostic::Diagnostic;
use crate::import::duration::bare_or_unit;
use crate::import::rl017_ineffective_setting;
use crate::import::OriginNote;
use crate::policy::duration::{format_millis, Millis};
use crate::policy::model::{BackoffSettings, Jitter, JitterFactor, Settings, Signal, Spanned};
use crate::source::loader::Loaded;
use crate::source::refs::At;
use crate::source::strict::suggest;
use crate::source::tree::{Kind, NodeId, Tree};
use std::sync::Arc;

/// The keys of Traefik's `Retry` (v3.7), as the docs spell them (Traefik matches
/// keys case-insensitively).
pub const KNOWN_KEYS: &[&str] = &[
    "attempts",
    "initialInterval",
    "timeout",
    "status",
    "disableRetryOnNetworkError",
    "retryNonIdempotentMethod",
    "maxRequestBodyBytes",
];

/// The methods Traefik retries on a status without `retryNonIdempotentMethod`
/// (`isIdempotent := method != POST && != PATCH && != "LOCK"`), in the v1 method
/// vocabulary.
pub const STATUS_METHODS: &[&str] = &["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"];

/// cenkalti/backoff v4 `DefaultMaxInterval`: 60 s.
const CENKALTI_MAX_INTERVAL_MS: Millis = 60_000.0;

/// A retry middleware as read.
#[derive(Debug, Clone)]
pub struct RetryMiddleware {
    /// The middleware name (`http.middlewares.<name>`).
    pub name: String,
    /// The `retry` table (where findings about the middleware point).
    pub block: NodeId,
    /// The settings every router using it gets (`None`: Traefik rejects the
    /// middleware, so a router using it is not served).
    pub settings: Option<Settings>,
    /// Notes on the values Traefik fixes itself.
    pub notes: Vec<OriginNote>,
}

/// Reads the `retry` table `block` of middleware `name`; findings (RL017) go to
/// `diags`.
pub fn read(
    doc: &Arc<Loaded>,
    tree: &Tree,
    name: &str,
    block: NodeId,
    diags: &mut Vec<Diagnostic>,
) -> RetryMiddleware {
    let at = |n: NodeId| At::new(doc, n);
    let block_at = at(block);
    let mut out = RetryMiddleware {
        name: name.to_string(),
        block,
        settings: None,
        notes: Vec::new(),
    };
    if tree.kind(block) != Kind::Map {
        diags.push(rl017_ineffective_setting::diagnostic(
            &block_at,
            format!("Traefik `retry` middleware `{name}` is not a table"),
            "not a table",
            "Write the retry options as a table: `[http.middlewares.NAME.retry]` with `attempts = 3`.".to_string(),
        ));
        return out;
    }
    diags.extend(unknown_keys(doc, tree, block, name));
    let mut valid = true;

    // attempts: total tries.
    let attempts = get_ci(tree, block, "attempts").map(|(_, v)| v);
    let attempts_value = attempts.and_then(|v| int_value(tree, v));
    let attempts_value = match (attempts, attempts_value) {
        (Some(_), Some(n)) if n >= 1 => Some(n),
        (node, _) => {
            let node_at = node.map_or(block_at.clone(), at);
            // A whole number outside 1 ..= Traefik's `Attempts int` (a Go int, 64
            // bits): zero, negative ("incorrect (or empty) value for attempt
            // (-3)"), or too large however many digits, is out of range, not
            // malformed.
            let text = node.and_then(|n| tree.scalar(n)).unwrap_or("");
            let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
            let over = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
            diags.push(rl017_ineffective_setting::diagnostic(
                &node_at,
                if over {
                    format!("`attempts: {text}` of retry middleware `{name}` is out of range: 1 to {} (Traefik's `Attempts int`)", i64::MAX)
                } else {
                    format!("retry middleware `{name}` is rejected by Traefik: `attempts` must be an integer of at least 1")
                },
                if over { "out of range" } else { "invalid attempts" },
                "Traefik reports \"incorrect (or empty) value for attempt\" and serves no router that uses this middleware. Set `attempts` to the total number of tries, the first included (`attempts = 3` is 2 retries).".to_string(),
            ));
            valid = false;
            None
        }
    };

    // status ranges (v3.7).
    let mut status_entries: Vec<Spanned<Signal>> = Vec::new();
    let status = get_ci(tree, block, "status").map(|(_, v)| v);
    if let Some(list) = status {
        let items: Vec<NodeId> = if tree.kind(list) == Kind::Seq {
            tree.items(list).to_vec()
        } else {
            vec![list]
        };
        for item in items {
            match tree.scalar(item).and_then(parse_range) {
                Some((lo, hi)) => {
                    let entries = range_entries(lo, hi);
                    if entries.is_empty() {
                        diags.push(rl017_ineffective_setting::diagnostic(
                            &at(item),
                            format!("status range `{}` of retry middleware `{name}` matches no HTTP status", tree.scalar(item).unwrap_or("")),
                            "matches nothing",
                            "Write a range from low to high within 100-599, e.g. `\"500-599\"`.".to_string(),
                        ));
                    }
                    status_entries.extend(entries.into_iter().map(|s| Spanned {
                        value: s,
                        at: at(item),
                    }));
                }
                None => {
                    diags.push(rl017_ineffective_setting::diagnostic(
                        &at(item),
                        format!("retry middleware `{name}` is rejected by Traefik: a `status` entry is not a code or a range"),
                        "invalid status",
                        "Write status codes as `\"503\"` or ranges as `\"500-599\"`; Traefik serves no router that uses a middleware it cannot build.".to_string(),
                    ));
                    valid = false;
                }
            }
        }
    }
    let has_status = status.is_some();

    let disable_network =
        get_ci(tree, block, "disableRetryOnNetworkError").is_some_and(|(_, v)| is_true(tree, v));
    if disable_network && !has_status {
        diags.push(rl017_ineffective_setting::diagnostic(
            &at(get_ci(tree, block, "disableRetryOnNetworkError").map_or(block, |(_, v)| v)),
            format!("retry middleware `{name}` is rejected by Traefik: `disableRetryOnNetworkError` without `status` leaves nothing to retry"),
            "nothing to retry",
            "Traefik reports \"retry middleware requires at least HTTP status codes or retry on TCP\": add `status`, or remove the middleware.".to_string(),
        ));
        valid = false;
    }
    let non_idempotent = get_ci(tree, block, "retryNonIdempotentMethod");
    for key in ["retryNonIdempotentMethod", "maxRequestBodyBytes"] {
        if let (Some((k, _)), false) = (get_ci(tree, block, key), has_status) {
            diags.push(rl017_ineffective_setting::diagnostic(
                &at(k),
                format!("`{key}` of retry middleware `{name}` has no effect without `status`"),
                "no effect",
                format!("Traefik applies `{key}` to status retries only; network-error retries happen before anything is sent, for every method and body."),
            ));
        }
    }
    if !valid {
        return out;
    }
    let Some(attempts_value) = attempts_value else {
        return out;
    };
    let attempts_node = attempts.unwrap_or(block);

    let mut s = Settings::empty(block_at.clone());
    s.attempts = Some(Spanned {
        value: attempts_value,
        at: at(attempts_node),
    });
    if attempts_value == 1 {
        s.retry = Some(Spanned {
            value: false,
            at: at(attempts_node),
        });
        out.settings = Some(s);
        return out;
    }
    s.retry = Some(Spanned {
        value: true,
        at: block_at.clone(),
    });

    let mut signals = Vec::new();
    if !disable_network {
        for sig in [Signal::ConnectFailure, Signal::ResetBeforeRequest] {
            signals.push(Spanned {
                value: sig,
                at: block_at.clone(),
            });
        }
        out.notes.push(OriginNote {
            at: block_at.clone(),
            text: crate::import::note_text("Traefik retries a network error only while nothing was written to the backend (a failed connection, or a reused one that fails before the request headers are written): connect-failure and reset-before-request, never processed, any method (retry-configs.md §9.2, §1 fact 7; Traefik pkg/middlewares/retry/retry.go)"),
        });
    }
    signals.extend(status_entries);
    s.retry_on = Some(Spanned {
        value: signals,
        at: block_at.clone(),
    });
    if has_status && !non_idempotent.is_some_and(|(_, v)| is_true(tree, v)) {
        s.methods = Some(Spanned {
            value: STATUS_METHODS
                .iter()
                .map(|m| Spanned {
                    value: m.to_string(),
                    at: block_at.clone(),
                })
                .collect(),
            at: block_at.clone(),
        });
        out.notes.push(OriginNote {
            at: block_at.clone(),
            text: crate::import::note_text("no `retryNonIdempotentMethod`: Traefik (3.7+) retries a status only for methods other than POST, PATCH and LOCK; network errors before sending are retried for every method (retry-configs.md §9.2)"),
        });
    }

    // initialInterval: exponential backoff with proportional jitter 0.5.
    if let Some((_, iv)) = get_ci(tree, block, "initialInterval") {
        match duration_value(tree, iv) {
            Some(base) if base > 0.0 => {
                let n = attempts_value as f64;
                let multiplier = 2f64.powf(1.0 / (n - 1.0));
                let cap = base.max((2.0 * base).min(CENKALTI_MAX_INTERVAL_MS));
                let iv_at = at(iv);
                s.backoff = Some(BackoffSettings {
                    at: iv_at.clone(),
                    base: Some(Spanned {
                        value: base,
                        at: iv_at.clone(),
                    }),
                    cap: Some(Spanned {
                        value: cap,
                        at: iv_at.clone(),
                    }),
                    multiplier: Some(Spanned {
                        value: (multiplier * 1e4).round() / 1e4,
                        at: iv_at.clone(),
                    }),
                    jitter: JitterFactor::new(0.5).map(|f| Spanned {
                        value: Jitter::Proportional(f),
                        at: iv_at.clone(),
                    }),
                });
                out.notes.push(OriginNote {
                    at: iv_at,
                    text: crate::import::note_text(format!(
                        "Traefik backs off exponentially (cenkalti/backoff): multiplier 2^(1/(attempts-1)) = {:.4}, so waits stay below 2 x initialInterval (cap {}), each randomized by ±50% (retry-configs.md §9.2, §1 fact 8)",
                        multiplier,
                        format_millis(cap)
                    )),
                });
            }
            Some(_) => {}
            // Negative: Traefik reads it (a Go `time.Duration` is signed) and backs
            // off only `if initialInterval > 0`, so it retries at once, as with 0.
            None if negative(tree, iv) => {
                diags.push(negative_duration(
                    &at(iv),
                    tree,
                    iv,
                    name,
                    "initialInterval",
                    "retries at once, as with 0 (no back-off)",
                ));
            }
            // Read as no back-off (not the default), and not blamed again for a missing
            // one or its jitter (RL305).
            None => {
                diags.push(invalid_duration(&at(iv), tree, iv, name, "initialInterval"));
                s.refuse("backoff", at(iv));
            }
        }
    }

    // timeout: how long the middleware keeps retrying.
    if let Some((_, t)) = get_ci(tree, block, "timeout") {
        match duration_value(tree, t) {
            Some(ms) if ms > 0.0 => {
                s.deadline = Some(Spanned {
                    value: ms,
                    at: at(t),
                });
            }
            Some(_) => {}
            // Negative: Traefik reads it and stops retrying only `if timeout > 0`,
            // so there is no time limit, as with 0.
            None if negative(tree, t) => {
                diags.push(negative_duration(
                    &at(t),
                    tree,
                    t,
                    name,
                    "timeout",
                    "keeps retrying with no time limit, as with 0",
                ));
            }
            // Read as no deadline, and not blamed again as a missing one (RL301).
            None => {
                diags.push(invalid_duration(&at(t), tree, t, name, "timeout"));
                s.refuse("deadline", at(t));
            }
        }
    }
    out.settings = Some(s);
    out
}

/// RL017 at a duration Traefik refuses: "out of range" for one longer than a Go
/// `time.Duration` (an int64 of nanoseconds), else not a duration.
fn invalid_duration(at: &At, tree: &Tree, node: NodeId, name: &str, key: &str) -> Diagnostic {
    let over = duration_unbounded(tree, node).is_some();
    rl017_ineffective_setting::diagnostic(
        at,
        if over {
            format!(
                "`{key}: {}` of retry middleware `{name}` is out of range: at most {} (Go's `time.Duration`, an int64 of nanoseconds)",
                tree.scalar(node).unwrap_or(""),
                crate::import::duration::GO_MAX_TEXT
            )
        } else {
            format!("`{key}` of retry middleware `{name}` is not a duration")
        },
        if over { "out of range" } else { "not a duration" },
        "Write a Go duration (`500ms`, `1s`) or a number of seconds; Traefik cannot read this value and rejects the configuration.".to_string(),
    )
}

/// Whether `node` is a negative duration as Traefik reads it (`ptypes.Duration`: a
/// number of seconds, or a Go duration, either with a sign): Traefik takes it, and
/// its retry middleware treats it as 0.
fn negative(tree: &Tree, node: NodeId) -> bool {
    let Some(text) = tree.scalar(node) else {
        return false;
    };
    let Some(magnitude) = text.trim().strip_prefix('-') else {
        return false;
    };
    matches!(tree.kind(node), Kind::Int | Kind::Float | Kind::Str)
        && bare_or_unit(magnitude, 1000.0).is_some_and(|ms| ms > 0.0)
}

/// RL017 at a negative duration: Traefik accepts it, and its retry middleware
/// acts as if it were 0 (`effect`), so the value has no effect. Not "out of
/// range": a Go `time.Duration` is signed and Traefik refuses no negative one.
fn negative_duration(
    at: &At,
    tree: &Tree,
    node: NodeId,
    name: &str,
    key: &str,
    effect: &str,
) -> Diagnostic {
    rl017_ineffective_setting::diagnostic(
        at,
        format!(
            "`{key}: {}` of retry middleware `{name}` is negative: Traefik {effect}",
            tree.scalar(node).unwrap_or("").trim()
        ),
        "negative",
        format!("Traefik accepts a negative duration and the retry middleware acts on `{key}` only when it is above 0; write a positive duration (`500ms`, `1s`), or remove `{key}`."),
    )
}

/// RL017 for every key of the retry table Traefik does not define (matched
/// case-insensitively, as Traefik's file provider does).
fn unknown_keys(doc: &Arc<Loaded>, tree: &Tree, block: NodeId, name: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for &(k, _) in tree.raw_entries(block) {
        let Some(key) = tree.scalar(k) else { continue };
        if KNOWN_KEYS
            .iter()
            .any(|known| known.eq_ignore_ascii_case(key))
        {
            continue;
        }
        let help = match suggest(key, KNOWN_KEYS) {
            Some(s) => format!("did you mean `{s}`? Traefik's file provider does not know `{key}` here: it reports \"field not found, node: {key}\" and does not load this file's dynamic configuration."),
            None => format!("Traefik's file provider does not know `{key}` here: it reports \"field not found\" and does not load this file's dynamic configuration. Known keys: {}.", KNOWN_KEYS.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")),
        };
        out.push(rl017_ineffective_setting::diagnostic(
            &At::new(doc, k),
            format!("unknown key `{key}` in Traefik retry middleware `{name}`"),
            "unknown key",
            help,
        ));
    }
    out
}

/// An integer value (an integer scalar, or a string holding one).
fn int_value(tree: &Tree, node: NodeId) -> Option<i64> {
    tree.as_i64(node)
        .or_else(|| tree.as_str(node).and_then(|s| s.trim().parse().ok()))
}

/// A Traefik duration in ms: a number is seconds, a string a Go duration or a
/// number of seconds (`ptypes.Duration`).
fn duration_value(tree: &Tree, node: NodeId) -> Option<Millis> {
    // Traefik parses durations in Go: a longer one is rejected, never read as huge.
    duration_unbounded(tree, node).filter(|ms| crate::import::duration::fits_go(*ms))
}

/// [`duration_value`] without Go's bound: `Some` for any duration Traefik's syntax
/// reads, however long, so an out-of-range one is told apart from a malformed one.
fn duration_unbounded(tree: &Tree, node: NodeId) -> Option<Millis> {
    match tree.kind(node) {
        Kind::Int | Kind::Float => tree
            .as_f64(node)
            .filter(|v| v.is_finite() && *v >= 0.0)
            .map(|v| v * 1000.0),
        Kind::Str => bare_or_unit(tree.scalar(node)?, 1000.0),
        _ => None,
    }
}

/// A `status` entry: `"503"` or `"500-599"` (Traefik `types.NewHTTPCodeRanges`:
/// split on `-`, the first two parts are low and high).
fn parse_range(text: &str) -> Option<(i64, i64)> {
    let mut parts = text.split('-');
    let lo: i64 = parts.next()?.trim().parse().ok()?;
    let hi: i64 = match parts.next() {
        Some(h) => h.trim().parse().ok()?,
        None => lo,
    };
    Some((lo, hi))
}

/// The `retry_on` entries of the status range lo..=hi: whole classes as `5xx`,
/// other codes one by one (only codes within 100..=599 exist).
fn range_entries(lo: i64, hi: i64) -> Vec<Signal> {
    let lo = lo.max(100);
    let hi = hi.min(599);
    let mut out = Vec::new();
    let mut code = lo;
    while code <= hi {
        if code % 100 == 0 && code + 99 <= hi {
            // A whole class: every code of it.
            out.push(Signal::Class((code / 100) as u8));
            code += 100;
        } else {
            out.push(Signal::Status(code as u16));
            code += 1;
        }
    }
    out
}
