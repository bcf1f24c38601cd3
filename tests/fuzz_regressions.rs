//! Inputs that crashed a fuzz target (`fuzz/`), replayed exactly as the target
//! feeds them: none may panic.

use std::path::PathBuf;

#[test]
fn retry_after_crashes_stay_fixed() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/fuzz-regressions");
    let mut replayed = 0;
    for entry in std::fs::read_dir(&dir).expect("fixtures/fuzz-regressions exists") {
        let path = entry.unwrap().path();
        if !path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("retry_after-")
        {
            continue;
        }
        let data = std::fs::read(&path).unwrap();
        // The same calls as fuzz/fuzz_targets/retry_after.rs.
        if let Ok(text) = std::str::from_utf8(&data) {
            let _ = retrylint::retry::parse_retry_after_at(text, 1_445_412_480_000.0);
        }
        if data.len() >= 8 {
            let now = f64::from_le_bytes(data[..8].try_into().unwrap());
            if let Ok(rest) = std::str::from_utf8(&data[8..]) {
                let _ = retrylint::retry::parse_retry_after_at(rest, now);
            }
        }
        replayed += 1;
    }
    assert!(
        replayed >= 1,
        "no regression input found in {}",
        dir.display()
    );
}
