//! Renders the readiness matrix: an aligned table for terminals, Markdown for a
//! pull-request comment or a docs page, JSON for machines.

use super::{Matrix, Row};
use crate::report::markdown;

/// Room kept for the closing note and tag of the Markdown comment.
const RESERVE: usize = 300;

fn or_dash<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_string(), |v| v.to_string())
}

fn ms(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), crate::policy::duration::format_millis)
}

/// Each row's operation as shown: `METHOD /path`, or `file#METHOD /path` where two
/// rows (operations of two documents) would otherwise read the same.
fn operation_names(m: &Matrix) -> Vec<String> {
    let name = |r: &Row| format!("{} {}", r.method, r.path);
    // One row per path of an operation with several: named after its variants.
    let shown = |r: &Row, n: String| match &r.variant {
        Some(v) => format!("{n} [{v}]"),
        None => n,
    };
    let mut counts = std::collections::HashMap::new();
    for r in &m.operations {
        *counts.entry(name(r)).or_insert(0usize) += 1;
    }
    m.operations
        .iter()
        .map(|r| {
            let n = match counts[&name(r)] {
                1 => name(r),
                _ if same_file(m, r) => name(r),
                _ => format!("{}#{}", r.file, name(r)),
            };
            shown(r, n)
        })
        .collect()
}

/// True when every row of `r`'s operation name is in `r`'s document (the rows are
/// its paths, not operations of several documents).
fn same_file(m: &Matrix, r: &Row) -> bool {
    m.operations
        .iter()
        .filter(|o| o.method == r.method && o.path == r.path)
        .all(|o| o.file == r.file && o.variant.is_some())
}

/// The cells of one row, in column order (`operation`: its name as shown).
fn cells(r: &Row, operation: String) -> Vec<String> {
    let effect = if r.effect_declared {
        format!("{} (declared)", r.effect)
    } else {
        r.effect.clone()
    };
    let safety = if r.safety.is_empty() {
        "none".to_string()
    } else {
        r.safety.join(", ")
    };
    // Each retrying layer's own budget: `3 x, 20s` when only the client retries,
    // `mesh 3 x, 15s` when only the mesh does, `client 3 x, 20s; mesh 3 x, 15s = 9 x`
    // when several do.
    let retrying: Vec<&super::LayerRow> = r.layers.iter().filter(|l| l.retried).collect();
    let own = |l: &super::LayerRow| format!("{} x, {}", or_dash(l.attempts), ms(l.deadline_ms));
    let budget = if r.retried {
        match retrying.as_slice() {
            [] => format!("{} x, {}", or_dash(r.attempts), ms(r.deadline_ms)),
            [only] if only.layer == "client" => own(only),
            [only] => format!("{} {}", only.layer, own(only)),
            several => format!(
                "{} = {} x",
                several
                    .iter()
                    .map(|l| format!("{} {}", l.layer, own(l)))
                    .collect::<Vec<_>>()
                    .join("; "),
                r.amplification
            ),
        }
    } else {
        "not retried".to_string()
    };
    let unknown = match (&r.on_unknown_result, r.retried) {
        (Some(s), _) => s.clone(),
        (None, true) if r.effect == "non-idempotent" => "unanswered".to_string(),
        (None, true) => "resend (by effect)".to_string(),
        (None, false) => "-".to_string(),
    };
    vec![
        operation,
        effect,
        safety,
        budget,
        super::composed::cell(&r.composed),
        unknown,
        if r.findings.is_empty() {
            "-".to_string()
        } else {
            r.findings.join(" ")
        },
        if r.unbound_layers.is_empty() {
            r.verdict.clone()
        } else {
            let n = r.unbound_layers.len();
            format!(
                "unknown ({n} unbound retry {} may apply)",
                if n == 1 { "layer" } else { "layers" }
            )
        },
    ]
}

/// The matrix's column headers, in cell order.
pub const HEADERS: [&str; 8] = [
    "operation",
    "Q1 effect",
    "Q2 why safe",
    "Q3 budget",
    "all layers",
    "Q4 unknown result",
    "findings",
    "verdict",
];

/// Every row's cells as the table shows them, in [`HEADERS`] order (the first is
/// the operation's name, with its file where two rows would read the same).
pub fn row_cells(m: &Matrix) -> Vec<Vec<String>> {
    m.operations
        .iter()
        .zip(operation_names(m))
        .map(|(r, name)| cells(r, name))
        .collect()
}

