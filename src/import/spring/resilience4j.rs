//! Resilience4j retries in Spring property files: `resilience4j.retry.configs.<name>`
//! and `resilience4j.retry.instances.<name>` (`retry-configs.md` §7.1, §12 row
//! Resilience4j; R4J `CommonRetryConfigurationProperties`, `ConfigUtils`).
//!
//! - One route table per instance (per variant: the base, and each profile whose
//!   documents set `resilience4j.retry`, named in the kind), layer `client`, its
//!   `names` the instance name (`services[].clients` binds it); its route matches the
//!   operation whose `operationId`, or the operations whose tag, equals the instance
//!   name. With no instance, `configs.default` is the table and matches every
//!   operation (code decorated with `@Retry(name = "any")` gets it; case README Q20).
//! - Inheritance as Resilience4j resolves it: an instance's values, then its
//!   `baseConfig` (or `configs.default`), then `configs.default` under a base
//!   config. The wait is rebuilt only at the level that writes `waitDuration`
//!   (`configureRetryIntervalFunction`): exponential/randomized flags written above
//!   it do nothing (RL017).
//! - `maxAttempts` counts tries (default 3); `waitDuration` a Spring Duration (bare
//!   number = ms; default 500 ms, fixed); `enableExponentialBackoff` with
//!   `exponentialBackoffMultiplier` (1.5) and `exponentialMaxWaitDuration` (no cap by
//!   default); `enableRandomizedWait` with `randomizedWaitFactor` (0.5) is
//!   proportional jitter. No deadline, no per-try timeout, Retry-After never read,
//!   every method (a retry wraps a Java call, not a route).
//! - `retryExceptions`/`ignoreExceptions` map to signals ([`super::exceptions`]);
//!   none of them (and no predicate) means every exception: connect failure,
//!   timeout, reset, every 4xx and 5xx.
//! - Keys Resilience4j does not define are ignored silently by Spring (RL017 with a
//!   "did you mean"; `maxRetryAttempts` was removed in 2.0). Values Spring cannot
//!   bind, and a `baseConfig` naming no config, stop the application (RL017). A
//!   `${VAR}` without default leaves the value unknown: RL017 says so, nothing is
//!   guessed. A `retryExceptionPredicate` is code retrylint cannot evaluate: read
//!   as true (every exception retried), with RL019 saying so (issue 42).

use super::exceptions::{self, Mapped};
use super::source::{self, Resolved, SpringDoc};
use crate::diagnostic::Diagnostic;
use crate::import::code::rl019_unresolved_setting;
use crate::import::rl017_ineffective_setting;
use crate::import::route::{PathMatch, RequestMatch};
use crate::import::{ConfigObject, Imported, OriginNote, Platform, Route};
use crate::policy::model::{
    BackoffSettings, Jitter, JitterFactor, Layer, Settings, Signal, Spanned,
};
use crate::source::loader::Loaded;
use crate::source::refs::At;
use crate::source::tree::{Kind, NodeId, Tree};
use std::sync::Arc;

/// Resilience4j's default `maxAttempts` (`RetryConfig.DEFAULT_MAX_ATTEMPTS`).
pub const DEFAULT_MAX_ATTEMPTS: i64 = 3;
/// Resilience4j's default `waitDuration`, ms (`RetryConfig.DEFAULT_WAIT_DURATION`).
pub const DEFAULT_WAIT_MS: f64 = 500.0;
/// `IntervalFunction.DEFAULT_MULTIPLIER`.
pub const DEFAULT_MULTIPLIER: f64 = 1.5;
/// `IntervalFunction.DEFAULT_RANDOMIZATION_FACTOR`.
pub const DEFAULT_RANDOMIZATION_FACTOR: f64 = 0.5;

/// The keys of a retry config or instance (`InstanceProperties`, Resilience4j 2.x).
pub const KEYS: &[&str] = &[
    "maxAttempts",
    "waitDuration",
    "enableExponentialBackoff",
    "exponentialBackoffMultiplier",
    "exponentialMaxWaitDuration",
    "enableRandomizedWait",
    "randomizedWaitFactor",
    "retryExceptions",
    "ignoreExceptions",
    "retryExceptionPredicate",
    "resultPredicate",
    "intervalBiFunction",
    "consumeResultBeforeRetryAttempt",
    "failAfterMaxAttempts",
    "eventConsumerBufferSize",
    "baseConfig",
];

const SOURCE: &str =
    "Resilience4j RetryConfig, CommonRetryConfigurationProperties; retry-configs.md §7.1";

