//! `@Retryable`: Spring Retry (`org.springframework.retry.annotation`; src:
//! spring-projects/spring-retry@c8977dda `Retryable.java`, `Backoff.java`,
//! `BackOffPolicyBuilder.java`) and Spring Framework 7 (`org.springframework.
//! resilience.annotation`; src: spring-projects/spring-framework@120bdc8f
//! `spring-context/.../resilience/annotation/Retryable.java`). Same name, different
//! package and counting: the import decides (`retry-in-code.md` §1.3).
//!
//! Neither knows the HTTP method: the calls in the annotated method decide it. The
//! exception lists map to signals as for Resilience4j
//! ([`crate::import::spring::exceptions`]); no list retries every exception.

use super::super::lower::MAY_RETRY_ANYTHING;
use super::super::model::{CodeClient, Setting};
use super::super::CodeFile;
use super::ast::{self, FileIndex};
use super::settings::{self, Num};
use crate::import::spring::exceptions::{self, Mapped};
use crate::import::Platform;
use crate::policy::model::{Jitter, JitterFactor, Signal};
use tree_sitter::Node;

/// Which `@Retryable` an annotation is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Flavour {
    /// Spring Retry 2.x (`maxAttempts`, `@Backoff`).
    SpringRetry,
    /// Spring Framework 7 (`maxRetries`, `delay`, `jitter`).
    Framework7,
    /// No import says which: read as Spring Retry, its attempts assumed (RL019).
    Unknown,
}

const SR: &str = "org.springframework.retry.annotation.Retryable";
const SF7: &str = "org.springframework.resilience.annotation.Retryable";
const SR_SRC: &str = "spring-retry 2.0 (spring-projects/spring-retry@c8977dda)";
const SF7_SRC: &str = "Spring Framework 7.0 (spring-projects/spring-framework@120bdc8f)";

/// The flavour of `@Retryable` annotation `a`, or `None` when it is another
/// library's `@Retryable` (Micronaut, an application's own).
pub fn flavour(file: &CodeFile<'_>, idx: &FileIndex, a: Node<'_>) -> Option<Flavour> {
    let name = ast::annotation_name(file, a);
    if name == SR {
        return Some(Flavour::SpringRetry);
    }
    if name == SF7 {
        return Some(Flavour::Framework7);
    }
    if name != "Retryable" {
        return None;
    }
    match (idx.imports_class(SR), idx.imports_class(SF7)) {
        (true, false) => return Some(Flavour::SpringRetry),
        (false, true) => return Some(Flavour::Framework7),
        _ => {}
    }
    if idx.imported_from_elsewhere(
        "Retryable",
        &[
            "org.springframework.retry.annotation",
            "org.springframework.resilience.annotation",
        ],
    ) {
        return None;
    }
    let args = ast::annotation_args(file, a);
    let has = |k: &[&str]| k.iter().any(|k| args.iter().any(|(a, _)| a == k));
    if has(&[
        "maxRetries",
        "maxRetriesString",
        "jitter",
        "jitterString",
        "includes",
        "timeout",
        "delay",
        "delayString",
        "predicate",
    ]) {
        return Some(Flavour::Framework7);
    }
    if has(&[
        "maxAttempts",
        "maxAttemptsExpression",
        "backoff",
        "retryFor",
        "include",
        "noRetryFor",
        "exclude",
    ]) {
        return Some(Flavour::SpringRetry);
    }
    Some(Flavour::Unknown)
}

/// Reads `@Retryable` annotation `a`.
pub fn read(file: &CodeFile<'_>, idx: &FileIndex, a: Node<'_>, flavour: Flavour) -> CodeClient {
    match flavour {
        Flavour::Framework7 => framework7(file, idx, a),
        _ => spring_retry(file, idx, a, flavour),
    }
}

