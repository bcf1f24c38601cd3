//! Matching the operations of two sides and listing what changed in their retry
//! contract: regressions (what got worse) and improvements (what got better).
//!
//! Operations match by `operationId` when both sides have one, else by method and
//! path template with parameter names ignored (`/orders/{id}` is
//! `/orders/{orderId}`), within the same OpenAPI document (relative to each side's
//! root; when each side has a single document, documents need not share a name).

use super::facts::{LayerFacts, OpFacts, Pos};
use serde::Serialize;
use std::collections::HashSet;

/// Every kind of regression, with what it means (the README and `--format json`
/// list them under these names).
pub const REGRESSIONS: [(&str, &str); 15] = [
    ("key-removed", "the idempotency-key header was removed"),
    ("key-renamed", "the idempotency-key header was renamed"),
    (
        "key-optional",
        "the idempotency-key header was made optional",
    ),
    (
        "key-error-removed",
        "a 409 or 422 key-error response was removed",
    ),
    (
        "retry-after-removed",
        "Retry-After was removed from a 429 or 503",
    ),
    (
        "status-endpoint-lost",
        "the status endpoint was removed or can no longer report the outcome",
    ),
    ("method-changed", "the operation's method changed"),
    ("effect-changed", "the operation's effect changed"),
    (
        "starts-retrying-non-idempotent",
        "a layer starts retrying a non-idempotent operation",
    ),
    ("retry-on-widened", "a layer retries on more signals"),
    ("attempts-raised", "a layer makes more attempts"),
    ("jitter-dropped", "a layer's backoff lost its jitter"),
    ("deadline-lost", "a layer lost its deadline"),
    (
        "amplification-up",
        "more attempts reach the upstream (product over layers)",
    ),
    ("verdict-down", "the readiness verdict got worse"),
];

/// Which side a position is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SideName {
    /// The base (before): a removal points here.
    Base,
    /// The head (after).
    Head,
}

/// One change of one operation.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    /// The kind (`key-optional`, ...: [`REGRESSIONS`], or an improvement's name).
    pub kind: &'static str,
    /// The operation (`POST /orders`), as HEAD names it (BASE for a removed one).
    pub operation: String,
    /// Its `operationId`.
    pub operation_id: Option<String>,
    /// The layer, for layer changes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layer: Option<String>,
    /// One sentence.
    pub message: String,
    /// The value in BASE (`absent` when it was not there).
    pub base: String,
    /// The value in HEAD (`absent` when it is not there).
    pub head: String,
    /// Where: in HEAD, or in BASE for a removal.
    pub side: SideName,
    /// The position.
    pub at: Pos,
}

/// What changed between two sides.
#[derive(Debug, Default)]
pub struct Changes {
    /// What got worse, by HEAD position.
    pub regressions: Vec<Change>,
    /// What got better.
    pub improvements: Vec<Change>,
    /// Operations only in HEAD (`POST /orders`).
    pub added: Vec<String>,
    /// Operations only in BASE.
    pub removed: Vec<String>,
}

const ABSENT: &str = "absent";

/// Pairs BASE and HEAD operations: by `operationId` when both have one, then by
/// method and path shape. Returns (base index, head index) pairs.
pub fn pair(base: &[OpFacts], head: &[OpFacts]) -> Vec<(usize, usize)> {
    let single = one_document(base) && one_document(head);
    let same_doc = |b: &OpFacts, h: &OpFacts| single || b.document == h.document;
    let mut used_base = HashSet::new();
    let mut used_head = HashSet::new();
    let mut pairs = Vec::new();
    // The paths of one operation (callers, profiles, entry paths) pair with the same
    // path first, then with what is left.
    for same_path in [true, false] {
        let path_ok = |b: &OpFacts, h: &OpFacts| !same_path || b.variant == h.variant;
        for (hi, h) in head.iter().enumerate() {
            let Some(id) = &h.operation_id else { continue };
            if used_head.contains(&hi) {
                continue;
            }
            if let Some(bi) = base.iter().enumerate().position(|(bi, b)| {
                !used_base.contains(&bi)
                    && b.operation_id.as_ref() == Some(id)
                    && same_doc(b, h)
                    && path_ok(b, h)
            }) {
                used_base.insert(bi);
                used_head.insert(hi);
                pairs.push((bi, hi));
            }
        }
        for (hi, h) in head.iter().enumerate() {
            if used_head.contains(&hi) {
                continue;
            }
            if let Some(bi) = base.iter().enumerate().position(|(bi, b)| {
                !used_base.contains(&bi)
                    && b.method == h.method
                    && b.shape == h.shape
                    && same_doc(b, h)
                    && path_ok(b, h)
                    // Two operationIds that differ name two operations.
                    && (b.operation_id.is_none() || h.operation_id.is_none())
            }) {
                used_base.insert(bi);
                used_head.insert(hi);
                pairs.push((bi, hi));
            }
        }
    }
    pairs.sort_by_key(|&(_, h)| h);
    pairs
}

