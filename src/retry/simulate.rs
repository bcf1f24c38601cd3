//! Deterministic herd simulation for `retrylint simulate` (issue 4; layers and
//! attempt durations: issue 13).
//!
//! Model: `clients` clients each start one operation at t = 0. The request goes
//! through a chain of layers ([`LayerView`], client outermost): each attempt of a
//! layer is one request to the next layer inside, which runs its own retry loop
//! (its own attempts, backoff, jitter, attempt timeout and deadline, measured from
//! when the request reached it); the innermost layer's attempts reach the upstream.
//! The upstream is down until `outage_ms`: every attempt sent at t < `outage_ms`
//! fails ([`Failure`]): a 503 (carrying the configured Retry-After, if any) that
//! takes `attempt_ms` (0 by default: instant), or no answer at all, so that each
//! layer waits for its attempt timeout. Every attempt at t >= `outage_ms` succeeds
//! at once. After each failure a layer asks [`decide_policy`](super::decide_policy)
//! (the signal it saw, elapsed = time since the request reached it) and either
//! sends its next attempt at t + delay or stops and answers its caller: a proxy
//! relays the upstream's 503, or answers 504 when its own timeout fired.
//!
//! An outer layer that gives up on an attempt (its attempt timeout) does not cancel
//! the inner layer's loop: the inner attempts still reach the upstream (layers.md,
//! "Composition across layers"), which is the worst case of a proxy that does not
//! propagate cancellation.
//!
//! Because the upstream's answer depends only on time, never on other clients'
//! load, clients are independent and are simulated one after another (the
//! discrete-event schedule of each client is its own nested sequence of attempt
//! times, depth first). The random units come from one SplitMix64 stream seeded
//! with `seed`, consumed client by client in that order, so a seed gives the same
//! report on every platform, and a chain of one layer with instant failures gives
//! exactly the result of the single-layer model of issue 4.
//!
//! A retry budget breaks that independence: it depends on the load of every client
//! at once. When some layer has a `budget` or hedges, the run orders every client's
//! events in one time-ordered queue instead (`simulate_events`, which also models
//! hedged copies); runs without either keep the order above and their results.
//! The report's bound is [`compose::total_attempts`](super::compose::total_attempts),
//! the count of RL311 and the readiness: the plain product and, when a budget lowers
//! it, the bound under load.

use std::collections::BTreeMap;

use serde::Serialize;

use super::chain::{attempts_bound, budget_bound, AttemptsBound, LayerView};
use super::decision::{Decision, StopReason};
use super::herd::Tally;
pub use super::herd::{ChainConfig, Failure, BUCKET_MS, BUDGET_EXHAUSTED, NEVER_ANSWERED};
use super::policy_decision::{
    classify_ms, decide_observed, EffectivePolicyView, ObservedRetryAfter,
};
use super::retry_after::parse_retry_after_at;
use super::types::Signal;

/// SplitMix64 (Steele, Lea, Flood 2014; the reference constants of Vigna's
/// `splitmix64.c`): a tiny, portable, seedable generator. Integer arithmetic
/// only, so its output is identical on every platform.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform unit in [0, 1) with 53 random bits (exact in `f64`).
    pub fn next_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// Parameters of a herd simulation.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulationConfig {
    /// Number of clients, all starting at t = 0.
    pub clients: u32,
    /// The upstream answers 503 to every attempt sent before this time, in ms.
    pub outage_ms: f64,
    /// Raw Retry-After value sent with every 503 (`None`: no header).
    pub retry_after: Option<String>,
    /// Wall-clock epoch ms of t = 0; an HTTP-date Retry-After is relative to it.
    pub start_epoch_ms: f64,
    /// Seed of the random stream.
    pub seed: u64,
    /// The effective policy every client follows.
    pub policy: EffectivePolicyView,
}

/// Load in one 10 ms bucket `[start_ms, start_ms + 10)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Bucket {
    /// Start of the bucket, in ms since t = 0.
    pub start_ms: u64,
    /// Every attempt the upstream received in the bucket (first attempts and
    /// retries).
    pub attempts: u64,
    /// Retries in the bucket: every upstream attempt except a client request's
    /// first pass through every layer.
    pub retries: u64,
}

/// Result of a herd simulation. All times are ms since t = 0.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimulationReport {
    /// Number of clients simulated.
    pub clients: u32,
    /// Every attempt sent to the upstream (by the innermost layer), first attempts
    /// included.
    pub total_attempts: u64,
    /// The measured amplification: `total_attempts / clients` (0 when there are no
    /// clients).
    pub amplification: f64,
    /// Clients whose last attempt succeeded.
    pub succeeded: u64,
    /// Clients that stopped with `deadline-exhausted`.
    pub gave_up_deadline: u64,
    /// Clients that stopped with `max-attempts`.
    pub out_of_attempts: u64,
    /// Clients that stopped for any other reason, by reason name (e.g.
    /// `not-transient` when 503 is not in `retry_on`, `unknown-result` for an
    /// unprotected non-idempotent operation). Sorted by name.
    pub other_stops: BTreeMap<String, u64>,
    /// Width of a bucket in ms (10).
    pub bucket_ms: u64,
    /// The most retries in one bucket (first attempts excluded).
    pub retry_peak: u64,
    /// Start of the first bucket holding `retry_peak` retries (`None` if no retry).
    pub retry_peak_at_ms: Option<u64>,
    /// Mean retries per bucket over the buckets that hold at least one retry
    /// (buckets without retries, including the gaps between them, are not counted).
    pub retry_mean: f64,
    /// `retry_peak / retry_mean` (0 when there is no retry). 1 means perfectly
    /// spread over the buckets in use; large values mean synchronised waves.
    pub retry_peak_ratio: f64,
    /// When the last client got its final answer (a success, or the failure after
    /// which it stopped); with instant failures, the time of its final attempt.
    /// Clients that never got an answer ([`NEVER_ANSWERED`]) are left out.
    pub finished_at_ms: f64,
    /// Non-empty buckets, in time order.
    pub buckets: Vec<Bucket>,
    /// Attempts per layer and RL311's bound, for a chain of two or more layers
    /// (absent from the JSON otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chain: Option<ChainFigures>,
}

