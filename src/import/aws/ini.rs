//! A located reader of the AWS shared config file format (the INI dialect of
//! `~/.aws/config`; AWS SDKs and Tools Reference Guide, "Shared config and
//! credentials files"; botocore `configloader.py`, which reads it with Python's
//! `configparser`). No maintained Rust INI crate keeps byte positions, so this small
//! reader builds a [`TreeBuilder`] tree itself, and every value it returns has a node
//! a finding can point at.
//!
//! What it reads:
//! - `[section]` header lines (the text between the brackets, trimmed; what follows
//!   the `]` is ignored, as `configparser` does);
//! - `key = value` lines; a value loses an inline comment that starts with `#` or `;`
//!   after a blank (`max_attempts = 5 # five` is `5`, as the Rust, Go and Java SDKs
//!   read it), and its surrounding blanks;
//! - lines indented deeper than the key line before them: sub-settings when that
//!   key's value is empty (`s3 =` then `  max_concurrent_requests = 20`), else
//!   continuation lines appended to the value (joined by a line break);
//! - full-line comments (`#`, `;`), blank lines, CRLF and CR-less last lines.
//!
//! A header without `]`, an empty header, a setting before any section, a line
//! without `=`, or a key left empty is RL001 at its byte; the reader never panics on
//! any text.
//!
//! The tree: the file is a mapping from section name to the section's mapping (a
//! section node is located at its `[`); a section maps each key to its value scalar,
//! or to the mapping of its sub-settings. Repeated sections and keys stay in the
//! tree as written; [`Section`] and [`Property`] keep them in file order.

use crate::diagnostic::Diagnostic;
use crate::source::loader::Loaded;
use crate::source::rl001_invalid_syntax;
use crate::source::tree::{Kind, NodeId, TreeBuilder};
use std::ops::Range;
use std::sync::Arc;

/// One `key = value` line, with its sub-settings.
#[derive(Debug, Clone)]
pub struct Property {
    /// The key as written (trimmed).
    pub key: String,
    /// The key's byte span.
    pub key_span: Range<usize>,
    /// The key scalar.
    pub key_node: NodeId,
    /// The value (trimmed, inline comment removed, continuation lines joined by
    /// `\n`); empty for a key that opens sub-settings.
    pub value: String,
    /// The value's byte span (the key line's value; empty at the `=` when empty).
    pub value_span: Range<usize>,
    /// The value node (a scalar, or the mapping of the sub-settings).
    pub value_node: NodeId,
    /// Sub-settings (`s3 =` followed by indented `key = value` lines).
    pub subs: Vec<Property>,
    /// The indentation of the key line, in bytes.
    indent: usize,
}

/// One `[section]` and its settings.
#[derive(Debug, Clone)]
pub struct Section {
    /// The header text between the brackets, trimmed (`profile dev`, `default`).
    pub header: String,
    /// The header text's span.
    pub header_span: Range<usize>,
    /// The byte of the `[`.
    pub start: usize,
    /// The section mapping (located at the `[`).
    pub node: NodeId,
    /// The header scalar (the text between the brackets).
    pub header_node: NodeId,
    /// The settings, in file order.
    pub props: Vec<Property>,
}

/// A read file: the loaded file with the built tree, and its sections.
#[derive(Debug, Clone)]
pub struct Ini {
    /// The file, with the built tree in place of the YAML one.
    pub doc: Arc<Loaded>,
    /// The sections in file order.
    pub sections: Vec<Section>,
}

type Error = (String, usize);

/// `line` without its trailing `\r`.
fn strip_cr(line: &str) -> &str {
    line.strip_suffix('\r').unwrap_or(line)
}

/// The value part `text[start..end]` without an inline comment and blanks: its
/// decoded text and span.
fn value_of(text: &str, start: usize, end: usize) -> (String, Range<usize>) {
    let raw = &text[start..end];
    let bytes = raw.as_bytes();
    let mut cut = raw.len();
    for i in 1..bytes.len() {
        if (bytes[i] == b'#' || bytes[i] == b';') && (bytes[i - 1] == b' ' || bytes[i - 1] == b'\t')
        {
            cut = i;
            break;
        }
    }
    let kept = &raw[..cut];
    let lead = kept.len() - kept.trim_start().len();
    let value = kept.trim();
    let s = start + lead;
    (value.to_string(), s..s + value.len())
}

