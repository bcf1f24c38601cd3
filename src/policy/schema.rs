//! The JSON Schema (draft 2020-12) of the retry-policy format, written by hand to
//! match `docs/policy-format.md` and the keys [`super::parse`] accepts (a test
//! compares them). `retrylint schema` prints it, for editors:
//! `# yaml-language-server: $schema=retrylint-policy.schema.json`.

use serde_json::{json, Value};

/// A duration with a unit, decreasing units each once (`250ms`, `1m30s`, `24h`).
pub const DURATION_PATTERN: &str = r"^(?:[0-9]+(?:\.[0-9]+)?d)?(?:[0-9]+(?:\.[0-9]+)?h)?(?:[0-9]+(?:\.[0-9]+)?m)?(?:[0-9]+(?:\.[0-9]+)?s)?(?:[0-9]+(?:\.[0-9]+)?ms)?$";

/// The schema.
pub fn schema() -> Value {
    let duration = json!({
        "type": "string",
        "minLength": 2,
        "pattern": DURATION_PATTERN,
        "description": "a duration with a unit: `250ms`, `2s`, `1.5s`, `5m`, `24h`, `7d`, `1m30s`; a bare number is an error"
    });
    let selector = json!({
        "type": "string",
        "minLength": 1,
        "description": "`METHOD /path` (METHOD an upper-case HTTP method or `*`; `{name}`, `*` and a final `**` segment as wildcards) or an operationId"
    });
    let signal_names = crate::retry::signals::signal_names();
    let named = |keep: fn(&crate::retry::signals::SignalMeaning) -> bool| {
        crate::retry::signals::SIGNALS
            .iter()
            .filter(|m| keep(m))
            .map(|m| format!("`{}`", m.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let signal_description = format!(
        "never processed (safe for any method): {}; gRPC statuses, only on gRPC-bound operations: {}; `transport`: {}",
        named(|m| m.never_processed),
        named(|m| m.grpc_only),
        named(|m| m.in_transport),
    );
    let jitter = json!({
        "oneOf": [
            {"enum": ["none", "full", "equal", "decorrelated"]},
            {
                "type": "object",
                "additionalProperties": false,
                "required": ["proportional"],
                "properties": {
                    "proportional": {
                        "type": "number",
                        "exclusiveMinimum": 0,
                        "maximum": 1,
                        "description": "factor f: the delay is drawn from [b(1-f), b(1+f)] around the capped backoff b (gRPC 0.2; Resilience4j, Spring Cloud Gateway, Traefik 0.5)"
                    }
                }
            }
        ]
    });
    let hedging = json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["attempts"],
        "description": "parallel copies of the request (gRPC hedgingPolicy, Envoy hedge_on_per_try_timeout)",
        "properties": {
            "attempts": {"type": "integer", "minimum": 1, "description": "copies in total, including the first"},
            "delay": {"$ref": "#/$defs/duration"}
        }
    });
    let budget = json!({
        "description": "a retry budget: a ratio budget, a concurrency cap or a token bucket (one shape)",
        "oneOf": [
            {
                "type": "object",
                "additionalProperties": false,
                "required": ["ratio"],
                "properties": {
                    "ratio": {"type": "number", "minimum": 0, "description": "retries per request allowed (0.2 = 20 %)"},
                    "min_per_second": {"type": "number", "minimum": 0},
                    "min_concurrent": {"type": "integer", "minimum": 0},
                    "window": {"$ref": "#/$defs/duration"}
                }
            },
            {
                "type": "object",
                "additionalProperties": false,
                "required": ["max_concurrent_retries"],
                "properties": {
                    "max_concurrent_retries": {"type": "integer", "minimum": 0}
                }
            },
            {
                "type": "object",
                "additionalProperties": false,
                "required": ["tokens", "token_ratio"],
                "properties": {
                    "tokens": {"type": "number", "exclusiveMinimum": 0},
                    "token_ratio": {"type": "number", "exclusiveMinimum": 0}
                }
            }
        ]
    });
    let methods = json!({
        "type": "array",
        "description": "the methods this layer retries after a request was sent (never-processed signals retry every method); absent: every method",
        "items": {"enum": crate::policy::selector::METHODS}
    });
    // `todo`: an open question, accepted in the fields that answer one
    // (`crate::policy::model::TODO_FIELDS`).
    let open = |v: Value| json!({"anyOf": [v, {"$ref": "#/$defs/todo"}]});
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://retrylint.dev/schema/retry-policy-v1.json",
        "title": "retrylint retry-policy file, version 1",
        "type": "object",
        "additionalProperties": false,
        "required": ["version"],
        "properties": {
            "version": {"const": 1, "description": "the format version; `1`"},
            "spec": {
                "description": "OpenAPI document(s) this policy governs, relative to this file; absent: every document in this file's directory and below",
                "oneOf": [
                    {"type": "string"},
                    {"type": "array", "items": {"type": "string"}}
                ]
            },
            "layer": {"$ref": "#/$defs/layer"},
            "defaults": {"$ref": "#/$defs/settings"},
            "operations": {
                "type": "object",
                "description": "per-operation settings keyed by selector",
                "propertyNames": {"$ref": "#/$defs/selector"},
                "additionalProperties": {
                    "anyOf": [{"$ref": "#/$defs/settings"}, {"type": "null"}]
                }
            },
            "ignore": {"$ref": "#/$defs/ignore"}
        },
        "$defs": {
            "duration": duration,
            "todo": {
                "const": "todo",
                "description": "an open readiness question (what `retrylint init` writes); `retrylint check` reports it as RL018 and reads it as unanswered"
            },
            "selector": selector,
            "layer": {
                "enum": ["client", "gateway", "mesh"],
                "description": "who performs these retries (default client)"
            },
            "ignore": {
                "type": "array",
                "description": "suppressions; a reason is required",
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["rule", "reason"],
                    "properties": {
                        "rule": {"type": "string", "description": "a rule code (`RL201`) or name"},
                        "reason": {"type": "string", "minLength": 1}
                    }
                }
            },
            "signal": {
                "oneOf": [
                    {"enum": signal_names, "description": signal_description},
                    {"type": "integer", "minimum": 100, "maximum": 599},
                    {"type": "string", "pattern": "^[1-5][0-9][0-9]$"},
                    {"type": "string", "pattern": "^[1-5](xx|XX)$"}
                ]
            },
            "settings": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "retry": {"type": "boolean", "description": "is this operation retried at all"},
                    "effect": open(json!({"enum": ["safe", "idempotent", "non-idempotent"]})),
                    "idempotency_key": {
                        "type": "object",
                        "additionalProperties": false,
                        "properties": {
                            "header": {"type": "string"},
                            "retention": open(json!({"$ref": "#/$defs/duration"})),
                            "scope": {"type": "string", "description": "free text (`todo` is an open question)"},
                            "on_payload_mismatch": open(json!({"enum": ["reject", "ignore"]})),
                            "on_concurrent": open(json!({"enum": ["reject", "wait", "ignore"]}))
                        }
                    },
                    "status_endpoint": {"$ref": "#/$defs/selector"},
                    "on_unknown_result": open(json!({
                        "enum": ["resend", "replay-key", "check-status", "reconcile", "fail"]
                    })),
                    "attempts": open(json!({
                        "type": "integer",
                        "minimum": 1,
                        "description": "total attempts including the first"
                    })),
                    "deadline": open(json!({"$ref": "#/$defs/duration"})),
                    "attempt_timeout": {
                        "anyOf": [{"const": "remaining"}, {"$ref": "#/$defs/duration"}]
                    },
                    "backoff": {
                        "type": "object",
                        "additionalProperties": false,
                        "properties": {
                            "base": open(json!({"$ref": "#/$defs/duration"})),
                            "cap": open(json!({"$ref": "#/$defs/duration"})),
                            "multiplier": {"type": "number", "minimum": 1},
                            "jitter": open(jitter)
                        }
                    },
                    "retry_on": {"type": "array", "items": {"$ref": "#/$defs/signal"}},
                    "retry_after": {
                        "type": "object",
                        "additionalProperties": false,
                        "properties": {
                            "honor": {"type": "boolean"},
                            "max": open(json!({"$ref": "#/$defs/duration"})),
                            "on_invalid": {"enum": ["backoff", "stop"]}
                        }
                    },
                    "ignore": {"$ref": "#/$defs/ignore"},
                    "methods": methods,
                    "budget": {"$ref": "#/$defs/budget"},
                    "hedging": hedging
                }
            },
            "budget": budget
        }
    })
}
