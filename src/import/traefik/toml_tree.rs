//! TOML text -> located [`Tree`], so that values read from a Traefik TOML file carry
//! origins like YAML values do (`layers.md` "One model, many sources").
//!
//! Parsing is `toml_edit`'s (TOML 1.0/1.1, with byte spans; valid files take the lean
//! way of [`toml_lean`], which builds the same tree); this module only lays its
//! document out as a tree: tables (`[a.b]`, dotted keys, inline tables) become
//! mappings, arrays and arrays of tables become sequences, and every key and value
//! keeps its byte span. A table opened by a header (`[http.middlewares.retry.retry]`,
//! or an item of `[[a.b]]`) gets the whole header as its key span, so a finding about
//! it points at the header's `[` (the convention of the retry-config cases:
//! "where findings point", Traefik row).

use super::toml_lean;
use crate::source::tree::{Kind, NodeId, Tree, TreeBuilder};
use std::ops::Range;
use std::sync::Arc;
use toml_edit::{Item, Table, Value};

/// A TOML syntax error: the parser's message and the byte offset it points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TomlSyntaxError {
    /// What `toml_edit` reported (first line).
    pub message: String,
    /// Byte offset of the problem in the text.
    pub offset: usize,
}

/// Parses `text` (a whole TOML file) into a located tree whose root is the document
/// table. `Err` with the first syntax error's message and offset.
///
/// Valid TOML takes the lean way ([`toml_lean`]: the same tree at a fraction of the
/// memory); anything else is parsed again by `toml_edit`, whose message and position
/// the error keeps.
pub fn parse(text: &Arc<str>) -> Result<Tree, TomlSyntaxError> {
    match toml_lean::tree(text) {
        Some(tree) => Ok(tree),
        None => parse_with_toml_edit(text),
    }
}

/// [`parse`] through `toml_edit`'s document: every error's message and position, and
/// the tree the lean way must equal.
pub(super) fn parse_with_toml_edit(text: &Arc<str>) -> Result<Tree, TomlSyntaxError> {
    let doc = toml_edit::Document::parse(text.as_ref()).map_err(|e| TomlSyntaxError {
        message: e
            .message()
            .lines()
            .next()
            .unwrap_or("invalid TOML")
            .trim()
            .to_string(),
        offset: e.span().map_or(0, |s| s.start).min(text.len()),
    })?;
    let mut b = TreeBuilder::new(text);
    b.open_map(0);
    table_entries(&mut b, doc.as_table());
    b.close(text.len());
    Ok(b.finish(text.clone()))
}

/// For a TOML syntax error that is a key defined twice (`toml_edit`'s "duplicate
/// key"): the key path as written (`http.middlewares.retry.retry.attempts`), the
/// byte span of its first definition and that of the repeat. `None` for another
/// error, or when the first definition cannot be located (the caller keeps the
/// syntax error then).
///
/// The repeat is where the parser stopped: a `key = value` line (its table is the
/// last `[header]` above it) or a `[header]` line. The first definition is found by
/// reading the text above that line, which parsed, and looking the path up in it.
pub fn duplicate_key(
    text: &Arc<str>,
    err: &TomlSyntaxError,
) -> Option<(String, Range<usize>, Range<usize>)> {
    if !err.message.starts_with("duplicate key") {
        return None;
    }
    let line_start = text[..err.offset].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[line_start..]
        .find('\n')
        .map_or(text.len(), |i| line_start + i);
    let line = text[line_start..line_end].trim_end_matches('\r');
    let body = line.trim_start();
    let body_start = line_start + (line.len() - body.len());
    let header = |l: &str| -> Option<Vec<String>> {
        let inner = l.trim().strip_prefix('[')?;
        let inner = inner.strip_prefix('[').unwrap_or(inner);
        let end = inner.find(']')?;
        let keys = toml_edit::Key::parse(&inner[..end]).ok()?;
        Some(keys.iter().map(|k| k.get().to_string()).collect())
    };
    let (path, repeated) = if body.starts_with('[') {
        let end = body.find(']').map_or(body.len(), |i| i + 1);
        let end = if body[end..].starts_with(']') {
            end + 1
        } else {
            end
        };
        (header(body)?, body_start..body_start + end)
    } else {
        let eq = body.find('=')?;
        let key_text = body[..eq].trim_end();
        let mut path: Vec<String> = text[..line_start]
            .lines()
            .rev()
            .find(|l| l.trim_start().starts_with('['))
            .and_then(header)
            .unwrap_or_default();
        let keys = toml_edit::Key::parse(key_text).ok()?;
        path.extend(keys.iter().map(|k| k.get().to_string()));
        (path, body_start..body_start + key_text.len())
    };
    let above: Arc<str> = Arc::from(&text[..line_start]);
    let tree = parse(&above).ok()?;
    let mut node = tree.root()?;
    for key in &path {
        node = tree.get(node, key)?;
    }
    let first = tree.label_span(node);
    (first.start < first.end).then(|| (path.join("."), first, repeated))
}

