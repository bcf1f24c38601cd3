//! Pure retry domain logic: no files, no I/O, no dependency on other modules.
//!
//! - [`decide`]: the reference decision function of docs/domain.md
//!   (domain.md), exactly: inputs, defaults, order of checks, reason names.
//! - [`decide_policy`]: the same decision with inputs from an effective retry
//!   policy (domain.md "The policy-mode decision", policy-format.md).
//! - [`parse_retry_after`] / [`parse_retry_after_at`]: the one Retry-After parser
//!   (RFC 9110 §10.2.3), shared with the lint rules (RL503).
//! - [`backoff_bound_ms`], [`total_backoff_ms`]: budget arithmetic for the rules.
//! - [`signals`]: what each `retry_on` signal means; the one table of the signals
//!   that prove a request was never processed.
//! - [`is_correlation_header`]: tracing headers that are no idempotency key.
//! - [`is_key_header`]: well-known idempotency-key headers.
//! - [`simulate`], [`simulate_chain`]: the deterministic herd simulation behind
//!   `retrylint simulate`, of one layer or of a chain (client -> gateway -> mesh).
//! - [`RetryBudget`], [`Hedging`]: budgets and parallel copies of a layer;
//!   [`total_attempts`], [`layer_worst_case_ms`], [`chain_worst_case_ms`]: composition
//!   across layers (`layers.md` "Composition across layers").
//!
//! Units: every time, delay and duration is in milliseconds as `f64`, except
//! Retry-After delay-seconds (seconds, as sent on the wire).

mod backoff;
mod budget;
mod chain;
mod compose;
mod correlation;
mod decision;
mod herd;
mod idempotency_key;
mod policy_decision;
mod retry_after;
pub mod signals;
mod simulate;
mod simulate_events;
mod types;

pub use backoff::{backoff_bound_ms, total_backoff_ms};
pub use budget::{format_factor, Hedging, RetryBudget};
pub use chain::{attempts_bound, budget_bound, AttemptLimit, AttemptsBound, LayerView};
pub use compose::{
    chain_worst_case_ms, layer_worst_case_ms, total_attempts, LayerShape, TotalAttempts,
};
pub use correlation::{is_correlation_header, CORRELATION_HEADERS};
pub use decision::{
    decide, is_idempotent_method, Decision, DecisionInput, StopReason, IDEMPOTENT_METHODS,
};
pub use idempotency_key::{is_key_header, KEY_HEADERS};
pub use policy_decision::{
    decide_policy, EffectivePolicyView, PolicyDecisionInput, RetryAfterPolicy,
};
pub use retry_after::{
    is_valid_retry_after_example, parse_retry_after, parse_retry_after_at, retry_after_input_ms,
    RetryAfter, RetryAfterError,
};
pub use simulate::{
    simulate, simulate_chain, Bucket, ChainConfig, ChainFigures, Failure, LayerFigures,
    SimulationConfig, SimulationError, SimulationReport, SplitMix64, BUCKET_MS, BUDGET_EXHAUSTED,
    NEVER_ANSWERED,
};
pub use types::{
    retry_on_covers, Effect, GrpcCode, Jitter, JitterFactor, OnInvalid, ParseTokenError,
    RetryOnEntry, Signal,
};
