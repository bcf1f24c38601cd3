//! Which files to read: walk the given paths (honouring `.gitignore`, `.ignore` and
//! hidden-file rules, like ripgrep) and classify each YAML/JSON file by name.
//! Content-based recognition (a top-level `openapi` or `swagger` key) happens after
//! loading; a file that is neither is skipped without a finding.

use std::path::{Path, PathBuf};

/// What a file's name says it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameKind {
    /// `retry-policy.yaml`, `*.retry-policy.yml`, or given with `--policy`.
    Policy,
    /// `openapi.*`, `swagger.*`, `*.openapi.*`: must parse (RL001 otherwise).
    SpecLike,
    /// Any other `.yaml`/`.yml`/`.json`: an OpenAPI document only if its content says so.
    Other,
}

/// A file found by discovery.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The path as given or found.
    pub path: PathBuf,
    /// What its name says.
    pub kind: NameKind,
    /// Named on the command line (always read, even if ignored by `.gitignore`).
    pub explicit: bool,
}

/// A problem found while walking (unreadable directory, symlink loop).
#[derive(Debug, Clone)]
pub struct WalkProblem {
    /// The path involved.
    pub path: PathBuf,
    /// What went wrong.
    pub message: String,
}

/// Classifies a file name. `None` for files that are not YAML or JSON.
pub fn name_kind(path: &Path) -> Option<NameKind> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    let ext = name.rsplit('.').next()?;
    if !matches!(ext, "yaml" | "yml" | "json") {
        return None;
    }
    if matches!(name.as_str(), "retry-policy.yaml" | "retry-policy.yml")
        || name.ends_with(".retry-policy.yaml")
        || name.ends_with(".retry-policy.yml")
    {
        return Some(NameKind::Policy);
    }
    let stem_parts: Vec<&str> = name.split('.').collect();
    if stem_parts[0] == "openapi"
        || stem_parts[0] == "swagger"
        || stem_parts[..stem_parts.len() - 1].contains(&"openapi")
    {
        return Some(NameKind::SpecLike);
    }
    Some(NameKind::Other)
}

/// Walks `paths` (files or directories) and returns the YAML/JSON candidates, sorted
/// and de-duplicated, plus walk problems. Explicit files are kept whatever their
/// extension's ignore status; explicit non-YAML/JSON files are skipped.
pub fn discover(paths: &[PathBuf], policies: &[PathBuf]) -> (Vec<Candidate>, Vec<WalkProblem>) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for p in policies {
        out.push(Candidate {
            path: p.clone(),
            kind: NameKind::Policy,
            explicit: true,
        });
    }
    for root in paths {
        if !root.is_dir() {
            // Files (and paths that do not exist, reported when loading) are read as given.
            let kind = name_kind(root).unwrap_or(NameKind::SpecLike);
            if root.exists() && name_kind(root).is_none() {
                continue;
            }
            out.push(Candidate {
                path: root.clone(),
                kind,
                explicit: true,
            });
            continue;
        }
        let walker = ignore::WalkBuilder::new(root)
            .require_git(false)
            .follow_links(false)
            .sort_by_file_name(|a, b| a.cmp(b))
            .build();
        for entry in walker {
            match entry {
                Ok(e) => {
                    if !e.file_type().is_some_and(|t| t.is_file()) {
                        continue;
                    }
                    if let Some(kind) = name_kind(e.path()) {
                        out.push(Candidate {
                            path: e.path().to_path_buf(),
                            kind,
                            explicit: false,
                        });
                    }
                }
                Err(err) => problems.push(WalkProblem {
                    path: root.clone(),
                    message: err.to_string(),
                }),
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    // A file given both as `--policy` and found by the walk stays a policy.
    out.dedup_by(|later, earlier| {
        if later.path == earlier.path {
            if later.kind == NameKind::Policy {
                earlier.kind = NameKind::Policy;
            }
            earlier.explicit |= later.explicit;
            true
        } else {
            false
        }
    });
    (out, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_names() {
        let k = |s: &str| name_kind(Path::new(s));
        assert_eq!(k("retry-policy.yaml"), Some(NameKind::Policy));
        assert_eq!(k("a/shop.retry-policy.yml"), Some(NameKind::Policy));
        assert_eq!(k("openapi.json"), Some(NameKind::SpecLike));
        assert_eq!(k("swagger.yaml"), Some(NameKind::SpecLike));
        assert_eq!(k("shop.openapi.yaml"), Some(NameKind::SpecLike));
        assert_eq!(k("docker-compose.yml"), Some(NameKind::Other));
        assert_eq!(k("README.md"), None);
    }
}
