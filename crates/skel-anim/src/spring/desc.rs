//! What a file says about its spring bones, as plain data: the joints with their settings, the
//! colliders and their groups (`VRMC_springBone` 1.0 and VRM 0.x's `secondaryAnimation` both
//! become this; skel-gltf reads them). Settings a file leaves out stay `None`: what they default
//! to is the [`SpringProfile`](super::SpringProfile)'s choice (three-vrm and UniVRM disagree).

use glam::Vec3;

/// Every spring of a character and the colliders its springs test against.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpringBonesDesc {
    /// The springs, in the file's order (which is the order joints are added, and so the order
    /// three-vrm updates independent joints in).
    pub springs: Vec<SpringDesc>,
    /// Every collider; groups and springs refer to them by index.
    pub colliders: Vec<ColliderDesc>,
    /// Collider groups: indices into [`colliders`](Self::colliders).
    pub collider_groups: Vec<Vec<usize>>,
}

/// One spring: a run of joints that share a center and collider groups.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpringDesc {
    /// The file's name for it (may be empty).
    pub name: String,
    /// The joints, in the file's order. VRM 1.0 lists nodes `n₀ … nₖ`; each consecutive pair
    /// is one joint here (`node = nᵢ`, `child = Some(nᵢ₊₁)`, the settings of `nᵢ`), so the last
    /// node is only a tail. VRM 0.x names chain roots; every node below one is a joint whose
    /// child is its first child (`None` for a leaf: its tail is then 7 cm along its own offset
    /// from its parent, as three-vrm places it).
    pub joints: Vec<SpringJointDesc>,
    /// The node whose space the tails' inertia is kept in (`None`: world space), so that the
    /// motion of that node does not swing the chain.
    pub center: Option<usize>,
    /// Indices into [`SpringBonesDesc::collider_groups`].
    pub collider_groups: Vec<usize>,
}

/// One spring joint: a bone that turns so that its tail follows the simulated point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpringJointDesc {
    /// The node that turns.
    pub node: usize,
    /// The node at its tail (`None`: 7 cm along the node's own rest offset, VRM 0.x's leaves).
    pub child: Option<usize>,
    /// Radius of the tail's sphere against colliders.
    pub hit_radius: Option<f32>,
    /// How strongly the bone returns to its rest direction (per second).
    pub stiffness: Option<f32>,
    /// Gravity's strength (per second).
    pub gravity_power: Option<f32>,
    /// Gravity's direction in world space.
    pub gravity_dir: Option<Vec3>,
    /// The share of the tail's velocity lost each step (0: none, 1: all).
    pub drag_force: Option<f32>,
}

impl SpringJointDesc {
    /// A joint on `node` with tail `child` and every setting left to the profile.
    #[must_use]
    pub fn new(node: usize, child: Option<usize>) -> Self {
        Self {
            node,
            child,
            hit_radius: None,
            stiffness: None,
            gravity_power: None,
            gravity_dir: None,
            drag_force: None,
        }
    }
}

/// A collider: a shape placed in a node's space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ColliderDesc {
    /// The node the shape moves with.
    pub node: usize,
    /// The shape, in that node's space.
    pub shape: ColliderShape,
}

/// A collider's shape (`VRMC_springBone` and `VRMC_springBone_extended_collider`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ColliderShape {
    /// A ball at `offset`; `inside`: tails are kept inside it instead of out.
    Sphere {
        /// Centre in the node's space.
        offset: Vec3,
        /// Radius, in world units (the node's scale does not scale it, as in three-vrm).
        radius: f32,
        /// Keep tails inside rather than outside.
        inside: bool,
    },
    /// A capsule from `offset` to `tail`.
    Capsule {
        /// One end in the node's space.
        offset: Vec3,
        /// The other end in the node's space.
        tail: Vec3,
        /// Radius, in world units.
        radius: f32,
        /// Keep tails inside rather than outside.
        inside: bool,
    },
    /// The half-space behind a plane through `offset` with normal `normal` (tails are kept on
    /// the normal's side).
    Plane {
        /// A point of the plane in the node's space.
        offset: Vec3,
        /// The plane's normal in the node's space.
        normal: Vec3,
    },
}

impl ColliderShape {
    /// The point the shape is placed at in its node's space.
    #[must_use]
    pub fn offset(&self) -> Vec3 {
        match *self {
            Self::Sphere { offset, .. }
            | Self::Capsule { offset, .. }
            | Self::Plane { offset, .. } => offset,
        }
    }
}
