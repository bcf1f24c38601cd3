//! Embeds every rule document under `rules/` (`RLnnn-name.md`) into the binary, as a
//! table generated at build time so a rule added on another branch needs no edit here.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().to_string())
                .filter(|n| n.starts_with("RL") && n.ends_with(".md"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut out = String::from("/// (code, file name, text) of every rule document.\n");
    out.push_str("pub static RULE_DOCS: &[(&str, &str, &str)] = &[\n");
    for n in &names {
        let path = dir.join(n);
        println!("cargo:rerun-if-changed={}", path.display());
        let _ = writeln!(
            out,
            "    ({:?}, {:?}, include_str!({:?})),",
            &n[..5],
            n,
            path.display().to_string()
        );
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("rule_docs.rs");
    std::fs::write(dest, out).expect("write rule_docs.rs");
}
