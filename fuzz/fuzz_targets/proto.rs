//! A `.proto` file with `google.api.http` rules (gRPC methods as operations).
#![no_main]

use libfuzzer_sys::fuzz_target;
use retrylint_fuzz::{check_files, text};

fuzz_target!(|data: &[u8]| {
    if let Some(text) = text(data) {
        check_files(&[("api.proto", text)]);
    }
});
