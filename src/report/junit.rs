//! `--format junit`: JUnit XML. One test case per operation (findings without an
//! operation: one per file), one `<failure>` per finding, so CI systems that read
//! JUnit (GitLab, Jenkins, Azure) list them. A run without findings is one passing
//! test case, so the suite is never empty.

use crate::diagnostic::Diagnostic;
use std::collections::BTreeMap;

/// Escapes text for XML content and attribute values (also drops characters XML 1.0
/// cannot carry).
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// Renders the JUnit report.
pub fn render(diags: &[Diagnostic]) -> String {
    // (file, operation) -> findings, in file order.
    let mut cases: BTreeMap<(String, String), Vec<&Diagnostic>> = BTreeMap::new();
    for d in diags {
        let file = d.primary.location.file.display.clone();
        let name = d.operation.clone().unwrap_or_else(|| file.clone());
        cases.entry((file, name)).or_default().push(d);
    }
    let tests = cases.len().max(1);
    let failures = diags.len();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"retrylint\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\">\n"
    ));
    out.push_str(&format!(
        "  <testsuite name=\"retrylint check\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">\n"
    ));
    if cases.is_empty() {
        out.push_str("    <testcase classname=\"retrylint\" name=\"no findings\"/>\n");
    }
    for ((file, name), found) in &cases {
        out.push_str(&format!(
            "    <testcase classname=\"{}\" name=\"{}\" file=\"{}\">\n",
            xml_escape(file),
            xml_escape(name),
            xml_escape(file)
        ));
        for d in found {
            let loc = &d.primary.location;
            let at = loc.file.line_col(loc.span.start);
            let mut body = format!("{}:{}:{}: {}", file, at.line, at.column, d.message);
            if let Some(h) = &d.help {
                body.push_str("\nhelp: ");
                body.push_str(h);
            }
            for l in &d.labels {
                let lc = l.location.file.line_col(l.location.span.start);
                body.push_str(&format!(
                    "\n{}:{}:{}: {}",
                    l.location.file.display, lc.line, lc.column, l.message
                ));
            }
            out.push_str(&format!(
                "      <failure type=\"{} {}\" message=\"{}\">{}</failure>\n",
                d.code,
                d.name,
                xml_escape(&format!("{}: {}", d.severity.as_str(), d.message)),
                xml_escape(&body)
            ));
        }
        out.push_str("    </testcase>\n");
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}
