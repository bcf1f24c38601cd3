//! A located reader of nginx configuration syntax: simple directives `name args...;`
//! and block directives `name args... { ... }`, arguments plain, `"double"` or
//! `'single'` quoted (backslash escapes), `${var}` inside a word, `#` comments from
//! a token start to the line end, any line ends (CRLF counts as one break). It
//! builds a located tree ([`TreeBuilder`]) so every directive and argument has an
//! [`At`]:
//!
//! - a block (and the file) is a mapping from directive name to the sequence of its
//!   occurrences, in source order;
//! - an occurrence is a mapping whose first key is the directive name token (so a
//!   finding about the directive points at its name) with the sequence of its
//!   argument scalars as value, and, for a block directive, a second key `{` whose
//!   value is the block's mapping.
//!
//! `*_by_lua_block { ... }` bodies are Lua, not nginx syntax: they are skipped with
//! their braces balanced. A syntax error (unbalanced braces, a directive not ended
//! by `;`, an unterminated quote, nesting deeper than [`MAX_DEPTH`]) is RL001 at its
//! byte, as nginx's own `nginx -t` reports it; the reader never panics.

use crate::diagnostic::Diagnostic;
use crate::import::grouped;
use crate::source::loader::Loaded;
use crate::source::refs::At;
use crate::source::rl001_invalid_syntax;
use crate::source::tree::{Kind, NodeId, TreeBuilder};
use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

/// Deepest block nesting read (nginx configs nest `http`/`server`/`location`/`if`, a
/// handful of levels).
pub const MAX_DEPTH: usize = 64;

/// A word of the file: its decoded text, byte span and tree node.
///
/// A word without escapes borrows its text from the file, and its span is two
/// `u32`s (the tree's own offsets): a `String` and a `Range<usize>` per word were
/// a fifth of the peak memory of a large nginx.conf (issue 43).
#[derive(Debug, Clone)]
pub struct Word<'a> {
    /// The text with quotes removed and escapes decoded.
    pub text: Cow<'a, str>,
    start: u32,
    end: u32,
    /// Its scalar node in the built tree.
    pub node: NodeId,
}

impl Word<'_> {
    /// Byte span in the file (quotes included).
    pub fn span(&self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// One directive: `name args...;` or `name args... { block }`.
#[derive(Debug, Clone)]
pub struct Directive<'a> {
    /// The name token.
    pub name: Word<'a>,
    /// The arguments (a boxed slice: no growth slack kept per directive).
    pub args: Box<[Word<'a>]>,
    /// The directives of its block, for a block directive.
    pub block: Option<Vec<Directive<'a>>>,
    /// Byte of the `{` of a block directive.
    open: usize,
    /// Byte span from the name to the `;` or `}`.
    pub span: Range<usize>,
    /// The occurrence mapping in the built tree (located at the name token).
    pub node: NodeId,
}

impl<'t> Directive<'t> {
    /// The directives named `name` in this directive's block, in order.
    pub fn children<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Directive<'t>> + 'a {
        self.block
            .iter()
            .flatten()
            .filter(move |d| d.name.text == name)
    }

    /// The last directive named `name` in this block (nginx keeps the last of a
    /// repeated setting... or rejects it: either way the last is what a reader sees).
    pub fn last<'a>(&'a self, name: &str) -> Option<&'a Directive<'t>> {
        self.block.iter().flatten().rfind(|d| d.name.text == name)
    }
}

/// A read file: the loaded file with the located tree, and its top-level directives.
#[derive(Debug, Clone)]
pub struct Config<'a> {
    /// The file with the built tree (same text and path as the input).
    pub doc: Arc<Loaded>,
    /// The main context (its words borrow the text of the file read).
    pub directives: Vec<Directive<'a>>,
}

impl Config<'_> {
    /// The node of a directive (located at its name).
    pub fn at(&self, d: &Directive<'_>) -> At {
        At::new(&self.doc, d.node)
    }

    /// The node of a word.
    pub fn word_at(&self, w: &Word<'_>) -> At {
        At::new(&self.doc, w.node)
    }
}

#[derive(Debug)]
enum Tok<'t> {
    Word(Cow<'t, str>, Range<usize>),
    Semi(usize),
    Open(usize),
    Close(usize),
}

struct Lexer<'t> {
    text: &'t str,
    pos: usize,
}

type Error = (String, usize);

