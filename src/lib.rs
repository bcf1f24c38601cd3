//! retrylint: a static retry-policy linter for HTTP APIs.
//!
//! The pipeline reads top to bottom: [`project`] (discover, load; over [`source`]) ->
//! model ([`openapi`], [`policy`], [`import`]) -> join ([`analysis`]) -> [`rules`] ->
//! [`suppress`] -> [`report`]. [`check::run`] runs it as one library call;
//! [`commands`] is what the binary prints. [`diagnostic`] is the bottom: the finding
//! type, source files and every rule's identity. [`retry`] is the pure domain logic
//! (decision function, Retry-After, simulation) shared by the rules and the
//! `plan`/`simulate` commands. Each module uses only the modules below it
//! (`ARCHITECTURE.md`; `tests/architecture.rs` enforces it).

#![warn(missing_docs)]

pub mod analysis;
pub mod baseline;
pub mod check;
pub mod cli;
pub mod commands;
pub mod config;
pub mod deep_stack;
pub mod diagnostic;
pub mod diff;
pub mod import;
pub mod lsp;
pub mod openapi;
pub mod policy;
pub mod policy_view;
pub mod probe;
pub mod project;
pub mod readiness;
pub mod report;
pub mod retry;
pub mod rules;
pub mod source;
pub mod suppress;
pub mod timing;
pub mod write;

/// Discovery kept its old path (`retrylint::discover`): it is part of [`project`].
pub use project::discover;
