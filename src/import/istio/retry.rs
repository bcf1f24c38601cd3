//! Istio `HTTPRetry` (a VirtualService route's `retries`, or the mesh-wide
//! `defaultHttpRetryPolicy`) read with origins, and mapped onto v1 [`Settings`]:
//! `attempts` counts retries (TOTAL tries = `attempts` + 1), `retries` present without
//! `attempts` means 0 (disabled), a written `retryOn` replaces the default list, an
//! absent one keeps it, `backoff` is Envoy's base interval (cap 10x base, multiplier 2,
//! full jitter), `perTryTimeout` is the attempt timeout (else `remaining`).
//! Sources: `retry-configs.md` §2.1, §2.2, §1 facts 2, 4, 6, 8; istio/api
//! `networking/v1alpha3/virtual_service.proto` (HTTPRetry); istio/istio
//! `pilot/pkg/networking/core/route/retry/retry.go` and
//! `pkg/config/validation/agent/validation.go` (`ValidateHTTPRetry`).

use super::super::envoy_retry_on;
use super::super::keys;
use super::super::rl017_ineffective_setting as rl017;
use super::super::rl314_version_dependent_default as rl314;
use super::super::{ImportContext, OriginNote};
use crate::diagnostic::Diagnostic;
use crate::policy::duration::{format_millis, Millis};
use crate::policy::model::{
    AttemptTimeout, BackoffSettings, Jitter, RetryOnEntry, Settings, Spanned,
};
use crate::source::loader::Loaded;
use crate::source::refs::At;
use crate::source::strict::suggest;
use crate::source::tree::{Kind, NodeId, Tree};
use std::sync::Arc;

/// The keys Istio defines in an `HTTPRetry` (istio/api `HTTPRetry`).
pub const RETRY_KEYS: &[&str] = &[
    "attempts",
    "perTryTimeout",
    "retryOn",
    "retryRemoteLocalities",
    "retryIgnorePreviousHosts",
    "backoff",
];

use crate::import::envoy_retry_on::TOKENS as RETRY_ON_TOKENS;

/// Envoy's default back-off base interval, ms (retry-configs.md §1 fact 8, §2.1
/// `retries.backoff`).
pub const DEFAULT_BACKOFF_BASE_MS: Millis = 25.0;

/// Retries of Istio's built-in default policy (TOTAL tries = 3; §2.2).
pub const DEFAULT_RETRIES: i64 = 2;

/// Where the values of a retry block are read from: a located YAML document, or a
/// YAML text embedded in a string (the `istio` ConfigMap's `mesh` key), whose values
/// all point at the string node that holds it.
#[derive(Clone, Copy)]
pub enum Src<'a> {
    /// A document of the run.
    Doc(&'a Arc<Loaded>),
    /// A tree parsed from a string value; origins go to `host`.
    Embedded {
        /// The tree parsed from the string.
        tree: &'a Tree,
        /// The string node in the real file.
        host: &'a At,
    },
}

impl<'a> Src<'a> {
    /// The tree to read.
    pub fn tree(&self) -> Option<&'a Tree> {
        match self {
            Src::Doc(doc) => doc.tree.as_ref().ok(),
            Src::Embedded { tree, .. } => Some(tree),
        }
    }

    /// The origin of `node`.
    pub fn at(&self, node: NodeId) -> At {
        match self {
            Src::Doc(doc) => At::new(doc, node),
            Src::Embedded { host, .. } => (*host).clone(),
        }
    }

    /// RL017 for the keys of `map` not in `known` ([`keys::unknown_keys`] for a
    /// document; the same finding at the host node for an embedded text).
    pub fn unknown_keys(&self, map: NodeId, known: &[&str], block: &str) -> Vec<Diagnostic> {
        match self {
            Src::Doc(doc) => keys::unknown_keys(doc, map, known, block),
            Src::Embedded { tree, host } => {
                if tree.kind(map) != Kind::Map {
                    return Vec::new();
                }
                tree.raw_entries(map)
                    .iter()
                    .filter_map(|&(k, _)| tree.scalar(k))
                    .filter(|name| !known.contains(name))
                    .map(|name| {
                        let help = match suggest(name, known) {
                            Some(s) => format!("did you mean `{s}`? The platform ignores `{name}` here, so the setting it was meant to make does not apply."),
                            None => format!("{block} has no `{name}`: the platform ignores it."),
                        };
                        rl017::diagnostic(
                            host,
                            format!("unknown key `{name}` in {block}"),
                            "unknown key",
                            help,
                        )
                    })
                    .collect()
            }
        }
    }
}

