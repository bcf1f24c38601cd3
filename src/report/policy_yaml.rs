//! A v1 retry-policy file written back as YAML, each value followed by a comment
//! naming where it came from (`# virtual-service.yaml:33:7`). serde_yaml writes no
//! comments, so this is a small emitter for the policy model alone
//! (`docs/policy-format.md` gives every shape): strings YAML would misread are
//! double-quoted, durations are written with the largest exact unit (`250ms`, `2s`,
//! `24h`), `jitter: {proportional: 0.5}`, `budget` and `hedging` as flow mappings,
//! `retry_on` and `methods` as lists. Reading the output with
//! [`crate::policy::load_policy`] gives the same settings (a test checks it for every
//! written policy under `fixtures/`).

use crate::policy::duration::Millis;
use crate::policy::model::{
    AttemptTimeout, BackoffSettings, Concurrent, Hedging, Jitter, KeySettings, PayloadMismatch,
    PolicyFile, RetryAfterSettings, RetryBudget, Settings, Spanned, Suppression, UnknownResult,
};
use crate::source::refs::At;

/// What to write around the policy.
pub struct EmitOptions<'a> {
    /// The comment for a value read from `at` (`virtual-service.yaml:33:7`), or
    /// `None` for no comment.
    pub origin: &'a dyn Fn(&At) -> Option<String>,
    /// Comment lines written first (without `# `).
    pub header: &'a [String],
    /// Replaces the policy's `spec:` (written without a comment): the paths as the
    /// reader of the output should resolve them.
    pub spec: Option<&'a [String]>,
}

/// One output line: the text and the node its comment names.
struct Line<'a> {
    text: String,
    at: Option<&'a At>,
}

/// Comments start at this column at most (longer lines get two spaces).
const COMMENT_COLUMN: usize = 44;

/// The policy as YAML text (one document, ending with a newline).
pub fn render(p: &PolicyFile, options: &EmitOptions<'_>) -> String {
    let mut out = Emitter { lines: Vec::new() };
    out.line(0, "version: 1".into(), p.version.as_ref().map(|v| &v.at));
    match options.spec {
        Some(spec) => out.spec_texts(spec),
        None => out.spec(&p.spec),
    }
    if let Some(layer) = &p.layer {
        out.line(
            0,
            format!("layer: {}", layer.value.as_str()),
            Some(&layer.at),
        );
    }
    if let Some(d) = &p.defaults {
        out.settings_block(0, "defaults", d);
    }
    if !p.operations.is_empty() {
        out.line(0, "operations:".into(), None);
        for e in &p.operations {
            out.settings_block(1, &scalar(&e.text), &e.settings);
        }
    }
    out.suppressions(0, &p.ignore);
    let mut text = String::new();
    for h in options.header {
        if h.is_empty() {
            text.push_str("#\n");
        } else {
            text.push_str(&format!("# {h}\n"));
        }
    }
    let comments: Vec<Option<String>> = out
        .lines
        .iter()
        .map(|l| l.at.and_then(|at| (options.origin)(at)))
        .collect();
    let width = out
        .lines
        .iter()
        .zip(&comments)
        .filter(|(_, c)| c.is_some())
        .map(|(l, _)| l.text.chars().count())
        .filter(|&w| w <= COMMENT_COLUMN)
        .max()
        .unwrap_or(0);
    for (l, c) in out.lines.iter().zip(comments) {
        text.push_str(&l.text);
        if let Some(c) = c {
            let pad = (width + 2).saturating_sub(l.text.chars().count()).max(2);
            text.push_str(&" ".repeat(pad));
            text.push_str("# ");
            text.push_str(&c.replace('\n', " "));
        }
        text.push('\n');
    }
    text
}

struct Emitter<'a> {
    lines: Vec<Line<'a>>,
}

impl<'a> Emitter<'a> {
    fn line(&mut self, indent: usize, text: String, at: Option<&'a At>) {
        self.lines.push(Line {
            text: format!("{}{text}", "  ".repeat(indent)),
            at,
        });
    }

