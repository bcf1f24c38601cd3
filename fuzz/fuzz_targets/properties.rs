//! A Spring `.properties` file (Resilience4j, Spring Cloud Gateway, profiles).
#![no_main]

use libfuzzer_sys::fuzz_target;
use retrylint_fuzz::{check_files, text};

fuzz_target!(|data: &[u8]| {
    if let Some(text) = text(data) {
        check_files(&[("src/main/resources/application.properties", text)]);
    }
});
