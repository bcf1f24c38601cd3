//! One Envoy route's effective retry behaviour as v1 policy [`Settings`]
//! (`retry-configs.md` §3.1, §3.2, §12): the route's `retry_policy`, else its virtual
//! host's (a route-level policy replaces the virtual host's entirely, no merge), the
//! route `timeout` (the deadline, 15 s by default, `0s` none), the hedge policy and
//! the target cluster's retry budget. Every value carries the node that set it, or,
//! for an Envoy default, the node that would have, with an [`OriginNote`].

use super::matching::{admits_every_api_method, header_test, status_codes, HeaderTest};
use super::proto;
use crate::diagnostic::Diagnostic;
use crate::import::code::rl019_unresolved_setting;
use crate::import::envoy_retry_on;
use crate::import::keys::unknown_keys;
use crate::import::rl017_ineffective_setting;
use crate::import::OriginNote;
use crate::policy::duration::format_millis;
use crate::policy::model::{
    AttemptTimeout, BackoffSettings, Jitter, OnInvalid, RetryAfterSettings, RetryBudget, Settings,
    Signal, Spanned,
};
use crate::retry::Hedging;
use crate::source::loader::Loaded;
use crate::source::refs::At;
use crate::source::strict::suggest;
use crate::source::tree::{NodeId, Tree};
use std::sync::Arc;

/// Envoy's default route timeout, ms (`RouteAction.timeout`, ENV-P; §3.1).
pub const DEFAULT_ROUTE_TIMEOUT_MS: f64 = 15_000.0;
/// Envoy's default back-off base, ms (`retry_back_off.base_interval`, runtime
/// `upstream.base_retry_backoff_ms`; ENV-P, ENV-DOC; §3.1).
pub const DEFAULT_BASE_MS: f64 = 25.0;
/// Envoy's default cap of a rate-limited back-off, ms
/// (`rate_limited_retry_back_off.max_interval`; ENV-P; §3.1).
pub const DEFAULT_RATE_LIMITED_MAX_MS: f64 = 300_000.0;

pub use crate::import::envoy_retry_on::TOKENS as RETRY_ON_TOKENS;

/// The fields of `RetryPolicy` (ENV-P), snake_case; proto3-JSON camelCase is known
/// too.
const RETRY_POLICY_FIELDS: &[&str] = &[
    "retry_on",
    "num_retries",
    "per_try_timeout",
    "per_try_idle_timeout",
    "retry_priority",
    "retry_host_predicate",
    "retry_options_predicates",
    "host_selection_retry_max_attempts",
    "retriable_status_codes",
    "retry_back_off",
    "rate_limited_retry_back_off",
    "retriable_headers",
    "retriable_request_headers",
];

/// Where one route's retry settings come from.
pub struct Inputs<'a> {
    /// The file.
    pub doc: &'a Arc<Loaded>,
    /// Its tree.
    pub tree: &'a Tree,
    /// The route item.
    pub route: NodeId,
    /// The `route` action (`RouteAction`).
    pub action: NodeId,
    /// The effective `retry_policy` (the route's, else the virtual host's).
    pub policy: Option<NodeId>,
    /// True when `policy` is the virtual host's.
    pub policy_from_vhost: bool,
    /// The effective `hedge_policy`.
    pub hedge: Option<NodeId>,
    /// The target cluster's retry budget and the note on its default, if any.
    pub budget: Option<(Spanned<RetryBudget>, Option<OriginNote>)>,
    /// Whether a target cluster may send a try over HTTP/3 with a TCP fallback
    /// ([`super::cluster::http3_tcp_fallback`]); `None` when no target cluster is
    /// defined in the file (the reading then assumes it may).
    pub http3_fallback: Option<bool>,
}

/// What [`settings`] read.
pub struct RetryRead {
    /// The settings, with origins.
    pub settings: Settings,
    /// Notes on Envoy defaults.
    pub notes: Vec<OriginNote>,
    /// `retriable_request_headers` that admit only these methods: the
    /// `retriable_request_headers` node and the methods (upper case). Envoy clears
    /// `retry_on` for every other request, so the caller splits the route.
    pub gate: Option<(NodeId, Vec<String>)>,
    /// RL019 for a retry condition retrylint cannot evaluate and read as retrying
    /// (a `retriable_headers` matcher on another header, `http3-post-connect-failure`
    /// towards a cluster not in the file).
    pub diagnostics: Vec<Diagnostic>,
}

const SRC: &str = "Envoy v3 `RetryPolicy`, retry-configs.md §3.1";