fn summary(m: &Matrix) -> String {
    let (ready, not_ready, not_retried) = m.verdict_counts();
    // Only when some row has it: every other summary line is unchanged.
    let counts = match m.unknown_count() {
        0 => format!("{ready} ready, {not_ready} not ready, {not_retried} not retried"),
        unknown => format!(
            "{ready} ready, {not_ready} not ready, {not_retried} not retried, {unknown} unknown"
        ),
    };
    let n = m.operations.len();
    let noun = if n == 1 { "operation" } else { "operations" };
    if m.operations.iter().any(|r| r.variant.is_some()) {
        // Rows are paths: an operation with alternatives has a row per path.
        let mut ops: Vec<(&str, &str, &str)> = m
            .operations
            .iter()
            .map(|r| (r.file.as_str(), r.method.as_str(), r.path.as_str()))
            .collect();
        ops.sort_unstable();
        ops.dedup();
        let o = ops.len();
        let noun = if o == 1 { "operation" } else { "operations" };
        return format!(
            "{counts} ({n} rows for {o} {noun}: one per path of an operation with alternatives)"
        );
    }
    format!("{counts} ({n} {noun})")
}

/// Aligned plain-text table with a summary line.
pub fn table(m: &Matrix) -> String {
    let rows: Vec<Vec<String>> = m
        .operations
        .iter()
        .zip(operation_names(m))
        .map(|(r, name)| cells(r, name))
        .collect();
    let mut widths: Vec<usize> = HEADERS.iter().map(|h| h.chars().count()).collect();
    for r in &rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let line = |cells: Vec<String>| -> String {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                s.push_str(c);
            } else {
                s.push_str(&format!("{c:<w$}  ", w = widths[i]));
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = line(HEADERS.iter().map(|h| h.to_string()).collect());
    out.push_str(&line(widths.iter().map(|w| "-".repeat(*w)).collect()));
    for r in rows {
        out.push_str(&line(r));
    }
    out.push('\n');
    out.push_str(&summary(m));
    out.push('\n');
    out
}

/// The comment's verdict line: bold counts, and which operations need an answer.
fn markdown_verdict(m: &Matrix) -> String {
    format!("**retrylint readiness: {}**\n", summary(m))
}

/// One table row of the comment: the operation in `<code>`, every cell escaped.
fn markdown_row(r: &Row, name: String) -> String {
    let raw = cells(r, name);
    let mut c: Vec<String> = raw.iter().map(|x| markdown::escape(x)).collect();
    c[0] = markdown::code(&raw[0]);
    format!("| {} |\n", c.join(" | "))
}

/// GitHub-flavoured Markdown for a pull-request comment, at most `limit` bytes (use
/// [`markdown::COMMENT_LIMIT`]): the verdict line, a table of the operations that
/// are not ready or unknown, and the others (ready, not retried) in a collapsed `<details>`
/// block. Rows that do not fit are counted (`… and 12 more operations`).
pub fn markdown_limited(m: &Matrix, limit: usize) -> String {
    let header = format!(
        "| {} |\n|{}\n",
        HEADERS.join(" | "),
        "---|".repeat(HEADERS.len())
    );
    let names = operation_names(m);
    let rows: Vec<(&Row, String)> = m.operations.iter().zip(names).collect();
    let (attention, rest): (Vec<_>, Vec<_>) = rows
        .into_iter()
        // An `unknown` row needs an answer too (bind the config that may retry it).
        .partition(|(r, _)| r.verdict == "not-ready" || r.verdict == "unknown");
    let mut out = markdown::Limited::new(limit);
    out.push_always(&markdown_verdict(m));
    let mut left_out = 0;
    if !attention.is_empty() {
        out.push_always(&format!("\n{header}"));
        for (i, (r, name)) in attention.iter().enumerate() {
            if !out.push(&markdown_row(r, name.clone()), RESERVE) {
                left_out = attention.len() - i;
                break;
            }
        }
    }
    if left_out > 0 {
        out.push_always(&markdown::more(left_out + rest.len(), "operation"));
        return out.finish();
    }
    if !rest.is_empty() {
        out.push_always(&format!(
            "\n<details><summary>{} ready or not retried</summary>\n\n{header}",
            rest.len()
        ));
        for (i, (r, name)) in rest.iter().enumerate() {
            if !out.push(&markdown_row(r, name.clone()), RESERVE) {
                out.push_always(&markdown::more(rest.len() - i, "operation"));
                break;
            }
        }
        out.push_always("\n</details>\n");
    }
    out.finish()
}

/// [`markdown_limited`] within GitHub's comment limit.
pub fn markdown(m: &Matrix) -> String {
    markdown_limited(m, markdown::COMMENT_LIMIT)
}

/// `{"version": 1, "operations": [...]}`, pretty-printed.
pub fn json(m: &Matrix) -> String {
    let mut s = serde_json::to_string_pretty(m).expect("serialisable");
    s.push('\n');
    s
}
