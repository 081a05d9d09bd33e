//! The layout of the chains that step four at a time (see `chains`): groups of up to four
//! chains, and each depth's joints and settings in lanes.

use glam::{BVec4A, Vec4};

use super::lanes::{A3, Q, V3};

/// One depth of a group of chains: the joint of each lane at that depth and its settings in
/// lanes. A lane past its chain's end (or past the group's chains) is inactive: its indices
/// repeat lane 0's, which is active at every depth, so its gathers stay in bounds; nothing it
/// computes is stored.
#[derive(Debug, Clone)]
pub(super) struct Depth {
    pub(super) active: [bool; 4],
    pub(super) joint: [u32; 4],
    pub(super) node: [u32; 4],
    /// The tail node (`NONE`: the tail comes from `initial_child`).
    pub(super) child: [u32; 4],
    /// Whether the tail node is the next depth's bone; in every lane.
    pub(super) has_next: BVec4A,
    pub(super) all_next: bool,
    pub(super) has_child: BVec4A,
    pub(super) rest_axis: V3,
    pub(super) bone_axis: V3,
    pub(super) initial_child: V3,
    pub(super) inverse_local: A3,
    pub(super) initial_rotation: Q,
    pub(super) stiffness: Vec4,
    pub(super) drag: Vec4,
    pub(super) gravity: V3,
    pub(super) hit_radius: Vec4,
}

/// Up to four chains stepped side by side.
#[derive(Debug, Clone)]
pub(super) struct Group {
    /// A range of [`SpringBones::depths`].
    pub(super) depths: (u32, u32),
    /// Per lane: the parent of the chain's first bone (`NONE`: the root transform).
    pub(super) root_parent: [u32; 4],
    pub(super) center: [u32; 4],
    pub(super) has_center: BVec4A,
    pub(super) any_center: bool,
    pub(super) any_childless: bool,
    /// Per lane: its colliders, a range of [`SpringBones::joint_colliders`].
    pub(super) colliders: [(u32, u32); 4],
    pub(super) max_colliders: u32,
}

/// One depth of a group: each lane's tail now and a step ago (in its center's space, or
/// relative to the state's origin) and the rotation the last step gave its bone. A lane
/// past its chain's end holds whatever lane 0's joint gave it; nothing reads it.
#[derive(Debug, Clone, Copy)]
pub(super) struct LaneState {
    pub(super) current: V3,
    pub(super) prev: V3,
    pub(super) rotation: Q,
}

impl LaneState {
    pub(super) const ZERO: Self = Self {
        current: V3::ZERO,
        prev: V3::ZERO,
        rotation: Q {
            x: Vec4::ZERO,
            y: Vec4::ZERO,
            z: Vec4::ZERO,
            w: Vec4::ONE,
        },
    };
}
