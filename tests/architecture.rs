//! The module graph is one-way: each top-level module of `src/` refers only to itself
//! and to modules below it in [`LAYERS`].
//!
//! The table is read bottom to top and flattened into one total order: a module may
//! refer to any module listed before it (in a lower layer, or earlier in its own
//! layer), never to one listed after it. Because the order is total, no two top-level
//! modules can refer to each other, so there is no cycle between top-level modules.
//! Inside a top-level module, [`no_module_cycles`] forbids cycles between files.
//!
//! The sources are read with `syn`, not compiled: `use` trees, every path in items,
//! types, expressions and patterns, and `crate::`/`super::`/`self::` paths inside
//! macro arguments all count. Attributes (so doc-comment links) do not, and items
//! under `#[cfg(test)]` are skipped: unit tests may drive the whole crate. `lib.rs`
//! (the crate root: module declarations and compatibility re-exports) and `main.rs`
//! (the binary, the top of everything) are exempt.
//!
//! A new top-level module fails [`the_crate_follows_the_layers`] until it is given a
//! layer below; so does an entry below that no longer has a module.

#[path = "architecture/checker.rs"]
mod checker;

use checker::{
    escape_hatches, file_cycles, missing_modules, read_crate, table_problems, unlisted_modules,
};
use checker::{upward_references, Crate, Layers, Violation};
use std::path::PathBuf;

