//! Baselines: `--write-baseline FILE` records the current findings; `--baseline FILE`
//! reports only findings that are not in it.
//!
//! A finding is keyed by rule, file (relative to the project root, `/`-separated) and
//! the JSON Pointer of its primary node, never by line or message, so edits that move
//! lines or reword a message do not make old findings new. A finding about operations
//! (one `defaults` value shared by several) is keyed once per operation, by its
//! OpenAPI document (relative to the project root) and `METHOD /path`
//! (`openapi/b.yaml#POST /orders`), so two specs' `POST /orders` are two keys: an operation that joins a recorded finding later is new, and the finding
//! reported for it names only the new operations (the rules build it from the new
//! hits alone, see [`crate::rules::grouping::Split`]). The other files a finding has
//! labels in are recorded too: a label in a file the baseline did not list (a new
//! layer's policy, operations in another spec) makes it new; fewer files do not. Each
//! key keeps a count: a baseline with two findings at one key absorbs two, and a third
//! is new.
//!
//! File format ([`VERSION`] 3): `{"version": 3, "findings": [entry...]}`, entries
//! sorted by rule, path, pointer and label files, each `{"rule", "path", "pointer",
//! "label_files"?: [...], "operations"?: [sorted, repeats kept], "count"?}` where
//! `count` counts the findings about no operation. Format 1 (and unversioned files)
//! recorded one count per node without its operations, so it cannot be split into
//! operations; format 2 keyed an operation by `METHOD /path` alone, so a new
//! `POST /orders` in a second spec passed for the first spec's. Both are refused:
//! record the baseline again.

use crate::diagnostic::{Diagnostic, Location};
use crate::report::{root_relative, root_relative_file};
use crate::rules::grouping::{Partition, Split};
use crate::source::SourceFile;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The file format version.
pub const VERSION: u32 = 3;

/// The findings of one rule at one node, with labels in the same other files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Rule code (`RL201`).
    pub rule: String,
    /// Path of the primary location, relative to the project root, `/`-separated.
    pub path: String,
    /// JSON Pointer (RFC 6901) of the primary node, `""` for the document or no node.
    pub pointer: String,
    /// The other files the findings have labels in (the specs of their operations,
    /// other layers' policies), sorted. A finding whose labels reach a file not listed
    /// here (a new layer, a new file of operations) is new; one with fewer is not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub label_files: Vec<String>,
    /// The operations of the findings here (`spec.yaml#METHOD /path`: the OpenAPI
    /// document relative to the project root, `#`, the operation; a bare `METHOD
    /// /path` for a finding that names no document), sorted; an operation appears
    /// once per finding about it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub operations: Vec<String>,
    /// Findings here about no operation.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub count: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A baseline file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Baseline {
    /// Format version ([`VERSION`]).
    pub version: u32,
    /// Entries, sorted by rule, path, pointer and label files.
    pub findings: Vec<Entry>,
}

/// Where a finding is: rule, primary path, primary pointer.
type Node = (String, String, String);

/// A finding's identity: its node, the other files it has labels in, and one key per
/// operation (`None` for a finding about none).
struct Identity {
    node: Node,
    label_files: BTreeSet<String>,
    operations: Vec<Option<String>>,
}

fn identity(d: &Diagnostic, root: &Path) -> Identity {
    let path = root_relative(&d.primary.location, root);
    let label_files = d
        .labels
        .iter()
        .map(|l| root_relative(&l.location, root))
        .filter(|f| *f != path)
        .collect();
    let operations = if d.operations.is_empty() {
        vec![None]
    } else {
        d.operations
            .iter()
            .zip(&d.operation_documents)
            .map(|(op, doc)| Some(operation_key(doc.as_deref(), op, root)))
            .collect()
    };
    Identity {
        node: (d.code.to_string(), path, d.primary.location.pointer.clone()),
        label_files,
        operations,
    }
}

/// An operation's key: `spec.yaml#METHOD /path` (document relative to `root`), or
/// the bare `METHOD /path` when the finding names no document.
fn operation_key(document: Option<&SourceFile>, operation: &str, root: &Path) -> String {
    match document {
        Some(doc) => format!("{}#{operation}", root_relative_file(doc, root)),
        None => operation.to_string(),
    }
}

