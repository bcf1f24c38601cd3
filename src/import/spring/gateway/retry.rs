//! The Spring Cloud Gateway `Retry` filter's arguments (`retry-configs.md` §7.2;
//! `RetryGatewayFilterFactory.RetryConfig` of spring-cloud-gateway-server-webflux,
//! `RetryFilterFunctions.RetryConfig` of server-webmvc), each value with the node it
//! came from, the defaults where nothing was written, and RL017 for what Spring
//! ignores or rejects.
//!
//! - `retries` counts retries (default 3; must be above 0: `validate()` rejects the
//!   route otherwise).
//! - `statuses` (HttpStatus names, or codes) are OR'ed with `series` (default
//!   `[SERVER_ERROR]`): writing `statuses` does not remove the 5xx series
//!   (spring-cloud-gateway#1536); `series: []` does.
//! - `methods` (default `[GET]`) gates every retry, status and exception alike.
//! - `exceptions` (default `IOException`, `TimeoutException`; WebMVC adds its
//!   `RetryException`) map to transport signals.
//! - `backoff` (absent: no backoff; present: `firstBackoff` 5 ms, `maxBackoff`
//!   uncapped, `factor` 2, `basedOnPreviousValue` true), `jitter.randomFactor`
//!   (0.5 when the block is present), `timeout` (the time allowed for retrying).
//! - Durations bind with Spring Boot's rules: `10ms`, `5s`, ISO-8601 `PT5S`, and a
//!   bare number is milliseconds.

use super::defs::{relaxed, Arg, Definition};
use crate::policy::duration::Millis;
use crate::source::strict::suggest;
use crate::source::tree::{NodeId, Tree};

/// The WebFlux filter's shortcut field order (`shortcutFieldOrder()`).
pub const WEBFLUX_ORDER: &[&str] = &[
    "retries",
    "statuses",
    "methods",
    "backoff.firstBackoff",
    "backoff.maxBackoff",
    "backoff.factor",
    "backoff.basedOnPreviousValue",
    "jitter.randomFactor",
    "timeout",
];

/// The WebMVC filter's shortcut field order (`@Shortcut({"retries", "series",
/// "methods"})`).
pub const WEBMVC_ORDER: &[&str] = &["retries", "series", "methods"];

/// The WebFlux filter's fields (`routeId` is set by the gateway, accepted).
pub const WEBFLUX_FIELDS: &[&str] = &[
    "retries",
    "statuses",
    "series",
    "methods",
    "exceptions",
    "backoff.firstBackoff",
    "backoff.maxBackoff",
    "backoff.factor",
    "backoff.basedOnPreviousValue",
    "jitter.randomFactor",
    "timeout",
    "routeId",
];

/// The WebMVC filter's fields.
pub const WEBMVC_FIELDS: &[&str] = &[
    "retries",
    "series",
    "methods",
    "exceptions",
    "cacheBody",
    "backoff.firstBackoff",
    "backoff.maxBackoff",
    "backoff.factor",
    "backoff.basedOnPreviousValue",
];

/// The default `retries`.
pub const DEFAULT_RETRIES: i64 = 3;
/// `BackoffConfig.firstBackoff` when a backoff block is present, ms.
pub const DEFAULT_FIRST_BACKOFF_MS: Millis = 5.0;
/// `BackoffConfig.factor`.
pub const DEFAULT_FACTOR: f64 = 2.0;
/// `JitterConfig.randomFactor` when a jitter block is present.
pub const DEFAULT_RANDOM_FACTOR: f64 = 0.5;

/// A value and the node it was written at (`None`: the default).
#[derive(Debug, Clone)]
pub struct Val<T> {
    /// The value.
    pub value: T,
    /// Where it was written; `None` for the default.
    pub node: Option<NodeId>,
}

/// An exception class and the transport signals it stands for.
#[derive(Debug, Clone)]
pub struct ExceptionSignal {
    /// The class as written.
    pub class: String,
    /// Where.
    pub node: Option<NodeId>,
    /// The v1 signals (`connect-failure`, `reset`, `timeout`); empty when the class
    /// is not one retrylint can map.
    pub signals: Vec<crate::policy::model::Signal>,
}

