//! Idempotency-key headers by name: the headers a server de-duplicates on whatever a
//! policy says (draft-ietf-httpapi-idempotency-key-header `Idempotency-Key`, its
//! common `X-` spelling, and Azure's `Repeatability-Request-ID` from the OData
//! repeatable-requests extension). A spec that requires one of them makes every
//! client send it, so the key protects every layer (layers.md "Protection travels
//! with the request").

/// Well-known idempotency-key header names (compared case-insensitively).
pub const KEY_HEADERS: [&str; 3] = [
    "Idempotency-Key",
    "X-Idempotency-Key",
    "Repeatability-Request-ID",
];

/// True when `name` is a well-known idempotency-key header (case-insensitive).
pub fn is_key_header(name: &str) -> bool {
    KEY_HEADERS.iter().any(|k| k.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_compare_case_insensitively() {
        assert!(is_key_header("idempotency-key"));
        assert!(is_key_header("REPEATABILITY-REQUEST-ID"));
        assert!(!is_key_header("X-Request-ID"));
    }
}