/// The baseline of `diags` (paths relative to `root`).
pub fn of(diags: &[Diagnostic], root: &Path) -> Baseline {
    let mut entries: BTreeMap<(Node, BTreeSet<String>), Entry> = BTreeMap::new();
    for d in diags {
        let id = identity(d, root);
        let (rule, path, pointer) = id.node.clone();
        let e = entries
            .entry((id.node, id.label_files.clone()))
            .or_insert_with(|| Entry {
                rule,
                path,
                pointer,
                label_files: id.label_files.into_iter().collect(),
                operations: Vec::new(),
                count: 0,
            });
        for op in id.operations {
            match op {
                Some(op) => e.operations.push(op),
                None => e.count += 1,
            }
        }
    }
    let mut findings: Vec<Entry> = entries.into_values().collect();
    for e in &mut findings {
        e.operations.sort();
    }
    Baseline {
        version: VERSION,
        findings,
    }
}

/// Renders a baseline as pretty JSON (sorted, one operation a line, final newline).
pub fn render(b: &Baseline) -> String {
    let mut s = serde_json::to_string_pretty(b).expect("serialisable");
    s.push('\n');
    s
}

/// Reads a baseline file. Errors (one sentence, starting with the path): unreadable,
/// not JSON of this shape, or another format version; a format-1 or unversioned file
/// is refused with the command that records it again (`--write-baseline`).
pub fn read(path: &Path) -> Result<Baseline, String> {
    let shown = path.display();
    // A baseline is JSON text of a few MB; a device or a FIFO is never read.
    let bytes = crate::source::loader::read_regular_file(path, 1 << 30)
        .map_err(|e| format!("{shown}: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|e| format!("{shown}: {e}"))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{shown}: {e}"))?;
    let again = format!(
        "record it again with `retrylint check --write-baseline {shown}` (after checking \
         that today's findings are the ones to accept)"
    );
    match value.get("version").map(|v| v.as_u64()) {
        Some(Some(v)) if v == u64::from(VERSION) => {}
        Some(Some(2)) => {
            return Err(format!(
                "{shown}: baseline format 2 keys an operation by `METHOD /path` without its \
                 OpenAPI document, so it cannot tell two specs' operations of one name \
                 apart; {again}"
            ))
        }
        Some(Some(v)) if v < u64::from(VERSION) => {
            return Err(format!(
                "{shown}: baseline format {v} keys a finding shared by several operations \
                 once, so it cannot tell a new operation from a recorded one; {again}"
            ))
        }
        None => {
            return Err(format!(
                "{shown}: the baseline has no format `version` (a format before 2), so it \
                 cannot tell a new operation from a recorded one; {again}"
            ))
        }
        Some(_) => {
            return Err(format!(
                "{shown}: baseline format {} is not supported (this retrylint reads format \
                 {VERSION}); {again}",
                value["version"]
            ))
        }
    }
    let mut b: Baseline = serde_json::from_value(value).map_err(|e| format!("{shown}: {e}"))?;
    // A file written or edited on Windows may use `\`; keys always use `/`.
    for e in &mut b.findings {
        e.path = e.path.replace('\\', "/");
        for f in &mut e.label_files {
            *f = f.replace('\\', "/");
        }
        // The document part of `spec.yaml#METHOD /path` (a path has no `#`).
        for op in &mut e.operations {
            if let Some((doc, name)) = op.rsplit_once('#') {
                *op = format!("{}#{name}", doc.replace('\\', "/"));
            }
        }
    }
    Ok(b)
}

/// What is left to absorb at one node: per entry, its label files and counts per
/// operation key.
type Left = HashMap<Node, Vec<(BTreeSet<String>, HashMap<Option<String>, usize>)>>;

fn counts(b: &Baseline) -> Left {
    let mut left: Left = HashMap::new();
    for e in &b.findings {
        let mut n: HashMap<Option<String>, usize> = HashMap::new();
        if e.count > 0 {
            n.insert(None, e.count);
        }
        for op in &e.operations {
            *n.entry(Some(op.clone())).or_default() += 1;
        }
        left.entry((e.rule.clone(), e.path.clone(), e.pointer.clone()))
            .or_default()
            .push((e.label_files.iter().cloned().collect(), n));
    }
    left
}

/// Keeps the findings the baseline does not account for (in order). A finding is
/// accounted for when each of its operations (or, about none, the finding itself)
/// still has a count left in an entry of its node whose label files include all of
/// the finding's; it then uses one of each. A finding with anything new is kept
/// whole: run the rules under [`split`] and a grouped finding holds only new
/// operations by then.
pub fn filter_new(diags: Vec<Diagnostic>, baseline: &Baseline, root: &Path) -> Vec<Diagnostic> {
    filter(diags, baseline, root).new
}