/// Pairs the layers of one operation on both sides: for each head layer, the base
/// layer it is compared with, if any. A layer pairs with one of the same kind
/// written in the same file, then with the rest of its kind in order. Two client
/// layers of one operation (a client in code and a Resilience4j instance) each
/// pair with their own, not both with the first client layer of the other side.
fn pair_layers(base: &[LayerFacts], head: &[LayerFacts]) -> Vec<Option<usize>> {
    fn file(l: &LayerFacts) -> Option<&str> {
        l.pos.as_ref().map(|p| p.path.as_str())
    }
    let mut used = vec![false; base.len()];
    let mut take = |hl: &LayerFacts, same_file: bool| {
        let bi = base.iter().enumerate().position(|(bi, bl)| {
            !used[bi]
                && bl.layer == hl.layer
                && (!same_file || (file(hl).is_some() && file(bl) == file(hl)))
        })?;
        used[bi] = true;
        Some(bi)
    };
    let mut paired: Vec<Option<usize>> = head.iter().map(|hl| take(hl, true)).collect();
    for (hi, hl) in head.iter().enumerate() {
        if paired[hi].is_none() {
            paired[hi] = take(hl, false);
        }
    }
    paired
}

fn one_document(ops: &[OpFacts]) -> bool {
    ops.windows(2).all(|w| w[0].document == w[1].document)
}

/// Compares two sides.
pub fn compare(base: &[OpFacts], head: &[OpFacts]) -> Changes {
    let pairs = pair(base, head);
    let mut out = Changes::default();
    for &(bi, hi) in &pairs {
        operation(&base[bi], &head[hi], &mut out);
    }
    let paired_base: HashSet<usize> = pairs.iter().map(|p| p.0).collect();
    let paired_head: HashSet<usize> = pairs.iter().map(|p| p.1).collect();
    out.added = (0..head.len())
        .filter(|i| !paired_head.contains(i))
        .map(|i| head[i].display.clone())
        .collect();
    out.removed = (0..base.len())
        .filter(|i| !paired_base.contains(i))
        .map(|i| base[i].display.clone())
        .collect();
    out
}

/// Builds changes of one operation pair.
struct Op<'a> {
    b: &'a OpFacts,
    h: &'a OpFacts,
    out: &'a mut Changes,
}

impl Op<'_> {
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        regression: bool,
        kind: &'static str,
        layer: Option<&str>,
        message: String,
        base: String,
        head: String,
        side: SideName,
        at: &Pos,
    ) {
        let change = Change {
            kind,
            operation: self.h.display.clone(),
            operation_id: self.h.operation_id.clone(),
            layer: layer.map(str::to_string),
            message,
            base,
            head,
            side,
            at: at.clone(),
        };
        if regression {
            self.out.regressions.push(change);
        } else {
            self.out.improvements.push(change);
        }
    }
}

fn key_label(header: &str, required: bool) -> String {
    format!(
        "{header} ({})",
        if required { "required" } else { "optional" }
    )
}

