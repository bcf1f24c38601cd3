//! The protobuf text format of an aggregate option value (`option (google.api.http) =
//! { get: "/v1/{name=things/*}" additional_bindings { post: "..." } };`), read from
//! the `.proto` source with the byte span of every name and value, so each HTTP rule
//! can point into the file. The parser crate keeps such a value only as re-joined
//! text, without positions (`protox_parse`, `UninterpretedOption.aggregate_value`).
//!
//! Grammar (protobuf text format, as protoc reads option aggregates): a message is
//! fields up to `}`/`>`; a field is a name (an identifier, or `[ext.name]`), an
//! optional `:` (required before a scalar), then a scalar (strings, adjacent ones
//! joined; an identifier; a number, possibly negative), a message in `{}` or `<>`, or
//! a list `[ ... ]` of either; `,` or `;` may follow. Comments `//`, `/* */` and `#`
//! are skipped. Errors carry the byte where the text stops making sense; the reader
//! never panics.

use std::ops::Range;

/// One field of a text-format message.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The field name as written (`get`, `additional_bindings`, `[ext.name]`).
    pub name: String,
    /// The name token's bytes.
    pub name_span: Range<usize>,
    /// The value.
    pub value: Value,
}

/// A text-format value with the bytes it spans.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// One or more adjacent string literals, decoded and joined.
    Str(String, Range<usize>),
    /// An identifier or a number, as written.
    Scalar(String, Range<usize>),
    /// A nested message.
    Message(Vec<Field>, Range<usize>),
    /// A list `[a, b]`.
    List(Vec<Value>, Range<usize>),
}

impl Value {
    /// The bytes the value spans.
    pub fn span(&self) -> Range<usize> {
        match self {
            Value::Str(_, s) | Value::Scalar(_, s) | Value::Message(_, s) | Value::List(_, s) => {
                s.clone()
            }
        }
    }
}

/// A syntax error: what is wrong and the byte where.
pub type Error = (String, usize);

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    Number(String),
    Punct(char),
}

/// Reads text-format values from `text` starting at any byte.
pub struct Reader<'t> {
    text: &'t str,
    pos: usize,
    /// Nesting depth, bounded so hostile input cannot exhaust the stack.
    depth: usize,
}

/// Deepest nesting of messages and lists read (deeper input is an error).
const MAX_DEPTH: usize = 64;

