//! Spring properties for `${...}` placeholders in annotations
//! (`maxAttemptsExpression = "#{${service.retry.maxAttempts}}"`): the base
//! `application.yml`/`.yaml`/`.properties` of the module the Java file belongs to
//! (the nearest ancestor with `src/main/resources/application.*`, `config/
//! application.*` or `application.*`, up to the module root: `pom.xml`,
//! `build.gradle(.kts)` or `.git`), flattened to dotted keys compared under
//! Spring's relaxed binding. Profile files (`application-<profile>.*`) and profile
//! documents are alternatives, not read: a property only they set stays unknown
//! (RL019). Values keep their own `${VAR:default}` resolved to the default, as the
//! Spring config importers do.

use crate::import::spring::source::{canonical, resolve, Resolved};
use crate::source::boundary::ReadBoundary;
use crate::source::tree::{Kind, NodeId, Tree};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The largest property file read (256 KiB).
const MAX_BYTES: u64 = 256 * 1024;
/// Ancestor directories searched for the module's property files.
const MAX_LEVELS: usize = 12;

/// Flattened properties: (canonical dotted key, value, file name shown).
#[derive(Debug, Default)]
pub struct Props {
    entries: Vec<(String, String, String)>,
}

impl Props {
    /// The value of property `name` and the file that sets it.
    pub fn get(&self, name: &str) -> Option<(&str, &str)> {
        let key = canonical_key(name);
        self.entries
            .iter()
            .rev()
            .find(|(k, _, _)| *k == key)
            .map(|(_, v, f)| (v.as_str(), f.as_str()))
    }
}

fn canonical_key(name: &str) -> String {
    name.split('.').map(canonical).collect::<Vec<_>>().join(".")
}

/// The base property files of the module holding `java_file`; a file whose real
/// path leaves the run's project (`boundary`: a folder above the root, a link out
/// of it) is not read.
pub fn near(java_file: &Path, boundary: &ReadBoundary) -> Props {
    let mut out = Props::default();
    let mut dir = java_file.parent();
    for _ in 0..MAX_LEVELS {
        let Some(d) = dir else { break };
        let mut found = false;
        for sub in ["src/main/resources", "config", ""] {
            for ext in ["properties", "yaml", "yml"] {
                let p: PathBuf = d.join(sub).join(format!("application.{ext}"));
                if boundary.admits(&p) && read_file(&p, &mut out) {
                    found = true;
                }
            }
        }
        // The module (or repository) root ends the search.
        let root = ["pom.xml", "build.gradle", "build.gradle.kts", ".git"]
            .iter()
            .any(|m| d.join(m).exists());
        if found || root {
            break;
        }
        dir = d.parent();
    }
    out
}

fn read_file(path: &Path, out: &mut Props) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() || meta.len() > MAX_BYTES {
        return false;
    }
    // Never `fs::read`: a link to `/dev/zero` or a FIFO passes `metadata` then
    // changes; the size is checked again while reading.
    let Ok(text) = crate::source::loader::read_regular_file(path, MAX_BYTES)
        .map_err(|_| ())
        .and_then(|b| String::from_utf8(b).map_err(|_| ()))
    else {
        return false;
    };
    let shown = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("application")
        .to_string();
    let shown = if path.to_string_lossy().contains("src/main/resources") {
        format!("src/main/resources/{shown}")
    } else {
        shown
    };
    if path.extension().is_some_and(|e| e == "properties") {
        read_properties(&text, &shown, out);
    } else if let Ok(trees) = Tree::parse_stream(Arc::from(text.as_str())) {
        for tree in trees {
            read_yaml(&tree, &shown, out);
        }
    }
    true
}

fn push(out: &mut Props, key: &str, value: &str, file: &str) {
    if let Resolved::Known(v) = resolve(value.trim()) {
        out.entries.push((canonical_key(key), v, file.to_string()));
    }
}

fn read_properties(text: &str, file: &str, out: &mut Props) {
    for line in text.lines() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') || l.starts_with('!') || l.ends_with('\\') {
            continue;
        }
        if l == "#---" || l.starts_with("spring.config.activate.on-profile") {
            // Later documents may apply under a profile only.
            break;
        }
        let Some(i) = l.find(['=', ':']) else {
            continue;
        };
        push(out, l[..i].trim(), &l[i + 1..], file);
    }
}

