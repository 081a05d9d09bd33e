//! The evaluation plan of one asset, built once when a [`PoseScratch`](crate::PoseScratch) is
//! made and shared (behind an `Arc`) by every clone of it: flat rest pose, parent links in
//! topological order, and per clip the channels sorted into tracks that the hot loop walks
//! without matching on paths, searching keys per channel or resolving "last channel wins" again.

use crate::timeline::Timelines;
use crate::{
    AnimError, AnimationData, ChannelPath, Interpolation, R_OFF, S_OFF, T_OFF, TRS_STRIDE,
    interpolate,
};

/// "No parent" / "no binding" in the plan's `u32` links.
pub(crate) const NONE: u32 = u32::MAX;

/// One node of the hierarchy pass, in parents-before-children order.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NodeStep {
    pub(crate) node: u32,
    /// The parent node, [`NONE`] for a root.
    pub(crate) parent: u32,
}

/// One LINEAR or STEP translation, rotation or scale channel: sampler `sampler` (of its clip),
/// keyed on timeline `timeline`, written at `dst` in the TRS scratch.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Track {
    pub(crate) sampler: u32,
    pub(crate) timeline: u32,
    pub(crate) dst: u32,
    pub(crate) step: bool,
}

/// One node of a clip's fused pass (sampling straight into the hierarchy): where its
/// translation, rotation and scale come from this frame. `t` and `s` index the clip's `vec3`
/// tracks, `r` its `quat` tracks; [`NONE`] means the rest value.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NodeSources {
    pub(crate) node: u32,
    pub(crate) parent: u32,
    pub(crate) t: u32,
    pub(crate) r: u32,
    pub(crate) s: u32,
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
    /// Channels evaluated by [`evaluate_sampler_cursor`](crate::evaluate_sampler_cursor) in
    /// channel order: CUBICSPLINE translation/rotation/scale and every weights channel.
    pub(crate) generic: Vec<u32>,
    /// Every node in topological order with its sources, for the fused pass; empty when a
    /// translation, rotation or scale channel of the clip needs the generic path (CUBICSPLINE).
    pub(crate) nodes: Vec<NodeSources>,
}

/// What the bone pass needs to know about a skeleton binding beyond its data.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BindingPlan {
    /// Every inverse-bind matrix has the last row `(0, 0, 0, 1)`: affine products suffice.
    pub(crate) ibm_affine: bool,
}

/// Everything about an asset that the per-frame steps would otherwise recompute.
#[derive(Debug, Clone)]
pub(crate) struct PosePlan {
    /// Rest TRS of every node, [`TRS_STRIDE`] floats each (padding zero): the reset is one copy.
    pub(crate) rest_trs: Vec<f32>,
    /// The same rest values as vectors (`w` zero for translation and scale).
    pub(crate) rest_t: Vec<glam::Vec4>,
    pub(crate) rest_r: Vec<glam::Vec4>,
    pub(crate) rest_s: Vec<glam::Vec4>,
    /// The most vec3 and quat tracks of any clip (the fused pass's sample buffers).
    pub(crate) max_vec3: usize,
    pub(crate) max_quat: usize,
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
    /// The plan of validated `data`.
    ///
    /// # Errors
    /// [`AnimError::LengthMismatch`] when a node, sampler, key or morph-binding count does not
    /// fit the plan's 32-bit indices (more than 4 294 967 294).
    pub(crate) fn new(data: &AnimationData) -> Result<Self, AnimError> {
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
        let (mut max_vec3, mut max_quat) = (0, 0);
        for clip in &data.clips {
            let mut plan = ClipPlan::new(clip, timeline_total)?;
            plan.nodes = plan.fused_nodes(clip, &steps);
            timeline_total += plan.timelines.len();
            max_timelines = max_timelines.max(plan.timelines.len());
            max_vec3 = max_vec3.max(plan.vec3.len());
            max_quat = max_quat.max(plan.quat.len());
            clips.push(plan);
        }
        let v4 = |v: [f32; 3]| glam::Vec4::new(v[0], v[1], v[2], 0.0);
        let bindings = data
            .skeletons
            .iter()
            .map(|s| BindingPlan {
                ibm_affine: s
                    .inverse_bind_matrices
                    .chunks_exact(16)
                    .all(|m| interpolate::is_affine(&interpolate::load(m, 0))),
            })
            .collect();
        let mut morph_of_node = vec![NONE; n];
        let mut morph_next = vec![NONE; data.morph_bindings.len()];
        // Walk backwards so that each node's list comes out in binding order.
        for (i, mb) in data.morph_bindings.iter().enumerate().rev() {
            morph_next[i] = morph_of_node[mb.node];
            morph_of_node[mb.node] = to_u32(i, "morph bindings (at most 4 294 967 294)")?;
        }
        Ok(Self {
            rest_t: data.nodes.iter().map(|n| v4(n.translation)).collect(),
            rest_r: data
                .nodes
                .iter()
                .map(|n| glam::Vec4::from_array(n.rotation))
                .collect(),
            rest_s: data.nodes.iter().map(|n| v4(n.scale)).collect(),
            max_vec3,
            max_quat,
            rest_trs,
            topo,
            steps,
            clips,
            bindings,
            timeline_total,
            max_timelines,
            morph_of_node,
            morph_next,
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
        Ok(plan)
    }
}

impl ClipPlan {
    /// The fused pass's node list (see [`ClipPlan::nodes`]), or nothing when a transform
    /// channel of the clip is evaluated generically.
    fn fused_nodes(&self, clip: &crate::Clip, steps: &[NodeStep]) -> Vec<NodeSources> {
        let generic_transform = self
            .generic
            .iter()
            .any(|&ci| clip.channels[ci as usize].path != ChannelPath::Weights);
        if generic_transform {
            return Vec::new();
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
            let index = i as u32;
            r[tr.dst as usize / TRS_STRIDE] = index;
        }
        steps
            .iter()
            .map(|st| {
                let node = st.node as usize;
                NodeSources {
                    node: st.node,
                    parent: st.parent,
                    t: t[node],
                    r: r[node],
                    s: s[node],
                }
            })
            .collect()
    }
}
