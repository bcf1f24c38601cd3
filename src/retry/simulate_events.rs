//! The chain simulation of [`simulate_chain`](super::simulate_chain) when some layer
//! has a retry budget or hedges (issue 13): every client's events in one
//! time-ordered queue, because a budget depends on the load of all clients at once.
//!
//! The model is the one of [`super::simulate`] (nested layers, attempt timeouts,
//! no cancellation of inner loops, a proxy answering 504 on its own timeout), plus:
//! - **Budgets** ([`RetryBudget`]): one budget per layer, shared by every request
//!   through it (one gateway, one mesh; a client-layer budget is as if every client
//!   shared one channel). A retry is asked for when the layer decides to retry and
//!   holds its place until its attempt is answered (or times out), as Envoy holds
//!   its retry resource. A refused retry ends the layer's loop: `budget-exhausted`.
//!   - ratio: allowed while the retries started in the last `window` (10 s when
//!     absent: the Linkerd and Gateway API default) stay below `ratio` x the
//!     requests the layer received in that window plus `min_per_second` x window,
//!     or while fewer than `min_concurrent` retries are in flight (Linkerd
//!     `retryBudget`; Gateway API `retryConstraint`; Envoy `min_retry_concurrency`);
//!   - concurrency: allowed while fewer than `max_concurrent_retries` are in flight
//!     (Envoy `max_retries`);
//!   - tokens: the bucket starts full; each failed attempt the layer sees costs 1
//!     token, each success earns `token_ratio` (at most `tokens`); a retry is
//!     allowed while more than `tokens / 2` remain (gRPC A6 `retryThrottling`).
//! - **Hedging** ([`Hedging`]): the layer sends copy k at `k x delay` after the
//!   request reached it, and at once when a copy fails (gRPC A6: a non-fatal status
//!   sends the next hedge immediately), up to `attempts` copies and within its
//!   deadline; the first success wins, otherwise the layer answers the last failure
//!   once every copy has answered. Copies after the first count as retries for the
//!   budget and at the upstream. A hedged layer does not also run its retry loop.
//!
//! Ties are broken deterministically: by time, then answers before timeouts before
//! sends, then by the order the events were queued. The random stream is consumed
//! in that order.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

use super::budget::{Hedging, RetryBudget};
use super::chain::LayerView;
use super::decision::{Decision, StopReason};
use super::herd::{ChainConfig, Failure, Tally, BUCKET_MS, BUDGET_EXHAUSTED};
use super::policy_decision::{classify_ms, decide_observed, ObservedRetryAfter};
use super::retry_after::{RetryAfter, RetryAfterError};
use super::types::Signal;

/// The ratio budget's window when the policy gives none, ms (Linkerd `ttl` and
/// Gateway API `budget.interval` default to 10 s).
pub const DEFAULT_WINDOW_MS: f64 = 10_000.0;

/// What an attempt's answer is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Answer {
    Success,
    Failed { signal: Signal, retry_after: bool },
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// Attempt `attempt` of loop `lp` is answered.
    Answer {
        lp: usize,
        attempt: usize,
        answer: Answer,
    },
    /// Attempt `attempt` of loop `lp` (at layer `depth`) reaches the layer's attempt
    /// timeout.
    Limit {
        lp: usize,
        attempt: usize,
        depth: usize,
    },
    /// Loop `lp` sends its next attempt (`retry` true: a retry already admitted).
    Send { lp: usize },
    /// Loop `lp` sends hedged copy `copy` if it has not yet.
    Hedge { lp: usize, copy: u64 },
}

impl Kind {
    fn rank(&self) -> u8 {
        match self {
            Kind::Answer { .. } => 0,
            Kind::Limit { .. } => 1,
            Kind::Send { .. } | Kind::Hedge { .. } => 2,
        }
    }

