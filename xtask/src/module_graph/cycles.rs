//! Graph algorithms shared by the file-level and the folder-level check: strongly connected
//! components and the shortest cycle through a node. Generic over what an edge carries (a
//! [`Site`](super::resolve::Site) between files, an example file-level edge between folders),
//! so both levels find and order their circles the same way.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// A directed graph over `0..len()`: `graph[a]` maps each successor of `a` to what the edge
/// carries.
pub(crate) type Graph<V> = [BTreeMap<usize, V>];

/// Every circle of `graph`: for each strongly connected set of two or more nodes, the
/// shortest chain through each of its nodes (duplicates removed, each rotated to start at its
/// smallest node), so that every node of the set shows how it is caught.
pub(crate) fn circles<V>(graph: &Graph<V>) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    for component in strongly_connected(graph) {
        if component.len() < 2 {
            continue;
        }
        let inside: BTreeSet<usize> = component.iter().copied().collect();
        for &start in &component {
            let Some(mut chain) = shortest_cycle(graph, &inside, start) else {
                continue;
            };
            let min = chain
                .iter()
                .enumerate()
                .min_by_key(|(_, m)| **m)
                .map_or(0, |(i, _)| i);
            chain.rotate_left(min);
            if !out.contains(&chain) {
                out.push(chain);
            }
        }
    }
    out
}

/// Tarjan's strongly connected components, each sorted, in a stable order.
fn strongly_connected<V>(graph: &Graph<V>) -> Vec<Vec<usize>> {
    struct State<'a, V> {
        graph: &'a Graph<V>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit<V>(s: &mut State<'_, V>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in s.graph[v].keys() {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            component.sort_unstable();
            s.out.push(component);
        }
    }
    let n = graph.len();
    let mut state = State {
        graph,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if state.index[v].is_none() {
            visit(&mut state, v);
        }
    }
    state.out.sort();
    state.out
}

/// The shortest chain `start → … → start` that stays inside `inside` (breadth first).
fn shortest_cycle<V>(
    graph: &Graph<V>,
    inside: &BTreeSet<usize>,
    start: usize,
) -> Option<Vec<usize>> {
    let mut came_from: BTreeMap<usize, usize> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in graph[v].keys().filter(|w| inside.contains(w)) {
            if w == start {
                let mut chain = vec![v];
                let mut at = v;
                while at != start {
                    at = came_from[&at];
                    chain.push(at);
                }
                chain.reverse();
                return Some(chain);
            }
            if let std::collections::btree_map::Entry::Vacant(e) = came_from.entry(w) {
                e.insert(v);
                queue.push_back(w);
            }
        }
    }
    None
}
