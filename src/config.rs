//! The configuration file `.retrylint.yaml`: rule severities, thresholds, which
//! files to lint, and the failing severity.
//!
//! Found in the current directory or the nearest parent (up to the filesystem
//! root), or given with `--config FILE`. Read strictly from the located tree, like
//! policy files ([`crate::policy::parse`]): an unknown key, rule or value is an error
//! with file, line and column and a "did you mean". A configuration error is a usage
//! error (exit 2), not a finding: it is rendered like a diagnostic on standard error.
//!
//! ```yaml
//! rules:
//!   RL501: off                 # a code, a name or a code prefix (`RL3`)
//!   missing-jitter: error      # error | warning | info | off
//! thresholds:
//!   max_attempts: 8            # RL303
//!   max_amplification: 4       # RL311
//! include: ["apis/**"]         # globs relative to this file's directory
//! exclude: ["apis/legacy/**"]
//! fail_on: warning             # error | warning | info | never
//! baseline: .retrylint-baseline.json  # relative to this file's directory
//! ```

use crate::diagnostic::{catalog, Question, RuleMeta};
use crate::diagnostic::{Diagnostic, Severity};
use crate::source::loader::{Limits, Loaded, Workspace};
use crate::source::strict::{suggest, StrictReader};
use crate::source::tree::{Kind, NodeId};
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The configuration file's name.
pub const FILE_NAME: &str = ".retrylint.yaml";
/// Keys of the configuration's top level.
pub const TOP_KEYS: &[&str] = &[
    "rules",
    "thresholds",
    "include",
    "exclude",
    "fail_on",
    "services",
    "platforms",
    "baseline",
    "projects",
];
/// Keys of a `services` item (`layers.md` "Binding a config to operations").
pub const SERVICE_KEYS: &[&str] = &["spec", "names", "base_path", "grpc", "clients", "mesh"];
/// Keys of `platforms`.
pub const PLATFORM_KEYS: &[&str] = &["istio", "gateway_api"];
/// Keys of `platforms.istio`.
pub const ISTIO_KEYS: &[&str] = &["version", "exclude_unsafe_503"];
/// Keys of `platforms.gateway_api`.
pub const GATEWAY_API_KEYS: &[&str] = &["implementation"];
/// Values of `platforms.gateway_api.implementation`.
pub const GATEWAY_API_IMPLEMENTATIONS: &[&str] = &["istio", "envoy-gateway", "cilium", "gep"];
/// Keys of `thresholds`.
pub const THRESHOLD_KEYS: &[&str] = &["max_attempts", "max_amplification"];
/// Values of a `rules` entry.
pub const LEVELS: &[&str] = &["error", "warning", "info", "off"];
/// Values of `fail_on`.
pub const FAIL_ON: &[&str] = &["error", "warning", "info", "never"];

/// The pseudo-rule a configuration error is reported as (not in the registry: it is
/// a usage error, exit 2, never a finding).
pub const META: RuleMeta = RuleMeta {
    code: "config",
    name: "invalid-config",
    severity: Severity::Error,
    question: Question::Input,
    summary: "the configuration file cannot be read as meant",
};

/// Configurable thresholds of the budget rules (`thresholds:` in `.retrylint.yaml`).
#[derive(Debug, Clone, Copy)]
pub struct Thresholds {
    /// RL303: attempts above this are excessive (default 5).
    pub max_attempts: u32,
    /// RL311: a product of attempts across layers above this is amplification
    /// (default 3).
    pub max_amplification: u64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            max_attempts: 5,
            max_amplification: 3,
        }
    }
}

/// What a rule is set to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Findings are dropped.
    Off,
    /// Findings get this severity (both severities of RL306/RL308).
    Severity(Severity),
}

/// Lowest severity that fails a run; `None` never fails.
pub type FailThreshold = Option<Severity>;

