//! One `.proto` file read at syntax level with `protox_parse` (no import is resolved:
//! `google/api/annotations.proto` is usually not in the run), then located: a
//! [`TreeBuilder`] tree over the real text so each RPC, HTTP rule, idempotency option
//! and `request_id` field has an [`At`].
//!
//! The located tree: the file is a mapping; each service is an entry whose key is the
//! service name token and whose value is the sequence of its RPCs; an RPC is a
//! mapping whose first key is its name token (value: the request type token), then
//! one entry per option read: `(google.api.http)` (key: the option name, value: the
//! text-format message, each field a key token with its value) and
//! `idempotency_level` (value: the identifier). A message with a `request_id` field
//! is an entry keyed by its name token whose value maps the field's name token to its
//! type token. So an RPC's node is located at its name, an HTTP rule at its method
//! keyword (`get`, `custom`), an option at its name, a field at its name.
//!
//! Positions come from the parser's `source_code_info` (0-based line and byte column
//! per element), converted back to bytes; aggregate option values are read again
//! from the text ([`super::text_format`]) because the parser keeps no positions
//! inside them.

use super::text_format::{Field, Reader, Value};
use super::IdempotencyLevel;
use crate::diagnostic::Diagnostic;
use crate::source::loader::Loaded;
use crate::source::rl001_invalid_syntax;
use crate::source::tree::{Kind, NodeId, TreeBuilder};
use prost_types::{DescriptorProto, FileDescriptorProto, UninterpretedOption};
use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

/// How RL001 names the syntax.
const FORMAT: &str = "Protocol Buffers";

/// `FileDescriptorProto` field numbers (descriptor.proto), for source paths.
const FILE_MESSAGE_TYPE: i32 = 4;
const FILE_SERVICE: i32 = 6;
const MESSAGE_NAME: i32 = 1;
const MESSAGE_FIELD: i32 = 2;
const MESSAGE_NESTED: i32 = 3;
const FIELD_NAME: i32 = 1;
const FIELD_TYPE: i32 = 5;
const SERVICE_NAME: i32 = 1;
const SERVICE_METHOD: i32 = 2;
const METHOD_NAME: i32 = 1;
const METHOD_INPUT: i32 = 2;
const METHOD_OPTIONS: i32 = 4;
const UNINTERPRETED: i32 = 999;
/// `FieldDescriptorProto.Type.TYPE_STRING`.
const TYPE_STRING: i32 = 9;

/// The HTTP rule patterns of `google.api.HttpRule` (google/api/http.proto).
const VERBS: &[&str] = &["get", "put", "post", "delete", "patch"];

/// What one file holds for the index.
#[derive(Debug)]
pub struct FileRead {
    /// The file with its located tree (same path and text as the loaded file).
    pub doc: Arc<Loaded>,
    /// The package (`google.pubsub.v1`; empty when none).
    pub package: String,
    /// The services, in file order.
    pub services: Vec<ServiceRead>,
    /// Every message of the file (nested ones too), fully qualified, with its
    /// `string request_id` field node when it has one.
    pub messages: Vec<(String, Option<NodeId>)>,
}

/// A service of one file.
#[derive(Debug)]
pub struct ServiceRead {
    /// The name as declared (`Publisher`).
    pub name: String,
    /// Its RPCs, in file order.
    pub rpcs: Vec<RpcRead>,
}

/// An RPC of one file.
#[derive(Debug)]
pub struct RpcRead {
    /// The method name.
    pub name: String,
    /// The RPC node (located at its name).
    pub node: NodeId,
    /// The request type as written (`CreateTopicRequest`, `.a.b.C`, `google.protobuf.Empty`).
    pub input_type: String,
    /// HTTP rules: method (upper case; a custom kind as written), path template, node.
    pub http: Vec<(String, String, NodeId)>,
    /// `option idempotency_level`, when it says something.
    pub idempotency: Option<(IdempotencyLevel, NodeId)>,
}

