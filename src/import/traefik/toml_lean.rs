//! The lean way from TOML text to the located [`Tree`] of [`super::toml_tree`]: the
//! same tree `toml_edit`'s document gives, without building that document.
//!
//! Why: a `toml_edit` document keeps every key's and value's formatting (decor, raw
//! text, positions) and all lexer tokens and parser events of the file at once; at
//! about 30 bytes of memory per byte of TOML it was most of the peak of a run on a
//! large Traefik file (issue 43). Here the tokens are lexed one by one and parsed a
//! few thousand at a time (cut at newlines outside brackets, where TOML's grammar
//! starts a new expression), and each expression lands in small tables that borrow
//! keys and strings from the text.
//!
//! The tables follow `toml_edit`'s document rules step by step (implicit and dotted
//! tables, a `[header]` reopening an implicit table moves it to the end of its
//! parent, arrays of tables, the spans each table keeps), so the tree is the same.
//! Only valid TOML takes this way: at the first sign of anything else (an error from
//! the parser or a decoder, a key defined twice, an event out of place, an integer
//! that overflows) [`tree`] gives up, and the caller parses with `toml_edit`, whose
//! message and position the finding keeps.

use crate::source::tree::{Kind, Tree, TreeBuilder};
use indexmap::IndexMap;
use std::borrow::Cow;
use std::sync::Arc;
use toml_parser::lexer::{Token, TokenKind};
use toml_parser::parser::{Event, EventKind, RecursionGuard, ValidateWhitespace};
use toml_parser::{ErrorSink, ParseError, Source};

/// Tokens parsed at once (more when a bracket stays open): a few hundred KB of
/// tokens and events at most, whatever the file's size.
const CHUNK_TOKENS: usize = 4096;

/// Nesting limit of arrays and inline tables, and of the keys of a dotted key:
/// `toml_edit`'s (deeper is its error).
const LIMIT: u32 = 80;

/// A byte span that fits the tree's offsets.
type Span = (u32, u32);

/// The located tree of valid TOML `text`, equal to the one built from `toml_edit`'s
/// document; `None` when the text is not valid TOML (or is too large for the tree's
/// offsets), left to `toml_edit`.
pub fn tree(text: &Arc<str>) -> Option<Tree> {
    let root = read(text)?;
    let mut b = TreeBuilder::new(text);
    b.open_map(0);
    table_entries(&mut b, &root);
    b.close(text.len());
    Some(b.finish(text.clone()))
}

/// A table: its entries in `toml_edit`'s order, and what its rules need.
#[derive(Default)]
struct Table<'a> {
    entries: IndexMap<Cow<'a, str>, Entry<'a>>,
    /// The header of a `[table]` or `[[table]]` item, the key of an implicit table,
    /// braces of an inline table; `None` for the root.
    span: Option<Span>,
    /// Created by a dotted key or a header path, not defined itself.
    implicit: bool,
    /// Created (or extended) by a dotted key.
    dotted: bool,
}

/// A key's span (its first definition) and what it holds.
struct Entry<'a> {
    key_span: Span,
    item: Item<'a>,
}

enum Item<'a> {
    Value(Value<'a>),
    Table(Box<Table<'a>>),
    ArrayOfTables(Vec<Table<'a>>),
}

enum Value<'a> {
    /// The decoded text as the tree keeps it (`toml_tree`'s spelling of numbers).
    Scalar {
        span: Span,
        text: Cow<'a, str>,
        kind: Kind,
    },
    Array {
        span: Span,
        items: Vec<Value<'a>>,
    },
    Inline(Box<Table<'a>>),
}

/// One key of a dotted key: decoded name and span.
struct Key<'a> {
    name: Cow<'a, str>,
    span: Span,
}

/// A `[header]` or `[[header]]`: the keys before the last, the last, the span from
/// `[` to `]`.
struct Header<'a> {
    path: Vec<Key<'a>>,
    key: Key<'a>,
    span: Span,
    is_array: bool,
}

