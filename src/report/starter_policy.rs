//! The starter policy `retrylint init` writes: a v1 retry-policy file for the
//! operations of some documents and one layer, with what the spec (and any imported
//! retry config of that layer) already answers filled in, every open readiness
//! question written as `todo` (docs/policy-format.md "Open questions: `todo`"), and a
//! comment on each choice.
//!
//! It never guesses that a non-idempotent operation is safe: an operation that is
//! non-idempotent by its method and has no idempotency-key header in the spec gets
//! `effect: todo` (read as `non-idempotent`) and `retry: false`, never `retry_on`.
//! The text is read back with the real policy parser in the tests.

use super::policy_yaml::{duration, scalar};
use crate::analysis::{Analysis, EffectivePolicy, Field};
use crate::openapi::model::{Document, Operation};
use crate::policy::model::{Effect, Jitter, Layer};
use crate::policy::selector::Selector;
use crate::source::refs::At;
use std::collections::HashMap;

/// What to write.
pub struct StarterOptions<'a> {
    /// The layer the policy describes.
    pub layer: Layer,
    /// Indices into the documents of the operations to write, in order.
    pub documents: &'a [usize],
    /// `spec:` as the output file's reader resolves it (relative to its folder).
    pub spec: &'a [String],
}

/// One output line: indent level, text, and an end-of-line comment.
struct Line {
    indent: usize,
    text: String,
    comment: Option<String>,
}

/// Comments start at this column at most (longer lines get two spaces).
const COMMENT_COLUMN: usize = 40;

/// The starter policy as YAML text (ends with a newline).
pub fn render(documents: &[Document], analysis: &Analysis, options: &StarterOptions<'_>) -> String {
    let layer = options.layer;
    let mut out: Vec<Line> = Vec::new();
    let mut say = |indent: usize, text: &str, comment: Option<&str>| {
        out.push(Line {
            indent,
            text: text.to_string(),
            comment: comment.map(str::to_string),
        })
    };
    say(0, "version: 1", None);
    match options.spec {
        [one] => say(0, &format!("spec: {}", scalar(one)), None),
        many => {
            say(0, "spec:", None);
            for s in many {
                say(1, &format!("- {}", scalar(s)), None);
            }
        }
    }
    say(0, &format!("layer: {}", layer.as_str()), None);
    say(
        0,
        "# Q3 budget, for every operation its entry does not answer:",
        None,
    );
    say(0, "defaults:", None);
    say(
        1,
        "attempts: todo",
        Some("total attempts, the first included (1 = no retry)"),
    );
    say(
        1,
        "deadline: todo",
        Some("budget for every attempt and wait, e.g. 3s"),
    );
    say(1, "backoff:", None);
    say(2, "base: todo", Some("first delay, e.g. 100ms"));
    say(2, "cap: todo", Some("largest delay, e.g. 2s"));
    say(
        2,
        "jitter: todo",
        Some("full | equal | decorrelated | {proportional: F} | none"),
    );

    let ops: Vec<(usize, usize, &Operation)> = options
        .documents
        .iter()
        .flat_map(|&d| {
            documents[d]
                .operations
                .iter()
                .enumerate()
                .map(move |(i, op)| (d, i, op))
        })
        .collect();
    let mut ids: HashMap<&str, usize> = HashMap::new();
    for (_, _, op) in &ops {
        if let Some(id) = &op.operation_id {
            *ids.entry(id.as_str()).or_default() += 1;
        }
    }
    if ops.is_empty() {
        say(0, "operations: {}", Some("the spec declares no operation"));
    } else {
        say(0, "operations:", None);
    }
    let mut written: Vec<String> = Vec::new();
    for (d, i, op) in ops {
        // An operationId names one operation only when no other document reuses it,
        // and only when the policy reads it back as an operationId: one with a `/` or
        // whitespace (`orders/list`, `GET /other`) would be read as `METHOD /path`.
        let key = match &op.operation_id {
            Some(id) if ids.get(id.as_str()) == Some(&1) && reads_as_operation_id(id) => id.clone(),
            _ => op.display(),
        };
        if written.contains(&key) {
            continue; // the same selector in two documents: the first one speaks for both
        }
        written.push(key.clone());
        let imported = imported_layer(analysis, d, i, layer);
        let x_retry_effect = analysis
            .operations
            .iter()
            .find(|jo| jo.document == d && jo.operation == i)
            .and_then(|jo| jo.x_retry.as_ref())
            .is_some_and(|s| s.effect.is_some())
            || analysis
                .document_x_retry
                .get(d)
                .and_then(Option::as_ref)
                .is_some_and(|s| s.effect.is_some());
        say(1, &format!("{}:", scalar(&key)), Some(&op.display()));
        entry(&mut say, op, layer, x_retry_effect, imported);
    }

    let width = out
        .iter()
        .filter(|l| l.comment.is_some())
        .map(|l| 2 * l.indent + l.text.chars().count())
        .filter(|&w| w <= COMMENT_COLUMN)
        .max()
        .unwrap_or(0);
    let mut text = String::new();
    for l in out {
        let line = format!("{}{}", "  ".repeat(l.indent), l.text);
        text.push_str(&line);
        if let Some(c) = l.comment {
            let pad = (width + 2).saturating_sub(line.chars().count()).max(2);
            text.push_str(&" ".repeat(pad));
            text.push_str("# ");
            text.push_str(&c);
        }
        text.push('\n');
    }
    text
}

