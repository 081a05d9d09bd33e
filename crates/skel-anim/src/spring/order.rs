//! three-vrm's update order of the joints (`VRMSpringBoneManager._sortJoints`): a joint after
//! the joints on its parent's and its colliders' ancestors.

use super::joint::{Collider, Joint};
use crate::data::NONE;

/// three-vrm's update order (`VRMSpringBoneManager._sortJoints`): in the order added, each
/// joint after the joints on the ancestors (root first) of its parent and of its colliders'
/// nodes; a dependency circle is broken where it is found.
pub(super) fn update_order(
    added: Vec<Joint>,
    parent: &[u32],
    colliders: &[Collider],
    joint_colliders: &[u32],
) -> Vec<Joint> {
    let n = parent.len();
    // Per node, the joints on it in the order added.
    let mut on_node: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (j, joint) in added.iter().enumerate() {
        on_node[joint.node as usize].push(j);
    }
    let mut state = vec![0_u8; added.len()]; // 0 new, 1 tried, 2 done
    let mut order = Vec::with_capacity(added.len());
    for j in 0..added.len() {
        insert(
            j,
            &added,
            parent,
            colliders,
            joint_colliders,
            &on_node,
            &mut state,
            &mut order,
        );
    }
    order.into_iter().map(|j| added[j].clone()).collect()
}

#[expect(clippy::too_many_arguments, reason = "one recursive walk's context")]
fn insert(
    j: usize,
    added: &[Joint],
    parent: &[u32],
    colliders: &[Collider],
    joint_colliders: &[u32],
    on_node: &[Vec<usize>],
    state: &mut [u8],
    order: &mut Vec<usize>,
) {
    if state[j] != 0 {
        return;
    }
    state[j] = 1;
    let joint = &added[j];
    // Dependencies: the bone's parent, then each collider's node (the collider object itself
    // carries no joint).
    let mut deps = Vec::new();
    if joint.parent != NONE {
        deps.push(joint.parent);
    }
    for &c in &joint_colliders[joint.colliders.0 as usize..joint.colliders.1 as usize] {
        deps.push(colliders[c as usize].node);
    }
    let mut chain = Vec::new();
    for dep in deps {
        chain.clear();
        let mut at = dep;
        while at != NONE {
            chain.push(at);
            at = parent[at as usize];
        }
        for &ancestor in chain.iter().rev() {
            for &k in &on_node[ancestor as usize] {
                insert(
                    k,
                    added,
                    parent,
                    colliders,
                    joint_colliders,
                    on_node,
                    state,
                    order,
                );
            }
        }
    }
    state[j] = 2;
    order.push(j);
}
