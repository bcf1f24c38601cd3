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
use std::ops::Range;
use std::sync::Arc;

/// Deepest block nesting read (nginx configs nest `http`/`server`/`location`/`if`, a
/// handful of levels).
pub const MAX_DEPTH: usize = 64;

/// A word of the file: its decoded text, byte span and tree node.
#[derive(Debug, Clone)]
pub struct Word {
    /// The text with quotes removed and escapes decoded.
    pub text: String,
    /// Byte span in the file (quotes included).
    pub span: Range<usize>,
    /// Its scalar node in the built tree.
    pub node: NodeId,
}

/// One directive: `name args...;` or `name args... { block }`.
#[derive(Debug, Clone)]
pub struct Directive {
    /// The name token.
    pub name: Word,
    /// The arguments.
    pub args: Vec<Word>,
    /// The directives of its block, for a block directive.
    pub block: Option<Vec<Directive>>,
    /// Byte of the `{` of a block directive.
    open: usize,
    /// Byte span from the name to the `;` or `}`.
    pub span: Range<usize>,
    /// The occurrence mapping in the built tree (located at the name token).
    pub node: NodeId,
}

impl Directive {
    /// The directives named `name` in this directive's block, in order.
    pub fn children<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Directive> + 'a {
        self.block
            .iter()
            .flatten()
            .filter(move |d| d.name.text == name)
    }

    /// The last directive named `name` in this block (nginx keeps the last of a
    /// repeated setting... or rejects it: either way the last is what a reader sees).
    pub fn last<'a>(&'a self, name: &str) -> Option<&'a Directive> {
        self.block.iter().flatten().rfind(|d| d.name.text == name)
    }
}

/// A read file: the loaded file with the located tree, and its top-level directives.
#[derive(Debug, Clone)]
pub struct Config {
    /// The file with the built tree (same text and path as the input).
    pub doc: Arc<Loaded>,
    /// The main context.
    pub directives: Vec<Directive>,
}

impl Config {
    /// The node of a directive (located at its name).
    pub fn at(&self, d: &Directive) -> At {
        At::new(&self.doc, d.node)
    }

    /// The node of a word.
    pub fn word_at(&self, w: &Word) -> At {
        At::new(&self.doc, w.node)
    }
}

#[derive(Debug)]
enum Tok {
    Word(String, Range<usize>),
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
    fn next(&mut self) -> Result<Option<Tok>, Error> {
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
                        out.shrink_to_fit();
                        return Ok(Some(Tok::Word(out, start..i + 1)));
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
                // written): one copy of exactly its length, no growth slack.
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
                Ok(Some(Tok::Word(self.text[start..i].to_string(), start..i)))
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

fn parse_block(
    lx: &mut Lexer<'_>,
    depth: usize,
    closing: bool,
) -> Result<(Vec<Directive>, usize), Error> {
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
                        args,
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
                        args,
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

fn word(text: String, span: Range<usize>) -> Word {
    Word {
        text,
        span,
        node: NodeId(0),
    }
}

fn scalar(b: &mut TreeBuilder<'_>, source: &str, w: &mut Word) {
    let owned = (source.get(w.span.clone()) != Some(w.text.as_str())).then(|| w.text.clone());
    w.node = b.scalar(w.span.clone(), owned, Kind::Str);
}

fn emit_block(
    b: &mut TreeBuilder<'_>,
    source: &str,
    start: usize,
    end: usize,
    ds: &mut [Directive],
) {
    b.open_map(start);
    for group in grouped::by_first_appearance(ds, |d| d.name.text.as_str()) {
        let name = &ds[group[0]].name;
        let key_span = name.span.clone();
        let owned =
            (source.get(key_span.clone()) != Some(name.text.as_str())).then(|| name.text.clone());
        b.scalar(key_span.clone(), owned, Kind::Str);
        b.open_seq(key_span.start);
        let mut last_end = key_span.end;
        for i in group {
            let d = &mut ds[i];
            d.node = b.open_map(d.span.start);
            scalar(b, source, &mut d.name);
            b.open_seq(d.name.span.start);
            for a in &mut d.args {
                scalar(b, source, a);
            }
            b.close(d.args.last().map_or(d.name.span.end, |a| a.span.end));
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

/// Reads `doc`'s text as nginx configuration: the directives with their nodes in a
/// new loaded file (same path and text, the built tree), or RL001 at the first
/// syntax error.
pub fn read(doc: &Arc<Loaded>) -> Result<Config, Box<Diagnostic>> {
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
    fn directives_blocks_quotes_and_positions() {
        let text = "http {\r\n  # c\r\n  proxy_next_upstream error \"http_503\";\r\n  location = /x { proxy_pass http://a/v1/; }\r\n}";
        let c = read(&loaded(text)).unwrap();
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
            loc.args.iter().map(|a| a.text.as_str()).collect::<Vec<_>>(),
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
        let c = read(&loaded(
            "content_by_lua_block { ngx.say(\"}\") -- }\n }\nx 1;",
        ))
        .unwrap();
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