/// Which files to lint: globs relative to the configuration file's directory.
#[derive(Debug, Clone)]
pub struct PathFilter {
    /// The configuration file's directory (canonical).
    pub dir: PathBuf,
    /// When set, a file must match one of these.
    pub include: Option<GlobSet>,
    /// A file (or one of its directories) matching one of these is not linted.
    pub exclude: Option<GlobSet>,
}

impl PathFilter {
    /// True when `path` is to be linted. Files outside the configuration's directory
    /// are not filtered.
    pub fn allows(&self, path: &Path) -> bool {
        let abs = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let Ok(rel) = abs.strip_prefix(&self.dir) else {
            return true;
        };
        if let Some(ex) = &self.exclude {
            let mut cur = Some(rel);
            while let Some(p) = cur.filter(|p| !p.as_os_str().is_empty()) {
                if ex.is_match(p) {
                    return false;
                }
                cur = p.parent();
            }
        }
        self.include.as_ref().is_none_or(|inc| inc.is_match(rel))
    }
}

/// Per-rule levels, keyed by code.
#[derive(Debug, Clone, Default)]
pub struct RuleLevels(pub BTreeMap<&'static str, Level>);

impl RuleLevels {
    /// Applies the levels: drops findings of rules that are off, sets the severity of
    /// the others. RL001 (a file that could not be read or parsed, exit 2) is never
    /// dropped nor changed: the reason a run could not lint is always reported, as
    /// ruff reports syntax errors whatever is selected.
    pub fn apply(&self, diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
        if self.0.is_empty() {
            return diags;
        }
        diags
            .into_iter()
            .filter_map(|mut d| match self.0.get(d.code) {
                _ if d.code == crate::source::rl001_invalid_syntax::META.code => Some(d),
                Some(Level::Off) => None,
                Some(Level::Severity(s)) => {
                    d.severity = *s;
                    Some(d)
                }
                None => Some(d),
            })
            .collect()
    }

    /// True when the rule `code` is off.
    pub fn is_off(&self, code: &str) -> bool {
        code != crate::source::rl001_invalid_syntax::META.code
            && self.0.get(code) == Some(&Level::Off)
    }
}

/// A read configuration.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// The file it was read from (`None`: no file, the defaults).
    pub path: Option<PathBuf>,
    /// Rule levels from `rules`.
    pub rules: RuleLevels,
    /// Thresholds.
    pub thresholds: Thresholds,
    /// `include` / `exclude`.
    pub filter: Option<PathFilter>,
    /// `fail_on`, when given.
    pub fail_on: Option<FailThreshold>,
    /// `services:`: which spec each imported config serves.
    pub services: Vec<ServiceBinding>,
    /// `platforms:`: platform versions and implementations that decide defaults.
    pub platforms: Platforms,
    /// `baseline:`: the baseline file `check` (without `--baseline`) and `lsp` use,
    /// resolved against the configuration's folder.
    pub baseline: Option<PathBuf>,
    /// `projects:`: globs (relative to the configuration's folder) of the folders
    /// below it that are projects of their own (a monorepo's services, a folder of
    /// test inputs): a run over a file there answers for that folder's project
    /// (`crate::project::answer_root`), not for the whole repository.
    pub projects: Option<GlobSet>,
}

/// One `services:` item: binds retry configs to a spec (`layers.md` "Binding a
/// config to operations" 1).
#[derive(Debug, Clone, Default)]
pub struct ServiceBinding {
    /// The spec, as written (relative to `.retrylint.yaml`).
    pub spec_text: String,
    /// The spec's path, resolved against the configuration's folder.
    pub spec: PathBuf,
    /// Hosts, Kubernetes services, Envoy clusters, upstreams the spec is served as.
    pub names: Vec<String>,
    /// The prefix the proxy sees before the spec's paths (`/v1`).
    pub base_path: Option<String>,
    /// gRPC services it serves (`example.payments.v1.Payments`).
    pub grpc: Vec<String>,
    /// Client names (Resilience4j instances, AWS profiles).
    pub clients: Vec<String>,
    /// The mesh the service runs in even with no route config (`istio`): Istio's
    /// implicit default retry policy then applies to it.
    pub mesh: Option<String>,
    /// The `mesh` node, where findings about that implicit default point.
    pub mesh_at: Option<crate::source::refs::At>,
}

