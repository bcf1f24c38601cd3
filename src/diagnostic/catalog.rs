//! Every rule's identity: code, name, default severity, readiness question and
//! summary, declared once here, at the bottom of the pipeline, so that every stage can
//! report a finding without importing the rule that documents it (as ruff's
//! `codes.rs` does). A rule's file (`src/rules/`, or the stage that reports an input
//! problem) refers to its entry as `META`; its documentation is `rules/RLnnn-name.md`.
//! Codes are never reused.

use super::rule::{Question, RuleMeta};
use super::Severity;

/// RL001 `invalid-syntax`.
pub const INVALID_SYNTAX: RuleMeta = RuleMeta {
    code: "RL001",
    name: "invalid-syntax",
    severity: Severity::Error,
    question: Question::Input,
    summary: "a file is not valid YAML/JSON; position of the first error",
};

/// RL002 `duplicate-key`.
pub const DUPLICATE_KEY: RuleMeta = RuleMeta {
    code: "RL002",
    name: "duplicate-key",
    severity: Severity::Error,
    question: Question::Input,
    summary:
        "a mapping repeats a key (a spec, a policy or a retry config); labels both occurrences",
};

/// RL003 `unresolved-ref`.
pub const UNRESOLVED_REF: RuleMeta = RuleMeta {
    code: "RL003",
    name: "unresolved-ref",
    severity: Severity::Error,
    question: Question::Input,
    summary: "a local or relative-file `$ref` target does not exist or leaves the project root",
};

/// RL004 `ref-cycle`.
pub const REF_CYCLE: RuleMeta = RuleMeta {
    code: "RL004",
    name: "ref-cycle",
    severity: Severity::Error,
    question: Question::Input,
    summary: "a chain of `$ref`s that never reaches a value",
};

/// RL005 `invalid-policy`.
pub const INVALID_POLICY: RuleMeta = RuleMeta {
    code: "RL005",
    name: "invalid-policy",
    severity: Severity::Error,
    question: Question::Input,
    summary: "a retry policy does not follow the policy format",
};

/// RL006 `unknown-operation`.
pub const UNKNOWN_OPERATION: RuleMeta = RuleMeta {
    code: "RL006",
    name: "unknown-operation",
    severity: Severity::Error,
    question: Question::Input,
    summary: "a policy selector or status endpoint matches no operation",
};

/// RL007 `unsupported-document`.
pub const UNSUPPORTED_DOCUMENT: RuleMeta = RuleMeta {
    code: "RL007",
    name: "unsupported-document",
    severity: Severity::Error,
    question: Question::Input,
    summary: "an OpenAPI version other than 2.0, 3.0.x, 3.1.x; webhooks in a 3.0 document",
};

/// RL008 `invalid-openapi-structure`.
pub const INVALID_OPENAPI_STRUCTURE: RuleMeta = RuleMeta {
    code: "RL008",
    name: "invalid-openapi-structure",
    severity: Severity::Warning,
    question: Question::Input,
    summary: "a 3.0 document that the typed OpenAPI 3.0 model rejects",
};

/// RL009 `duplicate-parameter`.
pub const DUPLICATE_PARAMETER: RuleMeta = RuleMeta {
    code: "RL009",
    name: "duplicate-parameter",
    severity: Severity::Warning,
    question: Question::Input,
    summary: "one operation's effective parameters hold two with the same location and name",
};

/// RL010 `unused-suppression`.
pub const UNUSED_SUPPRESSION: RuleMeta = RuleMeta {
    code: "RL010",
    name: "unused-suppression",
    severity: Severity::Warning,
    question: Question::Input,
    summary: "a suppression matched no finding in the run",
};

/// RL011 `ref-siblings-ignored`.
pub const REF_SIBLINGS_IGNORED: RuleMeta = RuleMeta {
    code: "RL011",
    name: "ref-siblings-ignored",
    severity: Severity::Warning,
    question: Question::Input,
    summary: "keys beside a `$ref` that the document's OpenAPI version ignores",
};

/// RL012 `invalid-status-key`.
pub const INVALID_STATUS_KEY: RuleMeta = RuleMeta {
    code: "RL012",
    name: "invalid-status-key",
    severity: Severity::Warning,
    question: Question::Input,
    summary: "a response key that is not a status code, an upper-case range or `default`",
};

