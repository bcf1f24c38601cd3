//! Small builders for imported settings shared by the Gateway API, Envoy Gateway and
//! Linkerd importers: a value with its node, a `retry_on` list, an Envoy-style
//! backoff, and the note on a platform default.

use crate::import::OriginNote;
use crate::policy::duration::Millis;
use crate::policy::model::{BackoffSettings, Jitter, Signal, Spanned};
use crate::source::refs::At;

/// `value` read at (or defaulted at) `at`.
pub fn sp<T>(value: T, at: &At) -> Spanned<T> {
    Spanned {
        value,
        at: at.clone(),
    }
}

/// A note on a platform default applying at `at`.
pub fn note(at: &At, text: impl AsRef<str>) -> OriginNote {
    OriginNote {
        at: at.clone(),
        text: crate::import::note_text(text),
    }
}

/// Appends `signals` (each at `at`) to `list`, skipping ones already present.
pub fn push_signals(list: &mut Vec<Spanned<Signal>>, signals: &[Signal], at: &At) {
    for s in signals {
        if !list.iter().any(|x| x.value == *s) {
            list.push(sp(*s, at));
        }
    }
}

/// An exponential backoff with multiplier 2: `base` at `base_at`, `cap` at `cap_at`,
/// `jitter` at `at` (the mapping).
pub fn backoff(
    at: &At,
    base: (Millis, &At),
    cap: (Millis, &At),
    jitter: Jitter,
) -> BackoffSettings {
    BackoffSettings {
        at: at.clone(),
        base: Some(sp(base.0, base.1)),
        cap: Some(sp(cap.0, cap.1)),
        multiplier: Some(sp(2.0, at)),
        jitter: Some(sp(jitter, at)),
    }
}

/// The signals of an HTTP status range `min..=max` (clamped to 100..=599): whole
/// classes as `Nxx`, the rest as single codes.
pub fn status_range(min: u16, max: u16) -> Vec<Signal> {
    let (min, max) = (min.max(100), max.min(599));
    let mut out = Vec::new();
    let mut code = min;
    while code <= max {
        let class = code / 100;
        if code % 100 == 0 && max >= class * 100 + 99 {
            out.push(Signal::Class(class as u8));
            code += 100;
        } else {
            out.push(Signal::Status(code));
            code += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_become_classes_where_whole() {
        assert_eq!(
            status_range(400, 599),
            vec![Signal::Class(4), Signal::Class(5)]
        );
        assert_eq!(
            status_range(500, 502),
            vec![
                Signal::Status(500),
                Signal::Status(501),
                Signal::Status(502)
            ]
        );
        assert_eq!(status_range(600, 700), vec![]);
    }
}
