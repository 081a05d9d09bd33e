//! The four steps of a pose, as functions over a [`PoseScratch`]: rest reset, channel
//! evaluation, local → world, bone matrices. The controller, the blender and the bone-control
//! bake all run these same steps.

use glam::{Mat4, Quat, Vec3};
use skel_math::{RH_TO_LH, load_mat4, store_mat4};

use crate::{
    AnimError, AnimationData, ChannelPath, Handedness, PoseSink, R_OFF, S_OFF, SamplerCursor,
    T_OFF, TRS_STRIDE, evaluate_sampler_cursor,
};

/// Marks "no morph binding" in the per-node and per-binding morph lists.
const NO_BINDING: u32 = u32::MAX;

/// Every buffer one pose evaluation needs, sized once for one asset. Nothing here grows later.
///
/// A scratch belongs to the [`AnimationData`] it was built from: the step functions index it by
/// that data's nodes, clips and bindings, and panic when handed a scratch built for another
/// asset.
#[derive(Debug, Clone)]
pub struct PoseScratch {
    /// TRS per node, [`TRS_STRIDE`] floats each.
    pub trs: Vec<f32>,
    /// World matrix per node, 16 floats each.
    pub world: Vec<f32>,
    /// Bone matrices per skeleton binding, 16 floats per bone.
    pub bones: Vec<Vec<f32>>,
    /// Morph weights per morph binding.
    pub morph_weights: Vec<Vec<f32>>,
    /// Parents-before-children order of the nodes.
    topo: Vec<usize>,
    /// First morph binding of each node (`NO_BINDING` when none).
    morph_of_node: Vec<u32>,
    /// The next morph binding on the same node (`NO_BINDING` after the last): a node may carry
    /// several bindings, and a weights channel drives them all.
    morph_next: Vec<u32>,
    /// One cursor per sampler of every clip, flattened (`cursor_base[clip] + sampler`).
    cursors: Vec<SamplerCursor>,
    cursor_base: Vec<usize>,
}

impl PoseScratch {
    /// Validates `data` and allocates every buffer its pose needs.
    ///
    /// # Errors
    /// What [`AnimationData::validate`] finds.
    pub fn new(data: &AnimationData) -> Result<Self, AnimError> {
        data.validate()?;
        let n = data.nodes.len();
        let topo = crate::compute_topo_order(&data.nodes)?;
        let mut morph_of_node = vec![NO_BINDING; n];
        let mut morph_next = vec![NO_BINDING; data.morph_bindings.len()];
        // Walk backwards so that each node's list comes out in binding order.
        for (i, mb) in data.morph_bindings.iter().enumerate().rev() {
            // More than u32::MAX - 1 bindings cannot fit in memory next to their weights.
            let index = u32::try_from(i).unwrap_or(NO_BINDING);
            morph_next[i] = morph_of_node[mb.node];
            morph_of_node[mb.node] = index;
        }
        let mut cursor_base = Vec::with_capacity(data.clips.len());
        let mut total = 0;
        for clip in &data.clips {
            cursor_base.push(total);
            total += clip.samplers.len();
        }
        let mut scratch = Self {
            trs: vec![0.0; n * TRS_STRIDE],
            world: vec![0.0; n * 16],
            bones: data
                .skeletons
                .iter()
                .map(|s| vec![0.0; s.joints.len() * 16])
                .collect(),
            morph_weights: data
                .morph_bindings
                .iter()
                .map(|m| m.default_weights.clone())
                .collect(),
            topo,
            morph_of_node,
            morph_next,
            cursors: vec![SamplerCursor::default(); total],
            cursor_base,
        };
        reset_to_rest(data, &mut scratch);
        Ok(scratch)
    }

    /// Nodes in parents-before-children order.
    #[must_use]
    pub fn topo_order(&self) -> &[usize] {
        &self.topo
    }
}

/// Step 1: copies every node's rest TRS into the scratch and morph weights back to their
/// defaults.
#[inline]
pub fn reset_to_rest(data: &AnimationData, scratch: &mut PoseScratch) {
    for (rest, rec) in data
        .nodes
        .iter()
        .zip(scratch.trs.chunks_exact_mut(TRS_STRIDE))
    {
        rec[T_OFF..T_OFF + 3].copy_from_slice(&rest.translation);
        rec[R_OFF..R_OFF + 4].copy_from_slice(&rest.rotation);
        rec[S_OFF..S_OFF + 3].copy_from_slice(&rest.scale);
    }
    for (mb, w) in data.morph_bindings.iter().zip(&mut scratch.morph_weights) {
        w.copy_from_slice(&mb.default_weights);
    }
}