/// Reads the Resilience4j retries of every variant of one Spring file.
///
/// A profile variant is a table of its own only for the instances its profile's
/// documents change (the instance, or a config it inherits); those come first, so
/// that for the operations they bind the profile's variant is the one checked
/// (its kind names the profile). The join stacks tables of one file as one layer,
/// first match winning: two variants of one client are alternatives, not two layers
/// retrying in sequence (that would multiply their attempts, RL311).
pub fn import(file: &Arc<Loaded>, variants: &[SpringDoc], documents: &[SpringDoc]) -> Imported {
    let _ = file;
    let mut out = Imported::default();
    let has_base = variants.iter().any(|v| v.profile.is_none());
    let mut profile_objects = Vec::new();
    let mut base = Imported::default();
    for v in variants {
        match &v.profile {
            None => read_variant(v, None, &mut base),
            Some((p, _)) => {
                let changed = touched(documents, p);
                if has_base && changed.is_empty() {
                    continue;
                }
                let mut one = Imported::default();
                read_variant(v, has_base.then_some(&changed), &mut one);
                profile_objects.extend(one.objects);
                out.diagnostics.extend(one.diagnostics);
            }
        }
    }
    out.objects = profile_objects;
    out.objects.extend(base.objects);
    out.diagnostics.extend(base.diagnostics);
    dedup(&mut out.diagnostics);
    out
}

/// The instances and configs a profile's own documents write.
#[derive(Default)]
struct Touched {
    instances: Vec<String>,
    configs: Vec<String>,
}

impl Touched {
    fn is_empty(&self) -> bool {
        self.instances.is_empty() && self.configs.is_empty()
    }

    fn changes(&self, chain: &[Level]) -> bool {
        chain.first().is_some_and(|i| {
            self.instances
                .iter()
                .any(|n| source::relaxed_eq(n, &i.name))
        }) || chain
            .iter()
            .skip(1)
            .any(|c| self.configs.iter().any(|n| source::relaxed_eq(n, &c.name)))
            || (chain.len() == 1
                && self
                    .configs
                    .iter()
                    .any(|n| source::relaxed_eq(n, &chain[0].name)))
    }
}

fn touched(documents: &[SpringDoc], profile: &str) -> Touched {
    let mut t = Touched::default();
    for d in documents {
        if d.profile.as_ref().map(|(p, _)| p.as_str()) != Some(profile) {
            continue;
        }
        let Ok(tree) = &d.doc.tree else { continue };
        let Some(&retry) = source::find(tree, d.root, "resilience4j.retry").first() else {
            continue;
        };
        let names = |key: &str| -> Vec<String> {
            source::get(tree, retry, key)
                .map(|m| {
                    source::entries(tree, m)
                        .into_iter()
                        .map(|(n, _, _)| n)
                        .collect()
                })
                .unwrap_or_default()
        };
        t.instances.extend(names("instances"));
        t.instances.extend(names("backends"));
        t.configs.extend(names("configs"));
    }
    t
}

fn dedup(diags: &mut Vec<Diagnostic>) {
    let mut seen = std::collections::HashSet::new();
    diags.retain(|d| {
        seen.insert((
            d.code,
            d.primary.location.span.start,
            d.primary.location.span.end,
            d.message.clone(),
        ))
    });
}

/// RL017 at the `baseConfig` of every config on a cycle of `baseConfig`s (`a` based
/// on `b`, `b` on `a`, or `a` on itself) and of every instance based on a config of
/// its own name: Resilience4j stops the application ("Circular reference detected
/// in instance config" for a name based on itself; a stack overflow for a longer
/// cycle, as it builds each base before the config on it).
fn base_config_cycles(
    doc: &Arc<Loaded>,
    tree: &Tree,
    configs: &[Level],
    instances: &[Level],
) -> Vec<Diagnostic> {
    let base = |l: &Level| -> Option<(NodeId, String)> {
        let b = source::get(tree, l.map, "baseConfig")?;
        match source::scalar(tree, b)? {
            Resolved::Known(name) if !name.trim().is_empty() => Some((b, name.trim().to_string())),
            _ => None,
        }
    };
    let index: std::collections::HashMap<&str, usize> = configs
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name.as_str(), i))
        .collect();
    let bases: Vec<Option<(NodeId, String)>> = configs.iter().map(base).collect();
    let edges: Vec<Vec<usize>> = bases
        .iter()
        .map(|b| {
            b.as_ref()
                .and_then(|(_, n)| index.get(n.as_str()).copied())
                .into_iter()
                .collect()
        })
        .collect();
    let diag = |what: &str, l: &Level, (node, name): &(NodeId, String)| {
        rl017_ineffective_setting::diagnostic(
            &At::new(doc, *node),
            format!("`baseConfig: {name}` of Resilience4j retry {what} `{}` is part of a cycle of base configs", l.name),
            "baseConfig cycle",
            "Resilience4j cannot build a config that is its own base: the application does not start (IllegalStateException \"Circular reference detected\", or a stack overflow for a longer cycle). End the chain at a config without `baseConfig`.".to_string(),
        )
    };
    let mut out: Vec<Diagnostic> = crate::import::cycles::members(&edges)
        .into_iter()
        .filter_map(|i| bases[i].as_ref().map(|b| diag("config", &configs[i], b)))
        .collect();
    for inst in instances {
        if let Some(b) = base(inst).filter(|(_, n)| *n == inst.name) {
            out.push(diag("instance", inst, &b));
        }
    }
    out
}

