//! Spring property sources (`application*.yml`/`.yaml`/`.properties`,
//! `bootstrap*`): the same located view of both formats, so that the Spring
//! importers (Resilience4j, Spring Cloud Gateway) ask one question one way
//! (`layers.md` "Recognising files"; Spring Boot "Externalized Configuration").
//!
//! - **One normalised tree per document.** YAML documents (every one of the stream:
//!   `stream::documents`) and `.properties` documents (Java properties syntax, with
//!   Spring's `#---` separators) are rebuilt with [`TreeBuilder`] into nested
//!   mappings: a dotted key (`resilience4j.retry:`, `gateway.server.webflux:`, or
//!   every properties key) becomes one mapping per segment, `[i]` indexes become
//!   sequences (`routes[0].uri`), `[a.b]` keeps a dotted map key whole. Keys that
//!   name the same property under relaxed binding ([`relaxed_eq`]: camelCase,
//!   kebab-case, underscores, any case) merge into one mapping, the first spelling
//!   kept. Every key and value keeps the byte span of its real text, so a finding
//!   points at the real `line:col` (a segment of a dotted key points at that
//!   segment).
//! - **Profiles.** A document with `spring.config.activate.on-profile` (or the legacy
//!   `spring.profiles: x`) applies only under that profile; a file named
//!   `application-<profile>.*` holds that profile's documents. [`variants`] merges
//!   the documents Spring would merge: the base (documents without a profile), and per
//!   profile the base then that profile's documents (maps merge key by key, a later
//!   list replaces an earlier one, as Spring binds them).
//! - **Placeholders.** [`resolve`] takes `${VAR:default}`'s default; `${VAR}` with no
//!   default leaves the value unknown ([`Resolved::Unknown`]): the caller must say so
//!   in its finding, never guess.
//!
//! Never panics on input: a YAML syntax error is RL001 (from the loader's error), a
//! malformed `\uXXXX` escape in a properties file is RL001 at the escape.

use crate::diagnostic::Diagnostic;
use crate::source::loader::Loaded;
use crate::source::refs::At;
use crate::source::rl001_invalid_syntax;
use crate::source::tree::{core_schema_kind, Kind, NodeId, Tree, TreeBuilder};
use std::borrow::Cow;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

/// One Spring document (or merged variant): a normalised located tree over the real
/// file's text.
#[derive(Debug, Clone)]
pub struct SpringDoc {
    /// The file with the normalised tree (same text and path as the real file).
    pub doc: Arc<Loaded>,
    /// The root mapping.
    pub root: NodeId,
    /// The profile this document or variant applies under, with the node that says so
    /// (the `on-profile` value; the root for a profile-specific file name); `None`
    /// for the base (active whatever the profile).
    pub profile: Option<(String, At)>,
}

/// Deepest nesting built (YAML nesting plus dotted-key segments); deeper values are
/// dropped, never a stack overflow.
const MAX_DEPTH: usize = 200;
/// Segments taken from one key; the rest stays in the last segment.
const MAX_SEGMENTS: usize = 32;
/// Nodes built from one document (aliases expand): beyond it values are dropped.
const MAX_NODES: usize = 500_000;
/// Largest `[i]` index accepted (a bigger one is a map key).
const MAX_INDEX: usize = 100_000;

/// True when two property names are the same under Spring's relaxed binding:
/// compared without `-` and `_`, ASCII case-insensitively (`maxAttempts`,
/// `max-attempts`, `max_attempts`, `MAXATTEMPTS`).
pub fn relaxed_eq(a: &str, b: &str) -> bool {
    fn norm(s: &str) -> impl Iterator<Item = char> + '_ {
        s.chars()
            .filter(|c| *c != '-' && *c != '_')
            .map(|c| c.to_ascii_lowercase())
    }
    norm(a).eq(norm(b))
}

/// The canonical form of a property name: lower case without `-` and `_`.
pub fn canonical(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '-' && *c != '_')
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The value of `key` in the mapping `map` under relaxed binding (the last match):
/// (key node, value node).
pub fn get_entry(tree: &Tree, map: NodeId, key: &str) -> Option<(NodeId, NodeId)> {
    if tree.kind(map) != Kind::Map {
        return None;
    }
    tree.raw_entries(map)
        .iter()
        .rev()
        .find(|&&(k, _)| tree.scalar(k).is_some_and(|s| relaxed_eq(s, key)))
        .copied()
}

/// The value node of `key` in `map` under relaxed binding.
pub fn get(tree: &Tree, map: NodeId, key: &str) -> Option<NodeId> {
    get_entry(tree, map, key).map(|(_, v)| v)
}

/// Every node where the dotted property `path` (`spring.cloud.gateway.routes`) is
/// written below `node`. In a normalised tree a path has at most one node; the list
/// form keeps callers simple.
pub fn find(tree: &Tree, node: NodeId, path: &str) -> Vec<NodeId> {
    let mut cur = node;
    for seg in path.split('.').filter(|s| !s.is_empty()) {
        match get(tree, cur, seg) {
            Some(next) => cur = next,
            None => return Vec::new(),
        }
    }
    vec![cur]
}

/// The entries of a mapping: (key text as written, key node, value node), in
/// source order. Map keys such as instance names keep their text.
pub fn entries(tree: &Tree, map: NodeId) -> Vec<(String, NodeId, NodeId)> {
    tree.raw_entries(map)
        .iter()
        .filter_map(|&(k, v)| tree.scalar(k).map(|s| (s.to_string(), k, v)))
        .collect()
}

/// A scalar with its placeholders resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// The value (defaults of `${VAR:default}` taken).
    Known(String),
    /// A `${VAR}` placeholder without a default: the value depends on the
    /// environment. Holds the placeholder as written.
    Unknown(String),
}

/// Resolves Spring placeholders in `text`: `${NAME:default}` becomes `default`
/// (nested placeholders in the default resolved too), `${NAME}` makes the value
/// [`Resolved::Unknown`]. Text without `${` is returned as is.
pub fn resolve(text: &str) -> Resolved {
    resolve_depth(text, 0)
}

fn resolve_depth(text: &str, depth: usize) -> Resolved {
    if !text.contains("${") {
        return Resolved::Known(text.to_string());
    }
    if depth > 8 {
        return Resolved::Unknown(text.to_string());
    }
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let inner_start = start + 2;
        // The matching `}`, counting nested `${`.
        let bytes = rest.as_bytes();
        let mut level = 1;
        let mut i = inner_start;
        let mut end = None;
        while i < bytes.len() {
            if bytes[i] == b'$' && bytes.get(i + 1) == Some(&b'{') {
                level += 1;
                i += 2;
                continue;
            }
            if bytes[i] == b'}' {
                level -= 1;
                if level == 0 {
                    end = Some(i);
                    break;
                }
            }
            i += 1;
        }
        let Some(end) = end else {
            // An unclosed `${` is plain text, as Spring leaves it.
            out.push_str(&rest[start..]);
            return Resolved::Known(out);
        };
        let inner = &rest[inner_start..end];
        // The default separator `:` at nesting level 0.
        let ib = inner.as_bytes();
        let mut lvl = 0;
        let mut sep = None;
        let mut j = 0;
        while j < ib.len() {
            match ib[j] {
                b'$' if ib.get(j + 1) == Some(&b'{') => {
                    lvl += 1;
                    j += 1;
                }
                b'}' => lvl -= 1,
                b':' if lvl == 0 => {
                    sep = Some(j);
                    break;
                }
                _ => {}
            }
            j += 1;
        }
        match sep {
            Some(j) => match resolve_depth(&inner[j + 1..], depth + 1) {
                Resolved::Known(d) => out.push_str(&d),
                Resolved::Unknown(_) => return Resolved::Unknown(rest[start..=end].to_string()),
            },
            None => return Resolved::Unknown(rest[start..=end].to_string()),
        }
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    Resolved::Known(out)
}

