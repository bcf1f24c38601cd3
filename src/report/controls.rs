//! Characters a spec must not hand the terminal: C0 controls (but tab and line feed,
//! which are structure), DEL, C1 controls, the line and paragraph separators
//! U+2028/U+2029, and the bidirectional controls U+202A–U+202E and U+2066–U+2069
//! ("Trojan Source", CVE-2021-42574). Printed raw, they recolour, hide or overwrite
//! lines of the report, or reorder what a reader sees.
//!
//! Messages, labels and help show them escaped ([`escape`], `\u{1b}`); source
//! excerpts replace them in place ([`mask`]) with a placeholder of the same byte
//! length, so byte offsets and spans stay those of the file.

use std::borrow::Cow;

/// Whether `c` must not reach a terminal raw (tab and line feed may).
pub fn is_unsafe(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `s` with each unsafe character written as `\u{1b}` (Rust's escape); borrowed
/// unchanged when there is none.
pub fn escape(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Replaces, in place, each unsafe character of the UTF-8 text `bytes` with a
/// placeholder of its byte length: `?` (1 byte), `¿` (2), `�` (3). A carriage return
/// stays when a line feed follows it (a CRLF line break). Returns whether anything
/// changed. Text that is not UTF-8 is left as it is past the first bad byte.
pub fn mask(bytes: &mut [u8]) -> bool {
    let mut changed = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let len = match b {
            0x00..=0x7f => 1,
            0xc0..=0xdf => 2,
            0xe0..=0xef => 3,
            _ => 4,
        };
        let Some(chunk) = bytes.get(i..i + len) else {
            break;
        };
        let Some(c) = std::str::from_utf8(chunk)
            .ok()
            .and_then(|s| s.chars().next())
        else {
            break;
        };
        let crlf = c == '\r' && bytes.get(i + 1).is_none_or(|&n| n == b'\n');
        if is_unsafe(c) && !crlf {
            let placeholder: &[u8] = match len {
                1 => b"?",
                2 => "¿".as_bytes(),
                _ => "\u{fffd}".as_bytes(),
            };
            bytes[i..i + len].copy_from_slice(placeholder);
            changed = true;
        }
        i += len;
    }
    changed
}

/// `text` with [`mask`] applied, or `None` when it has nothing to mask.
pub fn masked(text: &str) -> Option<String> {
    if !text.chars().any(is_unsafe) {
        return None;
    }
    let mut bytes = text.as_bytes().to_vec();
    if !mask(&mut bytes) {
        return None;
    }
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_text_is_borrowed() {
        assert!(matches!(escape("GET /a\tb\nc é"), Cow::Borrowed(_)));
        assert_eq!(masked("a: 1\r\nb: 2\n"), None);
    }

    #[test]
    fn controls_are_escaped() {
        assert_eq!(
            escape("/a\u{1}b\u{1b}[31mRED\u{7}\u{2028}x\u{202e}\u{85}\r"),
            "/a\\u{1}b\\u{1b}[31mRED\\u{7}\\u{2028}x\\u{202e}\\u{85}\\u{d}"
        );
    }

    #[test]
    fn masks_keep_byte_length() {
        let text = "a\u{1b}[31m \u{85} \u{202e}x\u{2069}\rz\r\n";
        let m = masked(text).unwrap();
        assert_eq!(m.len(), text.len());
        assert_eq!(m, "a?[31m ¿ \u{fffd}x\u{fffd}?z\r\n");
        assert!(!m.chars().any(is_unsafe) || m.ends_with("\r\n"));
    }
}
