//! The JSON fast path: a span-keeping JSON tokenizer (RFC 8259) that feeds the same
//! [`Builder`] as the YAML events, so a JSON file gets the very tree the YAML path
//! would build from it: same node kinds, value and key spans (quotes included),
//! borrowed text for strings without escapes and owned strings for the others
//! (surrogate pairs joined), repeated keys recorded, numbers typed by the core schema
//! with big integers kept as text.
//!
//! No recursion: containers are an explicit stack, bounded by [`MAX_DEPTH`] like the
//! YAML parser's flow levels. Anything the YAML path would read differently (a key
//! on a line before its colon, a key longer than the YAML simple-key lookahead,
//! characters YAML does not allow unescaped) is reported as an error, and
//! [`Tree::parse`](super::Tree::parse) then takes the YAML path.

use super::{Builder, Kind, SyntaxError};

/// Deepest nesting of arrays and objects accepted (the YAML parser's flow limit).
pub(super) const MAX_DEPTH: usize = 255;

/// Longest key (quotes included) the YAML path reads as a simple key.
const MAX_KEY_BYTES: usize = 16 * 1024;

/// Bytes that end the fast scan inside a string: the quote, the backslash, control
/// characters, and the lead bytes of characters YAML does not allow unescaped
/// (DEL, C1 controls, U+2028/2029, U+FFFE/FFFF), checked one by one.
const fn string_stops() -> [bool; 256] {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t[0x7f] = true;
    t[0xc2] = true;
    t[0xe2] = true;
    t[0xef] = true;
    t
}
static STOP: [bool; 256] = string_stops();

struct Json<'a, 't> {
    bytes: &'a [u8],
    pos: usize,
    b: &'a mut Builder<'t>,
    /// Open containers: true for an object.
    open: Vec<bool>,
}

fn err(message: &str, offset: usize) -> SyntaxError {
    SyntaxError {
        message: message.to_string(),
        offset,
    }
}

/// Builds the tree of a JSON text into `b`. Errors carry the byte offset of the
/// first problem.
pub(super) fn build(b: &mut Builder<'_>) -> Result<(), SyntaxError> {
    let text = b.text;
    let mut p = Json {
        bytes: text.as_bytes(),
        pos: 0,
        b,
        open: Vec::new(),
    };
    p.run()
}

impl Json<'_, '_> {
    fn skip_ws(&mut self) {
        while let Some(&c) = self.bytes.get(self.pos) {
            if matches!(c, b' ' | b'\n' | b'\r' | b'\t') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn run(&mut self) -> Result<(), SyntaxError> {
        self.skip_ws();
        // true: a value is expected; false: a value was just completed.
        let mut want_value = true;
        loop {
            if want_value {
                want_value = false;
                // A container just opened: its first entry or its end.
                if let Some(is_map) = self.value()? {
                    self.skip_ws();
                    let close = if is_map { b'}' } else { b']' };
                    if self.peek() == Some(close) {
                        self.close(is_map);
                        continue;
                    }
                    if is_map {
                        self.key()?;
                    }
                    want_value = true;
                }
                continue;
            }
            self.skip_ws();
            let Some(&is_map) = self.open.last() else {
                return match self.peek() {
                    None => Ok(()),
                    Some(_) => Err(err("unexpected text after the JSON value", self.pos)),
                };
            };
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_ws();
                    if is_map {
                        self.key()?;
                    }
                    want_value = true;
                }
                Some(b'}') if is_map => self.close(true),
                Some(b']') if !is_map => self.close(false),
                None => return Err(err("unexpected end of input in a JSON value", self.pos)),
                Some(_) if is_map => return Err(err("expected ',' or '}'", self.pos)),
                Some(_) => return Err(err("expected ',' or ']'", self.pos)),
            }
        }
    }

    fn close(&mut self, is_map: bool) {
        self.pos += 1;
        self.open.pop();
        let end = self.pos as u32;
        if is_map {
            self.b.close_map(end);
        } else {
            self.b.close_seq(end);
        }
    }

    /// A key, the blanks after it and the colon; leaves `pos` after the colon.
    fn key(&mut self) -> Result<(), SyntaxError> {
        let start = self.pos;
        if self.peek() != Some(b'"') {
            return Err(err("expected a string key", start));
        }
        self.string()?;
        if self.pos - start > MAX_KEY_BYTES {
            return Err(err("key longer than the simple-key limit", start));
        }
        // YAML needs an implicit key and its colon on one line.
        while let Some(c @ (b' ' | b'\t' | b'\n' | b'\r')) = self.peek() {
            if c == b'\n' || c == b'\r' {
                return Err(err("line break between a key and its ':'", self.pos));
            }
            self.pos += 1;
        }
        if self.peek() != Some(b':') {
            return Err(err("expected ':'", self.pos));
        }
        self.pos += 1;
        self.skip_ws();
        Ok(())
    }

