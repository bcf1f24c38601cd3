//! Turning a folded argument into a [`Setting`] in policy units: retry counts to
//! total attempts, `time.Duration`s to milliseconds. A bare integer where a
//! `time.Duration` is expected counts nanoseconds (Go's `time.Duration` is an
//! `int64` of ns): the value is used as written (5 ns) and RL017 says so. A value
//! that is not statically known is an assumed value (RL019).

use super::eval::{self, Val};
use super::Ctx;
use crate::import::code::model::{CodeClient, Finding, Setting};
use tree_sitter::Node;

/// Milliseconds per nanosecond.
const MS_PER_NS: f64 = 1e-6;

/// A duration for humans: "5 ns", "100 ms", "2 s", "1.5 min".
pub fn human_ns(ns: f64) -> String {
    let abs = ns.abs();
    if abs < 1e3 {
        format!("{ns} ns")
    } else if abs < 1e6 {
        format!("{} µs", ns / 1e3)
    } else if abs < 1e9 {
        format!("{} ms", ns / 1e6)
    } else if abs < 60e9 {
        format!("{} s", ns / 1e9)
    } else {
        format!("{} min", ns / 60e9)
    }
}

/// Folds `node`; an identifier this file does not bind is looked up in the other
/// files of the package ([`super::package`]), with a note on `c` saying where.
pub fn value(ctx: &Ctx<'_>, c: &mut CodeClient, node: Node<'_>) -> Val {
    let v = eval::eval(ctx.file.text, &ctx.imports, &ctx.consts, node);
    if !matches!(v, Val::Unknown(_)) || node.kind() != "identifier" {
        return v;
    }
    let name = ctx.text(node);
    match ctx.sibling(name) {
        Some((found, file)) => {
            c.notes.push((
                node.byte_range(),
                format!("`{name}` is declared in {file} (same package)"),
            ));
            found.clone()
        }
        None => v,
    }
}

/// A retry count (`SetRetryCount(3)`, `RetryMax: 5`) as total attempts (count + 1).
/// `assumed_retries`: what an unknown value stands for, with `why`.
pub fn retries(
    ctx: &Ctx<'_>,
    c: &mut CodeClient,
    node: Node<'_>,
    assumed_retries: i64,
    why: &str,
) -> Setting<i64> {
    match value(ctx, c, node) {
        Val::Int(n) => Setting::literal(n.max(0).saturating_add(1), node.byte_range()),
        // An integer constant beyond an `int64`: the Go compiler rejects it
        // ("constant overflows int"), so no count is read (not the default).
        _ if whole_literal(ctx.text(node)) => Setting::refused(
            assumed_retries + 1,
            node.byte_range(),
            format!(
                "`{}` is out of range: at most {} (a Go `int`; the compiler rejects this constant)",
                ctx.text(node),
                i64::MAX
            ),
        ),
        _ => Setting::assumed(
            assumed_retries + 1,
            node.byte_range(),
            ctx.text(node),
            format!("{why} ({} attempts)", assumed_retries + 1),
        ),
    }
}

/// A `time.Duration` argument or field in ms. `setter` names it for messages
/// (`SetRetryWaitTime`, `RetryWaitMin`); `default_ms` and `why` say what an
/// unknown value stands for. A bare integer (or an untyped constant) is RL017.
pub fn duration(
    ctx: &Ctx<'_>,
    c: &mut CodeClient,
    node: Node<'_>,
    setter: &str,
    default_ms: f64,
    why: &str,
) -> Setting<f64> {
    let span = node.byte_range();
    match value(ctx, c, node) {
        // Beyond a `time.Duration` (an int64 of ns): the Go compiler rejects the
        // constant ("overflows time.Duration"), so no duration is read.
        Val::Dur(ns) | Val::Float(ns) if ns.is_nan() || ns.abs() > i64::MAX as f64 => Setting::refused(
            default_ms,
            span,
            format!(
                "`{}` is out of range: at most {} (Go's `time.Duration`, an int64 of nanoseconds; the compiler rejects this constant)",
                ctx.text(node),
                crate::import::duration::GO_MAX_TEXT
            ),
        ),
        Val::Dur(ns) => Setting::literal(ns * MS_PER_NS, span),
        Val::Int(n) => {
            bare_number(ctx, c, node, setter, n as f64);
            Setting::literal(n as f64 * MS_PER_NS, span)
        }
        Val::Float(f) => {
            bare_number(ctx, c, node, setter, f.trunc());
            Setting::literal(f.trunc() * MS_PER_NS, span)
        }
        _ => Setting::assumed(default_ms, span, ctx.text(node), why.to_string()),
    }
}

/// True when `text` is a decimal integer literal (digits, an optional sign).
fn whole_literal(text: &str) -> bool {
    let t = text.trim().replace('_', "");
    let digits = t.strip_prefix(['-', '+']).unwrap_or(&t);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// RL017: a bare number passed as a `time.Duration` (nanoseconds).
fn bare_number(ctx: &Ctx<'_>, c: &mut CodeClient, node: Node<'_>, setter: &str, ns: f64) {
    if ns == 0.0 {
        return;
    }
    let written = ctx.text(node);
    // `SetRetryWaitTime(5)` for a setter, `RetryWaitMin: 5` for a struct field.
    let shown = if setter.starts_with("Set") {
        format!("{setter}({written})")
    } else {
        format!("{setter}: {written}")
    };
    c.findings.push(Finding {
        code: "RL017",
        span: node.byte_range(),
        message: format!(
            "{}: `{shown}` is {}, not {written} s: a bare number passed as a \
             Go `time.Duration` counts nanoseconds",
            c.platform.display_name(),
            human_ns(ns)
        ),
        label: format!("{} (a time.Duration)", human_ns(ns)),
        help: format!(
            "write the unit: `{written} * time.Second` or `{written} * time.Millisecond`; \
             retrylint uses {} as written",
            human_ns(ns)
        ),
    });
}

/// A boolean argument (`SetAllowNonIdempotentRetry(true)`); `None` when unknown.
pub fn boolean(ctx: &Ctx<'_>, node: Node<'_>) -> Option<bool> {
    match eval::eval(ctx.file.text, &ctx.imports, &ctx.consts, node) {
        Val::Bool(b) => Some(b),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_durations() {
        assert_eq!(human_ns(5.0), "5 ns");
        assert_eq!(human_ns(1e8), "100 ms");
        assert_eq!(human_ns(120e9), "2 min");
        assert_eq!(human_ns(5e9), "5 s");
    }
}