/// The scalar text of `node` with placeholders resolved; `None` for a collection.
pub fn scalar(tree: &Tree, node: NodeId) -> Option<Resolved> {
    tree.scalar(node).map(resolve)
}

/// A Spring `Duration` in ms (Spring Boot "Converting Durations", `DurationStyle`):
/// a bare integer is milliseconds (the default `@DurationUnit`), the simple form an
/// integer with a unit `ns`, `us`, `ms`, `s`, `m`, `h`, `d` (any case: `100ms`,
/// `2s`), or ISO-8601 (`PT0.5S`, `PT1M30S`, `P1D`). `None` for anything else or a
/// negative duration (Spring fails to bind it), and for one `java.time.Duration`
/// cannot hold: a number beyond a Java `long`, or more than `Long.MAX_VALUE` seconds
/// (`Duration.of` throws `ArithmeticException`, and the application does not start).
pub fn duration(text: &str, bare_unit_ms: f64) -> Option<f64> {
    duration_unbounded(text, bare_unit_ms).filter(|ms| ms / 1000.0 <= i64::MAX as f64)
}

fn duration_unbounded(text: &str, bare_unit_ms: f64) -> Option<f64> {
    let s = text.trim();
    if s.is_empty() {
        return None;
    }
    let unsigned = s.trim_start_matches(['+', '-']);
    if unsigned.starts_with(['P', 'p']) {
        if s.starts_with('-') {
            return None;
        }
        return iso_duration(unsigned);
    }
    let digits = s.trim_start_matches('+');
    let split = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    let (number, unit) = digits.split_at(split);
    if number.is_empty() {
        return None;
    }
    // `Long.parseLong`: a number beyond a Java `long` does not bind.
    let n = number.parse::<i64>().ok()? as f64;
    let factor = match unit.to_ascii_lowercase().as_str() {
        "" => bare_unit_ms,
        "ns" => 0.000_001,
        "us" => 0.001,
        "ms" => 1.0,
        "s" => 1000.0,
        "m" => 60_000.0,
        "h" => 3_600_000.0,
        "d" => 86_400_000.0,
        _ => return None,
    };
    Some(n * factor)
}

/// ISO-8601 `PnDTnHnMn.nS` (`java.time.Duration.parse`), non-negative.
fn iso_duration(s: &str) -> Option<f64> {
    let upper = s.to_ascii_uppercase();
    let rest = upper.strip_prefix('+').unwrap_or(&upper);
    if rest.starts_with('-') {
        return None;
    }
    let rest = rest.strip_prefix('P')?;
    let (days, time) = match rest.split_once('T') {
        Some((d, t)) => (d, Some(t)),
        None => (rest, None),
    };
    let mut total = 0.0;
    let mut parts = 0;
    if !days.is_empty() {
        let n: f64 = days.strip_suffix('D')?.parse().ok()?;
        total += n * 86_400_000.0;
        parts += 1;
    }
    if let Some(mut t) = time {
        if t.is_empty() {
            return None;
        }
        for (unit, factor) in [('H', 3_600_000.0), ('M', 60_000.0), ('S', 1000.0)] {
            if let Some(i) = t.find(unit) {
                let n: f64 = t[..i].parse().ok()?;
                total += n * factor;
                parts += 1;
                t = &t[i + 1..];
            }
        }
        if !t.is_empty() {
            return None;
        }
    }
    (parts > 0 && total >= 0.0 && total.is_finite()).then_some(total)
}

/// A boolean as Spring converts a string: `true`/`on`/`yes`/`1` and
/// `false`/`off`/`no`/`0`, any case.
pub fn boolean(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" | "on" | "yes" | "1" => Some(true),
        "false" | "off" | "no" | "0" => Some(false),
        _ => None,
    }
}

/// True when `doc` is a Spring property file retrylint reads: named
/// `application*`/`bootstrap*` with a `.yml`, `.yaml` or `.properties` extension, or
/// any such file whose content sets `resilience4j.retry` or `spring.cloud.gateway`
/// (in any spelling). A Kubernetes manifest (`apiVersion` + `kind`) or an OpenAPI
/// document is never one.
pub fn recognize(doc: &Loaded) -> bool {
    let Some(name) = doc.file.path.file_name() else {
        return false;
    };
    let name = name.to_string_lossy().to_ascii_lowercase();
    let ext = name.rsplit('.').next().unwrap_or("");
    let stem = name.rsplit_once('.').map_or(name.as_str(), |(s, _)| s);
    let by_name = ["application", "bootstrap"]
        .iter()
        .any(|p| stem == *p || stem.starts_with(&format!("{p}-")));
    match ext {
        "properties" => by_name || mentions_spring_retry(&doc.file.text),
        "yml" | "yaml" => {
            let Ok(tree) = &doc.tree else { return false };
            let Some(root) = tree.root() else {
                return false;
            };
            if tree.kind(root) != Kind::Map {
                return false;
            }
            let has = |k: &str| tree.get(root, k).is_some();
            if (has("apiVersion") && has("kind")) || has("openapi") || has("swagger") {
                return false;
            }
            if by_name {
                return true;
            }
            if !mentions_spring_words(&doc.file.text) {
                return false;
            }
            // Every document of the stream, normalised (dotted keys, any spelling).
            let Ok(list) = documents(&Arc::new(Loaded::new(
                doc.file.clone(),
                Tree::parse(doc.file.text.clone())
                    .map_err(crate::source::loader::LoadError::Syntax),
            ))) else {
                return false;
            };
            list.iter().any(|d| {
                d.doc.tree.as_ref().is_ok_and(|t| {
                    !find(t, d.root, "resilience4j.retry").is_empty()
                        || !find(t, d.root, "spring.cloud.gateway").is_empty()
                })
            })
        }
        _ => false,
    }
}

/// True when the text names `resilience4j.retry` or `spring.cloud.gateway` as a
/// properties key would (any case, `-`/`_` ignored).
fn mentions_spring_retry(text: &str) -> bool {
    let t = canonical(text);
    t.contains("resilience4j.retry") || t.contains("spring.cloud.gateway")
}

/// A cheap look before parsing: the words a Spring retry config must hold.
fn mentions_spring_words(text: &str) -> bool {
    let t = canonical(text);
    (t.contains("resilience4j") && t.contains("retry")) || t.contains("gateway")
}

/// True when text that did not parse looks like a Spring retry config (its syntax
/// error is then reported, not skipped).
pub fn looks_like_spring_text(text: &str) -> bool {
    if mentions_spring_retry(text) {
        return true;
    }
    let t = canonical(text);
    (t.contains("resilience4j") && t.contains("retry"))
        || (t.contains("spring") && t.contains("gateway") && t.contains("routes"))
}

/// The profile a file's name gives its documents: `application-prod.yml` → `prod`.
fn file_profile(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_string_lossy().to_string();
    let stem = name.rsplit_once('.').map_or(name.as_str(), |(s, _)| s);
    let lower = stem.to_ascii_lowercase();
    for prefix in ["application-", "bootstrap-"] {
        if lower.starts_with(prefix) && stem.len() > prefix.len() {
            return Some(stem[prefix.len()..].to_string());
        }
    }
    None
}

/// True when `doc` is read as Java properties (by its `.properties` extension).
pub fn is_properties(doc: &Loaded) -> bool {
    doc.file
        .path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("properties"))
}