/// A value and where it was written.
#[derive(Debug, Clone)]
pub struct Field<T> {
    /// The value.
    pub value: T,
    /// Its node.
    pub at: At,
}

impl<T: Clone> Field<T> {
    fn spanned(&self) -> Spanned<T> {
        Spanned {
            value: self.value.clone(),
            at: self.at.clone(),
        }
    }
}

/// An `HTTPRetry` as written. Invalid values are reported (RL017) and read as absent.
#[derive(Debug, Clone)]
pub struct HttpRetry {
    /// The block (`retries`, `defaultHttpRetryPolicy`).
    pub at: At,
    /// `attempts`: retries after the first try (absent: 0).
    pub attempts: Option<Field<i64>>,
    /// `perTryTimeout`, ms.
    pub per_try_timeout: Option<Field<Millis>>,
    /// `retryOn` as written (comma list).
    pub retry_on: Option<Field<String>>,
    /// `backoff`, ms (Envoy's base interval).
    pub backoff: Option<Field<Millis>>,
    /// A written `perTryTimeout` Istio refuses (RL017 at it): read as no per-try
    /// timeout at all, not as the default "what is left of the route timeout".
    pub per_try_timeout_refused: Option<At>,
    /// A written `backoff` Istio refuses (RL017 at it): read as no back-off at all,
    /// not as Envoy's default 25ms base.
    pub backoff_refused: Option<At>,
    /// A written `attempts` Istio refuses (RL017 at it): read as no retry count at
    /// all, not as an absent `attempts` (0 retries, retries off).
    pub attempts_refused: Option<At>,
}

/// Reads the `HTTPRetry` mapping `node`; `block` names it in messages (`Istio
/// \`retries\``). RL017 for unknown keys, values Istio's validator rejects, and
/// `retryOn` tokens it does not know.
pub fn read(src: Src<'_>, node: NodeId, block: &str, diags: &mut Vec<Diagnostic>) -> HttpRetry {
    let mut out = HttpRetry {
        at: src.at(node),
        attempts: None,
        per_try_timeout: None,
        retry_on: None,
        backoff: None,
        per_try_timeout_refused: None,
        backoff_refused: None,
        attempts_refused: None,
    };
    let Some(tree) = src.tree() else { return out };
    if tree.kind(node) != Kind::Map {
        if tree.kind(node) != Kind::Null {
            diags.push(rl017::diagnostic(
                &out.at,
                format!("{block} is not a mapping"),
                "not a mapping",
                "write `attempts`, `perTryTimeout` and `retryOn` under it; Istio rejects this object as written.".into(),
            ));
        }
        return out;
    }
    diags.extend(src.unknown_keys(node, RETRY_KEYS, block));
    // An `attempts` Istio refuses rejects the whole object: that one finding says
    // so, and the keys that 0 retries would refuse are not blamed as well.
    let mut attempts_refused = false;
    if let Some(n) = tree.get(node, "attempts") {
        let at = src.at(n);
        let text = tree.scalar(n).unwrap_or("...");
        match tree.as_i64(n) {
            Some(v) if (0..=i64::from(i32::MAX)).contains(&v) => {
                out.attempts = Some(Field { value: v, at })
            }
            _ => {
                attempts_refused = true;
                out.attempts_refused = Some(at.clone());
                // A whole number too large for `attempts` (an int32) or negative
                // (ValidateHTTPRetry: "attempts cannot be negative") is a number,
                // just out of range; a quoted `"3"` is a string, not a number.
                let negative = text.starts_with('-');
                let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
                let (message, label) = if tree.kind(n) == Kind::Int
                    && !digits.is_empty()
                    && digits.bytes().all(|b| b.is_ascii_digit())
                {
                    (
                        if negative {
                            format!("`attempts: {text}` is out of range: at least 0 retries (Istio's validation: \"attempts cannot be negative\")")
                        } else {
                            format!(
                                "`attempts: {text}` is out of range: at most {} retries",
                                i32::MAX
                            )
                        },
                        "out of range",
                    )
                } else {
                    (
                        format!("`attempts: {text}` is not a number of retries"),
                        "not a retry count",
                    )
                };
                diags.push(rl017::diagnostic(
                    &at,
                    message,
                    label,
                    "`attempts` is a whole number >= 0 of retries after the first try; Istio's validation rejects this value, so the VirtualService is not applied.".into(),
                ))
            }
        }
    }
    out.per_try_timeout = duration_field(src, tree, node, "perTryTimeout", block, diags);
    out.backoff = duration_field(src, tree, node, "backoff", block, diags);
    let refused = |key: &str, read: bool| tree.get(node, key).filter(|_| !read).map(|n| src.at(n));
    out.per_try_timeout_refused = refused("perTryTimeout", out.per_try_timeout.is_some());
    out.backoff_refused = refused("backoff", out.backoff.is_some());
    if let Some(n) = tree.get(node, "retryOn") {
        let at = src.at(n);
        match tree.scalar(n) {
            Some(text) if tree.kind(n) != Kind::Null => {
                out.retry_on = Some(Field {
                    value: text.to_string(),
                    at,
                })
            }
            _ => diags.push(rl017::diagnostic(
                &at,
                "`retryOn` is not a comma-separated string".into(),
                "not a string",
                "write the Envoy conditions as one string, such as `retryOn: connect-failure,refused-stream`.".into(),
            )),
        }
    }
    let retries = out.attempts.as_ref().map_or(0, |a| a.value);
    if retries == 0 && !attempts_refused {
        for key in ["perTryTimeout", "retryOn", "retryRemoteLocalities"] {
            if let Some((k, _)) = tree.get_entry(node, key) {
                diags.push(rl017::diagnostic(
                    &src.at(k),
                    format!("`{key}` with 0 retries in {block} is rejected by Istio's validation"),
                    "rejected with attempts 0",
                    format!("`attempts` is absent or 0, which switches retries off, and Istio's validator refuses `{key}` then (ValidateHTTPRetry): set `attempts` to the number of retries you want, or remove `{key}`."),
                ));
            }
        }
    }
    out
}

