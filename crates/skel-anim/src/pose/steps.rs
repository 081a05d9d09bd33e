//! The four steps of a pose, as functions over a [`PoseScratch`]: rest reset, channel
//! evaluation, local → world, bone matrices. The controller, the blender and the bone-control
//! bake all run these same steps.

use std::sync::Arc;

use glam::{Mat4, Vec4};

use crate::math::interpolate::{self, Cols};
use crate::pose::four_node::QuadOffset;
use crate::rig::layout::{Transform, hierarchy_pass, mirror, place_step};
use crate::rig::plan::PosePlan;
use crate::sample::cursor::{Segment, TimeCursor};
use crate::sample::key_cache::KeyCache;
use crate::{
    AnimError, AnimationData, ChannelPath, SamplerCursor, TRS_STRIDE, evaluate_sampler_cursor,
};

/// Every buffer one pose evaluation needs, sized once for one asset. Nothing here grows later.
///
/// A scratch belongs to the [`AnimationData`] it was built from: the step functions index it by
/// that data's nodes, clips and bindings, and panic when handed a scratch built for another
/// asset.
#[derive(Debug, Clone)]
pub struct PoseScratch {
    /// TRS per node, [`TRS_STRIDE`] floats each. Plain single-clip playback writes it only for
    /// sinks that read it ([`PoseSink::wants_local_transforms`](crate::PoseSink::wants_local_transforms)); hooks, layers, IK always.
    pub trs: Vec<f32>,
    /// World matrix per node, as [`compute_world_matrices`] writes them. A
    /// controller poses in its own frame (see `PoseScratch::frame_world`) and fills this only
    /// when asked ([`AnimationController::world_matrices`](crate::AnimationController::world_matrices)).
    pub world: Vec<Mat4>,
    /// Bone matrices per skeleton binding, one per joint.
    pub bones: Vec<Vec<Mat4>>,
    /// Morph weights per morph binding.
    pub morph_weights: Vec<Vec<f32>>,
    /// What never changes between frames (shared by clones of this scratch).
    pub(crate) plan: Arc<PosePlan>,
    /// The controller's pose: every node's world matrix relative to the plan's frame
    /// ([`Frame`](crate::rig::plan::Frame): the first skinned mesh's rest world).
    /// Bone matrices come out the same in any frame, with one product less per bone in this one.
    pub(crate) frame_world: Vec<f32>,
    /// Whether `world` is older than `frame_world`.
    pub(crate) world_stale: bool,
    /// One cursor per sampler of every clip, flattened (`cursor_base[clip] + sampler`), for
    /// the channels evaluated one by one (CUBICSPLINE, weights).
    cursors: Vec<SamplerCursor>,
    cursor_base: Vec<usize>,
    /// One cursor per distinct key-time array of every clip (`ClipPlan::cursor_base`).
    time_cursors: Vec<TimeCursor>,
    /// This frame's key interval of each timeline of the clip being applied.
    segments: Vec<Segment>,
    /// This frame's value of each translation/scale track (`xyz`), then of each rotation
    /// track, then (fused pass) the clip's rest values for untracked properties.
    samples: Vec<Vec4>,
    /// Per skeleton binding: the mesh world matrix of the last frame and its inverse (a mesh
    /// node that does not move, the usual case, is inverted once).
    pub(crate) mesh_inverses: Vec<(Cols, MeshInverse)>,
    /// The compressed keys of the clip last played, decoded once per key interval
    /// (`sample/key_cache.rs`); no room where the plan has no compressed clip.
    key_cache: KeyCache,
}

impl PoseScratch {
    /// Validates `data` and allocates every buffer its pose needs.
    ///
    /// # Errors
    /// What [`AnimationData::validate`] finds, and [`AnimError::LengthMismatch`] for an asset
    /// with more than 4 294 967 294 nodes, samplers or keys in one sampler.
    pub fn new(data: &AnimationData) -> Result<Self, AnimError> {
        Ok(Self::with_plan(data, Arc::new(PosePlan::new(data)?)))
    }