/// Step 2: evaluates every channel of clip `clip` at `time` seconds into the scratch.
///
/// # Panics
/// When `clip` is out of range (callers check it when the clip is chosen).
#[inline]
pub fn apply_clip(data: &AnimationData, clip: usize, time: f32, scratch: &mut PoseScratch) {
    let clip_data = &data.clips[clip];
    let base = scratch.cursor_base[clip];
    for ch in &clip_data.channels {
        let sampler = &clip_data.samplers[ch.sampler];
        let cursor = &mut scratch.cursors[base + ch.sampler];
        let rec = ch.node * TRS_STRIDE;
        match ch.path {
            ChannelPath::Translation => {
                evaluate_sampler_cursor(
                    sampler,
                    time,
                    3,
                    false,
                    &mut scratch.trs,
                    rec + T_OFF,
                    cursor,
                );
            }
            ChannelPath::Rotation => {
                evaluate_sampler_cursor(
                    sampler,
                    time,
                    4,
                    true,
                    &mut scratch.trs,
                    rec + R_OFF,
                    cursor,
                );
            }
            ChannelPath::Scale => {
                evaluate_sampler_cursor(
                    sampler,
                    time,
                    3,
                    false,
                    &mut scratch.trs,
                    rec + S_OFF,
                    cursor,
                );
            }
            ChannelPath::Weights => {
                let mut mb = scratch.morph_of_node[ch.node];
                while let Some(weights) = scratch.morph_weights.get_mut(mb as usize) {
                    let n = weights.len().min(sampler.components());
                    evaluate_sampler_cursor(sampler, time, n, false, weights, 0, cursor);
                    mb = scratch.morph_next[mb as usize];
                }
            }
        }
    }
}

/// Step 3: composes each node's local matrix from its TRS and multiplies it onto its parent's
/// world matrix, parents first. Roots get [`RH_TO_LH`] pre-multiplied in left-handed mode.
#[inline]
pub fn compute_world_matrices(data: &AnimationData, scratch: &mut PoseScratch) {
    let root = match data.handedness {
        Handedness::LeftHanded => load_mat4(&RH_TO_LH, 0),
        Handedness::RightHanded => Mat4::IDENTITY,
    };
    for &node in &scratch.topo {
        let rec = &scratch.trs[node * TRS_STRIDE..node * TRS_STRIDE + TRS_STRIDE];
        let local = Mat4::from_scale_rotation_translation(
            Vec3::new(rec[S_OFF], rec[S_OFF + 1], rec[S_OFF + 2]),
            Quat::from_xyzw(rec[R_OFF], rec[R_OFF + 1], rec[R_OFF + 2], rec[R_OFF + 3]),
            Vec3::new(rec[T_OFF], rec[T_OFF + 1], rec[T_OFF + 2]),
        );
        let parent = match data.nodes[node].parent {
            Some(p) => load_mat4(&scratch.world, p * 16),
            None => root,
        };
        store_mat4(&mut scratch.world, node * 16, &(parent * local));
    }
}

/// Step 4: `bone[i] = invMeshWorld · world[joint[i]] · inverseBind[i]` for every skeleton
/// binding, handed to `sink` together with every morph binding's weights.
///
/// A mesh node whose world matrix is singular (scaled to zero) uses the identity as its inverse.
#[inline]
pub fn compute_bone_matrices(
    data: &AnimationData,
    scratch: &mut PoseScratch,
    sink: &mut dyn PoseSink,
) {
    for (bi, binding) in data.skeletons.iter().enumerate() {
        let mesh_world = load_mat4(&scratch.world, binding.mesh_node * 16);
        let det = mesh_world.determinant();
        let inv_mesh = if det != 0.0 && det.is_finite() {
            mesh_world.inverse()
        } else {
            Mat4::IDENTITY
        };
        let bones = &mut scratch.bones[bi];
        for (i, &joint) in binding.joints.iter().enumerate() {
            let m = inv_mesh
                * load_mat4(&scratch.world, joint * 16)
                * load_mat4(&binding.inverse_bind_matrices, i * 16);
            store_mat4(bones, i * 16, &m);
        }
        sink.bone_matrices(bi, bones);
    }
    for (mi, weights) in scratch.morph_weights.iter().enumerate() {
        sink.morph_weights(mi, weights);
    }
}
