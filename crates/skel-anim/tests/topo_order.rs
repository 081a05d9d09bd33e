//! The seed's test 6: parents are processed before children. Also: a bad parent or a cycle is
//! an error (never a hang), and a 100 000-deep hierarchy neither overflows the stack nor slows
//! to a crawl.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;

use common::flat;
use proptest::prelude::*;
use skel_anim::{
    AnimError, AnimationController, AnimationData, Handedness, NodeRest, NullSink,
    compute_topo_order,
};

fn nodes_from(parents: &[Option<usize>]) -> Vec<NodeRest> {
    parents
        .iter()
        .enumerate()
        .map(|(i, &p)| NodeRest::new(format!("n{i}"), p))
        .collect()
}

/// Asserts that `order` is a permutation of the nodes with every parent before its children.
fn assert_parents_first(parents: &[Option<usize>], order: &[usize]) {
    let n = parents.len();
    assert_eq!(order.len(), n, "every node exactly once");
    let mut position = vec![usize::MAX; n];
    for (at, &node) in order.iter().enumerate() {
        assert_eq!(position[node], usize::MAX, "node {node} twice");
        position[node] = at;
    }
    for (child, parent) in parents.iter().enumerate() {
        if let Some(p) = *parent {
            assert!(
                position[p] < position[child],
                "parent {p} at {} after child {child} at {}",
                position[p],
                position[child]
            );
        }
    }
}

/// What a parent graph should give, found the slow and obvious way: walk up from every node
/// for at most `n` steps.
#[derive(Debug, PartialEq)]
enum Expect {
    Ok,
    BadParent { node: usize, parent: usize },
    Cycle,
}

fn expected(parents: &[Option<usize>]) -> Expect {
    let n = parents.len();
    // Parent indices are checked first, in node order; a node that is its own parent is
    // already a cycle there.
    for (node, p) in parents.iter().enumerate() {
        match *p {
            Some(p) if p >= n => return Expect::BadParent { node, parent: p },
            Some(p) if p == node => return Expect::Cycle,
            _ => {}
        }
    }
    for start in 0..n {
        let mut node = start;
        let mut steps = 0;
        while let Some(p) = parents[node] {
            node = p;
            steps += 1;
            if steps > n {
                return Expect::Cycle;
            }
        }
    }
    Expect::Ok
}

/// Whether following parents from `node` comes back to `node`.
fn on_cycle(parents: &[Option<usize>], node: usize) -> bool {
    let mut at = node;
    for _ in 0..parents.len() {
        match parents[at] {
            Some(p) if p < parents.len() => at = p,
            _ => return false,
        }
        if at == node {
            return true;
        }
    }
    false
}

#[test]
fn children_stored_before_parents_come_after_them() {
    // 0 → parent 3, 1 → parent 0, 2 root, 3 → parent 2, 4 → parent 1, 5 root
    let parents = [Some(3), Some(0), None, Some(2), Some(1), None];
    let order = compute_topo_order(&nodes_from(&parents)).unwrap();
    assert_parents_first(&parents, &order);
    assert_eq!(order, vec![2, 3, 0, 1, 4, 5]);
}

#[test]
fn the_controller_composes_in_topological_order() {
    // A reversed chain: node i hangs under node i + 1, so array order is children first.
    // Each node translates by (1, 0, 0): node i sits at x = n − i in the world.
    let n = 50;
    let mut nodes: Vec<NodeRest> = (0..n)
        .map(|i| NodeRest::new(format!("n{i}"), (i + 1 < n).then_some(i + 1)))
        .collect();
    for node in &mut nodes {
        node.translation = [1.0, 0.0, 0.0];
    }
    let data = AnimationData {
        nodes,
        handedness: Handedness::RightHanded,
        ..AnimationData::default()
    };
    let mut c = AnimationController::new(Arc::new(data)).unwrap();
    assert_eq!(c.scratch().topo_order()[0], n - 1);
    c.tick(0.0, &mut NullSink);
    for i in 0..n {
        assert_eq!(
            flat(c.world_matrices())[i * 16 + 12],
            (n - i) as f32,
            "node {i}"
        );
    }
}

#[test]
fn bad_parent_and_self_parent_are_errors() {
    let e = compute_topo_order(&nodes_from(&[None, Some(7), None])).unwrap_err();
    assert_eq!(
        e,
        AnimError::BadParent {
            node: 1,
            parent: 7,
            node_count: 3
        }
    );
    assert!(
        e.to_string()
            .contains("node 1 has parent 7, but there are only 3 nodes")
    );
    let e = compute_topo_order(&nodes_from(&[None, Some(1)])).unwrap_err();
    assert_eq!(e, AnimError::Cycle { node: 1 });
}