/// Splits a `key = value` line (from byte `start` to `end`, indentation skipped).
fn property(text: &str, start: usize, end: usize, indent: usize) -> Result<Property, Error> {
    let line = &text[start..end];
    let Some(eq) = line.find('=') else {
        return Err((
            format!(
                "expected `key = value`, found `{}`",
                line.trim().chars().take(40).collect::<String>()
            ),
            start,
        ));
    };
    let raw_key = &line[..eq];
    let key = raw_key.trim();
    if key.is_empty() {
        return Err(("a setting without a key before `=`".into(), start + eq));
    }
    let key_start = start + (raw_key.len() - raw_key.trim_start().len());
    let (value, value_span) = value_of(text, start + eq + 1, end);
    let value_span = if value.is_empty() {
        start + eq..start + eq + 1
    } else {
        value_span
    };
    Ok(Property {
        key: key.to_string(),
        key_span: key_start..key_start + key.len(),
        key_node: NodeId(0),
        value,
        value_span,
        value_node: NodeId(0),
        subs: Vec::new(),
        indent,
    })
}

/// Reads `doc`'s text as an AWS shared config file: its sections with their nodes
/// in a new loaded file (same path and text, the built tree), or RL001 at the first
/// syntax error.
pub fn read(doc: &Arc<Loaded>) -> Result<Ini, Box<Diagnostic>> {
    let text: &str = &doc.file.text;
    let err = |(msg, at): Error| {
        Box::new(rl001_invalid_syntax::in_format(
            doc,
            "AWS shared config",
            &msg,
            at,
        ))
    };
    let mut sections: Vec<Section> = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let line = strip_cr(&text[start..end]);
        let line_end = start + line.len();
        let body = line.trim_start_matches([' ', '\t']);
        let indent = line.len() - body.len();
        let body_start = start + indent;
        start = end + 1;
        if body.trim().is_empty() || body.starts_with('#') || body.starts_with(';') {
            continue;
        }
        if body.starts_with('[') && indent == 0 {
            let Some(close) = body.find(']') else {
                return Err(err(("a section header without `]`".into(), body_start)));
            };
            let inner = &body[1..close];
            let name = inner.trim();
            if name.is_empty() {
                return Err(err(("an empty section header `[]`".into(), body_start)));
            }
            let name_start = body_start + 1 + (inner.len() - inner.trim_start().len());
            sections.push(Section {
                header: name.to_string(),
                header_span: name_start..name_start + name.len(),
                start: body_start,
                node: NodeId(0),
                header_node: NodeId(0),
                props: Vec::new(),
            });
            continue;
        }
        let Some(section) = sections.last_mut() else {
            return Err(err((
                "a setting before any `[profile ...]` section".into(),
                body_start,
            )));
        };
        // A line indented deeper than the last key line belongs to that key.
        if let Some(last) = section.props.last_mut().filter(|p| indent > p.indent) {
            if last.value.is_empty() || !last.subs.is_empty() {
                let sub = property(text, body_start, line_end, indent).map_err(err)?;
                last.subs.push(sub);
            } else {
                let (more, span) = value_of(text, body_start, line_end);
                if !more.is_empty() {
                    last.value.push('\n');
                    last.value.push_str(&more);
                    last.value_span.end = span.end;
                }
            }
            continue;
        }
        section
            .props
            .push(property(text, body_start, line_end, indent).map_err(err)?);
    }

    let mut b = TreeBuilder::new(text);
    b.open_map(0);
    for s in &mut sections {
        s.header_node = scalar(&mut b, text, s.header_span.clone(), &s.header);
        s.node = b.open_map(s.start);
        for p in &mut s.props {
            emit(&mut b, text, p);
        }
        let end = s
            .props
            .last()
            .map_or(s.header_span.end, |p| p.value_span.end.max(p.key_span.end));
        b.close(end);
    }
    b.close(text.len());
    let tree = b.finish(doc.file.text.clone());
    Ok(Ini {
        doc: Arc::new(Loaded::new(doc.file.clone(), Ok(tree))),
        sections,
    })
}

fn scalar(b: &mut TreeBuilder<'_>, text: &str, span: Range<usize>, value: &str) -> NodeId {
    let owned = (text.get(span.clone()) != Some(value)).then(|| value.to_string());
    b.scalar(span, owned, Kind::Str)
}