/// What [`filter`] keeps and what the baseline recorded that no longer occurs.
#[derive(Debug)]
pub struct Filtered {
    /// The findings the baseline does not account for, in order.
    pub new: Vec<Diagnostic>,
    /// Recorded findings (operation keys and counts) that did not occur: fixed since,
    /// or outside the files of this run. A fixed finding left in the baseline would
    /// hide the same finding coming back, so a full run says to record it again.
    pub stale: usize,
}

/// [`filter_new`], also counting what the baseline recorded that did not occur.
pub fn filter(diags: Vec<Diagnostic>, baseline: &Baseline, root: &Path) -> Filtered {
    let mut left = counts(baseline);
    let new = diags
        .into_iter()
        .filter(|d| {
            let id = identity(d, root);
            let Some(entries) = left.get_mut(&id.node) else {
                return true;
            };
            // Which entry absorbs each operation key, decided before any is used.
            let mut picks = Vec::with_capacity(id.operations.len());
            for op in &id.operations {
                let pick = entries.iter().position(|(files, n)| {
                    id.label_files.is_subset(files) && n.get(op).is_some_and(|c| *c > 0)
                });
                match pick {
                    Some(i) => picks.push(i),
                    None => return true,
                }
            }
            for (op, i) in id.operations.iter().zip(picks) {
                if let Some(c) = entries[i].1.get_mut(op) {
                    *c -= 1;
                }
            }
            false
        })
        .collect();
    let stale = left.values().flatten().flat_map(|(_, n)| n.values()).sum();
    Filtered { new, stale }
}

/// What the baseline records, for the grouping ([`Partition`]).
struct Known {
    root: PathBuf,
    keys: HashSet<(String, String, String, String)>,
}

impl Partition for Known {
    fn is_known(
        &self,
        rule: &str,
        primary: &Location,
        document: &SourceFile,
        operation: &str,
    ) -> bool {
        self.keys.contains(&(
            rule.to_string(),
            root_relative(primary, &self.root),
            primary.pointer.clone(),
            operation_key(Some(document), operation, &self.root),
        ))
    }
}

