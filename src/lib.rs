//! retrylint: a static retry-policy linter for HTTP APIs.

pub mod retry;
