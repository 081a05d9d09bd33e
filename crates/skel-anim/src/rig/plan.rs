//! The evaluation plan of one asset, built once by [`Rig::new`](crate::Rig::new) (or a
//! [`PoseScratch`](crate::PoseScratch) made on its own) and shared behind an `Arc` by every
//! player of that rig: flat rest pose, parent links in
//! topological order, and per clip the channels sorted into tracks that the hot loop walks
//! without matching on paths, searching keys per channel or resolving "last channel wins" again.

use crate::data::NONE;
use crate::math::interpolate;
use crate::rig::clip_plan::{ClipPlan, to_u32};
use crate::rig::four_node::QuadPlan;
use crate::rig::layout::{NodeStep, Transform};
use crate::{AnimError, AnimationData, R_OFF, S_OFF, T_OFF, TRS_STRIDE};

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
    /// load, `compile::kernels::wide_splats`); empty unless the plan's kernels are `Avx2Fma`.
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
            root: Transform::Diagonal(crate::rig::layout::mirror(handedness)),
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
        crate::rig::layout::hierarchy_pass(rest_trs, steps, &mut rest_world, &world_frame.root);
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
        let mirror = crate::rig::layout::mirror(data.handedness);
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
    pub(crate) kernels: crate::rig::kernels::Kernels,
}

impl PosePlan {
    /// The most quads of any clip whose keys are compressed (0 where none is): the room a
    /// character's decoded-key cache needs.
    pub(crate) fn packed_quads(&self) -> usize {
        self.clips
            .iter()
            .filter_map(|c| c.quads.as_ref())
            .filter(|q| q.packed.is_some())
            .map(|q| q.quads.len())
            .max()
            .unwrap_or(0)
    }

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
        let steps = node_steps(data, &topo)?;
        let mut clips = Vec::with_capacity(data.clips.len());
        let mut timeline_total = 0;
        let mut max_timelines = 0;
        let (mut max_vec3, mut max_quat, mut max_samples) = (0, 0, 0);
        for clip in &data.clips {
            let plan = clip_plan(clip, timeline_total, &steps, &data.nodes)?;
            timeline_total += plan.timelines.len();
            max_timelines = max_timelines.max(plan.timelines.len());
            max_vec3 = max_vec3.max(plan.vec3.len());
            max_quat = max_quat.max(plan.quat.len());
            max_samples =
                max_samples.max(plan.vec3.len() + plan.quat.len() + plan.fused_rest.len());
            clips.push(plan);
        }
        let kernels = crate::rig::kernels::Kernels::detect(choice);
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
                    ibm_wide: crate::rig::kernels::wide_splats(kernels, &s.inverse_bind_matrices),
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

/// The nodes in evaluation order (`topo`) with their parents.
fn node_steps(data: &AnimationData, topo: &[usize]) -> Result<Vec<NodeStep>, AnimError> {
    let mut steps = Vec::with_capacity(topo.len());
    for &node in topo {
        steps.push(NodeStep {
            node: to_u32(node, "nodes (at most 4 294 967 294)")?,
            parent: match data.nodes[node].parent {
                Some(p) => to_u32(p, "nodes (at most 4 294 967 294)")?,
                None => NONE,
            },
        });
    }
    Ok(steps)
}

/// One clip's plan, its cursors from `cursor_base`, over the nodes `steps` (at rest `rest`).
fn clip_plan(
    clip: &crate::Clip,
    cursor_base: usize,
    steps: &[NodeStep],
    rest: &[crate::NodeRest],
) -> Result<ClipPlan, AnimError> {
    let mut plan = ClipPlan::new(clip, cursor_base)?;
    (plan.nodes, plan.fused_rest) = plan.fused_nodes(clip, steps, rest);
    let inputs = crate::rig::four_node::QuadInputs {
        nodes: &plan.nodes,
        vec3: &plan.vec3,
        quat: &plan.quat,
        representative: &plan.timelines.representative,
        block_key_values: plan.blocks.iter().map(|b| b.keys.len()).sum(),
    };
    plan.quads = QuadPlan::new(clip, &inputs, rest);
    Ok(plan)
}

/// The lossless plan of clip `clip` of `data` alone (after validating `data`): its four-node
/// layout, and which track feeds each lane.
pub(crate) fn lossless_clip(data: &AnimationData, clip: usize) -> Result<ClipPlan, AnimError> {
    data.validate()?;
    let topo = crate::compute_topo_order(&data.nodes)?;
    let steps = node_steps(data, &topo)?;
    let c = data.clips.get(clip).ok_or(AnimError::NoSuchClip {
        clip,
        clip_count: data.clips.len(),
    })?;
    clip_plan(c, 0, &steps, &data.nodes)
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