/// The layer of an imported retry config governing operation `i` of document `d`,
/// if one of `layer` does: its budget values answer Q3 for the entry.
fn imported_layer(
    analysis: &Analysis,
    d: usize,
    i: usize,
    layer: Layer,
) -> Option<&EffectivePolicy> {
    let jo = analysis
        .operations
        .iter()
        .find(|jo| jo.document == d && jo.operation == i)?;
    jo.layers.iter().find(|l| {
        l.layer == layer
            && l.policy
                .and_then(|p| analysis.policies.get(p))
                .is_some_and(|p| p.imported.is_some())
    })
}

/// `file:line:col` of a node, for a comment.
fn position(at: &At) -> String {
    at.location().position()
}

/// The comment naming where an imported value came from.
fn from<T>(f: &Field<T>) -> String {
    match &f.at {
        Some(at) => format!("from {}", position(at)),
        None => "the config's platform default".into(),
    }
}

/// The entry of one operation, below its selector key.
fn entry(
    say: &mut impl FnMut(usize, &str, Option<&str>),
    op: &Operation,
    layer: Layer,
    x_retry_effect: bool,
    imported: Option<&EffectivePolicy>,
) {
    let method = op.method.to_ascii_uppercase();
    let by_method = Effect::from_openapi_method(&op.method);
    let key = op
        .params
        .iter()
        .find(|p| p.location == "header" && crate::retry::is_key_header(&p.name));
    let non_idempotent = by_method == Effect::NonIdempotent && !x_retry_effect;
    if x_retry_effect {
        say(2, "# Q1: the spec's `x-retry` declares the effect.", None);
    } else if by_method == Effect::Safe {
        say(
            2,
            &format!(
                "# Q1: `{method}` is safe by its method (RFC 9110): a repeat changes nothing."
            ),
            None,
        );
    } else if by_method == Effect::Idempotent {
        say(
            2,
            &format!("# Q1: `{method}` is idempotent by its method (RFC 9110): a repeat leaves the same state."),
            None,
        );
    }
    if non_idempotent && key.is_none() {
        say(
            2,
            &format!(
                "# Q1/Q2: `{method}` is non-idempotent by its method and the spec declares no"
            ),
            None,
        );
        say(
            2,
            "# idempotency-key header: a repeat may do it twice, so it is not retried.",
            None,
        );
        say(
            2,
            "effect: todo",
            Some("read as non-idempotent until answered"),
        );
        say(2, "retry: false", None);
        if layer.is_client() {
            say(
                2,
                "on_unknown_result: todo",
                Some("Q4: check-status (with status_endpoint), reconcile or fail"),
            );
        }
        return;
    }
    if let Some(k) = key {
        if non_idempotent {
            say(
                2,
                &format!(
                    "# Q2: the spec declares the `{}` header{}:",
                    k.name,
                    if k.required { " (required)" } else { "" }
                ),
                None,
            );
            say(2, "# a repeat with the same key is de-duplicated.", None);
            say(
                2,
                "effect: non-idempotent",
                Some("a keyed request has side effects"),
            );
            say(2, "idempotency_key:", None);
            say(
                3,
                &format!("header: {}", scalar(&k.name)),
                Some("from the spec"),
            );
            say(
                3,
                "retention: todo",
                Some("how long the server keeps keys, e.g. 24h"),
            );
            say(3, "scope: todo", Some("per-client | per-account | global"));
            match op.response_for(422) {
                Some(_) => say(
                    3,
                    "on_payload_mismatch: reject",
                    Some("the spec documents 422"),
                ),
                None => say(
                    3,
                    "on_payload_mismatch: todo",
                    Some("reject (422) | ignore"),
                ),
            }
            match op.response_for(409) {
                Some(_) => say(3, "on_concurrent: reject", Some("the spec documents 409")),
                None => say(
                    3,
                    "on_concurrent: todo",
                    Some("reject (409) | wait | ignore"),
                ),
            }
            say(
                2,
                "on_unknown_result: replay-key",
                Some("Q4: repeat with the same key"),
            );
        }
    }
    say(2, "retry: true", None);
    let mut signals = vec!["transport".to_string()];
    let mut statuses: Vec<(u16, bool)> = Vec::new();
    for code in [429u16, 503] {
        if let Some(r) = op.response_for(code) {
            signals.push(code.to_string());
            statuses.push((code, r.header("Retry-After").is_some()));
        }
    }
    let documented = if statuses.is_empty() {
        "no answer came".to_string()
    } else {
        let codes: Vec<String> = statuses.iter().map(|(c, _)| c.to_string()).collect();
        format!("no answer came, or the spec's {}", codes.join(" and "))
    };
    say(
        2,
        &format!("retry_on: [{}]", signals.join(", ")),
        Some(&documented),
    );
    if let Some(eff) = imported {
        budget_from(say, eff);
    }
    if !statuses.is_empty() {
        let with: Vec<String> = statuses
            .iter()
            .filter(|(_, h)| *h)
            .map(|(c, _)| c.to_string())
            .collect();
        let why = if with.is_empty() {
            let rules: Vec<&str> = statuses
                .iter()
                .map(|(c, _)| if *c == 429 { "RL501" } else { "RL502" })
                .collect();
            format!("the spec declares no Retry-After ({})", rules.join(", "))
        } else {
            format!("the spec declares Retry-After on {}", with.join(" and "))
        };
        say(2, "retry_after:", None);
        say(3, "honor: true", Some(&why));
        say(3, "max: todo", Some("longest wait worth it, e.g. 10s"));
    }
}

