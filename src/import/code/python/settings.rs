//! Turning an evaluated expression into a [`Setting`]: a literal (or same-file
//! constant) as is, anything else assumed (RL019) with what was assumed.

use super::eval::{Ctx, Eval, Val};
use crate::import::code::model::{Known, Setting};
use tree_sitter::Node;

/// A count written at `v`: attempts = value + `plus` (1 for libraries that count
/// retries, 0 for those that count attempts); `fallback` attempts (with the words
/// `fallback_words`) when it is not known statically.
pub fn count(
    cx: &Ctx<'_, '_>,
    v: Node<'_>,
    plus: i64,
    fallback: i64,
    fallback_words: &str,
) -> Setting<i64> {
    match cx.eval(v) {
        Eval::Known(x) if x.num().is_some_and(|f| !f.is_finite()) => {
            Setting::refused(fallback, v.byte_range(), not_finite(cx, v, "count"))
        }
        Eval::Known(x) => match x.int() {
            Some(n) => Setting::literal(n.saturating_add(plus).max(1), v.byte_range()),
            None => Setting::assumed(fallback, v.byte_range(), cx.expr(v), fallback_words),
        },
        Eval::Unknown {
            param_default: Some(d),
        } if d.int().is_some() => {
            let n = d.int().unwrap_or(0);
            Setting::assumed(
                n.saturating_add(plus).max(1),
                v.byte_range(),
                cx.expr(v),
                format!(
                    "the parameter's default, {n} ({} attempts)",
                    n.saturating_add(plus).max(1)
                ),
            )
        }
        Eval::Unknown { .. } => {
            Setting::assumed(fallback, v.byte_range(), cx.expr(v), fallback_words)
        }
    }
}

/// The RL017 message for the literal at `v` whose value is NaN or infinite
/// (`float('nan')`, `1e400`): no `what` (count, duration, factor) is read from it.
pub fn not_finite(cx: &Ctx<'_, '_>, v: Node<'_>, what: &str) -> String {
    format!(
        "`{}` is out of range: not a finite number, so it is no {what}",
        cx.expr(v)
    )
}

/// A duration in seconds written at `v`, in ms; `fallback_ms` when not known.
pub fn seconds_ms(
    cx: &Ctx<'_, '_>,
    v: Node<'_>,
    fallback_ms: f64,
    fallback_words: &str,
) -> Setting<f64> {
    match cx.eval(v) {
        Eval::Known(x) if x.num().is_some_and(|f| !f.is_finite()) => {
            Setting::refused(fallback_ms, v.byte_range(), not_finite(cx, v, "duration"))
        }
        Eval::Known(x) => match x.num() {
            Some(s) => Setting::literal(s * 1000.0, v.byte_range()),
            None => Setting::assumed(fallback_ms, v.byte_range(), cx.expr(v), fallback_words),
        },
        Eval::Unknown {
            param_default: Some(d),
        } if d.num().is_some() => {
            let s = d.num().unwrap_or(0.0);
            Setting::assumed(
                s * 1000.0,
                v.byte_range(),
                cx.expr(v),
                format!("the parameter's default, {s} s"),
            )
        }
        Eval::Unknown { .. } => {
            Setting::assumed(fallback_ms, v.byte_range(), cx.expr(v), fallback_words)
        }
    }
}

/// A collection of HTTP status codes written at `v`, when known.
pub fn statuses(cx: &Ctx<'_, '_>, v: Node<'_>) -> Option<Vec<u16>> {
    match cx.eval(v) {
        Eval::Known(Val::Seq(items)) => items
            .iter()
            .map(|i| i.int().and_then(|n| u16::try_from(n).ok()))
            .collect(),
        Eval::Known(Val::None) => Some(Vec::new()),
        _ => None,
    }
}

/// True when the setting was assumed (not a literal, not a default).
pub fn is_assumed<T>(s: &Setting<T>) -> bool {
    matches!(s.known, Known::Assumed { .. })
}

