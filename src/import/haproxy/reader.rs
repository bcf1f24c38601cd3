//! A located reader of HAProxy configuration syntax (HAProxy `doc/configuration.txt`
//! §2.2 "Quoting and escaping"): line based; a line whose first word is a section
//! keyword (`global`, `defaults`, `frontend`, `backend`, `listen`, ...) opens a
//! section, every other non-empty line is a keyword line of the open section; words
//! split on blanks, `#` starts a comment outside quotes, `"..."` (backslash escapes)
//! and `'...'` (none) quote, a backslash escapes the next character, and quoted and
//! plain parts of one word join. Any line ends (CRLF) are read.
//!
//! The located tree ([`TreeBuilder`]): the file is a mapping from section keyword to
//! the sequence of its sections; a section is a mapping whose first key is its
//! keyword token (value: the sequence of its arguments, the name first), then each
//! line keyword to the sequence of its lines; a line is a mapping whose single key is
//! its keyword token with the sequence of its argument scalars. So a line's node is
//! located at its keyword, an argument's at itself. An unmatched quote, or a keyword
//! line before any section, is RL001 at its byte; the reader never panics.

use crate::diagnostic::Diagnostic;
use crate::import::grouped;
use crate::source::loader::Loaded;
use crate::source::refs::At;
use crate::source::rl001_invalid_syntax;
use crate::source::tree::{Kind, NodeId, TreeBuilder};
use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

/// The keywords that open a section.
pub const SECTIONS: &[&str] = &[
    "global",
    "defaults",
    "frontend",
    "backend",
    "listen",
    "userlist",
    "peers",
    "resolvers",
    "mailers",
    "program",
    "http-errors",
    "ring",
    "cache",
    "crt-store",
    "traces",
    "log-forward",
    "fcgi-app",
    "namespace_list",
];

/// A word: decoded text, byte span, tree node.
///
/// A word written plain (most of them) borrows its text from the file, and its span
/// is two `u32`s (the tree's own offsets): a word was a `String` and a `Range<usize>`,
/// and the words of a large haproxy.cfg were a third of its run's memory (issue 43:
/// memory per byte of a text config).
#[derive(Debug, Clone)]
pub struct Word<'a> {
    /// The text with quotes and escapes decoded.
    pub text: Cow<'a, str>,
    start: u32,
    end: u32,
    /// Its scalar node.
    pub node: NodeId,
}

impl Word<'_> {
    /// Byte span in the file.
    pub fn span(&self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// One line: its keyword (first word) and arguments.
#[derive(Debug, Clone)]
pub struct Line<'a> {
    /// The first word.
    pub keyword: Word<'a>,
    /// The other words (a boxed slice: no growth slack kept per line).
    pub args: Box<[Word<'a>]>,
    /// The line's mapping (located at the keyword).
    pub node: NodeId,
}

impl Line<'_> {
    /// The argument texts.
    pub fn texts(&self) -> Vec<&str> {
        self.args.iter().map(|a| a.text.as_ref()).collect()
    }
}

/// One section: its header line and its keyword lines.
#[derive(Debug, Clone)]
pub struct Section<'a> {
    /// The header (`backend static`): keyword = the section kind.
    pub header: Line<'a>,
    /// The keyword lines kept ([`read`]'s `kept`), in order.
    pub lines: Vec<Line<'a>>,
}

impl Section<'_> {
    /// The section kind (`backend`).
    pub fn kind(&self) -> &str {
        &self.header.keyword.text
    }

    /// The section name (first argument), empty when none.
    pub fn name(&self) -> &str {
        self.header.args.first().map_or("", |a| a.text.as_ref())
    }
}

/// A read file: the loaded file with the built tree, and its sections (whose words
/// borrow the text of the file read).
#[derive(Debug, Clone)]
pub struct Config<'a> {
    /// The file with the built tree.
    pub doc: Arc<Loaded>,
    /// The sections in order.
    pub sections: Vec<Section<'a>>,
}

impl Config<'_> {
    /// A line's node (located at its keyword).
    pub fn at(&self, line: &Line<'_>) -> At {
        At::new(&self.doc, line.node)
    }

    /// A word's node.
    pub fn word_at(&self, w: &Word<'_>) -> At {
        At::new(&self.doc, w.node)
    }
}

type Error = (String, usize);

