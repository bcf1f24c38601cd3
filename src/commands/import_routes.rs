//! `retrylint import` on a retry config that binds no operation (a deployment
//! repository with no OpenAPI document, or a route for a host no spec serves): what
//! retrylint reads from it anyway, route by route, keyed by each route's match
//! (`api: prefix /api/, every method`), every value with its origin. A display, not a
//! policy: its header says so, it has no `version:` and its entries are `routes:`,
//! so it can never be saved and read back as a written policy by mistake (a policy
//! names a spec's operations, which is what is missing here).

use super::origin::{notes_at, position};
use crate::diagnostic::Diagnostic;
use crate::import::route::{PathMatch, RequestMatch};
use crate::import::{ConfigObject, ImportContext, OriginNote, Route};
use crate::policy::model::{OperationEntry, PolicyFile, Spanned};
use crate::report::policy_yaml::{render, EmitOptions};
use crate::source::loader::Loaded;
use crate::source::refs::At;
use std::sync::Arc;

/// The routes of the objects of `doc` that `unbound` (its RL016 findings) name, each
/// object as one YAML document headed by RL016's message; empty when `doc` is no
/// config retrylint reads.
pub fn unbound_routes(
    doc: &Arc<Loaded>,
    unbound: &[&Diagnostic],
    ctx: &ImportContext<'_>,
) -> String {
    unbound_objects(doc, unbound, ctx)
        .iter()
        .filter(|(object, _)| !object.routes.is_empty())
        .map(|(object, rl016)| object_display(object, doc, rl016))
        .collect()
}

/// The config objects of `doc` that bind no operation (those an RL016 of `unbound`
/// points into), each with its first RL016, in file order; empty when `doc` is no
/// config retrylint reads.
pub fn unbound_objects<'d>(
    doc: &Arc<Loaded>,
    unbound: &[&'d Diagnostic],
    ctx: &ImportContext<'_>,
) -> Vec<(ConfigObject, &'d Diagnostic)> {
    let Some(format) = crate::import::recognize(doc) else {
        return Vec::new();
    };
    let imported = crate::import::import_all(&[(doc.clone(), format)], ctx);
    let mut out = Vec::new();
    for object in imported.objects {
        let span = object.at.value_location().span;
        let first = unbound.iter().find(|d| {
            let l = &d.primary.location;
            l.file.path == doc.file.path && span.contains(&l.span.start)
        });
        if let Some(d) = first {
            out.push((object, *d));
        }
    }
    out
}

/// One object's routes as a display document.
fn object_display(object: &ConfigObject, doc: &Arc<Loaded>, rl016: &Diagnostic) -> String {
    let notes: Vec<OriginNote> = object.routes.iter().flat_map(|r| r.notes.clone()).collect();
    let mut keys: Vec<String> = Vec::new();
    let operations = object
        .routes
        .iter()
        .map(|r| {
            let mut key = route_key(r);
            let base = key.clone();
            let mut n = 2;
            while keys.contains(&key) {
                key = format!("{base} ({n})");
                n += 1;
            }
            keys.push(key.clone());
            OperationEntry {
                text: key,
                selector: None,
                at: r.at.clone(),
                settings: r.settings.clone(),
            }
        })
        .collect();
    let policy = PolicyFile {
        doc: doc.clone(),
        at: object.at.clone(),
        version: None,
        spec: Vec::new(),
        layer: Some(Spanned {
            value: object.layer,
            at: object.at.clone(),
        }),
        defaults: None,
        operations,
        ignore: Vec::new(),
        imported: None,
    };
    // Footnotes: the platform defaults the values carry, in order of appearance.
    let mut used: Vec<&OriginNote> = Vec::new();
    for r in &object.routes {
        for at in settings_origins(r) {
            for n in notes_at(at, &notes) {
                if !used.iter().any(|u| u.text == n.text) {
                    used.push(n);
                }
            }
        }
    }
    let origin = |at: &At| -> Option<String> {
        let marks: String = notes_at(at, &notes)
            .iter()
            .filter_map(|n| used.iter().position(|u| u.text == n.text))
            .map(|i| format!(" [{}]", i + 1))
            .collect();
        Some(format!("{}{marks}", position(at)))
    };
    let l = &rl016.primary.location;
    let lc = l.file.line_col(l.span.start);
    let mut header = vec![format!(
        "{}:{}:{}: {}",
        l.file.display, lc.line, lc.column, rl016.message
    )];
    header.extend(
        rl016
            .help
            .iter()
            .flat_map(|h| h.lines().map(str::to_string)),
    );
    header.extend([
        String::new(),
        format!(
            "What retrylint reads from {} {} `{}` ({}), {} layer, route by route.",
            object.platform.display_name(),
            object.kind,
            object.name,
            position(&object.at),
            object.layer.as_str()
        ),
        "A DISPLAY, NOT A POLICY FILE to save and re-read: no OpenAPI document binds these".into(),
        "routes, so they are keyed by their match, not by operations. Bind the API's spec".into(),
        "(`services:` in .retrylint.yaml) and `retrylint import` prints the policy.".into(),
    ]);
    for (i, n) in used.iter().enumerate() {
        header.push(format!("[{}] {}", i + 1, n.text.replace('\n', " ")));
    }
    let body = render(
        &policy,
        &EmitOptions {
            origin: &origin,
            header: &header,
            spec: Some(&[]),
        },
    );
    let body: String = body
        .lines()
        .filter(|line| !line.starts_with("version: "))
        .map(|line| {
            if line == "operations:" {
                "routes:\n".to_string()
            } else {
                format!("{line}\n")
            }
        })
        .collect();
    format!("---\n{body}")
}

/// The origins of a route's values (where its footnotes attach).
fn settings_origins(r: &Route) -> Vec<&At> {
    let s = &r.settings;
    let mut out: Vec<&At> = vec![&r.at];
    out.extend(s.retry.as_ref().map(|v| &v.at));
    out.extend(s.attempts.as_ref().map(|v| &v.at));
    out.extend(s.deadline.as_ref().map(|v| &v.at));
    out.extend(s.retry_on.as_ref().map(|v| &v.at));
    out.extend(s.methods.as_ref().map(|v| &v.at));
    out
}

/// `name: <match>[ | <match>...]`: the route's name (when the file gives one) and
/// what it matches, as the platform wrote it.
pub fn route_key(r: &Route) -> String {
    let matches = if r.matches.is_empty() {
        "every request".to_string()
    } else {
        r.matches
            .iter()
            .map(match_text)
            .collect::<Vec<_>>()
            .join(" | ")
    };
    match &r.name {
        Some(name) => format!("{name}: {matches}"),
        None => matches,
    }
}

fn match_text(m: &RequestMatch) -> String {
    let path = match &m.path {
        PathMatch::Any => "every path".to_string(),
        PathMatch::Exact(p) => format!("exact {p}"),
        PathMatch::Prefix(p) => format!("prefix {p}"),
        PathMatch::SegmentPrefix(p) => format!("path prefix {p}"),
        PathMatch::Regex(r) => format!("regex {}", r.as_str()),
        PathMatch::Template(t) => format!("template {t}"),
        PathMatch::OperationId(o) => format!("operationId {o}"),
        PathMatch::Tag(t) => format!("tag {t}"),
    };
    let methods = match &m.methods {
        None => "every method".to_string(),
        Some(ms) if ms.is_empty() => "no method".to_string(),
        Some(ms) => ms.join(" "),
    };
    let partial = if m.partial {
        " (and header or query conditions)"
    } else {
        ""
    };
    format!("{path}, {methods}{partial}")
}