/// RL013 `suppression-without-reason`.
pub const SUPPRESSION_WITHOUT_REASON: RuleMeta = RuleMeta {
    code: "RL013",
    name: "suppression-without-reason",
    severity: Severity::Error,
    question: Question::Input,
    summary: "a suppression without a reason (it is not applied)",
};

/// RL014 `multiple-documents`.
pub const MULTIPLE_DOCUMENTS: RuleMeta = RuleMeta {
    code: "RL014",
    name: "multiple-documents",
    severity: Severity::Warning,
    question: Question::Input,
    summary: "a spec or policy file holds more than one YAML document; the first is linted",
};

/// RL015 `equivalent-paths`.
pub const EQUIVALENT_PATHS: RuleMeta = RuleMeta {
    code: "RL015",
    name: "equivalent-paths",
    severity: Severity::Warning,
    question: Question::Input,
    summary: "two templated paths differ only in parameter names (OpenAPI forbids them)",
};

/// RL016 `unbound-config`.
pub const UNBOUND_CONFIG: RuleMeta = RuleMeta {
    code: "RL016",
    name: "unbound-config",
    severity: Severity::Info,
    question: Question::Input,
    summary: "a retry config (or a route of it) binds to no operation of any spec",
};

/// RL017 `ineffective-setting`.
pub const INEFFECTIVE_SETTING: RuleMeta = RuleMeta {
    code: "RL017",
    name: "ineffective-setting",
    severity: Severity::Warning,
    question: Question::Input,
    summary: "a retry setting that silently does nothing or is not what it says (unknown key, ignored, capped, missing or out-of-range value, a route that never matches, a cycle in config inheritance)",
};

/// RL018 `unanswered-question`.
pub const UNANSWERED_QUESTION: RuleMeta = RuleMeta {
    code: "RL018",
    name: "unanswered-question",
    severity: Severity::Warning,
    question: Question::Input,
    summary: "a policy value left as `todo` (what `retrylint init` writes for a readiness question the spec and configs cannot answer)",
};

/// RL019 `unresolved-setting`.
pub const UNRESOLVED_SETTING: RuleMeta = RuleMeta {
    code: "RL019",
    name: "unresolved-setting",
    severity: Severity::Info,
    question: Question::Input,
    summary: "a retry setting in code whose value cannot be known statically (an environment variable, a parameter, another module, a lambda): names the setting and what was assumed",
};

/// RL101 `undeclared-effect`.
pub const UNDECLARED_EFFECT: RuleMeta = RuleMeta {
    code: "RL101",
    name: "undeclared-effect",
    severity: Severity::Info,
    question: Question::Effect,
    summary: "a retried operation with a non-idempotent method has no declared effect",
};

/// RL102 `unsafe-method-with-side-effects`.
pub const UNSAFE_METHOD_WITH_SIDE_EFFECTS: RuleMeta = RuleMeta {
    code: "RL102",
    name: "unsafe-method-with-side-effects",
    severity: Severity::Warning,
    question: Question::Effect,
    summary: "an operation with a safe method is declared non-idempotent",
};

/// RL103 `conflicting-effect`.
pub const CONFLICTING_EFFECT: RuleMeta = RuleMeta {
    code: "RL103",
    name: "conflicting-effect",
    severity: Severity::Warning,
    question: Question::Effect,
    summary: "two layers declare different effects for one operation (both positions); the other rules use the least safe of them",
};

/// RL201 `unprotected-retry`.
pub const UNPROTECTED_RETRY: RuleMeta = RuleMeta {
    code: "RL201",
    name: "unprotected-retry",
    severity: Severity::Error,
    question: Question::Safety,
    summary: "a non-idempotent operation is retried after a possibly processed attempt without protection",
};

/// RL202 `idempotency-key-not-in-spec`.
pub const IDEMPOTENCY_KEY_NOT_IN_SPEC: RuleMeta = RuleMeta {
    code: "RL202",
    name: "idempotency-key-not-in-spec",
    severity: Severity::Error,
    question: Question::Safety,
    summary: "the policy's idempotency-key header is not a declared header parameter",
};

/// RL208 `idempotency-key-regenerated`.
pub const IDEMPOTENCY_KEY_REGENERATED: RuleMeta = RuleMeta {
    code: "RL208",
    name: "idempotency-key-regenerated",
    severity: Severity::Error,
    question: Question::Safety,
    summary: "the idempotency key is generated inside the retried call (a new UUID per attempt), so every retry looks new to the server",
};