/// A Spring file read once: its [`variants`], its documents that apply under a
/// profile, and RL002 for every key it repeats within one document.
pub struct Read {
    /// The variants Spring would bind ([`variants`]).
    pub variants: Vec<SpringDoc>,
    /// The documents of [`documents`] that apply under a profile, in file order:
    /// what the importers ask of documents is which profile writes what, never
    /// asked of a base document (whose tree, beside its variant's, was a second
    /// copy of a large gateway's routes; issue 43).
    pub profile_documents: Vec<SpringDoc>,
    /// RL002: a key written twice in one document (YAML mapping keys, properties
    /// keys; a later document may set a key again).
    pub duplicates: Vec<Diagnostic>,
}

/// Reads a Spring file once into its variants, documents and repeated keys. `Err`
/// with RL001 at the first syntax error.
pub fn read(doc: &Arc<Loaded>) -> Result<Read, Box<Diagnostic>> {
    let (raw, duplicates) = raw_documents(doc)?;
    let variants = variants_of(doc, &raw);
    let fallback = file_profile(&doc.file.path);
    let profile_documents = raw
        .iter()
        .filter(|v| fallback.is_some() || profile_of(v).is_some())
        .map(|v| build(doc, v, fallback.as_deref()))
        .collect();
    Ok(Read {
        variants,
        profile_documents,
        duplicates,
    })
}

/// Every document of a Spring file, each as its own normalised tree, in file order,
/// with its profile. `Err` with RL001 at the first syntax error.
pub fn documents(doc: &Arc<Loaded>) -> Result<Vec<SpringDoc>, Box<Diagnostic>> {
    Ok(documents_of(doc, &raw_documents(doc)?.0))
}

/// A property whose node [`documents_reading`] must build as [`documents`] would.
#[derive(Debug, Clone, Copy)]
pub struct Wanted<'a> {
    /// The dotted property (`spring.application.name`), relaxed names.
    pub path: &'a str,
    /// True when only whether the property is written matters (a `find` that is
    /// empty or not), not its value.
    pub presence_only: bool,
}

/// The properties that say a document's profile ([`profile_of`]), kept by
/// [`documents_reading`] so that its documents' profiles are those of [`documents`].
const PROFILE_KEYS: [Wanted<'static>; 2] = [
    Wanted {
        path: "spring.config.activate.on-profile",
        presence_only: false,
    },
    Wanted {
        path: "spring.profiles",
        presence_only: false,
    },
];

/// [`documents`] for a caller that asks only about the properties `wanted`: the same
/// documents, profiles and errors, and the same answer of [`find`] and [`scalar`]
/// for each wanted property, but of a `.properties` file only the keys that decide
/// those answers are built. A large gateway `application.properties` asked for its
/// application name is not built a second time beside its imported routes (issue
/// 43: that parse was 21 of 48 MB at its peak). A YAML file is read whole, as its
/// loader has parsed it already.
pub fn documents_reading(
    doc: &Arc<Loaded>,
    wanted: &[Wanted<'_>],
) -> Result<Vec<SpringDoc>, Box<Diagnostic>> {
    if !is_properties(doc) {
        return documents(doc);
    }
    let mut all: Vec<Wanted<'_>> = wanted.to_vec();
    all.extend(PROFILE_KEYS);
    let paths: Vec<(Vec<&str>, bool)> = all
        .iter()
        .map(|w| {
            let segs = w.path.split('.').filter(|s| !s.is_empty()).collect();
            (segs, w.presence_only)
        })
        .collect();
    let read = properties_read(&doc.file.text, Some(&paths))
        .map_err(|(msg, offset)| properties_error(doc, &msg, offset))?;
    Ok(documents_of(doc, &read.documents))
}

/// RL001 for a properties syntax error at byte `offset`.
fn properties_error(doc: &Arc<Loaded>, msg: &str, offset: usize) -> Box<Diagnostic> {
    Box::new(rl001_invalid_syntax::in_format(
        doc,
        "Java properties",
        msg,
        offset,
    ))
}

fn documents_of(doc: &Arc<Loaded>, raw: &[V]) -> Vec<SpringDoc> {
    let fallback = file_profile(&doc.file.path);
    raw.iter()
        .map(|v| build(doc, v, fallback.as_deref()))
        .collect()
}

/// The variants Spring would bind from this file: the base (documents without a
/// profile, merged in order) and, per profile in order of first appearance, the
/// base merged with that profile's documents. A file holding only profile documents
/// has no base variant. `Err` with RL001 at the first syntax error.
pub fn variants(doc: &Arc<Loaded>) -> Result<Vec<SpringDoc>, Box<Diagnostic>> {
    Ok(variants_of(doc, &raw_documents(doc)?.0))
}

fn variants_of(doc: &Arc<Loaded>, raw: &[V]) -> Vec<SpringDoc> {
    let fallback = file_profile(&doc.file.path);
    let profiles: Vec<Option<String>> = raw
        .iter()
        .map(|v| profile_of(v).map(|(p, _)| p).or_else(|| fallback.clone()))
        .collect();
    let mut out = Vec::new();
    let base = merged(
        raw.iter()
            .zip(&profiles)
            .filter(|(_, p)| p.is_none())
            .map(|(v, _)| v),
    );
    if let Some(b) = &base {
        out.push(build(doc, b, None));
    }
    drop(base);
    let mut seen: Vec<String> = Vec::new();
    for p in profiles.iter().flatten() {
        if seen.contains(p) {
            continue;
        }
        seen.push(p.clone());
        let of_profile = raw
            .iter()
            .zip(&profiles)
            .filter(|(_, q)| q.is_none() || q.as_ref() == Some(p))
            .map(|(v, _)| v);
        if let Some(m) = merged(of_profile) {
            let mut d = build(doc, &m, fallback.as_deref());
            // The merged tree's `on-profile` is that of the profile's last document.
            if d.profile.as_ref().map(|(n, _)| n) != Some(p) {
                d.profile = Some((p.clone(), At::new(&d.doc, d.root)));
            }
            out.push(d);
        }
    }
    out
}

/// The documents `docs` merged in order, as Spring binds them; `None` for none. A
/// single document is not copied (a gateway's one document is most of its file).
fn merged<'v>(mut docs: impl Iterator<Item = &'v V>) -> Option<Cow<'v, V>> {
    let first = docs.next()?;
    let mut acc = Cow::Borrowed(first);
    for v in docs {
        merge(acc.to_mut(), v.clone(), true);
    }
    Some(acc)
}

/// The profile a document declares: `spring.config.activate.on-profile`, else the
/// legacy `spring.profiles` when it is a name or a list (not the `active`/`include`
/// mapping).
fn profile_of(v: &V) -> Option<(String, Range<usize>)> {
    let lookup = |path: &[&str]| -> Option<&V> {
        let mut cur = v;
        for seg in path {
            let V::Map(m) = cur else { return None };
            cur = m
                .entries
                .iter()
                .rev()
                .find(|e| relaxed_eq(&e.key, seg))
                .map(|e| &e.value)?;
        }
        Some(cur)
    };
    let text = |x: &V| -> Option<(String, Range<usize>)> {
        match x {
            V::Leaf(l) if l.kind != Kind::Null => Some((l.text.trim().to_string(), l.span.clone())),
            V::Seq(s) => {
                let names: Vec<String> = s
                    .items
                    .iter()
                    .filter_map(|(_, i)| match i {
                        V::Leaf(l) => Some(l.text.trim().to_string()),
                        _ => None,
                    })
                    .collect();
                (!names.is_empty()).then(|| (names.join(","), s.start..s.start))
            }
            _ => None,
        }
    };
    lookup(&["spring", "config", "activate", "on-profile"])
        .and_then(text)
        .or_else(|| lookup(&["spring", "profiles"]).and_then(text))
        .filter(|(p, _)| !p.is_empty())
}

