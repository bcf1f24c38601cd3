//! The install channels agree with the crate: the pre-commit hooks, the wheel's and
//! the hook's Python packages, the `dist` profile and the Action's install step. The
//! channels themselves are exercised by scripts .ci/run calls (they need PyPI or
//! minutes of build): scripts/wheel.sh, scripts/pre-commit-roundtrip.sh and
//! scripts/check-release-install.sh.

use std::path::PathBuf;

fn read(path: &str) -> String {
    let full = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn toml(path: &str) -> toml_edit::DocumentMut {
    read(path).parse().unwrap_or_else(|e| panic!("{path}: {e}"))
}

const VERSION: &str = env!("CARGO_PKG_VERSION");

#[test]
fn the_python_hook_pins_this_version_of_the_wheel() {
    let hook = toml("pyproject.toml");
    assert_eq!(hook["project"]["version"].as_str(), Some(VERSION));
    let deps: Vec<&str> = hook["project"]["dependencies"]
        .as_array()
        .expect("dependencies")
        .iter()
        .filter_map(|d| d.as_str())
        .collect();
    assert_eq!(deps, [format!("retrylint=={VERSION}")]);
    assert_ne!(
        hook["project"]["name"].as_str(),
        Some("retrylint"),
        "the hook's package must not shadow the wheel it installs"
    );
}

#[test]
fn the_wheel_is_the_binary_of_this_crate() {
    let wheel = toml("python/pyproject.toml");
    assert_eq!(wheel["project"]["name"].as_str(), Some("retrylint"));
    assert_eq!(wheel["tool"]["maturin"]["bindings"].as_str(), Some("bin"));
    assert_eq!(
        wheel["tool"]["maturin"]["manifest-path"].as_str(),
        Some("../Cargo.toml")
    );
    assert_eq!(
        wheel["build-system"]["build-backend"].as_str(),
        Some("maturin")
    );
}

#[test]
fn the_dist_profile_is_stripped_without_debuginfo() {
    let cargo = toml("Cargo.toml");
    let dist = &cargo["profile"]["dist"];
    assert_eq!(dist["inherits"].as_str(), Some("release"));
    assert_eq!(dist["debug"].as_bool(), Some(false));
    assert_eq!(dist["strip"].as_bool(), Some(true));
    // LTO comes from release; the archive must not lose it.
    assert!(cargo["profile"]["release"]["lto"].as_str().is_some());
}

#[test]
fn both_pre_commit_hooks_run_the_same_check() {
    let hooks: serde_yaml::Value =
        serde_yaml::from_str(&read(".pre-commit-hooks.yaml")).expect("hooks parse");
    let hooks = hooks.as_sequence().expect("a list of hooks");
    let find = |id: &str| {
        hooks
            .iter()
            .find(|h| h["id"].as_str() == Some(id))
            .unwrap_or_else(|| panic!("no hook `{id}`"))
            .clone()
    };
    let wheel = find("retrylint");
    let rust = find("retrylint-rust");
    assert_eq!(wheel["language"].as_str(), Some("python"));
    assert_eq!(rust["language"].as_str(), Some("rust"));
    for key in ["entry", "types_or", "pass_filenames", "require_serial"] {
        assert_eq!(wheel[key], rust[key], "the hooks differ in `{key}`");
    }
    assert_eq!(wheel["entry"].as_str(), Some("retrylint check"));
    // The fixing hook: the same files, the same install, `check --fix`.
    let fix = find("retrylint-fix");
    assert_eq!(fix["language"], wheel["language"]);
    for key in ["types_or", "pass_filenames", "require_serial"] {
        assert_eq!(fix[key], wheel[key], "the fixing hook differs in `{key}`");
    }
    assert_eq!(fix["entry"].as_str(), Some("retrylint check --fix"));
}

#[test]
fn the_action_installs_through_the_tested_script() {
    let action = read("action.yml");
    assert!(action.contains("scripts/install-release.sh"));
    assert!(action.contains("cargo install --locked --path"));
    #[cfg(unix)]
    for script in [
        "scripts/install-release.sh",
        "scripts/dist.sh",
        "scripts/wheel.sh",
        "scripts/check-release-install.sh",
        "scripts/docs.sh",
    ] {
        use std::os::unix::fs::PermissionsExt;
        let meta = std::fs::metadata(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(script))
            .unwrap_or_else(|e| panic!("{script}: {e}"));
        assert!(
            meta.permissions().mode() & 0o111 != 0,
            "{script} is not executable"
        );
    }
}