/// The backoff block.
#[derive(Debug, Clone)]
pub struct Backoff {
    /// The node of the block (the first backoff argument for a shortcut).
    pub node: NodeId,
    /// `firstBackoff`, ms.
    pub first: Val<Millis>,
    /// `maxBackoff`, ms; `None`: uncapped.
    pub max: Option<Val<Millis>>,
    /// `factor`.
    pub factor: Val<f64>,
}

/// The effective configuration of one `Retry` filter.
#[derive(Debug, Clone)]
pub struct RetryFilter {
    /// The filter item (the node that turns the retry on).
    pub node: NodeId,
    /// `retries` (retries after the first try).
    pub retries: Val<i64>,
    /// `statuses`: each code with its node; the list node.
    pub statuses: Vec<(u16, NodeId)>,
    /// `series`: each class digit with its node (the default at `None`).
    pub series: Vec<(u8, Option<NodeId>)>,
    /// The `series` node when written.
    pub series_node: Option<NodeId>,
    /// `methods`, upper case; the node when written.
    pub methods: Val<Vec<String>>,
    /// `exceptions` (the defaults at `None`).
    pub exceptions: Vec<ExceptionSignal>,
    /// The `exceptions` node when written.
    pub exceptions_node: Option<NodeId>,
    /// `backoff`, when the block is present.
    pub backoff: Option<Backoff>,
    /// `jitter.randomFactor`, when the block is present.
    pub jitter: Option<Val<f64>>,
    /// The jitter node (for messages).
    pub jitter_node: Option<NodeId>,
    /// `timeout`, ms.
    pub timeout: Option<Val<Millis>>,
    /// True for the WebMVC filter.
    pub webmvc: bool,
}

/// A problem with one argument: where, what, and the help.
#[derive(Debug, Clone)]
pub struct Problem {
    /// The node.
    pub node: NodeId,
    /// The message.
    pub message: String,
    /// A short label.
    pub label: &'static str,
    /// The help.
    pub help: String,
}

/// HttpStatus names (Spring 6) and their codes.
const STATUS_NAMES: &[(&str, u16)] = &[
    ("CONTINUE", 100),
    ("SWITCHING_PROTOCOLS", 101),
    ("PROCESSING", 102),
    ("EARLY_HINTS", 103),
    ("CHECKPOINT", 103),
    ("OK", 200),
    ("CREATED", 201),
    ("ACCEPTED", 202),
    ("NON_AUTHORITATIVE_INFORMATION", 203),
    ("NO_CONTENT", 204),
    ("RESET_CONTENT", 205),
    ("PARTIAL_CONTENT", 206),
    ("MULTI_STATUS", 207),
    ("ALREADY_REPORTED", 208),
    ("IM_USED", 226),
    ("MULTIPLE_CHOICES", 300),
    ("MOVED_PERMANENTLY", 301),
    ("FOUND", 302),
    ("MOVED_TEMPORARILY", 302),
    ("SEE_OTHER", 303),
    ("NOT_MODIFIED", 304),
    ("USE_PROXY", 305),
    ("TEMPORARY_REDIRECT", 307),
    ("PERMANENT_REDIRECT", 308),
    ("BAD_REQUEST", 400),
    ("UNAUTHORIZED", 401),
    ("PAYMENT_REQUIRED", 402),
    ("FORBIDDEN", 403),
    ("NOT_FOUND", 404),
    ("METHOD_NOT_ALLOWED", 405),
    ("NOT_ACCEPTABLE", 406),
    ("PROXY_AUTHENTICATION_REQUIRED", 407),
    ("REQUEST_TIMEOUT", 408),
    ("CONFLICT", 409),
    ("GONE", 410),
    ("LENGTH_REQUIRED", 411),
    ("PRECONDITION_FAILED", 412),
    ("PAYLOAD_TOO_LARGE", 413),
    ("CONTENT_TOO_LARGE", 413),
    ("REQUEST_ENTITY_TOO_LARGE", 413),
    ("URI_TOO_LONG", 414),
    ("REQUEST_URI_TOO_LONG", 414),
    ("UNSUPPORTED_MEDIA_TYPE", 415),
    ("REQUESTED_RANGE_NOT_SATISFIABLE", 416),
    ("EXPECTATION_FAILED", 417),
    ("I_AM_A_TEAPOT", 418),
    ("UNPROCESSABLE_ENTITY", 422),
    ("UNPROCESSABLE_CONTENT", 422),
    ("LOCKED", 423),
    ("FAILED_DEPENDENCY", 424),
    ("TOO_EARLY", 425),
    ("UPGRADE_REQUIRED", 426),
    ("PRECONDITION_REQUIRED", 428),
    ("TOO_MANY_REQUESTS", 429),
    ("REQUEST_HEADER_FIELDS_TOO_LARGE", 431),
    ("UNAVAILABLE_FOR_LEGAL_REASONS", 451),
    ("INTERNAL_SERVER_ERROR", 500),
    ("NOT_IMPLEMENTED", 501),
    ("BAD_GATEWAY", 502),
    ("SERVICE_UNAVAILABLE", 503),
    ("GATEWAY_TIMEOUT", 504),
    ("HTTP_VERSION_NOT_SUPPORTED", 505),
    ("VARIANT_ALSO_NEGOTIATES", 506),
    ("INSUFFICIENT_STORAGE", 507),
    ("LOOP_DETECTED", 508),
    ("BANDWIDTH_LIMIT_EXCEEDED", 509),
    ("NOT_EXTENDED", 510),
    ("NETWORK_AUTHENTICATION_REQUIRED", 511),
];

