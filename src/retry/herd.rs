//! The herd model shared by both orders of a chain simulation (client by client in
//! `simulate`, one time-ordered queue in `simulate_events`): its parameters and
//! what a run counts.

use std::collections::BTreeMap;

use super::chain::LayerView;
use super::decision::StopReason;
use super::types::Signal;

/// Width of a load bucket, in ms.
pub const BUCKET_MS: u64 = 10;

/// How a failing upstream attempt fails (`simulate --failure`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Failure {
    /// `status`: the upstream answers 503 (with the configured Retry-After)
    /// `attempt_ms` after the attempt was sent (0: instantly, the model of issue 4).
    Status {
        /// How long a failing attempt takes, in ms.
        attempt_ms: f64,
    },
    /// `timeout`: the upstream never answers; each layer gives up on the attempt
    /// at its attempt timeout (or its deadline), and the attempt fails with
    /// `timeout`.
    Timeout,
}

/// Parameters of a simulation of a chain of layers (see [`simulate_chain`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ChainConfig {
    /// Number of clients, all starting at t = 0.
    pub clients: u32,
    /// The upstream fails every attempt sent before this time, in ms.
    pub outage_ms: f64,
    /// Raw Retry-After value sent with every 503 (`None`: no header).
    pub retry_after: Option<String>,
    /// Wall-clock epoch ms of t = 0; an HTTP-date Retry-After is relative to it.
    pub start_epoch_ms: f64,
    /// Seed of the random stream.
    pub seed: u64,
    /// How failing attempts fail.
    pub failure: Failure,
    /// The layers, outermost (client) first; the last one sends to the upstream.
    pub layers: Vec<LayerView>,
}

/// The `other_stops` name of a client whose retry a budget refused (its own
/// layer's budget: a layer's loop ends when its budget refuses a retry).
pub const BUDGET_EXHAUSTED: &str = "budget-exhausted";

/// What a run counts, whichever way its events were ordered.
pub(super) struct Tally {
    /// Bucket index -> (attempts, retries) at the upstream.
    pub buckets: BTreeMap<u64, (u64, u64)>,
    /// Attempts sent by each layer, outermost first.
    pub layer_attempts: Vec<u64>,
    /// Retries refused by each layer's budget.
    pub layer_refused: Vec<u64>,
    pub succeeded: u64,
    pub gave_up_deadline: u64,
    pub out_of_attempts: u64,
    pub other_stops: BTreeMap<String, u64>,
    pub finished_at_ms: f64,
}

impl Tally {
    pub(super) fn new(layers: usize) -> Tally {
        Tally {
            buckets: BTreeMap::new(),
            layer_attempts: vec![0; layers],
            layer_refused: vec![0; layers],
            succeeded: 0,
            gave_up_deadline: 0,
            out_of_attempts: 0,
            other_stops: BTreeMap::new(),
            finished_at_ms: 0.0,
        }
    }

    /// A client's final answer at `at`: `Some(true)` a success, `Some(false)` a
    /// failure after which it stopped for `stop`, `None` never answered.
    pub(super) fn client_done(&mut self, answered: Option<bool>, stop: Option<&str>, at: f64) {
        match (answered, stop) {
            (Some(true), _) => self.succeeded += 1,
            (None, _) | (Some(false), None) => {
                // Nothing bounds the attempt and the upstream never answers.
                *self
                    .other_stops
                    .entry(NEVER_ANSWERED.to_owned())
                    .or_default() += 1;
                return;
            }
            (Some(false), Some(reason)) if reason == StopReason::DeadlineExhausted.as_str() => {
                self.gave_up_deadline += 1
            }
            (Some(false), Some(reason)) if reason == StopReason::MaxAttempts.as_str() => {
                self.out_of_attempts += 1
            }
            (Some(false), Some(other)) => {
                *self.other_stops.entry(other.to_owned()).or_default() += 1
            }
        }
        self.finished_at_ms = self.finished_at_ms.max(at);
    }
}

/// The `other_stops` name of a client whose attempt is bounded by nothing (no
/// attempt timeout, no deadline) while the upstream never answers.
pub const NEVER_ANSWERED: &str = "never-answered";

/// What layer `depth` passes to its caller after it stopped on `signal`, and whether
/// that answer carries a Retry-After. A proxy (any layer inside the client) relays an
/// upstream response as it is (a 503 with its Retry-After); when its own attempt
/// timeout or deadline fired it answers `504 Gateway Timeout` (RFC 9110 §15.6.5;
/// Envoy's "upstream request timeout", nginx's `proxy_read_timeout`). The client's
/// answer goes to the caller, not to a layer, and is kept as it is.
pub(super) fn passed_up_signal(depth: usize, signal: Signal, retry_after: bool) -> (Signal, bool) {
    match signal {
        Signal::Timeout if depth > 0 => (Signal::Status(504), false),
        _ => (signal, retry_after),
    }
}