fn spring_retry(file: &CodeFile<'_>, idx: &FileIndex, a: Node<'_>, flavour: Flavour) -> CodeClient {
    let span = a.byte_range();
    let mut c = CodeClient::new(Platform::SpringRetry, "@Retryable", span.clone());
    let args = ast::annotation_args(file, a);
    c.attempts = Some(settings::setting(
        file,
        idx,
        &args,
        &["maxAttempts"],
        &["maxAttemptsExpression"],
        span.clone(),
        (
            3,
            &format!("`maxAttempts` = 3 attempts ({SR_SRC} `Retryable.java`)"),
        ),
        |n| n.round() as i64,
    ));
    if flavour == Flavour::Unknown {
        if let Some(s) = &c.attempts {
            if s.known != super::super::model::Known::Literal {
                c.attempts = Some(Setting::assumed(
                    3,
                    span.clone(),
                    "@Retryable",
                    "Spring Retry's 3 attempts (no import says whether this is Spring Retry or Spring Framework 7, whose default is 4 attempts)",
                ));
            }
        }
    }
    c.notes.push((
        span.clone(),
        "Spring Retry counts attempts: `maxAttempts` includes the first call".to_string(),
    ));
    c.retry_on = Some(exception_lists(
        file,
        &args,
        &["value", "include", "retryFor"],
        &span,
        &mut c.notes,
        SR_SRC,
        "`retryFor` = {}",
    ));
    // Spring Retry evaluates `exceptionExpression` after the exception lists
    // matched: it can only narrow them. retrylint cannot evaluate SpEL, so it reads
    // the expression as true (the reading that retries; issue 42) and says so.
    if let Some(e) = ast::arg(&args, &["exceptionExpression"]) {
        c.findings.push(super::super::model::Finding {
            code: "RL019",
            span: e.byte_range(),
            message: format!(
                "spring-retry: `exceptionExpression` {} is evaluated at run time, not known statically; assumed true, so every exception `@Retryable` lists is retried",
                file.text_of(e)
            ),
            label: "not known statically".into(),
            help: String::new(),
        });
    }
    // @Backoff (default `@Backoff()`: 1000 ms fixed).
    let backoff = ast::arg(&args, &["backoff"]).filter(|b| b.kind() == "annotation");
    let bargs = backoff
        .map(|b| ast::annotation_args(file, b))
        .unwrap_or_default();
    let bspan = backoff.map_or(span.clone(), |b| b.byte_range());
    let delay_src = format!("`@Backoff(delay)` = 1000 ms ({SR_SRC} `Backoff.java`)");
    // `delay` wins when non-zero, else `value`.
    let delay = match settings::num(file, idx, &bargs, &["delay"], &["delayExpression"]) {
        Some(Num::Known(n, _)) if n.abs() < f64::EPSILON => None,
        other => other,
    }
    .or_else(|| settings::num(file, idx, &bargs, &["value"], &[]));
    let base = match delay {
        Some(Num::Known(n, s)) => Setting::literal(n, s),
        Some(Num::Unknown(t, s)) => {
            Setting::assumed(1000.0, s, t, format!("the library default: {delay_src}"))
        }
        None => Setting::default(1000.0, bspan.clone(), delay_src),
    };
    let multiplier = settings::setting(
        file,
        idx,
        &bargs,
        &["multiplier"],
        &["multiplierExpression"],
        bspan.clone(),
        (0.0, &format!("`multiplier` = 0: a fixed delay ({SR_SRC})")),
        |n| n,
    );
    let max_delay = settings::num(file, idx, &bargs, &["maxDelay"], &["maxDelayExpression"]);
    let random = ast::arg(&bargs, &["random"]).map(|v| file.text_of(v) == "true");
    let exponential = multiplier.value > 0.0;
    if exponential {
        // maxDelay below delay: ExponentialBackOffPolicy.DEFAULT_MAX_INTERVAL.
        c.backoff.cap = Some(match max_delay {
            Some(Num::Known(m, s)) if m > base.value => Setting::literal(m, s),
            Some(Num::Unknown(t, s)) => Setting::assumed(30_000.0, s, t, "30000 ms"),
            _ => Setting::default(
                30_000.0,
                bspan.clone(),
                format!("`maxDelay` below `delay`: 30000 ms ({SR_SRC} `ExponentialBackOffPolicy`)"),
            ),
        });
        c.backoff.multiplier = Some(multiplier);
    } else {
        c.backoff.multiplier = Some(Setting {
            value: 1.0,
            ..multiplier
        });
        if let (Some(Num::Known(m, s)), Some(true)) = (&max_delay, random) {
            if *m > base.value {
                c.backoff.cap = Some(Setting::literal(*m, s.clone()));
            }
        }
    }
    c.backoff.jitter = Some(match (random, ast::arg(&bargs, &["random"])) {
        (Some(true), Some(v)) => {
            c.notes.push((
                v.byte_range(),
                if exponential {
                    "`random = true`: each delay is uniform between d and d × multiplier (ExponentialRandomBackOffPolicy)".to_string()
                } else {
                    "`random = true`: each delay is uniform between `delay` and `maxDelay` (UniformRandomBackOffPolicy)".to_string()
                },
            ));
            Setting::literal(Jitter::Equal, v.byte_range())
        }
        (_, Some(v)) if file.text_of(v) != "false" => Setting::assumed(
            Jitter::None,
            v.byte_range(),
            file.text_of(v),
            "no jitter (the default)",
        ),
        (_, Some(v)) => Setting::literal(Jitter::None, v.byte_range()),
        _ => Setting::default(
            Jitter::None,
            bspan.clone(),
            format!("`random` = false: no jitter ({SR_SRC})"),
        ),
    });
    c.backoff.base = Some(base);
    c
}