impl<'t> Reader<'t> {
    /// A reader over `text` at byte `pos`.
    pub fn new(text: &'t str, pos: usize) -> Reader<'t> {
        let mut pos = pos.min(text.len());
        while !text.is_char_boundary(pos) {
            pos -= 1;
        }
        Reader {
            text,
            pos,
            depth: 0,
        }
    }

    /// The byte the next token starts at (after blanks and comments).
    pub fn offset(&mut self) -> usize {
        self.skip_blanks();
        self.pos
    }

    fn skip_blanks(&mut self) {
        let b = self.text.as_bytes();
        while self.pos < b.len() {
            match b[self.pos] {
                b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c => self.pos += 1,
                b'#' => self.skip_line(),
                b'/' if b.get(self.pos + 1) == Some(&b'/') => self.skip_line(),
                b'/' if b.get(self.pos + 1) == Some(&b'*') => {
                    match self.text[self.pos + 2..].find("*/") {
                        Some(i) => self.pos += 2 + i + 2,
                        None => self.pos = b.len(),
                    }
                }
                _ => break,
            }
        }
    }

    fn skip_line(&mut self) {
        match self.text[self.pos..].find('\n') {
            Some(i) => self.pos += i + 1,
            None => self.pos = self.text.len(),
        }
    }

    /// The next token and its span, without consuming it.
    fn peek(&mut self) -> Result<Option<(Tok, Range<usize>)>, Error> {
        let save = self.pos;
        let t = self.next();
        self.pos = save;
        t
    }

    /// The next token and its span.
    fn next(&mut self) -> Result<Option<(Tok, Range<usize>)>, Error> {
        self.skip_blanks();
        let start = self.pos;
        let Some(c) = self.text[start..].chars().next() else {
            return Ok(None);
        };
        let b = self.text.as_bytes();
        let tok = if c.is_ascii_alphabetic() || c == '_' {
            while self.pos < b.len() && (b[self.pos].is_ascii_alphanumeric() || b[self.pos] == b'_')
            {
                self.pos += 1;
            }
            Tok::Ident(self.text[start..self.pos].to_string())
        } else if c.is_ascii_digit()
            || (c == '.' && b.get(start + 1).is_some_and(u8::is_ascii_digit))
        {
            while self.pos < b.len()
                && (b[self.pos].is_ascii_alphanumeric()
                    || b[self.pos] == b'.'
                    || ((b[self.pos] == b'-' || b[self.pos] == b'+')
                        && matches!(b[self.pos - 1], b'e' | b'E')))
            {
                self.pos += 1;
            }
            Tok::Number(self.text[start..self.pos].to_string())
        } else if c == '"' || c == '\'' {
            Tok::Str(self.string(c)?)
        } else {
            self.pos += c.len_utf8();
            Tok::Punct(c)
        };
        Ok(Some((tok, start..self.pos)))
    }

    /// A string literal whose opening quote is at `self.pos`, decoded (C escapes,
    /// octal, `\x`, `\u`, `\U`).
    fn string(&mut self, quote: char) -> Result<String, Error> {
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        let mut bytes: Vec<u8> = Vec::new();
        let flush = |bytes: &mut Vec<u8>, out: &mut String| {
            out.push_str(&String::from_utf8_lossy(bytes));
            bytes.clear();
        };
        loop {
            let Some(c) = self.text[self.pos..].chars().next() else {
                return Err(("unterminated string".into(), start));
            };
            self.pos += c.len_utf8();
            match c {
                '\n' => return Err(("unterminated string".into(), start)),
                c if c == quote => break,
                '\\' => {
                    let Some(e) = self.text[self.pos..].chars().next() else {
                        return Err(("unterminated string".into(), start));
                    };
                    self.pos += e.len_utf8();
                    match e {
                        'n' => bytes.push(b'\n'),
                        't' => bytes.push(b'\t'),
                        'r' => bytes.push(b'\r'),
                        'a' => bytes.push(0x07),
                        'b' => bytes.push(0x08),
                        'f' => bytes.push(0x0c),
                        'v' => bytes.push(0x0b),
                        '0'..='7' => {
                            let mut v = e as u32 - '0' as u32;
                            for _ in 0..2 {
                                match self.text.as_bytes().get(self.pos) {
                                    Some(d @ b'0'..=b'7') => {
                                        v = v * 8 + u32::from(d - b'0');
                                        self.pos += 1;
                                    }
                                    _ => break,
                                }
                            }
                            bytes.push((v & 0xff) as u8);
                        }
                        'x' | 'X' => {
                            let v = self.hex(2);
                            bytes.push(
                                v.ok_or(("invalid string escape".to_string(), self.pos))? as u8
                            );
                        }
                        'u' | 'U' => {
                            let n = if e == 'u' { 4 } else { 8 };
                            let v = self
                                .hex_exact(n)
                                .and_then(char::from_u32)
                                .ok_or(("invalid string escape".to_string(), self.pos))?;
                            flush(&mut bytes, &mut out);
                            out.push(v);
                        }
                        other => {
                            let mut buf = [0u8; 4];
                            bytes.extend_from_slice(other.encode_utf8(&mut buf).as_bytes());
                        }
                    }
                }
                c => {
                    let mut buf = [0u8; 4];
                    bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
            }
        }
        flush(&mut bytes, &mut out);
        Ok(out)
    }

    /// Up to `max` hex digits (at least one).
    fn hex(&mut self, max: usize) -> Option<u32> {
        let mut v = 0u32;
        let mut n = 0;
        while n < max {
            match self
                .text
                .as_bytes()
                .get(self.pos)
                .and_then(|b| (*b as char).to_digit(16))
            {
                Some(d) => {
                    v = v * 16 + d;
                    self.pos += 1;
                    n += 1;
                }
                None => break,
            }
        }
        (n > 0).then_some(v)
    }

    /// Exactly `n` hex digits.
    fn hex_exact(&mut self, n: usize) -> Option<u32> {
        let start = self.pos;
        let v = self.hex(n)?;
        (self.pos - start == n).then_some(v)
    }

    fn expect(&mut self, c: char) -> Result<Range<usize>, Error> {
        match self.next()? {
            Some((Tok::Punct(p), span)) if p == c => Ok(span),
            Some((_, span)) => Err((format!("expected `{c}`"), span.start)),
            None => Err((
                format!("expected `{c}`, found the end of the file"),
                self.pos,
            )),
        }
    }

    /// A message whose opening `{` or `<` is the next token: its fields and span.
    pub fn message(&mut self) -> Result<(Vec<Field>, Range<usize>), Error> {
        let open = match self.next()? {
            Some((Tok::Punct(c @ ('{' | '<')), span)) => (c, span),
            Some((_, span)) => return Err(("expected `{`".into(), span.start)),
            None => return Err(("expected `{`, found the end of the file".into(), self.pos)),
        };
        let close = if open.0 == '{' { '}' } else { '>' };
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(("the value is nested too deeply".into(), open.1.start));
        }
        let mut fields = Vec::new();
        loop {
            match self.peek()? {
                Some((Tok::Punct(c), span)) if c == close => {
                    self.next()?;
                    self.depth -= 1;
                    return Ok((fields, open.1.start..span.end));
                }
                None => return Err((format!("`{}` is not closed", open.0), open.1.start)),
                _ => fields.push(self.field()?),
            }
        }
    }

    fn field(&mut self) -> Result<Field, Error> {
        let (name, name_span) = match self.next()? {
            Some((Tok::Ident(name), span)) => (name, span),
            Some((Tok::Punct('['), start)) => {
                // An extension or Any type URL: `[pkg.ext]`, `[type.googleapis.com/x]`.
                let end = match self.text[start.end..].find(']') {
                    Some(i) => start.end + i + 1,
                    None => return Err(("`[` is not closed".into(), start.start)),
                };
                self.pos = end;
                (self.text[start.start..end].to_string(), start.start..end)
            }
            Some((_, span)) => return Err(("expected a field name".into(), span.start)),
            None => return Err(("expected a field name".into(), self.pos)),
        };
        let colon = matches!(self.peek()?, Some((Tok::Punct(':'), _)));
        if colon {
            self.next()?;
        }
        let value = match self.peek()? {
            Some((Tok::Punct('{' | '<'), _)) => {
                let (fields, span) = self.message()?;
                Value::Message(fields, span)
            }
            Some((Tok::Punct('['), _)) if colon => self.list()?,
            Some((_, span)) if !colon => {
                return Err((format!("expected `:` after `{name}`"), span.start))
            }
            _ => self.scalar()?,
        };
        if let Some((Tok::Punct(',' | ';'), _)) = self.peek()? {
            self.next()?;
        }
        Ok(Field {
            name,
            name_span,
            value,
        })
    }

    fn list(&mut self) -> Result<Value, Error> {
        let open = self.expect('[')?;
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(("the value is nested too deeply".into(), open.start));
        }
        let mut items = Vec::new();
        loop {
            match self.peek()? {
                Some((Tok::Punct(']'), span)) => {
                    self.next()?;
                    self.depth -= 1;
                    return Ok(Value::List(items, open.start..span.end));
                }
                Some((Tok::Punct(','), _)) if !items.is_empty() => {
                    self.next()?;
                }
                Some((Tok::Punct('{' | '<'), _)) => {
                    let (fields, span) = self.message()?;
                    items.push(Value::Message(fields, span));
                }
                None => return Err(("`[` is not closed".into(), open.start)),
                _ => items.push(self.scalar()?),
            }
        }
    }