/// Why a simulation cannot run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimulationError {
    /// `outage_ms` is negative or not finite.
    InvalidOutage,
    /// `start_epoch_ms` is not finite.
    InvalidStart,
    /// The duration of a failing attempt is negative or not finite.
    InvalidAttemptDuration,
    /// The chain has no layer.
    NoLayer,
    /// `clients` x the chain's attempt bound is above [`MAX_SIMULATED_ATTEMPTS`]
    /// (a huge `attempts` or `hedging.attempts`): the run would not end in
    /// reasonable time or memory.
    TooManyAttempts {
        /// Simulated clients.
        clients: u32,
        /// The most upstream attempts one client request can cause.
        per_client: u64,
    },
}

/// The most attempts one simulation may have to send (clients x the chain's
/// attempt bound); above it `simulate` refuses instead of running for minutes.
pub const MAX_SIMULATED_ATTEMPTS: u64 = 10_000_000;

impl std::fmt::Display for SimulationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimulationError::InvalidOutage => {
                f.write_str("outage must be a finite, non-negative duration")
            }
            SimulationError::InvalidStart => f.write_str("start time must be finite"),
            SimulationError::InvalidAttemptDuration => {
                f.write_str("the duration of an attempt must be finite and non-negative")
            }
            SimulationError::NoLayer => f.write_str("no layer to simulate"),
            SimulationError::TooManyAttempts {
                clients,
                per_client,
            } => write!(
                f,
                "{clients} clients x up to {per_client} attempts each is more than \
                 {MAX_SIMULATED_ATTEMPTS} attempts to simulate: lower `--clients`, \
                 `attempts` or `hedging.attempts`"
            ),
        }
    }
}

impl std::error::Error for SimulationError {}

impl SimulationConfig {
    /// The same simulation as a chain of one layer with instant 503s.
    pub fn to_chain(&self) -> ChainConfig {
        ChainConfig {
            clients: self.clients,
            outage_ms: self.outage_ms,
            retry_after: self.retry_after.clone(),
            start_epoch_ms: self.start_epoch_ms,
            seed: self.seed,
            failure: Failure::Status { attempt_ms: 0.0 },
            layers: vec![LayerView::new("client", self.policy.clone())],
        }
    }
}

/// One layer's figures in a chain simulation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LayerFigures {
    /// The layer's kind (`client`, `gateway`, `mesh`).
    pub layer: String,
    /// Attempts this layer sent (to the next layer, or to the upstream for the
    /// innermost one), first attempts included.
    pub attempts: u64,
    /// The most attempts per request it receives, as RL311 counts them.
    pub max_attempts: u64,
    /// False when `max_attempts` is a lower bound (a retried layer without
    /// `attempts`).
    pub max_attempts_exact: bool,
    /// Retries (and hedged copies) this layer's budget refused (absent from the
    /// JSON when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub budget_refused: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What a chain of two or more layers adds to the report: attempts per layer and
/// the amplification bound of RL311, beside the measured
/// [`SimulationReport::amplification`] (upstream attempts / client requests).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChainFigures {
    /// Every layer, outermost first.
    pub layers: Vec<LayerFigures>,
    /// The product of the layers' `max_attempts` (RL311's computed bound,
    /// [`compose::total_attempts`](super::compose::total_attempts)).
    pub amplification_bound: AttemptsBound,
    /// Attempts per client request under sustained load with the budgets applied
    /// (`1 + ratio` or `1 + token_ratio` for a budgeted layer), when a budget lowers
    /// the product (absent from the JSON otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget_bound: Option<f64>,
}

/// Runs the herd simulation of one layer with instant 503s: the model of issue 4
/// (see the module docs), as a chain of one layer.
///
/// Deterministic for a given `config` (including `seed`); O(total attempts x
/// log buckets), fast enough for 100,000 clients.
pub fn simulate(config: &SimulationConfig) -> Result<SimulationReport, SimulationError> {
    simulate_chain(&config.to_chain())
}