/// Records that the parser or a decoder reported an error.
#[derive(Default)]
struct Failed(bool);

impl ErrorSink for Failed {
    fn report_error(&mut self, _error: ParseError) {
        self.0 = true;
    }
}

/// The document's root table, or `None` at the first error (see the module doc).
fn read(text: &str) -> Option<Table<'_>> {
    u32::try_from(text.len()).ok()?;
    let source = Source::new(text);
    let mut failed = Failed::default();
    let mut doc = Document::default();
    let mut tokens: Vec<Token> = Vec::new();
    let mut events: Vec<Event> = Vec::new();
    let mut depth = 0i64;
    let mut lexer = source.lex();
    loop {
        let token = lexer.next();
        let last = match token {
            None => true,
            Some(t) => {
                match t.kind() {
                    TokenKind::LeftSquareBracket | TokenKind::LeftCurlyBracket => depth += 1,
                    TokenKind::RightSquareBracket | TokenKind::RightCurlyBracket => depth -= 1,
                    _ => {}
                }
                tokens.push(t);
                if t.kind() != TokenKind::Eof
                    && !(t.kind() == TokenKind::Newline
                        && depth <= 0
                        && tokens.len() >= CHUNK_TOKENS)
                {
                    continue;
                }
                t.kind() == TokenKind::Eof
            }
        };
        events.clear();
        {
            let mut push = |e: Event| events.push(e);
            let mut whitespace = ValidateWhitespace::new(&mut push, source);
            let mut guard = RecursionGuard::new(&mut whitespace, LIMIT);
            toml_parser::parser::parse_document(&tokens, &mut guard, &mut failed);
        }
        if failed.0 {
            return None;
        }
        tokens.clear();
        let mut cursor = Cursor {
            events: &events,
            at: 0,
        };
        doc.expressions(&mut cursor, source)?;
        if last {
            break;
        }
    }
    doc.finish_table()?;
    Some(doc.root)
}

/// The events of one chunk, read in order.
struct Cursor<'e> {
    events: &'e [Event],
    at: usize,
}

impl<'e> Cursor<'e> {
    fn next(&mut self) -> Option<&'e Event> {
        let e = self.events.get(self.at)?;
        self.at += 1;
        Some(e)
    }

    fn peek(&self, ahead: usize) -> Option<EventKind> {
        self.events.get(self.at + ahead).map(Event::kind)
    }

    fn skip_whitespace(&mut self) {
        while self.peek(0) == Some(EventKind::Whitespace) {
            self.at += 1;
        }
    }
}

/// `toml_edit`'s document state: the root, the table of the current section (kept
/// apart until the next header), and that section's header.
#[derive(Default)]
struct Document<'a> {
    root: Table<'a>,
    current: Table<'a>,
    header: Option<Header<'a>>,
}

impl<'a> Document<'a> {
    /// Reads every expression of one chunk.
    fn expressions(&mut self, c: &mut Cursor<'_>, source: Source<'a>) -> Option<()> {
        while let Some(event) = c.next() {
            match event.kind() {
                EventKind::StdTableOpen | EventKind::ArrayTableOpen => {
                    self.finish_table()?;
                    let header = header(event, c, source)?;
                    self.start_table(header)?;
                }
                EventKind::SimpleKey => {
                    let (path, key) = dotted_key(event, c, source)?;
                    c.skip_whitespace();
                    if c.next()?.kind() != EventKind::KeyValSep {
                        return None;
                    }
                    c.skip_whitespace();
                    let value = value(c, source)?;
                    self.key_value(path, key, value)?;
                }
                EventKind::Whitespace | EventKind::Comment | EventKind::Newline => {}
                _ => return None,
            }
        }
        Some(())
    }

