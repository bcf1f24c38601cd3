//! Neovim as the editor: `tests/lsp/neovim.lua` runs headless against `retrylint
//! lsp` (Neovim 0.7.2, Debian's, through `vim.lsp.start_client` and
//! `buf_request_sync`). Skipped, saying so, when `nvim` is not installed.

#![allow(clippy::disallowed_macros)] // output for the reader (clippy.toml)

use std::path::Path;
use std::process::Command;

#[path = "lsp/client.rs"]
#[allow(dead_code)] // only `copy_dir` is used here
mod client;

#[test]
fn neovim_shows_rl201_and_applies_the_suppression_action() {
    if Command::new("nvim").arg("--version").output().is_err() {
        eprintln!("skipping the Neovim test: `nvim` is not installed (apt-get install neovim)");
        return;
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = client::copy_dir(&repo.join("fixtures/examples/shop"), "neovim");
    let out = dir.join("nvim-result.txt");
    let status = Command::new("nvim")
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c"])
        .arg(format!(
            "luafile {}",
            repo.join("tests/lsp/neovim.lua").display()
        ))
        .env("RETRYLINT_BIN", env!("CARGO_BIN_EXE_retrylint"))
        .env("ROOT", &dir)
        .env("OUT", &out)
        .env("XDG_STATE_HOME", &dir)
        .env("XDG_DATA_HOME", &dir)
        .current_dir(&dir)
        .status()
        .expect("nvim runs");
    let result = std::fs::read_to_string(&out).unwrap_or_default();
    assert!(status.success(), "nvim failed: {result}");
    let lines: Vec<&str> = result.lines().collect();
    // `retry_on` of the refunds entry (0-based line 29, columns 4..12), an error.
    assert_eq!(lines[0], "RL201 29:4-29:12 severity=1", "{result}");
    assert_eq!(
        lines[1],
        "LINE     ignore: [{ rule: RL201, reason: \"TODO: say why this finding is accepted\" }]",
        "{result}"
    );
    assert_eq!(lines[2], "OK", "{result}");
}
