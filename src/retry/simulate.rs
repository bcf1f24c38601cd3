//! Deterministic herd simulation for `retrylint simulate` (issue 4).
//!
//! Model: `clients` clients each start one operation at t = 0. The upstream is
//! down until `outage_ms`: every attempt sent at t < `outage_ms` fails with 503
//! (carrying the configured Retry-After, if any); every attempt at
//! t >= `outage_ms` succeeds. Responses are instantaneous. After each failure a
//! client asks [`decide_policy`](super::decide_policy) (signal `503`, elapsed =
//! t) and either sends its next attempt at t + delay or stops.
//!
//! Because the upstream's answer depends only on time, never on other clients'
//! load, clients are independent and are simulated one after another (the
//! discrete-event schedule of each client is its own sequence of attempt times).
//! The random units come from one SplitMix64 stream seeded with `seed`, consumed
//! client by client in order, so a seed gives the same report on every platform.

use std::collections::BTreeMap;

use serde::Serialize;

use super::decision::{Decision, StopReason};
use super::policy_decision::{
    classify_ms, decide_observed, EffectivePolicyView, ObservedRetryAfter,
};
use super::retry_after::parse_retry_after_at;
use super::types::Signal;

/// Width of a load bucket, in ms.
pub const BUCKET_MS: u64 = 10;

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
    /// Every attempt sent in the bucket (first attempts and retries).
    pub attempts: u64,
    /// Retries sent in the bucket (first attempts excluded).
    pub retries: u64,
}

/// Result of a herd simulation. All times are ms since t = 0.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimulationReport {
    /// Number of clients simulated.
    pub clients: u32,
    /// Every attempt sent, first attempts included.
    pub total_attempts: u64,
    /// `total_attempts / clients` (0 when there are no clients).
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
    /// Time of the last client's final attempt (success or the attempt after
    /// which it stopped).
    pub finished_at_ms: f64,
    /// Non-empty buckets, in time order.
    pub buckets: Vec<Bucket>,
}

/// Why a simulation cannot run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimulationError {
    /// `outage_ms` is negative or not finite.
    InvalidOutage,
    /// `start_epoch_ms` is not finite.
    InvalidStart,
}

impl std::fmt::Display for SimulationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimulationError::InvalidOutage => {
                f.write_str("outage must be a finite, non-negative duration")
            }
            SimulationError::InvalidStart => f.write_str("start time must be finite"),
        }
    }
}

impl std::error::Error for SimulationError {}

/// Runs the herd simulation (see the module docs for the model).
///
/// Deterministic for a given `config` (including `seed`); O(total attempts x
/// log buckets), fast enough for 100,000 clients.
pub fn simulate(config: &SimulationConfig) -> Result<SimulationReport, SimulationError> {
    if !config.outage_ms.is_finite() || config.outage_ms < 0.0 {
        return Err(SimulationError::InvalidOutage);
    }
    if !config.start_epoch_ms.is_finite() {
        return Err(SimulationError::InvalidStart);
    }
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
            // t is finite and below the deadline here; `as` saturates.
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
    })
}