    fn spec(&mut self, spec: &'a [Spanned<String>]) {
        match spec {
            [] => {}
            [one] => self.line(0, format!("spec: {}", scalar(&one.value)), Some(&one.at)),
            many => {
                self.line(0, "spec:".into(), None);
                for s in many {
                    self.line(1, format!("- {}", scalar(&s.value)), Some(&s.at));
                }
            }
        }
    }

    fn spec_texts(&mut self, spec: &[String]) {
        match spec {
            [] => {}
            [one] => self.line(0, format!("spec: {}", scalar(one)), None),
            many => {
                self.line(0, "spec:".into(), None);
                for s in many {
                    self.line(1, format!("- {}", scalar(s)), None);
                }
            }
        }
    }

    /// `key:` and the settings below it (`key: {}` when none is set).
    fn settings_block(&mut self, indent: usize, key: &str, s: &'a Settings) {
        let start = self.lines.len();
        self.line(indent, format!("{key}:"), Some(&s.at));
        self.settings(indent + 1, s);
        if self.lines.len() == start + 1 {
            self.lines[start].text.push_str(" {}");
        }
    }

    fn settings(&mut self, i: usize, s: &'a Settings) {
        if let Some(l) = &s.layer {
            self.line(i, format!("layer: {}", l.value.as_str()), Some(&l.at));
        }
        if let Some(v) = &s.retry {
            self.line(i, format!("retry: {}", v.value), Some(&v.at));
        }
        // An effect an imported config infers from the endpoint's own semantics (a
        // gRPC RPC's `idempotency_level` or AIP method kind) is written as the
        // effect, with the node that says it.
        if let Some(v) = s.effect.as_ref().or(s.inferred_effect.as_ref()) {
            self.line(i, format!("effect: {}", v.value.as_str()), Some(&v.at));
        }
        self.todo(i, s, "effect", "effect");
        // A key carried in the request message (AIP-155 `request_id`) is no header:
        // a policy cannot state it.
        if let Some(k) = s.idempotency_key.as_ref().filter(|k| !k.in_request) {
            self.key(i, k, s);
        }
        if let Some(v) = &s.status_endpoint {
            // The selector as written when its node says it (`{orderId}` keeps its
            // name; the parsed selector only keeps `{}`).
            let written =
                v.at.tree()
                    .and_then(|t| t.as_str(v.at.node))
                    .filter(|t| {
                        crate::policy::selector::Selector::parse(t).ok() == Some(v.value.clone())
                    })
                    .map_or_else(|| v.value.to_string(), str::to_string);
            self.line(
                i,
                format!("status_endpoint: {}", scalar(&written)),
                Some(&v.at),
            );
        }
        if let Some(v) = &s.on_unknown_result {
            self.line(
                i,
                format!("on_unknown_result: {}", unknown_result(v.value)),
                Some(&v.at),
            );
        }
        self.todo(i, s, "on_unknown_result", "on_unknown_result");
        if let Some(v) = &s.attempts {
            self.line(i, format!("attempts: {}", v.value), Some(&v.at));
        }
        self.todo(i, s, "attempts", "attempts");
        if let Some(v) = &s.deadline {
            self.line(i, format!("deadline: {}", duration(v.value)), Some(&v.at));
        }
        self.todo(i, s, "deadline", "deadline");
        if let Some(v) = &s.attempt_timeout {
            let text = match v.value {
                AttemptTimeout::Remaining => "remaining".to_string(),
                AttemptTimeout::Fixed(ms) => duration(ms),
            };
            self.line(i, format!("attempt_timeout: {text}"), Some(&v.at));
        }
        if let Some(b) = &s.backoff {
            self.backoff(i, b, s);
        }
        if let Some(list) = &s.retry_on {
            let items: Vec<(String, &'a At)> = list
                .value
                .iter()
                .map(|x| (x.value.to_string(), &x.at))
                .collect();
            self.list(i, "retry_on", &list.at, items);
        }
        if let Some(list) = &s.methods {
            let items: Vec<(String, &'a At)> = list
                .value
                .iter()
                .map(|x| (scalar(&x.value), &x.at))
                .collect();
            self.list(i, "methods", &list.at, items);
        }
        if let Some(r) = &s.retry_after {
            self.retry_after(i, r, s);
        }
        if let Some(b) = &s.budget {
            self.line(i, format!("budget: {}", budget(&b.value)), Some(&b.at));
        }
        if let Some(h) = &s.hedging {
            self.line(i, format!("hedging: {}", hedging(&h.value)), Some(&h.at));
        }
        self.suppressions(i, &s.ignore);
    }

    /// A list: flow style when every item comes from the list's own node (or no
    /// item is set), else one item a line with its own comment.
    fn list(&mut self, i: usize, key: &str, at: &'a At, items: Vec<(String, &'a At)>) {
        let same = |a: &At| a.same_node(at);
        if items.is_empty() || items.iter().all(|(_, a)| same(a)) {
            let texts: Vec<String> = items.into_iter().map(|(t, _)| t).collect();
            self.line(i, format!("{key}: [{}]", texts.join(", ")), Some(at));
        } else {
            self.line(i, format!("{key}:"), Some(at));
            for (t, a) in items {
                self.line(i + 1, format!("- {t}"), Some(a));
            }
        }
    }

    /// `key: todo` when `field` is an open question of `s` (docs/policy-format.md
    /// "Open questions: `todo`").
    fn todo(&mut self, i: usize, s: &'a Settings, field: &str, key: &str) {
        if let Some(t) = s.todos.iter().find(|t| t.field == field) {
            self.line(i, format!("{key}: todo"), Some(&t.at));
        }
    }

    fn key(&mut self, i: usize, k: &'a KeySettings, s: &'a Settings) {
        let start = self.lines.len();
        self.line(i, "idempotency_key:".into(), Some(&k.at));
        if let Some(v) = &k.header {
            self.line(i + 1, format!("header: {}", scalar(&v.value)), Some(&v.at));
        }
        if let Some(v) = &k.retention {
            self.line(
                i + 1,
                format!("retention: {}", duration(v.value)),
                Some(&v.at),
            );
        }
        self.todo(i + 1, s, "idempotency_key.retention", "retention");
        if let Some(v) = &k.scope {
            self.line(i + 1, format!("scope: {}", scalar(&v.value)), Some(&v.at));
        }
        self.todo(i + 1, s, "idempotency_key.scope", "scope");
        self.todo(
            i + 1,
            s,
            "idempotency_key.on_payload_mismatch",
            "on_payload_mismatch",
        );
        self.todo(i + 1, s, "idempotency_key.on_concurrent", "on_concurrent");
        if let Some(v) = &k.on_payload_mismatch {
            let t = match v.value {
                PayloadMismatch::Reject => "reject",
                PayloadMismatch::Ignore => "ignore",
            };
            self.line(i + 1, format!("on_payload_mismatch: {t}"), Some(&v.at));
        }
        if let Some(v) = &k.on_concurrent {
            let t = match v.value {
                Concurrent::Reject => "reject",
                Concurrent::Wait => "wait",
                Concurrent::Ignore => "ignore",
            };
            self.line(i + 1, format!("on_concurrent: {t}"), Some(&v.at));
        }
        self.close_empty(start);
    }

    fn backoff(&mut self, i: usize, b: &'a BackoffSettings, s: &'a Settings) {
        let start = self.lines.len();
        self.line(i, "backoff:".into(), Some(&b.at));
        if let Some(v) = &b.base {
            self.line(i + 1, format!("base: {}", duration(v.value)), Some(&v.at));
        }
        if let Some(v) = &b.cap {
            self.line(i + 1, format!("cap: {}", duration(v.value)), Some(&v.at));
        }
        self.todo(i + 1, s, "backoff.base", "base");
        self.todo(i + 1, s, "backoff.cap", "cap");
        self.todo(i + 1, s, "backoff.jitter", "jitter");
        if let Some(v) = &b.multiplier {
            self.line(
                i + 1,
                format!("multiplier: {}", number(v.value)),
                Some(&v.at),
            );
        }
        if let Some(v) = &b.jitter {
            self.line(i + 1, format!("jitter: {}", jitter(v.value)), Some(&v.at));
        }
        self.close_empty(start);
    }

    fn retry_after(&mut self, i: usize, r: &'a RetryAfterSettings, s: &'a Settings) {
        let start = self.lines.len();
        self.line(i, "retry_after:".into(), Some(&r.at));
        if let Some(v) = &r.honor {
            self.line(i + 1, format!("honor: {}", v.value), Some(&v.at));
        }
        if let Some(v) = &r.max {
            self.line(i + 1, format!("max: {}", duration(v.value)), Some(&v.at));
        }
        self.todo(i + 1, s, "retry_after.max", "max");
        if let Some(v) = &r.on_invalid {
            self.line(
                i + 1,
                format!("on_invalid: {}", v.value.as_str()),
                Some(&v.at),
            );
        }
        if let Some(v) = &r.on_above_max {
            self.line(
                i + 1,
                format!("on_above_max: {}", v.value.as_str()),
                Some(&v.at),
            );
        }
        self.close_empty(start);
    }

    fn suppressions(&mut self, i: usize, list: &'a [Suppression]) {
        if list.is_empty() {
            return;
        }
        self.line(i, "ignore:".into(), None);
        for s in list {
            let start = self.lines.len();
            let mut first = true;
            for (k, v) in [("rule", &s.rule), ("reason", &s.reason)] {
                if let Some(v) = v {
                    let dash = if first { "- " } else { "  " };
                    self.line(
                        i + 1,
                        format!("{dash}{k}: {}", scalar(&v.value)),
                        Some(&v.at),
                    );
                    first = false;
                }
            }
            if self.lines.len() == start {
                self.line(i + 1, "- {}".into(), Some(&s.at));
            }
        }
    }

    /// `key:` with nothing below it becomes `key: {}`.
    fn close_empty(&mut self, start: usize) {
        if self.lines.len() == start + 1 {
            self.lines[start].text.push_str(" {}");
        }
    }
}

fn unknown_result(u: UnknownResult) -> &'static str {
    match u {
        UnknownResult::Resend => "resend",
        UnknownResult::ReplayKey => "replay-key",
        UnknownResult::CheckStatus => "check-status",
        UnknownResult::Reconcile => "reconcile",
        UnknownResult::Fail => "fail",
    }
}

