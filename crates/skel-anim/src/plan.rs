//! The evaluation plan of one asset, built once by [`Rig::new`](crate::Rig::new) (or a
//! [`PoseScratch`](crate::PoseScratch) made on its own) and shared behind an `Arc` by every
//! player of that rig: flat rest pose, parent links in
//! topological order, and per clip the channels sorted into tracks that the hot loop walks
//! without matching on paths, searching keys per channel or resolving "last channel wins" again.

use crate::layout::{NONE, NodeSources, NodeStep, Track, Transform};
use crate::quad_plan::QuadPlan;
use crate::timeline::Timelines;
use crate::{
    AnimError, AnimationData, ChannelPath, Interpolation, R_OFF, S_OFF, T_OFF, TRS_STRIDE,
    interpolate,
};

/// The keys of every track keyed on one timeline, copied once per asset and interleaved the
/// way a frame reads them: key `k` holds the values of the block's translation/scale tracks
/// (`xyz`, `w` zero), then of its rotation tracks, one `Vec4` each. A frame then reads two
/// contiguous runs (keys `a` and `b`) instead of chasing every track's own arrays. Lossless: the
/// values are the sampler's, bit for bit.
#[derive(Debug, Clone)]
pub(crate) struct KeyBlock {
    pub(crate) timeline: u32,
    /// The block's tracks in the clip's `vec3` and `quat` lists (tracks are sorted by
    /// timeline, so these are ranges).
    pub(crate) vec3: std::ops::Range<usize>,
    pub(crate) quat: std::ops::Range<usize>,
    /// `keys × (vec3.len() + quat.len())` values.
    pub(crate) keys: Vec<glam::Vec4>,
    /// Whether any of the block's tracks is STEP (then each track checks its flag).
    pub(crate) has_step: bool,
}

impl KeyBlock {
    /// Values per key.
    #[inline]
    pub(crate) fn width(&self) -> usize {
        self.vec3.len() + self.quat.len()
    }
}

/// One clip, sorted for evaluation.
#[derive(Debug, Clone)]
pub(crate) struct ClipPlan {
    /// [`Clip::duration`](crate::Clip::duration), computed once (it walks every sampler).
    pub(crate) duration: f32,
    pub(crate) timelines: Timelines,
    /// This clip's first [`TimeCursor`](crate::timeline::TimeCursor) in a scratch.
    pub(crate) cursor_base: usize,
    /// Translation and scale tracks (3 floats).
    pub(crate) vec3: Vec<Track>,
    /// Rotation tracks (4 floats, normalised, shortest-path slerp).
    pub(crate) quat: Vec<Track>,
    /// The tracks' keys, one block per timeline that has tracks.
    pub(crate) blocks: Vec<KeyBlock>,
    /// Channels evaluated by [`evaluate_sampler_cursor`](crate::evaluate_sampler_cursor) in
    /// channel order: CUBICSPLINE translation/rotation/scale and every weights channel.
    pub(crate) generic: Vec<u32>,
    /// Every node in topological order with its sources, for the fused pass; empty when a
    /// translation, rotation or scale channel of the clip needs the generic path (CUBICSPLINE).
    pub(crate) nodes: Vec<NodeSources>,
    /// Rest values the fused pass reads for properties without a track (copied after the
    /// track samples each frame, so that every node reads its sources the same way).
    pub(crate) fused_rest: Vec<glam::Vec4>,
    /// The clip's keys four nodes at a time, for the structure-of-arrays pass (`None`: the
    /// fused pass above, see [`QuadPlan::new`]).
    pub(crate) quads: Option<QuadPlan>,
    /// What compression did to the clip (`None`: lossless keys).
    pub(crate) compression: Option<crate::ClipCompression>,
}

