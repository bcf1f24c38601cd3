//! Go literal tokens: integer literals (`1_000`, `0x10`, `0o17`, `017`, `0b101`)
//! and string literals (interpreted `"..."` and raw `` `...` ``).

/// A Go integer literal (`1_000`, `0x10`, `0o17`, `017`, `0b101`).
pub fn parse_int(text: &str) -> Option<i64> {
    let t = text.replace('_', "");
    let lower = t.to_ascii_lowercase();
    if let Some(h) = lower.strip_prefix("0x") {
        i64::from_str_radix(h, 16).ok()
    } else if let Some(b) = lower.strip_prefix("0b") {
        i64::from_str_radix(b, 2).ok()
    } else if let Some(o) = lower.strip_prefix("0o") {
        i64::from_str_radix(o, 8).ok()
    } else if lower.len() > 1 && lower.starts_with('0') {
        i64::from_str_radix(&lower[1..], 8).ok()
    } else {
        lower.parse().ok()
    }
}

/// The value of a Go string literal (interpreted or raw; simple escapes only).
pub fn string_value(text: &str) -> Option<String> {
    if text.len() >= 2 && text.starts_with('`') && text.ends_with('`') {
        return Some(text[1..text.len() - 1].to_string());
    }
    if text.len() >= 2 && text.starts_with('"') && text.ends_with('"') {
        let inner = &text[1..text.len() - 1];
        return Some(inner.replace("\\\"", "\"").replace("\\\\", "\\"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_and_strings() {
        assert_eq!(parse_int("1_000"), Some(1000));
        assert_eq!(parse_int("0x10"), Some(16));
        assert_eq!(parse_int("017"), Some(15));
        assert_eq!(parse_int("0"), Some(0));
        assert_eq!(string_value("\"POST\"").as_deref(), Some("POST"));
        assert_eq!(string_value("`/x`").as_deref(), Some("/x"));
    }
}
