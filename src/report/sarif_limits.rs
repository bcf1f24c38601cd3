//! GitHub code scanning's limits on an uploaded SARIF file, and which findings to keep
//! when a run would exceed them.
//!
//! The numbers are GitHub's hard limits ("SARIF results exceed limit" in GitHub's code
//! scanning docs; a file over one is rejected whole) and its upload size limit ("SARIF
//! file is too large": 10 MB gzipped). GitHub *displays* fewer (the top 5,000 results by
//! severity, 100 locations per result, 10 tags per rule) but accepts up to these.

use crate::diagnostic::Diagnostic;
use flate2::write::GzEncoder;
use flate2::Compression;
use std::io::Write;

/// Upper bounds for one SARIF log (counts; `gzip_bytes` in bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// `runs` per file (retrylint writes one).
    pub runs_per_file: usize,
    /// `results` per run.
    pub results_per_run: usize,
    /// `tool.driver.rules` per run.
    pub rules_per_run: usize,
    /// `locations` per result (retrylint writes one).
    pub locations_per_result: usize,
    /// `relatedLocations` per result.
    pub related_locations_per_result: usize,
    /// `properties.tags` per rule.
    pub tags_per_rule: usize,
    /// The whole file, gzip-compressed, in bytes.
    pub gzip_bytes: u64,
}

impl Limits {
    /// GitHub code scanning's limits. The upload limit is "10 MB"; read as
    /// 10,000,000 bytes, the smaller of the two readings.
    pub const GITHUB: Limits = Limits {
        runs_per_file: 20,
        results_per_run: 25_000,
        rules_per_run: 25_000,
        locations_per_result: 1_000,
        related_locations_per_result: 1_000,
        tags_per_rule: 20,
        gzip_bytes: 10_000_000,
    };
}

impl Default for Limits {
    fn default() -> Limits {
        Limits::GITHUB
    }
}

/// Indices into `diags` in the order findings are kept when not all fit: most severe
/// first, then the first in output order.
pub fn keep_order(diags: &[Diagnostic]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..diags.len()).collect();
    // Stable sort: equal severities stay in output order.
    order.sort_by(|&a, &b| diags[b].severity.cmp(&diags[a].severity));
    order
}

/// A writer that only counts the bytes written to it.
#[derive(Debug, Default)]
struct ByteCount(u64);

impl Write for ByteCount {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The size in bytes of `bytes` gzip-compressed at the default level (as the upload
/// action compresses it), without keeping the compressed data.
pub fn gzip_len(bytes: &[u8]) -> u64 {
    let mut encoder = GzEncoder::new(ByteCount::default(), Compression::default());
    // Writing into a counter cannot fail.
    let counted = encoder.write_all(bytes).and_then(|()| encoder.finish());
    counted.map_or(u64::MAX, |c| c.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_len_counts_compressed_bytes() {
        let text = "a".repeat(100_000);
        let n = gzip_len(text.as_bytes());
        // Repetitive text compresses to well under a percent, plus the gzip frame.
        assert!(n > 18 && n < 1_000, "{n}");
        let mut plain = Vec::new();
        let mut e = GzEncoder::new(&mut plain, Compression::default());
        e.write_all(text.as_bytes()).unwrap();
        e.finish().unwrap();
        assert_eq!(n, plain.len() as u64);
    }

    #[test]
    fn github_limits_are_the_documented_numbers() {
        let l = Limits::GITHUB;
        assert_eq!(
            (l.runs_per_file, l.results_per_run, l.rules_per_run),
            (20, 25_000, 25_000)
        );
        assert_eq!(
            (
                l.locations_per_result,
                l.related_locations_per_result,
                l.tags_per_rule
            ),
            (1_000, 1_000, 20)
        );
        assert_eq!(l.gzip_bytes, 10_000_000);
    }
}