impl<'t> Lexer<'t> {
    fn next(&mut self) -> Result<Option<Tok<'t>>, Error> {
        let bytes = self.text.as_bytes();
        loop {
            while self.pos < bytes.len() && matches!(bytes[self.pos], b' ' | b'\t' | b'\r' | b'\n')
            {
                self.pos += 1;
            }
            if self.pos < bytes.len() && bytes[self.pos] == b'#' {
                while self.pos < bytes.len() && bytes[self.pos] != b'\n' {
                    self.pos += 1;
                }
                continue;
            }
            break;
        }
        let start = self.pos;
        let Some(&c) = bytes.get(start) else {
            return Ok(None);
        };
        match c {
            b';' => {
                self.pos += 1;
                Ok(Some(Tok::Semi(start)))
            }
            b'{' => {
                self.pos += 1;
                Ok(Some(Tok::Open(start)))
            }
            b'}' => {
                self.pos += 1;
                Ok(Some(Tok::Close(start)))
            }
            b'"' | b'\'' => {
                let mut out = String::new();
                let mut i = start + 1;
                loop {
                    let Some(ch) = self.text[i..].chars().next() else {
                        return Err(("unterminated quoted string".into(), start));
                    };
                    if ch as u32 == u32::from(c) {
                        self.pos = i + 1;
                        // Without escapes the text between the quotes is the word.
                        let inner = &self.text[start + 1..i];
                        let text = if inner == out {
                            Cow::Borrowed(inner)
                        } else {
                            out.shrink_to_fit();
                            Cow::Owned(out)
                        };
                        return Ok(Some(Tok::Word(text, start..i + 1)));
                    }
                    if ch == '\\' {
                        if let Some(n) = self.text[i + 1..].chars().next() {
                            match n {
                                '"' | '\'' | '\\' => out.push(n),
                                't' => out.push('\t'),
                                'r' => out.push('\r'),
                                'n' => out.push('\n'),
                                _ => {
                                    out.push('\\');
                                    out.push(n);
                                }
                            }
                            i += 1 + n.len_utf8();
                            continue;
                        }
                    }
                    out.push(ch);
                    i += ch.len_utf8();
                }
            }
            _ => {
                // An unquoted word is its own text (a `\x` and a `${...}` are kept as
                // written): borrowed from the file.
                let mut i = start;
                while let Some(ch) = self.text[i..].chars().next() {
                    match ch {
                        ' ' | '\t' | '\r' | '\n' | ';' | '{' | '}' => break,
                        '\\' => {
                            i += 1;
                            if let Some(n) = self.text[i..].chars().next() {
                                i += n.len_utf8();
                            }
                        }
                        '$' if self.text[i + 1..].starts_with('{') => {
                            match self.text[i..].find('}') {
                                Some(close) => i += close + 1,
                                None => return Err(("unterminated variable `${`".into(), i)),
                            }
                        }
                        _ => i += ch.len_utf8(),
                    }
                }
                self.pos = i;
                Ok(Some(Tok::Word(
                    Cow::Borrowed(&self.text[start..i]),
                    start..i,
                )))
            }
        }
    }

    /// Skips a Lua block body after its `{`: braces balanced outside strings and
    /// `--` comments; returns the byte of the closing `}`.
    fn skip_lua(&mut self, open: usize) -> Result<usize, Error> {
        let bytes = self.text.as_bytes();
        let mut depth = 1usize;
        let mut i = self.pos;
        while i < bytes.len() {
            match bytes[i] {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        self.pos = i + 1;
                        return Ok(i);
                    }
                }
                q @ (b'"' | b'\'') => {
                    i += 1;
                    while i < bytes.len() && bytes[i] != q {
                        if bytes[i] == b'\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                }
                b'-' if bytes.get(i + 1) == Some(&b'-') => {
                    while i < bytes.len() && bytes[i] != b'\n' {
                        i += 1;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        Err((
            "unexpected end of file in a Lua block, expecting \"}\"".into(),
            open,
        ))
    }
}

fn parse_block<'t>(
    lx: &mut Lexer<'t>,
    depth: usize,
    closing: bool,
) -> Result<(Vec<Directive<'t>>, usize), Error> {
    let mut out = Vec::new();
    loop {
        let tok = lx.next()?;
        let (name, name_span) = match tok {
            None if closing => {
                return Err((
                    "unexpected end of file, expecting \"}\"".into(),
                    lx.text.len(),
                ))
            }
            None => return Ok((out, lx.text.len())),
            Some(Tok::Close(at)) if closing => return Ok((out, at + 1)),
            Some(Tok::Close(at)) => return Err(("unexpected \"}\"".into(), at)),
            Some(Tok::Semi(at)) => return Err(("unexpected \";\"".into(), at)),
            Some(Tok::Open(at)) => return Err(("unexpected \"{\"".into(), at)),
            Some(Tok::Word(text, span)) => (text, span),
        };
        let mut args = Vec::new();
        loop {
            match lx.next()? {
                Some(Tok::Word(text, span)) => args.push(word(text, span)),
                Some(Tok::Semi(at)) => {
                    out.push(Directive {
                        span: name_span.start..at + 1,
                        name: word(name, name_span),
                        args: args.into_boxed_slice(),
                        block: None,
                        open: 0,
                        node: NodeId(0),
                    });
                    break;
                }
                Some(Tok::Open(at)) => {
                    if depth + 1 > MAX_DEPTH {
                        return Err((format!("blocks nested deeper than {MAX_DEPTH} levels"), at));
                    }
                    let (block, end) = if name.ends_with("_by_lua_block") {
                        let close = lx.skip_lua(at)?;
                        (Vec::new(), close + 1)
                    } else {
                        parse_block(lx, depth + 1, true)?
                    };
                    out.push(Directive {
                        span: name_span.start..end,
                        name: word(name, name_span),
                        args: args.into_boxed_slice(),
                        block: Some(block),
                        open: at,
                        node: NodeId(0),
                    });
                    break;
                }
                Some(Tok::Close(at)) => {
                    return Err((
                        format!("directive \"{name}\" is not terminated by \";\" (unexpected \"}}\")"),
                        at,
                    ))
                }
                None => {
                    return Err((
                        format!("unexpected end of file, expecting \";\" or \"}}\" after directive \"{name}\""),
                        lx.text.len(),
                    ))
                }
            }
        }
    }
}

fn word(text: Cow<'_, str>, span: Range<usize>) -> Word<'_> {
    Word {
        text,
        start: span.start as u32,
        end: span.end as u32,
        node: NodeId(0),
    }
}

fn scalar(b: &mut TreeBuilder<'_>, source: &str, w: &mut Word<'_>) {
    let owned = (source.get(w.span()) != Some(w.text.as_ref())).then(|| w.text.to_string());
    w.node = b.scalar(w.span(), owned, Kind::Str);
}

fn emit_block(
    b: &mut TreeBuilder<'_>,
    source: &str,
    start: usize,
    end: usize,
    ds: &mut [Directive<'_>],
) {
    b.open_map(start);
    for group in grouped::by_first_appearance(ds, |d| d.name.text.as_ref()) {
        let name = &ds[group[0]].name;
        let key_span = name.span();
        let owned = (source.get(key_span.clone()) != Some(name.text.as_ref()))
            .then(|| name.text.to_string());
        b.scalar(key_span.clone(), owned, Kind::Str);
        b.open_seq(key_span.start);
        let mut last_end = key_span.end;
        for i in group {
            let d = &mut ds[i];
            d.node = b.open_map(d.span.start);
            scalar(b, source, &mut d.name);
            b.open_seq(d.name.span().start);
            for a in d.args.iter_mut() {
                scalar(b, source, a);
            }
            b.close(d.args.last().unwrap_or(&d.name).span().end);
            if let Some(block) = &mut d.block {
                b.scalar(d.open..d.open + 1, None, Kind::Str);
                emit_block(b, source, d.open, d.span.end, block);
            }
            b.close(d.span.end);
            last_end = d.span.end;
        }
        b.close(last_end);
    }
    b.close(end);
}

/// Adds the nodes, sequence items and mapping entries of the tree [`emit_block`]
/// builds for `ds`, counted as it lays them out.
fn tree_size(ds: &[Directive<'_>], nodes: &mut usize, items: &mut usize, entries: &mut usize) {
    let mut seen = std::collections::HashSet::new();
    let groups = ds
        .iter()
        .filter(|d| seen.insert(d.name.text.as_ref()))
        .count();
    // The block's mapping; per name its key and sequence.
    *nodes += 1 + 2 * groups;
    *entries += groups;
    for d in ds {
        // The occurrence's mapping, name and argument sequence, and the `{` key
        // with the block's own tree.
        *nodes += 3 + d.args.len();
        *items += 1 + d.args.len();
        *entries += 1;
        if let Some(block) = &d.block {
            *nodes += 1;
            *entries += 1;
            tree_size(block, nodes, items, entries);
        }
    }
}

/// Reads `doc`'s text as nginx configuration: the directives with their nodes in a
/// new loaded file (same path and text, the built tree), or RL001 at the first
/// syntax error. The words borrow `doc`'s text.
pub fn read(doc: &Arc<Loaded>) -> Result<Config<'_>, Box<Diagnostic>> {
    let text: &str = &doc.file.text;
    let mut lx = Lexer { text, pos: 0 };
    let (mut directives, _) = parse_block(&mut lx, 0, false).map_err(|(msg, at)| {
        Box::new(rl001_invalid_syntax::in_format(
            doc,
            "nginx configuration",
            &msg,
            at,
        ))
    })?;
    let mut b = TreeBuilder::new(text);
    let (mut nodes, mut items, mut entries) = (0, 0, 0);
    tree_size(&directives, &mut nodes, &mut items, &mut entries);
    b.reserve(nodes, items, entries);
    emit_block(&mut b, text, 0, text.len(), &mut directives);
    let tree = b.finish(doc.file.text.clone());
    Ok(Config {
        doc: Arc::new(Loaded::new(doc.file.clone(), Ok(tree))),
        directives,
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
                "nginx.conf".into(),
                "nginx.conf".into(),
                text,
            )),
            Err(crate::source::loader::LoadError::Binary),
        ))
    }

    #[test]
    fn the_tree_is_built_at_the_size_counted() {
        let text = "events {}\nhttp {\n  upstream u { server a; server b; }\n  server {\n    listen 80;\n    location ~ ^/x { proxy_pass http://u; proxy_next_upstream error timeout; }\n    location / { access_by_lua_block { x() } }\n  }\n}\n";
        let doc = loaded(text);
        let c = read(&doc).unwrap();
        let (mut nodes, mut items, mut entries) = (0, 0, 0);
        tree_size(&c.directives, &mut nodes, &mut items, &mut entries);
        assert_eq!(nodes, c.doc.tree.as_ref().unwrap().len());
    }

    #[test]
    fn directives_blocks_quotes_and_positions() {
        let text = "http {\r\n  # c\r\n  proxy_next_upstream error \"http_503\";\r\n  location = /x { proxy_pass http://a/v1/; }\r\n}";
        let doc = loaded(text);
        let c = read(&doc).unwrap();
        let http = &c.directives[0];
        assert_eq!(http.name.text, "http");
        let pnu = http.last("proxy_next_upstream").unwrap();
        assert_eq!(pnu.args[1].text, "http_503");
        let at = c.word_at(&pnu.args[1]);
        let lc = c.doc.file.line_col(at.location().span.start);
        assert_eq!((lc.line, lc.column), (3, 29));
        let lc = c.doc.file.line_col(c.at(pnu).location().span.start);
        assert_eq!((lc.line, lc.column), (3, 3));
        let loc = http.last("location").unwrap();
        assert_eq!(
            loc.args.iter().map(|a| a.text.as_ref()).collect::<Vec<_>>(),
            ["=", "/x"]
        );
        assert_eq!(loc.last("proxy_pass").unwrap().args[0].text, "http://a/v1/");
    }

    #[test]
    fn syntax_errors_are_rl001_with_position() {
        for (text, offset) in [
            ("http {", 6),
            ("}", 0),
            ("a b", 3),
            ("a \"b;", 2),
            ("a { b }", 6),
        ] {
            let d = read(&loaded(text)).unwrap_err();
            assert_eq!(d.code, "RL001", "{text}");
            assert_eq!(d.primary.location.span.start, offset, "{text}");
        }
    }

    #[test]
    fn lua_blocks_are_skipped() {
        let doc = loaded("content_by_lua_block { ngx.say(\"}\") -- }\n }\nx 1;");
        let c = read(&doc).unwrap();
        assert_eq!(c.directives.len(), 2);
    }

    proptest! {
        #[test]
        fn never_panics(s in "\\PC{0,200}") {
            let _ = read(&loaded(&s));
        }

        #[test]
        fn never_panics_on_nginx_like_text(s in "[a-z_ {};#\"'\\\\$\r\n]{0,200}") {
            let _ = read(&loaded(&s));
        }
    }
}
