//! The four steps of a pose, as functions over a [`PoseScratch`]: rest reset, channel
//! evaluation, local → world, bone matrices. The controller, the blender and the bone-control
//! bake all run these same steps.

use std::sync::Arc;

use glam::{Mat4, Vec4};

use crate::interpolate::{self, Cols};
use crate::plan::{NONE, PosePlan};
use crate::timeline::{Segment, TimeCursor};
use crate::{
    AnimError, AnimationData, ChannelPath, Handedness, PoseSink, SamplerCursor, TRS_STRIDE,
    evaluate_sampler_cursor,
};

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
    /// What never changes between frames (shared by clones of this scratch).
    pub(crate) plan: Arc<PosePlan>,
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
    mesh_inverses: Vec<(Cols, MeshInverse)>,
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
            cursors: vec![SamplerCursor::default(); total],
            cursor_base,
            time_cursors: vec![TimeCursor::default(); plan.timeline_total],
            segments: vec![Segment::default(); plan.max_timelines],
            samples: vec![Vec4::ZERO; plan.max_samples],
            // NaN never equals a world matrix: the first frame inverts.
            mesh_inverses: vec![([Vec4::NAN; 4], MeshInverse::Identity); data.skeletons.len()],
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

    /// Duration of clip `clip` of the scratch's asset (0 for an index past the end), without
    /// walking its samplers.
    #[must_use]
    pub(crate) fn clip_duration(&self, clip: usize) -> f32 {
        self.plan.clips.get(clip).map_or(0.0, |c| c.duration)
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
    crate::tracks::sample_tracks(
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
pub(crate) fn pose_clip_fused(
    data: &AnimationData,
    clip: usize,
    time: f32,
    scratch: &mut PoseScratch,
) -> bool {
    if scratch.plan.clips[clip].nodes.is_empty() && !data.nodes.is_empty() {
        return false;
    }
    for (mb, w) in data.morph_bindings.iter().zip(&mut scratch.morph_weights) {
        w.copy_from_slice(&mb.default_weights);
    }
    let mirror = match data.handedness {
        Handedness::LeftHanded => Vec4::new(-1.0, 1.0, 1.0, 1.0),
        Handedness::RightHanded => Vec4::ONE,
    };
    if scratch.plan.clips[clip].quads.is_some() {
        // Keys regrouped four nodes at a time: no sample buffer in between.
        sample_generic(data, clip, time, scratch);
        let PoseScratch {
            trs,
            world,
            plan,
            time_cursors,
            segments,
            ..
        } = scratch;
        let cp = &plan.clips[clip];
        let timelines = cp.timelines.len();
        crate::tracks::locate_segments(
            &data.clips[clip],
            cp,
            time,
            &mut time_cursors[cp.cursor_base..cp.cursor_base + timelines],
            segments,
        );
        if let Some(quads) = &cp.quads {
            quads.pose(&segments[..timelines], trs, world, mirror);
        }
        return true;
    }
    sample_clip(data, clip, time, scratch);
    let PoseScratch {
        trs,
        world,
        plan,
        samples,
        ..
    } = scratch;
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
            write_trs(trs, src.node as usize, t[lane], r[lane], s[lane]);
        }
        let locals = interpolate::compose4(&t, &r, &s);
        // Parents come first in the plan's order, also within a quad.
        for (src, local) in quad.iter().zip(&locals) {
            place(world, src, local, mirror);
        }
    }
    for src in quads.remainder() {
        let (t, r, s) = (
            samples[src.t as usize],
            samples[src.r as usize],
            samples[src.s as usize],
        );
        write_trs(trs, src.node as usize, t, r, s);
        place(world, src, &interpolate::compose(t, r, s), mirror);
    }
    true
}

/// Step 3: composes each node's local matrix from its TRS and multiplies it onto its parent's
/// world matrix, parents first. Roots get [`RH_TO_LH`](skel_math::RH_TO_LH) pre-multiplied in
/// left-handed mode. Node matrices are affine, so the products skip the last row.
#[inline]
pub fn compute_world_matrices(data: &AnimationData, scratch: &mut PoseScratch) {
    // diag(-1, 1, 1, 1) · m negates the x row of every column.
    let mirror = match data.handedness {
        Handedness::LeftHanded => Vec4::new(-1.0, 1.0, 1.0, 1.0),
        Handedness::RightHanded => Vec4::ONE,
    };
    let PoseScratch {
        trs, world, plan, ..
    } = scratch;
    // Lane by lane: the translation and scale were written as three floats each.
    let read = |node: usize| {
        let rec = &trs[node * TRS_STRIDE..node * TRS_STRIDE + TRS_STRIDE];
        (
            Vec4::new(rec[0], rec[1], rec[2], 0.0),
            Vec4::from_slice(&rec[3..7]),
            Vec4::new(rec[7], rec[8], rec[9], 0.0),
        )
    };
    // Four nodes composed at a time, then multiplied onto their parents in order (parents
    // come first, also within a quad).
    let mut quads = plan.steps.chunks_exact(4);
    for quad in &mut quads {
        let mut t = [Vec4::ZERO; 4];
        let mut r = [Vec4::ZERO; 4];
        let mut s = [Vec4::ZERO; 4];
        for (lane, step) in quad.iter().enumerate() {
            (t[lane], r[lane], s[lane]) = read(step.node as usize);
        }
        for (step, local) in quad.iter().zip(&interpolate::compose4(&t, &r, &s)) {
            place_step(world, step.node, step.parent, local, mirror);
        }
    }
    for step in quads.remainder() {
        let (t, r, s) = read(step.node as usize);
        place_step(
            world,
            step.node,
            step.parent,
            &interpolate::compose(t, r, s),
            mirror,
        );
    }
}

