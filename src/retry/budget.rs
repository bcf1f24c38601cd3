//! Retry budgets and hedging: the two layer settings that change how many requests a
//! layer sends, beside `attempts`.
//!
//! Three budget shapes (`layers.md` "What the model gains"; platform facts in
//! `retry-configs.md`):
//! - a **ratio** budget: retries are at most a share of the requests (Envoy cluster
//!   `retry_budget.budget_percent` + `min_retry_concurrency`, Linkerd ServiceProfile
//!   `retryBudget.retryRatio` + `minRetriesPerSecond` + `ttl`, Gateway API
//!   `retryConstraint.budget.percent` + `interval` + `minRetryRate`);
//! - a **concurrency** cap: at most N retries in flight (Envoy circuit-breaker
//!   `max_retries`, default 3; Istio DestinationRule `connectionPool.http.maxRetries`);
//! - a **token** bucket: each failure costs a token, each success earns
//!   `token_ratio`, and retries stop while the bucket is at or below half (gRPC
//!   `retryThrottling` `maxTokens` + `tokenRatio`, gRPC A6; the AWS SDK retry quota).
//!
//! Units: durations in ms (`f64`), rates per second.

use serde::Serialize;

/// A layer's retry budget (policy `budget:`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "shape")]
pub enum RetryBudget {
    /// Retries are at most `ratio` x the requests (0.2 = 20 %), never fewer than the
    /// minimum rate or concurrency.
    Ratio {
        /// Retries per request allowed (a share: Envoy `budget_percent` / 100,
        /// Linkerd `retryRatio`, Gateway API `budget.percent` / 100). Finite, >= 0.
        ratio: f64,
        /// Retries per second always allowed (Linkerd `minRetriesPerSecond`, Gateway
        /// API `minRetryRate` count / interval).
        min_per_second: Option<f64>,
        /// Concurrent retries always allowed (Envoy `min_retry_concurrency`).
        min_concurrent: Option<u64>,
        /// The window the ratio is measured over, ms (Linkerd `ttl`, Gateway API
        /// `budget.interval`).
        window_ms: Option<f64>,
    },
    /// At most this many retries in flight at once; overflow is not retried.
    Concurrency {
        /// Envoy `max_retries` (default 3), Istio `maxRetries`.
        max_concurrent_retries: u64,
    },
    /// A token bucket: retries only while more than half of `tokens` remain.
    Tokens {
        /// Bucket size (gRPC `maxTokens`, in (0, 1000]). Finite, > 0.
        tokens: f64,
        /// Tokens earned per success (gRPC `tokenRatio`). Finite, > 0.
        token_ratio: f64,
    },
}

impl RetryBudget {
    /// The most attempts per request this budget lets a layer send under sustained
    /// load, whatever its `attempts`: `1 + ratio` for a ratio budget (the minimum
    /// rate or concurrency is negligible under load), `1 + token_ratio` for a token
    /// bucket (once it is drained to half, a retry needs the tokens of successes, one
    /// per failure and `token_ratio` per success), `None` for a concurrency cap (an
    /// absolute number in flight, not a share of the load).
    /// Source: `layers.md` "What the model gains" (a 20 % ratio budget caps
    /// amplification near 1.2); gRPC A6 "Throttling Retry Attempts and Hedged RPCs".
    pub fn load_factor(&self) -> Option<f64> {
        match *self {
            RetryBudget::Ratio { ratio, .. } => Some(1.0 + ratio.max(0.0)),
            RetryBudget::Tokens { token_ratio, .. } => Some(1.0 + token_ratio.max(0.0)),
            RetryBudget::Concurrency { .. } => None,
        }
    }

    /// Short human description: `20% ratio budget`, `at most 3 concurrent retries`,
    /// `token bucket of 10 (+0.1 per success)`.
    pub fn describe(&self) -> String {
        match *self {
            RetryBudget::Ratio { ratio, .. } => {
                format!("{}% ratio budget", trim(ratio * 100.0))
            }
            RetryBudget::Concurrency {
                max_concurrent_retries,
            } => format!("at most {max_concurrent_retries} concurrent retries"),
            RetryBudget::Tokens {
                tokens,
                token_ratio,
            } => format!(
                "token bucket of {} (+{} per success)",
                trim(tokens),
                trim(token_ratio)
            ),
        }
    }
}

/// A number without a trailing `.0`, at most 3 decimals (`3.6`, `9`): how a factor
/// or an attempt bound is printed.
pub fn format_factor(x: f64) -> String {
    trim(x)
}

fn trim(x: f64) -> String {
    let s = format!("{:.3}", x);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() || s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// Hedging (policy `hedging:`): up to `attempts` copies of the request in parallel,
/// one every `delay_ms`, the first answer wins (gRPC `hedgingPolicy` `maxAttempts` /
/// `hedgingDelay`, capped at 5 by gRPC; Envoy `hedge_on_per_try_timeout` sends
/// another copy when a per-try timeout fires without cancelling the first).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Hedging {
    /// Copies in total, including the first (>= 1; 1 sends no copy).
    pub attempts: u64,
    /// Delay between copies, ms (0: all at once, gRPC's `0s` or unset).
    pub delay_ms: f64,
}

impl Hedging {
    /// True when copies are actually sent (`attempts > 1`).
    pub fn sends_copies(&self) -> bool {
        self.attempts > 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratio_and_tokens_bound_the_load_factor_a_cap_does_not() {
        let r = RetryBudget::Ratio {
            ratio: 0.2,
            min_per_second: Some(10.0),
            min_concurrent: None,
            window_ms: Some(10_000.0),
        };
        assert_eq!(r.load_factor(), Some(1.2));
        let t = RetryBudget::Tokens {
            tokens: 10.0,
            token_ratio: 0.1,
        };
        assert_eq!(t.load_factor(), Some(1.1));
        let c = RetryBudget::Concurrency {
            max_concurrent_retries: 3,
        };
        assert_eq!(c.load_factor(), None);
        assert_eq!(r.describe(), "20% ratio budget");
        assert_eq!(c.describe(), "at most 3 concurrent retries");
        assert_eq!(t.describe(), "token bucket of 10 (+0.1 per success)");
    }

    #[test]
    fn trim_drops_trailing_zeros() {
        assert_eq!(trim(1.2), "1.2");
        assert_eq!(trim(3.0), "3");
        assert_eq!(trim(0.0), "0");
        assert_eq!(trim(3.6000001), "3.6");
    }
}