/// Runs the simulation of a chain of layers (see the module docs for the model).
///
/// Deterministic for a given `config`; each client's events are simulated depth
/// first, consuming the random stream in that order, so a chain of one layer with
/// instant failures gives exactly the single-layer result of [`simulate`].
/// [`SimulationReport::chain`] is filled when there are two or more layers.
pub fn simulate_chain(config: &ChainConfig) -> Result<SimulationReport, SimulationError> {
    if !config.outage_ms.is_finite() || config.outage_ms < 0.0 {
        return Err(SimulationError::InvalidOutage);
    }
    if !config.start_epoch_ms.is_finite() {
        return Err(SimulationError::InvalidStart);
    }
    if let Failure::Status { attempt_ms } = config.failure {
        if !attempt_ms.is_finite() || attempt_ms < 0.0 {
            return Err(SimulationError::InvalidAttemptDuration);
        }
    }
    if config.layers.is_empty() {
        return Err(SimulationError::NoLayer);
    }
    let per_client = attempts_bound(&config.layers).attempts;
    if u64::from(config.clients).saturating_mul(per_client) > MAX_SIMULATED_ATTEMPTS {
        return Err(SimulationError::TooManyAttempts {
            clients: config.clients,
            per_client,
        });
    }
    let retry_after = config
        .retry_after
        .as_deref()
        .map(|raw| parse_retry_after_at(raw, config.start_epoch_ms));
    let mut rng = SplitMix64::new(config.seed);
    let tally = if config
        .layers
        .iter()
        .any(|l| l.budget.is_some() || l.hedges())
    {
        // Budgets depend on every client's load at once: one time-ordered queue.
        super::simulate_events::run(config, retry_after, move || rng.next_unit())
    } else {
        let mut run = Run {
            config,
            retry_after,
            draw: move || rng.next_unit(),
            buckets: BTreeMap::new(),
            layer_attempts: vec![0; config.layers.len()],
        };
        let mut tally = Tally::new(config.layers.len());
        for _ in 0..config.clients {
            let outcome = run.layer(0, 0.0, true);
            let answered = match outcome.answer {
                Answer::Success => Some(true),
                Answer::Failed { .. } => Some(false),
                Answer::Never => None,
            };
            tally.client_done(answered, outcome.stop.map(StopReason::as_str), outcome.at);
        }
        tally.buckets = run.buckets;
        tally.layer_attempts = run.layer_attempts;
        tally
    };
    let Tally {
        buckets,
        layer_attempts,
        layer_refused,
        succeeded,
        gave_up_deadline,
        out_of_attempts,
        other_stops,
        finished_at_ms,
    } = tally;

    let total_attempts = layer_attempts.last().copied().unwrap_or(0);
    let chain = (config.layers.len() > 1).then(|| ChainFigures {
        layers: config
            .layers
            .iter()
            .zip(layer_attempts.iter().zip(&layer_refused))
            .map(|(l, (&attempts, &budget_refused))| {
                let (max_attempts, max_attempts_exact) = l.max_attempts();
                LayerFigures {
                    layer: l.kind.clone(),
                    attempts,
                    max_attempts,
                    max_attempts_exact,
                    budget_refused,
                }
            })
            .collect(),
        amplification_bound: attempts_bound(&config.layers),
        budget_bound: budget_bound(&config.layers),
    });
    let buckets: Vec<Bucket> = buckets
        .into_iter()
        .map(|(i, (attempts, retries))| Bucket {
            start_ms: i * BUCKET_MS,
            attempts,
            retries,
        })
        .collect();
    let mut retry_peak = 0u64;
    let mut retry_peak_at_ms = None;
    let (mut retry_sum, mut retry_buckets) = (0u64, 0u64);
    for b in &buckets {
        if b.retries > 0 {
            retry_sum += b.retries;
            retry_buckets += 1;
        }
        if b.retries > retry_peak {
            retry_peak = b.retries;
            retry_peak_at_ms = Some(b.start_ms);
        }
    }
    let retry_mean = if retry_buckets == 0 {
        0.0
    } else {
        retry_sum as f64 / retry_buckets as f64
    };
    let retry_peak_ratio = if retry_mean > 0.0 {
        retry_peak as f64 / retry_mean
    } else {
        0.0
    };
    let amplification = if config.clients == 0 {
        0.0
    } else {
        total_attempts as f64 / f64::from(config.clients)
    };
    Ok(SimulationReport {
        clients: config.clients,
        total_attempts,
        amplification,
        succeeded,
        gave_up_deadline,
        out_of_attempts,
        other_stops,
        bucket_ms: BUCKET_MS,
        retry_peak,
        retry_peak_at_ms,
        retry_mean,
        retry_peak_ratio,
        finished_at_ms,
        buckets,
        chain,
    })
}

/// What a layer received for one attempt.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Answer {
    /// A success.
    Success,
    /// A failure; `retry_after` is true when it carries the upstream's Retry-After.
    Failed { signal: Signal, retry_after: bool },
    /// Nothing, ever.
    Never,
}

/// How one layer's loop ended for one request it received.
#[derive(Debug, Clone, Copy)]
struct LayerOutcome {
    /// When the layer answered its caller, in ms (infinite for [`Answer::Never`]).
    at: f64,
    /// What it answered.
    answer: Answer,
    /// Why it stopped retrying (`None` after a success, or when it never got an
    /// answer).
    stop: Option<StopReason>,
}

/// The state of one simulation run: the load counters and the random stream.
struct Run<'a, D> {
    config: &'a ChainConfig,
    retry_after:
        Option<Result<super::retry_after::RetryAfter, super::retry_after::RetryAfterError>>,
    draw: D,
    /// Bucket index -> (attempts, retries) at the upstream.
    buckets: BTreeMap<u64, (u64, u64)>,
    /// Attempts sent by each layer, outermost first.
    layer_attempts: Vec<u64>,
}