fn emit(b: &mut TreeBuilder<'_>, text: &str, p: &mut Property) {
    p.key_node = scalar(b, text, p.key_span.clone(), &p.key);
    if p.subs.is_empty() {
        p.value_node = scalar(b, text, p.value_span.clone(), &p.value);
        return;
    }
    let start = p
        .subs
        .first()
        .map_or(p.value_span.start, |s| s.key_span.start);
    p.value_node = b.open_map(start);
    for s in &mut p.subs {
        emit(b, text, s);
    }
    let end = p.subs.last().map_or(start, |s| s.value_span.end);
    b.close(end);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::refs::At;
    use crate::source::SourceFile;
    use proptest::prelude::*;

    fn loaded(text: &str) -> Arc<Loaded> {
        Arc::new(Loaded::new(
            Arc::new(SourceFile::new("config".into(), "config".into(), text)),
            Err(crate::source::loader::LoadError::Binary),
        ))
    }

    fn line_col(ini: &Ini, node: NodeId) -> (usize, usize) {
        let loc = At::new(&ini.doc, node).location();
        let lc = loc.file.line_col(loc.span.start);
        (lc.line as usize, lc.column as usize)
    }

    #[test]
    fn reads_sections_values_comments_and_sub_settings() {
        let text = "# comment\r\n; another\r\n[default]\r\nregion = us-east-1 # inline\r\nmax_attempts=5\r\n\r\n[profile dev]  ; trailing\r\ns3 =\r\n  max_concurrent_requests = 20\r\n  addressing_style = path\r\nretry_mode = adaptive";
        let ini = read(&loaded(text)).expect("valid");
        assert_eq!(ini.sections.len(), 2);
        let d = &ini.sections[0];
        assert_eq!(d.header, "default");
        assert_eq!(d.props[0].value, "us-east-1");
        assert_eq!(d.props[1].key, "max_attempts");
        assert_eq!(d.props[1].value, "5");
        assert_eq!(line_col(&ini, d.props[1].value_node), (5, 1)); // a value is located at its key
        assert_eq!(line_col(&ini, d.node), (3, 2)); // a section at its name
        let p = &ini.sections[1];
        assert_eq!(p.header, "profile dev");
        assert_eq!(p.props[0].key, "s3");
        assert_eq!(p.props[0].subs.len(), 2);
        assert_eq!(p.props[0].subs[1].value, "path");
        assert_eq!(p.props[1].value, "adaptive");
        assert_eq!(line_col(&ini, p.props[1].value_node), (11, 1));
        let tree = ini.doc.tree.as_ref().expect("tree");
        let root = tree.root().expect("root");
        let dev = tree.get(root, "profile dev").expect("section");
        assert_eq!(
            tree.get(dev, "retry_mode").and_then(|n| tree.scalar(n)),
            Some("adaptive")
        );
    }

    #[test]
    fn uniformly_indented_settings_and_continuations() {
        let text = "[profile a]\n    region = eu-west-1\n    max_attempts = 4\n[profile b]\nrole_arn = arn:aws:iam::1:role/x\n  more\n";
        let ini = read(&loaded(text)).expect("valid");
        assert_eq!(ini.sections[0].props.len(), 2);
        assert_eq!(ini.sections[0].props[1].value, "4");
        assert_eq!(
            ini.sections[1].props[0].value,
            "arn:aws:iam::1:role/x\nmore"
        );
    }

    #[test]
    fn syntax_errors_are_rl001_at_their_byte() {
        for (text, at) in [
            ("max_attempts = 3\n", (1, 1)),
            ("[default\nmax_attempts = 3\n", (1, 1)),
            ("[default]\nmax_attempts 3\n", (2, 1)),
            ("[]\n", (1, 1)),
            ("[default]\n = 3\n", (2, 2)),
        ] {
            let d = read(&loaded(text)).expect_err(text);
            assert_eq!(d.code, "RL001", "{text}");
            let lc = d
                .primary
                .location
                .file
                .line_col(d.primary.location.span.start);
            assert_eq!((lc.line as usize, lc.column as usize), at, "{text}");
        }
    }

    proptest! {
        #[test]
        fn never_panics(text in "(\\PC|[\\[\\]=#; \t\r\n])*") {
            let _ = read(&loaded(&text));
        }
    }
}
