//! Embeds every rule document of `rules/` in the binary: generates
//! `$OUT_DIR/rule_docs.rs` with `(file name, text)` pairs, sorted by name.

#![allow(clippy::disallowed_macros)] // cargo reads its directives from standard output

use std::fs;
use std::path::Path;

fn main() {
    // Read at run time, not `env!`: a build script compiled in one git worktree of
    // a shared target dir is re-run for the others, each with its own `rules/`.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR");
    let dir = Path::new(&manifest).join("rules");
    println!("cargo:rerun-if-changed=rules");
    let mut names: Vec<String> = fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".md"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut out = String::from("/// Every `rules/*.md` document: (file name, Markdown text).\npub static RULE_DOCS: &[(&str, &str)] = &[\n");
    for n in &names {
        let path = dir.join(n);
        println!("cargo:rerun-if-changed={}", path.display());
        out.push_str(&format!(
            "    ({n:?}, include_str!({:?})),\n",
            path.display().to_string()
        ));
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("rule_docs.rs");
    fs::write(dest, out).expect("write rule_docs.rs");
}
