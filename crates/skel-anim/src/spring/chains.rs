//! Which joints step four at a time: chains of joints (each bone the parent of the next, each
//! joint's tail the next joint's bone) placed side by side in lanes, one chain a lane, a depth
//! of the four chains per batch.
//!
//! A chain is batched only where doing so cannot change a bit of the result: its whole
//! subtree (the chain's bones, the last bone's tail and everything below) holds no other
//! spring bone, no collider and no center, and nothing outside it reads it; what the chain
//! reads (its root's parent, its colliders' and center's nodes) lies outside every spring
//! bone's subtree, so it does not move during the step. Such chains depend on nothing a step
//! changes and nothing depends on them: they run before the other joints, all at once, and
//! the other joints run one by one in three-vrm's order as before. The profile must be
//! three-vrm's and the colliders spheres or capsules.

use glam::{BVec4A, Vec3A, Vec4};

use super::SpringProfile;
use super::desc::ColliderShape;
use super::group::{Depth, Group};
use super::joint::Joint;
use super::lanes::{A3, Q, V3};
use super::setup::SpringBones;
use crate::data::NONE;

/// The chains of `bones` that may run in lanes, grouped by four (longest first), and their
/// depths; with the joints and nodes they cover.
pub(super) struct Plan {
    pub(super) groups: Vec<Group>,
    pub(super) depths: Vec<Depth>,
    pub(super) grouped_joint: Vec<bool>,
    /// Per node: whether a group places it (the scalar passes skip it).
    pub(super) grouped_node: Vec<bool>,
}

impl SpringBones {
    /// Whether chains that can run four at a time do (the default), or every joint steps one
    /// by one: the same result bit for bit either way; the tests compare the two.
    pub(super) fn set_lanes(&mut self, on: bool) {
        let plan = if on { plan(self) } else { Plan::none(self) };
        self.groups = plan.groups;
        self.depths = plan.depths;
        self.grouped_joint = plan.grouped_joint;
        self.grouped_node = plan.grouped_node;
        self.step_order = self
            .order
            .iter()
            .copied()
            .filter(|&i| self.placed[i as usize] && !self.grouped_node[i as usize])
            .collect();
        self.loose_joints = (0..self.joints.len() as u32)
            .filter(|&j| !self.grouped_joint[j as usize])
            .collect();
        let mut grouped_bone = vec![false; self.parent.len()];
        for (joint, &grouped) in self.joints.iter().zip(&self.grouped_joint) {
            grouped_bone[joint.node as usize] |= grouped;
        }
        self.step_locals = (0..self.parent.len() as u32)
            .filter(|&i| self.placed[i as usize] && !grouped_bone[i as usize])
            .collect();
    }
}

impl Plan {
    /// No chain in lanes.
    pub(super) fn none(bones: &SpringBones) -> Self {
        Self {
            groups: Vec::new(),
            depths: Vec::new(),
            grouped_joint: vec![false; bones.joints.len()],
            grouped_node: vec![false; bones.parent.len()],
        }
    }
}

pub(super) fn plan(bones: &SpringBones) -> Plan {
    let n = bones.parent.len();
    let joints = &bones.joints;
    let mut plan = Plan::none(bones);
    if bones.options.profile != SpringProfile::ThreeVrm || joints.is_empty() {
        return plan;
    }
    let mut on_node = vec![0_u32; n];
    let mut joint_on = vec![NONE; n];
    for (j, joint) in joints.iter().enumerate() {
        on_node[joint.node as usize] += 1;
        joint_on[joint.node as usize] = j as u32;
    }
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (i, &p) in bones.parent.iter().enumerate() {
        if p != NONE {
            children[p as usize].push(i as u32);
        }
    }
    // Nodes something reads outside its own chain: colliders' and centers' nodes.
    let mut watched = vec![false; n];
    for c in &bones.colliders {
        watched[c.node as usize] = true;
    }
    for joint in joints {
        if joint.center != NONE {
            watched[joint.center as usize] = true;
        }
    }
    let mut chains: Vec<Vec<u32>> = Vec::new();
    for (j, joint) in joints.iter().enumerate() {
        let starts = joint.parent == NONE || !bones.below_spring[joint.parent as usize];
        if !starts || on_node[joint.node as usize] != 1 {
            continue;
        }
        if let Some(chain) = chain_from(bones, j as u32, &on_node, &joint_on, &children, &watched) {
            chains.push(chain);
        }
    }
    // Longest first, so that lane 0 is active at every depth of its group.
    chains.sort_by_key(|c| std::cmp::Reverse(c.len()));
    for four in chains.chunks(4) {
        // One chain alone in four lanes costs more than stepping it joint by joint.
        if four.len() < 2 {
            continue;
        }
        let group = make_group(bones, four, &mut plan.depths);
        plan.groups.push(group);
        for &j in four.iter().flatten() {
            plan.grouped_joint[j as usize] = true;
            mark_subtree(joints[j as usize].node, &children, &mut plan.grouped_node);
        }
    }
    plan
}