/// RL209 `route-may-resend-write`.
pub const ROUTE_MAY_RESEND_WRITE: RuleMeta = RuleMeta {
    code: "RL209",
    name: "route-may-resend-write",
    severity: Severity::Warning,
    question: Question::Safety,
    summary: "a route of a retry config (or a call in code) that no operation binds may resend a POST or PATCH: it retries on a signal after which the request may have been processed",
};

/// RL203 `idempotency-key-contract-incomplete`.
pub const IDEMPOTENCY_KEY_CONTRACT_INCOMPLETE: RuleMeta = RuleMeta {
    code: "RL203",
    name: "idempotency-key-contract-incomplete",
    severity: Severity::Warning,
    question: Question::Safety,
    summary: "an idempotency-key contract leaves out retention, scope, payload-mismatch or concurrency handling, or ignores them",
};

/// RL204 `idempotency-key-retention-too-short`.
pub const IDEMPOTENCY_KEY_RETENTION_TOO_SHORT: RuleMeta = RuleMeta {
    code: "RL204",
    name: "idempotency-key-retention-too-short",
    severity: Severity::Error,
    question: Question::Safety,
    summary: "idempotency-key retention is shorter than the operation's deadline",
};

/// RL205 `invalid-status-endpoint`.
pub const INVALID_STATUS_ENDPOINT: RuleMeta = RuleMeta {
    code: "RL205",
    name: "invalid-status-endpoint",
    severity: Severity::Error,
    question: Question::Safety,
    summary: "a status endpoint is not safe or needs a parameter the client cannot know",
};

/// RL206 `request-id-as-idempotency-key`.
pub const REQUEST_ID_AS_IDEMPOTENCY_KEY: RuleMeta = RuleMeta {
    code: "RL206",
    name: "request-id-as-idempotency-key",
    severity: Severity::Error,
    question: Question::Safety,
    summary: "the idempotency-key header is a correlation or tracing header",
};

/// RL207 `unprotected-hedging`.
pub const UNPROTECTED_HEDGING: RuleMeta = RuleMeta {
    code: "RL207",
    name: "unprotected-hedging",
    severity: Severity::Error,
    question: Question::Safety,
    summary: "a non-idempotent operation is hedged (parallel copies) without an idempotency key",
};

/// RL301 `missing-deadline`.
pub const MISSING_DEADLINE: RuleMeta = RuleMeta {
    code: "RL301",
    name: "missing-deadline",
    severity: Severity::Error,
    question: Question::Budget,
    summary: "a retried operation has no deadline",
};

/// RL302 `invalid-attempts`.
pub const INVALID_ATTEMPTS: RuleMeta = RuleMeta {
    code: "RL302",
    name: "invalid-attempts",
    severity: Severity::Error,
    question: Question::Budget,
    summary: "`attempts` is below 1, or a retried operation has no attempt budget",
};

/// RL303 `excessive-attempts`.
pub const EXCESSIVE_ATTEMPTS: RuleMeta = RuleMeta {
    code: "RL303",
    name: "excessive-attempts",
    severity: Severity::Warning,
    question: Question::Budget,
    summary: "`attempts` is above the configured maximum (default 5)",
};

/// RL304 `invalid-backoff`.
pub const INVALID_BACKOFF: RuleMeta = RuleMeta {
    code: "RL304",
    name: "invalid-backoff",
    severity: Severity::Error,
    question: Question::Budget,
    summary: "a backoff has a negative `base`, a `cap` below `base`, or a `multiplier` below 1",
};

/// RL305 `missing-jitter`.
pub const MISSING_JITTER: RuleMeta = RuleMeta {
    code: "RL305",
    name: "missing-jitter",
    severity: Severity::Warning,
    question: Question::Budget,
    summary: "a retried operation's backoff has no jitter",
};

/// RL306 `retry-after-not-honored`.
pub const RETRY_AFTER_NOT_HONORED: RuleMeta = RuleMeta {
    code: "RL306",
    name: "retry-after-not-honored",
    severity: Severity::Error,
    question: Question::Budget,
    summary: "429 or 503 is retried without honouring `Retry-After`",
};

/// RL307 `unbounded-retry-after`.
pub const UNBOUNDED_RETRY_AFTER: RuleMeta = RuleMeta {
    code: "RL307",
    name: "unbounded-retry-after",
    severity: Severity::Warning,
    question: Question::Budget,
    summary:
        "`Retry-After` is honoured without a `max` within the deadline, or without `on_invalid`",
};

