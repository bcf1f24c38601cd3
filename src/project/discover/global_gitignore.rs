//! Whether the user's global gitignore (git's `core.excludesFile`) can exclude
//! anything from a walk, decided without the `ignore` crate's own reading of it.
//!
//! `ignore` finds that file on every walk by compiling a regular expression over
//! each git configuration file it reads; on a small run (one spec and its policy)
//! that compilation was the largest single cost after process start (1.3 ms of
//! 7 ms, README "Performance"). When no configuration file can name an excludes
//! file and git's default one does not exist, the global matcher is empty, and the
//! walk is built without it: the same files are walked either way.

use std::path::PathBuf;
use std::sync::OnceLock;

/// True when a global gitignore may apply: some git configuration file that
/// `ignore` reads mentions `excludesfile` (any case, even in a comment: the check
/// errs on the side of letting `ignore` decide), or git's default excludes file
/// exists. Read once per process.
pub fn may_apply() -> bool {
    static MAY_APPLY: OnceLock<bool> = OnceLock::new();
    *MAY_APPLY.get_or_init(|| {
        let configs = config_files()
            .into_iter()
            .filter_map(|p| std::fs::read(p).ok());
        may_apply_given(configs, default_excludes_file().is_some_and(|p| p.exists()))
    })
}

/// The decision of [`may_apply`] over the contents of the configuration files and
/// whether git's default excludes file exists.
fn may_apply_given(configs: impl IntoIterator<Item = Vec<u8>>, default_exists: bool) -> bool {
    default_exists || configs.into_iter().any(|c| names_excludes_file(&c))
}

/// True when `config` holds `excludesfile`, ASCII case-insensitively (git's keys
/// are case-insensitive: `excludesFile`, `ExcludesFile`).
fn names_excludes_file(config: &[u8]) -> bool {
    const KEY: &[u8] = b"excludesfile";
    config
        .windows(KEY.len())
        .any(|w| w.eq_ignore_ascii_case(KEY))
}

/// The configuration files `ignore` reads for `core.excludesFile`, in its order:
/// `$GIT_CONFIG_GLOBAL`, `~/.gitconfig`, `$XDG_CONFIG_HOME/git/config` (else
/// `~/.config/git/config`), `$GIT_CONFIG_SYSTEM` (else `/etc/gitconfig`).
fn config_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(p) = non_empty_var("GIT_CONFIG_GLOBAL") {
        out.push(p);
    }
    if let Some(home) = home_dir() {
        out.push(home.join(".gitconfig"));
    }
    if let Some(xdg) = xdg_config_home() {
        out.push(xdg.join("git/config"));
    }
    out.push(non_empty_var("GIT_CONFIG_SYSTEM").unwrap_or_else(|| PathBuf::from("/etc/gitconfig")));
    out
}

/// Git's default global excludes file: `$XDG_CONFIG_HOME/git/ignore`, else
/// `~/.config/git/ignore`.
fn default_excludes_file() -> Option<PathBuf> {
    xdg_config_home().map(|x| x.join("git/ignore"))
}

fn xdg_config_home() -> Option<PathBuf> {
    non_empty_var("XDG_CONFIG_HOME").or_else(|| home_dir().map(|h| h.join(".config")))
}

fn non_empty_var(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The home directory as `ignore` finds it (`std::env::home_dir`, whose corner
/// cases `ignore` accepts too).
#[allow(deprecated)]
fn home_dir() -> Option<PathBuf> {
    std::env::home_dir()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configuration_naming_an_excludes_file_in_any_case_applies() {
        for config in [
            "[core]\n\texcludesFile = ~/.gitignore_global\n",
            "[core]\nexcludesfile=/etc/ignore\n",
            "[CORE]\n  ExcludesFile = x\n",
        ] {
            assert!(
                may_apply_given([config.as_bytes().to_vec()], false),
                "{config}"
            );
        }
    }

    #[test]
    fn configurations_without_one_and_no_default_file_do_not_apply() {
        let configs = [
            b"[user]\n\tname = A\n\temail = a@example.com\n".to_vec(),
            b"[core]\n\tautocrlf = input\n\texcludes = not-the-key\n".to_vec(),
        ];
        assert!(!may_apply_given(configs, false));
        assert!(!may_apply_given(Vec::<Vec<u8>>::new(), false));
    }

    #[test]
    fn the_default_excludes_file_applies_without_any_configuration() {
        assert!(may_apply_given(Vec::<Vec<u8>>::new(), true));
    }
}