/// The baseline's view for the rules (`CheckOptions::split`), paths relative to
/// `root` (the same root [`filter_new`] is given): a hit is known when the baseline
/// records its rule, node and operation.
pub fn split(baseline: &Baseline, root: &Path) -> Split {
    let keys = baseline
        .findings
        .iter()
        .flat_map(|e| {
            e.operations.iter().map(|op| {
                (
                    e.rule.clone(),
                    e.path.clone(),
                    e.pointer.clone(),
                    op.clone(),
                )
            })
        })
        .collect();
    Split(Arc::new(Known {
        root: root.to_path_buf(),
        keys,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Label;
    use crate::rules::rl201_unprotected_retry::META;

    fn file(root: &Path, name: &str) -> Arc<SourceFile> {
        Arc::new(SourceFile::new(root.join(name), name.to_string(), "x: 1\n"))
    }

    fn finding(root: &Path, name: &str, pointer: &str, ops: &[&str]) -> Diagnostic {
        let location = Location {
            file: file(root, name),
            span: 0..1,
            pointer: pointer.to_string(),
        };
        let d = Diagnostic::new(&META, "m", location, "l");
        let spec = file(root, "openapi.yaml");
        d.with_operations_in(ops.iter().map(|s| (Some(spec.clone()), s.to_string())))
    }

    fn root() -> PathBuf {
        PathBuf::from("/project")
    }

    #[test]
    fn identical_findings_are_hidden_and_counted() {
        let r = root();
        let old = vec![
            finding(&r, "p.yaml", "/defaults/retry", &["POST /a", "POST /b"]),
            finding(&r, "p.yaml", "", &[]),
            finding(&r, "p.yaml", "", &[]),
        ];
        let b = of(&old, &r);
        assert!(filter_new(old.clone(), &b, &r).is_empty());
        // A third finding without operation at the same key is new.
        let mut more = old.clone();
        more.push(finding(&r, "p.yaml", "", &[]));
        assert_eq!(filter_new(more, &b, &r).len(), 1);
        // One operation fixed: one recorded finding is stale.
        let fixed = vec![
            finding(&r, "p.yaml", "/defaults/retry", &["POST /a"]),
            finding(&r, "p.yaml", "", &[]),
            finding(&r, "p.yaml", "", &[]),
        ];
        let f = filter(fixed, &b, &r);
        assert!(f.new.is_empty());
        assert_eq!(f.stale, 1);
    }

    #[test]
    fn a_new_operation_at_a_recorded_node_is_new() {
        let r = root();
        let b = of(
            &[finding(&r, "p.yaml", "/defaults/retry", &["POST /a"])],
            &r,
        );
        let now = vec![finding(&r, "p.yaml", "/defaults/retry", &["POST /b"])];
        assert_eq!(filter_new(now, &b, &r).len(), 1);
        // And the split tells the rules which hit is which.
        let s = split(&b, &r);
        let at = finding(&r, "p.yaml", "/defaults/retry", &[])
            .primary
            .location;
        let spec = file(&r, "openapi.yaml");
        assert_eq!(b.findings[0].operations, ["openapi.yaml#POST /a"]);
        assert!(s.0.is_known("RL201", &at, &spec, "POST /a"));
        assert!(!s.0.is_known("RL201", &at, &spec, "POST /b"));
        assert!(!s.0.is_known("RL306", &at, &spec, "POST /a"));
        // The same name in another spec is another operation.
        assert!(!s.0.is_known("RL201", &at, &file(&r, "b.yaml"), "POST /a"));
    }

    fn label_in(mut d: Diagnostic, r: &Path, name: &str) -> Diagnostic {
        d.labels.push(Label {
            location: Location {
                file: file(r, name),
                span: 0..1,
                pointer: "/x".into(),
            },
            message: "m".into(),
        });
        d
    }

    #[test]
    fn a_new_layer_file_is_new() {
        let r = root();
        let b = of(
            &[finding(&r, "client.yaml", "/defaults/retry", &["POST /a"])],
            &r,
        );
        // The same node and operation in a new layer's policy file.
        let layer = finding(&r, "gateway.yaml", "/defaults/retry", &["POST /a"]);
        assert_eq!(filter_new(vec![layer], &b, &r).len(), 1);
    }

    #[test]
    fn a_new_label_in_another_file_is_new_and_fewer_files_are_not() {
        let r = root();
        let d = || finding(&r, "client.yaml", "/defaults/attempts", &["GET /a"]);
        let b = of(&[label_in(d(), &r, "gateway.yaml")], &r);
        assert_eq!(b.findings[0].label_files, vec!["gateway.yaml".to_string()]);
        // The same label again (same file, any line): hidden.
        assert!(filter_new(vec![label_in(d(), &r, "gateway.yaml")], &b, &r).is_empty());
        // A label in the primary's own file changes nothing.
        let own = label_in(label_in(d(), &r, "gateway.yaml"), &r, "client.yaml");
        assert!(filter_new(vec![own], &b, &r).is_empty());
        // A third layer's policy joins: new.
        let three = label_in(label_in(d(), &r, "gateway.yaml"), &r, "mesh.yaml");
        assert_eq!(filter_new(vec![three], &b, &r).len(), 1);
        // A layer removed: still the recorded finding.
        assert!(filter_new(vec![d()], &b, &r).is_empty());
    }

    #[test]
    fn format_is_sorted_and_versioned() {
        let r = root();
        let b = of(
            &[
                finding(&r, "z.yaml", "/x", &["POST /b", "GET /a"]),
                finding(&r, "a.yaml", "", &[]),
            ],
            &r,
        );
        let text = render(&b);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["version"], 3);
        assert_eq!(v["findings"][0]["path"], "a.yaml");
        assert_eq!(v["findings"][0]["count"], 1);
        assert!(v["findings"][0].get("operations").is_none());
        assert_eq!(v["findings"][1]["operations"][0], "openapi.yaml#GET /a");
        assert!(v["findings"][1].get("count").is_none());
    }

    #[test]
    fn old_formats_are_refused_naming_write_baseline() {
        let dir = std::env::temp_dir().join(format!("retrylint-baseline-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in [
            ("v1.json", r#"{"version": 1, "findings": []}"#),
            ("none.json", r#"{"findings": []}"#),
            ("v2.json", r#"{"version": 2, "findings": []}"#),
            ("v9.json", r#"{"version": 9, "findings": []}"#),
        ] {
            let p = dir.join(name);
            std::fs::write(&p, text).unwrap();
            let e = read(&p).unwrap_err();
            assert!(e.contains("--write-baseline"), "{e}");
        }
        let p = dir.join("win.json");
        std::fs::write(
            &p,
            r#"{"version": 3, "findings": [{"rule": "RL201", "path": "api\\p.yaml", "pointer": "", "operations": ["api\\o.yaml#GET /a"]}]}"#,
        )
        .unwrap();
        let read = read(&p).unwrap();
        assert_eq!(read.findings[0].path, "api/p.yaml");
        assert_eq!(read.findings[0].operations, ["api/o.yaml#GET /a"]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
