//! Unknown keys inside a retry block: a key the platform does not define there is
//! ignored by it (or rejects the whole object), so a typo silently switches a retry
//! setting off. Each is RL017 with a "did you mean" (`layers.md` "Recognising files").

use super::rl017_ineffective_setting;
use crate::diagnostic::Diagnostic;
use crate::source::loader::Loaded;
use crate::source::refs::At;
use crate::source::strict::suggest;
use crate::source::tree::{Kind, NodeId};
use std::sync::Arc;

/// RL017 for every key of the mapping `map` that is not in `known`, with a "did you
/// mean" from `known`. `block` names the mapping in messages (`Istio
/// \`retries\``); `keys` may be written in any of the spellings the platform accepts
/// (pass both `num_retries` and `numRetries` for proto3 JSON).
pub fn unknown_keys(
    doc: &Arc<Loaded>,
    map: NodeId,
    known: &[&str],
    block: &str,
) -> Vec<Diagnostic> {
    let Ok(tree) = &doc.tree else {
        return Vec::new();
    };
    if tree.kind(map) != Kind::Map {
        return Vec::new();
    }
    let mut out = Vec::new();
    for &(k, _) in tree.raw_entries(map) {
        let Some(name) = tree.scalar(k) else { continue };
        if known.contains(&name) {
            continue;
        }
        let help = match suggest(name, known) {
            Some(s) => format!("did you mean `{s}`? The platform ignores `{name}` here, so the setting it was meant to make does not apply."),
            None => format!("{block} has no `{name}`: the platform ignores it. Known keys: {}.", known.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")),
        };
        let at = At::new(doc, k);
        out.push(rl017_ineffective_setting::diagnostic(
            &at,
            format!("unknown key `{name}` in {block}"),
            "unknown key",
            help,
        ));
    }
    out
}
