//! Resilience4j `@Retry(name = "x")` (`io.github.resilience4j.retry.annotation`):
//! the numbers live in `resilience4j.retry.instances.x` of the Spring config, which
//! the config importers read; [`CodeClient::instance`] names it, and lowering takes
//! its settings when the run holds it. Otherwise the library defaults apply
//! (src: resilience4j/resilience4j 2.x `RetryConfig`: `DEFAULT_MAX_ATTEMPTS` = 3,
//! `DEFAULT_WAIT_DURATION` = 500 ms, no exception list = every exception;
//! `retry-configs.md` §7.1): 3 attempts, 500 ms fixed, no jitter.

use super::super::model::{CodeClient, Setting};
use super::super::CodeFile;
use super::ast::{self, FileIndex};
use crate::import::spring::exceptions;
use crate::import::Platform;
use crate::policy::model::Jitter;
use tree_sitter::Node;

const CLASS: &str = "io.github.resilience4j.retry.annotation.Retry";
const SRC: &str = "Resilience4j 2.x `RetryConfig`";

/// True when annotation `a` is Resilience4j's `@Retry`.
pub fn is_retry(file: &CodeFile<'_>, idx: &FileIndex, a: Node<'_>) -> bool {
    let name = ast::annotation_name(file, a);
    name == CLASS || (name == "Retry" && idx.imports_class(CLASS))
}

/// Reads `@Retry(name = ...)`.
pub fn read(file: &CodeFile<'_>, idx: &FileIndex, a: Node<'_>) -> CodeClient {
    let span = a.byte_range();
    let mut c = CodeClient::new(Platform::Resilience4j, "@Retry", span.clone());
    let args = ast::annotation_args(file, a);
    if let Some(v) = ast::arg(&args, &["name", "value"]) {
        match ast::string_value(file, idx, v) {
            Some(n) if !n.contains("${") => {
                c.instance = Some((n.clone(), v.byte_range()));
                c.names.push((n, v.byte_range()));
            }
            _ => c.findings.push(super::super::model::Finding {
                code: "RL019",
                span: v.byte_range(),
                message: format!(
                    "the Resilience4j instance name {} is not statically known: the library defaults are assumed",
                    file.text_of(v)
                ),
                label: "not statically known".into(),
                help: String::new(),
            }),
        }
    }
    c.attempts = Some(Setting::default(
        3,
        span.clone(),
        format!("`maxAttempts` = 3 attempts ({SRC}; no instance `resilience4j.retry.instances.<name>` in the run)"),
    ));
    c.retry_on = Some(Setting::default(
        exceptions::any_exception(),
        span.clone(),
        format!("no `retryExceptions`: every exception is retried ({SRC})"),
    ));
    c.backoff.base = Some(Setting::default(
        500.0,
        span.clone(),
        format!("`waitDuration` = 500 ms ({SRC})"),
    ));
    c.backoff.multiplier = Some(Setting::default(
        1.0,
        span.clone(),
        "a fixed wait (no exponential backoff)",
    ));
    c.backoff.jitter = Some(Setting::default(
        Jitter::None,
        span,
        format!("no `randomizedWaitFactor`: no jitter ({SRC})"),
    ));
    c
}