    fn key_value(&mut self, path: Vec<Key<'a>>, key: Key<'a>, value: Value<'a>) -> Option<()> {
        let dotted = !path.is_empty();
        let parent = descend(&mut self.current, &path, dotted)?;
        // Dotted keys may not extend a table defined by a header.
        if dotted && !parent.implicit {
            return None;
        }
        insert_new(parent, key, value)
    }

    /// Files the current section under its header.
    fn finish_table(&mut self) -> Option<()> {
        let mut table = std::mem::take(&mut self.current);
        let Some(header) = self.header.take() else {
            self.root = table;
            return Some(());
        };
        table.span = Some(header.span);
        let parent = descend(&mut self.root, &header.path, false)?;
        if header.is_array {
            let entry = parent.entries.entry(header.key.name).or_insert(Entry {
                key_span: header.key.span,
                item: Item::ArrayOfTables(Vec::new()),
            });
            match &mut entry.item {
                Item::ArrayOfTables(tables) => tables.push(table),
                _ => return None,
            }
        } else {
            let entry = Entry {
                key_span: header.key.span,
                item: Item::Table(Box::new(table)),
            };
            // Removed when the section started: nothing can be there now.
            if parent.entries.insert(header.key.name, entry).is_some() {
                return None;
            }
        }
        Some(())
    }

    /// Starts a section: a `[table]` that only existed implicitly is taken out of its
    /// parent (to be filed again, last, when the section ends), with its children.
    fn start_table(&mut self, header: Header<'a>) -> Option<()> {
        if !header.is_array {
            let parent = descend(&mut self.root, &header.path, false)?;
            if let Some((_, old)) = parent.entries.shift_remove_entry(&header.key.name) {
                match old.item {
                    Item::Table(t) if t.implicit && !t.dotted => self.current = *t,
                    _ => return None,
                }
            }
        }
        self.current.implicit = false;
        self.current.dotted = false;
        self.current.span = Some(header.span);
        self.header = Some(header);
        Some(())
    }
}

/// The table at `path` below `table`, implicit tables created on the way (an array
/// of tables stands for its last table); `None` where `toml_edit` reports an error.
fn descend<'t, 'a>(
    mut table: &'t mut Table<'a>,
    path: &[Key<'a>],
    dotted: bool,
) -> Option<&'t mut Table<'a>> {
    for key in path {
        let entry = table
            .entries
            .entry(key.name.clone())
            .or_insert_with(|| Entry {
                key_span: key.span,
                item: Item::Table(Box::new(Table {
                    span: Some(key.span),
                    implicit: true,
                    dotted,
                    ..Table::default()
                })),
            });
        table = match &mut entry.item {
            Item::ArrayOfTables(tables) => tables.last_mut()?,
            Item::Table(t) => {
                if dotted && t.implicit {
                    t.dotted = true;
                }
                if dotted && !t.implicit {
                    return None;
                }
                t
            }
            Item::Value(_) => return None,
        };
    }
    Some(table)
}

/// A header from its opening bracket to its closing one.
fn header<'a>(open: &Event, c: &mut Cursor<'_>, source: Source<'a>) -> Option<Header<'a>> {
    let is_array = open.kind() == EventKind::ArrayTableOpen;
    let mut keys = None;
    loop {
        let event = c.next()?;
        match event.kind() {
            EventKind::StdTableClose | EventKind::ArrayTableClose => {
                let (path, key) = keys?;
                return Some(Header {
                    path,
                    key,
                    span: (open.span().start() as u32, event.span().end() as u32),
                    is_array,
                });
            }
            EventKind::SimpleKey if keys.is_none() => keys = Some(dotted_key(event, c, source)?),
            EventKind::Whitespace => {}
            _ => return None,
        }
    }
}

/// A key and the dotted keys after it: (the keys before the last, the last).
fn dotted_key<'a>(
    first: &Event,
    c: &mut Cursor<'_>,
    source: Source<'a>,
) -> Option<(Vec<Key<'a>>, Key<'a>)> {
    let mut path = Vec::new();
    let mut last = key(first, source)?;
    loop {
        match (c.peek(0), c.peek(1)) {
            (Some(EventKind::KeySep), _) => c.at += 1,
            (Some(EventKind::Whitespace), Some(EventKind::KeySep)) => c.at += 2,
            _ => break,
        }
        c.skip_whitespace();
        let event = c.next()?;
        if event.kind() != EventKind::SimpleKey {
            return None;
        }
        path.push(std::mem::replace(&mut last, key(event, source)?));
    }
    if path.len() >= LIMIT as usize {
        return None;
    }
    Some((path, last))
}