/// What Spring does with a key written twice in one YAML document (the end of the
/// RL002 message).
const YAML_REPEAT: &str = "Spring Boot's YAML loader refuses a duplicate key, so the application does not start; retrylint reads the last.";

/// The documents of the file as intermediate values, before profiles, and RL002
/// for every key repeated within one of them.
fn raw_documents(doc: &Arc<Loaded>) -> Result<(Vec<V>, Vec<Diagnostic>), Box<Diagnostic>> {
    if is_properties(doc) {
        let read = properties_read(&doc.file.text, None)
            .map_err(|(msg, offset)| properties_error(doc, &msg, offset))?;
        let duplicates = read
            .repeated
            .into_iter()
            .map(|(key, first, again)| {
                crate::source::rl002_duplicate_key::repeated(
                    &doc.file,
                    &key,
                    first,
                    again,
                    "Java properties (and Spring) keep the last value, so the first is thrown away.",
                )
            })
            .collect();
        return Ok((read.documents, duplicates));
    }
    let docs = super::super::stream::documents(doc)?;
    let mut out = Vec::new();
    let mut duplicates = Vec::new();
    for d in docs {
        duplicates.extend(crate::source::rl002_duplicate_key::check_config(
            &d,
            YAML_REPEAT,
        ));
        let Ok(tree) = &d.tree else { continue };
        let Some(root) = tree.root() else { continue };
        let mut budget = MAX_NODES;
        out.push(from_yaml(tree, root, 0, &mut budget));
    }
    Ok((out, duplicates))
}

/// Builds the located tree of one intermediate document.
fn build(doc: &Arc<Loaded>, v: &V, fallback_profile: Option<&str>) -> SpringDoc {
    let text = doc.file.text.clone();
    let mut b = TreeBuilder::new(&text);
    emit(&mut b, &text, v);
    let tree = b.finish(text.clone());
    let root = tree.root().unwrap_or(NodeId(0));
    let loaded = Arc::new(Loaded::new(doc.file.clone(), Ok(tree)));
    let profile = match profile_of(v) {
        Some((name, _)) => {
            let tree = loaded.tree.as_ref().ok();
            let node = tree.and_then(|t| {
                find(t, root, "spring.config.activate.on-profile")
                    .first()
                    .copied()
                    .or_else(|| find(t, root, "spring.profiles").first().copied())
            });
            Some((name, At::new(&loaded, node.unwrap_or(root))))
        }
        None => fallback_profile.map(|p| (p.to_string(), At::new(&loaded, root))),
    };
    SpringDoc {
        doc: loaded,
        root,
        profile,
    }
}

/// The copy a scalar of value `value` at `span` needs in the tree: none when the
/// file says it verbatim there (most keys and values of a properties file: a copy of
/// each was a string per key and value of a large gateway's routes, kept as long as
/// its findings).
fn owned(text: &str, span: &Range<usize>, value: &str) -> Option<String> {
    (text.get(span.clone()) != Some(value)).then(|| value.to_string())
}

// ---------------------------------------------------------------------------
// The intermediate structure: nested values with spans into the real text.

#[derive(Debug, Clone)]
struct Leaf {
    span: Range<usize>,
    text: String,
    kind: Kind,
}

#[derive(Debug, Clone)]
struct Entry {
    key: String,
    key_span: Range<usize>,
    value: V,
}

#[derive(Debug, Clone)]
struct MapV {
    start: usize,
    end: usize,
    entries: Vec<Entry>,
    /// Canonical key (relaxed binding) -> index in `entries`: a file with many
    /// keys stays linear.
    index: std::collections::HashMap<String, usize>,
}

impl MapV {
    fn new(start: usize, end: usize) -> MapV {
        MapV {
            start,
            end,
            entries: Vec::new(),
            index: std::collections::HashMap::new(),
        }
    }

    fn position(&self, name: &str) -> Option<usize> {
        self.index.get(&canonical(name)).copied()
    }

    fn push(&mut self, entry: Entry) -> usize {
        let i = self.entries.len();
        self.index.entry(canonical(&entry.key)).or_insert(i);
        self.entries.push(entry);
        i
    }
}

#[derive(Debug, Clone)]
struct SeqV {
    start: usize,
    end: usize,
    /// (index, item), sorted by index.
    items: Vec<(usize, V)>,
    /// Built from `[i]` keys: later indexed keys merge item by item.
    indexed: bool,
}

#[derive(Debug, Clone)]
enum V {
    Leaf(Leaf),
    Map(MapV),
    Seq(SeqV),
}

/// One segment of a property key: a name or an `[i]` index, with its span.
#[derive(Debug, Clone)]
enum Seg {
    Key(String, Range<usize>),
    Index(usize, Range<usize>),
}

/// Splits a key into segments. `chars` are the decoded characters of the key with
/// the byte span of each in the real text.
fn segments(chars: &[(char, Range<usize>)]) -> Vec<Seg> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut cur = String::new();
    let mut cur_span: Option<Range<usize>> = None;
    let flush = |cur: &mut String, span: &mut Option<Range<usize>>, out: &mut Vec<Seg>| {
        if let Some(s) = span.take() {
            out.push(Seg::Key(std::mem::take(cur), s));
        }
    };
    while i < chars.len() {
        let (c, ref span) = chars[i];
        match c {
            '.' if out.len() + 1 < MAX_SEGMENTS => {
                flush(&mut cur, &mut cur_span, &mut out);
                i += 1;
            }
            '[' => {
                // `[digits]` is an index; `[anything]` a map key kept whole.
                let close = chars[i + 1..].iter().take(256).position(|(c, _)| *c == ']');
                match close {
                    Some(off) => {
                        flush(&mut cur, &mut cur_span, &mut out);
                        let inner: String =
                            chars[i + 1..i + 1 + off].iter().map(|(c, _)| *c).collect();
                        let span = span.start..chars[i + 1 + off].1.end;
                        match inner.trim().parse::<usize>() {
                            Ok(n) if n <= MAX_INDEX => out.push(Seg::Index(n, span)),
                            _ => out.push(Seg::Key(inner, span)),
                        }
                        i += off + 2;
                    }
                    None => {
                        cur.push(c);
                        cur_span = Some(cur_span.map_or(span.clone(), |s| s.start..span.end));
                        i += 1;
                    }
                }
            }
            _ => {
                cur.push(c);
                cur_span = Some(cur_span.map_or(span.clone(), |s| s.start..span.end));
                i += 1;
            }
        }
    }
    flush(&mut cur, &mut cur_span, &mut out);
    if out.is_empty() {
        let at = chars.first().map_or(0..0, |(_, s)| s.clone());
        out.push(Seg::Key(String::new(), at));
    }
    out
}

/// The segments of a YAML key node: spans per segment for a plain key written as
/// its text, else the whole key span for each segment.
fn yaml_key_segments(tree: &Tree, key: NodeId) -> Option<Vec<Seg>> {
    let text = tree.scalar(key)?;
    let span = tree.span(key);
    let verbatim = tree.is_plain(key) && tree.text().get(span.clone()) == Some(text);
    let chars: Vec<(char, Range<usize>)> = if verbatim {
        text.char_indices()
            .map(|(i, c)| (c, span.start + i..span.start + i + c.len_utf8()))
            .collect()
    } else {
        text.chars().map(|c| (c, span.clone())).collect()
    };
    let mut segs = segments(&chars);
    if !verbatim {
        for s in &mut segs {
            match s {
                Seg::Key(_, sp) | Seg::Index(_, sp) => *sp = span.clone(),
            }
        }
    }
    Some(segs)
}

