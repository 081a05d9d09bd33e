//! World-space poses: turning an absolute pose in the loader's world space into the local
//! translation and rotation a node override stores, and back.
//!
//! The loader's world space is left-handed by default: every root's world matrix carries
//! `H = RH_TO_LH = diag(-1, 1, 1, 1)` (see `skel_anim::compute_world_matrices`). A node's world
//! matrix is then `W = H · W_gltf`, whose determinant is negative, so no proper rotation equals
//! it. Writing `W_gltf = T(t) · R(r) · S`, and using `H · T(t) = T(H t) · H` and
//! `H · R(r) = R(q) · H` with `R(q) = H · R(r) · H` (a proper rotation), gives
//! `W = T(p) · R(q) · S · H` with `p = H t`: the pose `(p, q)` is what a left-handed user (a
//! physics engine, a gizmo) sees, and `W · H` is a proper transform to decompose. In the
//! right-handed mode `H` is the identity.

use skel_anim::{AnimationData, Handedness};
use skel_math::{IDENTITY, RH_TO_LH, compose_mat4_into, invert_mat4_into, load_mat4};

use crate::overrides::{MASK_ROTATION, MASK_SCALE, MASK_TRANSLATION, OverrideTable};

/// A position and orientation in the loader's world space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoneWorldPose {
    /// World position.
    pub position: [f32; 3],
    /// World orientation `[x, y, z, w]`, unit length.
    pub rotation: [f32; 4],
}

/// The handedness matrix roots get (`H`).
pub(crate) fn handedness_matrix(handedness: Handedness) -> [f32; 16] {
    match handedness {
        Handedness::LeftHanded => RH_TO_LH,
        Handedness::RightHanded => IDENTITY,
    }
}

fn mul(a: &[f32; 16], b: &[f32; 16]) -> [f32; 16] {
    (load_mat4(a, 0) * load_mat4(b, 0)).to_cols_array()
}

/// Local matrix of `node` from its rest TRS with the translation / rotation / scaling overrides
/// applied (visibility is not: a hidden bone keeps its pose for when it is shown again).
fn posed_local(data: &AnimationData, table: &OverrideTable, node: usize) -> [f32; 16] {
    let rest = &data.nodes[node];
    let o = table.get(node);
    let t = if o.mask & MASK_TRANSLATION != 0 {
        o.translation
    } else {
        rest.translation
    };
    let r = if o.mask & MASK_ROTATION != 0 {
        o.rotation
    } else {
        rest.rotation
    };
    let s = if o.mask & MASK_SCALE != 0 {
        o.scale
    } else {
        rest.scale
    };
    let mut m = [0.0; 16];
    compose_mat4_into(&mut m, 0, t, r, s);
    m
}

/// World matrix of `node` in the pose the eager bake produces (rest + overrides), computed by
/// walking up to the root: no scratch, no allocation, and it sees overrides written earlier in
/// the same deferred batch.
pub(crate) fn posed_world(data: &AnimationData, table: &OverrideTable, node: usize) -> [f32; 16] {
    let mut acc = posed_local(data, table, node);
    let mut ancestor = data.nodes[node].parent;
    while let Some(a) = ancestor {
        acc = mul(&posed_local(data, table, a), &acc);
        ancestor = data.nodes[a].parent;
    }
    mul(&handedness_matrix(data.handedness), &acc)
}

/// The local translation and rotation that put `node` at world pose `(position, rotation)`
/// under its parent's current world matrix (rest + overrides). The node's local scale is kept,
/// so its world scale is whatever its parent chain and its own scale give.
///
/// `rotation` must be unit length. Returns `Err(parent)` when the parent's world matrix is
/// singular.
pub(crate) fn world_to_local(
    data: &AnimationData,
    table: &OverrideTable,
    node: usize,
    position: [f32; 3],
    rotation: [f32; 4],
) -> Result<([f32; 3], [f32; 4]), usize> {
    let h = handedness_matrix(data.handedness);
    let mut inv_parent = [0.0; 16];
    match data.nodes[node].parent {
        Some(parent) => {
            let parent_world = posed_world(data, table, parent);
            if !invert_mat4_into(&mut inv_parent, 0, &parent_world, 0) {
                return Err(parent);
            }
        }
        // A root's "parent" is the handedness matrix, its own inverse.
        None => inv_parent = h,
    }
    let mut desired = [0.0; 16];
    compose_mat4_into(&mut desired, 0, position, rotation, [1.0; 3]);
    let local = mul(&inv_parent, &mul(&desired, &h));
    let (_scale, r, t) = load_mat4(&local, 0).to_scale_rotation_translation();
    Ok((t.to_array(), r.normalize().to_array()))
}

/// The world pose of `node` (rest + overrides), with the handedness reflection taken out;
/// `None` when its world matrix is singular (scaled to zero: it has no orientation).
pub(crate) fn world_pose(
    data: &AnimationData,
    table: &OverrideTable,
    node: usize,
) -> Option<BoneWorldPose> {
    let w = load_mat4(
        &mul(
            &posed_world(data, table, node),
            &handedness_matrix(data.handedness),
        ),
        0,
    );
    let det = w.determinant();
    if det == 0.0 || !det.is_finite() {
        return None;
    }
    let (_scale, r, t) = w.to_scale_rotation_translation();
    Some(BoneWorldPose {
        position: t.to_array(),
        rotation: r.normalize().to_array(),
    })
}
