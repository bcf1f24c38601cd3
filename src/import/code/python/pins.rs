//! The urllib3 version a Python project pins, read from the nearest dependency
//! file above a source file (`requirements*.txt`, `constraints*.txt`,
//! `poetry.lock`, `Pipfile.lock`, `uv.lock`, `pdm.lock`), so the defaults of the
//! version that runs are the ones judged (issue 42): urllib3 1.26 has no
//! `retry_after_max` (a `Retry-After` is waited whatever it says), 2.x caps it at
//! 6 h (urllib3 2.0 changelog; `Retry.DEFAULT_RETRY_AFTER_MAX`). Only the major
//! version is used; a range (`urllib3<2`) counts by its upper bound. Files pass
//! the run's read boundary; at most 1 MiB each is read.

use crate::source::boundary::ReadBoundary;
use std::path::Path;

/// Folders above a source file searched for a dependency file.
const MAX_LEVELS: usize = 16;

/// The dependency files looked for, in the order a folder is searched.
const PIN_FILES: &[&str] = &[
    "poetry.lock",
    "uv.lock",
    "pdm.lock",
    "Pipfile.lock",
    "requirements.txt",
    "requirements.lock",
    "constraints.txt",
];

/// A pinned urllib3 major version and the file (name) that pins it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    /// 1 or 2.
    pub major: u32,
    /// The version as written (`1.26.18`, `<2`).
    pub written: String,
    /// The dependency file's name (`requirements.txt`).
    pub file: String,
}

/// The urllib3 pin of the project holding `source`: the first folder above it with
/// a dependency file that names urllib3; `None` when none does.
pub fn urllib3(source: &Path, boundary: &ReadBoundary) -> Option<Pin> {
    let dir = source.parent()?;
    let abs = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    for d in abs.ancestors().take(MAX_LEVELS) {
        for name in PIN_FILES {
            let candidate = d.join(name);
            if !candidate.is_file() || !boundary.admits(&candidate) {
                continue;
            }
            let Ok(bytes) = crate::source::loader::read_regular_file(&candidate, 1 << 20) else {
                continue;
            };
            let text = String::from_utf8_lossy(&bytes);
            let found = if name.ends_with(".lock") {
                locked(&text)
            } else {
                required(&text)
            };
            if let Some((major, written)) = found {
                return Some(Pin {
                    major,
                    written,
                    file: (*name).to_string(),
                });
            }
        }
    }
    None
}

/// `urllib3==1.26.18`, `urllib3>=1.25,<2`, `urllib3~=1.26` in a requirements file.
fn required(text: &str) -> Option<(u32, String)> {
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        let Some(rest) = line
            .strip_prefix("urllib3")
            .filter(|r| r.starts_with(['=', '<', '>', '~', '!', ' ', '[', ';']))
        else {
            continue;
        };
        let spec = rest.split(';').next().unwrap_or("").trim();
        return major_of_spec(spec).map(|m| (m, spec.to_string()));
    }
    None
}

/// `name = "urllib3"` followed by `version = "1.26.18"` in a TOML lock file, or
/// `"urllib3": {"version": "==1.26.18"}` in `Pipfile.lock`.
fn locked(text: &str) -> Option<(u32, String)> {
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let t = line.trim();
        if t == "name = \"urllib3\"" {
            for next in lines.by_ref().take(4) {
                if let Some(v) = next.trim().strip_prefix("version = ") {
                    let v = v.trim_matches('"');
                    return major_of_spec(v).map(|m| (m, v.to_string()));
                }
            }
        } else if t.starts_with("\"urllib3\": {") {
            for next in lines.by_ref().take(12) {
                if let Some(v) = next.trim().strip_prefix("\"version\": ") {
                    let v = v.trim_end_matches(',').trim_matches('"');
                    return major_of_spec(v).map(|m| (m, v.to_string()));
                }
            }
        }
    }
    None
}

/// The major version a specifier allows: the exact or lower version's major, or,
/// for an upper bound only (`<2`, `<2.0`), the one below it.
fn major_of_spec(spec: &str) -> Option<u32> {
    let clauses: Vec<&str> = spec.split(',').map(str::trim).collect();
    let number = |s: &str| -> Option<u32> {
        s.trim_start_matches(['=', '<', '>', '~', '!', ' '])
            .split('.')
            .next()?
            .trim()
            .parse()
            .ok()
    };
    if let Some(c) = clauses.iter().find(|c| {
        c.starts_with("==")
            || c.starts_with("~=")
            || c.chars().next().is_some_and(|ch| ch.is_ascii_digit())
    }) {
        return number(c);
    }
    if let Some(c) = clauses
        .iter()
        .find(|c| c.starts_with('<') && !c.starts_with("<="))
    {
        let upper = number(c)?;
        let whole = c
            .trim_start_matches('<')
            .trim()
            .split('.')
            .skip(1)
            .all(|p| p.trim_matches('0').is_empty());
        return Some(if whole {
            upper.saturating_sub(1)
        } else {
            upper
        });
    }
    clauses
        .iter()
        .find(|c| c.starts_with(">="))
        .and_then(|c| number(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specifiers() {
        assert_eq!(
            required("requests==2.31\nurllib3==1.26.18\n"),
            Some((1, "==1.26.18".into()))
        );
        assert_eq!(
            required("urllib3>=1.25,<2 ; python_version>'3'\n"),
            Some((1, ">=1.25,<2".into()))
        );
        assert_eq!(required("urllib3<2.0\n"), Some((1, "<2.0".into())));
        assert_eq!(required("urllib3>=2\n"), Some((2, ">=2".into())));
        assert_eq!(required("urllib3-mock==1\n"), None);
        assert_eq!(required("# urllib3==1.26\n"), None);
    }

    #[test]
    fn lock_files() {
        let poetry =
            "[[package]]\nname = \"urllib3\"\nversion = \"1.26.18\"\ndescription = \"x\"\n";
        assert_eq!(locked(poetry), Some((1, "1.26.18".into())));
        let pipfile = "{\n \"default\": {\n  \"urllib3\": {\n   \"hashes\": [],\n   \"version\": \"==2.2.1\"\n  }\n }\n}";
        assert_eq!(locked(pipfile), Some((2, "==2.2.1".into())));
    }
}
