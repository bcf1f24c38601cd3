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
            "defaults": {
                "$ref": "#/$defs/settings",
                "description": "settings every operation of the governed documents starts from; an `operations` entry overrides them field by field"
            },
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
                    "effect": open(json!({
                        "enum": ["safe", "idempotent", "non-idempotent"],
                        "description": "Q1: what repeating the operation does; default from the method (RFC 9110 section 9.2): GET HEAD OPTIONS TRACE safe, PUT DELETE idempotent, others non-idempotent"
                    })),
                    "idempotency_key": {
                        "type": "object",
                        "description": "Q2: the client sends a key the server de-duplicates on (for non-idempotent effects)",
                        "additionalProperties": false,
                        "properties": {
                            "header": {"type": "string", "description": "the header that carries the key (case-insensitive), a declared header parameter of the operation"},
                            "retention": open(json!({"$ref": "#/$defs/duration", "description": "how long the server keeps keys (a duration)"})),
                            "scope": {"type": "string", "description": "free text (`todo` is an open question)"},
                            "on_payload_mismatch": open(json!({
                                "enum": ["reject", "ignore"],
                                "description": "a key reused with another payload: `reject` (422 per the draft) or `ignore` (processed anyway)"
                            })),
                            "on_concurrent": open(json!({
                                "enum": ["reject", "wait", "ignore"],
                                "description": "a request whose key is still in flight: `reject` (409 per the draft), `wait` for the first, or `ignore` (both processed)"
                            }))
                        }
                    },
                    "status_endpoint": {"$ref": "#/$defs/selector"},
                    "on_unknown_result": open(json!({
                        "enum": ["resend", "replay-key", "check-status", "reconcile", "fail"],
                        "description": "Q4: what a timeout or reset leads to: `resend`, `replay-key` (same idempotency key), `check-status` (ask `status_endpoint` first), `reconcile` (out of band) or `fail` (state unknown)"
                    })),
                    "attempts": open(json!({
                        "type": "integer",
                        "minimum": 1,
                        "description": "total attempts including the first"
                    })),
                    "deadline": open(json!({"$ref": "#/$defs/duration", "description": "Q3: the budget of the whole operation, every attempt and wait (a duration)"})),
                    "attempt_timeout": {
                        "description": "how long one attempt may take: `remaining` (what is left of the deadline, the default) or a duration",
                        "anyOf": [{"const": "remaining"}, {"$ref": "#/$defs/duration"}]
                    },
                    "backoff": {
                        "type": "object",
                        "description": "the wait before retry n (0-based): min(cap, base * multiplier^n), then jitter",
                        "additionalProperties": false,
                        "properties": {
                            "base": open(json!({"$ref": "#/$defs/duration", "description": "the first wait (a duration)"})),
                            "cap": open(json!({"$ref": "#/$defs/duration", "description": "the longest wait (a duration, at least `base`)"})),
                            "multiplier": {"type": "number", "minimum": 1, "description": "growth per retry, at least 1 (default 2)"},
                            "jitter": open(jitter)
                        }
                    },
                    "retry_on": {
                        "type": "array",
                        "description": "the failures retried: `connect-failure`, `refused-stream`, `timeout`, `reset`, `transport` (all four), an HTTP status (`429`) or class (`5xx`)",
                        "items": {"$ref": "#/$defs/signal"}
                    },
                    "retry_after": {
                        "type": "object",
                        "description": "how the layer treats a server's Retry-After (RFC 9110 section 10.2.3); absent: ignored",
                        "additionalProperties": false,
                        "properties": {
                            "honor": {"type": "boolean", "description": "wait at least what Retry-After says"},
                            "max": open(json!({"$ref": "#/$defs/duration", "description": "a longer Retry-After means give up instead of waiting (a duration)"})),
                            "on_invalid": {"enum": ["backoff", "stop"], "description": "a malformed or negative Retry-After: `backoff` as usual, or `stop`"},
                            "on_above_max": {"enum": ["backoff", "stop"], "description": "a Retry-After above `max`: `stop` (give up; absent: stop), or `backoff` (ignore the header and wait the backoff)"}
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
