//! Application code with retry clients, one language picked by the first byte: each
//! language's pre-check (does the file mention a retry library) and reader.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retrylint_fuzz::{check_files, pick, text};

const NAMES: &[&str] = &[
    "client.py",
    "client.ts",
    "client.js",
    "src/main/java/Client.java",
    "Client.cs",
    "client.go",
    "src/client.rs",
];

fuzz_target!(|data: &[u8]| {
    let Some((name, rest)) = pick(data, NAMES) else {
        return;
    };
    if let Some(text) = text(rest) {
        check_files(&[(name, text)]);
    }
});
