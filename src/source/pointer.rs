//! JSON Pointer (RFC 6901) tokens and `$ref` strings (RFC 3986 URI references).

/// Escapes one reference token: `~` -> `~0`, `/` -> `~1`.
pub fn escape(token: &str) -> String {
    if !token.contains(['~', '/']) {
        return token.to_string();
    }
    token.replace('~', "~0").replace('/', "~1")
}

/// Unescapes one reference token (`~1` -> `/`, then `~0` -> `~`).
pub fn unescape(token: &str) -> String {
    if !token.contains('~') {
        return token.to_string();
    }
    token.replace("~1", "/").replace("~0", "~")
}

/// Joins tokens into a pointer string (`["paths", "/a"]` -> `/paths/~1a`).
pub fn join(tokens: &[&str]) -> String {
    let mut out = String::new();
    for t in tokens {
        out.push('/');
        out.push_str(&escape(t));
    }
    out
}

/// A `$ref` value split into its file part and its fragment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefTarget {
    /// The percent-decoded relative or absolute file path; empty for a local ref.
    pub file: String,
    /// Decoded pointer tokens of the fragment (empty: the whole document).
    pub tokens: Vec<String>,
    /// True when the ref names a remote resource (`http:`, `https:` or another
    /// scheme): never fetched.
    pub remote: bool,
    /// True when the fragment is not a JSON Pointer (e.g. `#Name`, a plain-name anchor).
    pub plain_name_fragment: bool,
}

/// Parses a `$ref` string. Fragments are percent-decoded, then split on `/` and
/// unescaped per RFC 6901.
pub fn parse_ref(reference: &str) -> RefTarget {
    let (file, fragment) = match reference.find('#') {
        Some(i) => (&reference[..i], Some(&reference[i + 1..])),
        None => (reference, None),
    };
    let lower = file.to_ascii_lowercase();
    let remote = lower.starts_with("http:")
        || lower.starts_with("https:")
        || (file.contains("://") && !lower.starts_with("file:"));
    let file_decoded =
        percent_encoding::percent_decode_str(file.strip_prefix("file://").unwrap_or(file))
            .decode_utf8_lossy()
            .into_owned();
    let mut tokens = Vec::new();
    let mut plain_name_fragment = false;
    if let Some(fragment) = fragment {
        let decoded = percent_encoding::percent_decode_str(fragment)
            .decode_utf8_lossy()
            .into_owned();
        if decoded.is_empty() {
        } else if let Some(rest) = decoded.strip_prefix('/') {
            tokens = rest.split('/').map(unescape).collect();
        } else {
            plain_name_fragment = true;
            tokens.push(decoded);
        }
    }
    RefTarget {
        file: file_decoded,
        tokens,
        remote,
        plain_name_fragment,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_round_trip() {
        assert_eq!(escape("/orders/{id}"), "~1orders~1{id}");
        assert_eq!(unescape("~1orders~1{id}"), "/orders/{id}");
        assert_eq!(unescape("a~01"), "a~1");
        assert_eq!(escape("a~1"), "a~01");
    }

    #[test]
    fn parses_refs() {
        let r = parse_ref("common.yaml#/parameters/Idem");
        assert_eq!(r.file, "common.yaml");
        assert_eq!(r.tokens, vec!["parameters", "Idem"]);
        assert!(!r.remote);
        let r = parse_ref("#/paths/~1orders%7Bx%7D");
        assert_eq!(r.file, "");
        assert_eq!(r.tokens, vec!["paths", "/orders{x}"]);
        let r = parse_ref("https://example.com/common.json#squareup.common.String");
        assert!(r.remote);
        assert!(r.plain_name_fragment);
        let r = parse_ref("my%20file.yaml");
        assert_eq!(r.file, "my file.yaml");
        assert!(r.tokens.is_empty());
    }
}