/// What the bone pass needs to know about a skeleton binding beyond its data.
#[derive(Debug, Clone)]
pub(crate) struct BindingPlan {
    /// Every inverse-bind matrix has the last row `(0, 0, 0, 1)`: affine products suffice.
    pub(crate) ibm_affine: bool,
    /// Each inverse-bind matrix's 16 elements, each splat across a `Vec4` (column by column:
    /// `m[c][r]` at `4c + r`), so that the bone product `world · inverseBind` multiplies them
    /// from memory instead of broadcasting them in registers every frame (SSE2 has no
    /// broadcast load).
    pub(crate) ibm_splats: Vec<[glam::Vec4; 16]>,
    /// The same matrices laid out for the AVX2 + FMA bone kernel (two columns per 256-bit
    /// load, `wide::avx2::wide_splats`); empty unless the plan's kernels are `Avx2Fma`.
    pub(crate) ibm_wide: Vec<[[f32; 8]; 8]>,
}

/// The frame a controller poses in: world space moved so that the first skinned mesh sits at
/// the origin in its rest place, `frame = inverse(B) · world` with `B` that mesh node's rest
/// world matrix. Bone matrices `inverse(meshWorld) · jointWorld · inverseBind` are the same in
/// any frame, and in this one the mesh's matrix is the identity whenever the mesh is where it
/// was at rest, so a bone costs one product (`jointFrame · inverseBind`) instead of two. World
/// matrices are one product away (`B · frame`), computed when asked for.
#[derive(Debug, Clone)]
pub(crate) struct Frame {
    /// What roots are pre-multiplied by: `inverse(B) · RH_TO_LH` (or the mirror alone).
    pub(crate) root: Transform,
    /// `B`, or `None` when the frame is world space itself.
    pub(crate) to_world: Option<Transform>,
}

impl Frame {
    /// World space itself: roots get the handedness mirror.
    fn world(handedness: crate::Handedness) -> Self {
        Self {
            root: Transform::Diagonal(crate::layout::mirror(handedness)),
            to_world: None,
        }
    }

    /// The frame of the first skeleton binding's mesh node at rest (world space when there is
    /// no binding, or its rest matrix is the identity, not affine or not invertible).
    fn new(data: &AnimationData, rest_trs: &[f32], steps: &[NodeStep]) -> Self {
        let world_frame = Self::world(data.handedness);
        let Some(binding) = data.skeletons.first() else {
            return world_frame;
        };
        let mut rest_world = vec![0.0; data.nodes.len() * 16];
        crate::layout::hierarchy_pass(rest_trs, steps, &mut rest_world, &world_frame.root);
        let b = interpolate::load(&interpolate::matrices(&rest_world)[binding.mesh_node]);
        let identity = [glam::Vec4::X, glam::Vec4::Y, glam::Vec4::Z, glam::Vec4::W];
        if b == identity || !interpolate::is_affine(&b) || !b.iter().all(|c| c.is_finite()) {
            return world_frame;
        }
        let affine = glam::Affine3A::from_mat4(glam::Mat4::from_cols(b[0], b[1], b[2], b[3]));
        if affine.matrix3.determinant() == 0.0 {
            return world_frame;
        }
        let inv = glam::Mat4::from(affine.inverse());
        let mirror = crate::layout::mirror(data.handedness);
        let root = [
            inv.x_axis * mirror.x,
            inv.y_axis * mirror.y,
            inv.z_axis * mirror.z,
            inv.w_axis * mirror.w,
        ];
        if !root.iter().all(|c| c.is_finite()) {
            return world_frame;
        }
        Self {
            root: Transform::of(&root),
            to_world: Some(Transform::of(&b)),
        }
    }
}