fn framework7(file: &CodeFile<'_>, idx: &FileIndex, a: Node<'_>) -> CodeClient {
    let span = a.byte_range();
    let mut c = CodeClient::new(
        Platform::SpringRetry,
        "@Retryable (Spring Framework 7)",
        span.clone(),
    );
    let args = ast::annotation_args(file, a);
    let unit = ast::arg(&args, &["timeUnit"]).map(|v| file.text_of(v));
    let per_unit = match unit.map(|u| u.rsplit('.').next().unwrap_or(u)) {
        None | Some("MILLISECONDS") => Some(1.0),
        Some("SECONDS") => Some(1000.0),
        Some("MINUTES") => Some(60_000.0),
        Some("HOURS") => Some(3_600_000.0),
        Some("MICROSECONDS") => Some(0.001),
        Some("NANOSECONDS") => Some(0.000_001),
        _ => None,
    };
    let scale = per_unit.unwrap_or(1.0);
    if per_unit.is_none() {
        if let Some(v) = ast::arg(&args, &["timeUnit"]) {
            c.findings.push(super::super::model::Finding {
                code: "RL019",
                span: v.byte_range(),
                message: format!(
                    "Spring Framework 7 `timeUnit` {} is not statically known: milliseconds assumed",
                    file.text_of(v)
                ),
                label: "unit not known".into(),
                help: String::new(),
            });
        }
    }
    c.attempts = Some(settings::setting(
        file,
        idx,
        &args,
        &["maxRetries"],
        &["maxRetriesString"],
        span.clone(),
        (
            4,
            &format!("`maxRetries` = 3 retries, 4 attempts ({SF7_SRC} `Retryable.java`)"),
        ),
        |n| (n.round() as i64).saturating_add(1),
    ));
    c.notes.push((
        span.clone(),
        "Spring Framework 7 counts retries: attempts = 1 + `maxRetries`".to_string(),
    ));
    c.retry_on = Some(exception_lists(
        file,
        &args,
        &["value", "includes"],
        &span,
        &mut c.notes,
        SF7_SRC,
        "`includes` = {}",
    ));
    if let Some(p) = ast::arg(&args, &["predicate"]) {
        c.retry_on = Some(Setting::assumed(
            MAY_RETRY_ANYTHING.to_vec(),
            p.byte_range(),
            file.text_of(p),
            "a custom predicate: may retry anything",
        ));
    }
    let base = settings::setting(
        file,
        idx,
        &args,
        &["delay"],
        &["delayString"],
        span.clone(),
        (1000.0, &format!("`delay` = 1000 ms ({SF7_SRC})")),
        |n| n * scale,
    );
    let jitter_ms = settings::setting(
        file,
        idx,
        &args,
        &["jitter"],
        &["jitterString"],
        span.clone(),
        (0.0, &format!("`jitter` = 0: no jitter ({SF7_SRC})")),
        |n| n * scale,
    );
    c.backoff.jitter = Some(if jitter_ms.value > 0.0 && base.value > 0.0 {
        match JitterFactor::new((jitter_ms.value / base.value).min(1.0)) {
            Some(f) => {
                c.notes.push((
                    jitter_ms.span.clone(),
                    "Spring Framework 7 adds or subtracts up to `jitter` ms to each delay".into(),
                ));
                Setting {
                    value: Jitter::Proportional(f),
                    span: jitter_ms.span.clone(),
                    known: jitter_ms.known.clone(),
                }
            }
            None => Setting {
                value: Jitter::None,
                span: jitter_ms.span.clone(),
                known: jitter_ms.known.clone(),
            },
        }
    } else {
        Setting {
            value: Jitter::None,
            span: jitter_ms.span.clone(),
            known: jitter_ms.known.clone(),
        }
    });
    c.backoff.multiplier = Some(settings::setting(
        file,
        idx,
        &args,
        &["multiplier"],
        &["multiplierString"],
        span.clone(),
        (
            1.0,
            &format!("`multiplier` = 1.0: a fixed delay ({SF7_SRC})"),
        ),
        |n| n,
    ));
    match settings::num(file, idx, &args, &["maxDelay"], &["maxDelayString"]) {
        Some(Num::Known(m, s)) => c.backoff.cap = Some(Setting::literal(m * scale, s)),
        Some(Num::Unknown(t, s)) => c.findings.push(super::super::model::Finding {
            code: "RL019",
            span: s,
            message: format!(
                "Spring Framework 7 `maxDelay` {t} is not statically known: no cap assumed (the default)"
            ),
            label: "not statically known".into(),
            help: String::new(),
        }),
        None => {}
    }
    c.backoff.base = Some(base);
    match settings::num(file, idx, &args, &["timeout"], &["timeoutString"]) {
        Some(Num::Known(t, s)) if t > 0.0 => c.deadline = Some(Setting::literal(t * scale, s)),
        Some(Num::Unknown(t, s)) => c.findings.push(super::super::model::Finding {
            code: "RL019",
            span: s,
            message: format!(
                "Spring Framework 7 `timeout` {t} is not statically known: no overall timeout assumed (the default)"
            ),
            label: "not statically known".into(),
            help: String::new(),
        }),
        _ => {}
    }
    c
}