fn from_yaml(tree: &Tree, node: NodeId, depth: usize, budget: &mut usize) -> V {
    let span = tree.span(node);
    if depth > MAX_DEPTH || *budget == 0 {
        return V::Leaf(Leaf {
            span,
            text: String::new(),
            kind: Kind::Null,
        });
    }
    *budget -= 1;
    match tree.kind(node) {
        Kind::Map => {
            let mut m = MapV::new(span.start, span.end);
            for (k, v) in tree.entries(node) {
                let Some(segs) = yaml_key_segments(tree, k) else {
                    continue;
                };
                // Only `spring.*` and `resilience4j.*` are read: other top-level
                // keys are never built, so an alias bomb elsewhere in the file cannot
                // use up the node budget before the retry settings are reached.
                if depth == 0
                    && !matches!(segs.first(), Some(Seg::Key(name, _))
                        if relaxed_eq(name, "spring") || relaxed_eq(name, "resilience4j"))
                {
                    continue;
                }
                let child = from_yaml(tree, v, depth + segs.len(), budget);
                insert_map(&mut m, &segs, child, depth);
            }
            V::Map(m)
        }
        Kind::Seq => V::Seq(SeqV {
            start: span.start,
            end: span.end,
            items: tree
                .items(node)
                .iter()
                .enumerate()
                .map(|(i, &it)| (i, from_yaml(tree, it, depth + 1, budget)))
                .collect(),
            indexed: false,
        }),
        kind => V::Leaf(Leaf {
            span,
            text: tree.scalar(node).unwrap_or("").to_string(),
            kind,
        }),
    }
}

fn seg_span(s: &Seg) -> Range<usize> {
    match s {
        Seg::Key(_, sp) | Seg::Index(_, sp) => sp.clone(),
    }
}

/// Inserts `child` at `segs` below the mapping `m`, merging with what is there.
fn insert_map(m: &mut MapV, segs: &[Seg], child: V, depth: usize) {
    let Some((first, rest)) = segs.split_first() else {
        return;
    };
    let (name, span) = match first {
        Seg::Key(n, s) => (n.clone(), s.clone()),
        // An index directly below a mapping is a key of that text.
        Seg::Index(i, s) => (i.to_string(), s.clone()),
    };
    let pos = m.position(&name);
    if rest.is_empty() {
        match pos {
            Some(p) => {
                let e = &mut m.entries[p];
                if !mergeable(&e.value, &child, false) {
                    // A later definition replaces the earlier: it is where the
                    // value is written now.
                    e.key_span = span;
                }
                merge(&mut e.value, child, false);
            }
            None => {
                m.push(Entry {
                    key: name,
                    key_span: span,
                    value: child,
                });
            }
        }
        return;
    }
    let p = match pos {
        Some(p) => p,
        None => m.push(Entry {
            key: name,
            key_span: span.clone(),
            value: empty_for(&rest[0], span.start),
        }),
    };
    insert_value(&mut m.entries[p].value, rest, child, depth + 1);
}

/// An empty container for the segment that follows: a sequence for `[i]`.
fn empty_for(next: &Seg, start: usize) -> V {
    match next {
        Seg::Index(..) => V::Seq(SeqV {
            start,
            end: start,
            items: Vec::new(),
            indexed: true,
        }),
        Seg::Key(..) => V::Map(MapV::new(start, start)),
    }
}

fn insert_value(v: &mut V, segs: &[Seg], child: V, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let Some(first) = segs.first() else { return };
    match (first, &mut *v) {
        (Seg::Key(..), V::Map(m)) => insert_map(m, segs, child, depth),
        (Seg::Index(i, span), V::Seq(s)) => {
            let i = *i;
            let rest = &segs[1..];
            // Items are kept sorted by index (each is inserted where it sorts), so
            // an index is found by bisection, not a scan per key (a properties file
            // of 8,000 `routes[i]` was quadratic).
            let pos = s.items.binary_search_by_key(&i, |(k, _)| *k);
            if rest.is_empty() {
                match pos {
                    Ok(p) => merge(&mut s.items[p].1, child, false),
                    Err(at) => s.items.insert(at, (i, child)),
                }
                return;
            }
            let p = match pos {
                Ok(p) => p,
                Err(at) => {
                    s.items.insert(at, (i, empty_for(&rest[0], span.start)));
                    at
                }
            };
            insert_value(&mut s.items[p].1, rest, child, depth + 1);
        }
        _ => {
            // A scalar where a container is needed (or the other container kind):
            // the later definition replaces it.
            *v = empty_for(first, seg_span(first).start);
            insert_value(v, segs, child, depth + 1);
        }
    }
}

/// Merges `new` into `old`: mappings key by key; sequences item by item when `new`
/// was built from `[i]` keys of one document, else (a YAML list, or a later
/// document: `across`) `new` replaces `old`; anything else is replaced.
fn merge(old: &mut V, new: V, across: bool) {
    match (&mut *old, new) {
        (V::Map(a), V::Map(b)) => {
            for e in b.entries {
                let seg = Seg::Key(e.key, e.key_span);
                if across {
                    let pos = match &seg {
                        Seg::Key(n, _) => a.position(n),
                        Seg::Index(..) => None,
                    };
                    match pos {
                        Some(p) => {
                            // A later document's key is where the variant's value
                            // is written (a profile's instance points into its
                            // profile document).
                            let x = &mut a.entries[p];
                            if let Seg::Key(_, key_span) = &seg {
                                x.key_span = key_span.clone();
                            }
                            merge(&mut x.value, e.value, true);
                        }
                        None => {
                            if let Seg::Key(key, key_span) = seg {
                                a.push(Entry {
                                    key,
                                    key_span,
                                    value: e.value,
                                });
                            }
                        }
                    }
                } else {
                    insert_map(a, std::slice::from_ref(&seg), e.value, 0);
                }
            }
        }
        (V::Seq(a), V::Seq(b)) if b.indexed && !across => {
            for (i, item) in b.items {
                match a.items.binary_search_by_key(&i, |(k, _)| *k) {
                    Ok(p) => merge(&mut a.items[p].1, item, false),
                    Err(at) => a.items.insert(at, (i, item)),
                }
            }
        }
        (_, new) => *old = new,
    }
}

/// True when [`merge`] combines `old` and `new` rather than replacing `old`.
fn mergeable(old: &V, new: &V, across: bool) -> bool {
    match (old, new) {
        (V::Map(_), V::Map(_)) => true,
        (V::Seq(_), V::Seq(b)) => b.indexed && !across,
        _ => false,
    }
}

/// Adds `v` to the tree over the file's `text`.
fn emit(b: &mut TreeBuilder<'_>, text: &str, v: &V) {
    match v {
        V::Leaf(l) => {
            b.scalar(l.span.clone(), owned(text, &l.span, &l.text), l.kind);
        }
        V::Map(m) => {
            b.open_map(m.start);
            for e in &m.entries {
                b.scalar(
                    e.key_span.clone(),
                    owned(text, &e.key_span, &e.key),
                    Kind::Str,
                );
                emit(b, text, &e.value);
            }
            b.close(m.end);
        }
        V::Seq(s) => {
            b.open_seq(s.start);
            for (_, item) in &s.items {
                emit(b, text, item);
            }
            b.close(s.end);
        }
    }
}

// ---------------------------------------------------------------------------
// Java properties (java.util.Properties#load, Spring's OriginTrackedPropertiesLoader).

/// What [`properties_read`] found: the documents, and each key written twice in one
/// document (`(key, first span, repeated span)`, in file order).
struct PropertiesRead {
    documents: Vec<V>,
    repeated: Vec<(String, Range<usize>, Range<usize>)>,
}