/// What a tuple of exception types (or one type) written at `v` retries, in
/// signals: `Some(known)` when every name is a transport error retrylint knows
/// (requests, urllib3, httpx, aiohttp, builtins), `None` when a name is custom or
/// as broad as `Exception` (then "may retry anything").
pub fn exception_signals(
    cx: &Ctx<'_, '_>,
    v: Node<'_>,
) -> Option<Vec<crate::policy::model::Signal>> {
    use crate::policy::model::Signal;
    let v = cx.resolve(v);
    let names: Vec<&str> = match v.kind() {
        "tuple" | "list" | "set" => {
            let mut cursor = v.walk();
            v.named_children(&mut cursor)
                .map(|n| super::eval::last_name(cx.text(n)))
                .collect()
        }
        "identifier" | "attribute" => vec![super::eval::last_name(cx.text(v))],
        _ => return None,
    };
    let mut out = Vec::new();
    for n in names {
        let s: &[Signal] = match n {
            "ConnectTimeout"
            | "ConnectError"
            | "NewConnectionError"
            | "ClientConnectorError"
            | "ConnectionRefusedError" => &[Signal::ConnectFailure],
            "ConnectionError" => &[Signal::ConnectFailure, Signal::Reset],
            "Timeout" | "ReadTimeout" | "ReadTimeoutError" | "TimeoutError"
            | "TimeoutException" | "ServerTimeoutError" => &[Signal::Timeout],
            "ConnectionResetError"
            | "ChunkedEncodingError"
            | "ContentDecodingError"
            | "RemoteDisconnected"
            | "RemoteProtocolError"
            | "ProtocolError"
            | "ServerDisconnectedError"
            | "IncompleteRead" => &[Signal::Reset],
            _ => return None,
        };
        for x in s {
            if !out.contains(x) {
                out.push(*x);
            }
        }
    }
    Some(out)
}

/// The expression a method of the enclosing class returns, for `self.NAME`
/// arguments (meltano's overridable `backoff_max_tries`): the single `return`
/// of `def NAME(self, ...)` in the class around `at`.
pub fn method_return<'t>(cx: &Ctx<'_, 't>, at: Node<'t>, expr: Node<'t>) -> Option<Node<'t>> {
    if expr.kind() != "attribute" {
        return None;
    }
    let obj = expr.child_by_field_name("object")?;
    if cx.text(obj) != "self" {
        return None;
    }
    let name = cx.text(expr.child_by_field_name("attribute")?);
    let mut n = at.parent();
    let class = loop {
        let p = n?;
        if p.kind() == "class_definition" {
            break p;
        }
        n = p.parent();
    };
    let body = class.child_by_field_name("body")?;
    let mut cursor = body.walk();
    let def = body.named_children(&mut cursor).find_map(|d| {
        let f = if d.kind() == "decorated_definition" {
            d.child_by_field_name("definition")?
        } else {
            d
        };
        (f.kind() == "function_definition"
            && f.child_by_field_name("name")
                .is_some_and(|x| cx.text(x) == name))
        .then_some(f)
    })?;
    let fbody = def.child_by_field_name("body")?;
    let mut cursor = fbody.walk();
    let returns: Vec<Node<'t>> = fbody
        .named_children(&mut cursor)
        .filter(|s| s.kind() == "return_statement")
        .collect();
    match returns.as_slice() {
        [r] => r.named_child(0),
        _ => None,
    }
}

/// Status codes as signals, a complete class (`100..=199`) as one `Class` entry so
/// "every status but 200 and 429" stays readable.
pub fn status_signals(codes: Vec<u16>) -> Vec<crate::policy::model::Signal> {
    use crate::policy::model::Signal;
    let mut out = Vec::new();
    for class in 1..=5u16 {
        let range = class * 100..class * 100 + 100;
        if range.clone().all(|c| codes.contains(&c)) {
            out.push(Signal::Class(class as u8));
        }
    }
    let mut rest: Vec<u16> = codes
        .into_iter()
        .filter(|c| !out.contains(&Signal::Class((*c / 100) as u8)))
        .collect();
    rest.sort_unstable();
    rest.dedup();
    out.extend(rest.into_iter().map(Signal::Status));
    out
}