/// HttpStatus.Series names and their first digit.
const SERIES_NAMES: &[(&str, u8)] = &[
    ("INFORMATIONAL", 1),
    ("SUCCESSFUL", 2),
    ("REDIRECTION", 3),
    ("CLIENT_ERROR", 4),
    ("SERVER_ERROR", 5),
];

/// HTTP methods Spring's `HttpMethod` names.
const METHODS: &[&str] = &[
    "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE",
];

/// Spring's lenient enum binding: case and `-`/`_` do not matter.
fn enum_eq(written: &str, name: &str) -> bool {
    relaxed(written) == relaxed(name)
}

/// An HttpStatus name or a code.
pub fn status_code(text: &str) -> Option<u16> {
    let t = text.trim();
    if let Ok(n) = t.parse::<u16>() {
        return (100..=599).contains(&n).then_some(n);
    }
    STATUS_NAMES
        .iter()
        .find(|(n, _)| enum_eq(t, n))
        .map(|(_, c)| *c)
}

/// A Series name (or a class written `5xx`/`5`).
pub fn series_digit(text: &str) -> Option<u8> {
    let t = text.trim();
    if let Some(d) = SERIES_NAMES
        .iter()
        .find(|(n, _)| enum_eq(t, n))
        .map(|(_, d)| *d)
    {
        return Some(d);
    }
    let digits = t.trim_end_matches(['x', 'X']);
    match digits.parse::<u8>() {
        Ok(d) if (1..=5).contains(&d) && digits.len() == 1 => Some(d),
        _ => None,
    }
}

/// The v1 signals of an exception class (§12: IOException → connect failure and
/// reset; TimeoutException → timeout); empty for a class retrylint cannot map.
pub fn exception_signals(class: &str) -> Vec<crate::policy::model::Signal> {
    use crate::policy::model::Signal;
    let simple = class.trim().rsplit('.').next().unwrap_or("").trim();
    match simple {
        "IOException" | "UncheckedIOException" | "WebClientRequestException" => {
            vec![Signal::ConnectFailure, Signal::Reset]
        }
        "ConnectException"
        | "ConnectTimeoutException"
        | "UnknownHostException"
        | "NoRouteToHostException" => vec![Signal::ConnectFailure],
        "SocketException"
        | "PrematureCloseException"
        | "ClosedChannelException"
        | "AbortedException" => vec![Signal::Reset],
        "TimeoutException"
        | "SocketTimeoutException"
        | "ReadTimeoutException"
        | "ResponseTimeoutException" => vec![Signal::Timeout],
        "Exception" | "Throwable" | "RuntimeException" => {
            vec![Signal::ConnectFailure, Signal::Reset, Signal::Timeout]
        }
        // WebMVC's RetryException is thrown for a retryable status: the series covers it.
        _ => Vec::new(),
    }
}