fn jitter(j: Jitter) -> String {
    match j {
        Jitter::Proportional(f) => format!("{{proportional: {}}}", number(f.get())),
        other => other.as_str().to_string(),
    }
}

fn budget(b: &RetryBudget) -> String {
    let parts: Vec<String> = match b {
        RetryBudget::Ratio {
            ratio,
            min_per_second,
            min_concurrent,
            window_ms,
        } => {
            let mut p = vec![format!("ratio: {}", number(*ratio))];
            if let Some(m) = min_per_second {
                p.push(format!("min_per_second: {}", number(*m)));
            }
            if let Some(m) = min_concurrent {
                p.push(format!("min_concurrent: {m}"));
            }
            if let Some(w) = window_ms {
                p.push(format!("window: {}", duration(*w)));
            }
            p
        }
        RetryBudget::Concurrency {
            max_concurrent_retries,
        } => vec![format!("max_concurrent_retries: {max_concurrent_retries}")],
        RetryBudget::Tokens {
            tokens,
            token_ratio,
        } => vec![
            format!("tokens: {}", number(*tokens)),
            format!("token_ratio: {}", number(*token_ratio)),
        ],
    };
    format!("{{{}}}", parts.join(", "))
}

fn hedging(h: &Hedging) -> String {
    format!(
        "{{attempts: {}, delay: {}}}",
        h.attempts,
        duration(h.delay_ms)
    )
}

