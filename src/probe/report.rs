//! Probe output.