/// Reads one loaded `.proto` file. A syntax error is RL001 at its byte (and no
/// index entry); a malformed `google.api.http` value is RL001 at its byte and the
/// rest of the file is still read; never panics.
pub fn read(doc: &Arc<Loaded>) -> (Option<FileRead>, Vec<Diagnostic>) {
    let text: &str = &doc.file.text;
    let fd = match parse(&doc.file.display, text) {
        Ok(fd) => fd,
        Err(Some((message, at))) => {
            let d = rl001_invalid_syntax::in_format(doc, FORMAT, &message, at);
            return (None, vec![d]);
        }
        Err(None) => return (None, Vec::new()),
    };
    let spans = Spans::new(text, &fd);
    let mut diags = Vec::new();
    let mut b = TreeBuilder::new(text);
    b.open_map(0);
    let package = fd.package.clone().unwrap_or_default();

    let mut messages = Vec::new();
    for (i, m) in fd.message_type.iter().enumerate() {
        let path = vec![FILE_MESSAGE_TYPE, i as i32];
        read_message(&mut b, &spans, m, &package, path, &mut messages);
    }

    let mut services = Vec::new();
    for (si, s) in fd.service.iter().enumerate() {
        let path = [FILE_SERVICE, si as i32];
        let Some(name_span) = spans.get(&[&path[..], &[SERVICE_NAME]].concat()) else {
            continue;
        };
        let whole = spans.get(&path).unwrap_or(name_span.clone());
        b.scalar(name_span.clone(), None, Kind::Str);
        b.open_seq(name_span.start);
        let mut rpcs = Vec::new();
        for (mi, m) in s.method.iter().enumerate() {
            let mpath = [FILE_SERVICE, si as i32, SERVICE_METHOD, mi as i32];
            rpcs.extend(read_rpc(&mut b, &spans, doc, &mpath, m, &mut diags));
        }
        b.close(whole.end);
        services.push(ServiceRead {
            name: s.name.clone().unwrap_or_default(),
            rpcs,
        });
    }
    b.close(text.len());
    let tree = b.finish(doc.file.text.clone());
    let located = Arc::new(Loaded::new(doc.file.clone(), Ok(tree)));
    (
        Some(FileRead {
            doc: located,
            package,
            services,
            messages,
        }),
        diags,
    )
}

/// One RPC at descriptor path `mpath`: its map in the tree (name -> request type,
/// then the options read), its HTTP rules and idempotency level. `None` when the
/// parser gave it no position.
fn read_rpc(
    b: &mut TreeBuilder<'_>,
    spans: &Spans,
    doc: &Arc<Loaded>,
    mpath: &[i32],
    m: &prost_types::MethodDescriptorProto,
    diags: &mut Vec<Diagnostic>,
) -> Option<RpcRead> {
    let text: &str = &doc.file.text;
    let mname = spans.get(&[mpath, &[METHOD_NAME]].concat())?;
    let mwhole = spans.get(mpath).unwrap_or(mname.clone());
    let node = b.open_map(mname.start);
    b.scalar(mname.clone(), None, Kind::Str);
    match spans.get(&[mpath, &[METHOD_INPUT]].concat()) {
        Some(input) => b.scalar(input, None, Kind::Str),
        None => b.scalar(mname.clone(), None, Kind::Str),
    };
    let mut rpc = RpcRead {
        name: m.name.clone().unwrap_or_default(),
        node,
        input_type: m.input_type.clone().unwrap_or_default(),
        http: Vec::new(),
        idempotency: None,
    };
    let options = m
        .options
        .as_ref()
        .map(|o| o.uninterpreted_option.as_slice())
        .unwrap_or_default();
    for (oi, o) in options.iter().enumerate() {
        let opath = [mpath, &[METHOD_OPTIONS, UNINTERPRETED, oi as i32]].concat();
        let Some(ospan) = spans.get(&opath) else {
            continue;
        };
        match option_kind(o) {
            OptionKind::Http(sub) => match Reader::new(text, ospan.start).option() {
                Ok((_, name_span, value)) => {
                    b.scalar(name_span, None, Kind::Str);
                    let mut value_nodes = HashMap::new();
                    emit(b, &value, &mut value_nodes);
                    rpc.http
                        .extend(http_rules(sub.as_deref(), &value, &value_nodes));
                }
                Err((message, at)) => diags.push(rl001_invalid_syntax::in_format(
                    doc,
                    FORMAT,
                    &format!("in `option (google.api.http)`: {message}"),
                    at,
                )),
            },
            OptionKind::Idempotency(level) => {
                if let Ok((_, name_span, value)) = Reader::new(text, ospan.start).option() {
                    b.scalar(name_span, None, Kind::Str);
                    let v = b.scalar(value.span(), None, Kind::Str);
                    if let Some(level) = level {
                        rpc.idempotency = Some((level, v));
                    }
                }
            }
            OptionKind::Other => {}
        }
    }
    b.close(mwhole.end);
    Some(rpc)
}