    /// A scalar value: adjacent strings joined, an identifier, or a number (a leading
    /// `-` included).
    pub fn scalar(&mut self) -> Result<Value, Error> {
        match self.next()? {
            Some((Tok::Str(s), span)) => {
                let mut value = s;
                let mut end = span.end;
                while let Some((Tok::Str(more), more_span)) = self.peek()? {
                    self.next()?;
                    value.push_str(&more);
                    end = more_span.end;
                }
                Ok(Value::Str(value, span.start..end))
            }
            Some((Tok::Ident(s) | Tok::Number(s), span)) => Ok(Value::Scalar(s, span)),
            Some((Tok::Punct('-'), minus)) => match self.next()? {
                Some((Tok::Ident(s) | Tok::Number(s), span)) => {
                    Ok(Value::Scalar(format!("-{s}"), minus.start..span.end))
                }
                _ => Err(("expected a number after `-`".into(), minus.start)),
            },
            Some((_, span)) => Err(("expected a value".into(), span.start)),
            None => Err((
                "expected a value, found the end of the file".into(),
                self.pos,
            )),
        }
    }

    /// An option statement's name and value starting at `option` (or at the name):
    /// the name parts as written (`(google.api.http)`, `.`, `get`) joined without
    /// blanks with the span from the first to the last name token, and the value
    /// (a message for `{`, else a scalar).
    pub fn option(&mut self) -> Result<(String, Range<usize>, Value), Error> {
        if let Some((Tok::Ident(kw), _)) = self.peek()? {
            if kw == "option" {
                self.next()?;
            }
        }
        let mut name = String::new();
        let mut span: Option<Range<usize>> = None;
        loop {
            match self.next()? {
                Some((Tok::Punct('='), at)) => {
                    let Some(span) = span else {
                        return Err(("expected an option name".into(), at.start));
                    };
                    let value = match self.peek()? {
                        Some((Tok::Punct('{'), _)) => {
                            let (fields, s) = self.message()?;
                            Value::Message(fields, s)
                        }
                        _ => self.scalar()?,
                    };
                    return Ok((name, span, value));
                }
                Some((tok, s)) => {
                    match tok {
                        Tok::Ident(t) | Tok::Number(t) => name.push_str(&t),
                        Tok::Str(_) => return Err(("expected `=`".into(), s.start)),
                        Tok::Punct(c) => name.push(c),
                    }
                    span = Some(span.map_or(s.clone(), |p| p.start..s.end));
                }
                None => return Err(("expected `=`".into(), self.pos)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn option(text: &str) -> Result<(String, Range<usize>, Value), Error> {
        Reader::new(text, 0).option()
    }

    #[test]
    fn reads_an_http_rule_with_spans() {
        let text = r#"option (google.api.http) = {
      post: "/v1/{name=projects/*/topics/*}:publish"
      body: "*"
      additional_bindings { get: "/v1/" "x" }
    };"#;
        let (name, span, value) = option(text).unwrap();
        assert_eq!(name, "(google.api.http)");
        assert_eq!(&text[span], "(google.api.http)");
        let Value::Message(fields, _) = value else {
            panic!("not a message")
        };
        assert_eq!(fields.len(), 3);
        assert_eq!(&text[fields[0].name_span.clone()], "post");
        match &fields[0].value {
            Value::Str(s, span) => {
                assert_eq!(s, "/v1/{name=projects/*/topics/*}:publish");
                assert_eq!(
                    &text[span.clone()],
                    "\"/v1/{name=projects/*/topics/*}:publish\""
                );
            }
            other => panic!("{other:?}"),
        }
        let Value::Message(inner, _) = &fields[2].value else {
            panic!("not a message")
        };
        match &inner[0].value {
            Value::Str(s, span) => {
                assert_eq!(s, "/v1/x");
                assert_eq!(&text[span.clone()], "\"/v1/\" \"x\"");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn reads_lists_angle_brackets_comments_and_escapes() {
        let text = "option (a.b).c = { x: [ {k: 'v\\x41\\u00e9'}, <k: \"w\"> ] # note\n /* c */ y: -3 z: IDENT; };";
        let (name, _, value) = option(text).unwrap();
        assert_eq!(name, "(a.b).c");
        let Value::Message(fields, _) = value else {
            panic!()
        };
        let Value::List(items, _) = &fields[0].value else {
            panic!()
        };
        let Value::Message(first, _) = &items[0] else {
            panic!()
        };
        assert!(matches!(&first[0].value, Value::Str(s, _) if s == "vAé"));
        assert!(matches!(&items[1], Value::Message(f, _) if f.len() == 1));
        assert!(matches!(&fields[1].value, Value::Scalar(s, _) if s == "-3"));
        assert!(matches!(&fields[2].value, Value::Scalar(s, _) if s == "IDENT"));
    }

    #[test]
    fn scalar_options() {
        let (name, _, value) = option("option idempotency_level = NO_SIDE_EFFECTS;").unwrap();
        assert_eq!(name, "idempotency_level");
        assert!(matches!(value, Value::Scalar(s, _) if s == "NO_SIDE_EFFECTS"));
        let (name, _, value) = option("option (google.api.http).get = \"/v1/a\";").unwrap();
        assert_eq!(name, "(google.api.http).get");
        assert!(matches!(value, Value::Str(s, _) if s == "/v1/a"));
    }

    proptest::proptest! {
        #[test]
        fn any_text_from_any_byte_never_panics(s in "[ -~\\n{}<>\\[\\]:;,\"'#/*é\\\\]{0,80}", at in 0usize..90) {
            let _ = Reader::new(&s, at).option();
            let _ = Reader::new(&s, at).message();
        }
    }

    #[test]
    fn errors_have_positions() {
        assert_eq!(option("option x = { get \"/a\" };").unwrap_err().1, 17);
        assert!(option("option x = { get: \"/a\" ").is_err());
        assert!(option("option x = { get: \"/a").is_err());
        assert!(option("option x = { get: [ 1, ").is_err());
        let deep = format!("option x = {}", "{a ".repeat(200));
        assert!(option(&deep).is_err());
    }
}