/// The words of the line `text[start..end]` (no line break inside), into `out`
/// (cleared first: one buffer serves every line). `decoded` is scratch for a word's
/// text.
fn words<'a>(
    text: &'a str,
    start: usize,
    end: usize,
    out: &mut Vec<Word<'a>>,
    decoded: &mut String,
) -> Result<(), Error> {
    let line = &text[start..end];
    out.clear();
    let mut chars = line.char_indices().peekable();
    loop {
        while let Some(&(_, c)) = chars.peek() {
            if c == ' ' || c == '\t' || c == '\r' {
                chars.next();
            } else {
                break;
            }
        }
        let Some(&(first, c)) = chars.peek() else {
            break;
        };
        if c == '#' {
            break;
        }
        let word = &mut *decoded;
        word.clear();
        let mut last = first;
        while let Some(&(i, c)) = chars.peek() {
            match c {
                ' ' | '\t' | '\r' => break,
                '#' => break,
                '"' | '\'' => {
                    chars.next();
                    let mut closed = false;
                    while let Some((j, d)) = chars.next() {
                        last = j + d.len_utf8();
                        if d == c {
                            closed = true;
                            break;
                        }
                        if d == '\\' && c == '"' {
                            if let Some((k, e)) = chars.next() {
                                word.push(e);
                                last = k + e.len_utf8();
                            }
                            continue;
                        }
                        word.push(d);
                    }
                    if !closed {
                        return Err(("unmatched quote".into(), start + i));
                    }
                }
                '\\' => {
                    chars.next();
                    last = i + 1;
                    if let Some((k, e)) = chars.next() {
                        word.push(e);
                        last = k + e.len_utf8();
                    }
                }
                _ => {
                    chars.next();
                    word.push(c);
                    last = i + c.len_utf8();
                }
            }
        }
        let (from, to) = (start + first, start + last);
        // The file's own text when decoding changed nothing; else a copy of exactly
        // its length.
        let value = match text.get(from..to) {
            Some(raw) if raw == word.as_str() => Cow::Borrowed(raw),
            _ => Cow::Owned(word.as_str().to_owned()),
        };
        out.push(Word {
            text: value,
            start: from as u32,
            end: to as u32,
            node: NodeId(0),
        });
    }
    Ok(())
}

/// The line of the words in `ws` (not empty), which it leaves empty.
fn line_of<'a>(ws: &mut Vec<Word<'a>>) -> Option<Line<'a>> {
    let mut words = ws.drain(..);
    let keyword = words.next()?;
    Some(Line {
        keyword,
        args: words.collect(),
        node: NodeId(0),
    })
}

fn scalar(b: &mut TreeBuilder<'_>, source: &str, w: &mut Word<'_>) {
    let owned = (source.get(w.span()) != Some(w.text.as_ref())).then(|| w.text.to_string());
    w.node = b.scalar(w.span(), owned, Kind::Str);
}

fn emit_line(b: &mut TreeBuilder<'_>, source: &str, l: &mut Line<'_>) {
    let start = l.keyword.span().start;
    l.node = b.open_map(start);
    scalar(b, source, &mut l.keyword);
    b.open_seq(start);
    for a in l.args.iter_mut() {
        scalar(b, source, a);
    }
    let end = l.args.last().unwrap_or(&l.keyword).span().end;
    b.close(end);
    b.close(end);
}