impl<D: FnMut() -> f64> Run<'_, D> {
    /// The retry loop of layer `depth` for one request it received at `start_ms`.
    /// `first_path` is true while every outer layer is on its first attempt, so the
    /// upstream can tell a client's first attempt from a retry of some layer.
    fn layer(&mut self, depth: usize, start_ms: f64, first_path: bool) -> LayerOutcome {
        let config = self.config;
        let view = &config.layers[depth];
        let mut t = start_ms;
        let mut retry = 0u32;
        let mut previous: Option<f64> = None;
        loop {
            self.layer_attempts[depth] += 1;
            let first = first_path && retry == 0;
            let (mut at, mut answer) = if depth + 1 == self.config.layers.len() {
                self.upstream(t, first)
            } else {
                let inner = self.layer(depth + 1, t, first);
                (inner.at, inner.answer)
            };
            // The layer gives up on the attempt at its attempt timeout. An inner
            // layer still retrying goes on (layers.md "Composition across layers":
            // the outer layer retries while the inner one is still retrying); its
            // attempts were counted above.
            let limit = view
                .attempt_timeout
                .ends_at(start_ms, t, view.policy.deadline_ms);
            if at > limit {
                at = limit;
                answer = Answer::Failed {
                    signal: Signal::Timeout,
                    retry_after: false,
                };
            }
            let (signal, carries_retry_after) = match answer {
                Answer::Success => {
                    return LayerOutcome {
                        at,
                        answer,
                        stop: None,
                    }
                }
                Answer::Never => {
                    return LayerOutcome {
                        at: f64::INFINITY,
                        answer,
                        stop: None,
                    }
                }
                Answer::Failed {
                    signal,
                    retry_after,
                } => (signal, retry_after),
            };
            let observed = match (&self.retry_after, carries_retry_after) {
                (None, _) | (_, false) => ObservedRetryAfter::Absent,
                (Some(Ok(ra)), true) => classify_ms(ra.delay_ms(self.config.start_epoch_ms + at)),
                (Some(Err(_)), true) => ObservedRetryAfter::Invalid,
            };
            let decision = decide_observed(
                &view.policy,
                signal,
                retry,
                at - start_ms,
                observed,
                previous,
                &mut self.draw,
            );
            let stop = match decision {
                Decision::Retry { delay_ms, .. } => {
                    // No budget on this path (see `simulate_events`).
                    t = at + delay_ms;
                    previous = Some(delay_ms);
                    retry = retry.saturating_add(1);
                    continue;
                }
                Decision::Stop(reason) => reason,
            };
            return LayerOutcome {
                at,
                answer: passed_up(depth, signal, carries_retry_after),
                stop: Some(stop),
            };
        }
    }

    /// One attempt at the upstream, sent at `t`: counted in its bucket; the answer
    /// and when it arrives.
    fn upstream(&mut self, t: f64, first: bool) -> (f64, Answer) {
        // t is finite here; `as` saturates.
        let slot = self
            .buckets
            .entry((t / BUCKET_MS as f64) as u64)
            .or_default();
        slot.0 += 1;
        if !first {
            slot.1 += 1;
        }
        if t >= self.config.outage_ms {
            return (t, Answer::Success);
        }
        match self.config.failure {
            Failure::Status { attempt_ms } => (
                t + attempt_ms,
                Answer::Failed {
                    signal: Signal::Status(503),
                    retry_after: true,
                },
            ),
            Failure::Timeout => (f64::INFINITY, Answer::Never),
        }
    }
}

