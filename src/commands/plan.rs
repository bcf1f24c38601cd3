//! `retrylint plan`: the reference decision function of docs/domain.md, on flags or
//! on JSON input (one object, or an array answered as JSON Lines).

use crate::cli::PlanArgs;
use crate::retry::{decide, retry_after_input_ms, Decision, DecisionInput};
use serde_json::{Map, Value};

/// Builds the decision input from the flags of `plan` (numbers in ms). A raw
/// `--retry-after` value is parsed by the shared parser relative to `--now-ms`; an
/// invalid one becomes a negative Retry-After, which the decision reports as
/// `invalid-retry-after`.
pub fn input_from_args(args: &PlanArgs) -> DecisionInput {
    let d = DecisionInput::default();
    let retry_after_ms = match (&args.retry_after, args.retry_after_ms) {
        (Some(raw), _) => Some(raw_retry_after_ms(raw, args.now_ms)),
        (None, ms) => ms,
    };
    DecisionInput {
        method: args.method.clone(),
        status: args.status,
        transport_error: args.transport_error,
        attempt: args.attempt,
        now_ms: args.now_ms,
        deadline_ms: args.deadline_ms,
        base_ms: args.base_ms.unwrap_or(d.base_ms),
        cap_ms: args.cap_ms.unwrap_or(d.cap_ms),
        max_attempts: max_retries(args.max_attempts, args.attempts).unwrap_or(d.max_attempts),
        random_unit: args.random_unit.unwrap_or(d.random_unit),
        retry_after_ms,
        idempotency_key: args.idempotency_key,
        status_endpoint: args.status_endpoint,
    }
}

/// The reference function's maximum retries from `--max-attempts` (retries) or
/// `--attempts` (tries, a policy's `attempts`: retries + 1); clap refuses both.
/// `None` when neither is given.
pub fn max_retries(max_attempts: Option<f64>, attempts: Option<f64>) -> Option<f64> {
    max_attempts.or(attempts.map(|tries| tries - 1.0))
}

/// Method tokens with a standard definition: RFC 9110 §9.3 and PATCH (RFC 5789).
pub const STANDARD_METHODS: [&str; 9] = [
    "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH",
];

/// A usage note when `method` is a standard method in the wrong case (`get`): method
/// tokens are case-sensitive (RFC 9110 §9.1), so `get` is another, unknown method
/// (decided as non-idempotent), which is kept but said. `None` for any other token.
pub fn method_note(method: &str) -> Option<String> {
    if STANDARD_METHODS.contains(&method) {
        return None;
    }
    let upper = method.to_ascii_uppercase();
    STANDARD_METHODS.contains(&upper.as_str()).then(|| {
        format!(
            "`{method}` is not a registered method token; methods are case-sensitive \
             (RFC 9110 §9.1): did you mean `{upper}`?"
        )
    })
}

/// A raw Retry-After relative to `now_ms` (an absent or non-finite now counts as 0
/// for the date arithmetic; the decision still reports the bad `now`).
fn raw_retry_after_ms(raw: &str, now_ms: Option<f64>) -> f64 {
    retry_after_input_ms(raw, now_ms.filter(|n| n.is_finite()).unwrap_or(0.0))
}

/// A JSON number field: missing -> `default`; `null` or a non-number -> NaN (not a
/// finite number).
fn number(obj: &Map<String, Value>, key: &str) -> Option<f64> {
    match obj.get(key) {
        None => None,
        Some(Value::Number(n)) => Some(n.as_f64().unwrap_or(f64::NAN)),
        Some(_) => Some(f64::NAN),
    }
}

fn flag(obj: &Map<String, Value>, key: &str) -> bool {
    matches!(obj.get(key), Some(Value::Bool(true)))
}

/// Builds the decision input from one JSON object with the fields `method, status,
/// transportError, attempt, nowMs, deadlineMs, baseMs, capMs, maxAttempts, randomUnit,
/// retryAfterMs, idempotencyKey, statusEndpoint` (and optionally `retryAfter`, the
/// raw header). Errors name the offending field.
pub fn input_from_json(value: &Value) -> Result<DecisionInput, String> {
    let obj = value
        .as_object()
        .ok_or_else(|| "each input must be a JSON object".to_string())?;
    let d = DecisionInput::default();
    let method = match obj.get("method") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => return Err(format!("`method` must be a string, got {other}")),
    };
    let status = match obj.get("status") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => match n.as_u64().and_then(|v| u16::try_from(v).ok()) {
            Some(s) => Some(s),
            None => return Err(format!("`status` must be an HTTP status code, got {n}")),
        },
        Some(other) => return Err(format!("`status` must be a number, got {other}")),
    };
    let now_ms = number(obj, "nowMs");
    let retry_after_ms = match (obj.get("retryAfter"), obj.get("retryAfterMs")) {
        (Some(Value::String(raw)), _) => Some(raw_retry_after_ms(raw, now_ms)),
        (_, None | Some(Value::Null)) => None,
        (_, Some(_)) => number(obj, "retryAfterMs"),
    };
    Ok(DecisionInput {
        method,
        status,
        transport_error: flag(obj, "transportError"),
        attempt: number(obj, "attempt"),
        now_ms,
        deadline_ms: number(obj, "deadlineMs"),
        base_ms: number(obj, "baseMs").unwrap_or(d.base_ms),
        cap_ms: number(obj, "capMs").unwrap_or(d.cap_ms),
        max_attempts: number(obj, "maxAttempts").unwrap_or(d.max_attempts),
        random_unit: number(obj, "randomUnit").unwrap_or(d.random_unit),
        retry_after_ms,
        idempotency_key: flag(obj, "idempotencyKey"),
        status_endpoint: flag(obj, "statusEndpoint"),
    })
}

