//! `file:` URIs (what the editor names documents by) to and from paths.

use lsp_types::Uri;
use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, CONTROLS};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// Bytes a path segment must percent-encode in a URI (RFC 3986 `pchar` aside).
const PATH: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// The local path of a `file:` URI; `None` for another scheme.
pub fn to_path(uri: &Uri) -> Option<PathBuf> {
    let text = uri.as_str();
    let rest = text.strip_prefix("file://")?;
    // `file://host/p` names a host; only the local (empty) host is read.
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    let decoded = percent_decode_str(path).decode_utf8().ok()?;
    Some(PathBuf::from(decoded.as_ref()))
}

/// The `file:` URI of an absolute path.
pub fn from_path(path: &Path) -> Uri {
    let encoded = utf8_percent_encode(&path.to_string_lossy(), PATH).to_string();
    Uri::from_str(&format!("file://{encoded}"))
        .unwrap_or_else(|_| Uri::from_str("file:///").expect("a constant URI"))
}

/// `path` canonicalised when it exists (the identity the pipeline uses), else as is.
pub fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_with_spaces_and_non_ascii_round_trip() {
        let p = Path::new("/tmp/a b/spé#c.yaml");
        let uri = from_path(p);
        assert_eq!(uri.as_str(), "file:///tmp/a%20b/sp%C3%A9%23c.yaml");
        assert_eq!(to_path(&uri).as_deref(), Some(p));
    }

    #[test]
    fn other_schemes_have_no_path() {
        assert_eq!(
            to_path(&Uri::from_str("untitled:Untitled-1").unwrap()),
            None
        );
    }
}