fn key<'a>(event: &Event, source: Source<'a>) -> Option<Key<'a>> {
    let raw = source.get(event)?;
    let mut name = Cow::Borrowed("");
    let mut failed = Failed::default();
    raw.decode_key(&mut name, &mut failed);
    (!failed.0).then(|| Key {
        name,
        span: span(event),
    })
}

fn span(event: &Event) -> Span {
    (event.span().start() as u32, event.span().end() as u32)
}

/// A value: a scalar, an array or an inline table.
fn value<'a>(c: &mut Cursor<'_>, source: Source<'a>) -> Option<Value<'a>> {
    let event = c.next()?;
    match event.kind() {
        EventKind::Scalar => scalar(event, source),
        EventKind::ArrayOpen => array(event, c, source),
        EventKind::InlineTableOpen => inline_table(event, c, source),
        _ => None,
    }
}

/// A scalar as `toml_tree` spells it: strings decoded, integers and floats as Rust
/// prints them (`.nan`, `.inf`, `-.inf` for the specials), datetimes as
/// `toml_datetime` prints them. Overflowing numbers are `toml_edit` errors: `None`.
fn scalar<'a>(event: &Event, source: Source<'a>) -> Option<Value<'a>> {
    use toml_parser::decoder::ScalarKind;
    let raw = source.get(event)?;
    let mut decoded = Cow::Borrowed("");
    let mut failed = Failed::default();
    let kind = raw.decode_scalar(&mut decoded, &mut failed);
    if failed.0 {
        return None;
    }
    let (text, kind) = match kind {
        ScalarKind::String => (decoded, Kind::Str),
        ScalarKind::Boolean(x) => (Cow::Borrowed(if x { "true" } else { "false" }), Kind::Bool),
        ScalarKind::DateTime => {
            let d = decoded.parse::<toml_datetime::Datetime>().ok()?;
            (Cow::Owned(d.to_string()), Kind::Str)
        }
        ScalarKind::Float => {
            let x = decoded.parse::<f64>().ok()?;
            let word = decoded
                .strip_prefix(['+', '-'])
                .unwrap_or(&decoded)
                .chars()
                .all(|ch| ch.is_ascii_alphabetic());
            let text = if x.is_nan() {
                ".nan".to_string()
            } else if x.is_infinite() {
                if !word {
                    return None; // overflowed
                }
                if x > 0.0 { ".inf" } else { "-.inf" }.to_string()
            } else {
                format!("{x:?}")
            };
            (Cow::Owned(text), Kind::Float)
        }
        ScalarKind::Integer(radix) => {
            let x = i64::from_str_radix(&decoded, radix.value()).ok()?;
            (Cow::Owned(x.to_string()), Kind::Int)
        }
    };
    Some(Value::Scalar {
        span: span(event),
        text,
        kind,
    })
}

fn array<'a>(open: &Event, c: &mut Cursor<'_>, source: Source<'a>) -> Option<Value<'a>> {
    let mut items = Vec::new();
    let mut pending = None;
    loop {
        let event = c.next()?;
        match event.kind() {
            EventKind::Whitespace | EventKind::Comment | EventKind::Newline => {}
            EventKind::Scalar | EventKind::ArrayOpen | EventKind::InlineTableOpen => {
                if pending.is_some() {
                    return None;
                }
                c.at -= 1;
                pending = Some(value(c, source)?);
            }
            EventKind::ValueSep => items.push(pending.take()?),
            EventKind::ArrayClose => {
                items.extend(pending);
                return Some(Value::Array {
                    span: (open.span().start() as u32, event.span().end() as u32),
                    items,
                });
            }
            _ => return None,
        }
    }
}