/// RL308 `retry-on-client-error`.
pub const RETRY_ON_CLIENT_ERROR: RuleMeta = RuleMeta {
    code: "RL308",
    name: "retry-on-client-error",
    severity: Severity::Error,
    question: Question::Budget,
    summary: "`retry_on` holds a 4xx status that means \"fix the request\"",
};

/// RL309 `attempt-timeout-exceeds-budget`.
pub const ATTEMPT_TIMEOUT_EXCEEDS_BUDGET: RuleMeta = RuleMeta {
    code: "RL309",
    name: "attempt-timeout-exceeds-budget",
    severity: Severity::Warning,
    question: Question::Budget,
    summary: "a fixed `attempt_timeout` does not fit in the deadline with every attempt and wait",
};

/// RL310 `deadline-precludes-retry`.
pub const DEADLINE_PRECLUDES_RETRY: RuleMeta = RuleMeta {
    code: "RL310",
    name: "deadline-precludes-retry",
    severity: Severity::Warning,
    question: Question::Budget,
    summary: "the first backoff bound alone reaches the deadline",
};

/// RL311 `retry-amplification`.
pub const RETRY_AMPLIFICATION: RuleMeta = RuleMeta {
    code: "RL311",
    name: "retry-amplification",
    severity: Severity::Warning,
    question: Question::Budget,
    summary: "several layers retry one operation and their attempts multiply beyond the limit",
};

/// RL312 `attempt-timeout-never-retried`.
pub const ATTEMPT_TIMEOUT_NEVER_RETRIED: RuleMeta = RuleMeta {
    code: "RL312",
    name: "attempt-timeout-never-retried",
    severity: Severity::Warning,
    question: Question::Budget,
    summary: "a layer sets a per-attempt timeout but never retries its expiry",
};

/// RL313 `inner-layer-outlives-outer`.
pub const INNER_LAYER_OUTLIVES_OUTER: RuleMeta = RuleMeta {
    code: "RL313",
    name: "inner-layer-outlives-outer",
    severity: Severity::Warning,
    question: Question::Budget,
    summary:
        "an inner layer's worst case is longer than an outer layer's attempt timeout or deadline",
};

/// RL314 `version-dependent-default`.
pub const VERSION_DEPENDENT_DEFAULT: RuleMeta = RuleMeta {
    code: "RL314",
    name: "version-dependent-default",
    severity: Severity::Warning,
    question: Question::Budget,
    summary: "a platform default that decides a finding depends on the platform version, which `.retrylint.yaml` does not name",
};

/// RL401 `unknown-result-unhandled`.
pub const UNKNOWN_RESULT_UNHANDLED: RuleMeta = RuleMeta {
    code: "RL401",
    name: "unknown-result-unhandled",
    severity: Severity::Warning,
    question: Question::UnknownResult,
    summary: "a retried non-idempotent operation does not say what an unknown result leads to",
};

/// RL402 `blind-resend`.
pub const BLIND_RESEND: RuleMeta = RuleMeta {
    code: "RL402",
    name: "blind-resend",
    severity: Severity::Error,
    question: Question::UnknownResult,
    summary: "a non-idempotent operation is resent after an unknown result",
};

/// RL403 `unknown-result-strategy-unsupported`.
pub const UNKNOWN_RESULT_STRATEGY_UNSUPPORTED: RuleMeta = RuleMeta {
    code: "RL403",
    name: "unknown-result-strategy-unsupported",
    severity: Severity::Error,
    question: Question::UnknownResult,
    summary: "the unknown-result strategy lacks the status endpoint or idempotency key it needs",
};

/// RL501 `rate-limit-without-retry-after`.
pub const RATE_LIMIT_WITHOUT_RETRY_AFTER: RuleMeta = RuleMeta {
    code: "RL501",
    name: "rate-limit-without-retry-after",
    severity: Severity::Warning,
    question: Question::ServerContract,
    summary: "a documented 429 response declares no `Retry-After` header",
};

/// RL502 `unavailable-without-retry-after`.
pub const UNAVAILABLE_WITHOUT_RETRY_AFTER: RuleMeta = RuleMeta {
    code: "RL502",
    name: "unavailable-without-retry-after",
    severity: Severity::Info,
    question: Question::ServerContract,
    summary: "a documented 503 response declares no `Retry-After` header",
};

/// RL503 `invalid-retry-after-schema`.
pub const INVALID_RETRY_AFTER_SCHEMA: RuleMeta = RuleMeta {
    code: "RL503",
    name: "invalid-retry-after-schema",
    severity: Severity::Warning,
    question: Question::ServerContract,
    summary: "a `Retry-After` schema or example fits neither delay-seconds nor HTTP-date",
};