fn emit_grouped<T>(
    b: &mut TreeBuilder<'_>,
    source: &str,
    items: &mut [T],
    key: impl Fn(&T) -> &Word<'_>,
    mut emit: impl FnMut(&mut TreeBuilder<'_>, &mut T),
) {
    for group in grouped::by_first_appearance(items, |it| key(it).text.as_ref()) {
        let name = key(&items[group[0]]);
        let span = name.span();
        let owned =
            (source.get(span.clone()) != Some(name.text.as_ref())).then(|| name.text.to_string());
        b.scalar(span.clone(), owned, Kind::Str);
        b.open_seq(span.start);
        for i in group {
            emit(b, &mut items[i]);
        }
        b.close(span.end);
    }
}

/// The nodes, sequence items and mapping entries of the tree [`read`] builds for
/// `sections`, counted as it lays them out.
fn tree_size(sections: &[Section<'_>]) -> (usize, usize, usize) {
    let distinct = |keywords: &mut dyn Iterator<Item = &str>| {
        let mut seen = std::collections::HashSet::new();
        keywords.filter(|k| seen.insert(*k)).count()
    };
    let kinds = distinct(&mut sections.iter().map(|s| s.kind()));
    // The root mapping; per kind its key and sequence.
    let (mut nodes, mut items, mut entries) = (1 + 2 * kinds, 0, kinds);
    for s in sections {
        let groups = distinct(&mut s.lines.iter().map(|l| l.keyword.text.as_ref()));
        // The section's mapping, keyword and argument sequence; per keyword its key
        // and sequence; per line its mapping, keyword and argument sequence.
        nodes += 3 + s.header.args.len() + 2 * groups;
        items += 1 + s.header.args.len();
        entries += 1 + groups;
        for l in &s.lines {
            nodes += 3 + l.args.len();
            items += 1 + l.args.len();
            entries += 1;
        }
    }
    (nodes, items, entries)
}

/// Reads `doc`'s text as HAProxy configuration: the sections with their nodes in a
/// new loaded file (same path and text, the built tree), or RL001 at the first
/// syntax error. The words borrow `doc`'s text.
///
/// Only the lines whose keyword is in `kept` are kept, and only they have nodes:
/// the others (`server`, `bind`, `log`, ...) are read for their syntax and dropped.
/// A section's mapping leaves out their keys (its span is its keyword's either
/// way), so every node built has the pointer and span it has in the tree of the
/// whole file: a mapping's entries are named, not numbered. The lines no finding
/// or route points at were a third of the tree of a large haproxy.cfg (issue 43:
/// memory per byte).
pub fn read<'a>(doc: &'a Arc<Loaded>, kept: &[&str]) -> Result<Config<'a>, Box<Diagnostic>> {
    let text: &str = &doc.file.text;
    let err = |(msg, at): Error| {
        Box::new(rl001_invalid_syntax::in_format(
            doc,
            "HAProxy configuration",
            &msg,
            at,
        ))
    };
    let mut sections: Vec<Section> = Vec::new();
    let mut ws: Vec<Word> = Vec::new();
    let mut decoded = String::new();
    let mut start = 0;
    while start <= text.len() {
        let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        words(text, start, end, &mut ws, &mut decoded).map_err(err)?;
        if let Some(line) = line_of(&mut ws) {
            if SECTIONS.contains(&line.keyword.text.as_ref()) {
                // The section before is complete: its lines without growth slack.
                if let Some(s) = sections.last_mut() {
                    s.lines.shrink_to_fit();
                }
                sections.push(Section {
                    header: line,
                    lines: Vec::new(),
                });
            } else if let Some(s) = sections.last_mut() {
                if kept.contains(&line.keyword.text.as_ref()) {
                    s.lines.push(line);
                }
            } else {
                return Err(err((
                    format!("unknown keyword '{}' out of section", line.keyword.text),
                    line.keyword.span().start,
                )));
            }
        }
        start = end + 1;
    }
    if let Some(s) = sections.last_mut() {
        s.lines.shrink_to_fit();
    }
    sections.shrink_to_fit();
    let mut b = TreeBuilder::new(text);
    let (nodes, items, entries) = tree_size(&sections);
    b.reserve(nodes, items, entries);
    b.open_map(0);
    emit_grouped(
        &mut b,
        text,
        &mut sections,
        |s| &s.header.keyword,
        |b, s| {
            let span = s.header.keyword.span();
            s.header.node = b.open_map(span.start);
            scalar(b, text, &mut s.header.keyword);
            b.open_seq(span.start);
            for a in s.header.args.iter_mut() {
                scalar(b, text, a);
            }
            b.close(span.end);
            emit_grouped(
                b,
                text,
                &mut s.lines,
                |l| &l.keyword,
                |b, l| emit_line(b, text, l),
            );
            b.close(span.end);
        },
    );
    b.close(text.len());
    let tree = b.finish(doc.file.text.clone());
    Ok(Config {
        doc: Arc::new(Loaded::new(doc.file.clone(), Ok(tree))),
        sections,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceFile;
    use proptest::prelude::*;

    fn loaded(text: &str) -> Arc<Loaded> {
        Arc::new(Loaded::new(
            Arc::new(SourceFile::new(
                "haproxy.cfg".into(),
                "haproxy.cfg".into(),
                text,
            )),
            Err(crate::source::loader::LoadError::Binary),
        ))
    }

    /// Every keyword the tests write.
    const EVERY: &[&str] = &[
        "mode",
        "timeout",
        "retries",
        "retry-on",
        "use_backend",
        "acl",
        "server",
        "x",
    ];

    #[test]
    fn lines_not_kept_leave_the_other_nodes_as_they_are() {
        let text = "defaults\n  mode http\n  log global\n  timeout connect 1s\nfrontend f\n  bind :80\n  use_backend b if { path_beg /a }\n  acl x path /y\nbackend b\n  server s a:80\n  retries 2\n  server t b:80\n  retries 3\n";
        let doc = loaded(text);
        let whole = read(
            &doc,
            &[
                "mode",
                "log",
                "timeout",
                "bind",
                "use_backend",
                "acl",
                "server",
                "retries",
            ],
        )
        .unwrap();
        let kept = read(&doc, &["timeout", "use_backend", "retries"]).unwrap();
        let (wt, kt) = (
            whole.doc.tree.as_ref().unwrap(),
            kept.doc.tree.as_ref().unwrap(),
        );
        assert!(kt.len() < wt.len());
        assert_eq!(tree_size(&kept.sections).0, kt.len());
        let place =
            |t: &crate::source::tree::Tree, n: NodeId| (t.pointer(n), t.span(n), t.label_span(n));
        for (ws, ks) in whole.sections.iter().zip(&kept.sections) {
            assert_eq!(place(wt, ws.header.node), place(kt, ks.header.node));
            let wanted: Vec<&Line<'_>> = ws
                .lines
                .iter()
                .filter(|l| {
                    ["timeout", "use_backend", "retries"].contains(&l.keyword.text.as_ref())
                })
                .collect();
            assert_eq!(wanted.len(), ks.lines.len());
            for (wl, kl) in wanted.iter().zip(&ks.lines) {
                assert_eq!(place(wt, wl.node), place(kt, kl.node));
                for (wa, ka) in wl.args.iter().zip(kl.args.iter()) {
                    assert_eq!(place(wt, wa.node), place(kt, ka.node));
                }
            }
        }
    }

    #[test]
    fn sections_lines_quotes_and_positions() {
        let text = "# c\r\nbackend b1\r\n  retries 2 # two\r\n  retry-on \"conn-failure\" 5\\03\r\n\tretries 3\r\nfrontend f";
        let doc = loaded(text);
        let c = read(&doc, EVERY).unwrap();
        assert_eq!(c.sections.len(), 2);
        let b = &c.sections[0];
        assert_eq!((b.kind(), b.name()), ("backend", "b1"));
        assert_eq!(b.lines[0].texts(), ["2"]);
        assert_eq!(b.lines[1].texts(), ["conn-failure", "503"]);
        let lc = c.doc.file.line_col(c.at(&b.lines[2]).location().span.start);
        assert_eq!((lc.line, lc.column), (5, 2));
        let lc = c
            .doc
            .file
            .line_col(c.word_at(&b.lines[1].args[1]).location().span.start);
        assert_eq!((lc.line, lc.column), (4, 27));
    }

    #[test]
    fn the_tree_is_built_at_the_size_counted() {
        let text = "global\ndefaults\n  mode http\n  timeout connect 1s\n  timeout server 2s\nfrontend f\n  use_backend b if { path_beg /a }\n  use_backend b\n  acl x path /y\nbackend b\n  server s a:80\n  server t b:80\nbackend c from d\n";
        let doc = loaded(text);
        let c = read(&doc, EVERY).unwrap();
        let tree = c.doc.tree.as_ref().unwrap();
        assert_eq!(tree_size(&c.sections).0, tree.len());
    }

    #[test]
    fn errors_are_rl001() {
        for (text, offset) in [("backend a\n x \"y\n", 13), ("retries 3\n", 0)] {
            let d = read(&loaded(text), EVERY).unwrap_err();
            assert_eq!(d.code, "RL001");
            assert_eq!(d.primary.location.span.start, offset, "{text}");
        }
    }

    proptest! {
        #[test]
        fn never_panics(s in "\\PC{0,200}") {
            let _ = read(&loaded(&s), EVERY);
        }

        #[test]
        fn never_panics_on_haproxy_like_text(s in "(backend |defaults|retries |[a-z\"' #\\\\\r\n\t]){0,80}") {
            let _ = read(&loaded(&s), EVERY);
        }
    }
}