/// Formats a number in its shortest form: `200`, not `200.0`; `150.5` stays.
pub fn shortest(n: f64) -> String {
    if n.is_finite() && n.fract() == 0.0 && n.abs() < 9.007_199_254_740_992e15 {
        format!("{}", n as i64)
    } else if n.is_finite() {
        format!("{n}")
    } else {
        "null".to_string()
    }
}

/// `{"retry":true,"delayMs":200,"backoffMs":400}` or
/// `{"retry":false,"reason":"unknown-result"}`.
pub fn decision_json(decision: &Decision) -> String {
    match decision {
        Decision::Retry {
            delay_ms,
            backoff_ms,
        } => format!(
            "{{\"retry\":true,\"delayMs\":{},\"backoffMs\":{}}}",
            shortest(*delay_ms),
            shortest(*backoff_ms)
        ),
        Decision::Stop(reason) => {
            format!("{{\"retry\":false,\"reason\":\"{}\"}}", reason.as_str())
        }
    }
}

/// Human form: `retry after 200 ms (backoff bound 400 ms)` or `stop: unknown-result`.
pub fn decision_human(decision: &Decision) -> String {
    match decision {
        Decision::Retry {
            delay_ms,
            backoff_ms,
        } => format!(
            "retry after {} ms (backoff bound {} ms)",
            shortest(*delay_ms),
            shortest(*backoff_ms)
        ),
        Decision::Stop(reason) => format!("stop: {}", reason.as_str()),
    }
}

/// Answers JSON input text: an object gives one line, an array one line per element
/// (JSON Lines).
pub fn answer_json_text(text: &str) -> Result<Vec<String>, String> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("invalid JSON input: {e}"))?;
    let inputs: Vec<&Value> = match &value {
        Value::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    inputs
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            input_from_json(v)
                .map(|input| decision_json(&decide(&input)))
                .map_err(|e| format!("input {i}: {e}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worked_example_gives_the_documented_line() {
        let lines = answer_json_text(
            r#"{"method":"POST","status":503,"attempt":2,"nowMs":1000,"deadlineMs":3000,"randomUnit":0.5,"idempotencyKey":true}"#,
        )
        .unwrap();
        assert_eq!(
            lines,
            vec![r#"{"retry":true,"delayMs":200,"backoffMs":400}"#]
        );
    }

    #[test]
    fn nulls_and_arrays() {
        let lines = answer_json_text(
            r#"[{"method":"GET","status":503,"attempt":0,"nowMs":0,"deadlineMs":1000,"baseMs":null},
                {"method":"POST","transportError":true,"attempt":0,"nowMs":0,"deadlineMs":1000},
                {"method":"GET","status":null,"attempt":0,"nowMs":0,"deadlineMs":1000},
                {"method":"GET","status":429,"attempt":0,"nowMs":0,"deadlineMs":100000,"retryAfterMs":null,"randomUnit":0.25,"baseMs":1}]"#,
        )
        .unwrap();
        assert_eq!(lines[0], r#"{"retry":false,"reason":"invalid-delay"}"#);
        assert_eq!(lines[1], r#"{"retry":false,"reason":"unknown-result"}"#);
        assert_eq!(lines[2], r#"{"retry":false,"reason":"not-transient"}"#);
        assert_eq!(lines[3], r#"{"retry":true,"delayMs":0,"backoffMs":1}"#);
    }

    #[test]
    fn shortest_forms() {
        assert_eq!(shortest(200.0), "200");
        assert_eq!(shortest(150.5), "150.5");
        assert_eq!(shortest(0.0), "0");
    }

    #[test]
    fn raw_retry_after_values() {
        #[derive(clap::Parser)]
        struct Plan {
            #[command(flatten)]
            args: PlanArgs,
        }
        let with = |v: &str| {
            let plan = <Plan as clap::Parser>::parse_from([
                "plan",
                "--method=GET",
                "--status=429",
                "--attempt=0",
                "--now-ms=0",
                "--deadline-ms=10000",
                &format!("--retry-after={v}"),
            ]);
            decide(&input_from_args(&plan.args))
        };
        assert_eq!(
            with("2"),
            Decision::Retry {
                delay_ms: 2000.0,
                backoff_ms: 100.0
            }
        );
        assert_eq!(
            decision_json(&with("1m0s")),
            r#"{"retry":false,"reason":"invalid-retry-after"}"#
        );
        assert_eq!(
            decision_json(&with("9999999999")),
            r#"{"retry":false,"reason":"deadline-exhausted"}"#
        );
        // 1970-01-01 00:00:00 is in the past of now = 0 + ... : a past date means 0.
        assert_eq!(
            with("Thu, 01 Jan 1970 00:00:00 GMT"),
            Decision::Retry {
                delay_ms: 50.0,
                backoff_ms: 100.0
            }
        );
    }
}