    /// Among attempt timeouts at one instant, the innermost layer's comes first: its
    /// answer then reaches the outer layer before the outer one gives up, as in the
    /// recursive simulation (an answer at exactly the outer limit is not late).
    fn inner_first(&self) -> usize {
        match self {
            Kind::Limit { depth, .. } => usize::MAX - depth,
            _ => 0,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Event {
    at: f64,
    seq: u64,
    kind: Kind,
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Event {
    /// Reversed: the heap pops the earliest event first.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .at
            .total_cmp(&self.at)
            .then(other.kind.rank().cmp(&self.kind.rank()))
            .then(other.kind.inner_first().cmp(&self.kind.inner_first()))
            .then(other.seq.cmp(&self.seq))
    }
}

/// One attempt of a loop.
#[derive(Debug, Clone, Copy)]
struct Attempt {
    /// Still waiting for its answer.
    open: bool,
    /// Holds a place in the layer's budget (a retry or a hedged copy).
    retry: bool,
}

/// One layer's loop for one request it received.
#[derive(Debug, Clone)]
struct Loop {
    depth: usize,
    start_ms: f64,
    /// Every outer layer is on its first attempt.
    first_path: bool,
    /// Who receives this loop's answer: (loop, attempt), `None` for a client.
    parent: Option<(usize, usize)>,
    retry: u32,
    previous: Option<f64>,
    attempts: Vec<Attempt>,
    /// The next send is a retry admitted by the budget.
    pending_retry: bool,
    /// Hedged copies the layer may still send (0 once the budget refused one).
    copies_left: u64,
    last_failure: Option<Answer>,
    done: bool,
}

/// A layer's shared budget state.
#[derive(Debug, Clone, Default)]
struct BudgetState {
    in_flight: u64,
    requests: VecDeque<f64>,
    retries: VecDeque<f64>,
    tokens: f64,
}

struct Sim<'a, D> {
    config: &'a ChainConfig,
    retry_after: Option<Result<RetryAfter, RetryAfterError>>,
    draw: D,
    queue: BinaryHeap<Event>,
    seq: u64,
    loops: Vec<Loop>,
    budgets: Vec<BudgetState>,
    tally: Tally,
}

/// Runs `config` with every client's events in one queue (see the module docs).
pub(super) fn run<D: FnMut() -> f64>(
    config: &ChainConfig,
    retry_after: Option<Result<RetryAfter, RetryAfterError>>,
    draw: D,
) -> Tally {
    let mut sim = Sim {
        config,
        retry_after,
        draw,
        queue: BinaryHeap::new(),
        seq: 0,
        loops: Vec::new(),
        budgets: config
            .layers
            .iter()
            .map(|l| BudgetState {
                tokens: match l.budget {
                    Some(RetryBudget::Tokens { tokens, .. }) => tokens,
                    _ => 0.0,
                },
                ..BudgetState::default()
            })
            .collect(),
        tally: Tally::new(config.layers.len()),
    };
    for _ in 0..config.clients {
        sim.start_loop(0, 0.0, true, None);
    }
    while let Some(e) = sim.queue.pop() {
        sim.handle(e);
    }
    // Clients still waiting: nothing bounds their attempt and the upstream never
    // answers.
    let waiting = sim.loops.iter().filter(|l| l.depth == 0 && !l.done).count();
    for _ in 0..waiting {
        sim.tally.client_done(None, None, f64::INFINITY);
    }
    sim.tally
}

impl<D: FnMut() -> f64> Sim<'_, D> {
    fn push(&mut self, at: f64, kind: Kind) {
        self.seq += 1;
        self.queue.push(Event {
            at,
            seq: self.seq,
            kind,
        });
    }

    fn layer(&self, lp: usize) -> &LayerView {
        &self.config.layers[self.loops[lp].depth]
    }

    fn hedging(&self, lp: usize) -> Option<Hedging> {
        let l = self.layer(lp);
        l.hedging.filter(|_| l.hedges())
    }

    /// A request reaches layer `depth` at `at`: a new loop sends its first attempt.
    fn start_loop(
        &mut self,
        depth: usize,
        at: f64,
        first_path: bool,
        parent: Option<(usize, usize)>,
    ) {
        let copies_left = self.config.layers[depth]
            .hedging
            .filter(|h| h.sends_copies())
            .map_or(0, |h| h.attempts - 1);
        let lp = self.loops.len();
        self.loops.push(Loop {
            depth,
            start_ms: at,
            first_path,
            parent,
            retry: 0,
            previous: None,
            attempts: Vec::new(),
            pending_retry: false,
            copies_left,
            last_failure: None,
            done: false,
        });
        self.requests_at(depth, at);
        self.send(lp, at, false);
    }

    fn requests_at(&mut self, depth: usize, at: f64) {
        if matches!(
            self.config.layers[depth].budget,
            Some(RetryBudget::Ratio { .. })
        ) {
            self.budgets[depth].requests.push_back(at);
        }
    }

    fn handle(&mut self, e: Event) {
        match e.kind {
            Kind::Answer {
                lp,
                attempt,
                answer,
            } => self.answered(lp, attempt, e.at, answer),
            Kind::Limit { lp, attempt, .. } => self.answered(
                lp,
                attempt,
                e.at,
                Answer::Failed {
                    signal: Signal::Timeout,
                    retry_after: false,
                },
            ),
            Kind::Send { lp } => {
                if !self.loops[lp].done {
                    let retry = std::mem::take(&mut self.loops[lp].pending_retry);
                    self.send(lp, e.at, retry);
                }
            }
            Kind::Hedge { lp, copy } => {
                let l = &self.loops[lp];
                let sent = l.attempts.len() as u64;
                if !l.done && sent == copy && l.copies_left > 0 {
                    self.hedge(lp, e.at);
                }
            }
        }
    }

    /// Sends the next hedged copy at `at` if the deadline and the budget allow.
    fn hedge(&mut self, lp: usize, at: f64) {
        let depth = self.loops[lp].depth;
        let deadline = self.layer(lp).policy.deadline_ms;
        if deadline.is_some_and(|d| at - self.loops[lp].start_ms >= d) {
            self.loops[lp].copies_left = 0;
            return;
        }
        if self.admit(depth, at) {
            self.loops[lp].copies_left -= 1;
            self.send(lp, at, true);
        } else {
            self.tally.layer_refused[depth] += 1;
            self.loops[lp].copies_left = 0;
        }
    }

    /// Loop `lp` sends an attempt at `at`.
    fn send(&mut self, lp: usize, at: f64, retry: bool) {
        let depth = self.loops[lp].depth;
        let attempt = self.loops[lp].attempts.len();
        self.loops[lp].attempts.push(Attempt { open: true, retry });
        self.tally.layer_attempts[depth] += 1;
        if let Some(h) = self.hedging(lp) {
            // The next copy's timer (one at a time: `attempts` may be large).
            if self.loops[lp].copies_left > 0 {
                let copy = attempt as u64 + 1;
                let when = self.loops[lp].start_ms + copy as f64 * h.delay_ms.max(0.0);
                self.push(when.max(at), Kind::Hedge { lp, copy });
            }
        }
        let first = self.loops[lp].first_path && attempt == 0;
        let view = self.layer(lp);
        let limit =
            view.attempt_timeout
                .ends_at(self.loops[lp].start_ms, at, view.policy.deadline_ms);
        if limit.is_finite() {
            self.push(limit, Kind::Limit { lp, attempt, depth });
        }
        if depth + 1 < self.config.layers.len() {
            self.start_loop(depth + 1, at, first, Some((lp, attempt)));
            return;
        }
        let slot = self
            .tally
            .buckets
            .entry((at / BUCKET_MS as f64) as u64)
            .or_default();
        slot.0 += 1;
        if !first {
            slot.1 += 1;
        }
        if at >= self.config.outage_ms {
            self.push(
                at,
                Kind::Answer {
                    lp,
                    attempt,
                    answer: Answer::Success,
                },
            );
            return;
        }
        if let Failure::Status { attempt_ms } = self.config.failure {
            let answer = Answer::Failed {
                signal: Signal::Status(503),
                retry_after: true,
            };
            self.push(
                at + attempt_ms,
                Kind::Answer {
                    lp,
                    attempt,
                    answer,
                },
            );
        }
    }

    /// Whether layer `depth`'s budget admits one more retry at `at`; an admitted
    /// retry takes its place (in flight, and in the window).
    fn admit(&mut self, depth: usize, at: f64) -> bool {
        let Some(budget) = self.config.layers[depth].budget else {
            return true;
        };
        let state = &mut self.budgets[depth];
        let ok = match budget {
            RetryBudget::Concurrency {
                max_concurrent_retries,
            } => state.in_flight < max_concurrent_retries,
            RetryBudget::Tokens { tokens, .. } => state.tokens > tokens / 2.0,
            RetryBudget::Ratio {
                ratio,
                min_per_second,
                min_concurrent,
                window_ms,
            } => {
                let window = window_ms
                    .filter(|w| w.is_finite() && *w > 0.0)
                    .unwrap_or(DEFAULT_WINDOW_MS);
                while state.requests.front().is_some_and(|&t| t <= at - window) {
                    state.requests.pop_front();
                }
                while state.retries.front().is_some_and(|&t| t <= at - window) {
                    state.retries.pop_front();
                }
                let allowed = ratio.max(0.0) * state.requests.len() as f64
                    + min_per_second.unwrap_or(0.0).max(0.0) * window / 1000.0;
                (state.retries.len() as f64) < allowed
                    || state.in_flight < min_concurrent.unwrap_or(0)
            }
        };
        if ok {
            state.in_flight += 1;
            if matches!(budget, RetryBudget::Ratio { .. }) {
                state.retries.push_back(at);
            }
        }
        ok
    }

    /// Attempt `attempt` of loop `lp` got `answer` at `at` (or timed out).
    fn answered(&mut self, lp: usize, attempt: usize, at: f64, answer: Answer) {
        if self.loops[lp].done || !self.loops[lp].attempts[attempt].open {
            return;
        }
        let depth = self.loops[lp].depth;
        self.close(lp, attempt);
        if let Some(RetryBudget::Tokens {
            tokens,
            token_ratio,
        }) = self.config.layers[depth].budget
        {
            let b = &mut self.budgets[depth];
            b.tokens = match answer {
                Answer::Success => (b.tokens + token_ratio).min(tokens),
                Answer::Failed { .. } => (b.tokens - 1.0).max(0.0),
            };
        }
        let (signal, carries_retry_after) = match answer {
            Answer::Success => return self.finish(lp, at, Answer::Success, None),
            Answer::Failed {
                signal,
                retry_after,
            } => (signal, retry_after),
        };
        if self.hedging(lp).is_some() {
            self.loops[lp].last_failure = Some(answer);
            if self.loops[lp].copies_left > 0 {
                self.hedge(lp, at);
            }
            let open = self.loops[lp].attempts.iter().any(|a| a.open);
            if !open && (self.loops[lp].copies_left == 0) {
                let sent = self.loops[lp].attempts.len() as u64;
                let refused = sent < self.layer(lp).hedging.map_or(1, |h| h.attempts);
                let deadline_gone = self
                    .layer(lp)
                    .policy
                    .deadline_ms
                    .is_some_and(|d| at - self.loops[lp].start_ms >= d);
                let stop = if deadline_gone {
                    StopReason::DeadlineExhausted.as_str()
                } else if refused {
                    BUDGET_EXHAUSTED
                } else {
                    StopReason::MaxAttempts.as_str()
                };
                let up = passed_up(depth, signal, carries_retry_after);
                self.finish(lp, at, up, Some(stop));
            }
            return;
        }
        let observed = match (&self.retry_after, carries_retry_after) {
            (None, _) | (_, false) => ObservedRetryAfter::Absent,
            (Some(Ok(ra)), true) => classify_ms(ra.delay_ms(self.config.start_epoch_ms + at)),
            (Some(Err(_)), true) => ObservedRetryAfter::Invalid,
        };
        let l = &self.loops[lp];
        let decision = decide_observed(
            &self.config.layers[depth].policy,
            signal,
            l.retry,
            at - l.start_ms,
            observed,
            l.previous,
            &mut self.draw,
        );
        let stop = match decision {
            Decision::Retry { delay_ms, .. } => {
                if self.admit(depth, at) {
                    let l = &mut self.loops[lp];
                    l.previous = Some(delay_ms);
                    l.retry = l.retry.saturating_add(1);
                    l.pending_retry = true;
                    self.push(at + delay_ms, Kind::Send { lp });
                    return;
                }
                self.tally.layer_refused[depth] += 1;
                BUDGET_EXHAUSTED
            }
            Decision::Stop(reason) => reason.as_str(),
        };
        let up = passed_up(depth, signal, carries_retry_after);
        self.finish(lp, at, up, Some(stop));
    }

    /// Closes an attempt: it no longer holds a place in the budget.
    fn close(&mut self, lp: usize, attempt: usize) {
        let depth = self.loops[lp].depth;
        let a = &mut self.loops[lp].attempts[attempt];
        if a.open {
            a.open = false;
            if a.retry {
                let b = &mut self.budgets[depth];
                b.in_flight = b.in_flight.saturating_sub(1);
            }
        }
    }

    /// Loop `lp` answers its caller with `answer` at `at` (`stop`: why it stopped).
    fn finish(&mut self, lp: usize, at: f64, answer: Answer, stop: Option<&'static str>) {
        self.loops[lp].done = true;
        // Copies still out are abandoned (their inner loops go on).
        for i in 0..self.loops[lp].attempts.len() {
            self.close(lp, i);
        }
        if self.loops[lp].pending_retry {
            // Cannot happen: a loop waiting to resend has no open attempt.
            self.loops[lp].pending_retry = false;
        }
        match self.loops[lp].parent {
            Some((parent, attempt)) => self.push(
                at,
                Kind::Answer {
                    lp: parent,
                    attempt,
                    answer,
                },
            ),
            None => {
                let ok = answer == Answer::Success;
                self.tally.client_done(Some(ok), stop, at);
            }
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