fn operation(b: &OpFacts, h: &OpFacts, out: &mut Changes) {
    use SideName::{Base, Head};
    let mut op = Op { b, h, out };
    // The idempotency key of the spec.
    match (&b.key, &h.key) {
        (Some(bk), hk) => {
            let same = hk
                .as_ref()
                .filter(|k| k.header.eq_ignore_ascii_case(&bk.header));
            if let Some(k) = same {
                if bk.required && !k.required {
                    op.push(
                        true,
                        "key-optional",
                        None,
                        format!(
                            "the idempotency-key header {} is no longer required",
                            k.header
                        ),
                        key_label(&bk.header, true),
                        key_label(&k.header, false),
                        Head,
                        &k.pos,
                    );
                }
            } else if let Some((name, pos)) = hk
                .as_ref()
                .map(|k| (k.header.clone(), k.pos.clone()))
                .or_else(|| renamed_key(h))
            {
                op.push(
                    true,
                    "key-renamed",
                    None,
                    format!(
                        "the idempotency-key header {} is now {name}: clients and layers sending {} send no key",
                        bk.header, bk.header
                    ),
                    bk.header.clone(),
                    name,
                    Head,
                    &pos,
                );
            } else {
                op.push(
                    true,
                    "key-removed",
                    None,
                    format!("the idempotency-key header {} was removed", bk.header),
                    key_label(&bk.header, bk.required),
                    ABSENT.into(),
                    Base,
                    // The operation's listing: a shared parameter's definition is
                    // the same place for every operation.
                    &bk.listed,
                );
            }
        }
        (None, Some(hk)) => op.push(
            false,
            "key-added",
            None,
            format!("the idempotency-key header {} was added", hk.header),
            ABSENT.into(),
            key_label(&hk.header, hk.required),
            Head,
            &hk.pos,
        ),
        (None, None) => {}
    }
    if let (Some(bk), Some(hk)) = (&b.key, &h.key) {
        if bk.header.eq_ignore_ascii_case(&hk.header) && !bk.required && hk.required {
            op.push(
                false,
                "key-required",
                None,
                format!("the idempotency-key header {} is now required", hk.header),
                key_label(&bk.header, false),
                key_label(&hk.header, true),
                Head,
                &hk.pos,
            );
        }
    }
    // Key errors: only for an operation whose BASE has a key.
    if b.key.is_some() {
        for (code, pos) in &b.key_errors {
            if !h.key_errors.iter().any(|(c, _)| c == code) {
                op.push(
                    true,
                    "key-error-removed",
                    None,
                    format!(
                        "the {code} response ({}) was removed",
                        if *code == 409 {
                            "a request with this key is in progress"
                        } else {
                            "this key was used with another payload"
                        }
                    ),
                    format!("{code} documented"),
                    ABSENT.into(),
                    Base,
                    pos,
                );
            }
        }
    }
    for (code, pos) in &b.retry_after {
        if !h.retry_after.iter().any(|(c, _)| c == code) {
            let head_value = if h.throttle_responses.iter().any(|(c, _)| c == code) {
                format!("{code} without Retry-After")
            } else {
                format!("no {code} response")
            };
            op.push(
                true,
                "retry-after-removed",
                None,
                format!("the {code} response no longer declares Retry-After: clients cannot know how long to wait"),
                format!("{code} with Retry-After"),
                head_value,
                Base,
                pos,
            );
        }
    }
    for (code, pos) in &h.retry_after {
        if !b.retry_after.iter().any(|(c, _)| c == code) {
            op.push(
                false,
                "retry-after-added",
                None,
                format!("the {code} response now declares Retry-After"),
                ABSENT.into(),
                format!("{code} with Retry-After"),
                Head,
                pos,
            );
        }
    }
    status_endpoint(&mut op);
    if b.method != h.method {
        op.push(
            true,
            "method-changed",
            None,
            format!(
                "the method of {} changed from {} to {}: layers that filter by method or derive the effect from it now treat it differently",
                h.operation_id.as_deref().unwrap_or(&h.display),
                b.method,
                h.method
            ),
            b.method.clone(),
            h.method.clone(),
            Head,
            &h.pos,
        );
    }
    if b.effect != h.effect {
        op.push(
            true,
            "effect-changed",
            None,
            format!(
                "the effect changed from {} to {}: check that every layer's retries still fit",
                b.effect, h.effect
            ),
            b.effect.clone(),
            h.effect.clone(),
            Head,
            h.effect_pos.as_ref().unwrap_or(&h.pos),
        );
    }
    let paired = pair_layers(&b.layers, &h.layers);
    for (hl, bi) in h.layers.iter().zip(&paired) {
        layer(&mut op, bi.map(|bi| &b.layers[bi]), hl);
    }
    for (bi, bl) in b.layers.iter().enumerate() {
        let kept = paired.contains(&Some(bi));
        if bl.retried && !kept && bl.non_idempotent {
            op.push(
                false,
                "stops-retrying-non-idempotent",
                Some(&bl.layer),
                format!("the {} layer no longer applies", bl.layer),
                "retried".into(),
                "not retried".into(),
                Base,
                bl.pos.as_ref().unwrap_or(&b.pos),
            );
        }
    }
    if h.amplification != b.amplification {
        let up = h.amplification > b.amplification;
        op.push(
            up,
            if up {
                "amplification-up"
            } else {
                "amplification-down"
            },
            None,
            format!(
                "one request now reaches the upstream up to {} times (was {})",
                h.amplification, b.amplification
            ),
            format!("{}x", b.amplification),
            format!("{}x", h.amplification),
            Head,
            &h.pos,
        );
    }
    let rank = |v: &str| u8::from(v != "not-ready");
    if rank(&h.verdict) != rank(&b.verdict) {
        let down = rank(&h.verdict) < rank(&b.verdict);
        // Why HEAD is not ready: the unanswered questions, else its findings.
        let missing = if !h.missing.is_empty() {
            format!(" (missing {})", h.missing.join(", "))
        } else if down && !h.findings.is_empty() {
            format!(" (findings {})", h.findings.join(", "))
        } else {
            String::new()
        };
        op.push(
            down,
            if down { "verdict-down" } else { "verdict-up" },
            None,
            format!(
                "the readiness verdict went from {} to {}{missing}",
                b.verdict, h.verdict
            ),
            b.verdict.clone(),
            h.verdict.clone(),
            Head,
            &h.pos,
        );
    }
}