/// Parses `text`; an error is its message and byte. An editions file (`edition =
/// "2023";`), which the parser does not know yet, is read with that statement as
/// `syntax = "proto3";` (the grammar editions share: no labels needed, no groups):
/// only that line changes, so every other line keeps its positions. Editions allow
/// `default` values where proto3 does not: such a file is left out without a finding
/// (`Err(None)`), never reported as a syntax error it does not have.
fn parse(name: &str, text: &str) -> Result<FileDescriptorProto, Option<(String, usize)>> {
    let error = |e: protox_parse::ParseError, text: &str| {
        (e.to_string(), e.span().map_or(text.len(), |s| s.start))
    };
    let first = match protox_parse::parse(name, text) {
        Ok(fd) => return Ok(fd),
        Err(e) => error(e, text),
    };
    let Some(statement) = edition_statement(text) else {
        return Err(Some(first));
    };
    const SYNTAX: &str = "syntax = \"proto3\";";
    let rewritten = format!(
        "{}{SYNTAX}{}",
        &text[..statement.start],
        &text[statement.end..]
    );
    protox_parse::parse(name, &rewritten).map_err(|e| {
        let (message, at) = error(e, &rewritten);
        if message == "default values are not allowed in proto3" {
            return None;
        }
        // Back to the original text's bytes.
        let at = if at >= statement.start + SYNTAX.len() {
            at - SYNTAX.len() + (statement.end - statement.start)
        } else {
            at.min(statement.start)
        };
        Some((message, at.min(text.len())))
    })
}

