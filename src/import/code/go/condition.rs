//! Reading a retry predicate whose body is simple: a go-retryablehttp
//! `CheckRetry` function of the same file (`func (c *Client) retryHTTPCheck(ctx,
//! resp, err) (bool, error)`) or a resty retry condition written as a function
//! literal (`func(r *resty.Response, err error) bool { return err != nil ||
//! r.StatusCode() == 503 }`).
//!
//! Only the top-level statements of the body are read: `if COND { return true,
//! .. }`, `return COND` and `return retryablehttp.DefaultRetryPolicy(..)`. A
//! condition is a `||`/`&&` combination of `err != nil` (transport errors) and
//! comparisons of a status code with a number or an `http.Status*` constant;
//! other terms of an `&&` only narrow it and are skipped (the result is an upper
//! bound: what the predicate may retry). Anything else (a `true` returned under a
//! condition not read, a switch, a loop) makes the whole predicate unreadable
//! (`None`: "may retry anything").

use super::eval::{self, Val};
use super::Ctx;
use crate::policy::model::Signal;
use tree_sitter::Node;

/// What a predicate retries, read from its body; `None` when the body is not
/// simple enough.
pub fn read(ctx: &Ctx<'_>, func: Node<'_>) -> Option<Vec<Signal>> {
    let body = func.child_by_field_name("body")?;
    let list = body.named_child(0);
    let Some(list) = list else {
        return Some(Vec::new()); // `{}`: never retries (returns zero values)
    };
    let mut out: Vec<Signal> = Vec::new();
    let mut c = list.walk();
    for stmt in list.named_children(&mut c) {
        match stmt.kind() {
            "comment" => {}
            "if_statement" => {
                if stmt.child_by_field_name("alternative").is_some()
                    || stmt.child_by_field_name("initializer").is_some()
                {
                    if mentions_true(ctx, stmt) {
                        return None;
                    }
                    continue;
                }
                let cond = stmt.child_by_field_name("condition")?;
                let cons = stmt.child_by_field_name("consequence")?;
                match single_return(ctx, cons) {
                    Some(Ret::True) => merge(&mut out, signals(ctx, cond)?),
                    Some(Ret::False) => {}
                    Some(Ret::Expr(e)) => {
                        merge(&mut out, returned(ctx, e)?);
                    }
                    None => {
                        if mentions_true(ctx, cons) {
                            return None;
                        }
                    }
                }
            }
            "return_statement" => {
                let first = stmt.named_child(0).and_then(|l| {
                    if l.kind() == "expression_list" {
                        l.named_child(0)
                    } else {
                        Some(l)
                    }
                })?;
                match ctx.text(first) {
                    "false" => {}
                    "true" => return None,
                    _ => merge(&mut out, returned(ctx, first)?),
                }
                return Some(out);
            }
            _ => {
                if mentions_true(ctx, stmt) {
                    return None;
                }
            }
        }
    }
    Some(out)
}

enum Ret<'t> {
    True,
    False,
    Expr(Node<'t>),
}

/// The first returned value of a block that is just `return X, ...`.
fn single_return<'t>(ctx: &Ctx<'_>, block: Node<'t>) -> Option<Ret<'t>> {
    let list = block.named_child(0)?;
    let stmts: Vec<Node<'t>> = {
        let mut c = list.walk();
        list.named_children(&mut c)
            .filter(|n| n.kind() != "comment")
            .collect()
    };
    let [ret] = stmts.as_slice() else {
        return None;
    };
    if ret.kind() != "return_statement" {
        return None;
    }
    let first = ret.named_child(0).and_then(|l| {
        if l.kind() == "expression_list" {
            l.named_child(0)
        } else {
            Some(l)
        }
    })?;
    Some(match ctx.text(first) {
        "true" => Ret::True,
        "false" => Ret::False,
        _ => Ret::Expr(first),
    })
}

/// A returned expression: a condition, or a call of the default policy.
fn returned(ctx: &Ctx<'_>, e: Node<'_>) -> Option<Vec<Signal>> {
    if e.kind() == "call_expression" {
        let f = e.child_by_field_name("function")?;
        let name = ctx.text(f);
        let last = name.rsplit('.').next().unwrap_or(name);
        if matches!(last, "DefaultRetryPolicy" | "ErrorPropagatedRetryPolicy") {
            return Some(default_policy_signals());
        }
        return None;
    }
    signals(ctx, e)
}

