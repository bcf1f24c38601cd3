//! retrylint: a static retry-policy linter for HTTP APIs.
//!
//! The pipeline reads top to bottom: [`discover`] -> load ([`source`]) -> model
//! ([`openapi`], [`policy`]) -> join ([`analysis`]) -> [`rules`] -> [`report`].
//! [`check::run`] runs it as one library call; [`commands`] is what the binary prints.
//! [`retry`] is the pure domain logic (decision function, Retry-After, simulation)
//! shared by the rules and the `plan`/`simulate` commands.

#![warn(missing_docs)]

pub mod analysis;
pub mod baseline;
pub mod check;
pub mod cli;
pub mod commands;
pub mod config;
pub mod deep_stack;
pub mod diagnostic;
pub mod import;
pub mod openapi;
pub mod policy;
pub mod policy_view;
pub mod project;
pub mod readiness;
pub mod report;
pub mod retry;
pub mod rules;
pub mod source;
pub mod suppress;
pub mod timing;
