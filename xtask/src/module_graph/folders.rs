//! Circles between sibling folders. Two folders can depend on each other without any file
//! of one and any file of the other forming a loop (`rig/a.rs` uses `pose/b.rs`, which uses
//! `rig/c.rs`): the file graph is acyclic, yet neither folder can be understood, tested or
//! moved without the other. So, for every module, each child is collapsed with its whole
//! subtree into one node, every file-level edge between two different children's subtrees
//! becomes an edge between those children, and a strongly connected set of children is a
//! circle. The parent's own file (`mod.rs`) is not part of any child: edges to and from it
//! are the file-level check's business.

use std::collections::BTreeMap;

use super::cycles;
use super::parse::{ModId, Tree};
use super::resolve::Edges;

/// A closed chain among the children of one module, each child standing for its subtree.
pub(crate) struct FolderCircle {
    /// The children, each using an item defined in the next one's subtree, the last in the
    /// first's.
    pub children: Vec<ModId>,
    /// For each arrow `children[i] → children[i + 1]`, one file-level edge behind it
    /// (from a module in the first subtree to one in the second).
    pub via: Vec<(ModId, ModId)>,
}

/// Every folder circle of the crate whose modules are `tree` and file-level edges `edges`.
///
/// A chain whose every arrow is a direct edge between the children themselves is also a
/// file-level circle and is left to that check, so that each problem is printed once.
pub(crate) fn circles(tree: &Tree, edges: &Edges) -> Vec<FolderCircle> {
    let mut out = Vec::new();
    for (parent, module) in tree.modules.iter().enumerate() {
        if module.children.len() < 2 {
            continue;
        }
        // In declaration order, so a circle starts at the child declared first.
        let mut kids: Vec<ModId> = module.children.values().copied().collect();
        kids.sort_unstable();
        let graph = collapsed(tree, edges, parent, &kids);
        for chain in cycles::circles(&graph) {
            let children: Vec<ModId> = chain.iter().map(|&c| kids[c]).collect();
            let via: Vec<(ModId, ModId)> = (0..chain.len())
                .map(|i| graph[chain[i]][&chain[(i + 1) % chain.len()]])
                .collect();
            let direct = via
                .iter()
                .enumerate()
                .all(|(i, &arrow)| arrow == (children[i], children[(i + 1) % children.len()]));
            if !direct {
                out.push(FolderCircle { children, via });
            }
        }
    }
    out
}

/// The graph over `kids` (indices into it), the children of `parent`: an arrow wherever a
/// module of one child's subtree uses an item of another's, carrying one such file-level edge
/// (the direct one between the two children when there is one, so the example is the
/// simplest, else the first in module order).
fn collapsed(
    tree: &Tree,
    edges: &Edges,
    parent: ModId,
    kids: &[ModId],
) -> Vec<BTreeMap<usize, (ModId, ModId)>> {
    let under: Vec<Option<usize>> = (0..tree.modules.len())
        .map(|m| {
            let child = child_holding(tree, parent, m)?;
            kids.iter().position(|&k| k == child)
        })
        .collect();
    let mut graph: Vec<BTreeMap<usize, (ModId, ModId)>> = vec![BTreeMap::new(); kids.len()];
    for (a, targets) in edges.iter().enumerate() {
        let Some(from) = under[a] else { continue };
        for &b in targets.keys() {
            if let Some(to) = under[b]
                && to != from
            {
                let example = graph[from].entry(to).or_insert((a, b));
                if edges[kids[from]].contains_key(&kids[to]) {
                    *example = (kids[from], kids[to]);
                }
            }
        }
    }
    graph
}

/// The child of `parent` whose subtree holds module `m` (`m` itself when it is a child);
/// `None` when `m` is `parent` or lies outside it.
fn child_holding(tree: &Tree, parent: ModId, m: ModId) -> Option<ModId> {
    let mut at = m;
    loop {
        let up = tree.modules[at].parent?;
        if up == parent {
            return Some(at);
        }
        at = up;
    }
}