/// The settings of one route.
pub fn settings(inp: &Inputs<'_>) -> RetryRead {
    let (doc, tree) = (inp.doc, inp.tree);
    let at = |n: NodeId| At::new(doc, n);
    let note = |n: NodeId, text: String| OriginNote {
        at: at(n),
        text: crate::import::note_text(text),
    };
    let mut s = Settings::empty(at(inp.action));
    let mut notes = Vec::new();

    // The deadline: the route `timeout` covers every try (ENV-P RouteAction.timeout).
    match proto::get(tree, inp.action, "timeout") {
        Some(t) => match proto::duration_ms(tree, t) {
            Some(0.0) => {
                // Q26: `0s` switches the route timeout off. The deadline stays unset
                // (v1 meaning: none), and this note marks the node that did it, so
                // a missing-deadline finding can point here rather than at the
                // retry policy: the file itself removed the bound.
                notes.push(note(t, format!("{DEADLINE_OFF} `timeout: 0s` switches off Envoy's route timeout (default 15 s), so nothing bounds the tries and waits (RouteAction.timeout, retry-configs.md §3.1)")));
                s.deadline_off = Some(at(t));
            }
            Some(ms) => {
                s.deadline = Some(Spanned {
                    value: ms,
                    at: at(t),
                })
            }
            // Envoy rejects the route configuration (RL017 from
            // [`check_route_action`]): the value is read as nothing, never as
            // the default 15 s nor as a huge deadline.
            None => {
                notes.push(note(t, "this `timeout` is not a proto Duration Envoy accepts (`15s`, at most 315,576,000,000 s): Envoy rejects the route configuration, so no deadline is read from it".to_string()));
                // Reported once (RL017), not again as a missing deadline (RL301).
                s.refuse("deadline", at(t));
            }
        },
        None => {
            s.deadline = Some(Spanned {
                value: DEFAULT_ROUTE_TIMEOUT_MS,
                at: at(inp.action),
            });
            notes.push(note(inp.action, "no `timeout`: Envoy's default route timeout of 15 s applies, covering every try and wait (RouteAction.timeout, retry-configs.md §3.1, §1 fact 5)".to_string()));
        }
    }

    let Some(p) = inp.policy else {
        s.retry = Some(Spanned {
            value: false,
            at: at(inp.route),
        });
        notes.push(note(inp.route, "no `retry_policy` on the route or its virtual host: Envoy does not retry (retry-configs.md §3.1)".to_string()));
        return RetryRead {
            settings: s,
            notes,
            gate: None,
            diagnostics: Vec::new(),
        };
    };
    if inp.policy_from_vhost {
        notes.push(note(p, "the route has no `retry_policy` of its own, so its virtual host's applies (retry-configs.md §3.1)".to_string()));
    }

    // retry_on: the signals (§3.2), plus the codes of `retriable-status-codes`.
    let retry_on_node = proto::get(tree, p, "retry_on");
    let tokens: Vec<&str> = retry_on_node
        .and_then(|n| proto::text(tree, n))
        .map(|t| {
            t.split(',')
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let mut signals: Vec<Spanned<Signal>> = Vec::new();
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    let push = |sig: Signal, n: NodeId, out: &mut Vec<Spanned<Signal>>| {
        push_signal(sig, at(n), out);
    };
    for tok in &tokens {
        let Some(rn) = retry_on_node else { break };
        if tok.parse::<u16>().is_ok() {
            continue; // Istio writes bare codes; Envoy ignores them (RL017 below).
        }
        if *tok == "retriable-status-codes" {
            for &c in proto::items(tree, p, "retriable_status_codes") {
                if let Some(code) = proto::int(tree, c).and_then(|v| u16::try_from(v).ok()) {
                    if (100..=599).contains(&code) {
                        push(Signal::Status(code), c, &mut signals);
                    }
                }
            }
            continue;
        }
        if *tok == "retriable-headers" {
            let said = other_token_has(&tokens, tok, Signal::Class(5));
            let d = retriable_headers(inp, rn, &mut signals, &mut notes);
            diagnostics.extend(d.into_iter().filter(|_| !said));
            continue;
        }
        if *tok == "http3-post-connect-failure" {
            let said = other_token_has(&tokens, tok, Signal::Reset);
            let d = http3_post_connect_failure(inp, rn, &mut signals, &mut notes);
            diagnostics.extend(d.into_iter().filter(|_| !said));
            continue;
        }
        if let Some(v) = envoy_retry_on::signals(tok) {
            for sig in v {
                push(sig, rn, &mut signals);
            }
        }
    }
    if tokens.is_empty() {
        s.retry = Some(Spanned {
            value: false,
            at: at(p),
        });
        notes.push(note(p, "this `retry_policy` has no `retry_on`: Envoy creates no retry state, so nothing is retried (retry-configs.md §3.1)".to_string()));
        return RetryRead {
            settings: s,
            notes,
            gate: None,
            diagnostics: Vec::new(),
        };
    }
    let rn = retry_on_node.unwrap_or(p);
    if signals.is_empty() {
        s.retry = Some(Spanned {
            value: false,
            at: at(rn),
        });
        notes.push(note(rn, "no `retry_on` token here names a failure Envoy retries (unknown tokens, a `retriable-status-codes` without codes, a `retriable-headers` without matchers and `http3-post-connect-failure` towards a cluster without HTTP/3 retry nothing), so the route is read as not retrying".to_string()));
        return RetryRead {
            settings: s,
            notes,
            gate: None,
            diagnostics: Vec::new(),
        };
    }
    s.retry = Some(Spanned {
        value: true,
        at: at(p),
    });
    s.retry_on = Some(Spanned {
        value: signals,
        at: at(rn),
    });

    // num_retries: retries, default 1 (§3.1, §1 fact 4); attempts are tries.
    let mut tries = 2;
    match proto::get(tree, p, "num_retries") {
        // Not a uint32 (RL017 from [`check`]): Envoy rejects the route
        // configuration, so no attempt count is read from it (never a default nor
        // a wrapped or clamped number).
        Some(n) if uint32(tree, n).is_none() => {
            // The same words as the RL017 from [`check`]: out of range for a whole
            // number, else not an unsigned 32-bit integer.
            let what = if whole_number(tree, n) {
                format!(
                    "is out of range, 0 to {} retries (a `google.protobuf.UInt32Value`)",
                    u32::MAX
                )
            } else {
                "is not an unsigned 32-bit integer".to_string()
            };
            notes.push(note(n, format!("this `num_retries` {what}: Envoy rejects the route configuration, so no attempt count is read from it")));
            // Read as nothing, and not reported again as missing (RL302).
            s.refuse("attempts", at(n));
        }
        Some(n) => {
            let v = uint32(tree, n).map_or(1, i64::from);
            tries = v.saturating_add(1);
            s.attempts = Some(Spanned {
                value: tries,
                at: at(n),
            });
            if v == 0 {
                s.retry = Some(Spanned {
                    value: false,
                    at: at(n),
                });
            }
        }
        None => {
            s.attempts = Some(Spanned {
                value: 2,
                at: at(p),
            });
            notes.push(note(p, format!("no `num_retries`: Envoy's default of 1 retry applies, so 2 tries ({SRC}, §1 fact 4)")));
        }
    }

    // per_try_timeout: else every try may use what is left of the route timeout.
    let mut per_try = None;
    match proto::get(tree, p, "per_try_timeout") {
        Some(n) => match proto::duration_ms(tree, n) {
            Some(ms) if ms > 0.0 => {
                per_try = Some(ms);
                s.attempt_timeout = Some(Spanned {
                    value: AttemptTimeout::Fixed(ms),
                    at: at(n),
                });
            }
            Some(_) => {
                s.attempt_timeout = Some(Spanned {
                    value: AttemptTimeout::Remaining,
                    at: at(n),
                })
            }
            // Not a Duration Envoy accepts (RL017 from [`check`]): no per-try
            // timeout is read from it.
            None => notes.push(note(n, "this `per_try_timeout` is not a proto Duration Envoy accepts: Envoy rejects the route configuration, so no per-try timeout is read from it".to_string())),
        },
        None => {
            s.attempt_timeout = Some(Spanned {
                value: AttemptTimeout::Remaining,
                at: at(p),
            });
            notes.push(note(p, format!("no `per_try_timeout`: each try may use what is left of the route timeout, so a try that times out ends the request ({SRC}, §1 fact 6)")));
        }
    }

    // retry_back_off: full jitter over (2^N - 1) x base, capped (§3.1, §1 fact 8).
    let bo = proto::map(tree, p, "retry_back_off");
    let bo_at = bo.unwrap_or(p);
    let base_node = bo.and_then(|b| proto::get(tree, b, "base_interval"));
    // Envoy's proto has `gt {}` on `base_interval`: a `0s` is refused (RL017 from
    // [`check`]), not read as a 1 ms base.
    let base_read = base_node
        .and_then(|n| proto::duration_ms(tree, n))
        .filter(|ms| *ms > 0.0);
    // A written interval Envoy rejects (RL017 from [`check`]) is read as nothing,
    // never as the default it would have had unwritten.
    let base_invalid = base_node.is_some() && base_read.is_none();
    let base = base_read.map(|ms| ms.max(1.0)).unwrap_or(DEFAULT_BASE_MS);
    let cap_node = bo.and_then(|b| proto::get(tree, b, "max_interval"));
    // A cap below the base is refused by Envoy (RL017 from [`check`]): read as
    // nothing, so not blamed again as a cap smaller than the base (RL304).
    let cap = cap_node
        .and_then(|n| proto::duration_ms(tree, n))
        .filter(|ms| base_invalid || *ms >= base_read.unwrap_or(DEFAULT_BASE_MS));
    let cap_invalid = cap_node.is_some() && cap.is_none();
    let mut defaults = Vec::new();
    if base_node.is_none() {
        defaults.push("base 25 ms".to_string());
    }
    if cap.is_none() && !cap_invalid && !base_invalid {
        defaults.push(format!("cap 10 x base = {}", format_millis(base * 10.0)));
    }
    notes.push(note(bo_at, format!(
        "Envoy's back-off{}: {}multiplier 2 and full jitter (each wait uniform in [0, (2^N - 1) x base)) are fixed ({SRC}, §1 fact 8)",
        if bo.is_none() { " (no `retry_back_off`)" } else { "" },
        if defaults.is_empty() { String::new() } else { format!("defaults {}; ", defaults.join(", ")) },
    )));
    s.backoff = Some(BackoffSettings {
        at: at(bo_at),
        base: (!base_invalid).then(|| Spanned {
            value: base,
            at: at(base_node.unwrap_or(bo_at)),
        }),
        cap: match cap {
            Some(ms) => Some(Spanned {
                value: ms,
                at: at(cap_node.unwrap_or(bo_at)),
            }),
            None if cap_invalid || base_invalid => None,
            None => Some(Spanned {
                value: base * 10.0,
                at: at(bo_at),
            }),
        },
        multiplier: Some(Spanned {
            value: 2.0,
            at: at(bo_at),
        }),
        jitter: Some(Spanned {
            value: Jitter::Full,
            at: at(bo_at),
        }),
    });

    // rate_limited_retry_back_off: Retry-After honoured only when a reset header is
    // `Retry-After` read as seconds (Q7, see `retry_after`).
    if let Some(rl) = proto::map(tree, p, "rate_limited_retry_back_off") {
        let (ra, text) = retry_after(doc, tree, rl);
        s.retry_after = ra.map(Box::new);
        notes.push(note(rl, text));
    }

    // retriable_request_headers: the only method gate, and it gates every retry.
    let mut gate = None;
    if let Some((_, g)) = proto::field(tree, p, "retriable_request_headers") {
        let items = tree.items(g);
        if !items.is_empty() {
            let mut methods: Vec<String> = Vec::new();
            let mut other: Option<String> = None;
            for &h in items {
                match header_test(tree, h) {
                    HeaderTest::Methods(ms) => {
                        for m in ms {
                            if !methods.iter().any(|x| x.eq_ignore_ascii_case(&m)) {
                                methods.push(m);
                            }
                        }
                    }
                    HeaderTest::Other => {
                        other.get_or_insert_with(|| {
                            proto::field_text(tree, h, "name")
                                .unwrap_or("?")
                                .to_string()
                        });
                    }
                }
            }
            if let Some(name) = other {
                notes.push(note(g, format!("`retriable_request_headers` also admits every request that matches `{name}`, whatever its method, so it restricts no method (retry-configs.md §3.1, §3.4)")));
            } else if admits_every_api_method(&methods) {
                notes.push(note(g, "`retriable_request_headers` lists every method, so it protects nothing (retry-configs.md §3.1, §3.4)".to_string()));
            } else {
                gate = Some((g, methods));
            }
        }
    }

    // hedge_policy.hedge_on_per_try_timeout: a per-try timeout sends another try
    // without cancelling the first (policy-format.md "Hedging").
    if let Some(h) = inp.hedge {
        if let Some(n) = proto::get(tree, h, "hedge_on_per_try_timeout") {
            if proto::boolean(tree, n) == Some(true) {
                if let Some(delay) = per_try {
                    s.hedging = Some(Spanned {
                        value: Hedging {
                            attempts: u64::try_from(tries).unwrap_or(1),
                            delay_ms: delay,
                        },
                        at: at(n),
                    });
                }
            }
        }
    }

    if let Some((b, n)) = &inp.budget {
        s.budget = Some(Box::new(b.clone()));
        notes.extend(n.clone());
    }
    RetryRead {
        settings: s,
        notes,
        gate,
        diagnostics,
    }
}

/// Adds `sig` set at `at` to `out`, unless an entry already covers it: a code its
/// class already covers adds nothing (`5xx` then `gateway-error`).
fn push_signal(sig: Signal, at: At, out: &mut Vec<Spanned<Signal>>) {
    let covered = |x: &Spanned<Signal>| match (x.value, sig) {
        (Signal::Class(c), Signal::Status(code)) => u16::from(c) == code / 100,
        (a, b) => a == b,
    };
    if !out.iter().any(covered) {
        out.push(Spanned { value: sig, at });
    }
}

/// `retriable-headers`: Envoy retries (with back-off) a response that any matcher of
/// `retriable_headers` matches (`retry_state_impl.cc` `wouldRetryFromHeaders()`:
/// `if (retry_on_ & RETRY_ON_RETRIABLE_HEADERS) for (h : retriable_headers_) if
/// (h->matchesHeaders(response_headers)) return RetryWithBackoff;`; pinned by
/// `retry_state_impl_test.cc` `RetriableHeadersPolicyViaRetryPolicyConfiguration`:
/// `:status` in `[500, 505)` retries 500, 503, 504 and not 499 nor 505). A `:status`
/// matcher is evaluated ([`status_codes`]): its 4xx and 5xx codes are the signals
/// (a whole class as `4xx`/`5xx`). A matcher retrylint cannot evaluate (another
/// header, an invalid regex) is read as retrying every 5xx response, never as "no
/// retry", and RL019 says so. No `retriable_headers` at all retries nothing.
fn retriable_headers(
    inp: &Inputs<'_>,
    rn: NodeId,
    signals: &mut Vec<Spanned<Signal>>,
    notes: &mut Vec<OriginNote>,
) -> Vec<Diagnostic> {
    let (doc, tree) = (inp.doc, inp.tree);
    let mut diagnostics = Vec::new();
    let Some(p) = inp.policy else {
        return diagnostics;
    };
    for &h in proto::items(tree, p, "retriable_headers") {
        let at = At::new(doc, h);
        match status_codes(tree, h) {
            Some(codes) => {
                let failures: Vec<u16> = codes.into_iter().filter(|c| *c >= 400).collect();
                for class in [4u8, 5] {
                    let in_class: Vec<u16> = failures
                        .iter()
                        .copied()
                        .filter(|c| c / 100 == u16::from(class))
                        .collect();
                    if in_class.len() == 100 {
                        push_signal(Signal::Class(class), at.clone(), signals);
                    } else {
                        for c in in_class {
                            push_signal(Signal::Status(c), at.clone(), signals);
                        }
                    }
                }
            }
            None => {
                let name = proto::field_text(tree, h, "name").unwrap_or("?");
                push_signal(Signal::Class(5), at.clone(), signals);
                notes.push(OriginNote {
                    at: at.clone(),
                    text: crate::import::note_text(format!("`retriable_headers` matcher on `{name}`: retrylint cannot evaluate it, so it is read as matching every 5xx response (the reading that retries; RL019)")),
                });
                diagnostics.push(
                    rl019_unresolved_setting::raw(
                        &at,
                        format!("Envoy: the `retriable_headers` matcher on `{name}` tests a response retrylint cannot evaluate; assumed it matches every 5xx response, so the route is read as retrying them"),
                        "not evaluated",
                    )
                    .with_help("match `:status` (`range_match`, `exact_match`, `string_match`) where the condition is a status, or write the route's retries in a retry policy; retrylint judges the route with the assumption above".to_string()),
                );
            }
        }
    }
    if proto::items(tree, p, "retriable_headers").is_empty() {
        notes.push(OriginNote {
            at: At::new(doc, rn),
            text: crate::import::note_text("`retriable-headers` with no `retriable_headers` matches no response, so it retries nothing (retry_state_impl.cc wouldRetryFromHeaders)"),
        });
    }
    diagnostics
}

/// `http3-post-connect-failure`: Envoy retries a reset after the request was sent
/// over HTTP/3, immediately over TCP, only when the cluster has HTTP/3 with a TCP
/// fallback (`retry_state_impl.cc` `wouldRetryFromReset()`: `else if (http3_used ==
/// Http3Used::Yes && clusterSupportsHttp3AndTcpFallback(cluster_) && (retry_on_ &
/// RETRY_ON_HTTP3_POST_CONNECT_FAILURE))`). A target cluster of the file without it
/// ([`super::cluster::http3_tcp_fallback`]) never retries under this token; a target
/// not defined in the file is read as having it (the reading that retries; RL019).
fn http3_post_connect_failure(
    inp: &Inputs<'_>,
    rn: NodeId,
    signals: &mut Vec<Spanned<Signal>>,
    notes: &mut Vec<OriginNote>,
) -> Vec<Diagnostic> {
    let at = At::new(inp.doc, rn);
    let mut diagnostics = Vec::new();
    match inp.http3_fallback {
        Some(true) => push_signal(Signal::Reset, at, signals),
        Some(false) => notes.push(OriginNote {
            at,
            text: crate::import::note_text("`http3-post-connect-failure` retries only over a cluster with HTTP/3 and a TCP fallback (`auto_config` with `http3_protocol_options`); the route's cluster has none, so the token retries nothing (retry_state_impl.cc wouldRetryFromReset)"),
        }),
        None => {
            push_signal(Signal::Reset, at.clone(), signals);
            diagnostics.push(
                rl019_unresolved_setting::raw(
                    &at,
                    "Envoy: `http3-post-connect-failure` retries only over a cluster with HTTP/3 and a TCP fallback, and the route's cluster is not defined in this file; assumed it has one, so a reset after sending is read as retried".to_string(),
                    "cluster not in the file",
                )
                .with_help("define the cluster in the same file (its `typed_extension_protocol_options`), so retrylint can tell whether HTTP/3 is used; retrylint judges the route with the assumption above".to_string()),
            );
        }
    }
    diagnostics
}

/// True when a `retry_on` token other than `this` already retries `sig`: an
/// assumption about `this` then changes nothing, and RL019 would only be noise.
fn other_token_has(tokens: &[&str], this: &str, sig: Signal) -> bool {
    tokens
        .iter()
        .filter(|t| **t != this)
        .filter_map(|t| envoy_retry_on::signals(t))
        .any(|v| v.contains(&sig))
}

/// The text every note on a deadline switched off starts with (`timeout: 0s`,
/// README case Q26): a binder or rule looking for the node that removed the deadline
/// finds it among a route's [`OriginNote`]s by this prefix.
pub const DEADLINE_OFF: &str = "deadline off:";

/// Q7: `rate_limited_retry_back_off` makes Envoy wait what a reset header says, but
/// only the headers it names (tried in order, case-insensitively; ENV-RH). The
/// Retry-After a server sends (and a spec documents) is honoured only when one of
/// them is `Retry-After` read as `SECONDS` (the default format): a delay-seconds
/// value read as `UNIX_TIMESTAMP` lies in 1970 and is discarded. Then `honor` is
/// set at that header item, `max` is `max_interval` (default 300 s), and
/// `on_invalid` and `on_above_max` are `backoff` (an HTTP-date, `0` or a value above
/// `max_interval` is discarded and the exponential back-off is waited, never a stop). Otherwise the standard header is
/// ignored: `retry_after` stays unset and the note says which headers are read.
fn retry_after(doc: &Arc<Loaded>, tree: &Tree, rl: NodeId) -> (Option<RetryAfterSettings>, String) {
    let at = |n: NodeId| At::new(doc, n);
    let headers: Vec<(NodeId, String, String)> = proto::items(tree, rl, "reset_headers")
        .iter()
        .map(|&h| {
            let name = proto::field_text(tree, h, "name").unwrap_or("").to_string();
            let format = proto::field_text(tree, h, "format")
                .unwrap_or("SECONDS")
                .to_string();
            (h, name, format)
        })
        .collect();
    let max_node = proto::get(tree, rl, "max_interval");
    let max = max_node
        .and_then(|n| proto::duration_ms(tree, n))
        .unwrap_or(DEFAULT_RATE_LIMITED_MAX_MS);
    let listed = headers
        .iter()
        .map(|(_, n, f)| format!("`{n}` ({f})"))
        .collect::<Vec<_>>()
        .join(", ");
    let honoured = headers
        .iter()
        .find(|(_, n, f)| n.eq_ignore_ascii_case("retry-after") && (f == "SECONDS" || f == "0"));
    match honoured {
        Some((h, _, _)) => (
            Some(RetryAfterSettings {
                at: at(rl),
                honor: Some(Spanned { value: true, at: at(*h) }),
                max: Some(Spanned { value: max, at: at(max_node.unwrap_or(rl)) }),
                on_invalid: Some(Spanned { value: OnInvalid::Backoff, at: at(rl) }),
                // A value above `max_interval` is discarded, not a reason to stop:
                // `parseResetInterval()` returns an interval only `if
                // (interval.value() <= reset_max_interval_)`, else tries the next
                // header, and without one `enableBackoffTimer()` uses the
                // exponential back-off (route_components.proto
                // `RateLimitedRetryBackOff`: "Otherwise, Envoy will use the default
                // exponential back-off").
                on_above_max: Some(Spanned { value: OnInvalid::Backoff, at: at(max_node.unwrap_or(rl)) }),
            }),
            format!("`rate_limited_retry_back_off` waits what {listed} says, drawn from [i, 1.5 i], when the response matches `retry_on`; values above {}{} are discarded (the retry still happens, after the exponential back-off: `on_above_max: backoff`), and an HTTP-date or unparsable value falls back to the exponential back-off too (ENV-RH, retry-configs.md §3.1, §1 fact 9)", format_millis(max), if max_node.is_none() { " (the default `max_interval`)" } else { "" }),
        ),
        None => (
            None,
            format!("`rate_limited_retry_back_off` reads only {}: the `Retry-After` header a server sends is never read, so Retry-After is not honoured (Q7; ENV-RH, retry-configs.md §3.1)", if listed.is_empty() { "no header".to_string() } else { listed }),
        ),
    }
}

/// RL017 for a `retry_policy` node: unknown keys (both spellings known) in it and in
/// its back-off blocks, unknown `retry_on` tokens, and settings its own `retry_on`
/// makes inert (`retriable_status_codes` without `retriable-status-codes`,
/// `retriable_headers` without `retriable-headers`, Q8), a policy without
/// `retry_on`, and a back-off cap below its base (Envoy rejects the route).
pub fn check(doc: &Arc<Loaded>, tree: &Tree, p: NodeId) -> Vec<Diagnostic> {
    let known = proto::both_spellings(RETRY_POLICY_FIELDS);
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    let mut out = unknown_keys(doc, p, &known, "Envoy `retry_policy`");
    let at = |n: NodeId| At::new(doc, n);
    let diag = |n: NodeId, msg: String, label: &str, help: String| {
        rl017_ineffective_setting::diagnostic(&at(n), msg, label, help)
    };
    if let Some(b) = proto::map(tree, p, "retry_back_off") {
        let k = proto::both_spellings(&["base_interval", "max_interval"]);
        let k: Vec<&str> = k.iter().map(String::as_str).collect();
        out.extend(unknown_keys(doc, b, &k, "Envoy `retry_back_off`"));
        let base_node = proto::get(tree, b, "base_interval");
        let base = base_node.and_then(|n| proto::duration_ms(tree, n));
        if let (Some(bn), Some(ms)) = (base_node, base) {
            if ms <= 0.0 {
                let written = tree.scalar(bn).unwrap_or("").to_string();
                out.push(diag(bn, format!("`base_interval: {written}` is out of range: above 0 (Envoy's `retry_back_off.base_interval` is `gt {{}}`)"), "out of range", "Envoy rejects the route as written, so retrylint reads no back-off base from it (not 1 ms, not the default 25 ms); write a base above 0 such as `25ms`.".to_string()));
            }
        }
        let base = base.filter(|ms| *ms > 0.0);
        if let Some((mn, max)) = proto::get(tree, b, "max_interval")
            .and_then(|n| Some((n, proto::duration_ms(tree, n)?)))
        {
            if max < base.unwrap_or(DEFAULT_BASE_MS) {
                // Each value as written (`1.000000001s`), not re-formatted: a
                // rounded `1s is below 1s` would say nothing.
                let written = |key: &str, n: NodeId| match proto::text(tree, n) {
                    Some(t) => format!("`{key}: {}`", t.trim()),
                    None => format!("`{key}`"),
                };
                let base_text = match base_node.filter(|_| base.is_some()) {
                    Some(bn) => written("base_interval", bn),
                    None => format!("the default {}", format_millis(DEFAULT_BASE_MS)),
                };
                out.push(diag(mn, format!("{} is below the back-off base, {base_text}", written("max_interval", mn)), "cap below base", "raise `max_interval` to at least `base_interval`: Envoy rejects a `retry_back_off` whose cap is below its base.".to_string()));
            }
        }
    }
    if let Some(rl) = proto::map(tree, p, "rate_limited_retry_back_off") {
        let k = proto::both_spellings(&["reset_headers", "max_interval"]);
        let k: Vec<&str> = k.iter().map(String::as_str).collect();
        out.extend(unknown_keys(
            doc,
            rl,
            &k,
            "Envoy `rate_limited_retry_back_off`",
        ));
        let hk = ["name", "format"];
        for &h in proto::items(tree, rl, "reset_headers") {
            out.extend(unknown_keys(doc, h, &hk, "an Envoy reset header"));
        }
    }
    for key in ["per_try_timeout", "per_try_idle_timeout"] {
        out.extend(proto::get(tree, p, key).and_then(|n| invalid_duration(doc, tree, n, key)));
    }
    let back_off = [
        ("retry_back_off", &["base_interval", "max_interval"][..]),
        ("rate_limited_retry_back_off", &["max_interval"][..]),
    ];
    for (block, keys) in back_off {
        let Some(b) = proto::map(tree, p, block) else {
            continue;
        };
        for &key in keys {
            out.extend(proto::get(tree, b, key).and_then(|n| invalid_duration(doc, tree, n, key)));
        }
    }
    // num_retries is a google.protobuf.UInt32Value: Envoy rejects anything else.
    if let Some(n) = proto::get(tree, p, "num_retries") {
        if uint32(tree, n).is_none() {
            // A whole number (negative or above 2^32 - 1) is out of range, not malformed.
            let text = proto::text(tree, n).unwrap_or("");
            let whole = whole_number(tree, n);
            out.push(diag(
                n,
                if whole {
                    format!("`num_retries: {text}` is out of range: 0 to {} retries (a `google.protobuf.UInt32Value`)", u32::MAX)
                } else {
                    "`num_retries` is not an unsigned 32-bit integer".to_string()
                },
                if whole { "out of range" } else { "invalid num_retries" },
                "Envoy rejects the route configuration, so retrylint reads no count from it (not the default 1 retry); write the number of retries after the first try (`num_retries: 2` is 3 tries).".to_string(),
            ));
        }
    }
    let rn = proto::get(tree, p, "retry_on");
    let tokens: Vec<String> = rn
        .and_then(|n| proto::text(tree, n))
        .map(|t| {
            t.split(',')
                .map(|x| x.trim().to_string())
                .filter(|x| !x.is_empty())
                .collect()
        })
        .unwrap_or_default();
    match rn {
        Some(n) if !tokens.is_empty() => {
            for t in &tokens {
                let known = RETRY_ON_TOKENS.contains(&t.as_str());
                if known {
                    continue;
                }
                let help = match suggest(t, RETRY_ON_TOKENS) {
                    Some(s) => format!("did you mean `{s}`? Envoy ignores `{t}`, so the retries it was meant to allow do not happen."),
                    None if t.parse::<u16>().is_ok() => format!("write `retriable-status-codes` and list {t} in `retriable_status_codes`: Envoy's `retry_on` takes no bare status codes (Istio's `retryOn` does)."),
                    None => format!("use one of Envoy's tokens ({}); Envoy ignores `{t}`.", RETRY_ON_TOKENS.join(", ")),
                };
                out.push(diag(n, format!("unknown `retry_on` token `{t}`"), "unknown token", help));
            }
        }
        _ => out.push(diag(p, "`retry_policy` without `retry_on` retries nothing".to_string(), "no retry_on", "name the failures to retry in `retry_on`, or remove the policy: without it Envoy creates no retry state (only `x-envoy-retry-on` request headers could add one).".to_string())),
    }
    let has = |t: &str| tokens.iter().any(|x| x == t);
    if let Some((_, v)) = proto::field(tree, p, "retriable_status_codes") {
        if !tree.items(v).is_empty() && !has("retriable-status-codes") {
            out.push(diag(v, "`retriable_status_codes` without `retriable-status-codes` in `retry_on` is never consulted".to_string(), "inert", "add `retriable-status-codes` to `retry_on` to retry these codes, or remove them.".to_string()));
        }
    } else if has("retriable-status-codes") {
        if let Some(n) = rn {
            out.push(diag(
                n,
                "`retriable-status-codes` with no `retriable_status_codes` retries no status"
                    .to_string(),
                "no codes",
                "list the codes in `retriable_status_codes`, or drop the token.".to_string(),
            ));
        }
    }
    if let Some((_, v)) = proto::field(tree, p, "retriable_headers") {
        if !tree.items(v).is_empty() && !has("retriable-headers") {
            out.push(diag(v, "`retriable_headers` without `retriable-headers` in `retry_on` is never consulted".to_string(), "inert", "add `retriable-headers` to `retry_on`, or remove the list: Envoy reads `retriable_headers` only for that token.".to_string()));
        }
    }
    out
}

/// A `google.protobuf.UInt32Value` (`num_retries`): `None` for anything else
/// (negative, above 2^32 - 1, not an integer), which Envoy rejects.
fn uint32(tree: &Tree, n: NodeId) -> Option<u32> {
    proto::int(tree, n).and_then(|v| u32::try_from(v).ok())
}

/// RL017 for a route's own settings that Envoy rejects: a `timeout` that is not a
/// proto Duration or beyond its range (read as no deadline, never as the default).
pub fn check_route_action(doc: &Arc<Loaded>, tree: &Tree, action: NodeId) -> Vec<Diagnostic> {
    ["timeout", "idle_timeout"]
        .into_iter()
        .filter_map(|key| {
            proto::get(tree, action, key).and_then(|n| invalid_duration(doc, tree, n, key))
        })
        .collect()
}

/// Whether `n` is written as a whole number (digits with an optional sign), so a
/// refused `num_retries` is out of range rather than malformed.
fn whole_number(tree: &Tree, n: NodeId) -> bool {
    let text = proto::text(tree, n).unwrap_or("");
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// RL017 when the duration `key` at `n` is not a `google.protobuf.Duration` Envoy
/// accepts: unreadable (`nope`, `1e309s`), or out of range: negative, or beyond
/// [`proto::MAX_DURATION_SECONDS`].
fn invalid_duration(doc: &Arc<Loaded>, tree: &Tree, n: NodeId, key: &str) -> Option<Diagnostic> {
    let written = tree.scalar(n).unwrap_or("").to_string();
    // `duration.proto`: seconds within ±315,576,000,000 (about 10,000 years).
    let range = "at most 315,576,000,000 s (a `google.protobuf.Duration`)";
    let (what, label) = match proto::duration_checked(tree, n).err()? {
        proto::DurationError::OutOfRange if written.is_empty() => {
            (format!("`{key}` is out of range: {range}"), "out of range")
        }
        proto::DurationError::OutOfRange => (
            format!("`{key}: {written}` is out of range: {range}"),
            "out of range",
        ),
        // A negative Duration is one (proto3 JSON `"-1s"`, `{seconds: -1}`), below
        // what Envoy takes: `DurationUtil` throws "Expected positive duration", and
        // the back-off intervals are `gt {}` in route_components.proto.
        proto::DurationError::Negative => {
            let lower = match key {
                "base_interval" | "max_interval" => {
                    "above 0 (`gt {}` in Envoy's route_components.proto)"
                }
                _ => "at least 0s (a `google.protobuf.Duration` Envoy takes: \"Expected positive duration\")",
            };
            let what = if written.is_empty() {
                format!("`{key}` is out of range: {lower}")
            } else {
                format!("`{key}: {written}` is out of range: {lower}")
            };
            (what, "out of range")
        }
        // Not range but syntax: the proto JSON reader takes digits only, so an
        // exponent (`1e309s`) is refused however large it is.
        proto::DurationError::Unreadable if written.is_empty() => (
            format!("`{key}` is not a proto Duration"),
            "invalid duration",
        ),
        proto::DurationError::Unreadable => (
            format!("`{key}` `{written}` is not a proto Duration"),
            "invalid duration",
        ),
    };
    Some(rl017_ineffective_setting::diagnostic(
        &At::new(doc, n),
        what,
        label,
        format!("Envoy rejects the configuration, so retrylint reads no value from it (not Envoy's default); write seconds with an `s`, e.g. `{key}: 2s` or `0.250s`."),
    ))
}