/// A number as YAML reads it back exactly: Rust's shortest round-trip form, which
/// never uses an exponent (`0.2`, `10`, `1.5`).
fn number(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else if x.is_nan() {
        ".nan".into()
    } else if x > 0.0 {
        ".inf".into()
    } else {
        "-.inf".into()
    }
}

/// A duration in the largest unit that writes it exactly: `2s`, `250ms`, `24h`,
/// `1500ms`, `0.5ms` (ms as `f64`, as [`crate::policy::duration`] reads them).
pub fn duration(ms: Millis) -> String {
    if !ms.is_finite() || ms < 0.0 {
        // Not a duration the parser gives; written so that reading it fails loudly.
        return format!("{}ms", number(ms));
    }
    for (unit, size) in [
        ("d", 86_400_000.0),
        ("h", 3_600_000.0),
        ("m", 60_000.0),
        ("s", 1000.0),
    ] {
        if ms >= size && ms % size == 0.0 && ms < 9.0e15 {
            return format!("{}{unit}", (ms / size) as u64);
        }
    }
    if ms == 0.0 {
        return "0s".into();
    }
    format!("{}ms", number(ms))
}

/// A string as a YAML scalar: plain when YAML reads it back as this same string,
/// else double-quoted with escapes.
pub fn scalar(s: &str) -> String {
    if plain_is_safe(s) {
        s.to_string()
    } else {
        quoted(s)
    }
}

