//! Cycles in config inheritance (Traefik `chain` middlewares, AWS `source_profile`):
//! which members of a reference graph lie on a cycle. Every such member gets RL017
//! from its importer: the platform refuses the cycle (Traefik: "recursion detected
//! in chain"; AWS SDKs: an infinite source-profile loop), so nothing is read through
//! it.
//!
//! Tarjan's strongly connected components, iterative (a hostile file may chain
//! thousands of names: no recursion), linear in names and references.

/// The indexes of the nodes that lie on a cycle of the graph `edges` (node `i`
/// refers to each of `edges[i]`; an index out of range is ignored): the members of
/// every strongly connected component with more than one node, and every node that
/// refers to itself. Sorted.
pub fn members(edges: &[Vec<usize>]) -> Vec<usize> {
    const UNSEEN: usize = usize::MAX;
    let n = edges.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut out = Vec::new();
    let mut next = 0;
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        // (node, position in its edge list)
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&(v, pos)) = work.last() {
            if let Some(&w) = edges[v].get(pos) {
                if let Some(top) = work.last_mut() {
                    top.1 += 1;
                }
                if w >= n {
                    continue;
                }
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 || edges[v].contains(&v) {
                    out.extend(component);
                }
            }
        }
    }
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::members;

    #[test]
    fn cycles_and_self_references() {
        // 0 -> 1 -> 2 -> 0 is a cycle; 3 -> 0 only reaches it; 4 refers to itself;
        // 5 -> 6 is no cycle; 7 refers past the end.
        let edges = vec![
            vec![1],
            vec![2],
            vec![0],
            vec![0],
            vec![4],
            vec![6],
            vec![],
            vec![99],
        ];
        assert_eq!(members(&edges), vec![0, 1, 2, 4]);
        assert!(members(&[]).is_empty());
        assert!(members(&[vec![1], vec![]]).is_empty());
    }

    #[test]
    fn a_long_chain_is_no_cycle_and_needs_no_deep_stack() {
        let n = 200_000;
        let mut edges: Vec<Vec<usize>> = (0..n).map(|i| vec![i + 1]).collect();
        edges[n - 1] = Vec::new();
        assert!(members(&edges).is_empty());
        edges[n - 1] = vec![0];
        assert_eq!(members(&edges).len(), n);
    }
}