/// RL504 `idempotency-key-errors-undocumented`.
pub const IDEMPOTENCY_KEY_ERRORS_UNDOCUMENTED: RuleMeta = RuleMeta {
    code: "RL504",
    name: "idempotency-key-errors-undocumented",
    severity: Severity::Info,
    question: Question::ServerContract,
    summary: "an operation with an idempotency-key header documents neither 409 nor 422",
};

/// RL505 `accepted-without-status-location`.
pub const ACCEPTED_WITHOUT_STATUS_LOCATION: RuleMeta = RuleMeta {
    code: "RL505",
    name: "accepted-without-status-location",
    severity: Severity::Info,
    question: Question::ServerContract,
    summary: "a 202 response declares no `Location` or `Operation-Location` header and no link",
};

/// RL601 `observed-retry-before-retry-after` (reported by `retrylint probe` only, never by `check`).
pub const OBSERVED_RETRY_BEFORE_RETRY_AFTER: RuleMeta = RuleMeta {
    code: "RL601",
    name: "observed-retry-before-retry-after",
    severity: Severity::Error,
    question: Question::Observed,
    summary: "`probe`: an attempt started before the Retry-After the server sent (seconds or HTTP-date, judged absolutely); counterpart RL306",
};

/// RL602 `observed-synchronised-retries` (reported by `retrylint probe` only, never by `check`).
pub const OBSERVED_SYNCHRONISED_RETRIES: RuleMeta = RuleMeta {
    code: "RL602",
    name: "observed-synchronised-retries",
    severity: Severity::Warning,
    question: Question::Observed,
    summary: "`probe`: a herd of clients retried within max(25 ms, 5 % of the median delay) of each other; counterpart RL305",
};

/// RL603 `observed-duplicate-write` (reported by `retrylint probe` only, never by `check`).
pub const OBSERVED_DUPLICATE_WRITE: RuleMeta = RuleMeta {
    code: "RL603",
    name: "observed-duplicate-write",
    severity: Severity::Error,
    question: Question::Observed,
    summary: "`probe`: a non-idempotent request with an unknown outcome was sent again without protection and the fault server recorded a second effect; counterpart RL201/RL402",
};

/// RL604 `observed-key-missing-or-changed` (reported by `retrylint probe` only, never by `check`).
pub const OBSERVED_KEY_MISSING_OR_CHANGED: RuleMeta = RuleMeta {
    code: "RL604",
    name: "observed-key-missing-or-changed",
    severity: Severity::Error,
    question: Question::Observed,
    summary: "`probe`: the declared idempotency-key header is missing, or its value changed between attempts of one operation; counterpart RL202/RL206/RL208",
};

/// RL605 `observed-deadline-overrun` (reported by `retrylint probe` only, never by `check`).
pub const OBSERVED_DEADLINE_OVERRUN: RuleMeta = RuleMeta {
    code: "RL605",
    name: "observed-deadline-overrun",
    severity: Severity::Error,
    question: Question::Observed,
    summary: "`probe`: an attempt started after the deadline, or the client ran past deadline + grace; counterpart RL301/RL309",
};

/// RL606 `observed-too-many-attempts` (reported by `retrylint probe` only, never by `check`).
pub const OBSERVED_TOO_MANY_ATTEMPTS: RuleMeta = RuleMeta {
    code: "RL606",
    name: "observed-too-many-attempts",
    severity: Severity::Error,
    question: Question::Observed,
    summary: "`probe`: more attempts than the effective policy allows; counterpart RL302/RL303",
};

/// RL607 `observed-retry-on-client-error` (reported by `retrylint probe` only, never by `check`).
pub const OBSERVED_RETRY_ON_CLIENT_ERROR: RuleMeta = RuleMeta {
    code: "RL607",
    name: "observed-retry-on-client-error",
    severity: Severity::Warning,
    question: Question::Observed,
    summary: "`probe`: a 400/401/403/422 was retried unchanged; counterpart RL308",
};

/// RL608 `observed-unbounded-retry-after` (reported by `retrylint probe` only, never by `check`).
pub const OBSERVED_UNBOUNDED_RETRY_AFTER: RuleMeta = RuleMeta {
    code: "RL608",
    name: "observed-unbounded-retry-after",
    severity: Severity::Warning,
    question: Question::Observed,
    summary: "`probe`: the client waited a huge or invalid Retry-After past its own bound; counterpart RL307",
};