/// `platforms:`: what decides version-dependent defaults.
#[derive(Debug, Clone, Default)]
pub struct Platforms {
    /// `platforms.istio`.
    pub istio: Option<IstioPlatform>,
    /// `platforms.gateway_api.implementation`: `istio`, `envoy-gateway`, `cilium`
    /// or `gep` (the GEP text itself).
    pub gateway_api_implementation: Option<String>,
}

/// `platforms.istio`.
#[derive(Debug, Clone, Copy, Default)]
pub struct IstioPlatform {
    /// `version` as (major, minor): `"1.22"` is (1, 22).
    pub version: Option<(u32, u32)>,
    /// `exclude_unsafe_503`: the value of `EXCLUDE_UNSAFE_503_FROM_DEFAULT_RETRY`
    /// (1.24 to 1.26; default true there).
    pub exclude_unsafe_503: Option<bool>,
}

/// The codes a selector names: a code (`RL201`, any case), a name
/// (`unprotected-retry`) or a code prefix (`RL2`, `RL20`). Empty when none.
pub fn matching_codes(selector: &str) -> Vec<&'static str> {
    let s = selector.trim();
    if let Some(rule) = catalog::find(s) {
        return vec![rule.code];
    }
    let upper = s.to_ascii_uppercase();
    if upper.len() < 2 || !upper.starts_with("RL") {
        return Vec::new();
    }
    catalog::ALL
        .iter()
        .filter(|r| r.code.starts_with(&upper))
        .map(|r| r.code)
        .collect()
}

/// A "did you mean" for an unknown rule selector.
pub fn suggest_rule(selector: &str) -> Option<&'static str> {
    let mut names: Vec<&'static str> = catalog::ALL.iter().map(|r| r.name).collect();
    names.extend(catalog::ALL.iter().map(|r| r.code));
    suggest(selector, &names)
}

/// Applies `--select` and `--ignore` over the file's levels: `--select` keeps only
/// the matching rules (at the file's severity, else their default), `--ignore` turns
/// the matching ones off. Errors name an unknown selector.
pub fn apply_cli(
    levels: &mut RuleLevels,
    select: &[String],
    ignore: &[String],
) -> Result<(), String> {
    let split = |v: &[String]| -> Vec<String> {
        v.iter()
            .flat_map(|s| s.split(','))
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    };
    let resolve = |flag: &str, sels: Vec<String>| -> Result<Vec<&'static str>, String> {
        let mut out = Vec::new();
        for s in sels {
            let codes = matching_codes(&s);
            if codes.is_empty() {
                let hint = suggest_rule(&s)
                    .map(|h| format!(" (did you mean `{h}`?)"))
                    .unwrap_or_default();
                return Err(format!(
                    "{flag}: no rule `{s}`{hint}; use a code, a name or a code prefix such as `RL3`"
                ));
            }
            out.extend(codes);
        }
        Ok(out)
    };
    let selected = resolve("--select", split(select))?;
    let ignored = resolve("--ignore", split(ignore))?;
    if !select.is_empty() {
        for r in catalog::ALL {
            let code = r.code;
            if selected.contains(&code) {
                if levels.is_off(code) {
                    levels.0.remove(code);
                }
            } else {
                levels.0.insert(code, Level::Off);
            }
        }
    }
    for code in ignored {
        levels.0.insert(code, Level::Off);
    }
    Ok(())
}

/// Finds `.retrylint.yaml` in `start` or its nearest parent.
pub fn discover(start: &Path) -> Option<PathBuf> {
    let abs = std::fs::canonicalize(start).unwrap_or_else(|_| start.to_path_buf());
    abs.ancestors()
        .map(|d| d.join(FILE_NAME))
        .find(|p| p.is_file())
}