    /// One value at `pos` (after blanks): a scalar, or the opening of a container
    /// (then `Some(true)` for an object, `Some(false)` for an array).
    fn value(&mut self) -> Result<Option<bool>, SyntaxError> {
        let start = self.pos;
        match self.peek() {
            Some(c @ (b'{' | b'[')) => {
                if self.open.len() >= MAX_DEPTH {
                    return Err(err("nesting deeper than 255 levels", start));
                }
                self.pos += 1;
                let is_map = c == b'{';
                let kind = if is_map { Kind::Map } else { Kind::Seq };
                self.b.open(kind, start as u32, self.pos as u32);
                self.open.push(is_map);
                return Ok(Some(is_map));
            }
            Some(b'"') => self.string()?,
            Some(b't') => self.literal("true", Kind::Bool)?,
            Some(b'f') => self.literal("false", Kind::Bool)?,
            Some(b'n') => self.literal("null", Kind::Null)?,
            Some(b'-' | b'0'..=b'9') => self.number()?,
            _ => return Err(err("expected a JSON value", start)),
        }
        Ok(None)
    }

    fn literal(&mut self, word: &str, kind: Kind) -> Result<(), SyntaxError> {
        let start = self.pos;
        if !self.bytes[start..].starts_with(word.as_bytes()) {
            return Err(err("expected a JSON value", start));
        }
        self.pos += word.len();
        let (s, e) = (start as u32, self.pos as u32);
        self.b.scalar(s, e, (s, e), None, kind, true);
        Ok(())
    }

    fn digits(&mut self) -> usize {
        let from = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        self.pos - from
    }

    fn number(&mut self) -> Result<(), SyntaxError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let int_start = self.pos;
        let n = self.digits();
        if n == 0 || (n > 1 && self.bytes[int_start] == b'0') {
            return Err(err("invalid number", start));
        }
        let mut kind = Kind::Int;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(err("invalid number", start));
            }
            kind = Kind::Float;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(err("invalid number", start));
            }
            kind = Kind::Float;
        }
        let (s, e) = (start as u32, self.pos as u32);
        self.b.scalar(s, e, (s, e), None, kind, true);
        Ok(())
    }

    /// A string at `pos` (on its opening quote): borrowed when it has no escape.
    fn string(&mut self) -> Result<(), SyntaxError> {
        let start = self.pos;
        let bytes = self.bytes;
        let mut i = start + 1;
        let mut owned: Option<String> = None;
        let mut run = i; // start of the unescaped run not yet copied into `owned`
        loop {
            while i < bytes.len() && !STOP[bytes[i] as usize] {
                i += 1;
            }
            let Some(&c) = bytes.get(i) else {
                return Err(err("unterminated string", start));
            };
            match c {
                b'"' => break,
                b'\\' => {
                    let out = owned.get_or_insert_with(String::new);
                    out.push_str(&self.b.text[run..i]);
                    i = escape(bytes, i, out)?;
                    run = i;
                }
                0xc2 if matches!(bytes.get(i + 1), Some(0x80..=0x9f)) => {
                    return Err(err("C1 control character in a string", i));
                }
                0xe2 if bytes.get(i + 1) == Some(&0x80)
                    && matches!(bytes.get(i + 2), Some(0xa8 | 0xa9)) =>
                {
                    return Err(err("line or paragraph separator in a string", i));
                }
                0xef if (bytes.get(i + 1) == Some(&0xbf)
                    && matches!(bytes.get(i + 2), Some(0xbe | 0xbf)))
                    || (bytes.get(i + 1) == Some(&0xbb) && bytes.get(i + 2) == Some(&0xbf)) =>
                {
                    return Err(err("non-character or byte order mark in a string", i));
                }
                0xc2 | 0xe2 | 0xef => i += 1,
                _ => return Err(err("control character in a string", i)),
            }
        }
        let end = i + 1;
        let text = match owned {
            None => ((start + 1) as u32, i as u32),
            Some(_) => (0, 0),
        };
        let owned = owned.map(|mut s| {
            s.push_str(&self.b.text[run..i]);
            s.into_boxed_str()
        });
        self.pos = end;
        self.b
            .scalar(start as u32, end as u32, text, owned, Kind::Str, false);
        Ok(())
    }
}

fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    let mut v = 0u32;
    for &d in digits {
        v = v * 16 + (d as char).to_digit(16)?;
    }
    Some(v)
}

