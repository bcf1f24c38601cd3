//! An HAProxy configuration (`retries`, `retry-on`, backends).
#![no_main]

use libfuzzer_sys::fuzz_target;
use retrylint_fuzz::{check_files, text};

fuzz_target!(|data: &[u8]| {
    if let Some(text) = text(data) {
        check_files(&[("haproxy.cfg", text)]);
    }
});