/// Bottom to top, one total order: a module may use the modules before it on its own
/// line and every module on the lines above; nothing after it or below.
#[rustfmt::skip]
const LAYERS: &[(&str, &[&str])] = &[
    ("foundation", &["diagnostic", "write", "timing", "deep_stack"]),
    ("source",     &["source"]),
    ("domain",     &["retry"]),
    ("model",      &["openapi", "policy", "config", "import"]),
    ("project",    &["project"]),
    ("join",       &["analysis"]),
    ("rules",      &["rules"]),
    ("suppress",   &["suppress"]),
    ("pipeline",   &["check"]),
    ("report",     &["report", "baseline", "readiness", "policy_view", "diff"]),
    ("probe",      &["probe"]),
    ("commands",   &["cli", "commands", "lsp"]),
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(name: &str) -> Crate {
    read_crate(&repo().join("fixtures/architecture").join(name).join("src"))
}

fn lines<T: std::fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(|i| format!("  {i}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Upward references and modules the table does not place.
fn layering_problems(krate: &Crate) -> Vec<String> {
    let mut problems: Vec<String> = upward_references(krate, LAYERS)
        .iter()
        .map(Violation::to_string)
        .collect();
    problems.extend(unlisted_modules(krate, LAYERS));
    problems.extend(escape_hatches(krate));
    problems
}

#[test]
fn the_crate_follows_the_layers() {
    let krate = read_crate(&repo().join("src"));
    let mut problems = table_problems(LAYERS);
    problems.extend(layering_problems(&krate));
    problems.extend(missing_modules(&krate, LAYERS));
    assert!(
        problems.is_empty(),
        "{} layering problem(s) (the order is LAYERS in tests/architecture.rs):\n{}",
        problems.len(),
        lines(&problems)
    );
}

#[test]
fn no_module_cycles() {
    let cycles = file_cycles(&read_crate(&repo().join("src")));
    let shown: Vec<String> = cycles
        .iter()
        .map(|c| format!("cycle of {} modules: {}", c.len(), c.join(", ")))
        .collect();
    assert!(
        cycles.is_empty(),
        "{} cycle(s) between module files:\n{}",
        cycles.len(),
        lines(&shown)
    );
}

/// What `upward_references` finds, as `(file, line, from, target)`.
fn found(krate: &Crate) -> Vec<(String, usize, String, String)> {
    upward_references(krate, LAYERS)
        .into_iter()
        .map(|v| (v.file, v.line, v.from, v.target))
        .collect()
}

#[test]
fn an_upward_reference_is_caught() {
    #[rustfmt::skip]
    const EXPECTED: &[(&str, usize, &str, &str)] = &[
        ("src/diagnostic.rs",    3,  "diagnostic", "crate::timing::Clock"),           // `use`, same layer, later
        ("src/openapi/build.rs", 6,  "openapi",    "crate::check::project_root"),     // path in a fn body
        ("src/openapi/build.rs", 9,  "openapi",    "crate::rules::Finding"),          // in a generic argument
        ("src/policy/mod.rs",    3,  "policy",     "crate::config::Config"),          // `use`, same layer, later
        ("src/policy/mod.rs",    9,  "policy",     "crate::report::render"),          // inside `format!`
        ("src/policy/mod.rs",    10, "policy",     "crate::commands::run"),           // expression path
        ("src/source/loader.rs", 6,  "source",     "crate::rules::x"),                // `super::super::` from a nested file
        ("src/source/loader.rs", 11, "source",     "crate::analysis::join"),          // `super::` ×3 in an inline `mod`
        ("src/source/loader.rs", 16, "source",     "crate::suppress::Set::describe"), // inside `format!`
        ("src/source/mod.rs",    5,  "source",     "crate::rules::Thing"),            // `use` in a `mod.rs`
        ("src/source/mod.rs",    9,  "source",     "crate::report::json"),            // `super::` inside `vec!`
    ];
    // Not reported: `lib.rs`, a doc link, a `#[cfg(test)] mod`, a `#[cfg(all(test, unix))]`
    // fn, and `src/extras.rs` (not in the table: reported as such below).
    let krate = fixture("upward");
    let expected: Vec<_> = EXPECTED
        .iter()
        .map(|&(f, l, m, t)| (f.to_string(), l, m.to_string(), t.to_string()))
        .collect();
    assert_eq!(found(&krate), expected);

    // The message names the layers.
    let message = upward_references(&krate, LAYERS)[1].to_string();
    assert_eq!(
        message,
        "src/openapi/build.rs:6: openapi (model) refers to crate::check::project_root (pipeline), which is above it"
    );

    // A module the table does not place is reported, not silently allowed.
    assert_eq!(
        unlisted_modules(&krate, LAYERS),
        ["src/extras.rs: top-level module extras is not in LAYERS; give it a layer"]
    );
}

#[test]
fn downward_references_pass() {
    let krate = fixture("clean");
    // The fixture does refer to other modules (else passing would prove nothing).
    let references: usize = krate.files.iter().map(|f| f.refs.len()).sum();
    assert!(references >= 8, "only {references} references read");
    assert_eq!(layering_problems(&krate), Vec::<String>::new());
    assert_eq!(file_cycles(&krate), Vec::<Vec<String>>::new());
}

#[test]
fn a_table_entry_without_a_module_is_caught() {
    const TWICE: &Layers = &[("a", &["x", "y"]), ("b", &["x"])];
    // Only the real crate must have every entry; a fixture has a few modules, so
    // this check is its own function, proved here on the clean fixture.
    let krate = fixture("clean");
    let missing = missing_modules(&krate, LAYERS);
    assert!(missing.contains(
        &"LAYERS: project (project) has no module in src/ (no src/project.rs or src/project/)"
            .to_string()
    ));
    assert!(!missing.iter().any(|m| m.starts_with("LAYERS: rules ")));
    // A module listed twice would make the order ambiguous.
    assert_eq!(
        table_problems(TWICE),
        ["LAYERS: x is listed twice (in a and in b)"]
    );
}

#[test]
fn a_file_cycle_is_caught() {
    let krate = fixture("cycle");
    assert_eq!(
        file_cycles(&krate),
        [["openapi::a".to_string(), "openapi::b".to_string()]]
    );
    // Within one layer and one top-level module: not a layering problem.
    assert_eq!(layering_problems(&krate), Vec::<String>::new());
}

#[test]
fn ways_around_the_table_are_caught() {
    // Each line of `fixtures/architecture/escapes/` hides an upward reference from a
    // plain path reading; each must be reported.
    let krate = fixture("escapes");
    #[rustfmt::skip]
    let expected = [
        "src/lib.rs:4: code at the crate root escapes the layering: put it in a module of the table",
        "src/source/mod.rs:10: `crate` names the crate root: name the module instead",
        "src/source/mod.rs:11: `crate` names the crate root: name the module instead",
        "src/source/mod.rs:12: `extern crate self` names the crate root: name the module instead",
        "src/source/mod.rs:16: a macro builds a path with a variable (`crate::$name`): write the module's name",
        "src/source/mod.rs:20: `#[macro_export]` puts a macro at the crate root, where no layer judges its uses",
        "src/source/mod.rs:23: `#[path]` on a module: the checker reads modules where their names say",
        "src/source/mod.rs:26: `include!` brings in code the checker does not read",
        "src/source/mod.rs:28: an inherent `impl` on another module's type: its methods are called without a path",
        "src/source/mod.rs:31: crate::helper names no module of src/ and no re-export of lib.rs",
    ];
    assert_eq!(escape_hatches(&krate), expected);
    // A raw identifier, a path in an attribute's string and a name re-exported by
    // `lib.rs` are judged as the paths they are.
    let upward: Vec<String> = upward_references(&krate, LAYERS)
        .iter()
        .map(|v| format!("{}:{} {}", v.file, v.line, v.target))
        .collect();
    assert_eq!(
        upward,
        [
            "src/source/mod.rs:5 crate::rules::REGISTRY",
            "src/source/mod.rs:7 crate::report::render",
            "src/source/mod.rs:8 crate::discover::NameKind",
            "src/source/mod.rs:28 crate::project::Loaded",
        ]
    );
}

/// ARCHITECTURE.md's table lists the layers and their modules as `LAYERS` does, in
/// the same order, so the page and the test cannot drift apart.
#[test]
fn the_architecture_page_lists_the_layers_in_order() {
    let page = std::fs::read_to_string(repo().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let rows: Vec<(String, Vec<String>)> = page
        .lines()
        .filter(|l| l.starts_with("| ") && l.matches('|').count() >= 5)
        .skip(1) // the header row
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let modules = cells[2]
                .split(',')
                .map(|m| m.trim().trim_matches('`').to_string())
                .collect();
            (cells[1].to_string(), modules)
        })
        .collect();
    let expected: Vec<(String, Vec<String>)> = LAYERS
        .iter()
        .map(|(layer, modules)| {
            (
                layer.to_string(),
                modules.iter().map(|m| m.to_string()).collect(),
            )
        })
        .collect();
    assert_eq!(rows, expected);
}