/// Everything about an asset that the per-frame steps would otherwise recompute.
#[derive(Debug)]
pub(crate) struct PosePlan {
    /// Rest TRS of every node, [`TRS_STRIDE`] floats each (padding zero): the reset is one copy.
    pub(crate) rest_trs: Vec<f32>,
    /// The most vec3 and quat tracks of any clip.
    pub(crate) max_vec3: usize,
    pub(crate) max_quat: usize,
    /// The longest sample buffer of any clip: tracks plus fused rest values.
    pub(crate) max_samples: usize,
    /// Node indices in topological order.
    pub(crate) topo: Vec<usize>,
    /// The same order with parent links.
    pub(crate) steps: Vec<NodeStep>,
    pub(crate) clips: Vec<ClipPlan>,
    pub(crate) bindings: Vec<BindingPlan>,
    /// Time cursors over all clips.
    pub(crate) timeline_total: usize,
    /// The most timelines of any clip (the per-frame segment buffer).
    pub(crate) max_timelines: usize,
    /// First morph binding of each node ([`NONE`] when none).
    pub(crate) morph_of_node: Vec<u32>,
    /// The next morph binding on the same node ([`NONE`] after the last).
    pub(crate) morph_next: Vec<u32>,
    /// The frame controllers pose in.
    pub(crate) frame: Frame,
    /// Which compiled variant of the single-clip pass runs (found once, here: a CPU fact).
    pub(crate) kernels: crate::wide::Kernels,
}

fn to_u32(value: usize, what: &'static str) -> Result<u32, AnimError> {
    u32::try_from(value)
        .ok()
        .filter(|&v| v != NONE)
        .ok_or(AnimError::LengthMismatch {
            what,
            expected: NONE as usize - 1,
            got: value,
        })
}

impl PosePlan {
    /// The plan of `data`, after validating it.
    ///
    /// # Errors
    /// What [`AnimationData::validate`] finds; [`AnimError::LengthMismatch`] when a node,
    /// sampler, key or morph-binding count does not fit the plan's 32-bit indices (more than
    /// 4 294 967 294).
    pub(crate) fn new(data: &AnimationData) -> Result<Self, AnimError> {
        Self::with_kernels(data, crate::CpuKernels::Detect)
    }

    /// [`new`](Self::new) with the kernels `choice` asks for.
    ///
    /// # Errors
    /// As [`new`](Self::new).
    pub(crate) fn with_kernels(
        data: &AnimationData,
        choice: crate::CpuKernels,
    ) -> Result<Self, AnimError> {
        Self::with_options(
            data,
            &crate::RigOptions {
                kernels: choice,
                compression: None,
            },
        )
    }