/// A header of HEAD that looks like a renamed key (`Idempotency-Key` ->
/// `X-Idempotency-Key`, `Idempotency-Token`).
fn renamed_key(h: &OpFacts) -> Option<(String, Pos)> {
    h.headers
        .iter()
        .find(|(name, _)| {
            let n = name.to_ascii_lowercase();
            n.contains("idempoten") || crate::retry::is_key_header(name)
        })
        .cloned()
}

fn status_endpoint(op: &mut Op<'_>) {
    use SideName::{Base, Head};
    let Some(bs) = op.b.status.clone().filter(|s| s.reports) else {
        return;
    };
    let base_value = format!("{} (documents a 2xx)", bs.selector);
    match op.h.status.clone() {
        None => op.push(
            true,
            "status-endpoint-lost",
            Some("client"),
            "the status endpoint was removed: after an unknown result the client can no longer ask what happened".to_string(),
            base_value,
            ABSENT.into(),
            Base,
            &bs.pos,
        ),
        Some(hs) if hs.target.is_none() => op.push(
            true,
            "status-endpoint-lost",
            Some("client"),
            format!("the status endpoint {} matches no operation any more", hs.selector),
            base_value,
            format!("{} (matches no operation)", hs.selector),
            Head,
            &hs.pos,
        ),
        Some(hs) if !hs.reports => op.push(
            true,
            "status-endpoint-lost",
            Some("client"),
            format!(
                "the status endpoint {} documents no 2xx response any more, so it cannot report the outcome",
                hs.target.clone().unwrap_or_default()
            ),
            base_value,
            format!("{} (no 2xx response)", hs.selector),
            Head,
            hs.target_pos.as_ref().unwrap_or(&hs.pos),
        ),
        Some(_) => {}
    }
}

fn signals(l: &LayerFacts) -> String {
    if l.retry_on.is_empty() {
        "[]".to_string()
    } else {
        format!("[{}]", l.retry_on.join(", "))
    }
}