/// True when `s` written plain is read back as the string `s` (in a block mapping
/// value, a flow list item, or a mapping key): a conservative set of characters, no
/// indicator first, nothing a resolver reads as a bool, null or number.
fn plain_is_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    let relative = s.starts_with("./") || s.starts_with("../");
    if !(first.is_ascii_alphabetic() || first == '/' || first == '_' || relative) {
        // Digits (numbers, `5xx` aside), `-`, `.`, `*`, `&`, `!`, `[`, quotes ...
        // are quoted; `5xx` and `429` are handled by the caller's reader either way.
        return s.chars().all(|c| c.is_ascii_alphanumeric()) && !looks_numeric(s);
    }
    if s.ends_with(' ') {
        return false;
    }
    let allowed = |c: char| c.is_ascii_alphanumeric() || " _./{}-+=()".contains(c);
    if !s.chars().all(allowed) {
        return false;
    }
    // Flow indicators end a plain scalar inside `[...]` and `{...}`.
    if s.contains(['{', '}']) && s.contains(", ") {
        return false;
    }
    let lower = s.to_ascii_lowercase();
    !matches!(
        lower.as_str(),
        "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | "null" | "nan" | "inf"
    )
}

/// True when a YAML resolver may read `s` as a number (decimal, hex, octal, float).
fn looks_numeric(s: &str) -> bool {
    s.parse::<f64>().is_ok()
        || s.starts_with("0x")
        || s.starts_with("0o")
        || s.chars().next().is_some_and(|c| c.is_ascii_digit()) && !s.ends_with("xx")
}