fn inline_table<'a>(open: &Event, c: &mut Cursor<'_>, source: Source<'a>) -> Option<Value<'a>> {
    let mut table = Table::default();
    let mut key: Option<(Vec<Key<'a>>, Key<'a>)> = None;
    let mut separated = false;
    let mut pending: Option<Value<'a>> = None;
    loop {
        let event = c.next()?;
        match event.kind() {
            EventKind::Whitespace | EventKind::Comment | EventKind::Newline => {}
            EventKind::SimpleKey if key.is_none() => key = Some(dotted_key(event, c, source)?),
            EventKind::KeyValSep if key.is_some() && !separated => separated = true,
            EventKind::Scalar | EventKind::ArrayOpen | EventKind::InlineTableOpen
                if separated && pending.is_none() =>
            {
                c.at -= 1;
                pending = Some(value(c, source)?);
            }
            EventKind::ValueSep | EventKind::InlineTableClose => {
                match (key.take(), pending.take()) {
                    (Some((path, key)), Some(value)) => inline_entry(&mut table, path, key, value)?,
                    // A trailing comma (TOML 1.1), or an empty table.
                    (None, None) if !separated => {}
                    _ => return None,
                }
                separated = false;
                if event.kind() == EventKind::InlineTableClose {
                    table.span = Some((open.span().start() as u32, event.span().end() as u32));
                    return Some(Value::Inline(Box::new(table)));
                }
            }
            _ => return None,
        }
    }
}

/// Files `key = value` in an inline table: dotted keys create implicit inline
/// tables (located at their key), which later dotted keys of the same table extend.
fn inline_entry<'a>(
    table: &mut Table<'a>,
    path: Vec<Key<'a>>,
    key: Key<'a>,
    value: Value<'a>,
) -> Option<()> {
    let mut t = table;
    for k in &path {
        let entry = t.entries.entry(k.name.clone()).or_insert_with(|| Entry {
            key_span: k.span,
            item: Item::Value(Value::Inline(Box::new(Table {
                span: Some(k.span),
                implicit: true,
                dotted: true,
                ..Table::default()
            }))),
        });
        t = match &mut entry.item {
            Item::Value(Value::Inline(inner)) if inner.implicit => inner,
            _ => return None,
        };
    }
    insert_new(t, key, value)
}

/// Adds `key = value` to `table`; `None` when the key is already there (a repeated
/// key: the caller gives up and `toml_edit` reports it with its position).
fn insert_new<'a>(table: &mut Table<'a>, key: Key<'a>, value: Value<'a>) -> Option<()> {
    match table.entries.entry(key.name) {
        indexmap::map::Entry::Vacant(v) => {
            v.insert(Entry {
                key_span: key.span,
                item: Item::Value(value),
            });
            Some(())
        }
        indexmap::map::Entry::Occupied(_) => None,
    }
}

// ---------------------------------------------------------------------------
// The tree, laid out as `toml_tree` lays out a `toml_edit` document.

fn range(s: Span) -> std::ops::Range<usize> {
    s.0 as usize..s.1 as usize
}

fn table_entries(b: &mut TreeBuilder<'_>, table: &Table<'_>) {
    for (name, entry) in &table.entries {
        let key_span = range(entry.key_span);
        match &entry.item {
            Item::Value(v) => {
                key_node(b, key_span, name);
                value_node(b, v);
            }
            Item::Table(t) => {
                // A header table is located at its header; an implicit or dotted
                // one at its key.
                let span = t
                    .span
                    .map(range)
                    .filter(|s| !s.is_empty())
                    .unwrap_or(key_span);
                key_node(b, span.clone(), name);
                b.open_map(span.start);
                table_entries(b, t);
                b.close(span.end);
            }
            Item::ArrayOfTables(tables) => {
                key_node(b, key_span.clone(), name);
                b.open_seq(key_span.start);
                for t in tables {
                    let span = t.span.map(range).unwrap_or(key_span.clone());
                    b.open_map(span.start);
                    table_entries(b, t);
                    b.close(span.end);
                }
                b.close(key_span.end);
            }
        }
    }
}