/// `world[node] = world[parent] · local` (the handedness mirror · local for a root,
/// `parent == NONE`).
#[inline]
pub(crate) fn place_step(world: &mut [f32], node: u32, parent: u32, local: &Cols, mirror: Vec4) {
    let m = if parent == NONE {
        local.map(|c| c * mirror)
    } else {
        interpolate::mul_affine(&interpolate::load(world, parent as usize * 16), local)
    };
    interpolate::store(world, node as usize * 16, &m);
}

/// [`place_step`] for a node of a clip's fused pass.
#[inline]
fn place(world: &mut [f32], src: &crate::plan::NodeSources, local: &Cols, mirror: Vec4) {
    place_step(world, src.node, src.parent, local, mirror);
}

/// Writes one node's transform to its TRS record (padding untouched).
#[inline]
fn write_trs(trs: &mut [f32], node: usize, t: Vec4, r: Vec4, s: Vec4) {
    let rec = &mut trs[node * TRS_STRIDE..node * TRS_STRIDE + TRS_STRIDE];
    rec[0..3].copy_from_slice(&t.to_array()[..3]);
    r.write_to_slice(&mut rec[3..7]);
    rec[7..10].copy_from_slice(&s.to_array()[..3]);
}

/// Step 4: `bone[i] = invMeshWorld · world[joint[i]] · inverseBind[i]` for every skeleton
/// binding, handed to `sink` together with every morph binding's weights.
///
/// A mesh node whose world matrix is singular (scaled to zero) uses the identity as its inverse.
/// An identity inverse is skipped and a diagonal one (a mirror or a scale) costs a column scale;
/// affine inverse-bind matrices (all but exotic files) use affine products.
#[inline]
pub fn compute_bone_matrices(
    data: &AnimationData,
    scratch: &mut PoseScratch,
    sink: &mut dyn PoseSink,
) {
    let PoseScratch {
        world,
        bones,
        plan,
        morph_weights,
        mesh_inverses,
        ..
    } = scratch;
    for (bi, (((binding, bones), bp), cached)) in data
        .skeletons
        .iter()
        .zip(bones.iter_mut())
        .zip(&plan.bindings)
        .zip(mesh_inverses.iter_mut())
        .enumerate()
    {
        let mesh_world = interpolate::load(world, binding.mesh_node * 16);
        if cached.0 != mesh_world {
            *cached = (mesh_world, MeshInverse::of(&mesh_world));
        }
        let inv = &cached.1;
        for ((&joint, ibm), out) in binding
            .joints
            .iter()
            .zip(binding.inverse_bind_matrices.chunks_exact(16))
            .zip(bones.chunks_exact_mut(16))
        {
            let w = interpolate::load(world, joint * 16);
            let ibm = interpolate::load(ibm, 0);
            let m = if bp.ibm_affine {
                interpolate::mul_affine(&w, &ibm)
            } else {
                interpolate::mul_full(&w, &ibm)
            };
            let m = match inv {
                MeshInverse::Identity => m,
                MeshInverse::Diagonal(d) => m.map(|c| c * *d),
                MeshInverse::General(inv) if bp.ibm_affine => interpolate::mul_affine(inv, &m),
                MeshInverse::General(inv) => interpolate::mul_full(inv, &m),
            };
            interpolate::store(out, 0, &m);
        }
        sink.bone_matrices(bi, bones);
    }
    for (mi, weights) in morph_weights.iter().enumerate() {
        sink.morph_weights(mi, weights);
    }
}

/// The inverse of a mesh node's world matrix, by how cheaply it applies.
#[derive(Debug, Clone, Copy)]
enum MeshInverse {
    Identity,
    /// `diag(d)`: a mirror and/or scale, applied row by row.
    Diagonal(Vec4),
    General(Cols),
}

impl MeshInverse {
    fn of(m: &Cols) -> Self {
        let diag = Vec4::new(m[0].x, m[1].y, m[2].z, m[3].w);
        let off_diagonal_zero = (0..4).all(|c| (0..4).all(|r| r == c || m[c][r] == 0.0));
        if off_diagonal_zero && diag == Vec4::ONE {
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