/// The signals of exception lists `keys` (`{}` or absent: every exception).
fn exception_lists(
    file: &CodeFile<'_>,
    args: &[(String, Node<'_>)],
    keys: &[&str],
    span: &std::ops::Range<usize>,
    notes: &mut Vec<(std::ops::Range<usize>, String)>,
    src: &str,
    empty: &str,
) -> Setting<Vec<Signal>> {
    let lists: Vec<Node<'_>> = args
        .iter()
        .filter(|(k, _)| keys.contains(&k.as_str()))
        .map(|(_, v)| *v)
        .collect();
    let classes: Vec<Node<'_>> = lists.iter().flat_map(|l| ast::elements(*l)).collect();
    if classes.is_empty() {
        return Setting::default(
            exceptions::any_exception(),
            span.clone(),
            format!("{empty}: every exception is retried ({src})"),
        );
    }
    let mut signals: Vec<Signal> = Vec::new();
    for e in &classes {
        let t = file.text_of(*e);
        let class = t.trim_end_matches(".class").trim();
        match exceptions::map(class) {
            Mapped::Any => signals.extend(exceptions::any_exception()),
            Mapped::Signals(s) => signals.extend(s),
            Mapped::Unmapped => notes.push((
                e.byte_range(),
                format!("`{class}` is not an HTTP client exception retrylint knows: which failures raise it is not known, so it adds no signal"),
            )),
        }
    }
    let mut seen = Vec::new();
    signals.retain(|s| {
        if seen.contains(s) {
            false
        } else {
            seen.push(*s);
            true
        }
    });
    let at = lists.first().map_or(span.clone(), |l| l.byte_range());
    Setting::literal(signals, at)
}