/// Where to look for `.retrylint.yaml` when `--config` is not given: the deepest
/// folder holding every checked path (a file counts by its folder), so that
/// `retrylint check ../other-repo` reads that repository's configuration, as ruff
/// and clippy find theirs from the files they check; `cwd` when no path is given.
/// Relative paths are taken from `cwd`.
pub fn search_start(paths: &[PathBuf], cwd: &Path) -> PathBuf {
    let folders: Vec<PathBuf> = paths
        .iter()
        .map(|p| {
            let p = cwd.join(p);
            let p = std::fs::canonicalize(&p).unwrap_or(p);
            if p.is_dir() {
                p
            } else {
                p.parent().map(Path::to_path_buf).unwrap_or(p)
            }
        })
        .collect();
    let Some(first) = folders.first() else {
        return cwd.to_path_buf();
    };
    let mut common = first.clone();
    for f in &folders[1..] {
        while !f.starts_with(&common) {
            if !common.pop() {
                return cwd.to_path_buf();
            }
        }
    }
    common
}

/// A configuration error, rendered like a diagnostic.
#[derive(Debug)]
pub enum ConfigError {
    /// The file could not be read (message).
    Io(String),
    /// Located problems in the file.
    Invalid(Vec<Diagnostic>),
}

/// Loads the configuration: `explicit` (from `--config`, relative to `cwd`) or the
/// one discovered from `start` up (see [`search_start`]); the defaults when there is
/// none.
pub fn load(explicit: Option<&Path>, cwd: &Path) -> Result<Config, ConfigError> {
    load_from(explicit, cwd, cwd)
}

/// [`load`], discovering from `start` rather than from `cwd`.
pub fn load_from(explicit: Option<&Path>, cwd: &Path, start: &Path) -> Result<Config, ConfigError> {
    let path = match explicit {
        Some(p) => {
            let p = cwd.join(p);
            if !p.is_file() {
                let why = if p.exists() {
                    "is not a regular file"
                } else {
                    "does not exist"
                };
                return Err(ConfigError::Io(format!(
                    "configuration file `{}` {why}",
                    p.display()
                )));
            }
            p
        }
        None => match discover(start) {
            Some(p) => p,
            None => return Ok(Config::default()),
        },
    };
    if explicit.is_none() && !may_read_found(&path) {
        return Err(ConfigError::Io(format!(
            "configuration file `{}` is a link whose real path lies outside its project, \
             so it is not read (name it with `--config` to read it)",
            path.display()
        )));
    }
    let ws = Workspace::new(cwd.to_path_buf(), Limits::default());
    let doc = ws.load(&path);
    parse(&doc, &path)
}

/// Whether the `.retrylint.yaml` found at `path` (not named with `--config`) may be
/// read: the read boundary ([`crate::source::boundary`]) of the project it was found
/// in, the git work tree enclosing its folder, else that folder. A link to a shared
/// configuration elsewhere in the repository is read; one out of it is not.
pub fn may_read_found(path: &Path) -> bool {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    crate::source::boundary::ReadBoundary::new(&[crate::source::boundary::work_tree_or(&dir)])
        .admits(path)
}