/// True when `text` is a whole number (digits, an optional sign) outside a Java
/// `int`.
fn over_java_int(text: &str) -> bool {
    whole_number(text).is_some_and(|n| i32::try_from(n).is_err())
}

/// True when `text` is a whole number (digits, an optional sign, an optional
/// Spring unit such as `ms`) outside a Java `long`.
fn over_java_long(text: &str) -> bool {
    let t = text.trim();
    let t = ["ns", "us", "ms", "s", "m", "h", "d"]
        .iter()
        .find_map(|u| t.strip_suffix(u))
        .unwrap_or(t);
    let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && t.parse::<i64>().is_err()
}

/// `text` as a whole number, saturated to `i128` bounds (so anything beyond a
/// `long` still compares as out of an `int`); `None` when it is not digits.
fn whole_number(text: &str) -> Option<i128> {
    let t = text.trim();
    let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(t.parse::<i128>().unwrap_or(if t.starts_with('-') {
        i128::MIN
    } else {
        i128::MAX
    }))
}

/// The problem of a whole-number `field` beyond its Java `int` (`min` the least
/// value Spring accepts): the route does not load, and no value is read from it.
fn out_of_range(node: NodeId, field: &str, text: &str, min: i64) -> Problem {
    Problem {
        node,
        message: format!(
            "`{field}: {text}` of the `Retry` filter is out of range: {min} to {} (a Java `int`)",
            i32::MAX
        ),
        label: "out of range",
        help: "Spring cannot bind it and the route does not load, so retrylint reads no value from it (not a huge or wrapped number)".to_string(),
    }
}

/// A Spring Boot duration: `10ms`, `5s`, `1m`, `2h`, `1d`, `500us`, `10ns`
/// (one unit), ISO-8601 (`PT0.5S`), or a bare number of milliseconds.
pub fn spring_duration(text: &str) -> Option<Millis> {
    let t = text.trim();
    if let Ok(n) = t.parse::<f64>() {
        return (n.is_finite() && n >= 0.0 && n.fract() == 0.0).then_some(n);
    }
    let lower = t.to_ascii_lowercase();
    if lower.starts_with("pt") || lower.starts_with('p') {
        return iso_duration(&lower);
    }
    let split = lower
        .find(|c: char| !(c.is_ascii_digit() || c == '-' || c == '+'))
        .filter(|&i| i > 0)?;
    let (num, unit) = lower.split_at(split);
    let n: i64 = num.parse().ok()?;
    let factor = match unit {
        "ns" => 0.000_001,
        "us" => 0.001,
        "ms" => 1.0,
        "s" => 1000.0,
        "m" => 60_000.0,
        "h" => 3_600_000.0,
        "d" => 86_400_000.0,
        _ => return None,
    };
    (n >= 0).then_some(n as f64 * factor)
}

fn iso_duration(lower: &str) -> Option<Millis> {
    let rest = lower.strip_prefix('p')?;
    let (days, time) = match rest.split_once('t') {
        Some((d, t)) => (d, t),
        None => (rest, ""),
    };
    let mut total = 0.0;
    if !days.is_empty() {
        let d: f64 = days.strip_suffix('d')?.parse().ok()?;
        total += d * 86_400_000.0;
    }
    let mut num = String::new();
    for c in time.chars() {
        if c.is_ascii_digit() || c == '.' {
            num.push(c);
            continue;
        }
        let n: f64 = num.parse().ok()?;
        num.clear();
        total += n * match c {
            'h' => 3_600_000.0,
            'm' => 60_000.0,
            's' => 1000.0,
            _ => return None,
        };
    }
    (num.is_empty() && total.is_finite() && total >= 0.0).then_some(total)
}

