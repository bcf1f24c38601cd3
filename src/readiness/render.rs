//! Renders the readiness matrix: an aligned table for terminals, Markdown for a
//! pull-request comment or a docs page, JSON for machines.

use super::{Matrix, Row};

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
    let mut counts = std::collections::HashMap::new();
    for r in &m.operations {
        *counts.entry(name(r)).or_insert(0usize) += 1;
    }
    m.operations
        .iter()
        .map(|r| match counts[&name(r)] {
            1 => name(r),
            _ => format!("{}#{}", r.file, name(r)),
        })
        .collect()
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
        r.verdict.clone(),
    ]
}

const HEADERS: [&str; 8] = [
    "operation",
    "Q1 effect",
    "Q2 why safe",
    "Q3 budget",
    "all layers",
    "Q4 unknown result",
    "findings",
    "verdict",
];

fn summary(m: &Matrix) -> String {
    let (ready, not_ready, not_retried) = m.verdict_counts();
    format!(
        "{ready} ready, {not_ready} not ready, {not_retried} not retried ({} operations)",
        m.operations.len()
    )
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

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|")
}

/// GitHub-flavoured Markdown table with a summary line.
pub fn markdown(m: &Matrix) -> String {
    let mut out = format!(
        "| {} |\n|{}\n",
        HEADERS.join(" | "),
        "---|".repeat(HEADERS.len())
    );
    for (r, name) in m.operations.iter().zip(operation_names(m)) {
        let mut c = cells(r, name);
        c[0] = format!("`{}`", c[0]);
        out.push_str(&format!(
            "| {} |\n",
            c.iter()
                .map(|x| md_escape(x))
                .collect::<Vec<_>>()
                .join(" | ")
        ));
    }
    out.push('\n');
    out.push_str(&summary(m));
    out.push('\n');
    out
}

/// `{"version": 1, "operations": [...]}`, pretty-printed.
pub fn json(m: &Matrix) -> String {
    let mut s = serde_json::to_string_pretty(m).expect("serialisable");
    s.push('\n');
    s
}