/// Parses a loaded configuration file.
pub fn parse(doc: &Arc<Loaded>, path: &Path) -> Result<Config, ConfigError> {
    let tree = match &doc.tree {
        Ok(t) => t,
        Err(e) => {
            let d = crate::source::rl001_invalid_syntax::from_error(doc, e);
            return Err(ConfigError::Invalid(vec![d]));
        }
    };
    let dir = std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut p = Parser(StrictReader::new(doc, tree, &META));
    let mut config = Config {
        path: Some(path.to_path_buf()),
        ..Config::default()
    };
    let Some(root) = tree.root() else {
        return Ok(config);
    };
    if tree.kind(root) == Kind::Null {
        return Ok(config);
    }
    if tree.kind(root) != Kind::Map {
        p.wrong_type(root, "a configuration file", "a mapping");
        return Err(ConfigError::Invalid(p.0.diags));
    }
    let mut include = None;
    let mut exclude = None;
    for (key, v) in p.known_entries(root, TOP_KEYS, "the configuration") {
        match key.as_str() {
            "rules" => config.rules = p.rules(v),
            "thresholds" => config.thresholds = p.thresholds(v),
            "include" => include = p.globs(v, "`include`"),
            "exclude" => exclude = p.globs(v, "`exclude`"),
            "fail_on" => {
                if let Some(t) = p.choice(v, "`fail_on`", FAIL_ON) {
                    config.fail_on = Some(match t {
                        "error" => Some(Severity::Error),
                        "warning" => Some(Severity::Warning),
                        "info" => Some(Severity::Info),
                        _ => None,
                    });
                }
            }
            "services" => config.services = p.services(v, &dir),
            "platforms" => config.platforms = p.platforms(v),
            "baseline" => config.baseline = p.string(v, "`baseline`").map(|b| dir.join(b)),
            // A project is a folder at a known depth: `services/*` names
            // `services/billing`, never `services/billing/api` (one name per `*`;
            // `**` for any depth).
            "projects" => config.projects = p.globs_of(v, "`projects`", true),
            _ => unreachable!("filtered by known_entries"),
        }
    }
    if include.is_some() || exclude.is_some() {
        config.filter = Some(PathFilter {
            dir,
            include,
            exclude,
        });
    }
    if p.diags.is_empty() {
        Ok(config)
    } else {
        Err(ConfigError::Invalid(p.0.diags))
    }
}

/// The config reader: the shared strict reader, reporting as a configuration error.
struct Parser<'a>(StrictReader<'a>);

impl<'a> std::ops::Deref for Parser<'a> {
    type Target = StrictReader<'a>;
    fn deref(&self) -> &StrictReader<'a> {
        &self.0
    }
}