fn layer(op: &mut Op<'_>, bl: Option<&LayerFacts>, hl: &LayerFacts) {
    use SideName::{Base, Head};
    let name = Some(hl.layer.as_str());
    let here = |p: &Option<Pos>| p.clone().or_else(|| hl.pos.clone());
    let was_retrying = bl.is_some_and(|b| b.retried && b.non_idempotent);
    if hl.retried && hl.non_idempotent && !was_retrying {
        let at = here(&hl.pos).unwrap_or_else(|| op.h.pos.clone());
        op.push(
            true,
            "starts-retrying-non-idempotent",
            name,
            format!(
                "the {} layer now retries this non-idempotent operation on {}",
                hl.layer,
                signals(hl)
            ),
            "not retried".into(),
            format!("retried on {}", signals(hl)),
            Head,
            &at,
        );
    }
    if was_retrying && !(hl.retried && hl.non_idempotent) {
        let at = here(&hl.pos).unwrap_or_else(|| op.h.pos.clone());
        op.push(
            false,
            "stops-retrying-non-idempotent",
            name,
            format!(
                "the {} layer no longer retries this non-idempotent operation",
                hl.layer
            ),
            "retried".into(),
            "not retried".into(),
            Head,
            &at,
        );
    }
    let Some(bl) = bl else { return };
    if bl.retried && hl.retried {
        let added: Vec<&String> = hl
            .retry_on
            .iter()
            .filter(|s| !bl.retry_on.contains(s))
            .collect();
        let dropped = bl.retry_on.iter().any(|s| !hl.retry_on.contains(s));
        if !added.is_empty() {
            let at = here(&hl.retry_on_pos).unwrap_or_else(|| op.h.pos.clone());
            op.push(
                true,
                "retry-on-widened",
                name,
                format!(
                    "the {} layer now also retries on {}",
                    hl.layer,
                    added
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                signals(bl),
                signals(hl),
                Head,
                &at,
            );
        } else if dropped {
            let at = here(&hl.retry_on_pos).unwrap_or_else(|| op.h.pos.clone());
            op.push(
                false,
                "retry-on-narrowed",
                name,
                format!("the {} layer retries on fewer signals", hl.layer),
                signals(bl),
                signals(hl),
                Head,
                &at,
            );
        }
        if let (Some(ba), Some(ha)) = (bl.attempts, hl.attempts) {
            if ha != ba {
                let at = here(&hl.attempts_pos).unwrap_or_else(|| op.h.pos.clone());
                op.push(
                    ha > ba,
                    if ha > ba {
                        "attempts-raised"
                    } else {
                        "attempts-lowered"
                    },
                    name,
                    format!("the {} layer makes {ha} attempts (was {ba})", hl.layer),
                    ba.to_string(),
                    ha.to_string(),
                    Head,
                    &at,
                );
            }
        }
        let jittered = |l: &LayerFacts| l.jitter.as_deref().is_some_and(|j| j != "none");
        let jitter_value = |l: &LayerFacts| l.jitter.clone().unwrap_or_else(|| ABSENT.into());
        if jittered(bl) && !jittered(hl) {
            let (side, at) = match &hl.jitter_pos {
                Some(p) => (Head, p.clone()),
                None => (
                    Base,
                    bl.jitter_pos
                        .clone()
                        .or_else(|| bl.pos.clone())
                        .unwrap_or_else(|| op.b.pos.clone()),
                ),
            };
            op.push(
                true,
                "jitter-dropped",
                name,
                format!(
                    "the {} layer's backoff has no jitter any more: clients that failed together retry together",
                    hl.layer
                ),
                jitter_value(bl),
                jitter_value(hl),
                side,
                &at,
            );
        } else if !jittered(bl) && jittered(hl) {
            let at = here(&hl.jitter_pos).unwrap_or_else(|| op.h.pos.clone());
            op.push(
                false,
                "jitter-added",
                name,
                format!("the {} layer's backoff is now jittered", hl.layer),
                jitter_value(bl),
                jitter_value(hl),
                Head,
                &at,
            );
        }
    }
    let ms = |v: Option<f64>| {
        v.map_or_else(
            || ABSENT.to_string(),
            crate::policy::duration::format_millis,
        )
    };
    match (bl.deadline_ms, hl.deadline_ms) {
        (Some(_), None) if hl.retried => {
            let at = bl
                .deadline_pos
                .clone()
                .or_else(|| bl.pos.clone())
                .unwrap_or_else(|| op.b.pos.clone());
            op.push(
                true,
                "deadline-lost",
                name,
                format!(
                    "the {} layer has no deadline any more: its retries are bounded only by attempts",
                    hl.layer
                ),
                ms(bl.deadline_ms),
                ms(None),
                Base,
                &at,
            );
        }
        (None, Some(_)) if bl.retried || hl.retried => {
            let at = here(&hl.deadline_pos).unwrap_or_else(|| op.h.pos.clone());
            op.push(
                false,
                "deadline-added",
                name,
                format!("the {} layer now has a deadline", hl.layer),
                ms(None),
                ms(hl.deadline_ms),
                Head,
                &at,
            );
        }
        _ => {}
    }
}