/// What layer `depth` answers its caller after it stopped on `signal`
/// ([`super::herd::passed_up_signal`]).
fn passed_up(depth: usize, signal: Signal, retry_after: bool) -> Answer {
    let (signal, retry_after) = super::herd::passed_up_signal(depth, signal, retry_after);
    Answer::Failed {
        signal,
        retry_after,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retry::budget::{Hedging, RetryBudget};
    use crate::retry::chain::AttemptLimit;
    use crate::retry::policy_decision::RetryAfterPolicy;
    use crate::retry::types::{Effect, Jitter, OnInvalid, RetryOnEntry};
    use proptest::prelude::*;

    /// The single-layer loop of issue 4 as it was before chains (instant 503s,
    /// clients one after another): the oracle for "a chain of one layer is today's
    /// result".
    fn reference(config: &SimulationConfig) -> SimulationReport {
        let parsed = config
            .retry_after
            .as_deref()
            .map(|raw| parse_retry_after_at(raw, config.start_epoch_ms));
        let mut rng = SplitMix64::new(config.seed);
        let mut draw = || rng.next_unit();
        let mut buckets: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
        let mut total_attempts = 0u64;
        let (mut succeeded, mut gave_up_deadline, mut out_of_attempts) = (0u64, 0u64, 0u64);
        let mut other_stops: BTreeMap<String, u64> = BTreeMap::new();
        let mut finished_at_ms = 0.0f64;
        for _ in 0..config.clients {
            let mut t = 0.0f64;
            let mut retry = 0u32;
            let mut previous: Option<f64> = None;
            loop {
                total_attempts += 1;
                let slot = buckets.entry((t / BUCKET_MS as f64) as u64).or_default();
                slot.0 += 1;
                if retry > 0 {
                    slot.1 += 1;
                }
                if t >= config.outage_ms {
                    succeeded += 1;
                    break;
                }
                let observed = match &parsed {
                    None => ObservedRetryAfter::Absent,
                    Some(Ok(ra)) => classify_ms(ra.delay_ms(config.start_epoch_ms + t)),
                    Some(Err(_)) => ObservedRetryAfter::Invalid,
                };
                match decide_observed(
                    &config.policy,
                    Signal::Status(503),
                    retry,
                    t,
                    observed,
                    previous,
                    &mut draw,
                ) {
                    Decision::Retry { delay_ms, .. } => {
                        t += delay_ms;
                        previous = Some(delay_ms);
                        retry = retry.saturating_add(1);
                    }
                    Decision::Stop(StopReason::DeadlineExhausted) => {
                        gave_up_deadline += 1;
                        break;
                    }
                    Decision::Stop(StopReason::MaxAttempts) => {
                        out_of_attempts += 1;
                        break;
                    }
                    Decision::Stop(other) => {
                        *other_stops.entry(other.as_str().to_owned()).or_default() += 1;
                        break;
                    }
                }
            }
            finished_at_ms = finished_at_ms.max(t);
        }
        let buckets: Vec<Bucket> = buckets
            .into_iter()
            .map(|(i, (attempts, retries))| Bucket {
                start_ms: i * BUCKET_MS,
                attempts,
                retries,
            })
            .collect();
        let mut retry_peak = 0u64;
        let mut retry_peak_at_ms = None;
        let (mut retry_sum, mut retry_buckets) = (0u64, 0u64);
        for b in &buckets {
            if b.retries > 0 {
                retry_sum += b.retries;
                retry_buckets += 1;
            }
            if b.retries > retry_peak {
                retry_peak = b.retries;
                retry_peak_at_ms = Some(b.start_ms);
            }
        }
        let retry_mean = if retry_buckets == 0 {
            0.0
        } else {
            retry_sum as f64 / retry_buckets as f64
        };
        SimulationReport {
            clients: config.clients,
            total_attempts,
            amplification: if config.clients == 0 {
                0.0
            } else {
                total_attempts as f64 / f64::from(config.clients)
            },
            succeeded,
            gave_up_deadline,
            out_of_attempts,
            other_stops,
            bucket_ms: BUCKET_MS,
            retry_peak,
            retry_peak_at_ms,
            retry_mean,
            retry_peak_ratio: if retry_mean > 0.0 {
                retry_peak as f64 / retry_mean
            } else {
                0.0
            },
            finished_at_ms,
            buckets,
            chain: None,
        }
    }

    fn jitter() -> impl Strategy<Value = Option<Jitter>> {
        prop_oneof![
            Just(None),
            Just(Some(Jitter::None)),
            Just(Some(Jitter::Full)),
            Just(Some(Jitter::Equal)),
            Just(Some(Jitter::Decorrelated)),
        ]
    }

    prop_compose! {
        /// A policy that retries (or not) with small, mostly valid settings.
        fn view()(
            retry in prop::bool::weighted(0.9),
            effect in prop_oneof![Just(Effect::Safe), Just(Effect::Idempotent), Just(Effect::NonIdempotent)],
            key in any::<bool>(),
            retry_on in prop_oneof![
                Just(vec![RetryOnEntry::Status(503)]),
                Just(vec![RetryOnEntry::Class(5)]),
                Just(vec![RetryOnEntry::Timeout, RetryOnEntry::Status(503)]),
                Just(vec![RetryOnEntry::Transport, RetryOnEntry::Status(503), RetryOnEntry::Status(504)]),
                Just(vec![RetryOnEntry::Status(429)]),
            ],
            attempts in prop::option::weighted(0.9, 0u32..6),
            deadline in prop::option::weighted(0.9, 0u32..6000),
            base in 0u32..300,
            cap_extra in 0u32..2000,
            jitter in jitter(),
            honor in any::<bool>(),
            max in prop::option::of(0u32..3000),
        ) -> EffectivePolicyView {
            EffectivePolicyView {
                retry,
                effect,
                idempotency_key: key,
                check_status: false,
                retry_on,
                attempts,
                deadline_ms: deadline.map(f64::from),
                base_ms: Some(f64::from(base)),
                cap_ms: Some(f64::from(base + cap_extra)),
                multiplier: 2.0,
                jitter,
                retry_after: RetryAfterPolicy {
                    honor,
                    max_ms: max.map(f64::from),
                    on_invalid: OnInvalid::Backoff,
                    above_max_backoff: false,
                },
                method_retried_after_send: true,
            }
        }
    }

    prop_compose! {
        fn layer()(
            kind in prop_oneof![Just("client"), Just("gateway"), Just("mesh")],
            policy in view(),
            timeout in prop::option::of(1u32..3000),
        ) -> LayerView {
            LayerView {
                kind: kind.to_owned(),
                policy,
                attempt_timeout: timeout.map_or(AttemptLimit::Remaining, |ms| AttemptLimit::Fixed(f64::from(ms))),
                budget: None,
                hedging: None,
            }
        }
    }

    fn failure() -> impl Strategy<Value = Failure> {
        prop_oneof![
            Just(Failure::Timeout),
            (0u32..1500).prop_map(|ms| Failure::Status {
                attempt_ms: f64::from(ms)
            }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        /// A chain of one layer with instant 503s is exactly the single-layer model.
        #[test]
        fn a_chain_of_one_layer_is_the_single_layer_result(
            policy in view(),
            clients in 0u32..60,
            outage in 0u32..4000,
            retry_after in prop::option::of(prop_oneof![Just("1".to_owned()), Just("0".to_owned()), Just("soon".to_owned())]),
            seed in any::<u64>(),
        ) {
            let config = SimulationConfig {
                clients,
                outage_ms: f64::from(outage),
                retry_after,
                start_epoch_ms: 1_700_000_000_000.0,
                seed,
                policy,
            };
            prop_assert_eq!(simulate(&config).unwrap(), reference(&config));
        }

        /// The upstream never sees more attempts per client request than the
        /// product of the layers' attempts (RL311's bound), whatever the timing.
        #[test]
        fn measured_amplification_stays_within_the_computed_bound(
            layers in prop::collection::vec(layer(), 1..4),
            failure in failure(),
            clients in 1u32..40,
            outage in 0u32..8000,
            retry_after in prop::option::of(Just("1".to_owned())),
            seed in any::<u64>(),
        ) {
            let bound = attempts_bound(&layers);
            let n = layers.len();
            let config = ChainConfig {
                clients,
                outage_ms: f64::from(outage),
                retry_after,
                start_epoch_ms: 1_700_000_000_000.0,
                seed,
                failure,
                layers,
            };
            let r = simulate_chain(&config).unwrap();
            prop_assert!(r.amplification <= bound.attempts as f64, "{} > {:?}", r.amplification, bound);
            prop_assert!(r.total_attempts >= u64::from(clients));
            let outcomes = r.succeeded + r.gave_up_deadline + r.out_of_attempts
                + r.other_stops.values().sum::<u64>();
            prop_assert_eq!(outcomes, u64::from(clients));
            prop_assert_eq!(r.buckets.iter().map(|b| b.attempts).sum::<u64>(), r.total_attempts);
            prop_assert_eq!(r.buckets.iter().map(|b| b.attempts - b.retries).sum::<u64>(), u64::from(clients));
            match &r.chain {
                None => prop_assert_eq!(n, 1),
                Some(chain) => {
                    prop_assert_eq!(chain.amplification_bound, bound);
                    // Each layer sends at least one attempt per attempt of the layer outside.
                    for pair in chain.layers.windows(2) {
                        prop_assert!(pair[0].attempts <= pair[1].attempts);
                        prop_assert!(pair[1].attempts <= pair[0].attempts * pair[1].max_attempts.max(1));
                    }
                }
            }
            prop_assert_eq!(simulate_chain(&config).unwrap(), r);
        }
    }

    fn budget() -> impl Strategy<Value = Option<RetryBudget>> {
        prop_oneof![
            Just(None),
            (0u32..100, prop::option::of(0u32..20)).prop_map(|(pct, min)| Some(
                RetryBudget::Ratio {
                    ratio: f64::from(pct) / 100.0,
                    min_per_second: min.map(f64::from),
                    min_concurrent: None,
                    window_ms: Some(10_000.0),
                }
            )),
            (0u64..10).prop_map(|n| Some(RetryBudget::Concurrency {
                max_concurrent_retries: n
            })),
            (1u32..20, 1u32..10).prop_map(|(t, r)| Some(RetryBudget::Tokens {
                tokens: f64::from(t),
                token_ratio: f64::from(r) / 10.0,
            })),
        ]
    }

    prop_compose! {
        /// A layer that may have a budget and may hedge.
        fn budgeted_layer()(
            mut layer in layer(),
            budget in budget(),
            hedging in prop::option::weighted(0.3, (1u64..5, 0u32..300)),
        ) -> LayerView {
            layer.budget = budget;
            layer.hedging = hedging.map(|(attempts, delay)| Hedging { attempts, delay_ms: f64::from(delay) });
            layer
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        /// Budgets and hedging (the event queue) keep RL311's product bound, count
        /// every client once and are deterministic.
        #[test]
        fn budgets_and_hedging_stay_within_the_product_bound(
            layers in prop::collection::vec(budgeted_layer(), 1..4),
            failure in failure(),
            clients in 1u32..40,
            outage in 0u32..8000,
            seed in any::<u64>(),
        ) {
            let bound = attempts_bound(&layers);
            let config = ChainConfig {
                clients,
                outage_ms: f64::from(outage),
                retry_after: Some("1".to_owned()),
                start_epoch_ms: 1_700_000_000_000.0,
                seed,
                failure,
                layers,
            };
            let r = simulate_chain(&config).unwrap();
            prop_assert!(r.amplification <= bound.attempts as f64, "{} > {:?}", r.amplification, bound);
            let outcomes = r.succeeded + r.gave_up_deadline + r.out_of_attempts
                + r.other_stops.values().sum::<u64>();
            prop_assert_eq!(outcomes, u64::from(clients));
            prop_assert_eq!(r.buckets.iter().map(|b| b.attempts).sum::<u64>(), r.total_attempts);
            prop_assert_eq!(r.buckets.iter().map(|b| b.attempts - b.retries).sum::<u64>(), u64::from(clients));
            prop_assert_eq!(simulate_chain(&config).unwrap(), r);
        }

        /// With no jitter (no random draw) and a budget that never binds, the event
        /// queue gives exactly the result of the client-by-client order.
        #[test]
        fn a_budget_that_never_binds_changes_nothing(
            layers in prop::collection::vec(layer(), 1..4),
            failure in failure(),
            clients in 1u32..30,
            outage in 0u32..8000,
        ) {
            let mut layers = layers;
            for l in &mut layers {
                l.policy.jitter = Some(Jitter::None);
            }
            let plain = ChainConfig {
                clients,
                outage_ms: f64::from(outage),
                retry_after: Some("1".to_owned()),
                start_epoch_ms: 1_700_000_000_000.0,
                seed: 7,
                failure,
                layers,
            };
            let mut budgeted = plain.clone();
            budgeted.layers[0].budget = Some(RetryBudget::Concurrency { max_concurrent_retries: u64::MAX });
            let a = simulate_chain(&plain).unwrap();
            let mut b = simulate_chain(&budgeted).unwrap();
            // The bound does not change either: a cap is not a share of the load.
            prop_assert_eq!(a.clone().chain.map(|c| c.amplification_bound), b.clone().chain.map(|c| c.amplification_bound));
            if let (Some(x), Some(y)) = (&a.chain, &mut b.chain) {
                y.budget_bound = x.budget_bound;
            }
            prop_assert_eq!(a, b);
        }

        /// A ratio budget `r` whose window covers the whole run admits a retry only
        /// while the retries so far are below `r` x the requests so far: the budgeted
        /// layer sends at most `(1 + r) x requests + 1` attempts, so the
        /// amplification stays within the other layers' product x `(1 + r + 1 /
        /// clients)`, near RL311's budget bound `1 + r` for a large herd, and
        /// within the plain product.
        #[test]
        fn a_ratio_budget_holds_a_long_outage_near_one_plus_ratio(
            layers in prop::collection::vec(layer(), 1..4),
            at in 0usize..3,
            pct in 0u32..100,
            failure in failure(),
            clients in 100u32..400,
            seed in any::<u64>(),
        ) {
            let mut layers = layers;
            let d = at % layers.len();
            let r = f64::from(pct) / 100.0;
            layers[d].budget = Some(RetryBudget::Ratio {
                ratio: r,
                min_per_second: None,
                min_concurrent: None,
                window_ms: Some(1e12),
            });
            let others: f64 = layers
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != d)
                .map(|(_, l)| l.max_attempts().0 as f64)
                .product();
            let product = attempts_bound(&layers).attempts as f64;
            let config = ChainConfig {
                clients,
                outage_ms: 1e9,
                retry_after: None,
                start_epoch_ms: 0.0,
                seed,
                failure,
                layers,
            };
            let rep = simulate_chain(&config).unwrap();
            prop_assert!(rep.amplification <= product, "{} > {}", rep.amplification, product);
            let near = others * (1.0 + r + 1.0 / f64::from(clients));
            prop_assert!(rep.amplification <= near + 1e-9, "{} > {}", rep.amplification, near);
            if let Some(chain) = &rep.chain {
                let requests = if d == 0 { u64::from(clients) } else { chain.layers[d - 1].attempts };
                let sent = chain.layers[d].attempts as f64;
                prop_assert!(sent <= (1.0 + r) * requests as f64 + 1.0 + 1e-9, "{} for {} requests", sent, requests);
            }
        }
    }

    #[test]
    fn a_token_bucket_stops_retrying_at_half() {
        // 100 clients fail at t = 0: the bucket of 10 admits retries while more
        // than 5 tokens remain after the failure: 4 retries, then none.
        let mut l = layer_of("client", 3, AttemptLimit::Remaining);
        l.budget = Some(RetryBudget::Tokens {
            tokens: 10.0,
            token_ratio: 0.1,
        });
        let r = simulate_chain(&ChainConfig {
            clients: 100,
            outage_ms: 1e9,
            retry_after: None,
            start_epoch_ms: 0.0,
            seed: 1,
            failure: Failure::Status { attempt_ms: 0.0 },
            layers: vec![l],
        })
        .unwrap();
        assert_eq!(r.total_attempts, 104);
        assert_eq!(r.other_stops.get(BUDGET_EXHAUSTED), Some(&100));
    }

    #[test]
    fn a_concurrency_cap_limits_retries_in_flight() {
        // 503s take 100 ms, backoff 100 ms: a cap of 5 admits 5 retries at 100 ms,
        // held until answered at 300 ms; every other client is refused at 100 ms.
        let mut l = layer_of("client", 3, AttemptLimit::Remaining);
        l.budget = Some(RetryBudget::Concurrency {
            max_concurrent_retries: 5,
        });
        let r = simulate_chain(&ChainConfig {
            clients: 20,
            outage_ms: 1e9,
            retry_after: None,
            start_epoch_ms: 0.0,
            seed: 1,
            failure: Failure::Status { attempt_ms: 100.0 },
            layers: vec![l],
        })
        .unwrap();
        // 20 first attempts, 5 retries at 200 ms, 5 more at 400 ms.
        assert_eq!(r.total_attempts, 30);
        assert_eq!(r.out_of_attempts, 5);
        assert_eq!(r.other_stops.get(BUDGET_EXHAUSTED), Some(&15));
    }

    #[test]
    fn hedging_sends_copies_and_the_first_success_wins() {
        let hedged = |outage_ms: f64| {
            let mut l = layer_of("client", 1, AttemptLimit::Remaining);
            l.hedging = Some(Hedging {
                attempts: 3,
                delay_ms: 50.0,
            });
            simulate_chain(&ChainConfig {
                clients: 10,
                outage_ms,
                retry_after: None,
                start_epoch_ms: 0.0,
                seed: 1,
                failure: Failure::Status { attempt_ms: 100.0 },
                layers: vec![l],
            })
            .unwrap()
        };
        // Copies at 0, 50 and 100 ms all fail: 3 attempts each, all spent.
        let r = hedged(1e9);
        assert_eq!(r.total_attempts, 30);
        assert_eq!(r.out_of_attempts, 10);
        assert_eq!(r.finished_at_ms, 200.0);
        // The copy sent at 50 ms answers at once after a 40 ms outage and wins.
        let r = hedged(40.0);
        assert_eq!(r.total_attempts, 20);
        assert_eq!(r.succeeded, 10);
        assert_eq!(r.finished_at_ms, 50.0);
    }

    fn layer_of(kind: &str, attempts: u32, timeout: AttemptLimit) -> LayerView {
        LayerView {
            kind: kind.to_owned(),
            policy: EffectivePolicyView {
                retry: true,
                effect: Effect::Idempotent,
                retry_on: vec![
                    RetryOnEntry::Timeout,
                    RetryOnEntry::Status(503),
                    RetryOnEntry::Status(504),
                ],
                attempts: Some(attempts),
                deadline_ms: Some(60_000.0),
                base_ms: Some(100.0),
                cap_ms: Some(100.0),
                jitter: Some(Jitter::None),
                ..EffectivePolicyView::default()
            },
            attempt_timeout: timeout,
            budget: None,
            hedging: None,
        }
    }

    fn chain(layers: Vec<LayerView>, failure: Failure, outage_ms: f64) -> SimulationReport {
        simulate_chain(&ChainConfig {
            clients: 10,
            outage_ms,
            retry_after: None,
            start_epoch_ms: 0.0,
            seed: 1,
            failure,
            layers,
        })
        .unwrap()
    }

    #[test]
    fn a_long_outage_reaches_the_bound_through_every_layer() {
        let layers = vec![
            layer_of("client", 3, AttemptLimit::Remaining),
            layer_of("gateway", 2, AttemptLimit::Remaining),
            layer_of("mesh", 3, AttemptLimit::Remaining),
        ];
        let r = chain(layers, Failure::Status { attempt_ms: 0.0 }, 1e9);
        assert_eq!(r.total_attempts, 10 * 18);
        assert_eq!(r.amplification, 18.0);
        let c = r.chain.unwrap();
        assert_eq!(
            c.layers.iter().map(|l| l.attempts).collect::<Vec<_>>(),
            [30, 60, 180]
        );
        assert_eq!(
            c.amplification_bound,
            AttemptsBound {
                attempts: 18,
                exact: true
            }
        );
        assert_eq!(r.out_of_attempts, 10);
    }

    #[test]
    fn attempts_take_time() {
        // One layer, 3 attempts, 100 ms backoff: instant 503s end at 200 ms; 503s
        // after 1 s end at 1000 + 100 + 1000 + 100 + 1000 = 3200 ms.
        let one = || vec![layer_of("client", 3, AttemptLimit::Remaining)];
        let r = chain(one(), Failure::Status { attempt_ms: 0.0 }, 1e9);
        assert_eq!(r.finished_at_ms, 200.0);
        let r = chain(one(), Failure::Status { attempt_ms: 1000.0 }, 1e9);
        assert_eq!(r.finished_at_ms, 3200.0);
        // An outage of 2 s: instant failures spend the 3 attempts by 200 ms;
        // attempts of 1 s spread them to 0, 1100 and 2200 ms, after the outage.
        let r = chain(one(), Failure::Status { attempt_ms: 0.0 }, 2000.0);
        assert_eq!(r.succeeded, 0);
        let r = chain(one(), Failure::Status { attempt_ms: 1000.0 }, 2000.0);
        assert_eq!(r.succeeded, 10);
        assert_eq!(r.buckets.last().unwrap().start_ms, 2200);
        // A hanging upstream: each attempt lasts the attempt timeout.
        let r = chain(
            vec![layer_of("client", 3, AttemptLimit::Fixed(500.0))],
            Failure::Timeout,
            1e9,
        );
        assert_eq!(r.finished_at_ms, 500.0 + 100.0 + 500.0 + 100.0 + 500.0);
        // Nothing bounds the attempt: never answered.
        let mut unbounded = layer_of("client", 3, AttemptLimit::Remaining);
        unbounded.policy.deadline_ms = None;
        let r = chain(vec![unbounded], Failure::Timeout, 1e9);
        assert_eq!(r.other_stops.get(NEVER_ANSWERED), Some(&10));
        assert_eq!(r.total_attempts, 10);
    }

    #[test]
    fn an_outer_timeout_does_not_cancel_the_inner_loop() {
        // The gateway gives up after 250 ms while the mesh (503 after 100 ms, 3
        // attempts, 100 ms backoff) still retries: 5 gateway attempts x 3 mesh
        // attempts each reach the upstream.
        let layers = vec![
            layer_of("gateway", 5, AttemptLimit::Fixed(250.0)),
            layer_of("mesh", 3, AttemptLimit::Remaining),
        ];
        let r = chain(layers, Failure::Status { attempt_ms: 100.0 }, 1e9);
        assert_eq!(r.total_attempts, 10 * 15);
        // The gateway saw its own timeouts: it stopped on attempts, at
        // 4 x (250 + 100) + 250 ms.
        assert_eq!(r.out_of_attempts, 10);
        assert_eq!(r.finished_at_ms, 1650.0);
    }

    #[test]
    fn a_proxy_answers_504_when_its_own_timeout_fires() {
        // The mesh times out (hanging upstream) and answers 504; a gateway that
        // retries 504 but not `timeout` still retries.
        let mut gateway = layer_of("gateway", 2, AttemptLimit::Remaining);
        gateway.policy.retry_on = vec![RetryOnEntry::Status(504)];
        let layers = vec![gateway, layer_of("mesh", 1, AttemptLimit::Fixed(300.0))];
        let r = chain(layers, Failure::Timeout, 1e9);
        assert_eq!(r.total_attempts, 20);
        assert_eq!(r.out_of_attempts, 10);
    }
}
