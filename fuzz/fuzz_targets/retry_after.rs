//! The Retry-After header parser, at a fixed and at a fuzzed "now".
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = retrylint::retry::parse_retry_after_at(text, 1_445_412_480_000.0);
    if text.len() >= 8 {
        let now = f64::from_le_bytes(data[..8].try_into().unwrap());
        if let Ok(rest) = std::str::from_utf8(&data[8..]) {
            let _ = retrylint::retry::parse_retry_after_at(rest, now);
        }
    }
});