/// Decodes the escape at `i` (a backslash) into `out`; returns the index after it.
fn escape(bytes: &[u8], i: usize, out: &mut String) -> Result<usize, SyntaxError> {
    let Some(&c) = bytes.get(i + 1) else {
        return Err(err("unterminated string", i));
    };
    let ch = match c {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let hi = hex4(bytes, i + 2).ok_or_else(|| err("invalid \\u escape", i))?;
            let (code, next) = if (0xd800..0xdc00).contains(&hi) {
                // A high surrogate must be followed by an escaped low surrogate.
                let lo = (bytes.get(i + 6) == Some(&b'\\') && bytes.get(i + 7) == Some(&b'u'))
                    .then(|| hex4(bytes, i + 8))
                    .flatten()
                    .filter(|lo| (0xdc00..0xe000).contains(lo))
                    .ok_or_else(|| err("unpaired surrogate in a \\u escape", i))?;
                (0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00), i + 12)
            } else {
                (hi, i + 6)
            };
            let ch =
                char::from_u32(code).ok_or_else(|| err("unpaired surrogate in a \\u escape", i))?;
            out.push(ch);
            return Ok(next);
        }
        _ => return Err(err("invalid escape", i)),
    };
    out.push(ch);
    Ok(i + 2)
}

#[cfg(test)]
mod tests {
    use super::super::{Builder, Keep, Kind, NodeId, Tree};
    use std::sync::Arc;

    fn json(text: &str) -> Result<Tree, super::SyntaxError> {
        let mut tree = Tree::parse_json(text).expect("starts like JSON")?;
        tree.text = Arc::from(text);
        Ok(tree)
    }

    fn yaml(text: &str) -> Tree {
        let mut tree = Builder::new(text)
            .build(Keep::First, &mut Vec::new())
            .expect("YAML parses")
            .pop()
            .expect("one document");
        tree.text = Arc::from(text);
        tree
    }

    /// Both paths build the same tree, node for node.
    fn same_as_yaml(text: &str) {
        let (j, y) = (json(text).expect("JSON parses"), yaml(text));
        assert_eq!(j.len(), y.len(), "node count");
        assert_eq!(j.root(), y.root());
        assert_eq!(j.duplicates(), y.duplicates());
        for id in j.all_nodes() {
            assert_eq!(j.kind(id), y.kind(id), "kind of {id:?}");
            assert_eq!(j.span(id), y.span(id), "span of {id:?}");
            assert_eq!(j.parent(id), y.parent(id), "parent of {id:?}");
            assert_eq!(j.key_of(id), y.key_of(id), "key of {id:?}");
            assert_eq!(j.label_span(id), y.label_span(id));
            assert_eq!(j.is_plain(id), y.is_plain(id));
            assert_eq!(j.scalar(id), y.scalar(id), "text of {id:?}");
            assert_eq!(j.raw_entries(id), y.raw_entries(id));
            assert_eq!(j.items(id), y.items(id));
            assert_eq!(j.pointer(id), y.pointer(id));
        }
    }

    #[test]
    fn builds_the_same_tree_as_the_yaml_path() {
        same_as_yaml("{}");
        same_as_yaml("[]");
        same_as_yaml("  {\"a\": 1, \"b\": [true, false, null, -0.5e+3, 2E7, \"x\"], \"c\": {}}\n");
        same_as_yaml("{\n  \"openapi\": \"3.0.3\",\n  \"paths\": {\"/a\": {\"get\": {\"responses\": {\"200\": {\"description\": \"ok\"}}}}},\n  \"e\": [[], [{}], [1, [2, [3]]]]\n}\n");
        same_as_yaml("{\"esc\": \"a\\\"b\\\\c\\/d\\n\\t\\u00e9\\u0041\", \"k\\u0020y\": 1}");
        same_as_yaml("{\"a\":1,\"a\":2,\"b\":{\"a\":3},\"a\":4}");
        same_as_yaml("{\"big\": 123456789012345678901234567890, \"neg\": -12, \"f\": 0.0}");
        same_as_yaml("{\"unicode\": \"h\u{e9}llo \u{1f600}\", \"<<\": {\"x\": 1}}");
        same_as_yaml("[1,\r\n2\t,3]");
    }

