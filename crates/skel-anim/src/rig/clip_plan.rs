//! One clip sorted for evaluation, built once per asset: its channels as tracks grouped by
//! key-time array, their keys interleaved into blocks, the node list of the fused pass, and the
//! four-node key blocks where the clip allows them.

use crate::data::NONE;
use crate::rig::four_node::QuadPlan;
use crate::rig::layout::{NodeSources, NodeStep, Track};
use crate::rig::timelines::Timelines;
use crate::{AnimError, ChannelPath, Interpolation, R_OFF, S_OFF, T_OFF, TRS_STRIDE};

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
    /// This clip's first [`TimeCursor`](crate::sample::cursor::TimeCursor) in a scratch.
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

impl ClipPlan {
    pub(crate) fn new(clip: &crate::Clip, cursor_base: usize) -> Result<Self, AnimError> {
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
    pub(crate) fn fused_nodes(
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

/// `value` as a plan index, or [`AnimError::LengthMismatch`] naming `what` when it does not fit
/// (`u32::MAX` is [`NONE`]).
pub(crate) fn to_u32(value: usize, what: &'static str) -> Result<u32, AnimError> {
    u32::try_from(value)
        .ok()
        .filter(|&v| v != NONE)
        .ok_or_else(|| AnimError::LengthMismatch {
            what,
            expected: NONE as usize - 1,
            got: value,
        })
}
