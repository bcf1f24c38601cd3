//! `report --format html`: one self-contained page (inline CSS, script and SVG; no
//! network, no CDN): summary counts, the readiness matrix with filters by verdict
//! and by missing answer, each finding with its source excerpt, each operation's
//! layer stack and composed worst case, and a chart of the simulated retry load of
//! the riskiest operations.
//!
//! This module knows only the page: the command fills a [`Page`] from the readiness
//! matrix, the layers and the herd simulation (the report layer sits below them).
//! Every string from an input goes through [`escape`]: a spec holding `<script>`
//! shows it as text.

use super::{root_relative, Counts};
use crate::diagnostic::{Diagnostic, Severity};
use std::fmt::Write as _;
use std::path::Path;

/// Lines shown before and after a finding's line in its excerpt.
const CONTEXT_LINES: usize = 2;
/// Longest excerpt line shown, in characters (minified JSON is one line).
const EXCERPT_WIDTH: usize = 240;

/// Escapes text for HTML content and double- or single-quoted attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters (but tab and line feed) are shown as their code.
            c if c.is_control() && c != '\n' && c != '\t' => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// One operation's row of the matrix and its layer stack.
#[derive(Debug, Clone, Default)]
pub struct OperationView {
    /// The cells in the order of [`Page::columns`] (the first names the operation).
    pub cells: Vec<String>,
    /// `ready`, `not-ready` or `not-retried`.
    pub verdict: String,
    /// The answers missing (`Q2`, `Q3`, `Q4`).
    pub missing: Vec<String>,
    /// The OpenAPI document (display path).
    pub file: String,
    /// Every layer, outermost first: a title (`client: shop.retry-policy.yaml`) and
    /// its effective settings as one line.
    pub layers: Vec<(String, String)>,
    /// The composed worst case of every layer as one chain (`9 x, 6.3s`), and who is
    /// protected.
    pub composed: String,
}

/// The simulated load of one operation: upstream attempts per time bucket.
#[derive(Debug, Clone, Default)]
pub struct LoadSeries {
    /// The operation (`POST /payments`).
    pub operation: String,
    /// Why it is among the riskiest (`non-idempotent, 4 x`).
    pub why: String,
    /// Width of a bucket in ms.
    pub bucket_ms: u64,
    /// `(start_ms, attempts)` per non-empty bucket, in time order.
    pub buckets: Vec<(u64, u64)>,
    /// Total upstream attempts and clients (`400 attempts from 100 clients`).
    pub total: String,
}

/// Everything on the page.
#[derive(Debug, Clone, Default)]
pub struct Page<'a> {
    /// The page title (the paths checked).
    pub title: String,
    /// Findings after rule levels and suppressions (as `check` reports them).
    pub diagnostics: &'a [Diagnostic],
    /// Documents, policy files and retry configs read.
    pub checked: super::markdown::Checked,
    /// The matrix's column headers.
    pub columns: Vec<String>,
    /// One per operation, in document order.
    pub operations: Vec<OperationView>,
    /// The readiness questions the filter offers: `(value, label)`.
    pub questions: Vec<(String, String)>,
    /// The riskiest operations' simulated load (at most five).
    pub load: Vec<LoadSeries>,
    /// How the load was simulated (`100 clients, 2s outage of 503s, seed 1`).
    pub load_setup: String,
    /// A section rendered by the caller, placed after the findings (the probe
    /// timelines of `report --probe`); inserted as is.
    pub probe: Option<String>,
}

