//! A spec's service identity from the repository's own names (`layers.md`
//! "Binding a config to operations" 1): the name other configs reach the service by
//! when its spec writes no server host. Read today: the Spring Boot
//! `spring.application.name` of the service the spec lives in (the
//! `application.yml`, `.yaml`, `.properties` or `bootstrap.yml` of the nearest folder
//! above the spec that has one, directly or under `src/main/resources/`), which a
//! Spring Cloud Gateway route reaches as `lb://<name>` and Eureka or Kubernetes
//! discovery by that name; and the Docker Compose services (name and `hostname`)
//! whose `build` context holds the spec, the names other containers reach it by;
//! and the .NET Aspire resource names an AppHost runs the spec's project under
//! ([`super::aspire`]: `AddProject<Projects.Ordering_API>("ordering-api")`). A
//! binding by identity is a binding by host: the name counts as a server host of
//! the spec.

use crate::source::loader::Loaded;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Folders above a spec searched for its service's property file (a spec under
/// `src/main/resources/static/` is four below its module folder).
const MAX_UP: usize = 6;

/// The property files that may name the application, relative to a folder.
const CANDIDATES: &[&str] = &[
    "application.yml",
    "application.yaml",
    "application.properties",
    "bootstrap.yml",
    "bootstrap.yaml",
    "bootstrap.properties",
    "src/main/resources/application.yml",
    "src/main/resources/application.yaml",
    "src/main/resources/application.properties",
    "src/main/resources/bootstrap.yml",
    "src/main/resources/bootstrap.yaml",
    "src/main/resources/bootstrap.properties",
];

/// Finds the identities of specs, one folder lookup each at most.
#[derive(Default)]
pub struct Identities {
    /// Folder -> the application name its property files give (`None`: none).
    by_folder: HashMap<PathBuf, Option<String>>,
    /// Compose file -> its services that build from a folder.
    compose: HashMap<PathBuf, Vec<(PathBuf, Vec<String>)>>,
    /// Folder -> the names of the files in it (listed once: a monorepo of
    /// thousands of specs asks about the same folders again and again).
    listed: HashMap<PathBuf, std::collections::HashSet<std::ffi::OsString>>,
    /// Aspire resource names by project class (`Ordering_API`), from the run's
    /// AppHost sources ([`super::aspire::project_names`]).
    aspire: HashMap<String, Vec<String>>,
}

/// Reads a file through the run's read boundary; `None` when it may not be read or
/// is absent. Given with each look-up, so that one finder (its folder memo) serves
/// every stage of a run, whichever holds the workspace then.
pub type Load<'a> = &'a dyn Fn(&Path) -> Option<Arc<Loaded>>;

impl Identities {
    /// A finder with nothing looked up yet.
    pub fn new() -> Identities {
        Identities::default()
    }

    /// The finder, also knowing the Aspire resource names `names` (by project
    /// class, as [`super::aspire::project_names`] gives them).
    pub fn with_aspire(mut self, names: HashMap<String, Vec<String>>) -> Identities {
        self.aspire = names;
        self
    }

    /// The identities of the spec at `spec` (lower case): the application name of
    /// the nearest folder above it that names one, and the names of the Compose
    /// services that build from a folder holding it; empty when none does. Files
    /// are read with `load`.
    pub fn of(&mut self, spec: &Path, load: Load<'_>) -> Vec<String> {
        let mut out = Vec::new();
        let mut dir = spec.parent();
        for _ in 0..MAX_UP {
            let Some(d) = dir else { break };
            if let Some(name) = self.folder(d, load) {
                out.push(name);
                break;
            }
            dir = d.parent();
        }
        for name in self.compose_names(spec, load) {
            if !out.contains(&name) {
                out.push(name);
            }
        }
        for name in self.aspire_names(spec) {
            if !out.contains(&name) {
                out.push(name);
            }
        }
        out
    }

    /// The Aspire resource names of the project that holds `spec`: the nearest
    /// folder above it with a `*.csproj`, each project file's generated class
    /// looked up.
    fn aspire_names(&mut self, spec: &Path) -> Vec<String> {
        if self.aspire.is_empty() {
            return Vec::new();
        }
        let mut dir = spec.parent();
        for _ in 0..MAX_UP {
            let Some(d) = dir else { break };
            let mut stems: Vec<String> = self
                .listing(d)
                .iter()
                .filter_map(|n| n.to_str()?.strip_suffix(".csproj").map(str::to_string))
                .collect();
            if !stems.is_empty() {
                stems.sort();
                return stems
                    .iter()
                    .flat_map(|s| self.aspire.get(&super::aspire::class_name(s)))
                    .flatten()
                    .cloned()
                    .collect();
            }
            dir = d.parent();
        }
        Vec::new()
    }