fn table_entries(b: &mut TreeBuilder<'_>, table: &Table) {
    for (name, item) in table.iter() {
        let key_span = table
            .key(name)
            .and_then(toml_edit::Key::span)
            .unwrap_or(0..0);
        match item {
            Item::None => {}
            Item::Value(v) => {
                key(b, key_span, name);
                value(b, v);
            }
            Item::Table(t) => {
                // A header table is located at its header; an implicit or dotted
                // one at its key.
                let span = t.span().filter(|s| !s.is_empty()).unwrap_or(key_span);
                key(b, span.clone(), name);
                b.open_map(span.start);
                table_entries(b, t);
                b.close(span.end);
            }
            Item::ArrayOfTables(a) => {
                key(b, key_span.clone(), name);
                b.open_seq(key_span.start);
                for t in a.iter() {
                    let span = t.span().unwrap_or(key_span.clone());
                    b.open_map(span.start);
                    table_entries(b, t);
                    b.close(span.end);
                }
                b.close(key_span.end);
            }
        }
    }
}

fn key(b: &mut TreeBuilder<'_>, span: Range<usize>, name: &str) -> NodeId {
    b.scalar(span, Some(name.to_string()), Kind::Str)
}

fn value(b: &mut TreeBuilder<'_>, v: &Value) {
    let span = v.span().unwrap_or(0..0);
    match v {
        Value::String(s) => {
            b.scalar(span, Some(s.value().clone()), Kind::Str);
        }
        Value::Integer(i) => {
            b.scalar(span, Some(i.value().to_string()), Kind::Int);
        }
        Value::Float(f) => {
            let x = *f.value();
            let text = if x.is_nan() {
                ".nan".to_string()
            } else if x.is_infinite() {
                if x > 0.0 { ".inf" } else { "-.inf" }.to_string()
            } else {
                format!("{x:?}")
            };
            b.scalar(span, Some(text), Kind::Float);
        }
        Value::Boolean(x) => {
            b.scalar(span, Some(x.value().to_string()), Kind::Bool);
        }
        Value::Datetime(d) => {
            b.scalar(span, Some(d.value().to_string()), Kind::Str);
        }
        Value::Array(a) => {
            b.open_seq(span.start);
            for item in a.iter() {
                value(b, item);
            }
            b.close(span.end);
        }
        Value::InlineTable(t) => {
            b.open_map(span.start);
            for (name, item) in t.iter() {
                let key_span = t.key(name).and_then(toml_edit::Key::span).unwrap_or(0..0);
                key(b, key_span, name);
                value(b, item);
            }
            b.close(span.end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_tables_are_located_at_their_header() {
        let text: Arc<str> = Arc::from(
            "[http.routers.r]\n  rule = \"Path(`/x`)\"\n\n[http.middlewares.retry.retry]\n  attempts = 4\n  initialInterval = \"500ms\"\n  status = [\"500-599\"]\n",
        );
        let tree = parse(&text).expect("valid TOML");
        let root = tree.root().expect("root");
        let http = tree.get(root, "http").expect("http");
        let retry = tree
            .lookup_from(
                http,
                &["middlewares".into(), "retry".into(), "retry".into()],
            )
            .expect("retry table");
        let header = tree.label_span(retry);
        assert_eq!(&text[header], "[http.middlewares.retry.retry]");
        let attempts = tree.get(retry, "attempts").expect("attempts");
        assert_eq!(tree.as_i64(attempts), Some(4));
        assert_eq!(&text[tree.label_span(attempts)], "attempts");
        let status = tree.get(retry, "status").expect("status");
        assert_eq!(tree.items(status).len(), 1);
        assert_eq!(tree.as_str(tree.items(status)[0]), Some("500-599"));
        assert_eq!(&text[tree.span(tree.items(status)[0])], "\"500-599\"");
    }

    #[test]
    fn duplicate_keys_are_located_at_both_definitions() {
        let cases = [
            // A key twice in one table.
            ("[a.b]\nx = 1\nx = 2\n", "a.b.x", "x", 12),
            // A header twice.
            ("[a.b]\nx = 1\n\n[a.b]\ny = 2\n", "a.b", "[a.b]", 13),
            // A dotted key, then the same table inline.
            ("[a]\nb.x = 1\nb = {x = 2}\n", "a.b", "b", 12),
        ];
        for (src, path, first_text, repeated_at) in cases {
            let text: Arc<str> = Arc::from(src);
            let err = parse(&text).expect_err(src);
            let (key, first, repeated) = duplicate_key(&text, &err).expect(src);
            assert_eq!(key, path, "{src}");
            assert_eq!(&text[first.clone()], first_text, "{src}: {first:?}");
            assert_eq!(repeated.start, repeated_at, "{src}");
        }
        // Another syntax error is not a duplicate.
        let text: Arc<str> = Arc::from("a = [1,\n");
        assert!(duplicate_key(&text, &parse(&text).expect_err("broken")).is_none());
    }

    #[test]
    fn syntax_errors_carry_an_offset() {
        let text: Arc<str> = Arc::from("[a]\nx = 1\nx = 2\n");
        let err = parse(&text).expect_err("duplicate key");
        assert!(err.offset >= 9, "{err:?}");
        let text: Arc<str> = Arc::from("a = [1,\n");
        assert!(parse(&text).is_err());
    }
}