/// The wanted properties of [`documents_reading`]: each as its segment names, and
/// whether only its presence matters.
type Paths<'a> = [(Vec<&'a str>, bool)];

/// The documents of a properties file (split at `#---`/`!---` lines), each as a
/// mapping, and its repeated keys. `Err((message, byte offset))` for a malformed
/// `\uXXXX` escape. With `wanted`, only what decides those properties is built
/// ([`pruned`]) and repeated keys are not looked for; every line is still read, so
/// the errors and the node budget are those of a whole read.
fn properties_read(
    text: &str,
    wanted: Option<&Paths<'_>>,
) -> Result<PropertiesRead, (String, usize)> {
    let mut docs: Vec<V> = Vec::new();
    let mut repeated = Vec::new();
    // The keys of the current document as written (escapes applied): first span.
    let mut seen: std::collections::HashMap<String, Range<usize>> =
        std::collections::HashMap::new();
    let mut cur = MapV::new(0, 0);
    let lines = natural_lines(text);
    let mut i = 0;
    let mut nodes = 0usize;
    while i < lines.len() {
        let (start, end) = lines[i];
        let line = &text[start..end];
        let trimmed = line.trim_start_matches([' ', '\t', '\x0c']);
        i += 1;
        if trimmed.is_empty() {
            continue;
        }
        if trimmed.starts_with('#') || trimmed.starts_with('!') {
            if matches!(trimmed.trim_end(), "#---" | "!---") {
                cur.end = start;
                docs.push(V::Map(std::mem::replace(&mut cur, MapV::new(end, end))));
                seen.clear();
            }
            continue;
        }
        // The logical line: natural lines joined while one ends in an odd number of
        // backslashes (the backslash and the next line's leading blanks dropped).
        let mut chars: Vec<(char, Range<usize>)> = Vec::new();
        let first = start + (line.len() - trimmed.len());
        let mut seg = (first, end);
        loop {
            let s = &text[seg.0..seg.1];
            let trailing = s.bytes().rev().take_while(|&c| c == b'\\').count();
            let continues = trailing % 2 == 1;
            let body_end = if continues { seg.1 - 1 } else { seg.1 };
            chars.extend(
                text[seg.0..body_end]
                    .char_indices()
                    .map(|(o, c)| (c, seg.0 + o..seg.0 + o + c.len_utf8())),
            );
            if !continues || i >= lines.len() {
                break;
            }
            let (ns, ne) = lines[i];
            i += 1;
            let next = &text[ns..ne];
            let t = next.trim_start_matches([' ', '\t', '\x0c']);
            seg = (ns + (next.len() - t.len()), ne);
        }
        let (key, value, value_span) = split_entry(&chars)?;
        if key.is_empty() {
            continue;
        }
        nodes += 1;
        if nodes > MAX_NODES {
            break;
        }
        if let (Some(a), Some(b), None) = (key.first(), key.last(), wanted) {
            let name: String = key.iter().map(|(c, _)| *c).collect();
            let span = a.1.start..b.1.end;
            match seen.get(&name) {
                Some(first) => repeated.push((name, first.clone(), span)),
                None => {
                    seen.insert(name, span);
                }
            }
        }
        let mut segs = segments(&key);
        if let Some(paths) = wanted {
            match pruned(&segs, paths) {
                Some(keep) => segs.truncate(keep),
                None => {
                    cur.end = end;
                    continue;
                }
            }
        }
        let value_text: String = value.iter().map(|(c, _)| *c).collect();
        let kind = match core_schema_kind(value_text.trim()) {
            Kind::Map | Kind::Seq => Kind::Str,
            k => k,
        };
        let leaf = V::Leaf(Leaf {
            span: value_span,
            text: value_text,
            kind,
        });
        cur.end = end;
        insert_map(&mut cur, &segs, leaf, 0);
    }
    cur.end = text.len();
    docs.push(V::Map(cur));
    Ok(PropertiesRead {
        documents: docs,
        repeated,
    })
}

/// How many leading segments of a key to build so that the wanted `paths` read as
/// in the whole tree; `None`: none (a top-level key of another name changes nothing
/// below the wanted ones).
///
/// A key's segments are kept up to the first one off every wanted path (that one
/// included: its parent's kind, mapping or sequence, is the key's to decide, and a
/// later key of the other kind replaces the parent). Past the end of a wanted path
/// one segment is kept when only its presence matters (the property stays written),
/// two when its value is read (whether it and each of its items are containers or
/// scalars). What lies deeper is never looked at by the wanted reads, and keys that
/// share a kept prefix merge into the same nodes as in the whole tree.
fn pruned(segs: &[Seg], paths: &Paths<'_>) -> Option<usize> {
    let mut keep = 0;
    for (path, presence_only) in paths {
        let matched = segs
            .iter()
            .zip(path)
            .take_while(|(seg, name)| matches!(seg, Seg::Key(n, _) if relaxed_eq(n, name)))
            .count();
        if matched == 0 {
            continue;
        }
        // Off the path (or short of its end) and past a presence-only end: one
        // segment; past a read value's end: two.
        let past = if matched == path.len() && !*presence_only {
            2
        } else {
            1
        };
        keep = keep.max(matched + past);
    }
    (keep > 0).then(|| keep.min(segs.len()))
}

/// (start, end) byte ranges of the natural lines, line terminators excluded
/// (`\n`, `\r`, `\r\n`).
fn natural_lines(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\n' => {
                out.push((start, i));
                start = i + 1;
            }
            b'\r' => {
                out.push((start, i));
                if b.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if start < b.len() {
        out.push((start, b.len()));
    }
    out
}

type Decoded = Vec<(char, Range<usize>)>;

/// Splits a logical line into its decoded key and value (escapes applied, each
/// character with its span) and the value's span.
fn split_entry(
    chars: &[(char, Range<usize>)],
) -> Result<(Decoded, Decoded, Range<usize>), (String, usize)> {
    let is_ws = |c: char| matches!(c, ' ' | '\t' | '\x0c');
    // The key ends at the first unescaped `=`, `:` or blank.
    let mut i = 0;
    let mut key_end = chars.len();
    while i < chars.len() {
        let c = chars[i].0;
        if c == '\\' {
            i += 2;
            continue;
        }
        if c == '=' || c == ':' || is_ws(c) {
            key_end = i;
            break;
        }
        i += 1;
    }
    let key_end = key_end.min(chars.len());
    let mut j = key_end;
    while j < chars.len() && is_ws(chars[j].0) {
        j += 1;
    }
    if j < chars.len() && (chars[j].0 == '=' || chars[j].0 == ':') {
        j += 1;
        while j < chars.len() && is_ws(chars[j].0) {
            j += 1;
        }
    }
    let key = unescape(&chars[..key_end])?;
    let value = unescape(&chars[j..])?;
    let value_span = match (chars.get(j), chars.last()) {
        (Some(a), Some(b)) => a.1.start..b.1.end,
        _ => {
            let at = chars.last().map_or(0, |c| c.1.end);
            at..at
        }
    };
    Ok((key, value, value_span))
}