    /// A scratch for `rig`'s asset, sharing its compiled plan (no validation or planning
    /// again).
    #[must_use]
    pub fn for_rig(rig: &crate::Rig) -> Self {
        Self::with_plan(rig.data(), Arc::clone(&rig.plan))
    }

    /// A scratch for `data` using `plan`, which must have been made for `data` (and so
    /// validated it).
    pub(crate) fn with_plan(data: &AnimationData, plan: Arc<PosePlan>) -> Self {
        let n = data.nodes.len();
        let mut cursor_base = Vec::with_capacity(data.clips.len());
        let mut total = 0;
        for clip in &data.clips {
            cursor_base.push(total);
            total += clip.samplers.len();
        }
        let mut scratch = Self {
            trs: vec![0.0; n * TRS_STRIDE],
            world: vec![Mat4::ZERO; n],
            frame_world: vec![0.0; n * 16],
            world_stale: false,
            bones: data
                .skeletons
                .iter()
                .map(|s| vec![Mat4::ZERO; s.joints.len()])
                .collect(),
            morph_weights: data
                .morph_bindings
                .iter()
                .map(|m| m.default_weights.clone())
                .collect(),
            cursors: vec![SamplerCursor::default(); total],
            cursor_base,
            time_cursors: vec![TimeCursor::default(); plan.timeline_total],
            segments: vec![Segment::default(); plan.max_timelines],
            samples: vec![Vec4::ZERO; plan.max_samples],
            // NaN never equals a world matrix: the first frame inverts.
            mesh_inverses: vec![([Vec4::NAN; 4], MeshInverse::Identity); data.skeletons.len()],
            key_cache: KeyCache::with_capacity(plan.packed_quads()),
            plan,
        };
        reset_to_rest(data, &mut scratch);
        scratch
    }

    /// Nodes in parents-before-children order.
    #[must_use]
    pub fn topo_order(&self) -> &[usize] {
        &self.plan.topo
    }
}

/// Step 1: copies every node's rest TRS into the scratch and morph weights back to their
/// defaults.
#[inline]
pub fn reset_to_rest(data: &AnimationData, scratch: &mut PoseScratch) {
    scratch.trs.copy_from_slice(&scratch.plan.rest_trs);
    for (mb, w) in data.morph_bindings.iter().zip(&mut scratch.morph_weights) {
        w.copy_from_slice(&mb.default_weights);
    }
}

/// Step 2: evaluates every channel of clip `clip` at `time` seconds into the scratch.
///
/// Channels that share key times share one key search (a cursor per key-time array, which
/// forward playback moves in O(1)); LINEAR rotations use a polynomial slerp within 2e-7 of
/// the exact weights (see `interpolate::slerp_weights`). When two channels animate one
/// property, the later one wins.
///
/// # Panics
/// When `clip` is out of range (callers check it when the clip is chosen).
#[inline]
pub fn apply_clip(data: &AnimationData, clip: usize, time: f32, scratch: &mut PoseScratch) {
    sample_clip(data, clip, time, scratch);
    let PoseScratch {
        trs, plan, samples, ..
    } = scratch;
    let cp = &plan.clips[clip];
    let (vec3_samples, quat_samples) = samples.split_at(cp.vec3.len());
    for (tr, v) in cp.vec3.iter().zip(vec3_samples.iter()) {
        let d = tr.dst as usize;
        trs[d..d + 3].copy_from_slice(&v.to_array()[..3]);
    }
    for (tr, q) in cp.quat.iter().zip(quat_samples.iter()) {
        let d = tr.dst as usize;
        q.write_to_slice(&mut trs[d..d + 4]);
    }
}

