//! UTF-16 and UTF-32 input, which YAML 1.2 accepts (§5.2, "Character Encodings"):
//! a file in one of them is decoded to UTF-8 before it is parsed. Windows tools write
//! such files (PowerShell 5's `>` and `Out-File` write UTF-16LE), and skipping them
//! would leave their retries unchecked.
//!
//! The encoding is recognised as YAML 1.2 §5.2 says: by a byte order mark, else by
//! the pattern of NUL bytes around the first character (which is ASCII in every real
//! spec or config).

/// A wide Unicode encoding that a file was read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WideEncoding {
    /// UTF-16, little-endian.
    Utf16Le,
    /// UTF-16, big-endian.
    Utf16Be,
    /// UTF-32, little-endian.
    Utf32Le,
    /// UTF-32, big-endian.
    Utf32Be,
}

impl WideEncoding {
    /// The encoding of `bytes` and the length of its byte order mark (0 without one),
    /// by YAML 1.2's detection table; `None` for UTF-8 or anything else.
    pub fn detect(bytes: &[u8]) -> Option<(WideEncoding, usize)> {
        use WideEncoding::*;
        match bytes {
            [0, 0, 0xFE, 0xFF, ..] => Some((Utf32Be, 4)),
            [0xFF, 0xFE, 0, 0, ..] => Some((Utf32Le, 4)),
            [0xFE, 0xFF, ..] => Some((Utf16Be, 2)),
            [0xFF, 0xFE, ..] => Some((Utf16Le, 2)),
            [0, 0, 0, a, ..] if *a != 0 => Some((Utf32Be, 0)),
            [a, 0, 0, 0, ..] if *a != 0 => Some((Utf32Le, 0)),
            [0, a, ..] if *a != 0 => Some((Utf16Be, 0)),
            [a, 0, ..] if *a != 0 => Some((Utf16Le, 0)),
            _ => None,
        }
    }

    /// `bytes` (byte order mark excluded) decoded; `None` when they are not valid in
    /// this encoding (an odd length, an unpaired surrogate, a code point past
    /// U+10FFFF): binary content, most likely.
    pub fn decode(self, bytes: &[u8]) -> Option<String> {
        use WideEncoding::*;
        match self {
            Utf16Le | Utf16Be => {
                let pairs = bytes.chunks_exact(2);
                if !pairs.remainder().is_empty() {
                    return None;
                }
                let units = pairs.map(|c| match self {
                    Utf16Le => u16::from_le_bytes([c[0], c[1]]),
                    _ => u16::from_be_bytes([c[0], c[1]]),
                });
                char::decode_utf16(units)
                    .collect::<Result<String, _>>()
                    .ok()
            }
            Utf32Le | Utf32Be => {
                let quads = bytes.chunks_exact(4);
                if !quads.remainder().is_empty() {
                    return None;
                }
                quads
                    .map(|c| {
                        let c = [c[0], c[1], c[2], c[3]];
                        char::from_u32(match self {
                            Utf32Le => u32::from_le_bytes(c),
                            _ => u32::from_be_bytes(c),
                        })
                    })
                    .collect()
            }
        }
    }
}

/// `bytes` decoded from a wide encoding, with that encoding; `None` when they are
/// not recognisably UTF-16 or UTF-32 text, or do not decode, or the text holds a NUL
/// (binary content that happens to start like wide text).
pub fn decode_wide(bytes: &[u8]) -> Option<(String, WideEncoding)> {
    let (encoding, bom) = WideEncoding::detect(bytes)?;
    let text = encoding.decode(&bytes[bom..])?;
    (!text.contains('\0')).then_some((text, encoding))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16le(s: &str, bom: bool) -> Vec<u8> {
        let mut out = if bom { vec![0xFF, 0xFE] } else { Vec::new() };
        out.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
        out
    }

    #[test]
    fn decodes_each_encoding_with_and_without_a_bom() {
        let text = "openapi: 3.0.3\ninfo: {title: é 🚀}\n";
        let be16: Vec<u8> = [0xFE, 0xFF]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        let le32: Vec<u8> = text
            .chars()
            .flat_map(|c| (c as u32).to_le_bytes())
            .collect();
        let be32: Vec<u8> = [0, 0, 0xFE, 0xFF]
            .into_iter()
            .chain(text.chars().flat_map(|c| (c as u32).to_be_bytes()))
            .collect();
        for (bytes, encoding) in [
            (utf16le(text, true), WideEncoding::Utf16Le),
            (utf16le(text, false), WideEncoding::Utf16Le),
            (be16, WideEncoding::Utf16Be),
            (le32, WideEncoding::Utf32Le),
            (be32, WideEncoding::Utf32Be),
        ] {
            assert_eq!(decode_wide(&bytes), Some((text.to_string(), encoding)));
        }
    }

    #[test]
    fn utf8_and_binary_are_not_wide_text() {
        assert_eq!(decode_wide(b"openapi: 3.0.3\n"), None);
        // A PNG header, and UTF-16 with an unpaired surrogate.
        assert_eq!(decode_wide(&[0x89, b'P', b'N', b'G', 0, 0]), None);
        assert_eq!(decode_wide(&[b'a', 0, 0x00, 0xD8, b'b', 0]), None);
        // Odd length, and wide text holding a NUL character.
        assert_eq!(decode_wide(&[b'a', 0, b'b']), None);
        assert_eq!(decode_wide(&utf16le("a\0b", false)), None);
    }
}
