//! Literal data in an OpenAPI document: an `example`, or the `value` of an Example
//! Object, where a `$ref` key is data and is neither followed (the model, the ref
//! scan) nor reported (RL011).

use crate::source::tree::{NodeId, Tree};

/// True when `node` sits inside literal data (an `example`, or the `value` of an
/// Example Object), where a `$ref` key is just data.
pub fn in_literal_value(tree: &Tree, node: NodeId) -> bool {
    let mut cur = node;
    for _ in 0..1024 {
        let Some(parent) = tree.parent(cur) else {
            return false;
        };
        if let Some(key) = tree.key_of(cur) {
            match tree.scalar(key) {
                Some("example") => return true,
                Some("value") => {
                    let examples = tree.parent(parent).and_then(|g| tree.key_of(g));
                    if tree.parent(parent).is_some()
                        && examples.and_then(|k| tree.scalar(k)) == Some("examples")
                    {
                        return true;
                    }
                }
                _ => {}
            }
        }
        cur = parent;
    }
    false
}