/// The bytes of an `edition = "...";` statement on a line of its own.
fn edition_statement(text: &str) -> Option<Range<usize>> {
    static EDITION: OnceLock<regex::Regex> = OnceLock::new();
    let re = EDITION.get_or_init(|| {
        regex::Regex::new(r#"(?m)^[ \t]*(edition[ \t]*=[ \t]*"[^"\n]*"[ \t]*;)"#)
            .expect("a valid regex")
    });
    re.captures(text)?.get(1).map(|m| m.range())
}

/// Records `m` (and its nested messages) in `messages` by full name; a message with
/// a `string request_id` field gets an entry in the tree (its name token -> {field
/// name token: type token}) and the field's node (the type token, located at the
/// field name).
fn read_message(
    b: &mut TreeBuilder<'_>,
    spans: &Spans,
    m: &DescriptorProto,
    scope: &str,
    path: Vec<i32>,
    messages: &mut Vec<(String, Option<NodeId>)>,
) {
    let name = m.name.clone().unwrap_or_default();
    let full = qualify(scope, &name);
    let request_id = m
        .field
        .iter()
        .position(|f| f.name.as_deref() == Some("request_id") && f.r#type == Some(TYPE_STRING));
    let mut entry = None;
    if let Some(fi) = request_id {
        let fpath = [&path[..], &[MESSAGE_FIELD, fi as i32]].concat();
        let name_span = spans.get(&[&path[..], &[MESSAGE_NAME]].concat());
        let field_span = spans.get(&[&fpath[..], &[FIELD_NAME]].concat());
        if let (Some(name_span), Some(field_span)) = (name_span, field_span) {
            b.scalar(name_span.clone(), None, Kind::Str);
            b.open_map(name_span.start);
            b.scalar(field_span.clone(), None, Kind::Str);
            let ty = spans
                .get(&[&fpath[..], &[FIELD_TYPE]].concat())
                .unwrap_or(field_span.clone());
            // The value node: located at its key, the field name.
            entry = Some(b.scalar(ty, None, Kind::Str));
            b.close(field_span.end);
        }
    }
    messages.push((full.clone(), entry));
    for (ni, nested) in m.nested_type.iter().enumerate() {
        let npath = [&path[..], &[MESSAGE_NESTED, ni as i32]].concat();
        read_message(b, spans, nested, &full, npath, messages);
    }
}

/// `scope.name`, or `name` at the top.
pub fn qualify(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        name.to_string()
    } else {
        format!("{scope}.{name}")
    }
}

enum OptionKind {
    /// `(google.api.http)`, with the sub-field when the name goes on
    /// (`(google.api.http).get`).
    Http(Option<String>),
    /// `idempotency_level`, with the level when it is one that says something
    /// (`IDEMPOTENCY_UNKNOWN` and unknown identifiers say nothing).
    Idempotency(Option<IdempotencyLevel>),
    Other,
}

fn option_kind(o: &UninterpretedOption) -> OptionKind {
    let parts = &o.name;
    match parts.first() {
        Some(p) if p.is_extension && p.name_part.trim_start_matches('.') == "google.api.http" => {
            match parts.len() {
                1 => OptionKind::Http(None),
                2 if !parts[1].is_extension => OptionKind::Http(Some(parts[1].name_part.clone())),
                _ => OptionKind::Other,
            }
        }
        Some(p) if !p.is_extension && p.name_part == "idempotency_level" && parts.len() == 1 => {
            OptionKind::Idempotency(match o.identifier_value.as_deref() {
                Some("NO_SIDE_EFFECTS") => Some(IdempotencyLevel::NoSideEffects),
                Some("IDEMPOTENT") => Some(IdempotencyLevel::Idempotent),
                _ => None,
            })
        }
        _ => OptionKind::Other,
    }
}

/// Adds `value` to the tree, recording each value's node by its first byte.
fn emit(b: &mut TreeBuilder<'_>, value: &Value, nodes: &mut HashMap<usize, NodeId>) {
    let span = value.span();
    let node = match value {
        Value::Str(s, span) => b.scalar(span.clone(), Some(s.clone()), Kind::Str),
        Value::Scalar(_, span) => b.scalar(span.clone(), None, Kind::Str),
        Value::Message(fields, span) => {
            let n = b.open_map(span.start);
            emit_fields(b, fields, nodes);
            b.close(span.end);
            n
        }
        Value::List(items, span) => {
            let n = b.open_seq(span.start);
            for i in items {
                emit(b, i, nodes);
            }
            b.close(span.end);
            n
        }
    };
    nodes.insert(span.start, node);
}

fn emit_fields(b: &mut TreeBuilder<'_>, fields: &[Field], nodes: &mut HashMap<usize, NodeId>) {
    for f in fields {
        b.scalar(f.name_span.clone(), None, Kind::Str);
        emit(b, &f.value, nodes);
    }
}

/// The HTTP rules of a `google.api.http` value: the rule itself, then its
/// `additional_bindings` (one level, as http.proto allows). `sub` is the field
/// named in the option name (`(google.api.http).get = "..."`), if any.
fn http_rules(
    sub: Option<&str>,
    value: &Value,
    nodes: &HashMap<usize, NodeId>,
) -> Vec<(String, String, NodeId)> {
    let mut out = Vec::new();
    match sub {
        None => {
            if let Value::Message(fields, _) = value {
                rule_of(fields, nodes, &mut out);
                for f in fields.iter().filter(|f| f.name == "additional_bindings") {
                    let bindings: Vec<&Value> = match &f.value {
                        Value::List(items, _) => items.iter().collect(),
                        v => vec![v],
                    };
                    for binding in bindings {
                        if let Value::Message(inner, _) = binding {
                            rule_of(inner, nodes, &mut out);
                        }
                    }
                }
            }
        }
        Some(sub) => {
            let field = Field {
                name: sub.to_string(),
                name_span: value.span(),
                value: value.clone(),
            };
            rule_of(std::slice::from_ref(&field), nodes, &mut out);
        }
    }
    out
}

/// The pattern of one `HttpRule` message (its first `get`/`put`/`post`/`delete`/
/// `patch`/`custom` field: `pattern` is a oneof).
fn rule_of(
    fields: &[Field],
    nodes: &HashMap<usize, NodeId>,
    out: &mut Vec<(String, String, NodeId)>,
) {
    for f in fields {
        let node = |v: &Value| nodes.get(&v.span().start).copied();
        if VERBS.contains(&f.name.as_str()) {
            if let (Value::Str(template, _), Some(n)) = (&f.value, node(&f.value)) {
                out.push((f.name.to_ascii_uppercase(), template.clone(), n));
                return;
            }
        }
        if f.name == "custom" {
            if let (Value::Message(inner, _), Some(n)) = (&f.value, node(&f.value)) {
                let get = |key: &str| {
                    inner.iter().find_map(|g| match &g.value {
                        Value::Str(s, _) if g.name == key => Some(s.clone()),
                        _ => None,
                    })
                };
                if let (Some(kind), Some(path)) = (get("kind"), get("path")) {
                    out.push((kind, path, n));
                    return;
                }
            }
        }
    }
}

/// Source positions of the parsed file: descriptor path -> byte range.
struct Spans {
    by_path: HashMap<Vec<i32>, Range<usize>>,
}

impl Spans {
    fn new(text: &str, fd: &FileDescriptorProto) -> Spans {
        // Lines as the parser counts them: split at '\n', columns in bytes.
        let mut starts = vec![0usize];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        let byte = |line: i32, col: i32| -> Option<usize> {
            let start = *starts.get(usize::try_from(line).ok()?)?;
            let at = start.checked_add(usize::try_from(col).ok()?)?;
            // A position off a character boundary (never from the parser on the
            // text it read) is dropped rather than sliced.
            (at <= text.len() && text.is_char_boundary(at)).then_some(at)
        };
        let mut by_path = HashMap::new();
        // Only the positions the index uses: hashing every element's path costs more
        // than parsing (googleapis files hold thousands of fields).
        for loc in fd
            .source_code_info
            .iter()
            .flat_map(|i| &i.location)
            .filter(|l| wanted(fd, &l.path))
        {
            let range = match loc.span[..] {
                [l, c, ec] => byte(l, c).zip(byte(l, ec)),
                [l, c, el, ec] => byte(l, c).zip(byte(el, ec)),
                _ => None,
            };
            if let Some((s, e)) = range {
                by_path.entry(loc.path.clone()).or_insert(s..e.max(s));
            }
        }
        Spans { by_path }
    }

    fn get(&self, path: &[i32]) -> Option<Range<usize>> {
        self.by_path.get(path).cloned()
    }
}

/// Whether the index needs the position of the element at `path`: anything in a
/// service; a message's name and its `request_id` field's name and type when it has
/// such a field.
fn wanted(fd: &FileDescriptorProto, path: &[i32]) -> bool {
    let index = |i: &i32| usize::try_from(*i).ok();
    match path {
        [FILE_SERVICE, ..] => true,
        [FILE_MESSAGE_TYPE, i, rest @ ..] => {
            let Some(mut m) = index(i).and_then(|i| fd.message_type.get(i)) else {
                return false;
            };
            let mut rest = rest;
            loop {
                match rest {
                    [MESSAGE_NESTED, j, more @ ..] => {
                        match index(j).and_then(|j| m.nested_type.get(j)) {
                            Some(n) => m = n,
                            None => return false,
                        }
                        rest = more;
                    }
                    [MESSAGE_NAME] => return m.field.iter().any(is_request_id),
                    [MESSAGE_FIELD, f, FIELD_NAME | FIELD_TYPE] => {
                        return index(f)
                            .and_then(|f| m.field.get(f))
                            .is_some_and(is_request_id)
                    }
                    _ => return false,
                }
            }
        }
        _ => false,
    }
}

/// AIP-155: a field `string request_id`.
fn is_request_id(f: &prost_types::FieldDescriptorProto) -> bool {
    f.name.as_deref() == Some("request_id") && f.r#type == Some(TYPE_STRING)
}
