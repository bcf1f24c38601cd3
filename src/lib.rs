//! retrylint: a static retry-policy linter for HTTP APIs.
//!
//! The pipeline reads top to bottom: discover -> load ([`source`]) -> model
//! ([`openapi`], [`policy`]) -> join ([`analysis`]) -> [`rules`] -> report.

pub mod analysis;
pub mod diagnostic;
pub mod openapi;
pub mod policy;
pub mod rules;
pub mod source;