/// Applies properties escapes: `\t`, `\n`, `\r`, `\f`, `\uXXXX`, and `\x` → `x`.
fn unescape(chars: &[(char, Range<usize>)]) -> Result<Decoded, (String, usize)> {
    let mut out = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        let (c, ref span) = chars[i];
        if c != '\\' {
            out.push((c, span.clone()));
            i += 1;
            continue;
        }
        let Some((n, nspan)) = chars.get(i + 1) else {
            // A lone trailing backslash (after an even run) is dropped.
            i += 1;
            continue;
        };
        match n {
            'u' => {
                let hex: String = chars[i + 2..(i + 6).min(chars.len())]
                    .iter()
                    .map(|(c, _)| *c)
                    .collect();
                let code = (hex.len() == 4)
                    .then(|| u32::from_str_radix(&hex, 16).ok())
                    .flatten()
                    .ok_or_else(|| ("malformed \\uxxxx encoding".to_string(), span.start))?;
                let end = chars[i + 5].1.end;
                out.push((char::from_u32(code).unwrap_or('\u{fffd}'), span.start..end));
                i += 6;
            }
            other => {
                let decoded = match other {
                    't' => '\t',
                    'n' => '\n',
                    'r' => '\r',
                    'f' => '\x0c',
                    x => *x,
                };
                out.push((decoded, span.start..nspan.end));
                i += 2;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceFile;
    use std::path::PathBuf;

    fn loaded(name: &str, text: &str) -> Arc<Loaded> {
        let file = Arc::new(SourceFile::new(PathBuf::from(name), name.to_string(), text));
        let tree = Tree::parse(file.text.clone()).map_err(crate::source::loader::LoadError::Syntax);
        Arc::new(Loaded::new(file, tree))
    }

    fn pos(d: &SpringDoc, node: NodeId) -> (u32, u32) {
        let t = d.doc.tree.as_ref().unwrap();
        let lc = d.doc.file.line_col(t.label_span(node).start);
        (lc.line, lc.column)
    }

    fn lookup(d: &SpringDoc, path: &str) -> Option<NodeId> {
        let t = d.doc.tree.as_ref().unwrap();
        find(t, d.root, path).first().copied()
    }

    fn text(d: &SpringDoc, path: &str) -> Option<String> {
        let t = d.doc.tree.as_ref().unwrap();
        lookup(d, path).and_then(|n| t.scalar(n).map(str::to_string))
    }

    #[test]
    fn relaxed_names() {
        assert!(relaxed_eq("maxAttempts", "max-attempts"));
        assert!(relaxed_eq("max_attempts", "MAXATTEMPTS"));
        assert!(!relaxed_eq("maxAttempts", "maxAttempt"));
    }

    #[test]
    fn dotted_yaml_keys_merge_and_point_at_their_segment() {
        let d = loaded(
            "application.yml",
            "resilience4j.retry:\n  configs:\n    default:\n      maxAttempts: 4\nresilience4j:\n  retry.instances.backendA.max-attempts: 2\n",
        );
        let docs = documents(&d).unwrap();
        assert_eq!(docs.len(), 1);
        let r = &docs[0];
        assert_eq!(
            text(r, "resilience4j.retry.configs.default.maxAttempts").as_deref(),
            Some("4")
        );
        assert_eq!(
            text(r, "resilience4j.retry.instances.backendA.maxAttempts").as_deref(),
            Some("2")
        );
        let retry = lookup(r, "resilience4j.retry").unwrap();
        assert_eq!(pos(r, retry), (1, 14));
        let inst = lookup(r, "resilience4j.retry.instances.backendA.max_attempts").unwrap();
        assert_eq!(pos(r, inst), (6, 28));
        let t = r.doc.tree.as_ref().unwrap();
        let insts = lookup(r, "resilience4j.retry.instances").unwrap();
        let e = entries(t, insts);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].0, "backendA");
    }

    #[test]
    fn properties_syntax() {
        let src = "# comment\n! also\nresilience4j.retry.instances.backendA.maxAttempts = 3\nresilience4j.retry.instances.backendA.wait-duration:500ms\nresilience4j.retry.instances.backendA.retryExceptions[0]=java.io.IOException\nresilience4j.retry.instances.backendA.retryExceptions[1]=\\\n    java.util.concurrent.TimeoutException\nkey\\ with\\ space value\\tx\nuni=\\u0041b\r\nspring.cloud.gateway.routes[0].id=r\nspring.cloud.gateway.routes[0].uri=http://x\n";
        let d = loaded("application.properties", src);
        let docs = documents(&d).unwrap();
        assert_eq!(docs.len(), 1);
        let r = &docs[0];
        assert_eq!(
            text(r, "resilience4j.retry.instances.backendA.maxAttempts").as_deref(),
            Some("3")
        );
        assert_eq!(
            text(r, "resilience4j.retry.instances.backendA.waitDuration").as_deref(),
            Some("500ms")
        );
        let t = r.doc.tree.as_ref().unwrap();
        let ex = lookup(r, "resilience4j.retry.instances.backendA.retryExceptions").unwrap();
        let items: Vec<&str> = t.items(ex).iter().filter_map(|&i| t.scalar(i)).collect();
        assert_eq!(
            items,
            [
                "java.io.IOException",
                "java.util.concurrent.TimeoutException"
            ]
        );
        assert_eq!(pos(r, t.items(ex)[1]), (7, 5));
        let ma = lookup(r, "resilience4j.retry.instances.backendA.maxAttempts").unwrap();
        assert_eq!(t.kind(ma), Kind::Int);
        assert_eq!(pos(r, ma), (3, 39));
        assert_eq!(text(r, "key with space").as_deref(), Some("value\tx"));
        assert_eq!(text(r, "uni").as_deref(), Some("Ab"));
        let routes = lookup(r, "spring.cloud.gateway.routes").unwrap();
        assert_eq!(t.items(routes).len(), 1);
        assert_eq!(text(r, "spring.cloud.gateway.routes").as_deref(), None);
        let route = t.items(routes)[0];
        assert_eq!(t.scalar(get(t, route, "uri").unwrap()), Some("http://x"));
    }

    #[test]
    fn properties_bad_unicode_escape_is_rl001() {
        let d = loaded("application.properties", "a=ok\nb=\\u12G4\n");
        let err = documents(&d).unwrap_err();
        assert_eq!(err.code, "RL001");
        assert_eq!(err.primary.location.span.start, 7);
    }

    #[test]
    fn profiles_yaml_and_properties() {
        let d = loaded(
            "application.yml",
            "resilience4j:\n  x: 1\n---\nspring:\n  config:\n    activate:\n      on-profile: prod\nresilience4j:\n  x: 2\n---\nspring.profiles: dev\nresilience4j.y: 3\nunread: 4\n",
        );
        let docs = documents(&d).unwrap();
        assert_eq!(docs.len(), 3);
        assert!(docs[0].profile.is_none());
        assert_eq!(docs[1].profile.as_ref().unwrap().0, "prod");
        assert_eq!(docs[2].profile.as_ref().unwrap().0, "dev");
        let vs = variants(&d).unwrap();
        assert_eq!(vs.len(), 3);
        assert_eq!(text(&vs[0], "resilience4j.x").as_deref(), Some("1"));
        assert_eq!(text(&vs[1], "resilience4j.x").as_deref(), Some("2"));
        let at = &vs[1].profile.as_ref().unwrap().1;
        let lc = at.doc.file.line_col(at.location().span.start);
        assert_eq!((lc.line, lc.column), (7, 7));
        assert_eq!(text(&vs[2], "resilience4j.x").as_deref(), Some("1"));
        assert_eq!(text(&vs[2], "resilience4j.y").as_deref(), Some("3"));
        // Keys outside `spring.*` and `resilience4j.*` are not built (alias bombs).
        assert_eq!(text(&vs[2], "unread"), None);

        let p = loaded(
            "application.properties",
            "a.x=1\n#---\nspring.config.activate.on-profile=prod\na.x=2\n",
        );
        let vs = variants(&p).unwrap();
        assert_eq!(vs.len(), 2);
        assert_eq!(text(&vs[1], "a.x").as_deref(), Some("2"));
        assert_eq!(vs[1].profile.as_ref().unwrap().0, "prod");

        let f = loaded("application-staging.yml", "a: 1\n");
        let vs = variants(&f).unwrap();
        assert_eq!(vs.len(), 1);
        assert_eq!(vs[0].profile.as_ref().unwrap().0, "staging");
    }

    #[test]
    fn documents_reading_answers_as_the_whole_read() {
        let wanted = [
            Wanted {
                path: "spring.cloud.gateway",
                presence_only: true,
            },
            Wanted {
                path: "spring.application.name",
                presence_only: false,
            },
        ];
        // What a reader of the wanted properties sees of one document.
        let view = |d: &SpringDoc| {
            let t = d.doc.tree.as_ref().unwrap();
            let name = find(t, d.root, "spring.application.name")
                .first()
                .map(|&n| (t.kind(n), scalar(t, n)));
            let gateway = !find(t, d.root, "spring.cloud.gateway").is_empty();
            (name, gateway, d.profile.as_ref().map(|(p, _)| p.clone()))
        };
        let cases = [
            "spring.application.name=edge\nspring.cloud.gateway.routes[0].id=r\n",
            "spring.application.name=${NAME:Edge}\nother.key=1\n",
            "spring.application.name=a\nspring.application.name.x=b\n",
            "spring.application.name[0]=a\n",
            "spring.application=a\nspring.application.name=b\n",
            "spring.application.name=b\nspring.application=a\n",
            "spring.cloud.gateway.routes[0].id=r\nspring.cloud[0]=x\n",
            "spring.cloud.gateway.routes[0].id=r\nspring.cloud=x\n",
            "spring.cloud.gateway.routes[0].id=r\nspring[0]=x\nspring.application.name=n\n",
            "spring.cloud=x\nspring.cloud.gateway.x=1\n",
            "Spring.Application.NAME=n\nSPRING_APPLICATION_NAME=m\n",
            "spring.application.name=a\n#---\nspring.config.activate.on-profile=prod\nspring.application.name=b\n",
            "spring.profiles[0]=a\nspring.profiles[1].x=b\nspring.application.name=c\n",
            "spring.profiles=dev\nspring.profiles.active=x\n#---\nspring.profiles=qa\n",
            "spring.application.name=a\nbad=\\u12G4\n",
        ];
        for text in cases {
            let d = loaded("application.properties", text);
            let whole = documents(&d).map(|ds| ds.iter().map(view).collect::<Vec<_>>());
            let read =
                documents_reading(&d, &wanted).map(|ds| ds.iter().map(view).collect::<Vec<_>>());
            assert_eq!(whole.is_ok(), read.is_ok(), "{text}");
            if let (Ok(a), Ok(b)) = (whole, read) {
                assert_eq!(a, b, "{text}");
            }
        }
    }

    #[test]
    fn legacy_profiles_map_is_not_a_profile() {
        let d = loaded(
            "application.yml",
            "spring:\n  profiles:\n    active: prod\n",
        );
        let docs = documents(&d).unwrap();
        assert!(docs[0].profile.is_none());
    }

    #[test]
    fn placeholders() {
        assert_eq!(resolve("${WAIT:250ms}"), Resolved::Known("250ms".into()));
        assert_eq!(resolve("${A:${B:5}}00"), Resolved::Known("500".into()));
        assert_eq!(
            resolve("${ATTEMPTS}"),
            Resolved::Unknown("${ATTEMPTS}".into())
        );
        assert_eq!(resolve("${A:${B}}"), Resolved::Unknown("${A:${B}}".into()));
        assert_eq!(resolve("plain"), Resolved::Known("plain".into()));
        assert_eq!(resolve("${unclosed"), Resolved::Known("${unclosed".into()));
        assert_eq!(
            resolve("${URL:http://x:8080}"),
            Resolved::Known("http://x:8080".into())
        );
    }

    #[test]
    fn durations() {
        assert_eq!(duration("100", 1.0), Some(100.0));
        assert_eq!(duration("100ms", 1.0), Some(100.0));
        assert_eq!(duration("2s", 1.0), Some(2000.0));
        assert_eq!(duration("2S", 1.0), Some(2000.0));
        assert_eq!(duration("1m", 1.0), Some(60_000.0));
        assert_eq!(duration("PT0.5S", 1.0), Some(500.0));
        assert_eq!(duration("PT1M30S", 1.0), Some(90_000.0));
        assert_eq!(duration("P1D", 1.0), Some(86_400_000.0));
        assert_eq!(duration("1.5s", 1.0), None);
        assert_eq!(duration("-1s", 1.0), None);
        assert_eq!(duration("PT", 1.0), None);
        assert_eq!(duration("5x", 1.0), None);
        // Beyond a Java `long`, or more seconds than `Duration` holds: no binding.
        assert_eq!(duration("99999999999999999999999h", 1.0), None);
        assert_eq!(duration("9223372036854775807h", 1.0), None);
        assert_eq!(
            duration("9223372036854775807ms", 1.0),
            Some(9.223372036854776e18)
        );
        assert_eq!(duration("PT99999999999999999999999H", 1.0), None);
        assert_eq!(boolean("TRUE"), Some(true));
        assert_eq!(boolean("off"), Some(false));
        assert_eq!(boolean("maybe"), None);
    }

    #[test]
    fn recognition() {
        assert!(recognize(&loaded(
            "application.yml",
            "server:\n  port: 1\n"
        )));
        assert!(recognize(&loaded(
            "client.yml",
            "resilience4j.retry:\n  configs: {}\n"
        )));
        assert!(recognize(&loaded(
            "client.yml",
            "resilience4j:\n  Retry:\n    configs: {}\n"
        )));
        assert!(recognize(&loaded(
            "gw.yaml",
            "spring:\n  cloud.gateway:\n    routes: []\n"
        )));
        assert!(!recognize(&loaded("client.yml", "retry:\n  x: 1\n")));
        assert!(!recognize(&loaded(
            "application.yaml",
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\n"
        )));
        assert!(!recognize(&loaded("application.yaml", "openapi: 3.0.3\n")));
        assert!(recognize(&loaded("application-prod.properties", "a=1\n")));
        assert!(recognize(&loaded(
            "svc.properties",
            "resilience4j.retry.instances.a.max-attempts=2\n"
        )));
        assert!(!recognize(&loaded("svc.properties", "a=1\n")));
        assert!(!recognize(&loaded("applications.yml", "a: 1\n")));
    }

    #[test]
    fn hostile_input_does_not_panic() {
        let deep = "a.".repeat(5000) + "b: 1\n";
        let d = loaded("application.yml", &deep);
        assert!(documents(&d).is_ok());
        let p = loaded(
            "application.properties",
            &("x[99999999999]=1\n".to_string() + "\\"),
        );
        assert!(documents(&p).is_ok());
        let p = loaded("application.properties", "a=\\u12");
        assert!(documents(&p).is_err());
        let many: String = (0..50_000).map(|i| format!("k{i}.v=1\n")).collect();
        let p = loaded("application.properties", &many);
        let docs = documents(&p).unwrap();
        let t = docs[0].doc.tree.as_ref().unwrap();
        assert_eq!(t.raw_entries(docs[0].root).len(), 50_000);
        let bomb = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\nresilience4j.retry: {i: [*h, *h, *h, *h, *h, *h, *h, *h, *h]}\n";
        assert!(documents(&loaded("application.yml", bomb)).is_ok());
        let brackets = "[".repeat(100_000) + "=1\n";
        assert!(documents(&loaded("application.properties", &brackets)).is_ok());
    }
}
