//! Shared by `plan --policy` and `simulate`: load policies with the documents they
//! govern, and find one operation's effective settings on one layer or on every
//! layer (the chain `simulate` runs).

use crate::analysis::{governed_candidates, EffectivePolicy};
use crate::check::{analyze, Analyzed, CheckOptions};
use crate::policy::model::Layer;
use crate::policy::selector::{did_you_mean, Selector};
use std::path::{Path, PathBuf};

/// The effective policy of the operation `selector` on `layer` (default client), as
/// joined from `policy` and the OpenAPI documents it governs. Errors are sentences
/// for the user.
pub fn effective_for(
    policy: &Path,
    selector: &str,
    layer: Option<&str>,
) -> Result<(String, EffectivePolicy), String> {
    let (name, mut layers) = layers_for(
        &[policy.to_path_buf()],
        selector,
        Some(layer.unwrap_or("client")),
    )?;
    // `layers_for` with a layer gives exactly that one.
    let effective = layers.pop().ok_or("no layer")?;
    Ok((name, effective))
}

/// The effective policies of the operation `selector`, as joined from `policies`
/// (one per layer: a client, a gateway and a mesh policy) and the OpenAPI documents
/// they govern: the one of `layer` when given, else every layer that applies to the
/// operation, outermost (client) first. Errors are sentences for the user.
pub fn layers_for(
    policies: &[PathBuf],
    selector: &str,
    layer: Option<&str>,
) -> Result<(String, Vec<EffectivePolicy>), String> {
    if let Some(missing) = policies.iter().find(|p| !p.is_file()) {
        // Say what is there: a folder or a device is not a missing file.
        let what = match std::fs::metadata(missing) {
            Ok(m) if m.is_dir() => "is a directory, not a policy file",
            Ok(_) => "is not a regular file",
            Err(_) => "does not exist",
        };
        return Err(format!("policy file `{}` {what}", missing.display()));
    }
    let given = |path: &Path| policies.iter().any(|p| same_file(path, p));
    let mut dirs: Vec<PathBuf> = Vec::new();
    for policy in policies {
        let dir = policy
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    let run = |paths: Vec<PathBuf>| {
        analyze(&CheckOptions {
            paths,
            policies: policies.to_vec(),
            explicit_policies_only: true,
            ..CheckOptions::default()
        })
    };
    let mut analyzed = run(dirs.clone());
    // A `spec:` outside the policy's folder (`../api/openapi.yaml`) is not reached by
    // the walk: read those documents too.
    let outside: Vec<PathBuf> = analyzed
        .analysis
        .policies
        .iter()
        .filter(|p| given(&p.doc.file.path))
        .flat_map(|p| {
            let dir = p
                .doc
                .file
                .path
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .to_path_buf();
            p.spec.iter().map(move |s| dir.join(&s.value))
        })
        .filter(|target| {
            target.is_file()
                && !analyzed
                    .documents
                    .iter()
                    .any(|d| same_file(&d.doc.file.path, target))
        })
        .collect();
    if !outside.is_empty() {
        let mut paths = dirs;
        paths.extend(outside);
        analyzed = run(paths);
    }
    let Analyzed {
        documents,
        analysis,
        diagnostics,
        ..
    } = analyzed;
    if let Some(d) = diagnostics
        .iter()
        .find(|d| d.code == "RL001" || d.code == "RL005")
    {
        return Err(format!(
            "{}: {} {}: {}",
            d.primary.location.file.display, d.code, d.name, d.message
        ));
    }
    let layer = match layer {
        None => None,
        Some("client") => Some(Layer::Client),
        Some("gateway") => Some(Layer::Gateway),
        Some("mesh") => Some(Layer::Mesh),
        Some(other) => return Err(format!("unknown layer `{other}` (client, gateway or mesh)")),
    };
    let sel = Selector::parse(selector).map_err(|e| format!("bad selector `{selector}`: {e}"))?;
    // Only the documents this policy governs: a run over the policy's folder may
    // also read documents the policy does not govern (a sibling folder's copy).
    let mut governed: Vec<usize> = analysis
        .policies
        .iter()
        .zip(&analysis.governs)
        .filter(|(p, _)| given(&p.doc.file.path))
        .flat_map(|(_, docs)| docs.iter().copied())
        .collect();
    governed.sort_unstable();
    governed.dedup();
    let governed = governed.as_slice();
    let names = policies
        .iter()
        .map(|p| format!("`{}`", p.display()))
        .collect::<Vec<_>>()
        .join(", ");
    let govern = if policies.len() == 1 {
        "governs"
    } else {
        "govern"
    };
    let matched: Vec<_> = analysis
        .operations
        .iter()
        .filter(|j| governed.contains(&j.document))
        .filter(|j| {
            let op = j.resolve(&documents);
            sel.matches(&op.method, &op.path, op.operation_id.as_deref())
        })
        .collect();
    let joined = match matched.as_slice() {
        [one] => *one,
        [] => {
            let files: Vec<String> = governed
                .iter()
                .map(|&d| format!("`{}`", documents[d].doc.file.display))
                .collect();
            let scope = if files.is_empty() {
                format!("{names} {govern} no document")
            } else {
                format!(
                    "matches no operation of the documents {names} {govern} ({})",
                    files.join(", ")
                )
            };
            let hint = did_you_mean(selector, &governed_candidates(&documents, governed))
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            return Err(if files.is_empty() {
                format!("`{selector}` matches no operation: {scope}")
            } else {
                format!("`{selector}` {scope}{hint}")
            });
        }
        many => {
            let names: Vec<String> = many
                .iter()
                .map(|j| {
                    let op = j.resolve(&documents);
                    format!(
                        "{} in `{}`",
                        op.display(),
                        documents[j.document].doc.file.display
                    )
                })
                .collect();
            return Err(format!(
                "`{selector}` matches {} operations ({}); name one by its operationId, or give the policy a `spec:` that names one document",
                many.len(),
                names.join(", ")
            ));
        }
    };
    let name = joined.resolve(&documents).display();
    let layers = match layer {
        Some(layer) => vec![joined
            .layer(layer)
            .cloned()
            .ok_or_else(|| format!("no `{}` layer policy applies to `{name}`", layer.as_str()))?],
        None if joined.layers.is_empty() => {
            return Err(format!("no layer policy applies to `{name}`"))
        }
        None => joined.layers.clone(),
    };
    Ok((name, layers))
}

/// True when `a` and `b` name the same file (compared canonically when both exist).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}
