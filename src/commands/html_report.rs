//! `retrylint report --format html [PATHS] -o report.html`: the HTML page of
//! [`crate::report::html`], filled from the readiness matrix, the layer views of
//! `layers` and the herd simulation of `simulate`. Exit codes as `check`.

use super::EXIT_ERROR;
use super::{
    configured_options, fail_threshold, layers, load_config, with_config_file, write_report,
};
use crate::check::Analyzed;
use crate::cli::{ReportArgs, ReportFormat};
use crate::readiness::{self, Matrix, Row};
use crate::report::html::{LoadSeries, OperationView, Page};
use crate::retry::{simulate_chain, ChainConfig, Failure};

/// Clients in each simulation of the chart: enough for the shape of the load, few
/// enough that five simulations stay quick.
const CLIENTS: u32 = 100;
/// The outage each simulation runs through, ms.
const OUTAGE_MS: f64 = 2000.0;
/// Operations in the chart.
const CHARTED: usize = 5;
/// Buckets merged into one bar (the simulation's are 10 ms).
const BAR_MS: u64 = 50;

/// `retrylint report`: writes the page; exit 0, 1 (findings at or above
/// `--fail-on`), or 2 (a file could not be read, or the output names an input).
pub fn run(args: &ReportArgs) -> u8 {
    let ReportFormat::Html = args.format;
    if let Err(code) = super::check_root(args.root.as_deref()) {
        return code;
    }
    let probe = match &args.probe {
        None => None,
        Some(path) => match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| crate::probe::html::section(&text))
        {
            Ok(section) => Some(section),
            Err(e) => return super::fail(format!("{}: {e}", path.display())),
        },
    };
    let config = match load_config(args.config.as_deref(), &args.paths) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let options = configured_options(&config, &args.paths, &args.policies, args.root.as_deref());
    let root = crate::check::report_root(&options);
    let (analyzed, diagnostics) = crate::check::run_full(&options);
    let mut inputs = with_config_file(analyzed.inputs.clone(), &config);
    // The probe JSON is an input too: `-o` must not write over it.
    if let Some(path) = args.probe.as_ref().and_then(|p| p.canonicalize().ok()) {
        inputs.push(path);
    }
    let m = readiness::matrix(&analyzed, &diagnostics);
    let title = if args.paths.is_empty() {
        ".".to_string()
    } else {
        args.paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let page = Page {
        title,
        diagnostics: &diagnostics,
        checked: crate::report::markdown::Checked {
            documents: analyzed.documents.len(),
            from_code: analyzed
                .documents
                .iter()
                .filter(|d| d.server_code.is_some())
                .count(),
            policies: analyzed.policies,
            configs: analyzed.configs,
            left_out: analyzed.left_out.len(),
        },
        columns: readiness::render::HEADERS
            .iter()
            .map(|h| h.to_string())
            .collect(),
        operations: operations(&analyzed, &m),
        questions: vec![
            ("Q2".into(), "Q2 why is a retry safe".into()),
            ("Q3".into(), "Q3 budget (attempts, deadline)".into()),
            ("Q4".into(), "Q4 unknown result".into()),
        ],
        load: load(&analyzed, &m),
        load_setup: format!(
            "{CLIENTS} clients, a {} outage answering 503 at once, seed 1, {BAR_MS} ms bars",
            crate::policy::duration::format_millis(OUTAGE_MS)
        ),
        probe,
    };
    let text = crate::report::html::render(&page, &root);
    if let Err(code) = write_report(args.output.as_deref(), &text, &inputs, "report") {
        return code;
    }
    if analyzed.could_not_lint {
        return EXIT_ERROR;
    }
    let threshold = fail_threshold(args.fail_on, &config);
    u8::from(threshold.is_some_and(|t| diagnostics.iter().any(|d| d.severity >= t)))
}