/// Reads the `Retry` filter `def` (`webmvc`: the WebMVC filter's fields). `Err`
/// when Spring rejects the filter (the route does not load), with the problem; the
/// `Ok` side carries problems with single arguments Spring ignores.
pub fn read(
    tree: &Tree,
    def: &Definition,
    webmvc: bool,
) -> Result<(RetryFilter, Vec<Problem>), Problem> {
    let order = if webmvc { WEBMVC_ORDER } else { WEBFLUX_ORDER };
    let fields = if webmvc {
        WEBMVC_FIELDS
    } else {
        WEBFLUX_FIELDS
    };
    let mut problems = Vec::new();
    let platform = if webmvc {
        "Spring Cloud Gateway (WebMVC)"
    } else {
        "Spring Cloud Gateway"
    };

    // Unknown keys: Spring's binder ignores them, so the setting meant does not apply.
    for a in &def.args {
        let Some(key) = &a.key else { continue };
        if fields.iter().any(|f| super::defs::relaxed_key_eq(f, key)) {
            continue;
        }
        let help = match suggest(key, fields) {
            Some(s) => format!("did you mean `{s}`? {platform} ignores `{key}`, so the setting it was meant to make does not apply."),
            None => format!("{platform}'s `Retry` filter has no `{key}`: it is ignored. Known arguments: {}.", fields.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")),
        };
        problems.push(Problem {
            node: a.node,
            message: format!("unknown argument `{key}` of the `Retry` filter"),
            label: "unknown key",
            help,
        });
    }
    for a in def.extra_positional(order) {
        problems.push(Problem {
            node: a.node,
            message: format!(
                "the `Retry` shortcut has more arguments than its {} fields: `{}` is ignored",
                order.len(),
                a.text().unwrap_or("")
            ),
            label: "extra argument",
            help: format!(
                "the shortcut's fields are, in order: {}; a comma separates fields, so a list (`GET,POST`) needs the full form (`name: Retry` with `args:`)",
                order.join(", ")
            ),
        });
    }

    // A placeholder without a default: the value depends on the environment.
    for f in fields {
        if let Some(a) = def.written_arg(f, order) {
            if let Some(raw) = &a.unresolved {
                problems.push(Problem {
                    node: a.node,
                    message: format!(
                        "`{f}` of the `Retry` filter is `{raw}`, a placeholder without a default: its value depends on the environment"
                    ),
                    label: "unknown value",
                    help: "retrylint cannot know it and reads Spring Cloud Gateway's default instead; give the placeholder a default (`${NAME:3}`) to check the value that runs".to_string(),
                });
            }
        }
    }
    let arg = |f: &str| def.arg(f, order);
    let invalid = |a: &Arg, field: &str, what: &str| Problem {
        node: a.node,
        message: format!(
            "`{field}: {}` of the `Retry` filter is not {what}",
            a.text().unwrap_or("")
        ),
        label: "invalid value",
        help: format!("Spring cannot bind it and the route does not load; write {what}"),
    };

    let retries = match arg("retries") {
        None => Val {
            value: DEFAULT_RETRIES,
            node: None,
        },
        // `RetryConfig.retries` is a Java `int`: a whole number above it does not
        // bind (the route does not load), never a huge count.
        Some(a) if over_java_int(a.text().unwrap_or("")) => {
            return Err(out_of_range(a.node, "retries", a.text().unwrap_or(""), 1))
        }
        Some(a) => match a.text().and_then(|t| t.trim().parse::<i64>().ok()) {
            Some(n) if n > 0 => Val {
                value: n,
                node: Some(a.node),
            },
            Some(_) => {
                return Err(Problem {
                    node: a.node,
                    message: format!(
                        "`retries: {}` of the `Retry` filter is out of range: 1 to {} (retries must be greater than 0)",
                        a.text().unwrap_or(""),
                        i32::MAX
                    ),
                    label: "out of range",
                    help: "Spring Cloud Gateway's `RetryConfig.validate()` fails, so the route does not load; remove the `Retry` filter to turn retries off".to_string(),
                })
            }
            None => return Err(invalid(a, "retries", "an integer")),
        },
    };

    let mut statuses = Vec::new();
    // WebMVC's filter has no `statuses` (reported above as unknown).
    if let Some(a) = arg("statuses").filter(|_| !webmvc) {
        for (t, n) in a.list() {
            match status_code(&t) {
                Some(c) => statuses.push((c, if a.is_list { n } else { a.node })),
                None => {
                    return Err(invalid(
                        a,
                        "statuses",
                        "an HttpStatus name (`SERVICE_UNAVAILABLE`) or code",
                    ))
                }
            }
        }
    }
    let (series, series_node) = match arg("series") {
        None => (vec![(5, None)], None),
        Some(a) => {
            let mut out = Vec::new();
            for (t, n) in a.list() {
                match series_digit(&t) {
                    Some(d) => out.push((d, Some(if a.is_list { n } else { a.node }))),
                    None => {
                        return Err(invalid(
                            a,
                            "series",
                            "an HttpStatus.Series name (`SERVER_ERROR`)",
                        ))
                    }
                }
            }
            (out, Some(a.node))
        }
    };
    let methods = match arg("methods") {
        None => Val {
            value: vec!["GET".to_string()],
            node: None,
        },
        Some(a) => {
            let mut out = Vec::new();
            for (t, _) in a.list() {
                let m = t.trim().to_ascii_uppercase();
                if !METHODS.contains(&m.as_str()) {
                    return Err(invalid(a, "methods", "an HTTP method (`GET`, `POST`)"));
                }
                if !out.contains(&m) {
                    out.push(m);
                }
            }
            if out.is_empty() {
                return Err(Problem {
                    node: a.node,
                    message: "`methods` of the `Retry` filter is empty".to_string(),
                    label: "empty methods",
                    help: "Spring Cloud Gateway rejects it (\"methods may not be empty\") and the route does not load".to_string(),
                });
            }
            Val {
                value: out,
                node: Some(a.node),
            }
        }
    };
    let (exceptions, exceptions_node): (Vec<ExceptionSignal>, Option<NodeId>) =
        match arg("exceptions") {
            None => {
                let mut defaults = vec!["java.io.IOException", "TimeoutException"];
                if webmvc {
                    defaults.push("RetryException");
                }
                (
                    defaults
                        .into_iter()
                        .map(|c| ExceptionSignal {
                            class: c.to_string(),
                            node: None,
                            signals: exception_signals(c),
                        })
                        .collect(),
                    None,
                )
            }
            Some(a) => (
                a.list()
                    .into_iter()
                    .map(|(c, n)| ExceptionSignal {
                        signals: exception_signals(&c),
                        class: c,
                        node: Some(if a.is_list { n } else { a.node }),
                    })
                    .collect(),
                Some(a.node),
            ),
        };
    if statuses.is_empty() && series.is_empty() && exceptions.is_empty() {
        return Err(Problem {
            node: def.node,
            message: "the `Retry` filter has no `series`, `statuses` or `exceptions`".to_string(),
            label: "nothing to retry on",
            help: "Spring Cloud Gateway rejects it (\"series, status and exceptions may not all be empty\") and the route does not load".to_string(),
        });
    }

    let duration = |f: &str| -> Result<Option<Val<Millis>>, Problem> {
        match arg(f) {
            None => Ok(None),
            // A bare number of milliseconds binds to a Java `long`: a longer one
            // does not bind (the route does not load), never a huge duration.
            Some(a) if over_java_long(a.text().unwrap_or("")) => Err(Problem {
                node: a.node,
                message: format!(
                    "`{f}: {}` of the `Retry` filter is out of range: at most {}ms (a Java `long` of milliseconds)",
                    a.text().unwrap_or(""),
                    i64::MAX
                ),
                label: "out of range",
                help: "Spring cannot bind it and the route does not load, so retrylint reads no value from it; write a duration such as `10ms` or `5s`".to_string(),
            }),
            Some(a) => match a.text().and_then(spring_duration) {
                Some(ms) => Ok(Some(Val {
                    value: ms,
                    node: Some(a.node),
                })),
                None => Err(invalid(
                    a,
                    f,
                    "a duration (`10ms`, `5s`; a bare number is milliseconds)",
                )),
            },
        }
    };
    let backoff = match def.has_block("backoff", order) {
        None => None,
        Some(node) => {
            let first = duration("backoff.firstBackoff")?.unwrap_or(Val {
                value: DEFAULT_FIRST_BACKOFF_MS,
                node: None,
            });
            let max = duration("backoff.maxBackoff")?;
            let factor = match arg("backoff.factor") {
                None => Val {
                    value: DEFAULT_FACTOR,
                    node: None,
                },
                // `BackoffConfig.factor` is a Java `int` too.
                Some(a) if over_java_int(a.text().unwrap_or("")) => {
                    return Err(out_of_range(
                        a.node,
                        "backoff.factor",
                        a.text().unwrap_or(""),
                        i64::from(i32::MIN),
                    ))
                }
                Some(a) => match a.text().and_then(|t| t.trim().parse::<i64>().ok()) {
                    Some(f) => Val {
                        value: f as f64,
                        node: Some(a.node),
                    },
                    None => return Err(invalid(a, "backoff.factor", "an integer")),
                },
            };
            // A full-form block's node is the `backoff` mapping (the parent of its
            // first key's value), for a shortcut the item.
            Some(Backoff {
                node: block_node(tree, def, node, "backoff"),
                first,
                max,
                factor,
            })
        }
    };
    let jitter_node = if webmvc {
        None
    } else {
        def.has_block("jitter", order)
    };
    let jitter = match jitter_node {
        None => None,
        Some(_) => match arg("jitter.randomFactor") {
            None => Some(Val {
                value: DEFAULT_RANDOM_FACTOR,
                node: None,
            }),
            Some(a) => match a.text().and_then(|t| t.trim().parse::<f64>().ok()) {
                Some(f) if (0.0..=1.0).contains(&f) => Some(Val {
                    value: f,
                    node: Some(a.node),
                }),
                _ => {
                    return Err(Problem {
                        node: a.node,
                        message: format!(
                            "`jitter.randomFactor: {}` of the `Retry` filter is not between 0 and 1",
                            a.text().unwrap_or("")
                        ),
                        label: "invalid jitter",
                        help: "Spring Cloud Gateway rejects it (\"random factor must be between 0 and 1\") and the route does not load".to_string(),
                    })
                }
            },
        },
    };
    let timeout = if webmvc { None } else { duration("timeout")? };
    Ok((
        RetryFilter {
            node: def.node,
            retries,
            statuses,
            series,
            series_node,
            methods,
            exceptions,
            exceptions_node,
            backoff,
            jitter,
            jitter_node: jitter_node.map(|n| block_node(tree, def, n, "jitter")),
            timeout,
            webmvc,
        },
        problems,
    ))
}

/// The node of a block whose first argument is at `first`: for the full form the
/// mapping holding it when that mapping is a nested block, else `first`.
fn block_node(tree: &Tree, def: &Definition, first: NodeId, block: &str) -> NodeId {
    if def.shortcut {
        return def.node;
    }
    tree.parent(first)
        .filter(|&p| {
            tree.key_of(p)
                .and_then(|k| tree.scalar(k))
                .is_some_and(|k| relaxed(k) == relaxed(block))
        })
        .unwrap_or(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_bind_like_spring_boot() {
        assert_eq!(spring_duration("10ms"), Some(10.0));
        assert_eq!(spring_duration("5s"), Some(5000.0));
        assert_eq!(spring_duration("50"), Some(50.0));
        assert_eq!(spring_duration("PT0.5S"), Some(500.0));
        assert_eq!(spring_duration("1m"), Some(60_000.0));
        assert_eq!(spring_duration("5 seconds"), None);
        assert_eq!(spring_duration("1m30s"), None, "one unit only");
    }

    #[test]
    fn statuses_and_series_by_name_or_code() {
        assert_eq!(status_code("INTERNAL_SERVER_ERROR"), Some(500));
        assert_eq!(status_code("service-unavailable"), Some(503));
        assert_eq!(status_code("503"), Some(503));
        assert_eq!(status_code("BAD_GATEWAYY"), None);
        assert_eq!(series_digit("SERVER_ERROR"), Some(5));
        assert_eq!(series_digit("client_error"), Some(4));
        assert_eq!(series_digit("5xx"), Some(5));
    }

    #[test]
    fn exceptions_map_to_transport_signals() {
        use crate::policy::model::Signal;
        assert_eq!(
            exception_signals("java.io.IOException"),
            [Signal::ConnectFailure, Signal::Reset]
        );
        assert_eq!(
            exception_signals("java.util.concurrent.TimeoutException"),
            [Signal::Timeout]
        );
        assert!(exception_signals("com.example.MyException").is_empty());
    }
}