fn mentions_true(ctx: &Ctx<'_>, node: Node<'_>) -> bool {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind() == "true" || (n.kind() == "call_expression" && ctx.text(n).contains("Retry")) {
            return true;
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    false
}

fn merge(out: &mut Vec<Signal>, more: Vec<Signal>) {
    for s in more {
        if !out.contains(&s) {
            out.push(s);
        }
    }
}

/// The signals a condition is true for (an upper bound); `None` when not read.
/// `||` and parentheses use an explicit stack; each `&&` side is read at a
/// bounded depth ([`eval::MAX_DEPTH`]).
fn signals(ctx: &Ctx<'_>, cond: Node<'_>) -> Option<Vec<Signal>> {
    signals_at(ctx, cond, 0)
}

fn signals_at(ctx: &Ctx<'_>, cond: Node<'_>, depth: usize) -> Option<Vec<Signal>> {
    if depth > eval::MAX_DEPTH {
        return None;
    }
    let mut out: Vec<Signal> = Vec::new();
    let mut stack = vec![cond];
    let mut budget = 256;
    while let Some(n) = stack.pop() {
        budget -= 1;
        if budget == 0 {
            return None;
        }
        match n.kind() {
            "parenthesized_expression" => stack.push(n.named_child(0)?),
            "binary_expression" => {
                let op = ctx.text(n.child_by_field_name("operator")?);
                let (l, r) = (
                    n.child_by_field_name("left")?,
                    n.child_by_field_name("right")?,
                );
                match op {
                    "||" => {
                        stack.push(l);
                        stack.push(r);
                    }
                    "&&" => {
                        // Keep the side that says something about signals.
                        let (ls, rs) =
                            (signals_at(ctx, l, depth + 1), signals_at(ctx, r, depth + 1));
                        match (ls, rs) {
                            (Some(a), _) if !a.is_empty() => merge(&mut out, a),
                            (_, Some(b)) if !b.is_empty() => merge(&mut out, b),
                            _ => {}
                        }
                    }
                    _ => merge(&mut out, atom(ctx, n, op, l, r)?),
                }
            }
            // A guard that is not about the response (`!c.disableRetries`).
            "unary_expression" | "identifier" | "selector_expression" => {}
            _ => return None,
        }
    }
    Some(out)
}

/// `err != nil`, `resp.StatusCode == 429`, `r.StatusCode() >= 500`.
fn atom(ctx: &Ctx<'_>, n: Node<'_>, op: &str, l: Node<'_>, r: Node<'_>) -> Option<Vec<Signal>> {
    let (lt, rt) = (ctx.text(l), ctx.text(r));
    if op == "!=" && rt == "nil" {
        if lt == "err" || lt.ends_with("Err") || lt.ends_with(".Err") {
            return Some(vec![Signal::ConnectFailure, Signal::Reset, Signal::Timeout]);
        }
        return Some(Vec::new()); // `resp != nil`: a guard
    }
    if op == "==" && rt == "nil" {
        return Some(Vec::new());
    }
    let is_status = |t: &str| t.ends_with("StatusCode") || t.ends_with("StatusCode()");
    let (code_node, op) = if is_status(lt) {
        (r, op.to_string())
    } else if is_status(rt) {
        // `500 <= resp.StatusCode`
        let flipped = match op {
            "<=" => ">=",
            "<" => ">",
            ">=" => "<=",
            ">" => "<",
            o => o,
        };
        (l, flipped.to_string())
    } else {
        let _ = n;
        return None;
    };
    let code = status_value(ctx, code_node)?;
    let range: Vec<u16> = match op.as_str() {
        "==" => vec![code],
        ">=" => (code..=599).collect(),
        ">" => (code.saturating_add(1)..=599).collect(),
        "!=" | "<" | "<=" => return None,
        _ => return None,
    };
    Some(statuses(&range))
}

/// Statuses as signals: a whole class as `Class`, the rest one by one.
fn statuses(codes: &[u16]) -> Vec<Signal> {
    let mut out = Vec::new();
    for class in 1..=5u16 {
        let all = (class * 100..class * 100 + 100).all(|c| codes.contains(&c));
        if all {
            out.push(Signal::Class(class as u8));
        }
    }
    for &c in codes {
        if !out.contains(&Signal::Class((c / 100) as u8)) && is_registered(c) {
            out.push(Signal::Status(c));
        }
    }
    out
}

/// The registered HTTP status codes of RFC 9110 and the common extensions (a
/// range like `>= 502` lists these).
fn is_registered(c: u16) -> bool {
    matches!(c, 100..=103 | 200..=208 | 226 | 300..=308 | 400..=418 | 421..=426 | 428 | 429 | 431 | 451 | 500..=508 | 510 | 511)
}

/// A status number: a literal, a same-file constant or `http.Status*`.
fn status_value(ctx: &Ctx<'_>, node: Node<'_>) -> Option<u16> {
    if let Val::Int(n) = eval::eval(ctx.file.text, &ctx.imports, &ctx.consts, node) {
        return u16::try_from(n).ok().filter(|c| (100..=599).contains(c));
    }
    let text = ctx.text(node);
    let (pkg, name) = text.split_once('.')?;
    if !ctx.imports.is_http(pkg) {
        return None;
    }
    http_status(name)
}

/// `net/http` status constants.
pub fn http_status(name: &str) -> Option<u16> {
    Some(match name {
        "StatusBadRequest" => 400,
        "StatusUnauthorized" => 401,
        "StatusForbidden" => 403,
        "StatusNotFound" => 404,
        "StatusRequestTimeout" => 408,
        "StatusConflict" => 409,
        "StatusTooEarly" => 425,
        "StatusTooManyRequests" => 429,
        "StatusInternalServerError" => 500,
        "StatusNotImplemented" => 501,
        "StatusBadGateway" => 502,
        "StatusServiceUnavailable" => 503,
        "StatusGatewayTimeout" => 504,
        _ => return None,
    })
}

/// What go-retryablehttp's `DefaultRetryPolicy` (and `ErrorPropagatedRetryPolicy`) retries:
/// connection errors (all but redirects, scheme, invalid header and certificate
/// errors), 429, and every status >= 500 except 501.
pub fn default_policy_signals() -> Vec<Signal> {
    let mut v = vec![
        Signal::ConnectFailure,
        Signal::Reset,
        Signal::Timeout,
        Signal::Status(429),
    ];
    v.extend(
        [500u16, 502, 503, 504, 505, 506, 507, 508, 510, 511]
            .into_iter()
            .map(Signal::Status),
    );
    v
}

/// "429, 5xx and connection errors".
pub fn describe(signals: &[Signal]) -> String {
    if signals.is_empty() {
        return "nothing".to_string();
    }
    signals
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_become_classes() {
        let s = statuses(&(500..=599).collect::<Vec<_>>());
        assert_eq!(s, vec![Signal::Class(5)]);
        let s = statuses(&(502..=599).collect::<Vec<_>>());
        assert!(s.contains(&Signal::Status(503)) && !s.contains(&Signal::Status(501)));
    }
}
