//! One emitter per output format, all over the same sorted diagnostic list. Line and
//! column are computed here, never earlier.

pub mod human;
pub mod json;

use crate::diagnostic::{Diagnostic, Severity};

/// Counts per severity, for the summary line.
#[derive(Debug, Default, Clone, Copy, serde::Serialize)]
pub struct Counts {
    /// Errors.
    pub errors: usize,
    /// Warnings.
    pub warnings: usize,
    /// Infos.
    pub infos: usize,
}

impl Counts {
    /// Counts the diagnostics by severity.
    pub fn of(diags: &[Diagnostic]) -> Counts {
        let mut c = Counts::default();
        for d in diags {
            match d.severity {
                Severity::Error => c.errors += 1,
                Severity::Warning => c.warnings += 1,
                Severity::Info => c.infos += 1,
            }
        }
        c
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// `2 errors, 1 warning, 0 infos in 3 files (1 OpenAPI document, 1 policy)`.
pub fn summary_line(diags: &[Diagnostic], documents: usize, policies: usize) -> String {
    let c = Counts::of(diags);
    format!(
        "{}, {}, {} ({} checked, {})",
        plural(c.errors, "error"),
        plural(c.warnings, "warning"),
        plural(c.infos, "info"),
        plural(documents, "OpenAPI document"),
        plural(policies, "policy file"),
    )
}