const STYLE: &str = r#"
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1f2328;background:#f6f8fa}
header{background:#24292f;color:#fff;padding:16px 24px}header h1{margin:0;font-size:20px}
header p{margin:4px 0 0;color:#c9d1d9}
main{padding:16px 24px;max-width:1400px}
section{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:12px 16px;margin:0 0 16px}
h2{font-size:16px;margin:0 0 8px}
.counts{display:flex;gap:12px;flex-wrap:wrap}
.count{border:1px solid #d0d7de;border-radius:6px;padding:8px 12px;min-width:90px}
.count b{display:block;font-size:22px}
.error{color:#cf222e}.warning{color:#9a6700}.info{color:#0969da}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{border:1px solid #d0d7de;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f6f8fa}
tr.not-ready td:last-child{color:#cf222e;font-weight:600}
tr.ready td:last-child{color:#1a7f37;font-weight:600}
tr.not-retried td:last-child{color:#57606a}
.filters{display:flex;gap:16px;margin:0 0 8px;align-items:center}
.finding{border-top:1px solid #d0d7de;padding:8px 0}
.finding h3{font-size:14px;margin:0}
pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:4px;padding:6px;overflow-x:auto;font-size:12px;margin:4px 0}
pre .hit{background:#fff8c5;display:block}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace}
.layers dt{font-weight:600;margin-top:6px}.layers dd{margin:0 0 0 16px}
.charts{display:flex;flex-wrap:wrap;gap:12px}
figure{margin:0;border:1px solid #d0d7de;border-radius:6px;padding:8px}
figcaption{font-size:12px;max-width:420px}
#errors:empty{display:none}#errors{color:#cf222e}
"#;

/// The filter script: shows the matrix rows whose verdict and missing answers match
/// the two selects, and counts them. Errors are written into `#errors` (the browser
/// test reads it).
const SCRIPT: &str = r#"
window.onerror=function(m,s,l,c){document.getElementById('errors').textContent+=m+' at '+l+':'+c+'\n';};
(function(){
  var verdict=document.getElementById('filter-verdict');
  var question=document.getElementById('filter-question');
  var rows=document.querySelectorAll('#matrix tbody tr');
  function apply(){
    var v=verdict.value,q=question.value,shown=0;
    rows.forEach(function(r){
      var ok=(v===''||r.dataset.verdict===v)&&(q===''||(' '+r.dataset.missing+' ').indexOf(' '+q+' ')>=0);
      r.hidden=!ok;if(ok){shown++;}
    });
    document.getElementById('shown').textContent=shown+' of '+rows.length+(rows.length===1?' operation':' operations');
  }
  // `report.html#verdict=not-ready&question=Q4` opens the page filtered.
  location.hash.replace(/^#/,'').split('&').forEach(function(kv){
    var p=kv.split('=');if(p[0]==='verdict'){verdict.value=decodeURIComponent(p[1]||'');}
    if(p[0]==='question'){question.value=decodeURIComponent(p[1]||'');}
  });
  verdict.addEventListener('change',apply);question.addEventListener('change',apply);
  apply();
  document.body.dataset.script='ran';
})();
"#;

fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

/// One count of the summary: `label` is plural ("errors"); a count of one takes the
/// singular (a trailing "s" dropped from its first word: "1 error", "1 operation").
fn count_box(out: &mut String, id: &str, n: usize, label: &str, class: &str) {
    let singular;
    let label = match label.split_once(' ') {
        _ if n != 1 => label,
        Some((first, rest)) if first.ends_with('s') => {
            singular = format!("{} {rest}", &first[..first.len() - 1]);
            &singular
        }
        None => label.strip_suffix('s').unwrap_or(label),
        Some(_) => label,
    };
    let _ = write!(
        out,
        "<div class=\"count {class}\"><b id=\"{id}\">{n}</b>{}</div>",
        escape(label)
    );
}

fn summary(out: &mut String, page: &Page) {
    let c = Counts::of(page.diagnostics);
    let verdict = |v: &str| page.operations.iter().filter(|o| o.verdict == v).count();
    out.push_str("<section id=\"summary\"><h2>Summary</h2><div class=\"counts\">");
    count_box(out, "count-errors", c.errors, "errors", "error");
    count_box(out, "count-warnings", c.warnings, "warnings", "warning");
    count_box(out, "count-infos", c.infos, "infos", "info");
    count_box(
        out,
        "count-operations",
        page.operations.len(),
        "operations",
        "",
    );
    count_box(out, "count-ready", verdict("ready"), "ready", "");
    count_box(
        out,
        "count-not-ready",
        verdict("not-ready"),
        "not ready",
        "error",
    );
    count_box(
        out,
        "count-not-retried",
        verdict("not-retried"),
        "not retried",
        "",
    );
    // Only when some operation has it: an unbound retry layer may carry it.
    if verdict("unknown") > 0 {
        count_box(out, "count-unknown", verdict("unknown"), "unknown", "");
    }
    let _ = write!(
        out,
        "</div><p>{}{}, {}, {} checked.</p></section>",
        counted(
            page.checked
                .documents
                .saturating_sub(page.checked.from_code),
            "OpenAPI document",
            "OpenAPI documents"
        ),
        if page.checked.from_code == 0 {
            String::new()
        } else {
            format!(
                ", {}",
                counted(
                    page.checked.from_code,
                    "API read from server code",
                    "APIs read from server code"
                )
            )
        },
        counted(page.checked.policies, "policy file", "policy files"),
        counted(page.checked.configs, "retry config", "retry configs")
    );
}

/// `n` and the noun for it: "1 policy file", "2 policy files".
fn counted(n: usize, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}

fn matrix(out: &mut String, page: &Page) {
    out.push_str("<section><h2>Readiness matrix</h2><div class=\"filters\">");
    out.push_str(
        "<label>verdict <select id=\"filter-verdict\"><option value=\"\">all</option>\
         <option value=\"not-ready\">not ready</option><option value=\"ready\">ready</option>\
         <option value=\"not-retried\">not retried</option>",
    );
    if page.operations.iter().any(|o| o.verdict == "unknown") {
        out.push_str("<option value=\"unknown\">unknown</option>");
    }
    out.push_str("</select></label>");
    out.push_str(
        "<label>missing answer <select id=\"filter-question\"><option value=\"\">any</option>",
    );
    for (value, label) in &page.questions {
        let _ = write!(
            out,
            "<option value=\"{}\">{}</option>",
            escape(value),
            escape(label)
        );
    }
    out.push_str("</select></label><span id=\"shown\"></span></div>");
    out.push_str("<table id=\"matrix\"><thead><tr>");
    for h in &page.columns {
        let _ = write!(out, "<th>{}</th>", escape(h));
    }
    out.push_str("</tr></thead><tbody>");
    for (i, op) in page.operations.iter().enumerate() {
        let _ = write!(
            out,
            "<tr class=\"{v}\" data-verdict=\"{v}\" data-missing=\"{}\" title=\"{}\">",
            escape(&op.missing.join(" ")),
            escape(&op.file),
            v = escape(&op.verdict),
        );
        for (c, cell) in op.cells.iter().enumerate() {
            if c == 0 {
                let _ = write!(
                    out,
                    "<td><a href=\"#op-{i}\"><code>{}</code></a></td>",
                    escape(cell)
                );
            } else {
                let _ = write!(out, "<td>{}</td>", escape(cell));
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></section>");
}

/// The lines around the finding's primary position, numbered, its own line marked;
/// a note instead when the file changed after its check (its text is gone).
fn excerpt(d: &Diagnostic) -> String {
    let Some(file) = &d.primary.location.file.contents() else {
        return format!(
            "<pre class=\"excerpt\">{}</pre>",
            escape(crate::source::NO_EXCERPT)
        );
    };
    let at = file.line_col(d.primary.location.span.start);
    let line0 = at.line.saturating_sub(1) as usize;
    let first = line0.saturating_sub(CONTEXT_LINES);
    let last = (line0 + CONTEXT_LINES).min(file.line_count().saturating_sub(1));
    let mut out = String::from("<pre class=\"excerpt\">");
    for n in first..=last {
        let start = file.line_start(n);
        let end = if n + 1 < file.line_count() {
            file.line_start(n + 1)
        } else {
            file.text.len()
        };
        let text = file
            .text
            .get(start..end)
            .unwrap_or("")
            .trim_end_matches(['\n', '\r']);
        let mut shown: String = text.chars().take(EXCERPT_WIDTH).collect();
        if shown.len() < text.len() {
            shown.push('…');
        }
        let class = if n == line0 { " class=\"hit\"" } else { "" };
        let _ = write!(out, "<span{class}>{:>5} | {}</span>", n + 1, escape(&shown));
        if n != line0 {
            out.push('\n');
        }
    }
    out.push_str("</pre>");
    out
}

fn findings(out: &mut String, page: &Page, root: &Path) {
    let _ = write!(
        out,
        "<section id=\"findings\"><h2>Findings ({})</h2>",
        page.diagnostics.len()
    );
    // Most severe first, as the Markdown comment lists them (the sort is stable:
    // within a severity, findings keep their file and position order).
    let mut sorted: Vec<&Diagnostic> = page.diagnostics.iter().collect();
    sorted.sort_by_key(|d| std::cmp::Reverse(d.severity));
    for d in sorted {
        let loc = &d.primary.location;
        let at = loc.file.line_col(loc.span.start);
        let sev = severity_word(d.severity);
        let _ = write!(
            out,
            "<div class=\"finding\" data-code=\"{}\" data-severity=\"{sev}\"><h3><span class=\"{sev}\">{sev}</span> {} {}: {}</h3><div><code>{}:{}:{}</code></div>{}",
            d.code,
            d.code,
            escape(d.name),
            escape(&d.message),
            escape(&root_relative(loc, root)),
            at.line,
            at.column,
            excerpt(d),
        );
        if let Some(help) = &d.help {
            let _ = write!(out, "<div>help: {}</div>", escape(help));
        }
        out.push_str("</div>");
    }
    out.push_str("</section>");
}

fn layer_stacks(out: &mut String, page: &Page) {
    out.push_str("<section id=\"layers\"><h2>Layers of each operation</h2>");
    for (i, op) in page.operations.iter().enumerate() {
        let name = op.cells.first().map_or("", String::as_str);
        let _ = write!(
            out,
            "<details id=\"op-{i}\" class=\"operation\"><summary><code>{}</code>: {}</summary><dl class=\"layers\">",
            escape(name),
            escape(&op.composed)
        );
        if op.layers.is_empty() {
            out.push_str("<dd>no layer retries it</dd>");
        }
        for (title, settings) in &op.layers {
            let _ = write!(
                out,
                "<dt>{}</dt><dd>{}</dd>",
                escape(title),
                escape(settings)
            );
        }
        out.push_str("</dl></details>");
    }
    out.push_str("</section>");
}

/// One small bar chart: attempts per bucket over time.
fn chart(out: &mut String, s: &LoadSeries) {
    const W: f64 = 420.0;
    const H: f64 = 140.0;
    const PAD: f64 = 28.0;
    let end = s
        .buckets
        .last()
        .map_or(s.bucket_ms, |b| b.0 + s.bucket_ms)
        .max(1);
    let peak = s.buckets.iter().map(|b| b.1).max().unwrap_or(0).max(1);
    let x = |t: u64| PAD + (W - PAD - 4.0) * t as f64 / end as f64;
    let bar = ((W - PAD - 4.0) * s.bucket_ms as f64 / end as f64).max(1.0);
    let _ = write!(
        out,
        "<figure class=\"load\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" role=\"img\"><title>{}</title>\
         <line x1=\"{PAD}\" y1=\"{b}\" x2=\"{W}\" y2=\"{b}\" stroke=\"#57606a\"/><line x1=\"{PAD}\" y1=\"4\" x2=\"{PAD}\" y2=\"{b}\" stroke=\"#57606a\"/>\
         <text x=\"2\" y=\"12\" font-size=\"10\">{peak}</text><text x=\"{PAD}\" y=\"{t}\" font-size=\"10\">0</text><text x=\"{e}\" y=\"{t}\" font-size=\"10\" text-anchor=\"end\">{end} ms</text>",
        escape(&s.operation),
        b = H - 16.0,
        t = H - 4.0,
        e = W - 2.0,
    );
    for (start, attempts) in &s.buckets {
        let h = (H - 20.0) * *attempts as f64 / peak as f64;
        let _ = write!(
            out,
            "<rect class=\"bar\" x=\"{:.1}\" y=\"{:.1}\" width=\"{bar:.1}\" height=\"{h:.1}\" fill=\"#cf222e\"><title>{start} ms: {}</title></rect>",
            x(*start),
            H - 16.0 - h,
            counted(*attempts as usize, "attempt", "attempts"),
        );
    }
    let _ = write!(
        out,
        "</svg><figcaption><code>{}</code> ({}): {}</figcaption></figure>",
        escape(&s.operation),
        escape(&s.why),
        escape(&s.total)
    );
}

fn load(out: &mut String, page: &Page) {
    let _ = write!(
        out,
        "<section id=\"load\"><h2>Simulated retry load of the riskiest operations</h2><p>Upstream attempts over time ({}); non-idempotent operations first, then by amplification.</p><div class=\"charts\">",
        escape(&page.load_setup)
    );
    if page.load.is_empty() {
        out.push_str("<p>No operation is retried.</p>");
    }
    for s in &page.load {
        chart(out, s);
    }
    out.push_str("</div></section>");
}

/// The whole page; finding paths relative to `root` (the project root).
pub fn render(page: &Page, root: &Path) -> String {
    let mut out = String::from("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
    // Nothing may load from elsewhere: the page is one file, readable offline.
    out.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">");
    let _ = write!(
        out,
        "<title>retrylint report: {}</title><style>{STYLE}</style></head><body>",
        escape(&page.title)
    );
    let _ = write!(
        out,
        "<header><h1>retrylint report</h1><p>{}</p></header><main><pre id=\"errors\"></pre>",
        escape(&page.title)
    );
    summary(&mut out, page);
    matrix(&mut out, page);
    load(&mut out, page);
    findings(&mut out, page, root);
    if let Some(section) = &page.probe {
        out.push_str(section);
    }
    layer_stacks(&mut out, page);
    let _ = writeln!(out, "</main><script>{SCRIPT}</script></body></html>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_leaves_no_markup() {
        assert_eq!(
            escape("<script>alert('x')</script>&\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;"
        );
        assert_eq!(escape("a\u{1b}b"), "a\\u{1b}b");
    }

    #[test]
    fn counted_nouns_agree_with_their_number() {
        assert_eq!(counted(1, "policy file", "policy files"), "1 policy file");
        assert_eq!(counted(0, "policy file", "policy files"), "0 policy files");
        assert_eq!(counted(2, "attempt", "attempts"), "2 attempts");
    }

    #[test]
    fn a_count_of_one_is_singular() {
        let label = |n, l| {
            let mut out = String::new();
            count_box(&mut out, "id", n, l, "");
            out
        };
        assert!(label(1, "errors").ends_with("<b id=\"id\">1</b>error</div>"));
        assert!(label(2, "errors").ends_with("<b id=\"id\">2</b>errors</div>"));
        assert!(label(0, "infos").ends_with("0</b>infos</div>"));
        assert!(label(1, "infos").ends_with("1</b>info</div>"));
        assert!(label(1, "not ready").ends_with("1</b>not ready</div>"));
        assert!(label(1, "ready").ends_with("1</b>ready</div>"));
    }

    #[test]
    fn an_excerpt_of_a_file_changed_after_its_check_is_a_note_not_other_text() {
        use crate::diagnostic::{release_text, Location};
        use crate::source::SourceFile;
        use std::sync::Arc;
        let dir = tempfile::tempdir().unwrap();
        let text = "openapi: 3.0.3\npaths:\n  /a:\n    get: {}\n";
        // A finding at `get` in a file of `text`, its text released after the check.
        let finding_in = |name: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            let file = Arc::new(SourceFile::read_from_disk(path, name.into(), text));
            let at = Location {
                file: file.clone(),
                span: 32..35,
                pointer: String::new(),
            };
            let mut diags = vec![Diagnostic::new(
                &crate::diagnostic::catalog::INVALID_OPENAPI_STRUCTURE,
                "m",
                at,
                "here",
            )];
            release_text(&mut diags, &file);
            diags.remove(0)
        };
        // Read back unchanged: the lines, the finding's own marked.
        let unchanged = finding_in("spec.yaml");
        assert!(excerpt(&unchanged).contains("<span class=\"hit\">    4 |     get: {}</span>"));
        let changed = finding_in("other.yaml");
        let other = dir.path().join("other.yaml");
        std::fs::write(&other, text.replace("get", "put")).unwrap();
        let shown = excerpt(&changed);
        assert!(
            shown.contains("the file changed after it was checked"),
            "{shown}"
        );
        assert!(!shown.contains("put"), "{shown}");
    }
}
