//! Items grouped by a name, the groups in the order their names first appear: how
//! the located readers of nginx and HAProxy syntax lay out a block as a mapping from
//! each directive (or keyword) to the sequence of its occurrences. One pass with a
//! map, so a block of many distinct names costs no scan of the block per name.

use std::collections::HashMap;

/// The indices of `items` grouped by `name`: each group in item order, the groups
/// in the order their names first appear. Empty for no items; no group is empty.
pub fn by_first_appearance<T>(items: &[T], name: impl Fn(&T) -> &str) -> Vec<Vec<usize>> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let g = *index.entry(name(item)).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(i);
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_keep_first_appearance_and_item_order() {
        let items = ["b", "a", "b", "c", "a", "b"];
        assert_eq!(
            by_first_appearance(&items, |s| s),
            vec![vec![0, 2, 5], vec![1, 4], vec![3]]
        );
        assert!(by_first_appearance(&[] as &[&str], |s| s).is_empty());
    }
}
