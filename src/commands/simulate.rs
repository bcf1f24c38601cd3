//! `retrylint simulate`: renders a herd simulation (see `retry::simulate`) for people
//! (a text histogram of the load over time) or as JSON. A chain of layers adds the
//! attempts of each layer and the amplification measured beside RL311's bound.

use crate::retry::{ChainFigures, SimulationReport};

/// Width of the histogram bars, in characters.
const BAR_WIDTH: u64 = 50;
/// Most rows the histogram shows; buckets are merged to fit.
const MAX_ROWS: usize = 40;

/// Human report: the figures, then the load over time as a text histogram.
pub fn render_human(r: &SimulationReport) -> String {
    let mut out = String::new();
    out.push_str(&format!("clients            {}\n", r.clients));
    match &r.chain {
        None => out.push_str(&format!(
            "total attempts     {} ({:.2} per client)\n",
            r.total_attempts, r.amplification
        )),
        Some(chain) => out.push_str(&chain_lines(r, chain)),
    }
    out.push_str(&format!("succeeded          {}\n", r.succeeded));
    out.push_str(&format!("gave up: deadline  {}\n", r.gave_up_deadline));
    out.push_str(&format!("gave up: attempts  {}\n", r.out_of_attempts));
    for (reason, n) in &r.other_stops {
        out.push_str(&format!("stopped: {reason:<9} {n}\n"));
    }
    match r.retry_peak_at_ms {
        Some(at) => out.push_str(&format!(
            "retry peak         {} retries in one {} ms bucket at {} ms ({:.1}x the mean of {:.1})\n",
            r.retry_peak, r.bucket_ms, at, r.retry_peak_ratio, r.retry_mean
        )),
        None => out.push_str("retry peak         no retries\n"),
    }
    out.push_str(&format!("last client done   {} ms\n", r.finished_at_ms));
    if r.buckets.is_empty() {
        return out;
    }
    // Merge 10 ms buckets so the histogram fits in MAX_ROWS rows.
    let first = r.buckets.first().map_or(0, |b| b.start_ms);
    let last = r.buckets.last().map_or(0, |b| b.start_ms);
    let span = last - first + r.bucket_ms;
    let rows = (span / r.bucket_ms).max(1) as usize;
    let per_row = rows.div_ceil(MAX_ROWS).max(1) as u64;
    let row_ms = per_row * r.bucket_ms;
    let mut merged: Vec<(u64, u64, u64)> = Vec::new();
    for b in &r.buckets {
        let row_start = first + (b.start_ms - first) / row_ms * row_ms;
        match merged.last_mut() {
            Some(m) if m.0 == row_start => {
                m.1 += b.attempts;
                m.2 += b.retries;
            }
            _ => merged.push((row_start, b.attempts, b.retries)),
        }
    }
    let max = merged.iter().map(|m| m.1).max().unwrap_or(1).max(1);
    out.push_str(&format!(
        "\nload over time ({} ms per row, empty rows omitted; # first attempts, + retries)\n",
        row_ms
    ));
    for (start, attempts, retries) in merged {
        let firsts = attempts - retries;
        let len_first = (firsts * BAR_WIDTH).div_ceil(max);
        let len_retry = (attempts * BAR_WIDTH).div_ceil(max)
            - len_first.min((attempts * BAR_WIDTH).div_ceil(max));
        out.push_str(&format!(
            "{:>7} ms |{}{} {}\n",
            start,
            "#".repeat(len_first as usize),
            "+".repeat(len_retry as usize),
            attempts
        ));
    }
    out
}

/// The lines a chain of layers shows instead of `total attempts`: the upstream's
/// attempts, each layer's, and the measured amplification beside RL311's bound.
fn chain_lines(r: &SimulationReport, chain: &ChainFigures) -> String {
    let at_least = |exact: bool| if exact { "" } else { "at least " };
    let by_layer = chain
        .layers
        .iter()
        .map(|l| format!("{} {}", l.layer, l.attempts))
        .collect::<Vec<_>>()
        .join(", ");
    let factors = chain
        .layers
        .iter()
        .map(|l| {
            format!(
                "{} {}{}",
                l.layer,
                at_least(l.max_attempts_exact),
                l.max_attempts
            )
        })
        .collect::<Vec<_>>()
        .join(" x ");
    let bound = &chain.amplification_bound;
    let mut out = format!(
        "upstream attempts  {} ({:.2} per client)\n\
         attempts by layer  {by_layer}\n\
         amplification      {:.2} measured, bound {}{} ({factors}; RL311)\n",
        r.total_attempts,
        r.amplification,
        r.amplification,
        at_least(bound.exact),
        bound.attempts
    );
    if let Some(under_load) = chain.budget_bound {
        out.push_str(&format!(
            "                   {} under load with the budgets (RL311)\n",
            crate::retry::format_factor(under_load)
        ));
    }
    let refused: Vec<String> = chain
        .layers
        .iter()
        .filter(|l| l.budget_refused > 0)
        .map(|l| format!("{} {}", l.layer, l.budget_refused))
        .collect();
    if !refused.is_empty() {
        out.push_str(&format!(
            "budget refused     {} (retries not sent)\n",
            refused.join(", ")
        ));
    }
    out
}