fn quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::load_policy;
    use crate::source::loader::{Limits, Workspace};
    use std::path::{Path, PathBuf};

    fn repo() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    }

    /// Every written policy file under `dir` (by the names discovery gives them).
    fn policies_under(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                policies_under(&p, out);
            } else if let Some(name) = p.file_name().and_then(|n| n.to_str()) {
                if matches!(name, "retry-policy.yaml" | "retry-policy.yml")
                    || name.ends_with(".retry-policy.yaml")
                    || name.ends_with(".retry-policy.yml")
                {
                    out.push(p);
                }
            }
        }
    }

    /// The values of settings, without their origins.
    fn plain(s: &Settings) -> String {
        let v = |x: &Option<Spanned<String>>| x.as_ref().map(|x| x.value.clone());
        format!(
            "{:?} todo {:?}",
            (
                (
                    s.layer.as_ref().map(|x| x.value),
                    s.retry.as_ref().map(|x| x.value),
                    s.effect.as_ref().map(|x| x.value),
                    s.idempotency_key.as_ref().map(|k| {
                        (
                            v(&k.header),
                            k.retention.as_ref().map(|x| x.value),
                            v(&k.scope),
                            k.on_payload_mismatch.as_ref().map(|x| x.value),
                            k.on_concurrent.as_ref().map(|x| x.value),
                        )
                    }),
                    s.status_endpoint.as_ref().map(|x| x.value.to_string()),
                    s.on_unknown_result.as_ref().map(|x| x.value),
                    s.attempts.as_ref().map(|x| x.value),
                    s.deadline.as_ref().map(|x| x.value),
                    s.attempt_timeout.as_ref().map(|x| x.value),
                ),
                s.backoff.as_ref().map(|b| {
                    (
                        b.base.as_ref().map(|x| x.value),
                        b.cap.as_ref().map(|x| x.value),
                        b.multiplier.as_ref().map(|x| x.value),
                        b.jitter.as_ref().map(|x| x.value),
                    )
                }),
                s.retry_on
                    .as_ref()
                    .map(|l| l.value.iter().map(|x| x.value).collect::<Vec<_>>()),
                s.methods.as_ref().map(|l| l
                    .value
                    .iter()
                    .map(|x| x.value.clone())
                    .collect::<Vec<_>>()),
                s.retry_after.as_ref().map(|r| {
                    (
                        r.honor.as_ref().map(|x| x.value),
                        r.max.as_ref().map(|x| x.value),
                        r.on_invalid.as_ref().map(|x| x.value),
                        r.on_above_max.as_ref().map(|x| x.value),
                    )
                }),
                s.budget.as_ref().map(|x| x.value),
                s.hedging.as_ref().map(|x| x.value),
                s.ignore
                    .iter()
                    .map(|i| (v(&i.rule), v(&i.reason)))
                    .collect::<Vec<_>>(),
            ),
            {
                let mut t: Vec<&str> = s.todos.iter().map(|t| t.field).collect();
                t.sort_unstable();
                t
            }
        )
    }

    fn plain_file(p: &PolicyFile) -> String {
        format!(
            "version {:?}\nspec {:?}\nlayer {:?}\ndefaults {:?}\nignore {:?}\n{}",
            p.version.as_ref().map(|x| x.value),
            p.spec.iter().map(|x| x.value.clone()).collect::<Vec<_>>(),
            p.layer.as_ref().map(|x| x.value),
            p.defaults.as_ref().map(plain),
            p.ignore
                .iter()
                .map(|i| (
                    i.rule.as_ref().map(|x| x.value.clone()),
                    i.reason.as_ref().map(|x| x.value.clone())
                ))
                .collect::<Vec<_>>(),
            p.operations
                .iter()
                .map(|e| format!("{:?}: {}\n", e.text, plain(&e.settings)))
                .collect::<String>()
        )
    }

    fn location(at: &At) -> Option<String> {
        Some(at.location().position())
    }

    fn emit(p: &PolicyFile) -> String {
        render(
            p,
            &EmitOptions {
                origin: &location,
                header: &["a header".to_string()],
                spec: None,
            },
        )
    }

    #[test]
    fn every_written_fixture_policy_reads_back_with_the_same_settings() {
        let mut files = Vec::new();
        policies_under(&repo().join("fixtures"), &mut files);
        assert!(files.len() > 50, "found only {} policies", files.len());
        let ws = Workspace::new(repo(), Limits::default());
        let mut checked = 0;
        for path in &files {
            let doc = ws.load(path);
            let (Some(original), diags) = load_policy(&doc) else {
                continue;
            };
            let text = emit(&original);
            let again_path = path.with_extension("emitted.retry-policy.yaml");
            let again_doc = ws.load_text(&again_path, &text);
            let (again, again_diags) = load_policy(&again_doc);
            let again = again.unwrap_or_else(|| {
                panic!(
                    "{}: the emitted text does not parse:\n{text}",
                    path.display()
                )
            });
            assert_eq!(
                plain_file(&original),
                plain_file(&again),
                "{}: settings differ after a round trip; emitted:\n{text}",
                path.display()
            );
            if diags.is_empty() {
                assert!(
                    again_diags.is_empty(),
                    "{}: the emitted text has findings {:?}:\n{text}",
                    path.display(),
                    again_diags.iter().map(|d| &d.message).collect::<Vec<_>>()
                );
            }
            checked += 1;
        }
        assert!(checked > 50, "checked only {checked}");
    }

    /// Every shape of `docs/policy-format.md`, including the ones few fixtures use.
    #[test]
    fn every_shape_reads_back() {
        let text = r#"version: 1
spec: [a.yaml, "../b c.yaml"]
layer: gateway
defaults:
  retry: true
  attempt_timeout: remaining
  backoff: {base: 0.5ms, cap: 90s, multiplier: 1.5, jitter: {proportional: 0.2}}
  retry_on: [reset-before-request, unavailable, 5XX, 429, transport]
  methods: [GET, PUT]
  budget: {max_concurrent_retries: 3}
  hedging: {attempts: 3}
operations:
  "GET /orders/{id}":
    budget: {tokens: 10, token_ratio: 0.1}
    retry_after: {}
  createOrder:
    effect: non-idempotent
    status_endpoint: "GET /orders/by-key/{key}"
    on_unknown_result: check-status
    budget: {ratio: 0.2, min_per_second: 10, min_concurrent: 3, window: 1m30s}
    hedging: {attempts: 2, delay: 100ms}
    idempotency_key: {header: "X-Key", scope: "yes", on_concurrent: wait}
    ignore: [{rule: RL201, reason: "reviewed: #42, keys: yes"}]
  "* /health": {}
ignore:
  - rule: RL305
    reason: 'the gateway''s jitter is fixed'
"#;
        let dir = repo();
        let ws = Workspace::new(dir.clone(), Limits::default());
        let doc = ws.load_text(&dir.join("shapes.retry-policy.yaml"), text);
        let (original, diags) = load_policy(&doc);
        assert!(
            diags.is_empty(),
            "{:?}",
            diags.iter().map(|d| &d.message).collect::<Vec<_>>()
        );
        let original = original.expect("parses");
        let emitted = emit(&original);
        let again = ws.load_text(&dir.join("shapes2.retry-policy.yaml"), &emitted);
        let (again, again_diags) = load_policy(&again);
        assert!(again_diags.is_empty(), "{emitted}");
        assert_eq!(
            plain_file(&original),
            plain_file(&again.expect("parses")),
            "{emitted}"
        );
        insta::assert_snapshot!("every_shape", emitted);
    }

    #[test]
    fn snapshots_of_written_policies() {
        let ws = Workspace::new(repo(), Limits::default());
        for (name, path) in [
            (
                "layers_client",
                "fixtures/examples/layers/client.retry-policy.yaml",
            ),
            (
                "layers_budget_mesh",
                "fixtures/examples/layers-budget/mesh.retry-policy.yaml",
            ),
            ("shop", "fixtures/examples/shop/shop.retry-policy.yaml"),
        ] {
            let doc = ws.load(&repo().join(path));
            let (Some(p), _) = load_policy(&doc) else {
                panic!("{path} does not parse");
            };
            insta::assert_snapshot!(name, emit(&p));
        }
    }

    #[test]
    fn strings_yaml_would_misread_are_quoted() {
        assert_eq!(scalar("Idempotency-Key"), "Idempotency-Key");
        assert_eq!(scalar("POST /orders/{id}"), "POST /orders/{id}");
        assert_eq!(scalar("per API key"), "per API key");
        assert_eq!(scalar("../api/openapi.yaml"), "../api/openapi.yaml");
        for s in [
            "yes", "No", "null", "123", "1.5", "0x1f", "", " a", "a: b", "#x", "*", "-x", "a, {b}",
            "x\ny", "é",
        ] {
            let q = scalar(s);
            assert!(q.starts_with('"'), "{s:?} -> {q}");
        }
        assert_eq!(scalar("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
    }

    #[test]
    fn durations_use_the_largest_exact_unit() {
        assert_eq!(duration(250.0), "250ms");
        assert_eq!(duration(2000.0), "2s");
        assert_eq!(duration(1500.0), "1500ms");
        assert_eq!(duration(86_400_000.0), "1d");
        assert_eq!(duration(90_000.0), "90s");
        assert_eq!(duration(0.0), "0s");
        assert_eq!(duration(0.5), "0.5ms");
        for ms in [
            0.0,
            0.5,
            1.0,
            25.0,
            1500.0,
            60_000.0,
            3_600_000.0,
            123_456.789,
        ] {
            assert_eq!(
                crate::policy::duration::parse_duration(&duration(ms)),
                Ok(ms)
            );
        }
    }
}