    /// [`new`](Self::new) with the kernels and compression `options` ask for.
    ///
    /// # Errors
    /// As [`new`](Self::new), and [`AnimError::BadCompression`].
    pub(crate) fn with_options(
        data: &AnimationData,
        options: &crate::RigOptions,
    ) -> Result<Self, AnimError> {
        let choice = options.kernels;
        if let Some(c) = &options.compression {
            c.check()?;
        }
        data.validate()?;
        let n = data.nodes.len();
        let topo = crate::compute_topo_order(&data.nodes)?;
        let mut rest_trs = vec![0.0; n * TRS_STRIDE];
        for (rest, rec) in data.nodes.iter().zip(rest_trs.chunks_exact_mut(TRS_STRIDE)) {
            rec[T_OFF..T_OFF + 3].copy_from_slice(&rest.translation);
            rec[R_OFF..R_OFF + 4].copy_from_slice(&rest.rotation);
            rec[S_OFF..S_OFF + 3].copy_from_slice(&rest.scale);
        }
        let mut steps = Vec::with_capacity(n);
        for &node in &topo {
            steps.push(NodeStep {
                node: to_u32(node, "nodes (at most 4 294 967 294)")?,
                parent: match data.nodes[node].parent {
                    Some(p) => to_u32(p, "nodes (at most 4 294 967 294)")?,
                    None => NONE,
                },
            });
        }
        let mut clips = Vec::with_capacity(data.clips.len());
        let mut timeline_total = 0;
        let mut max_timelines = 0;
        let (mut max_vec3, mut max_quat, mut max_samples) = (0, 0, 0);
        for clip in &data.clips {
            let mut plan = ClipPlan::new(clip, timeline_total)?;
            (plan.nodes, plan.fused_rest) = plan.fused_nodes(clip, &steps, &data.nodes);
            let inputs = crate::quad_plan::QuadInputs {
                nodes: &plan.nodes,
                vec3: &plan.vec3,
                quat: &plan.quat,
                representative: &plan.timelines.representative,
                block_key_values: plan.blocks.iter().map(|b| b.keys.len()).sum(),
            };
            plan.quads = QuadPlan::new(clip, &inputs, &data.nodes);
            if let (Some(c), Some(lossless)) = (&options.compression, &plan.quads) {
                let raw_bytes = plan
                    .vec3
                    .iter()
                    .chain(&plan.quat)
                    .map(|t| clip.samplers[t.sampler as usize].output().len() * 4)
                    .sum();
                let (packed, report) = crate::packed_build::compress(
                    lossless,
                    clip,
                    &plan.timelines.representative,
                    n,
                    c,
                    raw_bytes,
                );
                plan.quads = Some(packed);
                plan.compression = Some(report);
            }
            timeline_total += plan.timelines.len();
            max_timelines = max_timelines.max(plan.timelines.len());
            max_vec3 = max_vec3.max(plan.vec3.len());
            max_quat = max_quat.max(plan.quat.len());
            max_samples =
                max_samples.max(plan.vec3.len() + plan.quat.len() + plan.fused_rest.len());
            clips.push(plan);
        }
        let kernels = crate::wide::Kernels::detect(choice);
        let bindings = data
            .skeletons
            .iter()
            .map(|s| {
                let ibm_affine = interpolate::matrices(&s.inverse_bind_matrices)
                    .iter()
                    .all(|m| interpolate::is_affine(&interpolate::load(m)));
                let ibm_splats = s
                    .inverse_bind_matrices
                    .chunks_exact(16)
                    .map(|m| std::array::from_fn(|i| glam::Vec4::splat(m[i])))
                    .collect();
                BindingPlan {
                    ibm_affine,
                    ibm_splats,
                    ibm_wide: crate::wide::wide_splats(kernels, &s.inverse_bind_matrices),
                }
            })
            .collect();
        let mut morph_of_node = vec![NONE; n];
        let mut morph_next = vec![NONE; data.morph_bindings.len()];
        // Walk backwards so that each node's list comes out in binding order.
        for (i, mb) in data.morph_bindings.iter().enumerate().rev() {
            morph_next[i] = morph_of_node[mb.node];
            morph_of_node[mb.node] = to_u32(i, "morph bindings (at most 4 294 967 294)")?;
        }
        let frame = Frame::new(data, &rest_trs, &steps);
        Ok(Self {
            frame,
            max_vec3,
            max_quat,
            max_samples,
            rest_trs,
            topo,
            steps,
            clips,
            bindings,
            timeline_total,
            max_timelines,
            morph_of_node,
            morph_next,
            kernels,
        })
    }
}