impl std::ops::DerefMut for Parser<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl Parser<'_> {
    /// One of `options` (a string), reported under the config's own code.
    fn choice(
        &mut self,
        node: NodeId,
        what: &str,
        options: &[&'static str],
    ) -> Option<&'static str> {
        let pairs: Vec<(&'static str, &'static str)> = options.iter().map(|o| (*o, *o)).collect();
        self.0.choice(node, what, &pairs)
    }

    fn rules(&mut self, map: NodeId) -> RuleLevels {
        let mut levels = RuleLevels::default();
        if self.tree.kind(map) != Kind::Map {
            self.wrong_type(map, "`rules`", "a mapping of rule codes or names to levels");
            return levels;
        }
        // Less specific selectors (prefixes) first, so an exact code or name wins.
        let mut found: Vec<(usize, Vec<&'static str>, Level)> = Vec::new();
        for (k, v) in self.tree.entries(map) {
            let Some(name) = self.tree.scalar(k).map(str::to_string) else {
                self.err(
                    k,
                    "a `rules` key must be a rule code or name".into(),
                    "not a rule",
                    None,
                );
                continue;
            };
            let codes = matching_codes(&name);
            let level = self.choice(v, &format!("rule `{name}`"), LEVELS);
            if codes.is_empty() {
                let help = suggest_rule(&name)
                    .map(|s| format!("did you mean `{s}`?"))
                    .unwrap_or_else(|| {
                        "use a code (`RL201`), a name (`unprotected-retry`) or a code prefix (`RL3`); `retrylint rules` lists them".into()
                    });
                self.err(
                    k,
                    format!("unknown rule `{name}` in `rules`"),
                    "unknown rule",
                    Some(help),
                );
                continue;
            }
            let Some(level) = level else { continue };
            let level = match level {
                "off" => Level::Off,
                "error" => Level::Severity(Severity::Error),
                "warning" => Level::Severity(Severity::Warning),
                _ => Level::Severity(Severity::Info),
            };
            let exact = catalog::find(name.trim()).is_some();
            let rank = if exact { usize::MAX } else { name.len() };
            found.push((rank, codes, level));
        }
        found.sort_by_key(|(rank, _, _)| *rank);
        for (_, codes, level) in found {
            for c in codes {
                levels.0.insert(c, level);
            }
        }
        levels
    }

    fn positive(&mut self, node: NodeId, what: &str) -> Option<i64> {
        match self.tree.as_i64(node) {
            Some(i) if self.tree.kind(node) == Kind::Int && i >= 1 => Some(i),
            Some(i) if self.tree.kind(node) == Kind::Int => {
                self.err(
                    node,
                    format!("{what} must be at least 1, found {i}"),
                    "out of range",
                    None,
                );
                None
            }
            _ => {
                self.wrong_type(node, what, "an integer");
                None
            }
        }
    }

    fn thresholds(&mut self, map: NodeId) -> Thresholds {
        let mut t = Thresholds::default();
        if self.tree.kind(map) != Kind::Map {
            self.wrong_type(map, "`thresholds`", "a mapping");
            return t;
        }
        for (key, v) in self.known_entries(map, THRESHOLD_KEYS, "`thresholds`") {
            match key.as_str() {
                "max_attempts" => {
                    if let Some(i) = self.positive(v, "`thresholds.max_attempts`") {
                        t.max_attempts = u32::try_from(i).unwrap_or(u32::MAX);
                    }
                }
                "max_amplification" => {
                    if let Some(i) = self.positive(v, "`thresholds.max_amplification`") {
                        t.max_amplification = i as u64;
                    }
                }
                _ => unreachable!("filtered by known_entries"),
            }
        }
        t
    }

    fn globs(&mut self, node: NodeId, what: &str) -> Option<GlobSet> {
        self.globs_of(node, what, false)
    }

    /// The globs of `node`; with `one_name_per_star`, `*` and `?` never match a `/`
    /// (globset's `literal_separator`), as in a shell.
    fn globs_of(&mut self, node: NodeId, what: &str, one_name_per_star: bool) -> Option<GlobSet> {
        let items: Vec<NodeId> = match self.tree.kind(node) {
            Kind::Seq => self.tree.items(node).to_vec(),
            Kind::Str => vec![node],
            _ => {
                self.wrong_type(node, what, "a list of globs");
                return None;
            }
        };
        let mut builder = GlobSetBuilder::new();
        for item in items {
            let Some(text) = self.tree.as_str(item).map(str::to_string) else {
                self.wrong_type(item, &format!("an {what} item"), "a glob string");
                continue;
            };
            let pattern = text.trim_start_matches("./").trim_end_matches('/');
            match GlobBuilder::new(pattern)
                .literal_separator(one_name_per_star)
                .build()
            {
                Ok(g) => {
                    builder.add(g);
                }
                Err(e) => self.err(
                    item,
                    format!("invalid glob `{text}` in {what}: {}", e.kind()),
                    "invalid glob",
                    Some("write a glob such as `apis/**/*.yaml`".into()),
                ),
            }
        }
        builder.build().ok()
    }
}

