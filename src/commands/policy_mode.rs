//! Shared by `plan --policy` and `simulate`: load a policy with the documents it
//! governs, and find one operation's effective settings on one layer.

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
    if !policy.is_file() {
        return Err(format!("policy file `{}` does not exist", policy.display()));
    }
    let dir = policy
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let run = |paths: Vec<PathBuf>| {
        analyze(&CheckOptions {
            paths,
            policies: vec![policy.to_path_buf()],
            explicit_policies_only: true,
            ..CheckOptions::default()
        })
    };
    let mut analyzed = run(vec![dir.to_path_buf()]);
    // A `spec:` outside the policy's folder (`../api/openapi.yaml`) is not reached by
    // the walk: read those documents too.
    let outside: Vec<PathBuf> = analyzed
        .analysis
        .policies
        .iter()
        .filter(|p| same_file(&p.doc.file.path, policy))
        .flat_map(|p| p.spec.iter().map(|s| dir.join(&s.value)))
        .filter(|target| {
            target.is_file()
                && !analyzed
                    .documents
                    .iter()
                    .any(|d| same_file(&d.doc.file.path, target))
        })
        .collect();
    if !outside.is_empty() {
        let mut paths = vec![dir.to_path_buf()];
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
    let layer = match layer.unwrap_or("client") {
        "client" => Layer::Client,
        "gateway" => Layer::Gateway,
        "mesh" => Layer::Mesh,
        other => return Err(format!("unknown layer `{other}` (client, gateway or mesh)")),
    };
    let sel = Selector::parse(selector).map_err(|e| format!("bad selector `{selector}`: {e}"))?;
    // Only the documents this policy governs: a run over the policy's folder may
    // also read documents the policy does not govern (a sibling folder's copy).
    let governed: &[usize] = analysis
        .policies
        .iter()
        .position(|p| same_file(&p.doc.file.path, policy))
        .and_then(|p| analysis.governs.get(p))
        .map_or(&[], Vec::as_slice);
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
                format!("`{}` governs no document", policy.display())
            } else {
                format!(
                    "matches no operation of the documents `{}` governs ({})",
                    policy.display(),
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
    let effective = joined
        .layer(layer)
        .cloned()
        .ok_or_else(|| format!("no `{}` layer policy applies to `{name}`", layer.as_str()))?;
    Ok((name, effective))
}

/// True when `a` and `b` name the same file (compared canonically when both exist).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}