impl ClipPlan {
    fn new(clip: &crate::Clip, cursor_base: usize) -> Result<Self, AnimError> {
        for s in &clip.samplers {
            to_u32(s.input().len(), "keys of a sampler (at most 4 294 967 294)")?;
        }
        to_u32(
            clip.channels.len(),
            "channels of a clip (at most 4 294 967 294)",
        )?;
        to_u32(
            clip.samplers.len(),
            "samplers of a clip (at most 4 294 967 294)",
        )?;
        let timelines = Timelines::new(clip);
        // When two channels of the clip animate one property, the later one wins (as when
        // channels are applied in order): keep only the last per (node, path).
        let mut last: std::collections::HashMap<(usize, u8), usize> =
            std::collections::HashMap::new();
        for (ci, ch) in clip.channels.iter().enumerate() {
            let path = match ch.path {
                ChannelPath::Translation => 0,
                ChannelPath::Rotation => 1,
                ChannelPath::Scale => 2,
                ChannelPath::Weights => continue,
            };
            last.insert((ch.node, path), ci);
        }
        let mut plan = Self {
            duration: clip.duration(),
            timelines,
            cursor_base,
            vec3: Vec::new(),
            quat: Vec::new(),
            generic: Vec::new(),
            nodes: Vec::new(),
            fused_rest: Vec::new(),
            blocks: Vec::new(),
            quads: None,
            compression: None,
        };
        for (ci, ch) in clip.channels.iter().enumerate() {
            let (off, path) = match ch.path {
                ChannelPath::Translation => (T_OFF, 0),
                ChannelPath::Rotation => (R_OFF, 1),
                ChannelPath::Scale => (S_OFF, 2),
                ChannelPath::Weights => {
                    plan.generic
                        .push(to_u32(ci, "channels of a clip (at most 4 294 967 294)")?);
                    continue;
                }
            };
            if last.get(&(ch.node, path)) != Some(&ci) {
                continue;
            }
            let sampler = &clip.samplers[ch.sampler];
            if sampler.interpolation() == Interpolation::CubicSpline {
                plan.generic
                    .push(to_u32(ci, "channels of a clip (at most 4 294 967 294)")?);
                continue;
            }
            let track = Track {
                sampler: to_u32(ch.sampler, "samplers of a clip (at most 4 294 967 294)")?,
                timeline: plan.timelines.of_sampler[ch.sampler],
                dst: to_u32(ch.node * TRS_STRIDE + off, "nodes (at most 4 294 967 294)")?,
                step: sampler.interpolation() == Interpolation::Step,
            };
            if path == 1 {
                plan.quat.push(track);
            } else {
                plan.vec3.push(track);
            }
        }
        // Group tracks by timeline (stable: channel order within a timeline) and copy their
        // keys into one interleaved block per timeline.
        plan.vec3.sort_by_key(|t| t.timeline);
        plan.quat.sort_by_key(|t| t.timeline);
        let (mut v, mut q) = (0, 0);
        for (tl, &rep) in plan.timelines.representative.iter().enumerate() {
            #[expect(
                clippy::cast_possible_truncation,
                reason = "timeline counts fit u32 (sampler counts were checked)"
            )]
            let timeline = tl as u32;
            let v_end = v + plan.vec3[v..]
                .iter()
                .take_while(|t| t.timeline == timeline)
                .count();
            let q_end = q + plan.quat[q..]
                .iter()
                .take_while(|t| t.timeline == timeline)
                .count();
            if v_end > v || q_end > q {
                let keys = clip.samplers[rep as usize].input().len();
                let tracks = plan.vec3[v..v_end].iter().chain(&plan.quat[q..q_end]);
                let mut values = Vec::with_capacity(keys * (v_end - v + q_end - q));
                for k in 0..keys {
                    for (i, tr) in tracks.clone().enumerate() {
                        let out = clip.samplers[tr.sampler as usize].output();
                        values.push(if i < v_end - v {
                            glam::Vec4::new(out[k * 3], out[k * 3 + 1], out[k * 3 + 2], 0.0)
                        } else {
                            glam::Vec4::from_slice(&out[k * 4..k * 4 + 4])
                        });
                    }
                }
                plan.blocks.push(KeyBlock {
                    timeline,
                    vec3: v..v_end,
                    quat: q..q_end,
                    keys: values,
                    has_step: tracks.clone().any(|t| t.step),
                });
            }
            (v, q) = (v_end, q_end);
        }
        Ok(plan)
    }
}