/// The chain of joints from `first` down, if it may run in lanes.
fn chain_from(
    bones: &SpringBones,
    first: u32,
    on_node: &[u32],
    joint_on: &[u32],
    children: &[Vec<u32>],
    watched: &[bool],
) -> Option<Vec<u32>> {
    let joints = &bones.joints;
    let head = &joints[first as usize];
    if head.center != NONE && bones.below_spring[head.center as usize] {
        return None;
    }
    let shapes_ok = bones.joint_colliders[head.colliders.0 as usize..head.colliders.1 as usize]
        .iter()
        .all(|&c| {
            let c = &bones.colliders[c as usize];
            !matches!(c.shape, ColliderShape::Plane { .. }) && !bones.below_spring[c.node as usize]
        });
    if !shapes_ok {
        return None;
    }
    let mut chain = vec![first];
    let mut at = first;
    loop {
        let joint = &joints[at as usize];
        if joint.center != head.center || joint.colliders != head.colliders {
            return None;
        }
        let next = if joint.child == NONE {
            NONE
        } else {
            joint_on[joint.child as usize]
        };
        if next == NONE {
            // The last bone: nothing below it may be a spring bone or be watched.
            return subtree_is_quiet(joint.node, children, on_node, watched, true).then_some(chain);
        }
        // A bone in the middle: its only child is the next bone, and it is not watched.
        if watched[joint.node as usize]
            || children[joint.node as usize].len() != 1
            || on_node[joint.child as usize] != 1
        {
            return None;
        }
        chain.push(next);
        at = next;
    }
}

/// Whether no node in `node`'s subtree (below it, and itself unless `skip_self`) is watched
/// or is a spring bone.
fn subtree_is_quiet(
    node: u32,
    children: &[Vec<u32>],
    on_node: &[u32],
    watched: &[bool],
    skip_self: bool,
) -> bool {
    if watched[node as usize] {
        return false;
    }
    if !skip_self && on_node[node as usize] != 0 {
        return false;
    }
    children[node as usize]
        .iter()
        .all(|&c| subtree_is_quiet(c, children, on_node, watched, false))
}

fn mark_subtree(node: u32, children: &[Vec<u32>], marked: &mut [bool]) {
    marked[node as usize] = true;
    for &c in &children[node as usize] {
        mark_subtree(c, children, marked);
    }
}

fn make_group(bones: &SpringBones, chains: &[Vec<u32>], depths: &mut Vec<Depth>) -> Group {
    let joints = &bones.joints;
    let lane = |i: usize| chains.get(i).unwrap_or(&chains[0]);
    let head = |i: usize| &joints[lane(i)[0] as usize];
    let first = depths.len() as u32;
    for d in 0..chains[0].len() {
        let at = |i: usize| -> (bool, &Joint, u32) {
            match chains.get(i).and_then(|c| c.get(d)) {
                Some(&j) => (true, &joints[j as usize], j),
                None => (false, &joints[chains[0][d] as usize], chains[0][d]),
            }
        };
        let lanes: [(bool, &Joint, u32); 4] = std::array::from_fn(at);
        let next: [bool; 4] =
            std::array::from_fn(|i| chains.get(i).is_some_and(|c| d + 1 < c.len()));
        let v3 = |f: &dyn Fn(&Joint) -> Vec3A| V3::gather(lanes.map(|(_, j, _)| f(j)));
        let f4 = |f: &dyn Fn(&Joint) -> f32| Vec4::from_array(lanes.map(|(_, j, _)| f(j)));
        depths.push(Depth {
            active: lanes.map(|(a, _, _)| a),
            joint: lanes.map(|(_, _, j)| j),
            node: lanes.map(|(_, j, _)| j.node),
            child: lanes.map(|(_, j, _)| j.child),
            has_next: BVec4A::from_array(next),
            all_next: next.iter().all(|&n| n),
            has_child: BVec4A::from_array(lanes.map(|(_, j, _)| j.child != NONE)),
            rest_axis: v3(&|j| j.rest_axis),
            bone_axis: v3(&|j| j.bone_axis),
            initial_child: v3(&|j| j.initial_child),
            inverse_local: A3::gather(lanes.map(|(_, j, _)| j.inverse_local)),
            initial_rotation: Q::gather(lanes.map(|(_, j, _)| j.initial_rotation)),
            stiffness: f4(&|j| j.stiffness),
            drag: f4(&|j| j.drag),
            gravity: v3(&|j| j.gravity),
            hit_radius: f4(&|j| j.hit_radius),
        });
    }
    let center: [u32; 4] = std::array::from_fn(|i| head(i).center);
    let colliders: [(u32, u32); 4] = std::array::from_fn(|i| {
        if i < chains.len() {
            head(i).colliders
        } else {
            (0, 0)
        }
    });
    Group {
        depths: (first, depths.len() as u32),
        root_parent: std::array::from_fn(|i| head(i).parent),
        center,
        has_center: BVec4A::from_array(center.map(|c| c != NONE)),
        any_center: center.iter().any(|&c| c != NONE),
        any_childless: chains
            .iter()
            .flatten()
            .any(|&j| joints[j as usize].child == NONE),
        max_colliders: colliders.iter().map(|c| c.1 - c.0).max().unwrap_or(0),
        colliders,
    }
}
