//! Retry-policy files and inline `x-retry` extensions -> the policy model.
//!
//! - [`duration`]: `250ms`, `1m30s` -> milliseconds;
//! - [`selector`]: `METHOD /path` or operationId, matching and rank;
//! - [`model`]: typed settings, every value with its origin;
//! - [`parse`]: strict reading from the located tree (RL005 with positions).

pub mod duration;
pub mod model;
pub mod parse;
pub mod platform;
pub mod rl005_invalid_policy;
pub mod schema;
pub mod selector;

pub use parse::{load_policy, parse_x_retry};