/// RL609 `observed-policy-drift` (reported by `retrylint probe` only, never by `check`).
pub const OBSERVED_POLICY_DRIFT: RuleMeta = RuleMeta {
    code: "RL609",
    name: "observed-policy-drift",
    severity: Severity::Warning,
    question: Question::Observed,
    summary: "`probe`: the observed policy (attempts, delays, jitter class, Retry-After forms, methods) differs from the declared or imported one",
};

/// Every rule, sorted by code.
pub static ALL: &[&RuleMeta] = &[
    &INVALID_SYNTAX,
    &DUPLICATE_KEY,
    &UNRESOLVED_REF,
    &REF_CYCLE,
    &INVALID_POLICY,
    &UNKNOWN_OPERATION,
    &UNSUPPORTED_DOCUMENT,
    &INVALID_OPENAPI_STRUCTURE,
    &DUPLICATE_PARAMETER,
    &UNUSED_SUPPRESSION,
    &REF_SIBLINGS_IGNORED,
    &INVALID_STATUS_KEY,
    &SUPPRESSION_WITHOUT_REASON,
    &MULTIPLE_DOCUMENTS,
    &EQUIVALENT_PATHS,
    &UNBOUND_CONFIG,
    &INEFFECTIVE_SETTING,
    &UNANSWERED_QUESTION,
    &UNRESOLVED_SETTING,
    &UNDECLARED_EFFECT,
    &UNSAFE_METHOD_WITH_SIDE_EFFECTS,
    &CONFLICTING_EFFECT,
    &UNPROTECTED_RETRY,
    &IDEMPOTENCY_KEY_NOT_IN_SPEC,
    &IDEMPOTENCY_KEY_CONTRACT_INCOMPLETE,
    &IDEMPOTENCY_KEY_RETENTION_TOO_SHORT,
    &INVALID_STATUS_ENDPOINT,
    &REQUEST_ID_AS_IDEMPOTENCY_KEY,
    &UNPROTECTED_HEDGING,
    &IDEMPOTENCY_KEY_REGENERATED,
    &ROUTE_MAY_RESEND_WRITE,
    &MISSING_DEADLINE,
    &INVALID_ATTEMPTS,
    &EXCESSIVE_ATTEMPTS,
    &INVALID_BACKOFF,
    &MISSING_JITTER,
    &RETRY_AFTER_NOT_HONORED,
    &UNBOUNDED_RETRY_AFTER,
    &RETRY_ON_CLIENT_ERROR,
    &ATTEMPT_TIMEOUT_EXCEEDS_BUDGET,
    &DEADLINE_PRECLUDES_RETRY,
    &RETRY_AMPLIFICATION,
    &ATTEMPT_TIMEOUT_NEVER_RETRIED,
    &INNER_LAYER_OUTLIVES_OUTER,
    &VERSION_DEPENDENT_DEFAULT,
    &UNKNOWN_RESULT_UNHANDLED,
    &BLIND_RESEND,
    &UNKNOWN_RESULT_STRATEGY_UNSUPPORTED,
    &RATE_LIMIT_WITHOUT_RETRY_AFTER,
    &UNAVAILABLE_WITHOUT_RETRY_AFTER,
    &INVALID_RETRY_AFTER_SCHEMA,
    &IDEMPOTENCY_KEY_ERRORS_UNDOCUMENTED,
    &ACCEPTED_WITHOUT_STATUS_LOCATION,
    &OBSERVED_RETRY_BEFORE_RETRY_AFTER,
    &OBSERVED_SYNCHRONISED_RETRIES,
    &OBSERVED_DUPLICATE_WRITE,
    &OBSERVED_KEY_MISSING_OR_CHANGED,
    &OBSERVED_DEADLINE_OVERRUN,
    &OBSERVED_TOO_MANY_ATTEMPTS,
    &OBSERVED_RETRY_ON_CLIENT_ERROR,
    &OBSERVED_UNBOUNDED_RETRY_AFTER,
    &OBSERVED_POLICY_DRIFT,
];

/// Looks a rule up by code (`RL201`, any case) or name (`unprotected-retry`).
pub fn find(code_or_name: &str) -> Option<&'static RuleMeta> {
    ALL.iter()
        .copied()
        .find(|r| r.code.eq_ignore_ascii_case(code_or_name) || r.name == code_or_name)
}