impl ClipPlan {
    /// The fused pass's node list (see [`ClipPlan::nodes`]), or nothing when a transform
    /// channel of the clip is evaluated generically.
    fn fused_nodes(
        &self,
        clip: &crate::Clip,
        steps: &[NodeStep],
        rest: &[crate::NodeRest],
    ) -> (Vec<NodeSources>, Vec<glam::Vec4>) {
        let generic_transform = self
            .generic
            .iter()
            .any(|&ci| clip.channels[ci as usize].path != ChannelPath::Weights);
        if generic_transform {
            return (Vec::new(), Vec::new());
        }
        let n = steps.len();
        let (mut t, mut r, mut s) = (vec![NONE; n], vec![NONE; n], vec![NONE; n]);
        for (i, tr) in self.vec3.iter().enumerate() {
            let node = tr.dst as usize / TRS_STRIDE;
            let slot = if tr.dst as usize % TRS_STRIDE == T_OFF {
                &mut t
            } else {
                &mut s
            };
            #[expect(
                clippy::cast_possible_truncation,
                reason = "track counts fit u32 (channel counts were checked)"
            )]
            let index = i as u32;
            slot[node] = index;
        }
        for (i, tr) in self.quat.iter().enumerate() {
            #[expect(
                clippy::cast_possible_truncation,
                reason = "track counts fit u32 (channel counts were checked)"
            )]
            let index = (self.vec3.len() + i) as u32;
            r[tr.dst as usize / TRS_STRIDE] = index;
        }
        let mut fused_rest = Vec::new();
        let first_rest = self.vec3.len() + self.quat.len();
        let mut source = |index: u32, value: glam::Vec4| {
            if index != NONE {
                return index;
            }
            fused_rest.push(value);
            #[expect(
                clippy::cast_possible_truncation,
                reason = "at most 3 per node, and node counts fit u32"
            )]
            let index = (first_rest + fused_rest.len() - 1) as u32;
            index
        };
        let v3 = |v: [f32; 3]| glam::Vec4::new(v[0], v[1], v[2], 0.0);
        let nodes = steps
            .iter()
            .map(|st| {
                let node = st.node as usize;
                let n = &rest[node];
                NodeSources {
                    node: st.node,
                    parent: st.parent,
                    t: source(t[node], v3(n.translation)),
                    r: source(r[node], glam::Vec4::from_array(n.rotation)),
                    s: source(s[node], v3(n.scale)),
                }
            })
            .collect();
        (nodes, fused_rest)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use std::sync::Arc;

    use crate::{
        AnimationController, AnimationData, Channel, ChannelPath, Clip, Handedness, Interpolation,
        NodeRest, Sampler,
    };

    fn data() -> AnimationData {
        let s = |v: f32| {
            Sampler::new(
                vec![0.0, 1.0],
                vec![0.0, 0.0, 0.0, v, 0.0, 0.0],
                Interpolation::Linear,
            )
            .unwrap()
        };
        AnimationData {
            nodes: vec![NodeRest::new("a", None), NodeRest::new("b", Some(0))],
            clips: vec![Clip::new(
                "c",
                vec![s(1.0), s(2.0)],
                vec![
                    Channel {
                        sampler: 0,
                        node: 0,
                        path: ChannelPath::Translation,
                    },
                    Channel {
                        sampler: 1,
                        node: 1,
                        path: ChannelPath::Translation,
                    },
                ],
            )],
            skeletons: vec![],
            morph_bindings: vec![],
            handedness: Handedness::RightHanded,
        }
    }

    #[test]
    fn players_of_one_rig_share_its_plan_and_release_the_data() {
        let mut data = Arc::new(data());
        let rig = crate::Rig::new(Arc::clone(&data)).unwrap();
        let a = AnimationController::from_rig(&rig);
        let b = AnimationController::from_rig(&rig);
        assert!(Arc::ptr_eq(&a.scratch().plan, &b.scratch().plan));
        // Another rig is another plan, even over equal contents.
        let other = AnimationController::new(Arc::new(self::data())).unwrap();
        assert!(!Arc::ptr_eq(&a.scratch().plan, &other.scratch().plan));
        drop((a, b, other, rig));
        // Nothing holds the data any more: it can be edited in place again.
        assert!(Arc::get_mut(&mut data).is_some());
    }

    #[test]
    fn key_blocks_interleave_the_tracks_of_a_timeline() {
        let plan = super::PosePlan::new(&data()).unwrap();
        let block = &plan.clips[0].blocks[0];
        assert_eq!((block.vec3.clone(), block.quat.clone()), (0..2, 0..0));
        // key 0 of both tracks, then key 1 of both.
        let xs: Vec<f32> = block.keys.iter().map(|v| v.x).collect();
        assert_eq!(xs, vec![0.0, 0.0, 1.0, 2.0]);
    }
}