#[test]
fn a_cycle_below_a_tail_reports_a_node_on_the_cycle() {
    // 0 → 1 → 2 → 3 → 1: node 0 hangs below the cycle {1, 2, 3} but is not on it.
    let parents = [Some(1), Some(2), Some(3), Some(1), None];
    match compute_topo_order(&nodes_from(&parents)) {
        Err(AnimError::Cycle { node }) => assert!(on_cycle(&parents, node), "node {node}"),
        other => panic!("expected a cycle, got {other:?}"),
    }
}

#[test]
fn a_100_000_deep_chain_in_either_order() {
    let n = 100_000;
    let forward: Vec<Option<usize>> = (0..n).map(|i: usize| i.checked_sub(1)).collect();
    let order = compute_topo_order(&nodes_from(&forward)).unwrap();
    assert_parents_first(&forward, &order);

    let reversed: Vec<Option<usize>> = (0..n).map(|i| (i + 1 < n).then_some(i + 1)).collect();
    let order = compute_topo_order(&nodes_from(&reversed)).unwrap();
    assert_parents_first(&reversed, &order);

    // The whole pipeline on it: world x of the deepest node is the chain length.
    let mut nodes = nodes_from(&reversed);
    for node in &mut nodes {
        node.translation = [1.0, 0.0, 0.0];
    }
    let data = AnimationData {
        nodes,
        handedness: Handedness::RightHanded,
        ..AnimationData::default()
    };
    let mut c = AnimationController::new(Arc::new(data)).unwrap();
    c.tick(16.0, &mut NullSink);
    assert_eq!(flat(c.world_matrices())[12], 100_000.0);
}

#[test]
fn a_100_000_long_cycle_is_an_error_not_a_hang() {
    let n = 100_000;
    let ring: Vec<Option<usize>> = (0..n).map(|i| Some((i + 1) % n)).collect();
    assert!(matches!(
        compute_topo_order(&nodes_from(&ring)),
        Err(AnimError::Cycle { .. })
    ));
    // A long chain hanging below a two-node cycle, next to a healthy tree.
    let mut parents: Vec<Option<usize>> = (0..n).map(|i| Some(i + 1)).collect();
    parents[n - 1] = Some(n - 2);
    parents.push(None);
    parents.push(Some(n));
    match compute_topo_order(&nodes_from(&parents)) {
        Err(AnimError::Cycle { node }) => assert!(node == n - 1 || node == n - 2, "node {node}"),
        other => panic!("expected a cycle, got {other:?}"),
    }
    let data = AnimationData {
        nodes: nodes_from(&parents),
        ..AnimationData::default()
    };
    assert!(matches!(
        AnimationController::new(Arc::new(data)),
        Err(AnimError::Cycle { .. })
    ));
}

/// Any parent graph on 1..24 nodes: none, a node in range (self included), or out of range.
fn arb_parent_graph() -> impl Strategy<Value = Vec<Option<usize>>> {
    (1_usize..24).prop_flat_map(|n| {
        prop::collection::vec(
            prop_oneof![
                2 => Just(None),
                6 => (0..n).prop_map(Some),
                1 => (n..n + 3).prop_map(Some),
            ],
            n,
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn topo_order_holds_on_random_shuffled_forests(parents in common::arb_forest(64)) {
        let order = compute_topo_order(&nodes_from(&parents)).unwrap();
        assert_parents_first(&parents, &order);
    }

    #[test]
    fn random_graphs_are_ordered_or_rejected_correctly(parents in arb_parent_graph()) {
        let got = compute_topo_order(&nodes_from(&parents));
        match (expected(&parents), got) {
            (Expect::Ok, Ok(order)) => assert_parents_first(&parents, &order),
            (Expect::BadParent { node, parent }, Err(AnimError::BadParent { node: n, parent: p, node_count })) => {
                prop_assert_eq!((node, parent, parents.len()), (n, p, node_count));
            }
            (Expect::Cycle, Err(AnimError::Cycle { node })) => {
                prop_assert!(on_cycle(&parents, node), "node {} is not on a cycle", node);
            }
            (want, got) => prop_assert!(false, "expected {:?}, got {:?}", want, got),
        }
    }
}