/// Evaluates clip `clip` at `time`: translation/scale tracks into `vec3_samples`, rotation
/// tracks into `quat_samples` (both in the clip plan's track order), the generic channels
/// (CUBICSPLINE transforms into `trs`, weights into `morph_weights`) in channel order.
#[inline]
pub(crate) fn sample_clip(data: &AnimationData, clip: usize, time: f32, scratch: &mut PoseScratch) {
    let clip_data = &data.clips[clip];
    let PoseScratch {
        plan,
        time_cursors,
        segments,
        samples,
        ..
    } = scratch;
    let cp = &plan.clips[clip];
    let timelines = cp.timelines.len();
    let (vec3_samples, quat_samples) = samples.split_at_mut(cp.vec3.len());
    crate::pose::tracks::sample_tracks(
        clip_data,
        cp,
        time,
        &mut time_cursors[cp.cursor_base..cp.cursor_base + timelines],
        segments,
        vec3_samples,
        quat_samples,
    );
    sample_generic(data, clip, time, scratch);
}

/// Evaluates the channels of clip `clip` that have no track (CUBICSPLINE transforms into
/// `trs`, weights into `morph_weights`) at `time`, in channel order.
#[inline]
fn sample_generic(data: &AnimationData, clip: usize, time: f32, scratch: &mut PoseScratch) {
    let clip_data = &data.clips[clip];
    let PoseScratch {
        trs,
        morph_weights,
        plan,
        cursors,
        cursor_base,
        ..
    } = scratch;
    let cp = &plan.clips[clip];
    let base = cursor_base[clip];
    for &ci in &cp.generic {
        let ch = &clip_data.channels[ci as usize];
        let sampler = &clip_data.samplers[ch.sampler];
        let cursor = &mut cursors[base + ch.sampler];
        let rec = ch.node * TRS_STRIDE;
        match ch.path {
            ChannelPath::Translation => {
                evaluate_sampler_cursor(sampler, time, 3, false, trs, rec + crate::T_OFF, cursor);
            }
            ChannelPath::Rotation => {
                evaluate_sampler_cursor(sampler, time, 4, true, trs, rec + crate::R_OFF, cursor);
            }
            ChannelPath::Scale => {
                evaluate_sampler_cursor(sampler, time, 3, false, trs, rec + crate::S_OFF, cursor);
            }
            ChannelPath::Weights => {
                let mut mb = plan.morph_of_node[ch.node];
                while let Some(weights) = morph_weights.get_mut(mb as usize) {
                    let n = weights.len().min(sampler.components());
                    evaluate_sampler_cursor(sampler, time, n, false, weights, 0, cursor);
                    mb = plan.morph_next[mb as usize];
                }
            }
        }
    }
}