/// Q3 answers an imported config of the layer gives (attempts, deadline, backoff).
fn budget_from(say: &mut impl FnMut(usize, &str, Option<&str>), eff: &EffectivePolicy) {
    if let Some(a) = &eff.attempts {
        say(2, &format!("attempts: {}", a.value), Some(&from(a)));
    }
    if let Some(d) = &eff.deadline {
        say(
            2,
            &format!("deadline: {}", duration(d.value)),
            Some(&from(d)),
        );
    }
    let b = &eff.backoff;
    let jitter = b
        .jitter
        .as_ref()
        .and_then(|j| jitter_text(j.value).map(|t| (t, j)));
    if b.base.is_some() || b.cap.is_some() || jitter.is_some() {
        say(2, "backoff:", None);
        if let Some(v) = &b.base {
            say(3, &format!("base: {}", duration(v.value)), Some(&from(v)));
        }
        if let Some(v) = &b.cap {
            say(3, &format!("cap: {}", duration(v.value)), Some(&from(v)));
        }
        if let Some((t, j)) = jitter {
            say(3, &format!("jitter: {t}"), Some(&from(j)));
        }
    }
}

/// A jitter as the policy writes it (`{proportional: F}` included).
fn jitter_text(j: Jitter) -> Option<String> {
    Some(match j {
        Jitter::None => "none".into(),
        Jitter::Full => "full".into(),
        Jitter::Equal => "equal".into(),
        Jitter::Decorrelated => "decorrelated".into(),
        Jitter::Proportional(f) => format!("{{proportional: {}}}", f.get()),
    })
}

/// Whether a policy key `id` is read back as this operationId (not as a `METHOD
/// /path` selector, nor refused).
fn reads_as_operation_id(id: &str) -> bool {
    matches!(Selector::parse(id), Ok(Selector::OperationId(_)))
}