    /// True when `path` names an entry of its folder's listing (a folder that
    /// cannot be listed holds none; a folder of that name is no property file and
    /// reads as none).
    fn has_file(&mut self, path: &Path) -> bool {
        let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
            return false;
        };
        self.listing(dir).contains(name)
    }

    /// The names of the entries of `dir` (empty when it cannot be listed).
    fn listing(&mut self, dir: &Path) -> &std::collections::HashSet<std::ffi::OsString> {
        self.listed.entry(dir.to_path_buf()).or_insert_with(|| {
            std::fs::read_dir(dir)
                .map(|rd| rd.filter_map(Result::ok).map(|e| e.file_name()).collect())
                .unwrap_or_default()
        })
    }

    fn folder(&mut self, dir: &Path, load: Load<'_>) -> Option<String> {
        if let Some(hit) = self.by_folder.get(dir) {
            return hit.clone();
        }
        let found = CANDIDATES.to_vec().into_iter().find_map(|rel| {
            let path = dir.join(rel);
            if !self.has_file(&path) {
                return None;
            }
            let doc = load(&path)?;
            application_name(&doc)
        });
        self.by_folder.insert(dir.to_path_buf(), found.clone());
        found
    }
}

/// `spring.application.name` of a Spring property file (any document, relaxed
/// names), lower case; `None` when it names none or does not parse. A `${...}`
/// placeholder takes its default, and names nothing without one. A Spring Cloud
/// Gateway application names none: a spec beside a gateway describes the API it
/// fronts, which its routes reach under other names.
pub fn application_name(doc: &Arc<Loaded>) -> Option<String> {
    use super::spring::source;
    // Every spelling of the key holds `application` (`spring.application.name`,
    // nested YAML, `SPRING_APPLICATION_NAME`): a file without it names none, and
    // is not parsed a second time (a large gateway `application.properties` held
    // that parse beside its imported routes: 21 of 48 MB at its peak).
    if !mentions_application(&doc.file.text) {
        return None;
    }
    // Only the two properties read here are built from a `.properties` file (its
    // routes are not), so a gateway's file that does name its application is not
    // parsed whole a second time either.
    let docs = source::documents_reading(
        doc,
        &[
            source::Wanted {
                path: "spring.cloud.gateway",
                presence_only: true,
            },
            source::Wanted {
                path: "spring.application.name",
                presence_only: false,
            },
        ],
    )
    .ok()?;
    let is_gateway = docs.iter().any(|d| {
        d.doc
            .tree
            .as_ref()
            .is_ok_and(|t| !source::find(t, d.root, "spring.cloud.gateway").is_empty())
    });
    if is_gateway {
        return None;
    }
    docs.iter().find_map(|d| {
        let tree = d.doc.tree.as_ref().ok()?;
        let node = source::find(tree, d.root, "spring.application.name")
            .into_iter()
            .next()?;
        match source::scalar(tree, node)? {
            source::Resolved::Known(v) => {
                let v = v.trim().to_ascii_lowercase();
                (!v.is_empty()).then_some(v)
            }
            _ => None,
        }
    })
}

/// True when `text` holds `application`, ASCII case-insensitively.
fn mentions_application(text: &str) -> bool {
    static FINDER: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    FINDER
        .get_or_init(|| {
            aho_corasick::AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(["application"])
                .expect("one literal pattern")
        })
        .is_match(text)
}

/// The Compose files looked for in each folder above a spec.
const COMPOSE: &[&str] = &[
    "compose.yaml",
    "compose.yml",
    "docker-compose.yaml",
    "docker-compose.yml",
];

impl Identities {
    /// The Compose services whose `build` context holds `spec`, from the Compose
    /// files of the folders above it: each service name (its DNS name on the
    /// Compose network) and its `hostname`, lower case.
    fn compose_names(&mut self, spec: &Path, load: Load<'_>) -> Vec<String> {
        let mut out = Vec::new();
        let mut dir = spec.parent();
        for _ in 0..MAX_UP {
            let Some(d) = dir else { break };
            for name in COMPOSE {
                let path = d.join(name);
                if !self.has_file(&path) {
                    continue;
                }
                let services = match self.compose.get(&path) {
                    Some(hit) => hit.clone(),
                    None => {
                        let read = load(&path)
                            .map(|doc| compose_services(&doc, d))
                            .unwrap_or_default();
                        self.compose.insert(path.clone(), read.clone());
                        read
                    }
                };
                for (context, names) in services {
                    if spec.starts_with(&context) {
                        for n in names {
                            if !out.contains(&n) {
                                out.push(n);
                            }
                        }
                    }
                }
            }
            dir = d.parent();
        }
        out
    }
}

/// The services of a Compose file in folder `dir` that build from a folder: (the
/// build context as a path, the service's names).
fn compose_services(doc: &Arc<Loaded>, dir: &Path) -> Vec<(PathBuf, Vec<String>)> {
    let Ok(tree) = &doc.tree else {
        return Vec::new();
    };
    let Some(services) = tree.root().and_then(|r| tree.get(r, "services")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (k, v) in tree.entries(services) {
        let Some(name) = tree.scalar(k) else { continue };
        let context = tree.get(v, "build").and_then(|b| {
            tree.as_str(b)
                .or_else(|| tree.get(b, "context").and_then(|c| tree.as_str(c)))
        });
        let Some(context) = context.filter(|c| !c.contains("://")) else {
            continue;
        };
        let mut names = vec![name.trim().to_ascii_lowercase()];
        if let Some(h) = tree.get(v, "hostname").and_then(|h| tree.as_str(h)) {
            names.push(h.trim().to_ascii_lowercase());
        }
        names.retain(|n| !n.is_empty());
        out.push((crate::source::refs::normalize(&dir.join(context)), names));
    }
    out
}
