//! `--format junit`: JUnit XML. One test case per finding, each with its
//! `<failure>`, so CI systems that read JUnit (GitLab, Jenkins, Azure) list each and
//! count them right (`tests` >= `failures`). A run without findings is one passing
//! test case, so the suite is never empty.

use crate::diagnostic::Diagnostic;

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

/// Renders the JUnit report: one test case per finding (classname: its file; name:
/// code, name, position and operation), each with its one `<failure>`, so `tests`
/// counts the findings and is never below `failures` (JUnit readers compute passed
/// as tests - failures).
pub fn render(diags: &[Diagnostic]) -> String {
    let tests = diags.len().max(1);
    let failures = diags.len();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"retrylint\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\">\n"
    ));
    out.push_str(&format!(
        "  <testsuite name=\"retrylint check\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">\n"
    ));
    if diags.is_empty() {
        out.push_str("    <testcase classname=\"retrylint\" name=\"no findings\"/>\n");
    }
    for d in diags {
        let file = &d.primary.location.file.display;
        let loc = &d.primary.location;
        let at = loc.file.line_col(loc.span.start);
        let subject = match (&d.operation, d.operations.len()) {
            (Some(op), _) => format!(" {op}"),
            (None, 0) => String::new(),
            (None, n) => format!(" ({n} operations)"),
        };
        let name = format!(
            "{} {} at {}:{}{subject}",
            d.code, d.name, at.line, at.column
        );
        out.push_str(&format!(
            "    <testcase classname=\"{}\" name=\"{}\" file=\"{}\" line=\"{}\">\n",
            xml_escape(file),
            xml_escape(&name),
            xml_escape(file),
            at.line
        ));
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
        out.push_str("    </testcase>\n");
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}
