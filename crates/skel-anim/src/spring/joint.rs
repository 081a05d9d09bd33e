//! A joint and a collider as a step reads them: settings resolved, rest frames made.

use glam::{Affine3A, Quat, Vec3A};

use super::desc::ColliderShape;

/// One joint, ready to step.
#[derive(Debug, Clone)]
pub(super) struct Joint {
    pub(super) node: u32,
    /// The node's parent (`NONE`: a root).
    pub(super) parent: u32,
    /// The tail node (`NONE`: `initial_child` from the bone itself).
    pub(super) child: u32,
    /// The center node (`NONE`: world space).
    pub(super) center: u32,
    pub(super) hit_radius: f32,
    pub(super) stiffness: f32,
    pub(super) gravity: Vec3A,
    pub(super) drag: f32,
    /// The bone's length for [`SpringProfile::UniVrm`]: the tail's rest offset scaled by the
    /// tail node's world scale at rest, fixed (three-vrm measures it every step).
    pub(super) rest_length: f32,
    /// The tail's rest offset in the bone's space, and its direction.
    pub(super) initial_child: Vec3A,
    pub(super) bone_axis: Vec3A,
    /// The rest tail direction in the parent's space (`initial_local`'s linear part on
    /// `bone_axis`, normalised).
    pub(super) rest_axis: Vec3A,
    /// The inverse of the bone's rest local matrix, and its rest rotation.
    pub(super) inverse_local: Affine3A,
    pub(super) initial_rotation: Quat,
    /// Its colliders: a range of [`SpringBones::joint_colliders`].
    pub(super) colliders: (u32, u32),
    /// The nodes below the bone to bring up to date after it turns (down to the next spring
    /// bones): a range of [`SpringBones::follow`].
    pub(super) follow: (u32, u32),
}

/// A collider, ready to test.
#[derive(Debug, Clone, Copy)]
pub(super) struct Collider {
    pub(super) node: u32,
    pub(super) shape: ColliderShape,
}