impl Parser<'_> {
    fn string(&mut self, node: NodeId, what: &str) -> Option<String> {
        match self.tree.kind(node) {
            Kind::Str | Kind::Int | Kind::Float => self.tree.scalar(node).map(str::to_string),
            _ => {
                self.wrong_type(node, what, "a string");
                None
            }
        }
    }

    fn strings(&mut self, node: NodeId, what: &str) -> Vec<String> {
        match self.tree.kind(node) {
            Kind::Seq => {
                let items = self.tree.items(node).to_vec();
                items
                    .into_iter()
                    .filter_map(|i| self.string(i, what))
                    .collect()
            }
            _ => self.string(node, what).into_iter().collect(),
        }
    }

    fn services(&mut self, node: NodeId, dir: &Path) -> Vec<ServiceBinding> {
        if self.tree.kind(node) != Kind::Seq {
            self.wrong_type(node, "`services`", "a list of `{spec, names}` mappings");
            return Vec::new();
        }
        let mut out = Vec::new();
        for item in self.tree.items(node).to_vec() {
            if self.tree.kind(item) != Kind::Map {
                self.wrong_type(item, "a `services` item", "a mapping");
                continue;
            }
            let mut b = ServiceBinding::default();
            for (key, v) in self.known_entries(item, SERVICE_KEYS, "a `services` item") {
                match key.as_str() {
                    "spec" => {
                        if let Some(t) = self.string(v, "`services[].spec`") {
                            b.spec = dir.join(&t);
                            b.spec_text = t;
                        }
                    }
                    "names" => b.names = self.strings(v, "`services[].names`"),
                    "base_path" => b.base_path = self.string(v, "`services[].base_path`"),
                    "grpc" => b.grpc = self.strings(v, "`services[].grpc`"),
                    "clients" => b.clients = self.strings(v, "`services[].clients`"),
                    "mesh" => {
                        b.mesh = self.string(v, "`services[].mesh`");
                        b.mesh_at = Some(self.at(v));
                    }
                    _ => unreachable!("filtered by known_entries"),
                }
            }
            if b.spec_text.is_empty() {
                self.err(
                    item,
                    "a `services` item needs `spec`".into(),
                    "no spec",
                    Some(
                        "write `spec: path/to/openapi.yaml` (relative to `.retrylint.yaml`)".into(),
                    ),
                );
                continue;
            }
            out.push(b);
        }
        out
    }

    fn platforms(&mut self, node: NodeId) -> Platforms {
        let mut out = Platforms::default();
        if !self.expect_map(node, "`platforms`") {
            return out;
        }
        for (key, v) in self.known_entries(node, PLATFORM_KEYS, "`platforms`") {
            match key.as_str() {
                "istio" => {
                    if !self.expect_map(v, "`platforms.istio`") {
                        continue;
                    }
                    let mut istio = IstioPlatform::default();
                    for (k, value) in self.known_entries(v, ISTIO_KEYS, "`platforms.istio`") {
                        match k.as_str() {
                            "version" => {
                                let text = self.string(value, "`platforms.istio.version`");
                                let parsed = text.as_deref().and_then(parse_minor_version);
                                if parsed.is_none() && text.is_some() {
                                    self.err(
                                        value,
                                        "`platforms.istio.version` must be a version such as \"1.22\"".into(),
                                        "not a version",
                                        Some("quote it: `version: \"1.22\"` (unquoted, 1.20 would be read as the number 1.2)".into()),
                                    );
                                }
                                istio.version = parsed;
                            }
                            "exclude_unsafe_503" => match self.tree.as_bool(value) {
                                Some(b) => istio.exclude_unsafe_503 = Some(b),
                                None => self.wrong_type(
                                    value,
                                    "`platforms.istio.exclude_unsafe_503`",
                                    "true or false",
                                ),
                            },
                            _ => unreachable!("filtered by known_entries"),
                        }
                    }
                    out.istio = Some(istio);
                }
                "gateway_api" => {
                    if !self.expect_map(v, "`platforms.gateway_api`") {
                        continue;
                    }
                    for (_, value) in
                        self.known_entries(v, GATEWAY_API_KEYS, "`platforms.gateway_api`")
                    {
                        out.gateway_api_implementation = self
                            .choice(
                                value,
                                "`platforms.gateway_api.implementation`",
                                GATEWAY_API_IMPLEMENTATIONS,
                            )
                            .map(str::to_string);
                    }
                }
                _ => unreachable!("filtered by known_entries"),
            }
        }
        out
    }
}

/// `"1.22"` (or `"1.22.3"`, `"v1.22"`) as (1, 22).
pub fn parse_minor_version(text: &str) -> Option<(u32, u32)> {
    let t = text.trim().trim_start_matches('v');
    let mut parts = t.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}