fn key_node(b: &mut TreeBuilder<'_>, span: std::ops::Range<usize>, name: &str) {
    b.scalar(span, Some(name.to_string()), Kind::Str);
}

fn value_node(b: &mut TreeBuilder<'_>, v: &Value<'_>) {
    match v {
        Value::Scalar { span, text, kind } => {
            b.scalar(range(*span), Some(text.to_string()), *kind);
        }
        Value::Array { span, items } => {
            b.open_seq(span.0 as usize);
            for item in items {
                value_node(b, item);
            }
            b.close(span.1 as usize);
        }
        Value::Inline(t) => {
            let span = t.span.map(range).unwrap_or(0..0);
            b.open_map(span.start);
            for (name, entry) in &t.entries {
                key_node(b, range(entry.key_span), name);
                if let Item::Value(v) = &entry.item {
                    value_node(b, v);
                }
            }
            b.close(span.end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::traefik::toml_tree::parse_with_toml_edit;

    /// TOML that exercises every rule the lean way follows (valid and not).
    const SNIPPETS: &[&str] = &[
        "",
        "a = 1\n",
        "# only a comment",
        "a.b.c = 1\na.b.d = 'x'\na.e = true\n",
        "[a.b]\nx = 1\n[c]\ny = 2\n[a]\nz = 3\n",
        "[a.b.c]\n[a]\nb.d = 1\n",
        "[a.b.c]\n[a]\nb.d = 1\n[a.b]\n",
        "[a]\nb.x = 1\n[a.b]\ny = 2\n",
        "[a]\nb.x = 1\nb = {x = 2}\n",
        "[[a]]\nx = 1\n[[a]]\nx = 2\n[a.b]\ny = 3\n[[a.c]]\nz = 4\n",
        "[[a.b]]\n[a]\nb.c = 1\n",
        "[a]\nx = 1\n[[a]]\n",
        "[a]\n[a]\n",
        "a = 1\na = 2\n",
        "a = 1\na.b = 2\n",
        "a = [1, 2]\n[[a]]\n",
        "t = {a.b = 1, a.c = 2, d = [1, {e = 'f'}]}\n",
        "t = {a.b = 1, a = 2}\n",
        "t = {a = {b = 1}, a.c = 2}\n",
        "t = {a = 1, a = 2}\n",
        "t = {a = 1,}\n",
        "t = {\n  a = 1,\n  b = 2\n}\n",
        "t = {a = 1}\nt.b = 2\n",
        "[t]\nx = {}\n[t.x]\n",
        "s = \"es\\u00e9caped\\n\"\nl = 'lit'\nm = \"\"\"\nmulti\nline\"\"\"\nn = '''\nraw ]\n'''\n",
        "\"quoted key\" = 1\n'lit.key' = 2\n\"a\".\"b\" = 3\n",
        "[ a . \"b c\" . d ]\nx = 1\n",
        "i = 0x1F\no = 0o17\nb = 0b101\nn = -1_000\nbig = 9223372036854775808\n",
        "f = 1.5\ne = 1e10\nz = -0.0\ni = inf\nn = -nan\np = +inf\nbig = 1e400\n",
        "d1 = 1979-05-27T07:32:00Z\nd2 = 1979-05-27\nt = 07:32:00\nd3 = 1979-05-27 07:32:00.999-07:00\nbad = 1979-13-27\n",
        "a = [\n  1, # one\n  2,\n]\n",
        "a = [[1], ['x'], [{b = 2}]]\n",
        "a = \n",
        "= 1\n",
        "[a\nx = 1\n",
        "a = [1,\n",
        "a = {b = 1\n",
        "a = \"unterminated\n",
        "a = 1 b = 2\n",
        "[a]]\n",
        "\u{feff}a = 1\n",
        "a = 1\r\nb = 2\r\n",
        "a = \"\\q\"\n",
        "a = 'ctrl\u{1}'\n",
        "[http.routers.r]\n  rule = \"Path(`/x`)\"\n  middlewares = [\"retry@file\"]\n[http.middlewares.retry.retry]\n  attempts = 4\n",
    ];

    fn dump(r: &Result<Tree, super::super::toml_tree::TomlSyntaxError>) -> Option<String> {
        r.as_ref().ok().map(|t| format!("{t:?}"))
    }

    /// The lean way either gives up or builds exactly `toml_edit`'s tree; and it
    /// gives up on every text `toml_edit` refuses.
    fn check(src: &str) -> bool {
        let text: Arc<str> = Arc::from(src);
        let edit = parse_with_toml_edit(&text);
        let lean = tree(&text);
        match (&lean, &edit) {
            (Some(l), Ok(_)) => {
                assert_eq!(Some(format!("{l:?}")), dump(&edit), "{src:?}");
                true
            }
            (Some(_), Err(e)) => panic!("lean accepted what toml_edit refuses ({e:?}): {src:?}"),
            (None, _) => false,
        }
    }

    fn fixture_tomls() -> Vec<String> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut out = Vec::new();
        for dir in ["fixtures", "tests", "examples"] {
            for e in walkdir::WalkDir::new(root.join(dir)).into_iter().flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "toml") {
                    if let Ok(s) = std::fs::read_to_string(p) {
                        out.push(s);
                    }
                }
            }
        }
        out
    }

    #[test]
    fn same_tree_as_toml_edit_on_snippets_and_fixtures() {
        let fixtures = fixture_tomls();
        assert!(
            fixtures.len() >= 5,
            "fixture TOML files found: {}",
            fixtures.len()
        );
        for src in SNIPPETS {
            let valid = parse_with_toml_edit(&Arc::from(*src)).is_ok();
            // Valid TOML never falls back to `toml_edit`.
            assert_eq!(check(src), valid, "{src:?}");
        }
        for src in &fixtures {
            let valid = parse_with_toml_edit(&Arc::from(src.as_str())).is_ok();
            // Every valid fixture takes the lean way.
            assert_eq!(check(src), valid, "{src}");
        }
    }

    /// Broken and reshuffled variants of every snippet and fixture: each line
    /// dropped, doubled, or the text cut after it.
    #[test]
    fn same_tree_as_toml_edit_on_variants() {
        let mut sources: Vec<String> = SNIPPETS.iter().map(|s| s.to_string()).collect();
        sources.extend(fixture_tomls());
        for src in &sources {
            let lines: Vec<&str> = src.split_inclusive('\n').collect();
            for i in 0..lines.len() {
                let without: String = lines
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .map(|(_, l)| *l)
                    .collect();
                let doubled: String = lines[..=i].concat() + lines[i] + &lines[i + 1..].concat();
                let cut: String = lines[..=i].concat();
                for v in [without, doubled, cut] {
                    check(&v);
                }
            }
        }
    }

    #[test]
    fn large_files_are_read_in_chunks() {
        // Many chunks, one array spanning a chunk boundary.
        let mut src = String::new();
        for i in 0..3000 {
            src.push_str(&format!(
                "[http.routers.r{i}]\n  rule = \"Host(`a`)\"\n  middlewares = [\"retry{i}\"]\n"
            ));
            if i == 1500 {
                src.push_str("  big = [\n");
                for j in 0..5000 {
                    src.push_str(&format!("    {j},\n"));
                }
                src.push_str("  ]\n");
            }
        }
        assert!(check(&src));
        src.push_str("[http.routers.r7]\n");
        assert!(!check(&src));
    }
}
