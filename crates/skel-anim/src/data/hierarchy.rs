//! Topological order of the node hierarchy.

use crate::AnimError;

/// Orders nodes so that every parent comes before its children, by an iterative depth-first
/// walk from each root (no recursion: a 100 000-deep chain cannot overflow the stack).
///
/// # Errors
/// [`AnimError::BadParent`] when a parent index is out of range, [`AnimError::Cycle`] when the
/// parent links loop (a node that is its own parent included) — detected, never looped on.
/// Parent indices are checked in node order first, so the first node with an out-of-range or
/// own-index parent is the one reported; a longer cycle reports one of its nodes.
#[doc(alias = "computeTopoOrder")]
pub fn compute_topo_order(nodes: &[NodeRest]) -> Result<Vec<usize>, AnimError> {
    let n = nodes.len();
    // Children lists as one flat array (counting sort by parent): no per-node Vec.
    let mut child_count = vec![0usize; n + 1];
    for (node, rest) in nodes.iter().enumerate() {
        if let Some(p) = rest.parent {
            if p >= n {
                return Err(AnimError::BadParent {
                    node,
                    parent: p,
                    node_count: n,
                });
            }
            if p == node {
                return Err(AnimError::Cycle { node });
            }
            child_count[p + 1] += 1;
        }
    }
    for i in 0..n {
        child_count[i + 1] += child_count[i];
    }
    let starts = child_count;
    let mut fill = starts.clone();
    let mut children = vec![0usize; starts[n]];
    for (node, rest) in nodes.iter().enumerate() {
        if let Some(p) = rest.parent {
            children[fill[p]] = node;
            fill[p] += 1;
        }
    }
    let mut order = Vec::with_capacity(n);
    let mut stack = Vec::new();
    for root in (0..n).filter(|&i| nodes[i].parent.is_none()) {
        stack.push(root);
        while let Some(node) = stack.pop() {
            order.push(node);
            // Push children in reverse so that they come out in glTF order.
            for &c in children[starts[node]..starts[node + 1]].iter().rev() {
                stack.push(c);
            }
        }
    }
    if order.len() != n {
        return Err(AnimError::Cycle {
            node: node_on_cycle(nodes, &order),
        });
    }
    Ok(order)
}

/// A node on a parent cycle, given the nodes that were reached from a root. Nodes never reached
/// sit on a cycle or hang below one; following parents from one of them (at most `n` steps, all
/// parents are in range by now) must revisit a node, and the first node revisited is on the
/// cycle.
fn node_on_cycle(nodes: &[NodeRest], reached_from_root: &[usize]) -> usize {
    let n = nodes.len();
    let mut seen = vec![false; n];
    for &i in reached_from_root {
        seen[i] = true;
    }
    let Some(mut node) = (0..n).find(|&i| !seen[i]) else {
        return 0;
    };
    while !seen[node] {
        seen[node] = true;
        match nodes[node].parent {
            Some(p) => node = p,
            // Unreachable: a node that leads to a root would have been reached from it.
            None => break,
        }
    }
    node
}

/// A node's rest transform and its place in the hierarchy.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeRest {
    /// The node's name (glTF `node.name`; empty when absent).
    pub name: String,
    /// Parent node index, `None` for roots.
    pub parent: Option<usize>,
    /// Rest translation.
    pub translation: [f32; 3],
    /// Rest rotation `[x, y, z, w]`, unit length.
    pub rotation: [f32; 4],
    /// Rest scale.
    pub scale: [f32; 3],
}

impl NodeRest {
    /// A node with the identity transform.
    #[must_use]
    pub fn new(name: impl Into<String>, parent: Option<usize>) -> Self {
        Self {
            name: name.into(),
            parent,
            translation: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
        }
    }
}