/// Steps 1–3 in one pass for a clip without hooks: morph weights reset, the clip sampled into
/// its track buffers, then for each node (parents first) its transform taken from its tracks or
/// its rest pose, written to `trs`, composed and multiplied onto its parent's world matrix.
/// Same values as `reset_to_rest` + `apply_clip` + `compute_world_matrices`, without the round
/// trip through `trs` and without the rest copy. Returns `false` (having done nothing) for a
/// clip whose transforms need the generic path (CUBICSPLINE).
/// With `record` false `trs` is left as it was ([`PoseSink::wants_local_transforms`](crate::PoseSink::wants_local_transforms)).
/// `offset`, a running inertialization laid out over the clip's quads, is added to each quad
/// before it is composed (a clip without quads then takes the generic path).
#[inline(always)]
pub(crate) fn pose_clip_fused<O: QuadOffset>(
    data: &AnimationData,
    clip: usize,
    time: f32,
    scratch: &mut PoseScratch,
    record: bool,
    placer: impl crate::pose::four_node::Place,
    offset: O,
) -> bool {
    if scratch.plan.clips[clip].nodes.is_empty() && !data.nodes.is_empty() {
        return false;
    }
    if O::ADDS && scratch.plan.clips[clip].quads.is_none() {
        // Only the four-node pass has a place for the offset.
        return false;
    }
    for (mb, w) in data.morph_bindings.iter().zip(&mut scratch.morph_weights) {
        w.copy_from_slice(&mb.default_weights);
    }
    scratch.world_stale = true;
    if scratch.plan.clips[clip].quads.is_some() {
        // Keys regrouped four nodes at a time: no sample buffer in between.
        sample_generic(data, clip, time, scratch);
        let PoseScratch {
            trs,
            frame_world: world,
            plan,
            time_cursors,
            segments,
            key_cache,
            ..
        } = scratch;
        let cp = &plan.clips[clip];
        let timelines = cp.timelines.len();
        crate::pose::tracks::locate_segments(
            &data.clips[clip],
            cp,
            time,
            &mut time_cursors[cp.cursor_base..cp.cursor_base + timelines],
            segments,
        );
        if let Some(quads) = &cp.quads {
            let (segments, root) = (&segments[..timelines], &plan.frame.root);
            if quads.packed.is_some() {
                key_cache.prepare(clip, quads.quads.len());
            }
            if record {
                quads.pose_into_cached::<true, _, _>(
                    segments, trs, world, root, placer, key_cache, offset,
                );
            } else {
                let trs = &mut [];
                quads.pose_into_cached::<false, _, _>(
                    segments, trs, world, root, placer, key_cache, offset,
                );
            }
        }
        return true;
    }
    sample_clip(data, clip, time, scratch);
    let PoseScratch {
        trs,
        frame_world: world,
        plan,
        samples,
        ..
    } = scratch;
    let root = &plan.frame.root;
    let cp = &plan.clips[clip];
    let tracks = cp.vec3.len() + cp.quat.len();
    samples[tracks..tracks + cp.fused_rest.len()].copy_from_slice(&cp.fused_rest);
    let samples = &*samples;
    let nodes = &cp.nodes;
    // Local matrices four nodes at a time (the rotation part lane by lane), the rest one by
    // one; each node's transform is also written to `trs`.
    let mut quads = nodes.chunks_exact(4);
    for quad in &mut quads {
        let mut t = [Vec4::ZERO; 4];
        let mut r = [Vec4::ZERO; 4];
        let mut s = [Vec4::ZERO; 4];
        for (lane, src) in quad.iter().enumerate() {
            t[lane] = samples[src.t as usize];
            r[lane] = samples[src.r as usize];
            s[lane] = samples[src.s as usize];
            if record {
                write_trs(trs, src.node as usize, t[lane], r[lane], s[lane]);
            }
        }
        let locals = interpolate::compose4(&t, &r, &s);
        // Parents come first in the plan's order, also within a quad.
        for (src, local) in quad.iter().zip(&locals) {
            place_step(world, src.node, src.parent, local, root);
        }
    }
    for src in quads.remainder() {
        let (t, r, s) = (
            samples[src.t as usize],
            samples[src.r as usize],
            samples[src.s as usize],
        );
        if record {
            write_trs(trs, src.node as usize, t, r, s);
        }
        place_step(
            world,
            src.node,
            src.parent,
            &interpolate::compose(t, r, s),
            root,
        );
    }
    true
}

/// Step 3: composes each node's local matrix from its TRS and multiplies it onto its parent's
/// world matrix, parents first. Roots get [`RH_TO_LH`](skel_math::RH_TO_LH) pre-multiplied in
/// left-handed mode. Node matrices are affine, so the products skip the last row.
#[inline]
pub fn compute_world_matrices(data: &AnimationData, scratch: &mut PoseScratch) {
    let root = Transform::Diagonal(mirror(data.handedness));
    let PoseScratch {
        trs, world, plan, ..
    } = scratch;
    hierarchy_pass(trs, &plan.steps, interpolate::floats_mut(world), &root);
}

/// [`compute_world_matrices`] into the controller's frame (`frame_world`): roots get the
/// plan's frame transform instead of the mirror alone.
#[inline]
pub(crate) fn compute_frame_matrices(scratch: &mut PoseScratch) {
    let PoseScratch {
        trs,
        frame_world,
        plan,
        world_stale,
        ..
    } = scratch;
    hierarchy_pass(trs, &plan.steps, frame_world, &plan.frame.root);
    *world_stale = true;
}