fn read_yaml(tree: &Tree, file: &str, out: &mut Props) {
    let Some(root) = tree.root() else { return };
    let mut local = Props::default();
    let mut profiled = false;
    // (node, dotted prefix), an explicit stack.
    let mut stack: Vec<(NodeId, String)> = vec![(root, String::new())];
    let mut budget = 100_000usize;
    while let Some((node, prefix)) = stack.pop() {
        budget = budget.saturating_sub(1);
        if budget == 0 {
            break;
        }
        match tree.kind(node) {
            Kind::Map => {
                for &(k, v) in tree.raw_entries(node) {
                    let Some(key) = tree.scalar(k) else { continue };
                    let full = if prefix.is_empty() {
                        key.to_string()
                    } else {
                        format!("{prefix}.{key}")
                    };
                    stack.push((v, full));
                }
            }
            Kind::Seq => {}
            _ => {
                if let Some(s) = tree.scalar(node) {
                    let c = canonical_key(&prefix);
                    if c == "spring.config.activate.onprofile" || c == "spring.profiles" {
                        profiled = true;
                    }
                    push(&mut local, &prefix, s, file);
                }
            }
        }
    }
    if !profiled {
        out.entries.extend(local.entries);
    }
}

/// Resolves `${...}` placeholders of a string attribute (`url = "${orders.url}"`)
/// from `props`, a placeholder's own default taken; `None` when one stays unknown.
pub fn resolve_string(text: &str, props: &Props) -> Option<String> {
    let mut out = String::new();
    let mut rest = text;
    let mut rounds = 0;
    while let Some(start) = rest.find("${") {
        rounds += 1;
        if rounds > 16 {
            return None;
        }
        out.push_str(&rest[..start]);
        let end = rest[start..].find('}')? + start;
        let inner = &rest[start + 2..end];
        if inner.contains("${") {
            return None;
        }
        let (name, default) = match inner.split_once(':') {
            Some((n, d)) => (n, Some(d)),
            None => (inner, None),
        };
        match (props.get(name), default) {
            (Some((v, _)), _) if !v.contains("${") => out.push_str(v),
            (None, Some(d)) => out.push_str(d),
            _ => return None,
        }
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    Some(out)
}

/// Resolves an annotation expression (`#{${a.b}}`, `${a.b:3}`, `5`) to a number
/// with the property file that gave it; `None` when it stays unknown (no such
/// property, SpEL beyond a placeholder).
pub fn resolve_number(expr: &str, props: &Props) -> Option<(f64, String)> {
    let t = expr.trim();
    let t = t
        .strip_prefix("#{")
        .and_then(|x| x.strip_suffix('}'))
        .unwrap_or(t)
        .trim();
    let inner = t.strip_prefix("${")?.strip_suffix('}')?;
    if inner.contains("${") || inner.contains('}') {
        return None;
    }
    let (name, default) = match inner.split_once(':') {
        Some((n, d)) => (n, Some(d)),
        None => (inner, None),
    };
    if let Some((v, file)) = props.get(name) {
        let n = super::number::parse_number(v.trim())?;
        return Some((n, format!("`{name}` = {} in {file}", v.trim())));
    }
    let d = default?;
    let n = super::number::parse_number(d.trim())?;
    Some((
        n,
        format!("`{name}` is set by no property file of the module: its default {d}"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_resolve_from_yaml_and_properties() {
        let mut p = Props::default();
        let tree = Tree::parse(Arc::from(
            "service:\n  retry:\n    maxAttempts: ${RETRIES:5}\n    backoff.delay: 1000\n",
        ))
        .unwrap();
        read_yaml(&tree, "application.yml", &mut p);
        read_properties(
            "orders.retry.max-attempts=7\n",
            "application.properties",
            &mut p,
        );
        assert_eq!(
            resolve_number("#{${service.retry.maxAttempts}}", &p).map(|x| x.0),
            Some(5.0)
        );
        assert_eq!(
            resolve_number("#{${service.retry.backoff.delay}}", &p).map(|x| x.0),
            Some(1000.0)
        );
        assert_eq!(
            resolve_number("${orders.retry.maxAttempts}", &p).map(|x| x.0),
            Some(7.0)
        );
        assert_eq!(resolve_number("${missing:3}", &p).map(|x| x.0), Some(3.0));
        assert_eq!(resolve_number("${missing}", &p), None);
        assert_eq!(resolve_number("#{2 * ${x}}", &p), None);
        read_properties(
            "orders.url=https://orders.example.com\n",
            "a.properties",
            &mut p,
        );
        assert_eq!(
            resolve_string("${orders.url}/v1", &p).as_deref(),
            Some("https://orders.example.com/v1")
        );
        assert_eq!(
            resolve_string("${nope:http://x}", &p).as_deref(),
            Some("http://x")
        );
        assert_eq!(resolve_string("${nope}", &p), None);
    }
}
