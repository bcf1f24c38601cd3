//! A compact text rendering of what an importer read: each route table, its routes
//! and every retry value with the `line:col` it came from, and the platform-default
//! notes. Used by the importers' snapshot tests and by `retrylint import --verbose`;
//! not a stable format.

use super::{ConfigObject, Route};
use crate::policy::duration::format_millis;
use crate::policy::model::{AttemptTimeout, Settings};
use crate::source::refs::At;
use std::fmt::Write;

fn pos(at: &At) -> String {
    let loc = at.location();
    let lc = at.doc.file.line_col(loc.span.start);
    format!("{}:{}", lc.line, lc.column)
}

/// [`render`] of what an importer read, then each of its findings as
/// `line:col CODE message` (and its help under it with `with_help`).
pub fn render_imported(imported: &super::Imported, with_help: bool) -> String {
    let mut out = render(&imported.objects);
    out.push_str(&render_diagnostics(&imported.diagnostics, with_help));
    out
}

/// Findings as `line:col CODE message` lines, each with its help under it with
/// `with_help`.
pub fn render_diagnostics(
    diagnostics: &[crate::diagnostic::Diagnostic],
    with_help: bool,
) -> String {
    let mut out = String::new();
    for d in diagnostics {
        let lc = d
            .primary
            .location
            .file
            .line_col(d.primary.location.span.start);
        let _ = writeln!(out, "{}:{} {} {}", lc.line, lc.column, d.code, d.message);
        if with_help {
            let _ = writeln!(out, "    help: {}", d.help.as_deref().unwrap_or("-"));
        }
    }
    out
}

/// The objects as indented text.
pub fn render(objects: &[ConfigObject]) -> String {
    let mut out = String::new();
    for o in objects {
        let names: Vec<String> = o
            .names
            .iter()
            .map(|n| format!("{}@{}", n.value, pos(&n.at)))
            .collect();
        let _ = writeln!(
            out,
            "{} {} `{}` @{} layer={} names=[{}]",
            o.platform.display_name(),
            o.kind,
            o.name,
            pos(&o.at),
            o.layer.as_str(),
            names.join(", ")
        );
        for r in &o.routes {
            render_route(&mut out, r);
        }
    }
    out
}

fn render_route(out: &mut String, r: &Route) {
    let _ = writeln!(
        out,
        "  route {} @{}",
        r.name.as_deref().unwrap_or("-"),
        pos(&r.at)
    );
    for m in &r.matches {
        let _ = writeln!(
            out,
            "    match {:?} methods={:?}{}",
            m.path,
            m.methods,
            if m.partial { " (partial)" } else { "" }
        );
    }
    if let Some(rw) = &r.rewrite {
        let _ = writeln!(out, "    rewrite {rw:?}");
    }
    render_settings(out, &r.settings);
    for n in &r.notes {
        let _ = writeln!(out, "    note @{}: {}", pos(&n.at), n.text);
    }
}

fn render_settings(out: &mut String, s: &Settings) {
    if let Some(v) = &s.retry {
        let _ = writeln!(out, "    retry {} @{}", v.value, pos(&v.at));
    }
    if let Some(v) = &s.attempts {
        let _ = writeln!(out, "    attempts {} @{}", v.value, pos(&v.at));
    }
    if let Some(v) = &s.retry_on {
        let items: Vec<String> = v
            .value
            .iter()
            .map(|x| format!("{}@{}", x.value, pos(&x.at)))
            .collect();
        let _ = writeln!(out, "    retry_on [{}] @{}", items.join(", "), pos(&v.at));
    }
    if let Some(v) = &s.methods {
        let items: Vec<String> = v.value.iter().map(|x| x.value.clone()).collect();
        let _ = writeln!(out, "    methods [{}] @{}", items.join(", "), pos(&v.at));
    }
    if let Some(b) = &s.backoff {
        let f = |m: &Option<crate::policy::model::Spanned<f64>>| {
            m.as_ref().map_or("-".to_string(), |v| {
                format!("{}@{}", format_millis(v.value), pos(&v.at))
            })
        };
        let _ = writeln!(
            out,
            "    backoff base={} cap={} multiplier={} jitter={} @{}",
            f(&b.base),
            f(&b.cap),
            b.multiplier
                .as_ref()
                .map_or("-".into(), |v| format!("{}@{}", v.value, pos(&v.at))),
            b.jitter
                .as_ref()
                .map_or("-".into(), |v| format!("{}@{}", v.value, pos(&v.at))),
            pos(&b.at)
        );
    }
    if let Some(v) = &s.attempt_timeout {
        let t = match v.value {
            AttemptTimeout::Remaining => "remaining".to_string(),
            AttemptTimeout::Fixed(ms) => format_millis(ms),
        };
        let _ = writeln!(out, "    attempt_timeout {t} @{}", pos(&v.at));
    }
    if let Some(v) = &s.deadline {
        let _ = writeln!(
            out,
            "    deadline {} @{}",
            format_millis(v.value),
            pos(&v.at)
        );
    }
    if let Some(ra) = &s.retry_after {
        let _ = writeln!(
            out,
            "    retry_after honor={:?} max={:?} on_invalid={:?} @{}",
            ra.honor.as_ref().map(|v| v.value),
            ra.max.as_ref().map(|v| v.value),
            ra.on_invalid.as_ref().map(|v| v.value),
            pos(&ra.at)
        );
    }
    if let Some(v) = &s.budget {
        let _ = writeln!(out, "    budget {:?} @{}", v.value, pos(&v.at));
    }
    if let Some(v) = &s.hedging {
        let _ = writeln!(out, "    hedging {:?} @{}", v.value, pos(&v.at));
    }
}