fn duration_field(
    src: Src<'_>,
    tree: &Tree,
    node: NodeId,
    key: &str,
    block: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<Field<Millis>> {
    let n = tree.get(node, key)?;
    let at = src.at(n);
    let text = tree.scalar(n).unwrap_or("");
    match super::durations::read(text) {
        Ok(ms) if ms > 0.0 => Some(Field { value: ms, at }),
        // Zero: under 1ms for ValidateDuration.
        Ok(_) => {
            diags.push(rl017::diagnostic(
                &at,
                format!("`{key}: {text}` in {block} is not a duration of at least 1ms"),
                "invalid duration",
                "write a duration such as `2s` or `250ms` (units h, m, s, ms); Istio's validation rejects this value.".into(),
            ));
            None
        }
        Err(refused) => {
            diags.push(rl017::diagnostic(
                &at,
                format!("`{key}: {text}` in {block} {}", refused.what()),
                refused.label(),
                format!("{}, and retrylint reads no value from it; write a duration such as `2s` or `250ms`.", refused.why()),
            ));
            None
        }
    }
}

/// The signals of a `retryOn` string, each at `at`, with RL017 for a token Istio's
/// validator rejects (an unknown token, or a token with spaces around it: the
/// validator splits on `,` without trimming, although the translator trims).
pub fn retry_on_signals(field: &Field<String>, diags: &mut Vec<Diagnostic>) -> Vec<RetryOnEntry> {
    let mut out: Vec<RetryOnEntry> = Vec::new();
    for raw in field.value.split(',') {
        let token = raw.trim();
        if token.is_empty() {
            continue;
        }
        if raw != token {
            diags.push(rl017::diagnostic(
                &field.at,
                format!("`retryOn` token `{raw}` has spaces around it: Istio's validation rejects this VirtualService"),
                "spaces in retryOn",
                format!("write the list without spaces, such as `{}`; Istio's validator splits on `,` without trimming, so the object is refused (applied without validation, Envoy would get the trimmed tokens).", field.value.split(',').map(str::trim).collect::<Vec<_>>().join(",")),
            ));
        }
        let known = RETRY_ON_TOKENS.contains(&token) || is_status_code(token);
        match envoy_retry_on::signals(token).filter(|_| known) {
            Some(signals) => {
                for s in signals {
                    if !out.contains(&s) {
                        out.push(s);
                    }
                }
            }
            None => {
                let help = match suggest(token, RETRY_ON_TOKENS) {
                    Some(s) => format!("did you mean `{s}`? Istio's validation rejects an unknown `retryOn` condition."),
                    None => format!("Istio's validation rejects an unknown `retryOn` condition; known conditions: {}, or an HTTP status code.", RETRY_ON_TOKENS.join(", ")),
                };
                diags.push(rl017::diagnostic(
                    &field.at,
                    format!("unknown `retryOn` condition `{token}`"),
                    "unknown condition",
                    help,
                ));
            }
        }
    }
    out
}

fn is_status_code(token: &str) -> bool {
    token.len() == 3 && token.parse::<u16>().is_ok_and(|c| (100..=599).contains(&c))
}

/// Which policy governs a route: its own `retries`, the mesh-wide
/// `defaultHttpRetryPolicy` (the route has no `retries`), or Istio's built-in
/// default (neither).
#[derive(Clone, Copy)]
pub enum Policy<'a> {
    /// The route's own `retries`.
    Route(&'a HttpRetry),
    /// `MeshConfig.defaultHttpRetryPolicy`.
    Mesh(&'a HttpRetry),
    /// Istio's built-in default (§2.2).
    BuiltIn,
}

/// Whether Istio's default retry conditions include 503 for the configured version
/// (`Some(true)` on <=1.23, or 1.24-1.26 with `exclude_unsafe_503: false`;
/// `Some(false)` on 1.24-1.26 with the flag's default and on >=1.27), `None` when
/// `.retrylint.yaml` names no version (retry-configs.md §2.2).
pub fn default_includes_503(ctx: &ImportContext<'_>) -> Option<bool> {
    let istio = ctx.platforms.istio.as_ref()?;
    let version = istio.version?;
    Some(if version <= (1, 23) {
        true
    } else if version <= (1, 26) {
        istio.exclude_unsafe_503 == Some(false)
    } else {
        false
    })
}

/// The default `retryOn` list as signals: connect-failure, refused-stream, gRPC
/// unavailable and cancelled, and 503 when `with_503`.
fn default_signals(with_503: bool) -> Vec<RetryOnEntry> {
    let mut out = vec![RetryOnEntry::ConnectFailure, RetryOnEntry::RefusedStream];
    out.extend(envoy_retry_on::signals("unavailable").unwrap_or_default());
    out.extend(envoy_retry_on::signals("cancelled").unwrap_or_default());
    if with_503 {
        out.push(RetryOnEntry::Status(503));
    }
    out
}

/// The default list in words, for notes.
fn default_list_text(with_503: Option<bool>) -> String {
    let base = "connect-failure, refused-stream, gRPC unavailable and cancelled";
    match with_503 {
        Some(true) => format!("{base}, and 503 (this Istio version: <=1.23, or 1.24-1.26 with EXCLUDE_UNSAFE_503_FROM_DEFAULT_RETRY=false)"),
        Some(false) => format!("{base} (no 503 on this Istio version)"),
        None => format!("{base}; 503 too on Istio <=1.23 (or 1.24-1.26 with EXCLUDE_UNSAFE_503_FROM_DEFAULT_RETRY=false), read here as the newest behaviour: no 503"),
    }
}

/// RL314 at `at`: the default conditions apply and the version decides 503.
fn rl314_at(at: &At, what: &str) -> Diagnostic {
    rl314::diagnostic(
        at,
        format!("{what} Istio's default retry conditions, and whether they include 503 depends on the Istio version, which `.retrylint.yaml` does not name"),
        "version-dependent default",
        "Two readings: on Istio <=1.23, or 1.24-1.26 with EXCLUDE_UNSAFE_503_FROM_DEFAULT_RETRY=false, a 503 answer is retried too, after which the request may have been processed (a non-idempotent operation can run twice); on 1.24-1.26 with the flag's default, and on 1.27 and later, it is not. retrylint reads the newest behaviour (no 503). Name the version in `.retrylint.yaml`: `platforms: {istio: {version: \"1.23\"}}` (for 1.24-1.26 add `exclude_unsafe_503: false` if the flag is off), or write `retryOn` explicitly.".to_string(),
    )
}

/// What a policy makes of one route: the settings (without `deadline`, which the
/// route's `timeout` decides), the notes on defaults, and findings (RL017, RL314).
pub struct Mapped {
    /// The settings.
    pub settings: Settings,
    /// Notes on the defaults used.
    pub notes: Vec<OriginNote>,
    /// RL017 and RL314.
    pub diagnostics: Vec<Diagnostic>,
}

/// Maps `policy` for the route at `route_at` (the `http[]` item, or the node a
/// service binding names for a service without a VirtualService).
pub fn settings(route_at: &At, policy: Policy<'_>, ctx: &ImportContext<'_>) -> Mapped {
    let mut settings = Settings::empty(route_at.clone());
    let mut notes = Vec::new();
    let mut diagnostics = Vec::new();
    let note = |notes: &mut Vec<OriginNote>, at: &At, text: String| {
        notes.push(OriginNote {
            at: at.clone(),
            text: crate::import::note_text(text),
        })
    };
    // The block that holds (or would hold) the values.
    let (block, retries_written, retries_at): (Option<&HttpRetry>, i64, At) = match policy {
        Policy::Route(r) | Policy::Mesh(r) => {
            let n = r.attempts.as_ref().map_or(0, |a| a.value);
            let at = r.attempts.as_ref().map_or(r.at.clone(), |a| a.at.clone());
            (Some(r), n, at)
        }
        Policy::BuiltIn => (None, DEFAULT_RETRIES, route_at.clone()),
    };
    // A refused `attempts` (RL017 at it) is read as no count: the block still asks
    // for retries, but neither 0 retries (an absent `attempts`) nor a default count
    // is read, and it is not reported again as missing (RL302).
    let refused_attempts = block.and_then(|r| r.attempts_refused.clone());
    if let Some(at) = &refused_attempts {
        note(
            &mut notes,
            at,
            "this `attempts` is refused (RL017 at it): Istio's validation rejects the VirtualService, so no retry count is read from it (not 0 retries, not Istio's default)".into(),
        );
        settings.refuse("attempts", at.clone());
    }
    let mesh_file = |r: &HttpRetry| {
        let lc = r.at.doc.file.line_col(r.at.location().span.start);
        format!("{}:{}", r.at.doc.file.display, lc.line)
    };
    match policy {
        Policy::Mesh(r) => note(
            &mut notes,
            route_at,
            format!(
                "no `retries:` on this route, so the mesh-wide `defaultHttpRetryPolicy` ({}) applies instead of Istio's built-in default (retry-configs.md §2.1, §1 fact 2)",
                mesh_file(r)
            ),
        ),
        Policy::BuiltIn => note(
            &mut notes,
            route_at,
            format!(
                "no `retries:` on this route, so Istio's default retry policy applies: 2 retries (3 tries) on {}; back-off 25ms base, full jitter; no per-try timeout (retry-configs.md §1 fact 2, §2.2; istio/istio route/retry/retry.go). Write `retries: {{attempts: 0}}` to switch it off",
                default_list_text(default_includes_503(ctx))
            ),
        ),
        Policy::Route(_) => {}
    }
    if retries_written <= 0 && refused_attempts.is_none() {
        let r = block.expect("only a written block has 0 retries");
        settings.retry = Some(Spanned {
            value: false,
            at: retries_at.clone(),
        });
        if r.attempts.is_none() {
            note(
                &mut notes,
                &r.at,
                "`attempts` is absent, which Istio reads as 0 retries: this switches retries off, Istio's default included (retry-configs.md §1 fact 4, §2.1)".into(),
            );
        }
        return Mapped {
            settings,
            notes,
            diagnostics,
        };
    }
    // Where the retry is turned on: `retries`, else the route item.
    let on_at = match policy {
        Policy::Route(r) => r.at.clone(),
        Policy::Mesh(_) | Policy::BuiltIn => route_at.clone(),
    };
    settings.retry = Some(Spanned {
        value: true,
        at: on_at,
    });
    if refused_attempts.is_none() {
        settings.attempts = Some(Spanned {
            value: retries_written + 1,
            at: retries_at,
        });
    }
    // Signals.
    let policy_at = block.map_or(route_at.clone(), |r| r.at.clone());
    match block.and_then(|r| r.retry_on.as_ref()) {
        Some(field) => {
            let signals = retry_on_signals(field, &mut diagnostics);
            if signals.is_empty() {
                settings.retry = Some(Spanned {
                    value: false,
                    at: field.at.clone(),
                });
                settings.attempts = None;
                note(
                    &mut notes,
                    &field.at,
                    "this `retryOn` names no condition retrylint can evaluate, so the route is read as not retrying".into(),
                );
            } else {
                settings.retry_on = Some(Spanned {
                    value: signals
                        .into_iter()
                        .map(|s| Spanned {
                            value: s,
                            at: field.at.clone(),
                        })
                        .collect(),
                    at: field.at.clone(),
                });
            }
        }
        None => {
            let with_503 = default_includes_503(ctx);
            if with_503.is_none() {
                let what = match policy {
                    Policy::Route(_) => "`retries` has no `retryOn`, so it keeps",
                    Policy::Mesh(_) => {
                        "the mesh-wide `defaultHttpRetryPolicy` has no `retryOn`, so it keeps"
                    }
                    Policy::BuiltIn => "no `retries:` on this route, so it gets",
                };
                diagnostics.push(rl314_at(&policy_at, what));
            }
            if block.is_some() {
                note(
                    &mut notes,
                    &policy_at,
                    format!(
                        "no `retryOn`, so Istio's default conditions apply: {} (retry-configs.md §2.1 parsing notes, §2.2)",
                        default_list_text(with_503)
                    ),
                );
            }
            settings.retry_on = Some(Spanned {
                value: default_signals(with_503 == Some(true))
                    .into_iter()
                    .map(|s| Spanned {
                        value: s,
                        at: policy_at.clone(),
                    })
                    .collect(),
                at: policy_at.clone(),
            });
        }
    }
    if settings.retry.as_ref().is_some_and(|r| !r.value) {
        return Mapped {
            settings,
            notes,
            diagnostics,
        };
    }
    // A refused `perTryTimeout` or `backoff` (RL017 at it) is read as nothing: not
    // Istio's or Envoy's default, and not reported again as missing.
    if let Some(at) = block.and_then(|r| r.per_try_timeout_refused.clone()) {
        settings.refuse("attempt_timeout", at);
    }
    if let Some(at) = block.and_then(|r| r.backoff_refused.clone()) {
        settings.refuse("backoff", at);
    }
    // Back-off: Envoy's exponential back-off with full jitter.
    let (backoff_at, base) = match block.and_then(|r| r.backoff.as_ref()) {
        Some(b) => (b.at.clone(), b.spanned()),
        None if block.is_some_and(|r| r.backoff_refused.is_some()) => {
            return attempt_timeout(settings, notes, diagnostics, block, policy, &policy_at);
        }
        None => {
            if block.is_some() {
                note(
                    &mut notes,
                    &policy_at,
                    "no `backoff`, so Envoy's default applies: 25ms base, cap 250ms (10x), x2, full jitter (retry-configs.md §2.1, §1 fact 8)".into(),
                );
            }
            (
                policy_at.clone(),
                Spanned {
                    value: DEFAULT_BACKOFF_BASE_MS,
                    at: policy_at.clone(),
                },
            )
        }
    };
    if block.and_then(|r| r.backoff.as_ref()).is_some() {
        note(
            &mut notes,
            &backoff_at,
            format!(
                "`backoff` is Envoy's base interval; Envoy caps the wait at 10x base ({}), doubles it per retry and draws it with full jitter (retry-configs.md §2.1, §1 fact 8)",
                format_millis(base.value * 10.0)
            ),
        );
    }
    settings.backoff = Some(BackoffSettings {
        at: backoff_at.clone(),
        cap: Some(Spanned {
            value: base.value * 10.0,
            at: backoff_at.clone(),
        }),
        base: Some(base),
        multiplier: Some(Spanned {
            value: 2.0,
            at: backoff_at.clone(),
        }),
        jitter: Some(Spanned {
            value: Jitter::Full,
            at: backoff_at,
        }),
    });
    attempt_timeout(settings, notes, diagnostics, block, policy, &policy_at)
}

/// The attempt timeout of `settings` from `perTryTimeout` (a route's own only), else
/// what is left of the route timeout; none when a written one was refused.
fn attempt_timeout(
    mut settings: Settings,
    mut notes: Vec<OriginNote>,
    diagnostics: Vec<Diagnostic>,
    block: Option<&HttpRetry>,
    policy: Policy<'_>,
    policy_at: &At,
) -> Mapped {
    let note = |notes: &mut Vec<OriginNote>, at: &At, text: String| {
        notes.push(OriginNote {
            at: at.clone(),
            text: crate::import::note_text(text),
        })
    };
    match block.and_then(|r| r.per_try_timeout.as_ref()) {
        _ if block.is_some_and(|r| r.per_try_timeout_refused.is_some()) => {}
        Some(t) if matches!(policy, Policy::Route(_)) => {
            settings.attempt_timeout = Some(Spanned {
                value: AttemptTimeout::Fixed(t.value),
                at: t.at.clone(),
            });
        }
        _ => {
            settings.attempt_timeout = Some(Spanned {
                value: AttemptTimeout::Remaining,
                at: policy_at.clone(),
            });
            if block.is_some() {
                note(
                    &mut notes,
                    policy_at,
                    "no `perTryTimeout`, so each try may use what is left of the route `timeout` (retry-configs.md §2.1)".into(),
                );
            }
        }
    }
    Mapped {
        settings,
        notes,
        diagnostics,
    }
}
