//! Java numeric literals (`1_000L`, `1.5d`, `0x10`), shared by the annotation
//! reader and the Spring properties reader.

/// The integer or floating value of a Java numeric literal.
pub fn parse_number(t: &str) -> Option<f64> {
    let t = t.trim().replace('_', "");
    // Hex digits include d and f: only the `L` suffix is dropped there.
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        let h = h.trim_end_matches(['L', 'l']);
        return i64::from_str_radix(h, 16).ok().map(|v| v as f64);
    }
    let t = t.trim_end_matches(['L', 'l', 'd', 'D', 'f', 'F']);
    t.parse::<f64>().ok().filter(|v| v.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals() {
        assert_eq!(parse_number("1_000L"), Some(1000.0));
        assert_eq!(parse_number("1.5d"), Some(1.5));
        assert_eq!(parse_number("0xFF"), Some(255.0));
        assert_eq!(parse_number("0x1dL"), Some(29.0));
        assert_eq!(parse_number("abc"), None);
    }
}