/// The matrix rows with each operation's layer stack (as `layers` shows it).
fn operations(analyzed: &Analyzed, m: &Matrix) -> Vec<OperationView> {
    let cells = readiness::render::row_cells(m);
    m.operations
        .iter()
        .zip(cells)
        .zip(&analyzed.analysis.operations)
        .map(|((r, cells), j)| {
            let view = layers::view(analyzed, j);
            OperationView {
                cells,
                verdict: r.verdict.clone(),
                missing: r.missing.clone(),
                file: r.file.clone(),
                layers: view
                    .layers
                    .iter()
                    .map(|l| {
                        let settings = l
                            .values
                            .iter()
                            .filter_map(|v| {
                                let value = v.value.as_ref()?;
                                Some(match &v.origin {
                                    Some(at) => format!("{} {value} ({at})", v.key),
                                    None => format!("{} {value}", v.key),
                                })
                            })
                            .collect::<Vec<_>>()
                            .join("; ");
                        (format!("{}: {}", l.layer, l.source), settings)
                    })
                    .collect(),
                composed: composed_text(r),
            }
        })
        .collect()
}

/// `all layers 9 x, 6.3s; protected: client; unprotected: mesh`.
fn composed_text(r: &Row) -> String {
    let c = &r.composed;
    let mut text = format!("all layers {}", readiness::composed::cell(c));
    if !c.protected_layers.is_empty() {
        text.push_str(&format!("; protected: {}", c.protected_layers.join(", ")));
    }
    if !c.unprotected_layers.is_empty() {
        text.push_str(&format!(
            "; unprotected: {}",
            c.unprotected_layers.join(", ")
        ));
    }
    text
}

/// The riskiest retried operations: non-idempotent first, then by total attempts
/// (amplification), then in document order.
fn riskiest(m: &Matrix) -> Vec<usize> {
    let mut retried: Vec<usize> = (0..m.operations.len())
        .filter(|&i| m.operations[i].retried)
        .collect();
    retried.sort_by(|&a, &b| {
        let (ra, rb) = (&m.operations[a], &m.operations[b]);
        let unsafe_first = (rb.effect == "non-idempotent").cmp(&(ra.effect == "non-idempotent"));
        unsafe_first
            .then(
                rb.composed
                    .attempts_total
                    .total_cmp(&ra.composed.attempts_total),
            )
            .then(a.cmp(&b))
    });
    retried.truncate(CHARTED);
    retried
}

/// The simulated upstream load of the riskiest operations (an operation whose
/// simulation cannot run is left out).
fn load(analyzed: &Analyzed, m: &Matrix) -> Vec<LoadSeries> {
    let names = readiness::render::row_cells(m);
    riskiest(m)
        .into_iter()
        .filter_map(|i| {
            let j = &analyzed.analysis.operations[i];
            let config = ChainConfig {
                clients: CLIENTS,
                outage_ms: OUTAGE_MS,
                retry_after: None,
                // A fixed clock: the chart is the same on every run.
                start_epoch_ms: 0.0,
                seed: 1,
                failure: Failure::Status { attempt_ms: 0.0 },
                layers: j
                    .layers
                    .iter()
                    .map(crate::policy_view::layer_view)
                    .collect(),
            };
            let report = simulate_chain(&config).ok()?;
            let r = &m.operations[i];
            let mut bars: Vec<(u64, u64)> = Vec::new();
            for b in &report.buckets {
                let start = b.start_ms / BAR_MS * BAR_MS;
                match bars.last_mut() {
                    Some(last) if last.0 == start => last.1 += b.attempts,
                    _ => bars.push((start, b.attempts)),
                }
            }
            Some(LoadSeries {
                operation: names[i][0].clone(),
                why: format!(
                    "{}, {} x",
                    r.effect,
                    crate::retry::format_factor(r.composed.attempts_total)
                ),
                bucket_ms: BAR_MS,
                buckets: bars,
                total: format!(
                    "{} upstream attempts from {} clients, last answer at {}",
                    report.total_attempts,
                    report.clients,
                    crate::policy::duration::format_millis(report.finished_at_ms)
                ),
            })
        })
        .collect()
}