    #[test]
    fn escapes_are_owned_and_decoded() {
        let t = json(r#"{"s": "a\"b\\c\/d\b\f\n\r\t\u00e9"}"#).unwrap();
        let v = t.get(t.root().unwrap(), "s").unwrap();
        assert_eq!(t.scalar(v), Some("a\"b\\c/d\u{8}\u{c}\n\r\t\u{e9}"));
        assert_eq!(t.span(v), 6..t.text().len() - 1);
        let plain = json(r#"["abc"]"#).unwrap();
        let item = plain.items(plain.root().unwrap())[0];
        assert_eq!(plain.scalar(item), Some("abc"));
        assert_eq!(plain.span(item), 1..6);
        assert_eq!(plain.kind(item), Kind::Str);
        assert!(!plain.is_plain(item));
    }

    #[test]
    fn surrogate_pairs_join_and_lone_ones_fail() {
        let t = json(r#"["\ud83d\ude00", "x\uD834\uDD1Ey"]"#).unwrap();
        let items = t.items(t.root().unwrap());
        assert_eq!(t.scalar(items[0]), Some("\u{1f600}"));
        assert_eq!(t.scalar(items[1]), Some("x\u{1d11e}y"));
        for bad in [
            r#"["\ud83d"]"#,
            r#"["\ud83dx"]"#,
            r#"["\ude00"]"#,
            r#"["\ud83d\u0041"]"#,
        ] {
            let e = json(bad).unwrap_err();
            assert_eq!(e.offset, 2, "{bad}");
        }
    }

    #[test]
    fn big_integers_stay_text() {
        let t = json("[18446744073709551616, -9223372036854775809, 7, 1.5, 1e3]").unwrap();
        let items = t.items(t.root().unwrap()).to_vec();
        assert_eq!(t.kind(items[0]), Kind::Int);
        assert_eq!(t.scalar(items[0]), Some("18446744073709551616"));
        assert_eq!(t.as_i64(items[0]), None);
        assert_eq!(t.kind(items[1]), Kind::Int);
        assert_eq!(t.as_i64(items[2]), Some(7));
        assert_eq!(t.kind(items[3]), Kind::Float);
        assert_eq!(t.kind(items[4]), Kind::Float);
        assert!(t.is_plain(items[0]));
    }

    #[test]
    fn duplicates_are_recorded_with_key_spans() {
        let text = r#"{"a": 1, "b": 2, "a": 3, "a": 4}"#;
        let t = json(text).unwrap();
        let d = t.duplicates();
        assert_eq!(d.len(), 2);
        assert_eq!(t.span(d[0].first), 1..4);
        assert_eq!(t.span(d[0].repeated), 17..20);
        assert_eq!(d[1].first, d[0].repeated);
        assert_eq!(t.as_i64(t.get(t.root().unwrap(), "a").unwrap()), Some(4));
        // Large maps take the hashed path and find the same repetitions.
        let mut big = String::from("{");
        for i in 0..40 {
            big.push_str(&format!("\"k{i}\": {i}, "));
        }
        big.push_str("\"k3\": 0}");
        let t = json(&big).unwrap();
        assert_eq!(t.duplicates().len(), 1);
        assert_eq!(t.scalar(t.duplicates()[0].first), Some("k3"));
        same_as_yaml(&big);
    }

    #[test]
    fn errors_carry_positions() {
        let cases: &[(&str, usize)] = &[
            ("{\"a\": }", 6),
            ("{\"a\" 1}", 5),
            ("[1, 2", 5),
            ("[1 2]", 3),
            ("{\"a\": 1,}", 8),
            ("[01]", 1),
            ("[1.]", 1),
            ("[-]", 1),
            ("[tru]", 1),
            ("[\"a\tb\"]", 3),
            ("[\"abc", 1),
            ("[\"\\x\"]", 2),
            ("{1: 2}", 1),
            ("[1] x", 4),
            ("{\"a\"\n: 1}", 4),
        ];
        for &(text, offset) in cases {
            let e = json(text).unwrap_err();
            assert_eq!(e.offset, offset, "{text:?}: {}", e.message);
        }
    }

    #[test]
    fn nesting_is_bounded_without_recursion() {
        let ok = format!(
            "{}{}",
            "[".repeat(super::MAX_DEPTH),
            "]".repeat(super::MAX_DEPTH)
        );
        let t = json(&ok).unwrap();
        assert_eq!(t.len(), super::MAX_DEPTH);
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let e = json(&deep).unwrap_err();
        assert_eq!(e.offset, super::MAX_DEPTH);
        let deep_maps = "{\"a\":".repeat(300);
        let e = json(&deep_maps).unwrap_err();
        assert_eq!(e.offset, 5 * super::MAX_DEPTH);
        // Through `Tree::parse` the YAML path then reports it; nothing overflows.
        assert!(Tree::parse(Arc::from(deep.as_str())).is_err());
    }

    #[test]
    fn yaml_only_text_falls_back() {
        // Flow YAML that is not JSON still parses through `Tree::parse`.
        let t = Tree::parse(Arc::from("{a: 1, 'b': [x, y]} # note\n")).unwrap();
        let root = t.root().unwrap();
        assert_eq!(t.as_i64(t.get(root, "a").unwrap()), Some(1));
        assert_eq!(t.items(t.get(root, "b").unwrap()).len(), 2);
        assert!(json("{a: 1}").is_err());
        // Characters YAML does not take unescaped go to the YAML path.
        assert!(json("[\"a\u{85}b\"]").is_err());
        assert!(json("[\"a\u{2028}b\"]").is_err());
        assert!(json("[\"a\u{7f}b\"]").is_err());
        assert_eq!(Tree::parse_json("a: 1").map(|r| r.is_ok()), None);
        let _ = NodeId(0);
    }
}