/// A config or instance: its name, key node and mapping.
#[derive(Clone)]
struct Level {
    name: String,
    map: NodeId,
}

fn levels(tree: &Tree, map: Option<NodeId>) -> Vec<Level> {
    let Some(map) = map.filter(|&m| tree.kind(m) == Kind::Map) else {
        return Vec::new();
    };
    source::entries(tree, map)
        .into_iter()
        .map(|(name, _, v)| Level { name, map: v })
        .collect()
}

fn read_variant(v: &SpringDoc, only: Option<&Touched>, out: &mut Imported) {
    let Ok(tree) = &v.doc.tree else { return };
    let Some(&retry) = source::find(tree, v.root, "resilience4j.retry").first() else {
        return;
    };
    let doc = &v.doc;
    let configs = levels(tree, source::get(tree, retry, "configs"));
    let mut instances = levels(tree, source::get(tree, retry, "instances"));
    instances.extend(levels(tree, source::get(tree, retry, "backends")));
    for l in configs.iter().chain(&instances) {
        if tree.kind(l.map) == Kind::Map {
            out.diagnostics.extend(unknown_keys(doc, tree, l));
        }
    }
    out.diagnostics
        .extend(base_config_cycles(doc, tree, &configs, &instances));
    for (k, key, _) in source::entries(tree, retry) {
        if ["configs", "instances", "backends"]
            .iter()
            .any(|x| source::relaxed_eq(x, &k))
        {
            continue;
        }
        let lower = source::canonical(&k);
        if let Some(s) = ["configs", "instances"]
            .into_iter()
            .find(|c| strsim::jaro_winkler(&lower, c) >= 0.85)
        {
            out.diagnostics.push(rl017_ineffective_setting::diagnostic(
                &At::new(doc, key),
                format!("unknown key `{k}` under `resilience4j.retry`"),
                "unknown key",
                format!("did you mean `{s}`? Spring ignores `{k}`, so the retry settings below it never apply."),
            ));
        }
    }
    let profile = v.profile.as_ref().map(|(p, _)| p.clone());
    let kind = |what: &str| match &profile {
        Some(p) => format!("retry {what} (profile `{p}`)"),
        None => format!("retry {what}"),
    };
    let default = configs
        .iter()
        .find(|c| c.name == "default" && tree.kind(c.map) == Kind::Map)
        .cloned();
    if instances.is_empty() {
        if let Some(d) = &default {
            let chain = vec![d.clone()];
            if only.is_some_and(|t| !t.changes(&chain)) {
                return;
            }
            let route_matches = Vec::new();
            if let Some(o) = object(
                doc,
                tree,
                d,
                &chain,
                (kind("config"), profile.as_deref()),
                route_matches,
                out,
            ) {
                out.objects.push(o);
            }
        }
        return;
    }
    for inst in &instances {
        if tree.kind(inst.map) != Kind::Map && tree.kind(inst.map) != Kind::Null {
            continue;
        }
        let mut chain = vec![inst.clone()];
        let base = source::get(tree, inst.map, "baseConfig");
        match base.map(|b| (b, source::scalar(tree, b))) {
            Some((b, Some(Resolved::Known(name)))) if !name.trim().is_empty() => {
                let name = name.trim();
                match configs.iter().find(|c| c.name == name) {
                    Some(c) => {
                        chain.push(c.clone());
                        if name != "default" {
                            chain.extend(default.clone());
                        }
                    }
                    // Based on itself: RL017 from `base_config_cycles` (Resilience4j
                    // checks that first).
                    None if name == inst.name => chain.extend(default.clone()),
                    None => {
                        let names: Vec<&str> = configs.iter().map(|c| c.name.as_str()).collect();
                        out.diagnostics.push(rl017_ineffective_setting::diagnostic(
                            &At::new(doc, b),
                            format!("`baseConfig: {name}` of Resilience4j retry instance `{}` names no config", inst.name),
                            "no such config",
                            format!(
                                "Resilience4j throws ConfigurationNotFoundException and the application does not start. {}",
                                if names.is_empty() {
                                    "There is no `resilience4j.retry.configs` entry.".to_string()
                                } else {
                                    format!("Configs here: {}.", names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "))
                                }
                            ),
                        ));
                        chain.extend(default.clone());
                    }
                }
            }
            Some((b, Some(Resolved::Unknown(p)))) => {
                out.diagnostics
                    .push(unknown_value(doc, b, "baseConfig", &p));
                chain.extend(default.clone());
            }
            _ => chain.extend(default.clone()),
        }
        if only.is_some_and(|t| !t.changes(&chain)) {
            continue;
        }
        let matches = vec![
            RequestMatch::path(PathMatch::OperationId(inst.name.clone())),
            RequestMatch::path(PathMatch::Tag(inst.name.clone())),
        ];
        if let Some(o) = object(
            doc,
            tree,
            inst,
            &chain,
            (kind("instance"), profile.as_deref()),
            matches,
            out,
        ) {
            out.objects.push(o);
        }
    }
}

/// A value read from the chain: its node and level index.
struct Found {
    node: NodeId,
    level: usize,
}

fn first(tree: &Tree, chain: &[Level], key: &str, from: usize) -> Option<Found> {
    chain
        .iter()
        .enumerate()
        .skip(from)
        .find_map(|(i, l)| source::get(tree, l.map, key).map(|node| Found { node, level: i }))
}

/// A scalar's resolved text, or why there is none.
enum Val {
    Text(String),
    Unknown(String),
    NotScalar,
}

fn val(tree: &Tree, node: NodeId) -> Val {
    match source::scalar(tree, node) {
        Some(Resolved::Known(s)) => Val::Text(s.trim().to_string()),
        Some(Resolved::Unknown(p)) => Val::Unknown(p),
        None => Val::NotScalar,
    }
}

fn unknown_value(doc: &Arc<Loaded>, node: NodeId, key: &str, placeholder: &str) -> Diagnostic {
    rl017_ineffective_setting::diagnostic(
        &At::new(doc, node),
        format!("`{key}: {placeholder}` depends on the environment: the placeholder has no default"),
        "value unknown",
        format!("retrylint does not guess it, so `{key}` is not checked here. Give the placeholder a default (`${{NAME:value}}`) so the file states the value it runs with."),
    )
}

/// The text a number was read from (a placeholder's default resolved), for a
/// message: `1.0000000000000001` as written, not the `1` it reads as.
fn as_written(tree: &Tree, node: NodeId, read: f64) -> String {
    match val(tree, node) {
        Val::Text(t) => t,
        _ => read.to_string(),
    }
}

fn invalid(doc: &Arc<Loaded>, node: NodeId, key: &str, text: &str, want: &str) -> Diagnostic {
    rl017_ineffective_setting::diagnostic(
        &At::new(doc, node),
        format!("`{key}: {text}` is not {want}"),
        "invalid value",
        format!("Spring cannot bind it to Resilience4j's `{key}` and the application does not start; write {want}."),
    )
}

#[allow(clippy::too_many_lines)]
fn object(
    doc: &Arc<Loaded>,
    tree: &Tree,
    head: &Level,
    chain: &[Level],
    (kind, profile): (String, Option<&str>),
    matches: Vec<RequestMatch>,
    out: &mut Imported,
) -> Option<ConfigObject> {
    let at = |n: NodeId| At::new(doc, n);
    let obj_at = at(head.map);
    let mut settings = Settings::empty(obj_at.clone());
    let mut defaults: Vec<String> = Vec::new();
    let mut notes: Vec<OriginNote> = Vec::new();
    let misspell = |s: &mut Settings, what: &str, n: NodeId| {
        s.refuse(what, at(n));
    };

    // maxAttempts: total tries.
    let mut retried = true;
    match first(tree, chain, "maxAttempts", 0) {
        Some(f) => match val(tree, f.node) {
            // A Java `int`: 2147483648 and above do not bind.
            Val::Text(t) => match t.parse::<i64>() {
                Ok(n) if (1..=i64::from(i32::MAX)).contains(&n) => {
                    retried = n > 1;
                    settings.attempts = Some(Spanned {
                        value: n,
                        at: at(f.node),
                    });
                }
                _ => {
                    // A whole number (zero, negative, or beyond a Java `int`, however
                    // many digits) is out of range, not malformed.
                    let digits = t.strip_prefix(['-', '+']).unwrap_or(&t);
                    let whole = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
                    out.diagnostics.push(if whole {
                        rl017_ineffective_setting::diagnostic(
                            &at(f.node),
                            format!("`maxAttempts: {t}` is out of range: 1 to {} (a Java `int`: total attempts, including the first)", i32::MAX),
                            "out of range",
                            "Spring cannot bind it to Resilience4j's `maxAttempts` (`RetryConfig.Builder.maxAttempts(int)` refuses below 1) and the application does not start, so retrylint reads no count from it (not the default 3); write the number of tries, e.g. `maxAttempts: 3`.".to_string(),
                        )
                    } else {
                        invalid(
                            doc,
                            f.node,
                            "maxAttempts",
                            &t,
                            "an integer from 1 to 2147483647 (a Java `int`: total attempts, including the first)",
                        )
                    });
                    misspell(&mut settings, "attempts", f.node);
                }
            },
            Val::Unknown(p) => {
                out.diagnostics
                    .push(unknown_value(doc, f.node, "maxAttempts", &p));
                misspell(&mut settings, "attempts", f.node);
            }
            Val::NotScalar => {
                out.diagnostics.push(invalid(
                    doc,
                    f.node,
                    "maxAttempts",
                    "(a collection)",
                    "an integer",
                ));
                misspell(&mut settings, "attempts", f.node);
            }
        },
        None => {
            settings.attempts = Some(Spanned {
                value: DEFAULT_MAX_ATTEMPTS,
                at: obj_at.clone(),
            });
            let old = chain
                .iter()
                .any(|l| source::get(tree, l.map, "maxRetryAttempts").is_some());
            defaults.push(format!(
                "no `maxAttempts`{}, so Resilience4j's default applies: {DEFAULT_MAX_ATTEMPTS} attempts in total",
                if old { " (`maxRetryAttempts` is ignored since 2.0)" } else { "" }
            ));
        }
    }
    settings.retry = Some(Spanned {
        value: retried,
        at: obj_at.clone(),
    });

    // retryExceptions / ignoreExceptions / predicates.
    if retried {
        if let Some(p) = first(tree, chain, "retryExceptionPredicate", 0) {
            out.diagnostics.push(rl019_unresolved_setting::raw(
                &At::new(doc, p.node),
                format!(
                    "resilience4j: `retryExceptionPredicate: {}` is code, not known statically; assumed to retry any exception (the reading that retries)",
                    tree.scalar(p.node).unwrap_or("?")
                ),
                "not known statically",
            ));
        }
        let (signals, node, note) = signals(doc, tree, chain, &obj_at);
        if let Some(n) = note {
            notes.push(n);
        }
        if signals.is_empty() {
            settings.retry = Some(Spanned {
                value: false,
                at: obj_at.clone(),
            });
        } else {
            settings.retry_on = Some(Spanned {
                value: signals,
                at: node,
            });
        }
    }

    // The wait: rebuilt at the first level that writes `waitDuration`.
    let wait = first(tree, chain, "waitDuration", 0);
    let interval_from = wait.as_ref().map_or(chain.len(), |w| w.level);
    for (i, l) in chain.iter().enumerate().take(interval_from) {
        for key in [
            "enableExponentialBackoff",
            "enableRandomizedWait",
            "exponentialBackoffMultiplier",
            "exponentialMaxWaitDuration",
            "randomizedWaitFactor",
        ] {
            let Some(n) = source::get(tree, l.map, key) else {
                continue;
            };
            if key.starts_with("enable")
                && !matches!(val(tree, n), Val::Text(t) if source::boolean(&t) == Some(true))
            {
                continue;
            }
            let where_ = if i == 0 && interval_from == chain.len() {
                "no level of this retry writes `waitDuration`, so the wait stays Resilience4j's fixed 500 ms".to_string()
            } else {
                format!(
                    "`{}` does not write `waitDuration`, so it keeps the wait of `{}`",
                    l.name,
                    chain
                        .get(interval_from)
                        .map_or("the defaults", |x| x.name.as_str())
                )
            };
            out.diagnostics.push(rl017_ineffective_setting::diagnostic(
                &at(n),
                format!("`{key}` of Resilience4j retry `{}` has no effect", l.name),
                "ignored",
                format!("Resilience4j builds the wait (exponential, randomized) only where `waitDuration` is set (CommonRetryConfigurationProperties.configureRetryIntervalFunction): {where_}. Write `waitDuration` beside it."),
            ));
        }
    }
    let mut backoff = BackoffSettings {
        at: obj_at.clone(),
        base: None,
        cap: None,
        multiplier: None,
        jitter: None,
    };
    let mut base_ok = true;
    match &wait {
        Some(w) => match val(tree, w.node) {
            Val::Text(t) => match source::duration(&t, 1.0) {
                Some(ms) => {
                    backoff.base = Some(Spanned {
                        value: ms,
                        at: at(w.node),
                    });
                }
                None => {
                    out.diagnostics.push(invalid(doc, w.node, "waitDuration", &t, "a duration (`500`, `500ms`, `2s`, `PT0.5S`; a bare number is milliseconds)"));
                    base_ok = false;
                }
            },
            Val::Unknown(p) => {
                out.diagnostics
                    .push(unknown_value(doc, w.node, "waitDuration", &p));
                base_ok = false;
            }
            Val::NotScalar => {
                out.diagnostics.push(invalid(
                    doc,
                    w.node,
                    "waitDuration",
                    "(a collection)",
                    "a duration",
                ));
                base_ok = false;
            }
        },
        None => {
            backoff.base = Some(Spanned {
                value: DEFAULT_WAIT_MS,
                at: obj_at.clone(),
            });
            defaults.push(
                "no `waitDuration`: Resilience4j waits a fixed 500 ms between attempts".to_string(),
            );
        }
    }
    if !base_ok {
        misspell(&mut settings, "backoff", head.map);
    }
    let mut flag = |key: &str| -> Option<(bool, NodeId)> {
        let f = first(tree, chain, key, interval_from)?;
        match val(tree, f.node) {
            Val::Text(t) => match source::boolean(&t) {
                Some(b) => Some((b, f.node)),
                None => {
                    out.diagnostics
                        .push(invalid(doc, f.node, key, &t, "`true` or `false`"));
                    None
                }
            },
            Val::Unknown(p) => {
                out.diagnostics.push(unknown_value(doc, f.node, key, &p));
                None
            }
            Val::NotScalar => None,
        }
    };
    let exponential = if wait.is_some() {
        flag("enableExponentialBackoff")
    } else {
        None
    };
    let randomized = if wait.is_some() {
        flag("enableRandomizedWait")
    } else {
        None
    };
    // `Ok(None)`: not written; `Err(node)`: written but not a number Spring binds
    // (reported here), which is read as nothing, never as the default.
    let number =
        |key: &str, from: usize, out: &mut Imported| -> Result<Option<(f64, NodeId)>, NodeId> {
            let Some(f) = first(tree, chain, key, from) else {
                return Ok(None);
            };
            if f.level != from && key == "randomizedWaitFactor" {
                // Not inherited: `mergePropertiesIfAny` copies only the flags, the
                // multiplier and the cap.
                return Ok(None);
            }
            match val(tree, f.node) {
                Val::Text(t) => match t.parse::<f64>() {
                    Ok(x) if x.is_finite() => Ok(Some((x, f.node))),
                    _ => {
                        out.diagnostics
                            .push(invalid(doc, f.node, key, &t, "a number"));
                        Err(f.node)
                    }
                },
                Val::Unknown(p) => {
                    out.diagnostics.push(unknown_value(doc, f.node, key, &p));
                    Err(f.node)
                }
                Val::NotScalar => Err(f.node),
            }
        };
    if let Some((true, en)) = exponential {
        match number("exponentialBackoffMultiplier", interval_from, out) {
            // Resilience4j refuses a multiplier below 1 (`IntervalFunction`
            // `checkMultiplier`: "Illegal argument multiplier"): RL017, read as nothing.
            Ok(Some((m, n))) if m < 1.0 => {
                out.diagnostics.push(rl017_ineffective_setting::diagnostic(
                    &at(n),
                    format!("`exponentialBackoffMultiplier: {}` is out of range: at least 1", tree.scalar(n).unwrap_or("?")),
                    "out of range",
                    "Resilience4j refuses a multiplier below 1 (IntervalFunction.checkMultiplier: \"Illegal argument multiplier\") and the retry is not built; write a multiplier of at least 1, such as `2`.".into(),
                ));
                settings.refuse("backoff.multiplier", at(n));
            }
            Ok(Some((m, n))) => {
                if m <= 1.0 {
                    out.diagnostics.push(invalid(
                        doc,
                        n,
                        "exponentialBackoffMultiplier",
                        &as_written(tree, n, m),
                        "a multiplier above 1",
                    ));
                }
                backoff.multiplier = Some(Spanned {
                    value: m,
                    at: at(n),
                });
            }
            Err(n) => misspell(&mut settings, "backoff.multiplier", n),
            Ok(None) => {
                backoff.multiplier = Some(Spanned {
                    value: DEFAULT_MULTIPLIER,
                    at: at(en),
                });
                notes.push(OriginNote {
                    at: at(en),
                    text: crate::import::note_text(format!("no `exponentialBackoffMultiplier`: Resilience4j's default ×{DEFAULT_MULTIPLIER} ({SOURCE})")),
                });
            }
        }
        match first(tree, chain, "exponentialMaxWaitDuration", interval_from) {
            Some(f) => match val(tree, f.node) {
                Val::Text(t) => match source::duration(&t, 1.0) {
                    Some(ms) => {
                        backoff.cap = Some(Spanned {
                            value: ms,
                            at: at(f.node),
                        })
                    }
                    None => out.diagnostics.push(invalid(
                        doc,
                        f.node,
                        "exponentialMaxWaitDuration",
                        &t,
                        "a duration",
                    )),
                },
                Val::Unknown(p) => out.diagnostics.push(unknown_value(
                    doc,
                    f.node,
                    "exponentialMaxWaitDuration",
                    &p,
                )),
                Val::NotScalar => {}
            },
            None => notes.push(OriginNote {
                at: at(en),
                text: crate::import::note_text(format!(
                    "no `exponentialMaxWaitDuration`: the wait grows without a cap ({SOURCE})"
                )),
            }),
        }
    } else {
        let node = wait.as_ref().map_or(head.map, |w| w.node);
        backoff.multiplier = Some(Spanned {
            value: 1.0,
            at: at(node),
        });
    }
    let mut jitter_note = None;
    match randomized {
        Some((true, en)) => {
            let (f, node) = match number("randomizedWaitFactor", interval_from, out) {
                Ok(Some(x)) => x,
                // Reported at the value; no jitter read from it, not the default.
                Err(_) => (f64::NAN, en),
                Ok(None) => {
                    jitter_note = Some(OriginNote {
                        at: at(en),
                        text: crate::import::note_text(format!("no `randomizedWaitFactor` at this level: Resilience4j's default {DEFAULT_RANDOMIZATION_FACTOR} (±50 %) ({SOURCE})")),
                    });
                    (DEFAULT_RANDOMIZATION_FACTOR, en)
                }
            };
            // A factor Resilience4j refuses (`checkRandomizationFactor`) is read as
            // no jitter setting at all, never as none or the default.
            if f.is_nan() {
                misspell(&mut settings, "backoff.jitter", en);
            } else if !(0.0..1.0).contains(&f) {
                out.diagnostics.push(invalid(
                    doc,
                    node,
                    "randomizedWaitFactor",
                    &as_written(tree, node, f),
                    "a factor in [0, 1)",
                ));
                misspell(&mut settings, "backoff.jitter", node);
            } else {
                let jitter = JitterFactor::new(f).map_or(Jitter::None, Jitter::Proportional);
                backoff.jitter = Some(Spanned {
                    value: jitter,
                    at: at(node),
                });
            }
        }
        _ => {
            backoff.jitter = Some(Spanned {
                value: Jitter::None,
                at: obj_at.clone(),
            });
            defaults.push("no `enableRandomizedWait`: no jitter".to_string());
        }
    }
    notes.extend(jitter_note);
    settings.backoff = Some(backoff);
    if retried {
        defaults.push("no deadline and no per-attempt timeout (pair it with a TimeLimiter), Retry-After never read, every HTTP method retried (the retry wraps a Java call)".to_string());
    }
    if let Some(p) = profile {
        defaults.insert(
            0,
            format!(
                "this is `{}` under the Spring profile `{p}` (its documents merged over the base)",
                head.name
            ),
        );
    }
    if !defaults.is_empty() {
        notes.insert(
            0,
            OriginNote {
                at: obj_at.clone(),
                text: crate::import::note_text(format!("{} ({SOURCE})", defaults.join("; "))),
            },
        );
    }
    let names = vec![Spanned {
        value: head.name.clone(),
        at: tree.key_of(head.map).map_or(obj_at.clone(), at),
    }];
    Some(ConfigObject {
        method_scoped: Vec::new(),
        variant: Some(super::profile_variant(doc, profile)),
        url_prefixes: Vec::new(),
        platform: Platform::Resilience4j,
        kind,
        name: head.name.clone(),
        at: obj_at.clone(),
        layer: Layer::Client,
        names,
        routes: vec![Route {
            at: obj_at,
            name: Some(head.name.clone()),
            matches,
            rewrite: None,
            settings,
            notes,
        }],
    })
}

/// The signals of the chain's exception lists: (signals, the node holding them,
/// a note on how they were read).
fn signals(
    doc: &Arc<Loaded>,
    tree: &Tree,
    chain: &[Level],
    obj_at: &At,
) -> (Vec<Spanned<Signal>>, At, Option<OriginNote>) {
    let at = |n: NodeId| At::new(doc, n);
    let list = |key: &str| -> Option<(NodeId, Vec<(NodeId, String)>)> {
        let f = first(tree, chain, key, 0)?;
        let items: Vec<(NodeId, String)> = match tree.kind(f.node) {
            Kind::Seq => tree
                .items(f.node)
                .iter()
                .filter_map(|&i| match source::scalar(tree, i)? {
                    Resolved::Known(s) => Some((i, s)),
                    Resolved::Unknown(p) => Some((i, p)),
                })
                .collect(),
            // A comma-separated string binds to a list too.
            _ => match source::scalar(tree, f.node) {
                Some(Resolved::Known(s)) => s
                    .split(',')
                    .map(|x| (f.node, x.trim().to_string()))
                    .filter(|(_, x)| !x.is_empty())
                    .collect(),
                _ => Vec::new(),
            },
        };
        Some((f.node, items))
    };
    let retry = list("retryExceptions").filter(|(_, i)| !i.is_empty());
    let ignore = list("ignoreExceptions").filter(|(_, i)| !i.is_empty());
    let predicate = first(tree, chain, "retryExceptionPredicate", 0);
    let mut unmapped: Vec<String> = Vec::new();
    let mut out: Vec<Spanned<Signal>> = Vec::new();
    let push = |out: &mut Vec<Spanned<Signal>>, s: Signal, a: &At| {
        if !out.iter().any(|x| x.value == s) {
            out.push(Spanned {
                value: s,
                at: a.clone(),
            });
        }
    };
    let mut note_parts: Vec<String> = Vec::new();
    // Resilience4j ORs `retryExceptionPredicate` with `retryExceptions`
    // (`RetryConfig.Builder::createRetryOnExceptionPredicate`). retrylint cannot
    // evaluate the predicate, so it reads it as true: every exception is retried
    // (the reading that retries; issue 42), and the caller reports RL019.
    if let (Some(p), Some(_)) = (&predicate, &retry) {
        note_parts.push(format!(
            "`retryExceptionPredicate: {}` is code retrylint cannot read; assumed to retry any exception besides `retryExceptions`",
            tree.scalar(p.node).unwrap_or("?")
        ));
        for s in exceptions::any_exception() {
            push(&mut out, s, &at(p.node));
        }
    }
    let node = match &retry {
        Some((node, items)) => {
            for (i, class) in items {
                match exceptions::map(class) {
                    Mapped::Signals(sig) => {
                        for s in sig {
                            push(&mut out, s, &at(*i));
                        }
                    }
                    Mapped::Any => {
                        for s in exceptions::any_exception() {
                            push(&mut out, s, &at(*i));
                        }
                    }
                    Mapped::Unmapped => unmapped.push(class.clone()),
                }
            }
            at(*node)
        }
        None => {
            let why = match &predicate {
                Some(p) => format!(
                    "`retryExceptionPredicate: {}` is code retrylint cannot read; assumed to retry any exception",
                    tree.scalar(p.node).unwrap_or("?")
                ),
                None => "no `retryExceptions`: Resilience4j retries every exception (`throwable -> true`)".to_string(),
            };
            note_parts.push(format!("{why}, read as connect failure, timeout, reset and every 4xx and 5xx (Spring's HTTP clients raise an exception for each)"));
            for s in exceptions::any_exception() {
                push(&mut out, s, obj_at);
            }
            obj_at.clone()
        }
    };
    if let Some((_, items)) = &ignore {
        // Ignore wins over retry: drop the signals an ignored class stands for.
        for (_, class) in items {
            match exceptions::map(class) {
                Mapped::Signals(sig) => out.retain(|x| !sig.contains(&x.value)),
                Mapped::Any => out.clear(),
                Mapped::Unmapped => {}
            }
        }
    }
    if !unmapped.is_empty() {
        note_parts.push(format!(
            "{} map to no HTTP outcome retrylint knows (application exceptions): not counted",
            unmapped
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let note = (!note_parts.is_empty()).then(|| OriginNote {
        at: node.clone(),
        text: crate::import::note_text(format!(
            "{} ({SOURCE}; case README Q22)",
            note_parts.join("; ")
        )),
    });
    (out, node, note)
}

/// RL017 for every key of a config or instance Resilience4j does not define.
fn unknown_keys(doc: &Arc<Loaded>, tree: &Tree, level: &Level) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (key, k, _) in source::entries(tree, level.map) {
        if KEYS.iter().any(|x| source::relaxed_eq(x, &key)) {
            continue;
        }
        let (message, help) = if source::relaxed_eq(&key, "maxRetryAttempts") {
            (
                format!("`{key}` in Resilience4j retry `{}` is ignored: the key was removed in Resilience4j 2.0", level.name),
                "did you mean `maxAttempts`? Resilience4j 2.x ignores `maxRetryAttempts` without a word (deprecated in 1.6, removed in 2.0): the number of attempts is the `maxAttempts` this retry inherits, else the default 3 (in total, including the first). Write `maxAttempts` with the total number of attempts.".to_string(),
            )
        } else {
            let lower = source::canonical(&key);
            let best = KEYS
                .iter()
                .map(|c| (strsim::jaro_winkler(&lower, &source::canonical(c)), *c))
                .filter(|(s, _)| *s >= 0.8)
                .max_by(|a, b| a.0.total_cmp(&b.0))
                .map(|(_, c)| c);
            (
                format!("unknown key `{key}` in Resilience4j retry `{}`", level.name),
                match best {
                    Some(s) => format!("did you mean `{s}`? Spring binds unknown keys to nothing and Resilience4j never sees `{key}`, so the setting it was meant to make does not apply."),
                    None => format!("Spring binds unknown keys to nothing, so `{key}` does nothing. Known keys: {}.", KEYS.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")),
                },
            )
        };
        out.push(rl017_ineffective_setting::diagnostic(
            &At::new(doc, k),
            message,
            "unknown key",
            help,
        ));
    }
    out
}
