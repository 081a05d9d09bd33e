//! Which nodes the GPU pose pass poses: every joint and its ancestors, except the static
//! ancestors above them (no joint, moved by no clip, and their own ancestors alike: a scene's
//! up-axis node, an armature node). Those are constants: their rest world transform is folded
//! into each bone's left matrix (where the mesh's inverse world transform usually cancels it
//! exactly) instead of being sampled and composed for every character. Each level saved is a
//! barrier of the per-node layout: CesiumMan's two static roots took its pass at 1 000 000
//! characters on the H200 from 1.217 to 0.968 ms (docs/gpu-posing.md).

use glam::{DMat4, Mat4, Quat, Vec3};
use skel_anim::{AnimationData, ChannelPath, Rig};

use crate::GpuError;

/// A parent index meaning "a root of the posed hierarchy".
pub const NO_PARENT: u32 = u32::MAX;

/// The posed nodes of an asset (see the module docs).
pub(super) struct PosedHierarchy {
    /// Asset node of each posed node, parents before children.
    pub(super) nodes: Vec<usize>,
    /// Parent of each posed node as a posed-node index, or [`NO_PARENT`] (a root, or a node
    /// below folded ancestors).
    pub(super) parents: Vec<u32>,
    /// Posed index of each asset node ([`NO_PARENT`] for nodes not posed).
    pub(super) posed: Vec<u32>,
    /// Per posed node: the rest world transform of the folded ancestors above its chain (the
    /// identity under a true root).
    pub(super) prefix: Vec<DMat4>,
}

const PATHS: [ChannelPath; 3] = [
    ChannelPath::Translation,
    ChannelPath::Rotation,
    ChannelPath::Scale,
];

impl PosedHierarchy {
    pub(super) fn of(rig: &Rig, data: &AnimationData) -> Self {
        let count = data.nodes.len();
        let (mut wanted, mut joint) = (vec![false; count], vec![false; count]);
        for binding in &data.skeletons {
            for &j in &binding.joints {
                joint[j] = true;
                let mut node = Some(j);
                while let Some(n) = node.filter(|&n| !wanted[n]) {
                    wanted[n] = true;
                    node = data.nodes[n].parent;
                }
            }
        }
        let mut folded = vec![false; count];
        for &n in rig.topo_order() {
            folded[n] = wanted[n]
                && !joint[n]
                && !PATHS.into_iter().any(|p| data.is_animated(n, p))
                && data.nodes[n].parent.is_none_or(|p| folded[p]);
        }
        let nodes: Vec<usize> = rig
            .topo_order()
            .iter()
            .copied()
            .filter(|&n| wanted[n] && !folded[n])
            .collect();
        let mut posed = vec![NO_PARENT; count];
        for (i, &n) in nodes.iter().enumerate() {
            posed[n] = i as u32;
        }
        let parents: Vec<u32> = nodes
            .iter()
            .map(|&n| {
                data.nodes[n]
                    .parent
                    .filter(|&p| !folded[p])
                    .map_or(NO_PARENT, |p| posed[p])
            })
            .collect();
        let mut prefix: Vec<DMat4> = Vec::with_capacity(nodes.len());
        for (i, &n) in nodes.iter().enumerate() {
            let above = match data.nodes[n].parent {
                Some(p) if folded[p] => rest_world(data, p),
                Some(_) => prefix[parents[i] as usize],
                None => DMat4::IDENTITY,
            };
            prefix.push(above);
        }
        Self {
            nodes,
            parents,
            posed,
            prefix,
        }
    }
}

/// The inverse of `mesh_node`'s rest world transform (without the handedness mirror, which the
/// CPU pose applies to the mesh and its joints alike and so cancels).
pub(super) fn mesh_inverse(data: &AnimationData, mesh_node: usize) -> Result<DMat4, GpuError> {
    let mut node = Some(mesh_node);
    while let Some(n) = node {
        if PATHS.into_iter().any(|p| data.is_animated(n, p)) {
            return Err(GpuError::AnimatedMeshNode { mesh_node, node: n });
        }
        node = data.nodes[n].parent;
    }
    Ok(rest_world(data, mesh_node).inverse())
}

/// `node`'s rest world transform, in f64 (so that a mesh inverse times the same ancestors
/// comes out as the identity to 1e-12 where it should).
fn rest_world(data: &AnimationData, node: usize) -> DMat4 {
    let mut world = DMat4::IDENTITY;
    let mut at = Some(node);
    while let Some(n) = at {
        let rest = &data.nodes[n];
        let local = DMat4::from_scale_rotation_translation(
            Vec3::from_array(rest.scale).as_dvec3(),
            Quat::from_array(rest.rotation).as_dquat(),
            Vec3::from_array(rest.translation).as_dvec3(),
        );
        world = local * world;
        at = rest.parent;
    }
    world
}

/// `m` in f32, exactly the identity when within 1e-9 of it (the shader then skips the
/// multiply for every bone).
pub(super) fn snap_identity(m: DMat4) -> Mat4 {
    if m.abs_diff_eq(DMat4::IDENTITY, 1e-9) {
        Mat4::IDENTITY
    } else {
        m.as_mat4()
    }
}