/// Fills `scratch.world` from the controller's frame matrices when they are newer.
pub(crate) fn resolve_world(scratch: &mut PoseScratch) {
    if !scratch.world_stale {
        return;
    }
    let PoseScratch {
        world,
        frame_world,
        plan,
        world_stale,
        ..
    } = scratch;
    match &plan.frame.to_world {
        None => interpolate::floats_mut(world).copy_from_slice(frame_world),
        Some(to_world) => {
            let pairs = interpolate::matrices_mut(interpolate::floats_mut(world))
                .iter_mut()
                .zip(interpolate::matrices(frame_world));
            for (out, m) in pairs {
                interpolate::store(out, &to_world.apply(&interpolate::load(m)));
            }
        }
    }
    *world_stale = false;
}

/// Writes one node's transform to its TRS record (padding untouched).
#[inline]
fn write_trs(trs: &mut [f32], node: usize, t: Vec4, r: Vec4, s: Vec4) {
    let rec = &mut crate::rig::layout::records_mut(trs)[node];
    rec[0..3].copy_from_slice(&t.to_array()[..3]);
    r.write_to_slice(&mut rec[3..7]);
    rec[7..10].copy_from_slice(&s.to_array()[..3]);
}

/// How far (per element) from the identity a mesh node's matrix may be and still count as it:
/// a few rounding steps of f32 products of unit-scale matrices.
const NEAR_IDENTITY: f32 = 1e-6;

/// The inverse of a mesh node's world matrix, by how cheaply it applies.
#[derive(Debug, Clone, Copy)]
pub(crate) enum MeshInverse {
    Identity,
    /// `diag(d)`: a mirror and/or scale, applied row by row.
    Diagonal(Vec4),
    General(Cols),
}

impl MeshInverse {
    pub(crate) fn of(m: &Cols) -> Self {
        let diag = Vec4::new(m[0].x, m[1].y, m[2].z, m[3].w);
        let off_diagonal_zero = (0..4).all(|c| (0..4).all(|r| r == c || m[c][r] == 0.0));
        if off_diagonal_zero && diag == Vec4::ONE {
            return Self::Identity;
        }
        // A mesh at its rest place in the controller's frame is the identity up to the rounding
        // of the products that got it there: multiplying by the inverse of that rounding would
        // add error, not remove it.
        let identity = [Vec4::X, Vec4::Y, Vec4::Z, Vec4::W];
        let near = m
            .iter()
            .zip(&identity)
            .all(|(c, i)| (*c - *i).abs().max_element() <= NEAR_IDENTITY);
        if near {
            return Self::Identity;
        }
        if off_diagonal_zero && diag.w == 1.0 && diag.cmpne(Vec4::ZERO).all() && diag.is_finite() {
            return Self::Diagonal(diag.recip());
        }
        let mat = Mat4::from_cols(m[0], m[1], m[2], m[3]);
        let det = mat.determinant();
        if det != 0.0 && det.is_finite() {
            let inv = mat.inverse();
            Self::General([inv.x_axis, inv.y_axis, inv.z_axis, inv.w_axis])
        } else {
            Self::Identity
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec4;

    use super::MeshInverse;

    #[test]
    fn only_rounding_away_from_the_identity_counts_as_it() {
        let identity = [Vec4::X, Vec4::Y, Vec4::Z, Vec4::W];
        assert!(matches!(MeshInverse::of(&identity), MeshInverse::Identity));
        let mut rounded = identity;
        rounded[0].x = 1.0 + 4.0 * f32::EPSILON;
        rounded[3].y = -3e-7;
        assert!(matches!(MeshInverse::of(&rounded), MeshInverse::Identity));
        let mut moved = identity;
        moved[3].y = 1e-4;
        assert!(matches!(MeshInverse::of(&moved), MeshInverse::General(_)));
        let mut scaled = identity;
        scaled[1].y = 1.001;
        assert!(matches!(MeshInverse::of(&scaled), MeshInverse::Diagonal(_)));
    }
}
